package agent_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/llm/llmtest"
)

func TestPrintTrace(t *testing.T) {
	model := llmtest.NewScript(
		llmtest.Text("Let me think."),
		llmtest.Code(`(println "x" [1 "a"]) (/ 1 (count []))`),
		llmtest.Code(`(+ 1 nil)`),
		llmtest.Code(`(fail {:reason :gave_up :message "cannot"})`),
	)
	step, err := agent.RunConfig(context.Background(), agent.Config{Prompt: "Go", MaxTurns: 5},
		agent.Options{LLM: model.Func(), Debug: true})
	if err == nil {
		t.Fatal("the mission should fail")
	}
	var buf bytes.Buffer
	if err := agent.PrintTrace(&buf, step, agent.TraceOptions{Replies: true}); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{
		"┌─ Turn 1 ", "LLM reply:\n│   Let me think.", // no program: the reply is shown with Raw
		"│ Output:\n│   x [1 a]", "Result: ##Inf",
		"Error: 1:1: type_error", "│        (+ 1 nil)", // multi-line errors stay in the box
		"Feedback:", "Failed: gave_up: cannot", "4 turns, 4 LLM requests", "Duration: ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("trace lacks %q:\n%s", want, out)
		}
	}
	buf.Reset()
	if err := agent.PrintChain(&buf, []*agent.Step{step, nil}, agent.TraceOptions{NoTimings: true}); err != nil {
		t.Fatal(err)
	}
	out = buf.String()
	for _, want := range []string{"═══ Step 1 of 2 ═══", "═══ Step 2 of 2 ═══\n(no step)"} {
		if !strings.Contains(out, want) {
			t.Errorf("chain lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "Duration") || strings.Contains(out, "LLM reply") {
		t.Errorf("NoTimings and !Raw:\n%s", out)
	}
}
