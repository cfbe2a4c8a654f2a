package openai

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ptc-go/ptc/llm"
)

// newFunc returns the adapter pointed at the fake server, with a key.
func newFunc(t *testing.T, s *fakeServer, cfg Config) llm.Func {
	t.Helper()
	if cfg.Model == "" {
		cfg.Model = "gpt-4.1-mini"
	}
	if cfg.BaseURL == "" {
		cfg.BaseURL = s.URL + "/v1"
	}
	if cfg.APIKey == "" {
		cfg.APIKey = "sk-test-123"
	}
	fn, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return fn
}

func request(msgs ...string) llm.Request {
	r := llm.Request{System: "You write PTC-Lisp.", Turn: 1}
	for i, m := range msgs {
		role := llm.User
		if i%2 == 1 {
			role = llm.Assistant
		}
		r.Messages = append(r.Messages, llm.Message{Role: role, Content: m})
	}
	return r
}

// asLLMError asserts err is an *llm.Error and returns it.
func asLLMError(t *testing.T, err error) *llm.Error {
	t.Helper()
	var e *llm.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T) is not an *llm.Error", err, err)
	}
	return e
}

func TestNewConfigErrors(t *testing.T) {
	for name, cfg := range map[string]Config{
		"no model":          {},
		"blank model":       {Model: "  "},
		"negative tokens":   {Model: "m", MaxTokens: -1},
		"bad base URL":      {Model: "m", BaseURL: "localhost:11434/v1"},
		"bad scheme":        {Model: "m", BaseURL: "ftp://example.com/v1"},
		"bad header name":   {Model: "m", Headers: map[string]string{"X Bad": "v"}},
		"bad header value":  {Model: "m", Headers: map[string]string{"X-Ok": "a\r\nb"}},
		"infinite temp":     {Model: "m", Temperature: ptr(inf())},
		"empty header name": {Model: "m", Headers: map[string]string{"": "v"}},
	} {
		t.Run(name, func(t *testing.T) {
			fn, err := New(cfg)
			if fn != nil || err == nil {
				t.Fatalf("New(%+v) = %v, %v; want an error", cfg, fn != nil, err)
			}
			if e := asLLMError(t, err); e.Class != llm.Config || e.Reason != ReasonInvalidConfig {
				t.Errorf("class %s reason %q, want %s %s", e.Class, e.Reason, llm.Config, ReasonInvalidConfig)
			}
		})
	}
	if _, err := New(Config{}); !strings.Contains(err.Error(), "Model is required") {
		t.Errorf("error %q does not say the model is required", err)
	}
}

func TestSuccess(t *testing.T) {
	s := newServer(t, always(reply{Body: completion("```clojure\n(+ 1 2)\n```", 1234, 56, 0)}))
	fn := newFunc(t, s, Config{})
	resp, err := fn(context.Background(), request("Add 1 and 2."))
	if err != nil {
		t.Fatal(err)
	}
	if resp.Content != "```clojure\n(+ 1 2)\n```" {
		t.Errorf("content %q", resp.Content)
	}
	if want := (llm.Tokens{Input: 1234, Output: 56}); resp.Tokens != want {
		t.Errorf("tokens %+v, want %+v", resp.Tokens, want)
	}
	if s.calls() != 1 {
		t.Errorf("%d requests, want 1", s.calls())
	}
}

func TestCachedTokens(t *testing.T) {
	s := newServer(t, always(reply{Body: completion("ok", 2048, 12, 1920)}))
	resp, err := newFunc(t, s, Config{})(context.Background(), request("hi"))
	if err != nil {
		t.Fatal(err)
	}
	if want := (llm.Tokens{Input: 2048, Output: 12, CacheRead: 1920}); resp.Tokens != want {
		t.Errorf("tokens %+v, want %+v", resp.Tokens, want)
	}
}

// A minimal body without usage (some local servers) is fine: zero tokens.
func TestNoUsage(t *testing.T) {
	s := newServer(t, always(reply{Body: `{"choices":[{"index":0,"message":{"role":"assistant","content":"hello"},"finish_reason":"stop"}]}`}))
	resp, err := newFunc(t, s, Config{})(context.Background(), request("hi"))
	if err != nil || resp.Content != "hello" || resp.Tokens != (llm.Tokens{}) {
		t.Fatalf("%+v %v", resp, err)
	}
}

