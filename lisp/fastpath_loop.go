package lisp

import "github.com/ptc-go/ptc/lisp/internal/analyze"

// Loops with unboxed integer variables (see fastpath.go).

// loopSpec is how a loop's bindings are held.
type loopSpec struct {
	isInt  []bool // per binding: an unboxed variable
	recurs map[*analyze.Recur]bool
}

// planLoop decides which bindings of e are unboxed; nil when none is.
func (c *compiler) planLoop(e *analyze.Loop) *loopSpec {
	if c.noSpec || noFastPaths {
		return nil
	}
	recurs, walked := c.loopRecurs[e]
	if !walked {
		if c.loopRecurs == nil {
			c.loopRecurs = map[*analyze.Loop][]*analyze.Recur{}
		}
		if !collectRecurs(e, c.loopRecurs) {
			// An expression the walk does not know may hide a recur:
			// unboxed variables need them all.
			c.noSpec = true
			return nil
		}
		recurs = c.loopRecurs[e]
	}
	n := len(e.Bindings)
	isInt := make([]bool, n)
	var cands []int // the bindings that may be unboxed
	for j, b := range e.Bindings {
		if _, ok := b.Pattern.(*analyze.BindSlot); ok && len(cands) < maxIntSlots {
			isInt[j] = true
			cands = append(cands, j)
		}
	}
	// The largest set of bindings whose initial values (reading the
	// bindings before them) and recur arguments (reading all of them) are
	// int-typed when the set is unboxed.
	upTo := n // the bindings visible: those before upTo
	intSlot := func(s int) bool {
		if c.isIntSlot(s) {
			return true
		}
		for _, j := range cands {
			if j < upTo && isInt[j] && e.Bindings[j].Pattern.(*analyze.BindSlot).Slot == s {
				return true
			}
		}
		return false
	}
	left := len(cands)
	for changed := left > 0; changed; {
		changed = false
		for _, j := range cands {
			if !isInt[j] {
				continue
			}
			upTo = j
			ok := isIntExpr(e.Bindings[j].Init, intSlot)
			upTo = n
			for _, r := range recurs {
				ok = ok && isIntExpr(r.Args[j], intSlot)
			}
			if !ok {
				isInt[j], changed = false, true
				left--
			}
		}
	}
	if left == 0 {
		return nil
	}
	spec := &loopSpec{isInt: isInt, recurs: make(map[*analyze.Recur]bool, len(recurs))}
	for _, r := range recurs {
		spec.recurs[r] = true
	}
	return spec
}

