package lisp

import (
	"cmp"
	"math"
	"math/big"
	"slices"
	"sort"
	"strings"
)

func registerSequences(t *builtinTable) {
	t.add("count", 1, 1, seqCount)
	t.add("empty?", 1, 1, func(th *thread, a []Value) (Value, error) {
		switch x := a[0].(type) {
		case string:
			return x == "", nil // not a count of every character
		case *Seq:
			return th.isEmptySeq(x)
		}
		n, err := countOf1(th, "empty?", a[0])
		return n == 0, err
	})
	t.add("not-empty", 1, 1, func(th *thread, a []Value) (Value, error) {
		if s, ok := a[0].(string); ok {
			if s == "" {
				return nil, nil
			}
			return s, nil
		}
		if s, ok := a[0].(*Seq); ok {
			if empty, err := th.isEmptySeq(s); err != nil || empty {
				return nil, err
			}
			return s, nil
		}
		n, err := countOf1(th, "not-empty", a[0])
		if err != nil || n == 0 {
			return nil, err
		}
		return a[0], nil
	})
	t.add("seq", 1, 1, func(th *thread, a []Value) (Value, error) {
		if s, ok := a[0].(*Seq); ok {
			// nil for an empty one, as Clojure: lazy recursions test (seq s).
			if empty, err := th.isEmptySeq(s); err != nil || empty {
				return nil, err
			}
			return s, nil
		}
		if v, ok := a[0].(*Vector); ok {
			// The vector itself (a queue's as a list): a step, not one per
			// element, so that (loop [s (seq v)] ... (recur (next s))) walks
			// a vector in linear time.
			if v.Len() == 0 {
				return nil, th.tick()
			}
			return seqResult(v, v.items), th.tick()
		}
		xs, err := th.items(a[0], "seq")
		if err != nil || len(xs) == 0 {
			return nil, err
		}
		return seqResult(a[0], xs), nil
	})
	t.add("first", 1, 1, func(th *thread, a []Value) (Value, error) { return nthOf(th, "first", a[0], 0) })
	t.add("second", 1, 1, func(th *thread, a []Value) (Value, error) { return nthOf(th, "second", a[0], 1) })
	t.add("ffirst", 1, 1, func(th *thread, a []Value) (Value, error) {
		x, err := nthOf(th, "ffirst", a[0], 0)
		if err != nil {
			return nil, err
		}
		return nthOf(th, "ffirst", x, 0)
	})
	t.add("fnext", 1, 1, func(th *thread, a []Value) (Value, error) { return nthOf(th, "fnext", a[0], 1) })
	t.add("nfirst", 1, 1, func(th *thread, a []Value) (Value, error) {
		x, err := nthOf(th, "nfirst", a[0], 0)
		if err != nil {
			return nil, err
		}
		return nextOf(th, "nfirst", x, 1)
	})
	t.add("nnext", 1, 1, func(th *thread, a []Value) (Value, error) { return nextOf(th, "nnext", a[0], 2) })
	t.add("last", 1, 1, func(th *thread, a []Value) (Value, error) {
		switch c := a[0].(type) {
		case *Map:
			v, _, err := th.nthSorted(c, c.Len()-1)
			return v, err
		case *Set:
			v, _, err := th.nthSorted(c, c.Len()-1)
			return v, err
		}
		xs, err := th.items(a[0], "last")
		if err != nil || len(xs) == 0 {
			return nil, err
		}
		return xs[len(xs)-1], nil
	})
	t.add("nth", 2, 3, seqNth)
	t.add("rest", 1, 1, func(th *thread, a []Value) (Value, error) {
		v, err := nextOf(th, "rest", a[0], 1)
		if v == nil && err == nil {
			return emptyRest(a[0]), nil
		}
		return v, err
	})
	t.add("next", 1, 1, func(th *thread, a []Value) (Value, error) { return nextOf(th, "next", a[0], 1) })
	t.add("nthrest", 2, 2, func(th *thread, a []Value) (Value, error) {
		n, err := countArg("nthrest", a, 1)
		if err != nil {
			return nil, err
		}
		v, err := nextOf(th, "nthrest", a[0], int(max(n, 0)))
		if v == nil && err == nil {
			return emptyRest(a[0]), nil
		}
		return v, err
	})
	t.add("nthnext", 2, 2, func(th *thread, a []Value) (Value, error) {
		if isEmptyColl(a[0]) {
			return nil, nil // Clojure never looks at the count then
		}
		n, err := countArg("nthnext", a, 1)
		if err != nil {
			return nil, err
		}
		return nextOf(th, "nthnext", a[0], int(max(n, 0)))
	})
	t.add("take", 2, 2, seqTake)
	t.add("drop", 2, 2, seqDrop)
	t.add("take-last", 2, 2, func(th *thread, a []Value) (Value, error) {
		n, xs, err := countAndItems(th, "take-last", a)
		if err != nil {
			return nil, err
		}
		if n <= 0 || len(xs) == 0 {
			return nil, nil
		}
		return vectorView(a[1], xs, max(0, len(xs)-n), len(xs)), nil
	})
	t.add("drop-last", 1, 2, func(th *thread, a []Value) (Value, error) {
		coll, n := a[len(a)-1], int64(1)
		if len(a) == 2 {
			var err error
			if n, err = countArg("drop-last", a, 0); err != nil {
				return nil, err
			}
		}
		xs, err := th.viewItems(coll, "drop-last")
		if err != nil {
			return nil, err
		}
		end := len(xs) - int(max(0, min(n, int64(len(xs)))))
		return vectorView(coll, xs, 0, end), nil
	})
	t.add("butlast", 1, 1, func(th *thread, a []Value) (Value, error) {
		xs, err := th.viewItems(a[0], "butlast")
		if err != nil || len(xs) <= 1 {
			return nil, err
		}
		return vectorView(a[0], xs, 0, len(xs)-1), nil
	})
	t.add("take-while", 2, 2, func(th *thread, a []Value) (Value, error) {
		// Eager, also over an infinite sequence: it realizes the elements up
		// to the first that fails pred (the result is finite, a vector).
		var out []Value
		err := th.each(a[1], "take-while", func(x Value) (bool, error) {
			ok, err := th.test(a[0], x)
			if ok {
				if err := th.charge(1); err != nil {
					return false, err
				}
				out = append(out, x)
			}
			return ok, err
		})
		return NewVector(out), err
	})
	t.add("drop-while", 2, 2, func(th *thread, a []Value) (Value, error) {
		if s, ok := a[1].(*Seq); ok {
			return lazyFn("drop-while", a, s, dropWhileXf)
		}
		xs, err := th.items(a[1], "drop-while")
		if err != nil {
			return nil, err
		}
		for i, x := range xs {
			ok, err := th.test(a[0], x)
			if err != nil {
				return nil, err
			}
			if !ok {
				return vectorView(a[1], xs, i, len(xs)), nil
			}
		}
		return emptyVector, nil
	})
	t.add("take-nth", 2, 2, func(th *thread, a []Value) (Value, error) {
		if isEmptyColl(a[1]) {
			return emptyVector, nil // Clojure never looks at the step then
		}
		n, err := countArg("take-nth", a, 0)
		if err != nil {
			return nil, err
		}
		if n <= 0 {
			return nil, errorf(InvalidArgument, "take-nth needs a positive step, got %d", n)
		}
		if s, ok := a[1].(*Seq); ok {
			return lazily(takeNthXf(n), s), nil
		}
		xs, err := th.items(a[1], "take-nth")
		if err != nil {
			return nil, err
		}
		k := len(xs)/int(n) + 1
		if err := th.charge(int64(k)); err != nil {
			return nil, err
		}
		out := make([]Value, 0, k)
		for i := 0; i < len(xs); i += int(n) {
			out = append(out, xs[i])
		}
		return NewVector(out), nil
	})
	t.add("split-at", 2, 2, func(th *thread, a []Value) (Value, error) {
		n, xs, err := countAndItems(th, "split-at", a)
		if err != nil {
			return nil, err
		}
		n = max(0, min(n, len(xs)))
		return vectorOf(vectorView(a[1], xs, 0, n), vectorView(a[1], xs, n, len(xs))), nil
	})
	// Clojure 1.12's splitv-at: [(into [] (take n coll)) (drop n coll)].
	t.add("splitv-at", 2, 2, func(th *thread, a []Value) (Value, error) {
		n, xs, err := countAndItems(th, "splitv-at", a)
		if err != nil {
			return nil, err
		}
		n = max(0, min(n, len(xs)))
		head := vectorView(a[1], xs, 0, n)
		if !head.isVectorPred() {
			if err := th.charge(int64(n)); err != nil {
				return nil, err
			}
			head = NewVector(append([]Value(nil), xs[:n]...))
		}
		return vectorOf(head, vectorView(a[1], xs, n, len(xs)).asSeqView()), nil
	})
	t.add("split-with", 2, 2, func(th *thread, a []Value) (Value, error) {
		xs, err := th.items(a[1], "split-with")
		if err != nil {
			return nil, err
		}
		i := 0
		for ; i < len(xs); i++ {
			ok, err := th.test(a[0], xs[i])
			if err != nil {
				return nil, err
			}
			if !ok {
				break
			}
		}
		return vectorOf(vectorView(a[1], xs, 0, i), vectorView(a[1], xs, i, len(xs))), nil
	})
	t.add("reverse", 1, 1, func(th *thread, a []Value) (Value, error) {
		xs, err := th.items(a[0], "reverse")
		if err != nil {
			return nil, err
		}
		if err := th.charge(int64(len(xs))); err != nil {
			return nil, err
		}
		out := make([]Value, len(xs))
		for i, x := range xs {
			out[len(xs)-1-i] = x
		}
		// Clojure's reverse builds a list (conj onto '()): (conj (reverse
		// xs) x) puts x first.
		return NewList(out), nil
	})
	t.add("distinct", 1, 1, func(th *thread, a []Value) (Value, error) {
		if s, ok := a[0].(*Seq); ok {
			return lazily(distinctXf(), s), nil
		}
		xs, err := th.items(a[0], "distinct")
		if err != nil {
			return nil, err
		}
		// The seen set (sized for every element) and the result.
		if err := th.charge(valueSetSlots*int64(len(xs)) + int64(len(xs))); err != nil {
			return nil, err
		}
		seen := newValueSet(th, len(xs))
		out := make([]Value, 0, len(xs))
		for _, x := range xs {
			if seen.add(x) {
				out = append(out, x)
			}
		}
		return NewVector(out), nil
	})
	t.add("distinct?", 1, -1, func(th *thread, a []Value) (Value, error) {
		seen := newValueSet(th, len(a))
		for _, x := range a {
			if !seen.add(x) {
				return false, nil
			}
		}
		return true, nil
	})
	t.add("dedupe", 1, 1, func(th *thread, a []Value) (Value, error) {
		if s, ok := a[0].(*Seq); ok {
			return lazily(dedupeXf(), s), nil
		}
		xs, err := th.items(a[0], "dedupe")
		if err != nil {
			return nil, err
		}
		if err := th.charge(int64(len(xs))); err != nil {
			return nil, err
		}
		out := make([]Value, 0, len(xs))
		for i, x := range xs {
			if i == 0 || !th.equal(x, xs[i-1]) {
				out = append(out, x)
			}
		}
		return NewVector(out), nil
	})
	t.add("sort", 1, 2, seqSort)
	t.add("sort-by", 2, 3, seqSortBy)
	t.add("map", 1, -1, func(th *thread, a []Value) (Value, error) { return seqMap(th, "map", a) })
	t.add("mapv", 2, -1, func(th *thread, a []Value) (Value, error) { return seqMap(th, "mapv", a) })
	t.add("map-indexed", 2, 2, func(th *thread, a []Value) (Value, error) {
		if s, ok := a[1].(*Seq); ok {
			return lazyFn("map-indexed", a, s, mapIndexedXf)
		}
		xs, err := th.items(a[1], "map-indexed")
		if err != nil {
			return nil, err
		}
		if err := th.charge(int64(len(xs))); err != nil {
			return nil, err
		}
		out := make([]Value, len(xs))
		for i, x := range xs {
			if out[i], err = th.call2(a[0], int64(i), x); err != nil {
				return nil, err
			}
		}
		return NewVector(out), nil
	})
	t.add("filter", 2, 2, func(th *thread, a []Value) (Value, error) { return seqFilter(th, "filter", a, true) })
	t.add("filterv", 2, 2, func(th *thread, a []Value) (Value, error) { return seqFilter(th, "filterv", a, true) })
	t.add("remove", 2, 2, func(th *thread, a []Value) (Value, error) { return seqFilter(th, "remove", a, false) })
	t.add("keep", 2, 2, func(th *thread, a []Value) (Value, error) { return seqKeep(th, "keep", a, false) })
	t.add("keep-indexed", 2, 2, func(th *thread, a []Value) (Value, error) { return seqKeep(th, "keep-indexed", a, true) })
	t.add("mapcat", 2, -1, func(th *thread, a []Value) (Value, error) {
		if s, ok := a[1].(*Seq); ok && len(a) == 2 {
			return lazyFn("mapcat", a, s, mapcatXf)
		}
		mapped, err := seqMap(th, "mapcat", a)
		if err != nil {
			return nil, err
		}
		var out []Value
		for _, part := range mapped.(*Vector).items {
			xs, err := th.items(part, "mapcat")
			if err != nil {
				return nil, err
			}
			if err := th.charge(int64(len(xs))); err != nil {
				return nil, err
			}
			out = append(out, xs...)
		}
		return NewVector(out), nil
	})
	t.add("find", 2, 2, seqFind)
	t.add("some", 2, 2, func(th *thread, a []Value) (Value, error) {
		var found Value
		err := th.each(a[1], "some", func(x Value) (bool, error) {
			v, err := th.call1(a[0], x)
			if err != nil {
				return false, err
			}
			if truthy(v) {
				found = v
				return false, nil
			}
			return true, nil
		})
		return found, err
	})
	t.add("every?", 2, 2, func(th *thread, a []Value) (Value, error) { return quantify(th, "every?", a, true, true) })
	t.add("not-every?", 2, 2, func(th *thread, a []Value) (Value, error) {
		v, err := quantify(th, "not-every?", a, true, true)
		return v == false, err
	})
	t.add("not-any?", 2, 2, func(th *thread, a []Value) (Value, error) { return quantify(th, "not-any?", a, false, true) })
	t.add("contains?", 2, 2, seqContains)
	t.add("concat", 0, -1, func(th *thread, a []Value) (Value, error) {
		for _, c := range a {
			if s, ok := c.(*Seq); ok && s.finite {
				// A part that may end: what follows it is reachable.
				return th.concatCells(slices.Clone(a))
			}
		}
		for i, c := range a {
			if s, ok := c.(*Seq); ok {
				// An infinite part: a lazy sequence of what comes before
				// it, then of it (what comes after is never reached).
				var head []Value
				for _, c := range a[:i] {
					xs, err := th.items(c, "concat")
					if err != nil {
						return nil, err
					}
					if err := th.charge(int64(len(xs))); err != nil {
						return nil, err
					}
					head = append(head, xs...)
				}
				return &Seq{name: s.name, finite: s.finite, gen: func(th *thread, yield func(Value) (bool, error)) error {
					for _, x := range head {
						if ok, err := yield(x); err != nil || !ok {
							return err
						}
					}
					return s.gen(th, yield)
				}}, nil
			}
		}
		var out []Value
		for _, c := range a {
			xs, err := th.items(c, "concat")
			if err != nil {
				return nil, err
			}
			// Charge before growing: (apply concat (repeat n big)) repeats one input.
			if err := th.charge(int64(len(xs))); err != nil {
				return nil, err
			}
			out = append(out, xs...)
		}
		return NewVector(out), nil
	})
	t.add("conj", 0, -1, seqConj)
	t.add("cons", 2, 2, func(th *thread, a []Value) (Value, error) {
		// A Cons in Clojure, which prints and grows (conj) like a list
		// but is not list?: onto a list it prepends as conj does, in place
		// when it can. (cons x nil) is a list.
		if l, ok := a[1].(*Vector); ok && l.IsList() {
			if err := th.charge(2); err != nil {
				return nil, err
			}
			l, err := th.conjList(l, a[0])
			if err != nil {
				return nil, err
			}
			return l.asCons(), nil
		}
		if s, ok := a[1].(*Seq); ok {
			// Onto a lazy sequence: a cell, without realizing it.
			return th.consSeq(a[0], s)
		}
		xs, err := th.items(a[1], "cons")
		if err != nil {
			return nil, err
		}
		if err := th.charge(int64(len(xs)) + 1); err != nil {
			return nil, err
		}
		out := make([]Value, 0, len(xs)+1)
		l := NewList(append(append(out, a[0]), xs...))
		if a[1] == nil {
			return l, nil
		}
		return l.asCons(), nil
	})
	// into: see registerTransducers.
	t.add("flatten", 1, 1, func(th *thread, a []Value) (Value, error) {
		var out []Value
		var walk func(v Value, depth int) error
		walk = func(v Value, depth int) error {
			if depth > maxDataDepth {
				return errorf(DepthExceeded, "flatten: data nested deeper than %d levels", maxDataDepth)
			}
			// Shared structure can make the walk exponential: count it.
			if err := th.tick(); err != nil {
				return err
			}
			switch x := v.(type) {
			case *Vector:
				for _, it := range x.items {
					if err := walk(it, depth+1); err != nil {
						return err
					}
				}
				return nil
			case *Seq:
				// A sequence is sequential too: an infinite one is an error.
				xs, err := th.items(x, "flatten")
				if err != nil {
					return err
				}
				return walk(NewVector(xs), depth)
			}
			if err := th.charge(1); err != nil {
				return err
			}
			out = append(out, v)
			return nil
		}
		switch a[0].(type) {
		case *Vector, *Seq, nil:
		default:
			return emptyVector, nil
		}
		err := walk(a[0], 0)
		if a[0] == nil {
			out = nil
		}
		return NewVector(out), err
	})
	t.add("interleave", 0, -1, func(th *thread, a []Value) (Value, error) {
		if len(a) == 0 {
			return emptyVector, nil
		}
		if mapsCells(a) {
			return th.interleaveCells(slices.Clone(a))
		}
		colls, n, err := th.multiItems("interleave", a)
		if err != nil {
			return nil, err
		}
		if err := th.charge(int64(n) * int64(len(colls))); err != nil {
			return nil, err
		}
		out := make([]Value, 0, n*len(colls))
		for i := 0; i < n; i++ {
			for _, c := range colls {
				out = append(out, c[i])
			}
		}
		return NewVector(out), nil
	})
	t.add("interpose", 2, 2, func(th *thread, a []Value) (Value, error) {
		if s, ok := a[1].(*Seq); ok {
			return lazily(interposeXf(a[0]), s), nil
		}
		xs, err := th.items(a[1], "interpose")
		if err != nil {
			return nil, err
		}
		if err := th.charge(int64(max(0, 2*len(xs)-1))); err != nil {
			return nil, err
		}
		out := make([]Value, 0, max(0, 2*len(xs)-1))
		for i, x := range xs {
			if i > 0 {
				out = append(out, a[0])
			}
			out = append(out, x)
		}
		return NewVector(out), nil
	})
	t.add("range", 0, 3, seqRange)
	t.add("repeat", 1, 2, func(th *thread, a []Value) (Value, error) {
		if len(a) == 1 {
			x := a[0]
			return &Seq{name: "repeat", gen: func(th *thread, yield func(Value) (bool, error)) error {
				for {
					if ok, err := yield(x); err != nil || !ok {
						return err
					}
				}
			}}, nil
		}
		n, err := indexArg("repeat", a, 0)
		if err != nil {
			return nil, err
		}
		if n > math.MaxInt32 {
			// More than could ever be built: a lazy sequence, so that
			// (take 2 (repeat Long/MAX_VALUE x)) works as in Clojure.
			x := a[1]
			return &Seq{name: "repeat", gen: func(th *thread, yield func(Value) (bool, error)) error {
				for i := int64(0); i < n; i++ {
					if ok, err := yield(x); err != nil || !ok {
						return err
					}
				}
				return nil
			}}, nil
		}
		if err := th.charge(n); err != nil {
			return nil, err
		}
		if err := th.ticks(int(max(0, n))); err != nil {
			return nil, err
		}
		out := make([]Value, max(0, n))
		for i := range out {
			out[i] = a[1]
		}
		return NewVector(out), nil
	})
	t.add("iterate", 2, 2, func(th *thread, a []Value) (Value, error) {
		f, x := a[0], a[1]
		return &Seq{name: "iterate", gen: func(th *thread, yield func(Value) (bool, error)) error {
			v := x
			for {
				if ok, err := yield(v); err != nil || !ok {
					return err
				}
				var err error
				if v, err = th.call1(f, v); err != nil {
					return err
				}
			}
		}}, nil
	})
	t.add("cycle", 1, 1, func(th *thread, a []Value) (Value, error) {
		xs, err := th.items(a[0], "cycle")
		if err != nil {
			return nil, err
		}
		if len(xs) == 0 {
			return emptyVector, nil
		}
		if _, ok := a[0].(*Vector); ok {
			// A vector's own elements are copied (other inputs' items are
			// fresh and already charged).
			if err := th.charge(int64(len(xs))); err != nil {
				return nil, err
			}
			xs = slices.Clone(xs)
		}
		return cycleFrom(xs, 0), nil
	})
	t.add("reduce", 2, 3, seqReduce)
	t.add("reductions", 2, 3, seqReductions)
	t.add("group-by", 2, 2, func(th *thread, a []Value) (Value, error) {
		key, err := keyFn("group-by", a[0])
		if err != nil {
			return nil, err
		}
		xs, err := th.items(a[1], "group-by")
		if err != nil {
			return nil, err
		}
		// Two passes: find each element's group and count the groups' sizes,
		// then carve all groups out of one array. Charged first: the array
		// and the group of each element (a quarter slot); then each group
		// as it appears (its entry, and the header of its vector).
		if err := th.charge(int64(len(xs)) + int64(len(xs)+3)/4); err != nil {
			return nil, err
		}
		groups := newValueMap[int](th, 0)
		which := make([]int32, len(xs))
		for i, x := range xs {
			k, err := key(th, x)
			if err != nil {
				return nil, err
			}
			n := len(groups.keys)
			g := groups.index(k)
			if len(groups.keys) > n {
				if err := th.charge(valueMapSlots + 2); err != nil {
					return nil, err
				}
			}
			groups.vals[g]++
			which[i] = g
		}
		backing := make([]Value, len(xs))
		starts := make([]int, len(groups.vals)+1)
		for g, n := range groups.vals {
			starts[g+1] = starts[g] + n
		}
		fill := append([]int(nil), starts[:len(groups.vals)]...)
		for i, x := range xs {
			g := which[i]
			backing[fill[g]] = x
			fill[g]++
		}
		g := 0
		return groups.toMap(func(*int) Value {
			v := NewVector(backing[starts[g]:starts[g+1]:starts[g+1]])
			g++
			return v
		}), nil
	})
	t.add("frequencies", 1, 1, func(th *thread, a []Value) (Value, error) {
		xs, err := th.items(a[0], "frequencies")
		if err != nil {
			return nil, err
		}
		counts := newValueMap[int64](th, len(xs)/4)
		for _, x := range xs {
			n := len(counts.keys)
			p := counts.ref(x)
			if len(counts.keys) > n {
				// A new key: its entry here and in the result.
				if err := th.charge(valueMapSlots); err != nil {
					return nil, err
				}
			}
			*p++
		}
		return counts.toMap(func(n *int64) Value { return *n }), nil
	})
	t.add("partition", 2, 4, func(th *thread, a []Value) (Value, error) { return partition(th, "partition", a, false) })
	t.add("partition-all", 2, 3, func(th *thread, a []Value) (Value, error) { return partition(th, "partition-all", a, true) })
	// Clojure 1.12's partitionv and partitionv-all: the same groups, each
	// a vector (partition's are seqs).
	t.add("partitionv", 2, 4, func(th *thread, a []Value) (Value, error) { return partition(th, "partitionv", a, false) })
	t.add("partitionv-all", 2, 3, func(th *thread, a []Value) (Value, error) { return partition(th, "partitionv-all", a, true) })
	t.add("partition-by", 2, 2, func(th *thread, a []Value) (Value, error) {
		if s, ok := a[1].(*Seq); ok {
			return lazyFn("partition-by", a, s, partitionByXf)
		}
		xs, err := th.items(a[1], "partition-by")
		if err != nil {
			return nil, err
		}
		var out []Value
		start := 0
		var prev Value
		for i, x := range xs {
			k, err := th.call1(a[0], x)
			if err != nil {
				return nil, err
			}
			if i > 0 && !th.equal(k, prev) {
				// A partition: its slot and its vector's header.
				if err := th.charge(3); err != nil {
					return nil, err
				}
				out = append(out, vectorView(a[1], xs, start, i))
				start = i
			}
			prev = k
		}
		if start < len(xs) {
			if err := th.charge(3); err != nil {
				return nil, err
			}
			out = append(out, vectorView(a[1], xs, start, len(xs)))
		}
		return NewVector(out), nil
	})
	vector := t.add("vector", 0, -1, func(th *thread, a []Value) (Value, error) {
		if err := th.charge(int64(len(a))); err != nil {
			return nil, err
		}
		return NewVector(slices.Clone(a)), nil
	})
	t.add("list", 0, -1, func(th *thread, a []Value) (Value, error) {
		if err := th.charge(int64(len(a))); err != nil {
			return nil, err
		}
		return NewList(slices.Clone(a)), nil
	})
	t.add("zip", 2, -1, func(th *thread, a []Value) (Value, error) {
		return seqMap(th, "zip", append([]Value{vector}, a...))
	})
	t.add("vec", 1, 1, func(th *thread, a []Value) (Value, error) {
		if v, ok := a[0].(*Vector); ok {
			return v.asVector(), nil
		}
		xs, err := th.items(a[0], "vec")
		if err != nil {
			return nil, err
		}
		// Not a vector: items built xs afresh, and charged it.
		return NewVector(xs), nil
	})
	t.add("subvec", 2, 3, func(th *thread, a []Value) (Value, error) {
		v, ok := a[0].(*Vector)
		if !ok || !v.isVectorType() {
			return nil, argError("subvec", 0, "a vector", a[0])
		}
		start, err := intArg("subvec", a, 1)
		if err != nil {
			return nil, err
		}
		end := int64(v.Len())
		if len(a) == 3 {
			if end, err = intArg("subvec", a, 2); err != nil {
				return nil, err
			}
		}
		if start < 0 || end > int64(v.Len()) || start > end {
			return nil, classError(InvalidArgument, classIndexOutOfBound, "subvec: indexes %d..%d are outside the vector of %d elements", start, end, v.Len())
		}
		return v.Slice(int(start), int(end)), nil
	})
	// The empty queue, as Clojure names it: conj adds at the end, peek and
	// pop work at the front, in amortized O(1) (see popQueue).
	t.set("clojure.lang.PersistentQueue/EMPTY", emptyQueue)
	// peek and pop work at the end of a vector and at the front of a list,
	// where conj adds: both are stacks. A queue's are at its front, conj
	// adding at its end.
	t.add("peek", 1, 1, func(th *thread, a []Value) (Value, error) {
		switch v := a[0].(type) {
		case nil:
			return nil, nil
		case *transientVector:
			if len(v.items) == 0 {
				return nil, nil
			}
			return v.row(len(v.items) - 1), nil
		case *Vector:
			if v.Len() == 0 {
				return nil, nil
			}
			if v.IsList() || v.IsQueue() {
				return v.items[0], nil
			}
			return v.items[v.Len()-1], nil
		}
		return nil, argError("peek", 0, "a vector, a list or a queue", a[0])
	})
	t.add("pop", 1, 1, func(th *thread, a []Value) (Value, error) {
		if t, ok := a[0].(*transientVector); ok {
			// A stack a loop keeps in place (transient.go).
			n := len(t.items)
			if n == 0 {
				return nil, classError(InvalidArgument, classIllegalState, "pop: cannot pop an empty vector")
			}
			if t.owned {
				t.items[n-1] = nil
			}
			t.items = t.items[:n-1]
			return t, nil
		}
		v, ok := a[0].(*Vector)
		if !ok {
			if a[0] == nil {
				return nil, nil // Clojure: (pop nil) is nil
			}
			return nil, argError("pop", 0, "a vector, a list or a queue", a[0])
		}
		if v.IsQueue() {
			return v.popQueue(), nil // Clojure: (pop EMPTY) is EMPTY
		}
		if v.Len() == 0 {
			return nil, classError(InvalidArgument, classIllegalState, "pop: cannot pop an empty %s", TypeName(v))
		}
		if v.IsList() {
			return v.Slice(1, v.Len()), nil
		}
		return v.Slice(0, v.Len()-1), nil
	})
	t.add("empty", 1, 1, func(th *thread, a []Value) (Value, error) {
		switch a[0].(type) {
		case *Vector:
			return a[0].(*Vector).empty(), nil
		case *Seq: // Clojure: () for a sequence
			return emptyList, nil
		case *Map, *Set:
			return emptySorted(a[0]), nil // a sorted-by one keeps its comparator
		}
		return nil, nil // not a collection: strings, numbers, functions...
	})

	// Aggregation (PTC-Lisp extensions, plus Clojure's min-key/max-key).
	t.add("pluck", 2, 2, func(th *thread, a []Value) (Value, error) {
		key, err := keyFn("pluck", a[0])
		if err != nil {
			return nil, err
		}
		if _, ok := a[1].(*Map); ok {
			return nil, errorf(TypeError, "pluck expects a collection of maps, got a single map; read one key with (%s m)", brief(a[0]))
		}
		xs, err := th.items(a[1], "pluck")
		if err != nil {
			return nil, err
		}
		if err := th.charge(int64(len(xs))); err != nil {
			return nil, err
		}
		out := make([]Value, len(xs))
		for i, x := range xs {
			if out[i], err = key(th, x); err != nil {
				return nil, err
			}
		}
		return NewVector(out), nil
	})
	t.add("sum-by", 2, 2, func(th *thread, a []Value) (Value, error) {
		sum, err := newSumBy(a[0])
		if err != nil {
			return nil, err
		}
		xs, err := collItems(th, "sum-by", a[1])
		if err != nil {
			return nil, err
		}
		if err := sum.addAll(th, xs); err != nil {
			return nil, err
		}
		return sum.result(), nil
	})
	t.add("avg-by", 2, 2, func(th *thread, a []Value) (Value, error) {
		key, err := keyFn("avg-by", a[0])
		if err != nil {
			return nil, err
		}
		xs, err := collItems(th, "avg-by", a[1])
		if err != nil {
			return nil, err
		}
		sum, n := 0.0, 0
		for _, x := range xs {
			v, err := key(th, x)
			if err != nil {
				return nil, err
			}
			if v == nil {
				continue
			}
			f, ok := toFloat(v)
			if !ok {
				return nil, errorf(TypeError, "avg-by: %s of %s is not a number", brief(a[0]), describe(x))
			}
			sum += f
			n++
		}
		if n == 0 {
			return nil, nil
		}
		return sum / float64(n), nil
	})
	t.add("min-by", 2, 2, func(th *thread, a []Value) (Value, error) { return extremeBy(th, "min-by", a, -1) })
	t.add("max-by", 2, 2, func(th *thread, a []Value) (Value, error) { return extremeBy(th, "max-by", a, 1) })
	t.add("max-key", 2, -1, func(th *thread, a []Value) (Value, error) { return extremeKey(th, "max-key", a, 1) })
	t.add("min-key", 2, -1, func(th *thread, a []Value) (Value, error) { return extremeKey(th, "min-key", a, -1) })

	t.add("doall", 1, 2, func(th *thread, a []Value) (Value, error) { return realizeAll(th, "doall", a, true) })
	t.add("dorun", 1, 2, func(th *thread, a []Value) (Value, error) { return realizeAll(th, "dorun", a, false) })
	t.add("run!", 2, 2, func(th *thread, a []Value) (Value, error) {
		f, err := fnArg("run!", a, 0)
		if err != nil {
			return nil, err
		}
		if s, ok := a[1].(*Seq); ok && !s.finite {
			return nil, infiniteError(s, "run!")
		}
		err = th.each(a[1], "run!", func(x Value) (bool, error) {
			v, err := th.call1(f, x)
			if _, stop := v.(*reduced); stop {
				return false, err
			}
			return err == nil, err
		})
		return nil, err
	})
	t.add("repeatedly", 1, 2, func(th *thread, a []Value) (Value, error) {
		f, err := fnArg("repeatedly", a, len(a)-1)
		if err != nil {
			return nil, err
		}
		limit, counted := int64(math.MaxInt64), len(a) == 2
		if counted {
			if limit, err = intArg("repeatedly", a, 0); err != nil {
				return nil, err
			}
		}
		// Without a count, or with more than could ever be built: lazy,
		// and memoized as Clojure's: f is called once per element, when
		// the element is first realized, however often the sequence is
		// walked (f is for side effects: rand, swap!).
		if limit > math.MaxInt32 {
			return repeatedlySeq(f, counted, limit), nil
		}
		n := limit
		if n <= 0 {
			return emptyVector, nil
		}
		if err := th.charge(n); err != nil {
			return nil, err
		}
		out := make([]Value, n)
		for i := range out {
			if err := th.tick(); err != nil {
				return nil, err
			}
			if out[i], err = th.call(f, nil); err != nil {
				return nil, err
			}
		}
		return NewVector(out), nil
	})
	t.add("replicate", 2, 2, t.names["repeat"].(*Builtin).fn)
	t.add("tree-seq", 3, 3, treeSeq)
	t.add("rseq", 1, 1, func(th *thread, a []Value) (Value, error) {
		v, ok := a[0].(*Vector)
		if ok && v.IsList() {
			return nil, argError("rseq", 0, "a vector, sorted map or sorted set (a list is not reversible: use reverse)", a[0])
		}
		if ok && v.IsQueue() {
			return nil, argError("rseq", 0, "a vector, sorted map or sorted set (a queue is not reversible: use reverse)", a[0])
		}
		if !ok {
			return rseqSorted(th, a[0])
		}
		if v.Len() == 0 {
			return nil, nil
		}
		if err := th.charge(int64(v.Len())); err != nil {
			return nil, err
		}
		if err := th.ticks(v.Len()); err != nil {
			return nil, err
		}
		out := make([]Value, v.Len())
		for i, x := range v.items {
			out[len(out)-1-i] = x
		}
		return NewVector(out), nil
	})
	t.add("list*", 1, -1, func(th *thread, a []Value) (Value, error) {
		last := a[len(a)-1]
		if s, ok := last.(*Seq); ok && !s.finite {
			return nil, infiniteError(s, "list*")
		}
		xs, err := th.items(last, "list*")
		if err != nil {
			return nil, err
		}
		n := len(a) - 1 + len(xs)
		if n == 0 {
			return nil, nil
		}
		if err := th.charge(int64(n)); err != nil {
			return nil, err
		}
		out := make([]Value, 0, n)
		l := NewList(append(append(out, a[:len(a)-1]...), xs...))
		if len(a) > 2 || len(a) == 2 && last != nil {
			// Conses onto a sequence, as Clojure's: (list* 1 nil) is
			// (cons 1 nil), a list.
			return l.asCons(), nil
		}
		return l, nil
	})
	t.add("bounded-count", 2, 2, func(th *thread, a []Value) (Value, error) {
		n, err := intArg("bounded-count", a, 0)
		if err != nil {
			return nil, err
		}
		switch c := a[1].(type) {
		case *Seq:
			return max(n, 0), nil
		case string:
			// Strings are not counted collections: count up to n characters.
			k := int64(0)
			for i := 0; i < len(c) && k < n; k++ {
				i += graphemeLen(c[i:])
			}
			return k, th.ticks(int(k))
		}
		k, err := countOf1(th, "bounded-count", a[1])
		return int64(k), err
	})

	// clojure.core/replace: (replace smap coll). The 3-argument call stays
	// clojure.string/replace under the unqualified name.
	t.add("replace", 2, 3, func(th *thread, a []Value) (Value, error) {
		if len(a) == 3 {
			return strReplace(th, a, -1)
		}
		return coreReplace(th, a[0], a[1])
	})

	t.add("iteration", 1, -1, iteration)
	t.add("unreduced", 1, 1, func(_ *thread, a []Value) (Value, error) {
		if r, ok := a[0].(*reduced); ok {
			return r.value, nil
		}
		return a[0], nil
	})
	t.add("ensure-reduced", 1, 1, func(_ *thread, a []Value) (Value, error) {
		if _, ok := a[0].(*reduced); ok {
			return a[0], nil
		}
		return &reduced{value: a[0]}, nil
	})
	isVector := func(_ *thread, a []Value) (Value, error) { v, ok := a[0].(*Vector); return ok && v.isVectorPred(), nil }
	t.add("indexed?", 1, 1, isVector)
	// Every map and set is sorted (in the canonical order), as Clojure's
	// sorted-map and sorted-set, which are reversible.
	t.add("reversible?", 1, 1, func(_ *thread, a []Value) (Value, error) {
		switch v := a[0].(type) {
		case *Vector:
			return v.isVectorPred(), nil
		case *Map, *Set:
			return true, nil
		}
		return false, nil
	})
	t.add("subseq", 3, 5, func(th *thread, a []Value) (Value, error) { return subseq(th, "subseq", a, false) })
	t.add("rsubseq", 3, 5, func(th *thread, a []Value) (Value, error) { return subseq(th, "rsubseq", a, true) })
}

