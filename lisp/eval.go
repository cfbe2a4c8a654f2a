package lisp

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/ptc-go/ptc/internal/textutil"
)

// evalFn is a compiled expression: the analyzer's tree is turned once into a
// tree of Go closures, so evaluation does no dispatch on node types.
type evalFn func(fr *frame) (Value, error)

// frame holds the locals of one function invocation (or of the top level).
// Frames live in a per-thread pool and slots on a per-thread value stack, so
// a call allocates nothing on the heap.
type frame struct {
	slots    []Value
	captured []Value
	self     *Closure
	arity    *arityCode
	th       *thread
}

// recurMarker is returned by a recur in tail position; the enclosing loop or
// function sees it and iterates. It never escapes into program values.
var recurMarker Value = &recurSignal{}

type recurSignal struct{ _ int } // not zero-sized: zero-sized values may share an address

// thread is the state of one goroutine evaluating a program: the main
// evaluation, or a pmap/pcalls branch.
type thread struct {
	run     *runState
	globals *globalEnv
	stack   valueStack
	frames  []*frame
	fp      int
	// depth is the deepest nesting this thread reached in its run: each
	// new level is charged to the memory budget once per run, also when a
	// reused thread already has the frame (see Program.takeThread).
	depth int
	// steps counts evaluation steps; at nextCheck the limits and the
	// context are checked (cheap inline counter, rare slow path).
	steps     int64
	nextCheck int64
	flushed   int64    // steps already added to the run's total
	mem       int64    // bytes charged but not yet added to the run's total
	out       []string // println lines of this thread
	open      []byte   // the line print left open (partial), not yet in out
	partial   bool     // the last output line was started by print and is still open
	// maxFrames is how many nested calls this thread may make: the depth
	// limit minus the depth of the call that started it (a pmap branch
	// continues its caller's recursion, it does not start a fresh one).
	maxFrames int
	// printing is set while printf formats its output, which the run's
	// Redaction applies to (str and format build values, and do not).
	printing bool
	// branch is set for pmap/pcalls branches, where return/fail are errors.
	branch string
	// capturing counts the with-out-str bodies running: their output
	// becomes a string, bounded by the memory limit, not the output limit.
	capturing int
	// mathCtx is the with-precision in force (nil: BigDecimals exact);
	// branches inherit it, as Clojure's binding conveyance gives pmap it.
	mathCtx *mathContext
	// tx is the transaction (dosync) running on this thread, if any
	// (stm.go); other threads of the run are outside it.
	tx *transaction
	// action is the agent whose action this thread runs, and held the
	// sends that action made, which go out when it ends (agents.go).
	action *Cell
	held   []agentAction
}

// threadBlock is a new thread with what every run needs at once (its first
// frame, the first chunk of its value stack), made in one allocation.
type threadBlock struct {
	th     thread
	frame  frame
	frames [4]*frame
	chunks [1][]Value
	values [firstStackChunk]Value
}

// smallThreadBlock is a threadBlock for a program that calls no function
// of its own and binds few locals (see compile): its stack stays shallow,
// and a smaller block is cheaper to allocate and clear. Should it need more
// (nested calls of many arguments), the stack grows as any does.
type smallThreadBlock struct {
	th     thread
	frame  frame
	frames [2]*frame
	chunks [1][]Value
	values [smallStackChunk]Value
}

func newThread(run *runState, globals *globalEnv) *thread {
	b := &threadBlock{}
	th := initThread(&b.th, &b.frame, b.frames[:], &b.chunks, b.values[:])
	th.run, th.globals, th.maxFrames = run, globals, run.limits.MaxDepth
	return th
}

// initThread makes th ready with its first frame, frame list and stack
// chunk, as a thread kept by Program.keepThread is: with no run yet.
func initThread(th *thread, fr *frame, frames []*frame, chunks *[1][]Value, values []Value) *thread {
	th.nextCheck = checkInterval
	fr.th = th
	frames[0] = fr
	th.frames = frames[:1]
	chunks[0] = values
	th.stack.chunks = chunks[:]
	th.stack.top = values
	return th
}

// What the memory budget is charged for the evaluator's own structures:
// a thread (its first value-stack chunk included) and a level of call
// nesting (a frame and the Go stack it takes). Without these, recursion
// through pmap could fill memory with stacks and threads that no value
// accounts for.
const (
	threadBytes = 2 << 10
	frameBytes  = 1 << 10
)

