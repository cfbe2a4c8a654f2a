package agent_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/agent/prompt"
	"github.com/ptc-go/ptc/llm"
)

// toolRequests runs a parent whose one program makes calls of
// tool, in order, and returns the tool's requests, in order. answer is the
// tool's reply to its n-th request (from 0): a program, or "text: ..." for
// a reply that has none.
func toolRequests(t *testing.T, tool agent.Tool, parentCtx map[string]any, program string, answer func(n int) string) []llm.Request {
	t.Helper()
	var mu sync.Mutex
	var reqs []llm.Request
	model := llm.Func(func(_ context.Context, req llm.Request) (llm.Response, error) {
		code := program
		if req.Depth > 0 {
			mu.Lock()
			code = answer(len(reqs))
			reqs = append(reqs, req)
			mu.Unlock()
		}
		if text, ok := strings.CutPrefix(code, "text: "); ok {
			return llm.Response{Content: text}, nil
		}
		return llm.Response{Content: "```clojure\n" + code + "\n```"}, nil
	})
	root := agent.MustNew(agent.Config{Prompt: "Work", MaxTurns: 1, MaxTreeTurns: 50, Tools: map[string]agent.Tool{"judge": tool}})
	if _, err := root.Run(context.Background(), agent.Options{LLM: model, Input: parentCtx}); err != nil && len(reqs) == 0 {
		t.Fatal(err)
	}
	return reqs
}

// TestLLMToolStableSystemPrompt: an LLM tool's system prompt is the same,
// byte for byte, on every call and every retry of the tool, whatever the
// input; the input follows the prompt in the first user message, behind
// the firewall.
func TestLLMToolStableSystemPrompt(t *testing.T) {
	const secret = "hunter2-hunter2-hunter2"
	for _, sp := range []prompt.Options{{}, {Language: "compact", Prefix: "You triage mail."}, {Override: "Judge the email. Reply with a PTC-Lisp map."}} {
		judge := toolOf(t)(agent.NewLLMTool(agent.Config{
			Prompt:       "Is this email urgent? {{text}}",
			Signature:    "(text :string, tags [:string]?, _token :string?) -> {urgent :bool}",
			Presentation: sp,
		}, agent.AsToolOptions{}))
		// The second call's first reply breaks the signature: retried.
		program := `(return [(tool/judge {:text "server down since 9am"})
		                     (tool/judge {:text "weekly digest" :tags ["news" "digest"] :_token ctx/_token})
		                     (tool/judge {:text ctx/_token})])`
		answers := []string{`{:urgent true}`, `{:urgent "no"}`, `{:urgent false}`, `{:urgent false}`}
		reqs := toolRequests(t, judge, map[string]any{"_token": secret}, program, func(n int) string { return answers[n] })
		if len(reqs) != 4 {
			t.Fatalf("%+v: %d requests of the tool", sp, len(reqs))
		}
		for i, r := range reqs {
			if r.System != reqs[0].System {
				t.Errorf("%+v: request %d's system prompt differs from the first's:\n%s\n---\n%s", sp, i, r.System, reqs[0].System)
			}
		}
		sys := reqs[0].System
		for _, input := range []string{"server down", "weekly digest", "digest", "ctx/text", secret} {
			if strings.Contains(sys, input) {
				t.Errorf("%+v: the system prompt holds %q", sp, input)
			}
		}
		if !strings.Contains(sys, sp.Prefix) || (sp.Language == "compact") != strings.Contains(sys, "## PTC-Lisp, a Clojure subset") ||
			sp.Override != "" && sys != sp.Override {
			t.Errorf("%+v: the SystemPrompt is not applied:\n%s", sp, sys)
		}
		first := func(r llm.Request) string { return r.Messages[0].Content }
		for i, want := range [][]string{
			{"Is this email urgent? server down since 9am", "ctx/text :string", `"server down since 9am"`},
			{"Is this email urgent? weekly digest", `"weekly digest"`, `["news" "digest"]`, "ctx/_token :string?"},
			{"Is this email urgent? weekly digest", `"weekly digest"`}, // the retry: the same conversation
			{"Is this email urgent? ", "ctx/text :string"},
		} {
			if !strings.HasPrefix(first(reqs[i]), want[0]) || first(reqs[i]) != reqs[i].Prompt {
				t.Errorf("%+v: request %d's first message %q, prompt %q", sp, i, first(reqs[i]), reqs[i].Prompt)
			}
			for _, w := range want[1:] {
				if !strings.Contains(first(reqs[i]), w) {
					t.Errorf("%+v: request %d's first message lacks %q:\n%s", sp, i, w, first(reqs[i]))
				}
			}
		}
		// Neither the firewalled argument nor a public copy of it reaches
		// the LLM.
		for i, r := range reqs {
			for _, m := range r.Messages {
				if strings.Contains(m.Content, secret) {
					t.Errorf("%+v: request %d shows the firewalled value: %q", sp, i, m.Content)
				}
			}
		}
		if !strings.Contains(first(reqs[3]), agent.Firewalled) {
			t.Errorf("%+v: the copy of the firewalled value is not shown as %s: %q", sp, agent.Firewalled, first(reqs[3]))
		}
	}
}

