package lisp

import (
	"math"
	"strconv"
	"strings"
)

// java.text.DecimalFormat and NumberFormat, as models format figures in
// reports: (.format (DecimalFormat. "#,##0.00") x),
// (.format (NumberFormat/getCurrencyInstance Locale/US) x), the setters
// (.setMaximumFractionDigits nf 2) and .parse. A format is an atom
// holding its settings, {:decimal-format pattern, :min-int 1, ...}, as a
// matcher is (docs/deviations.md row 102): the setters change it, and a
// run that fails puts it back. Java's rules: rounding HALF_EVEN on the
// exact value of a double (2.675 is 2.67499999…), grouping by the
// pattern's last group, a minus before the prefix, "%" multiplying by
// 100, "¤" the dollar (the English locales only).

var (
	kwDecimalFormat = Keyword("decimal-format")
	kwMinInt        = Keyword("min-int")
	kwMaxInt        = Keyword("max-int")
	kwMinFrac       = Keyword("min-frac")
	kwMaxFrac       = Keyword("max-frac")
	kwGroupSize     = Keyword("group-size")
	kwGrouping      = Keyword("grouping")
	kwRounding      = Keyword("rounding")
	kwMultiplier    = Keyword("multiplier")
	kwPosPrefix     = Keyword("positive-prefix")
	kwPosSuffix     = Keyword("positive-suffix")
	kwNegPrefix     = Keyword("negative-prefix")
	kwNegSuffix     = Keyword("negative-suffix")
	kwAlwaysPoint   = Keyword("point-always")
)

// decimalFormat is a format's settings.
type decimalFormat struct {
	pattern                          string
	minInt, maxInt, minFrac, maxFrac int
	groupSize                        int
	grouping, alwaysPoint            bool
	rounding                         string
	multiplier                       int64
	posPrefix, posSuffix             string
	negPrefix, negSuffix             string
}

// parseDecimalPattern reads a DecimalFormat pattern: a prefix, the digits
// (# 0 , .), a suffix, and an optional ;negative part.
func parseDecimalPattern(p string) (decimalFormat, error) {
	bad := func(why string) (decimalFormat, error) {
		return decimalFormat{}, classError(InvalidArgument, classIllegalArgument, "DecimalFormat: %s in the pattern %q", why, p)
	}
	f := decimalFormat{pattern: p, maxInt: math.MaxInt32, rounding: "HALF_EVEN", multiplier: 1}
	pos, neg, hasNeg := cutUnquoted(p, ';')
	affix := func(s string, i int) (string, int, error) {
		var sb strings.Builder
		for i < len(s) {
			c := s[i]
			switch {
			case c == '\'':
				j := strings.IndexByte(s[i+1:], '\'')
				if j < 0 {
					return "", 0, errorf(InvalidArgument, "an unclosed quote")
				}
				if j == 0 {
					sb.WriteByte('\'')
				} else {
					sb.WriteString(s[i+1 : i+1+j])
				}
				i += j + 2
				continue
			case strings.IndexByte("#0,.", c) >= 0:
				return sb.String(), i, nil
			case c == '%':
				f.multiplier = 100
				sb.WriteByte('%')
			case strings.HasPrefix(s[i:], "‰"):
				f.multiplier = 1000
				sb.WriteString("‰")
				i += len("‰")
				continue
			case strings.HasPrefix(s[i:], "¤"):
				sb.WriteByte('$')
				i += len("¤")
				continue
			default:
				sb.WriteByte(c)
			}
			i++
		}
		return sb.String(), i, nil
	}
	prefix, i, err := affix(pos, 0)
	if err != nil {
		return bad(err.Error())
	}
	start := i
	for i < len(pos) && strings.IndexByte("#0,.", pos[i]) >= 0 {
		i++
	}
	digits := pos[start:i]
	if i < len(pos) && pos[i] == 'E' {
		return bad("scientific notation (E) is not supported")
	}
	suffix, end, err := affix(pos, i)
	if err != nil {
		return bad(err.Error())
	}
	if end != len(pos) {
		return bad("a second number part")
	}
	if digits == "" {
		return bad("no digits (# or 0)")
	}
	intPart, fracPart, hasPoint := strings.Cut(digits, ".")
	if strings.ContainsAny(fracPart, ".,") {
		return bad("a grouping separator or a second point in the fraction")
	}
	f.alwaysPoint = hasPoint && fracPart == ""
	if k := strings.LastIndexByte(intPart, ','); k >= 0 {
		f.groupSize = len(intPart) - k - 1
		f.grouping = f.groupSize > 0
	}
	// Java's counts: the #s before the first 0 (left), the 0s, the #s
	// after them (right), and where the point is among the digits.
	all := strings.ReplaceAll(intPart, ",", "") + fracPart
	left := len(all) - len(strings.TrimLeft(all, "#"))
	zeros := strings.Count(all, "0")
	if strings.Contains(strings.Trim(all, "#"), "#") {
		return bad("a # between 0s")
	}
	total := len(all)
	decimalPos := -1
	if hasPoint {
		decimalPos = len(strings.ReplaceAll(intPart, ",", ""))
	}
	if zeros == 0 && left > 0 && decimalPos >= 0 {
		// "##.###" is "#0.###", ".###" is ".0##" (applyPattern).
		n := max(decimalPos, 1)
		left, zeros = n-1, 1
	}
	effective := total
	if decimalPos >= 0 {
		effective = decimalPos
		f.maxFrac = total - decimalPos
		f.minFrac = max(0, left+zeros-decimalPos)
	}
	f.minInt = max(0, effective-left)
	f.posPrefix, f.posSuffix = prefix, suffix
	f.negPrefix, f.negSuffix = "-"+prefix, suffix
	if hasNeg {
		np, j, err := affix(neg, 0)
		if err != nil {
			return bad(err.Error())
		}
		for j < len(neg) && strings.IndexByte("#0,.", neg[j]) >= 0 {
			j++
		}
		ns, _, err := affix(neg, j)
		if err != nil {
			return bad(err.Error())
		}
		f.negPrefix, f.negSuffix = np, ns
	}
	return f, nil
}

