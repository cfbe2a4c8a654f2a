package otel

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"go.opentelemetry.io/otel/attribute"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/llm"
	"github.com/ptc-go/ptc/llm/llmtest"
	"github.com/ptc-go/ptc/llm/openai"
)

// The names as the OpenTelemetry GenAI semantic conventions spell them
// (gen-ai-spans.md, gen-ai-agent-spans.md, gen-ai-metrics.md), written out
// here rather than taken from the package's constants, so that a
// misspelt constant fails.
func TestConventionNames(t *testing.T) {
	for got, want := range map[string]string{
		keyOperation:       "gen_ai.operation.name",
		keyProviderName:    "gen_ai.provider.name",
		keyAgentName:       "gen_ai.agent.name",
		keyRequestModel:    "gen_ai.request.model",
		keyResponseModel:   "gen_ai.response.model",
		keyFinishReasons:   "gen_ai.response.finish_reasons",
		keyInputTokens:     "gen_ai.usage.input_tokens",
		keyOutputTokens:    "gen_ai.usage.output_tokens",
		keyCacheRead:       "gen_ai.usage.cache_read.input_tokens",
		keyCacheCreation:   "gen_ai.usage.cache_creation.input_tokens",
		keyTokenType:       "gen_ai.token.type",
		keyToolName:        "gen_ai.tool.name",
		keyToolCallID:      "gen_ai.tool.call.id",
		keyToolArguments:   "gen_ai.tool.call.arguments",
		keyToolResult:      "gen_ai.tool.call.result",
		keySystemInstr:     "gen_ai.system_instructions",
		keyInputMessages:   "gen_ai.input.messages",
		keyOutputMessages:  "gen_ai.output.messages",
		keyErrorType:       "error.type",
		errOther:           "_OTHER",
		opChat:             "chat",
		opInvokeAgent:      "invoke_agent",
		opExecuteTool:      "execute_tool",
		tokenInput:         "input",
		tokenOutput:        "output",
		MetricTokenUsage:   "gen_ai.client.token.usage",
		MetricChatDuration: "gen_ai.client.operation.duration",
	} {
		if got != want {
			t.Errorf("%q, want %q", got, want)
		}
	}
}

// openaiServer is an OpenAI endpoint that answers every call with status
// (a chat completion when 200) from a dated model, as OpenAI does.
func openaiServer(t *testing.T, status int) string {
	t.Helper()
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if status != http.StatusOK {
			w.WriteHeader(status)
			_, _ = w.Write([]byte(`{"error":{"message":"slow down","type":"rate_limit"}}`))
			return
		}
		_, _ = w.Write([]byte(`{"id":"c1","object":"chat.completion","created":1,"model":"gpt-4.1-mini-2025-04-14",
"choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"(return 1)"}}],
"usage":{"prompt_tokens":30,"completion_tokens":5,"total_tokens":35}}`))
	}))
	t.Cleanup(s.Close)
	return s.URL
}

// TestChatConventions runs a one-call mission with each way of naming a
// model and checks the chat span's name and convention attributes, and the
// attributes of its metrics, against the conventions: gen_ai.request.model
// is the model asked for (the adapter's configured one, else the llm.Name;
// absent when nothing names it), never the dated one that answered, which
// is gen_ai.response.model; gen_ai.provider.name is the adapter's.
func TestChatConventions(t *testing.T) {
	openaiFunc := func(t *testing.T, status int) llm.Func {
		f, err := openai.New(openai.Config{Model: "gpt-4.1-mini", APIKey: "k", BaseURL: openaiServer(t, status) + "/v1"})
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	const dated = "gpt-4.1-mini-2025-04-14"
	for _, tc := range []struct {
		name  string
		model func(t *testing.T) (llm.Model, llm.Registry)
		span  string
		// want are the chat span's convention attributes; "" for absent.
		want map[string]string
	}{
		{"adapter", func(t *testing.T) (llm.Model, llm.Registry) { return openaiFunc(t, 200), nil },
			"chat gpt-4.1-mini", map[string]string{"gen_ai.provider.name": "openai",
				"gen_ai.request.model": "gpt-4.1-mini", "gen_ai.response.model": dated, "error.type": ""}},
		{"adapter by registry name", func(t *testing.T) (llm.Model, llm.Registry) {
			return llm.Name("fast"), llm.Registry{"fast": openaiFunc(t, 200)}
		}, "chat gpt-4.1-mini", map[string]string{"gen_ai.provider.name": "openai",
			"gen_ai.request.model": "gpt-4.1-mini", "gen_ai.response.model": dated, "error.type": ""}},
		{"failed adapter call", func(t *testing.T) (llm.Model, llm.Registry) { return openaiFunc(t, 429), nil },
			"chat gpt-4.1-mini", map[string]string{"gen_ai.provider.name": "openai",
				"gen_ai.request.model": "gpt-4.1-mini", "gen_ai.response.model": "", "error.type": "rate_limit"}},
		{"plain func", func(t *testing.T) (llm.Model, llm.Registry) {
			return llmtest.NewScript(llmtest.Code("(return 1)")).Func(), nil
		}, "chat", map[string]string{"gen_ai.provider.name": "", "gen_ai.request.model": "",
			"gen_ai.response.model": "", "error.type": ""}},
		{"plain func by name", func(t *testing.T) (llm.Model, llm.Registry) {
			return llm.Name("haiku"), llm.Registry{"haiku": llmtest.NewScript(llmtest.Code("(return 1)")).Func()}
		}, "chat haiku", map[string]string{"gen_ai.provider.name": "", "gen_ai.request.model": "haiku",
			"gen_ai.response.model": "", "error.type": ""}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, false)
			model, reg := tc.model(t)
			a := agent.MustNew(agent.Config{Name: "a", Prompt: "Answer.", MaxTurns: 1,
				LLMRetry: llm.RetryPolicy{MaxAttempts: 1}})
			_, _ = a.Run(context.Background(), agent.Options{LLM: model, Registry: reg, Observers: []agent.Observer{h.obs}})
			h.checkClosed(t)

			chat := h.one(t, tc.span)
			got := attrs(chat)
			want := map[string]string{"gen_ai.operation.name": "chat"}
			for k, v := range tc.want {
				want[k] = v
			}
			for k, v := range want {
				if g, ok := got[k]; v == "" && ok {
					t.Errorf("%s = %q, want none", k, g.String())
				} else if v != "" && g.String() != v {
					t.Errorf("%s = %q, want %q", k, g.String(), v)
				}
			}

			// The metrics carry the same attributes.
			var set []attribute.KeyValue
			for k, v := range want {
				if v != "" {
					set = append(set, attribute.String(k, v))
				}
			}
			m := h.metrics(t)
			if p := exact[float64](t, m[MetricChatDuration], set...); p.Count != 1 {
				t.Errorf("%d chat durations", p.Count)
			}
			if want["error.type"] != "" || want["gen_ai.provider.name"] == "" {
				return // no tokens: a failure, or a script that counts none
			}
			for _, tt := range []string{"input", "output"} {
				p := exact[int64](t, m[MetricTokenUsage], append(set, attribute.String("gen_ai.token.type", tt))...)
				if p.Count != 1 {
					t.Errorf("%s: %d token counts", tt, p.Count)
				}
			}
		})
	}
}