// maxDataDepth bounds the recursion of builtins that walk nested data.
const maxDataDepth = 10000

func seqCount(th *thread, a []Value) (Value, error) {
	n, err := countOf1(th, "count", a[0])
	return int64(n), err
}

// isEmptyColl reports a collection known to be empty without a walk: nil,
// an empty vector, string, map or set. Size, step and count arguments of an
// empty collection are never looked at in Clojure; for a non-empty one a
// size below 1 would loop forever there, and stays an error here.
func isEmptyColl(v Value) bool {
	switch c := v.(type) {
	case nil:
		return true
	case *Vector:
		return c.Len() == 0
	case string:
		return c == ""
	case *Map:
		return c.Len() == 0
	case *Set:
		return c.Len() == 0
	}
	return false
}

func countOf1(th *thread, fn string, v Value) (int, error) {
	switch c := v.(type) {
	case nil:
		return 0, nil
	case *transientVector:
		return len(c.items), nil
	case *Vector:
		return c.Len(), nil
	case *Map:
		return c.Len(), nil
	case *Set:
		return c.Len(), nil
	case string:
		if c == "" {
			return 0, nil
		}
		n := graphemeCount(c)
		return n, th.ticks(n)
	case *Seq:
		if c.finite {
			xs, err := th.realize(c, -1, fn)
			return len(xs), err
		}
		return 0, infiniteError(c, fn)
	case *Builtin:
		if c.xf != nil {
			return 0, transducerHint(fn, v)
		}
	case *Cell:
		switch c.kind {
		case arrayCell:
			return c.load().val.(*arrayData).length(), nil
		case builderCell:
			return countOf1(th, fn, builderText(c))
		case utilCell:
			return utilRead(c, (*utilData).size), nil
		}
	}
	// Clojure: count of a number is an UnsupportedOperationException, a
	// seq of one (zipmap, frequencies...) an IllegalArgumentException.
	class := classIllegalArgument
	if fn == "count" {
		class = classUnsupported
	}
	return 0, classError(TypeError, class, "%s expects a collection or string, got %s", fn, describe(v))
}

