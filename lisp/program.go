package lisp

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ptc-go/ptc/internal/textutil"
	"github.com/ptc-go/ptc/lisp/internal/analyze"
	"github.com/ptc-go/ptc/lisp/syntax"
)

// Program is a compiled PTC-Lisp program: read, analyzed and lowered once,
// then run any number of times, concurrently if need be.
type Program struct {
	src     string
	top     evalFn
	nslots  int
	globals []analyze.GlobalUse
	defs    map[string]bool
	deps    Dependencies
	funcs   *Funcs // the host functions it was compiled with
	// variants are the program compiled for namespaces that shadow
	// builtins it may name (see in), by the names.
	variantMu sync.Mutex
	variants  map[string]*Program
	// size is what the program's text and literal data weigh in the
	// memory budget: every run is charged for it up front.
	size int64
	// spare is the main thread of a finished run, kept with its frames
	// and value stack for the next run (runs at the same time make their
	// own).
	spare atomic.Pointer[thread]
}

// takeThread returns a thread for a run: the spare one if it is there.
func (p *Program) takeThread(run *runState, globals *globalEnv) *thread {
	th := p.spare.Swap(nil)
	if th == nil {
		return newThread(run, globals)
	}
	th.run, th.globals, th.maxFrames = run, globals, run.limits.MaxDepth
	return th
}

// keepThread keeps th, whose run is over, for the next run.
func (p *Program) keepThread(th *thread) {
	th.reset()
	p.spare.Store(th)
}

// maxSourceBytes is the largest program text Compile accepts. Programs
// carry logic; data belongs in the input (Options.Input), which has no
// such limit. Reading a program costs time and memory in proportion to
// its size before any limit of the run can apply, so the size is capped.
const maxSourceBytes = 256 << 10

// Source returns the program text.
func (p *Program) Source() string { return p.src }

// Compile reads and analyzes src. Errors are *Error values of kind
// ParseError, or an analysis kind such as InvalidForm, with positions; when
// several independent errors are found, the first one lists the others in
// its More field. A text longer than maxSourceBytes is a ParseError.
func Compile(src string) (*Program, error) {
	return compile(nil, src, nil, nil, nil)
}

// workspace is the memory of the reader and the analyzer that a Cache
// recycles from one compilation to the next: the syntax tree and the
// analyzed tree are garbage once the program is lowered, and nothing the
// compiler builds points into them (TestCacheWorkspaceRetention checks).
type workspace struct {
	read     syntax.Buffers
	analysis analyze.Buffers
}

// reset recycles the workspace's memory, up to a bound, for the next
// compilation.
func (w *workspace) reset() {
	w.read.Reset()
	w.analysis.Reset()
}

// callerBound is what bounds the macros of a compilation besides their
// own budget: the caller's context (nil: none) and deadline (zero: none),
// or a run's start and time limit, which make the deadline only when a
// macro needs it (time.Time.Add costs a small program's run a tenth).
type callerBound struct {
	ctx      context.Context
	deadline time.Time
	start    time.Time
	timeout  time.Duration // from start; 0 or less: none
}

// limit returns the deadline, made from start and timeout on first use.
func (b *callerBound) limit() time.Time {
	if b.timeout > 0 {
		b.deadline, b.timeout = b.start.Add(b.timeout), 0
	}
	return b.deadline
}

// compile compiles src for a namespace that redefines the builtins named
// in shadows (sorted), in the memory of ws if it is not nil (ws is reset
// before compile returns), with the host functions of funcs (nil: none),
// its macros bounded by cb.
func compile(cb *callerBound, src string, shadows []string, ws *workspace, funcs *Funcs) (*Program, error) {
	return compileIn(cb, src, shadows, ws, funcs, nil)
}

