package gemini

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/ptc-go/ptc/llm"
	"github.com/ptc-go/ptc/llm/adapter/adaptertest"
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
func newFunc(t *testing.T, s *adaptertest.Server, cfg Config) llm.Func {
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

func TestNewConfigErrors(t *testing.T) {
	isolate(t)
	cases := []struct {
		name string
		cfg  Config
		word string // a part of the message
	}{
		{"query in model", Config{Model: "gemini-2.5-flash?alt=sse", APIKey: testKey}, "invalid model name"},
		{"ampersand in model", Config{Model: "gemini&key=x", APIKey: testKey}, "invalid model name"},
		{"dot-dot in model", Config{Model: "../files", APIKey: testKey}, "invalid model name"},
		{"path escape in model", Config{Model: "models/../../v1/files", APIKey: testKey}, "invalid model name"},
		{"no key", Config{Model: "gemini-2.5-flash"}, "GEMINI_API_KEY"},
		{"huge tokens", Config{Model: "m", APIKey: testKey, MaxTokens: math.MaxInt32 + 1}, "MaxTokens"},
		{"negative temperature", Config{Model: "m", APIKey: testKey, Temperature: ptr(-0.5)}, "Temperature"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fn, err := New(context.Background(), c.cfg)
			if fn != nil || err == nil {
				t.Fatalf("New(%+v) = %v, %v; want an error", c.cfg, fn != nil, err)
			}
			e := adaptertest.AsError(t, err, testKey)
			if e.Class != llm.ClassConfig || e.Reason != reasonInvalidConfig {
				t.Errorf("class %s reason %q, want %s %s", e.Class, e.Reason, llm.ClassConfig, reasonInvalidConfig)
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
	if s.Calls() != 0 {
		t.Errorf("New made %d requests", s.Calls())
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
			if _, err := fn(context.Background(), adaptertest.Conversation("hi")); err != nil {
				t.Fatal(err)
			}
			got := s.Request(i)
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
	if e := adaptertest.AsError(t, err, testKey); e.Class != llm.ClassConfig || e.Reason != reasonInvalidConfig {
		t.Errorf("no key: %+v", e)
	}
	if s.Calls() != len(cases) {
		t.Errorf("%d requests, want %d", s.Calls(), len(cases))
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
			resp, err := newFunc(t, s, Config{})(context.Background(), adaptertest.Conversation("hi"))
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
	req := adaptertest.Conversation("Find the total.", "```clojure\n(tool/stock {})\n```", "Value: 3")
	req.ToolNames = []string{"stock"}
	req.Cache = true // Gemini caches on its own: nothing to send
	if _, err := fn(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	if s.Calls() != 1 {
		t.Fatalf("%d requests, want 1", s.Calls())
	}
	got := s.Request(0)
	if got.Method != http.MethodPost || got.Path != "/v1beta/models/gemini-2.5-pro:generateContent" || got.Query != "" {
		t.Errorf("%s %s?%s, want POST /v1beta/models/gemini-2.5-pro:generateContent", got.Method, got.Path, got.Query)
	}
	if sys, ok := system(got); !ok || sys != "You write PTC-Lisp." {
		t.Errorf("systemInstruction %q (present %v)", sys, ok)
	}
	wantContents := [][2]string{
		{"user", "Find the total."},
		{"model", "```clojure\n(tool/stock {})\n```"},
		{"user", "Value: 3"},
	}
	if c := sentContents(got); !reflect.DeepEqual(c, wantContents) {
		t.Errorf("contents\n%q\nwant\n%q", c, wantContents)
	}
	gc := generationConfig(got)
	if gc["maxOutputTokens"] != 4096.0 || gc["temperature"] != 0.7 {
		t.Errorf("generationConfig %v, want maxOutputTokens 4096 and temperature 0.7", gc)
	}
	for _, k := range []string{"topP", "topK", "stopSequences", "candidateCount", "thinkingConfig", "responseMimeType"} {
		if v, ok := gc[k]; ok {
			t.Errorf("unexpected generationConfig.%s: %v", k, v)
		}
	}
	for _, k := range []string{"tools", "toolConfig", "cachedContent", "safetySettings"} {
		if v, ok := got.JSON[k]; ok {
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

	req := adaptertest.Conversation("x")
	req.Messages = append([]llm.Message{{Role: llm.System, Content: "Be brief."}}, req.Messages...)
	if _, err := fn(ctx, req); err != nil {
		t.Fatal(err)
	}
	if sys, _ := system(s.Request(0)); sys != "You write PTC-Lisp.\n\nBe brief." {
		t.Errorf("systemInstruction %q", sys)
	}
	if c := sentContents(s.Request(0)); !reflect.DeepEqual(c, [][2]string{{"user", "x"}}) {
		t.Errorf("contents %q", c)
	}

	if _, err := fn(ctx, llm.Request{Messages: []llm.Message{{Role: llm.User, Content: "no system"}}}); err != nil {
		t.Fatal(err)
	}
	if sys, ok := system(s.Request(1)); ok {
		t.Errorf("systemInstruction %q sent without a system prompt", sys)
	}

	if _, err := fn(ctx, llm.Request{System: "S", Prompt: "The mission."}); err != nil {
		t.Fatal(err)
	}
	if c := sentContents(s.Request(2)); !reflect.DeepEqual(c, [][2]string{{"user", "The mission."}}) {
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
		req := adaptertest.Conversation("x")
		req.Options = opts
		if _, err := fn(ctx, req); err != nil {
			t.Fatal(err)
		}
		return generationConfig(s.Request(s.Calls() - 1))
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
}`, llm.ClassClientError, "prompt_blocked", []string{"blocked", "SAFETY"}},
		{"prompt blocked with a message", `{"candidates":[],"promptFeedback":{"blockReason":"PROHIBITED_CONTENT","blockReasonMessage":"The prompt contains prohibited content."}}`,
			llm.ClassClientError, "prompt_blocked", []string{"PROHIBITED_CONTENT", "prohibited content"}},
		{"reply blocked", `{
  "candidates": [{
    "finishReason": "SAFETY",
    "index": 0,
    "safetyRatings": [{"category": "HARM_CATEGORY_HARASSMENT", "probability": "HIGH", "blocked": true}]
  }],
  "usageMetadata": {"promptTokenCount": 40, "totalTokenCount": 40},
  "modelVersion": "gemini-2.5-flash"
}`, llm.ClassClientError, "response_blocked", []string{"SAFETY"}},
		{"recitation", `{"candidates":[{"content":{"role":"model"},"finishReason":"RECITATION","index":0}]}`,
			llm.ClassClientError, "response_blocked", []string{"RECITATION"}},
		{"prohibited content", `{"candidates":[{"finishReason":"PROHIBITED_CONTENT","index":0}]}`,
			llm.ClassClientError, "response_blocked", []string{"PROHIBITED_CONTENT"}},
		{"thoughts only, out of tokens", `{"candidates":[{"content":{"parts":[{"text":"Let me think...","thought":true}],"role":"model"},"finishReason":"MAX_TOKENS","index":0}],
			"usageMetadata":{"promptTokenCount":10,"totalTokenCount":1034,"thoughtsTokenCount":1024}}`,
			llm.ClassUnknown, "empty_response", []string{"no text", "MAX_TOKENS"}},
		{"empty parts", `{"candidates":[{"content":{"parts":[{"text":""}],"role":"model"},"finishReason":"STOP","index":0}]}`,
			llm.ClassUnknown, "empty_response", []string{"no text", "STOP"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newServer(t, always(reply{Body: c.body}))
			resp, err := newFunc(t, s, Config{})(context.Background(), adaptertest.Conversation("hi"))
			if err == nil {
				t.Fatalf("no error; reply %+v", resp)
			}
			e := adaptertest.AsError(t, err, testKey)
			if e.Class != c.class || e.Reason != c.reason {
				t.Errorf("class %s reason %q, want %s %q", e.Class, e.Reason, c.class, c.reason)
			}
			for _, w := range c.words {
				if !strings.Contains(e.Message, w) {
					t.Errorf("message %q does not contain %q", e.Message, w)
				}
			}
			if s.Calls() != 1 {
				t.Errorf("%d requests, want 1", s.Calls())
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

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func ptr[T any](v T) *T { return &v }

// A proxy that echoes the key in its error: the message redacts it, and
// the provider's status word is the error's Reason.
func TestKeyEchoRedacted(t *testing.T) {
	s := newServer(t, always(reply{Status: 400, Body: apiError(400, "INVALID_ARGUMENT", "bad request from key "+testKey)}))
	_, err := newFunc(t, s, Config{})(context.Background(), adaptertest.Conversation("hi"))
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
