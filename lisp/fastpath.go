package lisp

import (
	"math"

	"github.com/ptc-go/ptc/lisp/internal/analyze"
)

// Integer fast paths.
//
// Every Value holding an int64 is a boxed integer, and boxing one of 256 or
// more allocates. A loop such as
//
//	(loop [i 0 acc 0] (if (< i 1000) (recur (inc i) (+ acc i)) acc))
//
// would allocate twice per iteration and go through the generic builtin
// calling convention for every <, inc and +. The compiler avoids both:
//
//   - Typed expressions. An expression is int-typed when it is an integer
//     constant, an unboxed loop variable (below), or a call of the core
//     +, -, *, inc, dec, quot, rem, mod, abs, max or min on int-typed
//     arguments: its value is an int64 or the call fails (integer overflow,
//     division by zero). It compiles to an intFn, which computes without
//     boxing. Comparisons (< <= > >= = == not=) and zero? pos? neg? even?
//     odd? of int-typed arguments compile to a boolFn, used directly by if.
//     A call reaches these only when its callee is the core builtin (the
//     analyzer resolves a name to *analyze.Builtin only when no local binds
//     it, and def cannot redefine a builtin), so (let [+ -] (+ 3 1)) is an
//     ordinary call.
//
//   - Folded constants. An int-typed call whose arguments are integer
//     constants, or such calls, is computed when compiled: (+ 1 2) is the
//     constant 3. A call that would fail (overflow, division by zero) is
//     compiled as it is written, and fails when and where it runs.
//
//   - Unboxed loop variables. A loop binding whose initial value and whose
//     every recur argument are int-typed (a fixpoint over the loop's
//     bindings: an argument may read the loop's other unboxed variables)
//     lives in an *intCell stored in its frame slot: recur writes the int64
//     in place, and typed reads take it out without a type switch on the
//     value. A generic read (the loop's result, an argument of str...) boxes
//     it, once per value written (the cell keeps the box until the next
//     write), so a loop never boxes more than before. A cell never escapes
//     its frame: closures capture the boxed value, and a lazy for, which
//     keeps running on a copy of the frame, copies the cells.
//
//   - Dynamic fast paths. Calls of +, -, * and < <= > >= = not= with two
//     arguments, and of inc, dec and zero? with one, whose arguments are not
//     int-typed, test for int64 operands first and fall back to the builtin
//     itself, which computes the result, or the error, for anything else.
//
// The typed paths produce exactly what the builtins produce: the same
// values, the same overflow and division errors at the same positions, the
// arguments evaluated in the same order. They count no steps and charge no
// memory, as the builtins they replace count none; loops tick once per
// iteration as before, so step counts and the loop limit are unchanged.
// boxInt (value.go) makes boxing small results free in every path.

// noFastPaths turns the typed paths, the dynamic fast paths and unboxed
// loop variables off (the package's tests compare both ways).
var noFastPaths = false

// intFn is an int-typed compiled expression.
type intFn func(fr *frame) (int64, error)

// boolFn is a compiled test.
type boolFn func(fr *frame) (bool, error)

// intCell is an unboxed loop variable, held in its frame slot.
type intCell struct {
	v   int64
	box Value // v as a Value, once a generic read asked for it; nil after a write
}

func (c *intCell) set(v int64) {
	c.v = v
	if c.box != nil {
		c.box = nil
	}
}

// value returns the variable boxed, boxing it once per value written.
func (c *intCell) value() Value {
	if c.box == nil {
		c.box = boxInt(c.v)
	}
	return c.box
}

// cellAt returns the cell of slot s, reusing the one a finished loop left
// there (a cell is reachable from its slot only, see cloneSlots).
func cellAt(fr *frame, s int) *intCell {
	if c, ok := fr.slots[s].(*intCell); ok {
		return c
	}
	c := new(intCell)
	fr.slots[s] = c
	return c
}

