package lisp

import "slices"

func registerMaps(t *builtinTable) {
	t.add("get", 2, 3, func(th *thread, a []Value) (Value, error) {
		var def Value
		if len(a) == 3 {
			def = a[2]
		}
		if t, ok := a[0].(*transientVector); ok {
			if v, ok := getKey(t, a[1]); ok {
				return v, nil
			}
			return def, nil
		}
		if s, ok := a[0].(string); ok {
			// A character: a walk from the start of the string, counted.
			if i, ok := a[1].(int64); ok && i >= 0 {
				if v, ok, err := th.nthGrapheme(s, int(min(i, int64(len(s))))); err != nil || ok {
					return v, err
				}
			}
			return def, nil
		}
		v, ok := getKey(a[0], a[1])
		if !ok {
			if k, found, err := th.sortedKey(a[0], a[1]); err != nil || found {
				if err != nil {
					return nil, err
				}
				v, _ = getKey(a[0], k)
				return v, nil
			}
			if path, isPath := a[1].(*Vector); isPath {
				if _, isMap := a[0].(*Map); isMap {
					// (get m [:a :b]) reads the path when no such vector key exists.
					if v, ok := getPath(a[0], path.items); ok {
						return v, nil
					}
				}
			}
			return def, nil
		}
		return v, nil
	})
	t.add("get-in", 2, 3, func(th *thread, a []Value) (Value, error) {
		path, err := pathArg("get-in", a[1])
		if err != nil {
			return nil, err
		}
		if err := th.ticks(len(path)); err != nil {
			return nil, err
		}
		v, ok := getPath(a[0], path)
		if !ok && len(a) == 3 {
			return a[2], nil
		}
		if t, whole := v.(*transientVector); whole {
			// (get-in table []) is the table itself, which a loop fills
			// in place (transient.go): the program gets a copy of it as it
			// is now, which later writes leave alone, as Clojure's value.
			return t.snapshot(th)
		}
		return v, nil
	})
	t.add("assoc", 3, -1, func(th *thread, a []Value) (Value, error) {
		// A table filled in place (transientVector) builds nothing: its
		// copy and its growth are charged where they happen.
		_, inPlace := a[0].(*transientVector)
		if len(a) == 3 { // (assoc m k v): most calls, in reduce's loops
			if !inPlace {
				if err := th.charge(3); err != nil {
					return nil, err
				}
			}
			return th.assocKey("assoc", a[0], a[1], a[2], true)
		}
		if len(a)%2 == 0 {
			return nil, errorf(ArityError, "assoc expects a map then key value pairs, got an odd number of keys and values")
		}
		if !inPlace {
			if err := th.charge(int64(len(a))); err != nil {
				return nil, err
			}
		}
		if m, ok := a[0].(*Map); ok && m.sorted() == nil {
			// All the pairs into one new small map, as the loop below
			// would set them one by one.
			if r := m.assocSmall(a[1:], true); r != nil {
				return r, nil
			}
		}
		coll := a[0]
		for i := 1; i < len(a); i += 2 {
			var err error
			if coll, err = th.assocKey("assoc", coll, a[i], a[i+1], true); err != nil {
				return nil, err
			}
		}
		return coll, nil
	})
	t.add("assoc-in", 3, 3, func(th *thread, a []Value) (Value, error) {
		path, err := pathArg("assoc-in", a[1])
		if err != nil {
			return nil, err
		}
		if err := th.chargePath(path); err != nil {
			return nil, err
		}
		if len(path) == 0 {
			return th.assocKey("assoc-in", a[0], nil, a[2], true)
		}
		return updateIn(th, "assoc-in", a[0], path, func(Value) (Value, error) { return a[2], nil })
	})
	t.add("update", 3, -1, func(th *thread, a []Value) (Value, error) {
		if _, inPlace := a[0].(*transientVector); !inPlace { // as assoc's
			if err := th.charge(2); err != nil {
				return nil, err
			}
		}
		f, extra := a[2], a[3:]
		k := existingKeyOf(a[0], a[1])
		old, _ := getExact(a[0], k)
		nv, err := applyUpdate(th, "update", f, old, extra)
		if err != nil {
			return nil, err
		}
		return th.assocKey("update", a[0], k, nv, false)
	})
	t.add("update-in", 3, -1, func(th *thread, a []Value) (Value, error) {
		path, err := pathArg("update-in", a[1])
		if err != nil {
			return nil, err
		}
		if err := th.chargePath(path); err != nil {
			return nil, err
		}
		f, extra := a[2], a[3:]
		if len(path) == 0 {
			return applyUpdate(th, "update-in", f, a[0], extra)
		}
		return updateIn(th, "update-in", a[0], path, func(old Value) (Value, error) {
			return applyUpdate(th, "update-in", f, old, extra)
		})
	})
	t.add("dissoc", 1, -1, func(th *thread, a []Value) (Value, error) {
		switch m := a[0].(type) {
		case nil:
			return nil, nil
		case *Map:
			for _, k := range a[1:] {
				if m.sorted() != nil {
					var err error
					if m, err = th.sortedDissoc(m, existingKey(m, k)); err != nil {
						return nil, err
					}
					continue
				}
				m = m.Dissoc(existingKey(m, k))
			}
			return m, nil
		case *transientMap:
			for _, k := range a[1:] {
				m.b.Delete(existingKeyOf(m, k))
			}
			return m, nil
		}
		return nil, argError("dissoc", 0, "a map", a[0])
	})
	t.add("merge", 0, -1, func(th *thread, a []Value) (Value, error) { return mergeMaps(th, "merge", nil, a) })
	t.add("merge-with", 1, -1, func(th *thread, a []Value) (Value, error) {
		f, err := fnArg("merge-with", a, 0)
		if err != nil {
			return nil, err
		}
		return mergeMaps(th, "merge-with", f, a[1:])
	})
	t.add("select-keys", 2, 2, func(th *thread, a []Value) (Value, error) {
		ks, err := th.items(a[1], "select-keys")
		if err != nil {
			return nil, err
		}
		if v, ok := a[0].(*Vector); ok {
			// A vector's keys are its indexes: (select-keys [1 2 3] [0 2]) is {0 1, 2 3}.
			if err := th.charge(2 * int64(min(len(ks), v.Len()))); err != nil {
				return nil, err
			}
			b := emptyMapBuilder()
			for _, k := range ks {
				if i, ok := k.(int64); ok && i >= 0 && i < int64(v.Len()) {
					b.Set(k, v.items[i])
				}
			}
			return b.Map(), nil
		}
		m, ok := a[0].(*Map)
		if !ok {
			if a[0] == nil {
				return emptyMap, nil
			}
			return nil, argError("select-keys", 0, "a map or vector", a[0])
		}
		if err := th.charge(2 * int64(min(len(ks), m.Len()))); err != nil {
			return nil, err
		}
		b := emptyMapBuilder()
		for _, k := range ks {
			if v, ok := m.Get(k); ok {
				b.Set(k, v)
			}
		}
		return b.Map(), nil
	})
	t.add("keys", 1, 1, func(th *thread, a []Value) (Value, error) {
		if _, ok := a[0].(*Map); !ok && a[0] != nil {
			return entryParts(th, "keys", a[0], 0)
		}
		m, err := mapArg("keys", a[0])
		if err != nil || m == nil || m.Len() == 0 {
			return nil, err
		}
		if err := th.charge(int64(m.Len())); err != nil {
			return nil, err
		}
		return NewVector(m.Keys()), th.ticks(m.Len())
	})
	t.add("vals", 1, 1, func(th *thread, a []Value) (Value, error) {
		if _, ok := a[0].(*Map); !ok && a[0] != nil {
			return entryParts(th, "vals", a[0], 1)
		}
		m, err := mapArg("vals", a[0])
		if err != nil || m == nil || m.Len() == 0 {
			return nil, err
		}
		if err := th.charge(int64(m.Len())); err != nil {
			return nil, err
		}
		out := make([]Value, 0, m.Len())
		for _, v := range m.All() {
			out = append(out, v)
		}
		return NewVector(out), th.ticks(m.Len())
	})
	t.add("entries", 1, 1, func(th *thread, a []Value) (Value, error) {
		m, err := mapArg("entries", a[0])
		if err != nil || m == nil {
			return emptyVector, err
		}
		if err := th.charge(entriesSlots(m.Len())); err != nil {
			return nil, err
		}
		return NewVector(mapEntries(m)), th.ticks(m.Len())
	})
	t.add("key", 1, 1, func(th *thread, a []Value) (Value, error) { return entryPart("key", a[0], 0) })
	t.add("val", 1, 1, func(th *thread, a []Value) (Value, error) { return entryPart("val", a[0], 1) })
	t.add("update-vals", 2, 2, func(th *thread, a []Value) (Value, error) {
		if v, ok := a[0].(*Vector); ok {
			// Clojure: a vector is associative, its indexes are its keys.
			if err := th.charge(int64(v.Len())); err != nil {
				return nil, err
			}
			out := make([]Value, v.Len())
			for i, x := range v.items {
				nx, err := th.call1(a[1], x)
				if err != nil {
					return nil, err
				}
				out[i] = nx
			}
			return NewVector(out), nil
		}
		m, err := mapArg("update-vals", a[0])
		if err != nil {
			if isFunction(a[0]) {
				return nil, errorf(TypeError, "update-vals takes (update-vals m f): the map goes first (with a threading macro use ->, not ->>)")
			}
			return nil, err
		}
		if m == nil {
			return emptyMap, nil // Clojure: {}
		}
		if err := th.chargeMerge(m); err != nil {
			return nil, err
		}
		b := newMapBuilder(treeOf(m))
		for k, v := range m.All() {
			nv, err := th.call1(a[1], v)
			if err != nil {
				return nil, err
			}
			b.Set(k, nv)
		}
		return b.Map(), nil
	})
	t.add("update-keys", 2, 2, func(th *thread, a []Value) (Value, error) {
		m, err := indexedMapArg(th, "update-keys", a[0])
		if err != nil {
			return nil, err
		}
		if m == nil {
			return emptyMap, nil // Clojure: {}
		}
		if err := th.chargeMerge(m); err != nil {
			return nil, err
		}
		b := emptyMapBuilder()
		for k, v := range m.All() {
			nk, err := th.call1(a[1], k)
			if err != nil {
				return nil, err
			}
			b.Set(nk, v)
		}
		return b.Map(), nil
	})
	t.add("zipmap", 2, 2, func(th *thread, a []Value) (Value, error) {
		colls, n, err := th.multiItems("zipmap", a)
		if err != nil {
			return nil, err
		}
		if err := th.charge(2 * int64(n)); err != nil {
			return nil, err
		}
		b := emptyMapBuilder()
		for i := 0; i < n; i++ {
			b.Set(colls[0][i], colls[1][i])
		}
		return b.Map(), nil
	})
	t.add("reduce-kv", 3, 3, func(th *thread, a []Value) (Value, error) {
		acc := a[1]
		switch c := a[2].(type) {
		case nil:
			return acc, nil
		case *Map:
			if err := th.ticks(c.Len()); err != nil {
				return nil, err
			}
			for k, v := range c.All() {
				var err error
				if acc, err = th.call3(a[0], acc, k, v); err != nil {
					return nil, err
				}
				if r, ok := acc.(*reduced); ok {
					return r.value, nil
				}
			}
			return acc, nil
		case *Vector:
			if err := th.ticks(len(c.items)); err != nil {
				return nil, err
			}
			for i, v := range c.items {
				var err error
				if acc, err = th.call3(a[0], acc, int64(i), v); err != nil {
					return nil, err
				}
				if r, ok := acc.(*reduced); ok {
					return r.value, nil
				}
			}
			return acc, nil
		}
		return nil, argError("reduce-kv", 2, "a map", a[2])
	})
	t.add("hash-map", 0, -1, func(th *thread, a []Value) (Value, error) {
		if len(a)%2 != 0 {
			return nil, errorf(ArityError, "hash-map expects key value pairs, got an odd number of arguments")
		}
		if err := th.charge(int64(len(a))); err != nil { // two slots per entry
			return nil, err
		}
		return NewMap(a...), nil
	}, "array-map")
	t.add("hash-set", 0, -1, func(th *thread, a []Value) (Value, error) {
		if err := th.charge(2 * int64(len(a))); err != nil {
			return nil, err
		}
		return NewSet(a...), nil
	})
	// sorted-map and sorted-set: the canonical order is every map's and
	// set's, so they are ordinary ones with sorted-map's (sorted-set's)
	// mark, which type, class and sorted? see and the functions that keep
	// Clojure's type keep.
	t.add("sorted-map", 0, -1, func(th *thread, a []Value) (Value, error) {
		if len(a)%2 != 0 {
			return nil, errorf(ArityError, "sorted-map expects key value pairs, got an odd number of arguments")
		}
		if err := th.charge(int64(len(a))); err != nil { // two slots per entry
			return nil, err
		}
		return &Map{t: NewMap(a...).tree(), vals: naturalVals}, nil
	})
	t.add("sorted-set", 0, -1, func(th *thread, a []Value) (Value, error) {
		if err := th.charge(2 * int64(len(a))); err != nil {
			return nil, err
		}
		return &Set{t: NewSet(a...).t, by: naturalOrder}, nil
	})
	// sorted?: Clojure's Sorted, the collections of sorted-map, sorted-set
	// and their -by forms (every map iterates in order here, but only
	// those are sorted? there).
	t.add("sorted?", 1, 1, func(_ *thread, a []Value) (Value, error) {
		switch c := a[0].(type) {
		case *Map:
			return c.sorted() != nil || c.isSortedMap(), nil
		case *Set:
			return c.by != nil, nil
		}
		return false, nil
	})
	t.add("set", 1, 1, func(th *thread, a []Value) (Value, error) {
		if s, ok := a[0].(*Set); ok {
			return s, nil
		}
		xs, err := th.items(a[0], "set")
		if err != nil {
			return nil, err
		}
		if err := th.charge(2 * int64(len(xs))); err != nil {
			return nil, err
		}
		return NewSet(xs...), nil
	})
	t.add("disj", 1, -1, func(th *thread, a []Value) (Value, error) {
		switch s := a[0].(type) {
		case nil:
			return nil, nil
		case *Set:
			for _, x := range a[1:] {
				if s.sorted() != nil {
					var err error
					if s, err = th.sortedDisj(s, x); err != nil {
						return nil, err
					}
					continue
				}
				s = s.Disj(x)
			}
			return s, nil
		}
		return nil, argError("disj", 0, "a set", a[0])
	})

	// clojure.set, also reachable as set/... and unqualified.
	t.add("clojure.set/union", 0, -1, func(th *thread, a []Value) (Value, error) {
		allNil := len(a) > 0
		for _, x := range a {
			switch x.(type) {
			case nil:
				continue
			case *Set:
			default:
				return unionConj(th, a)
			}
			allNil = false
		}
		if allNil {
			return nil, nil // Clojure: (union nil) is nil
		}
		b := newSetBuilder(nil)
		for i := range a {
			s, err := setArg("union", a, i)
			if err != nil {
				return nil, err
			}
			if err := th.charge(2 * int64(s.Len())); err != nil {
				return nil, err
			}
			if err := th.ticks(s.Len()); err != nil {
				return nil, err
			}
			for x := range s.All() {
				b.Add(x)
			}
		}
		return b.Set(), nil
	}, "union")
	t.add("clojure.set/intersection", 1, -1, func(th *thread, a []Value) (Value, error) {
		if _, isVec := a[0].(*Vector); isVec && len(a) == 1 {
			return a[0], nil // Clojure returns its one argument
		}
		if slices.Contains(a, nil) {
			return nil, nil // Clojure: the intersection with nil is nil
		}
		first, err := th.setLikeArg("intersection", a, 0)
		if err != nil {
			return nil, err
		}
		rest := make([]*Set, 0, len(a)-1)
		for i := 1; i < len(a); i++ {
			s, err := th.setLikeArg("intersection", a, i)
			if err != nil {
				return nil, err
			}
			rest = append(rest, s)
		}
		// Each element of the first set is looked up in every other one; the
		// result is at most the smallest set.
		smallest := first.Len()
		for _, s := range rest {
			smallest = min(smallest, s.Len())
		}
		if err := th.charge(2 * int64(smallest)); err != nil {
			return nil, err
		}
		if err := th.ticks(first.Len() * max(1, len(rest))); err != nil {
			return nil, err
		}
		b := newSetBuilder(nil)
	outer:
		for x := range first.All() {
			for _, s := range rest {
				if !s.Has(x) {
					continue outer
				}
			}
			b.Add(x)
		}
		return b.Set(), nil
	}, "intersection")
	t.add("clojure.set/difference", 1, -1, func(th *thread, a []Value) (Value, error) {
		if _, isVec := a[0].(*Vector); isVec && len(a) == 1 {
			return a[0], nil // Clojure returns its one argument
		}
		if a[0] == nil {
			return nil, nil // Clojure: nil minus anything is nil
		}
		first, err := th.setLikeArg("difference", a, 0)
		if err != nil {
			return nil, err
		}
		for i := 1; i < len(a); i++ {
			s, err := th.setLikeArg("difference", a, i)
			if err != nil {
				return nil, err
			}
			if err := th.ticks(s.Len()); err != nil {
				return nil, err
			}
			for x := range s.All() {
				first = first.Disj(x)
			}
		}
		return first, nil
	}, "difference")
	t.add("clojure.set/subset?", 2, 2, func(th *thread, a []Value) (Value, error) {
		x, err := th.setLikeArg("subset?", a, 0)
		if err != nil {
			return nil, err
		}
		y, err := th.setLikeArg("subset?", a, 1)
		if err != nil {
			return nil, err
		}
		return isSubset(x, y), th.ticks(min(x.Len(), y.Len()))
	}, "subset?")
	t.add("clojure.set/superset?", 2, 2, func(th *thread, a []Value) (Value, error) {
		x, err := th.setLikeArg("superset?", a, 0)
		if err != nil {
			return nil, err
		}
		y, err := th.setLikeArg("superset?", a, 1)
		if err != nil {
			return nil, err
		}
		return isSubset(y, x), th.ticks(min(x.Len(), y.Len()))
	}, "superset?")
	t.add("clojure.set/select", 2, 2, func(th *thread, a []Value) (Value, error) {
		if a[1] == nil {
			return nil, nil // Clojure: (select pred nil) is nil
		}
		s, err := th.setLikeArg("select", a, 1)
		if err != nil {
			return nil, err
		}
		if err := th.ticks(s.Len()); err != nil {
			return nil, err
		}
		b := newSetBuilder(nil)
		for x := range s.All() {
			ok, err := th.test(a[0], x)
			if err != nil {
				return nil, err
			}
			if ok {
				if err := th.charge(2); err != nil {
					return nil, err
				}
				b.Add(x)
			}
		}
		return b.Set(), nil
	})
	t.add("clojure.set/map-invert", 1, 1, func(th *thread, a []Value) (Value, error) {
		m, err := indexedMapArg(th, "map-invert", a[0])
		if err != nil || m == nil {
			return emptyMap, err
		}
		if err := th.chargeMerge(m); err != nil {
			return nil, err
		}
		b := emptyMapBuilder()
		for k, v := range m.All() {
			b.Set(v, k)
		}
		return b.Map(), nil
	})
	t.add("clojure.set/rename-keys", 2, 2, func(th *thread, a []Value) (Value, error) {
		m, err := mapArg("rename-keys", a[0])
		if err != nil || m == nil {
			return nil, err
		}
		renames, err := mapArg("rename-keys", a[1])
		if err != nil {
			return nil, err
		}
		out := m
		if renames != nil {
			if err := th.chargeMerge(renames); err != nil {
				return nil, err
			}
			for from := range renames.All() {
				out = out.Dissoc(from)
			}
			for from, to := range renames.All() {
				if v, ok := m.getExact(from); ok {
					out = out.Assoc(to, v)
				}
			}
		}
		return out, nil
	})
	t.add("clojure.set/project", 2, 2, func(th *thread, a []Value) (Value, error) {
		xs, err := th.items(a[0], "project")
		if err != nil {
			return nil, err
		}
		ks, err := th.items(a[1], "project")
		if err != nil {
			return nil, err
		}
		b := newSetBuilder(nil)
		for _, x := range xs {
			m, ok := x.(*Map)
			if !ok {
				return nil, errorf(TypeError, "project expects a set of maps, got %s", describe(x))
			}
			// Every key is looked up in every map: count the steps, and
			// charge the projection (and its place in the set).
			if err := th.ticks(len(ks)); err != nil {
				return nil, err
			}
			if err := th.charge(2*int64(min(len(ks), m.Len())) + 2); err != nil {
				return nil, err
			}
			mb := emptyMapBuilder()
			for _, k := range ks {
				if v, ok := m.getExact(k); ok {
					mb.Set(k, v)
				}
			}
			b.Add(mb.Map())
		}
		return b.Set(), nil
	})
	t.add("clojure.set/index", 2, 2, func(th *thread, a []Value) (Value, error) {
		xs, err := th.items(a[0], "index")
		if err != nil {
			return nil, err
		}
		ks, err := th.items(a[1], "index")
		if err != nil {
			return nil, err
		}
		groups := newValueMap[*setBuilder](th, 0)
		for _, x := range xs {
			m, ok := x.(*Map)
			if !ok {
				return nil, errorf(TypeError, "index expects a set of maps, got %s", describe(x))
			}
			// As project, plus the map's place in its group.
			if err := th.ticks(len(ks)); err != nil {
				return nil, err
			}
			if err := th.charge(2*int64(min(len(ks), m.Len())) + 2); err != nil {
				return nil, err
			}
			kb := emptyMapBuilder()
			for _, k := range ks {
				if v, ok := m.getExact(k); ok {
					kb.Set(k, v)
				}
			}
			g := groups.ref(kb.Map())
			if *g == nil {
				if err := th.charge(valueMapSlots); err != nil {
					return nil, err
				}
				*g = newSetBuilder(nil)
			}
			(*g).Add(m)
		}
		return groups.toMap(func(b **setBuilder) Value { return (*b).Set() }), nil
	})

	renameKeys := t.names["clojure.set/rename-keys"].(*Builtin).fn
	t.add("clojure.set/rename", 2, 2, func(th *thread, a []Value) (Value, error) {
		xs, err := relationItems(th, "rename", a[0])
		if err != nil {
			return nil, err
		}
		buf := []Value{nil, a[1]}
		b := newSetBuilder(nil)
		for _, x := range xs {
			buf[0] = x
			m, err := renameKeys(th, buf)
			if err != nil {
				return nil, err
			}
			if err := th.charge(2); err != nil { // its place in the set
				return nil, err
			}
			b.Add(m)
		}
		return b.Set(), nil
	})
	t.add("clojure.set/join", 2, 3, setJoin)
}

