package lisp

import (
	"strings"

	"github.com/ptc-go/ptc/lisp/internal/analyze"
	"github.com/ptc-go/ptc/lisp/syntax"
)

// call compiles a function call, resolving builtins at compile time so that
// their arity is checked before the program runs.
func (c *compiler) call(e *analyze.Call) evalFn {
	n := len(e.Args)
	switch f := e.Fn.(type) {
	case *analyze.Builtin:
		if b, ok := c.funcs.lookup(f.Name); ok {
			return c.hostCall(b, e.Args, c.pos(e.Off))
		}
		info, ok := c.callInfo(f.Name)
		if !ok {
			return c.errorf(c.pos(e.Off), UnboundVar, "unknown builtin %s", f.Name)
		}
		b := info.b
		if info.flags&callLazy != 0 {
			c.markLazyRange(f.Name, e)
		}
		if b == nil {
			if n == 0 && isJavaStatic(f.Name) {
				// (Math/PI) reads the static field, as Clojure's . form does.
				return constant(builtins[f.Name])
			}
			return c.errorf(c.pos(e.Off), NotCallable, "%s is a constant, not a function: use it without parentheses", f.Name)
		}
		if err := b.checkArity(n); err != nil {
			c.errs = append(c.errs, &Error{Kind: ArityError, Pos: c.pos(e.Off).resolve(), Message: err.(*Error).Message, src: c.src})
			return constant(nil)
		}
		if info.flags&callRegex != 0 {
			if k, ok := e.Args[0].(*analyze.Const); ok {
				if pat, ok := k.Value.(string); ok {
					return c.regexLiteral(pat, c.pos(e.Off))
				}
			}
		}
		if info.flags&callTerminal != 0 && n > 0 && mayBeStage(e.Args[n-1]) {
			if f := c.fusedCall(f.Name, b, e.Args, c.pos(e.Off)); f != nil {
				return f
			}
		}
		if info.flags&callFast != 0 {
			// (The position is made there, after a call of constants is
			// folded: W1's (+ 1 2) then compiles with no allocation.)
			if f := c.fastCall(f.Name, b, e.Args, e.Off); f != nil {
				return f
			}
		}
		return c.callBuiltin(b.fn, e.Args, c.pos(e.Off))
	case *analyze.Keyword:
		pos := c.pos(e.Off)
		// The closures below take the keyword from fk (its name) rather
		// than holding it too: 16 bytes less for one of the commonest nodes.
		fk := c.keywordKey(f.Name)
		if n < 1 || n > 2 {
			return c.errorf(pos, ArityError, "keyword %s called as a function takes a map and an optional default, got %d argument(s)", Keyword(f.Name), n)
		}
		if l, ok := e.Args[0].(*analyze.Local); ok && n == 1 && !c.isIntSlot(int(l.Slot)) {
			return c.keywordOfLocal(fk, l.Slot)
		}
		m := c.expr(e.Args[0])
		var def evalFn
		if n == 2 {
			def = c.expr(e.Args[1])
		}
		return func(fr *frame) (Value, error) {
			x, err := m(fr)
			if err != nil {
				return nil, err
			}
			if mm, ok := x.(*Map); ok {
				if v, ok := mm.lookupFlex(fk); ok {
					return v, nil
				}
				if def != nil {
					return def(fr)
				}
				return nil, nil
			}
			var d Value
			if def != nil {
				if d, err = def(fr); err != nil {
					return nil, err
				}
			}
			k := Keyword(fk.name)
			v, err := callKeyword(k, []Value{x, d}[:n])
			if err != nil {
				return nil, at(err, pos)
			}
			fr.th.noteKeywordCall(k, x)
			return v, nil
		}
	case *analyze.Const:
		if _, ok := f.Value.(string); ok || f.Value == nil || isNumber(f.Value) || f.Value == true || f.Value == false {
			return c.errorf(c.pos(e.Off), NotCallable, "%s is not a function", describe(f.Value))
		}
	}
	pos := c.pos(e.Off)
	c.calls = true
	fnE := c.expr(e.Fn)
	fns, args := c.argList(e.Args)
	if fns != nil {
		return func(fr *frame) (Value, error) {
			fv, err := fnE(fr)
			if err != nil {
				return nil, err
			}
			th := fr.th
			buf, mark := th.stack.alloc(n)
			for i, a := range fns {
				x, err := a(fr)
				if err != nil {
					th.stack.release(buf, mark)
					return nil, err
				}
				buf[i] = x
			}
			v, err := th.call(fv, buf)
			th.stack.release(buf, mark)
			if err != nil {
				return nil, at(err, pos)
			}
			return v, nil
		}
	}
	return func(fr *frame) (Value, error) {
		fv, err := fnE(fr)
		if err != nil {
			return nil, err
		}
		th := fr.th
		buf, mark := th.stack.alloc(n)
		if err := evalArgs(fr, args, buf); err != nil {
			th.stack.release(buf, mark)
			return nil, err
		}
		v, err := th.call(fv, buf)
		th.stack.release(buf, mark)
		if err != nil {
			return nil, at(err, pos)
		}
		return v, nil
	}
}

