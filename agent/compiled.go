package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/ptc-go/ptc/agent/prompt"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm"
	"github.com/ptc-go/ptc/signature"
)

// CompiledAgent is an agent whose logic an LLM wrote once: the program that
// ended a mission, kept to run again on new inputs without any LLM. Build
// one with Agent.Compile, or load a saved one with LoadCompiled. It is
// immutable and safe for concurrent use.
type CompiledAgent struct {
	a    *Agent // the definition: signature, tools, limits, float precision
	prog *lisp.Program
	// at is when the compiling mission ended, by is the name of the model
	// that wrote the program ("" when it was not an llm.Name).
	at time.Time
	by string
	// step is the compiling mission's Step; for a loaded agent, a summary
	// of it (its TraceID and Usage); nil for CompileSource's.
	step *Step
}

// savedMetadata is the JSON of a compilation's metadata in a saved compiled
// agent. Files written before "usage" have its fields at the top level
// (turns, llm_requests, tokens); LoadCompiled reads both.
type savedMetadata struct {
	CompiledAt time.Time   `json:"compiled_at"`
	Model      string      `json:"model,omitempty"`
	Usage      *savedUsage `json:"usage,omitempty"`
	TraceID    string      `json:"trace_id,omitempty"`
	// The old shape's.
	Turns       int         `json:"turns,omitempty"`
	LLMRequests int         `json:"llm_requests,omitempty"`
	Tokens      *llm.Tokens `json:"tokens,omitempty"`
}

type savedUsage struct {
	Turns       int        `json:"turns"`
	LLMRequests int        `json:"llm_requests"`
	Tokens      llm.Tokens `json:"tokens"`
	DurationMS  int64      `json:"duration_ms,omitempty"`
}

func (c *CompiledAgent) savedMetadata() savedMetadata {
	m := savedMetadata{CompiledAt: c.at, Model: c.by}
	if c.step != nil {
		u := c.step.Usage
		m.TraceID = c.step.TraceID
		m.Usage = &savedUsage{Turns: u.Turns, LLMRequests: u.LLMRequests, Tokens: u.Tokens,
			DurationMS: u.Duration.Milliseconds()}
	}
	return m
}

// summary is the Step a loaded agent's CompileStep returns: the compiling
// mission's trace id and usage, all a saved agent keeps of it.
func (s savedMetadata) summary() *Step {
	if s.TraceID == "" && s.Usage == nil && s.Turns == 0 && s.LLMRequests == 0 && s.Tokens == nil {
		return nil // CompileSource's: no mission
	}
	step := &Step{TraceID: s.TraceID}
	if u := s.Usage; u != nil {
		step.Usage = Usage{Turns: u.Turns, LLMRequests: u.LLMRequests, Tokens: u.Tokens,
			Duration: time.Duration(u.DurationMS) * time.Millisecond}
		return step
	}
	step.Usage = Usage{Turns: s.Turns, LLMRequests: s.LLMRequests}
	if s.Tokens != nil {
		step.Usage.Tokens = *s.Tokens
	}
	return step
}

