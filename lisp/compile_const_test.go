package lisp

import (
	"math/rand/v2"
	"slices"
	"testing"
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
			got := constMap(keys, vals)
			if !Equal(got, want) || got.Len() != want.Len() {
				t.Fatalf("n=%d trial %d: constMap %s, mapFromLiteral %s", n, trial,
					FormatValue(got, PrintOptions{}), FormatValue(want, PrintOptions{}))
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
	for n := range 12 {
		v := newConstVector(n)
		if v.Len() != n || cap(v.items) != n {
			t.Fatalf("n=%d: len %d cap %d", n, v.Len(), cap(v.items))
		}
		for i := range n {
			v.items[i] = int64(i)
		}
		before := FormatValue(v, PrintOptions{})
		w := v.Conj(int64(99))
		_ = w.Conj(int64(100))
		if after := FormatValue(v, PrintOptions{}); after != before {
			t.Fatalf("n=%d: conj changed the literal: %s -> %s", n, before, after)
		}
	}
}
