package lisp

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// The rest of java.time that models write for calendar work: Month,
// Period and Duration, .plus and .minus of an amount or of n units,
// .until, the TemporalAdjusters, display names. The enums and amounts are
// the values java.time prints them as, as DayOfWeek's already are: a
// month is its name ("MARCH"), a Period its ISO text ("P1M17D"), a
// Duration its ISO text ("PT9H15M"), a ChronoUnit a keyword (:DAYS), so
// that str gives Java's text and = compares them (docs/deviations.md
// row 100). Every method is O(1) and reads no clock.

var monthNames = [12]string{"JANUARY", "FEBRUARY", "MARCH", "APRIL", "MAY", "JUNE", "JULY", "AUGUST",
	"SEPTEMBER", "OCTOBER", "NOVEMBER", "DECEMBER"}

// dayNames are java.time.DayOfWeek's, MONDAY first (getValue 1).
var dayNames = [7]string{"MONDAY", "TUESDAY", "WEDNESDAY", "THURSDAY", "FRIDAY", "SATURDAY", "SUNDAY"}

// period is a java.time.Period: years, months and days, each with its sign.
type period struct{ y, m, d int64 }

// duration is a java.time.Duration: seconds, and nanoseconds 0-999,999,999
// after them (so -0.5s is -1s and 500,000,000ns), as Java keeps it.
type duration struct {
	secs  int64
	nanos int64
}

func (p period) String() string {
	if p == (period{}) {
		return "P0D"
	}
	var sb strings.Builder
	sb.WriteByte('P')
	for _, c := range []struct {
		n    int64
		unit byte
	}{{p.y, 'Y'}, {p.m, 'M'}, {p.d, 'D'}} {
		if c.n != 0 {
			sb.WriteString(strconv.FormatInt(c.n, 10))
			sb.WriteByte(c.unit)
		}
	}
	return sb.String()
}

// String is Java's Duration.toString: hours, minutes and seconds with the
// fraction, "PT0S" for zero.
func (d duration) String() string {
	if d == (duration{}) {
		return "PT0S"
	}
	total := d.secs
	if d.secs < 0 && d.nanos > 0 {
		total++
	}
	hours, minutes, secs := total/3600, (total%3600)/60, total%60
	var sb strings.Builder
	sb.WriteString("PT")
	if hours != 0 {
		sb.WriteString(strconv.FormatInt(hours, 10) + "H")
	}
	if minutes != 0 {
		sb.WriteString(strconv.FormatInt(minutes, 10) + "M")
	}
	if secs == 0 && d.nanos == 0 && sb.Len() > 2 {
		return sb.String()
	}
	if d.secs < 0 && d.nanos > 0 && secs == 0 {
		sb.WriteString("-0")
	} else {
		sb.WriteString(strconv.FormatInt(secs, 10))
	}
	if d.nanos > 0 {
		frac := d.nanos + 1e9
		if d.secs < 0 {
			frac = 2e9 - d.nanos
		}
		sb.WriteString("." + strings.TrimRight(strconv.FormatInt(frac, 10)[1:], "0"))
	}
	sb.WriteByte('S')
	return sb.String()
}

// The texts of Period and Duration, compiled on first use: few programs
// parse one, and compiling them cost every process start-up.
var (
	periodText = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(?i)([-+]?)P(?:([-+]?[0-9]+)Y)?(?:([-+]?[0-9]+)M)?(?:([-+]?[0-9]+)W)?(?:([-+]?[0-9]+)D)?$`)
	})
	durationText = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(?i)([-+]?)P(?:([-+]?[0-9]+)D)?(?:T(?:([-+]?[0-9]+)H)?(?:([-+]?[0-9]+)M)?(?:([-+]?[0-9]+)(?:[.,]([0-9]{0,9}))?S)?)?$`)
	})
)

// parsePeriod reads Java's Period text (PnYnMnWnD); ok is false for any
// other text.
func parsePeriod(s string) (p period, ok bool) {
	g := periodText().FindStringSubmatch(s)
	if g == nil || s == "P" || strings.EqualFold(s[len(g[1]):], "P") {
		return period{}, false
	}
	var n [4]int64
	for i := range n {
		if g[i+2] == "" {
			continue
		}
		v, err := strconv.ParseInt(g[i+2], 10, 32)
		if err != nil {
			return period{}, false
		}
		n[i] = v
	}
	p = period{n[0], n[1], n[2]*7 + n[3]}
	if g[1] == "-" {
		p = period{-p.y, -p.m, -p.d}
	}
	return p, true
}

