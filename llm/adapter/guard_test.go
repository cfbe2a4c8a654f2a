package adapter_test

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/ptc-go/ptc/llm"
	"github.com/ptc-go/ptc/llm/adapter"
)

const guardKey = "sk-test-0123456789abcdefghijklmnopqrstuv"

func TestGuardRedact(t *testing.T) {
	g := adapter.NewGuard(adapter.GuardConfig{APIKey: guardKey, Headers: map[string]string{
		"Authorization": "Basic " + base64.StdEncoding.EncodeToString([]byte("alice:hunter2-long-password")),
		"X-Session-Id":  "sid=abcdef123456; theme=dark",
		"X-Title":       "my app title",
		"Api-Key":       "short", // shorter than a credential: left
		"X-Gw-Secret":   `k<"é">&/x`,
	}})
	tests := []struct {
		name, in, want string
	}{
		{"the key", "key " + guardKey + " sent", "key [redacted] sent"},
		{"twice", guardKey + guardKey, "[redacted][redacted]"},
		{"in Bearer", "Authorization: Bearer " + guardKey, "Authorization: Bearer [redacted]"},
		{"URL-escaped", "q=" + url.QueryEscape(guardKey+"/+"), "q=[redacted]%2F%2B"},
		{"base64", base64.StdEncoding.EncodeToString([]byte(guardKey)), "[redacted]"},
		{"cut", "x-api-key: " + guardKey[:20] + "…", "x-api-key: [redacted]…"},
		{"cut short of a prefix", "sk-test", "sk-test"},
		{"basic token", "Basic " + base64.StdEncoding.EncodeToString([]byte("alice:hunter2-long-password")), "Basic [redacted]"},
		{"basic decoded", "user alice:hunter2-long-password", "user [redacted]"},
		{"basic password", "pw hunter2-long-password!", "pw [redacted]!"},
		{"cookie value", "sid=abcdef123456", "[redacted]"},
		{"a value alone", "got abcdef123456", "got [redacted]"},
		{"not a credential header", "X-Title: my app title", "X-Title: my app title"},
		{"a short value", "Api-Key: short", "Api-Key: short"},
		{"nothing", "all fine", "all fine"},
		{"JSON-escaped", `{"h":"k\u003c\"é\"\u003e\u0026/x"}`, `{"h":"[redacted]"}`},
		{"JSON-escaped, HTML left", `{"h":"k<\"é\">&/x"}`, `{"h":"[redacted]"}`},
	}
	for _, tt := range tests {
		if got := g.Redact(tt.in); got != tt.want {
			t.Errorf("%s: Redact(%q) = %q, want %q", tt.name, tt.in, got, tt.want)
		}
	}
	// A placeholder key ("none", for local servers) blanks nothing.
	if got := adapter.NewGuard(adapter.GuardConfig{APIKey: "none"}).Redact("none of it"); got != "none of it" {
		t.Errorf("a short key redacted: %q", got)
	}
}

func TestGuardError(t *testing.T) {
	g := adapter.NewGuard(adapter.GuardConfig{APIKey: guardKey})
	inner := fmt.Errorf("Post https://api/?k=%s: %w", guardKey, context.DeadlineExceeded)
	long := strings.Repeat("é", adapter.MaxErrorText)
	err := g.Error(&llm.Error{Class: llm.ClassTimeout, Reason: "r-" + guardKey, Message: "echo " + guardKey + long, Err: inner})
	var e *llm.Error
	if !errors.As(err, &e) || e.Class != llm.ClassTimeout {
		t.Fatalf("%#v", err)
	}
	for _, text := range []string{err.Error(), e.Message, e.Reason, e.Err.Error(), fmt.Sprintf("%#v %#v %+v", err, e.Err, e.Err)} {
		if strings.Contains(text, guardKey[:10]) {
			t.Errorf("the key shows: %.200s", text)
		}
	}
	if len(e.Message) > adapter.MaxErrorText || !strings.HasSuffix(e.Message, "…") {
		t.Errorf("message of %d bytes, ending %q", len(e.Message), e.Message[len(e.Message)-8:])
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Error("errors.Is no longer sees the deadline")
	}
	var wrapped interface{ Unwrap() error }
	if errors.As(e.Err, &wrapped) {
		t.Error("the original error is reachable with errors.As")
	}
	// Not an *llm.Error: classified, then redacted.
	err = g.Error(errors.New("boom " + guardKey))
	if llm.Classify(err).Class != llm.ClassUnknown || strings.Contains(err.Error(), guardKey) {
		t.Errorf("%v", err)
	}
	if g.Error(nil) != nil {
		t.Error("Error(nil) is not nil")
	}
}

