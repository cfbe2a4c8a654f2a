package agent

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"sync/atomic"
	"time"

	fwall "github.com/ptc-go/ptc/agent/internal/firewall"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm"
	"github.com/ptc-go/ptc/signature"
)

// Hooks hand a mission's side effects to an execution engine that records
// them, so that a mission can be run again from its start, deterministically,
// without repeating an LLM call or a tool call: package temporal runs
// missions as Temporal workflows this way. Everything else of the mission
// (prompts, programs, memory, feedback, the firewall, validation) runs as it
// does in-process.
//
// Set Options.Hooks to use them. Most programs never need to.
type Hooks struct {
	// LLM makes each LLM call of the mission in place of its model. The
	// agent's LLMRetry and LLMTimeout do not apply: the engine retries and
	// bounds the call. An error ends the mission as a failed LLM call does
	// (llm_error, or the error's own reason for an llm.ClassConfig error).
	// Nil: the model is called.
	LLM func(ctx context.Context, call LLMCall) (llm.Response, error)
	// Tool answers each tool call, its arguments checked and coerced
	// against the tool's signature first (a mismatch is the program's
	// error, and calls no hook). Calls of agent tools and LLM tools
	// (ToolCall.Nested) must be answered with the Step of the mission the
	// engine ran (moved as a raw trace, agent/trace's Marshal and Unmarshal
	// carry its firewall); other calls with what Agent.RunTool returns (a
	// compiled agent's Step, or the tool's value), or simply with the
	// tool's value. An error is the tool's error. Calls come concurrently
	// from pmap. Nil: the tools run.
	Tool func(ctx context.Context, call ToolRequest) (ToolResult, error)
	// Position, when set, places a mission that runs without a caller in a
	// mission tree: an engine that runs a nested agent's mission on its own
	// gives it the position its ToolRequest carried.
	Position *Position
	// TraceID, when set, is the mission's trace id, so that a mission run
	// again has the same one. Default: a random id.
	TraceID string
	// Now, when set, is the mission's clock: what the mission records as
	// a time or a duration reads it (Step.Usage.Duration and so
	// TotalUsage, each turn's Duration and LLMDuration, each tool call's
	// Start and Duration, events' Time and Duration, the Duration a
	// Budget callback is given, CompileMetadata.CompiledAt), so that an
	// engine that answers recorded calls at once can report the times
	// they took when they were made: it moves its clock on as it answers
	// each call (to the call's recorded end, say). A clock that stands
	// still, jumps or goes back gives no negative duration (0). It drives
	// no limit: Limits.Timeout, LLMTimeout, MissionTimeout, retry waits
	// and the context's deadline keep the real clock. The missions that
	// run in-process under this one (agent tools and LLM tools Tool does
	// not answer, compiled agents, agents a Go tool runs) read it too,
	// being part of its tree, unless their own Hooks set one. It is
	// called from concurrent goroutines (pmap, nested missions); a panic
	// in it reads the real clock. Nil: time.Now.
	Now func() time.Time
}

// LLMCall is an LLM call handed to Hooks.LLM.
type LLMCall struct {
	// Request is what the model would be sent.
	Request llm.Request
	// Model is the model the mission would call: the agent's own, the
	// run's, or the one inherited from its caller (nil when none is set).
	Model llm.Model
}

// ToolRequest is a tool call handed to Hooks.Tool.
type ToolRequest struct {
	// Name is the tool's name, Args its arguments after coercion.
	Name string
	Args *lisp.Map
	// Turn is the number of the mission's turn whose program makes the
	// call.
	Turn int
	// Nested is set for a tool that runs an agent's mission (Agent.AsTool,
	// NewLLMTool): the engine runs the mission of Agent, with Args as its
	// context, at Position, and answers with its Step.
	Nested bool
	// Agent is the agent a Nested tool runs, and Model the model bound to
	// the tool (nil: the agent's own, else the caller's).
	Agent *Agent
	Model llm.Model
	// TokenLimit is the tool's own limit (AsToolOptions.TokenLimit,
	// LLMToolConfig.TokenLimit): the Options.TokenLimit of the nested
	// mission. Zero: none.
	TokenLimit int
	// Position is where the nested mission runs in the tree, and, for
	// other tools, where the agents the call runs (a compiled agent, an
	// agent a Go tool runs) do: see Agent.RunTool.
	Position Position
}

