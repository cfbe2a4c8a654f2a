package gemini

import (
	"context"
	"encoding/json"
	"math"
	"testing"
	"time"

	"github.com/ptc-go/ptc/llm"
	"github.com/ptc-go/ptc/llm/adapter/adaptertest"
)

// The checks every adapter passes, against a fake generateContent.
func TestAdapterSuite(t *testing.T) {
	adaptertest.Run(t, adaptertest.Case{
		Name: "gemini", Provider: "gcp.gemini", Model: "gemini-2.5-flash",
		Env: []string{"GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_GEMINI_BASE_URL", "GOOGLE_GENAI_USE_VERTEXAI",
			"GOOGLE_CLOUD_PROJECT", "GOOGLE_CLOUD_LOCATION", "GOOGLE_VERTEX_BASE_URL"},
		KeyEnv: "GEMINI_API_KEY", KeyHeader: "X-Goog-Api-Key",
		Path: "/v1beta/models/gemini-2.5-flash:generateContent",
		New: func(c adaptertest.Config) (llm.Func, error) {
			return New(context.Background(), Config{Model: c.Model, APIKey: c.APIKey, BaseURL: c.BaseURL, Headers: c.Headers,
				HTTPClient: c.HTTPClient, MaxTokens: c.MaxTokens, Temperature: c.Temperature})
		},
		Reply: func(text string, tokens llm.Tokens) string {
			return generated(text, tokens.Input, tokens.Output, tokens.CacheRead)
		},
		ErrorBody: func(status int, message string) string {
			return apiError(status, "INVALID_ARGUMENT", message)
		},
		Messages: func(t *testing.T, body []byte) []llm.Message {
			var r received
			if err := json.Unmarshal(body, &r.JSON); err != nil {
				t.Errorf("the request body is not JSON: %v\n%s", err, body)
			}
			var msgs []llm.Message
			if sys, ok := system(r); ok {
				msgs = append(msgs, llm.Message{Role: llm.System, Content: sys})
			}
			for _, c := range sentContents(r) {
				role := llm.Role(c[0])
				if role == "model" {
					role = llm.Assistant
				}
				msgs = append(msgs, llm.Message{Role: role, Content: c[1]})
			}
			return msgs
		},
		Options: func(t *testing.T, body []byte) map[string]any {
			var r received
			if err := json.Unmarshal(body, &r.JSON); err != nil {
				t.Errorf("the request body is not JSON: %v\n%s", err, body)
			}
			opts := map[string]any{}
			for k, name := range map[string]string{"maxOutputTokens": "max_tokens", "temperature": "temperature",
				"topP": "top_p", "stopSequences": "stop"} {
				if v, ok := generationConfig(r)[k]; ok {
					opts[name] = v
				}
			}
			return opts
		},
		ConfigReason: reasonInvalidConfig, OptionsReason: reasonInvalidOptions,
		ErrorPrefix: "gemini: ",
		BadOptions: []adaptertest.BadOption{
			{Options: map[string]any{"seed": 42}, Word: `unknown LLM option "seed"`},
			{Options: map[string]any{"temperature": -0.1}, Word: `"temperature"`},
			{Options: map[string]any{"temperature": math.NaN()}, Word: `"temperature"`},
			{Options: map[string]any{"temperature": nil}, Word: `"temperature"`},
			{Options: map[string]any{"top_p": 1.5}, Word: `"top_p"`},
			{Options: map[string]any{"top_k": 0}, Word: `"top_k"`},
			{Options: map[string]any{"max_tokens": float64(math.MaxInt32) + 1}, Word: `"max_tokens"`},
			{Options: map[string]any{"max_tokens": json.Number("many")}, Word: `"max_tokens"`},
		},
		Errors:    httpErrors,
		Malformed: malformedReplies,
	})
}

