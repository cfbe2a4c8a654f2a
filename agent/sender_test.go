package agent_test

import (
	"context"
	"sync"
	"testing"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/internal/engine"
	"github.com/ptc-go/ptc/llm"
	"github.com/ptc-go/ptc/llm/llmtest"
)

// sender is what an llm.Request says of the mission that sent it.
type sender struct {
	agent           string
	depth           int
	trace, parentID string
}

func senderOf(r llm.Request) sender { return sender{r.Agent, r.Depth, r.TraceID, r.ParentTraceID} }

// TestRequestSender: one model shared by a tree (a parent calling an agent
// tool, which calls an LLM tool, and the LLM tool itself) sees in every
// request which mission sent it, as that mission's events and Step say.
func TestRequestSender(t *testing.T) {
	classify := toolOf(t)(agent.NewLLMTool(agent.Config{
		Prompt:    "Classify {{text}}",
		Signature: "(text :string) -> {urgent :bool}",
	}, agent.AsToolOptions{}))
	research := toolOf(t)(agent.MustNew(agent.Config{
		Name: "researcher", Prompt: "Research {{q}}", Signature: "(q :string) -> {urgent :bool}",
		Description: "Researches.", Tools: map[string]agent.Tool{"classify": classify},
	}).AsTool(agent.AsToolOptions{}))
	root := agent.MustNew(agent.Config{Name: "triage", Prompt: "Triage",
		Tools: map[string]agent.Tool{"research": research, "classify": classify}})
	// Sequential calls: the script's replies go to the requests in order.
	s := llmtest.NewScript(
		llmtest.Code(`(return [(tool/research {:q "a"}) (tool/classify {:text "b"})])`), // triage
		llmtest.Code(`(return (tool/classify {:text "c"}))`),                            // researcher
		llmtest.Code(`{:urgent true}`),                                                  // classify, from researcher
		llmtest.Code(`{:urgent false}`),                                                 // classify, from triage
	)
	var mu sync.Mutex
	var events []sender
	obs := agent.ObserverFunc(func(_ context.Context, e *agent.Event) {
		if e.Kind == agent.LLMStart {
			mu.Lock()
			events = append(events, sender{e.Agent, e.Depth, e.TraceID, e.ParentTraceID})
			mu.Unlock()
		}
	})
	step, err := root.Run(context.Background(), agent.Options{LLM: s.Func(), Observers: []agent.Observer{obs}})
	if err != nil {
		t.Fatal(err)
	}
	calls := step.Trace[0].ToolCalls
	if len(calls) != 2 {
		t.Fatalf("tool calls %+v", calls)
	}
	researcher, classifyTop := calls[0].Child, calls[1].Child
	classifyDeep := researcher.Trace[0].ToolCalls[0].Child
	want := []sender{
		{"triage", 0, step.TraceID, ""},
		{"researcher", 1, researcher.TraceID, step.TraceID},
		{"classify", 2, classifyDeep.TraceID, researcher.TraceID},
		{"classify", 1, classifyTop.TraceID, step.TraceID},
	}
	reqs := s.Requests()
	if len(reqs) != len(want) {
		t.Fatalf("%d requests, want %d", len(reqs), len(want))
	}
	seen := map[string]bool{}
	for i, r := range reqs {
		got := senderOf(r)
		if got != want[i] {
			t.Errorf("request %d: sender %+v, want %+v", i, got, want[i])
		}
		if got != events[i] {
			t.Errorf("request %d: sender %+v, its llm.start event %+v", i, got, events[i])
		}
		if len(got.trace) != 32 || seen[got.trace] {
			t.Errorf("request %d: trace id %q not a fresh one", i, got.trace)
		}
		seen[got.trace] = true
	}

	// A mission an engine runs (Hooks) sends, through Hooks.LLM, the
	// position and trace id the engine gave it.
	var hooked llm.Request
	hooks := &engine.Hooks{
		TraceID:  "0123456789abcdef0123456789abcdef",
		Position: &engine.Position{Depth: 2, MaxDepth: 3, TurnsLeft: 5, BudgetSize: 20, ParentTraceID: "fedcba9876543210fedcba9876543210", Name: "classify"},
		LLM: func(_ context.Context, call engine.LLMCall) (engine.LLMReply, error) {
			hooked = call.Request
			return engine.LLMReply{Response: llm.Response{Content: "```clojure\n{:urgent true}\n```"}}, nil
		},
	}
	if _, err := agent.MustNew(agent.Config{Prompt: "Classify", MaxTurns: 1}).Run(engine.WithHooks(context.Background(), hooks), agent.Options{}); err != nil {
		t.Fatal(err)
	}
	if got, want := senderOf(hooked), (sender{"classify", 2, hooks.TraceID, hooks.Position.ParentTraceID}); got != want {
		t.Errorf("hooked: sender %+v, want %+v", got, want)
	}

	// A compiling mission's requests carry its name and trace id too.
	c := agent.MustNew(agent.Config{Name: "adder", Prompt: "Add", Signature: "(x :int) -> :int"})
	cs := llmtest.NewScript(llmtest.Code(`(return (+ ctx/x 1))`))
	compiled, err := c.Compile(context.Background(), agent.Options{LLM: cs.Func(), Input: map[string]any{"x": 1}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := senderOf(cs.Requests()[0]), (sender{"adder", 0, compiled.CompileStep().TraceID, ""}); got != want {
		t.Errorf("compile: sender %+v, want %+v", got, want)
	}
}
