package llm

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestRetryDelays(t *testing.T) {
	for _, tc := range []struct {
		p    RetryPolicy
		want []time.Duration
	}{
		{RetryPolicy{}, []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 16 * time.Second, 30 * time.Second, 30 * time.Second}},
		{RetryPolicy{BaseDelay: time.Millisecond, Backoff: BackoffLinear}, []time.Duration{time.Millisecond, 2 * time.Millisecond, 3 * time.Millisecond}},
		{RetryPolicy{BaseDelay: 3 * time.Second, Backoff: BackoffConstant, MaxDelay: 2 * time.Second}, []time.Duration{2 * time.Second, 2 * time.Second}},
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
	all := RetryPolicy{Retryable: []Class{ClassAuth, ClassConfig, ClassRateLimit}}
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{&Error{Class: ClassAuth}, false},
		{&Error{Class: ClassConfig}, false},
		{&Error{Class: ClassRateLimit}, true},
		{errors.New("boom"), false},
	} {
		if got := all.Retries(Classify(tc.err).Class); got != tc.want {
			t.Errorf("%v: retryable %v", tc.err, got)
		}
	}
	if (RetryPolicy{}).Retries(ClassContextLength) {
		t.Error("context_length retried by default")
	}
}

// Next retries within MaxAttempts and only the classes the policy names;
// a Retry-After past MaxRetryAfter or a wait past the deadline ends the
// retries at once, and the error says why.
func TestRetryNext(t *testing.T) {
	p := RetryPolicy{MaxAttempts: 3, BaseDelay: time.Millisecond, Jitter: -1}
	limited := &Error{Class: ClassRateLimit, RetryAfter: 2 * time.Minute}
	soon := &Error{Class: ClassRateLimit, RetryAfter: 5 * time.Millisecond}
	for _, tc := range []struct {
		name    string
		p       RetryPolicy
		attempt int
		err     error
		wait    time.Duration
		retry   bool
		why     string
	}{
		{"first failure", p, 1, &Error{Class: ClassServerError}, time.Millisecond, true, ""},
		{"second failure doubles", p, 2, &Error{Class: ClassServerError}, 2 * time.Millisecond, true, ""},
		{"attempts spent", p, 3, &Error{Class: ClassServerError}, 0, false, ""},
		{"auth never", p, 1, &Error{Class: ClassAuth}, 0, false, ""},
		{"retry-after wins when longer", p, 1, soon, 5 * time.Millisecond, true, ""},
		{"retry-after too long", p, 1, limited, 0, false, "longer than the retry policy's MaxRetryAfter (1m0s)"},
		{"retry-after within a raised limit", RetryPolicy{MaxAttempts: 2, MaxRetryAfter: time.Hour, Jitter: -1}, 1, limited, 2 * time.Minute, true, ""},
	} {
		wait, retry, err := tc.p.Next(context.Background(), tc.attempt, tc.err)
		if wait != tc.wait || retry != tc.retry {
			t.Errorf("%s: wait %v retry %v, want %v %v", tc.name, wait, retry, tc.wait, tc.retry)
		}
		if !errors.Is(err, tc.err) {
			t.Errorf("%s: the error %v does not wrap the call's", tc.name, err)
		}
		if tc.why != "" && !strings.Contains(err.Error(), tc.why) {
			t.Errorf("%s: %q does not say %q", tc.name, err, tc.why)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	_, retry, err := RetryPolicy{MaxAttempts: 2, MaxRetryAfter: 3 * time.Hour}.Next(ctx, 1, &Error{Class: ClassRateLimit, RetryAfter: 2 * time.Hour})
	if retry || !strings.Contains(err.Error(), "after the mission's deadline") {
		t.Errorf("a wait past the deadline: retry %v, %v", retry, err)
	}
}