func isSubset(x, y *Set) bool {
	if x.Len() > y.Len() {
		return false
	}
	for e := range x.All() {
		if !y.Has(e) {
			return false
		}
	}
	return true
}

// setLikeArg is setArg that also takes a vector as the set of its
// elements: Clojure's clojure.set functions accept any collection where
// they only test membership, and contains? on a vector tests the value here
// (deviations.md row 27).
func (th *thread) setLikeArg(fn string, a []Value, i int) (*Set, error) {
	v, ok := a[i].(*Vector)
	if !ok {
		return setArg(fn, a, i)
	}
	if err := th.charge(2 * int64(v.Len())); err != nil {
		return nil, err
	}
	if err := th.ticks(v.Len()); err != nil {
		return nil, err
	}
	b := newSetBuilder(nil)
	for _, x := range v.items {
		b.Add(x)
	}
	return b.Set(), nil
}

// unionConj is Clojure's union of arguments that are not all sets: the
// largest (the last of equal ones) absorbs the others with conj, so
// (union [1 2] [2 3]) ⇒ [1 2 2 3] and (union #{1} [2 3]) ⇒ [2 3 1].
func unionConj(th *thread, a []Value) (Value, error) {
	if len(a) == 1 {
		return a[0], nil
	}
	count := func(v Value) (int, error) { return countOf1(th, "union", v) }
	var order []Value
	if len(a) == 2 {
		n0, err := count(a[0])
		if err != nil {
			return nil, err
		}
		n1, err := count(a[1])
		if err != nil {
			return nil, err
		}
		order = []Value{a[0], a[1]}
		if n0 < n1 {
			order = []Value{a[1], a[0]}
		}
	} else {
		// bubble-max-key over (s1 s2 s3 …): the largest first (max-key keeps
		// the last of equal counts), the others in their order.
		best, bestN := 0, -1
		for i, x := range a {
			n, err := count(x)
			if err != nil {
				return nil, err
			}
			if n >= bestN {
				best, bestN = i, n
			}
		}
		order = append(order, a[best])
		for i, x := range a {
			if i != best {
				order = append(order, x)
			}
		}
	}
	acc := order[0]
	for _, x := range order[1:] {
		var err error
		if acc, err = seqInto(th, []Value{acc, x}); err != nil {
			return nil, err
		}
	}
	return acc, nil
}

