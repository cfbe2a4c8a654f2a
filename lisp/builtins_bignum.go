package lisp

import (
	"github.com/ptc-go/ptc/lisp/internal/analyze"
	"math"
	"math/big"
	"strconv"
)

// BigDecimal and BigInteger as models write them for money and for large
// counts. A BigDecimal is a Decimal (decimal.go): bigdec, the literals,
// the constructors and valueOf make them, and the methods (.setScale,
// .add, .divide with a scale and a RoundingMode, ...) compute exactly, as
// Java's: (.add (bigdec "0.1") (bigdec "0.2")) is 0.3M and (.setScale
// 2.345M 2 RoundingMode/HALF_UP) 2.35M. The methods take a long or a
// BigInt where Java takes a BigDecimal, and a float as BigDecimal/valueOf
// reads it. A BigInteger's methods on integers stay integers; one beyond
// 64 bits is a BigInt (bigint.go).

// roundingModes are Java's RoundingMode constants, keywords here as the
// ChronoUnits are; BigDecimal's legacy ROUND_ ints name them too.
var roundingModes = [...]string{"UP", "DOWN", "CEILING", "FLOOR", "HALF_UP", "HALF_DOWN", "HALF_EVEN", "UNNECESSARY"}

func registerBignum(t *builtinTable) {
	registerWithPrecision(t)
	for i, m := range roundingModes {
		t.set("RoundingMode/"+m, Keyword(m))
		t.set("BigDecimal/ROUND_"+m, int64(i))
	}
	for name, v := range map[string]int64{"ZERO": 0, "ONE": 1, "TWO": 2, "TEN": 10} {
		t.set("BigDecimal/"+name, decimalOfInt(v))
	}
	for name, v := range map[string]Value{"ZERO": int64(0), "ONE": int64(1), "TWO": int64(2), "TEN": int64(10)} {
		t.set("BigInteger/"+name, v)
	}
	t.add("bigdec", 1, 1, func(th *thread, a []Value) (Value, error) { return th.toDecimal("bigdec", a[0], false) })
	t.add("BigDecimal/valueOf", 1, 2, func(th *thread, a []Value) (Value, error) {
		if len(a) == 2 { // (BigDecimal/valueOf unscaled scale)
			u, ok := a[0].(int64)
			if !ok {
				return nil, argError("BigDecimal/valueOf", 0, "an integer (the unscaled value)", a[0])
			}
			scale, err := intArg("BigDecimal/valueOf", a, 1)
			if err != nil {
				return nil, err
			}
			return th.keepDecimal(newDecimal(big.NewInt(u), scale))
		}
		return th.toDecimal("BigDecimal/valueOf", a[0], false)
	})
	t.add("BigDecimal.", 1, 1, func(th *thread, a []Value) (Value, error) { return th.toDecimal("BigDecimal.", a[0], true) }, "java.math.BigDecimal.")
	t.add("bigint", 1, 1, toBigInt("bigint"), "biginteger", "BigInteger/valueOf")
	t.add("BigInteger.", 1, 2, toBigInt("BigInteger."), "java.math.BigInteger.")

	// The methods. Each takes numbers; integers stay integers (a
	// BigInteger's methods), a float anywhere makes the result a float.
	arith := func(name string, op func(x, y *big.Rat) *big.Rat, intOp func(x, y int64) (int64, bool)) {
		dop := map[string]byte{".subtract": '-', ".multiply": '*'}[name]
		t.add(name, 2, 2, func(th *thread, a []Value) (Value, error) {
			if decimalMethod(a) {
				return th.decimalMethodOp(name, dop, a)
			}
			x, y, err := bigOperands(name, a)
			if err != nil {
				return nil, err
			}
			if xi, ok := a[0].(int64); ok {
				if yi, ok := a[1].(int64); ok {
					r, ok := intOp(xi, yi)
					if !ok {
						return nil, bigOverflow(name)
					}
					return r, nil
				}
			}
			f, _ := op(x, y).Float64()
			return f, nil
		})
	}
	arith(".subtract", func(x, y *big.Rat) *big.Rat { return new(big.Rat).Sub(x, y) }, func(x, y int64) (int64, bool) {
		r := x - y
		return r, !((x >= 0 && y < 0 && r < 0) || (x < 0 && y > 0 && r >= 0))
	})
	arith(".multiply", func(x, y *big.Rat) *big.Rat { return new(big.Rat).Mul(x, y) }, func(x, y int64) (int64, bool) {
		r, over := mulInt(x, y)
		return r, !over
	})
	// .add is also a java.util collection's: numbers are BigDecimal's.
	add := func(x, y int64) (int64, bool) {
		r := x + y
		return r, !((x > 0 && y > 0 && r < 0) || (x < 0 && y < 0 && r >= 0))
	}
	t.wrap(".add", func(old *Builtin) *Builtin {
		b := *old
		coll := old.fn
		b.fn = func(th *thread, a []Value) (Value, error) {
			if len(a) != 2 || !isNumber(a[0]) {
				return coll(th, a)
			}
			if decimalMethod(a) {
				return th.decimalMethodOp(".add", '+', a)
			}
			x, y, err := bigOperands(".add", a)
			if err != nil {
				return nil, err
			}
			if xi, ok := a[0].(int64); ok {
				if yi, ok := a[1].(int64); ok {
					r, ok := add(xi, yi)
					if !ok {
						return nil, bigOverflow(".add")
					}
					return r, nil
				}
			}
			f, _ := new(big.Rat).Add(x, y).Float64()
			return f, nil
		}
		return &b
	})
	t.add(".divide", 2, 4, func(th *thread, a []Value) (Value, error) {
		if decimalMethod(a[:2]) || len(a) > 2 {
			return th.decimalDivide(a)
		}
		// Two integers: BigInteger's divide, truncated.
		xi, xInt := a[0].(int64)
		yi, yInt := a[1].(int64)
		if !xInt || !yInt {
			return th.decimalDivide(a)
		}
		if yi == 0 {
			return nil, classError(ArithmeticError, classArithmetic, "Division by zero")
		}
		if xi == math.MinInt64 && yi == -1 {
			return nil, bigOverflow(".divide")
		}
		return xi / yi, nil
	})
	t.add(".setScale", 2, 3, func(th *thread, a []Value) (Value, error) {
		x, err := decimalOperand(".setScale", a, 0)
		if err != nil {
			return nil, err
		}
		scale, err := intArg(".setScale", a, 1)
		if err != nil {
			return nil, err
		}
		mode := "UNNECESSARY" // Java: without a mode, rounding is an error
		if len(a) == 3 {
			if mode, err = roundingMode(".setScale", a, 2); err != nil {
				return nil, err
			}
		}
		return th.keepDecimal(x.setScale(".setScale", scale, mode))
	})
	t.add(".unscaledValue", 1, 1, func(th *thread, a []Value) (Value, error) {
		x, err := decimalOperand(".unscaledValue", a, 0)
		if err != nil {
			return nil, err
		}
		if x.unscaled.IsInt64() {
			return x.unscaled.Int64(), nil
		}
		return x.unscaled, nil
	})
	for _, name := range []string{".movePointLeft", ".movePointRight"} {
		t.add(name, 2, 2, func(th *thread, a []Value) (Value, error) {
			x, err := decimalOperand(name, a, 0)
			if err != nil {
				return nil, err
			}
			n, err := intArg(name, a, 1)
			if err != nil {
				return nil, err
			}
			if name == ".movePointRight" {
				n = -n
			}
			// The point moves n places left: the scale grows by n, and a
			// negative scale is made 0, as Java's.
			d, err := newDecimal(x.unscaled, int64(x.scale)+n)
			if err != nil {
				return nil, err
			}
			if d.scale < 0 {
				return th.keepDecimal(d.setScale(name, 0, "UNNECESSARY"))
			}
			return th.keepDecimal(d, nil)
		})
	}
	unary := func(name string, intFn func(int64) (Value, error), floatFn func(float64) Value) {
		t.add(name, 1, 1, func(th *thread, a []Value) (Value, error) {
			switch x := a[0].(type) {
			case int64:
				return intFn(x)
			case float64:
				return floatFn(x), nil
			case *Decimal:
				return th.decimalUnary(name, x)
			}
			return nil, argError(name, 0, "a number (a BigDecimal or BigInteger)", a[0])
		})
	}
	unary(".negate", func(x int64) (Value, error) {
		if x == math.MinInt64 {
			return nil, bigOverflow(".negate")
		}
		return -x, nil
	}, func(x float64) Value { return -x })
	unary(".abs", func(x int64) (Value, error) {
		if x == math.MinInt64 {
			return nil, bigOverflow(".abs")
		}
		return max(x, -x), nil
	}, func(x float64) Value { return math.Abs(x) })
	unary(".signum", func(x int64) (Value, error) { return int64(sign(x)), nil }, func(x float64) Value {
		switch {
		case x > 0:
			return int64(1)
		case x < 0:
			return int64(-1)
		}
		return int64(0)
	})
	unary(".stripTrailingZeros", func(x int64) (Value, error) { return x, nil }, func(x float64) Value { return x })
	unary(".toBigInteger", func(x int64) (Value, error) { return x, nil }, func(x float64) Value {
		if math.Abs(x) >= 9.223372036854775807e18 || math.IsNaN(x) {
			return nil
		}
		return int64(x)
	})
	t.add(".toPlainString", 1, 1, func(th *thread, a []Value) (Value, error) {
		switch x := a[0].(type) {
		case *Decimal:
			s, ok := x.plain()
			if !ok {
				return nil, decimalTooBig(".toPlainString")
			}
			return s, th.chargeString(len(s))
		case int64:
			return strconv.FormatInt(x, 10), nil
		case float64:
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return nil, classError(InvalidArgument, classNumberFormat, "Infinite or NaN")
			}
			return strconv.FormatFloat(x, 'f', -1, 64), nil
		}
		return nil, argError(".toPlainString", 0, "a number (a BigDecimal)", a[0])
	})
	t.add(".scale", 1, 1, func(_ *thread, a []Value) (Value, error) {
		d, err := decimalOperand(".scale", a, 0)
		if err != nil {
			return nil, err
		}
		return int64(d.scale), nil
	})
	t.add(".precision", 1, 1, func(_ *thread, a []Value) (Value, error) {
		d, err := decimalOperand(".precision", a, 0)
		if err != nil {
			return nil, err
		}
		return int64(d.precision()), nil
	})
	t.add(".pow", 2, 2, func(th *thread, a []Value) (Value, error) {
		n, err := intArg(".pow", a, 1)
		if err != nil {
			return nil, err
		}
		if n < 0 || n > 999_999_999 {
			return nil, classError(ArithmeticError, classArithmetic, "Invalid operation: exponent %d", n)
		}
		switch x := a[0].(type) {
		case *Decimal:
			if int64(x.precision())*n > maxDecimalDigits {
				return nil, decimalTooBig(".pow")
			}
			u := new(big.Int).Exp(x.unscaled, big.NewInt(n), nil)
			return th.keepDecimal(newDecimal(u, int64(x.scale)*n))
		case int64:
			r := int64(1)
			for range min(n, 64) {
				var over bool
				if r, over = mulInt(r, x); over {
					return nil, bigOverflow(".pow")
				}
			}
			if n > 64 && x != 0 && x != 1 && x != -1 {
				return nil, bigOverflow(".pow")
			}
			if n > 64 && x == -1 && n%2 == 1 {
				return int64(-1), nil
			}
			return r, nil
		case float64:
			return math.Pow(x, float64(n)), nil
		}
		return nil, argError(".pow", 0, "a number (a BigDecimal or BigInteger)", a[0])
	})
	for _, f := range []struct {
		name string
		pick int
	}{{".max", 1}, {".min", -1}} {
		t.add(f.name, 2, 2, func(_ *thread, a []Value) (Value, error) {
			if _, _, err := bigOperands(f.name, a); err != nil {
				return nil, err
			}
			if sign(int64(Compare(a[1], a[0]))) == f.pick {
				return a[1], nil
			}
			return a[0], nil
		})
	}
	intPair := func(name string, f func(x, y int64) (Value, error), float func(x, y float64) Value) {
		t.add(name, 2, 2, func(th *thread, a []Value) (Value, error) {
			if name == ".remainder" && decimalMethod(a) {
				x, y, err := decimalOperands(name, a)
				if err != nil {
					return nil, err
				}
				return th.decimalDivision("rem", []Value{x, y})
			}
			if _, _, err := bigOperands(name, a); err != nil {
				return nil, err
			}
			xi, xInt := a[0].(int64)
			yi, yInt := a[1].(int64)
			if xInt && yInt {
				return f(xi, yi)
			}
			if float == nil {
				return nil, argError(name, 0, "an integer (a BigInteger)", a[0])
			}
			x, _ := floatArg(name, a, 0)
			y, _ := floatArg(name, a, 1)
			return float(x, y), nil
		})
	}
	intPair(".remainder", func(x, y int64) (Value, error) {
		if y == 0 {
			return nil, classError(ArithmeticError, classArithmetic, "BigInteger divide by zero")
		}
		if y == -1 {
			return int64(0), nil
		}
		return x % y, nil
	}, func(x, y float64) Value { return math.Mod(x, y) })
	intPair(".mod", func(x, y int64) (Value, error) {
		if y <= 0 {
			return nil, classError(ArithmeticError, classArithmetic, "BigInteger: modulus not positive")
		}
		m := x % y
		if m < 0 {
			m += y
		}
		return m, nil
	}, nil)
	intPair(".gcd", func(x, y int64) (Value, error) {
		g := new(big.Int).GCD(nil, nil, new(big.Int).Abs(big.NewInt(x)), new(big.Int).Abs(big.NewInt(y)))
		if !g.IsInt64() {
			return nil, bigOverflow(".gcd")
		}
		return g.Int64(), nil
	}, nil)
	t.add(".isProbablePrime", 2, 2, func(_ *thread, a []Value) (Value, error) {
		x, ok := a[0].(int64)
		if !ok {
			return nil, argError(".isProbablePrime", 0, "an integer (a BigInteger)", a[0])
		}
		// Exact for 64-bit integers (Baillie-PSW), where Java's answer is
		// right with the certainty asked for.
		return x > 1 && big.NewInt(x).ProbablyPrime(0), nil
	})
}

