package agent_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/ptc-go/ptc/agent"
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
	var requests []agent.ToolRequest
	hooks := &agent.Hooks{
		TraceID: "0123456789abcdef0123456789abcdef",
		LLM: func(ctx context.Context, call agent.LLMCall) (llm.Response, error) {
			return llm.Response{Content: "```clojure\n" + replies[call.Request.Turn-1] + "\n```"}, nil
		},
		Tool: func(ctx context.Context, call agent.ToolRequest) (agent.ToolResult, error) {
			mu.Lock()
			requests = append(requests, call)
			mu.Unlock()
			if call.Nested {
				return agent.ToolResult{Step: &agent.Step{Return: int64(7), TotalUsage: agent.Usage{Turns: 2}}}, nil
			}
			n, _ := call.Args.Get(lisp.Keyword("n"))
			return agent.ToolResult{Value: n.(int64) * 10}, nil
		},
	}
	step, err := a.Run(context.Background(), agent.Options{Hooks: hooks}) // no model: the hook answers
	if err != nil {
		t.Fatal(err)
	}
	if printed(step.Return) != "[7 20]" || step.TraceID != hooks.TraceID {
		t.Fatalf("return %s, trace id %s", printed(step.Return), step.TraceID)
	}
	if len(requests) != 2 || printed(requests[0].Args) != "{:n 2}" || !requests[1].Nested || requests[1].Agent != child {
		t.Fatalf("requests %+v", requests)
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
	llmHook := func(ctx context.Context, call agent.LLMCall) (llm.Response, error) {
		return llm.Response{Content: "```clojure\n1\n```"}, nil
	}
	step, err := a.Run(context.Background(), agent.Options{Hooks: &agent.Hooks{LLM: llmHook,
		Position: &agent.Position{Depth: 1, MaxDepth: 3, TurnsLeft: 2, BudgetSize: 20}}})
	if err == nil || step.Fail.Reason != agent.ReasonTurnBudgetExhausted || step.Usage.Turns != 2 ||
		!strings.Contains(step.Fail.Message, "20 turns") {
		t.Fatalf("fail %+v after %d turns", step.Fail, step.Usage.Turns)
	}
	_, err = a.Run(context.Background(), agent.Options{Hooks: &agent.Hooks{LLM: llmHook,
		Position: &agent.Position{Depth: 2, MaxDepth: 2, TurnsLeft: 2}}})
	var ae *agent.Error
	if !errors.As(err, &ae) || ae.Step.Fail.Reason != agent.ReasonMaxDepthExceeded {
		t.Fatalf("err %v", err)
	}
}

func TestCallTool(t *testing.T) {
	a := agent.MustNew(agent.Config{Prompt: "x", Tools: map[string]agent.Tool{
		"double": {Func: func(_ context.Context, args *lisp.Map) (any, error) {
			n, _ := args.Get(lisp.Keyword("n"))
			return map[string]any{"n": n.(int64) * 2}, nil
		}, Signature: "(n :int) -> {n :int}"},
		"boom": agent.Tool{Func: func(context.Context, *lisp.Map) (any, error) { panic("boom") }},
	}})
	v, err := a.CallTool(context.Background(), "double", lisp.NewMap(lisp.Keyword("n"), "21"))
	if err != nil || printed(v) != `{"n" 42}` {
		t.Fatalf("%s %v", printed(v), err)
	}
	if _, err := a.CallTool(context.Background(), "boom", nil); err == nil || !strings.Contains(err.Error(), "panicked") {
		t.Errorf("panic: %v", err)
	}
	if _, err := a.CallTool(context.Background(), "nope", nil); !errors.Is(err, agent.ErrUnknownTool) {
		t.Errorf("unknown: %v", err)
	}
	if names := a.ToolNames(); len(names) != 2 || names[0] != "boom" {
		t.Errorf("names %v", names)
	}
}
