package lisp

import (
	"context"
	"encoding/json"
	"math"
	"math/big"
	"testing"
	"time"
)

// A BigDecimal's text, as Java's toString and toPlainString write it.
func TestDecimalText(t *testing.T) {
	for _, tc := range []struct{ in, str, plain string }{
		{"1.50", "1.50", "1.50"},
		{"-0.00", "0.00", "0.00"},
		{"1e3", "1E+3", "1000"},
		{"1000", "1000", "1000"},
		{"0.0000001", "1E-7", "0.0000001"},
		{"0.000001", "0.000001", "0.000001"},
		{"123.456e-10", "1.23456E-8", "0.0000000123456"},
		{"-12.5E+2", "-1.25E+3", "-1250"},
		{"5.", "5", "5"},
		{"+.5", "0.5", "0.5"},
	} {
		d, ok := parseDecimal(tc.in)
		if !ok {
			t.Errorf("parseDecimal(%q) failed", tc.in)
			continue
		}
		plain, _ := d.plain()
		if d.String() != tc.str || plain != tc.plain {
			t.Errorf("%q: String %q, plain %q; want %q, %q", tc.in, d.String(), plain, tc.str, tc.plain)
		}
	}
	for _, bad := range []string{"", "1.2.3", "1e", "e3", "1e+", "--1", "1_000", "0x10", "NaN", "1e99999999999"} {
		if _, ok := parseDecimal(bad); ok {
			t.Errorf("parseDecimal(%q) accepted it", bad)
		}
	}
}

// Equal BigDecimals hash alike, whatever their scales (a map or set holds
// one key for 0.3M and 0.30M), and stay apart from longs and doubles.
func TestDecimalEqualityAndHash(t *testing.T) {
	dec := func(s string) Value { d, _ := parseDecimal(s); return d }
	same := [][2]Value{{dec("0.3"), dec("0.30")}, {dec("1E+3"), dec("1000.00")}, {dec("0"), dec("0.000")}, {dec("-2.50"), dec("-25e-1")}}
	for _, p := range same {
		if !Equal(p[0], p[1]) || hash(p[0]) != hash(p[1]) || Compare(p[0], p[1]) != 0 {
			t.Errorf("%v and %v: Equal %v, hashes %x %x", p[0], p[1], Equal(p[0], p[1]), hash(p[0]), hash(p[1]))
		}
	}
	for _, p := range [][2]Value{{dec("1"), int64(1)}, {dec("0.5"), 0.5}, {dec("0.3"), dec("0.31")}} {
		if Equal(p[0], p[1]) || Equal(p[1], p[0]) {
			t.Errorf("%v = %v", p[0], p[1])
		}
	}
	if Compare(dec("1"), int64(2)) >= 0 || Compare(0.5, dec("0.75")) >= 0 {
		t.Error("BigDecimals do not order among numbers")
	}
}

// A BigDecimal reaches Go as a json.Number of its digits, and JSON as
// the number.
func TestDecimalToGoAndJSON(t *testing.T) {
	d, _ := parseDecimal("12.50")
	g, err := ToGo(NewVector([]Value{d}))
	if err != nil {
		t.Fatal(err)
	}
	if n, ok := g.([]any)[0].(json.Number); !ok || n != "12.50" {
		t.Errorf("ToGo: %#v", g)
	}
	data, err := ToJSON(NewMap(Keyword("total"), d), nil)
	if err != nil || string(data) != `{"total":12.50}` {
		t.Errorf("ToJSON: %s, %v", data, err)
	}
}

// The methods of a nil *Decimal do not panic; the zero Decimal is 0, also
// in a program.
func TestDecimalNilAndZero(t *testing.T) {
	var d *Decimal
	if d.String() != "<nil>" || d.Float64() != 0 || (&Decimal{}).String() != "0" || (&Decimal{}).Float64() != 0 {
		t.Errorf("nil Decimal: %q %v; zero: %q", d.String(), d.Float64(), (&Decimal{}).String())
	}
	v, err := FromGo(map[string]any{"x": &Decimal{}, "y": d})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), `[(+ ctx/x 1.5M) ctx/y]`, Options{Input: v})
	if err != nil || Print(res.Value, PrintOptions{}) != "[1.5M nil]" {
		t.Errorf("%v, %v", res.Value, err)
	}
}

// TestStripFactor: stripFactor finds how often a factor divides, up to a
// limit, for runs of every length and at the limit's edges.
func TestStripFactor(t *testing.T) {
	for _, c := range []struct {
		x        *big.Int
		f, limit int64
		wantK    int64
	}{
		{pow10Big(0), 10, 100, 0}, {pow10Big(1), 10, 100, 1}, {pow10Big(7), 10, 100, 7}, {pow10Big(1000), 10, 100_000, 1000},
		{pow10Big(1000), 10, 999, 999}, {pow10Big(1000), 10, 1, 1}, {new(big.Int).Mul(big.NewInt(-37), pow10Big(33)), 10, 100, 33},
		{new(big.Int).Exp(big.NewInt(5), big.NewInt(517), nil), 5, math.MaxInt64, 517}, {big.NewInt(12), 5, 10, 0},
		{new(big.Int), 10, 5, 0},
	} {
		u, k := stripFactor(c.x, c.f, c.limit)
		if k != c.wantK {
			t.Errorf("stripFactor(%v, %d, %d): k = %d, want %d", c.x, c.f, c.limit, k, c.wantK)
			continue
		}
		back := new(big.Int).Mul(u, new(big.Int).Exp(big.NewInt(c.f), big.NewInt(k), nil))
		if back.Cmp(c.x) != 0 {
			t.Errorf("stripFactor(%v, %d, %d) = %v, %d: u * f^k is not x", c.x, c.f, c.limit, u, k)
		}
	}
}

// TestDecimalZerosWithinTheDeadline: quotients whose trailing zeros or
// factors of five run to 100,000 digits, which were stripped one digit at
// a time (ten seconds, past any deadline, with nothing to interrupt it),
// finish well within a run's limit and give Java's values.
func TestDecimalZerosWithinTheDeadline(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{`(with-precision 100000 (reduce / 1M (repeat 5 1)))`, "1M"},
		{`(.scale (.stripTrailingZeros (.setScale 1M 99990)))`, "0"},
		{`(.scale (/ 1M (.pow 5M 90000)))`, "90000"},
		{`(.scale (/ (.setScale 1M 90000) (.pow 5M 10000)))`, "90000"},
	} {
		limit := 5 * time.Second
		start := time.Now()
		res, err := Run(context.Background(), c.src, Options{Limits: Limits{Timeout: limit}})
		if err != nil {
			t.Errorf("%s: %v", c.src, err)
			continue
		}
		if elapsed := time.Since(start); elapsed > limit {
			t.Errorf("%s took %v, past its %v limit", c.src, elapsed, limit)
		}
		if got := Print(res.Value, PrintOptions{}); got != c.want {
			t.Errorf("%s = %s, want %s", c.src, got, c.want)
		}
	}
}
