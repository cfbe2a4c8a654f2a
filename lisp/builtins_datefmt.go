package lisp

import (
	"strconv"
	"strings"
	"time"
)

// Java's date patterns, as models write them to format and read dates:
// (.format d (DateTimeFormatter/ofPattern "dd/MM/yyyy")), (LocalDate/parse
// s formatter), (.format (SimpleDateFormat. "yyyy-MM-dd") inst). A
// formatter is its pattern, a string, checked when it is made
// (docs/deviations.md); date-times format and parse in UTC.

// patternPart is one field or literal of a pattern.
type patternPart struct {
	letter byte // 0 for a literal
	n      int  // how many times the letter repeats
	lit    string
}

// patternLetters are the pattern letters supported: year, month, day of
// month and of year, day of week, am/pm, hours, minutes, seconds, fraction,
// and the zone of a UTC date-time.
const patternLetters = "yuMLdDEaHhmsSXZzx"

// parseJavaPattern splits a DateTimeFormatter / SimpleDateFormat pattern.
func parseJavaPattern(fn, p string) ([]patternPart, error) {
	var parts []patternPart
	for i := 0; i < len(p); {
		c := p[i]
		switch {
		case c == '\'':
			// 'text' is literal; '' is a quote.
			j := i + 1
			var sb strings.Builder
			for {
				if j >= len(p) {
					return nil, classError(InvalidArgument, classIllegalArgument, "%s: pattern %s has an unclosed quote", fn, quoteShort(p))
				}
				if p[j] == '\'' {
					if j+1 < len(p) && p[j+1] == '\'' {
						sb.WriteByte('\'')
						j += 2
						continue
					}
					break
				}
				sb.WriteByte(p[j])
				j++
			}
			if j == i+1 {
				sb.WriteByte('\'') // '' outside quotes
			}
			parts = append(parts, patternPart{lit: sb.String()})
			i = j + 1
		case 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
			if !strings.ContainsRune(patternLetters, rune(c)) {
				return nil, classError(InvalidArgument, classIllegalArgument, "%s: pattern letter %c is not supported (use y M d E H h m s S a)", fn, c)
			}
			j := i
			for j < len(p) && p[j] == c {
				j++
			}
			parts = append(parts, patternPart{letter: c, n: j - i})
			i = j
		default:
			parts = append(parts, patternPart{lit: string(c)})
			i++
		}
	}
	return parts, nil
}

// formatJava formats tm by the pattern; a date (hasTime false) has no
// time-of-day or zone fields, as a LocalDate has none.
func formatJava(fn string, parts []patternPart, tm time.Time, hasTime bool) (string, error) {
	var sb strings.Builder
	pad := func(v, n int) {
		s := strconv.Itoa(v)
		for k := len(s); k < n; k++ {
			sb.WriteByte('0')
		}
		sb.WriteString(s)
	}
	for _, p := range parts {
		if p.letter == 0 {
			sb.WriteString(p.lit)
			continue
		}
		if !hasTime && strings.IndexByte("aHhmsSXxZz", p.letter) >= 0 {
			return "", classError(InvalidArgument, classDateTime, "%s: Unsupported field: %s (a date has no time of day; use a date-time)", fn, fieldName(p.letter))
		}
		switch p.letter {
		case 'y', 'u':
			if p.n == 2 {
				pad(tm.Year()%100, 2)
			} else {
				pad(tm.Year(), p.n)
			}
		case 'M', 'L':
			switch {
			case p.n <= 2:
				pad(int(tm.Month()), p.n)
			case p.n == 3:
				sb.WriteString(tm.Month().String()[:3])
			case p.n == 4:
				sb.WriteString(tm.Month().String())
			default:
				sb.WriteString(tm.Month().String()[:1])
			}
		case 'd':
			pad(tm.Day(), p.n)
		case 'D':
			pad(tm.YearDay(), p.n)
		case 'E':
			switch {
			case p.n <= 3:
				sb.WriteString(tm.Weekday().String()[:3])
			case p.n == 4:
				sb.WriteString(tm.Weekday().String())
			default:
				sb.WriteString(tm.Weekday().String()[:1])
			}
		case 'a':
			if tm.Hour() < 12 {
				sb.WriteString("AM")
			} else {
				sb.WriteString("PM")
			}
		case 'H':
			pad(tm.Hour(), p.n)
		case 'h':
			pad((tm.Hour()+11)%12+1, p.n)
		case 'm':
			pad(tm.Minute(), p.n)
		case 's':
			pad(tm.Second(), p.n)
		case 'S':
			frac := strconv.Itoa(tm.Nanosecond() + 1_000_000_000)[1:] // nine digits
			for len(frac) < p.n {
				frac += "0"
			}
			sb.WriteString(frac[:p.n])
		case 'X', 'x', 'Z':
			sb.WriteString(patternOffset(p, tm))
		case 'z':
			name, _ := tm.Zone()
			sb.WriteString(name)
		}
	}
	return sb.String(), nil
}