// branchThread returns a thread for a pmap/pcalls branch started by th: it
// continues th's call depth, sees th's defs (its own are discarded), and
// shares the run's budgets. Threads are reused within a run, so a program
// that forks in a loop is charged for the threads it needs at once, not
// for every fork.
func (th *thread) branchThread(name string) (*thread, error) {
	r := th.run
	r.poolMu.Lock()
	var bt *thread
	if n := len(r.pool); n > 0 {
		bt = r.pool[n-1]
		r.pool = r.pool[:n-1]
	}
	r.poolMu.Unlock()
	if bt == nil {
		if err := th.chargeString(threadBytes); err != nil {
			return nil, err
		}
		bt = newThread(r, nil)
	}
	bt.globals = &globalEnv{base: th.globals.base, parent: th.globals}
	bt.maxFrames = th.maxFrames - th.fp
	bt.branch, bt.capturing, bt.mathCtx = name, th.capturing, th.mathCtx
	return bt, nil
}

// release returns a branch thread to the run's pool, adding what it
// counted locally to the run's totals.
func (th *thread) release() {
	r := th.run
	r.steps.Add(th.steps - th.flushed)
	r.mem.Add(th.mem)
	th.popAll()
	th.flushed, th.mem = th.steps, 0
	th.globals, th.out, th.open, th.partial, th.printing, th.capturing, th.mathCtx = nil, nil, nil, false, false, 0, nil
	r.poolMu.Lock()
	r.pool = append(r.pool, th)
	r.poolMu.Unlock()
}

// popAll pops every frame: a panic recovered in the thread may have left
// frames pushed.
func (th *thread) popAll() {
	for i := range th.frames[:th.fp] {
		th.frames[i].slots, th.frames[i].captured, th.frames[i].self, th.frames[i].arity = nil, nil, nil, nil
	}
	th.fp = 0
	th.stack.reset(stackMark{})
}

// keptFrames is how many frames a thread kept for the next run of its
// program holds on to at most (with its first value-stack chunk): a deep
// run's extra frames and chunks are dropped.
const (
	keptFrames      = 64
	keptStackValues = 1024
)

// reset prepares a thread of a finished run for the next run of the same
// program: its frames and first stack chunk are kept (allocating them is
// most of a short run's cost), everything else starts afresh. The stack is
// cleared so that a kept thread does not hold the last run's values.
func (th *thread) reset() {
	th.popAll()
	if len(th.frames) > keptFrames {
		clear(th.frames[keptFrames:])
		th.frames = th.frames[:keptFrames]
	}
	// The first chunk, the thread's own, is always kept.
	c, kept, n := th.stack.chunks, 0, 0
	for kept < len(c) && n+len(c[kept]) <= keptStackValues {
		n += len(c[kept])
		clearValues(c[kept])
		kept++
	}
	clear(c[kept:])
	th.stack.chunks = c[:kept]
	th.run, th.globals = nil, nil
	th.depth, th.steps, th.nextCheck, th.flushed, th.mem = 0, 0, checkInterval, 0, 0
	th.out, th.open, th.partial, th.printing, th.branch, th.capturing, th.mathCtx = nil, nil, false, false, "", 0, nil
}

// clearValues sets vs to nil. Most slots of a short run's stack were never
// used: testing them is cheaper than clearing them all, which during a
// garbage collection costs a write barrier per slot.
func clearValues(vs []Value) {
	for i := range vs {
		if vs[i] != nil {
			vs[i] = nil
		}
	}
}

const checkInterval = 1024

// tick counts one step and, every checkInterval steps, checks cancellation,
// the deadline and the step budget.
func (th *thread) tick() error {
	if !accounting {
		return nil
	}
	th.steps++
	if th.steps < th.nextCheck {
		return nil
	}
	return th.checkpoint()
}

// ticks counts n steps at once (bulk builtins).
func (th *thread) ticks(n int) error {
	if !accounting {
		return nil
	}
	th.steps += int64(n)
	if th.steps < th.nextCheck {
		return nil
	}
	return th.checkpoint()
}

