package lisp

import (
	"cmp"
	"math"
	"math/big"
	"strconv"
	"strings"
)

// Decimal is Clojure's BigDecimal (java.math.BigDecimal): an exact decimal
// number, an unscaled integer times ten to the minus scale, so 1.50M is 150
// with scale 2. Literals with the M suffix, bigdec and the BigDecimal
// methods make them; + - * / on them are exact, as Java's, and
// with-precision rounds them. A Decimal is never changed once made.
//
// It prints as Clojure prints it (1.50M; str gives "1.50"), converts to
// JSON as the number's text and to Go (ToGo) as a json.Number holding it.
// It is = to another Decimal of the same value whatever their scales
// (0.3M and 0.30M), never to a long or a float (use ==), as in Clojure.
// The zero Decimal is 0.
type Decimal struct {
	unscaled *big.Int // never changed; nil only in the zero Decimal
	scale    int32
}

// maxDecimalDigits bounds the digits a Decimal may hold and the powers of
// ten an operation makes (a scale change, an alignment): as maxBigBits
// bounds a BigInt, so that (.setScale 1M 1000000000) is an error, not a
// billion digits.
const maxDecimalDigits = 100_000

// String is the number as Java's BigDecimal.toString writes it, without
// the M suffix: 1.50, 1E+3, 1.5E-7 ("<nil>" for a nil *Decimal; the
// zero Decimal is 0).
func (d *Decimal) String() string {
	if d == nil {
		return "<nil>"
	}
	if d.unscaled == nil {
		return "0"
	}
	coeff := new(big.Int).Abs(d.unscaled).String()
	adjusted := -int64(d.scale) + int64(len(coeff)-1)
	var sb strings.Builder
	if d.unscaled.Sign() < 0 {
		sb.WriteByte('-')
	}
	if d.scale >= 0 && adjusted >= -6 {
		writePlainDigits(&sb, coeff, int(d.scale))
		return sb.String()
	}
	sb.WriteString(coeff[:1])
	if len(coeff) > 1 {
		sb.WriteByte('.')
		sb.WriteString(coeff[1:])
	}
	sb.WriteByte('E')
	if adjusted >= 0 {
		sb.WriteByte('+')
	}
	sb.WriteString(strconv.FormatInt(adjusted, 10))
	return sb.String()
}

// Float64 is the float nearest d (0 for a nil *Decimal).
func (d *Decimal) Float64() float64 {
	if d == nil || d.unscaled == nil {
		return 0
	}
	switch adjusted := int64(d.precision()) - int64(d.scale); {
	case d.unscaled.Sign() == 0:
		return 0
	case adjusted > 330:
		return math.Inf(d.unscaled.Sign())
	case adjusted < -330:
		return math.Copysign(0, float64(d.unscaled.Sign()))
	}
	r, _ := d.rat()
	f, _ := r.Float64()
	return f
}

// plain is the number without an exponent (toPlainString); ok false when
// it would have more than maxDecimalDigits digits.
func (d *Decimal) plain() (string, bool) {
	if d.scale > maxDecimalDigits || d.scale < -maxDecimalDigits {
		return "", false // a point or zeros past the limit
	}
	coeff := new(big.Int).Abs(d.unscaled).String()
	if len(coeff)+abs(int(d.scale)) > maxDecimalDigits {
		return "", false
	}
	var sb strings.Builder
	if d.unscaled.Sign() < 0 {
		sb.WriteByte('-')
	}
	if d.scale <= 0 {
		sb.WriteString(coeff)
		if d.unscaled.Sign() != 0 {
			sb.WriteString(strings.Repeat("0", int(-d.scale)))
		}
		return sb.String(), true
	}
	writePlainDigits(&sb, coeff, int(d.scale))
	return sb.String(), true
}