// cloneSlots copies a frame's slots for a frame that outlives the loop
// iteration it was taken from (lazy for): its cells are copied too.
func cloneSlots(slots []Value) []Value {
	out := make([]Value, len(slots))
	copy(out, slots)
	for i, v := range out {
		if c, ok := v.(*intCell); ok {
			out[i] = &intCell{v: c.v}
		}
	}
	return out
}

// maxIntSlots bounds the unboxed variables of one loop (their new values
// are computed into an array on the Go stack by recur).
const maxIntSlots = 8

// maxTypedArgs bounds the arguments of a typed n-ary call.
const maxTypedArgs = 8

// isIntSlot reports whether slot s of the function being compiled holds
// an *intCell here.
func (c *compiler) isIntSlot(s int) bool {
	return s < len(c.intSlots) && c.intSlots[s]
}

func (c *compiler) setIntSlot(s int, on bool) {
	for len(c.intSlots) <= s {
		c.intSlots = append(c.intSlots, false)
	}
	c.intSlots[s] = on
}

// Builtins with typed versions. Switches rather than maps: the compiler
// asks for nearly every call, and a switch on these short names costs a
// fraction of a map's hash and probe.
func isIntOp(name string) bool {
	switch name {
	case "+", "-", "*", "inc", "dec", "quot", "rem", "mod", "abs", "max", "min":
		return true
	}
	return false
}

func isCmpOp(name string) bool {
	switch name {
	case "<", "<=", ">", ">=", "=", "==", "not=":
		return true
	}
	return false
}

func isPredOp(name string) bool {
	switch name {
	case "zero?", "pos?", "neg?", "even?", "odd?":
		return true
	}
	return false
}

// intArity reports whether n arguments suit the typed version of op.
func intArity(op string, n int) bool {
	switch op {
	case "inc", "dec", "abs":
		return n == 1
	case "quot", "rem", "mod":
		return n == 2
	case "max", "min":
		return n >= 1 && n <= maxTypedArgs
	case "+", "-", "*":
		return n <= maxTypedArgs
	}
	return false
}

// builtinName returns the name of the core builtin e calls, if it calls one.
func builtinName(e analyze.Expr) (string, []analyze.Expr, bool) {
	call, ok := e.(*analyze.Call)
	if !ok {
		return "", nil, false
	}
	b, ok := call.Fn.(*analyze.Builtin)
	if !ok {
		return "", nil, false
	}
	return b.Name, call.Args, true
}

// maxTypedDepth bounds the nesting of a typed expression: deeper ones are
// left to the generic path, so that checking types costs at most this
// many visits of each node however deep the program nests calls.
const maxTypedDepth = 16

// isIntExpr reports whether e is int-typed when the slots intSlot accepts
// hold unboxed integers.
func isIntExpr(e analyze.Expr, intSlot func(int) bool) bool {
	return isIntExprAt(e, intSlot, 0)
}

func isIntExprAt(e analyze.Expr, intSlot func(int) bool, depth int) bool {
	switch e := e.(type) {
	case *analyze.Const:
		_, ok := e.Value.(int64)
		return ok
	case *analyze.Local:
		return intSlot(int(e.Slot))
	}
	name, args, ok := builtinName(e)
	return ok && isIntCallAt(name, args, intSlot, depth)
}

// isIntCall reports whether a call of the builtin name is int-typed.
func isIntCall(name string, args []analyze.Expr, intSlot func(int) bool) bool {
	return isIntCallAt(name, args, intSlot, 0)
}

func isIntCallAt(name string, args []analyze.Expr, intSlot func(int) bool, depth int) bool {
	if !isIntOp(name) || !intArity(name, len(args)) || depth >= maxTypedDepth {
		return false
	}
	for _, a := range args {
		if !isIntExprAt(a, intSlot, depth+1) {
			return false
		}
	}
	return true
}