func (th *thread) checkpoint() error {
	th.nextCheck = th.steps + checkInterval
	r := th.run
	total := r.steps.Add(th.steps - th.flushed)
	th.flushed = th.steps
	if err := r.ctx.Err(); err != nil {
		return r.contextError(err)
	}
	if r.pastDeadline() {
		return r.timeoutError()
	}
	if r.limits.MaxSteps > 0 && total > r.limits.MaxSteps {
		return errorf(StepLimitExceeded,
			"the program took more than %d evaluation steps: process less data per turn or simplify the computation", r.limits.MaxSteps)
	}
	return nil
}

// valueSize is what one value slot costs in the allocation budget.
const valueSize = 16

// maxCharge bounds one charge (2^40 values, 16 TiB), even without a memory limit.
const maxCharge = 1 << 40

// charge accounts for n values a builtin or a literal is about to allocate.
// The budget counts what programs build (not host data), cumulatively, so
// a runaway such as (range 100000000) fails before it allocates. Charges
// accumulate per thread and reach the run's shared counter in batches, so
// the common small charge costs an add and a compare.
func (th *thread) charge(n int64) error {
	if !accounting || n <= 0 {
		return nil
	}
	if n > maxCharge {
		// Checked first: n * valueSize could overflow.
		return errorf(MemoryExceeded, "the program tried to build %d values at once, more than any memory holds: work on smaller pieces (take a part, filter first)", n)
	}
	th.mem += n * valueSize
	if th.mem < memBatch {
		return nil
	}
	return th.flushMem()
}

// chargeString accounts for a string of n bytes.
func (th *thread) chargeString(n int) error {
	if !accounting {
		return nil
	}
	th.mem += int64(n)
	if th.mem < memBatch {
		return nil
	}
	return th.flushMem()
}

// vector charges for out and returns it as a vector.
func (th *thread) vector(out []Value) (Value, error) {
	if err := th.charge(int64(len(out))); err != nil {
		return nil, err
	}
	return NewVector(out), nil
}

// memBatch is how many bytes a thread charges before updating the run's total.
const memBatch = 64 << 10

func (th *thread) flushMem() error {
	r := th.run
	total := r.mem.Add(th.mem)
	th.mem = 0
	if r.limits.MaxMemory > 0 && total > r.limits.MaxMemory {
		return memoryError(r.limits.MaxMemory)
	}
	return nil
}

func memoryError(limit int64) *Error {
	return errorf(MemoryExceeded, "the program built more than %s of data: work on smaller pieces (filter first, take a sample, aggregate)", textutil.Bytes(limit))
}

// valueStack hands out frame slots and argument buffers in LIFO order.
// Chunks are kept for reuse, so steady-state calls do not allocate.
type valueStack struct {
	top    []Value // chunks[cur]
	chunks [][]Value
	cur    int
	sp     int
}

type stackMark struct{ cur, sp int }

// Chunks start small (most programs need a few dozen slots) and double, so a
// short run allocates little and a deep one few times. The first chunk comes
// with the thread (threadBlock).
const (
	firstStackChunk = 32
	smallStackChunk = 8
	maxStackChunk   = 8192
)

// alloc hands out n slots. Its common case, room in the current chunk, is
// small enough to be inlined into the evaluator's calls; grow moves on to
// the next chunk.
func (s *valueStack) alloc(n int) ([]Value, stackMark) {
	m := stackMark{s.cur, s.sp}
	if end := s.sp + n; end <= len(s.top) {
		s.sp = end
		return s.top[m.sp:end:end], m
	}
	return s.grow(n, m)
}

// grow is kept out of line, so that alloc is inlined.
//
//go:noinline
func (s *valueStack) grow(n int, m stackMark) ([]Value, stackMark) {
	s.cur++
	if s.cur == len(s.chunks) || len(s.chunks[s.cur]) < n {
		c := make([]Value, max(min(2*len(s.chunks[s.cur-1]), maxStackChunk), n))
		if s.cur == len(s.chunks) {
			s.chunks = append(s.chunks, c)
		} else {
			s.chunks[s.cur] = c
		}
	}
	s.top, s.sp = s.chunks[s.cur], n
	return s.top[:n:n], m
}

// mark is where the stack is now, for reset.
func (s *valueStack) mark() stackMark { return stackMark{s.cur, s.sp} }

