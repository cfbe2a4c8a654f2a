package agent

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"sync/atomic"
	"time"

	"github.com/ptc-go/ptc/internal/engine"
	fwall "github.com/ptc-go/ptc/internal/firewall"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm"
	"github.com/ptc-go/ptc/signature"
)

// Engine is the seam package temporal, the module's durable execution
// engine, runs the agent's tool calls through; its type is internal
// (docs/architecture.md, "Durable execution"): programs outside this
// module have no use for it.
func (a *Agent) Engine() engine.Host { return engineHost{a} }

// engineHost is the agent's engine.Host.
type engineHost struct{ a *Agent }

func (h engineHost) NestedTool(name string) (any, llm.Model, bool) {
	if !h.a.made() {
		return nil, nil, false
	}
	bt, ok := h.a.tools[name]
	if !ok || bt.nested == nil {
		return nil, nil, false
	}
	return bt.nested.a, bt.nested.llm, true
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

// errUnknownTool is the error of RunTool for a name the agent has no
// tool for.
var errUnknownTool = errors.New("agent: unknown tool")

// RunTool implements engine.Host.
func (h engineHost) RunTool(ctx context.Context, req engine.ToolRequest) (res engine.ToolResult, err error) {
	a := h.a
	if !a.made() {
		return engine.ToolResult{}, errNotMade("RunTool")
	}
	bt, ok := a.tools[req.Name]
	if !ok {
		return engine.ToolResult{}, fmt.Errorf("%w: %s", errUnknownTool, req.Name)
	}
	if bt.nested != nil {
		return engine.ToolResult{}, fmt.Errorf("agent: RunTool: tool %s is an %s, whose mission the engine runs (engine.ToolRequest.Nested)",
			req.Name, bt.kind())
	}
	args := req.Args
	if args == nil {
		args = lisp.NewMap()
	}
	rt, err := hostTree(req.Position, args)
	if err != nil {
		return engine.ToolResult{}, err
	}
	ctx = context.WithValue(ctx, treeKey{}, rt)
	defer func() {
		if r := recover(); r != nil {
			res, err = engine.ToolResult{Usage: rt.nested.total()}, fmt.Errorf("the tool panicked: %v", r)
		}
	}()
	if bt.compiled != nil {
		coerced, _, err := bt.coerceArgs(args, signature.Enabled)
		if err != nil {
			return engine.ToolResult{}, err
		}
		res = engine.ToolResult{}
		if step, _ := bt.compiled.execute(ctx, rt, coerced, nil); step != nil {
			res.Step = step
		}
		return res, nil
	}
	out, _, err := bt.call(ctx, args, signature.Enabled)
	var v lisp.Value
	if err == nil {
		v, err = lisp.FromGo(out)
	}
	res = engine.ToolResult{Value: v, Usage: rt.nested.total()}
	if !rt.fw.OwnEmpty() {
		res.Firewall = fwall.Marshal(rt.fw, v, false)
	}
	return res, err
}

// hostTree is the tree of a mission that made a tool call at pos,
// run elsewhere: it records what the agents the call runs firewall and
// use. A zero Position places them at the top of a tree of their own.
func hostTree(pos engine.Position, args *lisp.Map) (*tree, error) {
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
func (m *mission) hooks() *engine.Hooks { return m.hooksv }

// hookedLLM makes an LLM call through Hooks.LLM, a panic an error.
func (m *mission) hookedLLM(h *engine.Hooks, req llm.Request) (resp llm.Response, err error) {
	m.requests++
	defer func() {
		if p := recover(); p != nil {
			err = &llm.Error{Class: llm.ClassUnknown, Message: fmt.Sprintf("the LLM hook panicked: %v", p)}
		}
	}()
	if err := m.ctx.Err(); err != nil {
		return llm.Response{}, err
	}
	reply, err := h.LLM(m.ctx, engine.LLMCall{Request: req, Model: m.rt.model})
	m.llmTook = reply.Took
	return reply.Response, err
}

// hookedTool answers a call of a plain or compiled tool through Hooks.Tool.
// What the agents the call ran firewalled and used (ToolResult.Firewall,
// Usage) is the mission's, as when they run in-process.
func (tc *toolCalls) hookedTool(ctx context.Context, h *engine.Hooks, bt *boundTool, args *lisp.Map) (r engine.ToolResult, warnings []signature.Issue, err error) {
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
			return engine.ToolResult{}, warnings, err
		}
	}
	r, err = h.Tool(ctx, engine.ToolRequest{Name: bt.name, Args: coerced, Turn: m.turn, Position: m.childPosition(bt.name, coerced)})
	if u := usageOf(r); u != (Usage{}) {
		m.nested.add(&Step{TotalUsage: u}, nil)
		m.rt.budget.Add(-int64(u.Turns))
		m.chargeChild(&Step{TotalUsage: u})
	}
	if len(r.Firewall) > 0 {
		fw, ferr := fwall.Unmarshal(r.Firewall, r.Value)
		if ferr != nil {
			// What the value hides is unknown: it is not shown.
			return engine.ToolResult{}, warnings, fmt.Errorf("the engine's answer cannot be shown: %w", ferr)
		}
		m.fw.Absorb(fw)
	}
	return r, warnings, err
}

// hookedNested answers a call of an agent tool or an LLM tool through
// Hooks.Tool: the engine runs the child's mission, whose turns then count
// against the tree's budget here. d is the call's duration as the engine
// timed it (ToolResult.Duration).
func (m *mission) hookedNested(ctx context.Context, h *engine.Hooks, bt *boundTool, args *lisp.Map) (step *Step, d time.Duration, err error) {
	defer func() {
		if r := recover(); r != nil {
			step, err = nil, fmt.Errorf("the tool hook panicked: %v", r)
		}
	}()
	r, err := h.Tool(ctx, engine.ToolRequest{Name: bt.name, Args: args, Turn: m.turn, Nested: true,
		TokenLimit: bt.nested.tokenLimit, Position: m.childPosition(bt.name, args)})
	if err != nil {
		return nil, r.Duration, err
	}
	step = stepOf(r)
	if step == nil {
		return nil, r.Duration, fmt.Errorf("the engine answered the nested %s without its Step", bt.kind())
	}
	m.rt.budget.Add(-int64(step.TotalUsage.Turns))
	m.chargeChild(step)
	return step, r.Duration, nil
}

// childPosition is the Position of a mission the engine runs for this
// one, called as tool name with args as its context: one level down, with what is left of the
// tree's budgets and what this mission and its callers hide of args.
func (m *mission) childPosition(name string, args *lisp.Map) engine.Position {
	pos := engine.Position{Depth: m.rt.depth + 1, MaxDepth: m.rt.maxDepth, TurnsLeft: int(max(m.rt.budget.Load(), 0)),
		BudgetSize: m.rt.budgetSize, ParentTraceID: m.traceID, Name: name}
	if !m.fw.Empty() {
		pos.CallerFirewall = fwall.Marshal(m.fw, args, true)
	}
	if left, limit, setBy, ok := m.rt.limit.tokensLeft(); ok {
		pos.Tokens = &engine.TokenAllowance{Left: left, Limit: limit, SetBy: setBy}
	}
	return pos
}

// stepOf is the Step an engine's answer carries, nil when none.
func stepOf(r engine.ToolResult) *Step {
	s, _ := r.Step.(*Step)
	return s
}

// usageOf is the usage an engine's answer carries.
func usageOf(r engine.ToolResult) Usage {
	u, _ := r.Usage.(Usage)
	return u
}
