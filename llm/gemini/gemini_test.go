package gemini

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ptc-go/ptc/llm"
)

// testKey is the API key of the tests; no error may show it.
const testKey = "AIzaSyTEST-0123456789-secret"

// isolate clears the environment variables the adapter and the SDK read.
func isolate(t *testing.T) {
	t.Helper()
	for _, k := range []string{"GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_GEMINI_BASE_URL",
		"GOOGLE_GENAI_USE_VERTEXAI", "GOOGLE_CLOUD_PROJECT", "GOOGLE_CLOUD_LOCATION", "GOOGLE_VERTEX_BASE_URL"} {
		t.Setenv(k, "")
	}
}

// newFunc returns the adapter pointed at the fake server, with a key.
func newFunc(t *testing.T, s *fakeServer, cfg Config) llm.Func {
	t.Helper()
	isolate(t)
	if cfg.Model == "" {
		cfg.Model = "gemini-2.5-flash"
	}
	if cfg.BaseURL == "" {
		cfg.BaseURL = s.URL
	}
	if cfg.APIKey == "" {
		cfg.APIKey = testKey
	}
	fn, err := New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return fn
}

// request is a conversation: the mission, then alternating model replies
// and feedback.
func request(msgs ...string) llm.Request {
	r := llm.Request{System: "You write PTC-Lisp.", Turn: (len(msgs) + 1) / 2}
	for i, m := range msgs {
		role := llm.User
		if i%2 == 1 {
			role = llm.Assistant
		}
		r.Messages = append(r.Messages, llm.Message{Role: role, Content: m})
	}
	if len(msgs) > 0 {
		r.Prompt = msgs[0]
	}
	return r
}

// asLLMError asserts err is an *llm.Error that does not show the API key,
// and returns it.
func asLLMError(t *testing.T, err error) *llm.Error {
	t.Helper()
	if err == nil {
		t.Fatal("no error")
	}
	var e *llm.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T) is not an *llm.Error", err, err)
	}
	noKey(t, err)
	return e
}

// noKey fails the test if the error's message, or that of an error it
// wraps, shows the API key.
func noKey(t *testing.T, err error) {
	t.Helper()
	for e := err; e != nil; e = errors.Unwrap(e) {
		if strings.Contains(e.Error(), testKey) {
			t.Errorf("the error shows the API key: %q", e.Error())
			return
		}
	}
}

func TestNewConfigErrors(t *testing.T) {
	isolate(t)
	cases := []struct {
		name string
		cfg  Config
		word string // a part of the message
	}{
		{"no model", Config{APIKey: testKey}, "Model is required"},
		{"blank model", Config{Model: "  ", APIKey: testKey}, "Model is required"},
		{"query in model", Config{Model: "gemini-2.5-flash?alt=sse", APIKey: testKey}, "invalid model name"},
		{"ampersand in model", Config{Model: "gemini&key=x", APIKey: testKey}, "invalid model name"},
		{"dot-dot in model", Config{Model: "../files", APIKey: testKey}, "invalid model name"},
		{"path escape in model", Config{Model: "models/../../v1/files", APIKey: testKey}, "invalid model name"},
		{"no key", Config{Model: "gemini-2.5-flash"}, "GEMINI_API_KEY"},
		{"negative tokens", Config{Model: "m", APIKey: testKey, MaxTokens: -1}, "MaxTokens"},
		{"huge tokens", Config{Model: "m", APIKey: testKey, MaxTokens: math.MaxInt32 + 1}, "MaxTokens"},
		{"negative temperature", Config{Model: "m", APIKey: testKey, Temperature: ptr(-0.5)}, "Temperature"},
		{"NaN temperature", Config{Model: "m", APIKey: testKey, Temperature: ptr(math.NaN())}, "Temperature"},
		{"infinite temperature", Config{Model: "m", APIKey: testKey, Temperature: ptr(math.Inf(1))}, "Temperature"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fn, err := New(context.Background(), c.cfg)
			if fn != nil || err == nil {
				t.Fatalf("New(%+v) = %v, %v; want an error", c.cfg, fn != nil, err)
			}
			e := asLLMError(t, err)
			if e.Class != llm.Config || e.Reason != reasonInvalidConfig {
				t.Errorf("class %s reason %q, want %s %s", e.Class, e.Reason, llm.Config, reasonInvalidConfig)
			}
			if !strings.Contains(e.Message, c.word) {
				t.Errorf("message %q does not contain %q", e.Message, c.word)
			}
		})
	}
}

