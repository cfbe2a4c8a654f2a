package lisp

import "math"

// The statics of java.lang.Math that builtins_num.go does not register
// with the core numeric functions: each returns what Java returns, a double
// for the functions of doubles, a long for floorDiv, floorMod and the
// exact arithmetic (which throws ArithmeticException on overflow, as
// PTC-Lisp's own arithmetic does).

func registerMath(t *builtinTable) {
	registerUnchecked(t)
	// Java's constants: toRadians multiplies by PI / 180.0 and toDegrees by
	// 180.0 / PI, both rounded to doubles once (Java 9 and later).
	const degreesToRadians = 0.017453292519943295
	const radiansToDegrees = 57.29577951308232
	t.add("Math/toRadians", 1, 1, floatFn("Math/toRadians", func(x float64) float64 { return x * degreesToRadians }))
	t.add("Math/toDegrees", 1, 1, floatFn("Math/toDegrees", func(x float64) float64 { return x * radiansToDegrees }))
	for _, f := range []struct {
		name string
		fn   func(float64) float64
	}{
		{"asin", math.Asin}, {"acos", math.Acos}, {"sinh", math.Sinh}, {"cosh", math.Cosh}, {"tanh", math.Tanh},
		{"log1p", math.Log1p}, {"expm1", math.Expm1}, {"ulp", javaUlp}, {"nextUp", func(x float64) float64 { return math.Nextafter(x, math.Inf(1)) }},
		{"nextDown", func(x float64) float64 { return math.Nextafter(x, math.Inf(-1)) }},
	} {
		t.add("Math/"+f.name, 1, 1, floatFn("Math/"+f.name, f.fn))
	}
	float2 := func(name string, f func(x, y float64) float64) {
		t.add("Math/"+name, 2, 2, func(_ *thread, a []Value) (Value, error) {
			x, err := floatArg("Math/"+name, a, 0)
			if err != nil {
				return nil, err
			}
			y, err := floatArg("Math/"+name, a, 1)
			if err != nil {
				return nil, err
			}
			return f(x, y), nil
		})
	}
	float2("atan2", math.Atan2)
	float2("hypot", math.Hypot)
	float2("copySign", math.Copysign)
	float2("IEEEremainder", math.Remainder)

	long2 := func(name string, f func(x, y int64) (int64, error)) {
		t.add("Math/"+name, 2, 2, func(_ *thread, a []Value) (Value, error) {
			x, err := exactIntArg("Math/"+name, a, 0)
			if err != nil {
				return nil, err
			}
			y, err := exactIntArg("Math/"+name, a, 1)
			if err != nil {
				return nil, err
			}
			return f(x, y)
		})
	}
	long2("floorDiv", func(x, y int64) (int64, error) {
		if y == 0 {
			return 0, javaDivideByZero()
		}
		if x == math.MinInt64 && y == -1 {
			return x, nil // Java's result: the quotient wraps
		}
		q := x / y
		if (x%y != 0) && ((x < 0) != (y < 0)) {
			q--
		}
		return q, nil
	})
	long2("floorMod", func(x, y int64) (int64, error) {
		if y == 0 {
			return 0, javaDivideByZero()
		}
		if y == -1 {
			return 0, nil
		}
		m := x % y
		if m != 0 && ((m < 0) != (y < 0)) {
			m += y
		}
		return m, nil
	})
	long2("addExact", func(x, y int64) (int64, error) {
		r := x + y
		if (x > 0 && y > 0 && r < 0) || (x < 0 && y < 0 && r >= 0) {
			return 0, longOverflow()
		}
		return r, nil
	})
	long2("subtractExact", func(x, y int64) (int64, error) {
		r := x - y
		if (x >= 0 && y < 0 && r < 0) || (x < 0 && y > 0 && r >= 0) {
			return 0, longOverflow()
		}
		return r, nil
	})
	long2("multiplyExact", func(x, y int64) (int64, error) {
		r, over := mulInt(x, y)
		if over {
			return 0, longOverflow()
		}
		return r, nil
	})
	long1 := func(name string, f func(x int64) (int64, error)) {
		t.add("Math/"+name, 1, 1, func(_ *thread, a []Value) (Value, error) {
			x, err := exactIntArg("Math/"+name, a, 0)
			if err != nil {
				return nil, err
			}
			return f(x)
		})
	}
	long1("incrementExact", func(x int64) (int64, error) {
		if x == math.MaxInt64 {
			return 0, longOverflow()
		}
		return x + 1, nil
	})
	long1("decrementExact", func(x int64) (int64, error) {
		if x == math.MinInt64 {
			return 0, longOverflow()
		}
		return x - 1, nil
	})
	long1("negateExact", func(x int64) (int64, error) {
		if x == math.MinInt64 {
			return 0, longOverflow()
		}
		return -x, nil
	})
	long1("absExact", func(x int64) (int64, error) {
		if x == math.MinInt64 {
			return 0, longOverflow()
		}
		return absInt(x), nil
	})
	long1("toIntExact", func(x int64) (int64, error) {
		if x < math.MinInt32 || x > math.MaxInt32 {
			return 0, classError(ArithmeticError, classArithmetic, "integer overflow")
		}
		return x, nil
	})
}

