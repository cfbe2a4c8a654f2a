package lisp

import (
	"math/big"
	"strings"
)

// Transducers: (map f), (filter p), cat ... called without a collection,
// composed with comp (left to right, as in Clojure) and run by into,
// transduce, sequence and eduction:
//
//	(into [] (comp (filter even?) (map inc)) xs)
//	(transduce (map :amount) + orders)
//
// A transducer value is a *Builtin whose xf holds its stages. The consumers
// run the stages natively: each stage is a reducer wrapping the next one,
// down to a reducer that builds the result (a vector, map or set) or calls
// the reducing function given to transduce. Called as a function with a
// reducing function rf, a transducer returns a reducing function (of 0, 1
// and 2 arguments: init, completion, step), so transducers written as plain
// functions, and comp mixing them with the builtin ones, work as in Clojure.
//
// Every element a consumer takes counts a step; the collections the stages
// build (partitions, the seen set of distinct) and the result are charged.

// reducer is a reducing function inside the interpreter.
type reducer interface {
	// step folds x into acc; a *reduced result ends the reduction.
	step(th *thread, acc, x Value) (Value, error)
	// done completes the result (flushes buffered partitions, ...).
	done(th *thread, acc Value) (Value, error)
}

// xfStage is one stage of a transducer.
type xfStage struct {
	name string                     // shown in #transducer[...]
	wrap func(next reducer) reducer // a reducer with fresh state over next
	// stops: the stage can end a reduction by itself (take, take-while,
	// halt-when), so it may be run over an infinite sequence.
	stops bool
	// mapFn is f of a (map f) stage, which alone takes several inputs a
	// step: (sequence (map +) xs ys).
	mapFn Value
}

type transducer struct{ stages []*xfStage }

// newTransducer returns a transducer value; name is the builtin's name in
// arity errors.
func newTransducer(name string, stages ...*xfStage) *Builtin {
	xf := &transducer{stages: stages}
	return &Builtin{Name: name, MinArgs: 1, MaxArgs: 1, xf: xf,
		fn: func(th *thread, a []Value) (Value, error) { return xf.reducingFn(a[0]) }}
}

// transducerOf returns the native stages of v, if v is a builtin transducer.
func transducerOf(v Value) *transducer {
	if b, ok := v.(*Builtin); ok {
		return b.xf
	}
	return nil
}

// composeTransducers is comp over transducers: one transducer running the
// stages of xs left to right. ok is false unless every x is a builtin
// transducer.
func composeTransducers(xs []Value) (*Builtin, bool) {
	if len(xs) == 0 {
		return nil, false
	}
	var stages []*xfStage
	for _, x := range xs {
		xf := transducerOf(x)
		if xf == nil {
			return nil, false
		}
		stages = append(stages, xf.stages...)
	}
	return newTransducer("comp", stages...), true
}

// build chains the stages in front of final.
func (xf *transducer) build(final reducer) reducer {
	r := final
	for i := len(xf.stages) - 1; i >= 0; i-- {
		r = xf.stages[i].wrap(r)
	}
	return r
}

// stops reports whether a stage can end a reduction early.
func (xf *transducer) stops() bool {
	for _, st := range xf.stages {
		if st.stops {
			return true
		}
	}
	return false
}

// reducingFn is (xf rf): a reducing function that runs the stages into rf.
func (xf *transducer) reducingFn(rf Value) (Value, error) {
	if _, vec := rf.(*Vector); vec || !isCallable(rf) { // a vector here is a misplaced collection
		return nil, errorf(TypeError, "a transducer takes a reducing function, got %s: to transform a collection give it as the last argument, e.g. (map f coll), or use (into [] xf coll)", describe(rf))
	}
	r := xf.build(&fnReducer{f: rf})
	return &Builtin{Name: "reducing-fn", MinArgs: 0, MaxArgs: 2, fn: func(th *thread, a []Value) (Value, error) {
		switch len(a) {
		case 0:
			return th.call(rf, nil)
		case 1:
			return r.done(th, a[0])
		}
		return r.step(th, a[0], a[1])
	}}, nil
}