// New makes no request: not to the server, not through the client.
func TestNewMakesNoRequest(t *testing.T) {
	s := newServer(t, always(reply{Body: generated("ok", 1, 1, 0)}))
	isolate(t)
	client := &http.Client{Transport: roundTripper(func(r *http.Request) (*http.Response, error) {
		t.Errorf("New made a request: %s %s", r.Method, r.URL)
		return nil, errors.New("no request expected")
	})}
	for _, cfg := range []Config{
		{Model: "gemini-2.5-flash", APIKey: testKey, BaseURL: s.URL},
		{Model: "models/gemini-2.5-pro", APIKey: testKey, BaseURL: s.URL, HTTPClient: client},
		{Model: "gemini-2.5-flash", APIKey: testKey, HTTPClient: client}, // the default base URL
	} {
		if _, err := New(context.Background(), cfg); err != nil {
			t.Fatalf("New(%+v): %v", cfg, err)
		}
	}
	if s.calls() != 0 {
		t.Errorf("New made %d requests", s.calls())
	}
}

// The key comes from Config.APIKey, else $GEMINI_API_KEY, else
// $GOOGLE_API_KEY; it is sent in the x-goog-api-key header only.
func TestAPIKeySources(t *testing.T) {
	s := newServer(t, always(reply{Body: generated("ok", 1, 1, 0)}))
	cases := []struct {
		name                string
		config, gemini, goo string
		want                string
	}{
		{"GEMINI_API_KEY", "", "gemini-env-key", "google-env-key", "gemini-env-key"},
		{"GOOGLE_API_KEY", "", "", "google-env-key", "google-env-key"},
		{"Config wins", "config-key", "gemini-env-key", "google-env-key", "config-key"},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			isolate(t)
			t.Setenv("GEMINI_API_KEY", c.gemini)
			t.Setenv("GOOGLE_API_KEY", c.goo)
			fn, err := New(context.Background(), Config{Model: "gemini-2.5-flash", APIKey: c.config, BaseURL: s.URL})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := fn(context.Background(), request("hi")); err != nil {
				t.Fatal(err)
			}
			got := s.request(i)
			if k := got.Header.Get("X-Goog-Api-Key"); k != c.want {
				t.Errorf("x-goog-api-key %q, want %q", k, c.want)
			}
			if got.Query != "" || got.Header.Get("Authorization") != "" {
				t.Errorf("query %q, Authorization %q: the key goes in x-goog-api-key only", got.Query, got.Header.Get("Authorization"))
			}
		})
	}

	isolate(t)
	_, err := New(context.Background(), Config{Model: "gemini-2.5-flash", BaseURL: s.URL})
	if e := asLLMError(t, err); e.Class != llm.Config || e.Reason != reasonInvalidConfig {
		t.Errorf("no key: %+v", e)
	}
	if s.calls() != len(cases) {
		t.Errorf("%d requests, want %d", s.calls(), len(cases))
	}
}

func TestSuccess(t *testing.T) {
	s := newServer(t, always(reply{Body: generated("```clojure\n(+ 1 2)\n```", 1234, 56, 0)}))
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
	got := s.request(0)
	if got.Method != http.MethodPost || got.Path != "/v1beta/models/gemini-2.5-flash:generateContent" {
		t.Errorf("%s %s, want POST /v1beta/models/gemini-2.5-flash:generateContent", got.Method, got.Path)
	}
}

// The reply is the text of the first candidate's parts, thoughts left out;
// the thinking tokens count as output; cached tokens are CacheRead (and
// part of Input).
func TestResponseMapping(t *testing.T) {
	cases := []struct {
		name   string
		body   string
		text   string
		tokens llm.Tokens
	}{
		{"cached", generated("ok", 2048, 12, 1920), "ok", llm.Tokens{Input: 2048, Output: 12, CacheRead: 1920}},
		{"parts and thoughts", `{
  "candidates": [{
    "content": {"parts": [
      {"text": "**Planning** I should count the rows first.", "thought": true},
      {"text": "Hello"},
      {"text": ", world"}
    ], "role": "model"},
    "finishReason": "STOP", "index": 0
  }, {
    "content": {"parts": [{"text": "second candidate"}], "role": "model"},
    "finishReason": "STOP", "index": 1
  }],
  "usageMetadata": {"promptTokenCount": 300, "candidatesTokenCount": 4, "totalTokenCount": 504, "thoughtsTokenCount": 200},
  "modelVersion": "gemini-2.5-pro"
}`, "Hello, world", llm.Tokens{Input: 300, Output: 204}},
		{"no usage", `{"candidates":[{"content":{"parts":[{"text":"hello"}],"role":"model"},"finishReason":"STOP"}]}`,
			"hello", llm.Tokens{}},
		// A reply cut by maxOutputTokens is still a reply: the agent sees
		// what there is.
		{"max tokens", generatedWith("```clojure\n(def x", "MAX_TOKENS", 100, 8, 0), "```clojure\n(def x", llm.Tokens{Input: 100, Output: 8}},
		{"no finish reason", `{"candidates":[{"content":{"parts":[{"text":"partial"}],"role":"model"}}],"usageMetadata":{"promptTokenCount":5,"candidatesTokenCount":1}}`,
			"partial", llm.Tokens{Input: 5, Output: 1}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newServer(t, always(reply{Body: c.body}))
			resp, err := newFunc(t, s, Config{})(context.Background(), request("hi"))
			if err != nil {
				t.Fatal(err)
			}
			if resp.Content != c.text || resp.Tokens != c.tokens {
				t.Errorf("got %q %+v, want %q %+v", resp.Content, resp.Tokens, c.text, c.tokens)
			}
		})
	}
}