// Compile runs a mission of a once, with an LLM, on opts.Input as a
// sample input, and keeps the program that ended it. The model is told
// that its final program will be kept and run on other inputs, so it must
// read them from ctx and must not rely on values from its earlier turns; a
// final program that does (reading a def or memory/x of an earlier turn,
// or *1) is refused and fed back like a value that breaks the signature.
//
// Only agents whose tools are plain functions (or compiled agents) compile:
// an agent tool or an LLM tool is an error for which errors.Is(err,
// ReasonNotCompilable) holds. A failed mission is an *Error with its Step.
func (a *Agent) Compile(ctx context.Context, opts Options) (*CompiledAgent, error) {
	if !a.made() {
		return nil, errNotMade("Compile")
	}
	if a.textMode || a.toolMode {
		return nil, &Fail{Op: "Mode", Reason: ReasonNotCompilable,
			Message: fmt.Sprintf("a %s-mode agent's model writes no program: there is nothing to compile", a.cfg.Mode)}
	}
	for _, name := range a.names {
		if bt := a.tools[name]; bt.needsLLM() {
			return nil, &Fail{Op: "Tools", Reason: ReasonNotCompilable, Message: fmt.Sprintf(
				"tool %s is an %s: every call of it needs an LLM, so the agent cannot be compiled (only plain functions and compiled agents can)",
				name, bt.kind())}
		}
	}
	m := newMission(ctx, treeFrom(ctx), a, opts)
	m.compiling = true
	step := m.runGuarded()
	if step.Fail != nil {
		return nil, &Error{Step: step}
	}
	if m.final == "" {
		// ReturnPartialOnBudget ended it with an earlier turn's value.
		return nil, fmt.Errorf("agent: compile: the mission ended without a final program (%d turns)", step.Usage.Turns)
	}
	prog, _, err := m.programCache().Compile(m.parent, m.final)
	if err != nil { // it ran: it compiles
		return nil, fmt.Errorf("agent: compile: the final program does not compile again: %w", err)
	}
	c := &CompiledAgent{a: a, prog: prog, at: m.now().UTC(), step: step}
	if name, ok := m.rt.model.(llm.Name); ok {
		c.by = string(name)
	}
	return c, nil
}

// CompileSource returns a compiled agent that runs source, a program
// written elsewhere (by a person, or by the model of an MCP client), with
// a's tools, limits and signature: Execute runs it with no LLM, exactly as
// it runs the program Compile keeps. The program is compiled and checked
// now: a syntax or analysis error is a *lisp.Error (with errors.As) with
// its position, and a program that reads the state of earlier turns (a
// def it does not make, memory/x, *1) is refused, since it has none. Tools
// that need an LLM cannot be called (errors.Is(err, ReasonNotCompilable)).
// CompiledAt, CompiledBy and CompileStep are zero.
func (a *Agent) CompileSource(source string) (*CompiledAgent, error) {
	if !a.made() {
		return nil, errNotMade("CompileSource")
	}
	if a.textMode || a.toolMode {
		return nil, &Fail{Op: "Mode", Reason: ReasonNotCompilable,
			Message: fmt.Sprintf("a %s-mode agent's model writes no program: there is nothing to compile", a.cfg.Mode)}
	}
	for _, name := range a.names {
		if bt := a.tools[name]; bt.needsLLM() {
			return nil, &Fail{Op: "Tools", Reason: ReasonNotCompilable,
				Message: fmt.Sprintf("tool %s is an %s, which a compiled program cannot call", name, bt.kind())}
		}
	}
	prog, _, err := a.programs.Compile(context.Background(), source)
	if err != nil {
		return nil, err
	}
	if deps := prog.Dependencies(); !deps.SelfContained() {
		var parts []string
		if len(deps.Vars) > 0 {
			parts = append(parts, "it reads "+strings.Join(deps.Vars, ", ")+", which it never defines")
		}
		if deps.History {
			parts = append(parts, "it reads *1, *2 or *3")
		}
		if deps.ComputedKeys {
			parts = append(parts, "it reads memory under a computed key, (memory/get k)")
		}
		return nil, fmt.Errorf("agent: the program runs on its own, with no earlier turns, but %s", strings.Join(parts, "; "))
	}
	return &CompiledAgent{a: a, prog: prog}, nil
}

// made reports whether c was made by Compile, CompileSource or
// LoadCompiled: the methods of a nil or zero CompiledAgent return zero
// values or an error, never panic.
func (c *CompiledAgent) made() bool { return c != nil && c.a.made() && c.prog != nil }

func errCompiledNotMade(method string) *Fail {
	return configErr("CompiledAgent", method+": the compiled agent is nil or was not made by Compile, CompileSource or LoadCompiled")
}

// Source returns the program's text, for review.
func (c *CompiledAgent) Source() string {
	if !c.made() {
		return ""
	}
	return c.prog.Source()
}

