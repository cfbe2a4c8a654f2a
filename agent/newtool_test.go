package agent_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm/llmtest"
	"github.com/ptc-go/ptc/signature"
)

type ntQuery struct {
	ID    int    `json:"id"`
	Label string `json:"label,omitempty"`
}

type ntItem struct {
	ID   int    `json:"id"`
	Name string `json:"name"`
}

// TestNewTool: one call gives the tool, its signature from the Go types
// and its description, and a type the signature cannot describe is an
// invalid_signature error of agent.New that names the tool.
func TestNewTool(t *testing.T) {
	find := func(ctx context.Context, q ntQuery) (ntItem, error) { return ntItem{ID: q.ID, Name: "n"}, nil }
	one := agent.NewTool("Finds an item.", find)
	if want := "(id :int, label :string?) -> {id :int, name :string}"; one.Signature != want || one.Description != "Finds an item." {
		t.Fatalf("NewTool gave %q %q, want %q", one.Signature, one.Description, want)
	}
	one.FieldDescriptions = map[string]string{"id": "the item's id"}
	if _, err := agent.New(agent.Config{Prompt: "p", Tools: map[string]agent.Tool{"find": one}}); err != nil {
		t.Fatalf("FieldDescriptions on a typed tool: %v", err)
	}

	bad := []struct {
		name string
		tool agent.Tool
		want string
	}{
		{"channel argument", agent.NewTool("d", func(ctx context.Context, c chan int) (int, error) { return 0, nil }), "chan"},
		{"func result", agent.NewTool("d", func(ctx context.Context, q ntQuery) (func(), error) { return nil, nil }), "func"},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			_, err := agent.New(agent.Config{Prompt: "p", Tools: map[string]agent.Tool{"broken": tc.tool}})
			var ce *agent.Fail
			if !errors.As(err, &ce) || ce.Reason != "invalid_signature" || ce.Op != "Tools" {
				t.Fatalf("agent.New: %v, want an invalid_signature Fail on Tools", err)
			}
			if !strings.Contains(err.Error(), `"broken"`) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("the error %q does not name the tool and the type %q", err, tc.want)
			}
		})
	}
}

// TestNewToolCalls: a program's call reaches the Go function decoded, and
// an argument of the wrong type is a tool error the program sees.
func TestNewToolCalls(t *testing.T) {
	var got ntQuery
	tool := agent.NewTool("Finds an item.", func(ctx context.Context, q ntQuery) (ntItem, error) {
		got = q
		return ntItem{ID: q.ID, Name: "widget"}, nil
	})
	a := agent.MustNew(agent.Config{Prompt: "Find", Signature: "-> :string", MaxTurns: 2,
		Tools: map[string]agent.Tool{"find": tool}})
	model := llmtest.NewScript(
		llmtest.Code(`(tool/find {:id "seven"})`),
		llmtest.Code(`(return (:name (tool/find {:id 7 :label "x"})))`),
	)
	step, err := a.Run(context.Background(), agent.Options{LLM: model.Func()})
	if err != nil {
		t.Fatal(err)
	}
	if lisp.Print(step.Return, lisp.PrintOptions{}) != `"widget"` || got != (ntQuery{ID: 7, Label: "x"}) {
		t.Fatalf("return %s, the function got %+v", lisp.Print(step.Return, lisp.PrintOptions{}), got)
	}
	if len(step.Trace) != 2 || !strings.Contains(step.Trace[0].Error, "find") {
		t.Fatalf("the first call, with a string id, should have failed its turn with a tool error: %+v", step.Trace)
	}
}

// TestToolFuncIsLispToolFunc: one function type serves both layers, so a
// lisp.Tools map's function is an agent tool's Func as it is.
func TestToolFuncIsLispToolFunc(t *testing.T) {
	tools := lisp.Tools{"echo": func(ctx context.Context, args *lisp.Map) (any, error) { return "ok", nil }}
	var f agent.ToolFunc = tools["echo"]
	tool := agent.Tool{Func: f}
	if res, err := tool.Func(context.Background(), nil); res != "ok" || err != nil {
		t.Fatalf("got %v %v", res, err)
	}
}