// isBoolCall reports whether a call of the builtin name is a typed test
// of int-typed arguments.
func isBoolCall(name string, args []analyze.Expr, intSlot func(int) bool) bool {
	if !(isCmpOp(name) && len(args) == 2 || isPredOp(name) && len(args) == 1) {
		return false
	}
	for _, a := range args {
		if !isIntExprAt(a, intSlot, 1) {
			return false
		}
	}
	return true
}

// operand is an int-typed argument, in the shapes compiled specially.
type operand struct {
	shape uint8
	slot  int   // shapeSlot: the unboxed variable
	k     int64 // shapeConst: the constant
	f     intFn // shapeFn
}

const (
	shapeFn uint8 = iota
	shapeSlot
	shapeConst
)

// operand classifies an int-typed expression; a call of constants that
// folds (see foldInt) is a constant.
func (c *compiler) operand(e analyze.Expr) operand {
	switch e := e.(type) {
	case *analyze.Const:
		return operand{shape: shapeConst, slot: -1, k: e.Value.(int64)}
	case *analyze.Local:
		return operand{shape: shapeSlot, slot: int(e.Slot)}
	}
	if k, ok := foldInt(e, 0); ok {
		return operand{shape: shapeConst, slot: -1, k: k}
	}
	return operand{shape: shapeFn, slot: -1, f: c.intExpr(e)}
}

// fn returns the operand as an intFn, the closure of a constant or a
// variable made only where a shape has no special case.
func (o operand) fn() intFn {
	switch o.shape {
	case shapeConst:
		k := o.k
		return func(*frame) (int64, error) { return k, nil }
	case shapeSlot:
		s := o.slot
		return func(fr *frame) (int64, error) { return fr.slots[s].(*intCell).v, nil }
	}
	return o.f
}

// intExpr compiles an int-typed expression (isIntExpr holds).
func (c *compiler) intExpr(e analyze.Expr) intFn {
	switch e.(type) {
	case *analyze.Const, *analyze.Local:
		return c.operand(e).fn()
	}
	if k, ok := foldInt(e, 0); ok {
		return operand{shape: shapeConst, k: k}.fn()
	}
	name, args, _ := builtinName(e)
	return c.intCall(name, args, c.pos(e.Offset()))
}

// foldInt computes an int-typed call whose arguments are integer
// constants (or such calls), as intCall's code would at run time; ok is
// false for anything else and for a call that would fail (overflow,
// division by zero), which is left to run time to report.
func foldInt(e analyze.Expr, depth int) (int64, bool) {
	if k, ok := e.(*analyze.Const); ok {
		v, ok := k.Value.(int64)
		return v, ok
	}
	name, args, ok := builtinName(e)
	if !ok {
		return 0, false
	}
	return foldIntCall(name, args, depth)
}

// foldIntCall is foldInt of a call of the builtin name.
func foldIntCall(name string, args []analyze.Expr, depth int) (int64, bool) {
	if !isIntOp(name) || !intArity(name, len(args)) || depth >= maxTypedDepth {
		return 0, false
	}
	var vals [maxTypedArgs]int64
	for i, a := range args {
		v, ok := foldInt(a, depth+1)
		if !ok {
			return 0, false
		}
		vals[i] = v
	}
	return applyInt(name, vals[:len(args)])
}