// mayBeStage reports whether e may be the last stage of a pipeline that
// fusedCall fuses, a call of two arguments of a stage builtin (filter,
// map...): fusedCall is asked only then, and a terminal of anything else,
// such as (count (:tags x)) or (count (get-in m p)), costs no call of it.
func mayBeStage(e analyze.Expr) bool {
	call, ok := e.(*analyze.Call)
	if !ok || len(call.Args) != 2 {
		return false
	}
	f, ok := call.Fn.(*analyze.Builtin)
	if !ok {
		return false
	}
	_, ok = fusibleStage(f.Name)
	return ok
}

// callInfo is what the compiler needs to know of a builtin name, found
// with one lookup per call.
type callInfo struct {
	b     *Builtin // nil: the name is a constant, such as pi
	flags uint8
}

const (
	callFast     uint8 = 1 << iota // fastCall may have a path for it
	callTerminal                   // it may end a fused pipeline
	callRegex                      // re-pattern
	callLazy                       // markLazyRange looks at its arguments
)

// lookupCallInfo describes the builtin name: one lookup in the table of
// builtins, whose Builtins carry their flags. It used to be a second
// table of every builtin built at start-up (a seventh of package lisp's
// initialisation, for the few names a program calls); the compiler keeps
// the answers it asks for again (compiler.callInfo).
func lookupCallInfo(name string) (callInfo, bool) {
	v, ok := builtins[name]
	if !ok {
		return callInfo{}, false
	}
	b, _ := v.(*Builtin)
	if b == nil {
		return callInfo{}, true
	}
	flags := b.flags
	if flags&callAliased != 0 {
		// A flagged builtin of more than one name (abs, Math/abs): the
		// flags are the name's.
		flags = 0
		for _, f := range flaggedCalls {
			if f.name == name {
				flags = f.flags
			}
		}
	}
	return callInfo{b: b, flags: flags}, true
}

// flaggedCalls are the builtins fastCall, fused pipelines, re-pattern and
// markLazyRange look for, with their flags (TestCallFlags holds them to
// isIntOp, isCmpOp, isPredOp, fusibleTerminal and earlyStop, for every
// name of the table).
var flaggedCalls = [...]struct {
	name  string
	flags uint8
}{
	{"inc", callFast}, {"dec", callFast}, {"zero?", callFast}, {"+", callFast}, {"-", callFast},
	{"*", callFast}, {"quot", callFast}, {"rem", callFast}, {"mod", callFast}, {"abs", callFast},
	{"max", callFast}, {"min", callFast}, {"<", callFast}, {"<=", callFast}, {">", callFast},
	{">=", callFast}, {"=", callFast}, {"==", callFast}, {"not=", callFast}, {"pos?", callFast},
	{"neg?", callFast}, {"even?", callFast}, {"odd?", callFast},
	{"re-pattern", callRegex},
	{"count", callTerminal}, {"frequencies", callTerminal}, {"vec", callTerminal}, {"set", callTerminal},
	{"sum-by", callTerminal}, {"into", callTerminal}, {"group-by", callTerminal}, {"avg-by", callTerminal},
	{"max-by", callTerminal}, {"min-by", callTerminal}, {"sort-by", callTerminal},
	{"reduce", callTerminal | callLazy},
	{"some", callLazy}, {"every?", callLazy}, {"not-any?", callLazy}, {"not-every?", callLazy},
	{"take", callLazy}, {"first", callLazy}, {"run!", callLazy},
}

// callAliased, in a Builtin's flags, says that it has other names than
// the one flagged: lookupCallInfo then finds the flags of the name.
const callAliased uint8 = 1 << 7

// flagCalls sets the flags of flaggedCalls on their Builtins, once every
// builtin is registered (wrap and registerSeqViews make copies).
func flagCalls(t *builtinTable) {
	for _, f := range flaggedCalls {
		if b, ok := t.names[f.name].(*Builtin); ok {
			b.flags = f.flags
			if b.Name != f.name {
				b.flags |= callAliased
			}
		}
	}
	for _, a := range t.aliases {
		if a.b.flags != 0 {
			a.b.flags |= callAliased
		}
	}
}

