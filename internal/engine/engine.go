package engine

import (
	"context"
	"time"

	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm"
)

// Hooks hand a mission's side effects to an engine that records them, so
// that the mission can run again from its start, deterministically,
// without repeating an LLM call or a tool call. An engine hands them to
// agent.Agent.Run, Pipeline.Run or Compile through the context (WithHooks).
// Everything else of the mission (prompts, programs, memory, feedback,
// the firewall, validation) runs as it does in-process.
type Hooks struct {
	// LLM makes each LLM call of the mission in place of its model. The
	// agent's LLMRetry and LLMTimeout do not apply: the engine retries and
	// bounds the call. An error ends the mission as a failed LLM call does
	// (llm_error, or the error's own reason for an llm.ClassConfig error).
	// Nil: the model is called.
	LLM func(ctx context.Context, call LLMCall) (LLMReply, error)
	// Tool answers each tool call, its arguments checked and coerced
	// against the tool's signature first (a mismatch is the program's
	// error, and calls no hook). Calls of agent tools and LLM tools
	// (ToolRequest.Nested) must be answered with the Step of the mission
	// the engine ran (moved as a raw trace: agent/trace's Marshal and
	// Unmarshal carry its firewall); other calls with what Host.RunTool
	// returns, or simply with the tool's value. An error is the tool's
	// error. Calls come concurrently from pmap. It must return promptly
	// once ctx ends: the turn waits for the calls in flight to record
	// them, an answer that ends the run's context included. Nil: the
	// tools run.
	Tool func(ctx context.Context, call ToolRequest) (ToolResult, error)
	// Position, when set, places a mission that runs without a caller in
	// a mission tree: an engine that runs a nested agent's mission on its
	// own gives it the position its ToolRequest carried.
	Position *Position
	// TraceID, when set, is the mission's trace id, so that a mission run
	// again has the same one. Default: a random id.
	TraceID string
	// Now, when set, is the mission's clock: every time and duration the
	// mission records reads it (Step.Usage.Duration, each turn's and tool
	// call's times, events' Time and Duration, the Duration a Budget
	// callback gets, CompiledAgent.CompiledAt), so that an engine that
	// answers recorded calls at once reports the times they took when
	// they were made: it moves its clock on as it answers each call (to
	// the call's recorded end, say). A clock that stands still, jumps or
	// goes back gives no negative duration (0). It drives no limit:
	// Limits.Timeout, LLMTimeout, MissionTimeout, retry waits and the
	// context's deadline keep the real clock. The missions that run
	// in-process under this one read it too, unless their own Hooks set
	// one (hooks are not inherited: the mission's context below it has
	// none). It is called from concurrent goroutines; a panic in it reads
	// the real clock. Nil: time.Now.
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

// LLMReply is what Hooks.LLM answers a call with.
type LLMReply struct {
	// Response is the model's reply.
	Response llm.Response
	// Took, when set, is the time the model took to answer, as the
	// engine measured it where the call was made: the turn's LLMDuration
	// then, rather than the time the clock (Hooks.Now) moved during the
	// call, which counts what the engine did before it (a replay of the
	// programs, the wait for a worker).
	Took time.Duration
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
	// NewLLMTool): the engine runs the mission of the tool's agent
	// (Host.NestedTool), with Args as its context, at Position, and
	// answers with its Step.
	Nested bool
	// TokenLimit is a Nested tool's own limit (AsToolOptions.TokenLimit,
	// LLMToolConfig.TokenLimit): the nested mission's. Zero: none.
	TokenLimit int
	// Position is where the nested mission runs in the tree, and, for
	// other tools, where the agents the call runs do (see Host.RunTool).
	Position Position
}

// ToolResult answers a ToolRequest.
type ToolResult struct {
	// Value is the tool's result.
	Value lisp.Value
	// Step (an *agent.Step) is the Step of a nested mission or of a
	// compiled agent's execution; when it failed, the call is the tool
	// error a failed nested mission is.
	Step any
	// Firewall is what the agents a Go tool ran firewall in Value (opaque
	// data: store it as it is), and Usage (an agent.Usage) what they used.
	// Host.RunTool sets them, also along with an error.
	Firewall []byte
	Usage    any
	// Duration, when positive, is the call's recorded duration, which the
	// trace and the tool.stop event report; otherwise the mission's clock
	// (Hooks.Now) between the call and its answer.
	Duration time.Duration
}

// Position is where a mission runs in a mission tree. Its JSON form is
// part of package temporal's workflow histories: keep its field names.
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
	// mission's name (in events and messages) when its agent has none.
	Name string `json:",omitempty"`
	// CallerFirewall is what the missions above hide of the mission's
	// context (the call's arguments), opaque data to pass on as it is: the
	// mission's LLM does not see it either. Empty: nothing.
	CallerFirewall []byte `json:",omitempty"`
	// Tokens, when set, is what is left of the tightest token limit of the
	// missions above: past it the mission fails with
	// budget_callback_exceeded. Nil: no limit above.
	Tokens *TokenAllowance `json:",omitempty"`
}

// TokenAllowance is what is left of the tightest token limit above a
// mission that runs on its own (Position.Tokens).
type TokenAllowance struct {
	// Left is the tokens the mission's tree may still use.
	Left int
	// Limit is the limit they are left of, and SetBy whose it is
	// (`agent "triage"`, "the pipeline"), for messages.
	Limit int
	SetBy string
}

// Host is what an engine calls on an agent (agent.Agent.Engine) to run
// its tool calls elsewhere.
type Host interface {
	// RunTool answers a ToolRequest as the mission that made it would have
	// run the call in-process: the arguments checked and coerced against
	// the tool's signature, a panic an error. The agents the call runs (a
	// compiled agent's program, the agents a Go tool runs under the ctx it
	// is given) run at req.Position in the mission tree: its depth, its
	// turns and tokens left, behind what its callers firewall. A compiled
	// agent's call is answered with its Step; any other with its value and
	// with the firewall and usage of the agents it ran (set along with an
	// error too). Return the result to Hooks.Tool as it is. Nested tools
	// are missions the engine runs itself: RunTool refuses them.
	RunTool(ctx context.Context, req ToolRequest) (ToolResult, error)
	// NestedTool reports the agent (an *agent.Agent) that answers the
	// calls of the tool name and the model bound to it (nil: the agent's
	// own, else the caller's), when name is an agent tool or an LLM tool;
	// ok is false for other tools and unknown names.
	NestedTool(name string) (agent any, model llm.Model, ok bool)
}

type hooksKey struct{}

// WithHooks returns ctx carrying h, the hooks of the mission (or each
// stage of the pipeline) that a Run given it starts. A mission takes the
// hooks out of the context it passes on, so the missions below it do not
// inherit them (Hooks.Now excepted); WithHooks(ctx, nil) removes them.
func WithHooks(ctx context.Context, h *Hooks) context.Context {
	return context.WithValue(ctx, hooksKey{}, h)
}

// HooksFrom returns the hooks ctx carries (WithHooks), nil when none.
func HooksFrom(ctx context.Context) *Hooks {
	if ctx == nil {
		return nil
	}
	h, _ := ctx.Value(hooksKey{}).(*Hooks)
	return h
}
