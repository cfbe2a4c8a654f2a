package lisp

import (
	"fmt"
	"strings"
	"sync"
	"time"
)

// java.time's zones: ZoneId, ZoneOffset, ZonedDateTime and OffsetDateTime,
// as models write them to read a timestamp's date or hour in a zone:
// (-> (Instant/parse s) (.atZone (ZoneId/of "UTC")) .toLocalDate),
// (LocalDateTime/ofInstant i ZoneOffset/UTC), (ZonedDateTime/parse s).
//
// A zone is its text, as Java's toString writes it ("UTC",
// "Europe/Paris", "Z", "+02:00"), as a Month or a Duration is (deviation
// row 100): it prints, compares and travels as text, and every method that
// takes a zone reads one. A region's rules are the host's time-zone
// database (Go's time.LoadLocation); UTC, GMT and offsets need none.
//
// A ZonedDateTime or an OffsetDateTime is an Instant with a zone: T holds
// its date and time of day as the wall clock shows them (in UTC fields,
// as a LocalDateTime's), so every method of LocalDateTime reads and moves
// it; the zone makes it a point in time where one is needed (comparison,
// .toInstant, ChronoUnit's between, its offset in print). A move by hours
// or smaller units goes along the time line in a region with daylight
// saving time, as Java's does; a move by days or more keeps the wall clock.

// zoneRule is a zone: its id as Java prints it, and its rules.
type zoneRule struct {
	id  string
	loc *time.Location
	// offset marks a ZoneOffset ("Z", "+02:00"): a ZonedDateTime in one
	// prints no [zone], and an OffsetDateTime's zone is always one.
	offset bool
}

// utcOffset is ZoneOffset/UTC.
var utcOffset = &zoneRule{id: "Z", loc: time.UTC, offset: true}

// zoneCache keeps the regions a run looked up: loading a zone's rules
// reads a file.
type zoneCache struct {
	mu    sync.Mutex
	rules map[string]*zoneRule
}

// instant is the point in time i stands for: T, for an instant or a
// LocalDateTime (read in UTC); for a zoned one its wall clock in its zone.
func (i Instant) instant() time.Time {
	if i.zone == nil {
		return i.T
	}
	return i.T.Add(-time.Duration(i.off) * time.Second).In(i.zone.loc)
}

// withWall is i with the wall clock t, of the same kind and zone; in a
// region, at the offset i has if the zone has it then, as java.time keeps
// the offset when it moves a ZonedDateTime by days.
func (i Instant) withWall(t time.Time) Instant {
	if i.zone == nil {
		return Instant{T: t, local: i.local}
	}
	return wallIn(t, i.zone, i.offsetDT, int(i.off), true)
}

// offsetAt is the offset of zone loc at the point in time t, in seconds.
func offsetAt(loc *time.Location, t time.Time) int {
	_, secs := t.In(loc).Zone()
	return secs
}

// wallIn places the wall clock w (in UTC fields) in zone z, as
// ZonedDateTime.ofLocal: the one offset the zone has then; in an overlap
// (a clock set back) the preferred one if given, else the earlier; in a
// gap (a clock set forward) the time moved later by the gap.
func wallIn(w time.Time, z *zoneRule, offsetDT bool, preferred int, hasPreferred bool) Instant {
	before, after := offsetAt(z.loc, w.Add(-24*time.Hour)), offsetAt(z.loc, w.Add(24*time.Hour))
	candidates := []int{before, after}
	if hasPreferred {
		candidates = []int{preferred, before, after}
	}
	for _, o := range candidates {
		if t := w.Add(-time.Duration(o) * time.Second); offsetAt(z.loc, t) == o {
			return zonedAt(t, z, offsetDT)
		}
	}
	return zonedAt(w.Add(-time.Duration(before)*time.Second), z, offsetDT)
}

// zonedAt is the ZonedDateTime (or OffsetDateTime) of the point in time t
// in zone z.
func zonedAt(t time.Time, z *zoneRule, offsetDT bool) Instant {
	w := t.In(z.loc)
	if offsetDT && !z.offset {
		z = offsetRule(w)
	}
	_, secs := w.Zone()
	return Instant{T: time.Date(w.Year(), w.Month(), w.Day(), w.Hour(), w.Minute(), w.Second(), w.Nanosecond(), time.UTC),
		local: true, zone: z, offsetDT: offsetDT, off: int32(secs)}
}