// reduceXf runs the reducer r over coll from acc: one step per element
// until a step returns a reduced value, then the completion.
func (th *thread) reduceXf(r reducer, acc, coll Value, op string) (Value, error) {
	feed := func(x Value) (bool, error) {
		if err := th.tick(); err != nil {
			return false, err
		}
		v, err := r.step(th, acc, x)
		if err != nil {
			return false, err
		}
		if rd, ok := v.(*reduced); ok {
			acc = rd.value
			return false, nil
		}
		acc = v
		return true, nil
	}
	var err error
	switch c := coll.(type) {
	case *Vector:
		for _, x := range c.items {
			var more bool
			if more, err = feed(x); err != nil || !more {
				break
			}
		}
	case *Map:
		for k, v := range c.All() {
			if err = th.charge(entrySlots); err != nil {
				break
			}
			var more bool
			if more, err = feed(newEntry(k, v)); err != nil || !more {
				break
			}
		}
	case *Seq:
		err = c.gen(th, feed)
	default:
		var xs []Value
		if xs, err = th.items(coll, op); err != nil {
			return nil, err
		}
		for _, x := range xs {
			var more bool
			if more, err = feed(x); err != nil || !more {
				break
			}
		}
	}
	if err != nil {
		return nil, err
	}
	return r.done(th, acc)
}

// runTransducer reduces coll through the transducer xform (a builtin one or
// a function) into final, a native reducer, or, for a transducer written as
// a function, into the reducing function f from init (Clojure's
// (transduce xform f init coll)).
func (th *thread) runTransducer(op string, xform Value, final func() (reducer, error), f, init, coll Value) (Value, error) {
	if xf := transducerOf(xform); xf != nil {
		if s, ok := coll.(*Seq); ok && !s.finite && !xf.stops() {
			return nil, infiniteError(s, op)
		}
		r, err := final()
		if err != nil {
			return nil, err
		}
		return th.reduceXf(xf.build(r), init, coll, op)
	}
	if _, vec := xform.(*Vector); vec || !isCallable(xform) {
		return nil, argError(op, 0, "a transducer", xform)
	}
	rf, err := th.call1(xform, f)
	if err != nil {
		return nil, err
	}
	if !isCallable(rf) {
		return nil, errorf(TypeError, "%s: the transducer %s returned %s instead of a reducing function", op, describe(xform), describe(rf))
	}
	return th.reduceXf(&fnReducer{f: rf}, init, coll, op)
}

// arithReducer is transduce's reducing function + or * over numbers, folded
// natively without boxing every partial result, as reduce does. The
// accumulator lives here; acc passes through the stages unused.
type arithReducer struct {
	b       *Builtin // + or *
	mul     bool
	isFloat bool
	i       int64
	f       float64
	// big is the sum or product once a BigInt or a BigDecimal joined it
	// (bigint.go, decimal.go): the builtin folds from then on.
	big Value
}

// newArithReducer returns the native fold of f from init, or nil when f is
// not the builtin + or * or init is not a number.
func newArithReducer(f, init Value) *arithReducer {
	b, ok := f.(*Builtin)
	if !ok || (b.Name != "+" && b.Name != "*") || b.xf != nil {
		return nil
	}
	r := &arithReducer{b: b, mul: b.Name == "*"}
	switch x := init.(type) {
	case int64:
		r.i = x
	case float64:
		r.f, r.isFloat = x, true
	case *big.Int, *Decimal:
		r.big = x
	default:
		return nil
	}
	return r
}

func (r *arithReducer) step(th *thread, acc, x Value) (Value, error) {
	if isBigNumber(x) || r.big != nil {
		if r.big == nil {
			r.big = r.i
			if r.isFloat {
				r.big = r.f
			}
		}
		v, err := r.b.fn(th, []Value{r.big, x})
		r.big = v
		return acc, err
	}
	switch n := x.(type) {
	case int64:
		if r.isFloat {
			r.fold(float64(n))
			return acc, nil
		}
		if r.mul {
			v, over := mulInt(r.i, n)
			if over {
				return nil, overflow("*")
			}
			r.i = v
		} else {
			v := r.i + n
			if (n > 0 && v < r.i) || (n < 0 && v > r.i) {
				return nil, overflow("+")
			}
			r.i = v
		}
	case float64:
		if !r.isFloat {
			r.f, r.isFloat = float64(r.i), true
		}
		r.fold(n)
	default:
		return nil, argError(r.b.Name, 1, "a number", x)
	}
	return acc, nil
}

func (r *arithReducer) fold(x float64) {
	if r.mul {
		r.f *= x
	} else {
		r.f += x
	}
}

func (r *arithReducer) done(*thread, Value) (Value, error) {
	if r.big != nil {
		return r.big, nil
	}
	if r.isFloat {
		return r.f, nil
	}
	return r.i, nil
}

// fnReducer calls a reducing function: (f acc x) for a step and (f acc) to
// complete. A function without a one-argument arity, such as (fn [acc x]
// ...), completes as identity, as if wrapped in completing (Clojure would
// fail calling it with one argument).
type fnReducer struct{ f Value }

func (r *fnReducer) step(th *thread, acc, x Value) (Value, error) { return th.call2(r.f, acc, x) }

