package lisp_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/ptc-go/ptc/lisp"
)

// TestValuesPrint checks that every value type a Go user meets prints its
// printed form (Print) through fmt's %v, %+v, %s and Sprint, and its
// Go type in parentheses (as %T shows it) followed by the printed form in
// parentheses through %#v.
func TestValuesPrint(t *testing.T) {
	v := mustRun(t, `[(re-pattern "a+") (fn [a [b c] & more] a) inc (fn named [x] x) (iterate inc 0)
	                  (map inc) (java.util.Date. 1700000000000) (LocalDate/parse "2024-01-02")]`).(*lisp.Vector)
	tests := []struct {
		name   string
		v      any
		want   string // %v, %+v, %s, Sprint, Println
		wantGo string // %#v
	}{
		{"keyword", lisp.Keyword("k"), ":k", "lisp.Keyword(:k)"},
		{"vector", lisp.VectorOf(int64(1), "a", 2.0, lisp.Keyword("b"), nil),
			`[1 "a" 2.0 :b nil]`, `(*lisp.Vector)([1 "a" 2.0 :b nil])`},
		{"empty vector", lisp.VectorOf(), "[]", "(*lisp.Vector)([])"},
		{"map", lisp.NewMap(lisp.Keyword("a"), int64(1), "b", lisp.VectorOf(lisp.Keyword("c"))),
			`{:a 1, "b" [:c]}`, `(*lisp.Map)({:a 1, "b" [:c]})`},
		{"set", lisp.NewSet(int64(2), "x", lisp.Keyword("y")), `#{2 :y "x"}`, `(*lisp.Set)(#{2 :y "x"})`},
		{"regex", v.At(0), `#"a+"`, `(*lisp.Regex)(#"a+")`},
		{"closure", v.At(1), "#fn[[a _ & more]]", "(*lisp.Closure)(#fn[[a _ & more]])"},
		{"named closure", v.At(3), "#fn[named]", "(*lisp.Closure)(#fn[named])"},
		{"builtin", v.At(2), "#fn[inc]", "(*lisp.Builtin)(#fn[inc])"},
		{"transducer", v.At(5), "#transducer[map]", "(*lisp.Builtin)(#transducer[map])"},
		{"lazy seq", v.At(4), "#seq[iterate]", "(*lisp.Seq)(#seq[iterate])"},
		{"var", &lisp.Var{Name: "x"}, "#'x", "(*lisp.Var)(#'x)"},
		{"instant", v.At(6), `#inst "2023-11-14T22:13:20.000-00:00"`,
			`lisp.Instant(#inst "2023-11-14T22:13:20.000-00:00")`},
		{"date", v.At(7), `#date "2024-01-02"`, `lisp.Date(#date "2024-01-02")`},
		// Zero values and nil pointers print, never panic.
		{"nil vector", (*lisp.Vector)(nil), "nil", "(*lisp.Vector)(nil)"},
		{"nil map", (*lisp.Map)(nil), "nil", "(*lisp.Map)(nil)"},
		{"nil set", (*lisp.Set)(nil), "nil", "(*lisp.Set)(nil)"},
		{"nil closure", (*lisp.Closure)(nil), "nil", "(*lisp.Closure)(nil)"},
		{"nil builtin", (*lisp.Builtin)(nil), "nil", "(*lisp.Builtin)(nil)"},
		{"nil var", (*lisp.Var)(nil), "nil", "(*lisp.Var)(nil)"},
		{"nil regex", (*lisp.Regex)(nil), "nil", "(*lisp.Regex)(nil)"},
		{"nil seq", (*lisp.Seq)(nil), "nil", "(*lisp.Seq)(nil)"},
		{"zero map", &lisp.Map{}, "{}", "(*lisp.Map)({})"},
		{"zero set", &lisp.Set{}, "#{}", "(*lisp.Set)(#{})"},
		{"zero vector", &lisp.Vector{}, "[]", "(*lisp.Vector)([])"},
		{"zero closure", &lisp.Closure{}, "#fn[]", "(*lisp.Closure)(#fn[])"},
		{"nil pointers inside", lisp.VectorOf((*lisp.Map)(nil), (*lisp.Vector)(nil), (*lisp.Closure)(nil)),
			"[nil nil nil]", "(*lisp.Vector)([nil nil nil])"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, ok := tc.v.(fmt.Stringer); !ok {
				t.Fatalf("%T is not a fmt.Stringer", tc.v)
			}
			if _, ok := tc.v.(fmt.GoStringer); !ok {
				t.Fatalf("%T is not a fmt.GoStringer", tc.v)
			}
			for _, c := range []struct{ how, got string }{
				{"String", tc.v.(fmt.Stringer).String()},
				{"PrintString", lisp.Print(tc.v, lisp.PrintOptions{})},
				{"Sprint", fmt.Sprint(tc.v)},
				{"%v", fmt.Sprintf("%v", tc.v)},
				{"%+v", fmt.Sprintf("%+v", tc.v)},
				{"%s", fmt.Sprintf("%s", tc.v)},
				{"Println", strings.TrimSuffix(fmt.Sprintln(tc.v), "\n")},
			} {
				if c.got != tc.want {
					t.Errorf("%s = %s, want %s", c.how, c.got, tc.want)
				}
			}
			if got := fmt.Sprintf("%#v", tc.v); got != tc.wantGo {
				t.Errorf("%%#v = %s, want %s", got, tc.wantGo)
			}
		})
	}
}