// toolCall compiles (tool/name args), (ctx/name args) and (call "name" args).
// callBuiltin compiles a call of a builtin function; calls with one or two
// arguments (most of them) get closures without an argument slice.
func (c *compiler) callBuiltin(fn builtinFn, argExprs []analyze.Expr, pos posT) evalFn {
	switch len(argExprs) {
	case 1:
		if f := c.nestedCall(fn, argExprs[0], pos); f != nil {
			return f
		}
		a0 := c.arg(argExprs[0])
		if f0 := a0.fn; f0 != nil {
			return func(fr *frame) (Value, error) {
				x, err := f0(fr)
				if err != nil {
					return nil, err
				}
				th := fr.th
				buf, mark := th.stack.alloc(1)
				buf[0] = x
				v, err := fn(th, buf)
				th.stack.release(buf, mark)
				if err != nil {
					return nil, at(err, pos)
				}
				return v, nil
			}
		}
		return func(fr *frame) (Value, error) {
			x, err := a0.eval(fr)
			if err != nil {
				return nil, err
			}
			return callBuiltin1(fr.th, fn, x, pos)
		}
	case 2:
		a0 := c.arg(argExprs[0])
		a1 := c.arg(argExprs[1])
		if f0, f1 := a0.fn, a1.fn; f0 != nil && f1 != nil {
			return func(fr *frame) (Value, error) {
				x, err := f0(fr)
				if err != nil {
					return nil, err
				}
				y, err := f1(fr)
				if err != nil {
					return nil, err
				}
				th := fr.th
				buf, mark := th.stack.alloc(2)
				buf[0], buf[1] = x, y
				v, err := fn(th, buf)
				th.stack.release(buf, mark)
				if err != nil {
					return nil, at(err, pos)
				}
				return v, nil
			}
		}
		return func(fr *frame) (Value, error) {
			x, err := a0.eval(fr)
			if err != nil {
				return nil, err
			}
			y, err := a1.eval(fr)
			if err != nil {
				return nil, err
			}
			return callBuiltin2(fr.th, fn, x, y, pos)
		}
	case 3:
		if !noFastPaths { // (withoutFastPaths compares it with the loop below)
			return c.callBuiltin3(fn, argExprs, pos)
		}
	}
	fns, args := c.argList(argExprs)
	n := len(argExprs)
	if fns != nil {
		return func(fr *frame) (Value, error) {
			th := fr.th
			buf, mark := th.stack.alloc(n)
			for i, a := range fns {
				x, err := a(fr)
				if err != nil {
					th.stack.release(buf, mark)
					return nil, err
				}
				buf[i] = x
			}
			v, err := fn(th, buf)
			th.stack.release(buf, mark)
			if err != nil {
				return nil, at(err, pos)
			}
			return v, nil
		}
	}
	return func(fr *frame) (Value, error) {
		th := fr.th
		buf, mark := th.stack.alloc(n)
		if err := evalArgs(fr, args, buf); err != nil {
			th.stack.release(buf, mark)
			return nil, err
		}
		v, err := fn(th, buf)
		th.stack.release(buf, mark)
		if err != nil {
			return nil, at(err, pos)
		}
		return v, nil
	}
}

// nestedCall compiles a call of a builtin of one argument, fn at pos,
// whose argument e is a call of a builtin of one or two arguments that
// callBuiltin would compile ((count (get-in m [:a :b])), (str (name k))):
// one closure calls the inner builtin, then the outer, with no closure of
// the inner call to build and to call. Each call's error takes its own
// position, as with two closures. It returns nil for any other e.
func (c *compiler) nestedCall(fn builtinFn, e analyze.Expr, pos posT) evalFn {
	inner, ok := e.(*analyze.Call)
	if !ok || noFastPaths {
		return nil
	}
	ib, ok := inner.Fn.(*analyze.Builtin)
	n := len(inner.Args)
	if !ok || n == 0 || n > 2 {
		return nil
	}
	// The inner call must be one expr would hand to call, and call to
	// callBuiltin: no loop table or lazy range, no host function, no fast
	// path or fusion, a builtin function of that arity.
	if c.tableUpdates != nil || c.lazyRanges != nil || c.isTableExit(e) {
		return nil
	}
	if _, host := c.funcs.lookup(ib.Name); host {
		return nil
	}
	info, ok := c.callInfo(ib.Name)
	if !ok || info.b == nil || info.flags != 0 || info.b.checkArity(n) != nil {
		return nil
	}
	// The inner arguments are argValue's (a (:k x) is its shared
	// closure): a closure or a constant, tested inline.
	ifn, ipos := info.b.fn, c.pos(inner.Off)
	f0, v0 := c.argValue(inner.Args[0])
	if n == 1 {
		return func(fr *frame) (Value, error) {
			x := v0
			if f0 != nil {
				var err error
				if x, err = f0(fr); err != nil {
					return nil, err
				}
			}
			th := fr.th
			buf, mark := th.stack.alloc(1)
			buf[0] = x
			v, err := ifn(th, buf)
			if err != nil {
				th.stack.release(buf, mark)
				return nil, at(err, ipos)
			}
			// The outer call takes the inner one's room on the stack.
			buf[0] = v
			v, err = fn(th, buf)
			th.stack.release(buf, mark)
			if err != nil {
				return nil, at(err, pos)
			}
			return v, nil
		}
	}
	f1, v1 := c.argValue(inner.Args[1])
	return func(fr *frame) (Value, error) {
		x, y := v0, v1
		var err error
		if f0 != nil {
			if x, err = f0(fr); err != nil {
				return nil, err
			}
		}
		if f1 != nil {
			if y, err = f1(fr); err != nil {
				return nil, err
			}
		}
		th := fr.th
		buf, mark := th.stack.alloc(2)
		buf[0], buf[1] = x, y
		v, err := ifn(th, buf)
		if err != nil {
			th.stack.release(buf, mark)
			return nil, at(err, ipos)
		}
		buf[0], buf[1] = v, nil
		v, err = fn(th, buf[:1:1])
		th.stack.release(buf, mark)
		if err != nil {
			return nil, at(err, pos)
		}
		return v, nil
	}
}

