package provider_test

// Hostile provider endpoints, against every adapter: a server that echoes
// the request's headers in its errors, one that redirects the call to
// another host, one that floods the reply, one that trickles it. The
// guarantees are docs/models.md's "What a provider endpoint is trusted
// with".

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/agent/trace"
	"github.com/ptc-go/ptc/llm"
	"github.com/ptc-go/ptc/llm/adapter"
	"github.com/ptc-go/ptc/llm/adapter/adaptertest"
	"github.com/ptc-go/ptc/llm/anthropic"
	"github.com/ptc-go/ptc/llm/gemini"
	"github.com/ptc-go/ptc/llm/openai"
)

// The credentials the hostile tests configure: an API key and a
// credential-looking extra header (an Azure-style api-key, a gateway's
// token, a cookie, a Basic authorization).
const (
	hostileKey    = "sk-hostile-5f3c9a7e1b2d4c6e8f0a1b3c5d7e9f11"
	hostileAPIKey = "azure-key-0a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d"
	hostileToken  = "gw-token-77e1d2c3b4a5968778695a4b3c2d1e0f"
	hostileCookie = "sessid-c0ffee00deadbeef1234567890abcdef"
	hostileUser   = "gateway-user"
	hostilePass   = "gw-pass-31415926535897932384626433832795"
)

func hostileHeaders() map[string]string {
	return map[string]string{
		"Api-Key":             hostileAPIKey,
		"X-Gateway-Token":     hostileToken,
		"Cookie":              "theme=dark; session=" + hostileCookie,
		"Proxy-Authorization": "Basic " + base64.StdEncoding.EncodeToString([]byte(hostileUser+":"+hostilePass)),
		"X-Title":             "ptc hostile test", // not a credential: it may show
	}
}

// secretTexts are what must never show in an error: each credential, and
// the first 12 bytes of each (a message cut in the middle of a key).
func secretTexts() []string {
	var out []string
	for _, s := range []string{hostileKey, hostileAPIKey, hostileToken, hostileCookie, hostilePass,
		base64.StdEncoding.EncodeToString([]byte(hostileUser + ":" + hostilePass)), url.QueryEscape(hostileKey)} {
		out = append(out, s, s[:12])
	}
	return out
}

// adapterCase opens one adapter on a server.
type adapterCase struct {
	name string
	// credHeader is the header the adapter sends its key in.
	credHeader string
	// build builds the adapter on base with the hostile credentials.
	build func(base string, hc *http.Client, maxBytes int64) (llm.Func, error)
	// okBody is a well-formed reply holding text.
	okBody func(text string) string
}