func setArg(fn string, a []Value, i int) (*Set, error) {
	switch s := a[i].(type) {
	case *Set:
		return s, nil
	case nil:
		return emptySet, nil
	}
	return nil, argError(fn, i, "a set (convert a vector with (set v))", a[i])
}

func mapArg(fn string, v Value) (*Map, error) {
	switch m := v.(type) {
	case *Map:
		return m, nil
	case nil:
		return nil, nil
	}
	return nil, errorf(TypeError, "%s expects a map, got %s", fn, describe(v))
}

// indexedMapArg is mapArg that also takes a vector as Clojure's
// associative functions see it: a map from each index to its element.
func indexedMapArg(th *thread, fn string, v Value) (*Map, error) {
	vec, ok := v.(*Vector)
	if !ok {
		return mapArg(fn, v)
	}
	if err := th.charge(2 * int64(vec.Len())); err != nil {
		return nil, err
	}
	b := emptyMapBuilder()
	for i, x := range vec.items {
		b.Set(int64(i), x)
	}
	return b.Map(), nil
}

func pathArg(fn string, v Value) ([]Value, error) {
	switch p := v.(type) {
	case *Vector:
		return p.items, nil
	case nil:
		return nil, nil
	}
	return nil, errorf(TypeError, "%s expects a path vector such as [:a :b], got %s", fn, describe(v))
}