// intLoop compiles a loop with unboxed variables.
func (c *compiler) intLoop(e *analyze.Loop, spec *loopSpec) evalFn {
	steps := make([]initStep, len(e.Bindings))
	var unboxed []int
	for j, b := range e.Bindings {
		st := &steps[j]
		st.slot = -1
		if spec.isInt[j] {
			st.ii = c.intExpr(b.Init)
			st.slot = b.Pattern.(*analyze.BindSlot).Slot
			// Bound in order: the next initial values read it unboxed.
			c.setIntSlot(st.slot, true)
			unboxed = append(unboxed, st.slot)
			continue
		}
		st.gi = c.expr(b.Init)
		if s, ok := b.Pattern.(*analyze.BindSlot); ok {
			st.slot = s.Slot
		} else {
			st.bind = c.pattern(b.Pattern)
		}
	}
	if c.loopSpecs == nil {
		c.loopSpecs = map[*analyze.Loop]*loopSpec{}
	}
	c.loopSpecs[e] = spec
	// The usual shape, (if test (recur ...) result) or (if test result
	// (recur ...)) with a typed test, runs without the closures of the if
	// and, when it only updates unboxed variables, of the recur.
	var body evalFn
	var test boolFn
	var other evalFn
	var fused *fusedRecur
	var regs *regLoop
	recurWhen := false
	if ife, ok := e.Body.(*analyze.If); ok {
		r, isThen := ife.Then.(*analyze.Recur)
		if !isThen || r.Loop != e {
			r, _ = ife.Else.(*analyze.Recur)
		}
		if r != nil && r.Loop == e && spec.recurs[r] {
			recurWhen = isThen && ife.Then == analyze.Expr(r)
			otherExpr := ife.Then
			if recurWhen {
				otherExpr = ife.Else
			}
			if regs = c.planRegLoop(e, spec, ife, r); regs != nil {
				other = c.expr(otherExpr)
			} else if test = c.test(ife.Test); test != nil {
				if recurWhen {
					f := c.fuseRecur(r, spec)
					fused = &f
					other = c.expr(otherExpr)
				} else {
					other = c.expr(otherExpr)
					f := c.fuseRecur(r, spec)
					fused = &f
				}
			}
		}
	}
	if test == nil && regs == nil {
		body = c.expr(e.Body)
	}
	delete(c.loopSpecs, e)
	for _, s := range unboxed {
		c.setIntSlot(s, false)
	}
	pos := c.pos(e.Off)
	if regs != nil {
		return func(fr *frame) (Value, error) {
			if err := initLoop(fr, steps); err != nil {
				return nil, err
			}
			return regs.run(fr, recurWhen, other, pos)
		}
	}
	return func(fr *frame) (Value, error) {
		if err := initLoop(fr, steps); err != nil {
			return nil, err
		}
		th := fr.th
		limit := th.run.limits.MaxLoopIterations
		if test != nil {
			for n := 0; ; n++ {
				ok, err := test(fr)
				if err != nil {
					return nil, err
				}
				if ok == recurWhen {
					if err := fused.run(fr); err != nil {
						return nil, err
					}
				} else {
					v, err := other(fr)
					if err != nil {
						return nil, err
					}
					if v != recurMarker {
						return v, nil
					}
				}
				if n >= limit {
					return nil, at(loopLimitError(limit), pos)
				}
				if err := th.tick(); err != nil {
					return nil, at(err, pos)
				}
			}
		}
		for n := 0; ; n++ {
			v, err := body(fr)
			if err != nil {
				return nil, err
			}
			if v != recurMarker {
				return v, nil
			}
			if n >= limit {
				return nil, at(loopLimitError(limit), pos)
			}
			if err := th.tick(); err != nil {
				return nil, at(err, pos)
			}
		}
	}
}

// initStep binds one loop binding.
type initStep struct {
	ii   intFn // unboxed: its initial value
	gi   evalFn
	slot int
	bind bindFn
}

// initLoop binds a loop's variables.
func initLoop(fr *frame, steps []initStep) error {
	for j := range steps {
		st := &steps[j]
		if st.ii != nil {
			v, err := st.ii(fr)
			if err != nil {
				return err
			}
			cellAt(fr, st.slot).set(v)
			continue
		}
		v, err := st.gi(fr)
		if err != nil {
			return err
		}
		if st.slot >= 0 {
			fr.slots[st.slot] = v
		} else if err := st.bind(fr, v); err != nil {
			return err
		}
	}
	return nil
}

// fusedRecur is a recur run by its loop directly: one or two unboxed
// variables updated in place (a, s and b, t), or any recur's closure.
type fusedRecur struct {
	a, b intFn
	s, t int
	f    evalFn
}

func (c *compiler) fuseRecur(r *analyze.Recur, spec *loopSpec) fusedRecur {
	if n := len(r.Args); n <= 2 {
		ints := true
		for j := range r.Args {
			ints = ints && spec.isInt[j]
		}
		if ints {
			fr := fusedRecur{a: c.intExpr(r.Args[0]), s: r.Loop.Targets[0].(*analyze.BindSlot).Slot, t: -1}
			if n == 2 {
				fr.b, fr.t = c.intExpr(r.Args[1]), r.Loop.Targets[1].(*analyze.BindSlot).Slot
			}
			return fr
		}
	}
	return fusedRecur{f: c.intRecur(r, spec)}
}

