package agent

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ptc-go/ptc/internal/engine"
	fwall "github.com/ptc-go/ptc/internal/firewall"

	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm"
	"github.com/ptc-go/ptc/signature"
	"github.com/ptc-go/ptc/template"
)

// Options are the run-time parameters of a mission.
type Options struct {
	// LLM is the run's model: the agent uses it unless its Config.LLM pins
	// one, and nested agents without one inherit it (docs/agents.md,
	// "Which model").
	LLM llm.Model
	// Registry resolves model names (llm.Name). Nested agents inherit it.
	Registry llm.Registry
	// Input is the mission's input data, read by programs as ctx/name and
	// by the prompt's placeholders: a map, a struct (by its json names), a
	// *lisp.Map, or a *Step to chain (see docs/agents.md, "Input").
	Input any
	// InputSignature types the input for the system prompt's data
	// inventory, as a signature's output type ("{user {name :string}}").
	InputSignature string
	// LLMOptions are passed to every LLM call as llm.Request.Options.
	LLMOptions map[string]any
	// Cache asks the LLM to cache the system prompt (llm.Request.Cache).
	Cache bool
	// Validation is the signature validation mode (Enabled by default).
	// It is not inherited by nested agents.
	Validation signature.Mode
	// Trace selects when Step.Trace is kept, and whether with what the
	// model was sent (TraceConversation).
	Trace TraceMode
	// Observers receive the mission's events (see Event): the run, each
	// turn, LLM call and tool call, as they happen. Nested agents report
	// to them too, their events marked with their depth and trace ids.
	Observers []Observer
	// TokenLimit bounds the tokens of the mission's whole tree, nested
	// agents included; zero: no limit. See docs/agents.md, "Limits across
	// the tree".
	TokenLimit int
	// Budget, when set, is asked after every LLM call of the tree, with the
	// tree's usage so far, whether it may go on; false ends the tree as
	// TokenLimit does (docs/agents.md, "Limits across the tree").
	Budget func(Usage) bool
	// ReturnPartialOnBudget ends a mission over its own TokenLimit or Budget
	// with its last good turn's value instead of budget_exceeded; the
	// missions below it, ended by its limit, fail (docs/agents.md).
	ReturnPartialOnBudget bool
	// Sequential runs every pmap and pcalls of the tree one call at a time,
	// in order (as Limits.MaxParallel 1), for deterministic replays;
	// nested agents inherit it.
	Sequential bool
	// CompileCache, when set, keeps the programs the tree compiles, shared
	// by every mission given it. Nil: each Agent keeps its own. Hits count
	// in Usage.CachedPrograms.
	CompileCache *lisp.Cache
	// stage is the failed stage whose Step a pipeline passes as the
	// context, for the chained_failure's message (nil: not a pipeline's).
	stage *pipelineStage
	// feeds is the next agent of the pipeline this mission is a stage of,
	// which gets its return value as its context (nil: none), for the
	// system prompt.
	feeds *Agent
}

// TraceMode selects when a Step keeps its trace.
type TraceMode int

// Trace modes.
const (
	TraceOn      TraceMode = iota // always (the default)
	TraceOff                      // never
	TraceOnError                  // only when the mission fails
	// TraceConversation keeps it always, with what the model was sent:
	// each turn's Feedback and Memory, and Step.Messages.
	TraceConversation
)

// Run runs a mission of agent a: the one way to run an agent (Pipeline.Run
// runs agents in sequence, Then chains one to a Step, and
// CompiledAgent.Execute runs a compiled program without an LLM). It
// returns the Step in every case; when the mission fails, err is an *Error
// wrapping the same Step, so both "if err != nil" and inspecting step.Fail
// work. No panic of a host callback (a prompt hook, Budget, a conversion
// of the context) escapes it: the mission ends with internal_error and a
// run.exception event (see Event). A nil Agent, or one not made by New,
// fails with invalid_config, the run reported to the observers as every
// run; a Config New refuses never becomes an Agent: New's *Fail
// says why.
func (a *Agent) Run(ctx context.Context, opts Options) (*Step, error) {
	return a.runIn(ctx, treeFrom(ctx), opts, nil)
}