func (c adapterCase) open(t *testing.T, base string, hc *http.Client, maxBytes int64) llm.Func {
	t.Helper()
	f, err := c.build(base, hc, maxBytes)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func adapters() []adapterCase {
	return []adapterCase{
		{"openai", "Authorization", func(base string, hc *http.Client, maxBytes int64) (llm.Func, error) {
			return openai.New(openai.Config{Model: "gpt-4.1-mini", APIKey: hostileKey, BaseURL: base,
				Headers: hostileHeaders(), HTTPClient: hc, MaxResponseBytes: maxBytes})
		}, func(text string) string {
			b, _ := json.Marshal(map[string]any{"id": "c1", "object": "chat.completion", "model": "m",
				"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
					"message": map[string]any{"role": "assistant", "content": text}}},
				"usage": map[string]any{"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}})
			return string(b)
		}},
		{"anthropic", "X-Api-Key", func(base string, hc *http.Client, maxBytes int64) (llm.Func, error) {
			return anthropic.New(anthropic.Config{Model: "claude-sonnet-4-5", APIKey: hostileKey, BaseURL: base,
				Headers: hostileHeaders(), HTTPClient: hc, MaxResponseBytes: maxBytes})
		}, func(text string) string {
			b, _ := json.Marshal(map[string]any{"id": "msg_1", "type": "message", "role": "assistant", "model": "m",
				"content": []any{map[string]any{"type": "text", "text": text}}, "stop_reason": "end_turn",
				"usage": map[string]any{"input_tokens": 1, "output_tokens": 1}})
			return string(b)
		}},
		{"gemini", "X-Goog-Api-Key", func(base string, hc *http.Client, maxBytes int64) (llm.Func, error) {
			return gemini.New(context.Background(), gemini.Config{Model: "gemini-2.5-flash", APIKey: hostileKey,
				BaseURL: base, Headers: hostileHeaders(), HTTPClient: hc, MaxResponseBytes: maxBytes})
		}, func(text string) string {
			b, _ := json.Marshal(map[string]any{"candidates": []any{map[string]any{"finishReason": "STOP",
				"content": map[string]any{"role": "model", "parts": []any{map[string]any{"text": text}}}}},
				"usageMetadata": map[string]any{"promptTokenCount": 1, "candidatesTokenCount": 1}, "modelVersion": "m"})
			return string(b)
		}},
	}
}

// isolateEnv clears the variables the adapters read, so that only the
// Config speaks.
func isolateEnv(t *testing.T) {
	for _, v := range []string{"OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL",
		"GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_GEMINI_BASE_URL", "GOOGLE_GENAI_USE_VERTEXAI"} {
		t.Setenv(v, "")
	}
}

// dumpHeaders writes the request's headers as a proxy's debug page does.
func dumpHeaders(h http.Header) string {
	names := make([]string, 0, len(h))
	for k := range h {
		names = append(names, k)
	}
	sort.Strings(names)
	var sb strings.Builder
	for _, k := range names {
		fmt.Fprintf(&sb, "%s: %s\n", k, strings.Join(h[k], ", "))
	}
	return sb.String()
}

// echoBodies are the ways a server echoes the request's headers.
var echoBodies = []struct {
	name   string
	status int
	ctype  string
	body   func(h http.Header) string
}{
	{"401 JSON error", 401, "application/json", func(h http.Header) string {
		b, _ := json.Marshal(map[string]any{"type": "error", "error": map[string]any{
			"type": "authentication_error", "code": "invalid_api_key", "status": "UNAUTHENTICATED", "message": "bad credentials; you sent:\n" + dumpHeaders(h)}})
		return string(b)
	}},
	{"500 text page", 500, "text/plain", func(h http.Header) string { return "upstream failed; request was:\n" + dumpHeaders(h) }},
	{"502 JSON headers", 502, "application/json", func(h http.Header) string {
		b, _ := json.Marshal(map[string]any{"error": "bad gateway", "headers": h})
		return string(b)
	}},
	// The key 250 bytes in: an adapter's excerpt of the body cuts it.
	{"500 cut echo", 500, "text/html", func(h http.Header) string {
		return strings.Repeat("x", 250) + dumpHeaders(h) + strings.Repeat("y", 5000)
	}},
	// A 200 that is no reply: the malformed-reply message quotes it.
	{"200 malformed", 200, "application/json", func(h http.Header) string {
		b, _ := json.Marshal(map[string]any{"candidates": "x", "choices": "x", "content": 3, "headers": dumpHeaders(h)})
		return string(b)
	}},
	{"200 error object", 200, "application/json", func(h http.Header) string {
		b, _ := json.Marshal(map[string]any{"error": map[string]any{"message": "upstream: " + dumpHeaders(h), "code": 502}})
		return string(b)
	}},
	{"429 URL-escaped", 429, "application/json", func(h http.Header) string {
		q := url.Values{}
		for k, v := range h {
			q.Set(k, strings.Join(v, ","))
		}
		b, _ := json.Marshal(map[string]any{"error": map[string]any{"message": "rate limited: " + q.Encode()}})
		return string(b)
	}},
}

// assertNoSecret fails when a text shows a credential.
func assertNoSecret(t *testing.T, what, text string) {
	t.Helper()
	for _, s := range secretTexts() {
		if strings.Contains(text, s) {
			t.Errorf("%s shows the credential %q:\n%.2000s", what, s, text)
			return
		}
	}
}

// errorTexts are the texts of err and of every error it wraps.
func errorTexts(err error) string {
	var sb strings.Builder
	for e := err; e != nil; e = errors.Unwrap(e) {
		sb.WriteString(e.Error())
		sb.WriteString("\n")
		fmt.Fprintf(&sb, "%+v\n%#v\n", e, e)
	}
	return sb.String()
}

// TestHostileEchoRedacted: whatever the server echoes of the request's
// credentials, no adapter's error shows them: not the API key, not a
// credential header's value, not a cut prefix of one, not an encoding of
// one.
func TestHostileEchoRedacted(t *testing.T) {
	isolateEnv(t)
	for _, ad := range adapters() {
		for _, eb := range echoBodies {
			t.Run(ad.name+"/"+eb.name, func(t *testing.T) {
				var sawKey atomic.Bool
				srv := adaptertest.NewServer(t, func(_ int, r adaptertest.Received) adaptertest.Reply {
					if strings.Contains(dumpHeaders(r.Header), hostileKey) {
						sawKey.Store(true)
					}
					return adaptertest.Reply{Status: eb.status, Header: map[string]string{"Content-Type": eb.ctype}, Body: eb.body(r.Header)}
				})
				f := ad.open(t, srv.URL, nil, 0)
				_, err := f(context.Background(), llm.Request{System: "s", Messages: []llm.Message{{Role: llm.User, Content: "hi"}}, Turn: 1})
				if err == nil {
					t.Fatal("no error")
				}
				if !sawKey.Load() {
					t.Fatal("the server never got the key: the test proves nothing")
				}
				assertNoSecret(t, "the error", errorTexts(err))
				var le *llm.Error
				if !errors.As(err, &le) {
					t.Fatalf("%T is not an *llm.Error", err)
				}
				assertNoSecret(t, "the error's reason", le.Reason)
				if len(err.Error()) > 8<<10 {
					t.Errorf("the error's text has %d bytes", len(err.Error()))
				}
				if eb.status == 401 && le.Class != llm.ClassAuth || eb.status >= 500 && le.Class != llm.ClassServerError {
					t.Errorf("class %s for HTTP %d", le.Class, eb.status)
				}
				if eb.status == 429 && (le.Class != llm.ClassRateLimit || !strings.Contains(err.Error(), "rate limited")) {
					t.Errorf("a 429's error: %v", err)
				}
			})
		}
	}
}

// TestHostileEchoReply: a reply whose text echoes the credentials comes
// back redacted.
func TestHostileEchoReply(t *testing.T) {
	isolateEnv(t)
	for _, ad := range adapters() {
		t.Run(ad.name, func(t *testing.T) {
			srv := adaptertest.NewServer(t, func(_ int, r adaptertest.Received) adaptertest.Reply {
				return adaptertest.Reply{Body: ad.okBody("you sent:\n" + dumpHeaders(r.Header))}
			})
			resp, err := ad.open(t, srv.URL, nil, 0)(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.User, Content: "hi"}}, Turn: 1})
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(resp.Content, "X-Title: ptc hostile test") {
				t.Errorf("the reply lost its text: %s", resp.Content)
			}
			assertNoSecret(t, "the reply", resp.Content)
		})
	}
}

