package trace_test

import (
	"context"
	"testing"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/agent/trace"
	"github.com/ptc-go/ptc/llm/llmtest"
)

// Step.SystemPromptTokens is the system prompt's size in 4-byte tokens,
// and Step.MemoryBytes the memory's printed size at the end; a Step read
// from a trace keeps the first (its system prompt is in the trace) and
// not the second (its memory is not).
func TestStepFigures(t *testing.T) {
	model := llmtest.NewScript(llmtest.Code(`(def names ["ada" "grace"])`), llmtest.Code(`(return (count names))`))
	step, err := agent.MustNew(agent.Config{Prompt: "Count"}).Run(context.Background(), agent.Options{LLM: model.Func()})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(step.SystemPrompt); n == 0 || step.SystemPromptTokens() != (n+3)/4 {
		t.Errorf("SystemPromptTokens %d for a prompt of %d bytes", step.SystemPromptTokens(), n)
	}
	// "names" and ["ada" "grace"].
	if got := step.MemoryBytes(); got < len("names")+len(`["ada" "grace"]`)-2 || got > 64 {
		t.Errorf("MemoryBytes %d", got)
	}
	_, back := writeAndRead(t, step)
	if back.SystemPromptTokens() != step.SystemPromptTokens() || back.MemoryBytes() != 0 {
		t.Errorf("read back: %d tokens, %d bytes", back.SystemPromptTokens(), back.MemoryBytes())
	}
}

// writeAndRead writes step's trace as JSON and reads it back.
func writeAndRead(t *testing.T, step *agent.Step) ([]byte, *agent.Step) {
	t.Helper()
	data, err := trace.Marshal(step, trace.JSONOptions{})
	if err != nil {
		t.Fatal(err)
	}
	back, err := trace.Unmarshal(data)
	if err != nil {
		t.Fatal(err)
	}
	return data, back
}