// zonedLocal is the wall clock of LocalDateTime x in zone z.
func zonedLocal(x Instant, z *zoneRule, offsetDT bool) Instant {
	return wallIn(x.T.UTC(), z, offsetDT, 0, false)
}

// offsetRule is the fixed offset t has in its zone, as a ZoneOffset.
func offsetRule(t time.Time) *zoneRule {
	_, secs := t.Zone()
	if secs == 0 {
		return utcOffset
	}
	id := offsetText(secs)
	return &zoneRule{id: id, loc: time.FixedZone(id, secs), offset: true}
}

// offsetText is Java's text of an offset of secs seconds: Z, +02:00,
// -03:30, +05:45:30.
func offsetText(secs int) string {
	if secs == 0 {
		return "Z"
	}
	sign := byte('+')
	if secs < 0 {
		sign, secs = '-', -secs
	}
	s := fmt.Sprintf("%c%02d:%02d", sign, secs/3600, secs/60%60)
	if secs%60 != 0 {
		s += fmt.Sprintf(":%02d", secs%60)
	}
	return s
}

// zonedText is a ZonedDateTime's or OffsetDateTime's toString:
// 2024-03-15T10:15:30+01:00[Europe/Paris], 2024-03-15T10:15Z.
func (i Instant) zonedText() string {
	_, secs := i.instant().Zone()
	s := localDateTime(i.T) + offsetText(secs)
	if !i.offsetDT && !i.zone.offset {
		s += "[" + i.zone.id + "]"
	}
	return s
}

// parseOffset reads an offset as ZoneOffset.of does: Z, +h, +hh, +hh:mm,
// +hhmm, +hh:mm:ss, +hhmmss, within ±18:00; its seconds.
func parseOffset(s string) (int, bool) {
	if s == "Z" {
		return 0, true
	}
	if len(s) < 2 || s[0] != '+' && s[0] != '-' {
		return 0, false
	}
	digits := strings.ReplaceAll(s[1:], ":", "")
	colons := strings.Count(s[1:], ":")
	var h, m, sec int
	num := func(t string) (int, bool) {
		n := 0
		for _, c := range t {
			if c < '0' || c > '9' {
				return 0, false
			}
			n = n*10 + int(c-'0')
		}
		return n, true
	}
	ok := true
	switch {
	case len(digits) == 1 && colons == 0, len(digits) == 2 && colons == 0:
		h, ok = num(digits)
	case len(digits) == 4 && (colons == 0 || colons == 1 && s[3] == ':'):
		h, _ = num(digits[:2])
		m, ok = num(digits[2:])
	case len(digits) == 6 && (colons == 0 || colons == 2 && s[3] == ':' && s[6] == ':'):
		h, _ = num(digits[:2])
		m, _ = num(digits[2:4])
		sec, ok = num(digits[4:])
	default:
		return 0, false
	}
	if _, all := num(digits); !ok || !all || h > 18 || m > 59 || sec > 59 {
		return 0, false
	}
	total := h*3600 + m*60 + sec
	if total > 18*3600 {
		return 0, false
	}
	if s[0] == '-' {
		total = -total
	}
	return total, true
}

// zoneOf reads a zone as ZoneId.of does: an offset (a ZoneOffset), UTC,
// GMT or UT alone or with an offset, or a region of the time-zone database.
func (th *thread) zoneOf(fn string, v Value) (*zoneRule, error) {
	s, ok := v.(string)
	if !ok {
		return nil, argError(fn, 0, "a zone, (ZoneId/of \"UTC\") or ZoneOffset/UTC", v)
	}
	return zoneNamed(fn, s, &th.run.zones)
}