// TestHostileEchoMission: through an agent's mission, the Step's Fail, its
// trace and the events show no credential.
func TestHostileEchoMission(t *testing.T) {
	isolateEnv(t)
	for _, ad := range adapters() {
		t.Run(ad.name, func(t *testing.T) {
			srv := adaptertest.NewServer(t, func(_ int, r adaptertest.Received) adaptertest.Reply {
				return adaptertest.Reply{Status: 500, Header: map[string]string{"Content-Type": "text/plain"},
					Body: "proxy error; request headers:\n" + dumpHeaders(r.Header)}
			})
			f := ad.open(t, srv.URL, nil, 0)
			var events strings.Builder
			a := agent.MustNew(agent.Config{Prompt: "Say hi", LLMRetry: llm.RetryPolicy{MaxAttempts: 2, BaseDelay: time.Millisecond}})
			step, err := a.Run(context.Background(), agent.Options{LLM: llm.Func(f), Trace: agent.TraceOn,
				Observers: []agent.Observer{trace.NewJSONLObserver(&events)}})
			if err == nil {
				t.Fatal("the mission did not fail")
			}
			assertNoSecret(t, "Run's error", err.Error())
			if step.Fail == nil || step.Fail.Reason != agent.ReasonLLMError {
				t.Fatalf("fail %+v", step.Fail)
			}
			if !strings.Contains(step.Fail.Message, "proxy error") {
				t.Errorf("the fail message lost the server's message: %s", step.Fail.Message)
			}
			raw, _ := json.Marshal(step)
			assertNoSecret(t, "the Step", string(raw)+step.Fail.Message+fmt.Sprint(step.Fail.Details))
			assertNoSecret(t, "the events", events.String())
			if !strings.Contains(events.String(), `"kind":"llm.exception"`) {
				t.Errorf("no llm.exception event:\n%s", events.String())
			}
		})
	}
}

