package lisp

// The methods of the java.util collections that take a function: .merge,
// .compute, .computeIfAbsent, .computeIfPresent, .forEach, .replaceAll and
// .removeIf. Java's take a java.util.function interface, which a reify
// of one is here (a function), and so is any function: Clojure 1.11 refuses
// a plain fn there (Clojure 1.12 converts it), which models write all the
// same, so both work.
//
// The function is user code: it runs outside the collection's lock (it may
// read or change the collection, as Java's may not), on what the
// collection held when the method began, and its result is installed
// after, as one change. A function that changed the collection meanwhile
// gets Java's ConcurrentModificationException where Java's would.

func registerFunctional(t *builtinTable, method utilMethod,
	change func(th *thread, c *Cell, f func(d *utilData) (Value, error)) (Value, error)) {
	maps := utilClass.isMap
	lists := utilClass.isList
	colls := func(k utilClass) bool { return !k.isMap() }

	// lookup is the map's value for k now, and whether it has one that is
	// not nil (Java's methods treat a nil value as absent).
	lookup := func(c *Cell, k Value) (Value, uint64, bool) {
		var v Value
		var mods uint64
		utilRead(c, func(d *utilData) bool {
			v, _ = d.coll.(*Map).getExact(k)
			mods = d.mods
			return true
		})
		return v, mods, v != nil
	}
	// settle installs nv as k's value (nil removes k), unless the map
	// changed since mods, which is Java's ConcurrentModificationException.
	settle := func(th *thread, c *Cell, name string, k, nv Value, mods uint64) (Value, error) {
		if err := th.charge(3); err != nil {
			return nil, err
		}
		return change(th, c, func(d *utilData) (Value, error) {
			if d.mods != mods+1 { // change counts itself first
				return nil, concurrentModification(name)
			}
			if nv == nil {
				d.remove(k)
				return nil, nil
			}
			d.put(k, nv)
			return nv, nil
		})
	}

	method(".merge", 4, 4, maps, func(th *thread, c *Cell, _ utilClass, a []Value) (Value, error) {
		if a[2] == nil {
			return nil, classError(TypeError, classNullPointer, ".merge: the value is nil (a NullPointerException in Java)")
		}
		old, mods, had := lookup(c, a[1])
		nv := a[2]
		if had {
			var err error
			if nv, err = th.call(a[3], []Value{old, a[2]}); err != nil {
				return nil, err
			}
		}
		return settle(th, c, ".merge", a[1], nv, mods)
	})
	method(".compute", 3, 3, maps, func(th *thread, c *Cell, _ utilClass, a []Value) (Value, error) {
		old, mods, _ := lookup(c, a[1])
		nv, err := th.call(a[2], []Value{a[1], old})
		if err != nil {
			return nil, err
		}
		return settle(th, c, ".compute", a[1], nv, mods)
	})
	method(".computeIfAbsent", 3, 3, maps, func(th *thread, c *Cell, _ utilClass, a []Value) (Value, error) {
		old, mods, had := lookup(c, a[1])
		if had {
			return old, nil
		}
		nv, err := th.call(a[2], []Value{a[1]})
		if err != nil || nv == nil {
			return nil, err // nil: nothing is put
		}
		return settle(th, c, ".computeIfAbsent", a[1], nv, mods)
	})
	method(".computeIfPresent", 3, 3, maps, func(th *thread, c *Cell, _ utilClass, a []Value) (Value, error) {
		old, mods, had := lookup(c, a[1])
		if !had {
			return nil, nil
		}
		nv, err := th.call(a[2], []Value{a[1], old})
		if err != nil {
			return nil, err
		}
		return settle(th, c, ".computeIfPresent", a[1], nv, mods)
	})

	// .forEach calls f with each element, or each key and value, of what
	// the collection holds when it begins.
	method(".forEach", 2, 2, func(utilClass) bool { return true }, func(th *thread, c *Cell, k utilClass, a []Value) (Value, error) {
		items, err := th.utilItems(c, ".forEach")
		if err != nil {
			return nil, err
		}
		items = append([]Value(nil), items...)
		for _, x := range items {
			args := []Value{x}
			if k.isMap() {
				e := x.(*Vector)
				args = []Value{e.At(0), e.At(1)}
			}
			if _, err := th.call(a[1], args); err != nil {
				return nil, err
			}
		}
		return nil, nil
	})

	// .replaceAll sets each element of a list to (f x), each value of a
	// map to (f k v).
	method(".replaceAll", 2, 2, func(k utilClass) bool { return k.isMap() || lists(k) }, func(th *thread, c *Cell, k utilClass, a []Value) (Value, error) {
		var items []Value
		var mods uint64
		utilRead(c, func(d *utilData) bool {
			items, mods = d.items(), d.mods
			if k.isMap() {
				items = d.ordered()
				if items == nil {
					items = mapEntries(d.coll.(*Map))
				}
			}
			return true
		})
		if err := th.charge(2 * int64(len(items))); err != nil {
			return nil, err
		}
		out := make([]Value, len(items))
		for i, x := range items {
			args := []Value{x}
			if k.isMap() {
				e := x.(*Vector)
				args = []Value{e.At(0), e.At(1)}
			}
			v, err := th.call(a[1], args)
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return change(th, c, func(d *utilData) (Value, error) {
			if d.mods != mods+1 {
				return nil, concurrentModification(".replaceAll")
			}
			if k.isMap() {
				for i, x := range items {
					d.put(x.(*Vector).At(0), out[i])
				}
				return nil, nil
			}
			d.front, d.back = nil, out
			return nil, nil
		})
	})

	// .removeIf removes the elements for which (f x) is true; whether it
	// removed any.
	method(".removeIf", 2, 2, colls, func(th *thread, c *Cell, k utilClass, a []Value) (Value, error) {
		var items []Value
		var mods uint64
		utilRead(c, func(d *utilData) bool {
			items, mods = d.items(), d.mods
			if s, ok := d.coll.(*Set); ok {
				if items = d.ordered(); items == nil {
					items = s.Items()
				}
			}
			return true
		})
		if err := th.charge(int64(len(items))); err != nil {
			return nil, err
		}
		drop := make([]bool, len(items))
		any := false
		for i, x := range items {
			v, err := th.call(a[1], []Value{x})
			if err != nil {
				return nil, err
			}
			drop[i] = truthy(v)
			any = any || drop[i]
		}
		if !any {
			return false, nil
		}
		return change(th, c, func(d *utilData) (Value, error) {
			if d.mods != mods+1 {
				return nil, concurrentModification(".removeIf")
			}
			if k.isSet() {
				for i, x := range items {
					if drop[i] {
						d.remove(x)
					}
				}
				return true, nil
			}
			kept := make([]Value, 0, len(items))
			for i, x := range items {
				if !drop[i] {
					kept = append(kept, x)
				}
			}
			d.front, d.back = nil, kept
			return true, nil
		})
	})
}

func concurrentModification(name string) *Error {
	return classError(InvalidArgument, classConcurrentModification,
		"%s: the function changed the collection it was given (a ConcurrentModificationException in Java)", name)
}
