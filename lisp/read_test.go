package lisp_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/ptc-go/ptc/lisp"
)

// TestReadValue: printed forms that read back to the same print, and the
// ones that do not read.
func TestReadValue(t *testing.T) {
	opts := lisp.ReadOptions{Placeholder: "<Firewalled>"}
	for _, src := range []string{
		`nil`, `true`, `false`, `-12`, `1.5E-7`, `-0.0`, `##NaN`, `##Inf`, `##-Inf`, `"a\"b\\c\n\u0001é"`, `:k/x`,
		`"\t\r\b\f"`, `[1 [2 #{3 :a}] {:a 1, "b" [nil]}]`, `#fn[[x y]]`, `#fn[inc]`, `#fn[[x] [x "]" y]]`, `#'total`,
		`#"a\"b[c]"`, `#inst "2024-01-02T03:04:05.678-00:00"`, `#date "2024-02-29"`, `#object[host]`,
		`{:_k <Firewalled>}`, `<Firewalled>`, `[]`, `{}`, `#{}`, `(1 (2 [3]) ())`, `()`, `foo`, `ns/foo`, `[a +]`,
		`java.lang.Long`, `{java.util.Map #{sym}}`, `#queue [1 (2) #queue []]`, `#queue []`, `[+ * - / < <= > >= $x]`,
		`#long-array[1 2]`, `[#object-array["a" nil #int-array[]] #string-builder["x\"y"] #char-array["a"]]`,
	} {
		v, err := lisp.Read(src, opts)
		if err != nil {
			t.Errorf("%s: %v", src, err)
			continue
		}
		want := strings.ReplaceAll(src, "<Firewalled>", `"<Firewalled>"`)
		if got := lisp.Print(v, lisp.PrintOptions{}); got != want {
			t.Errorf("%s reads back as %s", src, got)
		}
	}
	for _, bad := range []string{``, ` `, `[1 2`, `{:a}`, `"abc`, `"a\`, `"\q"`, `"\u12"`, `"\uzzzz"`, `:`,
		`#seq[range]`, `#transducer[map]`, `1 2`, `[...]`, `#fn[x`, `#'`, `#"abc`, `#inst "2024-13"`, `#uuid "x"`, `#date "2024-13-01"`,
		`#date 1`, `)`, `<Firewalled>`, `9223372036854775808`, `#queue [1`, `#queue(1)`, `#long-array[1.5]`, `#foo-array[1]`,
		`#string-builder[1]`, `#string-builder["a" "b"]`, `#int-array[3000000000]`} {
		_, err := lisp.Read(bad, lisp.ReadOptions{})
		if err == nil {
			t.Errorf("%q reads", bad)
		} else if !errors.Is(err, lisp.ParseError) {
			t.Errorf("%q: %v is not a parse_error", bad, err)
		}
	}
	// A queue reads back as a queue.
	if v, err := lisp.Read(`#queue [1 2]`, lisp.ReadOptions{}); err != nil || lisp.TypeName(v) != "queue" {
		t.Errorf("#queue [1 2] reads as %s %v", lisp.TypeName(v), err)
	}
	// The placeholder reads only where the option names it.
	if v, err := lisp.Read(`[#redacted#]`, lisp.ReadOptions{Placeholder: "#redacted#"}); err != nil ||
		lisp.Print(v, lisp.PrintOptions{}) != `["#redacted#"]` {
		t.Errorf("placeholder #redacted#: %v %v", lisp.Print(v, lisp.PrintOptions{}), err)
	}
}