func (r *fnReducer) done(th *thread, acc Value) (Value, error) {
	if !th.takesArgs(r.f, 1) {
		return acc, nil
	}
	return th.call1(r.f, acc)
}

// takesArgs reports whether f can be called with n arguments.
func (th *thread) takesArgs(f Value, n int) bool {
	for hops := 0; hops < 8; hops++ {
		switch g := f.(type) {
		case *Builtin:
			return g.checkArity(n) == nil
		case *Closure:
			return g.proto.arityFor(n) != nil
		case *Var:
			v, ok := th.globals.lookup(g.Name)
			if !ok {
				return true // the call reports the unbound var
			}
			f = v
			continue
		}
		return true
	}
	return true
}

// ---- final reducers: the collections into, sequence and eduction build -----

// vecReducer collects into a vector (or a queue).
type vecReducer struct {
	out   []Value
	queue bool
}

func (r *vecReducer) step(th *thread, acc, x Value) (Value, error) {
	if err := th.charge(1); err != nil {
		return nil, err
	}
	r.out = append(r.out, x)
	return acc, nil
}

func (r *vecReducer) done(*thread, Value) (Value, error) {
	if r.queue {
		return queueOf(r.out), nil
	}
	return NewVector(r.out), nil
}

// listReducer conjoins onto a list: each element goes in front, so the
// elements end up reversed before the list's own.
type listReducer struct {
	onto *Vector
	in   []Value
}

func (r *listReducer) step(th *thread, acc, x Value) (Value, error) {
	if err := th.charge(1); err != nil {
		return nil, err
	}
	r.in = append(r.in, x)
	return acc, nil
}

func (r *listReducer) done(th *thread, _ Value) (Value, error) {
	return th.prependAll(r.onto, r.in)
}

// setReducer and mapReducer pour into a set or map, from is what they
// started from (whose sorted-set or sorted-map mark the result keeps).
type setReducer struct {
	b    *setBuilder
	from Value
}

func (r *setReducer) step(th *thread, acc, x Value) (Value, error) {
	if err := th.charge(2); err != nil {
		return nil, err
	}
	r.b.Add(x)
	return acc, nil
}

func (r *setReducer) done(*thread, Value) (Value, error) { return inOrderOf(r.from, r.b.Set()), nil }

type mapReducer struct {
	b    *MapBuilder
	from Value
}

func (r *mapReducer) step(th *thread, acc, x Value) (Value, error) {
	if err := th.charge(2); err != nil {
		return nil, err
	}
	if m, ok := x.(*Map); ok {
		// A whole map poured in: each of its entries.
		if err := th.chargeMerge(m); err != nil {
			return nil, err
		}
	}
	return acc, intoMapEntry(r.b, x)
}

func (r *mapReducer) done(*thread, Value) (Value, error) { return inOrderOf(r.from, r.b.Map()), nil }

// intoMapEntry adds x, a [key value] pair or a map, to b, as into does.
func intoMapEntry(b *MapBuilder, x Value) error {
	switch e := x.(type) {
	case *Vector:
		if e.Len() != 2 {
			return errorf(TypeError, "into a map takes [key value] pairs, got a vector of %d", e.Len())
		}
		b.Set(e.items[0], e.items[1])
	case *Map:
		for k, v := range e.All() {
			b.Set(k, v)
		}
	default:
		return errorf(TypeError, "into a map takes [key value] pairs, got %s", describe(x))
	}
	return nil
}

// intoReducer returns the reducer that pours elements into to.
func intoReducer(th *thread, to Value) (reducer, error) {
	switch c := to.(type) {
	case nil:
		return &listReducer{onto: emptyList}, nil // conj onto nil makes a list
	case *Vector:
		if c.growsAtFront() {
			return &listReducer{onto: c.frontList()}, nil
		}
		// The elements already there are copied into the result.
		if err := th.charge(int64(c.Len())); err != nil {
			return nil, err
		}
		return &vecReducer{out: append(make([]Value, 0, c.Len()+8), c.items...), queue: c.IsQueue()}, nil
	case *Set:
		if c.sorted() != nil {
			return &conjReducer{coll: c}, nil
		}
		return &setReducer{b: newSetBuilder(c), from: c}, nil
	case *Map:
		if c.sorted() != nil {
			return &conjReducer{coll: c}, nil
		}
		return &mapReducer{b: NewMapBuilder(c), from: c}, nil
	}
	return nil, argError("into", 0, "a collection", to)
}

// conjReducer conjoins onto a sorted-by map or set, which keeps its
// comparator.
type conjReducer struct{ coll Value }

func (r *conjReducer) step(th *thread, _, x Value) (Value, error) {
	v, err := seqConj(th, []Value{r.coll, x})
	if err != nil {
		return nil, err
	}
	r.coll = v
	return v, nil
}

