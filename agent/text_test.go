package agent_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm/llmtest"
)

// A text-mode agent gets its answer as JSON: a reply that is not JSON, or
// does not match the signature, is explained and tried again; a matching
// one ends the mission with its value.
func TestTextMode(t *testing.T) {
	model := llmtest.NewScript(
		llmtest.Text("The total is 7."),
		llmtest.Text("```json\n{\"total\": \"seven\"}\n```"),
		llmtest.Text("```json\n{\"total\": 7, \"items\": [\"a\", \"b\"]}\n```"),
	)
	a := agent.MustNew(agent.Config{Mode: "text", Prompt: "Add up the prices of {{shop}}.", MaxTurns: 3,
		Signature: "(shop :string, prices [:int], _owner :string) -> {total :int, items [:string]}"})
	step, err := a.Run(context.Background(), agent.Options{LLM: model.Func(),
		Input: map[string]any{"shop": "corner", "prices": []int{3, 4}, "_owner": "Jane Secretowner"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := lisp.Print(step.Return, lisp.PrintOptions{}); got != `{"items" ["a" "b"], "total" 7}` {
		t.Errorf("return %s", got)
	}
	reqs := model.Requests()
	if len(reqs) != 3 || len(step.Trace) != 3 {
		t.Fatalf("%d requests, %d turns", len(reqs), len(step.Trace))
	}
	system := reqs[0].System
	for _, want := range []string{"one JSON value", `"prices":[3,4]`, "JSON Schema", `"total"`} {
		if !strings.Contains(system, want) {
			t.Errorf("the system prompt lacks %q:\n%s", want, system)
		}
	}
	for _, not := range []string{"PTC-Lisp", "ctx/", "Secretowner"} {
		if strings.Contains(system, not) {
			t.Errorf("the system prompt has %q:\n%s", not, system)
		}
	}
	if fb := reqs[1].Messages[2].Content; !strings.Contains(fb, "not one JSON value") || !strings.Contains(fb, "2 tries left") {
		t.Errorf("feedback after prose: %q", fb)
	}
	if fb := reqs[2].Messages[4].Content; !strings.Contains(fb, "does not match the signature") || !strings.Contains(fb, "total") ||
		!strings.Contains(fb, "last try") {
		t.Errorf("feedback after a mismatch: %q", fb)
	}
	if step.Trace[0].Program != "" || step.Trace[0].Error == "" || step.Trace[2].Error != "" {
		t.Errorf("trace: %+v", step.Trace)
	}
}

// A text-mode mission whose answers never match ends as a program mission
// out of turns does.
func TestTextModeOutOfTurns(t *testing.T) {
	model := llmtest.NewScript(llmtest.Text(`{"n": "x"}`), llmtest.Text(`[1]`))
	a := agent.MustNew(agent.Config{Mode: "text", Prompt: "Count.", MaxTurns: 2, Signature: "{n :int}"})
	_, err := a.Run(context.Background(), agent.Options{LLM: model.Func()})
	if !errors.Is(err, agent.ReasonMaxTurnsExceeded) {
		t.Fatalf("err %v", err)
	}
}

// The text mode has no tools, compiles nothing, and Mode takes two values.
func TestTextModeConfig(t *testing.T) {
	tool := agent.Tool{Func: func(context.Context, *lisp.Map) (any, error) { return 1, nil }}
	for _, tt := range []struct {
		name string
		cfg  agent.Config
	}{
		{"tools", agent.Config{Mode: "text", Prompt: "P", Tools: map[string]agent.Tool{"t": tool}}},
		{"a catalog", agent.Config{Mode: "text", Prompt: "P", ToolCatalog: map[string]agent.Tool{"t": {}}}},
		{"an unknown mode", agent.Config{Mode: "json", Prompt: "P"}},
	} {
		var ce *agent.Fail
		if _, err := agent.New(tt.cfg); !errors.As(err, &ce) || ce.Op != "Mode" {
			t.Errorf("%s: %v", tt.name, err)
		}
	}
	if _, err := agent.New(agent.Config{Mode: "program", Prompt: "P"}); err != nil {
		t.Errorf("program: %v", err)
	}
	a := agent.MustNew(agent.Config{Mode: "text", Prompt: "P"})
	if _, err := a.Compile(context.Background(), agent.Options{}); !errors.Is(err, agent.ReasonNotCompilable) {
		t.Errorf("Compile: %v", err)
	}
}