// cutUnquoted cuts s at the first sep outside quotes.
func cutUnquoted(s string, sep byte) (before, after string, found bool) {
	quoted := false
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\'':
			quoted = !quoted
		case sep:
			if !quoted {
				return s[:i], s[i+1:], true
			}
		}
	}
	return s, "", false
}

func (f decimalFormat) state() *Map {
	return NewMap(kwDecimalFormat, f.pattern, kwMinInt, int64(f.minInt), kwMaxInt, int64(f.maxInt),
		kwMinFrac, int64(f.minFrac), kwMaxFrac, int64(f.maxFrac), kwGroupSize, int64(f.groupSize),
		kwGrouping, f.grouping, kwRounding, Keyword(f.rounding), kwMultiplier, f.multiplier,
		kwPosPrefix, f.posPrefix, kwPosSuffix, f.posSuffix, kwNegPrefix, f.negPrefix, kwNegSuffix, f.negSuffix,
		kwAlwaysPoint, f.alwaysPoint)
}

// decimalFormatArg reads a[i] as a format's atom and settings.
func decimalFormatArg(a []Value, i int) (*Cell, decimalFormat, bool) {
	c, isCell := a[i].(*Cell)
	if !isCell || c.kind != atomCell {
		return nil, decimalFormat{}, false
	}
	m, isMap := c.load().val.(*Map)
	if !isMap {
		return nil, decimalFormat{}, false
	}
	p, ok := m.Get(kwDecimalFormat)
	if _, isText := p.(string); !ok || !isText {
		return nil, decimalFormat{}, false
	}
	num := func(k Keyword) int {
		v, _ := m.Get(k)
		n, _ := v.(int64)
		return int(n)
	}
	text := func(k Keyword) string {
		v, _ := m.Get(k)
		s, _ := v.(string)
		return s
	}
	flag := func(k Keyword) bool {
		v, _ := m.Get(k)
		return v == true
	}
	rounding, _ := m.Get(kwRounding)
	r, _ := rounding.(Keyword)
	mult, _ := m.Get(kwMultiplier)
	mu, _ := mult.(int64)
	return c, decimalFormat{pattern: p.(string), minInt: num(kwMinInt), maxInt: num(kwMaxInt), minFrac: num(kwMinFrac),
		maxFrac: num(kwMaxFrac), groupSize: num(kwGroupSize), grouping: flag(kwGrouping), rounding: string(r),
		multiplier: max(mu, 1), posPrefix: text(kwPosPrefix), posSuffix: text(kwPosSuffix), negPrefix: text(kwNegPrefix),
		negSuffix: text(kwNegSuffix), alwaysPoint: flag(kwAlwaysPoint)}, true
}