// parseDuration reads Java's Duration text (PnDTnHnMn.nS).
func parseDuration(s string) (d duration, ok bool) {
	g := durationText().FindStringSubmatch(s)
	if g == nil || !strings.ContainsAny(s, "DHMSdhms") {
		return duration{}, false
	}
	var total, nanos int64
	for i, per := range []int64{86400, 3600, 60, 1} {
		if g[i+2] == "" {
			continue
		}
		v, err := strconv.ParseInt(g[i+2], 10, 64)
		if err != nil {
			return duration{}, false
		}
		x, over := mulInt(v, per)
		if over || (v > 0 && total > math.MaxInt64-x) || (v < 0 && total < math.MinInt64-x) {
			return duration{}, false
		}
		total += x
	}
	if f := g[6]; f != "" {
		nanos, _ = strconv.ParseInt((f + "000000000")[:9], 10, 64)
		if strings.HasPrefix(g[5], "-") {
			nanos = -nanos
		}
	}
	d = normDuration(total, nanos)
	if g[1] == "-" {
		d = d.neg()
	}
	return d, true
}

// normDuration makes 0 <= nanos < 1e9.
func normDuration(secs, nanos int64) duration {
	secs += floorDiv(nanos, 1e9)
	return duration{secs, nanos - floorDiv(nanos, 1e9)*1e9}
}

func (d duration) neg() duration { return normDuration(-d.secs, -d.nanos) }

func (d duration) add(e duration) (duration, bool) {
	s := d.secs + e.secs
	if (e.secs > 0 && s < d.secs) || (e.secs < 0 && s > d.secs) {
		return duration{}, false
	}
	return normDuration(s, d.nanos+e.nanos), true
}

// asGo is d as a time.Duration, false beyond its ±292 years.
func (d duration) asGo() (time.Duration, bool) {
	if d.secs > math.MaxInt64/int64(time.Second)-1 || d.secs < math.MinInt64/int64(time.Second)+1 {
		return 0, false
	}
	return time.Duration(d.secs)*time.Second + time.Duration(d.nanos), true
}

func periodArg(fn string, a []Value, i int) (period, error) {
	if s, ok := a[i].(string); ok {
		if p, ok := parsePeriod(s); ok {
			return p, nil
		}
	}
	return period{}, argError(fn, i, "a Period from (Period/between d1 d2) or (Period/ofDays n)", a[i])
}

func durationArg(fn string, a []Value, i int) (duration, error) {
	if s, ok := a[i].(string); ok {
		if d, ok := parseDuration(s); ok {
			return d, nil
		}
	}
	return duration{}, argError(fn, i, "a Duration from (Duration/between t1 t2) or (Duration/ofMinutes n)", a[i])
}

// enumIndex finds name among names (0-based); -1 when absent.
func enumIndex(names []string, v Value) int {
	if s, ok := v.(string); ok {
		for i, n := range names {
			if n == s {
				return i
			}
		}
	}
	return -1
}

// unsupportedUnit is java.time's UnsupportedTemporalTypeException, a
// DateTimeException.
func unsupportedUnit(unit string) *Error {
	return classError(InvalidArgument, classDateTime, "Unsupported unit: %s", strings.ToUpper(unit[:1])+strings.ToLower(unit[1:]))
}

// unitSeconds are the exact ChronoUnits, in seconds (MILLIS apart).
var unitSeconds = map[string]int64{"SECONDS": 1, "MINUTES": 60, "HOURS": 3600, "DAYS": 86400}

// unitDuration is n units as a duration, for the units of fixed length.
func unitDuration(fn, unit string, n int64) (duration, error) {
	if unit == "MILLIS" {
		return normDuration(floorDiv(n, 1000), (n-floorDiv(n, 1000)*1000)*1e6), nil
	}
	per, ok := unitSeconds[unit]
	if !ok {
		return duration{}, unsupportedUnit(unit)
	}
	s, over := mulInt(n, per)
	if over {
		return duration{}, overflow(fn)
	}
	return duration{s, 0}, nil
}

