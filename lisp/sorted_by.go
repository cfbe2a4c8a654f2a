package lisp

import (
	"math"

	"github.com/ptc-go/ptc/lisp/internal/ordmap"
)

// sorted-map-by and sorted-set-by: maps and sets kept in the order of a
// comparator function, as Clojure's PersistentTreeMap and TreeSet. Such a
// collection is an ordinary *Map or *Set (so every function takes it, and
// it equals an ordinary one with the same entries, as in Clojure) whose by
// field holds the comparator and a second tree of the entries in its
// order: iteration, printing, first, seq, keys, vals, rseq and subseq
// follow that order. Keys the comparator calls equal are one key, as in
// Clojure: the first one stays, with the last value.
//
// The comparator is the program's function: it can only be called on a
// run's thread, so the functions that add or remove entries and keep the
// comparator (assoc, dissoc, conj, disj, into, merge, update, empty,
// clojure.walk) do so through the thread; the others return an ordinary
// map or set, in the canonical order. Each call of the comparator counts a
// step; a comparator that fails, returns something other than a number or
// a boolean, or loops, ends the run with its error or limit. An
// inconsistent comparator (one that says a < b and b < a) gives some
// order, never a broken collection: entries are also kept in the canonical
// tree, which decides what the collection holds.
//
// A comparator is a function and cannot be written as text: a sorted-by
// collection printed with Print (Exact) (an agent's memory between turns) or
// converted to JSON is printed in its order, and read back as an ordinary
// map or set (docs/deviations.md row 73).

// sortedBy is the comparator of a sorted-by collection and its entries in
// the comparator's order: ord for a map, set for a set. Where the
// comparator calls two keys equal the tree keeps the first one stored,
// which is the key the collection holds.
type sortedBy struct {
	fn  Value
	ord ordmap.Tree[Value, Value]
	set ordmap.Tree[Value, struct{}]
}

// comparatorFn makes a Go comparison of a program's comparator, with
// Clojure's reading of its result (AFunction.compare): a number's int
// value (its low 32 bits for an integer, a truncation for a float), or
// for a boolean predicate such as >, -1 when (f a b), else 1 when (f b a),
// else 0. An error stops the comparison: it panics with stopped, which
// guarded turns back into the error.
func (th *thread) comparatorFn(f Value) func(a, b Value) int {
	return func(a, b Value) int {
		if err := th.tick(); err != nil {
			panic(stopped{err})
		}
		r, err := th.call2(f, a, b)
		if err != nil {
			panic(stopped{err})
		}
		switch x := r.(type) {
		case int64:
			return sign(int64(int32(x)))
		case float64:
			switch {
			case math.IsNaN(x):
				return 0
			case x >= math.MaxInt32:
				return 1
			case x <= math.MinInt32:
				return -1
			}
			return sign(int64(x))
		case bool:
			if x {
				return -1
			}
			r, err := th.call2(f, b, a)
			if err != nil {
				panic(stopped{err})
			}
			if truthy(r) {
				return 1
			}
			return 0
		}
		panic(stopped{errorf(TypeError, "the comparator of a sorted collection must return a number or a boolean, got %s", describe(r))})
	}
}

func sign(n int64) int {
	switch {
	case n < 0:
		return -1
	case n > 0:
		return 1
	}
	return 0
}

// guarded runs f, turning the panic of a failing comparator back into
// its error.
func guarded[T any](f func() (T, error)) (v T, err error) {
	defer func() {
		if r := recover(); r != nil {
			s, ok := r.(stopped)
			if !ok {
				panic(r)
			}
			err = s.err
		}
	}()
	return f()
}

// sortedKey finds, in a sorted-by map or set, the stored key the
// comparator calls equal to k, for get and contains? after the exact key
// missed (Clojure looks keys up with the comparator).
func (th *thread) sortedKey(coll, k Value) (Value, bool, error) {
	var by *sortedBy
	switch c := coll.(type) {
	case *Map:
		by = c.sorted()
	case *Set:
		by = c.sorted()
	}
	if by == nil {
		return nil, false, nil
	}
	found := false
	stored, err := guarded(func() (Value, error) {
		cmp := th.comparatorFn(by.fn)
		if _, isSet := coll.(*Set); isSet {
			sk, _, ok := by.set.GetEntry(k, cmp)
			found = ok
			return sk, nil
		}
		sk, _, ok := by.ord.GetEntry(k, cmp)
		found = ok
		return sk, nil
	})
	return stored, found && err == nil, err
}

