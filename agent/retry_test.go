package agent

import (
	"errors"
	"testing"
	"time"

	"github.com/ptc-go/ptc/llm"
)

func TestRetryDelays(t *testing.T) {
	for _, tc := range []struct {
		p    RetryPolicy
		want []time.Duration
	}{
		{RetryPolicy{}, []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 16 * time.Second, 30 * time.Second, 30 * time.Second}},
		{RetryPolicy{BaseDelay: time.Millisecond, Backoff: Linear}, []time.Duration{time.Millisecond, 2 * time.Millisecond, 3 * time.Millisecond}},
		{RetryPolicy{BaseDelay: 3 * time.Second, Backoff: Constant, MaxDelay: 2 * time.Second}, []time.Duration{2 * time.Second, 2 * time.Second}},
		{RetryPolicy{BaseDelay: time.Hour, MaxDelay: time.Minute}, []time.Duration{time.Minute}},
	} {
		for i, want := range tc.want {
			if got := tc.p.delay(i + 1); got != want {
				t.Errorf("%+v: retry %d waits %v, want %v", tc.p, i+1, got, want)
			}
		}
	}
	// A huge attempt number neither overflows nor exceeds the cap.
	if got := (RetryPolicy{}).delay(1000); got != 30*time.Second {
		t.Errorf("attempt 1000: %v", got)
	}
}

func TestRetryJitter(t *testing.T) {
	d := 10 * time.Second
	seen := map[time.Duration]bool{}
	for range 200 {
		got := (RetryPolicy{}).jittered(d)
		if got < 8*time.Second || got > 12*time.Second {
			t.Fatalf("default jitter gave %v for %v", got, d)
		}
		seen[got] = true
	}
	if len(seen) < 10 {
		t.Errorf("jitter is not random: %d distinct delays", len(seen))
	}
	if got := (RetryPolicy{Jitter: -1}).jittered(d); got != d {
		t.Errorf("no jitter: %v", got)
	}
	if got := (RetryPolicy{Jitter: 5}).jittered(d); got < 0 || got > 2*d {
		t.Errorf("jitter over 1: %v", got)
	}
}

func TestNeverRetried(t *testing.T) {
	all := RetryPolicy{Retryable: []llm.Class{llm.Auth, llm.Config, llm.RateLimit}}
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{&llm.Error{Class: llm.Auth}, false},
		{&llm.Error{Class: llm.Config}, false},
		{&llm.Error{Class: llm.RateLimit}, true},
		{errors.New("boom"), false},
	} {
		if got := all.retryable(tc.err); got != tc.want {
			t.Errorf("%v: retryable %v", tc.err, got)
		}
	}
	if (RetryPolicy{}).retryable(&llm.Error{Class: llm.ContextLength}) {
		t.Error("context_length retried by default")
	}
}
