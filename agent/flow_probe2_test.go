package agent_test

import (
	"context"
	"testing"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/llm/llmtest"
)

func TestFlowProbe2(t *testing.T) {
	for _, key := range []string{"CTXSECRET-alpha-1234", "<Firewalled>"} {
		a := agent.MustNew(agent.Config{Prompt: "p", MaxTurns: 3})
		s := llmtest.NewScript(llmtest.Code(`(println "key" (str "L" ctx/_key)) ctx/user`), llmtest.Code(`(return 1)`))
		step, _ := a.Run(context.Background(), agent.Options{LLM: s.Func(), Input: map[string]any{"_key": key, "user": "ada"}, Debug: true})
		t.Logf("%s", step.Trace[0].Feedback)
	}
}
