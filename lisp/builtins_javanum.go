package lisp

import (
	"math"
	"math/bits"
	"strings"
	"unicode"
)

// registerJavaNumbers adds the members of the boxed number classes that
// models call on numbers: the narrowing conversions (.intValue 3.9), and
// the statics of Integer, Long, Double and Boolean beside those in
// builtins_java.go.
func registerJavaNumbers(t *builtinTable) {
	// The narrowing conversions of java.lang.Number, with Java's rules: a
	// double is truncated, saturates at the type's bounds and is 0 when
	// NaN; a long keeps its low bits.
	narrow := func(name string, bits int) {
		t.add(name, 1, 1, func(_ *thread, a []Value) (Value, error) { return javaNarrow(name, a, bits) })
	}
	narrow(".intValue", 32)
	narrow(".longValue", 64)
	narrow(".shortValue", 16)
	narrow(".byteValue", 8)
	t.add(".doubleValue", 1, 1, func(_ *thread, a []Value) (Value, error) {
		return floatArg(".doubleValue", a, 0)
	})

	t.add("Long/signum", 1, 1, func(_ *thread, a []Value) (Value, error) {
		n, err := intArg("Long/signum", a, 0)
		if err != nil {
			return nil, err
		}
		return int64(cmpInt64(n, 0)), nil
	}, "Integer/signum")
	t.add("Long/bitCount", 1, 1, func(_ *thread, a []Value) (Value, error) {
		n, err := intArg("Long/bitCount", a, 0)
		return int64(bits.OnesCount64(uint64(n))), err
	})
	t.add("Integer/bitCount", 1, 1, func(_ *thread, a []Value) (Value, error) {
		n, err := intArg("Integer/bitCount", a, 0)
		if err != nil {
			return nil, err
		}
		if _, err := intValue(n); err != nil {
			return nil, err
		}
		return int64(bits.OnesCount32(uint32(n))), nil
	})
	// The bit counts and single bits of Long and Integer, as Java's (an
	// Integer's on the low 32 bits, which must fit an int).
	bitFn := func(name string, width int, f func(x uint64, width int) int64) {
		t.add(name, 1, 1, func(_ *thread, a []Value) (Value, error) {
			n, err := intArg(name, a, 0)
			if err != nil {
				return nil, err
			}
			if width == 32 {
				if _, err := intValue(n); err != nil {
					return nil, err
				}
				return f(uint64(uint32(n)), 32), nil
			}
			return f(uint64(n), 64), nil
		})
	}
	for _, c := range []struct {
		class string
		width int
	}{{"Long", 64}, {"Integer", 32}} {
		bitFn(c.class+"/numberOfTrailingZeros", c.width, func(x uint64, w int) int64 {
			if x == 0 {
				return int64(w)
			}
			return int64(bits.TrailingZeros64(x))
		})
		bitFn(c.class+"/numberOfLeadingZeros", c.width, func(x uint64, w int) int64 { return int64(bits.LeadingZeros64(x) - (64 - w)) })
		bitFn(c.class+"/highestOneBit", c.width, func(x uint64, w int) int64 {
			if x == 0 {
				return 0
			}
			h := uint64(1) << (63 - bits.LeadingZeros64(x))
			if w == 32 {
				return int64(int32(uint32(h)))
			}
			return int64(h)
		})
		bitFn(c.class+"/lowestOneBit", c.width, func(x uint64, w int) int64 {
			l := x & -x
			if w == 32 {
				return int64(int32(uint32(l)))
			}
			return int64(l)
		})
		bitFn(c.class+"/reverse", c.width, func(x uint64, w int) int64 {
			if w == 32 {
				return int64(int32(bits.Reverse32(uint32(x))))
			}
			return int64(bits.Reverse64(x))
		})
		bitFn(c.class+"/reverseBytes", c.width, func(x uint64, w int) int64 {
			if w == 32 {
				return int64(int32(bits.ReverseBytes32(uint32(x))))
			}
			return int64(bits.ReverseBytes64(x))
		})
	}
	t.add("Double/compare", 2, 2, func(_ *thread, a []Value) (Value, error) {
		x, err := floatArg("Double/compare", a, 0)
		if err != nil {
			return nil, err
		}
		y, err := floatArg("Double/compare", a, 1)
		if err != nil {
			return nil, err
		}
		return int64(javaDoubleCompare(x, y)), nil
	})
	// Integer/sum and friends are + of two (BinaryOperators for reduce).
	t.add("Long/sum", 2, 2, func(th *thread, a []Value) (Value, error) {
		return th.call(t.names["+"], a)
	}, "Integer/sum", "Double/sum")

	// Short/parseShort and Byte/parseByte: Integer/parseInt's rules, then
	// Java's range check of the smaller type.
	for _, f := range []struct {
		name string
		bits int
	}{{"Short/parseShort", 16}, {"Byte/parseByte", 8}} {
		t.add(f.name, 1, 2, func(th *thread, a []Value) (Value, error) {
			v, err := t.names["Integer/parseInt"].(*Builtin).fn(th, a) // at call time: the table is whole
			if err != nil {
				return nil, err
			}
			if n := v.(int64); n != wrapBits(n, f.bits) {
				radix := int64(10)
				if len(a) == 2 {
					radix, _ = a[1].(int64)
				}
				return nil, classError(InvalidArgument, classNumberFormat, "Value out of range. Value:\"%s\" Radix:%d", a[0], radix)
			}
			return v, nil
		})
	}
	// Float/parseFloat reads a double: floats are doubles here (an array of
	// floats holds doubles too, docs/deviations.md row 82).
	t.alias("Double/parseDouble", "Float/parseFloat")
	t.alias("Double/valueOf", "Float/valueOf")
	t.add(".getClass", 1, 1, func(th *thread, a []Value) (Value, error) {
		if a[0] == nil {
			return nil, classError(TypeError, classNullPointer, ".getClass of nil (a NullPointerException in Java)")
		}
		return t.names["class"].(*Builtin).fn(th, a)
	})
	t.add(".intern", 1, 1, func(_ *thread, a []Value) (Value, error) {
		return stringArg(".intern", a, 0)
	})

	t.set("Boolean/TRUE", true)
	t.set("Boolean/FALSE", false)
	t.add("System/lineSeparator", 0, 0, func(*thread, []Value) (Value, error) { return "\n", nil })
	// String.CASE_INSENSITIVE_ORDER, the comparator sort and sort-by take.
	t.add("String/CASE_INSENSITIVE_ORDER", 2, 2, func(th *thread, a []Value) (Value, error) {
		return t.names[".compareToIgnoreCase"].(*Builtin).fn(th, a) // at call time: the table is whole
	})
}

