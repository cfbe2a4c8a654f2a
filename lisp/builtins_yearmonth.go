package lisp

import (
	"fmt"
	"strings"
)

// java.time.YearMonth, for monthly reports: a year-month is its ISO text,
// "2024-02", as str gives it in Java (docs/deviations.md row 100, as a
// Period or a Month is its text). YearMonth/of, /parse and /from make one;
// the date methods a YearMonth has (.getYear, .getMonthValue, .getMonth,
// .lengthOfMonth, .lengthOfYear, .isLeapYear, .plusMonths and the other
// moves, .isBefore, .isAfter) take one beside dates, and .atDay and
// .atEndOfMonth give its dates. Being text, year-months sort and compare
// in their order.

// yearMonthOf reads a year-month's text, "2024-02" (years 0000-9999).
func yearMonthOf(v Value) (y, m int, ok bool) {
	s, isText := v.(string)
	if !isText || len(s) != 7 || s[4] != '-' {
		return 0, 0, false
	}
	for i, c := range []byte(s) {
		if i != 4 && (c < '0' || c > '9') {
			return 0, 0, false
		}
	}
	y = int(s[0]-'0')*1000 + int(s[1]-'0')*100 + int(s[2]-'0')*10 + int(s[3]-'0')
	m = int(s[5]-'0')*10 + int(s[6]-'0')
	return y, m, m >= 1 && m <= 12
}

func yearMonthText(y, m int) string { return fmt.Sprintf("%04d-%02d", y, m) }