func (r *conjReducer) done(_ *thread, _ Value) (Value, error) { return r.coll, nil }

// yieldReducer hands elements to a lazy sequence's consumer.
type yieldReducer struct {
	yield func(Value) (bool, error)
}

func (r *yieldReducer) step(_ *thread, acc, x Value) (Value, error) {
	more, err := r.yield(x)
	if err != nil {
		return nil, err
	}
	if !more {
		return &reduced{value: acc}, nil
	}
	return acc, nil
}

func (r *yieldReducer) done(_ *thread, acc Value) (Value, error) { return acc, nil }

// lazyTransduce is (sequence xf s) over an infinite sequence, for stages
// that cannot end it: a lazy sequence, as Clojure's.
func lazyTransduce(xf *transducer, s *Seq) *Seq {
	return &Seq{name: s.name, finite: s.finite, gen: func(th *thread, yield func(Value) (bool, error)) error {
		r := xf.build(&yieldReducer{yield: yield})
		var acc Value
		return s.gen(th, func(x Value) (bool, error) {
			if err := th.tick(); err != nil {
				return false, err
			}
			v, err := r.step(th, acc, x)
			if err != nil {
				return false, err
			}
			if _, ok := v.(*reduced); ok {
				return false, nil
			}
			acc = v
			return true, nil
		})
	}}
}

// sequenceXf is (sequence xform coll) and eduction: the transformed
// elements as a vector (lazily for an infinite input, when possible).
func (th *thread) sequenceXf(op string, xform, coll Value) (Value, error) {
	if xf := transducerOf(xform); xf != nil {
		if s, ok := coll.(*Seq); ok && !xf.stops() {
			return lazyTransduce(xf, s), nil
		}
	}
	return th.runTransducer(op, xform, func() (reducer, error) { return &vecReducer{}, nil }, conjBuiltin, emptyVector, coll)
}

// conjBuiltin is conj, the reducing function of into and sequence when the
// transducer is a plain function.
var conjBuiltin Value

// ---- stages -------------------------------------------------------------------

// link passes the completion on to the next reducer.
type link struct{ next reducer }

func (l *link) done(th *thread, acc Value) (Value, error) { return l.next.done(th, acc) }

func stage(name string, stops bool, wrap func(next reducer) reducer) *xfStage {
	return &xfStage{name: name, wrap: wrap, stops: stops}
}

type mapStep struct {
	link
	f Value
}

func (r *mapStep) step(th *thread, acc, x Value) (Value, error) {
	y, err := th.call1(r.f, x)
	if err != nil {
		return nil, err
	}
	return r.next.step(th, acc, y)
}

func mapXf(f Value) *xfStage {
	st := stage("map", false, func(next reducer) reducer { return &mapStep{link{next}, f} })
	st.mapFn = f
	return st
}

type mapIndexedStep struct {
	link
	f Value
	i int64
}

func (r *mapIndexedStep) step(th *thread, acc, x Value) (Value, error) {
	y, err := th.call2(r.f, r.i, x)
	if err != nil {
		return nil, err
	}
	r.i++
	return r.next.step(th, acc, y)
}

func mapIndexedXf(f Value) *xfStage {
	return stage("map-indexed", false, func(next reducer) reducer { return &mapIndexedStep{link: link{next}, f: f} })
}

type filterStep struct {
	link
	pred Value
	keep bool
}

func (r *filterStep) step(th *thread, acc, x Value) (Value, error) {
	ok, err := th.test(r.pred, x)
	if err != nil {
		return nil, err
	}
	if ok != r.keep {
		return acc, nil
	}
	return r.next.step(th, acc, x)
}

func filterXf(name string, pred Value, keep bool) *xfStage {
	return stage(name, false, func(next reducer) reducer { return &filterStep{link{next}, pred, keep} })
}

type keepStep struct {
	link
	f       Value
	indexed bool
	i       int64
}

func (r *keepStep) step(th *thread, acc, x Value) (Value, error) {
	var y Value
	var err error
	if r.indexed {
		y, err = th.call2(r.f, r.i, x)
		r.i++
	} else {
		y, err = th.call1(r.f, x)
	}
	if err != nil || y == nil {
		return acc, err
	}
	return r.next.step(th, acc, y)
}

func keepXf(name string, f Value, indexed bool) *xfStage {
	return stage(name, false, func(next reducer) reducer { return &keepStep{link: link{next}, f: f, indexed: indexed} })
}

type takeStep struct {
	link
	left int64
}

