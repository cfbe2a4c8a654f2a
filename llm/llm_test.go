package llm_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"testing"

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
		500: llm.ServerError, 503: llm.ServerError, 400: llm.ClientError, 404: llm.ClientError, 200: llm.Unknown} {
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
