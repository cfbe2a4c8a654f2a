package lisp

import (
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf8"
)

// formatJava implements clojure.core/format, which is Java's
// String.format: %[index$][flags][width][.precision]conversion with the
// conversions s S d f e E g G x X o c b B n %. Floats are rounded as Java
// rounds them (see decimal).
func (th *thread) formatJava(f string, args []Value) (Value, error) {
	// The text of the format is copied into the result: charged first, as
	// are the widths and the formatted arguments below.
	if err := th.chargeString(len(f)); err != nil {
		return nil, err
	}
	var sb strings.Builder
	next, last := 0, -1
	for i := 0; i < len(f); i++ {
		c := f[i]
		if c != '%' {
			sb.WriteByte(c)
			continue
		}
		j := i + 1
		// argument index
		argIdx := -1
		k := j
		for k < len(f) && f[k] >= '0' && f[k] <= '9' {
			k++
		}
		if k < len(f) && f[k] == '$' && k > j {
			n, _ := strconv.Atoi(f[j:k])
			argIdx = n - 1
			j = k + 1
		} else if j < len(f) && f[j] == '<' {
			// %<s: the argument of the directive before, again.
			if last < 0 {
				return nil, errorf(InvalidArgument, "format: %%< in %s has no directive before it to take its argument from", quoteShort(f[i:]))
			}
			argIdx = last
			j++
		}
		flagStart := j
		for j < len(f) && strings.IndexByte("-#+ 0,(", f[j]) >= 0 {
			j++
		}
		flags := f[flagStart:j]
		widthStart := j
		for j < len(f) && f[j] >= '0' && f[j] <= '9' {
			j++
		}
		width := f[widthStart:j]
		prec := ""
		if j < len(f) && f[j] == '.' {
			ps := j + 1
			j++
			for j < len(f) && f[j] >= '0' && f[j] <= '9' {
				j++
			}
			prec = f[ps:j]
			if prec == "" {
				return nil, errorf(InvalidArgument, "format: missing precision after '.' in %s", quoteShort(f[i:j]))
			}
		}
		if j >= len(f) {
			return nil, errorf(InvalidArgument, "format: incomplete directive %s at the end", quoteShort(f[i:]))
		}
		conv := f[j]
		i = j
		switch conv {
		case '%':
			// Padded too: %1000000000% is legal, and charged first.
			if err := th.chargeWidth(width); err != nil {
				return nil, err
			}
			sb.WriteString(pad("%", flags, width))
			continue
		case 'n':
			sb.WriteByte('\n')
			continue
		}
		var arg Value
		idx := argIdx
		if idx < 0 {
			idx = next
			next++
		}
		if idx >= len(args) {
			return nil, classError(InvalidArgument, classMissingFormatArgument, "format: directive %%%c has no argument (%d given)", conv, len(args))
		}
		arg = args[idx]
		last = idx
		if err := th.chargeWidth(width); err != nil {
			return nil, err
		}
		s, err := th.formatOne(conv, flags, prec, arg)
		if err != nil {
			return nil, err
		}
		if err := th.chargeString(len(s)); err != nil {
			return nil, err
		}
		sb.WriteString(pad(s, flags, width))
	}
	return sb.String(), nil
}

// chargeWidth accounts for the padding of a directive, before pad builds it.
func (th *thread) chargeWidth(width string) error {
	if w, _ := strconv.Atoi(width); w > 0 {
		return th.chargeString(w)
	}
	return nil
}

func pad(s, flags, width string) string {
	w, _ := strconv.Atoi(width)
	if w <= 0 {
		return s
	}
	n := utf8.RuneCountInString(s)
	if w <= n {
		return s
	}
	fill := strings.Repeat(" ", w-n)
	switch {
	case strings.Contains(flags, "-"):
		return s + fill
	case strings.Contains(flags, "0"):
		zeros := strings.Repeat("0", w-n)
		if len(s) > 0 && (s[0] == '-' || s[0] == '+') {
			return s[:1] + zeros + s[1:]
		}
		return zeros + s
	}
	return fill + s
}

