package lisp

// clojure.zip, the functional tree editor models reach for to change a
// nested structure in place: zipper, seq-zip, vector-zip, xml-zip, the
// moves (down, up, left, right, next, prev, leftmost, rightmost, root),
// the edits (replace, edit, insert-left, insert-right, insert-child,
// append-child, remove) and the questions (node, branch?, children, path,
// lefts, rights, end?), each as Clojure's.
//
// A location is Clojure's: the vector [node path], path nil at the top,
// :end past the last node, or the map {:l lefts :pnodes parents :ppath
// parent-path :r rights :changed? true}. Clojure keeps the tree's three
// functions in the location's metadata; here its vector carries them
// (zipKind), and it is a vector like any other to every other function.

type zipFns struct{ branch, children, makeNode Value }

var (
	kwL       = Keyword("l")
	kwR       = Keyword("r")
	kwPnodes  = Keyword("pnodes")
	kwPpath   = Keyword("ppath")
	kwChanged = Keyword("changed?")
	kwEnd     = Keyword("end")
)

func zipLoc(node, path Value, fns *zipFns) *Vector {
	return &Vector{items: []Value{node, path}, claim: &vectorClaim{kind: zipKind, front: []Value{fns.branch, fns.children, fns.makeNode}}}
}

// zipFnsOf reads the tree's functions a location's claim carries.
func zipFnsOf(v *Vector) *zipFns {
	f := v.claim.front
	return &zipFns{branch: f[0], children: f[1], makeNode: f[2]}
}

// locArg reads a location: its node, its path (nil, :end or a map) and
// its tree's functions.
func locArg(fn string, a []Value, i int) (node Value, path Value, fns *zipFns, err error) {
	v, ok := a[i].(*Vector)
	if !ok || v.kindOf() != zipKind || len(v.items) != 2 {
		return nil, nil, nil, argError(fn, i, "a zipper location (from clojure.zip/zipper, vector-zip, seq-zip or xml-zip)", a[i])
	}
	return v.items[0], v.items[1], zipFnsOf(v), nil
}

// plainLoc reads what node, path, lefts, rights and end? read of any
// vector, as Clojure's (loc 0) and (loc 1) do: (map z/node (z/path loc))
// takes the first element of each parent node.
func plainLoc(fn string, a []Value) (node, path Value, err error) {
	v, ok := a[0].(*Vector)
	if !ok || v.IsList() {
		return nil, nil, argError(fn, 0, "a zipper location (from clojure.zip/zipper, vector-zip, seq-zip or xml-zip)", a[0])
	}
	if len(v.items) > 0 {
		node = v.items[0]
	}
	if len(v.items) > 1 {
		path = v.items[1]
	}
	return node, path, nil
}

// pathGet reads a key of a path map (nil for the top or the end).
func pathGet(path Value, k Keyword) Value {
	if m, ok := path.(*Map); ok {
		v, _ := m.getExact(k)
		return v
	}
	return nil
}

func (th *thread) zipBranch(fns *zipFns, node Value) (bool, error) {
	v, err := th.call1(fns.branch, node)
	return truthy(v), err
}

func (th *thread) zipChildren(fns *zipFns, node Value) ([]Value, error) {
	cs, _, err := th.zipChildrenOf(fns, node)
	return cs, err
}

// zipChildrenOf is a branch's children, and whether the children
// function gave a collection (an empty vector is one: Clojure's down then
// steps into a nil node, as (let [[c] []] c) is nil).
func (th *thread) zipChildrenOf(fns *zipFns, node Value) ([]Value, bool, error) {
	ok, err := th.zipBranch(fns, node)
	if err != nil {
		return nil, false, err
	}
	if !ok {
		return nil, false, errorf(InvalidArgument, "clojure.zip/children: called children on a leaf node")
	}
	cs, err := th.call1(fns.children, node)
	if err != nil || cs == nil {
		return nil, false, err
	}
	xs, err := th.items(cs, "clojure.zip/children")
	return xs, err == nil, err
}

func (th *thread) zipMake(fns *zipFns, node Value, children []Value) (Value, error) {
	var cs Value
	if len(children) > 0 {
		cs = NewList(children).asCons()
	}
	return th.call2(fns.makeNode, node, cs)
}