// runIn runs a mission under up, the tree of the mission whose Go code
// runs it (nil: a root), as a stage of a pipeline whose limit is pipe
// (nil: none). Run from a tool's Go code, the mission joins the caller's
// tree: the caller's LLM must not see what it firewalled, and its usage is
// the caller's too.
func (a *Agent) runIn(ctx context.Context, up *tree, opts Options, pipe *treeLimit) (*Step, error) {
	m := newMission(ctx, up, a, opts)
	m.pipeLimit = pipe
	step := m.runGuarded()
	up.adopt(step, step.fw)
	if step.Fail != nil {
		return step, &Error{Step: step}
	}
	return step, nil
}

// reasonInvalidConfig is the reason of a run whose agent is nil or was not
// made by New.
const reasonInvalidConfig = "invalid_config"

// tree is the state of a tree of missions that a mission passes down to
// the agents it calls as tools: explicitly to the agent tools, LLM tools
// and compiled agents of its tool dispatch, and, through the context of
// its tool calls, to the Go tools that start agents themselves.
type tree struct {
	depth int // 0 at the root
	// maxDepth is the stricter of this mission's MaxDepth and every
	// ancestor's: a child cannot loosen its caller's limit.
	maxDepth int
	budget   *atomic.Int64 // turns left in the mission tree
	// limit is the innermost token limit or Budget of the tree above (and
	// of) the mission: its usage is reported to it and to those above.
	limit *treeLimit
	// budgetSize is the root's MaxTreeTurns, which the messages quote;
	// spend who used its turns.
	budgetSize int
	spend      *turnSpend
	// sequential: Options.Sequential of the root, which every program of
	// the tree keeps to.
	sequential bool
	// programs is Options.CompileCache of the root (nil: each agent's own).
	programs *lisp.Cache
	registry llm.Registry
	model    llm.Model
	traceID  string
	// fw is the mission's firewall: what it hides, its children's LLMs
	// must not see either.
	fw    *firewall
	trace TraceMode
	// The model's call options, for children that use the same model.
	llmOptions map[string]any
	cache      bool
	// nested adds up the usage of the mission's children.
	nested *nested
	// obs delivers the events of the mission tree (nil: no observers);
	// callIDs numbers its LLM and tool calls.
	obs     *observers
	callIDs *atomic.Uint64
	// clock is the time of the tree's missions (Hooks.Now; nil: the real
	// clock): the missions run under this one read it too.
	clock clock
}

// adopt takes in a child's outcome when Go code ran it under the caller's
// context rather than through the caller's tool dispatch (a Func that calls
// an agent tool's Func): the caller's firewall absorbs the child's, and
// its usage counts in the caller's TotalUsage.
func (rt *tree) adopt(step *Step, fw *firewall) {
	if rt == nil {
		return
	}
	if rt.fw != nil {
		rt.fw.Absorb(fw)
	}
	if rt.nested != nil {
		rt.nested.add(step, nil)
	}
}

type treeKey struct{}

// treeFrom is the tree of the mission whose tool call ctx is: the tree a
// mission that a Go tool starts joins.
func treeFrom(ctx context.Context) *tree {
	if ctx == nil { // Run and Execute treat a nil ctx as context.Background
		return nil
	}
	rt, _ := ctx.Value(treeKey{}).(*tree)
	return rt
}

