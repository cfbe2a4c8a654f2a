package lisp

import "github.com/ptc-go/ptc/lisp/internal/analyze"

// Fused pipelines.
//
// A pipeline such as
//
//	(->> ctx/orders (filter (where :amount > 100)) (map :amount) (reduce +))
//
// is, after ->>, a call of a consuming builtin (the terminal) whose
// collection argument is a chain of sequence stages: map, filter, remove,
// keep over a source. Run as written, each stage walks its whole input and
// builds a vector that only the next one reads. Compiled here, the chain
// becomes one pass over the source: each element goes through every stage
// in turn and straight into the terminal, so the intermediate vectors are
// never built. Terminals that fold (count, sum-by, into) consume elements
// as they come; the others (reduce, group-by, ...) get the last stage's
// output, built in the same single pass.
//
// What a program can observe stays as it was: the same results, the same
// errors with the same positions, one step per element entering each stage
// as before. Two things differ, both as in Clojure, whose sequences are
// lazy: the calls of different stages interleave (element by element)
// instead of running stage after stage, so when two stages would both fail
// the first failing element decides which error is reported; and less
// memory is charged, since less is built. Pipelines over anything but a
// vector (lazy sequences, maps, strings, nil), and pipelines whose
// arguments are not valid (a stage given something that is not a
// function), run unfused, exactly as written, so that every special case
// and error message of the builtins holds.

// fusedStage is one stage of a fused pipeline.
type fusedStage struct {
	kind stageKind
	fn   builtinFn // the builtin itself, for the unfused fallback
	f    evalFn    // its function argument
	pos  posT      // the stage's call, for its errors
	// field: the function is a keyword written in the program, read from
	// maps through its prepared key (cached slot in records).
	field *flexKey
}

type stageKind uint8

const (
	stageMap stageKind = iota
	stageFilter
	stageRemove
	stageKeep
)

// fusibleStage returns the kind of the stage builtin name; ok is false
// for other names. (Switches rather than maps: the compiler asks for
// calls of count and the like, and a switch costs less than a map.)
func fusibleStage(name string) (kind stageKind, ok bool) {
	switch name {
	case "map", "mapv":
		return stageMap, true
	case "filter", "filterv":
		return stageFilter, true
	case "remove":
		return stageRemove, true
	case "keep":
		return stageKeep, true
	}
	return 0, false
}

// fusibleTerminal reports whether the builtin name may end a fused
// pipeline, and whether with n arguments (the collection is the last).
func fusibleTerminal(name string, n int) (terminal, fits bool) {
	switch name {
	case "count", "frequencies", "vec", "set":
		return true, n == 1
	case "reduce":
		return true, n == 2 || n == 3
	case "sum-by", "into", "group-by", "avg-by", "max-by", "min-by", "sort-by":
		return true, n == 2
	}
	return false, false
}

// fusedCall compiles a call of the terminal builtin name over a chain of
// stages as one pass, or returns nil when the call is not such a pipeline.
func (c *compiler) fusedCall(name string, b *Builtin, args []analyze.Expr, pos posT) evalFn {
	if _, fits := fusibleTerminal(name, len(args)); !fits || noFastPaths {
		return nil
	}
	// The chain, from the stage nearest the terminal to the source.
	var chain []analyze.Expr
	coll := args[len(args)-1]
	for {
		call, ok := coll.(*analyze.Call)
		if !ok || len(call.Args) != 2 {
			break
		}
		f, ok := call.Fn.(*analyze.Builtin)
		if !ok {
			break
		}
		if _, ok := fusibleStage(f.Name); !ok {
			break
		}
		chain = append(chain, call)
		coll = call.Args[1]
	}
	if len(chain) == 0 {
		return nil
	}
	// Compiled in source order: the terminal's leading arguments, then
	// each stage's function from the outside in, then the source. That is
	// the order in which the unfused calls evaluate them.
	lead := c.exprs(args[:len(args)-1])
	stages := make([]fusedStage, len(chain))
	for i, e := range chain {
		call := e.(*analyze.Call)
		sname := call.Fn.(*analyze.Builtin).Name
		sb := builtins[sname].(*Builtin)
		// Stages are stored in the order elements go through them: the
		// innermost call first.
		kind, _ := fusibleStage(sname)
		st := fusedStage{kind: kind, fn: sb.fn, f: c.expr(call.Args[0]), pos: c.pos(call.Off)}
		if kw, ok := call.Args[0].(*analyze.Keyword); ok {
			st.field = c.keywordKey(kw.Name)
		}
		stages[len(chain)-1-i] = st
	}
	src := c.expr(coll)
	term := b.fn
	streaming := name == "count" || name == "sum-by" || name == "into" || name == "reduce"
	return func(fr *frame) (Value, error) {
		th := fr.th
		nlead := len(lead)
		buf, mark := th.stack.alloc(nlead + 1 + len(stages))
		defer th.stack.release(buf, mark)
		for i, a := range lead {
			x, err := a(fr)
			if err != nil {
				return nil, err
			}
			buf[i] = x
		}
		fns := buf[nlead+1:]
		// Evaluated from the outside in: stages[len-1] is the outermost.
		for i := len(stages) - 1; i >= 0; i-- {
			x, err := stages[i].f(fr)
			if err != nil {
				return nil, err
			}
			fns[i] = x
		}
		x, err := src(fr)
		if err != nil {
			return nil, err
		}
		v, isVec := x.(*Vector)
		fusible := isVec
		for _, f := range fns {
			fusible = fusible && isCallable(f)
		}
		if fusible && streaming {
			if res, ok, err := th.runStreaming(name, buf[:nlead], stages, fns, v.items); ok {
				if err != nil {
					return nil, at(err, pos)
				}
				return res, nil
			}
		}
		if fusible {
			out, err := th.runStages(stages, fns, v.items)
			if err != nil {
				return nil, err
			}
			x = NewVector(out)
		} else {
			// Unfused: each stage as written, innermost first.
			for i, st := range stages {
				sbuf, smark := th.stack.alloc(2)
				sbuf[0], sbuf[1] = fns[i], x
				x, err = st.fn(th, sbuf)
				th.stack.release(sbuf, smark)
				if err != nil {
					return nil, at(err, st.pos)
				}
			}
		}
		buf[nlead] = x
		res, err := term(th, buf[:nlead+1])
		if err != nil {
			return nil, at(err, pos)
		}
		return res, nil
	}
}