func (r *takeStep) step(th *thread, acc, x Value) (Value, error) {
	n := r.left
	r.left--
	if n > 0 {
		var err error
		if acc, err = r.next.step(th, acc, x); err != nil {
			return nil, err
		}
	}
	if r.left <= 0 {
		return ensureReduced(acc), nil
	}
	return acc, nil
}

func ensureReduced(v Value) Value {
	if _, ok := v.(*reduced); ok {
		return v
	}
	return &reduced{value: v}
}

func takeXf(n int64) *xfStage {
	return stage("take", true, func(next reducer) reducer { return &takeStep{link{next}, n} })
}

type dropStep struct {
	link
	left int64
}

func (r *dropStep) step(th *thread, acc, x Value) (Value, error) {
	if r.left > 0 {
		r.left--
		return acc, nil
	}
	return r.next.step(th, acc, x)
}

func dropXf(n int64) *xfStage {
	return stage("drop", false, func(next reducer) reducer { return &dropStep{link{next}, n} })
}

type takeWhileStep struct {
	link
	pred Value
}

func (r *takeWhileStep) step(th *thread, acc, x Value) (Value, error) {
	ok, err := th.test(r.pred, x)
	if err != nil {
		return nil, err
	}
	if !ok {
		return &reduced{value: acc}, nil
	}
	return r.next.step(th, acc, x)
}

func takeWhileXf(pred Value) *xfStage {
	return stage("take-while", true, func(next reducer) reducer { return &takeWhileStep{link{next}, pred} })
}

type dropWhileStep struct {
	link
	pred     Value
	dropping bool
}

func (r *dropWhileStep) step(th *thread, acc, x Value) (Value, error) {
	if r.dropping {
		ok, err := th.test(r.pred, x)
		if err != nil {
			return nil, err
		}
		if ok {
			return acc, nil
		}
		r.dropping = false
	}
	return r.next.step(th, acc, x)
}

func dropWhileXf(pred Value) *xfStage {
	return stage("drop-while", false, func(next reducer) reducer { return &dropWhileStep{link{next}, pred, true} })
}

type takeNthStep struct {
	link
	n, i int64
}

func (r *takeNthStep) step(th *thread, acc, x Value) (Value, error) {
	i := r.i
	r.i++
	if i%r.n != 0 {
		return acc, nil
	}
	return r.next.step(th, acc, x)
}

func takeNthXf(n int64) *xfStage {
	return stage("take-nth", false, func(next reducer) reducer { return &takeNthStep{link: link{next}, n: n} })
}

// catStep feeds the elements of each input (a collection) on.
type catStep struct{ link }

func (r *catStep) step(th *thread, acc, x Value) (Value, error) {
	var stop *reduced
	err := th.each(x, "cat", func(y Value) (bool, error) {
		if err := th.tick(); err != nil {
			return false, err
		}
		v, err := r.next.step(th, acc, y)
		if err != nil {
			return false, err
		}
		if rd, ok := v.(*reduced); ok {
			stop = rd // keep it reduced: the whole reduction ends
			return false, nil
		}
		acc = v
		return true, nil
	})
	if err != nil {
		return nil, err
	}
	if stop != nil {
		return stop, nil
	}
	return acc, nil
}

func catXf() *xfStage {
	return stage("cat", false, func(next reducer) reducer { return &catStep{link{next}} })
}

func mapcatXf(f Value) *xfStage {
	return stage("mapcat", false, func(next reducer) reducer { return &mapStep{link{&catStep{link{next}}}, f} })
}

type distinctStep struct {
	link
	seen *valueSet
}

func (r *distinctStep) step(th *thread, acc, x Value) (Value, error) {
	if !r.seen.add(x) {
		return acc, nil
	}
	if err := th.charge(1); err != nil {
		return nil, err
	}
	return r.next.step(th, acc, x)
}

func distinctXf() *xfStage {
	return stage("distinct", false, func(next reducer) reducer { return &distinctStep{link{next}, newValueSet(nil, 0)} })
}

// dedupeStep drops elements equal to the previous one (= as dedupe: 1 and
// 1.0 are equal).
type dedupeStep struct {
	link
	prev Value
	any  bool
}

func (r *dedupeStep) step(th *thread, acc, x Value) (Value, error) {
	if r.any && th.equal(x, r.prev) {
		return acc, nil
	}
	r.prev, r.any = x, true
	return r.next.step(th, acc, x)
}

func dedupeXf() *xfStage {
	return stage("dedupe", false, func(next reducer) reducer { return &dedupeStep{link: link{next}} })
}

// partitionAllStep emits vectors of n elements, and the rest at the end.
type partitionAllStep struct {
	link
	n   int
	buf []Value
}