// A refusal has no content: its text is the reply, for the agent to see.
func TestRefusal(t *testing.T) {
	s := newServer(t, always(reply{Body: `{"choices":[{"index":0,"message":{"role":"assistant","content":null,"refusal":"I can't help with that."},"finish_reason":"stop"}],
		"usage":{"prompt_tokens":10,"completion_tokens":7,"total_tokens":17}}`}))
	resp, err := newFunc(t, s, Config{})(context.Background(), request("hi"))
	if err != nil || resp.Content != "I can't help with that." || resp.Tokens.Output != 7 {
		t.Fatalf("%+v %v", resp, err)
	}
}

func TestRequestMapping(t *testing.T) {
	s := newServer(t, always(reply{Body: completion("ok", 1, 1, 0)}))
	fn := newFunc(t, s, Config{
		Model:       "gpt-4.1-mini",
		APIKey:      "sk-proj-abc",
		Headers:     map[string]string{"HTTP-Referer": "https://example.com", "X-Title": "ptc tests", "api-key": "azure-key"},
		MaxTokens:   4096,
		Temperature: ptr(0.7),
	})
	req := request("Find the total.", "```clojure\n(tool/stock {})\n```", "Value: 3")
	req.Options = map[string]any{"temperature": 0.2, "max_tokens": 512, "stop": []string{"</end>", "\n\n\n"}}
	req.ToolNames = []string{"stock"}
	req.Cache = true
	if _, err := fn(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	if s.calls() != 1 {
		t.Fatalf("%d requests", s.calls())
	}
	got := s.request(0)
	if got.Method != http.MethodPost || got.Path != "/v1/chat/completions" {
		t.Errorf("%s %s, want POST /v1/chat/completions", got.Method, got.Path)
	}
	if got.Body["model"] != "gpt-4.1-mini" {
		t.Errorf("model %v", got.Body["model"])
	}
	wantMsgs := [][2]string{
		{"system", "You write PTC-Lisp."},
		{"user", "Find the total."},
		{"assistant", "```clojure\n(tool/stock {})\n```"},
		{"user", "Value: 3"},
	}
	if msgs := got.messages(); !reflect.DeepEqual(msgs, wantMsgs) {
		t.Errorf("messages\n%q\nwant\n%q", msgs, wantMsgs)
	}
	// The options override the Config's defaults.
	if got.Body["temperature"] != 0.2 {
		t.Errorf("temperature %v, want 0.2", got.Body["temperature"])
	}
	if got.Body["max_tokens"] != 512.0 {
		t.Errorf("max_tokens %v, want 512", got.Body["max_tokens"])
	}
	if _, ok := got.Body["max_completion_tokens"]; ok {
		t.Errorf("max_completion_tokens sent to a compatible server: %v", got.Body)
	}
	if stop, _ := got.Body["stop"].([]any); len(stop) != 2 || stop[0] != "</end>" || stop[1] != "\n\n\n" {
		t.Errorf("stop %#v", got.Body["stop"])
	}
	for _, k := range []string{"stream", "tools", "n", "top_p", "seed", "reasoning_effort"} {
		if v, ok := got.Body[k]; ok {
			t.Errorf("unexpected field %s: %v", k, v)
		}
	}
	h := got.Header
	if h.Get("Authorization") != "Bearer sk-proj-abc" {
		t.Errorf("Authorization %q", h.Get("Authorization"))
	}
	for k, v := range map[string]string{"HTTP-Referer": "https://example.com", "X-Title": "ptc tests", "Api-Key": "azure-key"} {
		if h.Get(k) != v {
			t.Errorf("header %s = %q, want %q", k, h.Get(k), v)
		}
	}
	if h.Get("X-Stainless-Retry-Count") != "0" {
		t.Errorf("retry count header %q", h.Get("X-Stainless-Retry-Count"))
	}
}

// Without options, the Config's defaults are sent; a nil option unsets one
// (the server's default applies); the other options reach the wire.
func TestDefaultsAndOptions(t *testing.T) {
	s := newServer(t, always(reply{Body: completion("ok", 1, 1, 0)}))
	fn := newFunc(t, s, Config{MaxTokens: 1000, Temperature: ptr(0.0)})
	ctx := context.Background()
	if _, err := fn(ctx, request("a")); err != nil {
		t.Fatal(err)
	}
	b := s.request(0).Body
	if b["max_tokens"] != 1000.0 || b["temperature"] != 0.0 {
		t.Errorf("defaults not sent: max_tokens %v temperature %v", b["max_tokens"], b["temperature"])
	}

	req := request("b")
	req.Options = map[string]any{"temperature": nil, "max_tokens": nil}
	if _, err := fn(ctx, req); err != nil {
		t.Fatal(err)
	}
	b = s.request(1).Body
	if _, ok := b["temperature"]; ok {
		t.Errorf("temperature sent though unset: %v", b["temperature"])
	}
	if _, ok := b["max_tokens"]; ok {
		t.Errorf("max_tokens sent though unset: %v", b["max_tokens"])
	}

	// Options decoded from JSON: numbers are float64, lists []any.
	var opts map[string]any
	if err := json.Unmarshal([]byte(`{"top_p":0.9,"seed":42,"stop":["a","b"],"reasoning_effort":"low","max_tokens":64}`), &opts); err != nil {
		t.Fatal(err)
	}
	req = request("c")
	req.Options = opts
	if _, err := fn(ctx, req); err != nil {
		t.Fatal(err)
	}
	b = s.request(2).Body
	if b["top_p"] != 0.9 || b["seed"] != 42.0 || b["reasoning_effort"] != "low" || b["max_tokens"] != 64.0 || b["temperature"] != 0.0 {
		t.Errorf("options not sent: %v", b)
	}
	if stop, _ := b["stop"].([]any); len(stop) != 2 {
		t.Errorf("stop %#v", b["stop"])
	}

	req = request("d")
	req.Options = map[string]any{"stop": "END", "seed": int64(7), "temperature": 1}
	if _, err := fn(ctx, req); err != nil {
		t.Fatal(err)
	}
	if b = s.request(3).Body; b["stop"] != "END" || b["seed"] != 7.0 || b["temperature"] != 1.0 {
		t.Errorf("stop %v seed %v temperature %v", b["stop"], b["seed"], b["temperature"])
	}
}

func TestUnknownOption(t *testing.T) {
	s := newServer(t, always(reply{Body: completion("ok", 1, 1, 0)}))
	fn := newFunc(t, s, Config{})
	req := request("hi")
	req.Options = map[string]any{"temprature": 0.5, "max_tokens": 10}
	_, err := fn(context.Background(), req)
	e := asLLMError(t, err)
	if e.Class != llm.Config || e.Reason != ReasonInvalidOptions || !strings.Contains(e.Message, `"temprature"`) {
		t.Errorf("error %+v", e)
	}
	if s.calls() != 0 {
		t.Errorf("%d requests made with a bad option", s.calls())
	}
}

func TestInvalidOptionValues(t *testing.T) {
	s := newServer(t, always(reply{Body: completion("ok", 1, 1, 0)}))
	fn := newFunc(t, s, Config{})
	for _, opts := range []map[string]any{
		{"temperature": "hot"},
		{"temperature": inf()},
		{"max_tokens": 1.5},
		{"max_tokens": 0},
		{"max_tokens": -3},
		{"max_tokens": "100"},
		{"top_p": true},
		{"stop": 3},
		{"stop": []any{"a", 1}},
		{"seed": 1.25},
		{"reasoning_effort": 2},
		{"reasoning_effort": ""},
	} {
		req := request("hi")
		req.Options = opts
		_, err := fn(context.Background(), req)
		if e := asLLMError(t, err); e.Class != llm.Config || e.Reason != ReasonInvalidOptions {
			t.Errorf("options %v: error %+v", opts, e)
		}
	}
	if s.calls() != 0 {
		t.Errorf("%d requests made with bad options", s.calls())
	}
}

func TestUnknownRole(t *testing.T) {
	s := newServer(t, always(reply{Body: completion("ok", 1, 1, 0)}))
	req := request("hi")
	req.Messages = append(req.Messages, llm.Message{Role: "tool", Content: "x"})
	_, err := newFunc(t, s, Config{})(context.Background(), req)
	if e := asLLMError(t, err); e.Class != llm.ClientError || !strings.Contains(e.Message, `"tool"`) {
		t.Errorf("error %+v", e)
	}
	if s.calls() != 0 {
		t.Errorf("%d requests", s.calls())
	}
}

func TestHTTPErrors(t *testing.T) {
	cases := []struct {
		name       string
		rep        reply
		class      llm.Class
		retryAfter time.Duration
		reason     string
		message    string // a part of the message
	}{
		{"429 Retry-After", reply{Status: 429, Header: map[string]string{"Retry-After": "2"},
			Body: `{"error":{"message":"Rate limit reached for gpt-4.1-mini in organization org-abc on tokens per min (TPM): Limit 200000, Used 199500, Requested 1200. Please try again in 2s.","type":"tokens","param":null,"code":"rate_limit_exceeded"}}`},
			llm.RateLimit, 2 * time.Second, "rate_limit_exceeded", "Rate limit reached"},
		{"429 retry-after-ms", reply{Status: 429, Header: map[string]string{"retry-after-ms": "1500", "Retry-After": "2"},
			Body: `{"error":{"message":"Rate limit reached for requests","type":"requests","param":null,"code":"rate_limit_exceeded"}}`},
			llm.RateLimit, 1500 * time.Millisecond, "rate_limit_exceeded", "Rate limit reached"},
		{"429 quota", reply{Status: 429,
			Body: `{"error":{"message":"You exceeded your current quota, please check your plan and billing details.","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}`},
			llm.RateLimit, 0, "insufficient_quota", "quota"},
		{"429 OpenRouter numeric code", reply{Status: 429,
			Body: `{"error":{"message":"Rate limit exceeded: free-models-per-min.","code":429,"metadata":{"headers":{"X-RateLimit-Limit":"20"}}},"user_id":"user_2abc"}`},
			llm.RateLimit, 0, "", "free-models-per-min"},
		{"500", reply{Status: 500,
			Body: `{"error":{"message":"The server had an error while processing your request. Sorry about that!","type":"server_error","param":null,"code":null}}`},
			llm.ServerError, 0, "server_error", "Sorry about that"},
		{"529 overloaded", reply{Status: 529,
			Body: `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`},
			llm.ServerError, 0, "overloaded_error", "Overloaded"},
		{"503 plain text", reply{Status: 503, Header: map[string]string{"Content-Type": "text/plain"}, Body: "upstream connect error or disconnect/reset before headers"},
			llm.ServerError, 0, "", "upstream connect error"},
		{"502 HTML page", reply{Status: 502, Header: map[string]string{"Content-Type": "text/html"}, Body: "<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>"},
			llm.ServerError, 0, "", "502 Bad Gateway"},
		{"500 empty body", reply{Status: 500, Body: ""}, llm.ServerError, 0, "", "Internal Server Error"},
		{"400 context_length_exceeded", reply{Status: 400,
			Body: `{"error":{"message":"This model's maximum context length is 128000 tokens. However, your messages resulted in 130567 tokens. Please reduce the length of the messages.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}`},
			llm.ContextLength, 0, "context_length_exceeded", "maximum context length"},
		{"400 context code only", reply{Status: 400,
			Body: `{"error":{"message":"Input too large.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}`},
			llm.ContextLength, 0, "context_length_exceeded", "Input too large"},
		{"400 vLLM context length", reply{Status: 400,
			Body: `{"object":"error","message":"This model's maximum context length is 4096 tokens. However, you requested 5000 tokens (4500 in the messages, 500 in the completion). Please reduce the length of the messages or completion.","type":"BadRequestError","param":null,"code":400}`},
			llm.ContextLength, 0, "", "maximum context length is 4096"},
		{"400 other", reply{Status: 400,
			Body: `{"error":{"message":"Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.","type":"invalid_request_error","param":"max_tokens","code":"unsupported_parameter"}}`},
			llm.ClientError, 0, "unsupported_parameter", "Unsupported parameter"},
		{"401", reply{Status: 401,
			Body: `{"error":{"message":"Incorrect API key provided: sk-test-123. You can find your API key at https://platform.openai.com/account/api-keys.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`},
			llm.Auth, 0, "invalid_api_key", "Incorrect API key"},
		{"403", reply{Status: 403,
			Body: `{"error":{"message":"Project proj_abc does not have access to model gpt-4.1","type":"invalid_request_error","param":null,"code":"model_not_found"}}`},
			llm.Auth, 0, "model_not_found", "does not have access"},
		{"404 Ollama model", reply{Status: 404,
			Body: `{"error":{"message":"model \"llama3.2\" not found, try pulling it first","type":"api_error","param":null,"code":null}}`},
			llm.ClientError, 0, "api_error", "try pulling it first"},
		{"408", reply{Status: 408, Body: `{"error":{"message":"Request timed out.","type":"timeout"}}`}, llm.Timeout, 0, "timeout", "timed out"},
		{"504", reply{Status: 504, Header: map[string]string{"Content-Type": "text/html"}, Body: "<html>504 Gateway Time-out</html>"}, llm.Timeout, 0, "", "504 Gateway Time-out"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newServer(t, always(c.rep))
			_, err := newFunc(t, s, Config{})(context.Background(), request("hi"))
			e := asLLMError(t, err)
			if e.Class != c.class || e.Status != c.rep.Status || e.RetryAfter != c.retryAfter || e.Reason != c.reason {
				t.Errorf("got class %s status %d retry-after %v reason %q; want %s %d %v %q",
					e.Class, e.Status, e.RetryAfter, e.Reason, c.class, c.rep.Status, c.retryAfter, c.reason)
			}
			if !strings.Contains(e.Message, c.message) {
				t.Errorf("message %q does not contain %q", e.Message, c.message)
			}
			if e.Err == nil {
				t.Errorf("no underlying error")
			}
			// Retries are the agent's: the SDK made exactly one request,
			// though it retries 408, 429 and 5xx by default.
			if s.calls() != 1 {
				t.Errorf("%d HTTP requests, want 1", s.calls())
			}
		})
	}
}

