package llm_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net"
	"net/http"
	"syscall"
	"testing"
	"time"

	"github.com/ptc-go/ptc/llm"
)

func echo(_ context.Context, req llm.Request) (llm.Response, error) {
	return llm.Response{Content: req.Prompt}, nil
}

func TestResolve(t *testing.T) {
	reg := llm.Registry{"fast": echo, "broken": nil}
	tests := []struct {
		model  llm.Model
		reg    llm.Registry
		reason string
	}{
		{nil, reg, "llm_required"},
		{llm.Func(nil), reg, "invalid_llm"},
		{llm.Func(echo), nil, ""},
		{llm.Name("fast"), reg, ""},
		{llm.Name("fast"), nil, "llm_registry_required"},
		{llm.Name("slow"), reg, "llm_not_found"},
		{llm.Name("broken"), reg, "invalid_llm"},
	}
	for _, tt := range tests {
		f, err := tt.reg.Resolve(tt.model)
		if tt.reason == "" {
			if err != nil || f == nil {
				t.Errorf("Resolve(%v): %v", tt.model, err)
			}
			continue
		}
		var e *llm.Error
		if !errors.As(err, &e) || e.Reason != tt.reason || e.Class != llm.Config {
			t.Errorf("Resolve(%#v): %v, want reason %s", tt.model, err, tt.reason)
		}
	}
}

type netTimeout struct{}

func (netTimeout) Error() string   { return "i/o timeout" }
func (netTimeout) Timeout() bool   { return true }
func (netTimeout) Temporary() bool { return true }

var _ net.Error = netTimeout{}

func TestClassify(t *testing.T) {
	rate := &llm.Error{Class: llm.RateLimit, Status: 429}
	tests := []struct {
		err  error
		want llm.Class
	}{
		{rate, llm.RateLimit},
		{fmt.Errorf("wrapped: %w", rate), llm.RateLimit},
		{context.DeadlineExceeded, llm.Timeout},
		{fmt.Errorf("post: %w", context.Canceled), llm.Cancelled},
		{netTimeout{}, llm.Timeout},
		{&net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}, llm.Network},
		{fmt.Errorf("read: %w", syscall.ECONNRESET), llm.Network},
		{errors.New("boom"), llm.Unknown},
	}
	for _, tt := range tests {
		if got := llm.Classify(tt.err); got.Class != tt.want {
			t.Errorf("Classify(%v) = %s, want %s", tt.err, got.Class, tt.want)
		}
	}
	if llm.Classify(nil) != nil {
		t.Error("Classify(nil) != nil")
	}
	for status, want := range map[int]llm.Class{429: llm.RateLimit, 408: llm.Timeout, 504: llm.Timeout,
		500: llm.ServerError, 503: llm.ServerError, 400: llm.ClientError, 404: llm.ClientError, 200: llm.Unknown,
		401: llm.Auth, 403: llm.Auth, 529: llm.ServerError} {
		if got := llm.HTTPStatusClass(status); got != want {
			t.Errorf("HTTPStatusClass(%d) = %s, want %s", status, got, want)
		}
	}
}

func TestErrorText(t *testing.T) {
	base := errors.New("connection reset")
	tests := []struct {
		err  *llm.Error
		want string
	}{
		{&llm.Error{Class: llm.RateLimit, Status: 429, Message: "slow down"}, "llm: rate_limit (HTTP 429): slow down"},
		{&llm.Error{Class: llm.Unknown, Err: base}, "llm: unknown: connection reset"},
		{&llm.Error{Class: llm.Timeout}, "llm: timeout"},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("got %q, want %q", got, tt.want)
		}
	}
	if !errors.Is(&llm.Error{Err: base}, base) {
		t.Error("Unwrap")
	}
}

func ExampleRegistry_Resolve() {
	reg := llm.Registry{"echo": func(_ context.Context, req llm.Request) (llm.Response, error) {
		return llm.Response{Content: "you said: " + req.Prompt, Tokens: llm.Tokens{Input: 3, Output: 4}}, nil
	}}
	f, err := reg.Resolve(llm.Name("echo"))
	if err != nil {
		panic(err)
	}
	resp, _ := f(context.Background(), llm.Request{Prompt: "hi"})
	fmt.Println(resp.Content, resp.Tokens.Total())

	_, err = reg.Resolve(llm.Name("gpt"))
	fmt.Println(err)
	// Output:
	// you said: hi 7
	// llm: config_error: LLM "gpt" is not in the registry (it has: echo)
}

func TestHTTPError(t *testing.T) {
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	h := func(kv ...string) http.Header {
		hd := http.Header{}
		for i := 0; i < len(kv); i += 2 {
			hd.Set(kv[i], kv[i+1])
		}
		return hd
	}
	for _, tc := range []struct {
		status int
		header http.Header
		msg    string
		class  llm.Class
		after  time.Duration
	}{
		{429, h("Retry-After", "2"), "slow down", llm.RateLimit, 2 * time.Second},
		{429, h("retry-after-ms", "1500", "Retry-After", "9"), "", llm.RateLimit, 1500 * time.Millisecond},
		{429, h("Retry-After", now.Add(30*time.Second).Format(http.TimeFormat)), "", llm.RateLimit, 30 * time.Second},
		{429, h("Retry-After", "soon"), "", llm.RateLimit, 0},
		{429, h("Retry-After", "999999"), "", llm.RateLimit, 999999 * time.Second},
		// Past what a Duration holds: the longest, not a negative wait.
		{429, h("Retry-After", "1e12"), "", llm.RateLimit, math.MaxInt64},
		{429, h("retry-after-ms", "1e300"), "", llm.RateLimit, math.MaxInt64},
		{408, nil, "", llm.Timeout, 0},
		{504, nil, "", llm.Timeout, 0},
		{500, nil, "", llm.ServerError, 0},
		{529, nil, "overloaded", llm.ServerError, 0},
		{401, nil, "invalid x-api-key", llm.Auth, 0},
		{403, nil, "", llm.Auth, 0},
		{400, nil, "This model's maximum context length is 128000 tokens", llm.ContextLength, 0},
		{400, nil, "prompt is too long: 210000 tokens > 200000 maximum", llm.ContextLength, 0},
		{400, nil, "invalid temperature", llm.ClientError, 0},
		{404, nil, "no such model", llm.ClientError, 0},
	} {
		e := llm.HTTPError(tc.status, tc.header, tc.msg, nil)
		got := llm.RetryAfter(tc.header, now)
		if e.Class != tc.class || got != tc.after || e.Status != tc.status || e.Message != tc.msg {
			t.Errorf("%d %v %q: class %s, retry after %v", tc.status, tc.header, tc.msg, e.Class, got)
		}
	}
	if llm.RetryAfter(nil, now) != 0 {
		t.Error("nil header")
	}
}

func TestTokensAdd(t *testing.T) {
	a := llm.Tokens{Input: 10, Output: 2, CacheRead: 8, CacheWrite: 1}
	if got := a.Add(a); got != (llm.Tokens{Input: 20, Output: 4, CacheRead: 16, CacheWrite: 2}) || got.Total() != 24 {
		t.Errorf("%+v", got)
	}
}