// format formats a number as DecimalFormat.format does.
func (f decimalFormat) format(v Value) (string, error) {
	var neg bool
	var digits string // the exact decimal digits of |v|·multiplier, with a point
	switch x := v.(type) {
	case int64:
		neg = x < 0
		mag := strconv.FormatUint(absUint(x), 10)
		if f.multiplier != 1 {
			if r, over := mulInt(x, f.multiplier); !over {
				mag = strconv.FormatUint(absUint(r), 10)
			} else {
				return f.format(float64(x) * float64(f.multiplier))
			}
		}
		digits = mag
	case float64:
		if math.IsNaN(x) {
			return "NaN", nil
		}
		neg = x < 0 || x == 0 && math.Signbit(x)
		x = math.Abs(x) * float64(f.multiplier)
		if math.IsInf(x, 0) {
			if neg {
				return f.negPrefix + "∞" + f.negSuffix, nil
			}
			return f.posPrefix + "∞" + f.posSuffix, nil
		}
		digits = strconv.FormatFloat(x, 'f', 1080, 64) // exact: a double's binary fraction ends
	default:
		return "", classError(InvalidArgument, classIllegalArgument, "Cannot format given Object as a Number: %s", describe(v))
	}
	intDigits, frac, _ := strings.Cut(digits, ".")
	frac = strings.TrimRight(frac, "0")
	intDigits, frac = roundDecimalDigits(intDigits, frac, f.maxFrac, f.rounding, neg)
	intDigits = strings.TrimLeft(intDigits, "0")
	if len(frac) < f.minFrac {
		frac += strings.Repeat("0", f.minFrac-len(frac))
	}
	if len(intDigits) > f.maxInt {
		intDigits = intDigits[len(intDigits)-f.maxInt:]
	}
	if len(intDigits) < f.minInt {
		intDigits = strings.Repeat("0", f.minInt-len(intDigits)) + intDigits
	}
	if intDigits == "" && frac == "" {
		intDigits = "0"
	}
	if f.grouping && f.groupSize > 0 && len(intDigits) > f.groupSize {
		var sb strings.Builder
		lead := len(intDigits) % f.groupSize
		if lead > 0 {
			sb.WriteString(intDigits[:lead])
		}
		for i := lead; i < len(intDigits); i += f.groupSize {
			if sb.Len() > 0 {
				sb.WriteByte(',')
			}
			sb.WriteString(intDigits[i : i+f.groupSize])
		}
		intDigits = sb.String()
	}
	out := intDigits
	if frac != "" || f.alwaysPoint {
		out += "." + frac
	}
	if neg {
		return f.negPrefix + out + f.negSuffix, nil
	}
	return f.posPrefix + out + f.posSuffix, nil
}

func absUint(x int64) uint64 {
	if x < 0 {
		return uint64(-(x + 1)) + 1
	}
	return uint64(x)
}

// roundDecimalDigits rounds the digits intDigits.frac (frac without
// trailing zeros) to at most keep fraction digits as mode says.
func roundDecimalDigits(intDigits, frac string, keep int, mode string, neg bool) (string, string) {
	if len(frac) <= keep {
		return intDigits, frac
	}
	kept, rest := frac[:keep], frac[keep:]
	// rest is non-zero (frac has no trailing zeros): above, at or below half.
	half := 0
	switch {
	case rest[0] > '5':
		half = 1
	case rest[0] < '5':
		half = -1
	case len(rest) > 1:
		half = 1
	}
	all := intDigits + kept
	lastOdd := len(all) > 0 && (all[len(all)-1]-'0')%2 == 1
	if roundsAway(mode, half, neg, lastOdd) { // UNNECESSARY as HALF_EVEN (Java throws)
		b := []byte(all)
		i := len(b) - 1
		for i >= 0 && b[i] == '9' {
			b[i] = '0'
			i--
		}
		if i < 0 {
			b = append([]byte{'1'}, b...)
		} else {
			b[i]++
		}
		all = string(b)
	}
	n := len(all) - keep
	return all[:n], strings.TrimRight(all[n:], "0")
}