// The SDK would retry a 500 twice by default; retries are off.
func TestOneRequestOn500(t *testing.T) {
	s := newServer(t, always(reply{Status: 500, Header: map[string]string{"x-should-retry": "true", "retry-after-ms": "1"},
		Body: `{"error":{"message":"The server had an error while processing your request.","type":"server_error","param":null,"code":null}}`}))
	fn := newFunc(t, s, Config{})
	for range 3 {
		if _, err := fn(context.Background(), request("hi")); asLLMError(t, err).Class != llm.ServerError {
			t.Fatalf("error %v", err)
		}
	}
	if s.calls() != 3 {
		t.Errorf("%d HTTP requests for 3 calls, want 3", s.calls())
	}
}

func TestMalformedReplies(t *testing.T) {
	cases := []struct {
		name    string
		rep     reply
		class   llm.Class
		status  int
		message string
	}{
		{"not JSON", reply{Body: "this is not json"}, llm.Unknown, 200, "not a JSON object"},
		{"truncated", reply{Body: `{"id":"chatcmpl-1","choices":[{"index":0,"message":{"role":"assistant","content":"(+ 1`}, llm.Unknown, 200, "not a JSON object"},
		{"array", reply{Body: `[1,2,3]`}, llm.Unknown, 200, "not a JSON object"},
		{"HTML with 200", reply{Header: map[string]string{"Content-Type": "text/html"}, Body: "<html><body>Please log in</body></html>"}, llm.Unknown, 200, "Please log in"},
		{"wrong types", reply{Body: `{"choices":"none","usage":"lots"}`}, llm.ServerError, 200, "no choices"},
		{"empty body", reply{Body: ""}, llm.ServerError, 200, "empty body"},
		{"blank body", reply{Body: "  \n"}, llm.ServerError, 200, "empty body"},
		{"no choices", reply{Body: `{"id":"chatcmpl-1","object":"chat.completion","created":1743700000,"model":"gpt-4.1-mini","choices":[],"usage":{"prompt_tokens":5,"completion_tokens":0,"total_tokens":5}}`},
			llm.ServerError, 200, "no choices"},
		{"OpenRouter error in a 200", reply{Body: `{"error":{"message":"Provider returned error","code":502,"metadata":{"provider_name":"Together"}},"user_id":"user_2abc"}`},
			llm.ServerError, 502, "Provider returned error"},
		{"OpenRouter 429 in a 200", reply{Header: map[string]string{"Retry-After": "1"}, Body: `{"error":{"message":"Rate limit exceeded upstream","code":429}}`},
			llm.RateLimit, 429, "Rate limit exceeded upstream"},
		{"error string in a 200", reply{Body: `{"error":"model is loading"}`}, llm.ServerError, 200, "model is loading"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newServer(t, always(c.rep))
			resp, err := newFunc(t, s, Config{})(context.Background(), request("hi"))
			if err == nil {
				t.Fatalf("no error; reply %+v", resp)
			}
			e := asLLMError(t, err)
			if e.Class != c.class || e.Status != c.status || !strings.Contains(e.Message, c.message) {
				t.Errorf("got %s %d %q; want %s %d containing %q", e.Class, e.Status, e.Message, c.class, c.status, c.message)
			}
			if e.Class == llm.Unknown && e.Reason != ReasonMalformedResponse {
				t.Errorf("reason %q, want %q", e.Reason, ReasonMalformedResponse)
			}
			if s.calls() != 1 {
				t.Errorf("%d HTTP requests, want 1", s.calls())
			}
		})
	}
}