// TestReadValueBounds: nesting past MaxDepth and text past MaxBytes are
// refused with their kinds; the default depth is 10,000 levels, and
// Print (Exact) prints that deep a value whole.
func TestReadValueBounds(t *testing.T) {
	nested := func(n int) string { return strings.Repeat("[", n) + "1" + strings.Repeat("]", n) }
	tests := []struct {
		src  string
		opts lisp.ReadOptions
		kind lisp.Kind // "" reads
	}{
		{nested(10), lisp.ReadOptions{MaxDepth: 10}, ""},
		{nested(11), lisp.ReadOptions{MaxDepth: 10}, lisp.DepthExceeded},
		{nested(10), lisp.ReadOptions{MaxDepth: 9}, lisp.DepthExceeded},
		{"{:a " + nested(10) + "}", lisp.ReadOptions{MaxDepth: 10}, lisp.DepthExceeded},
		{nested(docReadDepth), lisp.ReadOptions{}, ""},
		{nested(docReadDepth + 1), lisp.ReadOptions{}, lisp.DepthExceeded},
		{`"12345678"`, lisp.ReadOptions{MaxBytes: 10}, ""},
		{`"123456789"`, lisp.ReadOptions{MaxBytes: 10}, lisp.MemoryExceeded},
	}
	for _, tt := range tests {
		_, err := lisp.Read(tt.src, tt.opts)
		switch {
		case tt.kind == "" && err != nil:
			t.Errorf("%.20s... %+v: %v", tt.src, tt.opts, err)
		case tt.kind != "" && !errors.Is(err, tt.kind):
			t.Errorf("%.20s... %+v: %v, want %s", tt.src, tt.opts, err, tt.kind)
		}
	}
	deep := lisp.Value(int64(1))
	for range docReadDepth {
		deep = lisp.NewVector([]lisp.Value{deep})
	}
	if text := lisp.Print(deep, lisp.PrintOptions{Exact: true}); text != nested(docReadDepth) {
		t.Fatalf("the deepest readable value prints cut")
	}
}

// TestReadValueRoundTrip: every kind of value, in generated nestings,
// prints as a form that reads back to a value with the same print.
func TestReadValueRoundTrip(t *testing.T) {
	fns := mustRun(t, `[(fn [a [b c] & more] a) inc (fn named [x] x) #"a\\\"+\\d" (do (def v 1) #'v)]`).(*lisp.Vector).Items()
	g := valueGen{rnd: rand.New(rand.NewPCG(24, 1)), extra: fns}
	for range 2000 {
		v := g.value(0)
		text := lisp.Print(v, lisp.PrintOptions{Exact: true})
		back, err := lisp.Read(text, lisp.ReadOptions{})
		if err != nil {
			t.Fatalf("%s does not read: %v", text, err)
		}
		if again := lisp.Print(back, lisp.PrintOptions{Exact: true}); again != text {
			t.Fatalf("%s reads back as %s", text, again)
		}
	}
}

// valueGen generates values of every kind the printer writes readably.
type valueGen struct {
	rnd   *rand.Rand
	extra []lisp.Value // functions, regexes, vars made by a program
}

func (g *valueGen) str(alphabet string) string {
	b := make([]byte, g.rnd.IntN(8))
	for i := range b {
		b[i] = alphabet[g.rnd.IntN(len(alphabet))]
	}
	return string(b)
}

const anyBytes = "ab \"\\\n\t\r\b\f\x00\x01\x7f\xc3\xa9\xff,{}[]#:<>"

func (g *valueGen) value(depth int) lisp.Value {
	n := 15
	if depth >= 4 {
		n = 12 // scalars only
	}
	switch g.rnd.IntN(n) {
	case 0:
		return nil
	case 1:
		return g.rnd.IntN(2) == 0
	case 2:
		return []int64{0, -1, math.MaxInt64, math.MinInt64, g.rnd.Int64()}[g.rnd.IntN(5)]
	case 3:
		return []float64{0, math.Copysign(0, -1), 1.5, 1e300, 1e-300, math.Inf(1), math.Inf(-1), math.NaN(),
			g.rnd.NormFloat64() * 1e6}[g.rnd.IntN(9)]
	case 4:
		return g.str(anyBytes)
	case 5:
		return lisp.Keyword("k" + g.str("abz09-_?!*/."))
	case 6:
		return lisp.Instant{T: time.UnixMilli(g.rnd.Int64N(1 << 42)).UTC()}
	case 7:
		return lisp.Date{Y: 1900 + g.rnd.IntN(300), M: 1 + g.rnd.IntN(12), D: 1 + g.rnd.IntN(28)}
	case 8:
		return g.extra[g.rnd.IntN(len(g.extra))]
	case 9:
		return struct{}{} // a host object
	case 10:
		return lisp.Symbol{Ns: []string{"", "ns"}[g.rnd.IntN(2)], Name: "s" + g.str("abz09-_?!*.")}
	case 11:
		return lisp.Class{Name: []string{"java.lang.Long", "clojure.lang.PersistentList$EmptyList", "java.util.Map"}[g.rnd.IntN(3)]}
	}
	items := make([]lisp.Value, g.rnd.IntN(5))
	for i := range items {
		items[i] = g.value(depth + 1)
	}
	switch n := g.rnd.IntN(4); n {
	case 0:
		return lisp.NewVector(items)
	case 1:
		return lisp.NewSet(items...)
	case 2:
		return lisp.NewList(items)
	}
	b := lisp.NewMapBuilder(nil)
	for _, k := range items {
		b.Set(k, g.value(depth+1))
	}
	return b.Map()
}