// compileIn is compile with the macros of host, or, when host is nil,
// with a host of the program's own for the macros it defines (then
// bounded by cb).
func compileIn(cb *callerBound, src string, shadows []string, ws *workspace, funcs *Funcs, host *macroHost) (*Program, error) {
	if ws != nil {
		defer ws.reset()
	}
	if len(src) > maxSourceBytes {
		return nil, &Error{Kind: ParseError, Message: fmt.Sprintf(
			"the program is %s long, over the %s limit: keep data in the context (ctx/...) rather than in the program text",
			textutil.Bytes(int64(len(src))), textutil.Bytes(maxSourceBytes))}
	}
	var forms []syntax.Node
	var err error
	cfg := funcs.analyzeConfig()
	if ws != nil {
		forms, err = syntax.Config{Buffers: &ws.read}.Read(src)
		cfg.Buffers = &ws.analysis
	} else {
		forms, err = syntax.Read(src)
	}
	if err != nil {
		return nil, fromSyntax(err, src)
	}
	if len(shadows) > 0 {
		cfg.Shadowed = func(name string) bool {
			_, ok := slices.BinarySearch(shadows, name)
			return ok
		}
	}
	c := &compiler{src: src, funcs: funcs}
	if host == nil {
		host = &c.macros
		host.funcs = funcs
		if cb != nil {
			host.caller = *cb
		}
	}
	cfg.Macros = host
	ap, err := analyze.Analyze(src, forms, cfg)
	c.macros.caller.ctx = nil // the program may outlive the caller's context (a Cache keeps it)
	if err != nil {
		return nil, fromAnalyze(err, src)
	}
	top := c.expr(ap.Body)
	if len(c.errs) > 0 {
		first := c.errs[0]
		first.More = c.errs[1:]
		return nil, first
	}
	var defs map[string]bool // read only: nil when the program defines nothing
	if len(ap.Defs) > 0 {
		defs = make(map[string]bool, len(ap.Defs))
		for _, d := range ap.Defs {
			defs[d] = true
		}
	}
	// The program and the thread of its first run are one allocation: most
	// programs run, and a run keeps its thread for the next one anyway. A
	// program that calls no function of its own gets a smaller thread.
	var p *Program
	var th *thread
	if !c.calls && ap.NumSlots <= maxSmallSlots {
		b := &smallProgramBlock{}
		p, th = &b.p, initThread(&b.th.th, &b.th.frame, b.th.frames[:], &b.th.chunks, b.th.values[:])
	} else {
		b := &programBlock{}
		p, th = &b.p, initThread(&b.th.th, &b.th.frame, b.th.frames[:], &b.th.chunks, b.th.values[:])
	}
	p.src, p.top, p.nslots, p.globals, p.defs, p.funcs = src, top, ap.NumSlots, ap.Globals, defs, funcs
	p.deps = c.dependencies(ap.Globals, defs)
	p.size = int64(len(src)) + (c.constSlots+int64(c.regexWeight))*valueSize
	p.spare.Store(th)
	return p, nil
}

// maxSmallSlots is the most locals a program given a smallThreadBlock binds.
const maxSmallSlots = 4

// programBlock is a new Program with the thread of its first run, and
// smallProgramBlock the same with a small thread.
type (
	programBlock struct {
		p  Program
		th threadBlock
	}
	smallProgramBlock struct {
		p  Program
		th smallThreadBlock
	}
)

// Dependencies is what a program reads that earlier runs provide (see
// Program.Dependencies).
type Dependencies struct {
	// Vars are the vars the program reads without defining them: the defs
	// and stored values of earlier runs (memory/x, or x after (def x ...)),
	// sorted.
	Vars []string
	// History: the program reads *1, *2 or *3, the values of earlier runs.
	History bool
	// ComputedKeys: the program reads memory under a key it computes,
	// (memory/get k), which names no var in advance.
	ComputedKeys bool
}

// SelfContained reports whether the program needs nothing from earlier
// runs: its value depends only on its context and its tools.
func (d Dependencies) SelfContained() bool {
	return len(d.Vars) == 0 && !d.History && !d.ComputedKeys
}

// Dependencies reports what the program reads of earlier runs: an agent
// that keeps a program to run it again later, without the turns that came
// before it, checks that there is nothing.
func (p *Program) Dependencies() Dependencies {
	d := p.deps
	d.Vars = slices.Clone(d.Vars)
	return d
}

