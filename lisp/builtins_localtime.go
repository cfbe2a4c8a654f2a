package lisp

import (
	"fmt"
	"time"
)

// java.time.LocalTime, for schedules and opening hours: a time of day is
// its ISO text as Java's toString writes it, "10:15", "10:15:30" or
// "10:15:30.500" (docs/deviations.md row 97, as a YearMonth or a Duration
// is its text). LocalTime/parse, /of, /ofSecondOfDay and .toLocalTime
// make one; the methods a LocalTime has (.getHour and the other fields,
// .plusMinutes and the other moves, .withHour …, .isBefore, .isAfter,
// .truncatedTo, .toSecondOfDay, .atDate, .format) take one beside
// date-times, and Duration/between and ChronoUnit's between count the
// time between two. Written as Java writes them, times of day sort and
// compare in their order as text.

const nanosPerDay = 86_400 * int64(time.Second)

// localTimeOf reads a time of day's text, HH:mm, HH:mm:ss or HH:mm:ss
// with a fraction of one to nine digits (Java's ISO_LOCAL_TIME), as
// nanoseconds from midnight.
func localTimeOf(v Value) (int64, bool) {
	s, ok := v.(string)
	if !ok || len(s) < 5 || len(s) > 18 || s[2] != ':' {
		return 0, false
	}
	two := func(i int) (int64, bool) {
		c, d := s[i], s[i+1]
		if c < '0' || c > '9' || d < '0' || d > '9' {
			return 0, false
		}
		return int64(c-'0')*10 + int64(d-'0'), true
	}
	h, okH := two(0)
	m, okM := two(3)
	if !okH || !okM || h > 23 || m > 59 {
		return 0, false
	}
	n := (h*60 + m) * 60 * int64(time.Second)
	if len(s) == 5 {
		return n, true
	}
	if len(s) < 8 || s[5] != ':' {
		return 0, false
	}
	sec, okS := two(6)
	if !okS || sec > 59 {
		return 0, false
	}
	n += sec * int64(time.Second)
	if len(s) == 8 {
		return n, true
	}
	if s[8] != '.' || len(s) == 9 {
		return 0, false
	}
	var frac int64
	for i := 9; i < 18; i++ {
		frac *= 10
		if i < len(s) {
			c := s[i]
			if c < '0' || c > '9' {
				return 0, false
			}
			frac += int64(c - '0')
		}
	}
	return n + frac, true
}

// localTimeText is LocalTime.toString of n nanoseconds from midnight:
// seconds only when they or a fraction are not zero, the fraction in
// groups of three digits.
func localTimeText(n int64) string {
	h, m, s, ns := n/int64(time.Hour), n/int64(time.Minute)%60, n/int64(time.Second)%60, n%int64(time.Second)
	out := fmt.Sprintf("%02d:%02d", h, m)
	if s == 0 && ns == 0 {
		return out
	}
	out += fmt.Sprintf(":%02d", s)
	switch {
	case ns == 0:
	case ns%1_000_000 == 0:
		out += fmt.Sprintf(".%03d", ns/1_000_000)
	case ns%1_000 == 0:
		out += fmt.Sprintf(".%06d", ns/1_000)
	default:
		out += fmt.Sprintf(".%09d", ns)
	}
	return out
}

// clockOf is the time of day of t, in nanoseconds from midnight.
func clockOf(t time.Time) int64 {
	return int64(t.Hour())*int64(time.Hour) + int64(t.Minute())*int64(time.Minute) +
		int64(t.Second())*int64(time.Second) + int64(t.Nanosecond())
}

// wrapDay moves n nanoseconds from midnight by d, around the clock as
// Java's plus of a LocalTime does.
func wrapDay(n, d int64) int64 { return ((n+d%nanosPerDay)%nanosPerDay + nanosPerDay) % nanosPerDay }

// invalidField is java.time's DateTimeException for a field out of range.
func invalidField(field string, max, v int64) *Error {
	return classError(InvalidArgument, classDateTime, "Invalid value for %s (valid values 0 - %d): %d", field, max, v)
}