// FuzzReadValue: Read never panics, and what it reads prints as a
// form it reads back to the same print.
func FuzzReadValue(f *testing.F) {
	for _, s := range []string{`{:a [1 2.5 "x\n"], "b" #{nil true}}`, `#fn[[x] [x y]]`, `#inst "2024-01-02T03:04:05.678-00:00"`,
		`#"a\"b"`, `#'v`, `<Firewalled>`, `#object[host]`, `#date "2024-01-31"`, `"\u0007"`, `[##NaN ##-Inf -0.0 1.0E300]`} {
		f.Add(s)
	}
	opts := lisp.ReadOptions{Placeholder: "<Firewalled>", MaxDepth: 200}
	f.Fuzz(func(t *testing.T, src string) {
		v, err := lisp.Read(src, opts)
		if err != nil {
			var le *lisp.Error
			if !errors.As(err, &le) {
				t.Fatalf("%q: %T %v is not a *lisp.Error", src, err, err)
			}
			return
		}
		s1 := lisp.Print(v, lisp.PrintOptions{})
		v2, err := lisp.Read(s1, opts)
		if err != nil {
			t.Fatalf("%q reads as %s, which does not read: %v", src, s1, err)
		}
		if s2 := lisp.Print(v2, lisp.PrintOptions{}); s2 != s1 {
			t.Fatalf("%q: %s reads back as %s", src, s1, s2)
		}
	})
}

// The bounds the docs state, pinned here: ReadOptions.MaxDepth's default,
// Print's size bound, and Compile's bound on program text.
const (
	docReadDepth   = 10_000
	docPrintBytes  = 64 << 20
	docSourceBytes = 256 << 10
)

// A plain tool receives a *lisp.Map: Get finds a keyword key by its name
// and a string key by its keyword, as (:city m) does, preferring the exact
// key when both spellings are present.
func TestMapGetFlexibleKeys(t *testing.T) {
	m, err := lisp.Read(`{:city "Paris" "zip" "75001" :both 1 "both" 2}`, lisp.ReadOptions{Format: lisp.ReadEDN})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		key  lisp.Value
		want lisp.Value
		ok   bool
	}{
		{"city", "Paris", true},
		{lisp.Keyword("city"), "Paris", true},
		{"zip", "75001", true},
		{lisp.Keyword("zip"), "75001", true},
		{lisp.Keyword("both"), int64(1), true},
		{"both", int64(2), true},
		{"nope", nil, false},
		{int64(1), nil, false},
	}
	for _, tc := range tests {
		got, ok := m.(*lisp.Map).Get(tc.key)
		if ok != tc.ok || !lisp.Equal(got, tc.want) {
			t.Errorf("Get(%#v) = %v, %v; want %v, %v", tc.key, got, ok, tc.want, tc.ok)
		}
	}
	// Entry also says which spelling the map holds.
	entries := []struct {
		key, wantKey lisp.Value
		ok           bool
	}{
		{lisp.Keyword("zip"), "zip", true},
		{"city", lisp.Keyword("city"), true},
		{"both", "both", true},
		{lisp.Keyword("nope"), nil, false},
		{int64(1), nil, false},
	}
	for _, tc := range entries {
		k, _, ok := m.(*lisp.Map).Entry(tc.key)
		if ok != tc.ok || k != tc.wantKey {
			t.Errorf("Entry(%#v) key %#v, %v; want %#v, %v", tc.key, k, ok, tc.wantKey, tc.ok)
		}
	}
}