// newMission makes a mission of a under up, the tree of its caller (nil:
// the mission is a root).
func newMission(ctx context.Context, up *tree, a *Agent, opts Options) *mission {
	if ctx == nil {
		ctx = context.Background()
	}
	// An engine's hooks (package temporal) are this mission's alone: the
	// missions below it do not inherit them (but for their clock).
	hooks := engine.HooksFrom(ctx)
	if hooks != nil {
		ctx = engine.WithHooks(ctx, nil)
	}
	clk := clockOf(hooks, up)
	m := &mission{a: a, opts: opts, hooksv: hooks, parent: ctx, up: up, clock: clk, start: clk.now(), memory: lisp.NewNamespace(nil)}
	if a == nil || a.prompt == nil {
		// A nil or zero Agent fails like a Config New refuses.
		if a == nil {
			m.a = &Agent{}
		}
		m.preFail = &Fail{Reason: reasonInvalidConfig, Message: "the agent is nil or was not made by New"}
	}
	return m
}

// mission is the state of one run.
type mission struct {
	a      *Agent
	opts   Options
	hooksv *engine.Hooks // an engine's (engine.WithHooks); nil: none
	parent context.Context
	ctx    context.Context // with the mission deadline and the tree
	stop   context.CancelFunc
	rt     *tree
	// up is the tree of the caller (nil at the root); pipeLimit the limit
	// of the pipeline the mission is a stage of (nil: none).
	up        *tree
	pipeLimit *treeLimit
	// clock is the mission's time (Hooks.Now, its caller's); start when
	// the mission started by it.
	clock clock
	start time.Time

	traceID, parentTraceID string
	// Where the mission is, for its events: its name, its depth, the
	// dispatcher and call numbering of the tree, and the tool call of the
	// caller that runs it.
	name         string
	depth        int
	obs          *observers
	callIDs      *atomic.Uint64
	parentCallID uint64

	call    llm.Func
	retry   llm.RetryPolicy
	context *lisp.Map
	// rawContext is the context before its coercion to the signature,
	// whose firewalled collections the coerced copies inherit.
	rawContext *lisp.Map
	ctxSig     *signature.Signature
	// fieldDocs are the field descriptions of a chained Step.
	fieldDocs map[string]string
	prompt    string // the expanded mission
	system    string // the system prompt, when it is the same every turn
	// firstSystem is the system prompt of the first LLM call.
	firstSystem string
	fw          *firewall
	// upstreamFW is the firewall of the Step given as the context.
	upstreamFW *firewall

	messages []llm.Message
	memory   *lisp.Namespace
	memSizes map[string]int
	// memoryOverruns counts the turns in a row whose definitions did not
	// fit MaxAgentMemory (see memoryOverrun).
	memoryOverruns int
	history        []lisp.Value
	lastFail       lisp.Value // ctx/fail: the previous turn's error, or nil
	// shadow is the state of the shadow runs, from the first turn that
	// had firewalled data on (flow.go).
	shadow []*shadowState
	// running is the program running now and the state it started from,
	// for the probes of its calls to agents (flow.go); nil between runs.
	running atomic.Pointer[runningTurn]
	// shadowMu guards shadow's creation: a probe may make it from a
	// goroutine of the running program (pmap).
	shadowMu sync.Mutex
	partial  lisp.Value // the last value of an error-free turn
	tokens   llm.Tokens
	requests int
	// retries are the failed attempts of the LLM call in progress, for
	// its turn's trace (Turn.LLMRetries).
	retries []LLMAttempt
	// llmTook is the model's own time for the LLM call in progress, when
	// an engine's hook measured it (engine.LLMReply.Took).
	llmTook time.Duration
	// programs counts the programs the mission ran, cachedPrograms those
	// that came compiled from the cache.
	programs, cachedPrograms int
	trace                    []Turn
	turn                     int
	// nested counts the agents this mission called as tools.
	nested nested
	// reported is the usage reported to the tree's limits so far;
	// ownLimit the limit the mission answers for (its own TokenLimit or
	// Budget, or its pipeline's), overLimit the one that ended it.
	reported            Usage
	ownLimit, overLimit *treeLimit
	// warnings are the input's coercions and the problems WarnOnly let
	// through.
	warnings []string
	// guard, when set, lets Run abandon a callback that ignores its
	// context (see runGuarded).
	guard *guard
	// compiling: the program that ends the mission is kept (Compile), and
	// must be self-contained; final is its text.
	compiling bool
	final     string

	// How the mission ends (see run and crashed): preFail ends it before
	// setup (a Config New refused); callback names the host callback
	// running, for the failure of its panic; cur is the turn in progress
	// (started at curStart), recorded when a panic ends it; lastSystem is
	// the last system prompt sent (Step.Messages); ended is set once the
	// end event is reported; outcome is the Step of a mission whose
	// goroutine could not return it (runtime.Goexit).
	preFail    *Fail
	callback   string
	cur        *Turn
	curStart   time.Time
	lastSystem string
	ended      bool
	outcome    *Step
}