// applyInt applies the typed version of name to vals, as intCall's
// closures do; ok is false where they would fail.
func applyInt(name string, vals []int64) (int64, bool) {
	n := len(vals)
	switch name {
	case "inc":
		return vals[0] + 1, vals[0] != math.MaxInt64
	case "dec":
		return vals[0] - 1, vals[0] != math.MinInt64
	case "abs":
		return absInt(vals[0]), vals[0] != math.MinInt64
	case "quot", "rem", "mod":
		x, y := vals[0], vals[1]
		switch {
		case y == 0:
			return 0, false
		case x == math.MinInt64 && y == -1:
			return 0, name != "quot"
		case name == "quot":
			return x / y, true
		case name == "rem":
			return x % y, true
		}
		m := x % y
		if m != 0 && (m < 0) != (y < 0) {
			m += y
		}
		return m, true
	}
	switch {
	case n == 0 && name == "*":
		return 1, true
	case n == 0:
		return 0, true
	case n == 1 && name == "-":
		return -vals[0], vals[0] != math.MinInt64
	}
	acc := vals[0]
	for _, v := range vals[1:] {
		if name == "max" || name == "min" {
			if (v > acc) == (name == "max") && v != acc {
				acc = v
			}
			continue
		}
		r, over := arith(opCodes[name], acc, v)
		if over {
			return 0, false
		}
		acc = r
	}
	return acc, true
}

// intCall compiles an int-typed call of a builtin (isIntCall holds).
func (c *compiler) intCall(name string, args []analyze.Expr, pos posT) intFn {
	switch name {
	case "inc", "dec":
		return c.intStep(name, args[0], pos)
	case "abs":
		a := c.intExpr(args[0])
		return func(fr *frame) (int64, error) {
			x, err := a(fr)
			if err != nil {
				return 0, err
			}
			if x == math.MinInt64 {
				return 0, at(overflow("abs"), pos)
			}
			return absInt(x), nil
		}
	case "quot", "rem", "mod":
		return c.intDivision(name, args, pos)
	}
	if len(args) == 2 && name != "max" && name != "min" {
		return c.intBinary(name, args, pos)
	}
	return c.intNary(name, args, pos)
}

// intStep compiles inc and dec.
func (c *compiler) intStep(name string, arg analyze.Expr, pos posT) intFn {
	o := c.operand(arg)
	if name == "inc" {
		if o.shape == shapeSlot {
			s := o.slot
			return func(fr *frame) (int64, error) {
				x := fr.slots[s].(*intCell).v
				if x == math.MaxInt64 {
					return 0, at(overflow("inc"), pos)
				}
				return x + 1, nil
			}
		}
		a := o.fn()
		return func(fr *frame) (int64, error) {
			x, err := a(fr)
			if err != nil {
				return 0, err
			}
			if x == math.MaxInt64 {
				return 0, at(overflow("inc"), pos)
			}
			return x + 1, nil
		}
	}
	if o.shape == shapeSlot {
		s := o.slot
		return func(fr *frame) (int64, error) {
			x := fr.slots[s].(*intCell).v
			if x == math.MinInt64 {
				return 0, at(overflow("dec"), pos)
			}
			return x - 1, nil
		}
	}
	a := o.fn()
	return func(fr *frame) (int64, error) {
		x, err := a(fr)
		if err != nil {
			return 0, err
		}
		if x == math.MinInt64 {
			return 0, at(overflow("dec"), pos)
		}
		return x - 1, nil
	}
}

// Operators of the typed binary paths.
const (
	opAdd = iota
	opSub
	opMul
	opLT
	opLE
	opGT
	opGE
	opEq
	opNe
)

var opCodes = map[string]int{"+": opAdd, "-": opSub, "*": opMul,
	"<": opLT, "<=": opLE, ">": opGT, ">=": opGE, "=": opEq, "==": opEq, "not=": opNe}

// arith applies +, - or * and reports overflow, as numAdd, numSub and
// numMul check it.
func arith(op int, x, y int64) (int64, bool) {
	switch op {
	case opAdd:
		r := x + y
		return r, (y > 0 && r < x) || (y < 0 && r > x)
	case opSub:
		r := x - y
		return r, (y > 0 && r > x) || (y < 0 && r < x)
	}
	return mulInt(x, y)
}

// cmpInt applies a comparison to integers.
func cmpInt(op int, x, y int64) bool {
	switch op {
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
	}
	return x != y
}