// DependenciesIn is Dependencies for the program as it reads in namespace
// ns: a builtin name that ns redefines (see Namespace) is a var of an
// earlier run there, which the program alone would read as the builtin.
func (p *Program) DependenciesIn(ns *Namespace) Dependencies {
	if ns == nil {
		return p.Dependencies()
	}
	v, err := p.in(context.Background(), time.Time{}, 0, ns)
	if err != nil {
		return p.Dependencies()
	}
	return v.Dependencies()
}

func (c *compiler) dependencies(globals []analyze.GlobalUse, defs map[string]bool) Dependencies {
	d := Dependencies{History: c.history, ComputedKeys: c.computedKeys}
	defined := func(name string) bool { return defs[name] || slices.Contains(c.memPuts, name) }
	for _, g := range globals {
		if !defined(g.Name) {
			d.Vars = append(d.Vars, g.Name)
		}
	}
	for _, name := range c.memReads {
		if !defined(name) {
			d.Vars = append(d.Vars, name)
		}
	}
	slices.Sort(d.Vars)
	d.Vars = slices.Compact(d.Vars)
	return d
}

// analyzeConfig connects the analyzer to this package's builtins.
var analyzeConfig = analyze.Config{
	IsBuiltin: isBuiltinName,
	Hint:      analysisHint,
	Decimal:   decimalLiteral,
	Inst:      func(t time.Time) any { return Instant{T: t} },
}

// decimalLiteral is the value of a BigDecimal literal's text.
func decimalLiteral(text string) (any, bool) {
	d, ok := parseDecimal(text)
	return d, ok
}

func isBuiltinName(name string) bool { _, ok := builtins[name]; return ok }

// isReplaceable reports whether a def of name replaces a name of the
// language, which the namespace then records as shadowed: a builtin, or
// a macro a program may def a value of (time, delay, future).
func isReplaceable(name string) bool { return isBuiltinName(name) || analyze.IsReplaceableMacro(name) }

// maxVariants bounds the variants a Program keeps (see in): beyond, a
// variant is compiled for its run and dropped.
const maxVariants = 8