// fieldName is java.time's name of a pattern letter's field.
func fieldName(c byte) string {
	switch c {
	case 'a':
		return "AmPmOfDay"
	case 'H':
		return "HourOfDay"
	case 'h':
		return "ClockHourOfAmPm"
	case 'm':
		return "MinuteOfHour"
	case 's':
		return "SecondOfMinute"
	case 'S':
		return "NanoOfSecond"
	}
	return "OffsetSeconds"
}

// parseJava reads s by the pattern: every character of s, each field in
// its range (a day of month up to 31). A day past its month's end is
// resolved as DateTimeFormatter's default (SMART) resolves it, to the
// month's last day, or, lenient, as SimpleDateFormat does, into the next
// month. A date-time's time fields default to midnight UTC.
func parseJava(fn string, parts []patternPart, s string, lenient bool) (time.Time, error) {
	fail := func() (time.Time, error) {
		return time.Time{}, classError(InvalidArgument, classDateTimeParse, "Text %s could not be parsed (%s)", quoteShort(s), fn)
	}
	year, month, day, yday := 1970, 1, 1, 0
	hour, minute, sec, nano, pm, hasPM, hour12 := 0, 0, 0, 0, false, false, false
	i := 0
	number := func(p patternPart, next *patternPart) (int, bool) {
		max := 9
		if p.n >= 2 || next != nil && next.letter != 0 && next.letter != 'E' && next.letter != 'a' && !(next.letter == 'M' && next.n >= 3) {
			max = max2(p.n, 2)
			if p.letter == 'y' || p.letter == 'u' {
				max = max2(p.n, 4)
			}
		}
		j := i
		for j < len(s) && j-i < max && '0' <= s[j] && s[j] <= '9' {
			j++
		}
		if j == i {
			return 0, false
		}
		v, err := strconv.Atoi(s[i:j])
		if err != nil {
			return 0, false
		}
		i = j
		return v, true
	}
	name := func(names func(int) string, count, short int) (int, bool) {
		for k := 0; k < count; k++ {
			full := names(k)
			cand := full
			if short > 0 {
				cand = full[:short]
			}
			if len(s)-i >= len(cand) && strings.EqualFold(s[i:i+len(cand)], cand) {
				i += len(cand)
				return k, true
			}
		}
		return 0, false
	}
	for k, p := range parts {
		var next *patternPart
		if k+1 < len(parts) {
			next = &parts[k+1]
		}
		if p.letter == 0 {
			if !strings.HasPrefix(s[i:], p.lit) {
				return fail()
			}
			i += len(p.lit)
			continue
		}
		var ok bool
		switch p.letter {
		case 'y', 'u':
			year, ok = number(p, next)
			if ok && p.n == 2 {
				year += 2000
			}
		case 'M', 'L':
			if p.n >= 3 {
				short := 3
				if p.n == 4 {
					short = 0
				}
				var m int
				if m, ok = name(func(k int) string { return time.Month(k + 1).String() }, 12, short); ok {
					month = m + 1
				}
			} else {
				month, ok = number(p, next)
			}
		case 'd':
			day, ok = number(p, next)
		case 'D':
			yday, ok = number(p, next)
		case 'E':
			short := 3
			if p.n == 4 {
				short = 0
			}
			_, ok = name(func(k int) string { return time.Weekday(k).String() }, 7, short)
		case 'a':
			var v int
			if v, ok = name(func(k int) string { return [2]string{"AM", "PM"}[k] }, 2, 0); ok {
				pm, hasPM = v == 1, true
			}
		case 'H':
			hour, ok = number(p, next)
		case 'h':
			hour, ok = number(p, next)
			hour12 = true
		case 'm':
			minute, ok = number(p, next)
		case 's':
			sec, ok = number(p, next)
		case 'S':
			start := i
			var v int
			if v, ok = number(patternPart{letter: 'S', n: p.n}, nil); ok {
				digits := i - start
				for ; digits < 9; digits++ {
					v *= 10
				}
				nano = v
			}
		case 'X', 'x', 'Z', 'z':
			for _, z := range []string{"UTC", "+0000", "+00:00", "Z"} {
				if strings.HasPrefix(s[i:], z) {
					i += len(z)
					ok = true
					break
				}
			}
		}
		if !ok {
			return fail()
		}
	}
	if i != len(s) {
		return fail()
	}
	if hour12 {
		if hour < 1 || hour > 12 {
			return fail()
		}
		hour %= 12
	}
	if hasPM && pm {
		hour += 12
	}
	if yday > 0 {
		if yday > 365+boolInt(daysIn(year, 2) == 29) {
			return fail()
		}
		t := time.Date(year, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, yday-1)
		month, day = int(t.Month()), t.Day()
	}
	if month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || sec > 59 {
		return fail()
	}
	if day > daysIn(year, month) && !lenient {
		day = daysIn(year, month)
	}
	return time.Date(year, time.Month(month), day, hour, minute, sec, nano, time.UTC), nil
}