// collItems is items that rejects a single map with a hint (aggregations
// take a collection of maps).
func collItems(th *thread, fn string, coll Value) ([]Value, error) {
	if _, ok := coll.(*Map); ok {
		return nil, errorf(TypeError, "%s expects a collection of maps, got a single map", fn)
	}
	return th.items(coll, fn)
}

// seqResult turns the items of coll into a vector (reusing coll when it
// already is one).
func seqResult(coll Value, xs []Value) Value {
	if v, ok := coll.(*Vector); ok {
		if v.IsQueue() {
			return v.asList() // a queue's seq is a seq, (1 2)
		}
		return v
	}
	return NewVector(ownedItems(coll, xs))
}

// ownedItems returns xs as a slice the caller may keep: vectors' own slices
// are copied, freshly built ones are returned as is.
func ownedItems(coll Value, xs []Value) []Value {
	if _, ok := coll.(*Vector); ok {
		return slices.Clone(xs)
	}
	return xs
}

// vectorView returns xs[from:to] as a vector, sharing coll's array when coll
// is a vector.
func vectorView(coll Value, xs []Value, from, to int) *Vector {
	if v, ok := coll.(*Vector); ok {
		return v.Slice(from, to)
	}
	if from >= to {
		return emptyVector
	}
	return NewVector(xs[from:to:to])
}

func nthOf(th *thread, fn string, coll Value, i int) (Value, error) {
	switch c := coll.(type) {
	case *Vector:
		if i < c.Len() {
			return c.items[i], nil
		}
		return nil, nil
	case nil:
		return nil, nil
	case *Seq:
		v, _, err := th.nthSeq(c, i)
		return v, err
	case string:
		v, _, err := th.nthGrapheme(c, i)
		return v, err
	case *Map, *Set:
		v, _, err := th.nthSorted(c, i)
		return v, err
	}
	xs, err := th.items(coll, fn)
	if err != nil || i >= len(xs) {
		return nil, err
	}
	return xs[i], nil
}

// nthSorted returns element i of a map (its [key value] entry) or a set in
// their canonical order, without building the others: O(log n).
func (th *thread) nthSorted(coll Value, i int) (Value, bool, error) {
	switch c := coll.(type) {
	case *Map:
		if i < 0 || i >= c.Len() {
			return nil, false, nil
		}
		if err := th.charge(entrySlots); err != nil {
			return nil, false, err
		}
		k, v := c.EntryAt(i)
		return newEntry(k, v), true, nil
	case *Set:
		if i < 0 || i >= c.Len() {
			return nil, false, nil
		}
		return c.At(i), true, nil
	}
	return nil, false, nil
}