// TestLLMToolPromptTruths: what an LLM tool's prompt and its feedback say
// of retries and of (return ...) agrees with each other and with what the
// tool does.
func TestLLMToolPromptTruths(t *testing.T) {
	cases := []struct {
		name     string
		maxTurns int // the replies the tool may give; zero: the default
		answers  []string
		// in and notIn are texts of the system prompt; feedback those of
		// each feedback message, in order.
		in, notIn []string
		feedback  [][]string
		requests  int
	}{
		{name: "default: one retry", answers: []string{`{:urgent "yes"}`, `{:urgent true}`},
			in:       []string{"no (return ...) needed", "for a corrected program, once at most", "a map literal alone is a whole program"},
			notIn:    []string{"There is no second turn"},
			feedback: [][]string{{"Your program's value does not match the signature.", "Reply with a corrected program; its last value is the answer.", "This is your last try."}},
			requests: 2},
		{name: "two retries", maxTurns: 3, answers: []string{`(+ 1 "a")`, `text: It is urgent.`, `{:urgent "yes"}`},
			in: []string{"for a corrected program, 2 times at most"},
			feedback: [][]string{
				{"Error: ", "Reply with a corrected program; its last value is the answer.", "2 tries left."},
				{"Your reply contains no program.", "This is your last try."},
			},
			requests: 3},
		{name: "no retries", maxTurns: 1, answers: []string{`{:urgent "yes"}`},
			in:       []string{"There is no second turn", "a map literal alone is a whole program"},
			notIn:    []string{"corrected program"},
			requests: 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			judge := toolOf(t)(agent.NewLLMTool(agent.Config{
				Prompt:    "Urgent? {{text}}",
				Signature: "(text :string) -> {urgent :bool}",
				MaxTurns:  c.maxTurns,
			}, agent.AsToolOptions{}))
			reqs := toolRequests(t, judge, nil, `(return (tool/judge {:text "x"}))`, func(n int) string { return c.answers[n] })
			if len(reqs) != c.requests {
				t.Fatalf("%d requests, want %d", len(reqs), c.requests)
			}
			sys := reqs[0].System
			for _, s := range c.in {
				if !strings.Contains(sys, s) {
					t.Errorf("the system prompt lacks %q:\n%s", s, sys)
				}
			}
			for _, s := range c.notIn {
				if strings.Contains(sys, s) {
					t.Errorf("the system prompt says %q:\n%s", s, sys)
				}
			}
			for i, want := range c.feedback {
				msgs := reqs[i+1].Messages
				fb := msgs[len(msgs)-1].Content
				for _, s := range want {
					if !strings.Contains(fb, s) {
						t.Errorf("feedback %d lacks %q:\n%s", i+1, s, fb)
					}
				}
				for _, s := range []string{"(return", "ctx/fail", "Memory", "Turn", " turn"} {
					if strings.Contains(fb, s) {
						t.Errorf("feedback %d speaks of %s, which a one-program answer has no use for:\n%s", i+1, s, fb)
					}
				}
			}
		})
	}
}

// An LLM tool without tools gives at most MaxTurns replies; a negative
// number is refused.
func TestLLMToolMaxTurnsRefused(t *testing.T) {
	_, err := agent.NewLLMTool(agent.Config{Prompt: "Urgent? {{text}}", Signature: "(text :string) -> :bool", MaxTurns: -1}, agent.AsToolOptions{})
	var f *agent.Fail
	if !errors.Is(err, agent.ReasonInvalidConfig) || !errors.As(err, &f) || f.Op != "MaxTurns" {
		t.Errorf("err %v", err)
	}
}
