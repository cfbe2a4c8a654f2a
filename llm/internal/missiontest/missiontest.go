package missiontest

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

// The model's replies in the stock mission: turn 1 calls the Go tool and
// prints, turn 2 returns.
const (
	Turn1 = "Let me look at the stock first.\n\n```clojure\n(def rows (tool/stock {}))\n(println (count rows) \"rows\")\n```"
	Turn2 = "```clojure\n(return {:count (sum-by :qty (filter #(= (:kind %) ctx/kind) rows))})\n```"
)

// Mission is the stock mission ("How many tool items are in stock?"), its
// tool counting its calls.
type Mission struct {
	Agent     *agent.Agent
	toolCalls atomic.Int32
}

// NewMission builds the stock mission's agent.
func NewMission() *Mission {
	m := &Mission{}
	m.Agent = agent.MustNew(agent.Config{
		Prompt:    "How many {{kind}} items are in stock?",
		Signature: "(kind :string) -> {count :int}",
		Tools: map[string]agent.Tool{
			"stock": agent.Tool{Func: func(ctx context.Context, args *lisp.Map) (any, error) {
				m.toolCalls.Add(1)
				return []map[string]any{{"kind": "tool", "qty": 3}, {"kind": "toy", "qty": 0}, {"kind": "tool", "qty": 5}}, nil
			}},
		},
	})
	return m
}

// Run runs the mission on fn with opts (Context is set) and checks its
// Step: {:count 8} returned, the tool called once, two turns of one LLM
// request each, and tokens as the sum of the replies' usage. calls counts
// the fake server's requests, for the message of a failure.
func (m *Mission) Run(t *testing.T, fn llm.Func, opts agent.Options, tokens llm.Tokens, calls func() int) {
	t.Helper()
	opts.LLM = fn
	opts.Input = map[string]any{"kind": "tool"}
	step, err := m.Agent.Run(context.Background(), opts)
	if err != nil {
		t.Fatalf("mission failed: %v (requests: %d)", err, calls())
	}
	if got := lisp.Print(step.Return, lisp.PrintOptions{}); got != "{:count 8}" {
		t.Errorf("return %s, want {:count 8}", got)
	}
	if n := m.toolCalls.Load(); n != 1 {
		t.Errorf("the tool was called %d times, want 1", n)
	}
	u := step.Usage
	if u.Turns != 2 || u.LLMRequests != 2 {
		t.Errorf("%d turns, %d LLM requests; want 2, 2", u.Turns, u.LLMRequests)
	}
	if u.Tokens != tokens {
		t.Errorf("usage tokens %+v, want %+v", u.Tokens, tokens)
	}
	if calls() != 2 {
		t.Fatalf("%d HTTP requests, want 2", calls())
	}
}

// RetriedAnswer is the reply that follows the rate limit in
// RetriesRateLimit.
const RetriedAnswer = "```clojure\n(return {:answer 42})\n```"

// RetriesRateLimit runs a mission on fn, whose server answers a rate limit
// (with the delay to wait) and then RetriedAnswer: the agent's
// RetryPolicy retries, the adapter itself sends one request per call.
func RetriesRateLimit(t *testing.T, fn llm.Func, calls func() int) {
	t.Helper()
	a := agent.MustNew(agent.Config{
		Prompt:    "What is the answer?",
		Signature: "-> {answer :int}",
		LLMRetry:  llm.RetryPolicy{MaxAttempts: 3, BaseDelay: time.Millisecond, Jitter: -1},
	})
	step, err := a.Run(context.Background(), agent.Options{LLM: fn})
	if err != nil {
		t.Fatal(err)
	}
	if got := lisp.Print(step.Return, lisp.PrintOptions{}); got != "{:answer 42}" {
		t.Errorf("return %s", got)
	}
	if step.Usage.LLMRequests != 2 || calls() != 2 {
		t.Errorf("%d LLM requests, %d HTTP requests; want 2 and 2", step.Usage.LLMRequests, calls())
	}
}

