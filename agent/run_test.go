package agent_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm"
	"github.com/ptc-go/ptc/llm/llmtest"
)

func run(t *testing.T, cfg agent.Config, opts agent.Options) (*agent.Step, error) {
	t.Helper()
	a, err := agent.New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return a.Run(context.Background(), opts)
}

func printed(v lisp.Value) string { return lisp.Print(v, lisp.PrintOptions{}) }

func TestSingleShot(t *testing.T) {
	s := llmtest.NewScript(llmtest.Code("(+ ctx/x ctx/y)"))
	step, err := run(t, agent.Config{Prompt: "Add {{x}} and {{y}}", MaxTurns: 1},
		agent.Options{LLM: s.Func(), Input: map[string]any{"x": 10, "y": 5}})
	if err != nil {
		t.Fatal(err)
	}
	if printed(step.Return) != "15" || step.Usage.Turns != 1 || s.Calls() != 1 {
		t.Errorf("return %s, usage %+v", printed(step.Return), step.Usage)
	}
	if got := s.Requests()[0].Messages[0].Content; got != "Add 10 and 5" {
		t.Errorf("prompt %q", got)
	}
}

func TestLoopReturn(t *testing.T) {
	s := llmtest.NewScript(
		llmtest.Code(`(def n (count ctx/items)) (println "n is" n) n`),
		llmtest.Code(`(return {:count n :first (first ctx/items)})`),
	)
	step, err := run(t, agent.Config{Prompt: "Count the items", Signature: "{count :int, first :int}"},
		agent.Options{LLM: s.Func(), Input: map[string]any{"items": []int{4, 5, 6}}})
	if err != nil {
		t.Fatal(err)
	}
	if printed(step.Return) != "{:count 3, :first 4}" {
		t.Errorf("return %s", printed(step.Return))
	}
	fb := s.LastMessage(1)
	for _, want := range []string{"Value: 3", "n is 3", "Memory: n", "Turn 2 of 5"} {
		if !strings.Contains(fb, want) {
			t.Errorf("feedback %q lacks %q", fb, want)
		}
	}
	if len(step.Trace) != 2 || step.Trace[0].Output[0] != "n is 3" {
		t.Errorf("trace %+v", step.Trace)
	}
}

func TestFailAndErrors(t *testing.T) {
	s := llmtest.NewScript(
		llmtest.Code(`(+ 1 "a")`),
		llmtest.Code(`(fail {:reason :not_found :message (str "after " (:reason ctx/fail))})`),
	)
	step, err := run(t, agent.Config{Prompt: "Try"}, agent.Options{LLM: s.Func()})
	var ae *agent.Error
	if !errors.As(err, &ae) || ae.Step != step {
		t.Fatalf("err %v", err)
	}
	if step.Fail.Reason != "not_found" || step.Fail.Message != "after :eval_error" {
		t.Errorf("fail %+v", step.Fail)
	}
	if fb := s.LastMessage(1); !strings.Contains(fb, "Error: ") || !strings.Contains(fb, "type_error") {
		t.Errorf("feedback %q", fb)
	}
}

func TestMaxTurns(t *testing.T) {
	s := llmtest.NewScript(llmtest.Code("1"), llmtest.Code("2"))
	step, _ := run(t, agent.Config{Prompt: "Loop", MaxTurns: 2}, agent.Options{LLM: s.Func()})
	if step.Fail == nil || step.Fail.Reason != agent.ReasonMaxTurnsExceeded || s.Calls() != 2 {
		t.Errorf("fail %+v calls %d", step.Fail, s.Calls())
	}
	if !strings.Contains(s.LastMessage(1), "Last turn") {
		t.Errorf("no last-turn warning: %q", s.LastMessage(1))
	}
}