func (th *thread) formatOne(conv byte, flags, prec string, arg Value) (string, error) {
	bad := func(want string) (string, error) {
		return "", classError(TypeError, classFormatConversion, "format: %%%c expects %s, got %s", conv, want, describe(arg))
	}
	if arg == nil && strings.IndexByte("dxXofeEgGhH", conv) >= 0 {
		// Java formats null as "null" with every conversion but %b.
		s := "null"
		if p, err := strconv.Atoi(prec); err == nil {
			s = s[:min(p, len(s))]
		}
		if conv >= 'A' && conv <= 'Z' {
			s = strings.ToUpper(s)
		}
		return s, nil
	}
	switch conv {
	case 'h', 'H':
		// Integer.toHexString(arg.hashCode()).
		h, ok, err := javaHashCode(th, arg)
		if err != nil {
			return "", err
		}
		if !ok {
			return "", errorf(TypeError, "format: %%%c needs Java's hashCode of the argument, which is defined here for strings, integers and booleans, got %s", conv, describe(arg))
		}
		s := strconv.FormatUint(uint64(uint32(h)), 16)
		if p, err := strconv.Atoi(prec); err == nil {
			s = s[:min(p, len(s))]
		}
		if conv == 'H' {
			s = strings.ToUpper(s)
		}
		return s, nil
	case 's', 'S':
		s := "null"
		if arg != nil {
			var err error
			if s, err = th.render(arg, false); err != nil {
				return "", err
			}
		}
		if prec != "" {
			p, _ := strconv.Atoi(prec)
			s = truncateRunes(s, p)
		}
		if conv == 'S' {
			s = javaUpper(s)
		}
		return s, nil
	case 'd':
		if b, ok := arg.(*big.Int); ok {
			s := new(big.Int).Abs(b).String()
			if strings.Contains(flags, ",") {
				s = groupThousands(s)
			}
			return signed(s, b.Sign() < 0, flags), nil
		}
		i, ok := arg.(int64)
		if !ok {
			return bad("an integer")
		}
		s := strconv.FormatInt(absInt(i), 10)
		if i == math.MinInt64 {
			s = strconv.FormatInt(i, 10)[1:]
		}
		if strings.Contains(flags, ",") {
			s = groupThousands(s)
		}
		return signed(s, i < 0, flags), nil
	case 'x', 'X', 'o':
		i, ok := arg.(int64)
		if !ok {
			return bad("an integer")
		}
		base := 16
		if conv == 'o' {
			base = 8
		}
		s := strconv.FormatUint(uint64(i), base)
		if strings.Contains(flags, "#") { // the alternate form: 0x, 0
			if base == 16 {
				s = "0x" + s
			} else {
				s = "0" + s
			}
		}
		if conv == 'X' {
			s = strings.ToUpper(s)
		}
		return s, nil
	case 'f', 'e', 'E', 'g', 'G':
		x, ok := toFloat(arg)
		if !ok {
			return bad("a number")
		}
		if math.IsNaN(x) {
			return "NaN", nil
		}
		if _, isDec := arg.(*Decimal); math.IsInf(x, 0) && !(isDec && conv == 'f') {
			return signed("Infinity", x < 0, flags), nil
		}
		p := 6
		if prec != "" {
			var err error
			if p, err = strconv.Atoi(prec); err != nil || p > th.textBudget() {
				return "", errorf(MemoryExceeded, "format: precision %s is too large", prec)
			}
		}
		// The digits are charged before they are built: %.100000000f is legal.
		if err := th.chargeString(p); err != nil {
			return "", err
		}
		abs := math.Abs(x)
		var s string
		switch conv {
		case 'f':
			if _, isDec := arg.(*Decimal); !isDec {
				s = formatFixed(abs, p)
			}
			if d, isDec := arg.(*Decimal); isDec {
				// A BigDecimal's own digits, rounded HALF_UP, as Java's.
				r, err := d.setScale("format", int64(p), "HALF_UP")
				if err != nil {
					return "", err
				}
				if r.unscaled.Sign() < 0 {
					r = decimalNeg(r)
				}
				if s, ok = r.plain(); !ok {
					return "", decimalTooBig("format")
				}
			}
			if strings.Contains(flags, ",") {
				intPart, frac, _ := strings.Cut(s, ".")
				s = groupThousands(intPart)
				if frac != "" {
					s += "." + frac
				}
			}
		case 'e', 'E':
			s = shortestDecimal(abs).scientific(p)
			if conv == 'E' {
				s = strings.ToUpper(s)
			}
		case 'g', 'G':
			s = shortestDecimal(abs).general(p)
			if conv == 'G' {
				s = strings.ToUpper(s)
			}
		}
		return signed(s, x < 0 || (x == 0 && math.Signbit(x)), flags), nil
	case 'c':
		switch v := arg.(type) {
		case string:
			return v, nil
		case int64:
			return string(rune(v)), nil
		}
		return bad("a character")
	case 'b', 'B':
		s := "true"
		switch v := arg.(type) {
		case nil:
			s = "false"
		case bool:
			s = strconv.FormatBool(v)
		}
		if conv == 'B' {
			s = strings.ToUpper(s)
		}
		return s, nil
	}
	return "", classError(InvalidArgument, classUnknownFormat, "format: unknown conversion %%%c", conv)
}

