package agent_test

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm"
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
		agent.Options{LLM: s.Func(), Input: ctx})
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

// A parent model is told a tool's firewalled output fields exist, marked
// hidden: its programs get them, it never sees their values.
func TestFirewallInToolSchemas(t *testing.T) {
	a, err := agent.New(agent.Config{Prompt: "x", Tools: map[string]agent.Tool{
		"fetch": {Func: func(context.Context, *lisp.Map) (any, error) { return nil, nil },
			Signature: "(id :int) -> {title :string, _body :string}"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	sys, err := a.Preview(agent.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(sys.System, "  (id :int) -> {title :string, _body :string}\n  ; hidden from you: _body\n") {
		t.Errorf("the system prompt does not mark the firewalled field _body:\n%s", sys.System)
	}
}

// A Step given as the next agent's input (Then, Pipeline.Run,
// Options.Input) brings its firewall along: what the first mission hid
// from its LLM, copies under public fields included (strings, numbers,
// str-built text), the next agent's LLM does not see either, in its
// prompt, its data inventory or its feedback; its programs still use it.
func TestFirewallAcrossChains(t *testing.T) {
	for _, secret := range fwSecrets {
		token := secret + "#t"
		tools := map[string]agent.Tool{"get": agent.Tool{Func: func(context.Context, *lisp.Map) (any, error) {
			return map[string]any{"_token": token, "_n": 90817263544}, nil
		}}}
		first := agent.MustNew(agent.Config{Prompt: "a", Tools: tools})
		firstProgram := `(let [r (tool/get {})] (return {:t (:_token r) :n (:_n r) :s (str "L" ctx/_key) :p ctx/_pin}))`
		second := agent.MustNew(agent.Config{Prompt: "Use {{t}}, {{n}}, {{s}} and {{p}}."})
		secondProgram := `(println ctx/t ctx/s) {:t ctx/t :sum (+ ctx/n ctx/p)}`
		ctxData := map[string]any{"_key": secret, "_pin": fwPin}
		secrets := []string{secret, token, "90817263544", strconv.Itoa(fwPin)}
		check := func(name string, s *llmtest.Script, step *agent.Step) {
			t.Helper()
			if len(s.Requests()) == 0 {
				t.Fatalf("%s: the second agent made no request", name)
			}
			for i, req := range s.Requests() {
				for _, text := range requestTexts(req) {
					if f := leak(text, secrets...); f != "" {
						t.Errorf("%s/%d bytes: request %d leaks %q:\n%s", name, len(secret), i+1, f, text)
					}
				}
			}
			// The program had the values themselves.
			if got, _ := step.Return.(*lisp.Map).Get(lisp.Keyword("sum")); got != int64(90817263544+fwPin) {
				t.Errorf("%s: the second program did not get the values: sum %v", name, got)
			}
		}
		runFirst := func() *agent.Step {
			s := llmtest.NewScript(llmtest.Code(firstProgram))
			step, err := first.Run(context.Background(), agent.Options{LLM: s.Func(), Input: ctxData})
			if err != nil {
				t.Fatal(err)
			}
			return step
		}
		secondScript := func() *llmtest.Script {
			return llmtest.NewScript(llmtest.Code(secondProgram), llmtest.Code(`(return *1)`))
		}

		s := secondScript()
		step, err := agent.Then(context.Background(), runFirst(), second, agent.Options{LLM: s.Func()})
		if err != nil {
			t.Fatal(err)
		}
		check("Then", s, step)

		s = secondScript()
		step, err = second.Run(context.Background(), agent.Options{LLM: s.Func(), Input: runFirst()})
		if err != nil {
			t.Fatal(err)
		}
		check("Options.Input", s, step)

		s1, s2 := llmtest.NewScript(llmtest.Code(firstProgram)), secondScript()
		steps, err := agent.Pipeline{first, second}.Run(context.Background(), agent.Options{
			LLM: llm.Func(func(ctx context.Context, req llm.Request) (llm.Response, error) {
				if strings.HasPrefix(req.Prompt, "Use") {
					return s2.Func()(ctx, req)
				}
				return s1.Func()(ctx, req)
			}), Input: ctxData})
		if err != nil {
			t.Fatal(err)
		}
		check("Pipeline.Run", s2, steps[1])
	}
}