// Signature returns the contract inputs and outputs are checked against
// (nil without one).
func (c *CompiledAgent) Signature() *signature.Signature {
	if !c.made() {
		return nil
	}
	return c.a.sig
}

// CompiledAt is when the compiling mission ended (zero for CompileSource's
// agents).
func (c *CompiledAgent) CompiledAt() time.Time {
	if c == nil {
		return time.Time{}
	}
	return c.at
}

// CompiledBy is the name of the model that wrote the program, when the
// compiling run named it (an llm.Name); "" otherwise.
func (c *CompiledAgent) CompiledBy() string {
	if c == nil {
		return ""
	}
	return c.by
}

// Description is the agent's Config.Description.
func (c *CompiledAgent) Description() string {
	if !c.made() {
		return ""
	}
	return c.a.cfg.Description
}

// CompileStep returns the Step of the compiling mission, with its trace,
// usage and trace id. An agent loaded with LoadCompiled keeps only its
// TraceID and Usage (turns, LLM requests, tokens, duration); one made by
// CompileSource has none (nil).
func (c *CompiledAgent) CompileStep() *Step {
	if c == nil {
		return nil
	}
	return c.step
}

// Execute runs the program on input, with no LLM. input is a map (or a
// struct, a *lisp.Map, or a successful *Step whose return value it takes)
// of the signature's parameters, checked and coerced against them;
// the value is checked against the signature's output, a mismatch being a
// failure with reason validation_error, never a wrong result. Every limit
// of the agent's Config.Limits holds, floats are rounded to its
// FloatPrecision, and the texts of a failure are scrubbed by the firewall
// as a mission's are (a caller's LLM may read them). A program that ends
// without (return v) answers with its value. The Step has one turn in its
// trace, with the program's tool calls and output; its usage counts no
// turn and no LLM request.
//
// The error is an *Error wrapping the Step when the execution fails.
func (c *CompiledAgent) Execute(ctx context.Context, input any) (*Step, error) {
	if !c.made() {
		return nil, errCompiledNotMade("Execute")
	}
	// Run from a tool's Go code, the execution joins the caller's tree:
	// the caller's LLM must not see what it firewalled.
	parent := treeFrom(ctx)
	step, fw := c.execute(ctx, parent, input, nil)
	parent.adopt(step, fw)
	if step.Fail != nil {
		return step, &Error{Step: step}
	}
	return step, nil
}

// execute runs the program in the tree of its caller, parent (nil: a
// root); up is the caller's firewall when the compiled agent is a tool of
// a mission. A panic (of the host: converting the input) ends it with
// internal_error, as it ends a mission.
func (c *CompiledAgent) execute(ctx context.Context, parent *tree, input any, up *firewall) (step *Step, fw *firewall) {
	if ctx == nil {
		ctx = context.Background()
	}
	opts := Options{Input: input}
	// A compiled agent is a level of the tree like any agent: its program
	// can call compiled agents, one of which could be itself.
	rt := &tree{maxDepth: c.a.cfg.MaxNesting, budget: new(atomic.Int64)}
	if parent != nil {
		opts.Trace = parent.trace
		copied := *parent
		rt = &copied
		rt.depth++
		rt.maxDepth = min(rt.maxDepth, c.a.cfg.MaxNesting)
		if up == nil {
			up = parent.fw
		}
	}
	m := newMission(ctx, parent, c.a, opts)
	defer func() {
		if step == nil {
			step, fw = m.crashed(recover()), m.fw
		}
	}()
	m.begin()
	rt.obs, rt.callIDs = m.obs, m.callIDs
	if fail := rt.depthFail(); fail != nil {
		return m.endWith(m.finish(nil, fail)), nil
	}
	if fail := m.setContext(); fail != nil {
		return m.endWith(m.finish(nil, fail)), nil
	}
	m.fw = newFirewall(c.a, m.context, up)
	m.fw.MarkCopies(m.rawContext, m.context)
	rt.traceID, rt.fw, rt.nested = m.traceID, m.fw, &m.nested
	m.rt = rt
	m.ctx = context.WithValue(ctx, treeKey{}, rt)
	if t := c.a.cfg.MissionTimeout; t > 0 {
		m.ctx, m.stop = context.WithTimeout(m.ctx, t)
		defer m.stop()
	}
	if err := m.ctx.Err(); err != nil {
		return m.endWith(m.finish(nil, m.contextFail(err))), m.fw
	}
	value, fail := m.runCompiled(c.prog)
	return m.endWith(m.finish(value, fail)), m.fw
}

