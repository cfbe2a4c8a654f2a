package lisp

import (
	"math/big"
	"strings"
	"time"
)

// The java.time methods LLMs write for calendar arithmetic: counting the
// days between two dates, moving a date, reading its fields. Every one is
// O(1) on a Date (a calendar day, no zone) and reads no clock; results stay
// within java.time.LocalDate's range of years, ±999,999,999, an
// invalid_argument beyond it as Java's DateTimeException.

const maxDateYear = 999_999_999

// chronoUnits are the values of ChronoUnit/DAYS and its siblings: keywords,
// so that they print, compare and pass through functions like any value.
var chronoUnits = []string{"MILLIS", "SECONDS", "MINUTES", "HOURS", "DAYS", "WEEKS", "MONTHS", "YEARS"}

func registerDates(t *builtinTable) {
	for _, u := range chronoUnits {
		t.set("ChronoUnit/"+u, Keyword(u))
	}
	// java.time.DayOfWeek values are what .getDayOfWeek returns: their names.
	for d := time.Sunday; d <= time.Saturday; d++ {
		t.set("DayOfWeek/"+strings.ToUpper(d.String()), strings.ToUpper(d.String()))
	}
	t.add(".getValue", 1, 1, func(_ *thread, a []Value) (Value, error) {
		// Map.Entry.getValue, and DayOfWeek.getValue: MONDAY is 1, SUNDAY 7.
		if e, ok := mapEntry(a[0]); ok {
			return e.At(1), nil
		}
		if i := enumIndex(dayNames[:], a[0]); i >= 0 {
			return int64(i + 1), nil
		}
		if i := enumIndex(monthNames[:], a[0]); i >= 0 {
			return int64(i + 1), nil // Month.getValue: JANUARY is 1
		}
		return nil, argError(".getValue", 0, "a map entry [k v], a day of the week or a month", a[0])
	})
	t.add("LocalDate/of", 3, 3, func(_ *thread, a []Value) (Value, error) {
		var f [3]int64
		for i := range f {
			n, err := intArg("LocalDate/of", a, i)
			if err != nil {
				return nil, err
			}
			f[i] = n
		}
		if f[0] < -maxDateYear || f[0] > maxDateYear || f[1] < 1 || f[1] > 12 || f[2] < 1 || f[2] > int64(daysIn(int(f[0]), int(f[1]))) {
			return nil, classError(InvalidArgument, classDateTime, "LocalDate/of: %d-%d-%d is not a date (year, month 1-12, day of that month)", f[0], f[1], f[2])
		}
		return Date{int(f[0]), int(f[1]), int(f[2])}, nil
	})
	t.add("LocalDate/ofEpochDay", 1, 1, func(_ *thread, a []Value) (Value, error) {
		n, err := intArg("LocalDate/ofEpochDay", a, 0)
		if err != nil {
			return nil, err
		}
		return dateOfEpochDay("LocalDate/ofEpochDay", n)
	})
	t.add("LocalDate/now", 0, 0, func(*thread, []Value) (Value, error) {
		// The clock of (java.util.Date.), read as a UTC day.
		y, m, d := time.Now().UTC().Date()
		return Date{y, int(m), d}, nil
	})
	t.add(".toEpochDay", 1, 1, func(_ *thread, a []Value) (Value, error) {
		d, err := dateArg(".toEpochDay", a, 0)
		if err != nil {
			return nil, err
		}
		return d.epochDay(), nil
	})
	for _, f := range []struct {
		name string
		get  func(Date) Value
	}{
		{".getYear", func(d Date) Value { return int64(d.Y) }},
		{".getMonthValue", func(d Date) Value { return int64(d.M) }},
		{".getDayOfMonth", func(d Date) Value { return int64(d.D) }},
		{".getDayOfYear", func(d Date) Value { return d.epochDay() - Date{d.Y, 1, 1}.epochDay() + 1 }},
		// java.time.DayOfWeek prints as MONDAY; str of it is that text.
		{".getDayOfWeek", func(d Date) Value { return strings.ToUpper(d.weekday().String()) }},
		{".lengthOfMonth", func(d Date) Value { return int64(daysIn(d.Y, d.M)) }},
		{".isLeapYear", func(d Date) Value { return daysIn(d.Y, 2) == 29 }},
	} {
		t.add(f.name, 1, 1, func(_ *thread, a []Value) (Value, error) {
			if x, ok := a[0].(Instant); ok && x.local {
				return f.get(dateOf(x)), nil // a LocalDateTime's date
			}
			d, err := dateArg(f.name, a, 0)
			if err != nil {
				return nil, err
			}
			return f.get(d), nil
		})
	}
	// The with… adjusters: withMonth and withYear keep the day, or the last
	// day of the month when it has fewer (Java's rule); withDayOfMonth and
	// withDayOfYear fail on a day the month or year lacks.
	for _, f := range []struct {
		name string
		set  func(d Date, n int) (Date, bool)
	}{
		{".withDayOfMonth", func(d Date, n int) (Date, bool) { return Date{d.Y, d.M, n}, n >= 1 && n <= daysIn(d.Y, d.M) }},
		{".withMonth", func(d Date, n int) (Date, bool) {
			return Date{d.Y, n, min(d.D, daysIn(d.Y, max(1, min(n, 12))))}, n >= 1 && n <= 12
		}},
		{".withYear", func(d Date, n int) (Date, bool) {
			return Date{n, d.M, min(d.D, daysIn(n, d.M))}, n >= 1 && n <= 9999
		}},
		{".withDayOfYear", func(d Date, n int) (Date, bool) {
			last := 365 + daysIn(d.Y, 2) - 28
			if n < 1 || n > last {
				return d, false
			}
			m := 1
			for n > daysIn(d.Y, m) {
				n -= daysIn(d.Y, m)
				m++
			}
			return Date{d.Y, m, n}, true
		}},
	} {
		t.add(f.name, 2, 2, func(_ *thread, a []Value) (Value, error) {
			d, x, isDateTime, err := dateOfArg(f.name, a)
			if err != nil {
				return nil, err
			}
			n, err := intArg(f.name, a, 1)
			if err != nil {
				return nil, err
			}
			if n < -(1<<31) || n > 1<<31 {
				n = 0 // out of every range: the check below fails it
			}
			set, ok := f.set(d, int(n))
			if !ok {
				return nil, classError(InvalidArgument, classDateTime, "%s: %d is not a valid value for %s", f.name, n, strings.TrimPrefix(f.name, ".with"))
			}
			if isDateTime {
				return atTimeOf(set, x), nil
			}
			return set, nil
		})
	}
	for _, f := range []struct {
		name   string
		unit   string
		factor int64
	}{
		{".plusDays", "DAYS", 1}, {".minusDays", "DAYS", -1},
		{".plusWeeks", "WEEKS", 1}, {".minusWeeks", "WEEKS", -1},
		{".plusMonths", "MONTHS", 1}, {".minusMonths", "MONTHS", -1},
		{".plusYears", "YEARS", 1}, {".minusYears", "YEARS", -1},
	} {
		t.add(f.name, 2, 2, func(_ *thread, a []Value) (Value, error) {
			// A LocalDateTime moves its date and keeps its time of day.
			d, x, isDateTime, err := dateOfArg(f.name, a)
			if err != nil {
				return nil, err
			}
			n, err := intArg(f.name, a, 1)
			if err != nil {
				return nil, err
			}
			if n > 1<<40 || n < -(1<<40) {
				return nil, errorf(InvalidArgument, "%s: %d is outside the range of dates", f.name, n)
			}
			moved, err := d.plus(f.name, f.unit, n*f.factor)
			if err != nil || !isDateTime {
				return moved, err
			}
			md := moved.(Date)
			if md.Y < 1 || md.Y > 9999 {
				return nil, classError(InvalidArgument, classDateTime, "%s: the year %d is outside the range of date-times", f.name, md.Y)
			}
			return atTimeOf(md, x), nil
		})
	}
	for _, f := range []struct {
		name string
		test func(c int) bool
	}{
		{".isBefore", func(c int) bool { return c < 0 }},
		{".isAfter", func(c int) bool { return c > 0 }},
		{".isEqual", func(c int) bool { return c == 0 }},
		// java.util.Date's own names.
		{".before", func(c int) bool { return c < 0 }},
		{".after", func(c int) bool { return c > 0 }},
	} {
		t.add(f.name, 2, 2, func(_ *thread, a []Value) (Value, error) {
			c, err := orderTimes(f.name, a[0], a[1])
			if err != nil {
				return nil, err
			}
			return f.test(c), nil
		})
	}
	t.add(".between", 3, 3, func(_ *thread, a []Value) (Value, error) {
		u, ok := a[0].(Keyword)
		if !ok || !isChronoUnit(string(u)) {
			return nil, argError(".between", 0, "a unit such as ChronoUnit/DAYS", a[0])
		}
		return between(string(u), a[1], a[2])
	})
}