// runStages runs the elements of items through the stages, returning what
// comes out of the last one. Each element entering a stage counts a step,
// as the stage's own walk would; each element of the result is charged, as
// the last stage would charge its vector.
func (th *thread) runStages(stages []fusedStage, fns []Value, items []Value) ([]Value, error) {
	var out []Value
	mapsOnly := true
	for _, st := range stages {
		mapsOnly = mapsOnly && st.kind == stageMap
	}
	if mapsOnly {
		out = make([]Value, 0, len(items)) // one out per element in
	}
	err := th.eachStaged(stages, fns, items, func(y Value) (bool, error) {
		if err := th.charge(1); err != nil {
			return false, err
		}
		out = append(out, y)
		return true, nil
	})
	return out, err
}

// eachStaged passes each element of items through the stages and the
// survivors to sink, until sink returns false.
func (th *thread) eachStaged(stages []fusedStage, fns []Value, items []Value, sink func(Value) (bool, error)) error {
	// The first stage's steps are counted up front, as its walk would: a
	// source too large for the step limit fails before any work.
	if err := th.ticks(len(items)); err != nil {
		return at(err, stages[0].pos)
	}
	// A filter by a one-field where reads the field and tests it here,
	// without calling the predicate (up to 8 stages; more are rare).
	var where [8]*Builtin
	if len(stages) <= len(where) {
		for i, st := range stages {
			if b, ok := fns[i].(*Builtin); ok && b.field != nil && st.field == nil &&
				(st.kind == stageFilter || st.kind == stageRemove) {
				where[i] = b
			}
		}
	}
	if len(stages) == 1 && where[0] != nil {
		return eachWhere(where[0], stages[0].kind == stageFilter, items, sink)
	}
	for _, x := range items {
		keep := true
		for i := range stages {
			if i > 0 {
				if err := th.tick(); err != nil {
					return err
				}
			}
			st := &stages[i]
			switch st.kind {
			case stageMap:
				if m, ok := x.(*Map); ok && st.field != nil {
					x, _ = m.lookupFlex(st.field)
					break
				}
				y, err := th.call1(fns[i], x)
				if err != nil {
					return at(err, st.pos)
				}
				x = y
			case stageFilter, stageRemove:
				var ok bool
				if m, isMap := x.(*Map); isMap && st.field != nil {
					v, _ := m.lookupFlex(st.field)
					ok = truthy(v)
				} else if w := where[i%len(where)]; w != nil {
					var v Value
					if m, isMap := x.(*Map); isMap {
						v, _ = m.lookupFlex(w.field.key)
					}
					ok = w.field.test(v)
				} else {
					var err error
					if ok, err = th.test(fns[i], x); err != nil {
						return at(err, st.pos)
					}
				}
				keep = ok == (st.kind == stageFilter)
			case stageKeep:
				var y Value
				var err error
				if m, ok := x.(*Map); ok && st.field != nil {
					y, _ = m.lookupFlex(st.field)
				} else {
					y, err = th.call1(fns[i], x)
				}
				if err != nil {
					return at(err, st.pos)
				}
				x, keep = y, y != nil
			}
			if !keep {
				break
			}
		}
		if !keep {
			continue
		}
		more, err := sink(x)
		if err != nil || !more {
			return err
		}
	}
	return nil
}