func TestValidationSelfCorrection(t *testing.T) {
	s := llmtest.NewScript(
		llmtest.Code(`(return {:count "3"})`),
		llmtest.Code(`(return {:count 3})`),
	)
	step, err := run(t, agent.Config{Prompt: "Count", Signature: "{count :int}"}, agent.Options{LLM: s.Func()})
	if err != nil {
		t.Fatal(err)
	}
	if fb := s.LastMessage(1); !strings.Contains(fb, "count: expected :int") {
		t.Errorf("feedback %q", fb)
	}
	if printed(step.Return) != "{:count 3}" {
		t.Errorf("return %s", printed(step.Return))
	}
}

// A map from strings as the output: the model is shown the type, each
// value is checked under its key, and keys may be strings or keywords.
func TestMapOfOutput(t *testing.T) {
	s := llmtest.NewScript(
		llmtest.Code(`(return {"ann" 2 :bob "3"})`),
		llmtest.Code(`(return {"ann" 2 :bob 3})`),
	)
	step, err := run(t, agent.Config{Prompt: "Tally the votes", Signature: "{:string :int}"}, agent.Options{LLM: s.Func()})
	if err != nil {
		t.Fatal(err)
	}
	if sys := s.Requests()[0].System; !strings.Contains(sys, "{:string :int}") {
		t.Errorf("the prompt does not show the type:\n%s", sys)
	}
	if fb := s.LastMessage(1); !strings.Contains(fb, `bob: expected :int, got "3"`) {
		t.Errorf("feedback %q", fb)
	}
	if printed(step.Return) != `{:bob 3, "ann" 2}` {
		t.Errorf("return %s", printed(step.Return))
	}
}

func TestRetries(t *testing.T) {
	rate := &llm.Error{Class: llm.ClassRateLimit, Status: 429}
	s := llmtest.NewScript(llmtest.Fail(rate), llmtest.Fail(rate), llmtest.Code("(return 1)"))
	step, err := run(t, agent.Config{Prompt: "p", LLMRetry: llm.RetryPolicy{MaxAttempts: 3, BaseDelay: 1}},
		agent.Options{LLM: s.Func()})
	if err != nil {
		t.Fatal(err)
	}
	if step.Usage.Turns != 1 || step.Usage.LLMRequests != 3 {
		t.Errorf("usage %+v", step.Usage)
	}
	s = llmtest.NewScript(llmtest.Fail(&llm.Error{Class: llm.ClassClientError, Status: 400}))
	step, _ = run(t, agent.Config{Prompt: "p", LLMRetry: llm.RetryPolicy{MaxAttempts: 3, BaseDelay: 1}},
		agent.Options{LLM: s.Func()})
	if step.Fail == nil || step.Fail.Reason != agent.ReasonLLMError || s.Calls() != 1 {
		t.Errorf("fail %+v calls %d", step.Fail, s.Calls())
	}
}

func TestChaining(t *testing.T) {
	s := llmtest.NewScript(llmtest.Code(`{:result (* 2 ctx/n)}`), llmtest.Code(`{:final (+ ctx/result 10)}`))
	doubler := agent.MustNew(agent.Config{Prompt: "Double {{n}}", Signature: "(n :int) -> {result :int}", MaxTurns: 1})
	adder := agent.MustNew(agent.Config{Prompt: "Add 10 to {{result}}", Signature: "(result :int) -> {final :int}", MaxTurns: 1})
	s1, err := doubler.Run(context.Background(), agent.Options{LLM: s.Func(), Input: map[string]any{"n": 5}})
	if err != nil {
		t.Fatal(err)
	}
	s2, err := adder.Run(context.Background(), agent.Options{LLM: s.Func(), Input: s1})
	if err != nil {
		t.Fatal(err)
	}
	if printed(s2.Return) != "{:final 20}" {
		t.Errorf("return %s", printed(s2.Return))
	}
	s3, err := adder.Run(context.Background(), agent.Options{LLM: s.Func(), Input: &agent.Step{Fail: &agent.Fail{Reason: "x", Message: "y"}}})
	if err == nil || s3.Fail.Reason != agent.ReasonChainedFailure {
		t.Errorf("chained: %+v", s3.Fail)
	}
}
