package openai

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm"
)

// A whole mission through the adapter: the fake server plays the model,
// turn by turn, with PTC-Lisp programs in ```clojure fences; the first
// calls a Go tool and prints, the second returns.
func TestAgentMission(t *testing.T) {
	turn1 := "Let me look at the stock first.\n\n```clojure\n(def rows (tool/stock {}))\n(println (count rows) \"rows\")\n```"
	turn2 := "```clojure\n(return {:count (sum-by :qty (filter #(= (:kind %) ctx/kind) rows))})\n```"
	s := newServer(t, func(n int, r received) reply {
		// The turn is told by the conversation, not by the call count:
		// system, mission, then a reply and a feedback per turn.
		switch len(r.messages()) {
		case 2:
			return reply{Body: completion(turn1, 1500, 40, 0)}
		case 4:
			return reply{Body: completion(turn2, 1620, 35, 1408)}
		}
		return reply{Status: 400, Body: `{"error":{"message":"unexpected conversation","type":"invalid_request_error"}}`}
	})
	fn := newFunc(t, s, Config{Model: "gpt-4.1-mini", Temperature: ptr(0.0)})

	var toolCalls int
	a := agent.MustNew(agent.Config{
		Prompt:    "How many {{kind}} items are in stock?",
		Signature: "(kind :string) -> {count :int}",
		Tools: map[string]agent.Tool{
			"stock": agent.Func(func(ctx context.Context, args *lisp.Map) (any, error) {
				toolCalls++
				return []map[string]any{{"kind": "tool", "qty": 3}, {"kind": "toy", "qty": 0}, {"kind": "tool", "qty": 5}}, nil
			}),
		},
	})
	step, err := a.Run(context.Background(), agent.Options{
		LLM:        fn,
		Context:    map[string]any{"kind": "tool"},
		LLMOptions: map[string]any{"max_tokens": 800},
	})
	if err != nil {
		t.Fatalf("mission failed: %v (requests: %d)", err, s.calls())
	}
	if got := lisp.PrintString(step.Return); got != "{:count 8}" {
		t.Errorf("return %s, want {:count 8}", got)
	}
	if toolCalls != 1 {
		t.Errorf("the tool was called %d times", toolCalls)
	}
	u := step.Usage
	if u.Turns != 2 || u.LLMRequests != 2 {
		t.Errorf("%d turns, %d LLM requests; want 2, 2", u.Turns, u.LLMRequests)
	}
	if want := (llm.Tokens{Input: 1500 + 1620, Output: 40 + 35, CacheRead: 1408}); u.Tokens != want {
		t.Errorf("usage tokens %+v, want %+v", u.Tokens, want)
	}

	if s.calls() != 2 {
		t.Fatalf("%d HTTP requests, want 2", s.calls())
	}
	first, second := s.request(0), s.request(1)
	m1, m2 := first.messages(), second.messages()
	if m1[0][0] != "system" || !strings.Contains(m1[0][1], "tool/stock") {
		t.Errorf("the system prompt does not come first or does not name the tool: %.200q", m1[0][1])
	}
	if m1[1][0] != "user" || !strings.Contains(m1[1][1], "How many tool items are in stock?") {
		t.Errorf("the mission: %q", m1[1])
	}
	if m2[2] != [2]string{"assistant", turn1} {
		t.Errorf("turn 1's reply was not sent back as the assistant's: %q", m2[2])
	}
	if m2[3][0] != "user" || !strings.Contains(m2[3][1], "3 rows") {
		t.Errorf("the feedback of turn 1 does not show the program's output: %q", m2[3])
	}
	for i, r := range []received{first, second} {
		if r.JSON["model"] != "gpt-4.1-mini" || r.JSON["max_tokens"] != 800.0 || r.JSON["temperature"] != 0.0 {
			t.Errorf("request %d: model %v max_tokens %v temperature %v", i+1, r.JSON["model"], r.JSON["max_tokens"], r.JSON["temperature"])
		}
	}
}

// A rate limit through the agent: its RetryPolicy retries (once per
// failure, the SDK does not), honouring the server's retry-after-ms.
func TestAgentRetriesRateLimit(t *testing.T) {
	s := newServer(t, func(n int, r received) reply {
		if n == 1 {
			return reply{Status: 429, Header: map[string]string{"retry-after-ms": "20"},
				Body: `{"error":{"message":"Rate limit reached for requests","type":"requests","param":null,"code":"rate_limit_exceeded"}}`}
		}
		return reply{Body: completion("```clojure\n(return {:answer 42})\n```", 900, 12, 0)}
	})
	a := agent.MustNew(agent.Config{
		Prompt:    "What is the answer?",
		Signature: "-> {answer :int}",
		LLMRetry:  agent.RetryPolicy{MaxAttempts: 3, BaseDelay: 10 * time.Millisecond, Jitter: -1},
	})
	step, err := a.Run(context.Background(), agent.Options{LLM: newFunc(t, s, Config{})})
	if err != nil {
		t.Fatal(err)
	}
	if got := lisp.PrintString(step.Return); got != "{:answer 42}" {
		t.Errorf("return %s", got)
	}
	if step.Usage.LLMRequests != 2 || s.calls() != 2 {
		t.Errorf("%d LLM requests, %d HTTP requests; want 2 and 2", step.Usage.LLMRequests, s.calls())
	}
}

// A misspelt option ends the mission at once with the adapter's reason,
// before any HTTP request.
func TestAgentUnknownOption(t *testing.T) {
	s := newServer(t, always(reply{Body: completion("```clojure\n(return 1)\n```", 1, 1, 0)}))
	a := agent.MustNew(agent.Config{Prompt: "Anything.", LLMRetry: agent.RetryPolicy{MaxAttempts: 3}})
	_, err := a.Run(context.Background(), agent.Options{LLM: newFunc(t, s, Config{}),
		LLMOptions: map[string]any{"max_token": 100}})
	var ae *agent.Error
	if !errors.As(err, &ae) || ae.Step == nil || ae.Step.Fail == nil {
		t.Fatalf("error %v, want an *agent.Error with a Fail", err)
	}
	if f := ae.Step.Fail; f.Reason != ReasonInvalidOptions || !strings.Contains(f.Message, `"max_token"`) {
		t.Errorf("fail %+v", f)
	}
	if s.calls() != 0 {
		t.Errorf("%d HTTP requests", s.calls())
	}
}