func (r *partitionAllStep) step(th *thread, acc, x Value) (Value, error) {
	if err := th.charge(1); err != nil { // the buffer becomes the partition
		return nil, err
	}
	r.buf = append(r.buf, x)
	if len(r.buf) < r.n {
		return acc, nil
	}
	if err := th.charge(2); err != nil { // the partition's header
		return nil, err
	}
	v := NewVector(r.buf)
	r.buf = nil
	return r.next.step(th, acc, v)
}

func (r *partitionAllStep) done(th *thread, acc Value) (Value, error) {
	return flushPartition(th, &r.link, acc, &r.buf)
}

// flushPartition passes the buffered partition on, then completes.
func flushPartition(th *thread, l *link, acc Value, buf *[]Value) (Value, error) {
	if len(*buf) > 0 {
		v := NewVector(*buf)
		*buf = nil
		var err error
		if acc, err = l.next.step(th, acc, v); err != nil {
			return nil, err
		}
		if rd, ok := acc.(*reduced); ok {
			acc = rd.value
		}
	}
	return l.next.done(th, acc)
}

func partitionAllXf(n int64) *xfStage {
	return stage("partition-all", false, func(next reducer) reducer {
		return &partitionAllStep{link: link{next}, n: int(min(n, 1<<30))}
	})
}

// windowStep emits the complete windows of n elements that start every step
// elements: (partition n step coll) over an infinite sequence, where every
// window is complete (sliding when step < n, with gaps when step > n). It is
// a lazy sequence's stage only, never a transducer (Clojure has none).
type windowStep struct {
	link
	n, stride int
	buf       []Value
	skip      int // elements still to drop before the next window starts
}

func (r *windowStep) step(th *thread, acc, x Value) (Value, error) {
	if r.skip > 0 {
		r.skip--
		return acc, nil
	}
	if err := th.charge(1); err != nil { // x joins the window
		return nil, err
	}
	r.buf = append(r.buf, x)
	if len(r.buf) < r.n {
		return acc, nil
	}
	w := NewVector(r.buf)
	if r.stride < r.n {
		// The next window starts inside this one: its first n-step
		// elements are copied (the emitted window keeps the old array).
		keep := r.n - r.stride
		if err := th.charge(2 + int64(keep)); err != nil {
			return nil, err
		}
		r.buf = append(make([]Value, 0, r.n), r.buf[r.stride:]...)
	} else {
		if err := th.charge(2); err != nil { // the window's header
			return nil, err
		}
		r.buf, r.skip = nil, r.stride-r.n
	}
	return r.next.step(th, acc, w)
}

func windowXf(n, step int64) *xfStage {
	return stage("partition", false, func(next reducer) reducer {
		return &windowStep{link: link{next}, n: int(min(n, 1<<30)), stride: int(min(step, 1<<30))}
	})
}

// partitionByStep starts a new partition whenever (f x) changes.
type partitionByStep struct {
	link
	f    Value
	buf  []Value
	prev Value
}

func (r *partitionByStep) step(th *thread, acc, x Value) (Value, error) {
	k, err := th.call1(r.f, x)
	if err != nil {
		return nil, err
	}
	if err := th.charge(1); err != nil { // x joins a partition
		return nil, err
	}
	prev := r.prev
	r.prev = k
	if len(r.buf) == 0 || th.equal(k, prev) {
		r.buf = append(r.buf, x)
		return acc, nil
	}
	if err := th.charge(2); err != nil { // the partition's header
		return nil, err
	}
	v := NewVector(r.buf)
	r.buf = nil
	out, err := r.next.step(th, acc, v)
	if err != nil {
		return nil, err
	}
	if _, ok := out.(*reduced); !ok {
		r.buf = append(r.buf, x)
	}
	return out, nil
}

func (r *partitionByStep) done(th *thread, acc Value) (Value, error) {
	return flushPartition(th, &r.link, acc, &r.buf)
}

func partitionByXf(f Value) *xfStage {
	return stage("partition-by", false, func(next reducer) reducer { return &partitionByStep{link: link{next}, f: f} })
}

type interposeStep struct {
	link
	sep     Value
	started bool
}

func (r *interposeStep) step(th *thread, acc, x Value) (Value, error) {
	if r.started {
		v, err := r.next.step(th, acc, r.sep)
		if err != nil {
			return nil, err
		}
		if _, ok := v.(*reduced); ok {
			return v, nil
		}
		acc = v
	}
	r.started = true
	return r.next.step(th, acc, x)
}

func interposeXf(sep Value) *xfStage {
	return stage("interpose", false, func(next reducer) reducer { return &interposeStep{link: link{next}, sep: sep} })
}

type replaceStep struct {
	link
	lookup func(Value) (Value, bool)
}

func (r *replaceStep) step(th *thread, acc, x Value) (Value, error) {
	if v, ok := r.lookup(x); ok {
		x = v
	}
	return r.next.step(th, acc, x)
}