// timeUnitNanos are the ChronoUnits a time of day moves and counts by.
var timeUnitNanos = map[string]int64{"MILLIS": int64(time.Millisecond), "SECONDS": int64(time.Second),
	"MINUTES": int64(time.Minute), "HOURS": int64(time.Hour)}

func registerLocalTime(t *builtinTable) {
	t.set("LocalTime/MIDNIGHT", "00:00")
	t.set("LocalTime/MIN", "00:00")
	t.set("LocalTime/NOON", "12:00")
	t.set("LocalTime/MAX", "23:59:59.999999999")
	t.add("LocalTime/parse", 1, 2, func(_ *thread, a []Value) (Value, error) {
		s, err := stringArg("LocalTime/parse", a, 0)
		if err != nil {
			return nil, err
		}
		if len(a) == 2 {
			p, err := stringArg("LocalTime/parse", a, 1)
			if err != nil {
				return nil, err
			}
			tm, err := parseByPattern("LocalTime/parse", s, p, false)
			if err != nil {
				return nil, err
			}
			return localTimeText(clockOf(tm)), nil
		}
		n, ok := localTimeOf(s)
		if !ok {
			return nil, classError(InvalidArgument, classDateTimeParse,
				"Text %s could not be parsed as a LocalTime (HH:mm or HH:mm:ss, e.g. \"09:30\")", quoteShort(s))
		}
		return localTimeText(n), nil
	})
	t.add("LocalTime/of", 2, 4, func(_ *thread, a []Value) (Value, error) {
		var f [4]int64
		for i := range a {
			n, err := intArg("LocalTime/of", a, i)
			if err != nil {
				return nil, err
			}
			f[i] = n
		}
		for i, limit := range [4]struct {
			field string
			max   int64
		}{{"HourOfDay", 23}, {"MinuteOfHour", 59}, {"SecondOfMinute", 59}, {"NanoOfSecond", 999_999_999}} {
			if f[i] < 0 || f[i] > limit.max {
				return nil, invalidField(limit.field, limit.max, f[i])
			}
		}
		return localTimeText(((f[0]*60+f[1])*60+f[2])*int64(time.Second) + f[3]), nil
	})
	t.add("LocalTime/ofSecondOfDay", 1, 1, func(_ *thread, a []Value) (Value, error) {
		n, err := intArg("LocalTime/ofSecondOfDay", a, 0)
		if err != nil {
			return nil, err
		}
		if n < 0 || n > 86_399 {
			return nil, invalidField("SecondOfDay", 86_399, n)
		}
		return localTimeText(n * int64(time.Second)), nil
	})
	t.add("LocalTime/now", 0, 0, func(*thread, []Value) (Value, error) {
		// The clock of LocalDateTime/now, read in UTC.
		return localTimeText(clockOf(time.Now().UTC())), nil
	})
	t.add(".toLocalTime", 1, 1, func(_ *thread, a []Value) (Value, error) {
		x, err := localDateTimeArg(".toLocalTime", a, 0)
		if err != nil {
			return nil, err
		}
		return localTimeText(clockOf(x.T.UTC())), nil
	})
	timeArg := func(fn string, a []Value, i int) (int64, error) {
		n, ok := localTimeOf(a[i])
		if !ok {
			return 0, argError(fn, i, "a time of day from (LocalTime/parse \"09:30\")", a[i])
		}
		return n, nil
	}
	t.add(".toSecondOfDay", 1, 1, func(_ *thread, a []Value) (Value, error) {
		n, err := timeArg(".toSecondOfDay", a, 0)
		return n / int64(time.Second), err
	})
	t.add(".toNanoOfDay", 1, 1, func(_ *thread, a []Value) (Value, error) {
		n, err := timeArg(".toNanoOfDay", a, 0)
		return n, err
	})
	t.add(".atDate", 2, 2, func(_ *thread, a []Value) (Value, error) {
		n, err := timeArg(".atDate", a, 0)
		if err != nil {
			return nil, err
		}
		d, err := dateArg(".atDate", a, 1)
		if err != nil {
			return nil, err
		}
		return dateAtClock(d, n), nil
	})
	// (.atTime date time) and (LocalDateTime/of date time): the date at a
	// time of day; their other arities as before.
	for _, name := range []string{".atTime", "LocalDateTime/of"} {
		t.wrap(name, func(old *Builtin) *Builtin {
			b := *old
			fn := old.fn
			b.MinArgs = 2
			b.fn = func(th *thread, a []Value) (Value, error) {
				if len(a) != 2 {
					if len(a) < old.MinArgs {
						return nil, old.arityError(len(a))
					}
					return fn(th, a)
				}
				d, err := dateArg(name, a, 0)
				if err != nil {
					return nil, err
				}
				n, err := timeArg(name, a, 1)
				if err != nil {
					return nil, err
				}
				return dateAtClock(d, n), nil
			}
			return &b
		})
	}

	// The methods a LocalDateTime has that a LocalTime has too: on a
	// time of day's text they answer for it, on anything else as before.
	onTime := func(name string, min, max int, f func(n int64, a []Value) (Value, error)) {
		t.wrap(name, func(old *Builtin) *Builtin {
			b := *old
			fn := old.fn
			b.fn = func(th *thread, a []Value) (Value, error) {
				if n, ok := localTimeOf(a[0]); ok && len(a) >= min && len(a) <= max {
					return f(n, a)
				}
				return fn(th, a)
			}
			return &b
		})
	}
	for name, unit := range map[string]int64{".getHour": int64(time.Hour), ".getMinute": int64(time.Minute),
		".getSecond": int64(time.Second), ".getNano": 1} {
		mod := map[string]int64{".getHour": 24, ".getMinute": 60, ".getSecond": 60, ".getNano": int64(time.Second)}[name]
		onTime(name, 1, 1, func(n int64, _ []Value) (Value, error) { return n / unit % mod, nil })
	}
	moves := map[string]int64{".plusHours": int64(time.Hour), ".minusHours": -int64(time.Hour),
		".plusMinutes": int64(time.Minute), ".minusMinutes": -int64(time.Minute),
		".plusSeconds": int64(time.Second), ".minusSeconds": -int64(time.Second)}
	for name, unit := range moves {
		onTime(name, 2, 2, func(n int64, a []Value) (Value, error) {
			k, err := intArg(name, a, 1)
			if err != nil {
				return nil, err
			}
			// k units mod a day, without overflowing k * unit.
			return localTimeText(wrapDay(n, k%(nanosPerDay/absInt(unit))*unit)), nil
		})
	}
	for name, sign := range map[string]int64{".plusNanos": 1, ".minusNanos": -1} {
		t.add(name, 2, 2, func(_ *thread, a []Value) (Value, error) {
			n, err := timeArg(name, a, 0)
			if err != nil {
				return nil, err
			}
			k, err := intArg(name, a, 1)
			if err != nil {
				return nil, err
			}
			return localTimeText(wrapDay(n, sign*(k%nanosPerDay))), nil
		})
	}
	for name, sign := range map[string]int64{".plus": 1, ".minus": -1} {
		onTime(name, 2, 3, func(n int64, a []Value) (Value, error) {
			if len(a) == 3 {
				k, err := intArg(name, a, 1)
				if err != nil {
					return nil, err
				}
				u, _ := a[2].(Keyword)
				per, ok := timeUnitNanos[string(u)]
				if !ok {
					if !isChronoUnit(string(u)) {
						return nil, argError(name, 2, "a unit such as ChronoUnit/MINUTES", a[2])
					}
					return nil, unsupportedUnit(string(u))
				}
				return localTimeText(wrapDay(n, sign*(k%(nanosPerDay/per)*per))), nil
			}
			s, _ := a[1].(string)
			d, ok := parseDuration(s)
			if !ok {
				return nil, argError(name, 1, "a Duration (Duration/ofMinutes 90), or an amount and a ChronoUnit", a[1])
			}
			return localTimeText(wrapDay(n, sign*((d.secs%86_400)*int64(time.Second)+d.nanos))), nil
		})
	}
	// .withHour and the like set one field, of a time of day or of a
	// date-time.
	for _, w := range []struct {
		name, field string
		unit, max   int64
	}{{".withHour", "HourOfDay", int64(time.Hour), 23}, {".withMinute", "MinuteOfHour", int64(time.Minute), 59},
		{".withSecond", "SecondOfMinute", int64(time.Second), 59}, {".withNano", "NanoOfSecond", 1, 999_999_999}} {
		t.add(w.name, 2, 2, func(_ *thread, a []Value) (Value, error) {
			v, err := intArg(w.name, a, 1)
			if err != nil {
				return nil, err
			}
			if v < 0 || v > w.max {
				return nil, invalidField(w.field, w.max, v)
			}
			set := func(n int64) int64 {
				old := n / w.unit % (w.max + 1)
				return n + (v-old)*w.unit
			}
			if n, ok := localTimeOf(a[0]); ok {
				return localTimeText(set(n)), nil
			}
			if x, ok := a[0].(Instant); ok && x.local {
				return x.withWall(dateAtClock(dateOf(x), set(clockOf(x.T.UTC()))).T), nil
			}
			return nil, argError(w.name, 0, "a time of day (LocalTime/parse \"09:30\") or a date-time", a[0])
		})
	}
	for name, want := range map[string]bool{".isBefore": true, ".isAfter": false} {
		t.wrap(name, func(old *Builtin) *Builtin {
			b := *old
			fn := old.fn
			b.fn = func(th *thread, a []Value) (Value, error) {
				x, ok1 := localTimeOf(a[0])
				y, ok2 := localTimeOf(a[1])
				if !ok1 || !ok2 {
					return fn(th, a)
				}
				if want {
					return x < y, nil
				}
				return x > y, nil
			}
			return &b
		})
	}
	onTime(".truncatedTo", 2, 2, func(n int64, a []Value) (Value, error) {
		u, _ := a[1].(Keyword)
		per, ok := timeUnitNanos[string(u)]
		if u == "DAYS" {
			per, ok = nanosPerDay, true
		}
		if !ok {
			if !isChronoUnit(string(u)) {
				return nil, argError(".truncatedTo", 1, "a unit such as ChronoUnit/HOURS", a[1])
			}
			return nil, classError(InvalidArgument, classDateTime, "Unit is too large to be used for truncation")
		}
		return localTimeText(n - n%per), nil
	})
	// (.format time formatter) and (.format formatter time): the time on
	// a day of no importance, through the date-times' formatting.
	t.wrap(".format", func(old *Builtin) *Builtin {
		b := *old
		fn := old.fn
		b.fn = func(th *thread, a []Value) (Value, error) {
			if n, ok := localTimeOf(a[0]); ok {
				if _, isText := a[1].(string); isText {
					return fn(th, []Value{dateAtClock(Date{2000, 1, 1}, n), a[1]})
				}
			}
			if n, ok := localTimeOf(a[1]); ok {
				if _, isText := a[0].(string); isText {
					return fn(th, []Value{a[0], dateAtClock(Date{2000, 1, 1}, n)})
				}
			}
			return fn(th, a)
		}
		return &b
	})
}

// dateAtClock is date d at n nanoseconds from midnight, a LocalDateTime.
func dateAtClock(d Date, n int64) Instant {
	return Instant{T: time.Date(d.Y, time.Month(d.M), d.D, 0, 0, 0, 0, time.UTC).Add(time.Duration(n)), local: true}
}

// timeOfDayBetween counts the time between two times of day in a unit
// (ChronoUnit's between, LocalTime.until); ok is false unless both are
// times of day.
func timeOfDayBetween(unit string, a, b Value) (Value, bool, error) {
	x, ok1 := localTimeOf(a)
	y, ok2 := localTimeOf(b)
	if !ok1 || !ok2 {
		return nil, false, nil
	}
	per, ok := timeUnitNanos[unit]
	if !ok {
		return nil, true, unsupportedUnit(unit)
	}
	return (y - x) / per, true, nil
}
