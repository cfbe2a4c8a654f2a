package agent_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm"
)

// fanOut is a root agent ("fan") that pmaps an LLM tool (classify) over
// twelve items in its first turn and returns the count in its second: the
// ordinary fan-out of issue 26.
func fanOut(t *testing.T, budget int) (*agent.Step, error) {
	t.Helper()
	classify := toolOf(t)(agent.NewLLMTool(agent.Config{
		Prompt:      "Classify {{text}}",
		Signature:   "(text :string) -> {label :string}",
		Description: "Classifies a text.",
	}, agent.AsToolOptions{}))
	model := llm.Func(func(_ context.Context, req llm.Request) (llm.Response, error) {
		code := func(p string) (llm.Response, error) { return llm.Response{Content: "```clojure\n" + p + "\n```"}, nil }
		if strings.HasPrefix(req.Prompt, "Fan") {
			if req.Turn == 1 {
				return code(`(def labels (pmap #(tool/classify {:text %}) ctx/items))`)
			}
			return code(`(return (count labels))`)
		}
		return code(`{:label "x"}`)
	})
	items := make([]any, 12)
	for i := range items {
		items[i] = "item"
	}
	root := agent.MustNew(agent.Config{Name: "fan", Prompt: "Fan out", MaxTreeTurns: budget,
		Tools: map[string]agent.Tool{"classify": classify}})
	return root.Run(context.Background(), agent.Options{LLM: model, Input: map[string]any{"items": items}})
}

// TestFanOutTurnBudget: twelve LLM-tool calls and the root's two turns fit
// the default TurnBudget; a budget they exceed fails with a message that
// names the field to raise and who used the turns.
func TestFanOutTurnBudget(t *testing.T) {
	step, err := fanOut(t, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := printed(step.Return); got != "12" || step.TotalUsage.Turns != 14 {
		t.Errorf("return %s, %d turns, want 12 and 14", got, step.TotalUsage.Turns)
	}
	step, err = fanOut(t, 10)
	if err == nil || step.Fail.Reason != agent.ReasonTurnBudgetExhausted {
		t.Fatalf("budget 10: %v", err)
	}
	msg := step.Fail.Message
	for _, want := range []string{"budget of 10 turns", "raise the root agent's Config.MaxTreeTurns",
		`1 by the root agent "fan"`, `9 by 9 missions of "classify"`} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q lacks %q", msg, want)
		}
	}
	// A lone mission is told to raise its own MaxTreeTurns.
	s := &routed{routes: map[string][]string{"Loop": {`(+ 1 1)`}}}
	lone := agent.MustNew(agent.Config{Name: "lone", Prompt: "Loop", MaxTurns: 10, MaxTreeTurns: 3})
	step, _ = lone.Run(context.Background(), agent.Options{LLM: s.Func()})
	if f := step.Fail; f == nil || f.Reason != agent.ReasonTurnBudgetExhausted ||
		!strings.Contains(f.Message, `: 3 by the root agent "lone"; raise Config.MaxTreeTurns`) {
		t.Errorf("lone: %+v", f)
	}
}

