package bundled

import (
	"strings"
	"testing"

	"github.com/ptc-go/ptc/llm"
)

// The reference answers the classify tool wherever the tool puts its
// question and its input: in the mission's prompt or in the system prompt.
func TestSolveUrgencyFindsTheInput(t *testing.T) {
	const text = "Ticket T-0121: checkout shows an outage banner since this morning"
	question := strings.ReplaceAll(urgencyToolPrompt, "{{text}}", "")
	tests := []struct {
		name      string
		req       llm.Request
		claimed   bool
		wantReply string
	}{
		{"all in the prompt", llm.Request{Prompt: strings.ReplaceAll(urgencyToolPrompt, "{{text}}", text), System: "You write PTC-Lisp."}, true, `{:urgency "high"}`},
		{"question in the system prompt, input in the prompt", llm.Request{System: question, Prompt: `{:text "` + text + `"}`}, true, `{:urgency "high"}`},
		{"all in the system prompt", llm.Request{System: question + "\n" + strings.Replace(text, "outage banner", "slow page", 1), Prompt: "Answer."}, true, `{:urgency "medium"}`},
		{"input only in the context", llm.Request{System: question, Prompt: "Judge ctx/text."}, true, `(re-find #"down|outage" t)`},
		{"another task's request", llm.Request{System: "You write PTC-Lisp.", Prompt: "Rank the players by their total points " + text}, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reply, ok := solveUrgency(tt.req)
			if ok != tt.claimed || !strings.Contains(reply, tt.wantReply) {
				t.Errorf("solveUrgency = %q, %v; want a reply with %q, %v", reply, ok, tt.wantReply, tt.claimed)
			}
		})
	}
}
