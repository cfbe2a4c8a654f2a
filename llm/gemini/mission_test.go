package gemini

import (
	"net/http"
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
		// the mission, then a reply and a feedback per turn.
		switch len(sentContents(r)) {
		case 1:
			return reply{Body: generated(missiontest.Turn1, 1500, 40, 0)}
		case 3:
			return reply{Body: generated(missiontest.Turn2, 1620, 35, 1408)}
		}
		return reply{Status: 400, Body: apiError(400, "INVALID_ARGUMENT", "unexpected conversation")}
	})
	fn := newFunc(t, s, Config{Model: "gemini-2.5-flash", Temperature: ptr(0.0)})
	missiontest.NewMission().Run(t, fn, agent.Options{LLMOptions: map[string]any{"max_tokens": 800}},
		llm.Tokens{Input: 1500 + 1620, Output: 40 + 35, CacheRead: 1408}, s.Calls)

	first, second := s.Request(0), s.Request(1)
	for i, r := range []received{first, second} {
		// The agent asks for streamed replies; this fake answers each
		// with one JSON body, which the adapter reads as one event.
		if r.Path != "/v1beta/models/gemini-2.5-flash:streamGenerateContent" || r.Query != "alt=sse" {
			t.Errorf("request %d: path %s?%s", i+1, r.Path, r.Query)
		}
		if sys, _ := system(r); !strings.Contains(sys, "tool/stock") {
			t.Errorf("request %d: the system instruction does not name the tool: %.200q", i+1, sys)
		}
		if gc := generationConfig(r); gc["maxOutputTokens"] != 800.0 || gc["temperature"] != 0.0 {
			t.Errorf("request %d: generationConfig %v, want maxOutputTokens 800 and temperature 0", i+1, gc)
		}
	}
	c1, c2 := sentContents(first), sentContents(second)
	if len(c1) != 1 || c1[0][0] != "user" || !strings.Contains(c1[0][1], "How many tool items are in stock?") {
		t.Errorf("turn 1 contents: %q", c1)
	}
	if len(c2) != 3 {
		t.Fatalf("turn 2 sent %d contents, want 3: %q", len(c2), c2)
	}
	if c2[0] != c1[0] {
		t.Errorf("turn 2 does not start with the mission: %q", c2[0])
	}
	if c2[1] != [2]string{"model", missiontest.Turn1} {
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
		if n == 0 {
			return reply{Status: 429, Body: apiError(429, "RESOURCE_EXHAUSTED", quotaMessage,
				`{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "0.02s"}`)}
		}
		return reply{Body: generated(missiontest.RetriedAnswer, 900, 12, 0)}
	})
	missiontest.RetriesRateLimit(t, newFunc(t, s, Config{}), s.Calls)
}

// A wrong key ends the mission at once: Auth is never retried, by the
// adapter or by the agent.
func TestAgentAuthNotRetried(t *testing.T) {
	for _, rep := range []reply{
		{Status: 400, Body: apiError(400, "INVALID_ARGUMENT", "API key not valid. Please pass a valid API key.", keyInvalid, keyMessage)},
		{Status: 401, Body: apiError(401, "UNAUTHENTICATED", "Request had invalid authentication credentials.")},
		{Status: 403, Body: apiError(403, "PERMISSION_DENIED", "Your API key was reported as leaked. Please use another API key.")},
	} {
		t.Run(http.StatusText(rep.Status), func(t *testing.T) {
			s := newServer(t, always(rep))
			missiontest.AuthNotRetried(t, newFunc(t, s, Config{}), testKey, s.Calls)
		})
	}
}

// A misspelt option ends the mission at once with the adapter's reason,
// before any HTTP request.
func TestAgentUnknownOption(t *testing.T) {
	s := newServer(t, always(reply{Body: generated("```clojure\n(return 1)\n```", 1, 1, 0)}))
	missiontest.UnknownOption(t, newFunc(t, s, Config{}), reasonInvalidOptions, s.Calls)
}

// The stock mission in tool-calling mode, the server speaking
// generateContent's functionCall parts.
func TestAgentToolMode(t *testing.T) {
	s := newServer(t, func(n int, r received) reply {
		name, args := "stock", "{}"
		if n > 0 {
			name, args = "return", missiontest.ToolModeAnswer
		}
		return reply{Body: `{"candidates":[{"content":{"parts":[{"functionCall":{"name":"` + name + `","args":` + args + `}}],"role":"model"},` +
			`"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":10,"candidatesTokenCount":5,"totalTokenCount":15},` +
			`"modelVersion":"gemini-2.5-flash-001"}`}
	})
	missiontest.RunToolMode(t, newFunc(t, s, Config{}), func() []string {
		var out []string
		for i := range s.Calls() {
			out = append(out, string(s.Request(i).Body))
		}
		return out
	})
}
