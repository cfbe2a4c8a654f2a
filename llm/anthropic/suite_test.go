package anthropic

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/ptc-go/ptc/llm"
	"github.com/ptc-go/ptc/llm/adapter/adaptertest"
)

// The checks every adapter passes, against a fake Messages API.
func TestAdapterSuite(t *testing.T) {
	adaptertest.Run(t, adaptertest.Case{
		Name: "anthropic", Provider: "anthropic", Model: "claude-sonnet-4-5", KeyOptional: true,
		Env:    []string{"ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "ANTHROPIC_AUTH_TOKEN"},
		KeyEnv: "ANTHROPIC_API_KEY", KeyHeader: "X-Api-Key",
		Path: "/v1/messages",
		New: func(c adaptertest.Config) (llm.Func, error) {
			return New(Config{Model: c.Model, APIKey: c.APIKey, BaseURL: c.BaseURL, Headers: c.Headers,
				HTTPClient: c.HTTPClient, MaxTokens: c.MaxTokens, Temperature: c.Temperature})
		},
		Reply: func(text string, tokens llm.Tokens) string {
			return messageReply(text, tokens)
		},
		ErrorBody: func(status int, message string) string {
			b, _ := json.Marshal(map[string]any{"type": "error", "error": map[string]any{"type": "api_error", "message": message},
				"request_id": "req_011CUr5"})
			return string(b)
		},
		Messages: func(t *testing.T, body []byte) []llm.Message {
			type block struct {
				Text string `json:"text"`
			}
			var b struct {
				System   []block `json:"system"`
				Messages []struct {
					Role    string  `json:"role"`
					Content []block `json:"content"`
				} `json:"messages"`
			}
			if err := json.Unmarshal(body, &b); err != nil {
				t.Errorf("the request body is not the Messages API's: %v\n%s", err, body)
			}
			join := func(blocks []block) string {
				var sb strings.Builder
				for _, bl := range blocks {
					sb.WriteString(bl.Text)
				}
				return sb.String()
			}
			var msgs []llm.Message
			if len(b.System) > 0 {
				msgs = append(msgs, llm.Message{Role: llm.System, Content: join(b.System)})
			}
			for _, m := range b.Messages {
				msgs = append(msgs, llm.Message{Role: llm.Role(m.Role), Content: join(m.Content)})
			}
			return msgs
		},
		Options: func(t *testing.T, body []byte) map[string]any {
			var b map[string]any
			if err := json.Unmarshal(body, &b); err != nil {
				t.Errorf("the request body is not JSON: %v\n%s", err, body)
			}
			opts := map[string]any{}
			for k, name := range map[string]string{"max_tokens": "max_tokens", "temperature": "temperature",
				"top_p": "top_p", "stop_sequences": "stop"} {
				if v, ok := b[k]; ok {
					opts[name] = v
				}
			}
			return opts
		},
		ConfigReason: ReasonInvalidConfig, OptionsReason: ReasonInvalidOptions,
		BadOptions: []adaptertest.BadOption{
			{Options: map[string]any{"seed": 1, "temperature": 0.1}, Word: `"seed"`},
			{Options: map[string]any{"max_tokens": 100000}, Word: `max_tokens 100000`},
			{Options: map[string]any{"top_k": -1}, Word: `"top_k"`},
		},
		Errors:    httpErrors,
		Malformed: malformedReplies,
	})
}

// messageReply is a recorded-style reply of the Messages API: text split
// in two blocks, the input tokens of the usage without the cached ones.
func messageReply(text string, tokens llm.Tokens) string {
	half := len(text) / 2
	b, _ := json.Marshal(map[string]any{
		"id": "msg_01XFDUDYJgAACzvnptvVoYEL", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5-20250929",
		"content":     []any{map[string]any{"type": "text", "text": text[:half]}, map[string]any{"type": "text", "text": text[half:]}},
		"stop_reason": "end_turn", "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": tokens.Input - tokens.CacheRead - tokens.CacheWrite,
			"cache_creation_input_tokens": tokens.CacheWrite, "cache_read_input_tokens": tokens.CacheRead,
			"cache_creation": map[string]any{"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 0},
			"output_tokens":  tokens.Output, "service_tier": "standard"},
	})
	return string(b)
}

var httpErrors = []adaptertest.ErrorCase{
	{Name: "rate limit", Reply: adaptertest.Reply{Status: 429, Header: map[string]string{"retry-after": "17"}, Body: rateLimitBody},
		Class: llm.ClassRateLimit, Reason: "rate_limit_error", Message: "exceed the rate limit", RetryAfter: 17 * time.Second},
	{Name: "rate limit ms", Reply: adaptertest.Reply{Status: 429, Header: map[string]string{"retry-after-ms": "1500", "retry-after": "2"}, Body: rateLimitBody},
		Class: llm.ClassRateLimit, Reason: "rate_limit_error", Message: "exceed the rate limit", RetryAfter: 1500 * time.Millisecond},
	{Name: "server error", Reply: adaptertest.Reply{Status: 500, Body: serverErrorBody}, Class: llm.ClassServerError, Reason: "api_error", Message: "Internal server error"},
	{Name: "overloaded", Reply: adaptertest.Reply{Status: 529, Body: overloadedBody}, Class: llm.ClassServerError, Reason: "overloaded_error", Message: "Overloaded"},
	{Name: "prompt too long", Reply: adaptertest.Reply{Status: 400, Body: tooLongBody}, Class: llm.ClassContextLength, Reason: "invalid_request_error", Message: "prompt is too long"},
	{Name: "bad request", Reply: adaptertest.Reply{Status: 400, Body: `{"type":"error","error":{"type":"invalid_request_error","message":"temperature: range: 0..1"}}`},
		Class: llm.ClassClientError, Reason: "invalid_request_error", Message: "temperature"},
	{Name: "unauthorized", Reply: adaptertest.Reply{Status: 401, Body: authBody}, Class: llm.ClassAuth, Reason: "authentication_error", Message: "invalid x-api-key"},
	{Name: "forbidden", Reply: adaptertest.Reply{Status: 403, Body: forbiddenBody}, Class: llm.ClassAuth, Reason: "permission_error", Message: "permission"},
	{Name: "gateway page", Reply: adaptertest.Reply{Status: 502, Header: map[string]string{"Content-Type": "text/html"}, Body: "<html>Bad Gateway</html>"},
		Class: llm.ClassServerError, Message: "Bad Gateway"},
	{Name: "empty body", Reply: adaptertest.Reply{Status: 503}, Class: llm.ClassServerError, Message: "Service Unavailable"},
	{Name: "gateway timeout", Reply: adaptertest.Reply{Status: 504, Body: `{"type":"error","error":{"type":"timeout_error","message":"Request timed out"}}`},
		Class: llm.ClassTimeout, Reason: "timeout_error", Message: "timed out"},
}

// malformedReplies are replies that are not a message: an error of class
// llm.ClassUnknown without a status.
var malformedReplies = []adaptertest.ErrorCase{
	malformed("truncated", adaptertest.Reply{Body: okBody[:60]}),
	malformed("not json", adaptertest.Reply{Header: map[string]string{"Content-Type": "text/html"}, Body: "<html>hello</html>"}),
	malformed("garbage json", adaptertest.Reply{Body: "{{{"}),
	malformed("no content", adaptertest.Reply{Body: `{"id":"msg_1","type":"message","role":"assistant"}`}),
	malformed("wrong shape", adaptertest.Reply{Body: `{"content":"hi","usage":3}`}),
	malformed("error at 200", adaptertest.Reply{Body: overloadedBody}),
	malformed("empty", adaptertest.Reply{}),
}

func malformed(name string, rep adaptertest.Reply) adaptertest.ErrorCase {
	return adaptertest.ErrorCase{Name: name, Reply: rep, Class: llm.ClassUnknown, Status: -1, Reason: ReasonMalformedResponse, Message: "malformed"}
}