// intBinary compiles (+ a b), (- a b) and (* a b).
func (c *compiler) intBinary(name string, args []analyze.Expr, pos posT) intFn {
	op := opCodes[name]
	x, y := c.operand(args[0]), c.operand(args[1])
	switch {
	case op == opAdd && x.shape == shapeSlot && y.shape == shapeSlot:
		s, t := x.slot, y.slot
		return func(fr *frame) (int64, error) {
			a, b := fr.slots[s].(*intCell).v, fr.slots[t].(*intCell).v
			r := a + b
			if (b > 0 && r < a) || (b < 0 && r > a) {
				return 0, at(overflow("+"), pos)
			}
			return r, nil
		}
	case x.shape == shapeSlot && y.shape == shapeConst:
		s, k := x.slot, y.k
		return func(fr *frame) (int64, error) {
			r, over := arith(op, fr.slots[s].(*intCell).v, k)
			if over {
				return 0, at(overflow(name), pos)
			}
			return r, nil
		}
	case x.shape == shapeSlot && y.shape == shapeSlot:
		s, t := x.slot, y.slot
		return func(fr *frame) (int64, error) {
			r, over := arith(op, fr.slots[s].(*intCell).v, fr.slots[t].(*intCell).v)
			if over {
				return 0, at(overflow(name), pos)
			}
			return r, nil
		}
	}
	a, b := x.fn(), y.fn()
	return func(fr *frame) (int64, error) {
		u, err := a(fr)
		if err != nil {
			return 0, err
		}
		v, err := b(fr)
		if err != nil {
			return 0, err
		}
		r, over := arith(op, u, v)
		if over {
			return 0, at(overflow(name), pos)
		}
		return r, nil
	}
}

// intNary compiles +, - and * with any number of arguments, max and min.
// All the arguments are evaluated before any is combined, as a builtin
// receives them.
func (c *compiler) intNary(name string, args []analyze.Expr, pos posT) intFn {
	fs := make([]intFn, len(args))
	for i, a := range args {
		fs[i] = c.intExpr(a)
	}
	n := len(fs)
	switch {
	case n == 0 && name == "*":
		return func(*frame) (int64, error) { return 1, nil }
	case n == 0:
		return func(*frame) (int64, error) { return 0, nil }
	case n == 1 && name == "-":
		a := fs[0]
		return func(fr *frame) (int64, error) {
			x, err := a(fr)
			if err != nil {
				return 0, err
			}
			if x == math.MinInt64 {
				return 0, at(overflow("-"), pos)
			}
			return -x, nil
		}
	}
	op, combine := opCodes[name], name != "max" && name != "min"
	isMax := name == "max"
	return func(fr *frame) (int64, error) {
		var vals [maxTypedArgs]int64
		for i, f := range fs {
			v, err := f(fr)
			if err != nil {
				return 0, err
			}
			vals[i] = v
		}
		acc := vals[0]
		for _, v := range vals[1:n] {
			if !combine {
				if (v > acc) == isMax && v != acc {
					acc = v
				}
				continue
			}
			r, over := arith(op, acc, v)
			if over {
				return 0, at(overflow(name), pos)
			}
			acc = r
		}
		return acc, nil
	}
}

// intDivision compiles quot, rem and mod of integers, as intDivision.
func (c *compiler) intDivision(name string, args []analyze.Expr, pos posT) intFn {
	a, b := c.intExpr(args[0]), c.intExpr(args[1])
	return func(fr *frame) (int64, error) {
		x, err := a(fr)
		if err != nil {
			return 0, err
		}
		y, err := b(fr)
		if err != nil {
			return 0, err
		}
		if y == 0 {
			return 0, at(divideByZero(), pos)
		}
		if x == math.MinInt64 && y == -1 {
			if name == "quot" {
				return 0, at(overflow(name), pos)
			}
			return 0, nil
		}
		switch name {
		case "quot":
			return x / y, nil
		case "rem":
			return x % y, nil
		}
		m := x % y
		if m != 0 && (m < 0) != (y < 0) {
			m += y
		}
		return m, nil
	}
}