// httpErrors are recorded-style errors of the Gemini API and of proxies.
var httpErrors = []adaptertest.ErrorCase{
	{Name: "429 RetryInfo", Reply: adaptertest.Reply{Status: 429, Body: apiError(429, "RESOURCE_EXHAUSTED", quotaMessage, quotaFailure, quotaHelp, retryInfo17s)},
		Class: llm.ClassRateLimit, Reason: "RESOURCE_EXHAUSTED", RetryAfter: 17 * time.Second, Message: "RESOURCE_EXHAUSTED: You exceeded your current quota"},
	{Name: "429 fractional RetryInfo", Reply: adaptertest.Reply{Status: 429, Body: apiError(429, "RESOURCE_EXHAUSTED", "Resource has been exhausted (e.g. check quota).",
		`{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "1.5s"}`)},
		Class: llm.ClassRateLimit, Reason: "RESOURCE_EXHAUSTED", RetryAfter: 1500 * time.Millisecond, Message: "Resource has been exhausted"},
	{Name: "429 Retry-After wins", Reply: adaptertest.Reply{Status: 429, Header: map[string]string{"Retry-After": "3"},
		Body: apiError(429, "RESOURCE_EXHAUSTED", quotaMessage, retryInfo17s)},
		Class: llm.ClassRateLimit, Reason: "RESOURCE_EXHAUSTED", RetryAfter: 3 * time.Second, Message: "exceeded your current quota"},
	{Name: "429 without delay", Reply: adaptertest.Reply{Status: 429, Body: apiError(429, "RESOURCE_EXHAUSTED", quotaMessage, quotaFailure)},
		Class: llm.ClassRateLimit, Reason: "RESOURCE_EXHAUSTED", Message: "exceeded your current quota"},
	{Name: "500", Reply: adaptertest.Reply{Status: 500, Body: apiError(500, "INTERNAL", "An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting")},
		Class: llm.ClassServerError, Reason: "INTERNAL", Message: "INTERNAL: An internal error has occurred"},
	{Name: "503 overloaded", Reply: adaptertest.Reply{Status: 503, Body: apiError(503, "UNAVAILABLE", "The model is overloaded. Please try again later.")},
		Class: llm.ClassServerError, Reason: "UNAVAILABLE", Message: "UNAVAILABLE: The model is overloaded"},
	{Name: "502 HTML page", Reply: adaptertest.Reply{Status: 502, Header: map[string]string{"Content-Type": "text/html"}, Body: "<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>"},
		Class: llm.ClassServerError, Message: "502 Bad Gateway"},
	{Name: "500 empty body", Reply: adaptertest.Reply{Status: 500, Body: ""},
		Class: llm.ClassServerError, Message: "Internal Server Error"},
	{Name: "504", Reply: adaptertest.Reply{Status: 504, Body: apiError(504, "DEADLINE_EXCEEDED", "Deadline expired before operation could complete.")},
		Class: llm.ClassTimeout, Reason: "DEADLINE_EXCEEDED", Message: "Deadline expired"},
	{Name: "400 API_KEY_INVALID", Reply: adaptertest.Reply{Status: 400, Body: apiError(400, "INVALID_ARGUMENT", "API key not valid. Please pass a valid API key.", keyInvalid, keyMessage)},
		Class: llm.ClassAuth, Reason: "INVALID_ARGUMENT", Message: "API key not valid"},
	{Name: "400 API_KEY_INVALID detail only", Reply: adaptertest.Reply{Status: 400, Body: apiError(400, "INVALID_ARGUMENT", "Invalid credentials.", keyInvalid)},
		Class: llm.ClassAuth, Reason: "INVALID_ARGUMENT", Message: "Invalid credentials"},
	{Name: "400 API_KEY_EXPIRED", Reply: adaptertest.Reply{Status: 400, Body: apiError(400, "INVALID_ARGUMENT", "API key expired. Please renew the API key.",
		`{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "API_KEY_EXPIRED", "domain": "googleapis.com", "metadata": {"service": "generativelanguage.googleapis.com"}}`)},
		Class: llm.ClassAuth, Reason: "INVALID_ARGUMENT", Message: "API key expired"},
	{Name: "401", Reply: adaptertest.Reply{Status: 401, Body: apiError(401, "UNAUTHENTICATED", "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.")},
		Class: llm.ClassAuth, Reason: "UNAUTHENTICATED", Message: "UNAUTHENTICATED: Request had invalid authentication credentials"},
	{Name: "403", Reply: adaptertest.Reply{Status: 403, Body: apiError(403, "PERMISSION_DENIED", "Your API key was reported as leaked. Please use another API key.")},
		Class: llm.ClassAuth, Reason: "PERMISSION_DENIED", Message: "PERMISSION_DENIED: Your API key was reported as leaked"},
	{Name: "400 context length", Reply: adaptertest.Reply{Status: 400, Body: apiError(400, "INVALID_ARGUMENT", "The input token count (1234567) exceeds the maximum number of tokens allowed (1048576).")},
		Class: llm.ClassContextLength, Reason: "INVALID_ARGUMENT", Message: "The input token count (1234567) exceeds the maximum number of tokens allowed (1048576)."},
	{Name: "400 other", Reply: adaptertest.Reply{Status: 400, Body: apiError(400, "INVALID_ARGUMENT", "* GenerateContentRequest.generation_config.top_k: must be positive\n")},
		Class: llm.ClassClientError, Reason: "INVALID_ARGUMENT", Message: "top_k: must be positive"},
	{Name: "404 model", Reply: adaptertest.Reply{Status: 404, Body: apiError(404, "NOT_FOUND", "models/gemini-9-flash is not found for API version v1beta, or is not supported for generateContent. Call ListModels to see the list of available models and their supported methods.")},
		Class: llm.ClassClientError, Reason: "NOT_FOUND", Message: "NOT_FOUND: models/gemini-9-flash is not found"},
}

// malformedReplies are replies that are not a generateContent response.
var malformedReplies = []adaptertest.ErrorCase{
	malformed("not JSON", "this is not json"),
	malformed("truncated", generated("(+ 1 2)", 1, 1, 0)[:80]),
	malformed("array", `[1,2,3]`),
	{Name: "HTML with 200", Reply: adaptertest.Reply{Header: map[string]string{"Content-Type": "text/html"}, Body: "<html><body>Please log in</body></html>"},
		Class: llm.ClassServerError, Status: -1, Reason: reasonMalformedResponse},
	malformed("empty object", `{}`),
	malformed("empty body", ""),
	malformed("no candidates", `{"candidates":[],"usageMetadata":{"promptTokenCount":5,"totalTokenCount":5},"modelVersion":"gemini-2.5-flash"}`),
	malformed("other API's reply", `{"id":"chatcmpl-1","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"hi"}}]}`),
	malformed("candidates of the wrong type", `{"candidates":"none"}`),
	malformed("usage of the wrong type", `{"candidates":[{"content":{"parts":[{"text":"hi"}],"role":"model"}}],"usageMetadata":{"promptTokenCount":"many"}}`),
}

func malformed(name, body string) adaptertest.ErrorCase {
	return adaptertest.ErrorCase{Name: name, Reply: adaptertest.Reply{Body: body}, Class: llm.ClassServerError, Status: -1, Reason: reasonMalformedResponse}
}
