package anthropic

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/llm"
	"github.com/ptc-go/ptc/llm/internal/missiontest"
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
		messageBody(t, "msg_01", missiontest.Turn1, 150, 1400, 0, 40),
		messageBody(t, "msg_02", missiontest.Turn2, 90, 210, 1400, 30),
	}
	f := newFakeAPI(t, func(n int) reply {
		if n >= len(replies) {
			return reply{Status: 400, Body: `{"type":"error","error":{"type":"invalid_request_error","message":"no more turns scripted"}}`}
		}
		return reply{Body: replies[n]}
	})
	missiontest.NewMission().Run(t, newFunc(t, f, Config{}), agent.Options{Cache: true},
		llm.Tokens{Input: (150 + 1400) + (90 + 210 + 1400), Output: 70, CacheRead: 1400, CacheWrite: 1610}, f.Calls)

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
	f := newFakeAPI(t, func(n int) reply {
		if n == 0 {
			return reply{Status: 429, Header: map[string]string{"retry-after-ms": "10"}, Body: rateLimitBody}
		}
		return reply{Body: messageBody(t, "msg_03", missiontest.RetriedAnswer, 10, 0, 0, 5)}
	})
	missiontest.RetriesRateLimit(t, newFunc(t, f, Config{}), f.Calls)
}

// A wrong key ends the mission at once: Auth is never retried, by the
// adapter or by the agent.
func TestAgentAuthNotRetried(t *testing.T) {
	for _, rep := range []reply{{Status: 401, Body: authBody}, {Status: 403, Body: forbiddenBody}} {
		f := newFakeAPI(t, func(int) reply { return rep })
		missiontest.AuthNotRetried(t, newFunc(t, f, Config{}), "sk-ant-test", f.Calls)
	}
}

// A misspelt option ends the mission at once with the adapter's reason,
// before any HTTP request.
func TestAgentUnknownOption(t *testing.T) {
	f := newFakeAPI(t, nil)
	missiontest.UnknownOption(t, newFunc(t, f, Config{}), ReasonInvalidOptions, f.Calls)
}

// The stock mission in tool-calling mode, the server speaking the Messages
// API's tool_use blocks.
func TestAgentToolMode(t *testing.T) {
	f := newFakeAPI(t, func(n int) reply {
		name, input := "stock", "{}"
		if n > 0 {
			name, input = "return", missiontest.ToolModeAnswer
		}
		return reply{Body: `{"id":"msg_` + fmt.Sprint(n) + `","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929",` +
			`"content":[{"type":"tool_use","id":"toolu_` + fmt.Sprint(n) + `","name":"` + name + `","input":` + input + `}],` +
			`"stop_reason":"tool_use","stop_sequence":null,"usage":{"input_tokens":10,"output_tokens":5}}`}
	})
	missiontest.RunToolMode(t, newFunc(t, f, Config{}), func() []string {
		var out []string
		for _, r := range f.requests() {
			out = append(out, r.raw)
		}
		return out
	})
}