// reset pops everything pushed since m.
func (s *valueStack) reset(m stackMark) {
	if m.cur != s.cur {
		s.top = s.chunks[m.cur]
	}
	s.cur, s.sp = m.cur, m.sp
}

// release pops sl. The slots are not cleared (clearing pointer slots costs
// write barriers on every call); they hold dead values until reused, at most
// until the run ends. Every slot is written before it is read: arguments are
// copied in, and the analyzer binds locals before their use.
func (s *valueStack) release(_ []Value, m stackMark) { s.reset(m) }

func (th *thread) pushFrame() (*frame, error) {
	if th.fp >= th.maxFrames {
		return nil, errorf(DepthExceeded,
			"call depth exceeded %d nested calls: use loop/recur or reduce instead of deep recursion", th.run.limits.MaxDepth)
	}
	if th.fp == th.depth {
		// A new level of nesting costs memory beyond the frame: the Go
		// stack of the evaluator grows by about a kilobyte per call.
		if err := th.chargeString(frameBytes); err != nil {
			return nil, err
		}
		th.depth++
		if th.fp == len(th.frames) {
			th.frames = append(th.frames, &frame{th: th})
		}
	}
	fr := th.frames[th.fp]
	th.fp++
	return fr, nil
}

func (th *thread) popFrame(fr *frame) {
	fr.slots, fr.captured, fr.self, fr.arity = nil, nil, nil, nil
	th.fp--
}

// call applies any callable value to args. args is only valid during the
// call: callees that keep the arguments must copy them.
func (th *thread) call(f Value, args []Value) (Value, error) {
	switch f := f.(type) {
	case *Builtin:
		if err := f.checkArity(len(args)); err != nil {
			return nil, err
		}
		return f.fn(th, args)
	case *Closure:
		return th.callClosure(f, args)
	case Keyword:
		v, err := callKeyword(f, args)
		if err == nil && len(args) > 0 {
			th.noteKeywordCall(f, args[0])
		}
		return v, err
	case Symbol:
		return callSymbol(f, args)
	case *Map:
		if len(args) < 1 || len(args) > 2 {
			return nil, errorf(ArityError, "a map called as a function takes a key and an optional default, got %d argument(s)", len(args))
		}
		if v, ok := f.Get(args[0]); ok {
			return v, nil
		}
		// A sorted-map-by finds a key its comparator calls equal.
		if k, found, err := th.sortedKey(f, args[0]); err != nil || found {
			if err != nil {
				return nil, err
			}
			v, _ := f.getExact(k)
			return v, nil
		}
		if len(args) == 2 {
			return args[1], nil
		}
		return nil, nil
	case *Set:
		if len(args) != 1 {
			return nil, errorf(ArityError, "a set called as a function takes exactly one argument, got %d", len(args))
		}
		if f.Has(args[0]) {
			return args[0], nil
		}
		// A sorted-set-by holds the element its comparator calls equal
		// (Clojure returns that stored element).
		if k, found, err := th.sortedKey(f, args[0]); err != nil || found {
			return k, err
		}
		return nil, nil
	case *Var:
		v, ok := th.globals.lookup(f.Name)
		if !ok {
			return nil, errorf(UnboundVar, "var #'%s is not defined", f.Name)
		}
		return th.call(v, args)
	case *Vector:
		if f.isVectorType() { // a list or a queue is not a function in Clojure
			return callVector(f, args)
		}
	case *transientVector:
		if len(args) == 1 {
			if i, ok := args[0].(int64); ok && i >= 0 && i < int64(len(f.items)) {
				return f.row(int(i)), nil
			}
		}
		return callVector(f.view(), args) // the error it gives
	case *Cell:
		if f.kind == transientCell {
			return th.callTransient(f, args)
		}
	}
	return nil, errorf(NotCallable, "%s is not a function", describe(f))
}

// callSymbol is ('a m): as in Clojure a symbol looks itself up in a map
// or a set, exactly (no keyword/string fallback: it is neither).
func callSymbol(s Symbol, args []Value) (Value, error) {
	if len(args) < 1 || len(args) > 2 {
		return nil, errorf(ArityError, "a symbol called as a function takes a map and an optional default, got %d argument(s)", len(args))
	}
	switch c := args[0].(type) {
	case *Map:
		if v, ok := c.getExact(s); ok {
			return v, nil
		}
	case *Set:
		if c.Has(s) {
			return s, nil
		}
	}
	if len(args) == 2 {
		return args[1], nil
	}
	return nil, nil
}