// bigOverflow is the error of a BigInteger method whose long result
// overflows; registerBigInteger (bigint.go) computes such a method again on
// BigInts when it sees it.
func bigOverflow(fn string) *Error {
	return classError(ArithmeticError, classArithmetic, "integer overflow in %s", fn)
}

// bigOperands reads two numbers as exact decimals.
func bigOperands(fn string, a []Value) (x, y *big.Rat, err error) {
	if x, err = bigOperand(fn, a, 0); err != nil {
		return nil, nil, err
	}
	if y, err = bigOperand(fn, a, 1); err != nil {
		return nil, nil, err
	}
	return x, y, nil
}

// bigOperand reads a[i] as the exact decimal it prints as: an integer, or
// a float's shortest decimal (0.1 is 1/10, not the binary fraction).
func bigOperand(fn string, a []Value, i int) (*big.Rat, error) {
	switch x := a[i].(type) {
	case *Decimal:
		if r, ok := x.rat(); ok {
			return r, nil
		}
		return nil, decimalTooBig(fn)
	case int64:
		return new(big.Rat).SetInt64(x), nil
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, classError(InvalidArgument, classNumberFormat, "Infinite or NaN")
		}
		r, _ := new(big.Rat).SetString(strconv.FormatFloat(x, 'f', -1, 64))
		return r, nil
	}
	return nil, argError(fn, i, "a number (a BigDecimal or BigInteger)", a[i])
}