// zoneNamed is the zone s names, looked up in cache (nil: none).
func zoneNamed(fn, s string, cache *zoneCache) (*zoneRule, error) {
	unknown := func() error {
		id := s // Java's message names it bare; a long or odd one is quoted and cut
		if len(id) > 64 || strings.ContainsFunc(id, func(r rune) bool { return r < ' ' }) {
			id = quoteShort(s)
		}
		return classError(InvalidArgument, classDateTime, "Unknown time-zone ID: %s", id)
	}
	if secs, ok := parseOffset(s); ok {
		if secs == 0 {
			return utcOffset, nil
		}
		id := offsetText(secs)
		return &zoneRule{id: id, loc: time.FixedZone(id, secs), offset: true}, nil
	}
	for _, prefix := range []string{"UTC", "GMT", "UT"} {
		if rest, found := strings.CutPrefix(s, prefix); found && (rest == "" || rest[0] == '+' || rest[0] == '-') {
			if rest == "" {
				return &zoneRule{id: s, loc: time.UTC}, nil
			}
			secs, ok := parseOffset(rest)
			if !ok {
				return nil, unknown()
			}
			id := prefix + offsetText(secs)
			if secs == 0 {
				id = prefix
			}
			return &zoneRule{id: id, loc: time.FixedZone(id, secs)}, nil
		}
	}
	// A region: Area/Location, letters, digits and ~ / . _ + -, as
	// ZoneRegion checks before it looks the rules up.
	if len(s) < 2 || len(s) > 64 || !strings.Contains(s, "/") {
		return nil, unknown()
	}
	for i, c := range s {
		letter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if !letter && (i == 0 || !(c >= '0' && c <= '9' || strings.ContainsRune("~/._+-", c))) {
			return nil, unknown()
		}
	}
	if cache == nil {
		cache = &zoneCache{}
	}
	cache.mu.Lock()
	defer cache.mu.Unlock()
	if z, ok := cache.rules[s]; ok {
		return z, nil
	}
	if len(cache.rules) >= 1024 {
		return nil, errorf(InvalidArgument, "%s: a run may use at most 1024 time zones", fn)
	}
	loc, err := time.LoadLocation(s)
	if err != nil {
		return nil, unknown()
	}
	z := &zoneRule{id: s, loc: loc}
	if cache.rules == nil {
		cache.rules = map[string]*zoneRule{}
	}
	cache.rules[s] = z
	return z, nil
}

// offsetOf reads a ZoneOffset.
func (th *thread) offsetOf(fn string, v Value) (*zoneRule, error) {
	z, err := th.zoneOf(fn, v)
	if err == nil && !z.offset {
		return nil, classError(InvalidArgument, classDateTime, "%s: %s is a region, not an offset such as ZoneOffset/UTC or \"+02:00\"", fn, quoteShort(z.id))
	}
	return z, err
}

// zoneArg reads a zone, or only an offset (an OffsetDateTime's).
func (th *thread) zoneArg(fn string, v Value, offsetOnly bool) (*zoneRule, error) {
	if offsetOnly {
		return th.offsetOf(fn, v)
	}
	return th.zoneOf(fn, v)
}

// zonedArg reads argument i as a ZonedDateTime or an OffsetDateTime.
func zonedArg(fn string, a []Value, i int) (Instant, error) {
	if x, ok := a[i].(Instant); ok && x.zone != nil {
		return x, nil
	}
	return Instant{}, argError(fn, i, "a ZonedDateTime or an OffsetDateTime", a[i])
}

// parseZoned reads Java's ISO_ZONED_DATE_TIME (a local date-time, an
// offset, and a region in brackets if any) or, for an OffsetDateTime,
// ISO_OFFSET_DATE_TIME.
func parseZoned(fn, s string, offsetDT bool, cache *zoneCache) (Instant, error) {
	bad := func() error {
		want := "2024-03-15T10:15:30+01:00[Europe/Paris]"
		if offsetDT {
			want = "2024-03-15T10:15:30+01:00"
		}
		return classError(InvalidArgument, classDateTimeParse, "%s: Text %s could not be parsed (want a date-time like %s)", fn, quoteShort(s), want)
	}
	body, region := s, ""
	if open := strings.IndexByte(s, '['); open >= 0 && strings.HasSuffix(s, "]") && !offsetDT {
		body, region = s[:open], s[open+1:len(s)-1]
	}
	t := strings.IndexByte(body, 'T')
	if t < 0 {
		return Instant{}, bad()
	}
	cut := strings.LastIndexAny(body[t:], "Z+-")
	if cut < 0 {
		return Instant{}, bad()
	}
	local, ok := parseLocalDateTime(body[:t+cut])
	secs, ok2 := parseOffset(body[t+cut:])
	if !ok || !ok2 {
		return Instant{}, bad()
	}
	z, err := zoneNamed(fn, offsetText(secs), cache)
	if err != nil {
		return Instant{}, err
	}
	at := local.T.Add(-time.Duration(secs) * time.Second)
	if region != "" {
		if z, err = zoneNamed(fn, region, cache); err != nil {
			return Instant{}, err
		}
	}
	return zonedAt(at, z, offsetDT), nil
}