// run evaluates the recur's arguments, then rebinds the variables.
func (r *fusedRecur) run(fr *frame) error {
	if r.f != nil {
		_, err := r.f(fr)
		return err
	}
	u, err := r.a(fr)
	if err != nil {
		return err
	}
	if r.b == nil {
		fr.slots[r.s].(*intCell).set(u)
		return nil
	}
	v, err := r.b(fr)
	if err != nil {
		return err
	}
	fr.slots[r.s].(*intCell).set(u)
	fr.slots[r.t].(*intCell).set(v)
	return nil
}

// intRecur compiles a recur to a loop with unboxed variables.
func (c *compiler) intRecur(e *analyze.Recur, spec *loopSpec) evalFn {
	if !spec.recurs[e] {
		return c.errorf(c.pos(e.Off), InternalError, "recur to a loop with unboxed variables was not planned for")
	}
	n := len(e.Args)
	ints := make([]intFn, n)
	vals := make([]evalFn, n)
	slots := make([]int, n)
	binds := make([]bindFn, n)
	nInt, nVal := 0, 0
	for j, p := range e.Loop.Targets {
		slots[j] = -1
		if s, ok := p.(*analyze.BindSlot); ok {
			slots[j] = s.Slot
		}
		if spec.isInt[j] {
			ints[j] = c.intExpr(e.Args[j])
			nInt++
			continue
		}
		vals[j] = c.expr(e.Args[j])
		nVal++
		if slots[j] < 0 {
			binds[j] = c.pattern(p)
		}
	}
	switch {
	case n == 1:
		a, s := ints[0], slots[0]
		return func(fr *frame) (Value, error) {
			v, err := a(fr)
			if err != nil {
				return nil, err
			}
			fr.slots[s].(*intCell).set(v)
			return recurMarker, nil
		}
	case n == 2 && nInt == 2:
		a, b, s, t := ints[0], ints[1], slots[0], slots[1]
		return func(fr *frame) (Value, error) {
			u, err := a(fr)
			if err != nil {
				return nil, err
			}
			v, err := b(fr)
			if err != nil {
				return nil, err
			}
			fr.slots[s].(*intCell).set(u)
			fr.slots[t].(*intCell).set(v)
			return recurMarker, nil
		}
	}
	return func(fr *frame) (Value, error) {
		var iv [maxIntSlots]int64
		th := fr.th
		tmp, mark := th.stack.alloc(nVal)
		ii, vi := 0, 0
		for j := 0; j < n; j++ {
			if ints[j] != nil {
				v, err := ints[j](fr)
				if err != nil {
					th.stack.release(tmp, mark)
					return nil, err
				}
				iv[ii] = v
				ii++
				continue
			}
			v, err := vals[j](fr)
			if err != nil {
				th.stack.release(tmp, mark)
				return nil, err
			}
			tmp[vi] = v
			vi++
		}
		ii, vi = 0, 0
		for j := 0; j < n; j++ {
			if ints[j] != nil {
				fr.slots[slots[j]].(*intCell).set(iv[ii])
				ii++
				continue
			}
			v := tmp[vi]
			vi++
			if slots[j] >= 0 {
				fr.slots[slots[j]] = v
			} else if err := binds[j](fr, v); err != nil {
				th.stack.release(tmp, mark)
				return nil, err
			}
		}
		th.stack.release(tmp, mark)
		return recurMarker, nil
	}
}

