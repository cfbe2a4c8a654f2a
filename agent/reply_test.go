package agent_test

import (
	"context"
	"testing"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/llm/llmtest"
)

// TestTurnResponse: every turn of the trace keeps the LLM's whole reply,
// without TraceConversation too (a turn without a program included, and a nested
// agent's turns); Feedback and Memory stay debug-only; TraceOff keeps no
// turn at all.
func TestTurnResponse(t *testing.T) {
	const think = "Let me think first.\nThe total is the sum of the amounts."
	child := agent.MustNew(agent.Config{Prompt: "Double {{n}}", Signature: "(n :int) -> :int", Description: "Doubles n."})
	for _, tc := range []struct {
		name  string
		opts  agent.Options
		turns int
		debug bool
	}{
		{"default", agent.Options{}, 3, false},
		{"conversation", agent.Options{Trace: agent.TraceConversation}, 3, true},
		{"trace off", agent.Options{Trace: agent.TraceOff}, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			double, err := child.AsTool(agent.AsToolOptions{LLM: llmtest.NewScript(llmtest.Code("(return (* 2 ctx/n))")).Func()})
			if err != nil {
				t.Fatal(err)
			}
			a := agent.MustNew(agent.Config{Prompt: "Sum", MaxTurns: 5, Tools: map[string]agent.Tool{"double": double}})
			replies := []llmtest.Reply{
				llmtest.Code("(def n (tool/double {:n 2}))"),
				llmtest.Text(think),
				llmtest.Code("(return n)"),
			}
			opts := tc.opts
			opts.LLM = llmtest.NewScript(replies...).Func()
			step, err := a.Run(context.Background(), opts)
			if err != nil {
				t.Fatal(err)
			}
			if len(step.Trace) != tc.turns {
				t.Fatalf("%d turns in the trace, want %d", len(step.Trace), tc.turns)
			}
			for i, tr := range step.Trace {
				if tr.Response != replies[i].Content {
					t.Errorf("turn %d: Response %q, want %q", i+1, tr.Response, replies[i].Content)
				}
				if debug := tr.Feedback != "" || tr.Memory != nil; debug != tc.debug && i < 2 {
					t.Errorf("turn %d: Feedback %q, Memory %v with Debug %v", i+1, tr.Feedback, tr.Memory, tc.debug)
				}
			}
			if tc.turns == 0 {
				return
			}
			if step.Trace[1].Program != "" {
				t.Errorf("turn 2 has a program: %q", step.Trace[1].Program)
			}
			c := step.Trace[0].ToolCalls
			if len(c) != 1 || c[0].Child == nil || len(c[0].Child.Trace) != 1 {
				t.Fatalf("the nested agent's trace: %+v", c)
			}
			if got := c[0].Child.Trace[0].Response; got != "```clojure\n(return (* 2 ctx/n))\n```" {
				t.Errorf("the nested agent's turn: Response %q", got)
			}
		})
	}
}