func registerZones(t *builtinTable) {
	t.set("ZoneOffset/UTC", "Z")
	t.add("ZoneId/systemDefault", 0, 0, func(*thread, []Value) (Value, error) {
		return "UTC", nil // the same zone on every host: runs are deterministic
	})
	t.add("ZoneId/of", 1, 1, func(th *thread, a []Value) (Value, error) {
		z, err := th.zoneOf("ZoneId/of", a[0])
		if err != nil {
			return nil, err
		}
		return z.id, nil
	})
	t.add("ZoneOffset/of", 1, 1, func(th *thread, a []Value) (Value, error) {
		z, err := th.offsetOf("ZoneOffset/of", a[0])
		if err != nil {
			return nil, err
		}
		return z.id, nil
	})
	t.add("ZoneOffset/ofHours", 1, 2, func(_ *thread, a []Value) (Value, error) {
		h, err := intArg("ZoneOffset/ofHours", a, 0)
		if err != nil {
			return nil, err
		}
		var m int64
		if len(a) == 2 {
			if m, err = intArg("ZoneOffset/ofHours", a, 1); err != nil {
				return nil, err
			}
		}
		if h < -18 || h > 18 || m < -59 || m > 59 || h*m < 0 || (h == 18 || h == -18) && m != 0 {
			return nil, classError(InvalidArgument, classDateTime, "Zone offset hours and minutes out of range: %d, %d", h, m)
		}
		return offsetText(int(h*3600 + m*60)), nil
	}, "ZoneOffset/ofHoursMinutes")
	for _, c := range []struct {
		class    string
		offsetDT bool
	}{{"ZonedDateTime", false}, {"OffsetDateTime", true}} {
		t.add(c.class+"/parse", 1, 1, func(th *thread, a []Value) (Value, error) {
			s, err := stringArg(c.class+"/parse", a, 0)
			if err != nil {
				return nil, err
			}
			return parseZoned(c.class+"/parse", s, c.offsetDT, &th.run.zones)
		})
		t.add(c.class+"/now", 0, 1, func(th *thread, a []Value) (Value, error) {
			z := &zoneRule{id: "UTC", loc: time.UTC} // ZoneId/systemDefault
			if len(a) == 1 {
				var err error
				if z, err = th.zoneOf(c.class+"/now", a[0]); err != nil { // any zone: the offset it has now
					return nil, err
				}
			}
			return zonedAt(time.Now(), z, c.offsetDT), nil
		})
		t.add(c.class+"/ofInstant", 2, 2, func(th *thread, a []Value) (Value, error) {
			i, ok := a[0].(Instant)
			if !ok || i.local && i.zone == nil {
				return nil, argError(c.class+"/ofInstant", 0, "an instant", a[0])
			}
			z, err := th.zoneOf(c.class+"/ofInstant", a[1]) // any zone: the offset it has then
			if err != nil {
				return nil, err
			}
			return zonedAt(i.instant(), z, c.offsetDT), nil
		})
		// (of local-date-time zone), (of date time zone), (of y m d h
		// min s nano zone).
		t.add(c.class+"/of", 2, 8, func(th *thread, a []Value) (Value, error) {
			fn := c.class + "/of"
			z, err := th.zoneArg(fn, a[len(a)-1], c.offsetDT)
			if err != nil {
				return nil, err
			}
			var local Value
			switch len(a) {
			case 2:
				local = a[0]
			case 3:
				local, err = th.call(t.names["LocalDateTime/of"], a[:2])
			case 8:
				local, err = th.call(t.names["LocalDateTime/of"], a[:7])
			default:
				return nil, errorf(ArityError, "%s takes a date-time and a zone, a date, a time and a zone, or the seven fields and a zone", fn)
			}
			if err != nil {
				return nil, err
			}
			x, ok := local.(Instant)
			if !ok || !x.local || x.zone != nil {
				return nil, argError(fn, 0, "a LocalDateTime", local)
			}
			return zonedLocal(x, z, c.offsetDT), nil
		})
	}
	// (LocalDateTime/ofInstant i zone), (LocalDate/ofInstant i zone): the
	// wall clock, or the date, of an instant in a zone.
	for _, name := range []string{"LocalDateTime/ofInstant", "LocalDate/ofInstant"} {
		t.add(name, 2, 2, func(th *thread, a []Value) (Value, error) {
			i, ok := a[0].(Instant)
			if !ok || i.local && i.zone == nil {
				return nil, argError(name, 0, "an instant", a[0])
			}
			z, err := th.zoneOf(name, a[1])
			if err != nil {
				return nil, err
			}
			x := zonedAt(i.instant(), z, false)
			if name == "LocalDate/ofInstant" {
				return dateOf(x), nil
			}
			return Instant{T: x.T, local: true}, nil
		})
	}
	// (.atZone x zone) of an instant or a LocalDateTime, (.atOffset x
	// offset): a ZonedDateTime, an OffsetDateTime.
	for _, m := range []struct {
		name     string
		offsetDT bool
	}{{".atZone", false}, {".atOffset", true}} {
		t.add(m.name, 2, 2, func(th *thread, a []Value) (Value, error) {
			x, ok := a[0].(Instant)
			if !ok || x.zone != nil {
				return nil, argError(m.name, 0, "an instant or a LocalDateTime", a[0])
			}
			z, err := th.zoneArg(m.name, a[1], m.offsetDT)
			if err != nil {
				return nil, err
			}
			if x.local {
				return zonedLocal(x, z, m.offsetDT), nil
			}
			return zonedAt(x.T, z, m.offsetDT), nil
		})
	}
	t.add(".toInstant", 1, 1, func(_ *thread, a []Value) (Value, error) {
		if x, ok := a[0].(Instant); ok && !x.local {
			return x, nil // a java.util.Date's instant
		}
		x, err := zonedArg(".toInstant", a, 0)
		if err != nil {
			return nil, err
		}
		return Instant{T: x.instant().UTC()}, nil
	})
	t.add(".toLocalDateTime", 1, 1, func(_ *thread, a []Value) (Value, error) {
		x, err := zonedArg(".toLocalDateTime", a, 0)
		if err != nil {
			return nil, err
		}
		return Instant{T: x.T, local: true}, nil
	})
	t.add(".toOffsetDateTime", 1, 1, func(_ *thread, a []Value) (Value, error) {
		x, err := zonedArg(".toOffsetDateTime", a, 0)
		if err != nil {
			return nil, err
		}
		return zonedAt(x.instant(), x.zone, true), nil
	})
	t.add(".toZonedDateTime", 1, 1, func(_ *thread, a []Value) (Value, error) {
		x, err := zonedArg(".toZonedDateTime", a, 0)
		if err != nil {
			return nil, err
		}
		return zonedAt(x.instant(), x.zone, false), nil
	})
	t.add(".getZone", 1, 1, func(_ *thread, a []Value) (Value, error) {
		x, err := zonedArg(".getZone", a, 0)
		if err != nil {
			return nil, err
		}
		if x.offsetDT {
			return nil, argError(".getZone", 0, "a ZonedDateTime (an OffsetDateTime has .getOffset)", a[0])
		}
		return x.zone.id, nil
	})
	t.add(".getOffset", 1, 1, func(_ *thread, a []Value) (Value, error) {
		x, err := zonedArg(".getOffset", a, 0)
		if err != nil {
			return nil, err
		}
		_, secs := x.instant().Zone()
		return offsetText(secs), nil
	})
	t.add(".getId", 1, 1, func(th *thread, a []Value) (Value, error) {
		z, err := th.zoneOf(".getId", a[0])
		if err != nil {
			return nil, err
		}
		return z.id, nil
	})
	t.add(".toEpochSecond", 1, 2, func(th *thread, a []Value) (Value, error) {
		x, ok := a[0].(Instant)
		if ok && x.local && x.zone == nil && len(a) == 2 { // LocalDateTime's, at an offset
			z, err := th.offsetOf(".toEpochSecond", a[1])
			if err != nil {
				return nil, err
			}
			return zonedLocal(x, z, true).instant().Unix(), nil
		}
		if len(a) == 2 {
			return nil, errorf(ArityError, ".toEpochSecond takes an offset only for a LocalDateTime")
		}
		x, err := zonedArg(".toEpochSecond", a, 0)
		if err != nil {
			return nil, err
		}
		return x.instant().Unix(), nil
	})
	for _, m := range []struct {
		name        string
		sameInstant bool
		offsetDT    bool
	}{{".withZoneSameInstant", true, false}, {".withZoneSameLocal", false, false}, {".withOffsetSameInstant", true, true},
		{".withOffsetSameLocal", false, true}, {".atZoneSameInstant", true, false}} {
		t.add(m.name, 2, 2, func(th *thread, a []Value) (Value, error) {
			x, err := zonedArg(m.name, a, 0)
			if err != nil {
				return nil, err
			}
			if x.offsetDT != m.offsetDT && m.name != ".atZoneSameInstant" {
				return nil, argError(m.name, 0, map[bool]string{false: "a ZonedDateTime", true: "an OffsetDateTime"}[m.offsetDT], a[0])
			}
			z, err := th.zoneArg(m.name, a[1], m.offsetDT)
			if err != nil {
				return nil, err
			}
			if m.sameInstant {
				return zonedAt(x.instant(), z, m.offsetDT), nil
			}
			return zonedLocal(Instant{T: x.T, local: true}, z, m.offsetDT), nil
		})
	}
}