// slowServer answers only when the request's context ends (the client
// gave up) or when the test ends.
func slowServer(t *testing.T) (*fakeServer, <-chan struct{}) {
	t.Helper()
	arrived := make(chan struct{}, 1)
	release := make(chan struct{})
	s := &fakeServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Reading the body to its end lets the server notice the client
		// hanging up: r.Context() then ends.
		_, _ = io.Copy(io.Discard, r.Body)
		s.mu.Lock()
		s.requests = append(s.requests, received{Method: r.Method, Path: r.URL.Path})
		s.mu.Unlock()
		select {
		case arrived <- struct{}{}:
		default:
		}
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	t.Cleanup(func() { close(release); s.Close() })
	return s, arrived
}

// closeServer closes s, failing the test if a handler outlives the client
// by much: a slow server must see the cancelled request end.
func closeServer(t *testing.T, s *fakeServer) {
	t.Helper()
	done := make(chan struct{})
	go func() { s.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(2 * time.Second):
		t.Error("the server's handler did not see the request end")
	}
}

func TestDeadline(t *testing.T) {
	s, _ := slowServer(t)
	fn := newFunc(t, s, Config{})
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := fn(ctx, request("hi"))
	elapsed := time.Since(start)
	e := asLLMError(t, err)
	if e.Class != llm.Timeout || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("error %v (class %s), want a timeout wrapping context.DeadlineExceeded", err, e.Class)
	}
	if elapsed > 2*time.Second {
		t.Errorf("the call returned after %v", elapsed)
	}
	if s.calls() != 1 {
		t.Errorf("%d requests", s.calls())
	}
	closeServer(t, s)
}

