package lisp

import "math"

// Clojure's unchecked arithmetic, as hash functions and checksums write it
// ((unchecked-add (unchecked-multiply 31 h) c)): integers wrap around
// as Java's longs (or, for the -int forms, ints) do instead of failing
// with an overflow; floats compute as + - * do. The casts keep the low
// bits of an integer and convert a float as Java's narrowing does
// (truncated toward zero, saturated at the type's bounds, NaN as 0).

func registerUnchecked(t *builtinTable) {
	// The long forms: wrap on integers, plain arithmetic on floats.
	long2 := func(name string, wrap func(x, y int64) int64, float func(x, y float64) float64) {
		t.add(name, 2, 2, func(_ *thread, a []Value) (Value, error) {
			x, err := numArg(name, a, 0)
			if err != nil {
				return nil, err
			}
			y, err := numArg(name, a, 1)
			if err != nil {
				return nil, err
			}
			xi, xInt := x.(int64)
			yi, yInt := y.(int64)
			if xInt && yInt {
				return wrap(xi, yi), nil
			}
			xf, _ := floatArg(name, a, 0)
			yf, _ := floatArg(name, a, 1)
			return float(xf, yf), nil
		})
	}
	long2("unchecked-add", func(x, y int64) int64 { return x + y }, func(x, y float64) float64 { return x + y })
	long2("unchecked-subtract", func(x, y int64) int64 { return x - y }, func(x, y float64) float64 { return x - y })
	long2("unchecked-multiply", func(x, y int64) int64 { return x * y }, func(x, y float64) float64 { return x * y })
	long1 := func(name string, wrap func(int64) int64, float func(float64) float64) {
		t.add(name, 1, 1, func(_ *thread, a []Value) (Value, error) {
			x, err := numArg(name, a, 0)
			if err != nil {
				return nil, err
			}
			if n, ok := x.(int64); ok {
				return wrap(n), nil
			}
			return float(x.(float64)), nil
		})
	}
	long1("unchecked-inc", func(x int64) int64 { return x + 1 }, func(x float64) float64 { return x + 1 })
	long1("unchecked-dec", func(x int64) int64 { return x - 1 }, func(x float64) float64 { return x - 1 })
	long1("unchecked-negate", func(x int64) int64 { return -x }, func(x float64) float64 { return -x })

	// The int forms take ints (Clojure casts a long argument that fits)
	// and wrap at 32 bits.
	int2 := func(name string, f func(x, y int32) (int32, error)) {
		t.add(name, 2, 2, func(_ *thread, a []Value) (Value, error) {
			x, err := intOperand(name, a, 0)
			if err != nil {
				return nil, err
			}
			y, err := intOperand(name, a, 1)
			if err != nil {
				return nil, err
			}
			r, err := f(x, y)
			return int64(r), err
		})
	}
	int2("unchecked-add-int", func(x, y int32) (int32, error) { return x + y, nil })
	int2("unchecked-subtract-int", func(x, y int32) (int32, error) { return x - y, nil })
	int2("unchecked-multiply-int", func(x, y int32) (int32, error) { return x * y, nil })
	int2("unchecked-divide-int", func(x, y int32) (int32, error) {
		if y == 0 {
			return 0, divideByZero()
		}
		if x == math.MinInt32 && y == -1 {
			return x, nil
		}
		return x / y, nil
	})
	int2("unchecked-remainder-int", func(x, y int32) (int32, error) {
		if y == 0 {
			return 0, divideByZero()
		}
		if y == -1 {
			return 0, nil
		}
		return x % y, nil
	})
	int1 := func(name string, f func(int32) int32) {
		t.add(name, 1, 1, func(_ *thread, a []Value) (Value, error) {
			x, err := intOperand(name, a, 0)
			if err != nil {
				return nil, err
			}
			return int64(f(x)), nil
		})
	}
	int1("unchecked-inc-int", func(x int32) int32 { return x + 1 })
	int1("unchecked-dec-int", func(x int32) int32 { return x - 1 })
	int1("unchecked-negate-int", func(x int32) int32 { return -x })

	// The casts: Java's narrowing, as .longValue, .intValue … do.
	cast := func(name string, bits int) {
		t.add(name, 1, 1, func(_ *thread, a []Value) (Value, error) { return javaNarrow(name, a, bits) })
	}
	cast("unchecked-long", 64)
	cast("unchecked-int", 32)
	cast("unchecked-short", 16)
	cast("unchecked-byte", 8)
	for _, name := range []string{"unchecked-double", "unchecked-float"} {
		t.add(name, 1, 1, func(_ *thread, a []Value) (Value, error) {
			f, err := floatArg(name, a, 0)
			return f, err
		})
	}
}

// intOperand reads an argument of the -int forms: an integer within Java's
// int (a long outside it fails as Clojure's int cast does).
func intOperand(fn string, a []Value, i int) (int32, error) {
	n, err := intArg(fn, a, i)
	if err != nil {
		return 0, err
	}
	if n != int64(int32(n)) {
		return 0, classError(InvalidArgument, classIllegalArgument, "Value out of range for int: %d", n)
	}
	return int32(n), nil
}
