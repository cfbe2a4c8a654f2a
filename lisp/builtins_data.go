package lisp

// clojure.data/diff: what two values have in common and what each has on
// its own, as Clojure computes it. Maps are compared key by key, sets by
// their elements, sequential collections index by index, and anything else
// as a whole; the walk is charged a step a value and bounded by the depth
// of data like every walk.

// diffKind is Clojure's equality partition of a value: the collections
// compared part by part, and atoms (everything else) compared whole.
type diffKind uint8

const (
	diffAtom diffKind = iota
	diffSet
	diffSequential
	diffMap
)

func diffKindOf(v Value) diffKind {
	switch x := v.(type) {
	case *Map:
		return diffMap
	case *Set:
		return diffSet
	case *Vector, *Seq:
		return diffSequential
	case *Cell:
		switch x.kind {
		case arrayCell:
			return diffSequential
		case utilCell:
			return diffKindOf(utilValue(x))
		}
	}
	return diffAtom
}

func registerData(t *builtinTable) {
	t.add("clojure.data/diff", 2, 2, func(th *thread, a []Value) (Value, error) {
		onlyA, onlyB, both, err := th.diff(a[0], a[1], 0)
		if err != nil {
			return nil, err
		}
		return NewVector([]Value{onlyA, onlyB, both}), nil
	})
}

// diff returns what only a holds, what only b holds, and what both hold;
// nil for each that is nothing. Equal values are (nil nil a).
func (th *thread) diff(a, b Value, depth int) (onlyA, onlyB, both Value, err error) {
	if depth >= maxDataDepth {
		return nil, nil, nil, deepDataError()
	}
	if err := th.tick(); err != nil {
		return nil, nil, nil, err
	}
	switch a.(type) {
	case *Vector, *Map, *Set:
		if a == b { // the same collection (a part an update kept): equal
			return nil, nil, a, nil
		}
	}
	ka, kb := diffKindOf(a), diffKindOf(b)
	if ka != kb || ka == diffAtom {
		if th.equal(a, b) {
			return nil, nil, a, nil
		}
		return a, b, nil, nil
	}
	switch ka {
	case diffSet:
		onlyA, onlyB, both, err = th.diffSets(a, b)
	case diffMap:
		onlyA, onlyB, both, err = th.diffMaps(a, b, depth)
	default:
		onlyA, onlyB, both, err = th.diffSequential(a, b, depth)
	}
	if err != nil {
		return nil, nil, nil, err
	}
	if onlyA == nil && onlyB == nil {
		return nil, nil, a, nil // equal: a itself, as Clojure gives it
	}
	return onlyA, onlyB, both, nil
}

func (th *thread) diffSets(a, b Value) (Value, Value, Value, error) {
	xs, ys, err := th.diffItems(a, b)
	if err != nil {
		return nil, nil, nil, err
	}
	if err := th.charge(2 * int64(len(xs)+len(ys))); err != nil {
		return nil, nil, nil, err
	}
	sa, sb := NewSet(xs...), NewSet(ys...)
	var onlyA, onlyB, both []Value
	for _, x := range xs {
		if sb.Has(x) {
			both = append(both, x)
		} else {
			onlyA = append(onlyA, x)
		}
	}
	for _, y := range ys {
		if !sa.Has(y) {
			onlyB = append(onlyB, y)
		}
	}
	return notEmptySet(onlyA), notEmptySet(onlyB), notEmptySet(both), nil
}

func notEmptySet(xs []Value) Value {
	if len(xs) == 0 {
		return nil
	}
	return NewSet(xs...)
}

// diffEntries accumulates the three results of comparing keyed values:
// what only one side holds under a key, and what both hold.
type diffEntries struct{ a, b, both *MapBuilder }

// key compares the values of key k (present on a side per inA, inB), as
// clojure.data's diff-associative-key does.
func (th *thread) diffKey(e *diffEntries, k, va, vb Value, inA, inB bool, depth int) error {
	a, b, ab, err := th.diff(va, vb, depth+1)
	if err != nil {
		return err
	}
	same := inA && inB && (ab != nil || (va == nil && vb == nil))
	if inA && (a != nil || !same) {
		e.a.Set(k, a)
	}
	if inB && (b != nil || !same) {
		e.b.Set(k, b)
	}
	if same {
		e.both.Set(k, ab)
	}
	return th.charge(3)
}

func (th *thread) diffMaps(a, b Value, depth int) (Value, Value, Value, error) {
	ma, err := th.diffMapOf(a)
	if err != nil {
		return nil, nil, nil, err
	}
	mb, err := th.diffMapOf(b)
	if err != nil {
		return nil, nil, nil, err
	}
	e := &diffEntries{emptyMapBuilder(), emptyMapBuilder(), emptyMapBuilder()}
	for k, va := range ma.All() {
		vb, inB := mb.getExact(k)
		if err := th.diffKey(e, k, va, vb, true, inB, depth); err != nil {
			return nil, nil, nil, err
		}
	}
	for k, vb := range mb.All() {
		if _, inA := ma.getExact(k); !inA {
			if err := th.diffKey(e, k, nil, vb, false, true, depth); err != nil {
				return nil, nil, nil, err
			}
		}
	}
	return notEmptyMap(e.a.Map()), notEmptyMap(e.b.Map()), notEmptyMap(e.both.Map()), nil
}

func (th *thread) diffMapOf(v Value) (*Map, error) {
	if c := utilArg(v); c != nil {
		v = utilValue(c)
	}
	m, ok := v.(*Map)
	if !ok {
		return nil, argError("clojure.data/diff", 0, "a map", v)
	}
	return m, nil
}

func notEmptyMap(m *Map) Value {
	if m.Len() == 0 {
		return nil
	}
	return m
}

func (th *thread) diffSequential(a, b Value, depth int) (Value, Value, Value, error) {
	xs, ys, err := th.diffItems(a, b)
	if err != nil {
		return nil, nil, nil, err
	}
	e := &diffEntries{emptyMapBuilder(), emptyMapBuilder(), emptyMapBuilder()}
	for i := range max(len(xs), len(ys)) {
		var va, vb Value
		if i < len(xs) {
			va = xs[i]
		}
		if i < len(ys) {
			vb = ys[i]
		}
		if err := th.diffKey(e, int64(i), va, vb, i < len(xs), i < len(ys), depth); err != nil {
			return nil, nil, nil, err
		}
	}
	return vectorize(e.a.Map()), vectorize(e.b.Map()), vectorize(e.both.Map()), nil
}

// vectorize turns a map of indexes to values into the vector holding them
// at those indexes (nil elsewhere); nil for an empty map.
func vectorize(m *Map) Value {
	if m.Len() == 0 {
		return nil
	}
	last := m.Keys()[m.Len()-1].(int64) // the keys are indexes, in order
	items := make([]Value, last+1)
	for k, v := range m.All() {
		items[k.(int64)] = v
	}
	return NewVector(items)
}

// diffItems is the elements of both sides.
func (th *thread) diffItems(a, b Value) (xs, ys []Value, err error) {
	if xs, err = th.items(a, "clojure.data/diff"); err != nil {
		return nil, nil, err
	}
	ys, err = th.items(b, "clojure.data/diff")
	return xs, ys, err
}
