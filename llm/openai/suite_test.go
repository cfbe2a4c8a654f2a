package openai

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/ptc-go/ptc/llm"
	"github.com/ptc-go/ptc/llm/adapter/adaptertest"
)

// The checks every adapter passes, against a fake Chat Completions server.
func TestAdapterSuite(t *testing.T) {
	adaptertest.Run(t, adaptertest.Case{
		Name: "openai", Provider: "openai", Model: "gpt-4.1-mini", KeyOptional: true,
		Env:    []string{"OPENAI_API_KEY", "OPENAI_BASE_URL"},
		KeyEnv: "OPENAI_API_KEY", KeyHeader: "Authorization", KeyPrefix: "Bearer ",
		Path: "/v1/chat/completions",
		New: func(c adaptertest.Config) (llm.Func, error) {
			base := c.BaseURL
			if base != "" {
				base += "/v1"
			}
			return New(Config{Model: c.Model, APIKey: c.APIKey, BaseURL: base, Headers: c.Headers,
				HTTPClient: c.HTTPClient, MaxTokens: c.MaxTokens, Temperature: c.Temperature})
		},
		Reply: func(text string, tokens llm.Tokens) string {
			return completion(text, tokens.Input, tokens.Output, tokens.CacheRead)
		},
		ErrorBody: func(status int, message string) string {
			b, _ := json.Marshal(map[string]any{"error": map[string]any{"message": message, "type": "server_error", "param": nil, "code": nil}})
			return string(b)
		},
		Messages: func(t *testing.T, body []byte) []llm.Message {
			var b struct {
				Messages []llm.Message `json:"messages"`
			}
			if err := json.Unmarshal(body, &b); err != nil {
				t.Errorf("the request body is not JSON: %v\n%s", err, body)
			}
			return b.Messages
		},
		Options: func(t *testing.T, body []byte) map[string]any {
			var b map[string]any
			if err := json.Unmarshal(body, &b); err != nil {
				t.Errorf("the request body is not JSON: %v\n%s", err, body)
			}
			opts := map[string]any{}
			for _, k := range []string{"max_tokens", "temperature", "top_p", "stop"} {
				if v, ok := b[k]; ok {
					opts[k] = v
				}
			}
			return opts
		},
		ConfigReason: ReasonInvalidConfig, OptionsReason: ReasonInvalidOptions,
		BadOptions: []adaptertest.BadOption{
			{Options: map[string]any{"seed": 1.25}, Word: `"seed"`},
			{Options: map[string]any{"reasoning_effort": 2}, Word: `"reasoning_effort"`},
			{Options: map[string]any{"reasoning_effort": ""}, Word: `"reasoning_effort"`},
		},
		Errors:    httpErrors,
		Malformed: malformedReplies,
	})
}

// httpErrors are recorded-style error replies of OpenAI and of the
// servers that speak its format.
var httpErrors = []adaptertest.ErrorCase{
	{Name: "429 Retry-After", Reply: adaptertest.Reply{Status: 429, Header: map[string]string{"Retry-After": "2"},
		Body: `{"error":{"message":"Rate limit reached for gpt-4.1-mini in organization org-abc on tokens per min (TPM): Limit 200000, Used 199500, Requested 1200. Please try again in 2s.","type":"tokens","param":null,"code":"rate_limit_exceeded"}}`},
		Class: llm.ClassRateLimit, RetryAfter: 2 * time.Second, Reason: "rate_limit_exceeded", Message: "Rate limit reached"},
	{Name: "429 retry-after-ms", Reply: adaptertest.Reply{Status: 429, Header: map[string]string{"retry-after-ms": "1500", "Retry-After": "2"},
		Body: `{"error":{"message":"Rate limit reached for requests","type":"requests","param":null,"code":"rate_limit_exceeded"}}`},
		Class: llm.ClassRateLimit, RetryAfter: 1500 * time.Millisecond, Reason: "rate_limit_exceeded", Message: "Rate limit reached"},
	{Name: "429 quota", Reply: adaptertest.Reply{Status: 429,
		Body: `{"error":{"message":"You exceeded your current quota, please check your plan and billing details.","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}`},
		Class: llm.ClassRateLimit, Reason: "insufficient_quota", Message: "quota"},
	{Name: "429 OpenRouter numeric code", Reply: adaptertest.Reply{Status: 429,
		Body: `{"error":{"message":"Rate limit exceeded: free-models-per-min.","code":429,"metadata":{"headers":{"X-RateLimit-Limit":"20"}}},"user_id":"user_2abc"}`},
		Class: llm.ClassRateLimit, Message: "free-models-per-min"},
	{Name: "500", Reply: adaptertest.Reply{Status: 500,
		Body: `{"error":{"message":"The server had an error while processing your request. Sorry about that!","type":"server_error","param":null,"code":null}}`},
		Class: llm.ClassServerError, Reason: "server_error", Message: "Sorry about that"},
	{Name: "529 overloaded", Reply: adaptertest.Reply{Status: 529,
		Body: `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`},
		Class: llm.ClassServerError, Reason: "overloaded_error", Message: "Overloaded"},
	{Name: "503 plain text", Reply: adaptertest.Reply{Status: 503, Header: map[string]string{"Content-Type": "text/plain"}, Body: "upstream connect error or disconnect/reset before headers"},
		Class: llm.ClassServerError, Message: "upstream connect error"},
	{Name: "502 HTML page", Reply: adaptertest.Reply{Status: 502, Header: map[string]string{"Content-Type": "text/html"}, Body: "<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>"},
		Class: llm.ClassServerError, Message: "502 Bad Gateway"},
	{Name: "500 empty body", Reply: adaptertest.Reply{Status: 500}, Class: llm.ClassServerError, Message: "Internal Server Error"},
	{Name: "400 context_length_exceeded", Reply: adaptertest.Reply{Status: 400,
		Body: `{"error":{"message":"This model's maximum context length is 128000 tokens. However, your messages resulted in 130567 tokens. Please reduce the length of the messages.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}`},
		Class: llm.ClassContextLength, Reason: "context_length_exceeded", Message: "maximum context length"},
	{Name: "400 context code only", Reply: adaptertest.Reply{Status: 400,
		Body: `{"error":{"message":"Input too large.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}`},
		Class: llm.ClassContextLength, Reason: "context_length_exceeded", Message: "Input too large"},
	{Name: "400 vLLM context length", Reply: adaptertest.Reply{Status: 400,
		Body: `{"object":"error","message":"This model's maximum context length is 4096 tokens. However, you requested 5000 tokens (4500 in the messages, 500 in the completion). Please reduce the length of the messages or completion.","type":"BadRequestError","param":null,"code":400}`},
		Class: llm.ClassContextLength, Message: "maximum context length is 4096"},
	{Name: "400 other", Reply: adaptertest.Reply{Status: 400,
		Body: `{"error":{"message":"Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.","type":"invalid_request_error","param":"max_tokens","code":"unsupported_parameter"}}`},
		Class: llm.ClassClientError, Reason: "unsupported_parameter", Message: "Unsupported parameter"},
	{Name: "401", Reply: adaptertest.Reply{Status: 401,
		Body: `{"error":{"message":"Incorrect API key provided: sk-test-123. You can find your API key at https://platform.openai.com/account/api-keys.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`},
		Class: llm.ClassAuth, Reason: "invalid_api_key", Message: "Incorrect API key"},
	{Name: "403", Reply: adaptertest.Reply{Status: 403,
		Body: `{"error":{"message":"Project proj_abc does not have access to model gpt-4.1","type":"invalid_request_error","param":null,"code":"model_not_found"}}`},
		Class: llm.ClassAuth, Reason: "model_not_found", Message: "does not have access"},
	{Name: "404 Ollama model", Reply: adaptertest.Reply{Status: 404,
		Body: `{"error":{"message":"model \"llama3.2\" not found, try pulling it first","type":"api_error","param":null,"code":null}}`},
		Class: llm.ClassClientError, Reason: "api_error", Message: "try pulling it first"},
	{Name: "408", Reply: adaptertest.Reply{Status: 408, Body: `{"error":{"message":"Request timed out.","type":"timeout"}}`},
		Class: llm.ClassTimeout, Reason: "timeout", Message: "timed out"},
	{Name: "504", Reply: adaptertest.Reply{Status: 504, Header: map[string]string{"Content-Type": "text/html"}, Body: "<html>504 Gateway Time-out</html>"},
		Class: llm.ClassTimeout, Message: "504 Gateway Time-out"},
}