// plusUnits is (.plus x n unit).
func plusUnits(fn string, x Value, n int64, unit string) (Value, error) {
	if n > 1<<40 || n < -(1<<40) {
		return nil, errorf(InvalidArgument, "%s: %d is outside the range of dates", fn, n)
	}
	switch v := x.(type) {
	case Date:
		switch unit {
		case "DAYS", "WEEKS", "MONTHS", "YEARS":
			return v.plus(fn, unit, n)
		}
		return nil, unsupportedUnit(unit)
	case Instant:
		if v.local {
			switch unit {
			case "WEEKS", "MONTHS", "YEARS":
				return plusDateOf(fn, v, func(d Date) (Value, error) { return d.plus(fn, unit, n) })
			}
		}
		d, err := unitDuration(fn, unit, n)
		if err != nil {
			return nil, err
		}
		return plusDuration(fn, v, d)
	case string:
		if i := enumIndex(dayNames[:], v); i >= 0 {
			return dayNames[(int64(i)+n%7+7)%7], nil
		}
		if i := enumIndex(monthNames[:], v); i >= 0 {
			return monthNames[(int64(i)+n%12+12)%12], nil
		}
		if d, ok := parseDuration(v); ok {
			e, err := unitDuration(fn, unit, n)
			if err != nil {
				return nil, err
			}
			sum, ok := d.add(e)
			if !ok {
				return nil, overflow(fn)
			}
			return sum.String(), nil
		}
	}
	return nil, argError(fn, 0, "a date, a date-time, a duration or a day or month", x)
}

// plusDateOf moves a LocalDateTime's date, keeping its time of day.
func plusDateOf(fn string, x Instant, move func(Date) (Value, error)) (Value, error) {
	moved, err := move(dateOf(x))
	if err != nil {
		return nil, err
	}
	md := moved.(Date)
	if md.Y < 1 || md.Y > 9999 {
		return nil, classError(InvalidArgument, classDateTime, "%s: the year %d is outside the range of date-times", fn, md.Y)
	}
	return atTimeOf(md, x), nil
}

func plusDuration(fn string, x Instant, d duration) (Value, error) {
	g, ok := d.asGo()
	if !ok {
		return nil, classError(InvalidArgument, classDateTime, "%s: %s is outside the range of date-times", fn, d)
	}
	moved := x.Add(g)
	if y := moved.T.UTC().Year(); y < 1 || y > 9999 {
		return nil, classError(InvalidArgument, classDateTime, "%s: the year %d is outside the range of date-times", fn, y)
	}
	return moved, nil
}

// plusAmount is (.plus x amount): a Period or a Duration.
func plusAmount(fn string, x, amount Value, negate bool) (Value, error) {
	if n, ok := amount.(int64); ok && (enumIndex(dayNames[:], x) >= 0 || enumIndex(monthNames[:], x) >= 0) {
		if negate {
			n = -n
		}
		return plusUnits(fn, x, n, "DAYS") // DayOfWeek.plus(n), Month.plus(n)
	}
	s, _ := amount.(string)
	if p, ok := parsePeriod(s); ok {
		if negate {
			p = period{-p.y, -p.m, -p.d}
		}
		return plusPeriod(fn, x, p)
	}
	d, ok := parseDuration(s)
	if !ok {
		return nil, argError(fn, 1, "a Period or a Duration (or an amount and a ChronoUnit)", amount)
	}
	if negate {
		d = d.neg()
	}
	switch v := x.(type) {
	case Instant:
		return plusDuration(fn, v, d)
	case Date:
		return nil, unsupportedUnit("SECONDS")
	case string:
		if e, ok := parseDuration(v); ok {
			sum, ok := e.add(d)
			if !ok {
				return nil, overflow(fn)
			}
			return sum.String(), nil
		}
	}
	return nil, argError(fn, 0, "a date-time or a duration, to add a Duration to", x)
}