func roundingMode(fn string, a []Value, i int) (string, error) {
	switch m := a[i].(type) {
	case Keyword:
		for _, name := range roundingModes {
			if string(m) == name {
				return name, nil
			}
		}
	case int64:
		if m >= 0 && int(m) < len(roundingModes) {
			return roundingModes[m], nil
		}
	}
	return "", argError(fn, i, "a RoundingMode (RoundingMode/HALF_UP ...)", a[i])
}

// roundsAway says whether rounding as mode says goes away from zero: half
// tells where the dropped part lies (<0 below half a unit, 0 at it, >0
// above), neg the sign, odd whether the kept last digit is odd. HALF_EVEN
// stands for UNNECESSARY, which callers refuse before.
func roundsAway(mode string, half int, neg, odd bool) bool {
	switch mode {
	case "UP":
		return true
	case "DOWN":
		return false
	case "CEILING":
		return !neg
	case "FLOOR":
		return neg
	case "HALF_UP":
		return half >= 0
	case "HALF_DOWN":
		return half > 0
	}
	return half > 0 || half == 0 && odd
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// toDecimal is bigdec and the BigDecimal constructors: a BigDecimal of a
// number or of decimal text. A float is read as BigDecimal/valueOf reads
// it (19.99 is 19.99M), or exactly, its binary fraction in full, by the
// constructor (exact), as Java's new BigDecimal(double).
func (th *thread) toDecimal(fn string, v Value, exact bool) (Value, error) {
	switch x := v.(type) {
	case *Decimal:
		return x, nil
	case int64, *big.Int:
		d, _ := decimalOf(x)
		return th.keepDecimal(d, nil)
	case float64:
		if exact && !math.IsNaN(x) && !math.IsInf(x, 0) {
			return th.keepDecimal(decimalOfRat(fn, new(big.Rat).SetFloat64(x)))
		}
		return th.keepDecimal(decimalOfFloat(fn, x))
	case string:
		d, ok := parseDecimal(x)
		if !ok {
			return nil, classError(InvalidArgument, classNumberFormat, "Character array is missing \"exponent\" mark 'e' or 'E': %q is not a decimal", x)
		}
		return th.keepDecimal(d, nil)
	}
	return nil, argError(fn, 0, "a number or a decimal string", v)
}

// decimalOperand reads a[i] as a BigDecimal method's operand: a
// BigDecimal, an integer, or a float as BigDecimal/valueOf reads it.
func decimalOperand(fn string, a []Value, i int) (*Decimal, error) {
	switch x := a[i].(type) {
	case *Decimal:
		return x, nil
	case int64, *big.Int:
		d, _ := decimalOf(x)
		return d, nil
	case float64:
		return decimalOfFloat(fn, x)
	}
	return nil, argError(fn, i, "a number (a BigDecimal or BigInteger)", a[i])
}

// decimalOperands reads a[0] and a[1] as decimalOperand does.
func decimalOperands(fn string, a []Value) (x, y *Decimal, err error) {
	if x, err = decimalOperand(fn, a, 0); err != nil {
		return nil, nil, err
	}
	if y, err = decimalOperand(fn, a, 1); err != nil {
		return nil, nil, err
	}
	return x, y, nil
}

// decimalMethod reports whether a BigDecimal method's operands a make it
// a BigDecimal's: a BigDecimal or a float among them (integers alone are
// a BigInteger's).
func decimalMethod(a []Value) bool {
	for _, x := range a {
		switch x.(type) {
		case *Decimal, float64:
			return true
		}
	}
	return false
}

// decimalMethodOp is .add, .subtract or .multiply of a BigDecimal: exact.
func (th *thread) decimalMethodOp(name string, op byte, a []Value) (Value, error) {
	x, y, err := decimalOperands(name, a)
	if err != nil {
		return nil, err
	}
	return th.keepDecimal(decimalArith(name, op, x, y, nil))
}

// decimalDivide is BigDecimal's .divide: (x y) exact, as / (an error when
// the quotient does not terminate); (x y mode) to x's scale and (x y scale
// mode) to scale, rounded as mode says.
func (th *thread) decimalDivide(a []Value) (Value, error) {
	x, y, err := decimalOperands(".divide", a)
	if err != nil {
		return nil, err
	}
	switch len(a) {
	case 3:
		mode, err := roundingMode(".divide", a, 2)
		if err != nil {
			return nil, err
		}
		return th.keepDecimal(decimalDivScale(".divide", x, y, int64(x.scale), mode))
	case 4:
		scale, err := intArg(".divide", a, 2)
		if err != nil {
			return nil, err
		}
		mode, err := roundingMode(".divide", a, 3)
		if err != nil {
			return nil, err
		}
		return th.keepDecimal(decimalDivScale(".divide", x, y, scale, mode))
	}
	return th.keepDecimal(decimalQuo(".divide", x, y, nil))
}

// decimalUnary is a BigDecimal's .negate, .abs, .signum,
// .stripTrailingZeros or .toBigInteger.
func (th *thread) decimalUnary(name string, x *Decimal) (Value, error) {
	switch name {
	case ".negate":
		return th.keepDecimal(decimalNeg(x), nil)
	case ".abs":
		if x.unscaled.Sign() < 0 {
			return th.keepDecimal(decimalNeg(x), nil)
		}
		return x, nil
	case ".signum":
		return int64(x.unscaled.Sign()), nil
	case ".stripTrailingZeros":
		return th.keepDecimal(x.stripTrailingZeros(), nil)
	}
	// .toBigInteger: the integer part.
	r, err := x.setScale(name, 0, "DOWN")
	if err != nil {
		return nil, err
	}
	if r.unscaled.IsInt64() {
		return r.unscaled.Int64(), nil
	}
	return r.unscaled, th.chargeBig(r.unscaled, bigWords(r.unscaled))
}

// registerWithPrecision adds what (with-precision p :rounding MODE
// body...) calls (analyze.WithPrecisionFn): it runs the body with each
// BigDecimal result rounded to p significant digits (0: exact), as Java's
// MathContext; HALF_UP unless a mode is given.
func registerWithPrecision(t *builtinTable) {
	t.set(analyze.WithPrecisionFn, &Builtin{Name: "with-precision", MinArgs: 3, MaxArgs: 3, fn: func(th *thread, a []Value) (Value, error) {
		p, err := intArg("with-precision", a, 0)
		if err != nil {
			return nil, err
		}
		if p < 0 {
			return nil, classError(InvalidArgument, classIllegalArgument, "Digits < 0")
		}
		if p > maxDecimalDigits {
			return nil, decimalTooBig("with-precision")
		}
		mode := "HALF_UP"
		if a[1] != nil {
			if mode, err = roundingMode("with-precision", a, 1); err != nil {
				return nil, err
			}
		}
		outer := th.mathCtx
		th.mathCtx = &mathContext{precision: int(p), rounding: mode}
		v, err := th.call(a[2], nil)
		th.mathCtx = outer
		return v, err
	}})
}
