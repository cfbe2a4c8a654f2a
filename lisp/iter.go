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
		return mapEntries(c), th.ticks(c.Len())
	case *Set:
		return c.Items(), th.ticks(c.Len())
	case string:
		gs := graphemes(c)
		return gs, th.ticks(len(gs))
	case *Seq:
		return th.realize(c, -1, op)
	case *Builtin:
		if c.xf != nil {
			return nil, transducerHint(op, coll)
		}
	}
	return nil, errorf(TypeError, "%s expects a collection, got %s", op, describe(coll))
}

// mapEntries returns the [key value] vectors of m in key order.
func mapEntries(m *Map) []Value {
	out := make([]Value, 0, m.Len())
	for k, v := range m.All() {
		out = append(out, NewVector([]Value{k, v}))
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
		for k, v := range c.All() {
			if ok, err := f(NewVector([]Value{k, v})); err != nil || !ok {
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