func TestRequestMapping(t *testing.T) {
	s := newServer(t, always(reply{Body: generated("ok", 1, 1, 0)}))
	fn := newFunc(t, s, Config{
		Model:       "gemini-2.5-pro",
		Headers:     map[string]string{"X-Goog-User-Project": "my-project", "X-Title": "ptc tests"},
		MaxTokens:   4096,
		Temperature: ptr(0.7),
	})
	req := request("Find the total.", "```clojure\n(tool/stock {})\n```", "Value: 3")
	req.ToolNames = []string{"stock"}
	req.Cache = true // Gemini caches on its own: nothing to send
	if _, err := fn(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	if s.calls() != 1 {
		t.Fatalf("%d requests, want 1", s.calls())
	}
	got := s.request(0)
	if got.Method != http.MethodPost || got.Path != "/v1beta/models/gemini-2.5-pro:generateContent" || got.Query != "" {
		t.Errorf("%s %s?%s, want POST /v1beta/models/gemini-2.5-pro:generateContent", got.Method, got.Path, got.Query)
	}
	if sys, ok := got.system(); !ok || sys != "You write PTC-Lisp." {
		t.Errorf("systemInstruction %q (present %v)", sys, ok)
	}
	wantContents := [][2]string{
		{"user", "Find the total."},
		{"model", "```clojure\n(tool/stock {})\n```"},
		{"user", "Value: 3"},
	}
	if c := got.contents(); !reflect.DeepEqual(c, wantContents) {
		t.Errorf("contents\n%q\nwant\n%q", c, wantContents)
	}
	gc := got.generationConfig()
	if gc["maxOutputTokens"] != 4096.0 || gc["temperature"] != 0.7 {
		t.Errorf("generationConfig %v, want maxOutputTokens 4096 and temperature 0.7", gc)
	}
	for _, k := range []string{"topP", "topK", "stopSequences", "candidateCount", "thinkingConfig", "responseMimeType"} {
		if v, ok := gc[k]; ok {
			t.Errorf("unexpected generationConfig.%s: %v", k, v)
		}
	}
	for _, k := range []string{"tools", "toolConfig", "cachedContent", "safetySettings"} {
		if v, ok := got.Body[k]; ok {
			t.Errorf("unexpected field %s: %v", k, v)
		}
	}
	h := got.Header
	for k, v := range map[string]string{"X-Goog-Api-Key": testKey, "Content-Type": "application/json",
		"X-Goog-User-Project": "my-project", "X-Title": "ptc tests"} {
		if h.Get(k) != v {
			t.Errorf("header %s = %q, want %q", k, h.Get(k), v)
		}
	}
}

// A system message in Messages joins the system instruction; without a
// system prompt there is no systemInstruction; without messages the
// prompt is the one user content.
func TestSystemAndPrompt(t *testing.T) {
	s := newServer(t, always(reply{Body: generated("ok", 1, 1, 0)}))
	fn := newFunc(t, s, Config{})
	ctx := context.Background()

	req := request("x")
	req.Messages = append([]llm.Message{{Role: llm.System, Content: "Be brief."}}, req.Messages...)
	if _, err := fn(ctx, req); err != nil {
		t.Fatal(err)
	}
	if sys, _ := s.request(0).system(); sys != "You write PTC-Lisp.\n\nBe brief." {
		t.Errorf("systemInstruction %q", sys)
	}
	if c := s.request(0).contents(); !reflect.DeepEqual(c, [][2]string{{"user", "x"}}) {
		t.Errorf("contents %q", c)
	}

	if _, err := fn(ctx, llm.Request{Messages: []llm.Message{{Role: llm.User, Content: "no system"}}}); err != nil {
		t.Fatal(err)
	}
	if sys, ok := s.request(1).system(); ok {
		t.Errorf("systemInstruction %q sent without a system prompt", sys)
	}

	if _, err := fn(ctx, llm.Request{System: "S", Prompt: "The mission."}); err != nil {
		t.Fatal(err)
	}
	if c := s.request(2).contents(); !reflect.DeepEqual(c, [][2]string{{"user", "The mission."}}) {
		t.Errorf("contents %q", c)
	}
}

// Without options, the Config's defaults are sent; the request's options
// override them, whatever their Go numeric type.
func TestDefaultsAndOptions(t *testing.T) {
	s := newServer(t, always(reply{Body: generated("ok", 1, 1, 0)}))
	ctx := context.Background()
	call := func(fn llm.Func, opts map[string]any) map[string]any {
		t.Helper()
		req := request("x")
		req.Options = opts
		if _, err := fn(ctx, req); err != nil {
			t.Fatal(err)
		}
		return s.request(s.calls() - 1).generationConfig()
	}

	bare := newFunc(t, s, Config{})
	if gc := call(bare, nil); len(gc) != 0 {
		t.Errorf("generationConfig %v sent without defaults or options", gc)
	}

	fn := newFunc(t, s, Config{MaxTokens: 1000, Temperature: ptr(0.0)})
	if gc := call(fn, nil); gc["maxOutputTokens"] != 1000.0 || gc["temperature"] != 0.0 {
		t.Errorf("defaults: %v", gc)
	}

	var fromJSON map[string]any
	if err := json.Unmarshal([]byte(`{"temperature":0.25,"max_tokens":64,"top_p":0.5,"top_k":40,"stop":["a","b"]}`), &fromJSON); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		opts map[string]any
		want map[string]any
	}{
		{"from JSON", fromJSON,
			map[string]any{"temperature": 0.25, "maxOutputTokens": 64.0, "topP": 0.5, "topK": 40.0, "stopSequences": []any{"a", "b"}}},
		{"Go types", map[string]any{"temperature": 1, "max_tokens": int64(512), "top_k": uint8(3), "stop": "END"},
			map[string]any{"temperature": 1.0, "maxOutputTokens": 512.0, "topK": 3.0, "stopSequences": []any{"END"}}},
		{"json.Number and float32", map[string]any{"max_tokens": json.Number("12"), "top_p": float32(0.75), "stop": []string{"C"}},
			map[string]any{"temperature": 0.0, "maxOutputTokens": 12.0, "topP": 0.75, "stopSequences": []any{"C"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if gc := call(fn, c.opts); !reflect.DeepEqual(gc, c.want) {
				t.Errorf("generationConfig %v, want %v", gc, c.want)
			}
		})
	}
}

func TestInvalidOptions(t *testing.T) {
	s := newServer(t, always(reply{Body: generated("ok", 1, 1, 0)}))
	fn := newFunc(t, s, Config{})
	cases := []struct {
		opts map[string]any
		word string
	}{
		{map[string]any{"temprature": 0.5, "max_tokens": 10}, `unknown LLM option "temprature"`},
		{map[string]any{"seed": 42}, `unknown LLM option "seed"`},
		{map[string]any{"temperature": "hot"}, `"temperature"`},
		{map[string]any{"temperature": -0.1}, `"temperature"`},
		{map[string]any{"temperature": math.NaN()}, `"temperature"`},
		{map[string]any{"temperature": nil}, `"temperature"`},
		{map[string]any{"top_p": 1.5}, `"top_p"`},
		{map[string]any{"top_p": true}, `"top_p"`},
		{map[string]any{"top_k": 0}, `"top_k"`},
		{map[string]any{"max_tokens": 0}, `"max_tokens"`},
		{map[string]any{"max_tokens": 1.5}, `"max_tokens"`},
		{map[string]any{"max_tokens": -3}, `"max_tokens"`},
		{map[string]any{"max_tokens": "100"}, `"max_tokens"`},
		{map[string]any{"max_tokens": float64(math.MaxInt32) + 1}, `"max_tokens"`},
		{map[string]any{"max_tokens": json.Number("many")}, `"max_tokens"`},
		{map[string]any{"stop": 3}, `"stop"`},
		{map[string]any{"stop": []any{"a", 1}}, `"stop"`},
	}
	for _, c := range cases {
		req := request("hi")
		req.Options = c.opts
		_, err := fn(context.Background(), req)
		e := asLLMError(t, err)
		if e.Class != llm.Config || e.Reason != reasonInvalidOptions || !strings.Contains(e.Message, c.word) {
			t.Errorf("options %v: error %+v, want %s %s naming %s", c.opts, e, llm.Config, reasonInvalidOptions, c.word)
		}
	}
	if s.calls() != 0 {
		t.Errorf("%d requests made with bad options", s.calls())
	}
}

func TestUnknownRole(t *testing.T) {
	s := newServer(t, always(reply{Body: generated("ok", 1, 1, 0)}))
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

// Replies without text: blocked prompts and replies, and empty candidates.
func TestNoText(t *testing.T) {
	cases := []struct {
		name   string
		body   string
		class  llm.Class
		reason string
		words  []string // parts of the message
	}{
		{"prompt blocked", `{
  "promptFeedback": {
    "blockReason": "SAFETY",
    "safetyRatings": [
      {"category": "HARM_CATEGORY_SEXUALLY_EXPLICIT", "probability": "NEGLIGIBLE"},
      {"category": "HARM_CATEGORY_DANGEROUS_CONTENT", "probability": "HIGH"}
    ]
  },
  "usageMetadata": {"promptTokenCount": 12, "totalTokenCount": 12},
  "modelVersion": "gemini-2.5-flash"
}`, llm.ClientError, "prompt_blocked", []string{"blocked", "SAFETY"}},
		{"prompt blocked with a message", `{"candidates":[],"promptFeedback":{"blockReason":"PROHIBITED_CONTENT","blockReasonMessage":"The prompt contains prohibited content."}}`,
			llm.ClientError, "prompt_blocked", []string{"PROHIBITED_CONTENT", "prohibited content"}},
		{"reply blocked", `{
  "candidates": [{
    "finishReason": "SAFETY",
    "index": 0,
    "safetyRatings": [{"category": "HARM_CATEGORY_HARASSMENT", "probability": "HIGH", "blocked": true}]
  }],
  "usageMetadata": {"promptTokenCount": 40, "totalTokenCount": 40},
  "modelVersion": "gemini-2.5-flash"
}`, llm.ClientError, "response_blocked", []string{"SAFETY"}},
		{"recitation", `{"candidates":[{"content":{"role":"model"},"finishReason":"RECITATION","index":0}]}`,
			llm.ClientError, "response_blocked", []string{"RECITATION"}},
		{"prohibited content", `{"candidates":[{"finishReason":"PROHIBITED_CONTENT","index":0}]}`,
			llm.ClientError, "response_blocked", []string{"PROHIBITED_CONTENT"}},
		{"thoughts only, out of tokens", `{"candidates":[{"content":{"parts":[{"text":"Let me think...","thought":true}],"role":"model"},"finishReason":"MAX_TOKENS","index":0}],
			"usageMetadata":{"promptTokenCount":10,"totalTokenCount":1034,"thoughtsTokenCount":1024}}`,
			llm.Unknown, "empty_response", []string{"no text", "MAX_TOKENS"}},
		{"empty parts", `{"candidates":[{"content":{"parts":[{"text":""}],"role":"model"},"finishReason":"STOP","index":0}]}`,
			llm.Unknown, "empty_response", []string{"no text", "STOP"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newServer(t, always(reply{Body: c.body}))
			resp, err := newFunc(t, s, Config{})(context.Background(), request("hi"))
			if err == nil {
				t.Fatalf("no error; reply %+v", resp)
			}
			e := asLLMError(t, err)
			if e.Class != c.class || e.Reason != c.reason {
				t.Errorf("class %s reason %q, want %s %q", e.Class, e.Reason, c.class, c.reason)
			}
			for _, w := range c.words {
				if !strings.Contains(e.Message, w) {
					t.Errorf("message %q does not contain %q", e.Message, w)
				}
			}
			if s.calls() != 1 {
				t.Errorf("%d requests, want 1", s.calls())
			}
		})
	}
}

// Recorded-style details of Google API errors.
const (
	retryInfo17s = `{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "17s"}`
	quotaFailure = `{"@type": "type.googleapis.com/google.rpc.QuotaFailure", "violations": [{"quotaMetric": "generativelanguage.googleapis.com/generate_content_free_tier_requests", "quotaId": "GenerateRequestsPerMinutePerProjectPerModel-FreeTier", "quotaDimensions": {"location": "global", "model": "gemini-2.5-flash"}, "quotaValue": "10"}]}`
	quotaHelp    = `{"@type": "type.googleapis.com/google.rpc.Help", "links": [{"description": "Learn more about Gemini API quotas", "url": "https://ai.google.dev/gemini-api/docs/rate-limits"}]}`
	keyInvalid   = `{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "API_KEY_INVALID", "domain": "googleapis.com", "metadata": {"service": "generativelanguage.googleapis.com"}}`
	keyMessage   = `{"@type": "type.googleapis.com/google.rpc.LocalizedMessage", "locale": "en-US", "message": "API key not valid. Please pass a valid API key."}`
	quotaMessage = "You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits."
)

func TestHTTPErrors(t *testing.T) {
	cases := []struct {
		name       string
		rep        reply
		class      llm.Class
		retryAfter time.Duration
		message    string // a part of the message
	}{
		{"429 RetryInfo", reply{Status: 429, Body: apiError(429, "RESOURCE_EXHAUSTED", quotaMessage, quotaFailure, quotaHelp, retryInfo17s)},
			llm.RateLimit, 17 * time.Second, "RESOURCE_EXHAUSTED: You exceeded your current quota"},
		{"429 fractional RetryInfo", reply{Status: 429, Body: apiError(429, "RESOURCE_EXHAUSTED", "Resource has been exhausted (e.g. check quota).",
			`{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "1.5s"}`)},
			llm.RateLimit, 1500 * time.Millisecond, "Resource has been exhausted"},
		{"429 Retry-After wins", reply{Status: 429, Header: map[string]string{"Retry-After": "3"},
			Body: apiError(429, "RESOURCE_EXHAUSTED", quotaMessage, retryInfo17s)},
			llm.RateLimit, 3 * time.Second, "exceeded your current quota"},
		{"429 without delay", reply{Status: 429, Body: apiError(429, "RESOURCE_EXHAUSTED", quotaMessage, quotaFailure)},
			llm.RateLimit, 0, "exceeded your current quota"},
		{"500", reply{Status: 500, Body: apiError(500, "INTERNAL", "An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting")},
			llm.ServerError, 0, "INTERNAL: An internal error has occurred"},
		{"503 overloaded", reply{Status: 503, Body: apiError(503, "UNAVAILABLE", "The model is overloaded. Please try again later.")},
			llm.ServerError, 0, "UNAVAILABLE: The model is overloaded"},
		{"502 HTML page", reply{Status: 502, Header: map[string]string{"Content-Type": "text/html"}, Body: "<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>"},
			llm.ServerError, 0, "502 Bad Gateway"},
		{"500 empty body", reply{Status: 500, Body: ""}, llm.ServerError, 0, "Internal Server Error"},
		{"504", reply{Status: 504, Body: apiError(504, "DEADLINE_EXCEEDED", "Deadline expired before operation could complete.")},
			llm.Timeout, 0, "Deadline expired"},
		{"400 API_KEY_INVALID", reply{Status: 400, Body: apiError(400, "INVALID_ARGUMENT", "API key not valid. Please pass a valid API key.", keyInvalid, keyMessage)},
			llm.Auth, 0, "API key not valid"},
		{"400 API_KEY_INVALID detail only", reply{Status: 400, Body: apiError(400, "INVALID_ARGUMENT", "Invalid credentials.", keyInvalid)},
			llm.Auth, 0, "Invalid credentials"},
		{"400 API_KEY_EXPIRED", reply{Status: 400, Body: apiError(400, "INVALID_ARGUMENT", "API key expired. Please renew the API key.",
			`{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "API_KEY_EXPIRED", "domain": "googleapis.com", "metadata": {"service": "generativelanguage.googleapis.com"}}`)},
			llm.Auth, 0, "API key expired"},
		{"401", reply{Status: 401, Body: apiError(401, "UNAUTHENTICATED", "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.")},
			llm.Auth, 0, "UNAUTHENTICATED: Request had invalid authentication credentials"},
		{"403", reply{Status: 403, Body: apiError(403, "PERMISSION_DENIED", "Your API key was reported as leaked. Please use another API key.")},
			llm.Auth, 0, "PERMISSION_DENIED: Your API key was reported as leaked"},
		{"400 context length", reply{Status: 400, Body: apiError(400, "INVALID_ARGUMENT", "The input token count (1234567) exceeds the maximum number of tokens allowed (1048576).")},
			llm.ContextLength, 0, "The input token count (1234567) exceeds the maximum number of tokens allowed (1048576)."},
		{"400 other", reply{Status: 400, Body: apiError(400, "INVALID_ARGUMENT", "* GenerateContentRequest.generation_config.top_k: must be positive\n")},
			llm.ClientError, 0, "top_k: must be positive"},
		{"404 model", reply{Status: 404, Body: apiError(404, "NOT_FOUND", "models/gemini-9-flash is not found for API version v1beta, or is not supported for generateContent. Call ListModels to see the list of available models and their supported methods.")},
			llm.ClientError, 0, "NOT_FOUND: models/gemini-9-flash is not found"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newServer(t, always(c.rep))
			_, err := newFunc(t, s, Config{})(context.Background(), request("hi"))
			e := asLLMError(t, err)
			if e.Class != c.class || e.Status != c.rep.Status || e.RetryAfter != c.retryAfter {
				t.Errorf("got class %s status %d retry-after %v; want %s %d %v",
					e.Class, e.Status, e.RetryAfter, c.class, c.rep.Status, c.retryAfter)
			}
			if !strings.Contains(e.Message, c.message) || !strings.HasPrefix(e.Message, "gemini: ") {
				t.Errorf("message %q does not contain %q", e.Message, c.message)
			}
			if llm.Classify(err) != e {
				t.Errorf("llm.Classify does not return the adapter's error")
			}
			if e.Err == nil {
				t.Errorf("no underlying error")
			}
			// Retries are the agent's: one HTTP request, whatever the
			// status.
			if s.calls() != 1 {
				t.Errorf("%d HTTP requests, want 1", s.calls())
			}
		})
	}
}

// Retries are off in the SDK: a call is one HTTP request, even for the
// statuses the SDK's retry policy would retry.
func TestOneRequestPerCall(t *testing.T) {
	for _, rep := range []reply{
		{Status: 429, Header: map[string]string{"Retry-After": "0"}, Body: apiError(429, "RESOURCE_EXHAUSTED", quotaMessage)},
		{Status: 500, Body: apiError(500, "INTERNAL", "An internal error has occurred.")},
		{Status: 503, Body: apiError(503, "UNAVAILABLE", "The model is overloaded. Please try again later.")},
		{Status: 504, Body: apiError(504, "DEADLINE_EXCEEDED", "Deadline expired before operation could complete.")},
		{Status: 408, Body: "Request Timeout"},
	} {
		t.Run(strconv.Itoa(rep.Status), func(t *testing.T) {
			s := newServer(t, always(rep))
			fn := newFunc(t, s, Config{})
			for range 3 {
				if _, err := fn(context.Background(), request("hi")); asLLMError(t, err).Status != rep.Status {
					t.Fatalf("error %v", err)
				}
			}
			if s.calls() != 3 {
				t.Errorf("%d HTTP requests for 3 calls, want 3", s.calls())
			}
		})
	}
}

func TestMalformedReplies(t *testing.T) {
	cases := []struct {
		name string
		rep  reply
	}{
		{"not JSON", reply{Body: "this is not json"}},
		{"truncated", reply{Body: generated("(+ 1 2)", 1, 1, 0)[:80]}},
		{"array", reply{Body: `[1,2,3]`}},
		{"HTML with 200", reply{Header: map[string]string{"Content-Type": "text/html"}, Body: "<html><body>Please log in</body></html>"}},
		{"empty object", reply{Body: `{}`}},
		{"empty body", reply{Body: ""}},
		{"no candidates", reply{Body: `{"candidates":[],"usageMetadata":{"promptTokenCount":5,"totalTokenCount":5},"modelVersion":"gemini-2.5-flash"}`}},
		{"other API's reply", reply{Body: `{"id":"chatcmpl-1","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"hi"}}]}`}},
		{"candidates of the wrong type", reply{Body: `{"candidates":"none"}`}},
		{"usage of the wrong type", reply{Body: `{"candidates":[{"content":{"parts":[{"text":"hi"}],"role":"model"}}],"usageMetadata":{"promptTokenCount":"many"}}`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newServer(t, always(c.rep))
			resp, err := newFunc(t, s, Config{})(context.Background(), request("hi"))
			if err == nil {
				t.Fatalf("no error; reply %+v", resp)
			}
			e := asLLMError(t, err)
			if e.Class != llm.ServerError || e.Reason != reasonMalformedResponse {
				t.Errorf("got %s %q (%q); want %s %q", e.Class, e.Reason, e.Message, llm.ServerError, reasonMalformedResponse)
			}
			if s.calls() != 1 {
				t.Errorf("%d HTTP requests, want 1", s.calls())
			}
		})
	}
}

// slowServer answers only when the request's context ends (the client
// gave up) or when the test ends; arrived gets a value when a request has
// come.
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
		s.requests = append(s.requests, received{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone()})
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

func TestDeadline(t *testing.T) {
	s, _ := slowServer(t)
	fn := newFunc(t, s, Config{})
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, err := fn(ctx, request("hi"))
	e := asLLMError(t, err)
	if e.Class != llm.Timeout || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("error %v (class %s), want a timeout wrapping context.DeadlineExceeded", err, e.Class)
	}
	if s.calls() != 1 {
		t.Errorf("%d requests, want 1", s.calls())
	}
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
	_, err := fn(ctx, request("hi"))
	e := asLLMError(t, err)
	if e.Class != llm.Cancelled || !errors.Is(err, context.Canceled) {
		t.Errorf("error %v (class %s), want cancelled", err, e.Class)
	}
	if s.calls() != 1 {
		t.Errorf("%d requests, want 1", s.calls())
	}
}

