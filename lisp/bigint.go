package lisp

import (
	"math"
	"math/big"
	"strings"
)

// Integers past 64 bits: Clojure's BigInt, a *big.Int here (never changed
// once made). They come from N literals (1N) and integer literals past 64
// bits, from the promoting operators (+' -' *' inc' dec'), which give a
// BigInt where a long would overflow, and from bigint, biginteger and the
// BigInteger methods. Arithmetic with a BigInt gives a BigInt, as in
// Clojure (contagion), unless a float takes part; the plain operators still
// fail on a long's overflow ("integer overflow"), as Clojure's do. A BigInt
// is = to the long of the same value and hashes as it (one map key), prints
// as 12N (str: 12), converts to JSON as the number and to Go as *big.Int.
// Each result is charged to the memory limit by its size, and each
// operation costs steps by the words it touches, so a factorial of a
// million ends at a limit rather than filling the host's memory.

// bigOf returns v as a big integer: a long or a BigInt.
func bigOf(v Value) (*big.Int, bool) {
	switch x := v.(type) {
	case int64:
		return big.NewInt(x), true
	case *big.Int:
		return x, true
	}
	return nil, false
}

// bigToFloat is the double nearest b (an infinity past its range).
func bigToFloat(b *big.Int) float64 {
	if b.IsInt64() {
		return float64(b.Int64())
	}
	f, _ := new(big.Float).SetInt(b).Float64()
	return f
}

// bigWords is b's size in machine words, at least 1.
func bigWords(b *big.Int) int { return max(len(b.Bits()), 1) }

// maxBigBits bounds a BigInt (about 315,000 decimal digits): its text,
// which printing makes in time quadratic in its size (8M bits take a
// second), then stays within a run's time, and so does any host's
// printing of a value a program returns.
const maxBigBits = 1 << 20

// tooBig is the error of a BigInt past maxBigBits.
func tooBig(fn string) *Error {
	return classError(ArithmeticError, classArithmetic, "%s: the BigInt would have more than %d bits (about 315,000 digits), the limit here", fn, maxBigBits)
}

// chargeBig charges a new BigInt to the memory limit (by its bytes) and
// work steps to the step limit.
func (th *thread) chargeBig(r *big.Int, work int) error {
	if th == nil {
		return nil
	}
	if err := th.ticks(1 + work/8); err != nil {
		return err
	}
	return th.chargeString(32 + 8*bigWords(r))
}

// bigOp applies + - * to the numbers args as Clojure does when a BigInt
// takes part (or a promoting operator overflowed): a BigInt result, or a
// double when a float takes part.
func (th *thread) bigOp(fn string, op byte, args []Value) (Value, error) {
	var acc *big.Int
	decimal := false
	for i, a := range args {
		switch a.(type) {
		case int64, *big.Int:
		case *Decimal:
			decimal = true
		case float64:
			return th.bigOpFloat(fn, op, args)
		default:
			return nil, argError(fn, i, "a number", a)
		}
	}
	if decimal {
		return th.decimalOp(fn, op, args)
	}
	if len(args) == 0 {
		return int64(map[byte]int64{'+': 0, '*': 1}[op]), nil
	}
	first, _ := bigOf(args[0])
	acc = new(big.Int).Set(first)
	if len(args) == 1 && op == '-' {
		acc.Neg(acc)
		return acc, th.chargeBig(acc, bigWords(acc))
	}
	for _, a := range args[1:] {
		b, _ := bigOf(a)
		work := bigWords(acc) + bigWords(b)
		switch op {
		case '+':
			acc.Add(acc, b)
		case '-':
			acc.Sub(acc, b)
		default:
			if acc.BitLen()+b.BitLen() > maxBigBits {
				return nil, tooBig(fn)
			}
			work = bigWords(acc) * bigWords(b)
			if err := th.ticks(work / 8); err != nil {
				return nil, err
			}
			acc.Mul(acc, b)
		}
		if acc.BitLen() > maxBigBits {
			return nil, tooBig(fn)
		}
		if err := th.chargeBig(acc, work); err != nil {
			return nil, err
		}
	}
	return acc, nil
}

