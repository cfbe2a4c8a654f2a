package openai

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/llm"
	"github.com/ptc-go/ptc/llm/internal/missiontest"
)

// A whole mission through the adapter: the fake server plays the model,
// turn by turn, with PTC-Lisp programs in ```clojure fences.
func TestAgentMission(t *testing.T) {
	s := newServer(t, func(n int, r received) reply {
		// The turn is told by the conversation, not by the call count:
		// system, mission, then a reply and a feedback per turn.
		switch len(messages(r)) {
		case 2:
			return reply{Body: completion(missiontest.Turn1, 1500, 40, 0)}
		case 4:
			return reply{Body: completion(missiontest.Turn2, 1620, 35, 1408)}
		}
		return reply{Status: 400, Body: `{"error":{"message":"unexpected conversation","type":"invalid_request_error"}}`}
	})
	fn := newFunc(t, s, Config{Model: "gpt-4.1-mini", Temperature: ptr(0.0)})
	missiontest.NewMission().Run(t, fn, agent.Options{LLMOptions: map[string]any{"max_tokens": 800}},
		llm.Tokens{Input: 1500 + 1620, Output: 40 + 35, CacheRead: 1408}, s.Calls)

	first, second := s.Request(0), s.Request(1)
	m1, m2 := messages(first), messages(second)
	if m1[0][0] != "system" || !strings.Contains(m1[0][1], "tool/stock") {
		t.Errorf("the system prompt does not come first or does not name the tool: %.200q", m1[0][1])
	}
	if m1[1][0] != "user" || !strings.Contains(m1[1][1], "How many tool items are in stock?") {
		t.Errorf("the mission: %q", m1[1])
	}
	if m2[2] != [2]string{"assistant", missiontest.Turn1} {
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
		if n == 0 {
			return reply{Status: 429, Header: map[string]string{"retry-after-ms": "20"},
				Body: `{"error":{"message":"Rate limit reached for requests","type":"requests","param":null,"code":"rate_limit_exceeded"}}`}
		}
		return reply{Body: completion(missiontest.RetriedAnswer, 900, 12, 0)}
	})
	missiontest.RetriesRateLimit(t, newFunc(t, s, Config{}), s.Calls)
}

// A misspelt option ends the mission at once with the adapter's reason,
// before any HTTP request.
func TestAgentUnknownOption(t *testing.T) {
	s := newServer(t, always(reply{Body: completion("```clojure\n(return 1)\n```", 1, 1, 0)}))
	missiontest.UnknownOption(t, newFunc(t, s, Config{}), ReasonInvalidOptions, s.Calls)
}

// The stock mission in tool-calling mode, the server speaking the Chat
// Completions tool-call format.
func TestAgentToolMode(t *testing.T) {
	s := newServer(t, func(n int, r received) reply {
		call, args := "stock", "{}"
		if n > 0 {
			call, args = "return", missiontest.ToolModeAnswer
		}
		a, _ := json.Marshal(args)
		return reply{Body: `{"id":"c","object":"chat.completion","created":1,"model":"gpt-4.1-mini","choices":[{"index":0,` +
			`"message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_` + strconv.Itoa(n) + `","type":"function",` +
			`"function":{"name":"` + call + `","arguments":` + string(a) + `}}]},"finish_reason":"tool_calls"}],` +
			`"usage":{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15}}`}
	})
	missiontest.RunToolMode(t, newFunc(t, s, Config{}), func() []string {
		var out []string
		for i := range s.Calls() {
			out = append(out, string(s.Request(i).Body))
		}
		return out
	})
}