// exactIntArg reads an integer argument of the long-only Math statics:
// Java has no double overload, so a float is a type error, not converted.
func exactIntArg(fn string, a []Value, i int) (int64, error) {
	if n, ok := a[i].(int64); ok {
		return n, nil
	}
	return 0, argError(fn, i, "an integer (Java's method takes longs)", a[i])
}

// longOverflow is the ArithmeticException of Java's exact arithmetic.
func longOverflow() *Error {
	return classError(ArithmeticError, classArithmetic, "long overflow")
}

// javaDivideByZero is the ArithmeticException of Java's integer division
// (Clojure's own says "Divide by zero").
func javaDivideByZero() *Error {
	return classError(ArithmeticError, classArithmetic, "/ by zero")
}

// javaUlp is Math.ulp(double): the distance from |x| to the next larger
// double; NaN for NaN, +Inf for infinities, Double.MAX_VALUE's ulp at the top.
func javaUlp(x float64) float64 {
	switch {
	case math.IsNaN(x):
		return x
	case math.IsInf(x, 0):
		return math.Inf(1)
	}
	x = math.Abs(x)
	if x == math.MaxFloat64 {
		return x - math.Nextafter(x, 0)
	}
	return math.Nextafter(x, math.Inf(1)) - x
}

// registerClojureMath names the java.lang.Math statics as Clojure 1.11's
// clojure.math does (math/ and clojure.math/, and their require aliases):
// the same functions, kebab-cased, with Java's results.
func registerClojureMath(t *builtinTable) {
	for name, java := range map[string]string{
		"E": "E", "PI": "PI", "sin": "sin", "cos": "cos", "tan": "tan", "asin": "asin", "acos": "acos",
		"atan": "atan", "atan2": "atan2", "sinh": "sinh", "cosh": "cosh", "tanh": "tanh",
		"to-radians": "toRadians", "to-degrees": "toDegrees", "IEEE-remainder": "IEEEremainder",
		"ceil": "ceil", "floor": "floor", "rint": "rint", "round": "round", "pow": "pow", "signum": "signum",
		"ulp": "ulp", "hypot": "hypot", "expm1": "expm1", "log1p": "log1p", "exp": "exp", "log": "log",
		"log10": "log10", "sqrt": "sqrt", "cbrt": "cbrt", "copy-sign": "copySign", "next-up": "nextUp",
		"next-down": "nextDown", "add-exact": "addExact", "subtract-exact": "subtractExact",
		"multiply-exact": "multiplyExact", "increment-exact": "incrementExact",
		"decrement-exact": "decrementExact", "negate-exact": "negateExact", "floor-div": "floorDiv",
		"floor-mod": "floorMod",
	} {
		t.alias("Math/"+java, "clojure.math/"+name)
	}
}
