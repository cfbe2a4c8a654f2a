package lisp

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/ptc-go/ptc/lisp/internal/analyze"
	"github.com/ptc-go/ptc/lisp/syntax"
)

// A map literal of constant keys and computed values (literalKeys,
// shapedMapLit) builds the map its constant twin builds (constMap, checked
// against mapFromLiteral): same entries, same order, the first of
// duplicate keys kept.
func TestShapedMapMatchesConstant(t *testing.T) {
	many := func(n int, key func(i int) string) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "%s %d ", key(i), i)
		}
		return b.String()
	}
	for _, entries := range []string{
		`:b 1 :a 2`,
		`:p 1 :q 2 :r 3`,
		`:id 1 :name 2 :price 3 :qty 4 :tags 5`,
		`:a 1 :a 2`,
		`:b 1 :a 2 :b 3 :c 4 :a 5`,
		`:a/b 1 :a 2 :ab 3 :a.b 4 :b/a 5 :aa 6 :A 7 :_ 8 :a-b 9`,
		`"b" 1 :b 2 "a" 3 :a 4 1 5 2.5 6 nil 7 true 8 [1] 9 \x 10 sym 11`,
		`:a 1 "a" 2 :a 3`,
		`:abcdefgh 1 :abcdefghi 2 :abcdefg 3 :abcdefghij 4 :abcdefgg 5 :abcdefgi 6`,
		many(16, func(i int) string { return fmt.Sprintf(":k%d", 15-i) }),
		many(17, func(i int) string { return fmt.Sprintf(":k%d", i*7%17) }),
		many(40, func(i int) string { return fmt.Sprintf(":k%d", i%23) }),
		many(16, func(i int) string { return fmt.Sprintf(":k%d", i%5) }),
	} {
		constant := "{" + strings.ReplaceAll(entries, " sym ", " 'sym ") + "}"
		// The same entries, each value computed.
		fields := strings.Fields(strings.ReplaceAll(entries, " sym ", " 'sym "))
		for i := 1; i < len(fields); i += 2 {
			fields[i] = "(identity " + fields[i] + ")"
		}
		computed := "{" + strings.Join(fields, " ") + "}"
		src := fmt.Sprintf(`(let [a %s b %s] [(= a b) (count a) (count b) (pr-str a) (pr-str b) (pr-str (keys a)) (pr-str (keys b))])`, constant, computed)
		out := sameBothWays(t, src, Limits{})
		var want string
		res := outcome(fmt.Sprintf(`(let [a %s] [true (count a) (count a) (pr-str a) (pr-str a) (pr-str (keys a)) (pr-str (keys a))])`, constant), Limits{})
		want = withoutSteps(res)
		if got := withoutSteps(out); got != want {
			t.Errorf("%s:\n got %s\nwant %s", entries, got, want)
		}
	}
}

// The pool compares a flat literal's nodes with those of the literals it
// holds: an equal literal (same kind, items of the same types and values,
// in the same order) is a hit and shares the value; anything else is a
// miss and built apart. Each literal is written twice, so that every
// literal of the list must be pooled once and found once.
func TestPoolHitsAndMisses(t *testing.T) {
	lits := []string{
		`[:a :b]`, `[:b :a]`, `(quote (:a :b))`, `#{:a :b}`, `{:a :b}`, `{:b :a}`,
		`[:a "a"]`, `["a" :a]`, `["a" "a"]`, `[:a :a]`,
		`[1 2]`, `[1 2.0]`, `[1.0 2]`, `[0.0]`, `[-0.0]`, `[0]`, `[nil]`, `[false]`, `[true]`,
		`[:abcd]`, `[:abcdabcd]`, `[:abcdefgh]`, `[:abcdefgx]`, `[:abcxefgh]`, `[:abcde]`, `[:abxde]`, `[:abcdefghi]`, `[:abcdefghj]`, `[:ab]`, `[:abb]`, `[:a/b]`,
		`["abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz0123456789"]`,
		`["abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz012345678X"]`,
		`{:a 1 :b 2}`, `{:a 1 :b 3}`, `{:a 1 :c 2}`, `{:b 2 :a 1}`, `{:a 1}`, `{1 :a}`,
	}
	var b strings.Builder
	b.WriteString("[")
	for range 2 {
		for _, l := range lits {
			b.WriteString(l + " ")
		}
	}
	b.WriteString("]")
	src := b.String()
	c := lower(t, src)
	if n := poolSize(c); n != len(lits) {
		t.Errorf("%d pooled literals, want %d", n, len(lits))
	}
	res, err := Run(context.Background(), `(let [v `+src+` n `+fmt.Sprint(len(lits))+`]
		(mapv (fn [i] [(= (nth v i) (nth v (+ i n))) (pr-str (nth v i))]) (range n)))`, Options{})
	if err != nil {
		t.Fatal(err)
	}
	items := res.Value.(*Vector).items
	for i, l := range lits {
		pair := items[i].(*Vector).items
		want := l
		if l == `(quote (:a :b))` {
			want = `(:a :b)`
		}
		if pair[0] != true || pair[1] != want && !strings.HasPrefix(l, "{") && !strings.HasPrefix(l, "#") {
			t.Errorf("%s: %v", l, pair)
		}
	}
	// Distinct literals are distinct values; a literal written twice is
	// one value.
	for i := range lits {
		for j := range lits {
			same := c.lookupLit(t, lits[i]) == c.lookupLit(t, lits[j])
			if same != (i == j) {
				t.Errorf("%s and %s: one pooled value %v", lits[i], lits[j], same)
			}
		}
	}
}