func max2(a, b int) int {
	if a > b {
		return a
	}
	return b
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func registerDateFormats(t *builtinTable) {
	pattern := func(name string) builtinFn {
		return func(_ *thread, a []Value) (Value, error) {
			p, err := stringArg(name, a, 0)
			if err != nil {
				return nil, err
			}
			// A locale may follow: the English ones, whose names of days
			// and months are the ones formatting writes.
			if len(a) == 2 && !isLocale(a[1]) {
				return nil, argError(name, 1, "an English locale (Locale/US, Locale/ENGLISH): names are English", a[1])
			}
			if _, err := parseJavaPattern(name, p); err != nil {
				return nil, err
			}
			return p, nil
		}
	}
	t.add("DateTimeFormatter/ofPattern", 1, 2, pattern("DateTimeFormatter/ofPattern"))
	// The ISO formatters are their patterns too (a formatter is its
	// pattern: deviation 92); as Java formats, seconds always show.
	for name, p := range map[string]string{
		"ISO_LOCAL_DATE": "yyyy-MM-dd", "ISO_DATE": "yyyy-MM-dd", "BASIC_ISO_DATE": "yyyyMMdd",
		"ISO_LOCAL_TIME": "HH:mm:ss", "ISO_LOCAL_DATE_TIME": "yyyy-MM-dd'T'HH:mm:ss",
	} {
		t.set("DateTimeFormatter/"+name, p)
	}
	t.add("java.text.SimpleDateFormat.", 1, 2, pattern("SimpleDateFormat."), "SimpleDateFormat.")
	// (.format date formatter), as a LocalDate or ZonedDateTime formats;
	// (.format formatter date), as DateTimeFormatter and SimpleDateFormat do.
	t.add(".format", 2, 2, func(_ *thread, a []Value) (Value, error) {
		d, f := a[0], a[1]
		if _, ok := d.(string); ok {
			d, f = f, d
		}
		p, ok := f.(string)
		switch d.(type) {
		case Date, Instant:
		default:
			ok = false
		}
		if !ok {
			return nil, errorf(TypeError, ".format expects a date or date-time and a formatter from (DateTimeFormatter/ofPattern \"...\"); for text use (format fmt args...)")
		}
		parts, err := parseJavaPattern(".format", p)
		if err != nil {
			return nil, err
		}
		switch x := d.(type) {
		case Date:
			if x.Y < 1 || x.Y > 9999 {
				return nil, errorf(InvalidArgument, ".format: the year %d is outside 1-9999", x.Y)
			}
			return formatJava(".format", parts, time.Date(x.Y, time.Month(x.M), x.D, 0, 0, 0, 0, time.UTC), false)
		case Instant:
			if x.zone != nil {
				return formatJava(".format", parts, x.instant(), true)
			}
			return formatJava(".format", parts, x.T.UTC(), true)
		}
		return nil, errorf(TypeError, ".format expects a date or date-time")
	})
	// (.parse (SimpleDateFormat. p) s): a date-time, in UTC.
	t.add(".parse", 2, 2, func(_ *thread, a []Value) (Value, error) {
		p, err := stringArg(".parse", a, 0)
		if err != nil {
			return nil, err
		}
		s, err := stringArg(".parse", a, 1)
		if err != nil {
			return nil, err
		}
		tm, err := parseByPattern(".parse", s, p, true)
		if err != nil {
			return nil, err
		}
		return Instant{T: tm}, nil
	})
}

// parseByPattern reads s by the Java pattern p (a formatter's), for fn.
func parseByPattern(fn, s, p string, lenient bool) (time.Time, error) {
	parts, err := parseJavaPattern(fn, p)
	if err != nil {
		return time.Time{}, err
	}
	return parseJava(fn, parts, s, lenient)
}

// parseDatePattern is (LocalDate/parse s formatter).
func parseDatePattern(s, p string) (Value, error) {
	tm, err := parseByPattern("LocalDate/parse", s, p, false)
	if err != nil {
		return nil, err
	}
	return Date{tm.Year(), int(tm.Month()), tm.Day()}, nil
}
