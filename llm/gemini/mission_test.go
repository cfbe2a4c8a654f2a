package gemini

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
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
		// the mission, then a reply and a feedback per turn.
		switch len(r.contents()) {
		case 1:
			return reply{Body: generated(turn1, 1500, 40, 0)}
		case 3:
			return reply{Body: generated(turn2, 1620, 35, 1408)}
		}
		return reply{Status: 400, Body: apiError(400, "INVALID_ARGUMENT", "unexpected conversation")}
	})
	fn := newFunc(t, s, Config{Model: "gemini-2.5-flash", Temperature: ptr(0.0)})

	var toolCalls atomic.Int32
	a := agent.MustNew(agent.Config{
		Prompt:    "How many {{kind}} items are in stock?",
		Signature: "(kind :string) -> {count :int}",
		Tools: map[string]agent.Tool{
			"stock": agent.Func(func(ctx context.Context, args *lisp.Map) (any, error) {
				toolCalls.Add(1)
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
	if n := toolCalls.Load(); n != 1 {
		t.Errorf("the tool was called %d times, want 1", n)
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
	for i, r := range []received{first, second} {
		if r.Path != "/v1beta/models/gemini-2.5-flash:generateContent" {
			t.Errorf("request %d: path %s", i+1, r.Path)
		}
		if sys, _ := r.system(); !strings.Contains(sys, "tool/stock") {
			t.Errorf("request %d: the system instruction does not name the tool: %.200q", i+1, sys)
		}
		if gc := r.generationConfig(); gc["maxOutputTokens"] != 800.0 || gc["temperature"] != 0.0 {
			t.Errorf("request %d: generationConfig %v, want maxOutputTokens 800 and temperature 0", i+1, gc)
		}
	}
	c1, c2 := first.contents(), second.contents()
	if len(c1) != 1 || c1[0][0] != "user" || !strings.Contains(c1[0][1], "How many tool items are in stock?") {
		t.Errorf("turn 1 contents: %q", c1)
	}
	if len(c2) != 3 {
		t.Fatalf("turn 2 sent %d contents, want 3: %q", len(c2), c2)
	}
	if c2[0] != c1[0] {
		t.Errorf("turn 2 does not start with the mission: %q", c2[0])
	}
	if c2[1] != [2]string{"model", turn1} {
		t.Errorf("turn 1's reply was not sent back as the model's: %q", c2[1])
	}
	if c2[2][0] != "user" || !strings.Contains(c2[2][1], "3 rows") {
		t.Errorf("the feedback of turn 1 does not show the program's output: %q", c2[2])
	}
}

// A rate limit through the agent: its RetryPolicy retries (the SDK does
// not), waiting the retryDelay Gemini asked for.
func TestAgentRetriesRateLimit(t *testing.T) {
	s := newServer(t, func(n int, r received) reply {
		if n == 1 {
			return reply{Status: 429, Body: apiError(429, "RESOURCE_EXHAUSTED", quotaMessage,
				`{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "0.02s"}`)}
		}
		return reply{Body: generated("```clojure\n(return {:answer 42})\n```", 900, 12, 0)}
	})
	a := agent.MustNew(agent.Config{
		Prompt:    "What is the answer?",
		Signature: "-> {answer :int}",
		LLMRetry:  agent.RetryPolicy{MaxAttempts: 3, BaseDelay: time.Millisecond, Jitter: -1},
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

// A wrong key ends the mission at once: Auth is never retried, by the
// adapter or by the agent.
func TestAgentAuthNotRetried(t *testing.T) {
	for _, rep := range []reply{
		{Status: 400, Body: apiError(400, "INVALID_ARGUMENT", "API key not valid. Please pass a valid API key.", keyInvalid, keyMessage)},
		{Status: 401, Body: apiError(401, "UNAUTHENTICATED", "Request had invalid authentication credentials.")},
		{Status: 403, Body: apiError(403, "PERMISSION_DENIED", "Your API key was reported as leaked. Please use another API key.")},
	} {
		s := newServer(t, always(rep))
		a := agent.MustNew(agent.Config{Prompt: "Anything.",
			LLMRetry: agent.RetryPolicy{MaxAttempts: 3, BaseDelay: time.Millisecond}})
		_, err := a.Run(context.Background(), agent.Options{LLM: newFunc(t, s, Config{})})
		var ae *agent.Error
		if !errors.As(err, &ae) || ae.Step == nil || ae.Step.Fail == nil {
			t.Fatalf("%d: error %v, want an *agent.Error with a Fail", rep.Status, err)
		}
		f := ae.Step.Fail
		if f.Reason != agent.ReasonLLMError || f.Details["class"] != string(llm.Auth) {
			t.Errorf("%d: fail %+v, want %s of class %s", rep.Status, f, agent.ReasonLLMError, llm.Auth)
		}
		if strings.Contains(f.Message, testKey) {
			t.Errorf("%d: the failure shows the API key: %q", rep.Status, f.Message)
		}
		if s.calls() != 1 {
			t.Errorf("%d: %d HTTP requests, want 1", rep.Status, s.calls())
		}
	}
}

// A misspelt option ends the mission at once with the adapter's reason,
// before any HTTP request.
func TestAgentUnknownOption(t *testing.T) {
	s := newServer(t, always(reply{Body: generated("```clojure\n(return 1)\n```", 1, 1, 0)}))
	a := agent.MustNew(agent.Config{Prompt: "Anything.", LLMRetry: agent.RetryPolicy{MaxAttempts: 3}})
	_, err := a.Run(context.Background(), agent.Options{LLM: newFunc(t, s, Config{}),
		LLMOptions: map[string]any{"max_token": 100}})
	var ae *agent.Error
	if !errors.As(err, &ae) || ae.Step == nil || ae.Step.Fail == nil {
		t.Fatalf("error %v, want an *agent.Error with a Fail", err)
	}
	if f := ae.Step.Fail; f.Reason != reasonInvalidOptions || !strings.Contains(f.Message, `"max_token"`) {
		t.Errorf("fail %+v", f)
	}
	if s.calls() != 0 {
		t.Errorf("%d HTTP requests", s.calls())
	}
}
