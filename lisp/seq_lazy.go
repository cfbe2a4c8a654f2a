package lisp

import (
	"slices"
	"sync"

	"github.com/ptc-go/ptc/lisp/internal/analyze"
)

// Lazy sequences of unknown length: (lazy-seq body), cons onto a sequence,
// lazy-cat, and concat, map, filter and remove over them. Unlike the
// generated sequences of seq.go (range, iterate ...), which run their
// generator again on every walk, these are chains of memoized cells, as
// Clojure's LazySeq and Cons: a lazy cell runs its body once, when the
// sequence is first realized, and keeps the result; a cons cell holds its
// first element and the rest. First and rest of a cell are O(1), so the
// recursive definitions models write (a fibonacci with lazy-seq and cons,
// a sieve of primes, (def fibs (lazy-cat [0 1] (map + fibs (rest fibs)))))
// take linear work, and a walk over a chain is a loop, not a recursion of
// Go calls.
//
// Such a sequence may be finite or not: count, vec, into, printing and the
// other functions that need all of it realize it under the run's limits (a
// step and a value slot per element), so an endless one ends at the step,
// memory or time limit, never in a hang.

// seqCell is a lazy cell or a cons cell.
type seqCell struct {
	// A cons cell: head and the rest (any collection, nil or a *Seq).
	cons       bool
	head, tail Value
	// A lazy cell: body computes the sequence once; val is its result
	// (nil for empty, or a collection or *Seq) once done.
	body func(th *thread) (Value, error)
	mu   sync.Mutex
	done bool
	val  Value
}

// newLazySeq is (lazy-seq body): a sequence whose body runs when first
// realized.
func (th *thread) newLazySeq(body func(th *thread) (Value, error)) (*Seq, error) {
	return th.lazyCell(body, true)
}

// lazyCell is a lazy cell; finite false marks one known to be infinite
// (built only from infinite sequences), which realizing all of is an
// error at once.
func (th *thread) lazyCell(body func(th *thread) (Value, error), finite bool) (*Seq, error) {
	if err := th.charge(4); err != nil {
		return nil, err
	}
	th.run.madeLazy.Store(true)
	s := &Seq{name: "lazy-seq", finite: finite, cell: &seqCell{body: body}}
	s.gen = s.walkCells
	return s, nil
}

// consSeq is (cons x s) for a sequence s: a cell, O(1).
func (th *thread) consSeq(x Value, s *Seq) (*Seq, error) {
	if err := th.charge(4); err != nil {
		return nil, err
	}
	th.run.madeLazy.Store(true)
	c := &Seq{name: s.name, finite: s.finite, cell: &seqCell{cons: true, head: x, tail: s}}
	c.gen = c.walkCells
	return c, nil
}

// repeatedlySeq is (repeatedly f), or (repeatedly n f) for an n too large
// to build: a generated sequence that remembers what f returned, so that f
// is called once per element, when the element is first realized, however
// often the sequence is walked, as Clojure's memoized lazy sequence does
// (f is for side effects: a swap!, a counter). Each remembered element is
// charged a slot. f is called without the lock held (it may walk the
// sequence itself); two goroutines realizing one element at once may both
// call f, and the first value stored is the element.
func repeatedlySeq(f Value, counted bool, limit int64) *Seq {
	var mu sync.Mutex
	// The values, in blocks of memoBlock: growing never copies them.
	var blocks [][]Value
	n := 0
	return &Seq{name: "repeatedly", gen: func(th *thread, yield func(Value) (bool, error)) error {
		for i := 0; !counted || int64(i) < limit; i++ {
			mu.Lock()
			known := i < n
			var v Value
			if known {
				v = blocks[i/memoBlock][i%memoBlock]
			}
			mu.Unlock()
			if !known {
				x, err := th.call(f, nil)
				if err != nil {
					return err
				}
				if err := th.charge(1); err != nil {
					return err
				}
				mu.Lock()
				if i == n {
					if n%memoBlock == 0 {
						blocks = append(blocks, make([]Value, 0, memoBlock))
					}
					blocks[len(blocks)-1] = append(blocks[len(blocks)-1], x)
					n++
				}
				v = blocks[i/memoBlock][i%memoBlock]
				mu.Unlock()
			}
			if ok, err := yield(v); err != nil || !ok {
				return err
			}
		}
		return nil
	}}
}

// memoBlock is the size of the blocks repeatedlySeq keeps its values in.
const memoBlock = 256