// lookupLit compiles the literal src (a vector, set or map of constants)
// with c, after the program c compiled, and returns its pool entry.
func (c *compiler) lookupLit(t *testing.T, src string) *poolEntry {
	t.Helper()
	forms, err := syntax.Read(src)
	if err != nil {
		t.Fatal(err)
	}
	ap, err := analyze.Analyze(src, forms, analyzeConfig)
	if err != nil {
		t.Fatal(err)
	}
	_, pe, _ := c.lit(ap.Body)
	return pe
}

// sameItems decides a pool hit whatever the hashes: items of other types,
// values, names (short ones are compared by words) or lengths differ.
func TestSameItems(t *testing.T) {
	kw := func(name string) analyze.Expr { return &analyze.Keyword{Name: name} }
	cst := func(v any) analyze.Expr { return &analyze.Const{Value: v} }
	list := func(xs ...analyze.Expr) []analyze.Expr { return xs }
	for _, tc := range []struct {
		a, av, b, bv []analyze.Expr
		want         bool
	}{
		{list(kw("a"), kw("b")), nil, list(kw("a"), kw("b")), nil, true},
		{list(kw("a"), kw("b")), nil, list(kw("a"), kw("c")), nil, false},
		{list(kw("a")), nil, list(kw("a"), kw("a")), nil, false},
		{list(kw("abcdefgh")), nil, list(kw("abcdefgh")), nil, true},
		{list(kw("abcdefgh")), nil, list(kw("abcxefgh")), nil, false},
		{list(kw("abcdefgh")), nil, list(kw("abcdefgx")), nil, false},
		{list(kw("abcde")), nil, list(kw("abxde")), nil, false},
		{list(kw("abcd")), nil, list(kw("abcdabcd")), nil, false},
		{list(kw("abcdefghij")), nil, list(kw("abcdefghij")), nil, true},
		{list(kw("abcdefghij")), nil, list(kw("abcdXfghij")), nil, false},
		{list(kw("ab")), nil, list(kw("abb")), nil, false},
		{list(kw("a")), nil, list(cst("a")), nil, false},
		{list(cst("a")), nil, list(kw("a")), nil, false},
		{list(cst(int64(1))), nil, list(cst(1.0)), nil, false},
		{list(cst(0.0)), nil, list(cst(math.Copysign(0, -1))), nil, false},
		{list(cst(nil), cst(false)), nil, list(cst(nil), cst(false)), nil, true},
		{list(kw("a")), list(cst(int64(1))), list(kw("a")), list(cst(int64(1))), true},
		{list(kw("a")), list(cst(int64(1))), list(kw("a")), list(cst(int64(2))), false},
		{list(kw("a")), list(kw("x")), list(kw("a")), list(cst("x")), false},
	} {
		if got := sameItems(tc.a, tc.av, tc.b, tc.bv); got != tc.want {
			t.Errorf("sameItems(%s %s, %s %s) = %v", dumpNodes(tc.a), dumpNodes(tc.av), dumpNodes(tc.b), dumpNodes(tc.bv), got)
		}
	}
}

func dumpNodes(xs []analyze.Expr) string {
	var parts []string
	for _, x := range xs {
		switch x := x.(type) {
		case *analyze.Keyword:
			parts = append(parts, ":"+x.Name)
		case *analyze.Const:
			parts = append(parts, fmt.Sprintf("%#v", x.Value))
		}
	}
	return "[" + strings.Join(parts, " ") + "]"
}
