package agent_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/internal/engine"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm"
)

// Hooks answer every LLM call and tool call of a mission: the model and
// the tools are not called, arguments arrive coerced, and a nested
// agent's call is answered with its Step, whose turns the tree's budget
// pays.
func TestHooks(t *testing.T) {
	child := agent.MustNew(agent.Config{Prompt: "Child {{x}}", Description: "A child.", Signature: "(x :int) -> :int"})
	childTool, err := child.AsTool(agent.AsToolOptions{})
	if err != nil {
		t.Fatal(err)
	}
	a := agent.MustNew(agent.Config{Prompt: "Go", MaxTurns: 4, MaxTreeTurns: 6, Tools: map[string]agent.Tool{
		"add": {Func: func(context.Context, *lisp.Map) (any, error) {
			t.Error("the tool ran despite the hook")
			return nil, nil
		}, Signature: "(n :int) -> :int"},
		"child": childTool,
	}})
	replies := []string{"(tool/add {:n \"2\"})", "(tool/child {:x 1})", "(return [*1 *2])"}
	var mu sync.Mutex
	var requests []engine.ToolRequest
	hooks := &engine.Hooks{
		TraceID: "0123456789abcdef0123456789abcdef",
		LLM: func(ctx context.Context, call engine.LLMCall) (engine.LLMReply, error) {
			return engine.LLMReply{Response: llm.Response{Content: "```clojure\n" + replies[call.Request.Turn-1] + "\n```"}}, nil
		},
		Tool: func(ctx context.Context, call engine.ToolRequest) (engine.ToolResult, error) {
			mu.Lock()
			requests = append(requests, call)
			mu.Unlock()
			if call.Nested {
				return engine.ToolResult{Step: &agent.Step{Return: int64(7), TotalUsage: agent.Usage{Turns: 2}}}, nil
			}
			n, _ := call.Args.Get(lisp.Keyword("n"))
			return engine.ToolResult{Value: n.(int64) * 10}, nil
		},
	}
	step, err := a.Run(engine.WithHooks(context.Background(), hooks), agent.Options{}) // no model: the hook answers
	if err != nil {
		t.Fatal(err)
	}
	if printed(step.Return) != "[7 20]" || step.TraceID != hooks.TraceID {
		t.Fatalf("return %s, trace id %s", printed(step.Return), step.TraceID)
	}
	if len(requests) != 2 || printed(requests[0].Args) != "{:n 2}" || !requests[1].Nested {
		t.Fatalf("requests %+v", requests)
	}
	if got, _, ok := a.Engine().NestedTool(requests[1].Name); !ok || got != child {
		t.Errorf("the nested tool's agent: %v %v", got, ok)
	}
	if _, _, ok := a.Engine().NestedTool("add"); ok {
		t.Error("a Go tool reported as nested")
	}
	if p := requests[1].Position; p.Depth != 1 || p.TurnsLeft != 4 || p.BudgetSize != 6 || p.ParentTraceID != hooks.TraceID {
		t.Errorf("position %+v", p)
	}
	if step.TotalUsage.Turns != 5 {
		t.Errorf("total turns %d, want 3 + the child's 2", step.TotalUsage.Turns)
	}
	if w := step.Trace[0].ToolCalls[0].Warnings; len(w) == 0 {
		t.Errorf("no coercion warning: %+v", step.Trace[0].ToolCalls[0])
	}
}

// A mission placed in a tree by Hooks.Position has its depth and budget.
func TestHooksPosition(t *testing.T) {
	a := agent.MustNew(agent.Config{Prompt: "Go", MaxTurns: 5})
	llmHook := func(ctx context.Context, call engine.LLMCall) (engine.LLMReply, error) {
		return engine.LLMReply{Response: llm.Response{Content: "```clojure\n1\n```"}}, nil
	}
	step, err := a.Run(engine.WithHooks(context.Background(), &engine.Hooks{LLM: llmHook,
		Position: &engine.Position{Depth: 1, MaxDepth: 3, TurnsLeft: 2, BudgetSize: 20}}), agent.Options{})
	if err == nil || step.Fail.Reason != agent.ReasonTurnBudgetExhausted || step.Usage.Turns != 2 ||
		!strings.Contains(step.Fail.Message, "20 turns") {
		t.Fatalf("fail %+v after %d turns", step.Fail, step.Usage.Turns)
	}
	_, err = a.Run(engine.WithHooks(context.Background(), &engine.Hooks{LLM: llmHook,
		Position: &engine.Position{Depth: 2, MaxDepth: 2, TurnsLeft: 2}}), agent.Options{})
	var ae *agent.Error
	if !errors.As(err, &ae) || ae.Step.Fail.Reason != agent.ReasonMaxDepthExceeded {
		t.Fatalf("err %v", err)
	}
}