// credentialServer records whether it got any request carrying a
// credential of the hostile tests.
type credentialServer struct {
	*httptest.Server
	requests, withCredential atomic.Int32
}

func newCredentialServer(t *testing.T, ok string) *credentialServer {
	cs := &credentialServer{}
	cs.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		cs.requests.Add(1)
		dump := dumpHeaders(r.Header) + r.URL.RawQuery
		for _, s := range secretTexts() {
			if strings.Contains(dump, s) {
				cs.withCredential.Add(1)
				break
			}
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, ok)
	}))
	t.Cleanup(cs.Close)
	return cs
}

// TestHostileRedirect: a redirect to another host (another port is
// another host) is refused, and the other host gets nothing, the
// credentials least of all; a redirect on the same host is followed. A
// caller's HTTPClient is guarded the same way, and left untouched.
func TestHostileRedirect(t *testing.T) {
	isolateEnv(t)
	for _, ad := range adapters() {
		for _, own := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/own client %v", ad.name, own), func(t *testing.T) {
				other := newCredentialServer(t, ad.okBody("from the other host"))
				var first atomic.Int32
				self := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					_, _ = io.Copy(io.Discard, r.Body)
					switch {
					case strings.HasPrefix(r.URL.Path, "/moved"):
						w.Header().Set("Content-Type", "application/json")
						_, _ = io.WriteString(w, ad.okBody("same host"))
					case first.Add(1) == 1:
						http.Redirect(w, r, "/moved"+r.URL.Path, http.StatusTemporaryRedirect)
					default:
						http.Redirect(w, r, other.URL+r.URL.Path+"?leak="+url.QueryEscape(r.Header.Get(ad.credHeader)), http.StatusTemporaryRedirect)
					}
				}))
				defer self.Close()

				var hc *http.Client
				var theirs atomic.Int32
				var check func(*http.Request, []*http.Request) error
				if own {
					check = func(*http.Request, []*http.Request) error { theirs.Add(1); return nil }
					hc = &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone(), CheckRedirect: check}
				}
				transport := http.RoundTripper(nil)
				if hc != nil {
					transport = hc.Transport
				}
				f := ad.open(t, self.URL, hc, 0)
				req := llm.Request{Messages: []llm.Message{{Role: llm.User, Content: "hi"}}, Turn: 1}

				// The first call is redirected on the same host: followed.
				resp, err := f(context.Background(), req)
				if err != nil || resp.Content != "same host" {
					t.Fatalf("a redirect on the same host: %q, %v", resp.Content, err)
				}
				// The second is sent elsewhere: refused.
				resp, err = f(context.Background(), req)
				if err == nil {
					t.Fatalf("the redirect to another host was followed: %q", resp.Content)
				}
				var le *llm.Error
				if !errors.As(err, &le) || le.Class != llm.ClassClientError || le.Reason != adapter.ReasonRedirectRefused {
					t.Errorf("error %v (%#v), want class client_error, reason %s", err, le, adapter.ReasonRedirectRefused)
				}
				assertNoSecret(t, "the error", errorTexts(err))
				if n := other.requests.Load(); n != 0 {
					t.Errorf("the other host got %d requests (%d with a credential)", n, other.withCredential.Load())
				}
				if own {
					if hc.Transport != transport || fmt.Sprintf("%p", hc.CheckRedirect) != fmt.Sprintf("%p", check) {
						t.Error("the caller's client was changed")
					}
					if theirs.Load() != 1 {
						t.Errorf("the caller's CheckRedirect was called %d times, want 1 (the same-host redirect)", theirs.Load())
					}
				}
			})
		}
	}
}

// floodServer answers with a body of size bytes (a 200 whose reply text
// never ends, or an error page), written in 64 KiB chunks, and counts the
// bytes the connection took: what the client read, at most, plus what the
// sockets buffer.
type floodServer struct {
	*httptest.Server
	written atomic.Int64
	done    chan struct{}
}