// callVector is (v i): as in Clojure a vector is a function of its index,
// and an index outside it is an error (unlike get and nth, which give nil).
func callVector(v *Vector, args []Value) (Value, error) {
	if len(args) != 1 {
		return nil, errorf(ArityError, "a vector called as a function takes exactly one index, got %d argument(s): use (get v i default) for a default", len(args))
	}
	i, ok := args[0].(int64)
	if !ok {
		return nil, errorf(TypeError, "a vector called as a function takes an integer index, got %s", describe(args[0]))
	}
	if i < 0 || i >= int64(v.Len()) {
		return nil, classError(InvalidArgument, classIndexOutOfBound, "index %d is out of bounds for a vector of %d element(s): use (get v i) for nil outside it", i, v.Len())
	}
	return v.items[i], nil
}

func callKeyword(k Keyword, args []Value) (Value, error) {
	if len(args) < 1 || len(args) > 2 {
		return nil, errorf(ArityError, "keyword %s called as a function takes a map and an optional default, got %d argument(s)", k, len(args))
	}
	var def Value
	if len(args) == 2 {
		def = args[1]
	}
	switch m := args[0].(type) {
	case *Map:
		if v, ok := m.lookupNamed(string(k), true, nil, nil, nil); ok {
			return v, nil
		}
		return def, nil
	case nil:
		return def, nil
	case *Set:
		if m.Has(k) {
			return k, nil
		}
		return def, nil
	case *Cell:
		// A transient map or set looks its keys up, as in Clojure.
		if s := m.load(); m.kind == transientCell && !s.dead {
			return callKeyword(k, []Value{s.val, def})
		}
		if m.kind == utilCell { // a java.util map or set, as Clojure's get reads it
			if v := utilValue(m); !isVectorValue(v) {
				return callKeyword(k, []Value{v, def})
			}
		}
	}
	// Anything else has no keys: nil or the default, as Clojure (the
	// reference refused; LLMs write Clojure).
	return def, nil
}

// callClosure runs a user function.
func (th *thread) callClosure(c *Closure, args []Value) (Value, error) {
	ar := c.proto.arityFor(len(args))
	if ar == nil {
		return nil, c.proto.arityError(len(args))
	}
	if err := th.tick(); err != nil {
		return nil, err
	}
	fr, err := th.pushFrame()
	if err != nil {
		return nil, err
	}
	slots, mark := th.stack.alloc(ar.nslots)
	copy(slots, args[:ar.nparams])
	if ar.variadic {
		slots[ar.nparams] = nil
		if rest := len(args) - ar.nparams; rest > 0 {
			if err := th.charge(int64(rest)); err != nil {
				th.stack.release(slots, mark)
				th.popFrame(fr)
				return nil, err
			}
			// A seq, as Clojure's rest arguments are: seq? true,
			// conj in front, keyword arguments to a map pattern.
			slots[ar.nparams] = newSeqView(append([]Value(nil), args[ar.nparams:]...))
		}
	}
	fr.slots, fr.captured, fr.self, fr.arity = slots, c.captured, c, ar
	v, err := th.runArity(fr, ar)
	th.stack.release(slots, mark)
	th.popFrame(fr)
	return v, err
}

// runArity destructures the parameters and runs the body, iterating while
// the body recurs.
func (th *thread) runArity(fr *frame, ar *arityCode) (Value, error) {
	if err := ar.bindParams(fr); err != nil {
		return nil, err
	}
	limit := th.run.limits.MaxLoopIterations
	for n := 0; ; n++ {
		v, err := ar.body(fr)
		if err != nil {
			return nil, err
		}
		if v != recurMarker {
			return v, nil
		}
		if n >= limit {
			return nil, loopLimitError(limit)
		}
		if err := th.tick(); err != nil {
			return nil, err
		}
		if err := ar.bindParams(fr); err != nil {
			return nil, err
		}
	}
}

func loopLimitError(limit int) *Error {
	return errorf(LoopLimitExceeded,
		"loop exceeded %d iterations (recur): check the exit condition, or process the data with reduce/map/filter", limit)
}

// Closure is a function value created by fn, defn or #().
type Closure struct {
	proto    *fnProto
	captured []Value
}