// An engine that ends the mission in the middle of a call (on Temporal, a
// mission cancelled or out of time) ends the run's context as it answers
// the call: the run stops at once, and the trace still has the call's end,
// its error and its duration. The clock holds the call's goroutine between
// the answer and the recording of the call's end, until the run reads the
// clock again (it has gone past the turn's end) or a while (the turn waits
// for the call, as it must): a turn that did not wait would lose the
// recording every time, not only when its machine is busy.
func TestHooksAnswerEndsRun(t *testing.T) {
	a := agent.MustNew(agent.Config{Prompt: "Go", MaxTurns: 2, Tools: map[string]agent.Tool{
		"hold": {Signature: "() -> :int", Func: func(context.Context, *lisp.Map) (any, error) {
			t.Error("the tool ran despite the hook")
			return nil, nil
		}},
	}})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	const why = "cancelled: the mission was cancelled while the call ran"
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var answered, held atomic.Bool
	later := make(chan struct{}) // closed at the first clock read after the held one
	var once sync.Once
	hooks := &engine.Hooks{
		LLM: func(context.Context, engine.LLMCall) (engine.LLMReply, error) {
			return engine.LLMReply{Response: llm.Response{Content: "```clojure\n(tool/hold {})\n```"}}, nil
		},
		Tool: func(context.Context, engine.ToolRequest) (engine.ToolResult, error) {
			answered.Store(true)
			cancel()
			return engine.ToolResult{}, errors.New(why)
		},
		Now: func() time.Time {
			if !answered.Load() {
				return start
			}
			if held.CompareAndSwap(false, true) {
				select {
				case <-later:
				case <-time.After(200 * time.Millisecond):
				}
			} else {
				once.Do(func() { close(later) })
			}
			return start.Add(3 * time.Second)
		},
	}
	step, _ := a.Run(engine.WithHooks(ctx, hooks), agent.Options{})
	if step == nil || step.Fail == nil || step.Fail.Reason != agent.ReasonCancelled || len(step.Trace) != 1 ||
		len(step.Trace[0].ToolCalls) != 1 {
		t.Fatalf("step %+v", step)
	}
	if c := step.Trace[0].ToolCalls[0]; c.Error != why || c.Duration != 3*time.Second {
		t.Errorf("the call the engine's answer ended the run with: error %q, duration %v; want %q, 3s", c.Error, c.Duration, why)
	}
}

// The engine's host runs a tool from Go as a program would: arguments
// coerced, a panic an error, an unknown name an error.
func TestRunTool(t *testing.T) {
	a := agent.MustNew(agent.Config{Prompt: "x", Tools: map[string]agent.Tool{
		"double": {Func: func(_ context.Context, args *lisp.Map) (any, error) {
			n, _ := args.Get(lisp.Keyword("n"))
			return map[string]any{"n": n.(int64) * 2}, nil
		}, Signature: "(n :int) -> {n :int}"},
		"boom": agent.Tool{Func: func(context.Context, *lisp.Map) (any, error) { panic("boom") }},
	}})
	host := a.Engine()
	res, err := host.RunTool(context.Background(), engine.ToolRequest{Name: "double", Args: lisp.NewMap(lisp.Keyword("n"), "21")})
	if err != nil || printed(res.Value) != `{"n" 42}` || res.Step != nil {
		t.Fatalf("%s %v", printed(res.Value), err)
	}
	if _, err := host.RunTool(context.Background(), engine.ToolRequest{Name: "boom"}); err == nil || !strings.Contains(err.Error(), "panicked") {
		t.Errorf("panic: %v", err)
	}
	if _, err := host.RunTool(context.Background(), engine.ToolRequest{Name: "nope"}); err == nil || !strings.Contains(err.Error(), "unknown tool") {
		t.Errorf("unknown: %v", err)
	}
	if _, _, ok := host.NestedTool("nope"); ok {
		t.Error("an unknown tool reported as nested")
	}
	if names := a.ToolNames(); len(names) != 2 || names[0] != "boom" {
		t.Errorf("names %v", names)
	}
}