// bigOpFloat is + - * with a float among BigInts: doubles throughout.
func (th *thread) bigOpFloat(fn string, op byte, args []Value) (Value, error) {
	acc, _ := toFloat(args[0])
	if len(args) == 1 && op == '-' {
		return -acc, nil
	}
	for _, a := range args[1:] {
		x, _ := toFloat(a)
		switch op {
		case '+':
			acc += x
		case '-':
			acc -= x
		default:
			acc *= x
		}
	}
	return acc, nil
}

// hasBig reports whether a BigInt or a BigDecimal is among args.
func hasBig(args []Value) bool {
	for _, a := range args {
		switch a.(type) {
		case *big.Int, *Decimal:
			return true
		}
	}
	return false
}

// promoting makes +' -' *' from + - *: the long result when it fits, a
// BigInt when it would overflow.
func promoting(fn string, op byte, plain builtinFn) builtinFn {
	return func(th *thread, args []Value) (Value, error) {
		v, err := plain(th, args)
		if e, ok := err.(*Error); ok && e.Kind == ArithmeticError {
			return th.bigOp(fn, op, args)
		}
		return v, err
	}
}

// bigDivision is quot, rem and mod of integers one of which is a BigInt.
func (th *thread) bigDivision(fn string, a, b *big.Int) (Value, error) {
	if b.Sign() == 0 {
		return nil, divideByZero()
	}
	r := new(big.Int)
	switch fn {
	case "quot":
		r.Quo(a, b)
	case "rem":
		r.Rem(a, b)
	default:
		r.Rem(a, b)
		if r.Sign() != 0 && (r.Sign() < 0) != (b.Sign() < 0) {
			r.Add(r, b)
		}
	}
	return r, th.chargeBig(r, bigWords(a)*bigWords(b))
}

// bigToLong is a BigInt as a long, or Clojure's error for one out of range.
func bigToLong(fn string, b *big.Int) (Value, error) {
	if !b.IsInt64() {
		return nil, classError(InvalidArgument, classIllegalArgument, "Value out of range for long: %s", b.String())
	}
	return b.Int64(), nil
}

// compareBig orders a BigInt against a long, a BigInt or a float.
func compareBig(a *big.Int, b Value) int {
	switch y := b.(type) {
	case int64:
		return a.Cmp(big.NewInt(y))
	case *big.Int:
		return a.Cmp(y)
	case float64:
		if math.IsNaN(y) {
			return -1
		}
		if math.IsInf(y, 0) {
			return -int(math.Copysign(1, y))
		}
		return new(big.Float).SetInt(a).Cmp(big.NewFloat(y))
	}
	return 0
}

// hashBig hashes a BigInt: as the long when it fits, so that 1N and 1 are
// one key.
func hashBig(b *big.Int, mix func(h, x uint64) uint64, offset uint64) uint64 {
	if b.IsInt64() {
		return mix(offset^0x11, uint64(b.Int64()))
	}
	h := offset ^ 0x12
	for _, w := range b.Bits() {
		h = mix(h, uint64(w))
	}
	if b.Sign() < 0 {
		h = mix(h, 1)
	}
	return h
}

// bigIntArgs reads the integer arguments of a BigInteger method when a
// BigInt is among them (ok false otherwise: the method's long and
// BigDecimal forms run).
func bigIntArgs(a []Value) ([]*big.Int, bool) {
	if !hasBig(a) {
		return nil, false
	}
	out := make([]*big.Int, len(a))
	for i, x := range a {
		b, ok := bigOf(x)
		if !ok {
			return nil, false
		}
		out[i] = b
	}
	return out, true
}

