package lisp

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/ptc-go/ptc/lisp/internal/analyze"
	"github.com/ptc-go/ptc/lisp/syntax"
)

// constMap sorts small literals in place; it must build exactly the map
// mapFromLiteral builds: same entries, the first of duplicate keys kept.
func TestConstMapMatchesMapFromLiteral(t *testing.T) {
	pool := []Value{Keyword("a"), Keyword("b"), Keyword("zz"), "a", "b", int64(1), int64(-3),
		2.5, true, nil, Keyword("id"), Keyword("name")}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 2, 3, 5, 8, 15, 16, 17, 24, 40} {
		for trial := range 50 {
			keys := make([]Value, n)
			vals := make([]Value, n)
			for i := range keys {
				keys[i] = pool[rng.IntN(len(pool))]
				vals[i] = int64(i) // tells which duplicate won
			}
			want := mapFromLiteral(slices.Clone(keys), slices.Clone(vals))
			c := &compiler{lits: new(literalSlabs)}
			slabbed := c.constMap(slices.Clone(keys), slices.Clone(vals)) // carved from slabs
			got := constMap(keys, vals)
			if !Equal(slabbed, want) || slabbed.Len() != want.Len() || Print(slabbed, PrintOptions{}) != Print(want, PrintOptions{}) {
				t.Fatalf("n=%d trial %d: slab constMap %s, mapFromLiteral %s", n, trial,
					Print(slabbed, PrintOptions{}), Print(want, PrintOptions{}))
			}
			if !Equal(got, want) || got.Len() != want.Len() {
				t.Fatalf("n=%d trial %d: constMap %s, mapFromLiteral %s", n, trial,
					Print(got, PrintOptions{}), Print(want, PrintOptions{}))
			}
			gk, wk := got.Keys(), want.Keys()
			for i := range gk {
				if compareKeys(gk[i], wk[i]) != 0 {
					t.Fatalf("n=%d trial %d: key order %v, want %v", n, trial, gk, wk)
				}
			}
		}
	}
}

// Constant vectors are allocated with their items; they must behave as
// vectors of their own slice: conj and assoc never write into a literal.
func TestConstVectorIsImmutable(t *testing.T) {
	c := &compiler{lits: new(literalSlabs)}
	for k := range 40 {
		n := k % 20
		v := newConstVector(n)
		if k >= 20 {
			v = c.constVector(n) // carved from the compiler's slabs, next to others
		}
		if v.Len() != n || cap(v.items) != n {
			t.Fatalf("n=%d: len %d cap %d", n, v.Len(), cap(v.items))
		}
		for i := range n {
			v.items[i] = int64(i)
		}
		before := Print(v, PrintOptions{})
		w := v.Conj(int64(99))
		_ = w.Conj(int64(100))
		if after := Print(v, PrintOptions{}); after != before {
			t.Fatalf("n=%d: conj changed the literal: %s -> %s", n, before, after)
		}
	}
}

// lower compiles src's analyzed tree, for tests of the compiler alone.
func lower(t *testing.T, src string) *compiler {
	t.Helper()
	forms, err := syntax.Read(src)
	if err != nil {
		t.Fatal(err)
	}
	ap, err := analyze.Analyze(src, forms, analyzeConfig)
	if err != nil {
		t.Fatal(err)
	}
	c := &compiler{src: src}
	c.expr(ap.Body)
	if len(c.errs) > 0 {
		t.Fatal(c.errs[0])
	}
	return c
}

// Equal flat literals share one value; what they print, and what each
// occurrence counts in the program's size, stay as when each was built.
func TestPooledConstants(t *testing.T) {
	for _, tc := range []struct {
		src, want string
		slots     int64
		pooled    int // distinct pooled literals (0: not checked)
	}{
		{`(let [a [:k 1] b [:k 1]] [a b (identical? a b) (= a b)])`, `[[:k 1] [:k 1] true true]`, 4, 1},
		{`[[0.0] [-0.0] [0] [1.0] [1] ["1"] [:1]]`, `[[0.0] [-0.0] [0] [1.0] [1] ["1"] [:1]]`, 7 + 7, 7},
		{`[[nil] [false] [true] [nil] ["a" "b"] ["a" "b"] ["ab"] #{"a" "b"} {"a" "b"} {"a" "b"}]`,
			`[[nil] [false] [true] [nil] ["a" "b"] ["a" "b"] ["ab"] #{"a" "b"} {"a" "b"} {"a" "b"}]`, 10 + 15, 7},
		{`[{:a 1 :b [1 2]} {:a 1 :b [1 2]} [1 2] {:b 2 :a 1} {:a 1 :b 2}]`, `[{:a 1, :b [1 2]} {:a 1, :b [1 2]} [1 2] {:a 1, :b 2} {:a 1, :b 2}]`, 5 + 4 + 2 + 4 + 2 + 2 + 4 + 4, 3},
		{`(get-in {:a {:b 1}} [:a :b])`, `1`, 2 + 2 + 2, 0},
	} {
		c := lower(t, tc.src)
		res, err := Run(context.Background(), tc.src, Options{})
		if err != nil {
			t.Fatalf("%s: %v", tc.src, err)
		}
		if got := printString(res.Value); got != tc.want {
			t.Errorf("%s = %s, want %s", tc.src, got, tc.want)
		}
		if c.constSlots != tc.slots {
			t.Errorf("%s: %d constant slots, want %d", tc.src, c.constSlots, tc.slots)
		}
		if n := poolSize(c); n != tc.pooled && tc.pooled > 0 {
			t.Errorf("%s: %d pooled literals, want %d", tc.src, n, tc.pooled)
		}
	}
}

// poolSize counts the literals in c's pool.
func poolSize(c *compiler) int {
	n := 0
	for _, pe := range c.pool {
		if pe != nil {
			n++
		}
	}
	return n
}

// The pool's index grows past its first size and still finds every
// literal: each of many distinct flat literals, written twice, is pooled
// once.
func TestPoolGrows(t *testing.T) {
	var b strings.Builder
	b.WriteString("[")
	for range 2 {
		for i := range 1000 {
			fmt.Fprintf(&b, "[%d :k%d] ", i, i%7)
		}
	}
	b.WriteString("]")
	src := b.String()
	c := lower(t, src)
	if n := poolSize(c); n != 1000 {
		t.Errorf("%d pooled literals, want 1000", n)
	}
	if c.constSlots != 2000+2000*2 { // the outer vector and each pair
		t.Errorf("%d constant slots, want %d", c.constSlots, 2000+2000*2)
	}
	res, err := Run(context.Background(), src, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := printString(res.Value), "["+strings.TrimSuffix(src[1:len(src)-1], " ")+"]"; got != want {
		t.Errorf("got %.80s…, want %.80s…", got, want)
	}
}