func TestCancel(t *testing.T) {
	s, arrived := slowServer(t)
	fn := newFunc(t, s, Config{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		<-arrived
		cancel()
	}()
	start := time.Now()
	_, err := fn(ctx, request("hi"))
	e := asLLMError(t, err)
	if e.Class != llm.Cancelled || !errors.Is(err, context.Canceled) {
		t.Errorf("error %v (class %s), want cancelled", err, e.Class)
	}
	if elapsed := time.Since(start); elapsed > 2*time.Second {
		t.Errorf("the call returned after %v", elapsed)
	}
	closeServer(t, s)
}

// A context already done: no request at all.
func TestDoneContext(t *testing.T) {
	s := newServer(t, always(reply{Body: completion("ok", 1, 1, 0)}))
	fn := newFunc(t, s, Config{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := fn(ctx, request("hi"))
	if e := asLLMError(t, err); e.Class != llm.Cancelled {
		t.Errorf("class %s", e.Class)
	}
	ctx, cancel = context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	_, err = fn(ctx, request("hi"))
	if e := asLLMError(t, err); e.Class != llm.Timeout {
		t.Errorf("class %s", e.Class)
	}
	if s.calls() != 0 {
		t.Errorf("%d requests", s.calls())
	}
}

// The http.Client's own timeout is a Timeout too.
func TestHTTPClientTimeout(t *testing.T) {
	s, _ := slowServer(t)
	fn := newFunc(t, s, Config{HTTPClient: &http.Client{Timeout: 50 * time.Millisecond}})
	_, err := fn(context.Background(), request("hi"))
	if e := asLLMError(t, err); e.Class != llm.Timeout {
		t.Errorf("error %v, class %s", err, e.Class)
	}
	closeServer(t, s)
}

// A server that is not there: an error, not a panic, not a retry loop.
func TestConnectionRefused(t *testing.T) {
	s := newServer(t, always(reply{}))
	base := s.URL + "/v1"
	s.Close()
	fn, err := New(Config{Model: "m", BaseURL: base, APIKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = fn(context.Background(), request("hi"))
	e := asLLMError(t, err)
	if e.Class != llm.Network || e.Err == nil {
		t.Errorf("error %+v", e)
	}
}

// With no key anywhere (a local server), no Authorization header is sent;
// the environment supplies the base URL and the key when Config does not.
func TestEnvironment(t *testing.T) {
	s := newServer(t, always(reply{Body: completion("ok", 1, 1, 0)}))
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("OPENAI_BASE_URL", "")
	fn, err := New(Config{Model: "llama3.2", BaseURL: s.URL + "/v1"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fn(context.Background(), request("hi")); err != nil {
		t.Fatal(err)
	}
	if h := s.request(0).Header.Get("Authorization"); h != "" {
		t.Errorf("Authorization %q sent without a key", h)
	}

	t.Setenv("OPENAI_API_KEY", "sk-from-env")
	t.Setenv("OPENAI_BASE_URL", s.URL+"/v1")
	fn, err = New(Config{Model: "gpt-4.1-mini"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fn(context.Background(), request("hi")); err != nil {
		t.Fatal(err)
	}
	if got := s.request(1); got.Header.Get("Authorization") != "Bearer sk-from-env" || got.Path != "/v1/chat/completions" {
		t.Errorf("request %s with Authorization %q", got.Path, got.Header.Get("Authorization"))
	}

	// Config wins over the environment.
	fn, err = New(Config{Model: "m", APIKey: "sk-config", BaseURL: s.URL + "/api/v1/"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fn(context.Background(), request("hi")); err != nil {
		t.Fatal(err)
	}
	if got := s.request(2); got.Header.Get("Authorization") != "Bearer sk-config" || got.Path != "/api/v1/chat/completions" {
		t.Errorf("request %s with Authorization %q", got.Path, got.Header.Get("Authorization"))
	}
}

// redirectTransport sends every request to a test server, whatever its URL.
type redirectTransport struct{ target *url.URL }

func (rt redirectTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.URL.Scheme, r.URL.Host, r.Host = rt.target.Scheme, rt.target.Host, ""
	return http.DefaultTransport.RoundTrip(r)
}

// OpenAI's own API gets max_completion_tokens (its reasoning models reject
// max_tokens); the default base URL is OpenAI's.
func TestMaxCompletionTokensForOpenAI(t *testing.T) {
	s := newServer(t, always(reply{Body: completion("ok", 1, 1, 0)}))
	target, _ := url.Parse(s.URL)
	t.Setenv("OPENAI_BASE_URL", "")
	for i, base := range []string{"", "https://my-resource.openai.azure.com/openai/v1/"} {
		fn, err := New(Config{Model: "o4-mini", APIKey: "k", BaseURL: base, MaxTokens: 2000,
			HTTPClient: &http.Client{Transport: redirectTransport{target}}})
		if err != nil {
			t.Fatal(err)
		}
		req := request("hi")
		req.Options = map[string]any{"reasoning_effort": "high"}
		if _, err := fn(context.Background(), req); err != nil {
			t.Fatal(err)
		}
		got := s.request(i)
		wantPath := []string{"/v1/chat/completions", "/openai/v1/chat/completions"}[i]
		if got.Path != wantPath || got.Body["max_completion_tokens"] != 2000.0 || got.Body["reasoning_effort"] != "high" {
			t.Errorf("%s: path %s body %v", base, got.Path, got.Body)
		}
		if _, ok := got.Body["max_tokens"]; ok {
			t.Errorf("%s: max_tokens sent to OpenAI", base)
		}
	}
}

// The Func is safe for concurrent use (run with -race).
func TestConcurrentCalls(t *testing.T) {
	s := newServer(t, func(n int, r received) reply {
		msgs := r.messages()
		return reply{Body: completion("echo: "+msgs[len(msgs)-1][1], 10, 2, 0)}
	})
	fn := newFunc(t, s, Config{})
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for i := range 16 {
		wg.Go(func() {
			msg := "call " + itoa(i)
			resp, err := fn(context.Background(), request(msg))
			if err != nil {
				errs <- err
			} else if resp.Content != "echo: "+msg {
				errs <- errors.New("crossed replies: " + resp.Content)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if s.calls() != 16 {
		t.Errorf("%d requests", s.calls())
	}
}

func ptr[T any](v T) *T { return &v }

func inf() float64 {
	var zero float64
	return 1 / zero
}