// foldJavaCase is the case folding of String.compareToIgnoreCase: each
// character upper-cased, then lower-cased.
func foldJavaCase(s string) string {
	return strings.Map(func(r rune) rune { return unicode.ToLower(unicode.ToUpper(r)) }, s)
}

// wrapBits keeps the low n bits of x, sign-extended: Java's narrowing of a
// long to an int, short or byte.
// javaNarrow is Java's narrowing of a[0] to an integer of bits bits (as
// .intValue and unchecked-int do): a long keeps its low bits, a double is
// saturated, through int for the types smaller than it.
func javaNarrow(name string, a []Value, bits int) (Value, error) {
	switch x := a[0].(type) {
	case int64:
		return wrapBits(x, bits), nil
	case float64:
		if bits == 64 {
			return saturate(x, math.MinInt64, math.MaxInt64), nil
		}
		// (short) and (byte) of a double go through int, as Java's do.
		return wrapBits(saturate(x, math.MinInt32, math.MaxInt32), bits), nil
	}
	return nil, argError(name, 0, "a number", a[0])
}

func wrapBits(x int64, n int) int64 {
	shift := 64 - n
	return x << shift >> shift
}

// saturate is Java's conversion of a double to an integer type: truncated
// toward zero, clamped to [lo, hi], 0 for NaN.
func saturate(f float64, lo, hi int64) int64 {
	switch {
	case math.IsNaN(f):
		return 0
	case f <= float64(lo):
		return lo
	case f >= float64(hi):
		return hi
	}
	return int64(f)
}