// eachWhere is eachStaged for the commonest pipeline, a filter (or remove)
// by a one-field where before the terminal: a loop of its own, tight
// enough for the compiler to keep it in registers.
func eachWhere(w *Builtin, filter bool, items []Value, sink func(Value) (bool, error)) error {
	k, test := w.field.key, w.field.test
	for _, x := range items {
		var v Value
		if m, ok := x.(*Map); ok {
			v, _ = m.lookupFlex(k)
		}
		if test(v) != filter {
			continue
		}
		if more, err := sink(x); err != nil || !more {
			return err
		}
	}
	return nil
}

// runStreaming runs a pipeline whose terminal folds elements as they come:
// count, sum-by, into and reduce. ok is false when the terminal's arguments call
// for the unfused path (which then reports their errors as the builtin
// does).
func (th *thread) runStreaming(name string, lead []Value, stages []fusedStage, fns []Value, items []Value) (res Value, ok bool, err error) {
	switch name {
	case "count":
		n := int64(0)
		err := th.eachStaged(stages, fns, items, func(Value) (bool, error) {
			n++
			return true, nil
		})
		return n, true, err
	case "sum-by":
		sum, err := newSumBy(lead[0])
		if err != nil {
			return nil, false, nil
		}
		err = th.eachStaged(stages, fns, items, func(x Value) (bool, error) {
			// sum-by's own walk counts a step per element.
			if err := th.tick(); err != nil {
				return false, err
			}
			return true, sum.add(th, x)
		})
		return sum.result(), true, err
	case "into":
		switch lead[0].(type) {
		case nil, *Vector, *Set, *Map:
		default:
			return nil, false, nil
		}
		r, err := intoReducer(th, lead[0])
		if err != nil {
			return nil, true, err
		}
		var acc Value
		err = th.eachStaged(stages, fns, items, func(x Value) (bool, error) {
			if err := th.tick(); err != nil {
				return false, err
			}
			acc, err = r.step(th, acc, x)
			return err == nil, err
		})
		if err != nil {
			return nil, true, err
		}
		res, err := r.done(th, acc)
		return res, true, err
	case "reduce":
		if !isCallable(lead[0]) {
			return nil, false, nil
		}
		return th.reduceStaged(lead, stages, fns, items)
	}
	return nil, false, nil
}

// reduceStaged is reduce over the output of the stages, as seqReduce does
// it over a vector: lead is f, or f and init.
func (th *thread) reduceStaged(lead []Value, stages []fusedStage, fns []Value, items []Value) (Value, bool, error) {
	f := lead[0]
	var acc Value
	started := len(lead) == 2
	linear := usesAccLinearly(f)
	var given Value // a transient handed down by a linear caller
	if started {
		acc = lead[1]
		if isTransientAcc(acc) {
			acc = reduceInit(acc, linear)
			given = acc
		}
	}
	b, _ := f.(*Builtin)
	var arith *arithReducer // + or * folded natively, once acc is known
	arithChecked := false
	buf, mark := th.stack.alloc(2)
	defer th.stack.release(buf, mark)
	var done bool
	err := th.eachStaged(stages, fns, items, func(x Value) (bool, error) {
		// reduce's own walk counts a step per element.
		if err := th.tick(); err != nil {
			return false, err
		}
		if done {
			// Reduced: the stages still run over the rest, as they did
			// before reduce saw their output (their calls, errors, steps).
			return true, nil
		}
		if !started {
			acc, started = x, true
			return true, nil
		}
		if b != nil && (b.Name == "+" || b.Name == "*") && b.xf == nil {
			// As foldArith: a step more per element, and an accumulator
			// that is not a number fails as the builtin does.
			if err := th.tick(); err != nil {
				return false, err
			}
			if !arithChecked {
				arithChecked = true
				if arith = newArithReducer(b, acc); arith == nil {
					_, err := b.fn(th, []Value{acc, x})
					return false, err
				}
			}
			_, err := arith.step(th, nil, x)
			return err == nil, err
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
			acc, done = r.value, true
		}
		return true, nil
	})
	if err != nil {
		return nil, true, err
	}
	if !started {
		v, err := th.call(f, nil)
		return v, true, err
	}
	if arith != nil {
		v, err := arith.done(th, nil)
		return v, true, err
	}
	return reduceResult(acc, given), true, nil
}
