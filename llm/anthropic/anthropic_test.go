package anthropic

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/ptc-go/ptc/llm"
	"github.com/ptc-go/ptc/llm/adapter/adaptertest"
)

// Recorded-style bodies of the Messages API.
const (
	okBody = `{"id":"msg_01XFDUDYJgAACzvnptvVoYEL","type":"message","role":"assistant",` +
		`"model":"claude-sonnet-4-5-20250929","content":[{"type":"text","text":"Hello"},{"type":"text","text":", world"}],` +
		`"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":12,"cache_creation_input_tokens":0,` +
		`"cache_read_input_tokens":0,"cache_creation":{"ephemeral_5m_input_tokens":0,"ephemeral_1h_input_tokens":0},` +
		`"output_tokens":6,"service_tier":"standard"}}`
	cachedBody = `{"id":"msg_01Aq9w938a90dw8q","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929",` +
		`"content":[{"type":"thinking","thinking":"hmm","signature":"sig"},{"type":"text","text":"cached"}],` +
		`"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":21,"cache_creation_input_tokens":188,` +
		`"cache_read_input_tokens":1800,"output_tokens":393,"service_tier":"standard"}}`
	rateLimitBody = `{"type":"error","error":{"type":"rate_limit_error","message":"This request would exceed the rate limit ` +
		`for your organization of 30,000 input tokens per minute."},"request_id":"req_011CUr4uzv5XuoNcsJr7zyjV"}`
	serverErrorBody = `{"type":"error","error":{"type":"api_error","message":"Internal server error"},"request_id":"req_011CUr5"}`
	overloadedBody  = `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"request_id":"req_011CUr6"}`
	tooLongBody     = `{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 215327 tokens > 200000 maximum"},"request_id":"req_011CUr7"}`
	authBody        = `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"},"request_id":"req_011CUr8"}`
	forbiddenBody   = `{"type":"error","error":{"type":"permission_error","message":"Your API key does not have permission to use the specified resource."}}`
)

// reply is what the fake API answers.
type reply = adaptertest.Reply

// received is a request the fake API got, its body decoded.
type received struct {
	header    http.Header
	path, raw string
	body      map[string]any
}

// fakeAPI is llmtest's server speaking the Messages API.
type fakeAPI struct{ *adaptertest.Server }

// newFakeAPI starts a fake API; respond answers request n (from 0), by
// default with okBody.
func newFakeAPI(t *testing.T, respond func(n int) reply) *fakeAPI {
	t.Helper()
	return &fakeAPI{adaptertest.NewServer(t, func(n int, _ adaptertest.Received) reply {
		rep := reply{Body: okBody}
		if respond != nil {
			rep = respond(n)
		}
		h := map[string]string{"request-id": "req_test"}
		for k, v := range rep.Header {
			h[k] = v
		}
		rep.Header = h
		return rep
	})}
}

func (f *fakeAPI) requests() []received {
	out := make([]received, f.Calls())
	for i := range out {
		r := f.Request(i)
		out[i] = received{header: r.Header, path: r.Path, raw: string(r.Body), body: r.JSON}
	}
	return out
}

// isolate clears the environment variables the adapter reads.
func isolate(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", "")
	t.Setenv("ANTHROPIC_BASE_URL", "")
}

func newFunc(t *testing.T, f *fakeAPI, cfg Config) llm.Func {
	t.Helper()
	isolate(t)
	if cfg.Model == "" {
		cfg.Model = "claude-sonnet-4-5"
	}
	cfg.BaseURL = f.URL
	if cfg.APIKey == "" {
		cfg.APIKey = "sk-ant-test"
	}
	fn, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return fn
}

func TestNewRequiresModel(t *testing.T) {
	isolate(t)
	// The suite checks the model, the tokens and the temperature.
	for _, cfg := range []Config{{Model: "m", BaseURL: "::nope"},
		{Model: "m", BaseURL: "localhost:8080"}, {Model: "m", MaxTokens: 64000},
		{Model: "m", Headers: map[string]string{"bad header": "x"}},
		{Model: "m", Headers: map[string]string{"X-Ok": "line\r\nbreak"}}} {
		fn, err := New(cfg)
		if err == nil || fn != nil {
			t.Errorf("New(%+v) = %v, %v; want an error", cfg, fn != nil, err)
			continue
		}
		if e := adaptertest.AsError(t, err); e.Class != llm.ClassConfig || e.Reason != ReasonInvalidConfig {
			t.Errorf("New(%+v): %#v", cfg, e)
		}
	}
	if _, err := New(Config{Model: "claude-haiku-4-5"}); err != nil {
		t.Fatal(err)
	}
}