func signed(s string, neg bool, flags string) string {
	switch {
	case neg && strings.Contains(flags, "("):
		return "(" + s + ")"
	case neg:
		return "-" + s
	case strings.Contains(flags, "+"):
		return "+" + s
	case strings.Contains(flags, " "):
		return " " + s
	}
	return s
}

func groupThousands(digits string) string {
	if len(digits) <= 3 {
		return digits
	}
	var sb strings.Builder
	lead := len(digits) % 3
	if lead > 0 {
		sb.WriteString(digits[:lead])
	}
	for i := lead; i < len(digits); i += 3 {
		if sb.Len() > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(digits[i : i+3])
	}
	return sb.String()
}

// decimal is a non-negative decimal number 0.d1d2... × 10^exp, the form in
// which Java's Formatter rounds doubles: %.2f, %e and %g start from the
// digits of Double.toString (the shortest decimal that reads back as the
// double) and round them HALF_UP, so (format "%.2f" 1.005) is "1.01" and
// (format "%.0f" 2.5) is "3", where rounding the binary value would give
// "1.00" and "2".
type decimal struct {
	d   [24]byte // digits; no leading or trailing zeros; none for zero
	nd  int
	exp int
}

// shortestDecimal returns the decimal digits Java formats f (f >= 0,
// finite) from: the shortest decimal that reads back as f, except for
// whole numbers in [2^54, 2^63), which Java's FloatingDecimal prints from
// the exact integer with its last few (insignificant) digits rounded away:
// (format "%.0f" 1.9395363977182264E18) is "1939536397718226430".
func shortestDecimal(f float64) decimal {
	var d decimal
	if f == 0 {
		return d
	}
	if f >= 1<<54 && f < 1<<63 && f == math.Trunc(f) {
		return longDecimal(f)
	}
	var buf [32]byte
	s := strconv.AppendFloat(buf[:0], f, 'e', -1, 64) // d.ddde±xx, at most 17 digits
	e := len(s) - 1
	for s[e] != 'e' {
		e--
	}
	exp, neg := 0, s[e+1] == '-'
	for _, c := range s[e+2:] {
		exp = exp*10 + int(c-'0')
	}
	if neg {
		exp = -exp
	}
	d.d[0] = s[0]
	d.nd = 1
	if e > 1 {
		d.nd += copy(d.d[1:], s[2:e])
	}
	d.trim()
	d.exp = exp + 1
	return d
}

// formatFixed is %.precf of f >= 0: Java's HALF_UP rounding of the shortest
// decimal (decimal.fixed), with a fast path. The two roundings differ only
// when the shortest decimal is a tie at prec decimals, and then the binary
// value lies within half an ulp of that tie. Far from every tie, and with
// fewer than 15 significant digits asked for (so that the ulp is well
// below the last place), Go's correctly rounded FormatFloat gives the same
// digits without computing the shortest decimal.
func formatFixed(f float64, prec int) string {
	if prec < len(pow10tab) {
		if scaled := f * pow10tab[prec]; scaled < 1e15 {
			frac := scaled - math.Floor(scaled)
			// The margin covers the ulp of f and the error of the product.
			if math.Abs(frac-0.5) > scaled*1e-15 {
				return strconv.FormatFloat(f, 'f', prec, 64)
			}
		}
	}
	return shortestDecimal(f).fixed(prec)
}

var pow10tab = [...]float64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15}

// insignificantDigits[p] is how many low digits of a whole double of
// 2^(54+p) or more Java's FloatingDecimal rounds away (its
// insignificantDigitsForPow2).
var insignificantDigits = [...]int{0, 0, 0, 0, 1, 1, 1, 2, 2}

