package agent_test

import (
	"context"
	"strings"
	"testing"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm/llmtest"
)

// The secrets below must never reach the model, whatever the programs do
// with them; the host still gets them in Step.Return.
const (
	apiKey    = "sk-live-9f8e7d6c5b4a"
	rawBody   = "CONFIDENTIAL quarterly numbers"
	vaultCode = "vault-door-4711"
)

func TestFirewallEgress(t *testing.T) {
	tools := map[string]agent.Tool{
		"fetch": {Func: func(context.Context, *lisp.Map) (any, error) {
			return map[string]any{"title": "Q3 report", "_body": rawBody, "size": 30}, nil
		}, Signature: "() -> {title :string, _body :string, size :int}"},
	}
	s := llmtest.NewScript(
		// Printing a firewalled value, a map holding one, a "_" entry.
		llmtest.Code(`(println ctx/_vault) (println ctx/config) (prn (:_key ctx/config))`),
		// Copying firewalled strings into new strings and values.
		llmtest.Code(`(def r (tool/fetch {})) (println (str "body=" (:_body r))) (printf "%s!\n" (:_body r)) {:copy (:_body r) :title (:title r)}`),
		// A firewalled value in an error message.
		llmtest.Code(`(+ 1 (:_key ctx/config))`),
		// "_" memory: shown hidden in the memory report.
		llmtest.Code(`(def _stash (:_body r)) (def note (subs (:_body r) 0 12)) (count _stash)`),
		// Validation feedback that would quote the value.
		llmtest.Code(`(return {:n (:_body r)})`),
		// Derived values are the program's own: visible.
		llmtest.Code(`(return {:n (count (:_body r)) :_secret (:_key ctx/config)})`),
	)
	ctx := map[string]any{
		"_vault": []any{map[string]any{"code": vaultCode}},
		"config": map[string]any{"_key": apiKey, "region": "eu"},
	}
	step, err := run(t, agent.Config{Prompt: "Summarize the report", Signature: "{n :int, _secret :string}", Tools: tools, MaxTurns: 8},
		agent.Options{LLM: s.Func(), Context: ctx})
	if err != nil {
		t.Fatal(err)
	}
	// The host sees everything.
	if got := printed(step.Return); !strings.Contains(got, apiKey) {
		t.Errorf("Step.Return lost the firewalled field: %s", got)
	}
	// The model sees none of it, in any request (system prompt, mission,
	// feedback of every turn).
	for i, req := range s.Requests() {
		texts := []string{req.System, req.Prompt}
		for _, m := range req.Messages {
			texts = append(texts, m.Content)
		}
		for _, text := range texts {
			for _, secret := range []string{apiKey, rawBody, vaultCode} {
				if strings.Contains(text, secret) {
					t.Errorf("request %d leaks %q:\n%s", i+1, secret, text)
				}
			}
		}
	}
	checks := []struct {
		turn int
		want []string
	}{
		{1, []string{agent.Firewalled, `{_key ` + agent.Firewalled + `, region eu}`}},
		{2, []string{"body=" + agent.Firewalled, agent.Firewalled + "!", `{:copy ` + agent.Firewalled + `, :title "Q3 report"}`}},
		{3, []string{"type_error", `got string "` + agent.Firewalled + `"`}},
		{4, []string{"_stash", "30"}},
		{5, []string{"Got: {:n " + agent.Firewalled + "}", "n: expected :int"}},
	}
	for _, c := range checks {
		fb := s.LastMessage(c.turn)
		for _, w := range c.want {
			if !strings.Contains(fb, w) {
				t.Errorf("turn %d feedback lacks %q:\n%s", c.turn, w, fb)
			}
		}
	}
}

// Tool schemas given to a parent model omit firewalled output fields.
func TestFirewallInToolSchemas(t *testing.T) {
	a, err := agent.New(agent.Config{Prompt: "x", Tools: map[string]agent.Tool{
		"fetch": {Func: func(context.Context, *lisp.Map) (any, error) { return nil, nil },
			Signature: "(id :int) -> {title :string, _body :string}"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	sys, err := agent.PreviewPrompt(a, agent.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(sys.System, "_body") {
		t.Errorf("the system prompt shows the firewalled field _body:\n%s", sys.System)
	}
}