// callBuiltin3 compiles a call of a builtin of three arguments, (assoc m
// k v) or (+ a b c): the closure holds its arguments (see argValue) in
// itself, with no slice of them to carve.
func (c *compiler) callBuiltin3(fn builtinFn, argExprs []analyze.Expr, pos posT) evalFn {
	f0, v0 := c.argValue(argExprs[0])
	f1, v1 := c.argValue(argExprs[1])
	f2, v2 := c.argValue(argExprs[2])
	if f0 != nil && f1 != nil && f2 != nil {
		return func(fr *frame) (Value, error) {
			x, err := f0(fr)
			if err != nil {
				return nil, err
			}
			y, err := f1(fr)
			if err != nil {
				return nil, err
			}
			z, err := f2(fr)
			if err != nil {
				return nil, err
			}
			th := fr.th
			buf, mark := th.stack.alloc(3)
			buf[0], buf[1], buf[2] = x, y, z
			v, err := fn(th, buf)
			th.stack.release(buf, mark)
			if err != nil {
				return nil, at(err, pos)
			}
			return v, nil
		}
	}
	return func(fr *frame) (Value, error) {
		x, y, z := v0, v1, v2
		var err error
		if f0 != nil {
			if x, err = f0(fr); err != nil {
				return nil, err
			}
		}
		if f1 != nil {
			if y, err = f1(fr); err != nil {
				return nil, err
			}
		}
		if f2 != nil {
			if z, err = f2(fr); err != nil {
				return nil, err
			}
		}
		th := fr.th
		buf, mark := th.stack.alloc(3)
		buf[0], buf[1], buf[2] = x, y, z
		v, err := fn(th, buf)
		th.stack.release(buf, mark)
		if err != nil {
			return nil, at(err, pos)
		}
		return v, nil
	}
}

// evalArgs evaluates the arguments of a call of many arguments into buf
// (as long as args): the closures in turn, constants as they are held.
func evalArgs(fr *frame, args []callArg, buf []Value) error {
	for i := range args {
		a := &args[i]
		x := a.v
		if a.fn != nil {
			var err error
			if x, err = a.fn(fr); err != nil {
				return err
			}
		}
		buf[i] = x
	}
	return nil
}

// Call arguments.
//
// Most arguments of calls are constants (:total, 0.25, a literal map) or
// a keyword lookup in a local, (:k x). A call evaluates such an argument
// in its own closure, as a callArg held by value, rather than through a
// closure of its own: one closure less to build (a constant that is not
// shared would need one of its own) and to call.

// callArg is an argument of a call: fn when it is set, else (:k x) when
// fk is set, else the constant v. (:k x) of one argument cannot fail (see
// keywordOfLocal), so it needs no position: 40 bytes, not 48.
type callArg struct {
	fn   evalFn
	fk   *flexKey
	v    Value
	slot int32 // x's
}

// eval evaluates o as the closure compiled for its expression would.
// (A value receiver: closures then hold their arguments by value, in
// themselves, rather than in variables of their own.)
func (o callArg) eval(fr *frame) (Value, error) {
	if o.fn != nil {
		return o.fn(fr)
	}
	if o.fk == nil {
		return o.v, nil
	}
	return o.lookup(fr)
}

// lookup evaluates (:k x).
func (o *callArg) lookup(fr *frame) (Value, error) {
	x := fr.slots[o.slot]
	if mm, ok := x.(*Map); ok {
		v, _ := mm.lookupFlex(o.fk)
		return v, nil
	}
	return keywordOfNonMap(fr, o.fk, x, posT{})
}

