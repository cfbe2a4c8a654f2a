package agent_test

import (
	"context"
	"errors"
	"testing"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/llm/llmtest"
)

// TestReasonIs: errors.Is finds a run's Reason in its error, through a
// chained_failure too, and New's *Fail; a program's own reason
// matches by its word, never a runtime reason of the same word.
func TestReasonIs(t *testing.T) {
	run := func(maxTurns int, programs ...string) error {
		t.Helper()
		var replies []llmtest.Reply
		for _, p := range programs {
			replies = append(replies, llmtest.Code(p))
		}
		a := agent.MustNew(agent.Config{Prompt: "p", Signature: "-> :int", MaxTurns: maxTurns})
		_, err := a.Run(context.Background(), agent.Options{LLM: llmtest.NewScript(replies...).Func()})
		return err
	}
	cases := []struct {
		name string
		err  error
		is   []error
		not  []error
	}{
		{"max turns", run(2, `(+ 1 2)`, `(+ 1 2)`), []error{agent.ReasonMaxTurnsExceeded}, []error{agent.ReasonFailed, agent.ReasonTimeout}},
		{"a program's reason", run(1, `(fail {:reason :not_found :message "no"})`), []error{agent.Reason("not_found")}, []error{agent.ReasonFailed}},
		{"a program's timeout is not the runtime's", run(1, `(fail {:reason :timeout})`), []error{agent.Reason("timeout")}[:0], []error{agent.ReasonTimeout}},
		{"fail without a reason", run(1, `(fail "no")`), []error{agent.ReasonFailed}, []error{agent.ReasonMaxTurnsExceeded}},
	}
	_, cfgErr := agent.New(agent.Config{})
	cases = append(cases, struct {
		name string
		err  error
		is   []error
		not  []error
	}{"config", cfgErr, []error{agent.ReasonInvalidConfig}, []error{agent.ReasonInvalidSignature}})
	_, sigErr := agent.New(agent.Config{Prompt: "p", Signature: "-> :nonsense"})
	cases = append(cases, struct {
		name string
		err  error
		is   []error
		not  []error
	}{"signature", sigErr, []error{agent.ReasonInvalidSignature}, []error{agent.ReasonInvalidConfig}})
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.err == nil {
				t.Fatal("no error")
			}
			for _, r := range tc.is {
				if !errors.Is(tc.err, r) {
					t.Errorf("errors.Is(%v, %q) is false", tc.err, r)
				}
			}
			for _, r := range tc.not {
				if errors.Is(tc.err, r) {
					t.Errorf("errors.Is(%v, %q) is true", tc.err, r)
				}
			}
		})
	}
}

// TestReasonChained: an agent run on a failed Step (here a single-shot
// value that breaks the signature) fails with
// chained_failure, and errors.Is sees the upstream reason through it.
func TestReasonChained(t *testing.T) {
	first := agent.MustNew(agent.Config{Prompt: "p", Signature: "-> {n :int}", MaxTurns: 1})
	step, _ := first.Run(context.Background(), agent.Options{LLM: llmtest.NewScript(llmtest.Code(`(+ 1 2)`)).Func()})
	second := agent.MustNew(agent.Config{Prompt: "q {{n}}", Signature: "(n :int) -> :int"})
	_, err := second.Run(context.Background(), agent.Options{LLM: llmtest.NewScript(llmtest.Code(`(return 1)`)).Func(), Input: step})
	if !errors.Is(err, agent.ReasonChainedFailure) || !errors.Is(err, agent.ReasonValidationError) {
		t.Fatalf("%v: want both chained_failure and the upstream validation_error", err)
	}
}