// collectRecurs walks e and adds, for every loop in it, the recurs that
// target it (every loop gets an entry). It reports false when it meets an
// expression it does not know, which could hide a recur.
func collectRecurs(e analyze.Expr, out map[*analyze.Loop][]*analyze.Recur) bool {
	all := func(es []analyze.Expr) bool {
		for _, x := range es {
			if !collectRecurs(x, out) {
				return false
			}
		}
		return true
	}
	binds := func(bs []analyze.Binding) bool {
		for _, b := range bs {
			if !collectRecurs(b.Init, out) || !patternRecurs(b.Pattern, out) {
				return false
			}
		}
		return true
	}
	switch e := e.(type) {
	case nil:
		return true
	case *analyze.Const, *analyze.Keyword, *analyze.SymbolLit, *analyze.Local, *analyze.Captured, *analyze.Self,
		*analyze.Builtin, *analyze.Global, *analyze.VarRef, *analyze.CtxRef, *analyze.HistoryRef:
		return true
	case *analyze.VectorLit:
		return all(e.Items)
	case *analyze.SetLit:
		return all(e.Items)
	case *analyze.MapLit:
		return all(e.Keys) && all(e.Vals)
	case *analyze.MemoryGet:
		return collectRecurs(e.Key, out)
	case *analyze.MemoryPut:
		return collectRecurs(e.Key, out) && collectRecurs(e.Value, out)
	case *analyze.If:
		return collectRecurs(e.Test, out) && collectRecurs(e.Then, out) && collectRecurs(e.Else, out)
	case *analyze.Do:
		return all(e.Body)
	case *analyze.And:
		return all(e.Exprs)
	case *analyze.Or:
		return all(e.Exprs)
	case *analyze.Let:
		return binds(e.Bindings) && collectRecurs(e.Body, out)
	case *analyze.Loop:
		if _, ok := out[e]; !ok {
			out[e] = nil
		}
		for _, p := range e.Targets {
			if !patternRecurs(p, out) {
				return false
			}
		}
		return binds(e.Bindings) && collectRecurs(e.Body, out)
	case *analyze.Recur:
		if e.Loop != nil {
			out[e.Loop] = append(out[e.Loop], e)
		}
		return all(e.Args)
	case *analyze.Fn:
		for _, a := range e.Arities {
			for _, p := range a.Params {
				if !patternRecurs(p, out) {
					return false
				}
			}
			if !patternRecurs(a.Rest, out) || !collectRecurs(a.Body, out) {
				return false
			}
		}
		return true
	case *analyze.Def:
		return collectRecurs(e.Value, out)
	case *analyze.Raise:
		return collectRecurs(e.Value, out)
	case *analyze.Throw:
		return collectRecurs(e.Value, out)
	case *analyze.Try:
		for _, cl := range e.Catches {
			if !collectRecurs(cl.Body, out) {
				return false
			}
		}
		return collectRecurs(e.Body, out) && collectRecurs(e.Finally, out)
	case *analyze.Call:
		return collectRecurs(e.Fn, out) && all(e.Args)
	case *analyze.ToolCall:
		return collectRecurs(e.NameExpr, out) && all(e.Args)
	case *analyze.Return:
		return collectRecurs(e.Value, out)
	case *analyze.Fail:
		return collectRecurs(e.Value, out)
	case *analyze.Where:
		return all(e.Path) && collectRecurs(e.Value, out)
	case *analyze.Combine:
		return all(e.Preds)
	case *analyze.Case:
		for _, ts := range e.Tests {
			if !all(ts) {
				return false
			}
		}
		return collectRecurs(e.Expr, out) && all(e.Results) && collectRecurs(e.Default, out)
	case *analyze.For:
		for _, cl := range e.Clauses {
			if !patternRecurs(cl.Pattern, out) || !collectRecurs(cl.Coll, out) {
				return false
			}
			for _, m := range cl.Mods {
				if !binds(m.Bindings) || !collectRecurs(m.Test, out) {
					return false
				}
			}
		}
		return collectRecurs(e.Body, out)
	case *analyze.Dotimes:
		return collectRecurs(e.Count, out) && collectRecurs(e.Body, out)
	case *analyze.LetFn:
		for _, f := range e.Fns {
			if !collectRecurs(f, out) {
				return false
			}
		}
		return collectRecurs(e.Body, out)
	}
	return false
}

// patternRecurs walks the default values of a pattern.
func patternRecurs(p analyze.Pattern, out map[*analyze.Loop][]*analyze.Recur) bool {
	switch p := p.(type) {
	case nil, *analyze.BindSlot:
		return true
	case *analyze.BindVector:
		for _, it := range p.Items {
			if !patternRecurs(it, out) {
				return false
			}
		}
		return patternRecurs(p.Rest, out)
	case *analyze.BindMap:
		for _, k := range p.Keys {
			if !patternRecurs(k.Pattern, out) || !collectRecurs(k.Default, out) {
				return false
			}
		}
		return true
	}
	return false
}