// runCompiled runs a compiled program once and records it in the trace as
// a turn. It reports no turn events: a compiled agent has no turns (its
// Usage counts none, its tool calls' events have Turn 0).
func (m *mission) runCompiled(prog *lisp.Program) (lisp.Value, *Fail) {
	start := m.now()
	tr := Turn{Program: prog.Source()}
	defer func() {
		tr.Usage.Duration, tr.Usage.Programs = m.since(start), 1
		if m.opts.Trace != TraceOff {
			m.trace = append(m.trace, tr)
		}
	}()
	priorMemory := m.memory
	m.running.Store(&runningTurn{prog: prog, memory: priorMemory})
	res, err := m.runLisp(&tr, m.context, prog.Run)
	m.running.Store(nil)
	// What its caller is shown of what the program computed from
	// firewalled values is derived as a turn's is (flow.go).
	st := m.shadowRun(&tr, prog, priorMemory, nil, nil)
	if st != nil {
		m.deriveOutput(&tr, st)
		m.deriveCalls(&tr, st)
	}
	if err != nil {
		le := asLispError(err)
		if fail := m.endedByContext(le); fail != nil {
			tr.Error = fail.Message
			return nil, fail
		}
		detail := m.clip(le.Detailed(), maxFailChars)
		if st != nil {
			detail = m.deriveError(le, detail, st)
		}
		msg := detail + m.exData(le)
		tr.Error = msg
		return nil, programFail(le, msg)
	}
	m.memory = res.Namespace
	tr.Result = res.Value
	m.fw.AddMemory(m.memory)
	m.fw.Add(res.Value, false)
	if st != nil && m.deriveTurn(&tr, res, st) {
		tr.Result = Firewalled
	}
	if res.Status == lisp.Failed {
		fail := m.programFailValue(res.Value)
		tr.Error = fail.Message
		return nil, fail
	}
	if issues := m.validateReturn(res.Value); issues != nil {
		fail := &Fail{Reason: ReasonValidationError, Details: issueDetails(issues),
			Message: m.clip("the value does not match the signature: "+issueText(issues), maxFailChars)}
		tr.Error = fail.Message
		return nil, fail
	}
	return res.Value, nil
}

// AsTool returns a tool that executes the compiled program: no LLM is
// called, and the caller's per-program Timeout counts the execution like
// any tool's. The description defaults to the agent's, else one derived
// from its prompt.
// opts.LLM must be nil.
func (c *CompiledAgent) AsTool(opts AsToolOptions) (Tool, error) {
	if !c.made() {
		return Tool{}, errCompiledNotMade("AsTool")
	}
	if opts.LLM != nil {
		return Tool{}, configErr("LLM", "a compiled agent calls no LLM: leave AsToolOptions.LLM nil")
	}
	if opts.TokenLimit != 0 {
		return Tool{}, configErr("TokenLimit", "a compiled agent calls no LLM: leave AsToolOptions.TokenLimit zero")
	}
	desc := opts.Description
	if desc == "" {
		desc = c.a.cfg.Description
	}
	if strings.TrimSpace(desc) == "" {
		desc = derivedDescription("Runs a compiled program (no LLM)", c.a.cfg.Prompt)
	}
	sig := opts.Signature
	if sig == "" && c.a.sig != nil {
		sig = c.a.sig.String()
	}
	if sig != "" {
		if _, err := signature.Parse(sig); err != nil {
			return Tool{}, &Fail{Op: "Signature", Reason: ReasonInvalidSignature, Message: err.Error(), cause: err}
		}
	}
	run := func(ctx context.Context, args *lisp.Map) (any, error) {
		if args == nil {
			args = lisp.NewMap()
		}
		parent := treeFrom(ctx)
		step, fw := c.execute(ctx, parent, args, nil)
		parent.adopt(step, fw)
		if step.Fail != nil {
			return nil, &Error{Step: step}
		}
		return step.Return, nil
	}
	return Tool{Func: run, Signature: sig, Description: desc, compiled: c}, nil
}