// nthGrapheme returns character i of s (ok false past the end), counting a
// step for each character it walks past.
func (th *thread) nthGrapheme(s string, i int) (Value, bool, error) {
	if i < len(s) && plainASCII(s[:min(i+2, len(s))]) {
		// Every byte a character of its own up to i (and the byte after
		// it, which could otherwise combine with it): a scan of bytes,
		// counted as one, where a walk of characters takes a step each.
		return s[i : i+1], true, th.ticks(i >> 4)
	}
	j, pos := 0, 0
	for ; pos < len(s); j++ {
		n := graphemeLen(s[pos:])
		if j == i {
			return s[pos : pos+n], true, th.ticks(j)
		}
		pos += n
	}
	return nil, false, th.ticks(j)
}

// plainASCII reports whether s is ASCII without a carriage return (which
// joins a following line feed into one character).
func plainASCII(s string) bool {
	for k := 0; k < len(s); k++ {
		if c := s[k]; c >= 0x80 || c == '\r' {
			return false
		}
	}
	return true
}

// nextOf drops n elements: nil when nothing is left.
func nextOf(th *thread, fn string, coll Value, n int) (Value, error) {
	if s, ok := coll.(*Seq); ok {
		if !s.finite {
			return dropSeq(s, n), nil
		}
		// A sequence that may end: its rest, element by element (O(1) on
		// cells), and nil when nothing is left.
		var rest Value = s
		for range n {
			_, r, ok, err := th.step(rest)
			if err != nil || !ok {
				return nil, err
			}
			rest = r
		}
		switch r := rest.(type) {
		case *Seq:
			if empty, err := th.isEmptySeq(r); err != nil || empty {
				return nil, err
			}
			return r, nil
		case *Vector:
			if r.Len() == 0 {
				return nil, nil
			}
		}
		return rest, nil
	}
	if l, ok := coll.(*Vector); ok && (l.IsList() || l.IsQueue()) {
		// The rest of a list is a list, taken in O(1): a stack walked with
		// first and rest costs a step per element, not per element left.
		// So is a queue's (a seq in Clojure).
		if l.Len() <= n {
			return nil, th.tick()
		}
		return l.Slice(n, l.Len()).asList(), th.tick()
	}
	if v, ok := coll.(*Vector); ok {
		// A view of the same elements: a step, not one per element left.
		if v.Len() <= n {
			return nil, th.tick()
		}
		return vectorView(coll, v.items, n, v.Len()), th.tick()
	}
	xs, err := th.items(coll, fn)
	if err != nil || len(xs) <= n {
		return nil, err
	}
	return vectorView(coll, xs, n, len(xs)), nil
}

func dropSeq(s *Seq, n int) *Seq {
	if n <= 0 {
		return s
	}
	if s.skip != nil {
		return s.skip(n)
	}
	return &Seq{name: s.name, finite: s.finite, skip: func(m int) *Seq { return dropSeq(s, n+m) }, gen: func(th *thread, yield func(Value) (bool, error)) error {
		i := 0
		return s.gen(th, func(v Value) (bool, error) {
			i++
			if i <= n {
				return true, th.tick()
			}
			return yield(v)
		})
	}}
}

func seqNth(th *thread, a []Value) (Value, error) {
	i, err := indexArg("nth", a, 1)
	if err != nil {
		return nil, err
	}
	if t, ok := a[0].(*transientVector); ok {
		if i >= 0 && i < int64(len(t.items)) {
			return t.row(int(i)), nil
		}
		b := append([]Value{t.view()}, a[1:]...)
		a = b
	}
	var def Value
	if len(a) == 3 {
		def = a[2]
	}
	if i < 0 {
		// Negative indexes count from the end (PTC-Lisp), unless a default
		// is given: then, as in Clojure, any index outside 0..n-1 gives it.
		if _, ok := a[0].(*Seq); ok && len(a) == 3 {
			return def, nil
		}
		xs, err := th.items(a[0], "nth")
		if err != nil {
			return nil, err
		}
		if len(a) == 3 {
			return def, nil
		}
		if j := int64(len(xs)) + i; j >= 0 {
			return xs[j], nil
		}
		return def, nil
	}
	switch c := a[0].(type) {
	case *Map, *Set:
		// Their canonical order (the one seq gives) makes nth deterministic:
		// a superset of Clojure, where nth refuses sets and maps.
		v, ok, err := th.nthSorted(c, int(min(i, math.MaxInt32)))
		if err != nil || !ok {
			return def, err
		}
		return v, nil
	case *Vector, string, *Seq, nil:
	default:
		if _, err := th.items(a[0], "nth"); err != nil {
			return nil, err
		}
	}
	if c, ok := a[0].(string); ok {
		// One walk, not a count then a walk.
		v, ok, err := th.nthGrapheme(c, int(min(i, int64(len(c)))))
		if err != nil || !ok {
			return def, err
		}
		return v, nil
	}
	n, err := countOrInf(a[0])
	if err != nil {
		return nil, err
	}
	if i >= int64(n) {
		return def, nil
	}
	return nthOf(th, "nth", a[0], int(i))
}

// countOrInf counts coll, treating infinite sequences as unbounded.
func countOrInf(coll Value) (int, error) {
	switch c := coll.(type) {
	case *Seq:
		return math.MaxInt, nil
	case string:
		return graphemeCount(c), nil
	case *Vector:
		return c.Len(), nil
	case nil:
		return 0, nil
	}
	return 0, errorf(TypeError, "nth expects a vector or string, got %s", describe(coll))
}

// viewItems is items for a builtin that returns a view of them (vectorView)
// without walking them: a vector's elements cost a step, not one each, so
// that (loop [s v] ... (recur (drop 1 s))) walks v in linear time.
func (th *thread) viewItems(coll Value, op string) ([]Value, error) {
	if v, ok := coll.(*Vector); ok {
		return v.items, th.tick()
	}
	return th.items(coll, op)
}

func countAndItems(th *thread, fn string, a []Value) (int, []Value, error) {
	n, err := countArg(fn, a, 0)
	if err != nil {
		return 0, nil, err
	}
	xs, err := th.viewItems(a[1], fn)
	if n > math.MaxInt32 {
		n = math.MaxInt32
	}
	return int(n), xs, err
}

func seqTake(th *thread, a []Value) (Value, error) {
	n, err := countArg("take", a, 0)
	if err != nil {
		return nil, err
	}
	if s, ok := a[1].(*Seq); ok {
		if n <= 0 {
			return emptyVector, nil
		}
		if err := th.charge(n); err != nil {
			return nil, err
		}
		xs, err := th.realize(s, int(n), "take")
		return NewVector(xs), err
	}
	xs, err := th.viewItems(a[1], "take")
	if err != nil {
		return nil, err
	}
	end := int(max(0, min(n, int64(len(xs)))))
	return vectorView(a[1], xs, 0, end), nil
}

func seqDrop(th *thread, a []Value) (Value, error) {
	n, err := countArg("drop", a, 0)
	if err != nil {
		return nil, err
	}
	if s, ok := a[1].(*Seq); ok {
		return dropSeq(s, int(max(0, min(n, math.MaxInt32)))), nil
	}
	xs, err := th.viewItems(a[1], "drop")
	if err != nil {
		return nil, err
	}
	start := int(max(0, min(n, int64(len(xs)))))
	return vectorView(a[1], xs, start, len(xs)), nil
}

// test calls a predicate.
func (th *thread) test(pred, x Value) (bool, error) {
	if b, ok := pred.(*Builtin); ok && b.pred != nil {
		return b.pred(x), nil
	}
	v, err := th.call1(pred, x)
	return truthy(v), err
}

func seqFilter(th *thread, fn string, a []Value, keep bool) (Value, error) {
	pred := a[0]
	if !isCallable(pred) {
		return nil, argError(fn, 0, "a predicate function", pred)
	}
	if s, ok := a[1].(*Seq); ok && fn != "filterv" {
		if s.cell != nil {
			return th.filterCells(pred, keep, s)
		}
		return lazily(filterXf(fn, pred, keep), s), nil
	}
	if v, ok := a[1].(*Vector); ok {
		// The walk counts its steps, as items would (a Go predicate such as
		// a where is called without counting any).
		if err := th.ticks(len(v.items)); err != nil {
			return nil, err
		}
		// Test everything first, then allocate the result at its exact size:
		// less garbage means fewer collections scanning the (often large) context.
		hits := make([]bool, len(v.items))
		n := 0
		for i, x := range v.items {
			ok, err := th.test(pred, x)
			if err != nil {
				return nil, err
			}
			if ok == keep {
				hits[i] = true
				n++
			}
		}
		if n == len(v.items) {
			return v, nil
		}
		if err := th.charge(int64(n)); err != nil {
			return nil, err
		}
		out := make([]Value, 0, n)
		for i, x := range v.items {
			if hits[i] {
				out = append(out, x)
			}
		}
		return NewVector(out), nil
	}
	xs, err := th.items(a[1], fn)
	if err != nil {
		return nil, err
	}
	// Charged as it grows: half the input first, the rest if it is kept.
	charged := len(xs) / 2
	if err := th.charge(int64(charged)); err != nil {
		return nil, err
	}
	out := make([]Value, 0, charged)
	for _, x := range xs {
		ok, err := th.test(pred, x)
		if err != nil {
			return nil, err
		}
		if ok == keep {
			if len(out) == charged {
				if err := th.charge(int64(len(xs) - charged)); err != nil {
					return nil, err
				}
				charged = len(xs)
			}
			out = append(out, x)
		}
	}
	return NewVector(out), nil
}

// mapsCells reports whether map over colls makes a chain of cells: when
// one of them is made of cells, or several are and all are sequences
// (infinite ones only could not be mapped otherwise).
func mapsCells(colls []Value) bool {
	seqs := 0
	for _, c := range colls {
		if isCells(c) {
			return true
		}
		if _, ok := c.(*Seq); ok {
			seqs++
		}
	}
	return seqs > 1 && seqs == len(colls)
}

// seqMap maps f over one or more collections (stopping at the shortest).
func seqMap(th *thread, fn string, a []Value) (Value, error) {
	f := a[0]
	if !isCallable(f) {
		return nil, argError(fn, 0, "a function", f)
	}
	if fn == "map" && mapsCells(a[1:]) {
		// Over memoized lazy sequences, or over infinite ones only: a lazy
		// chain, as Clojure's (so (def fibs (lazy-cat [0 1] (map + fibs
		// (rest fibs)))) reads what it already realized).
		return th.mapCells(f, slices.Clone(a[1:]))
	}
	if len(a) == 2 {
		if s, ok := a[1].(*Seq); ok && fn == "map" {
			return lazily(mapXf(f), s), nil
		}
		xs, err := th.items(a[1], fn)
		if err != nil {
			return nil, err
		}
		if err := th.charge(int64(len(xs))); err != nil {
			return nil, err
		}
		out := make([]Value, len(xs))
		for i, x := range xs {
			if out[i], err = th.call1(f, x); err != nil {
				return nil, err
			}
		}
		return NewVector(out), nil // charged above
	}
	colls, n, err := th.multiItems(fn, a[1:])
	if err != nil {
		return nil, err
	}
	if err := th.charge(int64(n)); err != nil {
		return nil, err
	}
	out := make([]Value, n)
	args := make([]Value, len(colls))
	for i := 0; i < n; i++ {
		for j, c := range colls {
			args[j] = c[i]
		}
		if out[i], err = th.call(f, args); err != nil {
			return nil, err
		}
	}
	return NewVector(out), nil
}

// multiItems realizes several collections up to the length of the shortest
// finite one (infinite sequences are taken as far as needed).
func (th *thread) multiItems(fn string, colls []Value) ([][]Value, int, error) {
	n := math.MaxInt
	for _, c := range colls {
		if s, ok := c.(*Seq); !ok || s.finite {
			k, err := countOf1(th, fn, c)
			if err != nil {
				return nil, 0, err
			}
			n = min(n, k)
		}
	}
	if n == math.MaxInt {
		return nil, 0, errorf(InvalidArgument, "%s cannot use only infinite sequences: give at least one finite collection", fn)
	}
	out := make([][]Value, len(colls))
	for i, c := range colls {
		var err error
		if s, ok := c.(*Seq); ok && !s.finite {
			// The first n elements are kept: charged before they are taken.
			if err := th.charge(int64(n)); err != nil {
				return nil, 0, err
			}
			out[i], err = th.realize(s, n, fn)
		} else {
			out[i], err = th.items(c, fn)
		}
		if err != nil {
			return nil, 0, err
		}
	}
	return out, n, nil
}

// seqFind is PTC-Lisp's (find pred coll): the first element satisfying
// pred. Clojure's (find map key), returning the [key value] entry, works too.
func seqFind(th *thread, a []Value) (Value, error) {
	if a[0] == nil {
		return nil, nil // Clojure: (find nil k) is nil, as for a missing map
	}
	if m, ok := a[0].(*Map); ok {
		switch a[1].(type) {
		case *Vector, *Set, nil, string, *Seq:
		default:
			// The entry of the key the map holds: (find {"a" 1} :a) is ["a" 1].
			k := existingKey(m, a[1])
			if v, ok := m.getExact(k); ok {
				return newEntry(k, v), nil
			}
			return nil, nil
		}
	}
	if v, ok := a[0].(*Vector); ok {
		// Clojure's (find v i): a vector is associative by index. Any
		// other second argument than a collection cannot be PTC-Lisp's
		// (find pred coll), now that a vector is a function too.
		switch k := a[1].(type) {
		case *Vector, *Set, *Map, nil, string, *Seq:
		case int64:
			// Clojure's (find vector index): the [index element] entry.
			if k >= 0 && k < int64(v.Len()) {
				return newEntry(k, v.items[k]), nil
			}
			return nil, nil
		default:
			return nil, nil // no such index
		}
	}
	var found Value
	err := th.each(a[1], "find", func(x Value) (bool, error) {
		ok, err := th.test(a[0], x)
		if ok {
			found = x
		}
		return !ok, err
	})
	return found, err
}

// quantify implements every? (want true) and not-any? (want false).
func quantify(th *thread, fn string, a []Value, want, empty bool) (Value, error) {
	result := empty
	err := th.each(a[1], fn, func(x Value) (bool, error) {
		ok, err := th.test(a[0], x)
		if err != nil {
			return false, err
		}
		if ok != want {
			result = !empty
			return false, nil
		}
		return true, nil
	})
	return result, err
}