// ToolResult answers a ToolRequest.
type ToolResult struct {
	// Value is the tool's result.
	Value lisp.Value
	// Step is the Step of a nested mission (ToolRequest.Nested), or of a
	// compiled agent's execution (Agent.RunTool); when it failed, the call
	// is the tool error a failed nested mission is. The caller's LLM does
	// not see what the Step's firewall hides.
	Step *Step
	// Firewall is what the agents a Go tool ran firewall in Value (opaque
	// data: store it as it is), and Usage what they used: the caller's
	// LLM does not see the one, its TotalUsage and budgets count the
	// other. Agent.RunTool sets them, also along with an error.
	Firewall []byte
	Usage    Usage
	// Duration, when positive, is the call's recorded Duration (in the
	// trace and the tool.stop event), the engine having timed the call
	// where it ran, so that calls answered together (pmap's) each keep
	// their own; otherwise the call's Duration is the difference of the
	// mission's clock (Hooks.Now) between the call and its answer.
	Duration time.Duration
}

// Position is where a mission runs in a mission tree.
type Position struct {
	// Depth is the mission's nesting level, 0 at the root.
	Depth int
	// MaxDepth is the limit of levels that applies to the mission: the
	// smallest MaxDepth of the agents above it.
	MaxDepth int
	// TurnsLeft is what is left of the tree's turn budget, and BudgetSize
	// the root's TurnBudget, which messages quote.
	TurnsLeft, BudgetSize int
	// ParentTraceID is the trace id of the mission that called this one.
	ParentTraceID string
	// Name is the name of the tool whose call runs the mission: the
	// mission's name (in events and messages) when its agent has none,
	// as in-process.
	Name string `json:",omitempty"`
	// CallerFirewall is what the missions above hide of the mission's
	// context (the call's arguments), opaque data to pass on as it is: the
	// mission's LLM does not see it either. Empty: nothing.
	CallerFirewall []byte `json:",omitempty"`
	// Tokens, when set, is what is left of the tightest token limit of the
	// missions above (their TokenLimit, a pipeline's, an agent tool's):
	// the mission and the agents it runs may use that many tokens, after
	// which it fails with budget_callback_exceeded, its Details saying
	// which mission went over. Nil: no limit above.
	Tokens *TokenAllowance `json:",omitempty"`
}

// NestedTool reports the agent that answers the calls of t and the model
// bound to it (nil: the agent's own, else the caller's), when t is an agent
// tool or an LLM tool; ok is false for other tools.
func (t Tool) NestedTool() (a *Agent, model llm.Model, ok bool) {
	if t.nested == nil {
		return nil, nil, false
	}
	return t.nested.a, t.nested.llm, true
}