// chargePath accounts for assoc-in and update-in along path: a step and a
// new map entry for each level.
func (th *thread) chargePath(path []Value) error {
	if err := th.charge(2 * int64(len(path))); err != nil {
		return err
	}
	return th.ticks(len(path))
}

func entryPart(fn string, v Value, i int) (Value, error) {
	if e, ok := v.(*Vector); ok && e.Len() == 2 {
		return e.items[i], nil
	}
	return nil, errorf(TypeError, "%s expects a map entry [key value], got %s", fn, describe(v))
}

// getKey is get: flexible keys on maps, indexes on vectors and strings,
// membership on sets.
func getKey(coll, k Value) (Value, bool) {
	switch c := coll.(type) {
	case *Map:
		return c.Get(k)
	case *transientVector:
		if i, ok := k.(int64); ok && i >= 0 && i < int64(len(c.items)) {
			return c.row(int(i)), true
		}
	case *Vector:
		// A list or a queue is not associative: (get '(1 2) 0) is nil,
		// as in Clojure.
		if i, ok := k.(int64); ok && i >= 0 && i < int64(c.Len()) && c.isVectorType() {
			return c.items[i], true
		}
	case *Set:
		if c.Has(k) {
			return k, true
		}
	case *Cell:
		// A java.util map or set, as Clojure's get reads it (not a list).
		if c.kind == utilCell {
			if v := utilValue(c); !isVectorValue(v) {
				return getKey(v, k)
			}
		}
	case string:
		// Walked, not split into a slice of every character (get counts
		// the steps of the walk; get-in and update walk it uncounted, at
		// most the string's length once per path element).
		if i, ok := k.(int64); ok && i >= 0 && i < int64(len(c)) {
			for j, pos := int64(0), 0; pos < len(c); j++ {
				n := graphemeLen(c[pos:])
				if j == i {
					return c[pos : pos+n], true
				}
				pos += n
			}
		}
	}
	return nil, false
}