// bigMethod computes the BigInteger method name on integers.
func (th *thread) bigMethod(name string, a []Value, x []*big.Int) (Value, error) {
	r := new(big.Int)
	switch name {
	case ".add":
		return th.bigOp(name, '+', a)
	case ".subtract":
		return th.bigOp(name, '-', a)
	case ".multiply":
		return th.bigOp(name, '*', a)
	case ".divide", ".remainder":
		if x[1].Sign() == 0 {
			return nil, classError(ArithmeticError, classArithmetic, "BigInteger divide by zero")
		}
		if name == ".divide" {
			r.Quo(x[0], x[1])
		} else {
			r.Rem(x[0], x[1])
		}
	case ".mod":
		if x[1].Sign() <= 0 {
			return nil, classError(ArithmeticError, classArithmetic, "BigInteger: modulus not positive")
		}
		r.Mod(x[0], x[1])
	case ".gcd":
		r.GCD(nil, nil, new(big.Int).Abs(x[0]), new(big.Int).Abs(x[1]))
	case ".modPow":
		if x[2].Sign() <= 0 {
			return nil, classError(ArithmeticError, classArithmetic, "BigInteger: modulus not positive")
		}
		if x[1].Sign() < 0 {
			return nil, classError(ArithmeticError, classArithmetic, "BigInteger: negative exponent")
		}
		if err := th.ticks(bigWords(x[2]) * bigWords(x[2]) * x[1].BitLen() / 8); err != nil {
			return nil, err
		}
		r.Exp(x[0], x[1], x[2])
	case ".modInverse":
		if x[1].Sign() <= 0 {
			return nil, classError(ArithmeticError, classArithmetic, "BigInteger: modulus not positive")
		}
		if r.ModInverse(new(big.Int).Mod(x[0], x[1]), x[1]) == nil {
			return nil, classError(ArithmeticError, classArithmetic, "BigInteger not invertible.")
		}
	case ".negate":
		r.Neg(x[0])
	case ".abs":
		r.Abs(x[0])
	case ".signum":
		return int64(x[0].Sign()), nil
	case ".max", ".min":
		c := x[0].Cmp(x[1])
		if (c >= 0) == (name == ".max") {
			return a[0], nil
		}
		return a[1], nil
	case ".isProbablePrime":
		if err := th.ticks(bigWords(x[0]) * bigWords(x[0]) * 20); err != nil {
			return nil, err
		}
		return x[0].Sign() > 0 && x[0].ProbablyPrime(20), nil
	case ".pow":
		if !x[1].IsInt64() || x[1].Int64() < 0 || x[1].Int64() > 999_999_999 {
			return nil, classError(ArithmeticError, classArithmetic, "Invalid operation: exponent %s", x[1].String())
		}
		return th.bigPow(x[0], x[1].Int64())
	default:
		return nil, errorf(InternalError, "%s: not a BigInteger method", name)
	}
	return r, th.chargeBig(r, bigWords(x[0])*bigWords(x[len(x)-1]))
}

// bigPow is x to the power n, its size charged before it is computed.
func (th *thread) bigPow(x *big.Int, n int64) (Value, error) {
	bits := int64(x.BitLen()) * n
	if x.BitLen() <= 1 { // 0, 1 and -1 stay small
		bits = 1
	}
	if bits > maxBigBits+int64(x.BitLen()) {
		return nil, tooBig(".pow")
	}
	if err := th.chargeString(int(bits/8 + 32)); err != nil {
		return nil, err
	}
	words := int(bits/64) + 1
	if err := th.ticks(words * words / 64); err != nil {
		return nil, err
	}
	return new(big.Int).Exp(x, big.NewInt(n), nil), nil
}

// bigAndCount reads the arguments of a method of an integer and a count
// (.testBit, .shiftLeft, (.toString n radix)).
func bigAndCount(name string, a []Value) (*big.Int, int64, error) {
	x, ok := bigOf(a[0])
	if !ok {
		return nil, 0, argError(name, 0, "an integer (a BigInteger)", a[0])
	}
	n, err := intArg(name, a, 1)
	return x, n, err
}

