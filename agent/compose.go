package agent

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/ptc-go/ptc/agent/prompt"
	"github.com/ptc-go/ptc/internal/textutil"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm"
	"github.com/ptc-go/ptc/signature"
)

// AsToolOptions configure an agent, a compiled agent or an LLM called as a
// tool (Agent.AsTool, CompiledAgent.AsTool, NewLLMTool).
type AsToolOptions struct {
	// Description tells the caller's LLM what the tool does and when to
	// call it. Default: the agent's Config.Description.
	Description string
	// Signature is the contract the caller sees and its arguments are
	// checked against. Default: the agent's own signature.
	Signature string
	// LLM is bound to the tool: the agent uses it unless its Config.LLM
	// names one. Nil: the calling agent's model.
	LLM llm.Model
	// TokenLimit bounds the tokens of each call's mission within the
	// caller's tree's limits; a call over it is a tool error. Zero: none.
	TokenLimit int
}

// AsTool returns a tool that runs a mission of a when a program calls it:
// the call's arguments are the mission's context, and the mission's return
// value is the tool's result.
//
//   - Schema: the caller's LLM sees the agent's signature (parameters as
//     the arguments, output as the result), firewalled fields left out, and
//     the description, which is required.
//   - Result: the caller's programs get the whole value, firewalled fields
//     included, so that _ids can flow on to the next tool; the caller's LLM
//     sees it with firewalled fields hidden, bounded by the agent's
//     Presentation.ResultLimit and ResultMaxChars as well as by the caller's own
//     feedback bounds. A failed mission is a tool error in the caller's
//     turn, carrying the child's reason and message (and, through
//     errors.As, an *Error with the child's Step).
//   - Model: the agent's Config.LLM, else the tool's LLM, else the caller's
//     model; the caller's llm.Registry is inherited.
//   - Limits: depth counts from the root mission, and the smallest MaxNesting
//     of the agents above applies; the root's MaxTreeTurns is shared by the
//     whole tree, and the token limits (TokenLimit, Budget) of the missions
//     above bound the child, as does the tool's own TokenLimit; the root's
//     MissionTimeout and the caller's context bound the child. The
//     caller's per-program Timeout does not: the program's clock stands
//     still while it waits on the child.
//   - Trace: the call's ToolCall.Child is the child's Step.
//
// Calls from pmap run concurrently, each its own mission.
func (a *Agent) AsTool(opts AsToolOptions) (Tool, error) {
	if !a.made() {
		return Tool{}, errNotMade("AsTool")
	}
	desc := opts.Description
	if desc == "" {
		desc = a.cfg.Description
	}
	if strings.TrimSpace(desc) == "" {
		return Tool{}, configErr("Description",
			"an agent used as a tool needs a description, for the LLM that calls it: set Config.Description or AsToolOptions.Description")
	}
	sig := opts.Signature
	if sig == "" && a.sig != nil {
		sig = a.sig.String()
	}
	if sig != "" {
		if _, err := signature.Parse(sig); err != nil {
			return Tool{}, &Fail{Op: "Signature", Reason: ReasonInvalidSignature, Message: err.Error(), cause: err}
		}
	}
	if opts.TokenLimit < 0 {
		return Tool{}, configErr("TokenLimit", "a negative token limit")
	}
	n := &nestedAgent{a: a, llm: opts.LLM, kind: "agent", tokenLimit: opts.TokenLimit}
	return Tool{Func: n.standalone, Signature: sig, Description: desc, nested: n}, nil
}