// boolCall compiles a typed test (isBoolCall holds).
func (c *compiler) boolCall(name string, args []analyze.Expr) boolFn {
	if isPredOp(name) {
		a := c.intExpr(args[0])
		var p func(int64) bool
		switch name {
		case "zero?":
			p = func(x int64) bool { return x == 0 }
		case "pos?":
			p = func(x int64) bool { return x > 0 }
		case "neg?":
			p = func(x int64) bool { return x < 0 }
		case "even?":
			p = func(x int64) bool { return x%2 == 0 }
		default:
			p = func(x int64) bool { return x%2 != 0 }
		}
		return func(fr *frame) (bool, error) {
			x, err := a(fr)
			if err != nil {
				return false, err
			}
			return p(x), nil
		}
	}
	op := opCodes[name]
	x, y := c.operand(args[0]), c.operand(args[1])
	switch {
	case x.shape == shapeSlot && y.shape == shapeConst:
		s, k := x.slot, y.k
		return func(fr *frame) (bool, error) { return cmpInt(op, fr.slots[s].(*intCell).v, k), nil }
	case x.shape == shapeSlot && y.shape == shapeSlot:
		s, t := x.slot, y.slot
		return func(fr *frame) (bool, error) {
			return cmpInt(op, fr.slots[s].(*intCell).v, fr.slots[t].(*intCell).v), nil
		}
	}
	a, b := x.fn(), y.fn()
	return func(fr *frame) (bool, error) {
		u, err := a(fr)
		if err != nil {
			return false, err
		}
		v, err := b(fr)
		if err != nil {
			return false, err
		}
		return cmpInt(op, u, v), nil
	}
}

// test compiles the test of an if: a typed test when it is one, the
// dynamic fast path of a comparison, or nil (evaluate and check truth).
func (c *compiler) test(e analyze.Expr) boolFn {
	name, args, ok := builtinName(e)
	if !ok || noFastPaths {
		return nil
	}
	return c.testCall(name, args, c.pos(e.Offset()))
}

func (c *compiler) testCall(name string, args []analyze.Expr, pos posT) boolFn {
	if isBoolCall(name, args, c.isIntSlot) {
		return c.boolCall(name, args)
	}
	if !isCmpOp(name) || len(args) != 2 || name == "==" {
		return nil
	}
	b, ok := builtins[name].(*Builtin)
	if !ok {
		return nil
	}
	op, fn := opCodes[name], b.fn
	ops := c.callArgs(args)
	a0, a1 := ops[0], ops[1]
	if f0, f1 := a0.fn, a1.fn; f0 != nil && f1 != nil {
		return func(fr *frame) (bool, error) {
			x, err := f0(fr)
			if err != nil {
				return false, err
			}
			y, err := f1(fr)
			if err != nil {
				return false, err
			}
			if u, ok := x.(int64); ok {
				if v, ok := y.(int64); ok {
					return cmpInt(op, u, v), nil
				}
			}
			r, err := callBuiltin2(fr.th, fn, x, y, pos)
			if err != nil {
				return false, err
			}
			return r != nil && r != false, nil
		}
	}
	return func(fr *frame) (bool, error) {
		x, err := a0.eval(fr)
		if err != nil {
			return false, err
		}
		y, err := a1.eval(fr)
		if err != nil {
			return false, err
		}
		if u, ok := x.(int64); ok {
			if v, ok := y.(int64); ok {
				return cmpInt(op, u, v), nil
			}
		}
		r, err := callBuiltin2(fr.th, fn, x, y, pos)
		if err != nil {
			return false, err
		}
		return r != nil && r != false, nil
	}
}