// plusPeriod is Java's Period.addTo: the months (years and months
// together), then the days.
func plusPeriod(fn string, x Value, p period) (Value, error) {
	months := p.y*12 + p.m
	switch v := x.(type) {
	case Date:
		moved, err := v.plus(fn, "MONTHS", months)
		if err != nil {
			return nil, err
		}
		return moved.(Date).plus(fn, "DAYS", p.d)
	case Instant:
		if v.local {
			return plusDateOf(fn, v, func(d Date) (Value, error) {
				moved, err := d.plus(fn, "MONTHS", months)
				if err != nil {
					return nil, err
				}
				return moved.(Date).plus(fn, "DAYS", p.d)
			})
		}
		if months != 0 {
			return nil, unsupportedUnit("MONTHS")
		}
		return plusDuration(fn, v, duration{p.d * 86400, 0})
	case string:
		if q, ok := parsePeriod(v); ok {
			return period{q.y + p.y, q.m + p.m, q.d + p.d}.String(), nil
		}
	}
	return nil, argError(fn, 0, "a date, a date-time or a period, to add a Period to", x)
}

// periodBetween is Java's Period.between: whole months, then the days
// left, both with the sign of the span.
func periodBetween(a, b Date) period {
	months := (int64(b.Y)*12 + int64(b.M)) - (int64(a.Y)*12 + int64(a.M))
	days := int64(b.D - a.D)
	if months > 0 && days < 0 {
		months--
		moved, _ := a.plus("Period/between", "MONTHS", months)
		days = b.epochDay() - moved.(Date).epochDay()
	} else if months < 0 && days > 0 {
		months++
		days -= int64(daysIn(b.Y, b.M))
	}
	return period{months / 12, months % 12, days}
}

// durationBetween is Java's Duration.between of two instants or two
// date-times.
func durationBetween(fn string, a, b Value) (duration, error) {
	if x, ok := localTimeOf(a); ok {
		if y, ok := localTimeOf(b); ok {
			return normDuration(0, y-x), nil
		}
	}
	x, ok1 := a.(Instant)
	y, ok2 := b.(Instant)
	if !ok1 || !ok2 || x.local != y.local || (x.zone == nil) != (y.zone == nil) {
		if _, isDate := a.(Date); isDate {
			return duration{}, unsupportedUnit("SECONDS")
		}
		return duration{}, argError(fn, 0, "two date-times or two instants", a)
	}
	xt, yt := x.instant(), y.instant()
	secs := yt.Unix() - xt.Unix()
	return normDuration(secs, int64(yt.Nanosecond()-xt.Nanosecond())), nil
}

// javaDateCompare is LocalDate.compareTo: the difference of the years,
// else of the months, else of the days.
func javaDateCompare(a, b Date) int64 {
	switch {
	case a.Y != b.Y:
		return int64(a.Y - b.Y)
	case a.M != b.M:
		return int64(a.M - b.M)
	}
	return int64(a.D - b.D)
}

// javaTimeCompare is compareTo of two dates or two date-times, as Java
// answers it; ok is false for other values.
func javaTimeCompare(a, b Value) (int64, bool) {
	switch x := a.(type) {
	case Date:
		if y, ok := b.(Date); ok {
			return javaDateCompare(x, y), true
		}
	case Instant:
		if y, ok := b.(Instant); ok && x.zone != nil && y.zone != nil {
			return int64(compareInstants(x, y)), true // ZonedDateTime's: the instant, the wall clock, the zone
		}
		if y, ok := b.(Instant); ok && x.local == y.local && x.zone == nil && y.zone == nil {
			if x.local { // LocalDateTime: the dates, then the times of day
				if c := javaDateCompare(dateOf(x), dateOf(y)); c != 0 {
					return c, true
				}
			}
			return int64(x.T.Compare(y.T)), true
		}
	}
	return 0, false
}