// getExact is get with exact map keys (assoc, update, dissoc do not fall back).
func getExact(coll, k Value) (Value, bool) {
	switch m := coll.(type) {
	case *Map:
		return m.getExact(k)
	case *transientMap:
		return m.b.Get(k)
	}
	return getKey(coll, k)
}

func getPath(v Value, path []Value) (Value, bool) {
	for j, k := range path {
		if m, ok := v.(*Map); ok {
			// getKey's case of maps, the common one, without its layers.
			if v, ok = m.Get(k); !ok {
				return nil, false
			}
			continue
		}
		if t, ok := v.(*transientVector); ok && j < len(path)-1 {
			// Through a table's row without freezing it: what the path
			// ends at is an element of the row.
			i, ok := k.(int64)
			if !ok || i < 0 || i >= int64(len(t.items)) {
				return nil, false
			}
			v = t.items[i]
			continue
		}
		var ok bool
		if v, ok = getKey(v, k); !ok {
			return nil, false
		}
	}
	return v, true
}

// assocKey sets k in a map (nil starts a new map) or an index of a vector.
// flexible reuses an existing key of the other spelling (keyword/string).
func (th *thread) assocKey(fn string, coll, k, v Value, flexible bool) (Value, error) {
	if c, ok := coll.(*transientMap); ok {
		// First: the loops of reduce and into come here once per element.
		// c.set by hand, one type switch for both of its checks.
		switch k.(type) {
		case Keyword, string:
			if flexible {
				k = existingNameOf(c, k)
			}
			c.kinds |= kindOf(k)
		}
		c.b.Set(k, v)
		return c, nil
	}
	switch c := coll.(type) {
	case nil:
		return NewMap(k, v), nil
	case *transientVector:
		i, ok := k.(int64)
		if !ok || i < 0 || i > int64(len(c.items)) {
			class := classIndexOutOfBound
			if !ok {
				class = classIllegalArgument
			}
			return nil, classError(InvalidArgument, class, "%s: index %s is outside the vector of %d elements", fn, brief(k), len(c.items))
		}
		return c, c.set(th, int(i), v)
	case *Map:
		if flexible {
			k = existingKey(c, k)
		}
		if c.sorted() != nil {
			return th.sortedAssoc(c, k, v)
		}
		return c.Assoc(k, v), nil
	case *Vector:
		if c.IsList() {
			return nil, argError(fn, 0, "a map or vector (a list is not associative)", coll)
		}
		if c.IsQueue() {
			return nil, argError(fn, 0, "a map or vector (a queue is not associative)", coll)
		}
		i, ok := k.(int64)
		if !ok || i < 0 || i > int64(c.Len()) {
			class := classIndexOutOfBound
			if !ok {
				class = classIllegalArgument // Clojure: Key must be integer
			}
			return nil, classError(InvalidArgument, class, "%s: index %s is outside the vector of %d elements", fn, brief(k), c.Len())
		}
		return th.assocVector(c, int(i), v)
	}
	return nil, argError(fn, 0, "a map or vector", coll)
}