// writePlainDigits writes the digits coeff with scale of them after the
// point (scale >= 0).
func writePlainDigits(sb *strings.Builder, coeff string, scale int) {
	switch {
	case scale == 0:
		sb.WriteString(coeff)
	case len(coeff) > scale:
		sb.WriteString(coeff[:len(coeff)-scale])
		sb.WriteByte('.')
		sb.WriteString(coeff[len(coeff)-scale:])
	default:
		sb.WriteString("0.")
		sb.WriteString(strings.Repeat("0", scale-len(coeff)))
		sb.WriteString(coeff)
	}
}

// rat is d as an exact fraction; ok false when its power of ten would
// have more than maxDecimalDigits digits.
func (d *Decimal) rat() (*big.Rat, bool) {
	if d.scale > maxDecimalDigits || d.scale < -maxDecimalDigits {
		return nil, false
	}
	r := new(big.Rat).SetInt(d.unscaled)
	if d.scale > 0 {
		return r.Quo(r, new(big.Rat).SetInt(pow10Big(int(d.scale)))), true
	}
	if d.scale < 0 {
		return r.Mul(r, new(big.Rat).SetInt(pow10Big(int(-d.scale)))), true
	}
	return r, true
}

// precision is the number of digits of the unscaled value (1 for zero).
func (d *Decimal) precision() int { return digitCount(d.unscaled) }

// digitCount is the number of decimal digits of |x| (1 for zero).
func digitCount(x *big.Int) int {
	if x.Sign() == 0 {
		return 1
	}
	if x.IsInt64() {
		n := x.Int64()
		if n < 0 {
			n = -n
		}
		if n < 0 { // MinInt64
			return 19
		}
		c := 1
		for n >= 10 {
			n /= 10
			c++
		}
		return c
	}
	// An estimate from the bits, corrected by one comparison.
	c := int(float64(x.BitLen()-1)*math.Log10(2)) + 1
	if new(big.Int).Abs(x).Cmp(pow10Big(c)) >= 0 {
		c++
	}
	return c
}

// pow10Big is 10^n (n >= 0).
func pow10Big(n int) *big.Int {
	if n < 19 {
		p := int64(1)
		for range n {
			p *= 10
		}
		return big.NewInt(p)
	}
	return new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n)), nil)
}

// decimalError is the error of a Decimal past maxDecimalDigits.
func decimalTooBig(fn string) *Error {
	return classError(ArithmeticError, classArithmetic, "%s: the BigDecimal would have more than %d digits, the limit here", fn, maxDecimalDigits)
}

// newDecimal makes a Decimal of u (which it keeps) and scale.
func newDecimal(u *big.Int, scale int64) (*Decimal, error) {
	if scale > math.MaxInt32 || scale < math.MinInt32 {
		return nil, classError(ArithmeticError, classArithmetic, "Overflow: the scale %d is out of range", scale)
	}
	return &Decimal{unscaled: u, scale: int32(scale)}, nil
}

// decimalOfInt is x with scale 0.
func decimalOfInt(x int64) *Decimal { return &Decimal{unscaled: big.NewInt(x)} }

// decimalOf reads an integer (a long or a BigInt) or a Decimal as a
// Decimal: the other operand of an operation on a Decimal.
func decimalOf(v Value) (*Decimal, bool) {
	switch x := v.(type) {
	case *Decimal:
		return x, true
	case int64:
		return decimalOfInt(x), true
	case *big.Int:
		return &Decimal{unscaled: x}, true
	}
	return nil, false
}

// parseDecimal reads Java's BigDecimal text: an optional sign, digits with
// an optional point, an optional exponent (1.50, -3, .5, 1e3, 2.5E-2).
func parseDecimal(s string) (*Decimal, bool) {
	t := s
	neg := false
	if t != "" && (t[0] == '+' || t[0] == '-') {
		neg = t[0] == '-'
		t = t[1:]
	}
	mant, exp := t, ""
	if i := strings.IndexAny(t, "eE"); i >= 0 {
		mant, exp = t[:i], t[i+1:]
		if exp == "" {
			return nil, false
		}
	}
	intPart, frac, _ := strings.Cut(mant, ".")
	digits := intPart + frac
	if digits == "" || len(digits) > maxDecimalDigits {
		return nil, false
	}
	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return nil, false
		}
	}
	scale := int64(len(frac))
	if exp != "" {
		if exp[0] == '+' {
			exp = exp[1:]
		}
		if exp == "" || exp[0] == '-' && len(exp) == 1 {
			return nil, false
		}
		e, err := strconv.ParseInt(exp, 10, 64)
		if err != nil || e > math.MaxInt32 || e < math.MinInt32 {
			return nil, false
		}
		scale -= e
	}
	u, ok := new(big.Int).SetString(digits, 10)
	if !ok {
		return nil, false
	}
	if neg {
		u.Neg(u)
	}
	d, err := newDecimal(u, scale)
	return d, err == nil
}