// Name returns the function's name ("" for anonymous functions).
func (c *Closure) Name() string { return c.proto.name }

func (c *Closure) describeParams() string {
	if c.proto == nil { // a zero Closure, made by a Go caller
		return ""
	}
	if c.proto.name != "" {
		return c.proto.name
	}
	return c.proto.params
}

type fnProto struct {
	name     string
	params   string // printed parameter lists, for #fn[...]
	fixed    []*arityCode
	variadic *arityCode
}

type arityCode struct {
	nparams  int
	variadic bool
	nslots   int
	// binds destructure parameters in place (nil entries: plain names).
	binds []bindFn
	body  evalFn
	// linearAcc: how the first parameter is used (see transient.go).
	linearAcc accMode
}

func (ar *arityCode) bindParams(fr *frame) error {
	for i, b := range ar.binds {
		if b != nil {
			if err := b(fr, fr.slots[i]); err != nil {
				return err
			}
		}
	}
	return nil
}

func (p *fnProto) arityFor(n int) *arityCode {
	if n < len(p.fixed) && p.fixed[n] != nil {
		return p.fixed[n]
	}
	if p.variadic != nil && n >= p.variadic.nparams {
		return p.variadic
	}
	return nil
}

func (p *fnProto) arityError(n int) *Error {
	var want []string
	for i, a := range p.fixed {
		if a != nil {
			want = append(want, strconv.Itoa(i))
		}
	}
	if p.variadic != nil {
		want = append(want, strconv.Itoa(p.variadic.nparams)+" or more")
	}
	name := p.name
	if name == "" {
		name = "anonymous function"
	}
	return errorf(arityMismatch, "%s expects %s argument(s), got %d", name, strings.Join(want, " or "), n)
}

// Builtin is a function implemented in Go: a builtin of the language, or a
// function built at run time by one (partial, comp, where, ...).
type Builtin struct {
	Name    string
	MinArgs int
	MaxArgs int // -1: any number
	fn      func(th *thread, args []Value) (Value, error)
	// pred, when set, is the same function as a Go predicate that cannot
	// fail (where and friends), called directly by filter and the like.
	pred func(Value) bool
	// field, when set, says that pred reads a field of a map (nil of
	// anything else) and tests it: a one-field where, which a fused
	// pipeline tests inline.
	field *fieldTest
	// xf, when set, makes the builtin a transducer ((map f), (filter p),
	// cat, their comp): into, transduce, sequence and eduction run its
	// stages natively; called with a reducing function it returns one.
	xf *transducer
	// multi, when set, makes the builtin a multimethod (multi.go).
	multi *multiFn
	// flags are the compiler's flags of the builtin (flaggedCalls).
	flags uint8
}

func (b *Builtin) checkArity(n int) error {
	if n < b.MinArgs || (b.MaxArgs >= 0 && n > b.MaxArgs) {
		return b.arityError(n)
	}
	return nil
}

func (b *Builtin) arityError(n int) *Error {
	var want string
	switch {
	case b.MaxArgs < 0:
		want = strconv.Itoa(b.MinArgs) + " or more"
	case b.MinArgs == b.MaxArgs:
		want = strconv.Itoa(b.MinArgs)
	case b.MaxArgs == b.MinArgs+1:
		want = strconv.Itoa(b.MinArgs) + " or " + strconv.Itoa(b.MaxArgs)
	default:
		want = strconv.Itoa(b.MinArgs) + " to " + strconv.Itoa(b.MaxArgs)
	}
	return errorf(ArityError, "%s expects %s argument(s), got %d", b.Name, want, n)
}

// globalEnv is the user namespace as one thread sees it: the namespace the
// run started with, plus the defs of this run. pmap branches get a child env
// whose defs are discarded when the branch ends.
type globalEnv struct {
	base   *Namespace
	parent *globalEnv
	defs   map[string]Value
	order  []string // def order, for reporting
	// bound marks the values of a (binding [...] ...): what names mean
	// while its body runs; defs go to the environment below it.
	bound bool
}

func (g *globalEnv) lookup(name string) (Value, bool) {
	for e := g; e != nil; e = e.parent {
		if v, ok := e.defs[name]; ok {
			return v, true
		}
	}
	return g.base.Get(name)
}

