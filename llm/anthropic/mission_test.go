package anthropic

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm"
)

// messageBody is a Messages API reply holding text, with its usage.
func messageBody(t *testing.T, id, text string, input, cacheWrite, cacheRead, output int) string {
	t.Helper()
	b, err := json.Marshal(map[string]any{
		"id": id, "type": "message", "role": "assistant", "model": "claude-sonnet-4-5-20250929",
		"content":     []map[string]any{{"type": "text", "text": text}},
		"stop_reason": "end_turn", "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": input, "cache_creation_input_tokens": cacheWrite,
			"cache_read_input_tokens": cacheRead, "output_tokens": output, "service_tier": "standard"},
	})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A whole mission through the adapter: turn 1 calls a Go tool, turn 2
// returns; the second request reuses the cached prefix.
func TestAgentMission(t *testing.T) {
	replies := []string{
		messageBody(t, "msg_01", "I'll look at the stock first.\n\n```clojure\n(def rows (tool/stock {}))\n(println (count rows) \"rows\")\n```",
			150, 1400, 0, 40),
		messageBody(t, "msg_02", "```clojure\n(return {:count (sum-by :qty (filter #(= (:kind %) ctx/kind) rows))})\n```",
			90, 210, 1400, 30),
	}
	f := newFakeAPI(t, func(n int, _ *http.Request, _ map[string]any) reply {
		if n >= len(replies) {
			return reply{400, nil, `{"type":"error","error":{"type":"invalid_request_error","message":"no more turns scripted"}}`}
		}
		return reply{body: replies[n]}
	})
	fn := newFunc(t, f, Config{})

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
	step, err := a.Run(context.Background(), agent.Options{LLM: llm.Func(fn), Context: map[string]any{"kind": "tool"}, Cache: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := lisp.PrintString(step.Return); got != "{:count 8}" {
		t.Errorf("return %s", got)
	}
	if toolCalls.Load() != 1 || step.Usage.Turns != 2 || step.Usage.LLMRequests != 2 {
		t.Errorf("tool calls %d, turns %d, LLM requests %d", toolCalls.Load(), step.Usage.Turns, step.Usage.LLMRequests)
	}
	want := llm.Tokens{Input: (150 + 1400) + (90 + 210 + 1400), Output: 70, CacheRead: 1400, CacheWrite: 1610}
	if step.Usage.Tokens != want {
		t.Errorf("tokens %+v, want %+v", step.Usage.Tokens, want)
	}

	reqs := f.requests()
	if len(reqs) != 2 {
		t.Fatalf("%d HTTP requests, want 2", len(reqs))
	}
	for i, r := range reqs {
		if !strings.Contains(compact(t, r.body["system"]), `"cache_control":{"type":"ephemeral"}`) {
			t.Errorf("request %d: no breakpoint on the system prompt", i+1)
		}
	}
	if n := strings.Count(reqs[0].raw, "cache_control"); n != 1 {
		t.Errorf("turn 1: %d breakpoints, want 1 (the system prompt)", n)
	}
	// Turn 2: mission, the program of turn 1 (the stable prefix, marked),
	// its feedback.
	msgs := reqs[1].body["messages"].([]any)
	if len(msgs) != 3 {
		t.Fatalf("turn 2 sent %d messages: %s", len(msgs), compact(t, msgs))
	}
	for i, m := range msgs {
		mm := m.(map[string]any)
		block := mm["content"].([]any)[0].(map[string]any)
		_, marked := block["cache_control"]
		if marked != (i == 1) {
			t.Errorf("turn 2, message %d (%s): cache_control %v", i, mm["role"], marked)
		}
	}
	if msgs[1].(map[string]any)["role"] != "assistant" ||
		!strings.Contains(compact(t, msgs[1]), "tool/stock") {
		t.Errorf("turn 2, message 1: %s", compact(t, msgs[1]))
	}
	if !strings.Contains(fmt.Sprint(msgs[2]), "3 rows") {
		t.Errorf("turn 2 feedback lacks the output of turn 1: %s", compact(t, msgs[2]))
	}
	if n := strings.Count(reqs[1].raw, "cache_control"); n != 2 {
		t.Errorf("turn 2: %d breakpoints, want 2", n)
	}
}

// A rate limit goes back to the agent, whose RetryPolicy retries it: the
// adapter itself sends one request per call.
func TestAgentRetriesRateLimit(t *testing.T) {
	f := newFakeAPI(t, func(n int, _ *http.Request, _ map[string]any) reply {
		if n == 0 {
			return reply{429, map[string]string{"retry-after-ms": "10"}, rateLimitBody}
		}
		return reply{body: messageBody(t, "msg_03", "```clojure\n(return 42)\n```", 10, 0, 0, 5)}
	})
	fn := newFunc(t, f, Config{})
	step, err := agent.MustNew(agent.Config{Prompt: "Answer", Signature: "-> :int", MaxTurns: 1,
		LLMRetry: agent.RetryPolicy{MaxAttempts: 2, BaseDelay: 1, MaxDelay: 1}}).Run(context.Background(),
		agent.Options{LLM: llm.Func(fn)})
	if err != nil {
		t.Fatal(err)
	}
	if lisp.PrintString(step.Return) != "42" || step.Usage.LLMRequests != 2 || len(f.requests()) != 2 {
		t.Errorf("return %s, LLM requests %d, HTTP requests %d",
			lisp.PrintString(step.Return), step.Usage.LLMRequests, len(f.requests()))
	}
}