// decimalOfFloat is BigDecimal.valueOf(f): the decimal of the float's
// shortest text as Java writes it (Double.toString), so 19.99 is 19.99M
// and 2.0 is 2.0M.
func decimalOfFloat(fn string, f float64) (*Decimal, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, classError(InvalidArgument, classNumberFormat, "%s: Infinite or NaN", fn)
	}
	var s string
	if a := math.Abs(f); a == 0 || (a >= 1e-3 && a < 1e7) {
		s = strconv.FormatFloat(f, 'f', -1, 64)
		if !strings.Contains(s, ".") {
			s += ".0"
		}
	} else {
		// Java's computerized notation: d.ddd with at least one fraction
		// digit, then the exponent.
		s = strconv.FormatFloat(f, 'e', -1, 64)
		mant, exp, _ := strings.Cut(s, "e")
		if !strings.Contains(mant, ".") {
			mant += ".0"
		}
		s = mant + "E" + exp
	}
	d, ok := parseDecimal(s)
	if !ok {
		return nil, classError(InvalidArgument, classNumberFormat, "%s: %v is not a decimal", fn, f)
	}
	return d, nil
}

// mathContext is what with-precision binds: the significant digits of
// each BigDecimal result (0: exact) and how they are rounded.
type mathContext struct {
	precision int
	rounding  string
}

// divRound is num/den rounded to an integer as mode says (den > 0), or
// ok false for UNNECESSARY when the division is not exact.
func divRound(num, den *big.Int, mode string) (*big.Int, bool) {
	q, rem := new(big.Int).QuoRem(num, den, new(big.Int)) // toward zero
	if rem.Sign() == 0 {
		return q, true
	}
	if mode == "UNNECESSARY" {
		return nil, false
	}
	neg := num.Sign() < 0
	twice := new(big.Int).Abs(rem)
	twice.Lsh(twice, 1)
	if roundsAway(mode, twice.Cmp(den), neg, q.Bit(0) == 1) {
		if neg {
			q.Sub(q, big.NewInt(1))
		} else {
			q.Add(q, big.NewInt(1))
		}
	}
	return q, true
}

// roundingNecessary is Java's error for UNNECESSARY when rounding is.
func roundingNecessary() *Error {
	return classError(ArithmeticError, classArithmetic, "Rounding necessary")
}

// setScale is d with scale n, rounded as mode says when digits are dropped.
func (d *Decimal) setScale(fn string, n int64, mode string) (*Decimal, error) {
	if n == int64(d.scale) {
		return d, nil
	}
	if n > int64(d.scale) {
		grow := n - int64(d.scale)
		if d.unscaled.Sign() == 0 {
			return newDecimal(d.unscaled, n)
		}
		if grow+int64(d.precision()) > maxDecimalDigits {
			return nil, decimalTooBig(fn)
		}
		return newDecimal(new(big.Int).Mul(d.unscaled, pow10Big(int(grow))), n)
	}
	drop := int64(d.scale) - n
	if drop > int64(d.precision())+1 {
		// Every digit goes, and the dropped part is below half a unit: the
		// result is 0 or one unit, as the division by 10^(precision+1) gives.
		drop = int64(d.precision()) + 1
	}
	u, ok := divRound(d.unscaled, pow10Big(int(drop)), mode)
	if !ok {
		return nil, roundingNecessary()
	}
	return newDecimal(u, n)
}