// NewLLMTool returns a tool answered by an LLM, defined by cfg (Prompt
// and Signature required; MaxTurns counts only with Tools) and called as
// opts says: a judgment, a
// classification or an extraction inside a program, such as
//
//	(pmap #(tool/classify {:text (:body %)}) emails)
//
// Each call is a small mission: the prompt is filled from the arguments
// (checked and coerced against the signature's parameters) and followed,
// in the same user message, by the arguments as the data inventory shows
// a context (types and values, firewalled ones hidden); the LLM answers
// with a program whose value is the answer, and the answer is validated
// against the signature's output; a reply that breaks it is fed back and
// tried again: Config.MaxTurns bounds the replies (zero: 2, an answer and
// one retry; 1: no retry). The system prompt holds no input: it is the same
// on every call. The model is the tool's own or the
// caller's; the call counts against the tree's MaxTreeTurns and token
// limits, runs under the root's MissionTimeout, does not count against
// the calling program's Timeout, and shows in the trace as a nested Step.
func NewLLMTool(cfg Config, opts AsToolOptions) (Tool, error) {
	if strings.TrimSpace(cfg.Signature) == "" {
		return Tool{}, configErr("Signature", "an LLM tool needs a signature: the arguments its prompt reads and the answer's type")
	}
	if opts.TokenLimit < 0 {
		return Tool{}, configErr("TokenLimit", "a negative token limit")
	}
	// Without tools the mission is single-shot: MaxTurns counts its
	// replies, the first and the retries of one that fails.
	replies := 0
	if len(cfg.Tools) == 0 {
		if cfg.MaxTurns < 0 {
			return Tool{}, configErr("MaxTurns", fmt.Sprintf("must be at least 1, got %d", cfg.MaxTurns))
		}
		replies = cfg.MaxTurns
		if replies == 0 {
			replies = 2
		}
		cfg.MaxTurns = 1
	}
	if cfg.MissionTimeout == 0 {
		// No clock of its own: its caller's mission (or context) bounds it.
		cfg.MissionTimeout = -1
	}
	a, err := New(cfg)
	if err != nil {
		return Tool{}, err
	}
	a.inputInMessage = true
	if len(cfg.Tools) == 0 {
		a.retries = replies - 1
	}
	desc := opts.Description
	if strings.TrimSpace(desc) == "" {
		desc = cfg.Description
	}
	if strings.TrimSpace(desc) == "" {
		desc = derivedDescription("Asks an LLM", cfg.Prompt)
	}
	sig := opts.Signature
	if sig == "" {
		sig = a.sig.String()
	} else if _, err := signature.Parse(sig); err != nil {
		return Tool{}, &Fail{Op: "Signature", Reason: ReasonInvalidSignature, Message: err.Error(), cause: err}
	}
	n := &nestedAgent{a: a, llm: opts.LLM, kind: "llm", tokenLimit: opts.TokenLimit}
	return Tool{Func: n.standalone, Signature: sig, Description: desc, nested: n}, nil
}

// derivedDescription describes a tool that has no description, for the
// LLM that calls it, from what answers it and the prompt of its mission
// (its first line, clipped; the signature beside it says the rest).
func derivedDescription(what, prompt string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(prompt), "\n")
	return what + ": " + textutil.Clip(strings.TrimSpace(line), 160)
}

// nestedAgent is an agent called as a tool, or an LLM tool.
type nestedAgent struct {
	a    *Agent
	llm  llm.Model // bound to the tool
	kind string    // "agent" or "llm", for messages
	// tokenLimit is each call's TokenLimit (0: none).
	tokenLimit int
}

// run runs the child mission in the tree of its caller, up (depth, budget,
// model, registry, firewall; nil: the child is a root).
func (n *nestedAgent) run(ctx context.Context, up *tree, args *lisp.Map) (*Step, *firewall) {
	opts := Options{LLM: n.llm, Input: args, TokenLimit: n.tokenLimit}
	if up != nil {
		opts.Trace = up.trace
	}
	m := newMission(ctx, up, n.a, opts)
	return m.runGuarded(), m.fw
}

// standalone is the tool's Func, for Go code that calls it directly: the
// child runs as a root mission unless ctx carries a caller's tree.
func (n *nestedAgent) standalone(ctx context.Context, args *lisp.Map) (any, error) {
	if args == nil {
		args = lisp.NewMap()
	}
	up := treeFrom(ctx)
	step, fw := n.run(ctx, up, args)
	up.adopt(step, fw)
	if step.Fail != nil {
		return nil, &Error{Step: step}
	}
	return step.Return, nil
}

// nestedResult remembers a child's result, so that the caller's LLM is
// shown it within the child's ResultLimit and ResultMaxChars.
type nestedResult struct {
	v            lisp.Value
	items, chars int
}

// nested holds what a mission's tool calls of nested agents add up to.
type nested struct {
	mu      sync.Mutex
	usage   Usage          // the subtrees' total usage
	results []nestedResult // the results of the current turn
}

func (n *nested) add(step *Step, bounds *prompt.Options) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.usage = n.usage.plus(step.TotalUsage)
	if bounds != nil && step.Fail == nil && len(n.results) < 64 {
		n.results = append(n.results, nestedResult{v: step.Return, items: bounds.ResultLimit, chars: bounds.ResultMaxChars})
	}
}

// total returns the subtrees' total usage.
func (n *nested) total() Usage {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.usage
}