// run is the whole mission, reported to the observers: however it ends,
// it reports its start and exactly one end. A panic (of a host callback:
// a prompt hook, Budget, a conversion) ends it with internal_error.
func (m *mission) run() (step *Step) {
	defer func() {
		if step == nil { // a panic, or runtime.Goexit
			step = m.crashed(recover())
		}
	}()
	m.begin()
	s := m.runTurns()
	m.end(s)
	return s
}

// runTurns sets the mission up and runs its turns.
func (m *mission) runTurns() *Step {
	if m.preFail != nil {
		return m.finish(nil, m.preFail)
	}
	fail := m.setup()
	if m.stop != nil {
		defer m.stop()
	}
	if fail != nil {
		return m.finish(nil, fail)
	}
	for {
		if end := m.treeOver(); end != nil {
			return m.finish(end.value, end.fail)
		}
		if fail := m.beforeTurn(); fail != nil {
			return m.finish(nil, fail)
		}
		if end := m.turnOnce(); end != nil {
			return m.finish(end.value, end.fail)
		}
	}
}

// ending is how a turn ends the mission.
type ending struct {
	value lisp.Value
	fail  *Fail
}

// setup resolves the model, the context and the prompt.
func (m *mission) setup() *Fail {
	m.retry = m.a.cfg.LLMRetry
	// A failed Step as the context ends the run at once (chained_failure),
	// whatever else is missing.
	if fail := m.setContext(); fail != nil {
		return fail
	}
	rt := &tree{maxDepth: m.a.cfg.MaxNesting, registry: m.opts.Registry, traceID: m.traceID,
		trace: m.opts.Trace, nested: &m.nested, obs: m.obs, callIDs: m.callIDs, clock: m.clock}
	var inherited llm.Model
	var parentFW *firewall
	parent := m.up
	if parent != nil {
		rt.depth, rt.budget, rt.budgetSize, rt.limit = parent.depth+1, parent.budget, parent.budgetSize, parent.limit
		rt.spend, rt.sequential, rt.programs = parent.spend, parent.sequential, parent.programs
		rt.maxDepth = min(rt.maxDepth, parent.maxDepth)
		inherited, m.parentTraceID, parentFW = parent.model, parent.traceID, parent.fw
		if rt.registry == nil {
			rt.registry = parent.registry
		}
	}
	if h := m.hooks(); parent == nil && h != nil && h.Position != nil {
		p := h.Position
		rt.depth, rt.maxDepth, rt.budgetSize = p.Depth, min(rt.maxDepth, p.MaxDepth), p.BudgetSize
		rt.budget = new(atomic.Int64)
		rt.budget.Store(int64(p.TurnsLeft))
		if t := p.Tokens; t != nil {
			rt.limit = &treeLimit{limit: max(t.Left, 0), remote: true, total: t.Limit, setBy: t.SetBy, clock: m.clock, start: m.start}
		}
		// What the callers hide of the context, this mission's LLM must
		// not see either.
		up, err := fwall.Unmarshal(p.CallerFirewall, m.rawContext)
		if err != nil {
			return &Fail{Reason: ReasonInternalError, Message: "Hooks.Position.CallerFirewall: " + err.Error()}
		}
		parentFW = up
	}
	// A stage of a pipeline answers for the pipeline's limit; a mission's
	// own limit holds within those above it.
	if l := m.pipeLimit; l != nil {
		rt.limit, m.ownLimit = l, l
	}
	if l := newTreeLimit(rt.limit, m.opts.TokenLimit, m.opts.Budget, describeAgent(m.name, m.depth), m.clock); l != rt.limit {
		rt.limit, m.ownLimit = l, l
	}
	if fail := rt.depthFail(); fail != nil {
		return fail
	}
	if rt.budget == nil {
		rt.budget = new(atomic.Int64)
		rt.budget.Store(int64(m.a.cfg.MaxTreeTurns))
		rt.budgetSize = m.a.cfg.MaxTreeTurns
	}
	if rt.spend == nil {
		rt.spend = &turnSpend{}
	}
	rt.sequential = rt.sequential || m.opts.Sequential
	if m.opts.CompileCache != nil {
		rt.programs = m.opts.CompileCache
	}
	if m.opts.Validation == signature.Strict {
		for _, name := range m.a.names {
			if m.a.tools[name].sig == nil {
				return &Fail{Reason: ReasonValidationError, Op: name, Message: fmt.Sprintf(
					"strict validation requires a signature for every tool, and tool %s has none", name)}
			}
		}
	}
	// LLM inheritance: the agent's own model, then the run's (for an agent
	// called as a tool, the model bound to the tool), then the caller's.
	model := m.a.cfg.LLM
	if model == nil {
		model = m.opts.LLM
	}
	if model == nil && parent != nil {
		model = inherited
		// The caller's model, called as the caller calls it.
		if m.opts.LLMOptions == nil {
			m.opts.LLMOptions = parent.llmOptions
		}
		m.opts.Cache = m.opts.Cache || parent.cache
	}
	rt.llmOptions, rt.cache = m.opts.LLMOptions, m.opts.Cache
	if h := m.hooks(); h == nil || h.LLM == nil {
		f, err := rt.registry.Resolve(model)
		if err != nil {
			le := llm.Classify(err)
			return &Fail{Reason: Reason(le.Reason), Message: le.Message}
		}
		m.call = f
	}
	rt.model = model
	m.rt = rt
	m.ctx = context.WithValue(m.parent, treeKey{}, m.rt)
	if t := m.a.cfg.MissionTimeout; t > 0 {
		m.ctx, m.stop = context.WithTimeout(m.ctx, t)
	}
	m.fw = newFirewall(m.a, m.context, parentFW)
	// A chained Step's value comes with what its mission hid: copies of its
	// firewalled data under public fields stay hidden here too.
	m.fw.Absorb(m.upstreamFW)
	m.fw.MarkCopies(m.rawContext, m.context)
	rt.fw = m.fw
	if fail := m.expandPrompt(); fail != nil {
		return fail
	}
	if m.a.cfg.Presentation.LanguageFunc == nil {
		m.system = m.systemPrompt()
	}
	return nil
}