// seqOf is a list of xs, or nil when there are none (Clojure's (seq xs)).
func seqOf(xs []Value) Value {
	if len(xs) == 0 {
		return nil
	}
	return NewList(xs)
}

func itemsOf(v Value) []Value {
	if x, ok := v.(*Vector); ok {
		return x.items
	}
	return nil
}

func (th *thread) zipDown(node, path Value, fns *zipFns) (Value, error) {
	ok, err := th.zipBranch(fns, node)
	if err != nil || !ok {
		return nil, err
	}
	cs, present, err := th.zipChildrenOf(fns, node)
	if err != nil || !present {
		return nil, err
	}
	var first Value
	if len(cs) > 0 {
		first, cs = cs[0], cs[1:]
	}
	// The parents grow by one, appended in place where the vector allows
	// (a walk down a deep tree is linear, as Clojure's conj).
	pnodes := NewVector([]Value{node})
	if pv, ok := pathGet(path, kwPnodes).(*Vector); ok {
		if pnodes, err = th.conjVector(pv, node); err != nil {
			return nil, err
		}
	}
	p := NewMap(kwL, emptyVector, kwPnodes, pnodes, kwPpath, path, kwR, seqOf(cs))
	return zipLoc(first, p, fns), th.charge(16)
}

func (th *thread) zipUp(node, path Value, fns *zipFns) (Value, error) {
	pnodes := itemsOf(pathGet(path, kwPnodes))
	if len(pnodes) == 0 {
		return nil, nil
	}
	pnode := pnodes[len(pnodes)-1]
	ppath := pathGet(path, kwPpath)
	if !truthy(pathGet(path, kwChanged)) {
		return zipLoc(pnode, ppath, fns), nil
	}
	l, r := itemsOf(pathGet(path, kwL)), itemsOf(pathGet(path, kwR))
	children := make([]Value, 0, len(l)+1+len(r))
	children = append(append(append(children, l...), node), r...)
	if err := th.charge(int64(len(children))); err != nil {
		return nil, err
	}
	made, err := th.zipMake(fns, pnode, children)
	if err != nil {
		return nil, err
	}
	if pm, ok := ppath.(*Map); ok {
		ppath = pm.Assoc(kwChanged, true)
	}
	return zipLoc(made, ppath, fns), nil
}

func (th *thread) zipRight(node, path Value, fns *zipFns) (Value, error) {
	r := itemsOf(pathGet(path, kwR))
	pm, ok := path.(*Map)
	if !ok || len(r) == 0 {
		return nil, nil
	}
	l, _ := pathGet(path, kwL).(*Vector)
	if l == nil {
		l = emptyVector
	}
	nl, err := th.conjVector(l, node)
	if err != nil {
		return nil, err
	}
	return zipLoc(r[0], pm.Assoc(kwL, nl).Assoc(kwR, seqOf(r[1:])), fns), th.charge(16)
}

func (th *thread) zipLeft(node, path Value, fns *zipFns) Value {
	l := itemsOf(pathGet(path, kwL))
	pm, ok := path.(*Map)
	if !ok || len(l) == 0 {
		return nil
	}
	r := itemsOf(pathGet(path, kwR))
	nr := append([]Value{node}, r...)
	return zipLoc(l[len(l)-1], pm.Assoc(kwL, NewVector(l[:len(l)-1:len(l)-1])).Assoc(kwR, NewList(nr)), fns)
}

func (th *thread) zipRightmost(loc *Vector, node, path Value, fns *zipFns) Value {
	r := itemsOf(pathGet(path, kwR))
	pm, ok := path.(*Map)
	if !ok || len(r) == 0 {
		return loc
	}
	l := itemsOf(pathGet(path, kwL))
	nl := append(append(append(make([]Value, 0, len(l)+len(r)), l...), node), r[:len(r)-1]...)
	return zipLoc(r[len(r)-1], pm.Assoc(kwL, NewVector(nl)).Assoc(kwR, nil), fns)
}

