package lisp

import (
	"errors"
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

func registerNumbers(t *builtinTable) {
	t.add("+", 0, -1, numAdd)
	t.add("-", 0, -1, numSub)
	t.add("*", 0, -1, numMul)
	t.add("/", 1, -1, numDiv)
	t.add("inc", 1, 1, func(th *thread, a []Value) (Value, error) { return th.addOne("inc", a[0], 1) })
	t.add("dec", 1, 1, func(th *thread, a []Value) (Value, error) { return th.addOne("dec", a[0], -1) })
	t.add("mod", 2, 2, func(th *thread, a []Value) (Value, error) { return th.intDivision("mod", a) })
	t.add("rem", 2, 2, func(th *thread, a []Value) (Value, error) { return th.intDivision("rem", a) })
	t.add("quot", 2, 2, func(th *thread, a []Value) (Value, error) { return th.intDivision("quot", a) })
	t.add("abs", 1, 1, numAbs, "Math/abs")
	t.add("max", 1, -1, func(_ *thread, a []Value) (Value, error) { return extremum("max", a, 1) })
	t.add("min", 1, -1, func(_ *thread, a []Value) (Value, error) { return extremum("min", a, -1) })
	t.add("Math/max", 1, -1, func(_ *thread, a []Value) (Value, error) { return javaExtremum("Math/max", a, math.Max) })
	t.add("Math/min", 1, -1, func(_ *thread, a []Value) (Value, error) { return javaExtremum("Math/min", a, math.Min) })
	// floor, ceil, round and trunc return integers (PTC-Lisp); the Math/
	// versions keep Java's types (doubles, and a long for Math/round).
	t.add("floor", 1, 1, func(_ *thread, a []Value) (Value, error) { return toInteger("floor", a[0], math.Floor) })
	t.add("ceil", 1, 1, func(_ *thread, a []Value) (Value, error) { return toInteger("ceil", a[0], math.Ceil) })
	t.add("round", 1, 1, func(_ *thread, a []Value) (Value, error) { return toInteger("round", a[0], math.Round) })
	t.add("trunc", 1, 1, func(_ *thread, a []Value) (Value, error) { return toInteger("trunc", a[0], math.Trunc) })
	t.add("int", 1, 1, func(_ *thread, a []Value) (Value, error) { return int32Of(a[0]) })
	// short and byte: a number truncated to Java's short or byte, as
	// Clojure's casts check it (numbers stay longs here, as int's do).
	for _, c := range []struct {
		name string
		bits uint
	}{{"short", 16}, {"byte", 8}} {
		t.add(c.name, 1, 1, func(_ *thread, a []Value) (Value, error) {
			r, err := intOf(a[0])
			if err != nil {
				return nil, err
			}
			n := r.(int64)
			if lim := int64(1) << (c.bits - 1); n < -lim || n >= lim {
				return nil, classError(InvalidArgument, classIllegalArgument, "Value out of range for %s: %s", c.name, printString(a[0]))
			}
			return n, nil
		})
	}
	t.add("long", 1, 1, func(_ *thread, a []Value) (Value, error) { return intOf(a[0]) })
	t.add("Math/floor", 1, 1, floatFn("Math/floor", math.Floor))
	t.add("Math/ceil", 1, 1, floatFn("Math/ceil", math.Ceil))
	t.add("Math/rint", 1, 1, floatFn("Math/rint", math.RoundToEven))
	t.add("Math/round", 1, 1, func(_ *thread, a []Value) (Value, error) {
		return toInteger("Math/round", a[0], javaRound)
	})
	t.add("double", 1, 1, func(_ *thread, a []Value) (Value, error) {
		f, err := floatArg("double", a, 0)
		return f, err
	}, "float")
	t.add("num", 1, 1, func(_ *thread, a []Value) (Value, error) {
		if a[0] == nil {
			return nil, nil // Clojure's (num nil)
		}
		if isBigNumber(a[0]) {
			return a[0], nil
		}
		return numArg("num", a, 0)
	})
	t.add("sqrt", 1, 1, floatFn("sqrt", math.Sqrt), "Math/sqrt")
	t.add("cbrt", 1, 1, floatFn("cbrt", math.Cbrt), "Math/cbrt")
	t.add("exp", 1, 1, floatFn("exp", math.Exp), "Math/exp")
	t.add("log", 1, 1, floatFn("log", math.Log), "Math/log")
	t.add("log10", 1, 1, floatFn("log10", math.Log10), "Math/log10")
	t.add("Math/sin", 1, 1, floatFn("Math/sin", math.Sin))
	t.add("Math/cos", 1, 1, floatFn("Math/cos", math.Cos))
	t.add("Math/tan", 1, 1, floatFn("Math/tan", math.Tan))
	t.add("Math/atan", 1, 1, floatFn("Math/atan", math.Atan))
	t.add("Math/signum", 1, 1, floatFn("Math/signum", func(f float64) float64 {
		switch {
		case f > 0:
			return 1
		case f < 0:
			return -1
		}
		return f
	}))
	t.add("pow", 2, 2, numPow, "Math/pow")
	t.set("Math/PI", math.Pi)
	t.set("Math/E", math.E)
	t.set("Double/POSITIVE_INFINITY", math.Inf(1))
	t.set("Double/NEGATIVE_INFINITY", math.Inf(-1))
	t.set("Double/NaN", math.NaN())
	t.set("Double/MAX_VALUE", math.MaxFloat64)
	t.set("Double/MIN_VALUE", 4.9e-324)
	t.set("Long/MAX_VALUE", int64(math.MaxInt64))
	t.set("Long/MIN_VALUE", int64(math.MinInt64))

	t.add("=", 1, -1, func(th *thread, a []Value) (Value, error) {
		for i := 1; i < len(a); i++ {
			if !th.equal(a[0], a[i]) {
				return false, nil
			}
		}
		return true, nil
	})
	t.add("not=", 1, -1, func(th *thread, a []Value) (Value, error) {
		for i := 1; i < len(a); i++ {
			if !th.equal(a[0], a[i]) {
				return true, nil
			}
		}
		return false, nil
	})
	t.add("==", 1, -1, func(_ *thread, a []Value) (Value, error) {
		for i := range a {
			if _, err := numArg("==", a, i); err != nil {
				return nil, err
			}
		}
		for i := 1; i < len(a); i++ {
			if !equal(a[0], a[i]) && !decimalEquiv(a[0], a[i]) {
				return false, nil
			}
		}
		return true, nil
	})
	t.add("<", 1, -1, comparison("<", func(c int) bool { return c < 0 }))
	t.add(">", 1, -1, comparison(">", func(c int) bool { return c > 0 }))
	t.add("<=", 1, -1, comparison("<=", func(c int) bool { return c <= 0 }))
	t.add(">=", 1, -1, comparison(">=", func(c int) bool { return c >= 0 }))
	t.add("compare", 2, 2, func(th *thread, a []Value) (Value, error) { return compareFn(th, a[0], a[1]) })

	t.add("zero?", 1, 1, numPred(func(f float64) bool { return f == 0 }))
	t.add("pos?", 1, 1, numPred(func(f float64) bool { return f > 0 }))
	t.add("neg?", 1, 1, numPred(func(f float64) bool { return f < 0 }))
	t.add("even?", 1, 1, parity("even?", 0))
	t.add("odd?", 1, 1, parity("odd?", 1))
	t.add("NaN?", 1, 1, func(_ *thread, a []Value) (Value, error) {
		f, err := floatArg("NaN?", a, 0)
		return math.IsNaN(f), err
	})
	t.add("infinite?", 1, 1, func(_ *thread, a []Value) (Value, error) {
		f, err := floatArg("infinite?", a, 0)
		return math.IsInf(f, 0), err
	})
	t.add("number?", 1, 1, typePred(func(v Value) bool { return isNumber(v) }))
	t.add("integer?", 1, 1, typePred(func(v Value) bool {
		switch v.(type) {
		case int64, *big.Int:
			return true
		}
		return false
	}))
	// int? is a fixed-precision integer: not a BigInt.
	t.add("int?", 1, 1, typePred(func(v Value) bool { _, ok := v.(int64); return ok }))
	t.add("float?", 1, 1, typePred(func(v Value) bool { _, ok := v.(float64); return ok }), "double?")
	t.add("nat-int?", 1, 1, typePred(func(v Value) bool { i, ok := v.(int64); return ok && i >= 0 }))
	t.add("pos-int?", 1, 1, typePred(func(v Value) bool { i, ok := v.(int64); return ok && i > 0 }))
	t.add("neg-int?", 1, 1, typePred(func(v Value) bool { i, ok := v.(int64); return ok && i < 0 }))
	t.add("ratio?", 1, 1, typePred(func(Value) bool { return false }))
	t.add("decimal?", 1, 1, typePred(func(v Value) bool { _, ok := v.(*Decimal); return ok }))
	t.add("rational?", 1, 1, typePred(func(v Value) bool {
		switch v.(type) {
		case int64, *big.Int, *Decimal:
			return true
		}
		return false
	}))

	t.add("parse-long", 1, 1, func(_ *thread, a []Value) (Value, error) {
		s, ok := a[0].(string)
		if !ok {
			return nil, nil
		}
		return parseLong(s), nil
	})
	t.add("parse-double", 1, 1, func(_ *thread, a []Value) (Value, error) {
		s, ok := a[0].(string)
		if !ok {
			return nil, nil
		}
		return parseJavaDouble(s), nil
	})
	t.add("parse-boolean", 1, 1, func(_ *thread, a []Value) (Value, error) {
		switch a[0] {
		case "true":
			return true, nil
		case "false":
			return false, nil
		}
		return nil, nil
	})
	strict := func(name string, parse func(string) Value, what string) builtinFn {
		return func(_ *thread, a []Value) (Value, error) {
			s, err := stringArg(name, a, 0)
			if err != nil {
				return nil, err
			}
			if v := parse(s); v != nil {
				return v, nil
			}
			return nil, numberFormatError(s, what)
		}
	}
	// valueOf also takes a value of its own type (Java's Long.valueOf(long),
	// Double.valueOf(double)) and returns it.
	valueOf := func(parse builtinFn, same func(Value) bool) builtinFn {
		return func(th *thread, a []Value) (Value, error) {
			if same(a[0]) {
				return a[0], nil
			}
			return parse(th, a)
		}
	}
	isInt := func(v Value) bool { _, ok := v.(int64); return ok }
	isFloat := func(v Value) bool { _, ok := v.(float64); return ok }
	t.add("Long/parseLong", 1, 1, strict("Long/parseLong", parseLong, "an integer"))
	t.add("Long/valueOf", 1, 1, valueOf(strict("Long/valueOf", parseLong, "an integer"), isInt))
	t.add("Double/parseDouble", 1, 1, strict("Double/parseDouble", parseJavaDouble, "a number"))
	t.add("Double/valueOf", 1, 1, valueOf(strict("Double/valueOf", parseJavaDouble, "a number"), isFloat))

	// The auto-promoting operators: a long where it fits, a BigInt where
	// the long would overflow (bigint.go).
	t.add("+'", 0, -1, promoting("+'", '+', numAdd))
	t.add("-'", 0, -1, promoting("-'", '-', numSub))
	t.add("*'", 0, -1, promoting("*'", '*', numMul))
	t.add("inc'", 1, 1, func(th *thread, a []Value) (Value, error) {
		return promoting("inc'", '+', numAdd)(th, []Value{a[0], int64(1)})
	})
	t.add("dec'", 1, 1, func(th *thread, a []Value) (Value, error) {
		return promoting("dec'", '-', numSub)(th, []Value{a[0], int64(1)})
	})

	bitFold := func(name string, op func(x, y int64) int64) {
		t.add(name, 2, -1, func(_ *thread, a []Value) (Value, error) {
			acc, err := bitArg(name, a, 0)
			if err != nil {
				return nil, err
			}
			for i := 1; i < len(a); i++ {
				y, err := bitArg(name, a, i)
				if err != nil {
					return nil, err
				}
				acc = op(acc, y)
			}
			return acc, nil
		})
	}
	bitFold("bit-and", func(x, y int64) int64 { return x & y })
	bitFold("bit-or", func(x, y int64) int64 { return x | y })
	bitFold("bit-xor", func(x, y int64) int64 { return x ^ y })
	bitFold("bit-and-not", func(x, y int64) int64 { return x &^ y })
	t.add("bit-not", 1, 1, func(_ *thread, a []Value) (Value, error) {
		x, err := bitArg("bit-not", a, 0)
		return ^x, err
	})
	// Shifts and bit indexes use the low 6 bits of n, as Java does:
	// (bit-shift-left 1 64) is 1.
	bitN := func(name string, op func(x int64, n uint) Value) {
		t.add(name, 2, 2, func(_ *thread, a []Value) (Value, error) {
			x, err := bitArg(name, a, 0)
			if err != nil {
				return nil, err
			}
			n, err := bitArg(name, a, 1)
			if err != nil {
				return nil, err
			}
			return op(x, uint(n&63)), nil
		})
	}
	bitN("bit-shift-left", func(x int64, n uint) Value { return x << n })
	bitN("bit-shift-right", func(x int64, n uint) Value { return x >> n })
	bitN("unsigned-bit-shift-right", func(x int64, n uint) Value { return int64(uint64(x) >> n) })
	bitN("bit-test", func(x int64, n uint) Value { return x>>n&1 == 1 })
	bitN("bit-set", func(x int64, n uint) Value { return x | 1<<n })
	bitN("bit-clear", func(x int64, n uint) Value { return x &^ (1 << n) })
	bitN("bit-flip", func(x int64, n uint) Value { return x ^ 1<<n })

	t.add("hash", 1, 1, func(th *thread, a []Value) (Value, error) {
		h := th.hash(a[0])
		return int64(int32(uint32(h) ^ uint32(h>>32))), nil
	})
}

// parseLong is Java's Long.parseLong: an optional sign and decimal digits
// (any Unicode decimal digits, as Character.digit), no spaces, in range.
func parseLong(s string) Value {
	body := s
	neg := false
	if body != "" && (body[0] == '+' || body[0] == '-') {
		neg, body = body[0] == '-', body[1:]
	}
	if body == "" {
		return nil
	}
	// Accumulate negatively, as Java does, so that MinInt64 fits.
	var n int64
	for _, r := range body {
		d := decimalDigit(r)
		if d < 0 || n < (math.MinInt64+int64(d))/10 {
			return nil
		}
		n = n*10 - int64(d)
	}
	if !neg {
		if n == math.MinInt64 {
			return nil
		}
		n = -n
	}
	return n
}

// decimalDigit returns the value of a decimal digit as Java's
// Character.digit sees the chars of a string: a Unicode decimal digit
// (category Nd) of the Basic Multilingual Plane, or -1. Nd characters come
// in runs of ten, from zero to nine.
func decimalDigit(r rune) int {
	if r >= '0' && r <= '9' {
		return int(r - '0')
	}
	if r < utf8.RuneSelf || r > 0xFFFF || !unicode.Is(unicode.Nd, r) {
		return -1
	}
	zero := r
	for unicode.Is(unicode.Nd, zero-1) {
		zero--
	}
	return int(r-zero) % 10
}

// parseJavaDouble is Java's Double.parseDouble, and Clojure's parse-double:
// surrounding control characters and spaces (chars <= ' ') are ignored.
func parseJavaDouble(s string) Value {
	return parseDouble(strings.TrimFunc(s, func(r rune) bool { return r <= ' ' }))
}

// parseDouble is Java's Double.valueOf without its trimming of surrounding
// whitespace: an optional sign, then NaN, Infinity, or a decimal (digits with an
// optional point and exponent: "1", "5.", ".5", "1e3") or hexadecimal
// ("0x1.8p1") number, optionally followed by a type suffix f, F, d or D.
func parseDouble(s string) Value {
	body := s
	neg := false
	if body != "" && (body[0] == '+' || body[0] == '-') {
		neg, body = body[0] == '-', body[1:]
	}
	var f float64
	switch body {
	case "NaN":
		return math.NaN()
	case "Infinity":
		f = math.Inf(1)
	default:
		if n := len(body); n > 0 && strings.IndexByte("fFdD", body[n-1]) >= 0 {
			body = body[:n-1]
		}
		if !javaFloatSyntax(body) {
			return nil
		}
		var err error
		// Out of range is ±Inf or 0, as in Java.
		if f, err = strconv.ParseFloat(body, 64); err != nil && !errors.Is(err, strconv.ErrRange) {
			return nil
		}
	}
	if neg {
		f = -f
	}
	return f
}

// javaFloatSyntax checks an unsigned number of Java's floating-point
// grammar (the part strconv.ParseFloat would read too liberally: it also
// takes "inf", underscores and hex numbers without an exponent).
func javaFloatSyntax(s string) bool {
	digits := func(i int, hex bool) int { // the end of a run of digits from i
		for i < len(s) && (s[i] >= '0' && s[i] <= '9' || hex && (s[i]|0x20 >= 'a' && s[i]|0x20 <= 'f')) {
			i++
		}
		return i
	}
	hex := len(s) > 2 && s[0] == '0' && s[1]|0x20 == 'x'
	i := 0
	if hex {
		i = 2
	}
	j := digits(i, hex)
	n := j - i // digits before the point
	if j < len(s) && s[j] == '.' {
		k := digits(j+1, hex)
		n += k - j - 1
		j = k
	}
	if n == 0 {
		return false
	}
	if j == len(s) {
		return !hex // a hexadecimal number needs its binary exponent
	}
	if c := s[j] | 0x20; hex && c != 'p' || !hex && c != 'e' {
		return false
	}
	j++
	if j < len(s) && (s[j] == '+' || s[j] == '-') {
		j++
	}
	k := digits(j, false)
	return k > j && k == len(s)
}

// quoteShort quotes s for an error message, as %q does, cut after 80 bytes:
// a message does not copy a huge input.
func quoteShort(s string) string {
	const most = 80
	if len(s) <= most {
		return strconv.Quote(s)
	}
	n := most
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return strconv.Quote(s[:n]) + "..."
}

func overflow(fn string) *Error {
	return errorf(ArithmeticError, "integer overflow in %s: the result does not fit 64 bits (+' -' *' inc' dec' give a BigInt instead, e.g. (*' a b); or use floats, e.g. 1.0)", fn)
}

func numAdd(th *thread, args []Value) (Value, error) {
	var isum int64
	var fsum float64
	isFloat := false
	for i, a := range args {
		switch x := a.(type) {
		case int64:
			if isFloat {
				fsum += float64(x)
				continue
			}
			r := isum + x
			if (x > 0 && r < isum) || (x < 0 && r > isum) {
				return nil, overflow("+")
			}
			isum = r
		case float64:
			if !isFloat {
				isFloat = true
				fsum = float64(isum)
			}
			fsum += x
		default:
			if hasBig(args) {
				return th.bigOp("+", '+', args)
			}
			return nil, argError("+", i, "a number", a)
		}
	}
	if isFloat {
		return fsum, nil
	}
	return boxInt(isum), nil
}

func numSub(th *thread, args []Value) (Value, error) {
	if len(args) == 0 {
		return int64(0), nil
	}
	if hasBig(args) {
		return th.bigOp("-", '-', args)
	}
	if len(args) == 1 {
		switch x := args[0].(type) {
		case int64:
			if x == math.MinInt64 {
				return nil, overflow("-")
			}
			return boxInt(-x), nil
		case float64:
			return -x, nil
		}
		return nil, argError("-", 0, "a number", args[0])
	}
	first, err := numArg("-", args, 0)
	if err != nil {
		return nil, err
	}
	// The difference stays an integer (iacc) until a float joins it.
	iacc, isInt := first.(int64)
	facc, _ := toFloat(first)
	for i := 1; i < len(args); i++ {
		switch x := args[i].(type) {
		case int64:
			if !isInt {
				facc -= float64(x)
				continue
			}
			r := iacc - x
			if (x > 0 && r > iacc) || (x < 0 && r < iacc) {
				return nil, overflow("-")
			}
			iacc = r
		case float64:
			if isInt {
				isInt, facc = false, float64(iacc)
			}
			facc -= x
		default:
			return nil, argError("-", i, "a number", args[i])
		}
	}
	if isInt {
		return boxInt(iacc), nil
	}
	return facc, nil
}

func numMul(th *thread, args []Value) (Value, error) {
	var iprod int64 = 1
	var fprod float64 = 1
	isFloat := false
	for i, a := range args {
		switch x := a.(type) {
		case int64:
			if isFloat {
				fprod *= float64(x)
				continue
			}
			r, over := mulInt(iprod, x)
			if over {
				return nil, overflow("*")
			}
			iprod = r
		case float64:
			if !isFloat {
				isFloat = true
				fprod = float64(iprod)
			}
			fprod *= x
		default:
			if hasBig(args) {
				return th.bigOp("*", '*', args)
			}
			return nil, argError("*", i, "a number", a)
		}
	}
	if isFloat {
		return fprod, nil
	}
	return boxInt(iprod), nil
}

// mulInt multiplies and reports overflow.
func mulInt(a, b int64) (int64, bool) {
	if a == 0 || b == 0 {
		return 0, false
	}
	r := a * b
	if r/b != a || (a == -1 && b == math.MinInt64) || (b == -1 && a == math.MinInt64) {
		return 0, true
	}
	return r, false
}

func absInt(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// numDiv always divides as floats: (/ 10 4) is 2.5 and (/ 6 3) is 2.0.
// Dividing integers by the integer 0 is Clojure's ArithmeticException
// "Divide by zero" (a program catches it, as models expect); with a float
// on either side, IEEE's ##Inf, ##-Inf or ##NaN, as in Clojure and the
// reference.
func numDiv(th *thread, args []Value) (Value, error) {
	if decimalArgs(args) {
		return th.decimalDiv(args) // exact, as Clojure's BigDecimal division
	}
	first, err := floatArg("/", args, 0)
	if err != nil {
		return nil, err
	}
	_, exact := args[0].(int64) // only integers so far
	if len(args) == 1 {
		if exact && first == 0 {
			return nil, divideByZero()
		}
		return 1 / first, nil
	}
	acc := first
	for i := 1; i < len(args); i++ {
		d, err := floatArg("/", args, i)
		if err != nil {
			return nil, err
		}
		_, isInt := args[i].(int64)
		exact = exact && isInt
		if exact && d == 0 {
			return nil, divideByZero()
		}
		acc /= d
	}
	return acc, nil
}

// divideByZero is the error of an integer division by zero, with Java's
// message.
func divideByZero() error {
	return classError(ArithmeticError, classArithmetic, "Divide by zero")
}

func (th *thread) addOne(fn string, v Value, d int64) (Value, error) {
	switch x := v.(type) {
	case *big.Int:
		return th.bigOp(fn, '+', []Value{x, d})
	case *Decimal:
		return th.keepDecimal(decimalArith(fn, '+', x, decimalOfInt(d), th.mathContext()))
	case int64:
		r := x + d
		if (d > 0 && r < x) || (d < 0 && r > x) {
			return nil, overflow(fn)
		}
		return boxInt(r), nil
	case float64:
		return x + float64(d), nil
	}
	return nil, argError(fn, 0, "a number", v)
}

// intDivision implements mod (floored, as Clojure), rem and quot (truncated).
func (th *thread) intDivision(fn string, args []Value) (Value, error) {
	if decimalArgs(args) {
		return th.decimalDivision(fn, args)
	}
	if hasBig(args) {
		a, okA := bigOf(args[0])
		b, okB := bigOf(args[1])
		if okA && okB {
			return th.bigDivision(fn, a, b)
		}
	}
	if a, ok := args[0].(int64); ok {
		if b, ok := args[1].(int64); ok {
			if b == 0 {
				return nil, divideByZero()
			}
			if a == math.MinInt64 && b == -1 {
				if fn == "quot" {
					return nil, overflow(fn)
				}
				return int64(0), nil
			}
			switch fn {
			case "quot":
				return boxInt(a / b), nil
			case "rem":
				return boxInt(a % b), nil
			}
			m := a % b
			if m != 0 && (m < 0) != (b < 0) {
				m += b
			}
			return boxInt(m), nil
		}
	}
	a, err := floatArg(fn, args, 0)
	if err != nil {
		return nil, err
	}
	b, err := floatArg(fn, args, 1)
	if err != nil {
		return nil, err
	}
	if b == 0 {
		return nil, errorf(ArithmeticError, "%s: division by zero", fn)
	}
	switch fn {
	case "quot":
		return math.Trunc(a / b), nil
	case "rem":
		return math.Mod(a, b), nil
	}
	m := math.Mod(a, b)
	if m != 0 && (m < 0) != (b < 0) {
		m += b
	}
	return m, nil
}

func numAbs(th *thread, a []Value) (Value, error) {
	switch x := a[0].(type) {
	case *big.Int:
		r := new(big.Int).Abs(x)
		return r, th.chargeBig(r, bigWords(r))
	case *Decimal:
		if x.unscaled.Sign() >= 0 {
			return x, nil
		}
		return th.keepDecimal(decimalNeg(x), nil)
	case int64:
		if x == math.MinInt64 {
			return nil, overflow("abs")
		}
		return absInt(x), nil
	case float64:
		return math.Abs(x), nil
	}
	return nil, argError("abs", 0, "a number", a[0])
}

// extremum returns the greatest (sign 1) or least (sign -1) argument.
// Numbers compare numerically and any NaN makes the result NaN; other
// values use the total order of compare.
// extremum is max (sign 1) and min (sign -1) over the total order. Of equal
// values the last wins, as in Clojure, whose (max x y) is (if (> x y) x y):
// (max 1 1.0) is 1.0 and (min 2 1.0 1) is 1.
func extremum(fn string, args []Value, sign int) (Value, error) {
	best := args[0]
	allNum := isNumber(best)
	for _, x := range args[1:] {
		allNum = allNum && isNumber(x)
		if compare(x, best)*sign >= 0 {
			best = x
		}
	}
	if allNum {
		for _, x := range args {
			if f, ok := x.(float64); ok && math.IsNaN(f) {
				return math.NaN(), nil
			}
		}
	}
	return best, nil
}

// javaExtremum is Java's Math.max/Math.min (f is math.Max or math.Min, which
// treat NaN and signed zeros as Java does): numbers only; integers give an
// integer, and a float among the arguments makes the result a float, as
// Java widens a long to a double.
func javaExtremum(fn string, args []Value, f func(x, y float64) float64) (Value, error) {
	allInt := true
	isMax := f(0, 1) == 1
	for i, x := range args {
		switch x.(type) {
		case int64:
		case float64:
			allInt = false
		default:
			return nil, argError(fn, i, "a number", x)
		}
	}
	if allInt {
		best := args[0].(int64)
		for _, x := range args[1:] {
			if y := x.(int64); (y > best) == isMax {
				best = y
			}
		}
		return best, nil
	}
	best, _ := toFloat(args[0])
	for _, x := range args[1:] {
		y, _ := toFloat(x)
		best = f(best, y)
	}
	return best, nil
}

// toInteger applies f and converts to an integer.
func toInteger(fn string, v Value, f func(float64) float64) (Value, error) {
	switch x := v.(type) {
	case int64:
		return x, nil
	case *big.Int:
		return bigToLong(fn, x)
	case *Decimal:
		// Exactly, as the mode of f says: (long 2.9M) is 2.
		mode := map[string]string{"floor": "FLOOR", "ceil": "CEILING", "round": "HALF_UP"}[fn]
		if mode == "" {
			if fn == "Math/round" {
				return toInteger(fn, x.Float64(), f)
			}
			mode = "DOWN"
		}
		return decimalToInteger(fn, x, mode)
	case float64:
		r := f(x)
		if math.IsNaN(r) || math.IsInf(r, 0) {
			return nil, errorf(ArithmeticError, "%s: cannot convert %s to an integer", fn, formatFloat(x))
		}
		if r >= 9.223372036854775807e18 || r < -9.223372036854775808e18 {
			return nil, errorf(ArithmeticError, "%s: %s does not fit a 64-bit integer", fn, formatFloat(x))
		}
		return int64(r), nil
	}
	return nil, argError(fn, 0, "a number", v)
}

// int32Of is int: intOf, within Java's int as in Clojure, whose (int x)
// fails on a number outside it ("integer overflow" for a long, "Value out
// of range for int" for a double).
func int32Of(v Value) (Value, error) {
	r, err := intOf(v)
	if err != nil {
		return nil, err
	}
	if n := r.(int64); n != int64(int32(n)) {
		if f, ok := v.(float64); ok {
			return nil, classError(InvalidArgument, classIllegalArgument, "Value out of range for int: %s", formatFloat(f))
		}
		return nil, classError(ArithmeticError, classArithmetic, "integer overflow")
	}
	return r, nil
}

// intOf is long, and int within Java's int: a number truncated, or the code point of a
// character, as (int \A) is 65 in Clojure. Characters are one-character
// strings here, so (int "A") is 65 too; a longer string is an error, as in
// Clojure, with the way to parse a number.
func intOf(v Value) (Value, error) {
	s, ok := v.(string)
	if !ok {
		return toInteger("int", v, math.Trunc)
	}
	c, size := utf8.DecodeRuneInString(s)
	switch {
	case size > 0 && size == len(s) && (c != utf8.RuneError || size > 1):
		return int64(c), nil
	case s == "":
		return nil, errorf(TypeError, "int: the empty string is not a character")
	case graphemeLen(s) == len(s) && utf8.ValidString(s):
		return nil, errorf(TypeError, "int: the character %s is %d code points (a letter with combining marks, or an emoji sequence), so it has no single code point", printString(s), utf8.RuneCountInString(s))
	}
	return nil, errorf(TypeError, "int expects a number or a character as argument 1, got %s; to parse a number use parse-long or parse-double", describe(s))
}

func floatFn(name string, f func(float64) float64) builtinFn {
	return func(_ *thread, a []Value) (Value, error) {
		x, err := floatArg(name, a, 0)
		if err != nil {
			return nil, err
		}
		return f(x), nil
	}
}

func numPow(_ *thread, a []Value) (Value, error) {
	x, err := floatArg("pow", a, 0)
	if err != nil {
		return nil, err
	}
	y, err := floatArg("pow", a, 1)
	if err != nil {
		return nil, err
	}
	return math.Pow(x, y), nil
}

// comparison implements < > <= >=: numbers numerically (any NaN is false),
// strings and keywords lexicographically; anything else is a type error.
func comparison(name string, ok func(int) bool) builtinFn {
	return func(_ *thread, a []Value) (Value, error) {
		for i := 0; i+1 < len(a); i++ {
			c, err := orderArgs(name, a, i)
			if err != nil {
				return nil, err
			}
			if c == nanOrder || !ok(c) {
				// Keep checking types of the rest, as a later type error is still an error.
				for j := i + 1; j+1 < len(a); j++ {
					if _, err := orderArgs(name, a, j); err != nil {
						return nil, err
					}
				}
				return false, nil
			}
		}
		if len(a) == 1 {
			if _, err := orderable1(name, a[0]); err != nil {
				return nil, err
			}
		}
		return true, nil
	}
}

const nanOrder = 2

func orderable1(name string, v Value) (bool, error) {
	switch v.(type) {
	case int64, float64, string, Keyword:
		return true, nil
	}
	return false, argError(name, 0, "a number", v)
}

func orderArgs(name string, a []Value, i int) (int, error) {
	x, y := a[i], a[i+1]
	if isNumber(x) && isNumber(y) {
		fx, _ := toFloat(x)
		fy, _ := toFloat(y)
		if math.IsNaN(fx) || math.IsNaN(fy) {
			return nanOrder, nil
		}
		return compare(x, y), nil
	}
	switch xs := x.(type) {
	case string:
		if ys, ok := y.(string); ok {
			return strings.Compare(xs, ys), nil
		}
	case Keyword:
		if ys, ok := y.(Keyword); ok {
			return strings.Compare(string(xs), string(ys)), nil
		}
	case Instant:
		if ys, ok := y.(Instant); ok {
			return compareInstants(xs, ys), nil
		}
	case Date:
		if _, ok := y.(Date); ok {
			return compareTimes(xs, y), nil
		}
	}
	bad, j := x, i
	if isNumber(x) || isString(x) {
		bad, j = y, i+1
	}
	return 0, errorf(TypeError, "%s compares numbers (or two strings), got %s as argument %d", name, describe(bad), j+1)
}

func isString(v Value) bool { _, ok := v.(string); return ok }

// compareFn is Clojure's compare: -1, 0 or 1 for numbers and most values;
// strings and keywords give the difference at the first differing UTF-16
// code unit (or of the lengths), like Java's String.compareTo.
func compareFn(th *thread, a, b Value) (Value, error) {
	if fa, ok := a.(float64); ok && math.IsNaN(fa) {
		return nil, errorf(TypeError, "compare: cannot order ##NaN")
	}
	if fb, ok := b.(float64); ok && math.IsNaN(fb) {
		return nil, errorf(TypeError, "compare: cannot order ##NaN")
	}
	if c, ok := javaTimeCompare(a, b); ok {
		return c, nil // LocalDate's compareTo: (compare d1 d2) may be -5
	}
	switch x := a.(type) {
	case string:
		if y, ok := b.(string); ok {
			return int64(javaCompare(x, y)), nil
		}
	case Keyword:
		if y, ok := b.(Keyword); ok {
			nsx, namex := splitKeyword(x)
			nsy, namey := splitKeyword(y)
			return compareNamed(nsx, namex, nsy, namey), nil
		}
	case Symbol:
		if y, ok := b.(Symbol); ok {
			return compareNamed(x.Ns, x.Name, y.Ns, y.Name), nil
		}
	}
	return int64(th.compare(a, b)), nil
}

func javaCompare(a, b string) int {
	if a == b {
		return 0
	}
	// The UTF-16 code units of both strings, decoded as they are compared
	// (not encoded into two slices first: the strings may be large).
	ua, ub := utf16Units{s: a}, utf16Units{s: b}
	for {
		x, okA := ua.next()
		y, okB := ub.next()
		switch {
		case !okA && !okB:
			return 0
		case !okA:
			return -1 - ub.rest()
		case !okB:
			return 1 + ua.rest()
		case x != y:
			return int(x) - int(y)
		}
	}
}

// utf16Units yields the UTF-16 code units of a string, as Java stores it
// (invalid UTF-8 bytes are U+FFFD, as []rune(s) makes them).
type utf16Units struct {
	s   string
	low uint16 // the pending low surrogate of a pair, or 0
}

func (u *utf16Units) next() (uint16, bool) {
	if u.low != 0 {
		c := u.low
		u.low = 0
		return c, true
	}
	if u.s == "" {
		return 0, false
	}
	r, n := utf8.DecodeRuneInString(u.s)
	u.s = u.s[n:]
	if r >= 0x10000 {
		hi, lo := utf16.EncodeRune(r)
		u.low = uint16(lo)
		return uint16(hi), true
	}
	return uint16(r), true
}

// rest counts the code units not yet read.
func (u *utf16Units) rest() int {
	n := 0
	if u.low != 0 {
		n++
	}
	for _, r := range u.s {
		n += utf16.RuneLen(r)
	}
	return n
}

func numPred(f func(float64) bool) builtinFn {
	return func(_ *thread, a []Value) (Value, error) {
		if d, ok := a[0].(*Decimal); ok { // by its sign: 1E-400M is positive
			return f(float64(d.unscaled.Sign())), nil
		}
		x, ok := toFloat(a[0])
		return ok && f(x), nil
	}
}

func parity(name string, want int64) builtinFn {
	return func(_ *thread, a []Value) (Value, error) {
		switch x := a[0].(type) {
		case int64:
			return (x%2+2)%2 == want, nil
		case *big.Int:
			return int64(x.Bit(0)) == want, nil
		case float64:
			if x == math.Trunc(x) && !math.IsInf(x, 0) {
				return (int64(math.Mod(x, 2))+2)%2 == want, nil
			}
		}
		return nil, argError(name, 0, "an integer", a[0])
	}
}

func typePred(f func(Value) bool) builtinFn {
	return func(_ *thread, a []Value) (Value, error) { return f(a[0]), nil }
}

// bitArg reads an integer operand of a bit operation: floats are an error,
// as in Clojure.
func bitArg(fn string, a []Value, i int) (int64, error) {
	if x, ok := a[i].(int64); ok {
		return x, nil
	}
	return 0, argError(fn, i, "an integer", a[i])
}

// javaRound is Java's Math.round: the nearest integer, halves up, exact.
// floor(f+0.5) is not: 0.49999999999999994+0.5 rounds to 1.0 in floats.
// f-floor(f) is exact below 2^52, and above it every float is an integer.
func javaRound(f float64) float64 {
	fl := math.Floor(f)
	if f-fl >= 0.5 {
		return fl + 1
	}
	return fl
}