func registerYearMonth(t *builtinTable) {
	t.add("YearMonth/of", 2, 2, func(_ *thread, a []Value) (Value, error) {
		y, err := intArg("YearMonth/of", a, 0)
		if err != nil {
			return nil, err
		}
		var m int64
		if name, ok := a[1].(string); ok {
			m = int64(enumIndex(monthNames[:], name) + 1) // Month/MARCH
		} else if m, err = intArg("YearMonth/of", a, 1); err != nil {
			return nil, err
		}
		if m < 1 || m > 12 {
			return nil, classError(InvalidArgument, classDateTime, "Invalid value for MonthOfYear (valid values 1 - 12): %d", m)
		}
		if y < 0 || y > 9999 {
			return nil, classError(InvalidArgument, classDateTime, "YearMonth/of: the year %d is outside 0-9999", y)
		}
		return yearMonthText(int(y), int(m)), nil
	})
	t.add("YearMonth/parse", 1, 1, func(_ *thread, a []Value) (Value, error) {
		s, err := stringArg("YearMonth/parse", a, 0)
		if err != nil {
			return nil, err
		}
		if _, _, ok := yearMonthOf(s); !ok {
			return nil, classError(InvalidArgument, classDateTimeParse, "Text %s could not be parsed as a YearMonth (yyyy-MM, e.g. \"2024-02\")", quoteShort(s))
		}
		return s, nil
	})
	t.add("YearMonth/from", 1, 1, func(_ *thread, a []Value) (Value, error) {
		d, _, _, err := dateOfArg("YearMonth/from", a)
		if err != nil {
			return nil, err
		}
		return yearMonthText(d.Y, d.M), nil
	})
	t.add(".atDay", 2, 2, func(_ *thread, a []Value) (Value, error) {
		y, m, ok := yearMonthOf(a[0])
		if !ok {
			return nil, argError(".atDay", 0, "a YearMonth (YearMonth/of 2024 2)", a[0])
		}
		n, err := intArg(".atDay", a, 1)
		if err != nil {
			return nil, err
		}
		if n < 1 || n > int64(daysIn(y, m)) {
			return nil, classError(InvalidArgument, classDateTime, "Invalid date: day %d of %s", n, yearMonthText(y, m))
		}
		return Date{y, m, int(n)}, nil
	})
	t.add(".atEndOfMonth", 1, 1, func(_ *thread, a []Value) (Value, error) {
		y, m, ok := yearMonthOf(a[0])
		if !ok {
			return nil, argError(".atEndOfMonth", 0, "a YearMonth (YearMonth/of 2024 2)", a[0])
		}
		return Date{y, m, daysIn(y, m)}, nil
	})
	// The date methods a YearMonth has too: on a year-month's text they
	// answer for it, on anything else as before.
	getters := map[string]func(y, m int) Value{
		".getYear":       func(y, _ int) Value { return int64(y) },
		".getMonthValue": func(_, m int) Value { return int64(m) },
		".getMonth":      func(_, m int) Value { return monthNames[m-1] },
		".lengthOfMonth": func(y, m int) Value { return int64(daysIn(y, m)) },
		".lengthOfYear":  func(y, _ int) Value { return int64(337 + daysIn(y, 2)) },
		".isLeapYear":    func(y, _ int) Value { return daysIn(y, 2) == 29 },
	}
	for name, get := range getters {
		t.wrap(name, func(old *Builtin) *Builtin {
			b := *old
			fn := old.fn
			b.fn = func(th *thread, a []Value) (Value, error) {
				if y, m, ok := yearMonthOf(a[0]); ok && len(a) == 1 {
					return get(y, m), nil
				}
				return fn(th, a)
			}
			return &b
		})
	}
	for name, months := range map[string]int64{".plusMonths": 1, ".minusMonths": -1, ".plusYears": 12, ".minusYears": -12} {
		t.wrap(name, func(old *Builtin) *Builtin {
			b := *old
			fn := old.fn
			b.fn = func(th *thread, a []Value) (Value, error) {
				y, m, ok := yearMonthOf(a[0])
				if !ok {
					return fn(th, a)
				}
				n, err := intArg(name, a, 1)
				if err != nil {
					return nil, err
				}
				if n > 1<<20 || n < -(1<<20) {
					return nil, classError(InvalidArgument, classDateTime, "%s: %d is outside the range of year-months", name, n)
				}
				total := int64(y)*12 + int64(m-1) + n*months
				if total < 0 || total > 9999*12+11 {
					return nil, classError(InvalidArgument, classDateTime, "%s: the year is outside 0-9999", name)
				}
				return yearMonthText(int(total/12), int(total%12)+1), nil
			}
			return &b
		})
	}
	for name, want := range map[string]int{".isBefore": -1, ".isAfter": 1} {
		t.wrap(name, func(old *Builtin) *Builtin {
			b := *old
			fn := old.fn
			b.fn = func(th *thread, a []Value) (Value, error) {
				_, _, ok1 := yearMonthOf(a[0])
				_, _, ok2 := yearMonthOf(a[1])
				if !ok1 || !ok2 {
					return fn(th, a)
				}
				return sign(int64(strings.Compare(a[0].(string), a[1].(string)))) == want, nil
			}
			return &b
		})
	}
	// ChronoUnit's between and until, of two year-months: whole months
	// or years.
	monthsBetween := func(fn string, unit Value, from, to Value) (Value, bool, error) {
		y1, m1, ok1 := yearMonthOf(from)
		y2, m2, ok2 := yearMonthOf(to)
		if !ok1 || !ok2 {
			return nil, false, nil
		}
		n := int64(y2*12+m2) - int64(y1*12+m1)
		switch unit {
		case Keyword("MONTHS"):
			return n, true, nil
		case Keyword("YEARS"):
			return n / 12, true, nil
		case Keyword("DECADES"):
			return n / 120, true, nil
		}
		return nil, true, classError(InvalidArgument, classDateTime, "%s: Unsupported unit: %s (a YearMonth counts MONTHS, YEARS and DECADES)", fn, describe(unit))
	}
	t.wrap(".between", func(old *Builtin) *Builtin {
		b := *old
		fn := old.fn
		b.fn = func(th *thread, a []Value) (Value, error) {
			if v, ok, err := monthsBetween(".between", a[0], a[1], a[2]); ok {
				return v, err
			}
			return fn(th, a)
		}
		return &b
	})
	t.wrap(".until", func(old *Builtin) *Builtin {
		b := *old
		fn := old.fn
		b.fn = func(th *thread, a []Value) (Value, error) {
			if len(a) == 3 {
				if v, ok, err := monthsBetween(".until", a[2], a[0], a[1]); ok {
					return v, err
				}
			}
			return fn(th, a)
		}
		return &b
	})
}