// round is d rounded to mc's precision (unchanged without one).
func (d *Decimal) round(fn string, mc *mathContext) (*Decimal, error) {
	if mc == nil || mc.precision <= 0 {
		return d, nil
	}
	p := d.precision()
	if p <= mc.precision {
		return d, nil
	}
	r, err := d.setScale(fn, int64(d.scale)-int64(p-mc.precision), mc.rounding)
	if err != nil {
		return nil, err
	}
	if r.precision() > mc.precision { // 9.99 rounded up to 10.0
		return r.setScale(fn, int64(r.scale)-1, mc.rounding)
	}
	return r, nil
}

// stripTrailingZeros drops the unscaled value's trailing zeros (zero is
// 0 with scale 0, as Java 8 and later give it).
func (d *Decimal) stripTrailingZeros() *Decimal {
	if d.unscaled.Sign() == 0 {
		return &Decimal{unscaled: new(big.Int)}
	}
	u, k := stripFactor(d.unscaled, 10, int64(d.scale)-math.MinInt32)
	return &Decimal{unscaled: u, scale: int32(int64(d.scale) - k)}
}

// stripFactor divides x by f as often as it divides, at most limit times:
// x / f^k and k. It divides by f^(2^j) from the largest power no longer
// than x down to f itself, so a run of 100,000 zeros costs seventeen
// divisions, not 100,000 (each as long as x: a quadratic walk that no
// limit of a run would interrupt).
func stripFactor(x *big.Int, f, limit int64) (*big.Int, int64) {
	if x.Sign() == 0 || limit <= 0 {
		return x, 0
	}
	powers := []*big.Int{big.NewInt(f)}
	for {
		last := powers[len(powers)-1]
		if int64(1)<<len(powers) > limit || 2*last.BitLen()-1 > x.BitLen() {
			break
		}
		powers = append(powers, new(big.Int).Mul(last, last))
	}
	u := x
	var k int64
	q, r := new(big.Int), new(big.Int)
	for j := len(powers) - 1; j >= 0; j-- {
		step := int64(1) << j
		if k+step > limit || powers[j].BitLen() > u.BitLen() {
			continue
		}
		q.QuoRem(u, powers[j], r)
		if r.Sign() != 0 {
			continue
		}
		u, q = q, new(big.Int)
		k += step
	}
	return u, k
}

// aligned returns the unscaled values of a and b at their larger scale.
func aligned(fn string, a, b *Decimal) (x, y *big.Int, scale int32, err error) {
	switch {
	case a.scale == b.scale:
		return a.unscaled, b.unscaled, a.scale, nil
	case a.scale > b.scale:
		bs, err := b.setScale(fn, int64(a.scale), "UNNECESSARY")
		if err != nil {
			return nil, nil, 0, err
		}
		return a.unscaled, bs.unscaled, a.scale, nil
	}
	as, err := a.setScale(fn, int64(b.scale), "UNNECESSARY")
	if err != nil {
		return nil, nil, 0, err
	}
	return as.unscaled, b.unscaled, b.scale, nil
}

// cmp orders a and b by value (0.3 and 0.30 are equal).
func (a *Decimal) cmp(b *Decimal) int {
	if a.scale == b.scale {
		return a.unscaled.Cmp(b.unscaled)
	}
	s1, s2 := a.unscaled.Sign(), b.unscaled.Sign()
	if s1 != s2 || s1 == 0 {
		return cmp.Compare(s1, s2)
	}
	// Of one sign: the larger exponent of the leading digit is the larger
	// magnitude; at one exponent the scales differ by the digit counts,
	// so aligning them is bounded.
	adjA := int64(a.precision()) - int64(a.scale)
	adjB := int64(b.precision()) - int64(b.scale)
	if adjA != adjB {
		return s1 * cmp.Compare(adjA, adjB)
	}
	x, y, _, _ := aligned("compare", a, b)
	return x.Cmp(y)
}