// regLoop is a loop of the commonest shape run on Go locals rather than
// through closures and cells:
//
//	(loop [i 0 acc 0] (if (< i n) (recur (inc i) (+ acc i)) acc))
//
// every binding is an unboxed variable, the test compares variables and
// integer constants, and each recur argument is a variable, a constant, or
// one inc, dec, +, - or * of them. The variables live in an array of
// registers (the constants after them) while the loop recurs; they are
// written to their cells before anything else reads them (the other branch
// of the if). An iteration computes what the typed paths compute, in the
// same order, fails with the same errors, and counts the same step.
type regLoop struct {
	slots  []int32 // the variables' frame slots, in binding order
	consts []int64 // held in the registers after the variables
	test   regOp
	ops    []regOp // per variable, its recur argument
	mul    bool    // an argument multiplies
	// The slices' arrays: a regLoop is one allocation.
	slotBuf  [maxIntSlots]int32
	constBuf [2 + 2*maxIntSlots]int64 // the test's and the arguments' constants
	opBuf    [maxIntSlots]regOp
}

// regOp is an operation on registers x and y.
type regOp struct {
	kind uint8 // opAdd..opNe of fastpath.go, or regEven, regOdd
	x, y uint8
	fn   uint8 // the builtin, for its overflow error: an index in regFns
	pos  posT
}

// regFns are the builtins of recur arguments, by regOp.fn.
var regFns = [...]string{"+", "-", "*", "inc", "dec"}

const (
	regEven uint8 = 100 + iota // (even? x)
	regOdd                     // (odd? x)
)

// planRegLoop returns the regLoop for loop e, whose body is ife with the
// recur r in one branch, or nil when e is not of its shape.
func (c *compiler) planRegLoop(e *analyze.Loop, spec *loopSpec, ife *analyze.If, r *analyze.Recur) *regLoop {
	n := len(e.Bindings)
	if n > maxIntSlots || len(r.Args) != n {
		return nil
	}
	// Planned in locals, copied to the heap if the loop has the shape.
	var l regLoop
	nconst := 0
	for j, b := range e.Bindings {
		s, ok := b.Pattern.(*analyze.BindSlot)
		t, ok2 := e.Targets[j].(*analyze.BindSlot)
		if !ok || !ok2 || !spec.isInt[j] || s.Slot != t.Slot {
			return nil
		}
		l.slotBuf[j] = int32(s.Slot)
	}
	konst := func(k int64) uint8 {
		l.constBuf[nconst] = k // at most 2 per argument, 2 for the test
		nconst++
		return uint8(n + nconst - 1)
	}
	reg := func(x analyze.Expr) (uint8, bool) {
		switch x := x.(type) {
		case *analyze.Const:
			k, ok := x.Value.(int64)
			if !ok {
				return 0, false
			}
			return konst(k), true
		case *analyze.Local:
			for j, s := range l.slotBuf[:n] {
				if s == x.Slot {
					return uint8(j), true
				}
			}
		}
		return 0, false
	}
	// The test.
	name, args, ok := builtinName(ife.Test)
	if !ok {
		return nil
	}
	switch {
	case isCmpOp(name) && len(args) == 2:
		x, ok1 := reg(args[0])
		y, ok2 := reg(args[1])
		if !ok1 || !ok2 {
			return nil
		}
		l.test = regOp{kind: uint8(opCodes[name]), x: x, y: y}
		// x > y is y < x: the commonest tests are then one kind.
		switch l.test.kind {
		case opGT:
			l.test = regOp{kind: opLT, x: y, y: x}
		case opGE:
			l.test = regOp{kind: opLE, x: y, y: x}
		}
	case isPredOp(name) && len(args) == 1:
		x, ok := reg(args[0])
		if !ok {
			return nil
		}
		switch name {
		case "zero?":
			l.test = regOp{kind: opEq, x: x, y: konst(0)}
		case "pos?":
			l.test = regOp{kind: opLT, x: konst(0), y: x}
		case "neg?":
			l.test = regOp{kind: opLT, x: x, y: konst(0)}
		case "even?":
			l.test = regOp{kind: regEven, x: x}
		default:
			l.test = regOp{kind: regOdd, x: x}
		}
	default:
		return nil
	}
	// The recur's arguments.
	for j, a := range r.Args {
		if x, ok := reg(a); ok {
			// x+0: the same value, never an overflow.
			l.opBuf[j] = regOp{kind: opAdd, x: x, y: konst(0)}
			continue
		}
		name, args, ok := builtinName(a)
		if !ok {
			return nil
		}
		switch {
		case (name == "inc" || name == "dec") && len(args) == 1:
			x, ok := reg(args[0])
			if !ok {
				return nil
			}
			kind, fn := uint8(opAdd), uint8(3)
			if name == "dec" {
				kind, fn = opSub, 4
			}
			// x+1 overflows exactly when x is MaxInt64, as inc checks.
			l.opBuf[j] = regOp{kind: kind, x: x, y: konst(1), fn: fn, pos: c.pos(a.Offset())}
		case (name == "+" || name == "-" || name == "*") && len(args) == 2:
			x, ok1 := reg(args[0])
			y, ok2 := reg(args[1])
			if !ok1 || !ok2 {
				return nil
			}
			op := opCodes[name] // opAdd, opSub or opMul: regFns' order
			l.opBuf[j] = regOp{kind: uint8(op), x: x, y: y, fn: uint8(op), pos: c.pos(a.Offset())}
			l.mul = l.mul || name == "*"
		default:
			return nil
		}
	}
	h := new(regLoop)
	*h = l
	h.slots, h.consts, h.ops = h.slotBuf[:n], h.constBuf[:nconst], h.opBuf[:n]
	return h
}