// TestToolWrap: a wrap sees every call of a Go tool, typed or not, may
// answer it without the tool, keeps the coercion warnings of the calls it
// passes on, and leaves what the LLM is shown alone; an agent tool is not
// wrapped.
func TestToolWrap(t *testing.T) {
	var real, seen atomic.Int64
	typed := agent.NewTool("Finds an item.", func(ctx context.Context, q ntQuery) (ntItem, error) {
		real.Add(1)
		return ntItem{ID: q.ID, Name: "real"}, nil
	})
	plain := agent.Tool{Signature: "(n :int) -> :int", Func: func(ctx context.Context, args *lisp.Map) (any, error) {
		real.Add(1)
		n, _ := args.Get(lisp.Keyword("n"))
		return n, nil
	}}
	// Answers id 99 itself; passes every other call on.
	cached := func(call agent.ToolFunc) agent.ToolFunc {
		return func(ctx context.Context, args *lisp.Map) (any, error) {
			seen.Add(1)
			if id, _ := args.Get(lisp.Keyword("id")); lisp.Print(id, lisp.PrintOptions{}) == "99" {
				return map[string]any{"id": 99, "name": "cached"}, nil
			}
			return call(ctx, args)
		}
	}
	a := agent.MustNew(agent.Config{Prompt: "Find", Signature: "-> :any", MaxTurns: 1,
		Tools: map[string]agent.Tool{"find": typed.Wrap(cached), "same": plain.Wrap(cached)}})
	if a.Config().Tools["find"].Signature != typed.Signature {
		t.Fatalf("the wrapped tool's signature changed")
	}
	model := llmtest.NewScript(llmtest.Code(`(return [(:name (tool/find {:id 99})) (:name (tool/find {:id "7"})) (tool/same {:n "5"})])`))
	step, err := a.Run(context.Background(), agent.Options{LLM: model.Func()})
	if err != nil {
		t.Fatal(err)
	}
	if got := lisp.Print(step.Return, lisp.PrintOptions{}); got != `["cached" "real" 5]` {
		t.Fatalf("return %s", got)
	}
	if real.Load() != 2 || seen.Load() != 3 {
		t.Fatalf("the tools ran %d times and the wrap saw %d calls, want 2 and 3", real.Load(), seen.Load())
	}
	calls := step.Trace[0].ToolCalls
	if len(calls) != 3 || len(calls[0].Warnings) != 0 || len(calls[1].Warnings) == 0 || len(calls[2].Warnings) == 0 {
		t.Fatalf("want coercion warnings on the calls passed on with a string number, got %+v", calls)
	}

	inner := agent.MustNew(agent.Config{Prompt: "Inner", Signature: "-> :int"})
	asTool, err := inner.AsTool(agent.AsToolOptions{Description: "inner"})
	if err != nil {
		t.Fatal(err)
	}
	wrapped := asTool.Wrap(func(call agent.ToolFunc) agent.ToolFunc {
		return func(ctx context.Context, args *lisp.Map) (any, error) { return nil, errors.New("wrapped") }
	})
	outer := agent.MustNew(agent.Config{Prompt: "Outer", Signature: "-> :int", MaxTurns: 1,
		Tools: map[string]agent.Tool{"inner": wrapped}})
	script := llmtest.NewScript(llmtest.Code(`(return (tool/inner {}))`), llmtest.Code(`(return 41)`))
	step, err = outer.Run(context.Background(), agent.Options{LLM: script.Func()})
	if err != nil || lisp.Print(step.Return, lisp.PrintOptions{}) != "41" {
		t.Fatalf("an agent tool should run as it is: %v %v", step.Return, err)
	}
}

// TestNewToolValidation: a typed tool checks its arguments in the run's
// Options.Validation mode: "3" is coerced to 3 by default, refused in
// Strict mode.
func TestNewToolValidation(t *testing.T) {
	type in struct {
		A int `json:"a"`
	}
	tool := agent.NewTool("Doubles.", func(_ context.Context, x in) (int, error) { return 2 * x.A, nil })
	a := agent.MustNew(agent.Config{Prompt: "p", MaxTurns: 2, Tools: map[string]agent.Tool{"double": tool}})
	for _, tc := range []struct {
		mode signature.Mode
		want string
	}{
		{signature.Enabled, "6"},
		{signature.Strict, `"refused"`},
	} {
		model := llmtest.NewScript(llmtest.Code(`(return (try (tool/double {:a "3"}) (catch Exception _ "refused")))`))
		step, err := a.Run(context.Background(), agent.Options{LLM: model.Func(), Validation: tc.mode})
		if err != nil {
			t.Fatal(err)
		}
		if got := lisp.Print(step.Return, lisp.PrintOptions{}); got != tc.want {
			t.Errorf("%s: return %s, want %s", tc.mode, got, tc.want)
		}
	}
}