func replaceXf(lookup func(Value) (Value, bool)) *xfStage {
	return stage("replace", false, func(next reducer) reducer { return &replaceStep{link{next}, lookup} })
}

// haltKey marks the result of halt-when, as Clojure's {::halt value}.
var haltKey Value = Keyword("clojure.core/halt")

// haltWhenStep ends the reduction at the first element satisfying pred;
// the result is then that element, or (retf result element).
type haltWhenStep struct {
	link
	pred, retf Value
}

func (r *haltWhenStep) step(th *thread, acc, x Value) (Value, error) {
	if halted(acc) {
		return &reduced{value: acc}, nil
	}
	ok, err := th.test(r.pred, x)
	if err != nil {
		return nil, err
	}
	if !ok {
		return r.next.step(th, acc, x)
	}
	v := x
	if r.retf != nil {
		res, err := r.next.done(th, acc)
		if err != nil {
			return nil, err
		}
		if v, err = th.call2(r.retf, res, x); err != nil {
			return nil, err
		}
	}
	return &reduced{value: NewMap().Assoc(haltKey, v)}, nil
}

func (r *haltWhenStep) done(th *thread, acc Value) (Value, error) {
	if halted(acc) {
		v, _ := acc.(*Map).getExact(haltKey)
		return v, nil
	}
	return r.next.done(th, acc)
}

func halted(acc Value) bool {
	m, ok := acc.(*Map)
	if !ok {
		return false
	}
	_, ok = m.getExact(haltKey)
	return ok
}

func haltWhenXf(pred, retf Value) *xfStage {
	return stage("halt-when", true, func(next reducer) reducer { return &haltWhenStep{link{next}, pred, retf} })
}

// transducerHint is the advice of errors about a transducer given where a
// collection was expected.
func transducerHint(op string, v Value) *Error {
	return errorf(TypeError, "%s expects a collection, got the transducer %s (a sequence function called without its collection): give the collection as the last argument, e.g. (map f coll), or run the transducer with (into [] xf coll) or (sequence xf coll)",
		op, strings.TrimSpace(brief(v)))
}

// ---- registration ---------------------------------------------------------------