// run runs the loop from its bound variables. recurWhen is the test's
// value that recurs; other is the if's other branch.
//
// The loop limit and the step budget are checked in bulk: between two
// checks, the iterations that can neither reach the loop limit nor the
// thread's next checkpoint run with no check at all, and count their steps
// at once; the iteration that reaches either runs with both checks, as in
// the general path. So the steps counted, the checkpoints and the errors
// are exactly the general path's.
func (l *regLoop) run(fr *frame, recurWhen bool, other evalFn, pos posT) (Value, error) {
	th := fr.th
	var r regs
	n := len(l.slots)
	copy(r[n:], l.consts)
	l.load(fr, &r)
	limit := th.run.limits.MaxLoopIterations
	t := &l.test
	for it := 0; ; {
		// Iterations it, it+1, ... below the limit, whose step stays
		// below the next checkpoint.
		free := limit - it
		if accounting {
			free = min(free, int(th.nextCheck-th.steps-1))
		}
		done, exit, err := l.iterate(&r, free, recurWhen)
		if err != nil {
			l.count(th, done)
			return nil, err
		}
		l.count(th, done)
		it += done
		// One iteration with every check: the one that exits, or reaches
		// the limit or a checkpoint.
		if exit || t.holds(&r) != recurWhen {
			l.store(fr, &r)
			v, err := other(fr)
			if err != nil {
				return nil, err
			}
			if v != recurMarker {
				return v, nil
			}
			l.load(fr, &r) // the other branch recurred too
		} else if err := l.recur(&r); err != nil {
			return nil, err
		}
		if it >= limit {
			return nil, at(loopLimitError(limit), pos)
		}
		if err := th.tick(); err != nil {
			return nil, at(err, pos)
		}
		it++
	}
}

// count adds the steps of n iterations: one each, as tick counts them.
func (l *regLoop) count(th *thread, n int) {
	if accounting {
		th.steps += int64(n)
	}
}