func (g *globalEnv) define(name string, v Value) {
	for g.bound {
		g = g.parent
	}
	if g.defs == nil {
		g.defs = map[string]Value{}
	}
	if _, ok := g.defs[name]; !ok {
		g.order = append(g.order, name)
	}
	g.defs[name] = v
}

func (r *runState) timeoutError() *Error {
	return errorf(Timeout, "the program ran longer than its %v limit: process less data, or split the work across turns", r.limits.Timeout)
}

// contextError converts an error of the caller's context (or of the tool
// context, which the run's deadline cancels) into the run's error.
func (r *runState) contextError(err error) *Error {
	if r.deadlineHit.Load() || r.pastDeadline() {
		return r.timeoutError()
	}
	return callerError(err)
}

// callerError is the error of an operation the caller's context ended.
func callerError(err error) *Error {
	if errors.Is(err, context.DeadlineExceeded) {
		return &Error{Kind: Timeout, Message: "the caller's deadline passed", Err: err}
	}
	return &Error{Kind: Cancelled, Message: "the run was cancelled", Err: err}
}

// pastDeadline reports whether the run's clock is past its deadline. The
// clock stands still while the program waits on an untimed tool.
func (r *runState) pastDeadline() bool {
	d := r.deadline.Load()
	return d != 0 && r.paused.Load() == 0 && time.Now().UnixNano() >= d
}

// pauseClock stops the run's clock for an untimed tool call; resumeClock
// starts it again, moving the deadline later by the time it stood still.
// Calls overlap under pmap: the clock stands still while any is running,
// for the program and for the timed tools it calls meanwhile.
func (r *runState) pauseClock() {
	r.clockMu.Lock()
	defer r.clockMu.Unlock()
	if r.paused.Add(1) == 1 {
		r.pausedAt = time.Now()
		r.toolMu.Lock()
		if r.toolTimer != nil {
			r.toolTimer.Stop()
		}
		r.toolMu.Unlock()
	}
}

func (r *runState) resumeClock() {
	r.clockMu.Lock()
	defer r.clockMu.Unlock()
	if r.paused.Load() == 1 {
		if d := r.deadline.Load(); d != 0 {
			r.deadline.Store(d + int64(time.Since(r.pausedAt)))
		}
	}
	if r.paused.Add(-1) == 0 {
		r.toolMu.Lock()
		r.armToolTimer()
		r.toolMu.Unlock()
	}
}

// toolContext returns the context timed tools run under: the caller's,
// cancelled when the run's clock reaches its deadline. It is made on the
// first tool call of a run.
func (r *runState) toolContext() context.Context {
	if r.deadline.Load() == 0 {
		return r.ctx
	}
	r.toolMu.Lock()
	defer r.toolMu.Unlock()
	if r.toolCtx == nil {
		r.toolCtx, r.toolCancel = context.WithCancel(r.ctx)
		if r.paused.Load() == 0 {
			r.armToolTimer()
		}
	}
	return r.toolCtx
}

// armToolTimer sets the timer to the deadline; toolMu is held.
func (r *runState) armToolTimer() {
	if r.toolCtx == nil {
		return
	}
	wait := time.Until(time.Unix(0, r.deadline.Load()))
	if r.toolTimer == nil {
		r.toolTimer = time.AfterFunc(wait, r.deadlineReached)
	} else {
		r.toolTimer.Reset(wait)
	}
}

// deadlineReached runs when the timer fires: it cancels the tools'
// context unless the clock stood still or its deadline moved meanwhile.
func (r *runState) deadlineReached() {
	r.clockMu.Lock()
	defer r.clockMu.Unlock()
	if r.paused.Load() > 0 {
		return
	}
	if time.Now().UnixNano() < r.deadline.Load() {
		r.toolMu.Lock()
		r.armToolTimer()
		r.toolMu.Unlock()
		return
	}
	r.deadlineHit.Store(true)
	r.toolCancel()
}

// cancelToolContext runs once the run is over, when every thread of the run
// has finished: a run that called no timed tool made no context to cancel.
func (r *runState) cancelToolContext() {
	if r.toolCtx == nil {
		return
	}
	r.toolMu.Lock()
	defer r.toolMu.Unlock()
	if r.toolTimer != nil {
		r.toolTimer.Stop()
	}
	if r.toolCancel != nil {
		r.toolCancel()
	}
}
