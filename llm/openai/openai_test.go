package openai

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"testing"

	"github.com/ptc-go/ptc/llm"
	"github.com/ptc-go/ptc/llm/adapter/adaptertest"
)

// newFunc returns the adapter pointed at the fake server, with a key.
func newFunc(t *testing.T, s *adaptertest.Server, cfg Config) llm.Func {
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

func TestNewConfigErrors(t *testing.T) {
	for name, cfg := range map[string]Config{
		"bad base URL":      {Model: "m", BaseURL: "localhost:11434/v1"},
		"bad scheme":        {Model: "m", BaseURL: "ftp://example.com/v1"},
		"bad header name":   {Model: "m", Headers: map[string]string{"X Bad": "v"}},
		"bad header value":  {Model: "m", Headers: map[string]string{"X-Ok": "a\r\nb"}},
		"empty header name": {Model: "m", Headers: map[string]string{"": "v"}},
	} {
		t.Run(name, func(t *testing.T) {
			fn, err := New(cfg)
			if fn != nil || err == nil {
				t.Fatalf("New(%+v) = %v, %v; want an error", cfg, fn != nil, err)
			}
			if e := adaptertest.AsError(t, err); e.Class != llm.ClassConfig || e.Reason != ReasonInvalidConfig {
				t.Errorf("class %s reason %q, want %s %s", e.Class, e.Reason, llm.ClassConfig, ReasonInvalidConfig)
			}
		})
	}
}

// A minimal body without usage (some local servers) is fine: zero tokens.
func TestNoUsage(t *testing.T) {
	s := newServer(t, always(reply{Body: `{"choices":[{"index":0,"message":{"role":"assistant","content":"hello"},"finish_reason":"stop"}]}`}))
	resp, err := newFunc(t, s, Config{})(context.Background(), adaptertest.Conversation("hi"))
	if err != nil || resp.Content != "hello" || resp.Tokens != (llm.Tokens{}) {
		t.Fatalf("%+v %v", resp, err)
	}
}

// A refusal has no content: its text is the reply, for the agent to see.
func TestRefusal(t *testing.T) {
	s := newServer(t, always(reply{Body: `{"choices":[{"index":0,"message":{"role":"assistant","content":null,"refusal":"I can't help with that."},"finish_reason":"stop"}],
		"usage":{"prompt_tokens":10,"completion_tokens":7,"total_tokens":17}}`}))
	resp, err := newFunc(t, s, Config{})(context.Background(), adaptertest.Conversation("hi"))
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
	req := adaptertest.Conversation("Find the total.", "```clojure\n(tool/stock {})\n```", "Value: 3")
	req.Options = map[string]any{"temperature": 0.2, "max_tokens": 512, "stop": []string{"</end>", "\n\n\n"}}
	req.ToolNames = []string{"stock"}
	req.Cache = true
	if _, err := fn(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	if s.Calls() != 1 {
		t.Fatalf("%d requests", s.Calls())
	}
	got := s.Request(0)
	if got.Method != http.MethodPost || got.Path != "/v1/chat/completions" {
		t.Errorf("%s %s, want POST /v1/chat/completions", got.Method, got.Path)
	}
	if got.JSON["model"] != "gpt-4.1-mini" {
		t.Errorf("model %v", got.JSON["model"])
	}
	// The options override the Config's defaults.
	if got.JSON["temperature"] != 0.2 {
		t.Errorf("temperature %v, want 0.2", got.JSON["temperature"])
	}
	if got.JSON["max_tokens"] != 512.0 {
		t.Errorf("max_tokens %v, want 512", got.JSON["max_tokens"])
	}
	if _, ok := got.JSON["max_completion_tokens"]; ok {
		t.Errorf("max_completion_tokens sent to a compatible server: %v", got.JSON)
	}
	if stop, _ := got.JSON["stop"].([]any); len(stop) != 2 || stop[0] != "</end>" || stop[1] != "\n\n\n" {
		t.Errorf("stop %#v", got.JSON["stop"])
	}
	for _, k := range []string{"stream", "tools", "n", "top_p", "seed", "reasoning_effort"} {
		if v, ok := got.JSON[k]; ok {
			t.Errorf("unexpected field %s: %v", k, v)
		}
	}
	h := got.Header
	// An Azure-style api-key header goes as given, beside the bearer key.
	if h.Get("Api-Key") != "azure-key" || h.Get("Authorization") != "Bearer sk-proj-abc" {
		t.Errorf("Api-Key %q, Authorization %q", h.Get("Api-Key"), h.Get("Authorization"))
	}
	if h.Get("X-Stainless-Retry-Count") != "0" {
		t.Errorf("retry count header %q", h.Get("X-Stainless-Retry-Count"))
	}
}

// A nil option unsets a Config default (the server's default applies); the
// options only OpenAI knows (seed, reasoning_effort, a stop string) reach the wire.
func TestDefaultsAndOptions(t *testing.T) {
	s := newServer(t, always(reply{Body: completion("ok", 1, 1, 0)}))
	fn := newFunc(t, s, Config{MaxTokens: 1000, Temperature: ptr(0.0)})
	ctx := context.Background()
	req := adaptertest.Conversation("b")
	req.Options = map[string]any{"temperature": nil, "max_tokens": nil}
	if _, err := fn(ctx, req); err != nil {
		t.Fatal(err)
	}
	b := s.Request(0).JSON
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
	req = adaptertest.Conversation("c")
	req.Options = opts
	if _, err := fn(ctx, req); err != nil {
		t.Fatal(err)
	}
	b = s.Request(1).JSON
	if b["top_p"] != 0.9 || b["seed"] != 42.0 || b["reasoning_effort"] != "low" || b["max_tokens"] != 64.0 || b["temperature"] != 0.0 {
		t.Errorf("options not sent: %v", b)
	}
	if stop, _ := b["stop"].([]any); len(stop) != 2 {
		t.Errorf("stop %#v", b["stop"])
	}

	req = adaptertest.Conversation("d")
	req.Options = map[string]any{"stop": "END", "seed": int64(7), "temperature": 1}
	if _, err := fn(ctx, req); err != nil {
		t.Fatal(err)
	}
	if b = s.Request(2).JSON; b["stop"] != "END" || b["seed"] != 7.0 || b["temperature"] != 1.0 {
		t.Errorf("stop %v seed %v temperature %v", b["stop"], b["seed"], b["temperature"])
	}
}

// The base URL comes from $OPENAI_BASE_URL when Config has none, and a
// Config's base URL keeps its path (the suite checks the key's sources).
func TestBaseURL(t *testing.T) {
	s := newServer(t, always(reply{Body: completion("ok", 1, 1, 0)}))
	t.Setenv("OPENAI_API_KEY", "sk-from-env")
	t.Setenv("OPENAI_BASE_URL", s.URL+"/v1")
	for i, c := range []struct{ base, path string }{{"", "/v1/chat/completions"}, {s.URL + "/api/v1/", "/api/v1/chat/completions"}} {
		fn, err := New(Config{Model: "m", BaseURL: c.base})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := fn(context.Background(), adaptertest.Conversation("hi")); err != nil {
			t.Fatal(err)
		}
		if got := s.Request(i); got.Path != c.path {
			t.Errorf("base URL %q: request to %s, want %s", c.base, got.Path, c.path)
		}
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
		req := adaptertest.Conversation("hi")
		req.Options = map[string]any{"reasoning_effort": "high"}
		if _, err := fn(context.Background(), req); err != nil {
			t.Fatal(err)
		}
		got := s.Request(i)
		wantPath := []string{"/v1/chat/completions", "/openai/v1/chat/completions"}[i]
		if got.Path != wantPath || got.JSON["max_completion_tokens"] != 2000.0 || got.JSON["reasoning_effort"] != "high" {
			t.Errorf("%s: path %s body %v", base, got.Path, got.JSON)
		}
		if _, ok := got.JSON["max_tokens"]; ok {
			t.Errorf("%s: max_tokens sent to OpenAI", base)
		}
	}
}

func ptr[T any](v T) *T { return &v }