// longDecimal is shortestDecimal for whole numbers in [2^54, 2^63).
func longDecimal(f float64) decimal {
	v := uint64(f)
	_, binExp := math.Frexp(f) // f in [2^(binExp-1), 2^binExp)
	var d decimal
	if k := insignificantDigits[binExp-1-54]; k > 0 {
		pow10 := uint64(1)
		for range k {
			pow10 *= 10
		}
		residue := v % pow10
		v /= pow10
		if residue >= pow10/2 {
			v++
		}
		d.exp = k
	}
	var buf [20]byte
	digits := strconv.AppendUint(buf[:0], v, 10)
	d.nd = copy(d.d[:], digits)
	d.exp += len(digits)
	d.trim()
	return d
}

// fixedDecimal reads a non-negative decimal such as "12.345" (the digits
// past the 24th are dropped).
func fixedDecimal(s string) decimal {
	intPart, frac, _ := strings.Cut(s, ".")
	all := intPart + frac
	d := decimal{exp: len(intPart)}
	i := 0
	for i < len(all) && all[i] == '0' {
		i++
		d.exp--
	}
	d.nd = copy(d.d[:], all[i:])
	d.trim()
	return d
}

func (d *decimal) trim() {
	for d.nd > 0 && d.d[d.nd-1] == '0' {
		d.nd--
	}
}

// round keeps the first n digits, rounding half up on the next one.
func (d *decimal) round(n int) {
	switch {
	case n >= d.nd:
		return
	case n < 0:
		d.nd = 0 // less than half a unit of the last place kept
		return
	}
	up := d.d[n] >= '5'
	d.nd = n
	if up {
		i := n - 1
		for i >= 0 && d.d[i] == '9' {
			i--
		}
		if i < 0 { // 0.999 → 1.000: one digit more before the point
			d.d[0] = '1'
			d.nd = 1
			d.exp++
		} else {
			d.d[i]++
			d.nd = i + 1
		}
	}
	d.trim()
}

// digit returns the digit at position i (0 is the first after the point of
// 0.d1d2...), zero outside the stored digits.
func (d *decimal) digit(i int) byte {
	if i >= 0 && i < d.nd {
		return d.d[i]
	}
	return '0'
}

// appendDigits appends the digits at positions from..to-1 (zeros outside
// the stored ones).
func (d *decimal) appendDigits(b []byte, from, to int) []byte {
	for i := from; i < to; i++ {
		if i >= 0 && i < d.nd {
			b = append(b, d.d[i])
		} else {
			b = append(b, '0')
		}
	}
	return b
}

// fixed formats d with prec decimals, as %.precf.
func (d decimal) fixed(prec int) string {
	d.round(d.exp + prec)
	if d.nd == 0 {
		d.exp = 0
	}
	var small [40]byte
	b := small[:0]
	if n := max(d.exp, 1) + 1 + prec; n > len(small) {
		b = make([]byte, 0, n)
	}
	if d.exp <= 0 {
		b = append(b, '0')
	}
	b = d.appendDigits(b, 0, d.exp)
	if prec > 0 {
		b = append(b, '.')
		b = d.appendDigits(b, d.exp, d.exp+prec)
	}
	return string(b)
}

// scientific formats d with prec decimals, as %.prece: 1.23e+04.
func (d decimal) scientific(prec int) string {
	d.round(prec + 1)
	exp := d.exp - 1
	if d.nd == 0 {
		exp = 0
	}
	var small [40]byte
	b := small[:0]
	if n := prec + 8; n > len(small) {
		b = make([]byte, 0, n)
	}
	b = append(b, d.digit(0))
	if prec > 0 {
		b = append(b, '.')
		b = d.appendDigits(b, 1, prec+1)
	}
	b = append(b, 'e')
	if exp < 0 {
		b = append(b, '-')
		exp = -exp
	} else {
		b = append(b, '+')
	}
	if exp < 10 {
		b = append(b, '0')
	}
	b = strconv.AppendInt(b, int64(exp), 10)
	return string(b)
}

// general formats d as Java's %g: prec significant digits (0 means 1), in
// fixed notation when the rounded value is in [10^-4, 10^prec), else in
// scientific notation; trailing zeros are kept.
func (d decimal) general(prec int) string {
	prec = max(prec, 1)
	if d.nd == 0 {
		return d.fixed(prec - 1)
	}
	d.round(prec)
	if e := d.exp - 1; e >= -4 && e < prec {
		return d.fixed(prec - 1 - e)
	}
	return d.scientific(prec - 1)
}
