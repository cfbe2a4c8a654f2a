package trace_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/agent/trace"
	"github.com/ptc-go/ptc/llm"
	"github.com/ptc-go/ptc/llm/llmtest"
)

// TestLLMRetriesInTheTrace: a turn whose LLM call failed twice before it
// answered shows both attempts — in the Step, in the JSON trace (read back
// the same), and in trace.Print — so that "3 LLM requests" for 1 turn is
// explained (docs/trace-format.md, llm_retries).
func TestLLMRetriesInTheTrace(t *testing.T) {
	model := llmtest.NewScript(
		llmtest.Fail(&llm.Error{Class: llm.ClassServerError, Message: "overloaded, try later"}),
		llmtest.Fail(&llm.Error{Class: llm.ClassRateLimit, Message: "slow down"}),
		llmtest.Code(`(return 1)`),
	)
	cfg := agent.Config{Prompt: "Go", MaxTurns: 2, LLMRetry: llm.RetryPolicy{MaxAttempts: 3, BaseDelay: time.Millisecond}}
	step, err := agent.MustNew(cfg).Run(context.Background(), agent.Options{LLM: model.Func()})
	if err != nil {
		t.Fatal(err)
	}
	if step.Usage.Turns != 1 || step.Usage.LLMRequests != 3 {
		t.Fatalf("usage %+v", step.Usage)
	}
	check := func(where string, turns []agent.Turn) {
		t.Helper()
		got := turns[0].LLMRetries
		if len(got) != 2 ||
			!errors.Is(got[0].Err, llm.ClassServerError) || !errors.Is(got[1].Err, llm.ClassRateLimit) ||
			!strings.Contains(got[0].Err.Error(), "overloaded, try later") || got[0].Wait <= 0 || got[1].Wait <= 0 {
			t.Errorf("%s: retries %+v", where, got)
		}
		if where == "read back" && got[1].Err.Error() != step.Trace[0].LLMRetries[1].Err.Error() {
			t.Errorf("the error's text read back %q, want %q", got[1].Err, step.Trace[0].LLMRetries[1].Err)
		}
	}
	check("Step", step.Trace)

	data, back := writeAndRead(t, step)
	if !strings.Contains(string(data), `"llm_retries"`) || !strings.Contains(string(data), `"attempt":2`) {
		t.Errorf("JSON lacks llm_retries: %s", data)
	}
	check("read back", back.Trace)
	// A turn's Usage is rebuilt from the JSON form (its duration in
	// milliseconds as a float, so to the microsecond).
	got, want := back.Trace[0].Usage, step.Trace[0].Usage
	if d := got.Duration - want.Duration; d < -time.Microsecond || d > time.Microsecond {
		t.Errorf("the turn's duration read back: %v, want %v", got.Duration, want.Duration)
	}
	if got.Duration = want.Duration; got != want || want.LLMRequests != 3 || want.Programs != 1 {
		t.Errorf("the turn's usage read back: %+v, want %+v", got, want)
	}

	var buf bytes.Buffer
	if err := trace.Print(&buf, step, trace.Options{}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"LLM attempt 1 failed (" + string(llm.ClassServerError) + "): ", "overloaded, try later; retried after ",
		"LLM attempt 2 failed (" + string(llm.ClassRateLimit) + "): ", "1 turn, 3 LLM requests",
	} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("print lacks %q:\n%s", want, buf.String())
		}
	}
}
