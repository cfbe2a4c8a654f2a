package lisp

import (
	"math"
	"strings"
	"time"
)

// Instant is a point in time: what (java.util.Date. x) returns, printed as
// Clojure prints one, #inst "2024-01-02T03:04:05.000-00:00". A
// java.time.LocalDateTime, (LocalDateTime/parse "2024-01-02T03:04"), is an
// Instant too, whose fields are T's in UTC and whose Local method reports
// it; it prints #date-time "2024-01-02T03:04".
type Instant struct {
	T     time.Time
	local bool // a LocalDateTime, or a ZonedDateTime or OffsetDateTime (zone set)
	// zone is the zone of a ZonedDateTime or an OffsetDateTime, whose
	// wall clock T holds (builtins_zoned.go).
	zone     *zoneRule
	offsetDT bool  // an OffsetDateTime
	off      int32 // the offset of a zoned one's wall clock, in seconds
}

// Local reports whether i is a java.time.LocalDateTime: a date and a time
// of day without a zone, which T holds in UTC.
func (i Instant) Local() bool { return i.local }

// Add returns i moved by d, of the same kind (an instant or a
// LocalDateTime).
func (i Instant) Add(d time.Duration) Instant {
	if i.zone != nil && !i.zone.offset {
		// Along the time line, as java.time moves a ZonedDateTime by
		// hours: across a change of daylight saving time the wall clock
		// moves by more or less.
		return zonedAt(i.instant().Add(d), i.zone, i.offsetDT)
	}
	return i.withWall(i.T.Add(d))
}

// Date is a calendar date, what (java.time.LocalDate/parse "2024-01-02")
// returns; str gives "2024-01-02".
type Date struct{ Y, M, D int }

// iso is the ISO 8601 form, 2024-01-02, as str, ToGo and JSON give it.
func (d Date) iso() string {
	return time.Date(d.Y, time.Month(d.M), d.D, 0, 0, 0, 0, time.UTC).Format("2006-01-02")
}

// rfc3339 is the RFC 3339 form, as str gives it; for a LocalDateTime
// Java's toString, 2024-01-02T03:04 (seconds and their fraction when not
// zero, the fraction in groups of three digits).
func (i Instant) rfc3339() string {
	if i.zone != nil {
		return i.zonedText()
	}
	if i.local {
		return localDateTime(i.T)
	}
	return i.T.UTC().Format(time.RFC3339Nano)
}

// localDateTime is LocalDateTime.toString of t's fields in UTC: the
// date, T, and the time of day as LocalTime.toString writes it.
func localDateTime(t time.Time) string {
	t = t.UTC()
	return t.Format("2006-01-02") + "T" + localTimeText(clockOf(t))
}

// printed is the form inside #inst "...", as Clojure prints a java.util.Date.
func (i Instant) printed() string { return i.T.UTC().Format("2006-01-02T15:04:05.000") + "-00:00" }