// malformedReplies are replies that are not a completion.
var malformedReplies = []adaptertest.ErrorCase{
	{Name: "not JSON", Reply: adaptertest.Reply{Body: "this is not json"}, Class: llm.ClassUnknown, Reason: ReasonMalformedResponse, Message: "not a JSON object"},
	{Name: "truncated", Reply: adaptertest.Reply{Body: `{"id":"chatcmpl-1","choices":[{"index":0,"message":{"role":"assistant","content":"(+ 1`},
		Class: llm.ClassUnknown, Reason: ReasonMalformedResponse, Message: "not a JSON object"},
	{Name: "array", Reply: adaptertest.Reply{Body: `[1,2,3]`}, Class: llm.ClassUnknown, Reason: ReasonMalformedResponse, Message: "not a JSON object"},
	{Name: "HTML with 200", Reply: adaptertest.Reply{Header: map[string]string{"Content-Type": "text/html"}, Body: "<html><body>Please log in</body></html>"},
		Class: llm.ClassUnknown, Reason: ReasonMalformedResponse, Message: "Please log in"},
	{Name: "wrong types", Reply: adaptertest.Reply{Body: `{"choices":"none","usage":"lots"}`}, Class: llm.ClassServerError, Reason: "no_choices", Message: "no choices"},
	{Name: "empty body", Reply: adaptertest.Reply{}, Class: llm.ClassServerError, Reason: "empty_response", Message: "empty body"},
	{Name: "blank body", Reply: adaptertest.Reply{Body: "  \n"}, Class: llm.ClassServerError, Reason: "empty_response", Message: "empty body"},
	{Name: "no choices", Reply: adaptertest.Reply{Body: `{"id":"chatcmpl-1","object":"chat.completion","created":1743700000,"model":"gpt-4.1-mini","choices":[],"usage":{"prompt_tokens":5,"completion_tokens":0,"total_tokens":5}}`},
		Class: llm.ClassServerError, Reason: "no_choices", Message: "no choices"},
	{Name: "OpenRouter error in a 200", Reply: adaptertest.Reply{Body: `{"error":{"message":"Provider returned error","code":502,"metadata":{"provider_name":"Together"}},"user_id":"user_2abc"}`},
		Class: llm.ClassServerError, Status: 502, Message: "Provider returned error"},
	{Name: "OpenRouter 429 in a 200", Reply: adaptertest.Reply{Header: map[string]string{"Retry-After": "1"}, Body: `{"error":{"message":"Rate limit exceeded upstream","code":429}}`},
		Class: llm.ClassRateLimit, Status: 429, RetryAfter: time.Second, Message: "Rate limit exceeded upstream"},
	{Name: "error string in a 200", Reply: adaptertest.Reply{Body: `{"error":"model is loading"}`}, Class: llm.ClassServerError, Reason: "error_in_body", Message: "model is loading"},
}