// existingKey returns the key of m that k flexibly matches, or k: the
// keyword :a names the key "a" of a map from JSON (and "a" names :a) when
// the map does not hold k itself, for the builtins that write or remove a
// key (assoc, dissoc, update, the paths of assoc-in and update-in) as for
// lookups. A key of neither spelling is k as written.
func existingKey(m *Map, k Value) Value {
	if m.keyKinds().flexible(k) {
		return existingKeyIn(m.getExact, k)
	}
	return k
}

// existingKeyOf is existingKey for any collection: maps and transient maps
// match flexibly, anything else (a vector's index) is k.
func existingKeyOf(coll, k Value) Value {
	switch k.(type) {
	case Keyword, string:
		return existingNameOf(coll, k)
	}
	return k
}

func existingNameOf(coll, k Value) Value {
	switch c := coll.(type) {
	case *Map:
		return existingKey(c, k)
	case *transientMap:
		if c.kinds.flexible(k) {
			return existingKeyIn(c.b.Get, k)
		}
	}
	return k
}

// existingKeyIn is existingKey over a lookup of exact keys, for a keyword
// or string k.
func existingKeyIn(get func(Value) (Value, bool), k Value) Value {
	alt, ok := otherSpelling(k)
	if !ok {
		return k
	}
	if _, ok := get(k); ok {
		return k
	}
	if _, ok := get(alt); ok {
		return alt
	}
	return k
}