func registerTime(t *builtinTable) {
	t.add("java.util.Date.", 0, 1, func(th *thread, a []Value) (Value, error) {
		if len(a) == 0 {
			return Instant{T: time.Now().UTC()}, nil
		}
		return toInstant("java.util.Date.", a[0])
	}, "Date.")
	t.add(".getTime", 1, 1, func(_ *thread, a []Value) (Value, error) {
		i, ok := a[0].(Instant)
		if !ok {
			return nil, argError(".getTime", 0, "a date-time from (java.util.Date. ...)", a[0])
		}
		return i.instant().UnixMilli(), nil
	}, "inst-ms", ".toEpochMilli")
	// (Thread/sleep ms) returns at once: a program has nothing to wait
	// for (tools are called when it calls them, and a pause before a call
	// is the host's business), and its time is bounded (docs/deviations.md).
	t.add("Thread/sleep", 1, 2, func(_ *thread, a []Value) (Value, error) {
		if _, err := intArg("Thread/sleep", a, 0); err != nil {
			return nil, err
		}
		return nil, nil
	})
	t.add("System/currentTimeMillis", 0, 0, func(*thread, []Value) (Value, error) {
		return time.Now().UnixMilli(), nil
	})
	// (System/nanoTime) is a clock for intervals, as Java's: its origin
	// means nothing, differences are nanoseconds.
	t.add("System/nanoTime", 0, 0, func(*thread, []Value) (Value, error) {
		return time.Now().UnixNano(), nil
	})
	t.add("LocalDate/parse", 1, 2, func(_ *thread, a []Value) (Value, error) {
		s, err := stringArg("LocalDate/parse", a, 0)
		if err != nil {
			return nil, err
		}
		if len(a) == 2 {
			p, err := stringArg("LocalDate/parse", a, 1)
			if err != nil {
				return nil, err
			}
			return parseDatePattern(s, p)
		}
		tm, perr := time.Parse("2006-01-02", strings.TrimSpace(s))
		if perr != nil {
			return nil, classError(InvalidArgument, classDateTimeParse, "LocalDate/parse: %s is not a date like 2024-01-31", quoteShort(s))
		}
		return Date{tm.Year(), int(tm.Month()), tm.Day()}, nil
	})
	// java.time.Instant's constructors and methods, on the same date-time
	// value as java.util.Date's (docs/deviations.md).
	t.add("Instant/parse", 1, 1, func(_ *thread, a []Value) (Value, error) {
		s, err := stringArg("Instant/parse", a, 0)
		if err != nil {
			return nil, err
		}
		tm, perr := time.Parse(time.RFC3339Nano, s)
		if perr != nil {
			return nil, classError(InvalidArgument, classDateTimeParse, "Instant/parse: %s is not an instant like 2024-01-31T10:00:00Z", quoteShort(s))
		}
		return Instant{T: tm.UTC()}, nil
	})
	epoch := func(name string, unit func(int64) time.Time) {
		t.add(name, 1, 1, func(_ *thread, a []Value) (Value, error) {
			n, err := intArg(name, a, 0)
			if err != nil {
				return nil, err
			}
			return Instant{T: unit(n).UTC()}, nil
		})
	}
	epoch("Instant/ofEpochMilli", time.UnixMilli)
	epoch("Instant/ofEpochSecond", func(n int64) time.Time { return time.Unix(n, 0) })
	t.add("Instant/now", 0, 0, func(*thread, []Value) (Value, error) { return Instant{T: time.Now().UTC()}, nil })
	t.add(".getEpochSecond", 1, 1, func(_ *thread, a []Value) (Value, error) {
		i, ok := a[0].(Instant)
		if !ok {
			return nil, argError(".getEpochSecond", 0, "a date-time", a[0])
		}
		return i.instant().Unix(), nil
	})
	for _, m := range []struct {
		name string
		unit time.Duration
	}{{".plusSeconds", time.Second}, {".minusSeconds", -time.Second}, {".plusMillis", time.Millisecond}, {".minusMillis", -time.Millisecond}} {
		t.add(m.name, 2, 2, func(_ *thread, a []Value) (Value, error) {
			i, ok := a[0].(Instant)
			if !ok {
				return nil, argError(m.name, 0, "a date-time", a[0])
			}
			n, err := intArg(m.name, a, 1)
			if err != nil {
				return nil, err
			}
			if n > math.MaxInt64/int64(time.Second) || n < -math.MaxInt64/int64(time.Second) {
				return nil, errorf(InvalidArgument, "%s: %d is out of range", m.name, n)
			}
			return i.Add(time.Duration(n) * m.unit), nil
		})
	}
	t.add("inst?", 1, 1, func(_ *thread, a []Value) (Value, error) {
		x, ok := a[0].(Instant)
		return ok && !x.local, nil // a LocalDateTime is no Inst, as in Clojure
	})
}

// toInstant converts epoch seconds or milliseconds (by magnitude, as the
// reference does), or an ISO-8601 / YYYY-MM-DD / RFC 2822 string.
func toInstant(fn string, v Value) (Value, error) {
	switch x := v.(type) {
	case Instant:
		return x, nil
	case int64:
		if x > -1_000_000_000_000 && x < 1_000_000_000_000 {
			return Instant{T: time.Unix(x, 0).UTC()}, nil
		}
		return Instant{T: time.UnixMilli(x).UTC()}, nil
	case float64:
		// Beyond ±2^63 a float has no int64: Go's conversion would give
		// an arbitrary date rather than an error.
		if math.IsNaN(x) || x < -(1<<63) || x >= 1<<63 {
			break
		}
		return toInstant(fn, int64(x))
	case string:
		s := strings.TrimSpace(x)
		for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02",
			"Mon, 2 Jan 2006 15:04:05 -0700", "2 Jan 2006 15:04:05 -0700", "Mon, 2 Jan 2006 15:04:05", "2 Jan 2006 15:04:05",
			"Mon, 2 Jan 2006 15:04:05 MST"} {
			if tm, err := time.Parse(layout, s); err == nil {
				return Instant{T: tm.UTC()}, nil
			}
		}
		return nil, errorf(TypeError, "%s: cannot read %s as a date-time (use ISO-8601 like 2024-01-31T10:00:00Z, or 2024-01-31)", fn, quoteShort(x))
	}
	return nil, argError(fn, 0, "epoch seconds/milliseconds or a date string", v)
}