// iterate runs up to max iterations with no check but the test and the
// arguments' overflow: it returns how many recurred, whether the test then
// said to exit, or the overflow error (of the iteration after the ones
// done). The commonest shapes, one or two variables updated by + and -, have
// their own loops.
func (l *regLoop) iterate(r *regs, max int, recurWhen bool) (done int, exit bool, err error) {
	t, ops := &l.test, l.ops
	switch {
	case !l.mul && len(ops) == 2 && t.kind == opLT:
		// W5's shape: the test written out too.
		o, p := &ops[0], &ops[1]
		for ; done < max; done++ {
			if (r[t.x] < r[t.y]) != recurWhen {
				return done, true, nil
			}
			u, over0 := o.apply(r)
			v, over1 := p.apply(r)
			if over0|over1 < 0 {
				return done, false, l.overflow(r)
			}
			r[0], r[1] = u, v
		}
	case !l.mul && len(ops) == 1:
		o := &ops[0]
		for ; done < max; done++ {
			if t.holds(r) != recurWhen {
				return done, true, nil
			}
			u, over := o.apply(r)
			if over < 0 {
				return done, false, l.overflow(r)
			}
			r[0] = u
		}
	case !l.mul && len(ops) == 2:
		o, p := &ops[0], &ops[1]
		for ; done < max; done++ {
			if t.holds(r) != recurWhen {
				return done, true, nil
			}
			u, over0 := o.apply(r)
			v, over1 := p.apply(r)
			if over0|over1 < 0 {
				return done, false, l.overflow(r)
			}
			r[0], r[1] = u, v
		}
	default:
		for ; done < max; done++ {
			if t.holds(r) != recurWhen {
				return done, true, nil
			}
			if err := l.recur(r); err != nil {
				return done, false, err
			}
		}
	}
	return done, false, nil
}

// recur computes the recur's arguments from the variables, then binds
// them.
func (l *regLoop) recur(r *regs) error {
	var next [maxIntSlots]int64
	for j := range l.ops {
		v, over := l.ops[j].applyAny(r)
		if over {
			return l.overflow(r)
		}
		next[j&(maxIntSlots-1)] = v
	}
	for j := range l.ops { // not copy: a memmove would stall the reads that follow
		r[j&(maxIntSlots-1)] = next[j&(maxIntSlots-1)]
	}
	return nil
}

// regs are a regLoop's registers, indexed by a byte: no bounds checks.
type regs [256]int64

// holds evaluates a test.
func (t *regOp) holds(r *regs) bool {
	x, y := r[t.x], r[t.y]
	switch t.kind {
	case opLT:
		return x < y
	case opLE:
		return x <= y
	case opGT:
		return x > y
	case opGE:
		return x >= y
	case opEq:
		return x == y
	case opNe:
		return x != y
	case regEven:
		return x%2 == 0
	}
	return x%2 != 0 // regOdd
}

// apply computes an argument by + or - (an overflow makes over
// negative), as arith does: small enough to inline.
func (o *regOp) apply(r *regs) (v, over int64) {
	a, b := r[o.x], r[o.y]
	if o.kind == opSub {
		v = a - b
		return v, (a ^ b) & (a ^ v)
	}
	v = a + b
	return v, (a ^ v) & (b ^ v)
}

// applyAny computes an argument by +, - or *.
func (o *regOp) applyAny(r *regs) (int64, bool) {
	if o.kind == opMul {
		return mulInt(r[o.x], r[o.y])
	}
	v, over := o.apply(r)
	return v, over < 0
}

// overflow returns the error of the first recur argument that overflows.
func (l *regLoop) overflow(r *regs) error {
	for _, o := range l.ops {
		if _, over := o.applyAny(r); over {
			return at(overflow(regFns[o.fn]), o.pos)
		}
	}
	return nil
}

// load reads the variables from their cells; store writes them back.
func (l *regLoop) load(fr *frame, r *regs) {
	for j, s := range l.slots {
		r[j] = fr.slots[s].(*intCell).v
	}
}

func (l *regLoop) store(fr *frame, r *regs) {
	for j, s := range l.slots {
		fr.slots[s].(*intCell).set(r[j])
	}
}