// updateIn replaces the value at path, creating maps along the way.
func updateIn(th *thread, fn string, coll Value, path []Value, f func(Value) (Value, error)) (Value, error) {
	if len(path) > maxDataDepth {
		return nil, errorf(DepthExceeded, "%s: path longer than %d", fn, maxDataDepth)
	}
	k := existingKeyOf(coll, path[0])
	var old Value
	if t, ok := coll.(*transientVector); ok && len(path) > 1 {
		// A table of rows: the row is filled in place too (frozen when a
		// read hands it out, transientVector.row).
		if i, ok := k.(int64); ok && i >= 0 && i < int64(len(t.items)) {
			old = t.items[i]
			if r, ok := old.(*Vector); ok && !r.IsList() && r.kindOf() == plainKind {
				old = &transientVector{items: r.items, from: r}
			}
		}
	} else {
		old, _ = getExact(coll, k)
	}
	var nv Value
	var err error
	if len(path) == 1 {
		nv, err = f(old)
	} else {
		switch old.(type) {
		case nil, *Map, *Vector, *transientVector:
		default:
			return nil, errorf(TypeError, "%s: %s at %s is not a map", fn, describe(old), brief(k))
		}
		nv, err = updateIn(th, fn, old, path[1:], f)
	}
	if err != nil {
		return nil, err
	}
	return th.assocKey(fn, coll, k, nv, false)
}

func applyUpdate(th *thread, fn string, f, old Value, extra []Value) (Value, error) {
	if !isCallable(f) {
		return nil, errorf(TypeError, "%s expects a function after the key, got %s (to set a value use assoc)", fn, describe(f))
	}
	args := make([]Value, 0, 1+len(extra))
	args = append(append(args, old), extra...)
	v, err := th.call(f, args)
	if err != nil {
		if e, ok := err.(*Error); ok && (e.Kind == ArityError || e.Kind == arityMismatch) && len(extra) > 0 {
			e.Message += "; note that " + fn + " passes the old value first and the extra arguments after it"
		}
		return nil, err
	}
	return v, nil
}

func mergeMaps(th *thread, fn string, f Value, maps []Value) (Value, error) {
	if f == nil {
		for _, x := range maps {
			switch x.(type) {
			case nil, *Map, *transientMap:
				continue
			}
			return mergeConj(th, maps)
		}
	}
	n := 0
	for _, m := range maps[min(1, len(maps)):] {
		n += countOrZero(m)
	}
	if err := th.charge(2 * int64(n)); err != nil {
		return nil, err
	}
	if err := th.ticks(n); err != nil {
		return nil, err
	}
	if len(maps) > 0 {
		if t, ok := maps[0].(*transientMap); ok {
			return mergeInto(th, fn, f, t, maps[1:])
		}
		if m, ok := maps[0].(*Map); ok && m.sorted() != nil && f == nil {
			// merge conjoins onto the first map: a sorted-by one keeps
			// its comparator.
			return seqConj(th, maps)
		}
	}
	var out, first *Map
	for i, x := range maps {
		switch m := x.(type) {
		case nil:
			continue
		case *Map:
			if out == nil {
				out, first = m, m
				continue
			}
			if f == nil && m.Len() > out.Len()*4 && out.Len() < 8 {
				// Small into big: assoc the small map's entries "under" the big one.
				b := newMapBuilder(treeOf(m))
				for k, v := range out.All() {
					if _, ok := b.Get(k); !ok {
						b.Set(k, v)
					}
				}
				out = b.Map()
				continue
			}
			b := newMapBuilder(treeOf(out))
			for k, v := range m.All() {
				if f != nil {
					if old, ok := b.Get(k); ok {
						nv, err := th.call2(f, old, v)
						if err != nil {
							return nil, err
						}
						v = nv
					}
				}
				b.Set(k, v)
			}
			out = b.Map()
		default:
			return nil, argError(fn, i, "a map", x)
		}
	}
	if out == nil {
		return nil, nil
	}
	// The first map's kind: a sorted-map's merge is a sorted map.
	return inOrderOf(first, out), nil
}

// mergeConj is Clojure's merge of arguments that are not all maps: conj
// each onto the result of the ones before ({} for nil), so
// (merge [1 2] 3) ⇒ [1 2 3] and (merge {:a 1} [:b 2]) ⇒ {:a 1, :b 2}.
func mergeConj(th *thread, maps []Value) (Value, error) {
	acc := maps[0]
	for _, x := range maps[1:] {
		if acc == nil {
			acc = emptyMap
		}
		var err error
		if acc, err = seqConj(th, []Value{acc, x}); err != nil {
			return nil, err
		}
	}
	return acc, nil
}

// call3 calls f with three arguments.
func (th *thread) call3(f, x, y, z Value) (Value, error) {
	buf, mark := th.stack.alloc(3)
	buf[0], buf[1], buf[2] = x, y, z
	v, err := th.call(f, buf)
	th.stack.release(buf, mark)
	return v, err
}