// keywordOfLocal compiles (:k x) of a boxed local x: it reads the slot
// and looks up in one step. (:k x) cannot fail, so its closure depends on
// k and the slot alone: the places that read the same key of the same
// slot (the same local, or another of a scope that reuses the slot) share
// one, found in a small table by k and the slot.
func (c *compiler) keywordOfLocal(fk *flexKey, slot int32) evalFn {
	e := &c.kwReads.first
	if c.kwReads.table != nil {
		e = &c.kwReads.table[kwReadIndex(fk, slot)]
	} else if e.fk != nil && (e.fk != fk || e.slot != slot) {
		// A second key or slot: the table is made (a program of one such
		// read makes none).
		c.kwReads.table = new([kwReadsLen]kwRead)
		c.kwReads.table[kwReadIndex(e.fk, e.slot)] = *e
		e = &c.kwReads.table[kwReadIndex(fk, slot)]
	}
	if e.fk != fk || e.slot != slot {
		*e = kwRead{fk: fk, slot: slot, fn: func(fr *frame) (Value, error) {
			x := fr.slots[slot]
			if mm, ok := x.(*Map); ok {
				v, _ := mm.lookupFlex(fk)
				return v, nil
			}
			// (The position is never used: (:k x) of one argument
			// makes no error.)
			return keywordOfNonMap(fr, fk, x, posT{})
		}}
	}
	return e.fn
}

// kwReads is the table of keywordOfLocal: the last closure made in each
// of its places (a miss makes another, as if there were no table).
type kwReads struct {
	first kwRead
	table *[kwReadsLen]kwRead
}

type kwRead struct {
	fk   *flexKey
	slot int32
	fn   evalFn
}

const kwReadsLen = 16

// kwReadIndex is the place of (:k x) of slot in the table of kwReads.
func kwReadIndex(fk *flexKey, slot int32) int {
	h := uint32(len(fk.name))
	if len(fk.name) > 0 {
		h = h*31 + uint32(fk.name[0])
		h = h*31 + uint32(fk.name[len(fk.name)-1])
	}
	h = (h*31 + uint32(slot)) * 0x9e3779b9
	return int(h >> 28) // the top 4 bits: kwReadsLen places
}

// keywordOfNonMap is (:k x) for an x that is not a map.
func keywordOfNonMap(fr *frame, fk *flexKey, x Value, pos posT) (Value, error) {
	k := Keyword(fk.name)
	v, err := callKeyword(k, []Value{x})
	if err != nil {
		return nil, at(err, pos)
	}
	fr.th.noteKeywordCall(k, x)
	return v, nil
}

// kwArgTo compiles e into *dst when e is (:k x) of a boxed local, as call
// compiles it, and reports whether it did.
func (c *compiler) kwArgTo(dst *callArg, e analyze.Expr) bool {
	call, ok := e.(*analyze.Call)
	if !ok || len(call.Args) != 1 {
		return false
	}
	k, ok := call.Fn.(*analyze.Keyword)
	if !ok {
		return false
	}
	l, ok := call.Args[0].(*analyze.Local)
	if !ok || c.isIntSlot(int(l.Slot)) {
		return false
	}
	dst.fk, dst.slot = c.keywordKey(k.Name), l.Slot
	return true
}

// argValue compiles an argument of a call: a constant without a closure
// of its own (one that no other use of it shares) is held by value (fn is
// nil), anything else is compiled as expr compiles it. (A shared closure
// costs no allocation, and its call no test of the argument's kind.) Two
// results rather than a callArg: they come back in registers, where a
// callArg would be copied through memory at every argument.
func (c *compiler) argValue(e analyze.Expr) (fn evalFn, v Value) {
	if noFastPaths {
		return c.expr(e), nil // as before arguments were held by value
	}
	if c.isTableExit(e) {
		return c.expr(e), nil
	}
	switch x := e.(type) {
	case *analyze.Local:
		return c.local(x.Slot), nil
	case *analyze.Keyword:
		return c.keywordConst(x.Name), nil
	case *analyze.Const:
		if f := sharedConst(x.Value); f != nil {
			return f, nil
		}
		if f := unmadeConst(x.Value); f != nil {
			return f, nil
		}
		return nil, x.Value
	case *analyze.VectorLit, *analyze.SetLit, *analyze.MapLit:
		v, pe, ok := c.lit(e)
		if !ok {
			return c.collExpr(e), nil
		}
		if pe != nil {
			return pe.closure(), nil
		}
		return nil, v
	case *analyze.Call:
		// Straight to call when no call is compiled otherwise (see expr),
		// as in most programs: no second dispatch on the node's type.
		if c.tableUpdates == nil && c.lazyRanges == nil {
			return c.call(x), nil
		}
	}
	return c.expr(e), nil
}