// decimalArith is a op b exactly (op one of + - *), then rounded to mc.
func decimalArith(fn string, op byte, a, b *Decimal, mc *mathContext) (*Decimal, error) {
	var r *Decimal
	switch op {
	case '*':
		if a.precision()+b.precision() > maxDecimalDigits {
			return nil, decimalTooBig(fn)
		}
		d, err := newDecimal(new(big.Int).Mul(a.unscaled, b.unscaled), int64(a.scale)+int64(b.scale))
		if err != nil {
			return nil, err
		}
		r = d
	default:
		x, y, scale, err := aligned(fn, a, b)
		if err != nil {
			return nil, err
		}
		u := new(big.Int)
		if op == '+' {
			u.Add(x, y)
		} else {
			u.Sub(x, y)
		}
		r = &Decimal{unscaled: u, scale: scale}
	}
	return r.round(fn, mc)
}

// decimalNeg is -d.
func decimalNeg(d *Decimal) *Decimal {
	return &Decimal{unscaled: new(big.Int).Neg(d.unscaled), scale: d.scale}
}

// decimalQuo is a/b as Clojure's / gives it: exact, with the scale of a
// less that of b when the quotient allows (10M/4 is 2.5M, 6.0M/2 3.0M),
// an ArithmeticException when it does not terminate; under
// with-precision, rounded to its digits.
func decimalQuo(fn string, a, b *Decimal, mc *mathContext) (*Decimal, error) {
	if b.unscaled.Sign() == 0 {
		if a.unscaled.Sign() == 0 {
			return nil, classError(ArithmeticError, classArithmetic, "Division undefined")
		}
		return nil, classError(ArithmeticError, classArithmetic, "Division by zero")
	}
	preferred := int64(a.scale) - int64(b.scale)
	if a.unscaled.Sign() == 0 {
		return newDecimal(new(big.Int), max(min(preferred, math.MaxInt32), math.MinInt32))
	}
	// a/b = (ua/ub) * 10^(sb-sa) = (ua/ub) * 10^-preferred.
	num := new(big.Int).Abs(a.unscaled)
	den := new(big.Int).Abs(b.unscaled)
	neg := a.unscaled.Sign() != b.unscaled.Sign()
	var u *big.Int
	var k int64 // u * 10^-k is ua/ub
	if mc == nil || mc.precision <= 0 {
		// Exact: ua/ub terminates when its reduced denominator is 2^i 5^j.
		g := new(big.Int).GCD(nil, nil, num, den)
		n, d := new(big.Int).Quo(num, g), new(big.Int).Quo(den, g)
		twos := int64(d.TrailingZeroBits())
		rest, fives := stripFactor(new(big.Int).Rsh(d, uint(twos)), 5, math.MaxInt64)
		if rest.Cmp(big.NewInt(1)) != 0 {
			return nil, classError(ArithmeticError, classArithmetic, "Non-terminating decimal expansion; no exact representable decimal result.")
		}
		k = max(twos, fives)
		if k+int64(digitCount(n)) > maxDecimalDigits {
			return nil, decimalTooBig(fn)
		}
		u = new(big.Int).Mul(n, pow10Big(int(k)))
		u.Quo(u, d)
	} else {
		p := mc.precision
		// k such that num*10^k/den has p digits before rounding.
		k = int64(p - (digitCount(num) - digitCount(den)))
		for {
			if k > maxDecimalDigits || k < -maxDecimalDigits {
				return nil, decimalTooBig(fn)
			}
			scaledNum, scaledDen := new(big.Int).Set(num), new(big.Int).Set(den)
			if k >= 0 {
				scaledNum.Mul(scaledNum, pow10Big(int(k)))
			} else {
				scaledDen.Mul(scaledDen, pow10Big(int(-k)))
			}
			q := new(big.Int).Quo(scaledNum, scaledDen)
			switch n := digitCount(q); {
			case q.Sign() != 0 && n > p:
				k--
				continue
			case q.Sign() == 0 || n < p:
				k++
				continue
			}
			if neg {
				scaledNum.Neg(scaledNum)
			}
			var ok bool
			if u, ok = divRound(scaledNum, scaledDen, mc.rounding); !ok {
				return nil, roundingNecessary()
			}
			neg = false // the sign is in u
			break
		}
	}
	if neg {
		u.Neg(u)
	}
	r, err := newDecimal(u, k+preferred)
	if err != nil {
		return nil, err
	}
	if mc != nil && mc.precision > 0 {
		if r, err = r.round(fn, mc); err != nil { // a carry: 9.99 -> 10.0
			return nil, err
		}
	}
	// Java strips the quotient's trailing zeros down to the preferred scale.
	if int64(r.scale) > preferred {
		u, k := stripFactor(r.unscaled, 10, int64(r.scale)-preferred)
		r = &Decimal{unscaled: u, scale: int32(int64(r.scale) - k)}
	}
	if int64(r.scale) < preferred && (mc == nil || mc.precision <= 0) {
		return r.setScale(fn, preferred, "UNNECESSARY")
	}
	return r, nil
}

