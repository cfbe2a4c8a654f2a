package agent_test

import (
	"context"
	"strings"
	"testing"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/lisp"
)

// A tool's field descriptions show the model the formats a type does not
// give, under the tool in the system prompt, and change the agent's
// fingerprint; without a signature they are refused.
func TestToolFieldDescriptions(t *testing.T) {
	track := func(desc map[string]string) agent.Tool {
		return agent.Tool{
			Func:              func(context.Context, *lisp.Map) (any, error) { return "in transit", nil },
			Signature:         "(id :string) -> :string",
			Description:       "Where a parcel is.",
			FieldDescriptions: desc,
		}
	}
	with := agent.MustNew(agent.Config{Prompt: "P", Tools: map[string]agent.Tool{"track": track(map[string]string{"id": "the tracking id, written TRK-000123"})}})
	without := agent.MustNew(agent.Config{Prompt: "P", Tools: map[string]agent.Tool{"track": track(nil)}})
	p, err := agent.PreviewPrompt(with, agent.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(p.System, "; id: the tracking id, written TRK-000123") {
		t.Errorf("the prompt lacks the description:\n%s", p.System)
	}
	if with.Fingerprint() == without.Fingerprint() {
		t.Error("the descriptions do not change the fingerprint")
	}
	if _, err := agent.New(agent.Config{Prompt: "P", Tools: map[string]agent.Tool{"track": {
		Func: track(nil).Func, FieldDescriptions: map[string]string{"id": "x"}}}}); err == nil || !strings.Contains(err.Error(), "no Signature") {
		t.Errorf("no signature: %v", err)
	}
	if _, err := agent.New(agent.Config{Prompt: "P", Tools: map[string]agent.Tool{"track": track(map[string]string{"nope": "x"})}}); err == nil {
		t.Error("a description of no field was accepted")
	}
}