func registerJavaTime(t *builtinTable) {
	for _, m := range monthNames {
		t.set("Month/"+m, m)
	}
	enumOf := func(name, field string, names []string) {
		t.add(name+"/of", 1, 1, func(_ *thread, a []Value) (Value, error) {
			n, err := intArg(name+"/of", a, 0)
			if err != nil {
				return nil, err
			}
			if n < 1 || n > int64(len(names)) {
				return nil, classError(InvalidArgument, classDateTime, "Invalid value for %s: %d", field, n)
			}
			return names[n-1], nil
		})
	}
	enumOf("Month", "MonthOfYear", monthNames[:])
	enumOf("DayOfWeek", "DayOfWeek", dayNames[:])
	t.add(".getMonth", 1, 1, func(_ *thread, a []Value) (Value, error) {
		d, _, _, err := dateOfArg(".getMonth", a)
		if err != nil {
			return nil, err
		}
		return monthNames[d.M-1], nil
	})
	t.add(".name", 1, 1, func(_ *thread, a []Value) (Value, error) {
		// Enum.name: the enums are their names here (ChronoUnit a keyword).
		switch x := a[0].(type) {
		case string:
			if enumIndex(dayNames[:], x) >= 0 || enumIndex(monthNames[:], x) >= 0 {
				return x, nil
			}
		case Keyword:
			return string(x), nil
		}
		return nil, argError(".name", 0, "an enum value (a day, a month, a ChronoUnit)", a[0])
	})
	for _, s := range []string{"FULL", "SHORT", "NARROW", "FULL_STANDALONE", "SHORT_STANDALONE", "NARROW_STANDALONE"} {
		t.set("TextStyle/"+s, Keyword(s))
	}
	// The English locales: display names are English.
	for name, tag := range localeTags {
		t.set("Locale/"+name, tag)
	}
	t.add(".getDisplayName", 3, 3, func(_ *thread, a []Value) (Value, error) {
		name, ok := a[0].(string)
		if !ok || (enumIndex(dayNames[:], name) < 0 && enumIndex(monthNames[:], name) < 0) {
			return nil, argError(".getDisplayName", 0, "a day or a month", a[0])
		}
		style, _ := a[1].(Keyword)
		if !strings.HasPrefix(string(style), "FULL") && !strings.HasPrefix(string(style), "SHORT") && !strings.HasPrefix(string(style), "NARROW") {
			return nil, argError(".getDisplayName", 1, "a TextStyle such as TextStyle/FULL", a[1])
		}
		if loc, ok := a[2].(string); !ok || (loc != "" && !strings.HasPrefix(loc, "en")) {
			return nil, argError(".getDisplayName", 2, "an English locale (Locale/US, Locale/ENGLISH): names are English", a[2])
		}
		full := name[:1] + strings.ToLower(name[1:])
		switch {
		case strings.HasPrefix(string(style), "SHORT"):
			return full[:3], nil
		case strings.HasPrefix(string(style), "NARROW"):
			return full[:1], nil
		}
		return full, nil
	})
	t.add(".lengthOfYear", 1, 1, func(_ *thread, a []Value) (Value, error) {
		d, _, _, err := dateOfArg(".lengthOfYear", a)
		return int64(337 + daysIn(d.Y, 2)), err
	})
	t.add(".atStartOfDay", 1, 2, func(th *thread, a []Value) (Value, error) {
		d, err := dateArg(".atStartOfDay", a, 0)
		if err != nil {
			return nil, err
		}
		start, err := atClock(".atStartOfDay", d, 0, 0, 0, 0)
		if err != nil || len(a) == 1 {
			return start, err
		}
		// (.atStartOfDay date zone): a ZonedDateTime, at the first
		// moment of the day the zone has (later where a gap skips
		// midnight).
		z, err := th.zoneOf(".atStartOfDay", a[1])
		if err != nil {
			return nil, err
		}
		return zonedLocal(start.(Instant), z, false), nil
	})
	t.add(".atTime", 3, 5, func(_ *thread, a []Value) (Value, error) {
		d, err := dateArg(".atTime", a, 0)
		if err != nil {
			return nil, err
		}
		var f [4]int64
		for i := 1; i < len(a); i++ {
			if f[i-1], err = intArg(".atTime", a, i); err != nil {
				return nil, err
			}
		}
		return atClock(".atTime", d, f[0], f[1], f[2], f[3])
	})

	plusMinus := func(name string, negate bool) {
		t.add(name, 2, 3, func(_ *thread, a []Value) (Value, error) {
			if len(a) == 2 {
				return plusAmount(name, a[0], a[1], negate)
			}
			n, err := intArg(name, a, 1)
			if err != nil {
				return nil, err
			}
			u, ok := a[2].(Keyword)
			if !ok || !isChronoUnit(string(u)) {
				return nil, argError(name, 2, "a unit such as ChronoUnit/DAYS", a[2])
			}
			if negate {
				n = -n
			}
			return plusUnits(name, a[0], n, string(u))
		})
	}
	plusMinus(".plus", false)
	plusMinus(".minus", true)
	t.add(".truncatedTo", 2, 2, func(_ *thread, a []Value) (Value, error) {
		u, ok := a[1].(Keyword)
		if !ok || !isChronoUnit(string(u)) {
			return nil, argError(".truncatedTo", 1, "a unit such as ChronoUnit/HOURS", a[1])
		}
		x, ok := a[0].(Instant)
		if !ok {
			return nil, argError(".truncatedTo", 0, "a date-time or an instant", a[0])
		}
		var unit time.Duration
		if u == "MILLIS" {
			unit = time.Millisecond
		} else if secs, ok := unitSeconds[string(u)]; ok {
			unit = time.Duration(secs) * time.Second
		} else {
			// java.time's UnsupportedTemporalTypeException.
			return nil, classError(InvalidArgument, classDateTime, "Unit is too large to be used for truncation")
		}
		// Every unit divides a day, and Go's zero time starts a day (UTC,
		// where T holds both kinds): Truncate clears what Java clears.
		return x.withWall(x.T.UTC().Truncate(unit)), nil
	})
	t.add(".until", 2, 3, func(_ *thread, a []Value) (Value, error) {
		if len(a) == 3 {
			u, ok := a[2].(Keyword)
			if !ok || !isChronoUnit(string(u)) {
				return nil, argError(".until", 2, "a unit such as ChronoUnit/DAYS", a[2])
			}
			return between(string(u), a[0], a[1])
		}
		x, err := dateArg(".until", a, 0)
		if err != nil {
			return nil, err
		}
		y, err := dateArg(".until", a, 1)
		if err != nil {
			return nil, err
		}
		return periodBetween(x, y).String(), nil
	})

	// java.time.Period.
	t.add("Period/between", 2, 2, func(_ *thread, a []Value) (Value, error) {
		x, err := dateArg("Period/between", a, 0)
		if err != nil {
			return nil, err
		}
		y, err := dateArg("Period/between", a, 1)
		if err != nil {
			return nil, err
		}
		return periodBetween(x, y).String(), nil
	})
	t.add("Period/of", 3, 3, func(_ *thread, a []Value) (Value, error) {
		var n [3]int64
		for i := range n {
			v, err := intArg("Period/of", a, i)
			if err != nil {
				return nil, err
			}
			if _, err := intValue(v); err != nil {
				return nil, err
			}
			n[i] = v
		}
		return period{n[0], n[1], n[2]}.String(), nil
	})
	for _, f := range []struct {
		name string
		make func(n int64) period
	}{
		{"Period/ofDays", func(n int64) period { return period{0, 0, n} }},
		{"Period/ofWeeks", func(n int64) period { return period{0, 0, 7 * n} }},
		{"Period/ofMonths", func(n int64) period { return period{0, n, 0} }},
		{"Period/ofYears", func(n int64) period { return period{n, 0, 0} }},
	} {
		t.add(f.name, 1, 1, func(_ *thread, a []Value) (Value, error) {
			n, err := intArg(f.name, a, 0)
			if err != nil {
				return nil, err
			}
			p := f.make(n)
			for _, c := range []int64{p.y, p.m, p.d} {
				if c < math.MinInt32 || c > math.MaxInt32 {
					return nil, overflow(f.name) // Java's fields are ints
				}
			}
			return p.String(), nil
		})
	}
	t.add("Period/parse", 1, 1, func(_ *thread, a []Value) (Value, error) {
		s, err := stringArg("Period/parse", a, 0)
		if err != nil {
			return nil, err
		}
		p, ok := parsePeriod(s)
		if !ok {
			return nil, classError(InvalidArgument, classDateTimeParse, "Text cannot be parsed to a Period: %s", quoteShort(s))
		}
		return p.String(), nil
	})
	t.set("Period/ZERO", "P0D")
	for _, f := range []struct {
		name string
		get  func(period) int64
	}{
		{".getYears", func(p period) int64 { return p.y }},
		{".getMonths", func(p period) int64 { return p.m }},
		{".getDays", func(p period) int64 { return p.d }},
		{".toTotalMonths", func(p period) int64 { return p.y*12 + p.m }},
	} {
		t.add(f.name, 1, 1, func(_ *thread, a []Value) (Value, error) {
			p, err := periodArg(f.name, a, 0)
			if err != nil {
				return nil, err
			}
			return f.get(p), nil
		})
	}

	// java.time.Duration.
	t.add("Duration/between", 2, 2, func(_ *thread, a []Value) (Value, error) {
		d, err := durationBetween("Duration/between", a[0], a[1])
		if err != nil {
			return nil, err
		}
		return d.String(), nil
	})
	for _, f := range []struct {
		name string
		unit string
	}{
		{"Duration/ofDays", "DAYS"}, {"Duration/ofHours", "HOURS"}, {"Duration/ofMinutes", "MINUTES"},
		{"Duration/ofSeconds", "SECONDS"}, {"Duration/ofMillis", "MILLIS"},
	} {
		t.add(f.name, 1, 1, func(_ *thread, a []Value) (Value, error) {
			n, err := intArg(f.name, a, 0)
			if err != nil {
				return nil, err
			}
			d, err := unitDuration(f.name, f.unit, n)
			if err != nil {
				return nil, err
			}
			return d.String(), nil
		})
	}
	t.add("Duration/parse", 1, 1, func(_ *thread, a []Value) (Value, error) {
		s, err := stringArg("Duration/parse", a, 0)
		if err != nil {
			return nil, err
		}
		d, ok := parseDuration(s)
		if !ok {
			return nil, classError(InvalidArgument, classDateTimeParse, "Text cannot be parsed to a Duration: %s", quoteShort(s))
		}
		return d.String(), nil
	})
	t.set("Duration/ZERO", "PT0S")
	for _, f := range []struct {
		name string
		get  func(duration) (int64, bool)
	}{
		{".toDays", func(d duration) (int64, bool) { return d.secs / 86400, true }},
		{".toHours", func(d duration) (int64, bool) { return d.secs / 3600, true }},
		{".toMinutes", func(d duration) (int64, bool) { return d.secs / 60, true }},
		{".getSeconds", func(d duration) (int64, bool) { return d.secs, true }},
		{".toSeconds", func(d duration) (int64, bool) { return d.secs, true }},
		{".toHoursPart", func(d duration) (int64, bool) { return d.secs / 3600 % 24, true }},
		{".toMinutesPart", func(d duration) (int64, bool) { return d.secs / 60 % 60, true }},
		{".toSecondsPart", func(d duration) (int64, bool) { return d.secs % 60, true }},
		{".toMillis", func(d duration) (int64, bool) {
			ms, over := mulInt(d.secs, 1000)
			r := ms + d.nanos/1e6
			return r, !over && r >= ms
		}},
	} {
		t.add(f.name, 1, 1, func(_ *thread, a []Value) (Value, error) {
			d, err := durationArg(f.name, a, 0)
			if err != nil {
				return nil, err
			}
			n, ok := f.get(d)
			if !ok {
				return nil, overflow(f.name)
			}
			return n, nil
		})
	}
	t.add(".isNegative", 1, 1, func(_ *thread, a []Value) (Value, error) {
		s, _ := a[0].(string)
		if d, ok := parseDuration(s); ok {
			return d.secs < 0, nil
		}
		if p, ok := parsePeriod(s); ok {
			return p.y < 0 || p.m < 0 || p.d < 0, nil
		}
		return nil, argError(".isNegative", 0, "a Duration or a Period", a[0])
	})
	t.add(".isZero", 1, 1, func(_ *thread, a []Value) (Value, error) {
		s, _ := a[0].(string)
		if d, ok := parseDuration(s); ok {
			return d == duration{}, nil
		}
		if p, ok := parsePeriod(s); ok {
			return p == period{}, nil
		}
		return nil, argError(".isZero", 0, "a Duration or a Period", a[0])
	})

	// java.time.temporal.TemporalAdjusters: functions from a date to a
	// date, which .with applies (to a LocalDateTime's date too).
	adjuster := func(name string, adjust func(d Date) Date) {
		t.add("TemporalAdjusters/"+name, 0, 0, func(*thread, []Value) (Value, error) {
			return &Builtin{Name: "TemporalAdjusters/" + name, MinArgs: 1, MaxArgs: 1, fn: func(_ *thread, a []Value) (Value, error) {
				d, x, isDateTime, err := dateOfArg("TemporalAdjusters/"+name, a)
				if err != nil {
					return nil, err
				}
				if isDateTime {
					return atTimeOf(adjust(d), x), nil
				}
				return adjust(d), nil
			}}, nil
		})
	}
	adjuster("firstDayOfMonth", func(d Date) Date { return Date{d.Y, d.M, 1} })
	adjuster("lastDayOfMonth", func(d Date) Date { return Date{d.Y, d.M, daysIn(d.Y, d.M)} })
	adjuster("firstDayOfNextMonth", func(d Date) Date { return nextMonth(d) })
	adjuster("firstDayOfYear", func(d Date) Date { return Date{d.Y, 1, 1} })
	adjuster("lastDayOfYear", func(d Date) Date { return Date{d.Y, 12, 31} })
	adjuster("firstDayOfNextYear", func(d Date) Date { return Date{d.Y + 1, 1, 1} })
	for _, f := range []struct {
		name string
		same bool
		dir  int64
	}{{"next", false, 1}, {"nextOrSame", true, 1}, {"previous", false, -1}, {"previousOrSame", true, -1}} {
		t.add("TemporalAdjusters/"+f.name, 1, 1, func(_ *thread, a []Value) (Value, error) {
			want := enumIndex(dayNames[:], a[0])
			if want < 0 {
				return nil, argError("TemporalAdjusters/"+f.name, 0, "a day such as DayOfWeek/MONDAY", a[0])
			}
			return &Builtin{Name: "TemporalAdjusters/" + f.name, MinArgs: 1, MaxArgs: 1, fn: func(_ *thread, a []Value) (Value, error) {
				d, x, isDateTime, err := dateOfArg("TemporalAdjusters/"+f.name, a)
				if err != nil {
					return nil, err
				}
				have := (int(d.weekday()) + 6) % 7 // MONDAY 0
				steps := int64((want - have + 7) % 7)
				if f.dir < 0 {
					steps = int64((have - want + 7) % 7)
				}
				if steps == 0 && !f.same {
					steps = 7
				}
				moved, err := dateOfEpochDay("TemporalAdjusters/"+f.name, d.epochDay()+f.dir*steps)
				if err != nil || !isDateTime {
					return moved, err
				}
				return atTimeOf(moved.(Date), x), nil
			}}, nil
		})
	}
	t.add(".with", 2, 2, func(th *thread, a []Value) (Value, error) {
		adj, ok := a[1].(*Builtin)
		if !ok || !strings.HasPrefix(adj.Name, "TemporalAdjusters/") {
			return nil, argError(".with", 1, "an adjuster such as (TemporalAdjusters/lastDayOfMonth)", a[1])
		}
		return th.call1(adj, a[0])
	})
}