// newSortedBy starts an empty sorted-by collection of comparator f.
func newSortedBy(f Value) *sortedBy { return &sortedBy{fn: f} }

// sortedAssoc is assoc on a sorted-by map: a key the comparator calls
// equal to a stored one replaces its value and keeps the stored key.
func (th *thread) sortedAssoc(m *Map, k, v Value) (*Map, error) {
	if err := th.charge(8); err != nil { // an entry in each tree, the map
		return nil, err
	}
	by := m.sorted()
	return guarded(func() (*Map, error) {
		cmp := th.comparatorFn(by.fn)
		stored := k
		if sk, _, ok := by.ord.GetEntry(k, cmp); ok {
			stored = sk
		} else if _, strict := m.t.Get(k, compareKeys); strict {
			// The comparator misses a key it was given before (it is
			// inconsistent): replace the value where the key is.
			return sortedMap(m.t.Set(k, v, compareKeys), by.replaced(k, v)), nil
		}
		ord := by.ord.Set(k, v, cmp) // keeps the stored key
		return sortedMap(m.t.Set(stored, v, compareKeys), &sortedBy{fn: by.fn, ord: ord}), nil
	})
}

// conjSorted is conj onto a sorted-by map of [key value] pairs and maps.
func (th *thread) conjSorted(m *Map, xs []Value) (Value, error) {
	var err error
	for _, x := range xs {
		switch e := x.(type) {
		case *Vector:
			if e.Len() != 2 {
				return nil, classError(TypeError, classIllegalArgument, "conj onto a map takes [key value] pairs, got a vector of %d", e.Len())
			}
			if m, err = th.sortedAssoc(m, e.items[0], e.items[1]); err != nil {
				return nil, err
			}
		case *Map:
			if err := th.chargeMerge(e); err != nil {
				return nil, err
			}
			for k, v := range e.All() {
				if m, err = th.sortedAssoc(m, k, v); err != nil {
					return nil, err
				}
			}
		case nil:
		default:
			return nil, classError(TypeError, classIllegalArgument, "conj onto a map takes [key value] pairs or maps, got %s", describe(x))
		}
	}
	return m, nil
}

// sortedDissoc is dissoc on a sorted-by map.
func (th *thread) sortedDissoc(m *Map, k Value) (*Map, error) {
	by := m.sorted()
	return guarded(func() (*Map, error) {
		cmp := th.comparatorFn(by.fn)
		if sk, _, ok := by.ord.GetEntry(k, cmp); ok {
			return sortedMap(m.t.Delete(sk, compareKeys), &sortedBy{fn: by.fn, ord: by.ord.Delete(k, cmp)}), nil
		}
		if _, strict := m.t.Get(k, compareKeys); strict {
			return sortedMap(m.t.Delete(k, compareKeys), by.without(k)), nil
		}
		return m, nil
	})
}

// sortedConj is conj on a sorted-by set: an element the comparator calls
// equal to a stored one leaves the set as it is.
func (th *thread) sortedConj(s *Set, x Value) (*Set, error) {
	if err := th.charge(4); err != nil {
		return nil, err
	}
	return guarded(func() (*Set, error) {
		cmp := th.comparatorFn(s.by.fn)
		if _, ok := s.by.set.Get(x, cmp); ok || s.Has(x) {
			return s, nil
		}
		set := s.by.set.Set(x, struct{}{}, cmp)
		return &Set{t: s.t.Set(x, struct{}{}, compareKeys), by: &sortedBy{fn: s.by.fn, set: set}}, nil
	})
}

// sortedDisj is disj on a sorted-by set.
func (th *thread) sortedDisj(s *Set, x Value) (*Set, error) {
	return guarded(func() (*Set, error) {
		cmp := th.comparatorFn(s.by.fn)
		if sk, _, ok := s.by.set.GetEntry(x, cmp); ok {
			return &Set{t: s.t.Delete(sk, compareKeys), by: &sortedBy{fn: s.by.fn, set: s.by.set.Delete(x, cmp)}}, nil
		}
		if s.Has(x) {
			return &Set{t: s.t.Delete(x, compareKeys), by: s.by.without(x)}, nil
		}
		return s, nil
	})
}