// registerTransducers adds the transducer arities of the sequence functions
// (their call without the collection), cat, and the consumers into,
// transduce, sequence and eduction. It runs after the other registrations.
func registerTransducers(t *builtinTable) {
	conjBuiltin = t.names["conj"]
	// xfArity makes (name args...) with min arguments return a transducer.
	// The builtin is copied: aliases (filterv) keep their arities.
	xfArity := func(name string, min int, mk func(a []Value) (*xfStage, error)) {
		t.wrap(name, func(old *Builtin) *Builtin {
			b := *old
			fn := old.fn
			b.MinArgs = min
			b.fn = func(th *thread, a []Value) (Value, error) {
				if len(a) != min {
					return fn(th, a)
				}
				st, err := mk(a)
				if err != nil {
					return nil, err
				}
				return newTransducer(name, st), nil
			}
			return &b
		})
	}
	fnOf := func(name string) func(a []Value) (Value, error) {
		return func(a []Value) (Value, error) { return fnArg(name, a, 0) }
	}
	withFn := func(name string, mk func(f Value) *xfStage) {
		xfArity(name, 1, func(a []Value) (*xfStage, error) {
			f, err := fnOf(name)(a)
			if err != nil {
				return nil, err
			}
			return mk(f), nil
		})
	}
	withCount := func(name string, positive bool, mk func(n int64) *xfStage) {
		xfArity(name, 1, func(a []Value) (*xfStage, error) {
			n, err := countArg(name, a, 0)
			if err != nil {
				return nil, err
			}
			if positive && n <= 0 {
				return nil, errorf(InvalidArgument, "%s needs a positive size, got %d", name, n)
			}
			return mk(n), nil
		})
	}
	withFn("map", mapXf)
	withFn("map-indexed", mapIndexedXf)
	withFn("filter", func(p Value) *xfStage { return filterXf("filter", p, true) })
	withFn("remove", func(p Value) *xfStage { return filterXf("remove", p, false) })
	withFn("keep", func(f Value) *xfStage { return keepXf("keep", f, false) })
	withFn("keep-indexed", func(f Value) *xfStage { return keepXf("keep-indexed", f, true) })
	withFn("mapcat", mapcatXf)
	withFn("take-while", takeWhileXf)
	withFn("drop-while", dropWhileXf)
	withFn("partition-by", partitionByXf)
	withCount("take", false, takeXf)
	withCount("drop", false, dropXf)
	withCount("take-nth", true, takeNthXf)
	withCount("partition-all", true, partitionAllXf)
	xfArity("distinct", 0, func([]Value) (*xfStage, error) { return distinctXf(), nil })
	xfArity("dedupe", 0, func([]Value) (*xfStage, error) { return dedupeXf(), nil })
	xfArity("interpose", 1, func(a []Value) (*xfStage, error) { return interposeXf(a[0]), nil })
	xfArity("replace", 1, func(a []Value) (*xfStage, error) {
		lookup, err := replaceLookup(a[0])
		if err != nil {
			return nil, err
		}
		return replaceXf(lookup), nil
	})
	t.set("cat", newTransducer("cat", catXf()))
	t.add("halt-when", 1, 2, func(th *thread, a []Value) (Value, error) {
		pred, err := fnArg("halt-when", a, 0)
		if err != nil {
			return nil, err
		}
		var retf Value
		if len(a) == 2 {
			if retf, err = fnArg("halt-when", a, 1); err != nil {
				return nil, err
			}
		}
		return newTransducer("halt-when", haltWhenXf(pred, retf)), nil
	})

	t.add("into", 0, 3, func(th *thread, a []Value) (Value, error) {
		switch len(a) {
		case 0:
			return emptyVector, nil
		case 1:
			return a[0], nil
		case 2:
			return seqInto(th, a)
		}
		to := a[0]
		return th.runTransducer("into", a[1], func() (reducer, error) { return intoReducer(th, to) }, conjBuiltin, to, a[2])
	})
	t.add("transduce", 3, 4, func(th *thread, a []Value) (Value, error) {
		xform, f, coll := a[0], a[1], a[len(a)-1]
		if !isCallable(f) {
			return nil, argError("transduce", 1, "a reducing function", f)
		}
		var init Value
		if len(a) == 4 {
			init = a[2]
		} else {
			var err error
			if init, err = th.call(f, nil); err != nil {
				if e, ok := err.(*Error); ok && (e.Kind == ArityError || e.Kind == arityMismatch) {
					return nil, errorf(e.Kind, "%s: transduce without an initial value calls (f) for one; give it: (transduce xform f init coll)", e.Message)
				}
				return nil, err
			}
		}
		return th.runTransducer("transduce", xform, func() (reducer, error) {
			if r := newArithReducer(f, init); r != nil {
				return r, nil
			}
			return &fnReducer{f: f}, nil
		}, f, init, coll)
	})
	t.add("sequence", 1, -1, func(th *thread, a []Value) (Value, error) {
		switch len(a) {
		case 1:
			return sequenceColl(th, a[0])
		case 2:
			return th.sequenceXf("sequence", a[0], a[1])
		}
		// Several collections: the first stage, a (map f), steps over
		// one element of each, as map does; the rest over its results.
		xf := transducerOf(a[0])
		if xf == nil || len(xf.stages) == 0 || xf.stages[0].mapFn == nil {
			return nil, errorf(ArityError, "sequence over %d collections needs a transducer that starts with (map f), which takes an element of each: (sequence (map +) xs ys)", len(a)-1)
		}
		mapped, err := th.call(t.names["map"], append([]Value{xf.stages[0].mapFn}, a[1:]...))
		if err != nil || len(xf.stages) == 1 {
			return mapped, err
		}
		return th.sequenceXf("sequence", newTransducer("comp", xf.stages[1:]...), mapped)
	})
	t.add("eduction", 1, -1, func(th *thread, a []Value) (Value, error) {
		coll := a[len(a)-1]
		xfs := a[:len(a)-1]
		switch len(xfs) {
		case 0:
			return sequenceColl(th, coll)
		case 1:
			return th.sequenceXf("eduction", xfs[0], coll)
		}
		if xf, ok := composeTransducers(xfs); ok {
			return th.sequenceXf("eduction", xf, coll)
		}
		comp, err := th.call(t.names["comp"], xfs)
		if err != nil {
			return nil, err
		}
		return th.sequenceXf("eduction", comp, coll)
	})
	t.add("completing", 1, 2, func(th *thread, a []Value) (Value, error) {
		f, err := fnArg("completing", a, 0)
		if err != nil {
			return nil, err
		}
		var cf Value
		if len(a) == 2 {
			if cf, err = fnArg("completing", a, 1); err != nil {
				return nil, err
			}
		}
		return &Builtin{Name: "completing", MinArgs: 0, MaxArgs: 2, fn: func(th *thread, a []Value) (Value, error) {
			switch len(a) {
			case 0:
				return th.call(f, nil)
			case 1:
				if cf == nil {
					return a[0], nil
				}
				return th.call1(cf, a[0])
			}
			return th.call2(f, a[0], a[1])
		}}, nil
	})
}