// argTo compiles an argument of a call of one or two arguments into *dst
// (zero): as argValue, and (:k x) held by value too. (Calls of many
// arguments and map literals evaluate theirs in a loop, where a test for
// (:k x) costs more than the call of its closure saves: they keep that
// closure, see argList.)
func (c *compiler) argTo(dst *callArg, e analyze.Expr) {
	// (:k x) is a call of one argument: other arguments, most of them,
	// pay for no call of kwArgTo.
	if x, ok := e.(*analyze.Call); ok && len(x.Args) == 1 && !noFastPaths && !c.isTableExit(e) && c.kwArgTo(dst, e) {
		return
	}
	dst.fn, dst.v = c.argValue(e)
}

// isTableExit reports whether e is among c.tableExits (which argValue
// compiles through expr).
func (c *compiler) isTableExit(e analyze.Expr) bool {
	if len(c.tableExits) == 0 {
		return false
	}
	_, ok := c.tableExits[e]
	return ok
}

// arg is argTo's callArg, for the closures that hold it by value.
func (c *compiler) arg(e analyze.Expr) (a callArg) {
	c.argTo(&a, e)
	return a
}

// argList compiles the arguments of a call of many arguments (see
// argValue): their closures, carved from the slab, when all of them are
// closures (a call of such arguments calls them with no test of their
// kind), else args, each a closure or a constant. (The closures' room is
// carved first, as most lists hold no constant; a list that does leaves
// it unused.)
func (c *compiler) argList(es []analyze.Expr) (fns []evalFn, args []callArg) {
	if len(es) == 0 {
		return nil, nil
	}
	fns = c.fnSlice(len(es))
	for i, e := range es {
		f, v := c.argValue(e)
		if f == nil {
			return nil, c.argsAfter(fns[:i], v, es[i+1:])
		}
		fns[i] = f
	}
	return fns, nil
}

// argsAfter makes argList's args: the closures done, the constant v of
// the next argument, and the arguments after it.
func (c *compiler) argsAfter(done []evalFn, v Value, rest []analyze.Expr) []callArg {
	n := len(done)
	args := carve(&c.argSlab, n+1+len(rest))
	for i, f := range done {
		args[i].fn = f
	}
	args[n].v = v
	for i, e := range rest {
		a := &args[n+1+i]
		a.fn, a.v = c.argValue(e)
	}
	return args
}

// callArgs compiles the arguments of a call of one or two arguments as
// callArgs.
func (c *compiler) callArgs(args []analyze.Expr) (ops [2]callArg) {
	for i, a := range args {
		c.argTo(&ops[i], a)
	}
	return ops
}

// posT is the position of a compiled node: its byte offset in the
// program's source, turned into a line and column only when an error is
// given it (see resolve). The compiler makes about one per call and per
// form that can fail, and most programs fail at none of them.
type posT struct {
	off   int32
	lines *srcPositions // nil: no position
}

// resolve returns the position p stands for.
func (p posT) resolve() syntax.Pos {
	if p.lines == nil {
		return syntax.Pos{}
	}
	return p.lines.pos(p.off)
}

func (c *compiler) toolCall(e *analyze.ToolCall) evalFn {
	pos := c.pos(e.Off)
	args := c.exprs(e.Args)
	var nameE evalFn
	if e.NameExpr != nil {
		nameE = c.expr(e.NameExpr)
	}
	static := e.Name
	return func(fr *frame) (Value, error) {
		name := static
		if nameE != nil {
			v, err := nameE(fr)
			if err != nil {
				return nil, err
			}
			switch v := v.(type) {
			case string:
				name = v
			case Keyword:
				name = string(v)
			default:
				return nil, &Error{Kind: TypeError, Pos: pos.resolve(), Message: "a tool name must be a string, got " + describe(v)}
			}
			if name == "return" || name == "fail" {
				return nil, &Error{Kind: InvalidForm, Pos: pos.resolve(), Message: "write (" + name + " value) to end the program"}
			}
		}
		vals := make([]Value, len(args))
		for i, a := range args {
			v, err := a(fr)
			if err != nil {
				return nil, err
			}
			vals[i] = v
		}
		v, err := fr.th.callTool(name, toolArgs(vals))
		if err != nil {
			return nil, at(err, pos)
		}
		return v, nil
	}
}

// toolArgs shapes call arguments into the argument map: none is {}, one map
// is that map, anything else is {:args [a ...]}.
func toolArgs(vals []Value) *Map {
	switch len(vals) {
	case 0:
		return emptyMap
	case 1:
		if m, ok := vals[0].(*Map); ok {
			return m
		}
	}
	return NewMap(Keyword("args"), NewVector(vals))
}

