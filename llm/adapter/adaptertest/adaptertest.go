package adaptertest

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

// Case describes a provider adapter to Run: how to build
// it, and how its wire format reads and writes. The encoders live in the
// provider's own tests, so that this package stays on the standard library.
type Case struct {
	// Name is the provider's name, e.g. "openai".
	Name string
	// Model is an example model name, used when the suite needs one.
	Model string
	// Provider is the gen_ai.provider.name every llm.Response of the
	// adapter carries (llm.Response.Provider), with its configured model
	// as RequestModel, a failed call's included.
	Provider string
	// KeyOptional reports whether the adapter runs without an API key (a
	// local server); when false, New fails without one.
	KeyOptional bool
	// Env lists the environment variables the adapter (or its SDK) reads;
	// the suite clears them in every test.
	Env []string
	// KeyEnv is the environment variable the key comes from when the
	// configuration has none.
	KeyEnv string
	// KeyHeader is the header the key travels in, KeyPrefix what precedes
	// it there ("Bearer ").
	KeyHeader, KeyPrefix string
	// Path is the path a call for Model goes to.
	Path string
	// New builds the adapter. BaseURL is the fake server's root: New adds
	// the API's path prefix when the provider's base URL has one.
	New func(cfg Config) (llm.Func, error)
	// Reply encodes a successful reply holding text, which the adapter
	// must read back as exactly text and tokens (CacheWrite is zero).
	Reply func(text string, tokens llm.Tokens) string
	// ErrorBody encodes the provider's error body for status.
	ErrorBody func(status int, message string) string
	// Messages decodes a request body into the conversation sent: the
	// system prompt as a System message first, then the others with
	// llm's roles.
	Messages func(t *testing.T, body []byte) []llm.Message
	// Options decodes a request body into the sampling options sent,
	// under llm's option names (max_tokens, temperature, top_p, stop), the
	// values as encoding/json decodes them; stop as a list.
	Options func(t *testing.T, body []byte) map[string]any
	// ConfigReason and OptionsReason are the Reasons of the *llm.Error
	// for a bad Config and for bad Request.Options.
	ConfigReason, OptionsReason string
	// ErrorPrefix, when set, starts the message of every HTTP error.
	ErrorPrefix string
	// BadOptions are the provider's own invalid options, beside the
	// suite's; each error's message must contain Word.
	BadOptions []BadOption
	// Errors are the provider's recorded error replies and what each
	// must become; Malformed, its unreadable replies.
	Errors, Malformed []ErrorCase
}

// Config is what the suite asks of an adapter's configuration.
type Config struct {
	Model, APIKey, BaseURL string
	Headers                map[string]string
	HTTPClient             *http.Client
	MaxTokens              int
	Temperature            *float64
}

// Reply is what the fake server answers: a status (default 200),
// headers (Content-Type default application/json) and a body.
type Reply struct {
	Status int
	Header map[string]string
	Body   string
}

// ErrorCase is a reply that fails the call, and the *llm.Error it must
// become.
type ErrorCase struct {
	Name       string
	Reply      Reply
	Class      llm.Class
	Status     int // the error's Status; 0 means Reply's status (200 when unset), -1 none
	Reason     string
	RetryAfter time.Duration
	Message    string // a part of the message
}

// BadOption is an invalid Request.Options and a word its error must name.
type BadOption struct {
	Options map[string]any
	Word    string
}

// Received is a request the fake server got.
type Received struct {
	Method, Path, Query string
	Header              http.Header
	Body                []byte
	// JSON is Body decoded, when it is a JSON object; nil otherwise.
	JSON map[string]any
}

// Server is a fake provider endpoint: it records every request and
// answers with Respond's reply.
type Server struct {
	*httptest.Server
	mu       sync.Mutex
	requests []Received
}

// NewServer starts a fake endpoint, closed when the test ends. respond
// answers request n (from 0).
func NewServer(t testing.TB, respond func(n int, r Received) Reply) *Server {
	t.Helper()
	s := newServer(respond)
	t.Cleanup(s.Close)
	return s
}

// Serve starts a fake endpoint that answers every request with body (as
// application/json); the caller closes it. It is NewServer for examples,
// which have no testing.T.
func Serve(body string) *Server {
	return newServer(always(Reply{Body: body}))
}