// ToolNames returns the names of the agent's tools, sorted.
func (a *Agent) ToolNames() []string {
	if a == nil {
		return nil
	}
	names := make([]string, 0, len(a.tools))
	for n := range a.tools {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// ErrUnknownTool is the error of CallTool for a name the agent has no tool
// for.
var ErrUnknownTool = errors.New("agent: unknown tool")

// CallTool runs the agent's tool name from Go, as a program's call would:
// the arguments checked and coerced against its signature, a panic turned
// into an error, the result converted to a PTC-Lisp value. It is how an
// engine that answers Hooks.Tool runs the call elsewhere. An agent tool
// or an LLM tool runs its mission as a root mission.
func (a *Agent) CallTool(ctx context.Context, name string, args *lisp.Map) (v lisp.Value, err error) {
	if !a.made() {
		return nil, errNotMade("CallTool")
	}
	bt, ok := a.tools[name]
	if !ok {
		return nil, fmt.Errorf("%w: %s", ErrUnknownTool, name)
	}
	if args == nil {
		args = lisp.NewMap()
	}
	defer func() {
		if r := recover(); r != nil {
			v, err = nil, fmt.Errorf("the tool panicked: %v", r)
		}
	}()
	res, _, err := bt.call(ctx, args, signature.Enabled)
	if err != nil {
		return nil, err
	}
	return lisp.FromGo(res)
}

// RunTool answers a ToolRequest as the mission that made it would have
// run the call in-process, for an engine that runs tool calls elsewhere
// (package temporal runs them as activities): the arguments checked and
// coerced against the tool's signature, a panic an error. The agents the
// call runs (a compiled agent's program, the agents a Go tool runs with
// Run, Execute or an agent tool's Func under the ctx it is given) run at
// req.Position in the mission tree: its depth, its turns and tokens left,
// and behind what its callers firewall. A compiled agent's call is
// answered with its Step; any other with its value, and with the firewall
// and the usage of the agents it ran (ToolResult.Firewall, Usage), set
// along with an error too. Return the result to Hooks.Tool as it is.
//
// Agent tools and LLM tools (ToolRequest.Nested) are missions the engine
// runs itself; RunTool refuses them. The agents a Go tool runs here have
// no model but their own Config.LLM.
func (a *Agent) RunTool(ctx context.Context, req ToolRequest) (res ToolResult, err error) {
	if !a.made() {
		return ToolResult{}, errNotMade("RunTool")
	}
	bt, ok := a.tools[req.Name]
	if !ok {
		return ToolResult{}, fmt.Errorf("%w: %s", ErrUnknownTool, req.Name)
	}
	if bt.nested != nil {
		return ToolResult{}, fmt.Errorf("agent: RunTool: tool %s is an %s, whose mission the engine runs (ToolRequest.Nested)",
			req.Name, bt.kind())
	}
	args := req.Args
	if args == nil {
		args = lisp.NewMap()
	}
	rt, err := hostTree(req.Position, args)
	if err != nil {
		return ToolResult{}, err
	}
	ctx = context.WithValue(ctx, treeKey{}, rt)
	defer func() {
		if r := recover(); r != nil {
			res, err = ToolResult{Usage: rt.nested.total()}, fmt.Errorf("the tool panicked: %v", r)
		}
	}()
	if bt.compiled != nil {
		coerced, _, err := bt.coerceArgs(args, signature.Enabled)
		if err != nil {
			return ToolResult{}, err
		}
		step, _ := bt.compiled.execute(ctx, rt, coerced, nil)
		return ToolResult{Step: step}, nil
	}
	out, _, err := bt.call(ctx, args, signature.Enabled)
	var v lisp.Value
	if err == nil {
		v, err = lisp.FromGo(out)
	}
	res = ToolResult{Value: v, Usage: rt.nested.total()}
	if !rt.fw.OwnEmpty() {
		res.Firewall = fwall.Marshal(rt.fw, v, false)
	}
	return res, err
}

// hostTree is the tree of a mission that made a tool call at pos,
// run elsewhere: it records what the agents the call runs firewall and
// use. A zero Position places them at the top of a tree of their own.
func hostTree(pos Position, args *lisp.Map) (*tree, error) {
	up, err := fwall.Unmarshal(pos.CallerFirewall, args)
	if err != nil {
		return nil, err
	}
	rt := &tree{depth: pos.Depth - 1, maxDepth: pos.MaxDepth, budgetSize: pos.BudgetSize, traceID: pos.ParentTraceID,
		fw: fwall.New(nil, up), nested: &nested{}, callIDs: new(atomic.Uint64)}
	if pos.Depth == 0 && pos.MaxDepth == 0 {
		rt.maxDepth = math.MaxInt // no tree: the agents' own limits
	} else {
		rt.budget = new(atomic.Int64)
		rt.budget.Store(int64(pos.TurnsLeft))
	}
	if t := pos.Tokens; t != nil {
		rt.limit = &treeLimit{limit: max(t.Left, 0), remote: true, total: t.Limit, setBy: t.SetBy, start: time.Now()}
	}
	return rt, nil
}

// hooks returns the mission's hooks, nil when it has none.
func (m *mission) hooks() *Hooks { return m.opts.Hooks }

// hookedLLM makes an LLM call through Hooks.LLM, a panic an error.
func (m *mission) hookedLLM(h *Hooks, req llm.Request) (resp llm.Response, err error) {
	m.requests++
	defer func() {
		if p := recover(); p != nil {
			err = &llm.Error{Class: llm.ClassUnknown, Message: fmt.Sprintf("the LLM hook panicked: %v", p)}
		}
	}()
	if err := m.ctx.Err(); err != nil {
		return llm.Response{}, err
	}
	return h.LLM(m.ctx, LLMCall{Request: req, Model: m.rt.model})
}

// hookedTool answers a call of a plain or compiled tool through Hooks.Tool.
// What the agents the call ran firewalled and used (ToolResult.Firewall,
// Usage) is the mission's, as when they run in-process.
func (tc *toolCalls) hookedTool(ctx context.Context, h *Hooks, bt *boundTool, args *lisp.Map) (r ToolResult, warnings []signature.Issue, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("the tool hook panicked: %v", p)
		}
	}()
	m := tc.m
	coerced := args
	if m.opts.Validation != signature.Disabled || bt.typ != nil {
		mode := m.opts.Validation
		if mode == signature.Disabled {
			mode = signature.Enabled
		}
		coerced, warnings, err = bt.coerceArgs(args, mode)
		if err != nil {
			return ToolResult{}, warnings, err
		}
	}
	r, err = h.Tool(ctx, ToolRequest{Name: bt.name, Args: coerced, Turn: m.turn, Position: m.childPosition(bt.name, coerced)})
	if r.Usage != (Usage{}) {
		m.nested.add(&Step{TotalUsage: r.Usage}, nil)
		m.rt.budget.Add(-int64(r.Usage.Turns))
		m.chargeChild(&Step{TotalUsage: r.Usage})
	}
	if len(r.Firewall) > 0 {
		fw, ferr := fwall.Unmarshal(r.Firewall, r.Value)
		if ferr != nil {
			// What the value hides is unknown: it is not shown.
			return ToolResult{}, warnings, fmt.Errorf("the engine's answer cannot be shown: %w", ferr)
		}
		m.fw.Absorb(fw)
	}
	return r, warnings, err
}

