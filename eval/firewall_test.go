package eval_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/eval"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm/llmtest"
)

// TestFailureReasonsKeepTheFirewall: when a case fails, what the report
// says of the returned value — in Why, the table, JSON and JUnit — is
// behind the mission's firewall, whichever check failed: a _ field of the
// input, and copies of its text in other fields, never show.
func TestFailureReasonsKeepTheFirewall(t *testing.T) {
	const secret = "tok-8c1f2a9e77"
	input := map[string]any{"_key": secret, "n": 1}
	leak := llmtest.Code(`(return {:n ctx/n :_key ctx/_key :copy (str "key=" ctx/_key) :list [ctx/_key]})`)
	// Each check fails where the value holds a hidden part: a reason
	// names the place and the values there.
	cases := []eval.Case{
		{Name: "equals", Input: input, Checks: []eval.Check{eval.Equals(map[string]any{"n": 1, "_key": "x", "copy": "key=x", "list": []any{"x"}})}},
		{Name: "subset", Input: input, Checks: []eval.Check{eval.Subset(map[string]any{"copy": "key=other"})}},
		{Name: "expects-its-own", Input: input, Checks: []eval.Check{eval.Equals(map[string]any{"n": 1, "_key": secret, "list": []any{"other"}})}},
		{Name: "satisfies", Input: input, Checks: []eval.Check{eval.Satisfies(`(fn [r] (= 2 (:n r)))`)}},
		{Name: "satisfies-errs", Input: input, Checks: []eval.Check{eval.Satisfies(`(fn [r] (+ 1 (:copy r)))`)}},
		{Name: "fails", Input: input, Checks: []eval.Check{eval.Fails("")}},
		{Name: "go-check", Input: input, Checks: []eval.Check{eval.Passes(func(s *agent.Step) error {
			return errors.New("bad copy " + lisp.Print(s.Return, lisp.PrintOptions{}))
		})}},
	}
	rep, err := eval.Run(context.Background(), []eval.Task{{Name: "leaky", Config: agent.Config{Prompt: "Echo"}, Cases: cases}},
		eval.Config{Variants: []eval.Variant{{Name: "m", Model: llmtest.NewScript(leak, leak, leak, leak, leak, leak, leak).Func()}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Results {
		if r.Case != "go-check" && !strings.Contains(r.Why, agent.Firewalled) {
			t.Errorf("%s: the reason should show where the value was hidden: %s", r.Case, r.Why)
		}
		if r.Passed || r.Why == "" {
			t.Errorf("%s: passed %v, why %q: every case should fail with a reason", r.Case, r.Passed, r.Why)
		}
		if strings.Contains(r.Why, secret) || strings.Contains(r.Why, "8c1f2a9e") {
			t.Errorf("%s: the reason shows the firewalled value: %s", r.Case, r.Why)
		}
	}
	var out bytes.Buffer
	if err := rep.WriteTable(&out, eval.TableOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := rep.WriteJSON(&out); err != nil {
		t.Fatal(err)
	}
	if err := rep.WriteJUnit(&out); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), "8c1f2a9e") {
		t.Errorf("a report shows the firewalled value:\n%s", out.String())
	}
}
