package agent_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm"
)

// TestMissionTimeoutDefault checks the seeds' default: a zero
// MissionTimeout bounds the mission by 60 s, a negative one by nothing
// but the caller's context. The LLM call's context shows the mission's
// deadline (LLMTimeout -1: the call has no bound of its own).
func TestMissionTimeoutDefault(t *testing.T) {
	tests := []struct {
		name    string
		timeout time.Duration
		want    time.Duration // Config().MissionTimeout
		bounded bool          // whether the call's context has a deadline
	}{
		{"zero: the seeds' 60 s", 0, 60 * time.Second, true},
		{"set", 90 * time.Second, 90 * time.Second, true},
		{"negative: none", -1, -1, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := agent.New(agent.Config{Prompt: "p", MissionTimeout: tt.timeout, LLMTimeout: -1})
			if err != nil {
				t.Fatal(err)
			}
			if got := a.Config().MissionTimeout; got != tt.want {
				t.Errorf("Config().MissionTimeout = %v, want %v", got, tt.want)
			}
			var left time.Duration
			var bounded bool
			model := llm.Func(func(ctx context.Context, _ llm.Request) (llm.Response, error) {
				var d time.Time
				d, bounded = ctx.Deadline()
				left = time.Until(d)
				return llm.Response{Content: "(return 1)"}, nil
			})
			if _, err := a.Run(context.Background(), agent.Options{LLM: model}); err != nil {
				t.Fatal(err)
			}
			if bounded != tt.bounded {
				t.Fatalf("the call's context has a deadline: %v, want %v", bounded, tt.bounded)
			}
			// Generous bounds: a busy machine may take a while to reach the call.
			if bounded && (left > tt.want || left < tt.want/2) {
				t.Errorf("the deadline is %v away, for a %v timeout", left, tt.want)
			}
		})
	}
}

// TestCompiledKeepsTimeouts checks that a saved compiled agent reads back
// with the meaning of its timeouts: the default, none (negative), and a
// duration under a millisecond (the saved form counts milliseconds). A
// tool of the program sees the deadline of its context.
func TestCompiledKeepsTimeouts(t *testing.T) {
	tests := []struct {
		name           string
		mission, limit time.Duration
		savedMission   int64 // mission_timeout_ms
		savedLimit     int64 // limits.timeout_ms
		bounded        bool  // whether the loaded agent's tool call has a deadline
	}{
		{"defaults", 0, 0, 60_000, 5_000, true},
		{"none", -1, -1, -1, -1, false},
		{"none, any negative", -time.Hour, -2 * time.Millisecond, -1, -1, false},
		{"under a millisecond", 500 * time.Microsecond, -1, 1, -1, true},
		{"set", 90 * time.Second, 2500 * time.Millisecond, 90_000, 2_500, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var bounded bool
			probe := agent.Tool{Func: func(ctx context.Context, _ *lisp.Map) (any, error) {
				_, bounded = ctx.Deadline()
				return 1, nil
			}}

			tools := map[string]agent.Tool{"probe": probe}
			a := agent.MustNew(agent.Config{Prompt: "p", Tools: tools, MissionTimeout: tt.mission,
				Limits: lisp.Limits{Timeout: tt.limit}})
			compiled, err := a.CompileSource(`(tool/probe {})`)
			if err != nil {
				t.Fatal(err)
			}
			data, err := json.Marshal(compiled)
			if err != nil {
				t.Fatal(err)
			}
			var saved struct {
				MissionTimeoutMS int64 `json:"mission_timeout_ms"`
				Limits           struct {
					TimeoutMS int64 `json:"timeout_ms"`
				} `json:"limits"`
			}
			if err := json.Unmarshal(data, &saved); err != nil {
				t.Fatal(err)
			}
			if saved.MissionTimeoutMS != tt.savedMission || saved.Limits.TimeoutMS != tt.savedLimit {
				t.Errorf("saved mission_timeout_ms %d, timeout_ms %d; want %d, %d",
					saved.MissionTimeoutMS, saved.Limits.TimeoutMS, tt.savedMission, tt.savedLimit)
			}
			loaded, err := agent.LoadCompiled(data, tools)
			if err != nil {
				t.Fatal(err)
			}
			again, err := json.Marshal(loaded)
			if err != nil {
				t.Fatal(err)
			}
			if string(again) != string(data) {
				t.Errorf("saved again differently:\n%s\nwas\n%s", again, data)
			}
			step, err := loaded.Execute(context.Background(), nil)
			if err != nil {
				// A deadline of a millisecond may pass before the tool runs
				// on a busy machine: that ending shows the deadline too.
				if tt.mission <= 0 || tt.mission >= time.Second || step.Fail.Reason != agent.ReasonMissionTimeout {
					t.Fatal(err)
				}
				return
			}
			if bounded != tt.bounded {
				t.Errorf("the loaded agent's tool call has a deadline: %v, want %v", bounded, tt.bounded)
			}
		})
	}
}

// TestLLMToolHasNoMissionClock checks that an LLM tool has no mission
// timeout of its own: its caller's mission bounds it, or, called from Go,
// the caller's context (LLMTimeout -1: the call has no bound of its own).
func TestLLMToolHasNoMissionClock(t *testing.T) {
	bounded := true
	model := llm.Func(func(ctx context.Context, _ llm.Request) (llm.Response, error) {
		_, bounded = ctx.Deadline()
		return llm.Response{Content: "(return {:ok true})"}, nil
	})
	tool, err := agent.NewLLMTool(agent.Config{
		Prompt:      "Judge {{x}}",
		Signature:   "(x :int) -> {ok :bool}",
		Description: "Judges x.",
		LLM:         model,
		LLMTimeout:  -1,
	}, agent.AsToolOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tool.Func(context.Background(), lisp.NewMap(lisp.Keyword("x"), int64(1))); err != nil {
		t.Fatal(err)
	}
	if bounded {
		t.Error("the LLM tool's call has a deadline of its own")
	}
}

// TestTurnStepsFollowTheTurnTimeout: a turn's program is told it has 5 s
// ("Limits per program: 5s"), and by default the step limit it runs under
// is that time's worth of the cheapest steps, so the time it was told of
// is the limit it meets; limits the host sets are kept as they are.
func TestTurnStepsFollowTheTurnTimeout(t *testing.T) {
	for _, tc := range []struct {
		limits lisp.Limits
		steps  int64
	}{
		{lisp.Limits{}, 2_500_000_000},
		{lisp.Limits{Timeout: 2 * time.Second}, 500_000_000},
		{lisp.Limits{MaxSteps: 1000}, 1000},
	} {
		a, err := agent.New(agent.Config{Prompt: "p", Limits: tc.limits})
		if err != nil {
			t.Fatal(err)
		}
		if got := a.Config().Limits.Effective().MaxSteps; got != tc.steps {
			t.Errorf("%+v: the turn's step limit is %d, want %d", tc.limits, got, tc.steps)
		}
	}
}