// decimalWork is the machine words of d, for the step and memory charges.
func decimalWords(d *Decimal) int { return bigWords(d.unscaled) }

// chargeDecimal charges a new Decimal as chargeBig charges a BigInt.
func (th *thread) chargeDecimal(d *Decimal, work int) error {
	return th.chargeBig(d.unscaled, work)
}

// hashDecimal hashes d by its value: 0.3M and 0.30M are one key.
func hashDecimal(d *Decimal, mix func(h, x uint64) uint64, offset uint64) uint64 {
	s := d.stripTrailingZeros()
	h := mix(offset^0x13, uint64(int64(s.scale)))
	for _, w := range s.unscaled.Bits() {
		h = mix(h, uint64(w))
	}
	if s.unscaled.Sign() < 0 {
		h = mix(h, 1)
	}
	return h
}

// decimalOp is + - * over numbers one of which is a BigDecimal (no float):
// exact, each step rounded to the with-precision in force.
func (th *thread) decimalOp(fn string, op byte, args []Value) (Value, error) {
	mc := th.mathContext()
	acc, _ := decimalOf(args[0])
	if len(args) == 1 {
		if op == '-' {
			return th.keepDecimal(decimalNeg(acc).round(fn, mc))
		}
		return acc, nil
	}
	for _, a := range args[1:] {
		b, _ := decimalOf(a)
		r, err := th.keepDecimal(decimalArith(fn, op, acc, b, mc))
		if err != nil {
			return nil, err
		}
		acc = r.(*Decimal)
	}
	return acc, nil
}

// keepDecimal charges a new BigDecimal to the limits.
func (th *thread) keepDecimal(d *Decimal, err error) (Value, error) {
	if err != nil {
		return nil, err
	}
	if err := th.chargeDecimal(d, decimalWords(d)); err != nil {
		return nil, err
	}
	return d, nil
}

// mathContext is the with-precision in force, nil outside one.
func (th *thread) mathContext() *mathContext {
	if th == nil {
		return nil
	}
	return th.mathCtx
}

// decimalArgs reports whether args are numbers with a BigDecimal among
// them and no float: the operation is then a BigDecimal's.
func decimalArgs(args []Value) bool {
	dec := false
	for _, a := range args {
		switch a.(type) {
		case *Decimal:
			dec = true
		case int64, *big.Int:
		default:
			return false
		}
	}
	return dec
}

// decimalDiv is / over numbers one of which is a BigDecimal (decimalArgs).
func (th *thread) decimalDiv(args []Value) (Value, error) {
	mc := th.mathContext()
	acc, _ := decimalOf(args[0])
	if len(args) == 1 {
		return th.keepDecimal(decimalQuo("/", decimalOfInt(1), acc, mc))
	}
	for _, a := range args[1:] {
		b, _ := decimalOf(a)
		r, err := th.keepDecimal(decimalQuo("/", acc, b, mc))
		if err != nil {
			return nil, err
		}
		acc = r.(*Decimal)
	}
	return acc, nil
}