func newServer(respond func(n int, r Received) Reply) *Server {
	s := &Server{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		rec := Received{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Header: r.Header.Clone(), Body: raw}
		_ = json.Unmarshal(raw, &rec.JSON)
		s.mu.Lock()
		n := len(s.requests)
		s.requests = append(s.requests, rec)
		s.mu.Unlock()
		rep := respond(n, rec)
		if rep.Status == 0 {
			rep.Status = http.StatusOK
		}
		if _, ok := rep.Header["Content-Type"]; !ok {
			w.Header().Set("Content-Type", "application/json")
		}
		for k, v := range rep.Header {
			w.Header().Set(k, v)
		}
		w.WriteHeader(rep.Status)
		_, _ = io.WriteString(w, rep.Body)
	}))
	return s
}

// Calls returns the number of requests so far.
func (s *Server) Calls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.requests)
}

// Request returns request i (from 0).
func (s *Server) Request(i int) Received {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests[i]
}

// slowServer answers only when the client gives up or the test ends;
// arrived gets a value when a request has come.
func slowServer(t *testing.T) (*Server, <-chan struct{}) {
	t.Helper()
	arrived := make(chan struct{}, 1)
	release := make(chan struct{})
	s := &Server{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Reading the body to its end lets the server notice the client
		// hanging up: r.Context() then ends.
		_, _ = io.Copy(io.Discard, r.Body)
		s.mu.Lock()
		s.requests = append(s.requests, Received{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone()})
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
func closeServer(t *testing.T, s *Server) {
	t.Helper()
	done := make(chan struct{})
	go func() { s.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Error("the server's handler did not see the request end")
	}
}

// suiteKey is the API key of the suite; no error may show it.
const suiteKey = "sk-suite-0123456789abcdef-secret"

// Run runs the checks every provider adapter must pass against
// a fake server speaking its wire format: the reply and its tokens, the
// request (conversation, key, headers, defaults, options), option and
// configuration errors, HTTP errors and their classes, one HTTP request per
// call (retries are the agent's), malformed replies, deadlines and
// cancellation, the environment, concurrent use; no error shows the key.
func Run(t *testing.T, c Case) {
	a := &adapterSuite{c: c}
	t.Run("Success", a.success)
	t.Run("CachedTokens", a.cachedTokens)
	t.Run("Names", a.names)
	t.Run("RequestMapping", a.requestMapping)
	t.Run("DefaultsAndOptions", a.defaultsAndOptions)
	t.Run("InvalidOptions", a.invalidOptions)
	t.Run("ConfigErrors", a.configErrors)
	t.Run("UnknownRole", a.unknownRole)
	t.Run("HTTPErrors", a.httpErrors)
	t.Run("OneRequestPerCall", a.oneRequestPerCall)
	t.Run("Malformed", a.malformed)
	t.Run("KeyEchoRedacted", a.keyEchoRedacted)
	t.Run("Deadline", a.deadline)
	t.Run("Cancel", a.cancel)
	t.Run("DoneContext", a.doneContext)
	t.Run("HTTPClientTimeout", a.httpClientTimeout)
	t.Run("HTTPClient", a.httpClient)
	t.Run("ConnectionRefused", a.connectionRefused)
	t.Run("Environment", a.environment)
	t.Run("Concurrent", a.concurrent)
}

type adapterSuite struct{ c Case }

func (a *adapterSuite) isolate(t *testing.T) {
	for _, k := range a.c.Env {
		t.Setenv(k, "")
	}
}

// open builds the adapter on s with the suite's key and example model
// where cfg has none.
func (a *adapterSuite) open(t *testing.T, s *Server, cfg Config) llm.Func {
	t.Helper()
	a.isolate(t)
	if cfg.Model == "" {
		cfg.Model = a.c.Model
	}
	if cfg.BaseURL == "" {
		cfg.BaseURL = s.URL
	}
	if cfg.APIKey == "" {
		cfg.APIKey = suiteKey
	}
	fn, err := a.c.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return fn
}

func (a *adapterSuite) ok(text string) func(int, Received) Reply {
	body := a.c.Reply(text, llm.Tokens{Input: 1, Output: 1})
	return func(int, Received) Reply { return Reply{Body: body} }
}

func always(rep Reply) func(int, Received) Reply {
	return func(int, Received) Reply { return rep }
}

// Conversation is a request as an agent sends it: the system prompt "You
// write PTC-Lisp.", the mission msgs[0] (also the Prompt), then alternating
// model replies and feedback; Turn counts the mission's turns.
func Conversation(msgs ...string) llm.Request {
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

// AsError asserts that err is an *llm.Error and that neither it nor an
// error it wraps shows any of secrets (API keys), and returns it.
func AsError(t testing.TB, err error, secrets ...string) *llm.Error {
	t.Helper()
	if err == nil {
		t.Fatal("no error")
	}
	var e *llm.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T) is not an *llm.Error", err, err)
	}
	for u := err; u != nil; u = errors.Unwrap(u) {
		for _, secret := range secrets {
			if strings.Contains(u.Error(), secret) {
				t.Errorf("the error shows a secret: %q", u.Error())
				return e
			}
		}
	}
	return e
}

// asError is AsError for the suite's key.
func asError(t *testing.T, err error) *llm.Error {
	t.Helper()
	return AsError(t, err, suiteKey)
}

func (a *adapterSuite) success(t *testing.T) {
	text := "```clojure\n(+ 1 2)\n```"
	tokens := llm.Tokens{Input: 1234, Output: 56}
	s := NewServer(t, always(Reply{Body: a.c.Reply(text, tokens)}))
	resp, err := a.open(t, s, Config{})(context.Background(), Conversation("Add 1 and 2."))
	if err != nil {
		t.Fatal(err)
	}
	if resp.Content != text || resp.Tokens != tokens {
		t.Errorf("reply %q %+v, want %q %+v", resp.Content, resp.Tokens, text, tokens)
	}
	if s.Calls() != 1 {
		t.Fatalf("%d requests, want 1", s.Calls())
	}
	if got := s.Request(0); got.Method != http.MethodPost || got.Path != a.c.Path {
		t.Errorf("%s %s, want POST %s", got.Method, got.Path, a.c.Path)
	}
}

// Every reply names the provider and the model asked for, a failed one
// too; the model that answered (the reply's own) never replaces it.
func (a *adapterSuite) names(t *testing.T) {
	if a.c.Provider == "" {
		t.Fatal("Case.Provider is not set")
	}
	for name, rep := range map[string]Reply{
		"success":    {Body: a.c.Reply("ok", llm.Tokens{Input: 1, Output: 1})},
		"rate limit": {Status: 429, Body: a.c.ErrorBody(429, "slow down")},
	} {
		t.Run(name, func(t *testing.T) {
			s := NewServer(t, always(rep))
			resp, err := a.open(t, s, Config{})(context.Background(), Conversation("hi"))
			if (err != nil) != (rep.Status != 0) {
				t.Fatalf("error %v", err)
			}
			if resp.Provider != a.c.Provider || resp.RequestModel != a.c.Model {
				t.Errorf("provider %q, request model %q; want %q, %q", resp.Provider, resp.RequestModel, a.c.Provider, a.c.Model)
			}
		})
	}
}

// Cached input tokens are CacheRead, and part of Input.
func (a *adapterSuite) cachedTokens(t *testing.T) {
	tokens := llm.Tokens{Input: 2048, Output: 12, CacheRead: 1920}
	s := NewServer(t, always(Reply{Body: a.c.Reply("ok", tokens)}))
	resp, err := a.open(t, s, Config{})(context.Background(), Conversation("hi"))
	if err != nil {
		t.Fatal(err)
	}
	if resp.Tokens != tokens {
		t.Errorf("tokens %+v, want %+v", resp.Tokens, tokens)
	}
}

func (a *adapterSuite) requestMapping(t *testing.T) {
	s := NewServer(t, a.ok("ok"))
	fn := a.open(t, s, Config{
		APIKey:      "sk-mapping-key",
		Headers:     map[string]string{"X-Title": "ptc tests", "HTTP-Referer": "https://example.com"},
		MaxTokens:   4096,
		Temperature: ptr(0.7),
	})
	req := Conversation("Find the total.", "```clojure\n(tool/stock {})\n```", "Value: 3")
	req.ToolNames = []string{"stock"}
	req.Cache = true
	if _, err := fn(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	if s.Calls() != 1 {
		t.Fatalf("%d requests, want 1", s.Calls())
	}
	got := s.Request(0)
	want := []llm.Message{
		{Role: llm.System, Content: "You write PTC-Lisp."},
		{Role: llm.User, Content: "Find the total."},
		{Role: llm.Assistant, Content: "```clojure\n(tool/stock {})\n```"},
		{Role: llm.User, Content: "Value: 3"},
	}
	if msgs := a.c.Messages(t, got.Body); !reflect.DeepEqual(msgs, want) {
		t.Errorf("messages\n%q\nwant\n%q", msgs, want)
	}
	opts := a.c.Options(t, got.Body)
	if opts["max_tokens"] != 4096.0 || opts["temperature"] != 0.7 {
		t.Errorf("options %v, want max_tokens 4096 and temperature 0.7", opts)
	}
	h := got.Header
	for k, v := range map[string]string{a.c.KeyHeader: a.c.KeyPrefix + "sk-mapping-key", "X-Title": "ptc tests",
		"HTTP-Referer": "https://example.com", "Content-Type": "application/json"} {
		if h.Get(k) != v {
			t.Errorf("header %s = %q, want %q", k, h.Get(k), v)
		}
	}
	if got.Query != "" {
		t.Errorf("query %q: the key travels in a header only", got.Query)
	}
}

// Without options, the Config's defaults are sent; a request's options
// override them, whatever their Go numeric type.
func (a *adapterSuite) defaultsAndOptions(t *testing.T) {
	s := NewServer(t, a.ok("ok"))
	ctx := context.Background()
	call := func(fn llm.Func, opts map[string]any) map[string]any {
		t.Helper()
		req := Conversation("x")
		req.Options = opts
		if _, err := fn(ctx, req); err != nil {
			t.Fatal(err)
		}
		return a.c.Options(t, s.Request(s.Calls()-1).Body)
	}
	fn := a.open(t, s, Config{MaxTokens: 1000, Temperature: ptr(0.0)})
	if o := call(fn, nil); o["max_tokens"] != 1000.0 || o["temperature"] != 0.0 {
		t.Errorf("defaults not sent: %v", o)
	}
	var fromJSON map[string]any
	if err := json.Unmarshal([]byte(`{"temperature":0.25,"max_tokens":64,"top_p":0.5,"stop":["a","b"]}`), &fromJSON); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		opts map[string]any
		want map[string]any
	}{
		{"from JSON", fromJSON, map[string]any{"temperature": 0.25, "max_tokens": 64.0, "top_p": 0.5, "stop": []any{"a", "b"}}},
		{"Go types", map[string]any{"temperature": 1, "max_tokens": int64(512), "stop": []string{"C"}},
			map[string]any{"temperature": 1.0, "max_tokens": 512.0, "stop": []any{"C"}}},
		{"json.Number and float32", map[string]any{"max_tokens": json.Number("12"), "top_p": float32(0.75)},
			map[string]any{"temperature": 0.0, "max_tokens": 12.0, "top_p": 0.75}},
	} {
		if o := call(fn, c.opts); !reflect.DeepEqual(o, c.want) {
			t.Errorf("%s: options sent %v, want %v", c.name, o, c.want)
		}
	}
}

func (a *adapterSuite) invalidOptions(t *testing.T) {
	s := NewServer(t, a.ok("ok"))
	fn := a.open(t, s, Config{})
	bad := append([]BadOption{
		{map[string]any{"temprature": 0.5, "max_tokens": 10}, `"temprature"`},
		{map[string]any{"temperature": "hot"}, `"temperature"`},
		{map[string]any{"temperature": math.Inf(1)}, `"temperature"`},
		{map[string]any{"max_tokens": 0}, `"max_tokens"`},
		{map[string]any{"max_tokens": 1.5}, `"max_tokens"`},
		{map[string]any{"max_tokens": -3}, `"max_tokens"`},
		{map[string]any{"max_tokens": "100"}, `"max_tokens"`},
		{map[string]any{"top_p": true}, `"top_p"`},
		{map[string]any{"stop": 3}, `"stop"`},
		{map[string]any{"stop": []any{"a", 1}}, `"stop"`},
	}, a.c.BadOptions...)
	for _, b := range bad {
		req := Conversation("hi")
		req.Options = b.Options
		_, err := fn(context.Background(), req)
		if e := asError(t, err); e.Class != llm.ClassConfig || e.Reason != a.c.OptionsReason || !strings.Contains(e.Message, b.Word) {
			t.Errorf("options %v: error %+v, want %s %s naming %s", b.Options, e, llm.ClassConfig, a.c.OptionsReason, b.Word)
		}
	}
	if s.Calls() != 0 {
		t.Errorf("%d requests made with bad options", s.Calls())
	}
}

func (a *adapterSuite) configErrors(t *testing.T) {
	a.isolate(t)
	for name, cfg := range map[string]Config{
		"no model":             {},
		"blank model":          {Model: "  "},
		"negative tokens":      {Model: a.c.Model, MaxTokens: -1},
		"infinite temperature": {Model: a.c.Model, Temperature: ptr(math.Inf(1))},
		"NaN temperature":      {Model: a.c.Model, Temperature: ptr(math.NaN())},
	} {
		cfg.APIKey = suiteKey
		fn, err := a.c.New(cfg)
		if fn != nil || err == nil {
			t.Errorf("%s: New = %v, %v; want an error", name, fn != nil, err)
			continue
		}
		if e := asError(t, err); e.Class != llm.ClassConfig || e.Reason != a.c.ConfigReason {
			t.Errorf("%s: class %s reason %q, want %s %s", name, e.Class, e.Reason, llm.ClassConfig, a.c.ConfigReason)
		}
	}
	if _, err := a.c.New(Config{APIKey: suiteKey}); err == nil || !strings.Contains(err.Error(), "Model is required") {
		t.Errorf("error %v does not say the model is required", err)
	}
}

func (a *adapterSuite) unknownRole(t *testing.T) {
	s := NewServer(t, a.ok("ok"))
	req := Conversation("hi")
	req.Messages = append(req.Messages, llm.Message{Role: "tool", Content: "x"})
	_, err := a.open(t, s, Config{})(context.Background(), req)
	if e := asError(t, err); e.Class != llm.ClassClientError || !strings.Contains(e.Message, `"tool"`) {
		t.Errorf("error %+v, want a client error naming the role", e)
	}
	if s.Calls() != 0 {
		t.Errorf("%d requests", s.Calls())
	}
}

func (a *adapterSuite) httpErrors(t *testing.T) {
	for _, c := range a.c.Errors {
		t.Run(c.Name, func(t *testing.T) {
			s := NewServer(t, always(c.Reply))
			_, err := a.open(t, s, Config{})(context.Background(), Conversation("hi"))
			a.checkError(t, s, err, c)
			e := asError(t, err)
			if !strings.HasPrefix(e.Message, a.c.ErrorPrefix) {
				t.Errorf("message %q does not start with %q", e.Message, a.c.ErrorPrefix)
			}
			if e.Err == nil {
				t.Errorf("no underlying error")
			}
		})
	}
}

func (a *adapterSuite) checkError(t *testing.T, s *Server, err error, c ErrorCase) {
	t.Helper()
	e := asError(t, err)
	status := c.Status
	if status == 0 {
		status = c.Reply.Status
	}
	switch status {
	case 0:
		status = http.StatusOK
	case -1:
		status = 0
	}
	if e.Class != c.Class || e.Status != status || e.RetryAfter != c.RetryAfter || e.Reason != c.Reason {
		t.Errorf("got class %s status %d retry-after %v reason %q; want %s %d %v %q",
			e.Class, e.Status, e.RetryAfter, e.Reason, c.Class, status, c.RetryAfter, c.Reason)
	}
	if !strings.Contains(e.Message, c.Message) {
		t.Errorf("message %q does not contain %q", e.Message, c.Message)
	}
	if llm.Classify(err) != e {
		t.Errorf("llm.Classify does not return the adapter's error")
	}
	// Retries are the agent's: one HTTP request, whatever the status.
	if s.Calls() != 1 {
		t.Errorf("%d HTTP requests, want 1", s.Calls())
	}
}

// The SDKs retry 408, 429 and 5xx by default (sooner when the server says
// x-should-retry); the adapters turn that off: a call is one request.
func (a *adapterSuite) oneRequestPerCall(t *testing.T) {
	for _, status := range []int{408, 429, 500, 503, 504, 529} {
		t.Run(strconv.Itoa(status), func(t *testing.T) {
			s := NewServer(t, always(Reply{Status: status,
				Header: map[string]string{"x-should-retry": "true", "retry-after-ms": "1", "Retry-After": "0"},
				Body:   a.c.ErrorBody(status, http.StatusText(status))}))
			fn := a.open(t, s, Config{})
			for range 3 {
				if _, err := fn(context.Background(), Conversation("hi")); asError(t, err).Status != status {
					t.Fatalf("error %v, want status %d", err, status)
				}
			}
			if s.Calls() != 3 {
				t.Errorf("%d HTTP requests for 3 calls, want 3", s.Calls())
			}
		})
	}
}

func (a *adapterSuite) malformed(t *testing.T) {
	for _, c := range a.c.Malformed {
		t.Run(c.Name, func(t *testing.T) {
			s := NewServer(t, always(c.Reply))
			resp, err := a.open(t, s, Config{})(context.Background(), Conversation("hi"))
			if err == nil {
				t.Fatalf("no error; reply %+v", resp)
			}
			a.checkError(t, s, err, c)
		})
	}
}

// A server that echoes the key in its error: the message redacts it.
func (a *adapterSuite) keyEchoRedacted(t *testing.T) {
	s := NewServer(t, always(Reply{Status: 400, Body: a.c.ErrorBody(400, "bad request from key "+suiteKey)}))
	_, err := a.open(t, s, Config{})(context.Background(), Conversation("hi"))
	if e := asError(t, err); e.Class != llm.ClassClientError || !strings.Contains(err.Error(), "[redacted]") {
		t.Errorf("error %q (class %s): the key must show as [redacted]", err, e.Class)
	}
}

func (a *adapterSuite) deadline(t *testing.T) {
	a.interrupted(t, llm.ClassTimeout, context.DeadlineExceeded, func(<-chan struct{}) (context.Context, context.CancelFunc) {
		return context.WithTimeout(context.Background(), 200*time.Millisecond)
	})
}

func (a *adapterSuite) cancel(t *testing.T) {
	a.interrupted(t, llm.ClassCancelled, context.Canceled, func(arrived <-chan struct{}) (context.Context, context.CancelFunc) {
		ctx, cancel := context.WithCancel(context.Background())
		go func() {
			<-arrived
			cancel()
		}()
		return ctx, cancel
	})
}

// interrupted calls a slow server in the context start returns (given a
// channel that gets a value when the request has arrived): the call ends
// with an error of class wrapping cause, after one request, and the
// server's handler sees the request end.
func (a *adapterSuite) interrupted(t *testing.T, class llm.Class, cause error,
	start func(arrived <-chan struct{}) (context.Context, context.CancelFunc)) {
	s, arrived := slowServer(t)
	fn := a.open(t, s, Config{})
	ctx, cancel := start(arrived)
	defer cancel()
	_, err := fn(ctx, Conversation("hi"))
	if e := asError(t, err); e.Class != class || !errors.Is(err, cause) {
		t.Errorf("error %v (class %s), want %s wrapping %v", err, e.Class, class, cause)
	}
	if s.Calls() != 1 {
		t.Errorf("%d requests, want 1", s.Calls())
	}
	closeServer(t, s)
}

// A context already done: no request at all.
func (a *adapterSuite) doneContext(t *testing.T) {
	s := NewServer(t, a.ok("ok"))
	fn := a.open(t, s, Config{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := fn(ctx, Conversation("hi"))
	if e := asError(t, err); e.Class != llm.ClassCancelled {
		t.Errorf("class %s, want %s", e.Class, llm.ClassCancelled)
	}
	ctx, cancel = context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	_, err = fn(ctx, Conversation("hi"))
	if e := asError(t, err); e.Class != llm.ClassTimeout {
		t.Errorf("class %s, want %s", e.Class, llm.ClassTimeout)
	}
	if s.Calls() != 0 {
		t.Errorf("%d requests", s.Calls())
	}
}

// The http.Client's own timeout is a Timeout too.
func (a *adapterSuite) httpClientTimeout(t *testing.T) {
	s, _ := slowServer(t)
	fn := a.open(t, s, Config{HTTPClient: &http.Client{Timeout: 200 * time.Millisecond}})
	_, err := fn(context.Background(), Conversation("hi"))
	if e := asError(t, err); e.Class != llm.ClassTimeout {
		t.Errorf("error %v, class %s, want %s", err, e.Class, llm.ClassTimeout)
	}
	closeServer(t, s)
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// The configured HTTP client makes the requests.
func (a *adapterSuite) httpClient(t *testing.T) {
	s := NewServer(t, a.ok("ok"))
	var mu sync.Mutex
	used := 0
	client := &http.Client{Transport: roundTripper(func(r *http.Request) (*http.Response, error) {
		mu.Lock()
		used++
		mu.Unlock()
		return http.DefaultTransport.RoundTrip(r)
	})}
	if _, err := a.open(t, s, Config{HTTPClient: client})(context.Background(), Conversation("hi")); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if used != 1 || s.Calls() != 1 {
		t.Errorf("the client made %d requests, the server got %d; want 1 and 1", used, s.Calls())
	}
}

// A server that is not there: a Network error, not a panic, not a retry
// loop.
func (a *adapterSuite) connectionRefused(t *testing.T) {
	s := NewServer(t, a.ok("ok"))
	base := s.URL
	s.Close()
	fn := a.open(t, s, Config{BaseURL: base})
	_, err := fn(context.Background(), Conversation("hi"))
	if e := asError(t, err); e.Class != llm.ClassNetwork || e.Err == nil || !strings.Contains(err.Error(), "connection refused") {
		t.Errorf("error %v (%+v), want %s saying the connection was refused", err, e, llm.ClassNetwork)
	}
}

// The key comes from the environment when the configuration has none, and
// the configuration wins; without a key anywhere, an adapter whose key is
// optional sends none, the others refuse to start.
func (a *adapterSuite) environment(t *testing.T) {
	s := NewServer(t, a.ok("ok"))
	ctx := context.Background()
	a.isolate(t)
	t.Setenv(a.c.KeyEnv, "key-from-env")
	for i, c := range []struct{ config, want string }{{"", "key-from-env"}, {"key-from-config", "key-from-config"}} {
		fn, err := a.c.New(Config{Model: a.c.Model, APIKey: c.config, BaseURL: s.URL})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := fn(ctx, Conversation("hi")); err != nil {
			t.Fatal(err)
		}
		if h := s.Request(i).Header.Get(a.c.KeyHeader); h != a.c.KeyPrefix+c.want {
			t.Errorf("%s %q, want %q", a.c.KeyHeader, h, a.c.KeyPrefix+c.want)
		}
	}

	t.Setenv(a.c.KeyEnv, "")
	fn, err := a.c.New(Config{Model: a.c.Model, BaseURL: s.URL})
	if !a.c.KeyOptional {
		if e := asError(t, err); e.Class != llm.ClassConfig || e.Reason != a.c.ConfigReason {
			t.Errorf("no key: %+v", e)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fn(ctx, Conversation("hi")); err != nil {
		t.Fatal(err)
	}
	if h := s.Request(2).Header.Get(a.c.KeyHeader); h != "" {
		t.Errorf("%s %q sent without a key", a.c.KeyHeader, h)
	}
}

// The Func is safe for concurrent use (run with -race): each caller gets
// its own reply, rate limits included.
func (a *adapterSuite) concurrent(t *testing.T) {
	s := NewServer(t, func(n int, r Received) Reply {
		msgs := a.c.Messages(t, r.Body)
		if n%4 == 0 {
			return Reply{Status: 429, Header: map[string]string{"Retry-After": "17"}, Body: a.c.ErrorBody(429, "slow down")}
		}
		return Reply{Body: a.c.Reply("echo: "+msgs[len(msgs)-1].Content, llm.Tokens{Input: 10, Output: 2})}
	})
	fn := a.open(t, s, Config{})
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for i := range 16 {
		wg.Go(func() {
			msg := "call " + strconv.Itoa(i)
			req := Conversation(msg)
			req.Cache = true
			resp, err := fn(context.Background(), req)
			var e *llm.Error
			switch {
			case errors.As(err, &e) && e.Class == llm.ClassRateLimit && e.RetryAfter == 17*time.Second:
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
	if s.Calls() != 16 {
		t.Errorf("%d requests, want 16", s.Calls())
	}
}

func ptr[T any](v T) *T { return &v }