// bounds returns the display bounds of v: the child's when v is a child's
// result, else items and chars as they are.
func (n *nested) bounds(v lisp.Value, items, chars int) (int, int) {
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, r := range n.results {
		if sameValue(r.v, v) {
			return min(items, r.items), min(chars, r.chars)
		}
	}
	return items, chars
}

func (n *nested) clearTurn() {
	n.mu.Lock()
	n.results = nil
	n.mu.Unlock()
}

// sameValue reports whether a and b are the same value object: the same
// collection, or equal scalars.
func sameValue(a, b lisp.Value) (same bool) {
	defer func() {
		if recover() != nil {
			same = false // uncomparable scalars
		}
	}()
	switch a.(type) {
	case *lisp.Map, *lisp.Vector, *lisp.Set:
		return a == b
	case nil:
		return false
	}
	return a == b
}

// callNested runs an agent tool, an LLM tool or a compiled agent for a
// program, recording the child's Step in the trace.
func (tc *toolCalls) callNested(ctx context.Context, bt *boundTool, args *lisp.Map) (res any, err error) {
	m := tc.m
	// The agent's model reads the arguments: what the program computed
	// of them from firewalled data is found before the call (flow.go).
	earlier, done := tc.snapshot(bt.name)
	theirs := m.probeArgs(m.ctx, bt.name, earlier, done, args)
	opaque := m.fw.Labelled() && theirs == nil
	start := m.now()
	idx := tc.begin(ToolCall{Name: bt.name, Args: args, Start: start})
	id := m.toolStart(bt.name, args, start, opaque)
	var (
		step     *Step
		warnings []signature.Issue
		v        lisp.Value
		timed    time.Duration // as the engine timed the call
	)
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("the nested %s panicked: %v", bt.kind(), r)
		}
		d := m.callDuration(start, timed)
		tc.end(idx, d, v, warnings, err, step)
		m.toolEnd(id, bt.name, args, d, v, m.liveArgsError(bt, args, err, theirs, opaque), opaque)
	}()
	// The child's events name this call as their origin, and the child
	// this tool's name when it has none of its own.
	ctx = context.WithValue(ctx, callRefKey{}, callRef{id: id, name: bt.name})
	coerced, warnings, err := bt.coerceArgs(args, m.opts.Validation)
	if err != nil {
		return nil, err
	}
	m.fw.MarkCopies(args, coerced)
	if coerced != args && theirs != nil {
		m.probeCoerced(bt, coerced, theirs)
	}
	var childFW *firewall
	var bounds *prompt.Options
	if h := m.hooks(); h != nil && h.Tool != nil {
		if bt.compiled != nil {
			// A compiled agent is a program over Go tools: the engine runs
			// it like any tool, and answers with its Step (engine.Host.RunTool)
			// or its value.
			r, _, herr := tc.hookedTool(ctx, h, bt, coerced)
			timed = r.Duration
			if herr != nil {
				return nil, herr
			}
			if step = stepOf(r); step == nil {
				v = r.Value
				m.fw.AddToolResult(v)
				return v, nil
			}
			m.chargeChild(step)
		} else {
			step, timed, err = m.hookedNested(ctx, h, bt, coerced)
			if err != nil {
				return nil, err
			}
			bounds = &bt.nested.a.format
		}
		// A Step from the engine brings its firewall (a raw trace carries it).
		childFW = step.fw
	} else if bt.nested != nil {
		step, childFW = bt.nested.run(ctx, m.rt, coerced)
		bounds = &bt.nested.a.format
	} else {
		step, childFW = bt.compiled.execute(ctx, m.rt, coerced, m.fw)
	}
	m.fw.Absorb(childFW)
	m.nested.add(step, bounds)
	if step.Fail != nil {
		return nil, &Error{Step: step}
	}
	v = step.Return
	m.fw.AddToolResult(v)
	return v, nil
}

// Untimed is the optional method of a lisp.ToolCaller that marks untimed tools: a program's clock stands
// still while it waits on an agent or an LLM, which have their own limits.
func (tc *toolCalls) Untimed(name string) bool {
	bt, ok := tc.m.a.tools[name]
	return ok && bt.nested != nil
}

// plus adds the counts of o to u. Duration adds up the time of every
// mission, which can exceed the wall-clock time when missions overlap.
func (u Usage) plus(o Usage) Usage {
	u.Turns += o.Turns
	u.LLMRequests += o.LLMRequests
	u.Tokens = u.Tokens.Add(o.Tokens)
	u.Duration += o.Duration
	u.Programs += o.Programs
	u.CachedPrograms += o.CachedPrograms
	return u
}
