package lisp

import (
	"time"
)

// java.time.LocalDateTime: a date and a time of day without a zone, which
// models read timestamps such as "2024-01-02T03:04:05" into. It is an
// Instant whose fields are read in UTC (Instant.local), so comparisons,
// ChronoUnit's between, .isBefore and .format work on it as on instants;
// it prints and converts as Java's LocalDateTime (#date-time
// "2024-01-02T03:04", str "2024-01-02T03:04"), and .getYear, .plusDays and
// the like read and move its date as LocalDate's do.

// parseLocalDateTime reads Java's ISO_LOCAL_DATE_TIME: 2024-01-02T03:04,
// seconds and a fraction of up to nine digits optional, no zone.
func parseLocalDateTime(s string) (Instant, bool) {
	for _, layout := range []string{"2006-01-02T15:04:05.999999999", "2006-01-02T15:04"} {
		if tm, err := time.Parse(layout, s); err == nil {
			return Instant{T: tm.UTC(), local: true}, true
		}
	}
	return Instant{}, false
}

// localDateTimeArg reads argument i as a LocalDateTime.
func localDateTimeArg(fn string, a []Value, i int) (Instant, error) {
	if x, ok := a[i].(Instant); ok && x.local {
		return x, nil
	}
	return Instant{}, argError(fn, i, "a date-time from (LocalDateTime/parse \"2024-01-31T10:00\")", a[i])
}

// dateOf is the date of a LocalDateTime.
func dateOf(x Instant) Date {
	y, m, d := x.T.UTC().Date()
	return Date{y, int(m), d}
}

// atTimeOf is date d at x's time of day, a LocalDateTime.
func atTimeOf(d Date, x Instant) Instant {
	t := x.T.UTC()
	return x.withWall(time.Date(d.Y, time.Month(d.M), d.D, t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), time.UTC))
}

func registerDateTimes(t *builtinTable) {
	t.add("LocalDateTime/parse", 1, 2, func(_ *thread, a []Value) (Value, error) {
		s, err := stringArg("LocalDateTime/parse", a, 0)
		if err != nil {
			return nil, err
		}
		if len(a) == 2 {
			p, err := stringArg("LocalDateTime/parse", a, 1)
			if err != nil {
				return nil, err
			}
			tm, err := parseByPattern("LocalDateTime/parse", s, p, false)
			if err != nil {
				return nil, err
			}
			return Instant{T: tm.UTC(), local: true}, nil
		}
		x, ok := parseLocalDateTime(s)
		if !ok {
			return nil, classError(InvalidArgument, classDateTimeParse,
				"LocalDateTime/parse: %s is not a date-time like 2024-01-31T10:00:00 (no zone: an instant with Z is read by Instant/parse)", quoteShort(s))
		}
		return x, nil
	})
	t.add("LocalDateTime/of", 5, 7, func(_ *thread, a []Value) (Value, error) {
		var f [7]int64
		for i := range a {
			n, err := intArg("LocalDateTime/of", a, i)
			if err != nil {
				return nil, err
			}
			f[i] = n
		}
		if f[0] < 1 || f[0] > 9999 || f[1] < 1 || f[1] > 12 || f[2] < 1 || f[2] > int64(daysIn(int(f[0]), int(f[1]))) ||
			f[3] < 0 || f[3] > 23 || f[4] < 0 || f[4] > 59 || f[5] < 0 || f[5] > 59 || f[6] < 0 || f[6] > 999_999_999 {
			return nil, classError(InvalidArgument, classDateTime,
				"LocalDateTime/of: %d-%d-%d %d:%d:%d.%d is not a date-time (year 1-9999, month 1-12, day of that month, hour 0-23, minute and second 0-59, nanosecond)",
				f[0], f[1], f[2], f[3], f[4], f[5], f[6])
		}
		return Instant{T: time.Date(int(f[0]), time.Month(f[1]), int(f[2]), int(f[3]), int(f[4]), int(f[5]), int(f[6]), time.UTC), local: true}, nil
	})
	t.add("LocalDateTime/now", 0, 0, func(*thread, []Value) (Value, error) {
		// The clock of (java.util.Date.), read in UTC.
		return Instant{T: time.Now().UTC(), local: true}, nil
	})
	t.add(".toLocalDate", 1, 1, func(_ *thread, a []Value) (Value, error) {
		x, err := localDateTimeArg(".toLocalDate", a, 0)
		if err != nil {
			return nil, err
		}
		return dateOf(x), nil
	})
	for _, f := range []struct {
		name string
		get  func(time.Time) int
	}{
		{".getHour", time.Time.Hour}, {".getMinute", time.Time.Minute}, {".getSecond", time.Time.Second},
		{".getNano", time.Time.Nanosecond},
	} {
		t.add(f.name, 1, 1, func(_ *thread, a []Value) (Value, error) {
			x, err := localDateTimeArg(f.name, a, 0)
			if err != nil {
				return nil, err
			}
			return int64(f.get(x.T.UTC())), nil
		})
	}
	for _, f := range []struct {
		name string
		unit time.Duration
	}{
		{".plusHours", time.Hour}, {".minusHours", -time.Hour},
		{".plusMinutes", time.Minute}, {".minusMinutes", -time.Minute},
	} {
		t.add(f.name, 2, 2, func(_ *thread, a []Value) (Value, error) {
			x, err := localDateTimeArg(f.name, a, 0)
			if err != nil {
				return nil, err
			}
			n, err := intArg(f.name, a, 1)
			if err != nil {
				return nil, err
			}
			if n > 1<<31 || n < -(1<<31) {
				return nil, errorf(InvalidArgument, "%s: %d is outside the range of date-times", f.name, n)
			}
			return x.Add(time.Duration(n) * f.unit), nil
		})
	}
}