// maxPromptBytes bounds the expanded mission prompt: data belongs in the
// context, where programs read it, not in the first message.
const maxPromptBytes = 1 << 20

// expandPrompt fills in the mission prompt, the first user message, behind
// the firewall: collections print with their firewalled parts hidden, and
// the text is scrubbed like any other LLM-bound text. (Placeholders that
// name a firewalled field are refused by New.)
func (m *mission) expandPrompt() *Fail {
	prompt, err := m.a.prompt.Execute(m.context, template.WithPrintOptions(lisp.PrintOptions{
		FloatPrecision: max(m.a.cfg.Presentation.FloatPrecision, 0),
		Redact:         m.fw.Redaction(),
	}), template.WithMaxBytes(maxPromptBytes))
	if err != nil {
		return &Fail{Reason: ReasonTemplateError, Message: m.fw.Scrub(err.Error())}
	}
	m.prompt = m.fw.Scrub(prompt)
	if m.a.inputInMessage {
		if inv, _ := m.inventory(); inv != "" {
			m.prompt += "\n\n" + inv // scrubbed by inventory
		}
	}
	m.messages = []llm.Message{{Role: llm.User, Content: m.prompt}}
	return nil
}

func newTraceID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func estimateTokens(s string) int { return (len(s) + 3) / 4 }