// hookedNested answers a call of an agent tool or an LLM tool through
// Hooks.Tool: the engine runs the child's mission, whose turns then count
// against the tree's budget here. d is the call's duration as the engine
// timed it (ToolResult.Duration).
func (m *mission) hookedNested(ctx context.Context, h *Hooks, bt *boundTool, args *lisp.Map) (step *Step, d time.Duration, err error) {
	defer func() {
		if r := recover(); r != nil {
			step, err = nil, fmt.Errorf("the tool hook panicked: %v", r)
		}
	}()
	r, err := h.Tool(ctx, ToolRequest{Name: bt.name, Args: args, Turn: m.turn, Nested: true, Agent: bt.nested.a,
		Model: bt.nested.llm, TokenLimit: bt.nested.tokenLimit, Position: m.childPosition(bt.name, args)})
	if err != nil {
		return nil, r.Duration, err
	}
	if r.Step == nil {
		return nil, r.Duration, fmt.Errorf("the engine answered the nested %s without its Step", bt.kind())
	}
	m.rt.budget.Add(-int64(r.Step.TotalUsage.Turns))
	m.chargeChild(r.Step)
	return r.Step, r.Duration, nil
}

// childPosition is the Position of a mission the engine runs for this
// one, called as tool name with args as its context: one level down, with what is left of the
// tree's budgets and what this mission and its callers hide of args.
func (m *mission) childPosition(name string, args *lisp.Map) Position {
	pos := Position{Depth: m.rt.depth + 1, MaxDepth: m.rt.maxDepth, TurnsLeft: int(max(m.rt.budget.Load(), 0)),
		BudgetSize: m.rt.budgetSize, ParentTraceID: m.traceID, Name: name}
	if !m.fw.Empty() {
		pos.CallerFirewall = fwall.Marshal(m.fw, args, true)
	}
	if left, limit, setBy, ok := m.rt.limit.tokensLeft(); ok {
		pos.Tokens = &TokenAllowance{Left: left, Limit: limit, SetBy: setBy}
	}
	return pos
}