// fastCall compiles a call of a builtin through a typed or dynamic fast
// path, or returns nil. The arity was checked.
func (c *compiler) fastCall(name string, b *Builtin, args []analyze.Expr, off int32) evalFn {
	if noFastPaths {
		return nil
	}
	intCall := isIntCall(name, args, c.isIntSlot)
	if intCall {
		if k, ok := foldIntCall(name, args, 0); ok {
			return c.constant(boxInt(k))
		}
	}
	pos := c.pos(off)
	if intCall {
		f := c.intCall(name, args, pos)
		return func(fr *frame) (Value, error) {
			v, err := f(fr)
			if err != nil {
				return nil, err
			}
			return boxInt(v), nil
		}
	}
	if isBoolCall(name, args, c.isIntSlot) {
		f := c.boolCall(name, args)
		return func(fr *frame) (Value, error) {
			v, err := f(fr)
			if err != nil {
				return nil, err
			}
			return v, nil
		}
	}
	fn := b.fn
	switch {
	case len(args) == 1 && (name == "inc" || name == "dec"):
		a := c.expr(args[0])
		d := int64(1)
		if name == "dec" {
			d = -1
		}
		return func(fr *frame) (Value, error) {
			x, err := a(fr)
			if err != nil {
				return nil, err
			}
			if u, ok := x.(int64); ok {
				r := u + d
				if (d > 0) == (r < u) {
					return nil, at(overflow(name), pos)
				}
				return boxInt(r), nil
			}
			return callBuiltin1(fr.th, fn, x, pos)
		}
	case len(args) == 1 && name == "zero?":
		a := c.expr(args[0])
		return func(fr *frame) (Value, error) {
			x, err := a(fr)
			if err != nil {
				return nil, err
			}
			if u, ok := x.(int64); ok {
				return u == 0, nil
			}
			return callBuiltin1(fr.th, fn, x, pos)
		}
	case len(args) == 2 && (name == "+" || name == "-" || name == "*"):
		op := opCodes[name]
		ops := c.callArgs(args)
		a0, a1 := ops[0], ops[1]
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
				if u, ok := x.(int64); ok {
					if v, ok := y.(int64); ok {
						r, over := arith(op, u, v)
						if over {
							return nil, at(overflow(name), pos)
						}
						return boxInt(r), nil
					}
				}
				return callBuiltin2(fr.th, fn, x, y, pos)
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
			if u, ok := x.(int64); ok {
				if v, ok := y.(int64); ok {
					r, over := arith(op, u, v)
					if over {
						return nil, at(overflow(name), pos)
					}
					return boxInt(r), nil
				}
			}
			return callBuiltin2(fr.th, fn, x, y, pos)
		}
	case len(args) == 2 && isCmpOp(name) && name != "==":
		t := c.testCall(name, args, pos)
		return func(fr *frame) (Value, error) {
			v, err := t(fr)
			if err != nil {
				return nil, err
			}
			return v, nil
		}
	}
	return nil
}

// callBuiltin1 and callBuiltin2 call a builtin as a compiled call does.
func callBuiltin1(th *thread, fn builtinFn, x Value, pos posT) (Value, error) {
	buf, mark := th.stack.alloc(1)
	buf[0] = x
	v, err := fn(th, buf)
	th.stack.release(buf, mark)
	if err != nil {
		return nil, at(err, pos)
	}
	return v, nil
}

func callBuiltin2(th *thread, fn builtinFn, x, y Value, pos posT) (Value, error) {
	buf, mark := th.stack.alloc(2)
	buf[0], buf[1] = x, y
	v, err := fn(th, buf)
	th.stack.release(buf, mark)
	if err != nil {
		return nil, at(err, pos)
	}
	return v, nil
}

// cellRead compiles a generic read of an unboxed variable.
func (c *compiler) cellRead(s int) evalFn {
	for len(c.cellReads) <= s {
		c.cellReads = append(c.cellReads, nil)
	}
	if c.cellReads[s] == nil {
		c.cellReads[s] = func(fr *frame) (Value, error) { return fr.slots[s].(*intCell).value(), nil }
	}
	return c.cellReads[s]
}