func TestUsageWithCache(t *testing.T) {
	f := newFakeAPI(t, func(int) reply { return reply{Body: cachedBody} })
	resp, err := newFunc(t, f, Config{})(context.Background(), adaptertest.Conversation("Count."))
	if err != nil {
		t.Fatal(err)
	}
	if resp.Content != "cached" {
		t.Errorf("content %q (thinking blocks are not text)", resp.Content)
	}
	want := llm.Tokens{Input: 21 + 1800 + 188, Output: 393, CacheRead: 1800, CacheWrite: 188}
	if resp.Tokens != want {
		t.Errorf("tokens %+v, want %+v", resp.Tokens, want)
	}
}

func TestRequestMapping(t *testing.T) {
	f := newFakeAPI(t, nil)
	fn := newFunc(t, f, Config{Model: "claude-sonnet-4-5", Headers: map[string]string{"anthropic-beta": "some-beta-2025"}})
	req := adaptertest.Conversation("Count the items.", "```clojure\n(tool/stock {})\n```", "Value: 3")
	if _, err := fn(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	reqs := f.requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	r := reqs[0]
	if r.path != "/v1/messages" {
		t.Errorf("path %q", r.path)
	}
	for k, want := range map[string]string{"X-Api-Key": "sk-ant-test", "Anthropic-Version": "2023-06-01",
		"Anthropic-Beta": "some-beta-2025", "Content-Type": "application/json"} {
		if got := r.header.Get(k); got != want {
			t.Errorf("header %s = %q, want %q", k, got, want)
		}
	}
	if r.header.Get("X-Stainless-Retry-Count") != "0" {
		t.Errorf("retry count header %q", r.header.Get("X-Stainless-Retry-Count"))
	}
	b := r.body
	if b["model"] != "claude-sonnet-4-5" || b["max_tokens"] != float64(4096) {
		t.Errorf("model %v, max_tokens %v", b["model"], b["max_tokens"])
	}
	for _, k := range []string{"temperature", "top_p", "top_k", "stop_sequences", "stream", "tools"} {
		if _, ok := b[k]; ok {
			t.Errorf("unexpected %s: %v", k, b[k])
		}
	}
	wantSystem := `[{"text":"You write PTC-Lisp.","type":"text"}]`
	if got := compact(t, b["system"]); got != wantSystem {
		t.Errorf("system %s, want %s", got, wantSystem)
	}
	wantMsgs := `[{"content":[{"text":"Count the items.","type":"text"}],"role":"user"},` +
		`{"content":[{"text":"` + "```clojure\\n(tool/stock {})\\n```" + `","type":"text"}],"role":"assistant"},` +
		`{"content":[{"text":"Value: 3","type":"text"}],"role":"user"}]`
	if got := compact(t, b["messages"]); got != wantMsgs {
		t.Errorf("messages\n%s\nwant\n%s", got, wantMsgs)
	}
}

func TestOptions(t *testing.T) {
	f := newFakeAPI(t, nil)
	temp := 0.5
	fn := newFunc(t, f, Config{MaxTokens: 1000, Temperature: &temp})
	call := func(opts map[string]any) map[string]any {
		t.Helper()
		req := adaptertest.Conversation("x")
		req.Options = opts
		if _, err := fn(context.Background(), req); err != nil {
			t.Fatal(err)
		}
		reqs := f.requests()
		return reqs[len(reqs)-1].body
	}
	b := call(nil)
	if b["max_tokens"] != float64(1000) || b["temperature"] != 0.5 {
		t.Errorf("config defaults: max_tokens %v, temperature %v", b["max_tokens"], b["temperature"])
	}
	b = call(map[string]any{"temperature": 0.0, "max_tokens": float64(256), "top_p": 0.9, "top_k": 40, "stop": "END"})
	if b["max_tokens"] != float64(256) || b["temperature"] != 0.0 || b["top_p"] != 0.9 || b["top_k"] != float64(40) ||
		compact(t, b["stop_sequences"]) != `["END"]` {
		t.Errorf("options: %s", compact(t, b))
	}
	b = call(map[string]any{"stop": []any{"A", "B"}, "max_tokens": json.Number("12"), "temperature": nil})
	if compact(t, b["stop_sequences"]) != `["A","B"]` || b["max_tokens"] != float64(12) || b["temperature"] != 0.5 {
		t.Errorf("options: %s", compact(t, b))
	}
	b = call(map[string]any{"stop": []string{"C"}, "temperature": float32(1)})
	if compact(t, b["stop_sequences"]) != `["C"]` || b["temperature"] != 1.0 {
		t.Errorf("options: %s", compact(t, b))
	}
}

func TestCacheBreakpoints(t *testing.T) {
	f := newFakeAPI(t, nil)
	fn := newFunc(t, f, Config{})
	send := func(req llm.Request) received {
		t.Helper()
		if _, err := fn(context.Background(), req); err != nil {
			t.Fatal(err)
		}
		reqs := f.requests()
		return reqs[len(reqs)-1]
	}
	ephemeral := `{"type":"ephemeral"}`

	// Turn 3 of a mission: the system prompt and the end of turn 2.
	req := adaptertest.Conversation("mission", "program 1", "feedback 1", "program 2", "feedback 2")
	req.Cache = true
	r := send(req)
	system := r.body["system"].([]any)
	if got := compact(t, system[len(system)-1].(map[string]any)["cache_control"]); got != ephemeral {
		t.Errorf("system cache_control %s", got)
	}
	msgs := r.body["messages"].([]any)
	for i, m := range msgs {
		block := m.(map[string]any)["content"].([]any)[0].(map[string]any)
		cc, ok := block["cache_control"]
		if want := i == 3; ok != want {
			t.Errorf("message %d: cache_control %v, want it %v", i, cc, want)
		} else if ok && compact(t, cc) != ephemeral {
			t.Errorf("message %d: cache_control %s", i, compact(t, cc))
		}
	}
	if n := strings.Count(r.raw, "cache_control"); n != 2 {
		t.Errorf("%d breakpoints, want 2 (the API allows 4)", n)
	}

	// Turn 1: only the system prompt.
	req = adaptertest.Conversation("mission")
	req.Cache = true
	r = send(req)
	if n := strings.Count(r.raw, "cache_control"); n != 1 || !strings.Contains(compact(t, r.body["system"]), "cache_control") {
		t.Errorf("turn 1: %s", r.raw)
	}

	// Cache off: none.
	req = adaptertest.Conversation("mission", "program 1", "feedback 1")
	r = send(req)
	if strings.Contains(r.raw, "cache_control") {
		t.Errorf("cache off: %s", r.raw)
	}
}

// A system message joins the system parameter.
func TestSystemMessage(t *testing.T) {
	f := newFakeAPI(t, nil)
	req := adaptertest.Conversation("x")
	req.Messages = append([]llm.Message{{Role: llm.System, Content: "Be brief."}}, req.Messages...)
	req.Cache = true
	if _, err := newFunc(t, f, Config{})(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	reqs := f.requests()
	want := `[{"text":"You write PTC-Lisp.","type":"text"},` +
		`{"cache_control":{"type":"ephemeral"},"text":"Be brief.","type":"text"}]`
	if got := compact(t, reqs[len(reqs)-1].body["system"]); got != want {
		t.Errorf("system %s", got)
	}
}

// The base URL comes from $ANTHROPIC_BASE_URL; $ANTHROPIC_AUTH_TOKEN is
// never sent (the suite checks the key's sources).
func TestEnvironment(t *testing.T) {
	f := newFakeAPI(t, nil)
	t.Setenv("ANTHROPIC_API_KEY", "sk-from-env")
	t.Setenv("ANTHROPIC_BASE_URL", f.URL)
	t.Setenv("ANTHROPIC_AUTH_TOKEN", "must-not-be-used")
	fn, err := New(Config{Model: "claude-haiku-4-5"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fn(context.Background(), adaptertest.Conversation("x")); err != nil {
		t.Fatal(err)
	}
	h := f.requests()[0].header
	if h.Get("X-Api-Key") != "sk-from-env" || h.Get("Authorization") != "" {
		t.Errorf("x-api-key %q, authorization %q", h.Get("X-Api-Key"), h.Get("Authorization"))
	}
}

func compact(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
