package llm_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"syscall"
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
		if !errors.As(err, &e) || e.Reason != tt.reason || e.Class != llm.ClassConfig {
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
	rate := &llm.Error{Class: llm.ClassRateLimit, Status: 429}
	tests := []struct {
		err  error
		want llm.Class
	}{
		{rate, llm.ClassRateLimit},
		{fmt.Errorf("wrapped: %w", rate), llm.ClassRateLimit},
		{context.DeadlineExceeded, llm.ClassTimeout},
		{fmt.Errorf("post: %w", context.Canceled), llm.ClassCancelled},
		{netTimeout{}, llm.ClassTimeout},
		{&net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}, llm.ClassNetwork},
		{fmt.Errorf("read: %w", syscall.ECONNRESET), llm.ClassNetwork},
		{errors.New("boom"), llm.ClassUnknown},
		{llm.ClassRateLimit, llm.ClassRateLimit},
		{fmt.Errorf("quota: %w", llm.ClassAuth), llm.ClassAuth},
	}
	for _, tt := range tests {
		if got := llm.Classify(tt.err); got.Class != tt.want {
			t.Errorf("Classify(%v) = %s, want %s", tt.err, got.Class, tt.want)
		}
	}
	if llm.Classify(nil) != nil {
		t.Error("Classify(nil) != nil")
	}
}

func TestErrorText(t *testing.T) {
	base := errors.New("connection reset")
	tests := []struct {
		err  *llm.Error
		want string
	}{
		{&llm.Error{Class: llm.ClassRateLimit, Status: 429, Message: "slow down"}, "llm: rate_limit (HTTP 429): slow down"},
		{&llm.Error{Class: llm.ClassUnknown, Err: base}, "llm: unknown: connection reset"},
		{&llm.Error{Class: llm.ClassTimeout}, "llm: timeout"},
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

// TestClassIsError: a Class is an error value for errors.Is, true for an
// *Error of that class anywhere in the chain and for the Class itself.
func TestClassIsError(t *testing.T) {
	rate := fmt.Errorf("turn 2: %w", &llm.Error{Class: llm.ClassRateLimit, Status: 429})
	tests := []struct {
		err    error
		target llm.Class
		want   bool
	}{
		{rate, llm.ClassRateLimit, true},
		{rate, llm.ClassTimeout, false},
		{llm.ClassAuth, llm.ClassAuth, true},
		{errors.New("rate_limit"), llm.ClassRateLimit, false},
	}
	for _, tt := range tests {
		if got := errors.Is(tt.err, tt.target); got != tt.want {
			t.Errorf("errors.Is(%v, %s) = %v, want %v", tt.err, tt.target, got, tt.want)
		}
	}
	if got := llm.ClassRateLimit.Error(); got != "rate_limit" {
		t.Errorf("Error() = %q", got)
	}
	if e := llm.Classify(llm.ClassAuth); e.Class != llm.ClassAuth || e.Err != nil || e.Error() != "llm: auth" {
		t.Errorf("Classify(ClassAuth) = %#v", e)
	}
}

func ExampleClass() {
	call := func() error { return fmt.Errorf("turn 1: %w", &llm.Error{Class: llm.ClassRateLimit, Status: 429}) }
	err := call()
	fmt.Println(errors.Is(err, llm.ClassRateLimit), errors.Is(err, llm.ClassAuth))
	// Output: true false
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

func TestTokensAdd(t *testing.T) {
	a := llm.Tokens{Input: 10, Output: 2, CacheRead: 8, CacheWrite: 1}
	if got := a.Add(a); got != (llm.Tokens{Input: 20, Output: 4, CacheRead: 16, CacheWrite: 2}) || got.Total() != 24 {
		t.Errorf("%+v", got)
	}
}