// decimalDivision is quot, rem and mod with a BigDecimal: quot the
// quotient's integer part with the scale of a less that of b (Java's
// divideToIntegralValue: (quot 7.5M 2) is 3.0M), rem what is left, mod
// it with the divisor's sign.
func (th *thread) decimalDivision(fn string, args []Value) (Value, error) {
	a, _ := decimalOf(args[0])
	b, _ := decimalOf(args[1])
	if b.unscaled.Sign() == 0 {
		return nil, classError(ArithmeticError, classArithmetic, "Division by zero")
	}
	x, y, scale, err := aligned(fn, a, b)
	if err != nil {
		return nil, err
	}
	q, r := new(big.Int).QuoRem(x, y, new(big.Int))
	if fn == "quot" {
		preferred := int64(a.scale) - int64(b.scale)
		d := &Decimal{unscaled: q}
		if preferred > 0 {
			return th.keepDecimal(d.setScale(fn, preferred, "UNNECESSARY"))
		}
		for int64(d.scale) > preferred && d.unscaled.Sign() != 0 {
			q10, rem := new(big.Int).QuoRem(d.unscaled, big.NewInt(10), new(big.Int))
			if rem.Sign() != 0 {
				break
			}
			d = &Decimal{unscaled: q10, scale: d.scale - 1}
		}
		return th.keepDecimal(d, nil)
	}
	if fn == "mod" && r.Sign() != 0 && r.Sign() != y.Sign() {
		r.Add(r, y)
	}
	return th.keepDecimal(&Decimal{unscaled: r, scale: scale}, nil)
}

// decimalToInteger is d rounded to an integer as mode says: a long, or
// Clojure's error for one out of range.
func decimalToInteger(fn string, d *Decimal, mode string) (Value, error) {
	r, err := d.setScale(fn, 0, mode)
	if err != nil {
		return nil, err
	}
	return bigToLong(fn, r.unscaled)
}

// decimalOfRat is the exact decimal of r, whose denominator divides a
// power of ten (a float's binary fraction is one).
func decimalOfRat(fn string, r *big.Rat) (*Decimal, error) {
	return decimalQuo(fn, &Decimal{unscaled: new(big.Int).Set(r.Num())}, &Decimal{unscaled: new(big.Int).Set(r.Denom())}, nil)
}

// decimalDivScale is a/b rounded to scale digits after the point as mode
// says: Java's divide(divisor, scale, roundingMode).
func decimalDivScale(fn string, a, b *Decimal, scale int64, mode string) (*Decimal, error) {
	if b.unscaled.Sign() == 0 {
		return nil, classError(ArithmeticError, classArithmetic, "Division by zero")
	}
	// a/b * 10^scale = ua * 10^(sb+scale-sa) / ub.
	e := int64(b.scale) + scale - int64(a.scale)
	if e > maxDecimalDigits || e < -maxDecimalDigits {
		return nil, decimalTooBig(fn)
	}
	num, den := new(big.Int).Set(a.unscaled), new(big.Int).Set(b.unscaled)
	if e >= 0 {
		num.Mul(num, pow10Big(int(e)))
	} else {
		den.Mul(den, pow10Big(int(-e)))
	}
	if den.Sign() < 0 {
		num.Neg(num)
		den.Neg(den)
	}
	u, ok := divRound(num, den, mode)
	if !ok {
		return nil, roundingNecessary()
	}
	return newDecimal(u, scale)
}

// decimalEquiv is == with a BigDecimal on a side: equal values, whatever
// their kinds ((== 1M 1), (== 0.5M 0.5)).
func decimalEquiv(a, b Value) bool {
	_, da := a.(*Decimal)
	_, db := b.(*Decimal)
	if !da && !db || !isNumber(a) || !isNumber(b) {
		return false
	}
	return compareNumbers(a, b, false) == 0
}

// isBigNumber reports a BigInt or a BigDecimal, the numbers the
// arithmetic builtins fold off their native paths.
func isBigNumber(v Value) bool {
	switch v.(type) {
	case *big.Int, *Decimal:
		return true
	}
	return false
}

// decimalConstKey keys a BigDecimal constant of a program by its text, so
// that 1.5M and 1.50M, equal as values, stay two constants.
type decimalConstKey struct{ text string }