// registerBigInteger extends the BigInteger methods of builtins_bignum.go
// (which compute on longs and doubles) to BigInts and to the longs whose
// result would overflow, and adds those that only integers have.
func registerBigInteger(t *builtinTable) {
	for _, name := range []string{".add", ".subtract", ".multiply", ".divide", ".remainder", ".mod", ".gcd",
		".negate", ".abs", ".signum", ".max", ".min", ".isProbablePrime", ".pow"} {
		t.wrap(name, func(old *Builtin) *Builtin {
			b := *old
			fn := old.fn
			b.fn = func(th *thread, a []Value) (Value, error) {
				check := a
				if name == ".pow" || name == ".isProbablePrime" {
					check = a[:1] // the exponent and the certainty are ints
				}
				if x, ok := bigIntArgs(check); ok {
					if name == ".pow" || name == ".isProbablePrime" {
						n, err := intArg(name, a, 1)
						if err != nil {
							return nil, err
						}
						x = append(x, big.NewInt(n))
					}
					return th.bigMethod(name, a, x)
				}
				v, err := fn(th, a)
				if e, ok := err.(*Error); ok && e.Kind == ArithmeticError && strings.HasPrefix(e.Message, "integer overflow") {
					// Longs whose result needs a BigInt.
					x := make([]*big.Int, len(a))
					for i := range a {
						var ok bool
						if x[i], ok = bigOf(a[i]); !ok {
							return v, err
						}
					}
					return th.bigMethod(name, a, x)
				}
				return v, err
			}
			return &b
		})
	}
	integers := func(name string, n int) {
		t.add(name, n, n, func(th *thread, a []Value) (Value, error) {
			x := make([]*big.Int, n)
			for i := range a {
				b, ok := bigOf(a[i])
				if !ok {
					return nil, argError(name, i, "an integer (a BigInteger)", a[i])
				}
				x[i] = b
			}
			return th.bigMethod(name, a, x)
		})
	}
	integers(".modPow", 3)
	integers(".modInverse", 2)
	t.add(".bitLength", 1, 1, func(_ *thread, a []Value) (Value, error) {
		x, ok := bigOf(a[0])
		if !ok {
			return nil, argError(".bitLength", 0, "an integer (a BigInteger)", a[0])
		}
		if x.Sign() < 0 { // Java's: the bits of the two's complement, without the sign
			return int64(new(big.Int).Not(x).BitLen()), nil
		}
		return int64(x.BitLen()), nil
	})
	t.add(".testBit", 2, 2, func(_ *thread, a []Value) (Value, error) {
		x, n, err := bigAndCount(".testBit", a)
		if err != nil {
			return nil, err
		}
		if n < 0 {
			return nil, classError(ArithmeticError, classArithmetic, "Negative bit address")
		}
		if n > 1<<20 {
			return x.Sign() < 0, nil
		}
		// Two's complement, as Java: a negative number's high bits are 1.
		if x.Sign() < 0 {
			return new(big.Int).Not(x).Bit(int(n)) == 0, nil
		}
		return x.Bit(int(n)) == 1, nil
	})
	shift := func(name string, left bool) {
		t.add(name, 2, 2, func(th *thread, a []Value) (Value, error) {
			x, n, err := bigAndCount(name, a)
			if err != nil {
				return nil, err
			}
			if n < 0 {
				left, n = !left, -n
			}
			if left && (n > maxBigBits || int64(x.BitLen())+n > maxBigBits) {
				return nil, tooBig(name)
			}
			r := new(big.Int)
			if left {
				if err := th.chargeString(int(n/8 + 32)); err != nil {
					return nil, err
				}
				r.Lsh(x, uint(n))
			} else {
				r.Rsh(x, uint(n))
			}
			return r, th.chargeBig(r, bigWords(r))
		})
	}
	shift(".shiftLeft", true)
	shift(".shiftRight", false)
	// BigInteger.toString(radix), beside every object's .toString.
	t.wrap(".toString", func(old *Builtin) *Builtin {
		b := *old
		fn := old.fn
		b.MaxArgs = 2
		b.fn = func(th *thread, a []Value) (Value, error) {
			if len(a) == 1 {
				if x, ok := a[0].(*big.Int); ok { // Java's toString: no N
					s := x.String()
					return s, th.chargeString(len(s))
				}
				return fn(th, a)
			}
			x, radix, err := bigAndCount(".toString", a)
			if err != nil {
				return nil, err
			}
			if radix < 2 || radix > 36 {
				radix = 10 // Java's fallback
			}
			s := x.Text(int(radix))
			return s, th.chargeString(len(s))
		}
		return &b
	})
	// Narrowing a BigInt keeps its low bits, as Java's.
	for _, name := range []string{".longValue", ".intValue", ".shortValue", ".byteValue"} {
		t.wrap(name, func(old *Builtin) *Builtin {
			b := *old
			fn := old.fn
			b.fn = func(th *thread, a []Value) (Value, error) {
				x, ok := a[0].(*big.Int)
				if d, isDec := a[0].(*Decimal); isDec {
					// A BigDecimal's integer part, then its low bits.
					r, err := d.setScale(name, 0, "DOWN")
					if err != nil {
						return nil, err
					}
					x, ok = r.unscaled, true
				}
				if ok {
					low := new(big.Int).And(x, new(big.Int).SetUint64(math.MaxUint64)).Uint64()
					return fn(th, []Value{int64(low)})
				}
				return fn(th, a)
			}
			return &b
		})
	}
}