// replaced and without rebuild the order of an inconsistent comparator's
// collection, in the order it has, with k's value replaced or k removed:
// O(n), without calling the comparator.
func (b *sortedBy) replaced(k, v Value) *sortedBy {
	keys, vals := make([]Value, 0, b.ord.Len()), make([]Value, 0, b.ord.Len())
	for key, val := range b.ord.All() {
		if compareKeys(key, k) == 0 {
			val = v
		}
		keys, vals = append(keys, key), append(vals, val)
	}
	return &sortedBy{fn: b.fn, ord: ordmap.FromSorted(keys, vals)}
}

func (b *sortedBy) without(k Value) *sortedBy {
	if b.set.Len() > 0 {
		keys := make([]Value, 0, b.set.Len())
		for key := range b.set.All() {
			if compareKeys(key, k) != 0 {
				keys = append(keys, key)
			}
		}
		return &sortedBy{fn: b.fn, set: ordmap.FromSorted(keys, make([]struct{}, len(keys)))}
	}
	keys, vals := make([]Value, 0, b.ord.Len()), make([]Value, 0, b.ord.Len())
	for key, val := range b.ord.All() {
		if compareKeys(key, k) != 0 {
			keys, vals = append(keys, key), append(vals, val)
		}
	}
	return &sortedBy{fn: b.fn, ord: ordmap.FromSorted(keys, vals)}
}

// emptySorted is (empty coll) of a map or set: an empty one of the same
// kind, with the comparator of a sorted-by one.
func emptySorted(coll Value) Value {
	switch c := coll.(type) {
	case *Map:
		if by := c.sorted(); by != nil {
			return sortedMap(ordmap.Tree[Value, Value]{}, newSortedBy(by.fn))
		}
		if c.isSortedMap() {
			return emptySortedMap
		}
		return emptyMap
	case *Set:
		if by := c.sorted(); by != nil {
			return &Set{by: newSortedBy(by.fn)}
		}
		if c.by == naturalOrder {
			return emptySortedSet
		}
		return emptySet
	}
	return nil
}

func registerSortedBy(t *builtinTable) {
	t.add("sorted-map-by", 1, -1, func(th *thread, a []Value) (Value, error) {
		f, err := fnArg("sorted-map-by", a, 0)
		if err != nil {
			return nil, err
		}
		if len(a)%2 == 0 {
			return nil, errorf(InvalidArgument, "sorted-map-by expects a comparator and key/value pairs, got an odd number of keys and values (%d)", len(a)-1)
		}
		m := sortedMap(ordmap.Tree[Value, Value]{}, newSortedBy(f))
		for i := 1; i < len(a); i += 2 {
			if m, err = th.sortedAssoc(m, a[i], a[i+1]); err != nil {
				return nil, err
			}
		}
		return m, nil
	})
	t.add("sorted-set-by", 1, -1, func(th *thread, a []Value) (Value, error) {
		f, err := fnArg("sorted-set-by", a, 0)
		if err != nil {
			return nil, err
		}
		s := &Set{by: newSortedBy(f)}
		for _, x := range a[1:] {
			if s, err = th.sortedConj(s, x); err != nil {
				return nil, err
			}
		}
		return s, nil
	})
}

// noteSortedDefs notes the defs of this run that hold a sorted-by map or
// set: a host that keeps the namespace as text (an agent's memory between
// turns, Print (Exact) and Read) reads them back as ordinary ones, in
// the canonical order, since a comparator is a function.
func noteSortedDefs(run *runState, res *Result) {
	if res.Namespace == nil {
		return
	}
	for _, name := range res.Defined {
		v, _ := res.Namespace.Get(name)
		var sorted bool
		switch c := v.(type) {
		case *Map:
			sorted = c.sorted() != nil
		case *Set:
			sorted = c.sorted() != nil
		}
		if sorted {
			run.notes.add(name + " holds a sorted-map-by or sorted-set-by: a host that stores it as text (an agent's memory) reads it back as an ordinary map or set, in the canonical order; sort it again where the order matters")
		}
	}
}