// parse reads a number as DecimalFormat.parse does: a Long when it is
// whole, else a Double; the text after the number is ignored.
func (f decimalFormat) parse(s string) (Value, error) {
	neg := false
	rest := s
	switch {
	case f.negPrefix != "" && strings.HasPrefix(s, f.negPrefix) && (f.posPrefix == "" || len(f.negPrefix) > len(f.posPrefix) || !strings.HasPrefix(s, f.posPrefix)):
		neg, rest = true, s[len(f.negPrefix):]
	case strings.HasPrefix(s, f.posPrefix):
		rest = s[len(f.posPrefix):]
	default:
		return nil, classError(InvalidArgument, classParse, "Unparseable number: %q", s)
	}
	var sb strings.Builder
	seenPoint := false
	i := 0
	for ; i < len(rest); i++ {
		c := rest[i]
		switch {
		case c >= '0' && c <= '9':
			sb.WriteByte(c)
		case c == ',' && f.grouping && !seenPoint:
		case c == '.' && !seenPoint:
			seenPoint = true
			sb.WriteByte(c)
		default:
			goto done
		}
	}
done:
	text := strings.TrimSuffix(sb.String(), ".")
	if text == "" {
		return nil, classError(InvalidArgument, classParse, "Unparseable number: %q", s)
	}
	x, err := strconv.ParseFloat(text, 64)
	if err != nil {
		return nil, classError(InvalidArgument, classParse, "Unparseable number: %q", s)
	}
	if f.multiplier != 1 {
		x /= float64(f.multiplier)
	}
	if neg {
		x = -x
	}
	if x == math.Trunc(x) && math.Abs(x) < 9.2e18 && !(x == 0 && neg) {
		return int64(x), nil
	}
	return x, nil
}