// setContext converts Options.Input, handles chaining and validates the
// input against the signature's parameters.
func (m *mission) setContext() *Fail {
	raw := m.opts.Input
	sigText := m.opts.InputSignature
	if s, ok := raw.(*Step); ok {
		if s == nil {
			raw = nil
		} else {
			if s.Fail != nil {
				details := map[string]any{"upstream": s.Fail}
				what := "the previous step failed"
				if st := m.opts.stage; st != nil {
					what = fmt.Sprintf("stage %d of the pipeline (%s) failed", st.index, describeStage(st.agent))
					details["stage"], details["stage_agent"] = st.index, st.agent
				}
				return &Fail{Reason: ReasonChainedFailure, Message: what + ": " + s.Fail.Error(), Details: details}
			}
			raw = s.Return
			m.upstreamFW = s.fw
			if s.Signature != nil {
				m.ctxSig = s.Signature
			}
			m.fieldDocs = s.fieldDescriptions
		}
	}
	if sigText != "" {
		sig, err := signature.Parse(sigText)
		if err != nil {
			return &Fail{Reason: ReasonValidationError, Message: "InputSignature: " + err.Error()}
		}
		m.ctxSig = sig
	}
	var ctxMap *lisp.Map
	switch c := raw.(type) {
	case nil:
		ctxMap = lisp.NewMap()
	case *lisp.Map:
		ctxMap = c
	default:
		m.callback = "Options.Input" // FromGo calls the host's MarshalJSON
		v, err := lisp.FromGo(c)
		m.callback = ""
		if err != nil {
			return &Fail{Reason: ReasonValidationError, Message: "context: " + err.Error()}
		}
		switch v := v.(type) {
		case *lisp.Map:
			ctxMap = v
		case nil:
			ctxMap = lisp.NewMap()
		default:
			return &Fail{Reason: ReasonValidationError,
				Message: fmt.Sprintf("the context must be a map, got %s", lisp.TypeName(v))}
		}
	}
	// Inputs are checked against the signature's parameters, with the
	// coercions LLM-written arguments need (a nested agent's inputs come
	// from its parent's program).
	m.rawContext = ctxMap
	m.warnings = append(m.warnings, m.a.toolWarnings...)
	if sig := m.a.sig; sig != nil && len(sig.Params) > 0 && m.opts.Validation != signature.Disabled {
		coerced, warnings, err := sig.CoerceInput(ctxMap, m.opts.Validation)
		if err != nil {
			return &Fail{Reason: ReasonValidationError, Message: "input: " + err.Error(), Details: issueDetails(err)}
		}
		for _, w := range warnings {
			m.warnings = append(m.warnings, "input: "+w.String())
		}
		if coerced != nil {
			ctxMap = coerced
		}
	}
	m.context = ctxMap
	return nil
}

func issueDetails(err error) map[string]any {
	var ve *signature.ValidationError
	if !errors.As(err, &ve) {
		return nil
	}
	issues := make([]any, len(ve.Issues))
	for i, is := range ve.Issues {
		issues[i] = is.String()
	}
	return map[string]any{"issues": issues}
}