// TestPipelineFailedStage: a failed pipeline's chained_failure names the
// stage that failed and its reason, Step.Upstream is that stage's Step,
// and Fail.Cause and errors.As reach its Fail.
func TestPipelineFailedStage(t *testing.T) {
	model := &routed{routes: map[string][]string{
		"Find":  {`(return {:ids [1 2 3]})`},
		"Draft": {`(fail {:reason :no_data :message "nothing to draft"})`},
		"Send":  {`(return "sent")`},
	}}
	find := agent.MustNew(agent.Config{Name: "find", Prompt: "Find", Signature: "{ids [:int]}"})
	draft := agent.MustNew(agent.Config{Name: "draft", Prompt: "Draft", Signature: "(ids [:int]) -> {drafts :int}"})
	send := agent.MustNew(agent.Config{Name: "send", Prompt: "Send", Signature: ":string"})
	steps, err := agent.Pipeline{find, draft, send}.Run(context.Background(), agent.Options{LLM: model.Func()})
	if len(steps) != 3 {
		t.Fatalf("%d steps, err %v", len(steps), err)
	}
	last := steps[2]
	if f := last.Fail; f == nil || f.Reason != agent.ReasonChainedFailure ||
		!strings.Contains(f.Message, `stage 1 of the pipeline (agent "draft") failed: no_data: nothing to draft`) ||
		f.Details["stage"] != 1 || f.Details["stage_agent"] != "draft" {
		t.Errorf("chained failure %+v", last.Fail)
	}
	var ae *agent.Error
	if !errors.As(err, &ae) || ae.Step != last {
		t.Errorf("errors.As(*Error): %v", err)
	}
	var fail *agent.Fail
	if !errors.As(err, &fail) || fail.Cause() != steps[1].Fail || fail.Cause().Reason != "no_data" {
		t.Errorf("Cause of %v", fail)
	}
	if errors.Unwrap(last.Fail) != steps[1].Fail || !errors.Is(err, steps[1].Fail) {
		t.Errorf("the chained_failure does not unwrap to the stage's Fail")
	}
	if steps[1].Fail.Cause() != steps[1].Fail || errors.Unwrap(steps[1].Fail) != nil {
		t.Errorf("a failure that is not chained is its own cause")
	}
	// Then, outside a pipeline: the previous step, without a stage.
	step, _ := agent.Then(context.Background(), steps[1], send, agent.Options{})
	if step.Fail.Details["upstream"] != steps[1].Fail || !strings.HasPrefix(step.Fail.Message, "the previous step failed: no_data") {
		t.Errorf("then: %+v", step.Fail)
	}
}

// nestedPmaps is a tree whose root pmaps an agent tool over four numbers,
// each child pmapping a Go tool over three: leaf records its calls.
func nestedPmaps(t *testing.T, leaf agent.ToolFunc, opts agent.Options) {
	t.Helper()
	model := &routed{routes: map[string][]string{
		"Root":  {`(return (pmap #(tool/child {:n %}) [0 1 2 3]))`},
		"Child": {`(return (count (pmap #(tool/leaf {:p ctx/n :i %}) [0 1 2])))`},
	}}
	// Generous limits: the parallel run's leaf calls wait for each other.
	limits := lisp.Limits{Timeout: 5 * time.Minute}
	child := agent.MustNew(agent.Config{Name: "child", Prompt: "Child {{n}}", Signature: "(n :int) -> :int", Limits: limits,
		Description: "Counts.", Tools: map[string]agent.Tool{"leaf": agent.Tool{Func: leaf}}})
	root := agent.MustNew(agent.Config{Name: "root", Prompt: "Root", Limits: limits,
		Tools: map[string]agent.Tool{"child": toolOf(t)(child.AsTool(agent.AsToolOptions{}))}})
	opts.LLM = model.Func()
	step, err := root.Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if got := printed(step.Return); got != "[3 3 3 3]" {
		t.Fatalf("return %s", got)
	}
}

// TestSequentialTree: Options.Sequential runs every pmap of the tree, the
// nested agents' included, one call at a time in order: the leaf calls
// come in the same order on every run. Without it they still overlap.
func TestSequentialTree(t *testing.T) {
	var want string
	for i := range 4 {
		for j := range 3 {
			want += fmt.Sprintf("{:i %d, :p %d}", j, i)
		}
	}
	for run := range 20 {
		var mu sync.Mutex
		var got strings.Builder
		nestedPmaps(t, func(_ context.Context, args *lisp.Map) (any, error) {
			mu.Lock()
			defer mu.Unlock()
			got.WriteString(printed(args))
			return 1, nil
		}, agent.Options{Sequential: true})
		if got.String() != want {
			t.Fatalf("run %d: calls %s, want %s", run, got.String(), want)
		}
	}
	// Without it, two leaf calls are in flight at once: each waits (up to
	// a generous minute) for another to arrive.
	var mu sync.Mutex
	inFlight, most := 0, 0
	arrived := make(chan struct{})
	var once sync.Once
	nestedPmaps(t, func(ctx context.Context, _ *lisp.Map) (any, error) {
		mu.Lock()
		inFlight++
		most = max(most, inFlight)
		if inFlight >= 2 {
			once.Do(func() { close(arrived) })
		}
		mu.Unlock()
		select {
		case <-arrived:
		case <-time.After(time.Minute):
		case <-ctx.Done():
		}
		mu.Lock()
		inFlight--
		mu.Unlock()
		return 1, nil
	}, agent.Options{})
	if most < 2 {
		t.Errorf("without Sequential, at most %d leaf call at once", most)
	}
}