// compiledFormat names the saved form's version.
const compiledFormat = "ptc-compiled-agent/1"

// savedCompiled is the JSON form of a compiled agent.
type savedCompiled struct {
	Format            string            `json:"format"`
	Source            string            `json:"source"`
	Signature         string            `json:"signature,omitempty"`
	Description       string            `json:"description,omitempty"`
	Prompt            string            `json:"prompt"`
	FieldDescriptions map[string]string `json:"field_descriptions,omitempty"`
	Tools             []string          `json:"tools,omitempty"`
	FloatPrecision    int               `json:"float_precision"`
	Limits            savedLimits       `json:"limits"`
	// MissionTimeoutMS, like the limits' timeout_ms: absent (0) for the
	// default, -1 for none (see savedMS).
	MissionTimeoutMS int64         `json:"mission_timeout_ms,omitempty"`
	Metadata         savedMetadata `json:"metadata"`
}

// savedLimits are lisp.Limits with explicit units.
type savedLimits struct {
	TimeoutMS         int64 `json:"timeout_ms,omitempty"`
	MaxSteps          int64 `json:"max_steps,omitempty"`
	MaxDepth          int   `json:"max_depth,omitempty"`
	MaxLoopIterations int   `json:"max_loop_iterations,omitempty"`
	MaxOutputBytes    int   `json:"max_output_bytes,omitempty"`
	MaxToolCalls      int   `json:"max_tool_calls,omitempty"`
	MaxMemory         int64 `json:"max_memory,omitempty"`
	MaxParallel       int   `json:"max_parallel,omitempty"`
}

// MarshalJSON saves the compiled agent: its program, its contract, the
// names of the tools it needs, its limits and the compilation's metadata,
// readable in code review. LoadCompiled reads it back.
func (c *CompiledAgent) MarshalJSON() ([]byte, error) {
	if !c.made() {
		return nil, errCompiledNotMade("MarshalJSON")
	}
	cfg := c.a.cfg
	l := cfg.Limits
	s := savedCompiled{
		Format:            compiledFormat,
		Source:            c.prog.Source(),
		Description:       cfg.Description,
		Prompt:            cfg.Prompt,
		FieldDescriptions: cfg.FieldDescriptions,
		Tools:             slices.Clone(c.a.names),
		FloatPrecision:    cfg.Presentation.FloatPrecision,
		MissionTimeoutMS:  savedMS(cfg.MissionTimeout),
		Metadata:          c.savedMetadata(),
		Limits: savedLimits{
			TimeoutMS: savedMS(l.Timeout), MaxSteps: l.MaxSteps, MaxDepth: l.MaxDepth,
			MaxLoopIterations: l.MaxLoopIterations, MaxOutputBytes: l.MaxOutputBytes,
			MaxToolCalls: l.MaxToolCalls, MaxMemory: l.MaxMemory, MaxParallel: l.MaxParallel,
		},
	}
	if c.a.sig != nil {
		s.Signature = c.a.sig.String()
	}
	return json.MarshalIndent(s, "", "  ")
}

// savedMS writes a duration of the saved form in whole milliseconds so
// that it reads back with its meaning: -1 for none (any negative), and a
// positive one rounded up (0 would read back as the default).
func savedMS(d time.Duration) int64 {
	switch {
	case d < 0:
		return -1
	case d > 0:
		return int64((d + time.Millisecond - 1) / time.Millisecond)
	}
	return 0
}