// UnknownOption runs a mission on fn with a misspelt option: it ends at
// once, its Fail of the adapter's reason naming the option, before any
// HTTP request.
func UnknownOption(t *testing.T, fn llm.Func, reason string, calls func() int) {
	t.Helper()
	a := agent.MustNew(agent.Config{Prompt: "Anything.", LLMRetry: llm.RetryPolicy{MaxAttempts: 3}})
	_, err := a.Run(context.Background(), agent.Options{LLM: fn, LLMOptions: map[string]any{"max_token": 100}})
	var ae *agent.Error
	if !errors.As(err, &ae) || ae.Step == nil || ae.Step.Fail == nil {
		t.Fatalf("error %v, want an *agent.Error with a Fail", err)
	}
	if f := ae.Step.Fail; string(f.Reason) != reason || !strings.Contains(f.Message, `"max_token"`) {
		t.Errorf("fail %+v", f)
	}
	if calls() != 0 {
		t.Errorf("%d HTTP requests", calls())
	}
}

// AuthNotRetried runs a mission on fn, whose server refuses the key: the
// mission ends at once with an LLM error of class Auth (never retried, by
// the adapter or by the agent) that does not show key.
func AuthNotRetried(t *testing.T, fn llm.Func, key string, calls func() int) {
	t.Helper()
	a := agent.MustNew(agent.Config{Prompt: "Anything.",
		LLMRetry: llm.RetryPolicy{MaxAttempts: 3, BaseDelay: time.Millisecond}})
	_, err := a.Run(context.Background(), agent.Options{LLM: fn})
	var ae *agent.Error
	if !errors.As(err, &ae) || ae.Step == nil || ae.Step.Fail == nil {
		t.Fatalf("error %v, want an *agent.Error with a Fail", err)
	}
	f := ae.Step.Fail
	if f.Reason != agent.ReasonLLMError || f.Details["class"] != string(llm.ClassAuth) {
		t.Errorf("fail %+v, want %s of class %s", f, agent.ReasonLLMError, llm.ClassAuth)
	}
	if strings.Contains(f.Message, key) {
		t.Errorf("the failure shows the API key: %q", f.Message)
	}
	if calls() != 1 {
		t.Errorf("%d HTTP requests, want 1", calls())
	}
}

// ToolSecret is the firewalled supplier of every row of the tool-mode
// stock mission: it must reach no request.
const ToolSecret = "supplier-7788-hidden-acct"

// ToolModeAnswer is the return call's arguments of the tool-mode stock
// mission.
const ToolModeAnswer = `{"count": 8}`

// RunToolMode runs the stock mission in tool-calling mode on fn: the
// server plays a model that calls stock natively, then return with
// ToolModeAnswer. It checks the Step ({:count 8}, the tool called once,
// two turns), and that the firewalled supplier of the rows reached none of
// the requests (bodies returns their raw bodies).
func RunToolMode(t *testing.T, fn llm.Func, bodies func() []string) {
	t.Helper()
	var calls atomic.Int32
	a := agent.MustNew(agent.Config{
		Mode:      "tools",
		Prompt:    "How many {{kind}} items are in stock?",
		Signature: "(kind :string) -> {count :int}",
		Tools: map[string]agent.Tool{
			"stock": {Signature: "() -> [{kind :string, qty :int, _supplier :string}]", Description: "Lists the stock.",
				Func: func(ctx context.Context, args *lisp.Map) (any, error) {
					calls.Add(1)
					return []map[string]any{{"kind": "tool", "qty": 3, "_supplier": ToolSecret}, {"kind": "toy", "qty": 0, "_supplier": ToolSecret},
						{"kind": "tool", "qty": 5, "_supplier": ToolSecret}}, nil
				}},
		},
	})
	step, err := a.Run(context.Background(), agent.Options{LLM: fn, Input: map[string]any{"kind": "tool"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := lisp.Print(step.Return, lisp.PrintOptions{}); got != `{"count" 8}` {
		t.Errorf("return %s", got)
	}
	if calls.Load() != 1 || step.Usage.Turns != 2 {
		t.Errorf("the tool was called %d times in %d turns; want 1 and 2", calls.Load(), step.Usage.Turns)
	}
	b := bodies()
	if len(b) != 2 {
		t.Fatalf("%d requests, want 2", len(b))
	}
	if !strings.Contains(b[1], `qty`) {
		t.Errorf("the second request lacks the tool's result: %.400s", b[1])
	}
	for i, body := range b {
		if strings.Contains(body, ToolSecret) || strings.Contains(body, ToolSecret[:12]) {
			t.Errorf("request %d holds the firewalled supplier", i+1)
		}
	}
}