// sameZone reports whether two date-times have the same zone and kind.
func sameZone(x, y Instant) bool {
	if x.zone == nil || y.zone == nil {
		return x.zone == y.zone
	}
	return x.zone.id == y.zone.id && x.zone.offset == y.zone.offset && x.offsetDT == y.offsetDT && x.off == y.off
}

// compareInstants orders date-times by the point in time, then, as
// ZonedDateTime.compareTo, by the wall clock and the zone's id, so that
// only equal ones compare 0.
func compareInstants(x, y Instant) int {
	if c := x.instant().Compare(y.instant()); c != 0 {
		return c
	}
	if c := x.T.Compare(y.T); c != 0 {
		return c
	}
	kind := func(i Instant) int {
		switch {
		case i.zone == nil && !i.local:
			return 0
		case i.zone == nil:
			return 1
		case i.offsetDT:
			return 3
		}
		return 2
	}
	if c := kind(x) - kind(y); c != 0 {
		return c
	}
	if x.zone != nil {
		return strings.Compare(x.zone.id, y.zone.id)
	}
	return 0
}

// patternOffset is a pattern's offset letter X, x or Z of t's zone, as
// DateTimeFormatter writes it: X uses Z for zero.
func patternOffset(p patternPart, t time.Time) string {
	_, secs := t.Zone()
	if p.letter == 'X' && secs == 0 {
		return "Z"
	}
	sign := byte('+')
	if secs < 0 {
		sign, secs = '-', -secs
	}
	h, m := secs/3600, secs/60%60
	switch {
	case p.letter == 'Z' && p.n <= 3, p.letter != 'Z' && p.n == 2:
		return fmt.Sprintf("%c%02d%02d", sign, h, m)
	case p.letter != 'Z' && p.n == 1:
		if m != 0 {
			return fmt.Sprintf("%c%02d%02d", sign, h, m)
		}
		return fmt.Sprintf("%c%02d", sign, h)
	case p.letter == 'Z' && p.n == 4:
		if secs == 0 {
			return "GMT"
		}
		return fmt.Sprintf("GMT%c%02d:%02d", sign, h, m)
	}
	return fmt.Sprintf("%c%02d:%02d", sign, h, m)
}