// mergeInto merges maps into a transient accumulator in place.
func mergeInto(th *thread, fn string, f Value, t *transientMap, rest []Value) (Value, error) {
	for i, x := range rest {
		switch m := x.(type) {
		case nil:
		case *Map:
			for k, v := range m.All() {
				if f != nil {
					if old, ok := t.b.Get(k); ok {
						nv, err := th.call2(f, old, v)
						if err != nil {
							return nil, err
						}
						v = nv
					}
				}
				t.set(k, v)
			}
		default:
			return nil, argError(fn, i+1, "a map", x)
		}
	}
	return t, nil
}

// relationItems returns the maps of a relation (a set or sequence of maps).
func relationItems(th *thread, fn string, rel Value) ([]Value, error) {
	if s, ok := rel.(*Seq); ok && !s.finite {
		return nil, infiniteError(s, fn)
	}
	if _, ok := rel.(*Map); ok {
		return nil, errorf(TypeError, "%s expects a set of maps, got a single map", fn)
	}
	xs, err := th.items(rel, fn)
	if err != nil {
		return nil, err
	}
	for _, x := range xs {
		if _, ok := x.(*Map); !ok {
			return nil, errorf(TypeError, "%s expects a set of maps, got an element %s", fn, describe(x))
		}
	}
	return xs, nil
}

// setJoin is clojure.set/join: the natural join of two relations on their
// shared keys (those of their first maps), or the join on the key mapping
// km {xkey ykey}. The smaller relation is indexed; on a clash the values of
// the other one win, as in Clojure.
func setJoin(th *thread, a []Value) (Value, error) {
	xs, err := relationItems(th, "join", a[0])
	if err != nil {
		return nil, err
	}
	ys, err := relationItems(th, "join", a[1])
	if err != nil {
		return nil, err
	}
	// r is indexed on rKeys; each s element is looked up by its values under
	// sKeys, stored under the matching rKeys.
	var r, s, rKeys, sKeys []Value
	if len(a) == 2 {
		if len(xs) == 0 || len(ys) == 0 {
			return emptySet, nil
		}
		x0, y0 := xs[0].(*Map), ys[0].(*Map)
		for k := range x0.All() {
			if _, ok := y0.getExact(k); ok {
				rKeys = append(rKeys, k)
			}
		}
		sKeys = rKeys
		r, s = xs, ys
		if len(xs) > len(ys) {
			r, s = ys, xs
		}
	} else {
		km, err := mapArg("join", a[2])
		if err != nil {
			return nil, err
		}
		r, s = xs, ys
		if len(xs) > len(ys) {
			r, s = ys, xs
		}
		if km != nil {
			for xk, yk := range km.All() {
				if len(xs) <= len(ys) {
					rKeys, sKeys = append(rKeys, xk), append(sKeys, yk)
				} else {
					rKeys, sKeys = append(rKeys, yk), append(sKeys, xk)
				}
			}
		}
	}
	project := func(m *Map, from []Value) *Map {
		b := emptyMapBuilder()
		for i, k := range from {
			if v, ok := m.getExact(k); ok {
				b.Set(rKeys[i], v)
			}
		}
		return b.Map()
	}
	// The index: each r row projected on the join keys, and its place in
	// its group, charged before it is built; every row walks the keys.
	if err := th.charge(int64(len(r)) * (2*int64(len(rKeys)) + valueMapSlots)); err != nil {
		return nil, err
	}
	if err := th.ticks(len(r) * max(1, len(rKeys))); err != nil {
		return nil, err
	}
	idx := newValueMap[[]*Map](th, len(r))
	for _, x := range r {
		m := x.(*Map)
		g := idx.ref(project(m, rKeys))
		*g = append(*g, m)
	}
	out := newSetBuilder(nil)
	for _, x := range s {
		m := x.(*Map)
		if err := th.ticks(1 + len(sKeys)); err != nil {
			return nil, err
		}
		n := len(idx.keys)
		group := *idx.ref(project(m, sKeys))
		if len(idx.keys) > n {
			// ref added the (empty) group of a key r does not have.
			if err := th.charge(valueMapSlots); err != nil {
				return nil, err
			}
		}
		for _, y := range group {
			// A join can be a cross product: account for every row it builds.
			if err := th.ticks(m.Len()); err != nil {
				return nil, err
			}
			if err := th.charge(int64(y.Len() + m.Len())); err != nil {
				return nil, err
			}
			b := newMapBuilder(treeOf(y))
			for k, v := range m.All() {
				b.Set(k, v)
			}
			out.Add(b.Map())
		}
	}
	return out.Set(), nil
}

// entryParts is keys (part 0) or vals (part 1) of a sequence of map
// entries, such as what subseq, seq, filter or sort-by return for a map:
// Clojure's keys and vals take any sequence of entries. nil when empty.
func entryParts(th *thread, fn string, coll Value, part int) (Value, error) {
	switch coll.(type) {
	case *Vector, *Seq:
	default:
		_, err := mapArg(fn, coll)
		return nil, err
	}
	xs, err := th.items(coll, fn)
	if err != nil || len(xs) == 0 {
		return nil, err
	}
	if err := th.charge(int64(len(xs))); err != nil {
		return nil, err
	}
	out := make([]Value, len(xs))
	for i, x := range xs {
		e, ok := x.(*Vector)
		if !ok || e.Len() != 2 {
			return nil, errorf(TypeError, "%s expects a map or a sequence of [key value] entries, got %s in it", fn, describe(x))
		}
		out[i] = e.items[part]
	}
	return NewVector(out), nil
}