func seqContains(th *thread, a []Value) (Value, error) {
	if t, ok := a[0].(*transientVector); ok {
		return seqContains(th, []Value{t.view(), a[1]})
	}
	switch c := a[0].(type) {
	case *Map:
		if _, ok := c.Get(a[1]); ok {
			return true, nil
		}
		_, found, err := th.sortedKey(c, a[1])
		return found, err
	case *Set:
		if c.Has(a[1]) {
			return true, nil
		}
		_, found, err := th.sortedKey(c, a[1])
		return found, err
	case *Vector:
		// PTC-Lisp: membership of the value (Clojure would test an index),
		// a scan: (filter #(contains? v %) v) is quadratic, and counted so.
		if err := th.ticks(len(c.items)); err != nil {
			return nil, err
		}
		for _, x := range c.items {
			if th.equal(x, a[1]) {
				return true, nil
			}
		}
		return false, nil
	case nil:
		return false, nil
	case string:
		return nil, errorf(TypeError, "contains? on a string: use (clojure.string/includes? s sub)")
	}
	return nil, argError("contains?", 0, "a map, set or vector", a[0])
}

func seqConj(th *thread, a []Value) (Value, error) {
	if len(a) == 0 {
		return emptyVector, nil
	}
	if err := th.charge(2 * int64(len(a)-1)); err != nil {
		return nil, err
	}
	switch c := a[0].(type) {
	case *Seq:
		// Onto a sequence conj adds at the front, as cons.
		var err error
		for _, x := range a[1:] {
			if c, err = th.consSeq(x, c); err != nil {
				return nil, err
			}
		}
		return c, nil
	case *transientSet:
		for _, x := range a[1:] {
			c.b.Add(x)
		}
		return c, nil
	case *transientVector:
		for _, x := range a[1:] {
			if err := c.push(th, x); err != nil {
				return nil, err
			}
		}
		return c, nil
	case *transientMap:
		for _, x := range a[1:] {
			switch e := x.(type) {
			case *Vector:
				if e.Len() != 2 {
					return nil, classError(TypeError, classIllegalArgument, "conj onto a map takes [key value] pairs, got a vector of %d", e.Len())
				}
				c.set(e.items[0], e.items[1])
			case *Map:
				if err := th.chargeMerge(e); err != nil {
					return nil, err
				}
				for k, v := range e.All() {
					c.set(k, v)
				}
			case nil:
			default:
				return nil, classError(TypeError, classIllegalArgument, "conj onto a map takes [key value] pairs or maps, got %s", describe(x))
			}
		}
		return c, nil
	case nil:
		// Clojure: conj onto nil makes a list, (conj nil 1 2) is (2 1).
		return th.prependAll(emptyList, a[1:])
	case *Vector:
		if c.growsAtFront() {
			return th.prependAll(c.frontList(), a[1:])
		}
		for _, x := range a[1:] {
			var err error
			if c, err = th.conjVector(c, x); err != nil {
				return nil, err
			}
		}
		return c, nil
	case *Set:
		for _, x := range a[1:] {
			if c.sorted() != nil {
				var err error
				if c, err = th.sortedConj(c, x); err != nil {
					return nil, err
				}
				continue
			}
			c = c.Conj(x)
		}
		return c, nil
	case *Map:
		if c.sorted() != nil {
			return th.conjSorted(c, a[1:])
		}
		for _, x := range a[1:] {
			switch e := x.(type) {
			case *Vector:
				if e.Len() != 2 {
					return nil, classError(TypeError, classIllegalArgument, "conj onto a map takes [key value] pairs, got a vector of %d", e.Len())
				}
				c = c.Assoc(e.items[0], e.items[1])
			case *Map:
				if err := th.chargeMerge(e); err != nil {
					return nil, err
				}
				for k, v := range e.All() {
					c = c.Assoc(k, v)
				}
			case nil:
			default:
				return nil, classError(TypeError, classIllegalArgument, "conj onto a map takes [key value] pairs or maps, got %s", describe(x))
			}
		}
		return c, nil
	}
	return nil, argError("conj", 0, "a collection", a[0])
}

// chargeMerge accounts for merging the entries of m into a map: two slots
// and a step each.
func (th *thread) chargeMerge(m *Map) error {
	if err := th.charge(2 * int64(m.Len())); err != nil {
		return err
	}
	return th.ticks(m.Len())
}

func seqInto(th *thread, a []Value) (Value, error) {
	if to, ok := a[0].(*Vector); a[0] == nil || ok && to.growsAtFront() {
		// Into a list (or nil, which conj makes a list): each element goes
		// in front, so they end up reversed, as in Clojure. prependAll
		// charges the list it builds.
		xs, err := th.items(a[1], "into")
		if err != nil {
			return nil, err
		}
		if to == nil {
			to = emptyList
		}
		return th.prependAll(to.frontList(), xs)
	}
	pre := countOrZero(a[1])
	if err := th.charge(2 * int64(pre)); err != nil {
		return nil, err
	}
	switch to := a[0].(type) {
	case *Vector:
		xs, err := th.items(a[1], "into")
		if err != nil {
			return nil, err
		}
		if extra := len(xs) - pre; extra > 0 {
			// The characters of a string, not counted before.
			if err := th.charge(int64(extra)); err != nil {
				return nil, err
			}
		}
		v := to
		if v.Len() == 0 {
			if v.IsQueue() {
				return queueOf(ownedItems(a[1], xs)), nil
			}
			return NewVector(ownedItems(a[1], xs)), nil
		}
		for _, x := range xs {
			if v, err = th.conjVector(v, x); err != nil {
				return nil, err
			}
		}
		return v, nil
	case *Set:
		xs, err := th.items(a[1], "into")
		if err != nil {
			return nil, err
		}
		if to.sorted() != nil {
			return seqConj(th, append([]Value{to}, xs...))
		}
		b := newSetBuilder(to)
		for _, x := range xs {
			b.Add(x)
		}
		return inOrderOf(to, b.Set()), nil
	case *Map:
		if to.sorted() != nil {
			if m, ok := a[1].(*Map); ok {
				return seqConj(th, []Value{to, m})
			}
			xs, err := th.items(a[1], "into")
			if err != nil {
				return nil, err
			}
			return seqConj(th, append([]Value{to}, xs...))
		}
		b := newMapBuilder(treeOf(to))
		if m, ok := a[1].(*Map); ok {
			if err := th.ticks(m.Len()); err != nil { // charged above
				return nil, err
			}
			for k, v := range m.All() {
				b.Set(k, v)
			}
			return inOrderOf(to, b.Map()), nil
		}
		xs, err := th.items(a[1], "into")
		if err != nil {
			return nil, err
		}
		for _, x := range xs {
			switch e := x.(type) {
			case *Vector:
				if e.Len() != 2 {
					return nil, errorf(TypeError, "into a map takes [key value] pairs, got a vector of %d", e.Len())
				}
				b.Set(e.items[0], e.items[1])
			case *Map:
				if err := th.chargeMerge(e); err != nil {
					return nil, err
				}
				for k, v := range e.All() {
					b.Set(k, v)
				}
			default:
				return nil, errorf(TypeError, "into a map takes [key value] pairs, got %s", describe(x))
			}
		}
		return inOrderOf(to, b.Map()), nil
	}
	return nil, argError("into", 0, "a collection", a[0])
}

// maxRangeLen bounds an eager range whatever the memory limit: a vector of
// more elements cannot be allocated anyway.
const maxRangeLen = 1 << 31

// seqRange is Clojure's range. With integer arguments the elements are
// start, start+step, ... below end (above it for a negative step); a zero
// step repeats start forever. Otherwise it is Clojure's Range: the first
// element is start itself and each next one is the previous plus step with
// Clojure's + (integers while start and step are integers, so (range 3.5)
// is [0 1 2 3] and (range 0 3 0.5) is [0 0.5 1.0 ...]), accumulated as
// Clojure does, until it reaches end.
// cycleFrom is (cycle xs) from its element at index start.
func cycleFrom(xs []Value, start int) *Seq {
	return &Seq{name: "cycle", gen: func(th *thread, yield func(Value) (bool, error)) error {
		for i := start; ; i = 0 {
			for _, x := range xs[i:] {
				if ok, err := yield(x); err != nil || !ok {
					return err
				}
			}
		}
	}, skip: func(n int) *Seq { return cycleFrom(xs, (start+n%len(xs))%len(xs)) }}
}

// rangeFrom is (range) from start.
func rangeFrom(start int64) *Seq {
	return &Seq{name: "range", gen: func(th *thread, yield func(Value) (bool, error)) error {
		for i := start; ; i++ {
			if ok, err := yield(i); err != nil || !ok {
				return err
			}
		}
	}, skip: func(n int) *Seq { return rangeFrom(start + int64(n)) }}
}

func seqRange(th *thread, a []Value) (Value, error) { return rangeOf(th, a, false) }