func registerDecimalFormat(t *builtinTable) {
	newFormat := func(th *thread, f decimalFormat) (Value, error) {
		return th.newCell(atomCell, f.state(), nil)
	}
	localeOK := func(fn string, a []Value, i int) error {
		if len(a) > i && !isLocale(a[i]) {
			return argError(fn, i, "an English locale (Locale/US, Locale/ENGLISH): formats are English", a[i])
		}
		return nil
	}
	t.add("java.text.DecimalFormat.", 0, 2, func(th *thread, a []Value) (Value, error) {
		p := "#,##0.###"
		if len(a) >= 1 {
			var err error
			if p, err = stringArg("DecimalFormat.", a, 0); err != nil {
				return nil, err
			}
		}
		f, err := parseDecimalPattern(p)
		if err != nil {
			return nil, err
		}
		return newFormat(th, f)
	}, "DecimalFormat.")
	for _, inst := range []struct {
		name, pattern string
		setup         func(*decimalFormat)
	}{
		{"getInstance", "#,##0.###", nil}, {"getNumberInstance", "#,##0.###", nil},
		{"getIntegerInstance", "#,##0", nil}, {"getPercentInstance", "#,##0%", nil},
		{"getCurrencyInstance", "¤#,##0.00", nil},
	} {
		name := "NumberFormat/" + inst.name
		t.add(name, 0, 1, func(th *thread, a []Value) (Value, error) {
			if err := localeOK(name, a, 0); err != nil {
				return nil, err
			}
			f, err := parseDecimalPattern(inst.pattern)
			if err != nil {
				return nil, err
			}
			return newFormat(th, f)
		})
	}
	t.wrap(".format", func(old *Builtin) *Builtin {
		b := *old
		fn := old.fn
		b.fn = func(th *thread, a []Value) (Value, error) {
			if _, f, ok := decimalFormatArg(a, 0); ok {
				s, err := f.format(a[1])
				if err != nil {
					return nil, err
				}
				return s, th.chargeString(len(s))
			}
			return fn(th, a)
		}
		return &b
	})
	t.wrap(".parse", func(old *Builtin) *Builtin {
		b := *old
		fn := old.fn
		b.fn = func(th *thread, a []Value) (Value, error) {
			if _, f, ok := decimalFormatArg(a, 0); ok {
				s, err := stringArg(".parse", a, 1)
				if err != nil {
					return nil, err
				}
				return f.parse(s)
			}
			return fn(th, a)
		}
		return &b
	})
	// The setters and getters: each reads and writes the format's atom.
	reset := func(th *thread, c *Cell, f decimalFormat) error {
		_, err := th.call(t.names["reset!"], []Value{c, f.state()})
		return err
	}
	setInt := func(name string, set func(f *decimalFormat, n int)) {
		t.add(name, 2, 2, func(th *thread, a []Value) (Value, error) {
			c, f, ok := decimalFormatArg(a, 0)
			if !ok {
				return nil, argError(name, 0, "a DecimalFormat or NumberFormat", a[0])
			}
			n, err := intArg(name, a, 1)
			if err != nil {
				return nil, err
			}
			set(&f, int(max(0, min(n, math.MaxInt32))))
			return nil, reset(th, c, f)
		})
	}
	setInt(".setMaximumFractionDigits", func(f *decimalFormat, n int) {
		f.maxFrac = min(n, 340)
		f.minFrac = min(f.minFrac, f.maxFrac)
	})
	setInt(".setMinimumFractionDigits", func(f *decimalFormat, n int) {
		f.minFrac = min(n, 340)
		f.maxFrac = max(f.maxFrac, f.minFrac)
	})
	setInt(".setMaximumIntegerDigits", func(f *decimalFormat, n int) {
		f.maxInt = n
		f.minInt = min(f.minInt, f.maxInt)
	})
	setInt(".setMinimumIntegerDigits", func(f *decimalFormat, n int) {
		f.minInt = min(n, 309)
		f.maxInt = max(f.maxInt, f.minInt)
	})
	setInt(".setGroupingSize", func(f *decimalFormat, n int) { f.groupSize = n })
	setInt(".setMultiplier", func(f *decimalFormat, n int) { f.multiplier = int64(max(1, n)) })
	setFlag := func(name string, set func(f *decimalFormat, b bool)) {
		t.add(name, 2, 2, func(th *thread, a []Value) (Value, error) {
			c, f, ok := decimalFormatArg(a, 0)
			if !ok {
				return nil, argError(name, 0, "a DecimalFormat or NumberFormat", a[0])
			}
			set(&f, truthy(a[1]))
			return nil, reset(th, c, f)
		})
	}
	setFlag(".setGroupingUsed", func(f *decimalFormat, b bool) { f.grouping = b })
	setFlag(".setDecimalSeparatorAlwaysShown", func(f *decimalFormat, b bool) { f.alwaysPoint = b })
	setFlag(".setParseIntegerOnly", func(*decimalFormat, bool) {})
	t.add(".setRoundingMode", 2, 2, func(th *thread, a []Value) (Value, error) {
		c, f, ok := decimalFormatArg(a, 0)
		if !ok {
			return nil, argError(".setRoundingMode", 0, "a DecimalFormat or NumberFormat", a[0])
		}
		mode, err := roundingMode(".setRoundingMode", a, 1)
		if err != nil {
			return nil, err
		}
		f.rounding = mode
		return nil, reset(th, c, f)
	})
	for _, s := range []struct {
		name string
		set  func(f *decimalFormat, s string)
	}{
		{".setPositivePrefix", func(f *decimalFormat, s string) { f.posPrefix = s }},
		{".setPositiveSuffix", func(f *decimalFormat, s string) { f.posSuffix = s }},
		{".setNegativePrefix", func(f *decimalFormat, s string) { f.negPrefix = s }},
		{".setNegativeSuffix", func(f *decimalFormat, s string) { f.negSuffix = s }},
	} {
		t.add(s.name, 2, 2, func(th *thread, a []Value) (Value, error) {
			c, f, ok := decimalFormatArg(a, 0)
			if !ok {
				return nil, argError(s.name, 0, "a DecimalFormat", a[0])
			}
			text, err := stringArg(s.name, a, 1)
			if err != nil {
				return nil, err
			}
			s.set(&f, text)
			return nil, reset(th, c, f)
		})
	}
	t.add(".applyPattern", 2, 2, func(th *thread, a []Value) (Value, error) {
		c, _, ok := decimalFormatArg(a, 0)
		if !ok {
			return nil, argError(".applyPattern", 0, "a DecimalFormat", a[0])
		}
		p, err := stringArg(".applyPattern", a, 1)
		if err != nil {
			return nil, err
		}
		f, err := parseDecimalPattern(p)
		if err != nil {
			return nil, err
		}
		return nil, reset(th, c, f)
	})
	for _, g := range []struct {
		name string
		get  func(f decimalFormat) Value
	}{
		{".toPattern", func(f decimalFormat) Value { return f.pattern }},
		{".getMaximumFractionDigits", func(f decimalFormat) Value { return int64(f.maxFrac) }},
		{".getMinimumFractionDigits", func(f decimalFormat) Value { return int64(f.minFrac) }},
		{".getMinimumIntegerDigits", func(f decimalFormat) Value { return int64(f.minInt) }},
		{".isGroupingUsed", func(f decimalFormat) Value { return f.grouping }},
	} {
		t.add(g.name, 1, 1, func(_ *thread, a []Value) (Value, error) {
			_, f, ok := decimalFormatArg(a, 0)
			if !ok {
				return nil, argError(g.name, 0, "a DecimalFormat or NumberFormat", a[0])
			}
			return g.get(f), nil
		})
	}
}