// in returns the program as it reads in namespace ns: where ns redefines a
// builtin the program names, the name means the namespace's value, as in
// Clojure once a def has replaced a core function. Nothing to do, and no
// cost, when ns redefines no builtin whose name is in the program's text
// (a name found only inside a longer one or a string costs a compilation
// that changes nothing). A compilation's macros are bounded by ctx and by
// timeout from start (callerBound).
func (p *Program) in(ctx context.Context, start time.Time, timeout time.Duration, ns *Namespace) (*Program, error) {
	if len(ns.shadows) == 0 {
		return p, nil
	}
	var names []string
	for _, n := range ns.shadows {
		if strings.Contains(p.src, n) {
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		return p, nil
	}
	key := strings.Join(names, " ")
	p.variantMu.Lock()
	v := p.variants[key]
	p.variantMu.Unlock()
	if v != nil {
		return v, nil
	}
	v, err := compile(&callerBound{ctx: ctx, start: start, timeout: timeout}, p.src, names, nil, p.funcs)
	if err != nil {
		return nil, err
	}
	p.variantMu.Lock()
	if p.variants == nil {
		p.variants = map[string]*Program{}
	}
	if len(p.variants) < maxVariants {
		p.variants[key] = v
	}
	p.variantMu.Unlock()
	return v, nil
}

// Options configure one run. The zero value runs with an empty context, an
// empty namespace, no tools and the default limits.
type Options struct {
	// Input is the data read by ctx/name: a *Map (used as is: convert large
	// host data once with FromGo and reuse it), or any host value FromGo
	// accepts whose top level is a map or struct.
	Input any
	// Namespace holds the defs of earlier runs; nil means empty.
	Namespace *Namespace
	// History are the values of earlier turns: History[0] is *1.
	History []Value
	// Redact, when set, hides values in the program's printed output
	// (println, print, prn, pr, printf): an agent's firewall.
	Redact *Redaction
	// Tools are the host functions the program can call.
	Tools ToolCaller
	// Limits bound the run; zero fields take their defaults.
	Limits Limits
	// Funcs are the host functions the program calls by name, (slug x):
	// Run compiles the program with them. A Program compiled with
	// Funcs.Compile has its own, and a different set here is an error.
	Funcs *Funcs
	// gensyms, when set, numbers gensym's symbols (a macro's runs share
	// their compilation's counter).
	gensyms *atomic.Int64
}

// Limits bound the resources of one run. A zero field means the default; a
// negative one means no limit.
type Limits struct {
	Timeout           time.Duration // wall clock per run; default 1s
	MaxSteps          int64         // evaluation steps; default 500,000,000
	MaxDepth          int           // nested function calls; default 5,000, at most 100,000
	MaxLoopIterations int           // iterations of one loop/recur; default 1,000,000
	MaxOutputBytes    int           // println output; default 64 KiB
	MaxToolCalls      int           // tool calls per run; default 1,000
	MaxMemory         int64         // bytes of data the program builds, cumulatively; default 64 MiB
	// MaxParallel bounds the goroutines evaluating the program at once, the
	// main one included: pmap and pcalls branches beyond it run on the
	// goroutines already working. Default 16; 1 runs every branch in turn.
	MaxParallel int
}

// The default limits, stated in the docs of Limits' fields.
const (
	defaultTimeout           = time.Second
	defaultMaxSteps          = 500_000_000
	defaultMaxDepth          = 5_000
	defaultMaxLoopIterations = 1_000_000
	defaultMaxOutputBytes    = 64 << 10
	defaultMaxToolCalls      = 1_000
	defaultMaxMemory         = 64 << 20
	defaultMaxParallel       = 16
)

const unlimited = int(^uint(0) >> 1)

// maxDepthCeiling bounds Limits.MaxDepth, also when it is negative: deeper
// recursion would risk overflowing the goroutine's stack, which Go cannot
// recover from.
const maxDepthCeiling = 100_000

// Effective returns l with every zero field replaced by its default, as a
// run applies it (MaxDepth also capped at 100,000). Negative fields, no
// limit, stay negative.
func (l Limits) Effective() Limits {
	if l.Timeout == 0 {
		l.Timeout = defaultTimeout
	}
	def := func(v, d int) int {
		if v == 0 {
			return d
		}
		return v
	}
	if l.MaxSteps == 0 {
		l.MaxSteps = defaultMaxSteps
	}
	l.MaxDepth = min(def(l.MaxDepth, defaultMaxDepth), maxDepthCeiling)
	l.MaxLoopIterations = def(l.MaxLoopIterations, defaultMaxLoopIterations)
	l.MaxOutputBytes = def(l.MaxOutputBytes, defaultMaxOutputBytes)
	l.MaxToolCalls = def(l.MaxToolCalls, defaultMaxToolCalls)
	if l.MaxMemory == 0 {
		l.MaxMemory = defaultMaxMemory
	}
	l.MaxParallel = def(l.MaxParallel, defaultMaxParallel)
	return l
}

func (l Limits) withDefaults() Limits {
	if l.Timeout == 0 {
		l.Timeout = defaultTimeout
	}
	l.MaxSteps = pick64(l.MaxSteps, defaultMaxSteps)
	// A Go stack overflow kills the process, so depth has a ceiling even
	// when the host asks for no limit.
	l.MaxDepth = min(pick(l.MaxDepth, defaultMaxDepth), maxDepthCeiling)
	l.MaxLoopIterations = pick(l.MaxLoopIterations, defaultMaxLoopIterations)
	l.MaxOutputBytes = pick(l.MaxOutputBytes, defaultMaxOutputBytes)
	l.MaxToolCalls = pick(l.MaxToolCalls, defaultMaxToolCalls)
	l.MaxMemory = pick64(l.MaxMemory, defaultMaxMemory)
	l.MaxParallel = pick(l.MaxParallel, defaultMaxParallel)
	return l
}

func pick(v, def int) int {
	switch {
	case v == 0:
		return def
	case v < 0:
		return unlimited
	}
	return v
}

func pick64(v, def int64) int64 {
	switch {
	case v == 0:
		return def
	case v < 0:
		return 0 // 0 disables the step check
	}
	return v
}

// Status says how a run ended.
type Status int

// Run outcomes.
const (
	// Completed: the program ran to its end; Value is its last form's value.
	Completed Status = iota
	// Returned: the program called (return v).
	Returned
	// Failed: the program called (fail v). This is an outcome, not a Go
	// error: the run itself worked.
	Failed
)

func (s Status) String() string {
	switch s {
	case Returned:
		return "returned"
	case Failed:
		return "failed"
	}
	return "completed"
}

// Result is the outcome of a run.
type Result struct {
	Value  Value
	Status Status
	// Namespace is the user namespace after the run: the starting one plus
	// this run's defs. When the run fails with an error the defs are rolled
	// back; (fail v) keeps them.
	Namespace *Namespace
	// Output holds the println lines, in order.
	Output []string
	// Defined lists the names this run defined, in order (empty after an error).
	Defined []string
	// Shadowed lists the names of Defined that were builtins until this
	// run: from now on they mean the program's values, in this run and in
	// the runs given Namespace (an agent tells the LLM so).
	Shadowed []string
	// Notes are hints (at most 5) about results that are valid Clojure but
	// usually a slip, such as a keyword called on a vector of maps; an
	// agent shows them to the model with the turn's feedback.
	Notes []string
	// Steps is the number of evaluation steps taken.
	Steps int64
	// ToolCalls is the number of tool calls made.
	ToolCalls int
}

// runState is shared by the threads of one run.
type runState struct {
	ctx context.Context // the caller's context
	// deadline is the run's own time limit in Unix nanoseconds (0: none).
	// It moves later by the time the program waits on untimed tools.
	deadline  atomic.Int64
	paused    atomic.Int32 // untimed tool calls in progress
	clockMu   sync.Mutex
	pausedAt  time.Time // when paused went from 0 to 1
	limits    Limits
	notes     notes
	context   *Map
	history   []Value
	tools     ToolCaller
	untimed   untimedToolCaller // tools, when it has untimed tools
	steps     atomic.Int64
	toolCalls atomic.Int64
	// The tools' context: the caller's, cancelled by toolTimer when the
	// run's clock reaches the deadline (a timer rather than a context
	// deadline, because the deadline moves while the clock stands still).
	toolMu      sync.Mutex
	toolCtx     context.Context
	toolCancel  context.CancelFunc
	toolTimer   *time.Timer
	deadlineHit atomic.Bool // the timer cancelled toolCtx
	mem         atomic.Int64
	outBytes    atomic.Int64 // output printed by all threads
	goroutines  atomic.Int64 // goroutines started for branches and still running
	poolMu      sync.Mutex
	pool        []*thread  // idle branch threads, for reuse
	redact      *Redaction // hides values in printed output
	globals     globalEnv  // the main thread's view of the namespace
	// cellRun is the run's bookkeeping of cells (state.go), made at its
	// first cell operation.
	cellRun atomic.Pointer[cellRun]
	// hierarchy is the global hierarchy once the run derived (hierarchy.go).
	hierarchy atomic.Pointer[Map]
	// madeLazy is set when the run built a lazy sequence of unknown
	// length (lazy-seq, cons onto a sequence): only then does its value
	// need a walk to realize them (see realizeValue).
	madeLazy atomic.Bool
	// txCommits counts the transactions the run committed (stm.go).
	txCommits atomic.Uint64
	// zones are the time-zone regions the run looked up (builtins_zoned.go).
	zones zoneCache
	// gensyms numbers the symbols of gensym; gensymBase, when set, is the
	// counter of a compilation's macros, whose runs share it.
	gensyms    atomic.Int64
	gensymBase *atomic.Int64
}

// Run compiles and runs src. See Program.Run. The time limit covers the
// compilation too.
func Run(ctx context.Context, src string, opts Options) (*Result, error) {
	start := time.Now()
	if ctx == nil {
		ctx = context.Background()
	}
	// Compiled for the namespace right away: no variant to make (see in).
	var shadows []string
	if opts.Namespace != nil {
		shadows = opts.Namespace.shadows
	}
	cb := callerBound{ctx: ctx, start: start, timeout: opts.Limits.Timeout}
	if cb.timeout == 0 {
		cb.timeout = defaultTimeout // as withDefaults
	}
	p, err := compile(&cb, src, shadows, nil, opts.Funcs)
	if err != nil {
		return &Result{Namespace: opts.Namespace}, err
	}
	return p.run(ctx, opts, start)
}

// Run evaluates the program. It always returns a non-nil Result (with the
// output printed before an error, and the namespace rolled back on error);
// err is an *Error when the program failed. A program that calls (fail v)
// returns Status Failed and a nil error.
func (p *Program) Run(ctx context.Context, opts Options) (*Result, error) {
	if opts.Funcs != nil && opts.Funcs != p.funcs {
		return &Result{Namespace: opts.Namespace}, &Error{Kind: InvalidArgument,
			Message: "Options.Funcs differ from the Funcs the program was compiled with: compile it with Funcs.Compile and leave Options.Funcs nil"}
	}
	return p.run(ctx, opts, time.Now())
}

func (p *Program) run(ctx context.Context, opts Options, start time.Time) (*Result, error) {
	if ctx == nil {
		ctx = context.Background() // a nil context is not a reason to panic
	}
	ns := opts.Namespace
	if ns == nil {
		ns = emptyNamespace
	}
	res := &Result{Namespace: ns}
	limits := opts.Limits.withDefaults()
	run := &runState{limits: limits, history: opts.History, tools: opts.Tools, redact: opts.Redact, gensymBase: opts.gensyms}
	run.untimed, _ = opts.Tools.(untimedToolCaller)
	// The time limit is checked at the evaluator's checkpoints rather than
	// with a context timer: cheaper for the many short runs of an agent. Tools
	// get a context with the deadline (see toolContext).
	if limits.Timeout > 0 {
		run.deadline.Store(start.Add(limits.Timeout).UnixNano())
	}
	run.ctx = ctx
	if err := ctx.Err(); err != nil {
		return res, run.contextError(err) // not even a short program runs
	}
	switch c := opts.Input.(type) {
	case nil:
		run.context = emptyMap
	case *Map:
		run.context = c
	default:
		v, err := FromGo(c)
		if err != nil {
			return res, &Error{Kind: TypeError, Message: "context: " + err.Error(), Err: err}
		}
		m, ok := v.(*Map)
		if !ok {
			return res, errorf(TypeError, "context must be a map, got %s", TypeName(v))
		}
		run.context = m
	}
	p, err := p.in(ctx, start, limits.Timeout, ns)
	if err != nil {
		return res, err
	}
	if err := p.link(ns); err != nil {
		return res, err
	}
	run.globals.base = ns
	th := p.takeThread(run, &run.globals)
	err = p.exec(th, res, ns)
	if err != nil {
		run.rollbackCells() // the namespace is as it was, its atoms too
	}
	run.cancelToolContext()
	p.keepThread(th)
	return res, err
}

// exec runs the program on th and fills res. It is apart from run so that
// its deferred recover, with few returns, is open-coded: cheap.
func (p *Program) exec(th *thread, res *Result, ns *Namespace) (err error) {
	defer func() {
		if r := recover(); r != nil {
			res.Value, res.Status, res.Namespace = nil, Completed, ns
			switch r := r.(type) {
			case deepData:
				err = deepDataError()
			case tooMuchWork:
				err = tooMuchWorkError()
			case stopped:
				err = r.err
			default:
				if internalPanicsCrash {
					panic(r)
				}
				err = &Error{Kind: InternalError, Message: fmt.Sprintf("internal error: %v", r), src: p.src}
			}
		}
	}()
	return p.finish(th, res, ns)
}

// finish charges the program's size, runs it and fills res.
func (p *Program) finish(th *thread, res *Result, ns *Namespace) error {
	run := th.run
	if err := th.chargeString(int(p.size)); err != nil {
		return err
	}
	v, err := th.runTop(p)
	// The value leaves the run: lazy sequences of unknown length in it
	// are realized now, under the run's limits.
	if err == nil {
		v, err = th.realizeValue(v)
	} else if x, ok := err.(*exit); ok {
		if rv, rerr := th.realizeValue(x.value); rerr != nil {
			err = rerr
		} else {
			x.value = rv
		}
	}
	th.closeLine()
	res.Output = th.out
	res.Steps = run.steps.Load() + th.steps - th.flushed
	res.ToolCalls = int(run.toolCalls.Load())
	if err != nil {
		if x, ok := err.(*exit); ok {
			res.Value = x.value
			res.Status = Returned
			if x.failed {
				res.Status = Failed
			}
			res.Namespace, res.Defined = run.globals.commit(ns)
			res.Namespace = res.Namespace.withCells(run.cellCount()).withHierarchy(run.hierarchy.Load())
			res.Shadowed = shadowedBy(res.Defined, ns)
			noteSortedDefs(run, res)
			res.Notes = run.notes.get()
			return nil
		}
		if e, ok := err.(*Error); ok && e.src == "" {
			e.src = p.src
		}
		return err
	}
	if s, ok := v.(*Seq); ok {
		return &Error{Kind: InvalidArgument, src: p.src,
			Message: "the program's value is an infinite sequence from (" + s.name + " ...): take a finite part, e.g. (take 10 ...)"}
	}
	res.Value = v
	res.Namespace, res.Defined = run.globals.commit(ns)
	res.Namespace = res.Namespace.withCells(run.cellCount()).withHierarchy(run.hierarchy.Load())
	res.Shadowed = shadowedBy(res.Defined, ns)
	noteSortedDefs(run, res)
	res.Notes = run.notes.get()
	return nil
}

func (th *thread) runTop(p *Program) (Value, error) {
	fr, err := th.pushFrame()
	if err != nil {
		return nil, err
	}
	slots, mark := th.stack.alloc(p.nslots)
	fr.slots = slots
	v, err := p.top(fr)
	th.stack.release(slots, mark)
	th.popFrame(fr)
	return v, err
}

// link checks, before anything runs, that every user-namespace name the
// program reads exists or is defined by the program itself.
func (p *Program) link(ns *Namespace) error {
	for _, g := range p.globals {
		if p.defs[g.Name] || isPrinterVar(g.Name) {
			continue
		}
		if _, ok := ns.Get(g.Name); ok {
			continue
		}
		lines := syntax.LinesOf(p.src) // only now: most runs link
		return &Error{Kind: UnboundVar, Pos: lines.Pos(g.Off), src: p.src, Message: unboundMessage(g.Name, ns)}
	}
	return nil
}

// shadowedBy returns the names of defined that are builtins the namespace
// before the run did not shadow yet.
func shadowedBy(defined []string, before *Namespace) []string {
	var out []string
	for _, name := range defined {
		if _, was := slices.BinarySearch(before.shadows, name); !was && isReplaceable(name) {
			out = append(out, name)
		}
	}
	return out
}

// commit folds the run's defs into a new namespace.
func (g *globalEnv) commit(base *Namespace) (*Namespace, []string) {
	if len(g.defs) == 0 {
		return base, nil
	}
	vars := make(map[string]Value, len(base.vars)+len(g.defs))
	maps.Copy(vars, base.vars)
	maps.Copy(vars, g.defs)
	shadows := base.shadows
	for _, name := range g.order {
		if _, ok := slices.BinarySearch(shadows, name); !ok && isReplaceable(name) {
			if len(shadows) == len(base.shadows) {
				shadows = slices.Clone(shadows)
			}
			shadows = append(shadows, name)
			slices.Sort(shadows)
		}
	}
	return &Namespace{vars: vars, shadows: shadows, cells: base.cells, hierarchy: base.hierarchy}, slices.Clone(g.order)
}

// Namespace is an immutable user namespace: the vars defined by def, defn
// and memory/put. Hosts carry it from one run to the next.
//
// A program that defines a builtin's name (def, defn, defonce, declare,
// memory/put) shadows the builtin, as in Clojure: in the runs given the
// resulting namespace, the plain name means the program's value. Vars a
// host binds (NewNamespace, With, WithVars) are data: under a builtin's
// name, programs read them as memory/name and the plain name stays the
// builtin (an agent stores the entries of a map result this way, and
// {:count 3} must not break count).
type Namespace struct {
	vars map[string]Value
	// shadows are the builtin names programs defined, sorted.
	shadows []string
	// cells counts the atoms, volatiles and transients the runs of this
	// namespace made: the next run's cell ids start after it (state.go).
	cells int64
	// hierarchy is the global hierarchy its runs derived (nil: empty).
	hierarchy *Map
}

// withCells returns ns counting n cells: ns itself when it does already.
func (ns *Namespace) withCells(n int64) *Namespace {
	if ns.cells == n {
		return ns
	}
	out := *ns
	out.cells = n
	return &out
}

var emptyNamespace = &Namespace{}

// NewNamespace returns a namespace holding vars (copied).
func NewNamespace(vars map[string]Value) *Namespace {
	return &Namespace{vars: maps.Clone(vars)}
}

// Get returns the value of a var.
func (ns *Namespace) Get(name string) (Value, bool) {
	if ns == nil {
		return nil, false
	}
	v, ok := ns.vars[name]
	return v, ok
}

// Len returns the number of vars.
func (ns *Namespace) Len() int {
	if ns == nil {
		return 0
	}
	return len(ns.vars)
}

// Names returns the var names, sorted.
func (ns *Namespace) Names() []string {
	if ns == nil {
		return nil
	}
	return slices.Sorted(maps.Keys(ns.vars))
}

// With returns a namespace with name bound to v, as data (see Namespace).
func (ns *Namespace) With(name string, v Value) *Namespace {
	return ns.WithVars(map[string]Value{name: v})
}

// WithVars returns a namespace with vars bound, as data (see Namespace):
// a builtin's name among them no longer means a program's value.
func (ns *Namespace) WithVars(vars map[string]Value) *Namespace {
	out := make(map[string]Value, ns.Len()+len(vars))
	if ns != nil {
		maps.Copy(out, ns.vars)
	}
	maps.Copy(out, vars)
	return &Namespace{vars: out, shadows: ns.shadowsBut(func(name string) bool { _, ok := vars[name]; return ok }), cells: ns.cellCount(),
		hierarchy: ns.globalHierarchy()}
}

// Without returns a namespace without the named vars.
func (ns *Namespace) Without(names ...string) *Namespace {
	if ns == nil {
		return emptyNamespace
	}
	vars := maps.Clone(ns.vars)
	for _, n := range names {
		delete(vars, n)
	}
	return &Namespace{vars: vars, shadows: ns.shadowsBut(func(name string) bool { return slices.Contains(names, name) }), cells: ns.cells,
		hierarchy: ns.hierarchy}
}

// Shadowed returns, sorted, the builtin names the namespace's programs
// defined: the names that mean the user's values in the runs given it.
func (ns *Namespace) Shadowed() []string {
	if ns == nil {
		return nil
	}
	return slices.Clone(ns.shadows)
}

// cellCount is ns.cells, 0 for a nil namespace.
func (ns *Namespace) cellCount() int64 {
	if ns == nil {
		return 0
	}
	return ns.cells
}

func (ns *Namespace) shadowsBut(drop func(string) bool) []string {
	if ns == nil || len(ns.shadows) == 0 {
		return nil
	}
	return slices.DeleteFunc(slices.Clone(ns.shadows), drop)
}