// toBigInt is bigint, biginteger, BigInteger/valueOf and (BigInteger. s
// radix?): a BigInt of a number (a float truncated) or of digits.
func toBigInt(name string) builtinFn {
	return func(th *thread, a []Value) (Value, error) {
		switch x := a[0].(type) {
		case int64:
			if len(a) == 1 {
				return big.NewInt(x), th.chargeString(40)
			}
		case *big.Int:
			if len(a) == 1 {
				return x, nil
			}
		case float64:
			if len(a) == 1 {
				if math.IsNaN(x) || math.IsInf(x, 0) {
					return nil, classError(InvalidArgument, classNumberFormat, "Infinite or NaN")
				}
				r, _ := big.NewFloat(math.Trunc(x)).Int(nil) // truncated, as (bigint 2.7) is 2N
				return r, th.chargeBig(r, 1)
			}
		case string:
			radix := int64(10)
			if len(a) == 2 {
				var err error
				if radix, err = intArg(name, a, 1); err != nil {
					return nil, err
				}
				if radix < 2 || radix > 36 {
					return nil, classError(InvalidArgument, classNumberFormat, "Radix out of range")
				}
			}
			digits := strings.TrimPrefix(x, "+")
			if len(digits) > maxBigBits/3 {
				return nil, tooBig(name)
			}
			if err := th.ticks(len(digits) * len(digits) / 4096); err != nil {
				return nil, err
			}
			r, ok := new(big.Int).SetString(digits, int(radix))
			if !ok || digits == "" || strings.ContainsAny(digits, "_") || strings.HasPrefix(digits, "0x") {
				return nil, classError(InvalidArgument, classNumberFormat, "For input string: %q", x)
			}
			return r, th.chargeBig(r, bigWords(r))
		}
		return nil, argError(name, 0, "a number or an integer string", a[0])
	}
}

// bigRange is range with a BigInt argument (within a long's range, as a
// range longer than memory could never be walked): the longs' range, whose
// elements are BigInts when the start or the step is one, as Clojure's.
func bigRange(th *thread, a []Value) (Value, error) {
	args := make([]Value, len(a))
	for i, x := range a {
		args[i] = x
		if b, ok := x.(*big.Int); ok {
			if !b.IsInt64() {
				return nil, argError("range", i, "a number within a long's range", x)
			}
			args[i] = b.Int64()
		}
	}
	r, err := seqRange(th, args)
	if err != nil {
		return nil, err
	}
	_, bigStart := a[0].(*big.Int)
	if len(a) == 1 {
		bigStart = false // (range 3N) starts at the long 0
	}
	bigStep := false
	if len(a) == 3 {
		_, bigStep = a[2].(*big.Int)
	}
	v, ok := r.(*Vector)
	if !ok || !(bigStart || bigStep) {
		return r, nil
	}
	if err := th.chargeString(40 * v.Len()); err != nil {
		return nil, err
	}
	out := make([]Value, v.Len())
	for i, x := range v.items {
		if n, ok := x.(int64); ok {
			out[i] = big.NewInt(n)
		} else {
			out[i] = x
		}
	}
	return NewVector(out), nil
}
