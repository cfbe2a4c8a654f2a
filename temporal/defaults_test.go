package temporal

import (
	"testing"
	"time"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/llm"
)

// TestMissionTimeoutDefault checks that a durable mission has the
// agent's default MissionTimeout (60 s) as its durable timer, and none
// when it is negative: a model that keeps failing is retried until the
// timer ends the mission, or until the retries run out.
func TestMissionTimeoutDefault(t *testing.T) {
	tests := []struct {
		name    string
		timeout time.Duration
		reason  string
	}{
		{"default", 0, string(agent.ReasonMissionTimeout)},
		{"none", -1, string(agent.ReasonLLMError)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// 8 attempts, 20 s apart: 140 s of backoff, past the 60 s.
			a := mustAgent(t, agent.Config{Prompt: "Answer {{q}}", MissionTimeout: tt.timeout,
				LLMRetry: llm.RetryPolicy{MaxAttempts: 8, BaseDelay: 20 * time.Second, Backoff: llm.BackoffConstant}})
			model := newScripted(map[string][]string{"Answer": {`(return 42)`}})
			model.fail = func(llm.Request, int) error { return &llm.Error{Class: llm.ClassServerError, Message: "overloaded"} }
			env := newEnv(t, WorkerOptions{Agents: map[string]*agent.Agent{"a": a}, Model: llm.Func(model.Func)})
			start := env.Now()
			step, err := runEnv(t, env, input(t, "a", map[string]any{"q": "x"}))
			if err == nil || string(step.Fail.Reason) != tt.reason {
				t.Fatalf("fail %+v, want %s", step.Fail, tt.reason)
			}
			elapsed, attempts := env.Now().Sub(start), model.tries["Answer x#1"]
			if tt.reason == string(agent.ReasonMissionTimeout) && (elapsed >= 140*time.Second || attempts >= 8) {
				t.Errorf("ended after %v of workflow time and %d attempts, want before the retries ran out", elapsed, attempts)
			}
			if tt.reason == string(agent.ReasonLLMError) && attempts != 8 {
				t.Errorf("ended after %d attempts, want 8", attempts)
			}
		})
	}
}