func (c *compiler) caseExpr(e *analyze.Case) evalFn {
	type clause struct {
		tests  []Value
		result evalFn
	}
	x := c.expr(e.Expr)
	clauses := make([]clause, len(e.Tests))
	for i, ts := range e.Tests {
		for _, t := range ts {
			v, ok := constValue(t)
			if !ok {
				return c.errorf(c.pos(t.Offset()), InvalidForm, "case tests must be constants")
			}
			clauses[i].tests = append(clauses[i].tests, v)
		}
		clauses[i].result = c.expr(e.Results[i])
	}
	var def evalFn
	if e.Default != nil {
		def = c.expr(e.Default)
	}
	pos := c.pos(e.Off)
	return func(fr *frame) (Value, error) {
		v, err := x(fr)
		if err != nil {
			return nil, err
		}
		for i := range clauses {
			for _, t := range clauses[i].tests {
				if fr.th.equal(v, t) {
					return clauses[i].result(fr)
				}
			}
		}
		if def != nil {
			return def(fr)
		}
		return nil, &Error{Kind: InvalidArgument, Pos: pos.resolve(), Message: "case: no clause matches " + brief(v) + " (add a default as the last form)"}
	}
}

func (c *compiler) dotimes(e *analyze.Dotimes) evalFn {
	count, body := c.expr(e.Count), c.expr(e.Body)
	slot, pos := e.Slot, c.pos(e.Off)
	return func(fr *frame) (Value, error) {
		nv, err := count(fr)
		if err != nil {
			return nil, err
		}
		n, ok := nv.(int64)
		if !ok {
			f, isF := nv.(float64)
			if !isF {
				return nil, &Error{Kind: TypeError, Pos: pos.resolve(), Message: "dotimes needs a number of iterations, got " + describe(nv)}
			}
			n = int64(f)
		}
		th := fr.th
		if n > int64(th.run.limits.MaxLoopIterations) {
			return nil, at(loopLimitError(th.run.limits.MaxLoopIterations), pos)
		}
		for i := int64(0); i < n; i++ {
			if err := th.tick(); err != nil {
				return nil, at(err, pos)
			}
			fr.slots[slot] = boxInt(i)
			if _, err := body(fr); err != nil {
				return nil, err
			}
		}
		return nil, nil
	}
}

func (c *compiler) forExpr(e *analyze.For) evalFn {
	type mod struct {
		kind  string
		binds func(fr *frame) error
		test  evalFn
	}
	type clause struct {
		coll evalFn
		slot int
		bind bindFn
		mods []mod
	}
	clauses := make([]clause, len(e.Clauses))
	for i, cl := range e.Clauses {
		if i > 0 || !e.Collect {
			// A clause walks its sequence and keeps only its elements: a
			// range there need not be built (a for's first one makes the
			// for lazy, so it stays as it is).
			c.markLazyRangeIn(cl.Coll)
		}
		clauses[i].coll = c.expr(cl.Coll)
		clauses[i].slot = -1
		if s, ok := cl.Pattern.(*analyze.BindSlot); ok {
			clauses[i].slot = s.Slot
		} else {
			clauses[i].bind = c.pattern(cl.Pattern)
		}
		for _, m := range cl.Mods {
			cm := mod{kind: m.Kind}
			if m.Kind == "let" {
				cm.binds = c.bindings(m.Bindings)
			} else {
				cm.test = c.expr(m.Test)
			}
			clauses[i].mods = append(clauses[i].mods, cm)
		}
	}
	body := c.expr(e.Body)
	collect, pos := e.Collect, c.pos(e.Off)
	firstWhile := false
	for _, m := range clauses[0].mods {
		firstWhile = firstWhile || m.kind == "while"
	}
	name := "doseq"
	if collect {
		name = "for"
	}
	// run binds clause i from coll (evaluated by the caller for clause 0)
	// and recurs into the next clauses; at the end it evaluates the body
	// and passes its value to emit. A false from emit stops everything.
	var run func(fr *frame, i int, coll Value, emit func(Value) (bool, error)) (bool, error)
	run = func(fr *frame, i int, coll Value, emit func(Value) (bool, error)) (bool, error) {
		th := fr.th
		if i == len(clauses) {
			v, err := body(fr)
			if err != nil {
				return false, err
			}
			return emit(v)
		}
		cl := &clauses[i]
		if coll == nil && i > 0 {
			var err error
			if coll, err = cl.coll(fr); err != nil {
				return false, err
			}
		}
		more := true
		err := th.each(coll, name, func(x Value) (bool, error) {
			if err := th.tick(); err != nil {
				return false, err
			}
			if cl.slot >= 0 {
				fr.slots[cl.slot] = x
			} else if err := cl.bind(fr, x); err != nil {
				return false, err
			}
			for _, m := range cl.mods {
				switch m.kind {
				case "let":
					if err := m.binds(fr); err != nil {
						return false, err
					}
				case "when", "while":
					t, err := m.test(fr)
					if err != nil {
						return false, err
					}
					if !truthy(t) {
						return m.kind == "when", nil // :when skips, :while stops this clause
					}
				}
			}
			var err error
			more, err = run(fr, i+1, nil, emit)
			return more, err
		})
		return more, err
	}
	return func(fr *frame) (Value, error) {
		th := fr.th
		coll, err := clauses[0].coll(fr)
		if err != nil {
			return nil, at(err, pos)
		}
		// With a :while on the first binding the comprehension ends, so it
		// runs eagerly; without one it can only be consumed lazily.
		if s, ok := coll.(*Seq); ok && collect && !firstWhile {
			return lazyFor(fr, s, run, pos), nil
		}
		var out []Value
		emit := func(v Value) (bool, error) {
			if collect {
				if err := th.charge(1); err != nil {
					return false, err
				}
				out = append(out, v)
			}
			return true, nil
		}
		if _, err := run(fr, 0, coll, emit); err != nil {
			return nil, at(err, pos)
		}
		if collect {
			return newSeqView(out), nil // a lazy seq in Clojure: conj puts in front
		}
		return nil, nil
	}
}

