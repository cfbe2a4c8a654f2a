package agent_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/agent/prompt"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm/llmtest"
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
	p, err := with.Preview(agent.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(p.System, "; id: the tracking id, written TRK-000123") {
		t.Errorf("the prompt lacks the description:\n%s", p.System)
	}
	if with.Fingerprint() == without.Fingerprint() {
		t.Error("the descriptions do not change the fingerprint")
	}
	// Without a signature, the descriptions name the arguments; a key that
	// cannot be a keyword is refused.
	if _, err := agent.New(agent.Config{Prompt: "P", Tools: map[string]agent.Tool{"track": {
		Func: track(nil).Func, FieldDescriptions: map[string]string{"id": "x"}}}}); err != nil {
		t.Errorf("no signature: %v", err)
	}
	if _, err := agent.New(agent.Config{Prompt: "P", Tools: map[string]agent.Tool{"track": {
		Func: track(nil).Func, FieldDescriptions: map[string]string{"user.id": "x"}}}}); err == nil || !strings.Contains(err.Error(), "not a keyword name") {
		t.Errorf("a path as an untyped tool's argument: %v", err)
	}
	if _, err := agent.New(agent.Config{Prompt: "P", Tools: map[string]agent.Tool{"track": track(map[string]string{"nope": "x"})}}); err == nil {
		t.Error("a description of no field was accepted")
	}
}

// The model is told which tools are agents (a mission per call, floats
// rounded as the child rounds them) and which are a model's judgement.
func TestToolNotes(t *testing.T) {
	child := agent.MustNew(agent.Config{Prompt: "Score {{name}}", Signature: "(name :string) -> {score :float}", Presentation: prompt.Options{FloatPrecision: 3}})
	asTool, err := child.AsTool(agent.AsToolOptions{Description: "Scores a customer."})
	if err != nil {
		t.Fatal(err)
	}
	judge, err := agent.NewLLMTool(agent.Config{Prompt: "Is {{text}} urgent?", Signature: "(text :string) -> :bool"}, agent.AsToolOptions{})
	if err != nil {
		t.Fatal(err)
	}
	plain := agent.Tool{Func: func(context.Context, *lisp.Map) (any, error) { return nil, nil }, Signature: "() -> :int"}
	a := agent.MustNew(agent.Config{Prompt: "P", Tools: map[string]agent.Tool{"score": asTool, "urgent": judge, "count": plain}})
	p, err := a.Preview(agent.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"  ; an agent: each call is a mission of its own, with its own turns; pmap is fine; its failure is a tool error; its floats come rounded to 3 decimals\n",
		"  ; answered by a model: one call per input, knowing only the arguments; pmap is fine\n",
	} {
		if !strings.Contains(p.System, want) {
			t.Errorf("the prompt lacks %q:\n%s", want, p.System)
		}
	}
	if strings.Count(p.System, "pmap is fine") != 2 {
		t.Errorf("a plain tool has a note:\n%s", p.System)
	}
}

// TestUntypedToolWarning: a run warns of each listed tool whose arguments
// the model must guess (no signature, no field descriptions, no calling
// form in its description), and of no other.
func TestUntypedToolWarning(t *testing.T) {
	nop := func(context.Context, *lisp.Map) (any, error) { return nil, nil }
	a := agent.MustNew(agent.Config{Prompt: "P", Tools: map[string]agent.Tool{
		"guess":    {Func: nop, Description: "Does things."},
		"typed":    {Func: nop, Signature: "(id :int) -> :int"},
		"named":    {Func: nop, FieldDescriptions: map[string]string{"id": "an id"}},
		"form":     {Func: nop, Description: "Call it as (tool/form {:id 1})."},
		"unlisted": {Func: nop, Unlisted: true},
	}})
	s := llmtest.NewScript(llmtest.Code(`(return 1)`))
	step, err := a.Run(context.Background(), agent.Options{LLM: s.Func()})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"tool guess has no Signature or FieldDescriptions: the model sees only its description, and guesses its arguments"}
	if !slices.Equal(step.Warnings, want) {
		t.Errorf("warnings %q, want %q", step.Warnings, want)
	}
}
