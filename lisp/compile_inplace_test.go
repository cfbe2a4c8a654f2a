package lisp

import (
	"slices"
	"testing"
)

// constMap leaves an entry where it is when every key before it sorts
// before it (keys written in order, the commonest literals): the map must
// still be mapFromLiteral's, also when a duplicate earlier has moved the
// entries after it down one place.
func TestConstMapKeysInPlace(t *testing.T) {
	kw := func(names ...string) []Value {
		out := make([]Value, len(names))
		for i, n := range names {
			out[i] = Keyword(n)
		}
		return out
	}
	for _, keys := range [][]Value{
		kw("id", "name", "price", "qty", "tags"), // in order
		kw("a", "b", "b", "c", "d"),              // in order, a duplicate in the middle
		kw("a", "a", "b", "c"),                   // a duplicate first
		kw("b", "c", "a", "d", "e"),              // one out of order, the rest in place after it
		kw("e", "d", "c", "b", "a"),              // reversed
		kw("c", "a", "c", "b", "d"),              // a duplicate after an insertion
		{int64(1), int64(2), Keyword("a"), "s"},  // kinds in compareKeys' order
	} {
		vals := make([]Value, len(keys))
		for i := range vals {
			vals[i] = int64(i) // tells which duplicate won
		}
		want := mapFromLiteral(slices.Clone(keys), slices.Clone(vals))
		c := &compiler{lits: new(literalSlabs)}
		for _, got := range []*Map{constMap(slices.Clone(keys), slices.Clone(vals)), c.constMap(slices.Clone(keys), slices.Clone(vals))} {
			if Print(got, PrintOptions{}) != Print(want, PrintOptions{}) || got.Len() != want.Len() || !Equal(got, want) {
				t.Fatalf("keys %v: constMap %s, mapFromLiteral %s", keys, Print(got, PrintOptions{}), Print(want, PrintOptions{}))
			}
		}
	}
}
