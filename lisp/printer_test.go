package lisp_test

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/lisp/conformance"
)

func TestPrintString(t *testing.T) {
	re, err := lisp.Run(t.Context(), `[(re-pattern "a+") #'x (fn [a b] a) inc (range) (fn named [x] x)]`,
		lisp.Options{Namespace: lisp.NewNamespace(map[string]lisp.Value{"x": int64(1)})})
	if err == nil || !strings.Contains(err.Error(), "infinite") {
		// A vector holding an infinite sequence is fine; only a bare one as the result is refused.
		_ = re
	}
	fns := mustRun(t, `[(re-pattern "a+") (fn [a [b c] & more] a) inc (fn named [x] x) (iterate inc 0)]`).(*lisp.Vector)
	tests := []struct {
		v    lisp.Value
		want string
	}{
		{nil, "nil"},
		{true, "true"},
		{int64(-42), "-42"},
		{1.0, "1.0"},
		{100.0, "100.0"},
		{1e7, "1.0E7"},
		{1.5e-5, "1.5E-5"},
		{0.001, "0.001"},
		{1.0 / 3, "0.3333333333333333"},
		{math.Copysign(0, -1), "-0.0"},
		{math.Inf(1), "##Inf"},
		{math.Inf(-1), "##-Inf"},
		{math.NaN(), "##NaN"},
		{"a\"b\\c\nd\te\x01", `"a\"b\\c\nd\te\u0001"`},
		{"λ→é", `"λ→é"`},
		{lisp.Keyword("k"), ":k"},
		{lisp.Keyword("ns/k"), ":ns/k"},
		{lisp.VectorOf(int64(1), "a", lisp.VectorOf()), `[1 "a" []]`},
		{lisp.NewMap(lisp.Keyword("b"), int64(2), "a", int64(1), lisp.Keyword("a"), int64(0), int64(5), nil),
			`{5 nil, :a 0, :b 2, "a" 1}`},
		{lisp.NewSet("z", lisp.Keyword("z"), int64(3), 2.5), `#{2.5 3 :z "z"}`},
		{fns.At(0), `#"a+"`},
		{fns.At(1), "#fn[[a _ & more]]"},
		{fns.At(2), "#fn[inc]"},
		{fns.At(3), "#fn[named]"},
		{fns.At(4), "#seq[iterate]"},
		{&lisp.Var{Name: "x"}, "#'x"},
	}
	for _, tc := range tests {
		if got := lisp.Print(tc.v, lisp.PrintOptions{}); got != tc.want {
			t.Errorf("PrintString(%#v) = %s, want %s", tc.v, got, tc.want)
		}
	}
}

func TestFormatValueBounds(t *testing.T) {
	v := mustRun(t, `{:rows (vec (range 100)) :name "abcdefghij" :pi 3.14159265 :nested [[[[[1]]]]]}`)
	tests := []struct {
		opts lisp.PrintOptions
		want string
	}{
		{lisp.PrintOptions{MaxItems: 3}, `{:name "abcdefghij", :nested [[[[[1]]]]], :pi 3.14159265, ... (1 more)}`},
		{lisp.PrintOptions{MaxItems: 5, FloatPrecision: 2, MaxDepth: 3},
			`{:name "abcdefghij", :nested [[[...]]], :pi 3.14, :rows [0 1 2 3 4 ... (95 more)]}`},
		{lisp.PrintOptions{MaxChars: 20}, `{:name "abcdefghij",...`},
	}
	for _, tc := range tests {
		if got := lisp.Print(v, tc.opts); got != tc.want {
			t.Errorf("FormatValue(%+v)\n got  %s\n want %s", tc.opts, got, tc.want)
		}
	}
	// A huge collection with a small budget stops early instead of printing everything.
	big := mustRun(t, `(vec (range 100000))`)
	if got := lisp.Print(big, lisp.PrintOptions{MaxChars: 50}); len(got) > 60 {
		t.Errorf("bounded print of a big vector has %d bytes", len(got))
	}
	// Deep data prints without unbounded recursion.
	deep := mustRun(t, `(reduce (fn [acc _] [acc]) [] (range 5000))`)
	if got := lisp.Print(deep, lisp.PrintOptions{}); !strings.Contains(got, "...") {
		t.Errorf("deep data printed without a depth cut: %d bytes", len(got))
	}
}