func newFloodServer(t *testing.T, status int, prefix string, size int64, declare bool) *floodServer {
	fs := &floodServer{done: make(chan struct{}, 1)}
	fs.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() { fs.done <- struct{}{} }()
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		if declare {
			w.Header().Set("Content-Length", fmt.Sprint(size))
		}
		w.WriteHeader(status)
		n, err := io.WriteString(w, prefix)
		fs.written.Add(int64(n))
		chunk := []byte(strings.Repeat("a", 64<<10))
		for fs.written.Load() < size && err == nil {
			n, err = w.Write(chunk[:min(int64(len(chunk)), size-fs.written.Load())])
			fs.written.Add(int64(n))
		}
	}))
	t.Cleanup(fs.Close)
	return fs
}

// TestHostileFlood: a 400 MB reply is cut at the adapter's
// MaxResponseBytes, with a client_error response_too_large; the server
// could not write more than the cap and what the sockets hold. An error
// body as large ends as a short message.
func TestHostileFlood(t *testing.T) {
	isolateEnv(t)
	const size = 400 << 20
	const limit = 1 << 20
	// What the loopback sockets may buffer on top of what the client read.
	const slack = 48 << 20
	for _, ad := range adapters() {
		for _, tc := range []struct {
			name    string
			status  int
			declare bool
		}{{"streamed", 200, false}, {"declared", 200, true}, {"error body", 500, false}} {
			t.Run(ad.name+"/"+tc.name, func(t *testing.T) {
				prefix := `{"choices":[{"message":{"content":"`
				fs := newFloodServer(t, tc.status, prefix, size, tc.declare)
				f := ad.open(t, fs.URL, nil, limit)
				_, err := f(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.User, Content: "hi"}}, Turn: 1})
				if err == nil {
					t.Fatal("no error")
				}
				var le *llm.Error
				if !errors.As(err, &le) {
					t.Fatalf("%T %v", err, err)
				}
				if tc.status == 200 && (le.Class != llm.ClassClientError || le.Reason != adapter.ReasonResponseTooLarge ||
					!strings.HasPrefix(err.Error(), "llm: client_error: "+ad.name+": the provider's reply ") ||
					!strings.Contains(err.Error(), "MaxResponseBytes")) {
					t.Errorf("class %s, reason %q, want client_error, %s, the guard's message: %v", le.Class, le.Reason, adapter.ReasonResponseTooLarge, err)
				}
				if tc.status == 500 && le.Class != llm.ClassServerError {
					t.Errorf("class %s, want server_error: %.300v", le.Class, err)
				}
				if len(err.Error()) > 8<<10 {
					t.Errorf("the error's text has %d bytes", len(err.Error()))
				}
				fs.CloseClientConnections()
				<-fs.done
				t.Logf("the server wrote %d bytes", fs.written.Load())
				if w := fs.written.Load(); w > limit+slack {
					t.Errorf("the server wrote %d bytes: the client read past its limit", w)
				}
			})
		}
	}
}

// TestHostileTrickle: a reply that comes a byte at a time, forever, ends
// with the call's context: a timeout.
func TestHostileTrickle(t *testing.T) {
	isolateEnv(t)
	for _, ad := range adapters() {
		t.Run(ad.name, func(t *testing.T) {
			done := make(chan struct{})
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				defer close(done)
				_, _ = io.Copy(io.Discard, r.Body)
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(200)
				_, _ = io.WriteString(w, `{"choices":[{"message":{"content":"`)
				for {
					if _, err := w.Write([]byte("a")); err != nil {
						return
					}
					w.(http.Flusher).Flush()
					select {
					case <-r.Context().Done():
						return
					case <-time.After(20 * time.Millisecond):
					}
				}
			}))
			defer srv.Close()
			f := ad.open(t, srv.URL, nil, 0)
			ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
			defer cancel()
			_, err := f(ctx, llm.Request{Messages: []llm.Message{{Role: llm.User, Content: "hi"}}, Turn: 1})
			if le := llm.Classify(err); le == nil || le.Class != llm.ClassTimeout {
				t.Errorf("error %v, want a timeout", err)
			}
			<-done // the server saw the client go
		})
	}
}
