package agent_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/agent/trace"
	"github.com/ptc-go/ptc/llm"
	"github.com/ptc-go/ptc/llm/llmtest"
)

// TestRetryWait: the wait before the next attempt of a failed LLM call, as
// the llm.exception event reports it (Event.RetryIn): the backoff, or the
// provider's Retry-After when longer (past MaxDelay too) up to
// MaxRetryAfter; a longer Retry-After, or a wait past the deadline, ends
// the mission at once with the LLM's error. No test sleeps: the observer
// cancels the run as soon as it learns the wait.
func TestRetryWait(t *testing.T) {
	rate := func(after time.Duration) llmtest.Reply {
		return llmtest.Fail(&llm.Error{Class: llm.ClassRateLimit, Status: 429, Message: "slow down", RetryAfter: after})
	}
	const never = 999999 * time.Second // 11.6 days
	tests := []struct {
		name    string
		policy  llm.RetryPolicy
		mission time.Duration // MissionTimeout
		ctxWait time.Duration // the caller's deadline, from now; 0: none
		reply   llmtest.Reply
		// retryIn is the wait the event reports; 0: the mission ends
		// with the LLM's error at once, which says why (notRetried).
		retryIn    time.Duration
		notRetried string
	}{
		{"backoff", llm.RetryPolicy{BaseDelay: 7 * time.Second}, 0, 0,
			llmtest.Fail(&llm.Error{Class: llm.ClassServerError, Message: "oops"}), 7 * time.Second, ""},
		{"retry-after over the backoff", llm.RetryPolicy{}, 0, 0, rate(45 * time.Second), 45 * time.Second, ""},
		{"retry-after past MaxDelay", llm.RetryPolicy{MaxDelay: time.Second}, 0, 0, rate(59 * time.Second), 59 * time.Second, ""},
		{"backoff over the retry-after", llm.RetryPolicy{BaseDelay: 9 * time.Second}, 0, 0, rate(2 * time.Second), 9 * time.Second, ""},
		{"retry-after of a raised MaxRetryAfter", llm.RetryPolicy{MaxRetryAfter: 5 * time.Minute}, time.Hour, 0,
			rate(4 * time.Minute), 4 * time.Minute, ""},
		{"retry-after past MaxRetryAfter", llm.RetryPolicy{}, 0, 0, rate(61 * time.Second), 0,
			"not retried: the provider asks to wait 1m1s, longer than the retry policy's MaxRetryAfter (1m0s)"},
		{"11.6 days", llm.RetryPolicy{}, -1, 0, rate(never), 0, "asks to wait 277h46m39s, longer than"},
		{"11.6 days, a raised MaxRetryAfter, a short deadline", llm.RetryPolicy{MaxRetryAfter: 1000 * time.Hour}, -1, time.Minute,
			rate(never), 0, "not retried: the next attempt would start in 277h46m39s, after the mission's deadline"},
		{"past the MissionTimeout", llm.RetryPolicy{}, 30 * time.Second, 0, rate(45 * time.Second), 0,
			"would start in 45s, after the mission's deadline"},
		{"past the caller's deadline", llm.RetryPolicy{}, -1, 30 * time.Second, rate(45 * time.Second), 0,
			"would start in 45s, after the mission's deadline"},
		{"backoff past the deadline", llm.RetryPolicy{BaseDelay: time.Hour, MaxDelay: time.Hour}, -1, time.Minute,
			llmtest.Fail(&llm.Error{Class: llm.ClassServerError, Message: "oops"}), 0, "would start in 1h0m0s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.policy.MaxAttempts, tt.policy.Jitter = 3, -1
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tt.ctxWait > 0 {
				ctx, cancel = context.WithTimeout(ctx, tt.ctxWait)
				defer cancel()
			}
			var mu sync.Mutex
			var exceptions []*agent.Event
			var lines strings.Builder
			jsonl := trace.NewJSONLObserver(&lines)
			obs := agent.ObserverFunc(func(ctx context.Context, e *agent.Event) {
				jsonl.Observe(ctx, e)
				if e.Kind != agent.LLMException {
					return
				}
				mu.Lock()
				exceptions = append(exceptions, e)
				mu.Unlock()
				if e.RetryIn > 0 {
					cancel() // the wait is known: no need to sit it out
				}
			})
			s := llmtest.NewScript(tt.reply, llmtest.Code("(return 1)"))
			a := agent.MustNew(agent.Config{Prompt: "p", LLMRetry: tt.policy, MissionTimeout: tt.mission, LLMTimeout: -1})
			step, _ := a.Run(ctx, agent.Options{LLM: s.Func(), Observers: []agent.Observer{obs}})
			mu.Lock()
			defer mu.Unlock()
			if len(exceptions) != 1 || s.Calls() != 1 {
				t.Fatalf("%d exceptions, %d calls", len(exceptions), s.Calls())
			}
			if got := exceptions[0].RetryIn; got != tt.retryIn {
				t.Errorf("RetryIn %v, want %v", got, tt.retryIn)
			}
			if tt.retryIn > 0 {
				if !strings.Contains(lines.String(), `"retry_in_ms":`) {
					t.Errorf("no retry_in_ms in the events:\n%s", lines.String())
				}
				return
			}
			if strings.Contains(lines.String(), "retry_in_ms") {
				t.Errorf("retry_in_ms with no retry:\n%s", lines.String())
			}
			// The mission ended with the LLM's error, at once: not a
			// timeout, not a cancellation.
			f := step.Fail
			if f == nil || f.Reason != agent.ReasonLLMError || !strings.Contains(f.Message, tt.notRetried) {
				t.Fatalf("fail %+v, want llm_error saying %q", f, tt.notRetried)
			}
			if want := string(llm.Classify(exceptions[0].Err).Class); f.Details["class"] != want {
				t.Errorf("class %v, want %s", f.Details["class"], want)
			}
			if ctx.Err() != nil {
				t.Errorf("the run ended with its context: %v", ctx.Err())
			}
		})
	}
}

// TestRetryInJSON: retry_in_ms is the wait in milliseconds.
func TestRetryInJSON(t *testing.T) {
	b, err := json.Marshal(&agent.Event{Kind: agent.LLMException, RetryIn: 1500 * time.Millisecond})
	if err != nil || !strings.Contains(string(b), `"retry_in_ms":1500`) {
		t.Errorf("%s %v", b, err)
	}
	b, _ = json.Marshal(&agent.Event{Kind: agent.LLMException})
	if strings.Contains(string(b), "retry_in") {
		t.Errorf("%s", b)
	}
}
