package lisp

// java.util.Iterator, as models walk a collection Java's way:
// (let [it (.iterator coll)] (loop [...] (if (.hasNext it) (recur ... (.next it)) ...))),
// and (iterator-seq it) for what is left. An iterator is an atom holding
// its state, a map {:iterator elements, :pos next-index}, as a regex
// matcher is (matcher.go): the language's mutable cell, which a failed run
// puts back and the printer and the firewall know. It walks the elements
// the collection had when .iterator was called (Java's fail-fast
// iterators throw when the collection changes under them; a copy never
// needs to).

var kwIterator = Keyword("iterator")

// iteratorState reads argument i as an iterator: its cell, its elements
// and the index of the next one; ok is false for anything else.
func iteratorState(a []Value, i int) (c *Cell, items *Vector, pos int, ok bool) {
	c, isCell := a[i].(*Cell)
	if !isCell || c.kind != atomCell {
		return nil, nil, 0, false
	}
	m, isMap := c.load().val.(*Map)
	if !isMap {
		return nil, nil, 0, false
	}
	v, _ := m.Get(kwIterator)
	items, ok = v.(*Vector)
	p, _ := m.Get(kwPos)
	n, isInt := p.(int64)
	if !ok || !isInt || n < 0 || n > int64(items.Len()) {
		return nil, nil, 0, false
	}
	return c, items, int(n), true
}

func registerIterator(t *builtinTable) {
	iteratorMap := func(items *Vector, pos int) *Map {
		return NewMap(kwIterator, items, kwPos, int64(pos))
	}
	t.add(".iterator", 1, 1, func(th *thread, a []Value) (Value, error) {
		var xs []Value
		var err error
		if c := utilArg(a[0]); c != nil {
			xs, err = th.utilItems(c, ".iterator")
			xs = append([]Value(nil), xs...)
		} else {
			xs, err = th.items(a[0], ".iterator")
		}
		if err != nil {
			return nil, err
		}
		if err := th.charge(int64(len(xs)) + 4); err != nil {
			return nil, err
		}
		return th.call(t.names["atom"], []Value{iteratorMap(NewVector(xs), 0)})
	})
	arg := func(fn string, a []Value) (*Cell, *Vector, int, error) {
		c, items, pos, ok := iteratorState(a, 0)
		if !ok {
			return nil, nil, 0, argError(fn, 0, "an iterator from .iterator", a[0])
		}
		return c, items, pos, nil
	}
	t.add(".hasNext", 1, 1, func(th *thread, a []Value) (Value, error) {
		_, items, pos, err := arg(".hasNext", a)
		if err != nil {
			return nil, err
		}
		return pos < items.Len(), nil
	})
	t.add(".next", 1, 1, func(th *thread, a []Value) (Value, error) {
		c, items, pos, err := arg(".next", a)
		if err != nil {
			return nil, err
		}
		if pos >= items.Len() {
			return nil, classError(InvalidArgument, classNoSuchElement, ".next: the iterator has no more elements (check .hasNext first)")
		}
		if err := th.setCell(c, iteratorMap(items, pos+1)); err != nil {
			return nil, err
		}
		return items.At(pos), nil
	})
	t.add("iterator-seq", 1, 1, func(th *thread, a []Value) (Value, error) {
		c, items, pos, err := arg("iterator-seq", a)
		if err != nil {
			return nil, err
		}
		if err := th.setCell(c, iteratorMap(items, items.Len())); err != nil {
			return nil, err
		}
		if pos == items.Len() {
			return nil, nil // as Clojure's: nil for an exhausted iterator
		}
		return items.Slice(pos, items.Len()).asSeqView(), nil
	})
}
