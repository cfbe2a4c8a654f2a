package syntax

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// The tagged literals the reader knows: #inst "2024-01-02T03:04:05Z", an
// instant, and #uuid "…", a UUID. Both take a string; any other tag is
// an error.

// ParseInst reads the text of an #inst literal as Clojure does: a year,
// then optionally the month, the day, "T" and the hour, minutes, seconds
// and a fraction of a second, each requiring the ones before it, and an
// offset, "Z" or ±hh:mm (none is UTC). "2024", "2024-03-15T10:30" and
// "2024-03-15T10:30:00.250+02:00" are instants. The result is in UTC, cut
// to the millisecond, as a java.util.Date holds it.
func ParseInst(s string) (time.Time, error) {
	bad := func(why string) (time.Time, error) {
		return time.Time{}, fmt.Errorf("#inst %q is not an instant: %s (write \"2024-01-02\" or \"2024-01-02T03:04:05Z\")", clip(s), why)
	}
	i := 0
	digits := func(n int) (int, bool) {
		if i+n > len(s) {
			return 0, false
		}
		v := 0
		for _, c := range []byte(s[i : i+n]) {
			if c < '0' || c > '9' {
				return 0, false
			}
			v = v*10 + int(c-'0')
		}
		i += n
		return v, true
	}
	sep := func(c byte) bool {
		if i < len(s) && s[i] == c {
			i++
			return true
		}
		return false
	}
	year, ok := digits(4)
	if !ok {
		return bad("it starts with a four-digit year")
	}
	month, day, hour, minute, sec, nanos := 1, 1, 0, 0, 0, 0
	if sep('-') {
		if month, ok = digits(2); !ok {
			return bad("the month has two digits")
		}
		if sep('-') {
			if day, ok = digits(2); !ok {
				return bad("the day has two digits")
			}
			if sep('T') {
				if hour, ok = digits(2); !ok {
					return bad("the hour has two digits")
				}
				if sep(':') {
					if minute, ok = digits(2); !ok {
						return bad("the minutes have two digits")
					}
					if sep(':') {
						if sec, ok = digits(2); !ok {
							return bad("the seconds have two digits")
						}
						if sep('.') {
							start := i
							for i < len(s) && s[i] >= '0' && s[i] <= '9' {
								i++
							}
							frac := s[start:i]
							if frac == "" {
								return bad("a fraction of a second has digits")
							}
							frac = (frac + "000000000")[:9]
							n, _ := strconv.Atoi(frac)
							nanos = n
						}
					}
				}
			}
		}
	}
	offset := 0
	switch {
	case sep('Z'):
	case i < len(s) && (s[i] == '+' || s[i] == '-'):
		sign := 1
		if s[i] == '-' {
			sign = -1
		}
		i++
		oh, ok1 := digits(2)
		ok2 := sep(':')
		om, ok3 := digits(2)
		if !ok1 || !ok2 || !ok3 || oh > 23 || om > 59 {
			return bad("an offset is Z or ±hh:mm")
		}
		offset = sign * (oh*3600 + om*60)
	}
	if i != len(s) {
		return bad("unexpected text after the date")
	}
	switch {
	case month < 1 || month > 12:
		return bad("the month is 01 to 12")
	case day < 1 || day > daysIn(year, month):
		return bad("there is no such day in that month")
	case hour > 23:
		return bad("the hour is 00 to 23")
	case minute > 59:
		return bad("the minutes are 00 to 59")
	case sec > 60:
		return bad("the seconds are 00 to 60")
	}
	t := time.Date(year, time.Month(month), day, hour, minute, sec, nanos, time.FixedZone("", offset))
	return t.UTC().Truncate(time.Millisecond), nil
}

func daysIn(year, month int) int {
	return time.Date(year, time.Month(month)+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

// CanonicalUUID returns the canonical text of a UUID written as Java's
// UUID/fromString reads it (five groups of hex digits, which may be
// shorter than the canonical 8-4-4-4-12, any case): 36 lower-case
// characters. ok is false for anything else.
func CanonicalUUID(s string) (canonical string, ok bool) {
	if len(s) > 36 {
		return "", false
	}
	parts := strings.Split(s, "-")
	if len(parts) != 5 {
		return "", false
	}
	var f [5]uint64
	for i, p := range parts {
		n, err := strconv.ParseInt(p, 16, 64) // a sign too, as Java's Long.parseLong
		if err != nil {
			return "", false
		}
		f[i] = uint64(n)
	}
	return fmt.Sprintf("%08x-%04x-%04x-%04x-%012x",
		f[0]&0xffffffff, f[1]&0xffff, f[2]&0xffff, f[3]&0xffff, f[4]&0xffffffffffff), true
}