// beforeTurn checks the limits that end a mission between turns.
func (m *mission) beforeTurn() *Fail {
	if err := m.ctx.Err(); err != nil {
		return m.contextFail(err)
	}
	if m.turn >= m.a.cfg.MaxTurns+m.a.retries {
		return &Fail{Reason: ReasonMaxTurnsExceeded,
			Message: fmt.Sprintf("no (return ...) or (fail ...) within %d turns", m.a.cfg.MaxTurns)}
	}
	if m.rt.budget.Add(-1) < 0 {
		return m.budgetFail()
	}
	m.rt.spend.add(m.spenderName(), m.turn == 0)
	m.turn++
	return nil
}

// depthFail is the failure of a mission nested past the tree's MaxDepth.
func (rt *tree) depthFail() *Fail {
	if rt.depth < rt.maxDepth {
		return nil
	}
	return &Fail{Reason: ReasonMaxDepthExceeded, Message: fmt.Sprintf(
		"this agent would run at nesting level %d, past the limit of %d levels (the smallest MaxNesting of the agents above it)",
		rt.depth+1, rt.maxDepth)}
}

// budgetFail is the end of a mission for lack of turns in the tree's
// budget, which the root's MaxTreeTurns sets: the message says who used the
// turns and what to raise.
func (m *mission) budgetFail() *Fail {
	who := m.rt.spend.String()
	if who != "" {
		who = ": " + who
	}
	if m.rt.depth == 0 && m.nested.empty() {
		return &Fail{Reason: ReasonTurnBudgetExhausted, Message: fmt.Sprintf(
			"the mission used its budget of %d turns (MaxTreeTurns), nested agents included%s; raise Config.MaxTreeTurns",
			m.rt.budgetSize, who)}
	}
	return &Fail{Reason: ReasonTurnBudgetExhausted, Message: fmt.Sprintf(
		"the mission tree used its budget of %d turns (the root agent's MaxTreeTurns)%s; raise the root agent's Config.MaxTreeTurns",
		m.rt.budgetSize, who)}
}

// contextFail explains why the mission's context ended.
func (m *mission) contextFail(err error) *Fail {
	if errors.Is(err, context.DeadlineExceeded) && m.stop != nil && m.parent.Err() == nil {
		return &Fail{Reason: ReasonMissionTimeout,
			Message: fmt.Sprintf("the mission ran longer than its %v timeout", m.a.cfg.MissionTimeout)}
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return &Fail{Reason: ReasonMissionTimeout, Message: "the caller's deadline passed"}
	}
	return &Fail{Reason: ReasonCancelled, Message: "the caller cancelled the mission"}
}

// finish builds the Step.
func (m *mission) finish(value lisp.Value, fail *Fail) *Step {
	step := &Step{
		Fail:              fail,
		Memory:            m.memory,
		Signature:         m.a.sig,
		TraceID:           m.traceID,
		SystemPrompt:      m.firstSystem,
		fieldDescriptions: m.a.cfg.FieldDescriptions,
		fw:                m.fw,
	}
	if fail == nil {
		step.Return = roundFloats(value, m.a.cfg.Presentation.FloatPrecision)
		m.fw.MarkCopies(value, step.Return)
	}
	m.account()
	step.Usage = Usage{
		Turns:          m.turn,
		LLMRequests:    m.requests,
		Tokens:         m.tokens,
		Duration:       m.since(m.start),
		Programs:       m.programs,
		CachedPrograms: m.cachedPrograms,
	}
	step.memoryBytes = m.memoryBytes()
	m.nested.mu.Lock()
	step.TotalUsage = step.Usage.plus(m.nested.usage)
	m.nested.mu.Unlock()
	step.Warnings = veil{m.fw}.ScrubAll(m.warnings) // for display: coercions echo values
	switch m.opts.Trace {
	case TraceOn, TraceConversation:
		step.Trace = m.trace
	case TraceOnError:
		if fail != nil {
			step.Trace = m.trace
		}
	}
	if m.opts.Trace == TraceConversation {
		system := m.lastSystem
		if system == "" {
			system = m.system
		}
		step.Messages = append([]llm.Message{{Role: llm.System, Content: system}}, m.messages...)
	}
	return step
}
