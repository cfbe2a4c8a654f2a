package lisp

// items returns the elements of a collection as a slice, the way sequence
// functions see them: a vector's own elements (not copied: do not modify),
// a map's [key value] entries, a set's elements, a string's characters; nil
// is empty. op names the calling function for the error message.
//
// A builtin that walks a collection does work proportional to its size,
// so items counts that many evaluation steps: the step budget then bounds
// programs whose time goes into builtins, not only into user functions.
func (th *thread) items(coll Value, op string) ([]Value, error) {
	switch c := coll.(type) {
	case *Vector:
		return c.items, th.ticks(len(c.items))
	case nil:
		return nil, nil
	case *Map:
		// The entries are built here: charged before they are.
		if err := th.charge(entriesSlots(c.Len())); err != nil {
			return nil, err
		}
		return mapEntries(c), th.ticks(c.Len())
	case *Set:
		if err := th.charge(int64(c.Len())); err != nil {
			return nil, err
		}
		return c.Items(), th.ticks(c.Len())
	case string:
		// One slot per character and the boxed string of each: at most
		// two slots per byte, charged before graphemes allocates them.
		if err := th.charge(2 * int64(len(c))); err != nil {
			return nil, err
		}
		gs := graphemes(c)
		return gs, th.ticks(len(gs))
	case *Seq:
		return th.realize(c, -1, op)
	case *Builtin:
		if c.xf != nil {
			return nil, transducerHint(op, coll)
		}
	case *Cell:
		// A Java array is seqable, a StringBuilder as its text (a
		// CharSequence); each a copy as of now.
		switch c.kind {
		case arrayCell:
			return th.arrayItems(c)
		case utilCell:
			return th.utilItems(c, op)
		case builderCell:
			s := builderText(c)
			if err := th.chargeString(len(s)); err != nil {
				return nil, err
			}
			return th.items(s, op)
		}
	}
	// Clojure: IllegalArgumentException, Don't know how to create ISeq from.
	return nil, classError(TypeError, classIllegalArgument, "%s expects a collection, got %s", op, describe(coll))
}

// entrySlots is what one [key value] entry vector costs: its two elements
// and its header.
const entrySlots = 4

// entriesSlots is what mapEntries of a map of n entries costs: the entries
// and the slice holding them.
func entriesSlots(n int) int64 { return int64(n) * (entrySlots + 1) }

// mapEntries returns the [key value] vectors of m in key order. The caller
// charges entriesSlots(m.Len()) first. The entries are carved out of two
// arrays (their headers and their elements) rather than allocated one by one.
func mapEntries(m *Map) []Value {
	n := m.Len()
	if n == 0 {
		return nil
	}
	out := make([]Value, n)
	vs := make([]Vector, n)
	kv := make([]Value, 2*n)
	i := 0
	for k, v := range m.All() {
		kv[2*i], kv[2*i+1] = k, v
		vs[i].items = kv[2*i : 2*i+2 : 2*i+2]
		vs[i].claim = entryMark
		out[i] = &vs[i]
		i++
	}
	return out
}

// each calls f for each element of coll until f returns false or an error;
// unlike items it can walk an infinite sequence.
func (th *thread) each(coll Value, op string, f func(Value) (bool, error)) error {
	switch c := coll.(type) {
	case *Vector:
		if err := th.ticks(len(c.items)); err != nil {
			return err
		}
		for _, x := range c.items {
			if ok, err := f(x); err != nil || !ok {
				return err
			}
		}
		return nil
	case *Map:
		if err := th.ticks(c.Len()); err != nil {
			return err
		}
		for k, v := range c.All() {
			if err := th.charge(entrySlots); err != nil {
				return err
			}
			if ok, err := f(newEntry(k, v)); err != nil || !ok {
				return err
			}
		}
		return nil
	case *Seq:
		// An infinite sequence is only bounded by the limits: count each element.
		return c.gen(th, func(v Value) (bool, error) {
			if err := th.tick(); err != nil {
				return false, err
			}
			return f(v)
		})
	}
	xs, err := th.items(coll, op)
	if err != nil {
		return err
	}
	for _, x := range xs {
		if ok, err := f(x); err != nil || !ok {
			return err
		}
	}
	return nil
}