// TestGuardClient: the caller's client is copied, never changed; the
// guard's follows redirects on the same origin (through the caller's
// CheckRedirect), and refuses another origin.
func TestGuardClient(t *testing.T) {
	g := adapter.NewGuard(adapter.GuardConfig{APIKey: guardKey})
	var calls int
	check := func(*http.Request, []*http.Request) error { calls++; return nil }
	tr := &http.Transport{}
	hc := &http.Client{Transport: tr, CheckRedirect: check}
	c := g.Client(hc)
	if c == hc || hc.Transport != tr || hc.CheckRedirect == nil {
		t.Fatal("the caller's client was changed")
	}
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("the other origin got a request: %s", r.URL)
	}))
	defer other.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/same":
			http.Redirect(w, r, "/ok", http.StatusFound)
		case "/ok":
			_, _ = io.WriteString(w, "ok")
		default:
			// The same host on another port is another origin.
			http.Redirect(w, r, other.URL+"/x", http.StatusTemporaryRedirect)
		}
	}))
	defer srv.Close()
	resp, err := c.Get(srv.URL + "/same")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if calls != 1 {
		t.Errorf("the caller's CheckRedirect was called %d times", calls)
	}
	_, err = c.Get(srv.URL + "/away")
	var e *llm.Error
	if !errors.As(err, &e) || e.Reason != adapter.ReasonRedirectRefused || e.Class != llm.ClassClientError {
		t.Errorf("%v", err)
	}
	// Without a CheckRedirect of the caller's, the usual 10 hops at most.
	loop := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, r.URL.Path+"x", http.StatusFound)
	}))
	defer loop.Close()
	if _, err := g.Client(nil).Get(loop.URL + "/"); err == nil || !strings.Contains(err.Error(), "10 redirects") {
		t.Errorf("a redirect loop: %v", err)
	}
}

// TestGuardBodyLimit: a body of exactly the limit is read whole, one byte
// more fails with response_too_large (declared or not); an error's body
// is cut at 64 KiB without an error.
func TestGuardBodyLimit(t *testing.T) {
	const limit = 1000
	g := adapter.NewGuard(adapter.GuardConfig{MaxResponseBytes: limit})
	if g.MaxResponseBytes() != limit || adapter.NewGuard(adapter.GuardConfig{}).MaxResponseBytes() != adapter.DefaultMaxResponseBytes {
		t.Fatal("MaxResponseBytes")
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var n int
		_, _ = fmt.Sscan(r.URL.Query().Get("n"), &n)
		if r.URL.Query().Get("chunked") != "" {
			w.(http.Flusher).Flush() // no Content-Length
		}
		if r.URL.Query().Get("status") != "" {
			w.WriteHeader(500)
		}
		_, _ = io.WriteString(w, strings.Repeat("a", n))
	}))
	defer srv.Close()
	tests := []struct {
		query   string
		read    int
		tooLong bool
	}{
		{"n=1000", 1000, false},
		{"n=1000&chunked=1", 1000, false},
		{"n=1001", 0, true},
		{"n=1001&chunked=1", 1000, true},
		{"n=200000&status=500", 64 << 10, false},
	}
	for _, tt := range tests {
		f := g.Func(func(ctx context.Context, _ llm.Request) (llm.Response, error) {
			req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+"/?"+tt.query, nil)
			resp, err := g.Client(nil).Do(req)
			if err != nil {
				return llm.Response{}, err
			}
			defer resp.Body.Close()
			b, err := io.ReadAll(resp.Body)
			if len(b) != tt.read {
				t.Errorf("%s: read %d bytes, want %d", tt.query, len(b), tt.read)
			}
			if err != nil {
				// What an SDK may make of it: the guard's error wins.
				return llm.Response{}, errors.New("could not read the body")
			}
			return llm.Response{Content: "ok"}, nil
		})
		_, err := f(context.Background(), llm.Request{})
		var e *llm.Error
		switch {
		case tt.tooLong && (!errors.As(err, &e) || e.Reason != adapter.ReasonResponseTooLarge || e.Class != llm.ClassClientError):
			t.Errorf("%s: %v, want response_too_large", tt.query, err)
		case !tt.tooLong && err != nil:
			t.Errorf("%s: %v", tt.query, err)
		}
	}
}