func TestDisplayString(t *testing.T) {
	for v, want := range map[lisp.Value]string{
		nil:               "",
		"s":               "s",
		lisp.Keyword("k"): ":k",
		int64(3):          "3",
		2.0:               "2.0",
	} {
		if got := lisp.Print(v, lisp.PrintOptions{Display: true}); got != want {
			t.Errorf("DisplayString(%v) = %q, want %q", v, got, want)
		}
	}
}

// TestPrintReadRoundTrip checks that printing and reading back gives an
// equal value, over random data.
func TestPrintReadRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 2000; i++ {
		v := randomValue(r, 4)
		s := lisp.Print(v, lisp.PrintOptions{})
		back, err := lisp.Read(s, lisp.ReadOptions{Format: lisp.ReadEDN})
		if err != nil {
			t.Fatalf("cannot read back %s: %v", s, err)
		}
		if !conformance.Equivalent(v, back) || lisp.Print(back, lisp.PrintOptions{}) != s {
			t.Fatalf("round trip changed %s into %s", s, lisp.Print(back, lisp.PrintOptions{}))
		}
	}
}

func randomValue(r *rand.Rand, depth int) lisp.Value {
	n := 9
	if depth == 0 {
		n = 6
	}
	switch r.IntN(n) {
	case 0:
		return nil
	case 1:
		return r.IntN(2) == 0
	case 2:
		return r.Int64() - r.Int64()
	case 3:
		switch r.IntN(4) {
		case 0:
			return math.Float64frombits(r.Uint64() &^ (0x7ff << 52)) // small or subnormal
		case 1:
			return float64(r.IntN(1000)) / 8
		case 2:
			return math.Inf(1 - 2*r.IntN(2))
		}
		return r.NormFloat64() * math.Pow(10, float64(r.IntN(40)-20))
	case 4:
		runes := []rune{'a', 'Z', '"', '\\', '\n', '\t', 'λ', '😀', '\x00', ' ', '#', '{'}
		var sb strings.Builder
		for j := r.IntN(6); j > 0; j-- {
			sb.WriteRune(runes[r.IntN(len(runes))])
		}
		return sb.String()
	case 5:
		names := []string{"a", "b-c", "x?", "ns/name", "k1"}
		return lisp.Keyword(names[r.IntN(len(names))])
	case 6:
		items := make([]lisp.Value, r.IntN(5))
		for j := range items {
			items[j] = randomValue(r, depth-1)
		}
		return lisp.NewVector(items)
	case 7:
		kvs := make([]lisp.Value, 2*r.IntN(5))
		for j := range kvs {
			kvs[j] = randomValue(r, depth-1)
		}
		return lisp.NewMap(kvs...)
	}
	items := make([]lisp.Value, r.IntN(5))
	for j := range items {
		items[j] = randomValue(r, depth-1)
	}
	return lisp.NewSet(items...)
}

func mustRun(t *testing.T, src string) lisp.Value {
	t.Helper()
	res, err := lisp.Run(t.Context(), src, lisp.Options{})
	if err != nil {
		t.Fatalf("%s: %v", src, err)
	}
	return res.Value
}

// TestFloatPrecisionRounding checks that FloatPrecision rounds the binary
// value, with exact ties away from zero (the reference's Float.round).
func TestFloatPrecisionRounding(t *testing.T) {
	for _, tc := range []struct {
		f    float64
		n    int
		want string
	}{
		{0.125, 2, "0.13"}, {-0.125, 2, "-0.13"}, {0.375, 2, "0.38"}, {2.5, 1, "2.5"},
		{1.005, 2, "1.0"},                                      // 1.00499999999999989...
		{0.25, 1, "0.3"}, {-0.25, 1, "-0.3"}, {0.35, 1, "0.3"}, // 0.34999999999999997...
		{9.995, 2, "9.99"}, {0.0625, 3, "0.063"}, {1e300, 2, "1.0E300"}, {1125899906842624.25, 1, "1.1258999068426242E15"},
		{3.14159, 2, "3.14"}, {math.Copysign(0, -1), 2, "-0.0"}, {0.004, 2, "0.0"}, {-0.004, 2, "-0.0"},
	} {
		if got := lisp.Print(tc.f, lisp.PrintOptions{FloatPrecision: tc.n}); got != tc.want {
			t.Errorf("FormatValue(%v, FloatPrecision %d) = %s, want %s", tc.f, tc.n, got, tc.want)
		}
	}
}
