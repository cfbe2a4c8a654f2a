package agent_test

import (
	"context"
	"errors"
	"strings"
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

// TestNewTool: one call gives the same tool as Typed(MustTypedFunc(...)),
// options included, and a type the signature cannot describe is an
// invalid_signature error of agent.New that names the tool.
func TestNewTool(t *testing.T) {
	find := func(ctx context.Context, q ntQuery) (ntItem, error) { return ntItem{ID: q.ID, Name: "n"}, nil }
	one := agent.NewTool("Finds an item.", find, signature.WithFieldDescriptions(map[string]string{"id": "the item's id"}))
	two := agent.Typed(signature.MustTypedFunc(find, signature.WithDescription("Finds an item."),
		signature.WithFieldDescriptions(map[string]string{"id": "the item's id"})))
	if one.Signature != two.Signature || one.Description != two.Description || one.Signature == "" {
		t.Fatalf("NewTool gave %q %q, Typed gave %q %q", one.Signature, one.Description, two.Signature, two.Description)
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
			var ce *agent.ConfigError
			if !errors.As(err, &ce) || ce.Reason != "invalid_signature" || ce.Field != "Tools" {
				t.Fatalf("agent.New: %v, want an invalid_signature ConfigError on Tools", err)
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
	if lisp.PrintString(step.Return) != `"widget"` || got != (ntQuery{ID: 7, Label: "x"}) {
		t.Fatalf("return %s, the function got %+v", lisp.PrintString(step.Return), got)
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
	tool := agent.Func(f)
	if res, err := tool.Func(context.Background(), nil); res != "ok" || err != nil {
		t.Fatalf("got %v %v", res, err)
	}
}