// lazyFor is a for whose first binding walks an infinite sequence: a lazy
// sequence that runs the comprehension as far as its consumer pulls. It
// works on a copy of the frame's slots, since the frame is reused once the
// enclosing function returns; each consumer gets its own copy, so that
// pmap branches can share the sequence.
func lazyFor(fr *frame, s *Seq, run func(*frame, int, Value, func(Value) (bool, error)) (bool, error), pos posT) *Seq {
	snap := frame{slots: cloneSlots(fr.slots), captured: fr.captured, self: fr.self, arity: fr.arity}
	return &Seq{name: "for", finite: s.finite, gen: func(th *thread, yield func(Value) (bool, error)) error {
		f := snap
		f.slots = cloneSlots(snap.slots)
		f.th = th
		_, err := run(&f, 0, s, yield)
		return at(err, pos)
	}}
}

// isJavaStatic reports whether name is spelled Class/member, as a Java
// class's static field is (Math/PI, Long/MAX_VALUE).
func isJavaStatic(name string) bool {
	i := strings.IndexByte(name, '/')
	return i > 0 && 'A' <= name[0] && name[0] <= 'Z'
}

// earlyStop is, for a builtin that may stop walking a sequence before its
// end, the place of the sequence among its arguments; -1 for the others.
// A switch, not a map: it is asked at every call the compiler sees.
func earlyStop(name string) int {
	switch name {
	case "some", "every?", "not-any?", "not-every?", "take":
		return 1
	case "first":
		return 0
	}
	return -1
}

// markLazyRange marks the range a call walks to be built lazily, as
// Clojure's, where the call keeps nothing of the range: an early-stopping
// builtin ((not-any? #(zero? (rem n %)) (range 2 n)) stops at the first
// divisor instead of building the whole range) and reduce and run!, which
// walk it to its end but keep only what their function makes of each
// element ((reduce + (range i)) in a loop over i would otherwise count
// every range it built against the memory limit). The range may be the
// argument, or under filter, remove, keep or map of one sequence. It
// acts only on the builtins flaggedCalls flags callLazy, and call asks only
// of those.
func (c *compiler) markLazyRange(name string, e *analyze.Call) {
	at := earlyStop(name)
	switch {
	case at >= 0:
		if at >= len(e.Args) || (name == "take" && len(e.Args) != 2) {
			return
		}
	case name == "reduce" && (len(e.Args) == 2 || len(e.Args) == 3):
		at = len(e.Args) - 1
	case name == "run!" && len(e.Args) == 2:
		at = 1
	default:
		return
	}
	c.markLazyRangeIn(e.Args[at])
}

// markLazyRangeIn marks the range coll is, or walks through filter,
// remove, keep or map of one sequence (markLazyRange).
func (c *compiler) markLazyRangeIn(coll analyze.Expr) {
	for {
		call, ok := coll.(*analyze.Call)
		if !ok {
			return
		}
		b, ok := call.Fn.(*analyze.Builtin)
		if !ok {
			return
		}
		switch b.Name {
		case "range":
			if len(call.Args) > 0 {
				if c.lazyRanges == nil {
					c.lazyRanges = map[*analyze.Call]bool{}
				}
				c.lazyRanges[call] = true
			}
			return
		case "filter", "remove", "keep", "map":
			if len(call.Args) != 2 {
				return
			}
			coll = call.Args[1]
		default:
			return
		}
	}
}

// lazyRange compiles a range marked by markLazyRange.
func (c *compiler) lazyRange(e *analyze.Call) evalFn {
	return c.callBuiltin(func(th *thread, a []Value) (Value, error) { return rangeOf(th, a, true) }, e.Args, c.pos(e.Off))
}
