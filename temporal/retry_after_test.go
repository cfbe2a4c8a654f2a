package temporal

import (
	"strings"
	"testing"
	"time"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/llm"
)

// A provider's Retry-After is the activity's next retry delay up to the
// policy's MaxRetryAfter, as in-process; a longer one (Retry-After:
// 999999, 11.6 days) ends the retries at once with the LLM's error.
func TestLLMRetryAfterCapped(t *testing.T) {
	for _, tc := range []struct {
		name  string
		after time.Duration
		max   time.Duration
		tries int
		ok    bool
	}{
		{"within the default", 30 * time.Second, 0, 2, true},
		{"past the default", 999999 * time.Second, 0, 1, false},
		{"within a raised MaxRetryAfter", 10 * time.Minute, time.Hour, 2, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := mustAgent(t, agent.Config{Prompt: "Answer {{q}}", MaxTurns: 2, MissionTimeout: 2 * time.Hour,
				LLMRetry: llm.RetryPolicy{MaxAttempts: 3, BaseDelay: 1, MaxRetryAfter: tc.max}})
			model := newScripted(map[string][]string{"Answer": {`(return 42)`}})
			model.fail = func(_ llm.Request, n int) error {
				if n == 1 {
					return &llm.Error{Class: llm.ClassRateLimit, Status: 429, Message: "slow down", RetryAfter: tc.after}
				}
				return nil
			}
			env := newEnv(t, WorkerOptions{Agents: map[string]*agent.Agent{"a": a}, Model: llm.Func(model.Func)})
			step, err := runEnv(t, env, input(t, "a", map[string]any{"q": "x"}))
			if got := model.tries["Answer x#1"]; got != tc.tries {
				t.Errorf("%d attempts, want %d", got, tc.tries)
			}
			if tc.ok {
				if err != nil || printed(step.Return) != "42" {
					t.Errorf("return %s, err %v", printed(step.Return), err)
				}
				return
			}
			if err == nil || step.Fail.Reason != agent.ReasonLLMError || !strings.Contains(step.Fail.Message, "MaxRetryAfter") {
				t.Errorf("fail %+v", step.Fail)
			}
		})
	}
}