// A context already done: no request at all.
func TestDoneContext(t *testing.T) {
	s := newServer(t, always(reply{Body: generated("ok", 1, 1, 0)}))
	fn := newFunc(t, s, Config{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := fn(ctx, request("hi"))
	if e := asLLMError(t, err); e.Class != llm.Cancelled {
		t.Errorf("class %s, want %s", e.Class, llm.Cancelled)
	}
	ctx, cancel = context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	_, err = fn(ctx, request("hi"))
	if e := asLLMError(t, err); e.Class != llm.Timeout {
		t.Errorf("class %s, want %s", e.Class, llm.Timeout)
	}
	if s.calls() != 0 {
		t.Errorf("%d requests", s.calls())
	}
}

// The http.Client's own timeout is a Timeout too.
func TestHTTPClientTimeout(t *testing.T) {
	s, _ := slowServer(t)
	fn := newFunc(t, s, Config{HTTPClient: &http.Client{Timeout: 200 * time.Millisecond}})
	_, err := fn(context.Background(), request("hi"))
	if e := asLLMError(t, err); e.Class != llm.Timeout {
		t.Errorf("error %v, class %s, want %s", err, e.Class, llm.Timeout)
	}
}

// A server that is not there: a Network error, not a panic, not a retry
// loop, and not the key.
func TestConnectionRefused(t *testing.T) {
	s := newServer(t, always(reply{}))
	base := s.URL
	s.Close()
	isolate(t)
	fn, err := New(context.Background(), Config{Model: "gemini-2.5-flash", BaseURL: base, APIKey: testKey})
	if err != nil {
		t.Fatal(err)
	}
	_, err = fn(context.Background(), request("hi"))
	e := asLLMError(t, err)
	if e.Class != llm.Network || e.Err == nil || !strings.Contains(e.Message, "connection refused") {
		t.Errorf("error %+v, want %s", e, llm.Network)
	}
}

// The custom HTTP client makes the requests.
func TestHTTPClient(t *testing.T) {
	s := newServer(t, always(reply{Body: generated("ok", 1, 1, 0)}))
	var mu sync.Mutex
	var used int
	client := &http.Client{Transport: roundTripper(func(r *http.Request) (*http.Response, error) {
		mu.Lock()
		used++
		mu.Unlock()
		return http.DefaultTransport.RoundTrip(r)
	})}
	fn := newFunc(t, s, Config{HTTPClient: client})
	if _, err := fn(context.Background(), request("hi")); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if used != 1 || s.calls() != 1 {
		t.Errorf("the client made %d requests, the server got %d; want 1 and 1", used, s.calls())
	}
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// The Func is safe for concurrent use (run with -race).
func TestConcurrentCalls(t *testing.T) {
	s := newServer(t, func(n int, r received) reply {
		c := r.contents()
		if len(c) == 0 {
			return reply{Status: 400, Body: apiError(400, "INVALID_ARGUMENT", "no contents")}
		}
		if n%4 == 0 {
			return reply{Status: 429, Body: apiError(429, "RESOURCE_EXHAUSTED", quotaMessage, retryInfo17s)}
		}
		return reply{Body: generated("echo: "+c[len(c)-1][1], 10, 2, 0)}
	})
	fn := newFunc(t, s, Config{})
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for i := range 16 {
		wg.Go(func() {
			msg := "call " + strconv.Itoa(i)
			resp, err := fn(context.Background(), request(msg))
			var e *llm.Error
			switch {
			case errors.As(err, &e) && e.Class == llm.RateLimit && e.RetryAfter == 17*time.Second:
			case err != nil:
				errs <- err
			case resp.Content != "echo: "+msg:
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
		t.Errorf("%d requests, want 16", s.calls())
	}
}

func ptr[T any](v T) *T { return &v }

// A proxy that echoes the key in its error: the message redacts it, and
// the provider's status word is the error's Reason.
func TestKeyEchoRedacted(t *testing.T) {
	s := newServer(t, always(reply{Status: 400, Body: apiError(400, "INVALID_ARGUMENT", "bad request from key "+testKey)}))
	_, err := newFunc(t, s, Config{})(context.Background(), request("hi"))
	var e *llm.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v", err)
	}
	if strings.Contains(err.Error(), testKey) || !strings.Contains(err.Error(), "[redacted]") {
		t.Errorf("message %q: the key must be redacted", err.Error())
	}
	if e.Reason != "INVALID_ARGUMENT" {
		t.Errorf("reason %q, want INVALID_ARGUMENT", e.Reason)
	}
}