// force returns the value of a lazy cell's body, running it the first
// time. Two goroutines forcing one cell at once may both run the body;
// the first result is kept.
func (c *seqCell) force(th *thread) (Value, error) {
	c.mu.Lock()
	if c.done {
		v := c.val
		c.mu.Unlock()
		return v, nil
	}
	body := c.body
	c.mu.Unlock()
	v, err := body(th)
	if err != nil {
		return nil, err
	}
	switch v.(type) {
	case nil, *Vector, *Map, *Set, *Seq, string:
	default:
		return nil, errorf(TypeError, "lazy-seq: the body must return a sequence or nil, got %s", describe(v))
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.done {
		c.done, c.val, c.body = true, v, nil
	}
	return c.val, nil
}

// step splits a sequence into its first element and the rest: ok is false
// when it is empty. Lazy cells are forced and followed in a loop; a cons
// cell, a vector (the rest is a slice of it) and nil are O(1); a generated
// sequence runs its generator for one element, its rest drops one.
func (th *thread) step(v Value) (first, rest Value, ok bool, err error) {
	for {
		switch x := v.(type) {
		case nil:
			return nil, nil, false, nil
		case *Vector:
			if x.Len() == 0 {
				return nil, nil, false, nil
			}
			return x.items[0], x.Slice(1, x.Len()), true, nil
		case *Seq:
			if x.cell == nil {
				var got Value
				found := false
				err := x.gen(th, func(e Value) (bool, error) {
					got, found = e, true
					return false, nil
				})
				if err != nil || !found {
					return nil, nil, false, err
				}
				return got, dropSeq(x, 1), true, nil
			}
			if x.cell.cons {
				return x.cell.head, x.cell.tail, true, nil
			}
			if err := th.tick(); err != nil {
				return nil, nil, false, err
			}
			if v, err = x.cell.force(th); err != nil {
				return nil, nil, false, err
			}
		default:
			xs, err := th.items(v, "seq")
			if err != nil {
				return nil, nil, false, err
			}
			v = NewVector(xs)
		}
	}
}

// walkCells is the generator of a chain of cells: it yields the elements
// in a loop, and hands over to the generator of a generated sequence or
// the items of a collection where the chain ends in one.
func (s *Seq) walkCells(th *thread, yield func(Value) (bool, error)) error {
	var v Value = s
	for {
		if err := th.tick(); err != nil {
			return err
		}
		x, ok := v.(*Seq)
		if !ok {
			xs, err := th.items(v, "seq")
			if err != nil {
				return err
			}
			for _, e := range xs {
				if ok, err := yield(e); err != nil || !ok {
					return err
				}
			}
			return nil
		}
		switch {
		case x.cell == nil:
			return x.gen(th, yield)
		case x.cell.cons:
			if ok, err := yield(x.cell.head); err != nil || !ok {
				return err
			}
			v = x.cell.tail
		default:
			var err error
			if v, err = x.cell.force(th); err != nil {
				return err
			}
		}
	}
}

// isEmptySeq reports whether a sequence has no elements, realizing at
// most its first.
func (th *thread) isEmptySeq(s *Seq) (bool, error) {
	_, _, ok, err := th.step(s)
	return !ok, err
}

// concatCells is concat (and lazy-cat) when a part is a lazy sequence: a
// chain that steps through each part in turn, realized as far as it is
// read.
func (th *thread) concatCells(parts []Value) (*Seq, error) {
	finite := true
	for _, p := range parts {
		if s, ok := p.(*Seq); ok && !s.finite {
			finite = false
		}
	}
	return th.lazyCell(func(th *thread) (Value, error) {
		for len(parts) > 0 {
			x, rest, ok, err := th.step(parts[0])
			if err != nil {
				return nil, err
			}
			if !ok {
				parts = parts[1:]
				continue
			}
			tail, err := th.concatCells(append([]Value{rest}, parts[1:]...))
			if err != nil {
				return nil, err
			}
			return th.consSeq(x, tail)
		}
		return nil, nil
	}, finite)
}

// mapCells is map over collections of which one is a lazy sequence: f of
// the first elements, then of the next, until one collection ends.
func (th *thread) mapCells(f Value, colls []Value) (*Seq, error) {
	finite := false // map ends with its shortest collection
	for _, c := range colls {
		if s, ok := c.(*Seq); !ok || s.finite {
			finite = true
		}
	}
	return th.lazyCell(func(th *thread) (Value, error) {
		args := make([]Value, len(colls))
		rests := make([]Value, len(colls))
		for i, c := range colls {
			x, rest, ok, err := th.step(c)
			if err != nil || !ok {
				return nil, err
			}
			args[i], rests[i] = x, rest
		}
		y, err := th.call(f, args)
		if err != nil {
			return nil, err
		}
		tail, err := th.mapCells(f, rests)
		if err != nil {
			return nil, err
		}
		return th.consSeq(y, tail)
	}, finite)
}

// interleaveCells is interleave over collections of which one is a lazy
// sequence (or all are sequences): the first of each, then the next of
// each, until one ends.
func (th *thread) interleaveCells(colls []Value) (*Seq, error) {
	finite := false
	for _, c := range colls {
		if s, ok := c.(*Seq); !ok || s.finite {
			finite = true
		}
	}
	return th.lazyCell(func(th *thread) (Value, error) {
		firsts := make([]Value, len(colls))
		rests := make([]Value, len(colls))
		for i, c := range colls {
			x, rest, ok, err := th.step(c)
			if err != nil || !ok {
				return nil, err
			}
			firsts[i], rests[i] = x, rest
		}
		var tail Value
		tail, err := th.interleaveCells(rests)
		if err != nil {
			return nil, err
		}
		for i := len(firsts) - 1; i >= 0; i-- {
			s, err := th.consSeq(firsts[i], tail.(*Seq))
			if err != nil {
				return nil, err
			}
			tail = s
		}
		return tail, nil
	}, finite)
}

// reductionsCells is reductions over a sequence: acc, then the
// reductions of the rest, realized as far as they are read; a (reduced x)
// ends it with x.
func (th *thread) reductionsCells(f, acc, s Value, finite bool) (*Seq, error) {
	tail, err := th.lazyCell(func(th *thread) (Value, error) {
		x, rest, ok, err := th.step(s)
		if err != nil || !ok {
			return nil, err
		}
		next, err := th.call2(f, acc, x)
		if err != nil {
			return nil, err
		}
		if r, ok := next.(*reduced); ok {
			return vectorOf(r.value), nil
		}
		return th.reductionsCells(f, next, rest, finite)
	}, finite)
	if err != nil {
		return nil, err
	}
	return th.consSeq(acc, tail)
}

// filterCells is filter (keep true) or remove over a lazy sequence.
func (th *thread) filterCells(pred Value, keep bool, s *Seq) (*Seq, error) {
	return th.lazyCell(func(th *thread) (Value, error) {
		for v := Value(s); ; {
			x, rest, ok, err := th.step(v)
			if err != nil || !ok {
				return nil, err
			}
			t, err := th.call1(pred, x)
			if err != nil {
				return nil, err
			}
			if truthy(t) == keep {
				r, ok := rest.(*Seq)
				if !ok {
					// The rest is a collection: filter it as a lazy chain too.
					var err error
					if r, err = th.concatCells([]Value{rest}); err != nil {
						return nil, err
					}
				}
				tail, err := th.filterCells(pred, keep, r)
				if err != nil {
					return nil, err
				}
				return th.consSeq(x, tail)
			}
			v = rest
		}
	}, s.finite)
}

// isCells reports a sequence made of memoized cells (see seqCell).
func isCells(v Value) bool {
	s, ok := v.(*Seq)
	return ok && s.cell != nil
}

// realizeValue realizes the lazy sequences of unknown length in v, which
// is leaving the run (the program's value): a finite one becomes a
// vector, in collections too; an infinite one at the top is an error. The
// walk is bounded as every walk of a value: a step per element, the data
// depth limit, and it happens only in runs that built such sequences.
func (th *thread) realizeValue(v Value) (Value, error) {
	if !th.run.madeLazy.Load() {
		return v, nil
	}
	return th.realizeIn(v, 0)
}

func (th *thread) realizeIn(v Value, depth int) (Value, error) {
	if depth >= maxDataDepth {
		return nil, deepDataError()
	}
	if err := th.tick(); err != nil {
		return nil, err
	}
	switch x := v.(type) {
	case *Seq:
		if !x.finite && depth > 0 {
			return x, nil // prints as #seq[name], as before
		}
		xs, err := th.realize(x, -1, "the program's value")
		if err != nil {
			return nil, err
		}
		return th.realizeIn(NewVector(xs), depth)
	case *Vector:
		var out []Value
		for i, e := range x.items {
			r, err := th.realizeIn(e, depth+1)
			if err != nil {
				return nil, err
			}
			if r != e && out == nil {
				out = slices.Clone(x.items)
			}
			if out != nil {
				out[i] = r
			}
		}
		if out != nil {
			return x.withItems(out), nil
		}
	case *Map:
		var b *MapBuilder
		for k, e := range x.All() {
			r, err := th.realizeIn(e, depth+1)
			if err != nil {
				return nil, err
			}
			if r != e {
				if b == nil {
					b = NewMapBuilder(x)
				}
				b.Set(k, r)
			}
		}
		if b != nil {
			return b.Map(), nil
		}
	}
	return v, nil
}

func registerLazy(t *builtinTable) {
	// What (lazy-seq body...) calls with (fn [] body...): the analyzer
	// rewrites the macro into a call of this name, which no program can
	// spell; its documentation is lazy-seq's.
	t.set(analyze.LazySeqFn, &Builtin{Name: "lazy-seq", MinArgs: 1, MaxArgs: 1, fn: func(th *thread, a []Value) (Value, error) {
		body := a[0]
		return th.newLazySeq(func(th *thread) (Value, error) { return th.call(body, nil) })
	}})
	t.add("realized?", 1, 1, func(_ *thread, a []Value) (Value, error) {
		if c, ok := a[0].(*Cell); ok {
			if done, isRef := refRealized(c); isRef {
				return done, nil
			}
		}
		s, ok := a[0].(*Seq)
		if !ok {
			return nil, argError("realized?", 0, "a lazy sequence, a delay, a future or a promise", a[0])
		}
		if c := s.cell; c != nil && !c.cons {
			c.mu.Lock()
			defer c.mu.Unlock()
			return c.done, nil
		}
		return true, nil
	})
}