func nextMonth(d Date) Date {
	if d.M == 12 {
		return Date{d.Y + 1, 1, 1}
	}
	return Date{d.Y, d.M + 1, 1}
}

// atClock is date d at a time of day, a LocalDateTime.
func atClock(fn string, d Date, h, m, s, n int64) (Value, error) {
	if h < 0 || h > 23 || m < 0 || m > 59 || s < 0 || s > 59 || n < 0 || n > 999_999_999 {
		return nil, classError(InvalidArgument, classDateTime, "%s: %d:%d:%d.%d is not a time of day", fn, h, m, s, n)
	}
	if d.Y < 1 || d.Y > 9999 {
		return nil, classError(InvalidArgument, classDateTime, "%s: the year %d is outside the range of date-times", fn, d.Y)
	}
	return Instant{T: time.Date(d.Y, time.Month(d.M), d.D, int(h), int(m), int(s), int(n), time.UTC), local: true}, nil
}

// localeTags are the java.util.Locale constants PTC-Lisp knows, each the
// text Java prints for it: the English ones, whose names, case rules and
// number formats are those every builtin already follows.
var localeTags = map[string]string{"US": "en_US", "ENGLISH": "en", "UK": "en_GB", "ROOT": ""}

// isLocale says whether v is one of the locales of localeTags.
func isLocale(v Value) bool {
	s, ok := v.(string)
	if !ok {
		return false
	}
	for _, tag := range localeTags {
		if s == tag {
			return true
		}
	}
	return false
}
