package lisp

// clojure.walk: walk, prewalk, postwalk and the functions built on them,
// with Clojure's results. A map's entries are visited as map entries (their
// key and value too), and what the function returns for one is conjoined
// into an empty map of the same kind (a sorted-by map keeps its
// comparator), as Clojure's (into (empty form) ...) does; a set gives a
// set, a vector a vector, a list or a sequence a list (see walkChildren).
//
// A walk is bounded as every walk of a value (language.md §13): each node
// visited counts a step, what is rebuilt is charged to the memory limit
// before it is built, and the nesting is bounded by the data depth limit.
// A value that shares its parts, such as [v v] doubled sixty times, has
// more nodes than any run can visit: its walk ends at the step or time
// limit, as Clojure's would run for ever.

func registerWalk(t *builtinTable) {
	t.add("clojure.walk/walk", 3, 3, func(th *thread, a []Value) (Value, error) {
		inner, err := fnArg("clojure.walk/walk", a, 0)
		if err != nil {
			return nil, err
		}
		outer, err := fnArg("clojure.walk/walk", a, 1)
		if err != nil {
			return nil, err
		}
		form, err := th.walkChildren(a[2], func(x Value) (Value, error) { return th.call1(inner, x) })
		if err != nil {
			return nil, err
		}
		return th.call1(outer, form)
	})
	t.add("clojure.walk/postwalk", 2, 2, func(th *thread, a []Value) (Value, error) {
		f, err := fnArg("clojure.walk/postwalk", a, 0)
		if err != nil {
			return nil, err
		}
		return th.postwalk(f, a[1], 0)
	})
	t.add("clojure.walk/prewalk", 2, 2, func(th *thread, a []Value) (Value, error) {
		f, err := fnArg("clojure.walk/prewalk", a, 0)
		if err != nil {
			return nil, err
		}
		return th.prewalk(f, a[1], 0)
	})
	// keywordize-keys and stringify-keys rebuild every map with (into {}
	// ...), as Clojure's do: a sorted map becomes an ordinary one.
	keys := func(name string, convert func(k Value) Value) {
		t.add(name, 1, 1, func(th *thread, a []Value) (Value, error) {
			f := &Builtin{Name: name, MinArgs: 1, MaxArgs: 1, fn: func(th *thread, a []Value) (Value, error) {
				m, ok := a[0].(*Map)
				if !ok {
					return a[0], nil
				}
				if err := th.charge(2 * int64(m.Len())); err != nil {
					return nil, err
				}
				b := emptyMapBuilder()
				for k, v := range m.All() {
					b.Set(convert(k), v)
				}
				return b.Map(), nil
			}}
			return th.postwalk(f, a[0], 0)
		})
	}
	keys("clojure.walk/keywordize-keys", func(k Value) Value {
		if s, ok := k.(string); ok {
			return Keyword(s)
		}
		return k
	})
	keys("clojure.walk/stringify-keys", func(k Value) Value {
		if kw, ok := k.(Keyword); ok {
			// (name k): the namespace of a qualified keyword is dropped.
			s := string(kw)
			for i := len(s) - 2; i > 0; i-- {
				if s[i] == '/' {
					return s[i+1:]
				}
			}
			return s
		}
		return k
	})
	replace := func(name string, pre bool) {
		t.add(name, 2, 2, func(th *thread, a []Value) (Value, error) {
			smap := a[0]
			f := &Builtin{Name: name, MinArgs: 1, MaxArgs: 1, fn: func(th *thread, a []Value) (Value, error) {
				// (if (contains? smap x) (smap x) x), with exact keys.
				switch m := smap.(type) {
				case *Map:
					if v, ok := m.getExact(a[0]); ok {
						return v, nil
					}
				case nil:
				case *Vector:
					if i, ok := a[0].(int64); ok && i >= 0 && i < int64(m.Len()) {
						return m.items[i], nil
					}
				default:
					return nil, argError(name, 0, "a map of replacements", smap)
				}
				return a[0], nil
			}}
			if pre {
				return th.prewalk(f, a[1], 0)
			}
			return th.postwalk(f, a[1], 0)
		})
	}
	replace("clojure.walk/prewalk-replace", true)
	replace("clojure.walk/postwalk-replace", false)
	demo := func(name string, pre bool) {
		t.add(name, 1, 1, func(th *thread, a []Value) (Value, error) {
			f := &Builtin{Name: name, MinArgs: 1, MaxArgs: 1, fn: func(th *thread, a []Value) (Value, error) {
				// (println "Walked:" (pr-str x))
				s, err := th.render(a[0], true)
				if err != nil {
					return nil, err
				}
				return a[0], th.print([]Value{"Walked:", s}, true)
			}}
			if pre {
				return th.prewalk(f, a[0], 0)
			}
			return th.postwalk(f, a[0], 0)
		})
	}
	demo("clojure.walk/prewalk-demo", true)
	demo("clojure.walk/postwalk-demo", false)
}

// postwalk is (postwalk f form): the children first, then f of the
// rebuilt form.
func (th *thread) postwalk(f, form Value, depth int) (Value, error) {
	if depth >= maxDataDepth {
		return nil, deepDataError()
	}
	if err := th.tick(); err != nil {
		return nil, err
	}
	form, err := th.walkChildren(form, func(x Value) (Value, error) { return th.postwalk(f, x, depth+1) })
	if err != nil {
		return nil, err
	}
	return th.call1(f, form)
}

// prewalk is (prewalk f form): f of the form first, then its children.
func (th *thread) prewalk(f, form Value, depth int) (Value, error) {
	if depth >= maxDataDepth {
		return nil, deepDataError()
	}
	if err := th.tick(); err != nil {
		return nil, err
	}
	form, err := th.call1(f, form)
	if err != nil {
		return nil, err
	}
	return th.walkChildren(form, func(x Value) (Value, error) { return th.prewalk(f, x, depth+1) })
}

// walkChildren rebuilds a collection from inner of each of its elements
// (clojure.walk/walk without the outer function), keeping its type as
// Clojure's walk does: a list (and a queue, which list? takes) gives a
// list, a map entry an entry of inner of its key and of its value, a
// vector a vector, a map or set one of the same kind (into (empty form)
// ...), a Cons or another sequence a sequence (a list here); other values
// are returned as they are.
func (th *thread) walkChildren(form Value, inner func(Value) (Value, error)) (Value, error) {
	switch c := form.(type) {
	case *Vector:
		if err := th.charge(int64(c.Len())); err != nil {
			return nil, err
		}
		out := make([]Value, c.Len())
		for i, x := range c.items {
			v, err := inner(x)
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		switch {
		case c.IsEntry():
			return newEntry(out[0], out[1]), nil
		case c.IsList(), c.IsQueue():
			return NewList(out), nil
		}
		return NewVector(out), nil
	case *Seq:
		// Clojure realizes the sequence (doall): an infinite one is an
		// error here, as it would never end there.
		xs, err := th.items(c, "clojure.walk")
		if err != nil {
			return nil, err
		}
		return th.walkChildren(NewList(xs), inner)
	case *Map, *Set:
		xs, err := th.items(c, "clojure.walk")
		if err != nil {
			return nil, err
		}
		parts := make([]Value, 1, len(xs)+1)
		parts[0] = emptySorted(c)
		for _, x := range xs {
			v, err := inner(x)
			if err != nil {
				return nil, err
			}
			parts = append(parts, v)
		}
		return seqConj(th, parts)
	}
	return form, nil
}