// rangeOf is range; lazy makes every range a lazy sequence, for a consumer
// that may stop early (the compiler's lazyRanges).
func rangeOf(th *thread, a []Value, lazy bool) (Value, error) {
	if len(a) == 0 {
		return rangeFrom(0), nil
	}
	for i := range a {
		if _, err := numArg("range", a, i); err != nil {
			return nil, err
		}
	}
	for _, x := range a {
		if _, ok := x.(*big.Int); ok {
			return bigRange(th, a) // which calls back with longs
		}
	}
	var start, end, step Value = int64(0), a[0], int64(1)
	if len(a) >= 2 {
		start, end = a[0], a[1]
	}
	if len(a) == 3 {
		step = a[2]
	}
	si, ok1 := start.(int64)
	ei, ok2 := end.(int64)
	st, ok3 := step.(int64)
	if ok1 && ok2 && ok3 {
		if st == 0 {
			if si == ei {
				return emptyVector, nil
			}
			return repeatRange(start), nil
		}
		if (st > 0 && si >= ei) || (st < 0 && si <= ei) {
			return emptyVector, nil
		}
		// The count in unsigned arithmetic: ei-si may not fit an int64.
		diff, ust := uint64(ei)-uint64(si), uint64(st)
		if st < 0 {
			diff, ust = uint64(si)-uint64(ei), -uint64(st)
		}
		n := diff / ust
		if diff%ust != 0 {
			n++
		}
		if n > maxRangeLen || lazy {
			// More than could ever be built: lazy, as in Clojure, so that
			// (take 3 (range 1 Long/MAX_VALUE)) works.
			// A range the compiler made lazy (n within maxRangeLen) ends:
			// reduce may walk it whole.
			return &Seq{name: "range", finite: n <= maxRangeLen, gen: func(th *thread, yield func(Value) (bool, error)) error {
				v := si
				for i := uint64(0); i < n; i++ {
					if ok, err := yield(v); err != nil || !ok {
						return err
					}
					v += st // wraps only after the last element
				}
				return nil
			}}, nil
		}
		if err := th.charge(int64(n)); err != nil {
			return nil, err
		}
		// Counted before it is built too: without a memory limit, the
		// step limit stops (range 2000000000).
		if err := th.ticks(int(n)); err != nil {
			return nil, err
		}
		out := make([]Value, n)
		for i := range out {
			out[i] = si + int64(i)*st
		}
		return NewVector(out), nil
	}
	fs, _ := toFloat(start)
	fe, _ := toFloat(end)
	fst, _ := toFloat(step)
	switch {
	case len(a) == 1 && !(fe > 0), len(a) == 2 && fs >= fe:
		return emptyVector, nil
	case len(a) == 3 && ((fst > 0 && fs > fe) || (fst < 0 && fe > fs) || fs == fe):
		return emptyVector, nil
	case fst == 0:
		return repeatRange(start), nil
	}
	up := fst > 0 // NaN steps go "down", as in Clojure
	done := func(v Value) bool {
		f, _ := toFloat(v)
		if up {
			return f >= fe
		}
		return f <= fe
	}
	next := func(v Value) (Value, error) {
		if i, ok := v.(int64); ok && ok3 {
			r := i + st
			if (st > 0 && r < i) || (st < 0 && r > i) {
				return nil, overflow("range")
			}
			return r, nil
		}
		_, decV := v.(*Decimal)
		_, decStep := step.(*Decimal)
		if decV || decStep { // BigDecimals step exactly: (range 0.5M 3M) is 0.5M 1.5M 2.5M
			x, okV := decimalOf(v)
			y, okStep := decimalOf(step)
			if okV && okStep {
				return decimalArith("range", '+', x, y, th.mathContext())
			}
		}
		f, _ := toFloat(v)
		return f + fst, nil
	}
	endless := math.IsNaN(fs+fe+fst) || math.IsInf(fs, 0) || math.IsInf(fe, 0) || math.Ceil((fe-fs)/fst) > maxRangeLen
	if lazy || endless {
		// Never reaches end (or only by overflowing to infinity), or
		// too long to build: lazy; made lazy by the compiler otherwise,
		// and then finite.
		return &Seq{name: "range", finite: !endless, gen: func(th *thread, yield func(Value) (bool, error)) error {
			// The first element is start, unchecked, as in Clojure (a NaN step).
			for v, first := start, true; first || !done(v); first = false {
				if ok, err := yield(v); err != nil || !ok {
					return err
				}
				var err error
				if v, err = next(v); err != nil {
					return err
				}
			}
			return nil
		}}, nil
	}
	est := math.Ceil((fe - fs) / fst)
	// est is close to the count, but rounding in the sums can add a few
	// (or, for a step near the floats' spacing, more): charge as it grows.
	charged := int(est) + 1
	if err := th.charge(int64(charged)); err != nil {
		return nil, err
	}
	out := make([]Value, 1, charged)
	out[0] = start // unchecked, as in Clojure
	grow := func() error {
		if len(out)&1023 == 0 {
			if err := th.ticks(1024); err != nil {
				return err
			}
		}
		if len(out) == charged {
			charged += 1024
			return th.charge(1024)
		}
		return nil
	}
	if i, ok := start.(int64); ok && ok3 {
		// Integer start and step, float end: integers.
		for {
			r := i + st
			if (st > 0 && r < i) || (st < 0 && r > i) {
				return nil, overflow("range")
			}
			i = r
			if f := float64(i); (up && f >= fe) || (!up && f <= fe) {
				break
			}
			if err := grow(); err != nil {
				return nil, err
			}
			out = append(out, i)
		}
		return NewVector(out), nil
	}
	_, decStart := start.(*Decimal)
	_, decStep := step.(*Decimal)
	if decStart || decStep {
		// BigDecimals: each element the exact sum of the last and step.
		for v := start; ; {
			var err error
			if v, err = next(v); err != nil {
				return nil, err
			}
			if done(v) {
				break
			}
			if err := grow(); err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return NewVector(out), nil
	}
	for f := fs; ; {
		nf := f + fst
		if nf == f {
			// A float so large that adding step does not change it.
			return nil, errorf(InvalidArgument, "range from %s by %s never reaches %s: the step is too small for floats this large",
				brief(start), brief(step), brief(end))
		}
		f = nf
		if (up && f >= fe) || (!up && f <= fe) {
			break
		}
		if err := grow(); err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return NewVector(out), nil
}

// repeatRange is a range with a zero step: start forever, as in Clojure.
func repeatRange(start Value) *Seq {
	return &Seq{name: "range", gen: func(th *thread, yield func(Value) (bool, error)) error {
		for {
			if ok, err := yield(start); err != nil || !ok {
				return err
			}
		}
	}}
}

func seqReduce(th *thread, a []Value) (Value, error) {
	f := a[0]
	if !isCallable(f) {
		return nil, argError("reduce", 0, "a function", f)
	}
	coll := a[len(a)-1]
	var acc Value
	var xs []Value
	var err error
	linear := usesAccLinearly(f)
	var given Value // a transient handed down by a linear caller
	if len(a) == 3 && isTransientAcc(a[1]) {
		given = reduceInit(a[1], linear)
		a = []Value{f, given, coll}
	}
	if s, ok := coll.(*Seq); ok {
		if b, ok := f.(*Builtin); ok && neverReduced[b.Name] && !s.finite {
			// These never return (reduced ...): the reduce could not end.
			return nil, infiniteError(s, "reduce")
		}
		return th.reduceSeq(f, a[1:len(a)-1], s, linear, given)
	}
	if xs, err = th.items(coll, "reduce"); err != nil {
		return nil, err
	}
	if len(a) == 3 {
		acc = a[1]
	} else {
		if len(xs) == 0 {
			return th.call(f, nil)
		}
		acc, xs = xs[0], xs[1:]
	}
	if len(xs) == 0 {
		// f is not called: (reduce + ["a"]) is "a", as in Clojure.
		return acc, nil
	}
	if b, ok := f.(*Builtin); ok && (b.Name == "+" || b.Name == "*") {
		// (reduce + xs): fold natively instead of boxing every partial sum.
		if err := th.ticks(len(xs)); err != nil {
			return nil, err
		}
		return foldArith(th, b, acc, xs)
	}
	buf, mark := th.stack.alloc(2)
	defer th.stack.release(buf, mark)
	for _, x := range xs {
		if linear != accShared {
			acc = toTransient(acc, linear)
		}
		buf[0], buf[1] = acc, x
		if acc, err = th.call(f, buf); err != nil {
			return nil, err
		}
		if r, ok := acc.(*reduced); ok {
			return reduceResult(r.value, given), nil
		}
	}
	return reduceResult(acc, given), nil
}

// usesAccLinearly reports how f, a reducing function, uses its
// accumulator: linearly, reduce may hand it a transient (transient.go).
func usesAccLinearly(f Value) accMode {
	c, ok := f.(*Closure)
	if !ok {
		return accShared
	}
	if ar := c.proto.arityFor(2); ar != nil {
		return ar.linearAcc
	}
	return accShared
}

// neverReduced names builtins often given to reduce that cannot end it, so
// that (reduce + (range)) fails at once instead of at the step limit.
// (Functions made by comp, partial... have their maker's name: none is here.)
var neverReduced = map[string]bool{"+": true, "-": true, "*": true, "/": true, "max": true, "min": true,
	"conj": true, "merge": true, "str": true, "into": true, "concat": true, "assoc": true, "max-key": true, "min-key": true}

// reduceSeq reduces a sequence element by element as it is made: an
// infinite one, which only a (reduced x) from f ends (otherwise the step
// limit does), or a range the compiler made lazy because reduce keeps
// nothing of it. Like a vector's reduce it hands a linear f a transient
// (linear, given) and folds + and * natively, a chunk at a time.
func (th *thread) reduceSeq(f Value, init []Value, s *Seq, linear accMode, given Value) (Value, error) {
	var acc Value
	started := len(init) == 1
	if started {
		acc = init[0]
	}
	if b, ok := f.(*Builtin); ok && (b.Name == "+" || b.Name == "*") {
		return th.foldSeq(b, acc, started, s)
	}
	buf, mark := th.stack.alloc(2)
	defer th.stack.release(buf, mark)
	err := th.each(s, "reduce", func(x Value) (bool, error) {
		if !started {
			acc, started = x, true
			return true, nil
		}
		if linear != accShared {
			acc = toTransient(acc, linear)
		}
		buf[0], buf[1] = acc, x
		var err error
		if acc, err = th.call(f, buf); err != nil {
			return false, err
		}
		if r, ok := acc.(*reduced); ok {
			acc = r.value
			return false, nil
		}
		return true, nil
	})
	if err == nil && !started {
		return th.call(f, nil) // an empty sequence that may end: (f)
	}
	return reduceResult(acc, given), err
}

// foldSeq is (reduce + s) or (reduce * s) over a sequence: foldArith over
// chunks of its elements, so that no partial sum is boxed.
func (th *thread) foldSeq(b *Builtin, acc Value, started bool, s *Seq) (Value, error) {
	var chunk [256]Value
	n := 0
	flush := func() error {
		xs := chunk[:n]
		n = 0
		if !started {
			acc, xs, started = xs[0], xs[1:], true
		}
		var err error
		acc, err = foldArith(th, b, acc, xs)
		return err
	}
	err := th.each(s, "reduce", func(x Value) (bool, error) {
		chunk[n] = x
		if n++; n == len(chunk) {
			return true, flush()
		}
		return true, nil
	})
	if err == nil && n > 0 {
		err = flush()
	}
	if err != nil {
		return nil, err
	}
	if !started {
		return th.call(b, nil) // (+) is 0, (*) is 1
	}
	return acc, nil
}

// toTransient wraps an accumulator for in-place updates (see
// transient.go): under accLinear a map or a set, under accLinearReads a
// vector; anything else is returned as is, and so is a sorted-by map or
// set, which must keep its comparator.
func toTransient(v Value, mode accMode) Value {
	switch m := v.(type) {
	case *Map:
		if m.sorted() == nil && mode == accLinear {
			return &transientMap{b: newMapBuilder(m.tree()), from: m, kinds: m.keyKinds()}
		}
	case *Set:
		if m.sorted() == nil && mode == accLinear {
			return &transientSet{b: newSetBuilder(m), from: m}
		}
	case *Vector:
		if mode != accShared && !m.IsList() && m.kindOf() == plainKind {
			return &transientVector{items: m.items, from: m}
		}
	}
	return v
}

// freezeTransient turns a transient back into an immutable value.
func freezeTransient(v Value) Value {
	switch t := v.(type) {
	case *transientMap:
		m := t.b.Map()
		if m != emptyMap {
			m.kinds = t.kinds // a map of its own, fresh from the builder
		}
		return inOrderOf(t.from, m)
	case *transientSet:
		return inOrderOf(t.from, t.b.Set())
	case *transientVector:
		return t.freeze()
	}
	return v
}

// foldArith folds + or * over xs starting from acc, with the builtin's
// semantics (integers until a float appears, overflow is an error).
func foldArith(th *thread, b *Builtin, acc Value, xs []Value) (Value, error) {
	mul := b.Name == "*"
	var ia int64
	var fa float64
	isFloat := false
	switch x := acc.(type) {
	case int64:
		ia = x
	case float64:
		fa, isFloat = x, true
	case *big.Int, *Decimal:
		return b.fn(th, append([]Value{acc}, xs...))
	default:
		return b.fn(th, []Value{acc, firstOr(xs)})
	}
	for i, v := range xs {
		switch x := v.(type) {
		case int64:
			if isFloat {
				if mul {
					fa *= float64(x)
				} else {
					fa += float64(x)
				}
				continue
			}
			if mul {
				r, over := mulInt(ia, x)
				if over {
					return nil, overflow("*")
				}
				ia = r
			} else {
				r := ia + x
				if (x > 0 && r < ia) || (x < 0 && r > ia) {
					return nil, overflow("+")
				}
				ia = r
			}
		case float64:
			if !isFloat {
				fa, isFloat = float64(ia), true
			}
			if mul {
				fa *= x
			} else {
				fa += x
			}
		case *big.Int, *Decimal:
			// A BigInt or BigDecimal from here on: the builtin folds the rest.
			var sofar Value = ia
			if isFloat {
				sofar = fa
			}
			return b.fn(th, append([]Value{sofar}, xs[i:]...))
		default:
			return nil, argError(b.Name, 1, "a number", v)
		}
	}
	if isFloat {
		return fa, nil
	}
	return ia, nil
}

func firstOr(xs []Value) Value {
	if len(xs) > 0 {
		return xs[0]
	}
	return nil
}

// reduced wraps the value of (reduced x), which ends a reduce early.
type reduced struct{ value Value }

func seqReductions(th *thread, a []Value) (Value, error) {
	f := a[0]
	if s, ok := a[len(a)-1].(*Seq); ok {
		// Lazily, as Clojure: (take 5 (reductions + (range))).
		if len(a) == 3 {
			return th.reductionsCells(f, a[1], s, s.finite)
		}
		x, rest, ok, err := th.step(s)
		if err != nil {
			return nil, err
		}
		if !ok {
			v, err := th.call(f, nil)
			return vectorOf(v), err
		}
		return th.reductionsCells(f, x, rest, s.finite)
	}
	xs, err := th.items(a[len(a)-1], "reductions")
	if err != nil {
		return nil, err
	}
	var acc Value
	if len(a) == 3 {
		acc = a[1]
	} else {
		if len(xs) == 0 {
			v, err := th.call(f, nil)
			return vectorOf(v), err
		}
		acc, xs = xs[0], xs[1:]
	}
	if err := th.charge(int64(len(xs)) + 1); err != nil {
		return nil, err
	}
	out := make([]Value, 1, len(xs)+1)
	out[0] = acc
	for _, x := range xs {
		if acc, err = th.call2(f, acc, x); err != nil {
			return nil, err
		}
		if r, ok := acc.(*reduced); ok {
			out = append(out, r.value)
			break
		}
		out = append(out, acc)
	}
	return NewVector(out), nil
}

func partition(th *thread, fn string, a []Value, all bool) (Value, error) {
	if isEmptyColl(a[len(a)-1]) {
		return emptyVector, nil // Clojure never looks at the size then
	}
	if _, ok := fraction(a[0]); ok && !all {
		// Clojure: no chunk ever has a fractional count.
		return emptyVector, nil
	}
	n, err := countArg(fn, a, 0)
	if err != nil {
		return nil, err
	}
	if n < 0 && !all {
		// Clojure: no chunk has a negative count. A size of 0 (and any size
		// for partition-all) would loop forever there.
		return emptyVector, nil
	}
	if n <= 0 {
		return nil, errorf(InvalidArgument, "%s needs a positive size, got %d", fn, n)
	}
	step := n
	var pad []Value
	coll := a[len(a)-1]
	if len(a) >= 3 {
		if step, err = countArg(fn, a, 1); err != nil {
			return nil, err
		}
		if step <= 0 {
			return nil, errorf(InvalidArgument, "%s needs a positive step, got %d", fn, step)
		}
	}
	if len(a) == 4 {
		// At most n items of the pad are ever used, so an infinite pad,
		// (repeat nil) as models write it, is read that far.
		if s, ok := a[2].(*Seq); ok && !s.finite {
			pad, err = th.realize(s, int(min(n, 1<<20)), fn)
		} else {
			pad, err = th.items(a[2], fn)
		}
		if err != nil {
			return nil, err
		}
	}
	var xs []Value
	if s, ok := coll.(*Seq); ok {
		// Over an infinite sequence every partition is complete (partition
		// and partition-all agree, and the pad is never used).
		if step == n {
			return lazily(partitionAllXf(n), s), nil
		}
		return lazily(windowXf(n, step), s), nil
	}
	if xs, err = th.items(coll, fn); err != nil {
		return nil, err
	}
	// Sizes and steps past the end all mean "past the end" (and cannot overflow).
	size, stride := int(min(n, int64(len(xs))+1)), int(min(step, int64(len(xs))+1))
	// At most one partition per stride: its slot and its vector's header.
	if err := th.charge(3 * int64((len(xs)+stride-1)/stride)); err != nil {
		return nil, err
	}
	var out []Value
	for i := 0; i < len(xs); i += stride {
		end := i + size
		if end <= len(xs) {
			out = append(out, vectorView(coll, xs, i, end))
			continue
		}
		if all {
			// partition-all keeps every trailing short chunk:
			// (partition-all 3 1 [1 2 3 4]) ends with [3 4] [4].
			out = append(out, vectorView(coll, xs, i, len(xs)))
			if err := th.tick(); err != nil {
				return nil, err
			}
			continue
		}
		if len(a) == 4 {
			if err := th.charge(int64(size)); err != nil {
				return nil, err
			}
			part := slices.Clone(xs[i:])
			for _, p := range pad {
				if len(part) == int(n) {
					break
				}
				part = append(part, p)
			}
			out = append(out, NewVector(part))
		}
		break
	}
	return NewVector(out), nil
}

// sumBy is sum-by's accumulator, shared by the builtin and fused pipelines
// (fuse.go): integers until a float appears, nils skipped.
type sumBy struct {
	keyArg  Value
	field   *flexKey // keyArg prepared, when it is a keyword: read inline
	key     func(th *thread, x Value) (Value, error)
	isum    int64
	fsum    float64
	isFloat bool
}

func newSumBy(k Value) (sumBy, error) {
	if kw, ok := k.(Keyword); ok {
		// The common case, read inline (add does what keyFn's accessor would).
		return sumBy{keyArg: k, field: newFlexKey(kw)}, nil
	}
	key, err := keyFn("sum-by", k)
	if err != nil {
		return sumBy{}, err
	}
	return sumBy{keyArg: k, key: key}, nil
}

// add adds the key of x.
func (s *sumBy) add(th *thread, x Value) error {
	var v Value
	if m, ok := x.(*Map); ok && s.field != nil {
		// The common case in few instructions: an integer field of a map.
		v, _ = m.lookupFlex(s.field)
		if n, ok := v.(int64); ok && !s.isFloat {
			r := s.isum + n
			if (n > 0 && r < s.isum) || (n < 0 && r > s.isum) {
				return overflow("sum-by")
			}
			s.isum = r
			return nil
		}
		return s.addValue(x, v)
	}
	if s.field != nil {
		if x != nil {
			var err error
			if v, err = callKeyword(s.keyArg.(Keyword), []Value{x}); err != nil {
				return err
			}
		}
	} else {
		var err error
		if v, err = s.key(th, x); err != nil {
			return err
		}
	}
	return s.addValue(x, v)
}

// addValue adds v, the key's value of x.
func (s *sumBy) addValue(x, v Value) error {
	switch n := v.(type) {
	case nil:
	case int64:
		if s.isFloat {
			s.fsum += float64(n)
			return nil
		}
		r := s.isum + n
		if (n > 0 && r < s.isum) || (n < 0 && r > s.isum) {
			return overflow("sum-by")
		}
		s.isum = r
	case float64:
		if !s.isFloat {
			s.isFloat, s.fsum = true, float64(s.isum)
		}
		s.fsum += n
	default:
		return errorf(TypeError, "sum-by: %s of %s is not a number", brief(s.keyArg), describe(x))
	}
	return nil
}

// addAll adds the keys of xs. Rows that are records of one shape, summed
// by a keyword, take a tight loop: few instructions per row let the
// processor fetch several rows at once, which is what a walk over rows
// scattered in memory (the members of a group) is bound by.
func (s *sumBy) addAll(th *thread, xs []Value) error {
	for len(xs) > 0 {
		if s.field != nil && !s.isFloat {
			if m, ok := xs[0].(*Map); ok && m.rec != nil {
				n, err := s.sumInts(m.rec, xs)
				if err != nil {
					return err
				}
				xs = xs[n:]
				if len(xs) == 0 {
					return nil
				}
			}
		}
		if err := s.add(th, xs[0]); err != nil {
			return err
		}
		xs = xs[1:]
	}
	return nil
}

// sumInts adds the integer fields of the leading rows of xs that are
// records of shape, stopping (without adding it) at the first row that is
// not, or whose field is not an integer or nil; it returns how many rows
// it took.
func (s *sumBy) sumInts(shape *recordShape, xs []Value) (int, error) {
	slot := shape.slotFor(s.field)
	sum := s.isum
	for i, x := range xs {
		m, ok := x.(*Map)
		if !ok || m.rec != shape {
			s.isum = sum
			return i, nil
		}
		if slot < 0 {
			continue // absent: nil, skipped
		}
		switch n := m.vals[slot].(type) {
		case int64:
			r := sum + n
			if (n > 0 && r < sum) || (n < 0 && r > sum) {
				return 0, overflow("sum-by")
			}
			sum = r
		case nil:
		default:
			s.isum = sum
			return i, nil
		}
	}
	s.isum = sum
	return len(xs), nil
}

func (s *sumBy) result() Value {
	if s.isFloat {
		return s.fsum
	}
	return s.isum
}

// keyFn turns a key argument (function, keyword, string or path vector)
// into an accessor.
func keyFn(fn string, k Value) (func(th *thread, x Value) (Value, error), error) {
	switch k := k.(type) {
	case Keyword:
		fk := newFlexKey(k)
		return func(_ *thread, x Value) (Value, error) {
			if m, ok := x.(*Map); ok {
				v, _ := m.lookupFlex(fk)
				return v, nil
			}
			if x == nil {
				return nil, nil
			}
			return callKeyword(k, []Value{x})
		}, nil
	case string:
		fk := newFlexKey(k)
		return func(_ *thread, x Value) (Value, error) {
			if m, ok := x.(*Map); ok {
				v, _ := m.lookupFlex(fk)
				return v, nil
			}
			return nil, nil
		}, nil
	case *Vector:
		path := k.items
		return func(_ *thread, x Value) (Value, error) { return readPath(x, path), nil }, nil
	case *Builtin, *Closure, *Map, *Set, *Var:
		return func(th *thread, x Value) (Value, error) { return th.call1(k, x) }, nil
	}
	return nil, argError(fn, 0, "a key (keyword, function or path vector)", k)
}

func extremeBy(th *thread, fn string, a []Value, dir int) (Value, error) {
	key, err := keyFn(fn, a[0])
	if err != nil {
		return nil, err
	}
	xs, err := collItems(th, fn, a[1])
	if err != nil {
		return nil, err
	}
	var best, bestKey Value
	found := false
	for _, x := range xs {
		k, err := key(th, x)
		if err != nil {
			return nil, err
		}
		if k == nil {
			continue
		}
		if !found || th.compare(k, bestKey)*dir > 0 {
			best, bestKey, found = x, k, true
		}
	}
	return best, nil
}

func extremeKey(th *thread, fn string, a []Value, dir int) (Value, error) {
	f := a[0]
	if !isCallable(f) {
		return nil, argError(fn, 0, "a function", f)
	}
	var best, bestKey Value
	for i, x := range a[1:] {
		k, err := th.call1(f, x)
		if err != nil {
			return nil, err
		}
		// Clojure keeps the last of equal keys.
		if i == 0 || th.compare(k, bestKey)*dir >= 0 {
			best, bestKey = x, k
		}
	}
	return best, nil
}

// lazyFn is (name f s) over a lazy sequence s: the stage of f, applied as
// s is consumed.
func lazyFn(name string, a []Value, s *Seq, stage func(f Value) *xfStage) (Value, error) {
	f, err := fnArg(name, a, 0)
	if err != nil {
		return nil, err
	}
	return lazily(stage(f), s), nil
}

// ---- sorting ----------------------------------------------------------------

func seqSort(th *thread, a []Value) (Value, error) {
	coll := a[len(a)-1]
	xs, err := sortableItems(th, "sort", coll)
	if err != nil {
		return nil, err
	}
	ord, err := parseSortOrder("sort", a[:len(a)-1])
	if err != nil {
		return nil, err
	}
	out, err := th.sortValues(xs, nil, ord)
	if err != nil {
		return nil, err
	}
	return th.vector(out)
}

func seqSortBy(th *thread, a []Value) (Value, error) {
	if len(a) == 3 {
		if isFunction(a[2]) && !isFunction(a[1]) {
			return nil, errorf(TypeError, "sort-by takes (sort-by key comparator coll): the collection goes last")
		}
	}
	key, err := keyFn("sort-by", a[0])
	if err != nil {
		return nil, err
	}
	coll := a[len(a)-1]
	xs, err := sortableItems(th, "sort-by", coll)
	if err != nil {
		return nil, err
	}
	ord, err := parseSortOrder("sort-by", a[1:len(a)-1])
	if err != nil {
		return nil, err
	}
	if err := th.charge(int64(len(xs))); err != nil {
		return nil, err
	}
	keys := make([]Value, len(xs))
	for i, x := range xs {
		if keys[i], err = key(th, x); err != nil {
			return nil, err
		}
	}
	out, err := th.sortValues(xs, keys, ord)
	if err != nil {
		return nil, err
	}
	return th.vector(out)
}

func sortableItems(th *thread, fn string, coll Value) ([]Value, error) {
	if s, ok := coll.(*Seq); ok && !s.finite {
		return nil, infiniteError(s, fn)
	}
	if err := th.charge(int64(countOrZero(coll))); err != nil {
		return nil, err
	}
	return th.items(coll, fn)
}

func countOrZero(coll Value) int {
	switch c := coll.(type) {
	case *Vector:
		return c.Len()
	case *Map:
		return c.Len()
	case *Set:
		return c.Len()
	}
	return 0
}

// sortOrder is the ordering of sort and sort-by: the built-in total order,
// ascending or descending, or a user comparator (a boolean "less than"
// function, or a compare-style function returning a number).
type sortOrder struct {
	desc bool
	fn   Value // nil: the built-in order
	// cmp is the builtin <, >, <= or >= given as the comparator: sorted
	// natively when every key is a number (no NaN) or every one a string,
	// where the built-in order is what the comparator computes; otherwise
	// it is called like any comparator, so it fails where it would fail.
	cmp Value
}

// parseSortOrder reads the optional comparator argument. :asc, :desc and
// the builtins <, >, <=, >= and compare are recognized and sorted natively.
func parseSortOrder(fn string, opt []Value) (sortOrder, error) {
	if len(opt) == 0 {
		return sortOrder{}, nil
	}
	c := opt[0]
	switch c {
	case Keyword("asc"):
		return sortOrder{}, nil
	case Keyword("desc"):
		return sortOrder{desc: true}, nil
	}
	if b, ok := c.(*Builtin); ok { // only the real builtins carry these names
		switch b.Name {
		case "compare":
			return sortOrder{}, nil
		case "<", "<=":
			return sortOrder{cmp: c}, nil
		case ">", ">=":
			return sortOrder{desc: true, cmp: c}, nil
		}
	}
	if !isCallable(c) {
		return sortOrder{}, argError(fn, 1, "a comparator function or :asc/:desc", c)
	}
	return sortOrder{fn: c}, nil
}

// sortValues returns xs sorted stably by keys (or by the elements), and
// charges the comparisons as evaluation steps, checking the limits as it goes.
func (th *thread) sortValues(xs, keys []Value, ord sortOrder) ([]Value, error) {
	if keys == nil {
		keys = xs
	}
	n := len(xs)
	if ord.cmp != nil && !numbersOrStrings(keys) {
		ord.fn = ord.cmp
	}
	if ord.fn != nil {
		return th.sortByCall(xs, keys, ord.fn)
	}
	idx := make([]int32, n)
	for i := range idx {
		idx[i] = int32(i)
	}
	budget := &sortBudget{th: th}
	sign := 1
	if ord.desc {
		sign = -1
	}
	// An unstable pdqsort with the index as the last tie-breaker is stable
	// and O(n log n), unlike the stdlib's stable sort; homogeneous keys get
	// comparisons without dynamic dispatch.
	switch homogeneous(keys) {
	case kindInt:
		if out, ok := sortSmallInts(xs, keys, ord.desc); ok {
			return out, th.ticks(n)
		}
		sortIndex(idx, unboxed[int64](keys), cmp.Compare[int64], sign, budget)
	case kindString:
		sortIndex(idx, unboxed[string](keys), strings.Compare, sign, budget)
	default:
		sortIndex(idx, keys, th.compare, sign, budget)
	}
	if budget.err != nil {
		return nil, budget.err
	}
	return gather(xs, idx), nil
}

// sortIndex sorts idx by ks[idx[i]] under compare (reversed when sign is
// -1), the index breaking ties: an unstable pdqsort made stable.
func sortIndex[K any](idx []int32, ks []K, compare func(a, b K) int, sign int, budget *sortBudget) {
	slices.SortFunc(idx, func(a, b int32) int {
		if budget.spent() {
			return 0
		}
		if c := compare(ks[a], ks[b]); c != 0 {
			return sign * c
		}
		return cmp.Compare(a, b)
	})
}

// sortBudget charges a sort's comparisons as steps, 1024 at a time; once
// the run is out of steps (or time) every comparison is a tie, so the sort
// winds down and the error is reported.
type sortBudget struct {
	th     *thread
	checks int
	err    error
}

// spent is called once per comparison: small enough to inline.
func (b *sortBudget) spent() bool {
	b.checks++
	if b.checks&1023 == 0 {
		b.charge()
	}
	return b.err != nil
}

func (b *sortBudget) charge() {
	if b.err == nil {
		b.err = b.th.ticks(1024)
	}
}

// unboxed copies keys, all of dynamic type K, into a []K.
func unboxed[K any](keys []Value) []K {
	ks := make([]K, len(keys))
	for i, k := range keys {
		ks[i] = k.(K)
	}
	return ks
}

// sortByCall sorts with a user comparator: a stable sort that asks the
// comparator "is a before b?", once per comparison.
func (th *thread) sortByCall(xs, keys []Value, f Value) ([]Value, error) {
	idx := make([]int, len(xs))
	for i := range idx {
		idx[i] = i
	}
	var firstErr error
	sort.SliceStable(idx, func(i, j int) bool {
		if firstErr != nil {
			return false
		}
		if err := th.tick(); err != nil {
			firstErr = err
			return false
		}
		r, err := th.call2(f, keys[idx[i]], keys[idx[j]])
		if err != nil {
			firstErr = err
			return false
		}
		switch r := r.(type) {
		case int64:
			return r < 0
		case float64:
			return r < 0
		case bool:
			return r
		case nil:
			return false
		}
		firstErr = errorf(TypeError, "sort comparator must return a boolean or a number, got %s", describe(r))
		return false
	})
	if firstErr != nil {
		return nil, firstErr
	}
	return gather(xs, idx), nil
}

// gather returns the items of xs in the order of idx.
func gather[I int | int32](xs []Value, idx []I) []Value {
	out := make([]Value, len(idx))
	for i, j := range idx {
		out[i] = xs[j]
	}
	return out
}

// sortSmallInts sorts by integer keys that fit 32 bits, packing key and
// index into one int64 so that a plain (closure-free) sort is stable. Large
// inputs take the checked path instead, so a sort cannot outlive the run's
// deadline by more than a few milliseconds.
func sortSmallInts(xs, keys []Value, desc bool) ([]Value, bool) {
	n := len(xs)
	if n > 1<<16 { // about 5 ms: larger sorts take the checked path
		return nil, false
	}
	packed := make([]int64, n)
	for i, k := range keys {
		v := k.(int64)
		if v < math.MinInt32+1 || v > math.MaxInt32 {
			return nil, false
		}
		if desc {
			v = -v
		}
		packed[i] = v<<32 | int64(i)
	}
	slices.Sort(packed)
	out := make([]Value, n)
	for i, p := range packed {
		out[i] = xs[uint32(p)]
	}
	return out, true
}

// numbersOrStrings reports whether every value is a number other than NaN,
// or every one a string: the keys that <, >, <= and >= compare as the
// built-in order does.
func numbersOrStrings(vs []Value) bool {
	if len(vs) == 0 {
		return true
	}
	_, str := vs[0].(string)
	for _, v := range vs {
		switch x := v.(type) {
		case int64:
			if str {
				return false
			}
		case float64:
			if str || math.IsNaN(x) {
				return false
			}
		case string:
			if !str {
				return false
			}
		default:
			return false
		}
	}
	return true
}

const (
	kindMixed = iota
	kindInt
	kindString
)

// homogeneous reports whether every value is an int64, or every one a string.
func homogeneous(vs []Value) int {
	if len(vs) == 0 {
		return kindMixed
	}
	switch vs[0].(type) {
	case int64:
		for _, v := range vs {
			if _, ok := v.(int64); !ok {
				return kindMixed
			}
		}
		return kindInt
	case string:
		for _, v := range vs {
			if _, ok := v.(string); !ok {
				return kindMixed
			}
		}
		return kindString
	}
	return kindMixed
}

// seqKeep is keep, or keep-indexed when indexed: the non-nil results of f
// (given the index first when indexed); lazy over a lazy sequence.
func seqKeep(th *thread, name string, a []Value, indexed bool) (Value, error) {
	if s, ok := a[1].(*Seq); ok {
		f, err := fnArg(name, a, 0)
		if err != nil {
			return nil, err
		}
		return lazily(keepXf(name, f, indexed), s), nil
	}
	xs, err := th.items(a[1], name)
	if err != nil {
		return nil, err
	}
	if err := th.charge(int64(len(xs))); err != nil {
		return nil, err
	}
	out := make([]Value, 0, len(xs))
	for i, x := range xs {
		var v Value
		if indexed {
			v, err = th.call2(a[0], int64(i), x)
		} else {
			v, err = th.call1(a[0], x)
		}
		if err != nil {
			return nil, err
		}
		if v != nil {
			out = append(out, v)
		}
	}
	return NewVector(out), nil
}

// realizeAll is doall (keep: returns the collection) and dorun (returns
// nil). Values are already realized; only an infinite sequence is an error,
// unless a count bounds it.
func realizeAll(th *thread, fn string, a []Value, keep bool) (Value, error) {
	coll := a[len(a)-1]
	if len(a) == 2 {
		if _, err := intArg(fn, a, 0); err != nil {
			return nil, err
		}
	}
	switch c := coll.(type) {
	case *Seq:
		if len(a) == 1 && !c.finite {
			return nil, infiniteError(c, fn)
		}
		if len(a) == 1 {
			// A sequence that may end: realize it, for its side effects.
			xs, err := th.realize(c, -1, fn)
			if err != nil || !keep {
				return nil, err
			}
			return NewVector(xs), nil
		}
	case nil, *Vector, *Map, *Set, string:
	default:
		return nil, argError(fn, len(a)-1, "a collection", coll)
	}
	if keep {
		return coll, nil
	}
	return nil, nil
}

// treeSeq is (tree-seq branch? children root): the nodes of a tree in
// depth-first pre-order, walked with an explicit stack.
func treeSeq(th *thread, a []Value) (Value, error) {
	branch, children := a[0], a[1]
	if !isCallable(branch) {
		return nil, argError("tree-seq", 0, "a predicate function", branch)
	}
	if !isCallable(children) {
		return nil, argError("tree-seq", 1, "a function", children)
	}
	var out []Value
	stack := [][]Value{{a[2]}}
	charged := 0
	for len(stack) > 0 {
		top := len(stack) - 1
		if len(stack[top]) == 0 {
			stack = stack[:top]
			continue
		}
		node := stack[top][0]
		stack[top] = stack[top][1:]
		out = append(out, node)
		if err := th.tick(); err != nil {
			return nil, err
		}
		if len(out)-charged >= 1024 {
			if err := th.charge(int64(len(out) - charged)); err != nil {
				return nil, err
			}
			charged = len(out)
		}
		ok, err := th.test(branch, node)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		kids, err := th.call1(children, node)
		if err != nil {
			return nil, err
		}
		if s, isSeq := kids.(*Seq); isSeq && !s.finite {
			return nil, infiniteError(s, "tree-seq")
		}
		xs, err := th.items(kids, "tree-seq")
		if err != nil {
			return nil, err
		}
		if len(xs) > 0 {
			if len(stack) >= maxDataDepth {
				return nil, errorf(DepthExceeded, "tree-seq: tree nested deeper than %d levels", maxDataDepth)
			}
			stack = append(stack, xs)
		}
	}
	return NewVector(out), th.charge(int64(len(out) - charged))
}

// coreReplace is clojure.core/replace: the elements of coll that are keys
// of smap (a map, or a vector indexed by position) replaced by their values.
// replaceLookup returns the replacement of x in smap (a map, or a vector
// indexed by integers), as clojure.core/replace looks it up.
func replaceLookup(smap Value) (func(x Value) (Value, bool), error) {
	switch m := smap.(type) {
	case nil:
		return func(Value) (Value, bool) { return nil, false }, nil
	case *Map:
		if m.Len() == 0 {
			return func(Value) (Value, bool) { return nil, false }, nil
		}
		return m.getExact, nil
	case *Vector:
		return func(x Value) (Value, bool) {
			if i, ok := x.(int64); ok && i >= 0 && i < int64(m.Len()) {
				return m.items[i], true
			}
			return nil, false
		}, nil
	}
	return nil, argError("replace", 0, "a map of replacements", smap)
}

func coreReplace(th *thread, smap, coll Value) (Value, error) {
	lookup, err := replaceLookup(smap)
	if err != nil {
		return nil, err
	}
	if s, ok := coll.(*Seq); ok {
		return &Seq{name: s.name, finite: s.finite, gen: func(th *thread, yield func(Value) (bool, error)) error {
			return s.gen(th, func(x Value) (bool, error) {
				if v, ok := lookup(x); ok {
					x = v
				}
				return yield(x)
			})
		}}, nil
	}
	xs, err := th.items(coll, "replace")
	if err != nil {
		return nil, err
	}
	// Share the input when nothing is replaced; copy on the first hit.
	var out []Value
	for i, x := range xs {
		if v, ok := lookup(x); ok {
			if out == nil {
				if _, isVec := coll.(*Vector); isVec {
					// Copied here (the items of other inputs are fresh and
					// already charged).
					if err := th.charge(int64(len(xs))); err != nil {
						return nil, err
					}
				}
				out = ownedItems(coll, xs)
			}
			out[i] = v
		}
	}
	if out == nil {
		return seqResult(coll, xs), nil
	}
	return NewVector(out), nil
}

// iteration is Clojure 1.11's (iteration step :somef :vf :kf :initk),
// realized eagerly: the values (vf ret) of the successive (step k) calls
// while (somef ret) holds, following the keys (kf ret) until one is nil.
// It is the idiom for paging through a tool's results.
func iteration(th *thread, a []Value) (Value, error) {
	step, err := fnArg("iteration", a, 0)
	if err != nil {
		return nil, err
	}
	opts := a[1:]
	if len(opts)%2 != 0 {
		return nil, errorf(ArityError, "iteration takes a step function then options as pairs (:somef f :vf f :kf f :initk k), got an odd number of option arguments")
	}
	var somef, vf, kf, initk Value
	for i := 0; i < len(opts); i += 2 {
		k, v := opts[i], opts[i+1]
		switch k {
		case Keyword("somef"):
			somef = v
		case Keyword("vf"):
			vf = v
		case Keyword("kf"):
			kf = v
		case Keyword("initk"):
			initk = v
			continue
		default:
			return nil, errorf(InvalidArgument, "iteration: unknown option %s (the options are :somef :vf :kf :initk)", brief(k))
		}
		if !isCallable(v) {
			return nil, argError("iteration", i+2, "a function", v)
		}
	}
	var out []Value
	ret, err := th.call1(step, initk)
	for err == nil {
		if err = th.tick(); err != nil {
			break
		}
		if somef != nil {
			var more Value
			if more, err = th.call1(somef, ret); err != nil {
				break
			}
			if !truthy(more) {
				break
			}
		} else if ret == nil {
			break
		}
		v := ret
		if vf != nil {
			if v, err = th.call1(vf, ret); err != nil {
				break
			}
		}
		out = append(out, v)
		if len(out)%1024 == 0 {
			if err = th.charge(1024); err != nil {
				break
			}
		}
		k := ret
		if kf != nil {
			if k, err = th.call1(kf, ret); err != nil {
				break
			}
		}
		if k == nil {
			break
		}
		ret, err = th.call1(step, k)
	}
	if err != nil {
		return nil, err
	}
	return NewVector(out), th.charge(int64(len(out) % 1024))
}

// rseqSorted is rseq of a map (its [key value] entries) or a set: every map
// and set is sorted, so, as for Clojure's sorted collections, it walks them
// backwards. Empty gives nil.
func rseqSorted(th *thread, coll Value) (Value, error) {
	var out []Value
	switch c := coll.(type) {
	case *Map:
		if c.Len() == 0 {
			return nil, nil
		}
		if err := th.charge(entriesSlots(c.Len())); err != nil {
			return nil, err
		}
		out = mapEntries(c)
		slices.Reverse(out)
	case *Set:
		if c.Len() == 0 {
			return nil, nil
		}
		if err := th.charge(int64(c.Len())); err != nil {
			return nil, err
		}
		out = c.Items()
		slices.Reverse(out)
	default:
		return nil, argError("rseq", 0, "a vector, map or set (use (reverse coll) for other collections)", coll)
	}
	return NewVector(out), th.ticks(len(out))
}

// subseqBound is one test of subseq: (op element-key key).
type subseqBound struct {
	op  string
	key Value
	cmp func(a, b Value) int // compareKeys, or a sorted-by collection's comparator
}

func (b subseqBound) holds(k Value) bool {
	c := b.cmp(k, b.key)
	switch b.op {
	case "<":
		return c < 0
	case "<=":
		return c <= 0
	case ">":
		return c > 0
	}
	return c >= 0
}

// subseq is (subseq sc test key) and (subseq sc start-test start-key
// end-test end-key) over a map (compared by key) or a set, in the canonical
// order every map and set has; rsubseq gives the same elements backwards.
// The tests are <, <=, > and >=, as in Clojure.
func subseq(th *thread, fn string, a []Value, rev bool) (Value, error) {
	return guarded(func() (Value, error) { return subseqIn(th, fn, a, rev) })
}

func subseqIn(th *thread, fn string, a []Value, rev bool) (Value, error) {
	if len(a) == 4 {
		return nil, errorf(ArityError, "%s takes (%s coll test key) or (%s coll start-test start-key end-test end-key), got 4 arguments", fn, fn, fn)
	}
	var bounds []subseqBound
	cmp := compareKeys
	switch c := a[0].(type) {
	case *Map:
		if c.sorted() != nil {
			cmp = th.comparatorFn(c.sorted().fn)
		}
	case *Set:
		if c.sorted() != nil {
			cmp = th.comparatorFn(c.by.fn)
		}
	}
	for i := 1; i+1 < len(a); i += 2 {
		b, ok := a[i].(*Builtin)
		if !ok || (b.Name != "<" && b.Name != "<=" && b.Name != ">" && b.Name != ">=") {
			return nil, argError(fn, i, "one of < <= > >=", a[i])
		}
		bounds = append(bounds, subseqBound{b.Name, a[i+1], cmp})
	}
	_, isMap := a[0].(*Map)
	switch a[0].(type) {
	case *Map, *Set, nil:
	default:
		return nil, argError(fn, 0, "a map or set (sorted collections)", a[0])
	}
	xs, err := th.items(a[0], fn)
	if err != nil {
		return nil, err
	}
	keyOf := func(x Value) Value {
		if isMap {
			return x.(*Vector).items[0]
		}
		return x
	}
	var out []Value
	for _, x := range xs {
		if all(bounds, keyOf(x)) {
			out = append(out, x)
		}
	}
	if len(out) > 0 {
		if rev {
			slices.Reverse(out)
		}
		return NewVector(out), nil
	}
	// Selecting nothing gives nil or an empty sequence, as Clojure's, by
	// where its search starts. From the key when the starting test points
	// away from the start (subseq: > >=; rsubseq: < <=): nil unless an
	// element lies on the key's side (only the two-test form can leave one
	// unselected). Otherwise from the start: the one-test form gives an
	// empty sequence, the two-test form nil for an empty collection.
	start := bounds[0]
	fromKey := start.op == ">" || start.op == ">="
	if rev {
		start = bounds[len(bounds)-1]
		fromKey = start.op == "<" || start.op == "<="
	}
	switch {
	case fromKey:
		side := subseqBound{">=", start.key, cmp}
		if rev {
			side.op = "<="
		}
		for _, x := range xs {
			if len(bounds) == 2 && side.holds(keyOf(x)) {
				return emptyVector, nil
			}
		}
		return nil, nil
	case len(bounds) == 2 && len(xs) == 0:
		return nil, nil
	}
	return emptyVector, nil
}

func all(bounds []subseqBound, k Value) bool {
	for _, b := range bounds {
		if !b.holds(k) {
			return false
		}
	}
	return true
}

// sequenceColl is (sequence coll): the collection as a sequence ((sequence
// xform coll), registered with the transducers, calls it too).
func sequenceColl(th *thread, coll Value) (Value, error) {
	switch c := coll.(type) {
	case *Seq, *Vector:
		return c, nil
	case nil:
		return emptyVector, nil
	}
	xs, err := th.items(coll, "sequence")
	if err != nil {
		return nil, err
	}
	return NewVector(xs), nil
}

// emptyRest is what rest returns when nothing is left: () for a list, []
// for the rest.
func emptyRest(coll Value) Value {
	if v, ok := coll.(*Vector); ok && (v.IsList() || v.IsQueue()) {
		return emptyList
	}
	return emptyVector
}