// TestValuesPrintInStructs checks that values print by their printed form
// inside Go structs, slices and maps, as fmt.Println(step) shows them.
func TestValuesPrintInStructs(t *testing.T) {
	type step struct {
		Return lisp.Value
		Memory map[string]lisp.Value
		Items  []lisp.Value
	}
	m := lisp.NewMap(lisp.Keyword("total"), int64(370), lisp.Keyword("names"), lisp.VectorOf("acme", "globex"))
	s := &step{
		Return: m,
		Memory: map[string]lisp.Value{"k": lisp.Keyword("done")},
		Items:  []lisp.Value{lisp.NewSet(int64(1)), lisp.Date{Y: 2024, M: 1, D: 2}},
	}
	tests := []struct{ format, want string }{
		{"%v", `&{{:names ["acme" "globex"], :total 370} map[k::done] [#{1} #date "2024-01-02"]}`},
		{"%+v", `&{Return:{:names ["acme" "globex"], :total 370} Memory:map[k::done] Items:[#{1} #date "2024-01-02"]}`},
		{"%#v", `&lisp_test.step{Return:(*lisp.Map)({:names ["acme" "globex"], :total 370}), ` +
			`Memory:map[string]interface {}{"k":lisp.Keyword(:done)}, ` +
			`Items:[]interface {}{(*lisp.Set)(#{1}), lisp.Date(#date "2024-01-02")}}`},
	}
	for _, tc := range tests {
		if got := fmt.Sprintf(tc.format, s); got != tc.want {
			t.Errorf("%s\n got  %s\n want %s", tc.format, got, tc.want)
		}
	}
	if got, want := fmt.Sprintln(s.Return, s.Items), "{:names [\"acme\" \"globex\"], :total 370} [#{1} #date \"2024-01-02\"]\n"; got != want {
		t.Errorf("Println\n got  %s want %s", got, want)
	}
}

// TestPrimitivesPrint checks what Value's doc says of the values that are
// Go's own types: fmt prints them as Go does at the top level, and in the
// printed form inside a collection.
func TestPrimitivesPrint(t *testing.T) {
	tests := []struct {
		v          lisp.Value
		top, inner string
	}{
		{nil, "<nil>", "[nil]"},
		{1.0, "1", "[1.0]"},
		{"a b", "a b", `["a b"]`},
		{int64(3), "3", "[3]"},
		{true, "true", "[true]"},
	}
	for _, tc := range tests {
		if got := fmt.Sprint(tc.v); got != tc.top {
			t.Errorf("Sprint(%#v) = %s, want %s", tc.v, got, tc.top)
		}
		if got := fmt.Sprint(lisp.VectorOf(tc.v)); got != tc.inner {
			t.Errorf("Sprint of [%#v] = %s, want %s", tc.v, got, tc.inner)
		}
	}
}

// TestValueStringShared checks that String is bounded on a value whose
// printed form is exponential in its size (a map whose values are the same
// vector, itself [v v] nested 30 times over a vector of 1 KB keywords: 2^30
// KB printed in full): it stops at the 64 MiB print bound and ends with "...".
func TestValueStringShared(t *testing.T) {
	// Keywords: their text is copied whole, where a string's is scanned
	// for escapes byte by byte (slow under -race).
	leaf := lisp.VectorOf(lisp.Keyword(strings.Repeat("x", 1024)), lisp.Keyword(strings.Repeat("y", 1024)))
	v := leaf
	for range 30 {
		v = lisp.VectorOf(v, v)
	}
	m := lisp.NewMap(lisp.Keyword("a"), v, lisp.Keyword("b"), v, lisp.Keyword("c"), v)
	// Sprint goes through String, as %v, %+v and %s do, and %#v wraps the
	// same text (TestValuesPrint); each print is 64 MiB, so one only.
	got := fmt.Sprint(m)
	if prefix := "{:a " + strings.Repeat("[", 31) + ":xxx"; !strings.HasPrefix(got, prefix) || !strings.HasSuffix(got, "...") {
		t.Errorf("Sprint: %.40s ... %s", got, got[max(0, len(got)-40):])
	}
	if n := len(got); n < docPrintBytes || n > docPrintBytes+len("...") {
		t.Errorf("Sprint: %d bytes, want MaxPrintBytes (%d) and the marks", n, docPrintBytes)
	}
}

// A value returned by a program prints as the REPL shows it.
func ExampleValue_print() {
	res, err := lisp.Run(context.Background(),
		`{:total 370 :names ["acme" "globex"] :at (LocalDate/parse "2024-01-02") :inc inc}`, lisp.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Value)
	fmt.Printf("%#v\n", res.Value.(*lisp.Map).Keys()[0])
	// Output:
	// {:at #date "2024-01-02", :inc #fn[inc], :names ["acme" "globex"], :total 370}
	// lisp.Keyword(:at)
}