func isChronoUnit(u string) bool {
	for _, x := range chronoUnits {
		if x == u {
			return true
		}
	}
	return false
}

func dateArg(fn string, a []Value, i int) (Date, error) {
	d, ok := a[i].(Date)
	if !ok {
		return Date{}, argError(fn, i, "a date from (LocalDate/parse \"2024-01-31\") or (LocalDate/of 2024 1 31)", a[i])
	}
	return d, nil
}

// daysIn is the number of days of month m (1-12) of year y.
func daysIn(y, m int) int {
	return time.Date(y, time.Month(m)+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

// epochDay counts days from 1970-01-01, as LocalDate.toEpochDay.
func (d Date) epochDay() int64 {
	return time.Date(d.Y, time.Month(d.M), d.D, 0, 0, 0, 0, time.UTC).Unix() / 86400
}

func (d Date) weekday() time.Weekday {
	return time.Date(d.Y, time.Month(d.M), d.D, 0, 0, 0, 0, time.UTC).Weekday()
}

var (
	minEpochDay = Date{-maxDateYear, 1, 1}.epochDay()
	maxEpochDay = Date{maxDateYear, 12, 31}.epochDay()
)

func dateOfEpochDay(fn string, n int64) (Value, error) {
	if n < minEpochDay || n > maxEpochDay {
		return nil, errorf(InvalidArgument, "%s: %d days from 1970-01-01 is outside the range of dates", fn, n)
	}
	y, m, d := time.Unix(n*86400, 0).UTC().Date()
	return Date{y, int(m), d}, nil
}

// plus moves d by n units; months and years keep the day of the month,
// clamped to the month's length, as java.time does (2024-01-31 plus a month
// is 2024-02-29).
func (d Date) plus(fn, unit string, n int64) (Value, error) {
	switch unit {
	case "DAYS":
		return dateOfEpochDay(fn, d.epochDay()+n)
	case "WEEKS":
		return dateOfEpochDay(fn, d.epochDay()+7*n)
	case "YEARS":
		n *= 12
	}
	months := int64(d.Y)*12 + int64(d.M-1) + n
	y, m := floorDiv(months, 12), months-floorDiv(months, 12)*12+1
	if y < -maxDateYear || y > maxDateYear {
		return nil, errorf(InvalidArgument, "%s: the year %d is outside the range of dates", fn, y)
	}
	return Date{int(y), int(m), min(d.D, daysIn(int(y), int(m)))}, nil
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// orderTimes orders two dates or two date-times.
func orderTimes(fn string, a, b Value) (int, error) {
	switch x := a.(type) {
	case Date:
		if y, ok := b.(Date); ok {
			return cmpInt64(x.epochDay(), y.epochDay()), nil
		}
		return 0, argError(fn, 1, "a date, as the first", b)
	case Instant:
		if y, ok := b.(Instant); ok {
			return x.instant().Compare(y.instant()), nil
		}
		return 0, argError(fn, 1, "a date-time, as the first", b)
	}
	return 0, argError(fn, 0, "a date or a date-time", a)
}

func cmpInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// between counts whole units from a to b, negative when b is earlier, as
// ChronoUnit.between: calendar units for dates (a month is complete when
// the day of the month is reached), time units for date-times.
func between(unit string, a, b Value) (Value, error) {
	if v, ok, err := timeOfDayBetween(unit, a, b); ok {
		return v, err
	}
	switch x := a.(type) {
	case Date:
		y, ok := b.(Date)
		if !ok {
			return nil, argError(".between", 2, "a date, as the first", b)
		}
		switch unit {
		case "DAYS":
			return y.epochDay() - x.epochDay(), nil
		case "WEEKS":
			return (y.epochDay() - x.epochDay()) / 7, nil
		case "MONTHS", "YEARS":
			// Months packed with the day, so that an incomplete last month
			// does not count (Java's LocalDate.monthsUntil).
			p1 := (int64(x.Y)*12+int64(x.M-1))*32 + int64(x.D)
			p2 := (int64(y.Y)*12+int64(y.M-1))*32 + int64(y.D)
			months := (p2 - p1) / 32
			if unit == "YEARS" {
				return months / 12, nil
			}
			return months, nil
		}
		return nil, errorf(InvalidArgument, ".between: dates have no %s: use DAYS, WEEKS, MONTHS or YEARS", strings.ToLower(unit))
	case Instant:
		y, ok := b.(Instant)
		if !ok {
			return nil, argError(".between", 2, "a date-time, as the first", b)
		}
		per := map[string]int64{"MILLIS": 1, "SECONDS": 1000, "MINUTES": 60_000, "HOURS": 3_600_000, "DAYS": 86_400_000}[unit]
		if per == 0 {
			return nil, errorf(InvalidArgument, ".between: date-times are counted in MILLIS, SECONDS, MINUTES, HOURS or DAYS, not %s", strings.ToLower(unit))
		}
		// Two date-times far apart are more milliseconds apart than an
		// int64 holds: count in nanoseconds without a bound, and fail as
		// Java's ChronoUnit.between does rather than wrap.
		xt, yt := x.instant(), y.instant()
		d := new(big.Int).Mul(big.NewInt(yt.Unix()-xt.Unix()), big.NewInt(1e9))
		d.Add(d, big.NewInt(int64(yt.Nanosecond()-xt.Nanosecond())))
		d.Quo(d, big.NewInt(per*1e6))
		if !d.IsInt64() {
			return nil, overflow(".between")
		}
		return d.Int64(), nil
	}
	return nil, argError(".between", 1, "a date or a date-time", a)
}

// dateOfArg is the date of argument 0 of fn: a date, or a LocalDateTime's
// date (x, with isDateTime true, for its time of day).
func dateOfArg(fn string, a []Value) (d Date, x Instant, isDateTime bool, err error) {
	if x, ok := a[0].(Instant); ok && x.local {
		return dateOf(x), x, true, nil
	}
	d, err = dateArg(fn, a, 0)
	return d, Instant{}, false, err
}