// LoadCompiled reads a compiled agent saved with json.Marshal, binding it
// to tools: every tool it was compiled with must be given (extra ones are
// ignored), and none may need an LLM. The program is compiled and checked
// again, so a hand-edited file fails here rather than at its first run.
func LoadCompiled(data []byte, tools map[string]Tool) (*CompiledAgent, error) {
	var s savedCompiled
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("agent: LoadCompiled: %w", err)
	}
	if s.Format != compiledFormat {
		return nil, fmt.Errorf("agent: LoadCompiled: format %q, want %q", s.Format, compiledFormat)
	}
	bound := make(map[string]Tool, len(s.Tools))
	for _, name := range s.Tools {
		t, ok := tools[name]
		if !ok {
			have := slices.Sorted(maps.Keys(tools))
			return nil, fmt.Errorf("agent: LoadCompiled: the program needs tool %s, which is not given (given: %s)",
				name, toolList(have))
		}
		bound[name] = t
	}
	if s.Prompt == "" {
		s.Prompt = "(compiled)"
	}
	l := s.Limits
	a, err := New(Config{
		Prompt:            s.Prompt,
		Signature:         s.Signature,
		Description:       s.Description,
		FieldDescriptions: s.FieldDescriptions,
		Tools:             bound,
		Presentation:      prompt.Options{FloatPrecision: s.FloatPrecision},
		MissionTimeout:    time.Duration(s.MissionTimeoutMS) * time.Millisecond,
		Limits: lisp.Limits{
			Timeout: time.Duration(l.TimeoutMS) * time.Millisecond, MaxSteps: l.MaxSteps, MaxDepth: l.MaxDepth,
			MaxLoopIterations: l.MaxLoopIterations, MaxOutputBytes: l.MaxOutputBytes,
			MaxToolCalls: l.MaxToolCalls, MaxMemory: l.MaxMemory, MaxParallel: l.MaxParallel,
		},
	})
	if err != nil {
		return nil, fmt.Errorf("agent: LoadCompiled: %w", err)
	}
	if a.textMode || a.toolMode {
		return nil, &Fail{Op: "Mode", Reason: ReasonNotCompilable,
			Message: fmt.Sprintf("a %s-mode agent's model writes no program: there is nothing to compile", a.cfg.Mode)}
	}
	for _, name := range a.names {
		if bt := a.tools[name]; bt.needsLLM() {
			return nil, &Fail{Op: "Tools", Reason: ReasonNotCompilable,
				Message: fmt.Sprintf("tool %s is an %s, which a compiled agent cannot call", name, bt.kind())}
		}
	}
	prog, err := lisp.Compile(s.Source)
	if err != nil {
		return nil, fmt.Errorf("agent: LoadCompiled: the program does not compile: %w", err)
	}
	if deps := prog.Dependencies(); !deps.SelfContained() {
		return nil, fmt.Errorf("agent: LoadCompiled: the program is not self-contained: %s", dependencyText(deps))
	}
	return &CompiledAgent{a: a, prog: prog, at: s.Metadata.CompiledAt, by: s.Metadata.Model, step: s.Metadata.summary()}, nil
}

// dependencyText says what a program needs of earlier turns.
func dependencyText(d lisp.Dependencies) string {
	var parts []string
	if len(d.Vars) > 0 {
		names := d.Vars
		if len(names) > 10 {
			names = append(slices.Clone(names[:10]), "...")
		}
		parts = append(parts, "it reads "+strings.Join(names, ", ")+", defined in an earlier turn")
	}
	if d.History {
		parts = append(parts, "it reads *1, *2 or *3, the values of earlier turns")
	}
	if d.ComputedKeys {
		parts = append(parts, "it reads memory under a computed key, (memory/get k)")
	}
	return strings.Join(parts, "; ")
}