func registerZip(t *builtinTable) {
	// The three trees Clojure ships.
	isSeq := t.names["seq?"].(*Builtin)
	isVector := t.names["vector?"].(*Builtin)
	seqFn := t.names["seq"].(*Builtin)
	identity := t.names["identity"].(*Builtin)
	zipFnOf := func(name string, min, max int, fn builtinFn) *Builtin {
		return &Builtin{Name: name, MinArgs: min, MaxArgs: max, fn: fn}
	}
	seqZip := &zipFns{branch: isSeq, children: identity,
		makeNode: zipFnOf("seq-zip make-node", 2, 2, func(_ *thread, a []Value) (Value, error) {
			if a[1] == nil {
				return emptyList, nil
			}
			return a[1], nil
		})}
	vectorZip := &zipFns{branch: isVector, children: seqFn,
		makeNode: zipFnOf("vector-zip make-node", 2, 2, func(th *thread, a []Value) (Value, error) {
			xs, err := th.items(a[1], "vector-zip")
			if err != nil {
				return nil, err
			}
			return NewVector(append([]Value(nil), xs...)), nil
		})}
	xmlZip := &zipFns{
		branch: zipFnOf("xml-zip branch?", 1, 1, func(_ *thread, a []Value) (Value, error) {
			_, isText := a[0].(string)
			return !isText, nil
		}),
		children: zipFnOf("xml-zip children", 1, 1, func(th *thread, a []Value) (Value, error) {
			m, ok := a[0].(*Map)
			if !ok {
				return nil, nil
			}
			c, _ := m.Get(Keyword("content"))
			return c, nil
		}),
		makeNode: zipFnOf("xml-zip make-node", 2, 2, func(th *thread, a []Value) (Value, error) {
			m, ok := a[0].(*Map)
			if !ok {
				return nil, argError("xml-zip", 0, "an element map {:tag … :content […]}", a[0])
			}
			var content Value
			if a[1] != nil {
				xs, err := th.items(a[1], "xml-zip")
				if err != nil {
					return nil, err
				}
				content = NewVector(append([]Value(nil), xs...))
			}
			return m.Assoc(Keyword("content"), content), nil
		}),
	}
	t.add("clojure.zip/zipper", 4, 4, func(_ *thread, a []Value) (Value, error) {
		for i := range 3 {
			if !isCallable(a[i]) {
				return nil, argError("clojure.zip/zipper", i, "a function (branch?, children, make-node)", a[i])
			}
		}
		return zipLoc(a[3], nil, &zipFns{branch: a[0], children: a[1], makeNode: a[2]}), nil
	})
	for name, fns := range map[string]*zipFns{"seq-zip": seqZip, "vector-zip": vectorZip, "xml-zip": xmlZip} {
		t.add("clojure.zip/"+name, 1, 1, func(_ *thread, a []Value) (Value, error) { return zipLoc(a[0], nil, fns), nil })
	}

	// loc1 registers a function of a location alone.
	loc1 := func(name string, f func(th *thread, loc *Vector, node, path Value, fns *zipFns) (Value, error)) {
		full := "clojure.zip/" + name
		t.add(full, 1, 1, func(th *thread, a []Value) (Value, error) {
			node, path, fns, err := locArg(full, a, 0)
			if err != nil {
				return nil, err
			}
			if err := th.tick(); err != nil {
				return nil, err
			}
			return f(th, a[0].(*Vector), node, path, fns)
		})
	}
	plain := func(name string, f func(node, path Value) Value) {
		full := "clojure.zip/" + name
		t.add(full, 1, 1, func(_ *thread, a []Value) (Value, error) {
			node, path, err := plainLoc(full, a)
			if err != nil {
				return nil, err
			}
			return f(node, path), nil
		})
	}
	plain("node", func(node, _ Value) Value { return node })
	plain("path", func(_, path Value) Value { return pathGet(path, kwPnodes) })
	plain("lefts", func(_, path Value) Value { return seqOf(itemsOf(pathGet(path, kwL))) })
	plain("rights", func(_, path Value) Value { return pathGet(path, kwR) })
	plain("end?", func(_, path Value) Value { return path == kwEnd })
	loc1("branch?", func(th *thread, _ *Vector, node, _ Value, fns *zipFns) (Value, error) { return th.zipBranch(fns, node) })
	loc1("children", func(th *thread, _ *Vector, node, _ Value, fns *zipFns) (Value, error) {
		cs, err := th.zipChildren(fns, node)
		return seqOf(cs), err
	})
	loc1("down", func(th *thread, _ *Vector, node, path Value, fns *zipFns) (Value, error) {
		return th.zipDown(node, path, fns)
	})
	loc1("up", func(th *thread, _ *Vector, node, path Value, fns *zipFns) (Value, error) {
		return th.zipUp(node, path, fns)
	})
	loc1("right", func(th *thread, _ *Vector, node, path Value, fns *zipFns) (Value, error) {
		return th.zipRight(node, path, fns)
	})
	loc1("left", func(th *thread, _ *Vector, node, path Value, fns *zipFns) (Value, error) {
		return th.zipLeft(node, path, fns), nil
	})
	loc1("rightmost", func(th *thread, loc *Vector, node, path Value, fns *zipFns) (Value, error) {
		return th.zipRightmost(loc, node, path, fns), nil
	})
	loc1("leftmost", func(th *thread, loc *Vector, node, path Value, fns *zipFns) (Value, error) {
		l := itemsOf(pathGet(path, kwL))
		pm, ok := path.(*Map)
		if !ok || len(l) == 0 {
			return loc, nil
		}
		r := itemsOf(pathGet(path, kwR))
		nr := append(append(append(make([]Value, 0, len(l)+len(r)), l[1:]...), node), r...)
		return zipLoc(l[0], pm.Assoc(kwL, emptyVector).Assoc(kwR, seqOf(nr)), fns), th.charge(int64(len(nr)))
	})
	loc1("root", func(th *thread, loc *Vector, node, path Value, fns *zipFns) (Value, error) {
		for path != kwEnd {
			up, err := th.zipUp(node, path, fns)
			if err != nil {
				return nil, err
			}
			if up == nil {
				break
			}
			if err := th.tick(); err != nil {
				return nil, err
			}
			node, path = up.(*Vector).items[0], up.(*Vector).items[1]
		}
		return node, nil
	})
	loc1("next", func(th *thread, loc *Vector, node, path Value, fns *zipFns) (Value, error) {
		if path == kwEnd {
			return loc, nil
		}
		if ok, err := th.zipBranch(fns, node); err != nil {
			return nil, err
		} else if ok {
			down, err := th.zipDown(node, path, fns)
			if err != nil || down != nil {
				return down, err
			}
		}
		if r, err := th.zipRight(node, path, fns); r != nil || err != nil {
			return r, err
		}
		for {
			up, err := th.zipUp(node, path, fns)
			if err != nil {
				return nil, err
			}
			if up == nil {
				return zipLoc(node, kwEnd, fns), nil
			}
			if err := th.tick(); err != nil {
				return nil, err
			}
			node, path = up.(*Vector).items[0], up.(*Vector).items[1]
			if r, err := th.zipRight(node, path, fns); r != nil || err != nil {
				return r, err
			}
		}
	})
	// deepestLast is the last node of loc's subtree, as prev and remove go.
	deepestLast := func(th *thread, loc *Vector, fns *zipFns) (Value, error) {
		for {
			node, path := loc.items[0], loc.items[1]
			ok, err := th.zipBranch(fns, node)
			if err != nil {
				return nil, err
			}
			if !ok {
				return loc, nil
			}
			down, err := th.zipDown(node, path, fns)
			if err != nil {
				return nil, err
			}
			if down == nil {
				return loc, nil
			}
			if err := th.tick(); err != nil {
				return nil, err
			}
			d := down.(*Vector)
			loc = th.zipRightmost(d, d.items[0], d.items[1], fns).(*Vector)
		}
	}
	loc1("prev", func(th *thread, loc *Vector, node, path Value, fns *zipFns) (Value, error) {
		if l := th.zipLeft(node, path, fns); l != nil {
			return deepestLast(th, l.(*Vector), fns)
		}
		return th.zipUp(node, path, fns)
	})
	loc1("remove", func(th *thread, loc *Vector, node, path Value, fns *zipFns) (Value, error) {
		pm, ok := path.(*Map)
		if !ok {
			return nil, errorf(InvalidArgument, "clojure.zip/remove: Remove at top")
		}
		l := itemsOf(pathGet(path, kwL))
		if len(l) > 0 {
			left := zipLoc(l[len(l)-1], pm.Assoc(kwL, NewVector(l[:len(l)-1:len(l)-1])).Assoc(kwChanged, true), fns)
			return deepestLast(th, left, fns)
		}
		pnodes := itemsOf(pathGet(path, kwPnodes))
		made, err := th.zipMake(fns, pnodes[len(pnodes)-1], itemsOf(pathGet(path, kwR)))
		if err != nil {
			return nil, err
		}
		ppath := pathGet(path, kwPpath)
		if ppm, ok := ppath.(*Map); ok {
			ppath = ppm.Assoc(kwChanged, true)
		}
		return zipLoc(made, ppath, fns), nil
	})

	// The edits of a location and an item.
	loc2 := func(name string, min, max int, f func(th *thread, node, path Value, fns *zipFns, a []Value) (Value, error)) {
		full := "clojure.zip/" + name
		t.add(full, min, max, func(th *thread, a []Value) (Value, error) {
			node, path, fns, err := locArg(full, a, 0)
			if err != nil {
				return nil, err
			}
			if err := th.tick(); err != nil {
				return nil, err
			}
			return f(th, node, path, fns, a)
		})
	}
	changed := func(path Value) Value {
		if pm, ok := path.(*Map); ok {
			return pm.Assoc(kwChanged, true)
		}
		return path // the top: nothing above to rebuild
	}
	loc2("replace", 2, 2, func(_ *thread, _, path Value, fns *zipFns, a []Value) (Value, error) {
		return zipLoc(a[1], changed(path), fns), nil
	})
	loc2("edit", 2, -1, func(th *thread, node, path Value, fns *zipFns, a []Value) (Value, error) {
		v, err := th.call(a[1], append([]Value{node}, a[2:]...))
		if err != nil {
			return nil, err
		}
		return zipLoc(v, changed(path), fns), nil
	})
	for _, side := range []string{"insert-left", "insert-right"} {
		loc2(side, 2, 2, func(th *thread, node, path Value, fns *zipFns, a []Value) (Value, error) {
			pm, ok := path.(*Map)
			if !ok {
				return nil, errorf(InvalidArgument, "clojure.zip/%s: Insert at top", side)
			}
			if side == "insert-left" {
				l := itemsOf(pathGet(path, kwL))
				return zipLoc(node, pm.Assoc(kwL, NewVector(append(append([]Value(nil), l...), a[1]))).Assoc(kwChanged, true), fns), th.charge(int64(len(l)))
			}
			r := itemsOf(pathGet(path, kwR))
			return zipLoc(node, pm.Assoc(kwR, NewList(append([]Value{a[1]}, r...))).Assoc(kwChanged, true), fns), th.charge(int64(len(r)))
		})
	}
	for _, end := range []string{"insert-child", "append-child"} {
		loc2(end, 2, 2, func(th *thread, node, path Value, fns *zipFns, a []Value) (Value, error) {
			cs, err := th.zipChildren(fns, node)
			if err != nil {
				return nil, err
			}
			if end == "insert-child" {
				cs = append([]Value{a[1]}, cs...)
			} else {
				cs = append(append([]Value(nil), cs...), a[1])
			}
			if err := th.charge(int64(len(cs))); err != nil {
				return nil, err
			}
			made, err := th.zipMake(fns, node, cs)
			if err != nil {
				return nil, err
			}
			return zipLoc(made, changed(path), fns), nil
		})
	}
	loc2("make-node", 3, 3, func(th *thread, _, _ Value, fns *zipFns, a []Value) (Value, error) {
		cs, err := th.items(a[2], "clojure.zip/make-node")
		if err != nil {
			return nil, err
		}
		return th.zipMake(fns, a[1], cs)
	})
}
