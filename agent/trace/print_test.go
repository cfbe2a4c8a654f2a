package trace_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/agent/trace"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm/llmtest"
)

func TestPrint(t *testing.T) {
	model := llmtest.NewScript(
		llmtest.Text("Let me think."),
		llmtest.Code(`(println "x" [1 "a"]) (/ 1.0 (count []))`),
		llmtest.Code(`(+ 1 nil)`),
		llmtest.Code(`(fail {:reason :gave_up :message "cannot"})`),
	)
	step, err := agent.MustNew(agent.Config{Prompt: "Go", MaxTurns: 5}).Run(context.Background(),
		agent.Options{LLM: model.Func(), Trace: agent.TraceConversation})
	if err == nil {
		t.Fatal("the mission should fail")
	}
	var buf bytes.Buffer
	if err := trace.Print(&buf, step, trace.Options{Replies: true}); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{
		"┌─ Turn 1 ", "LLM reply:\n│   Let me think.", // no program: the reply is shown with Replies
		"│ Output:\n│   x [1 a]", "Result: ##Inf",
		"Error: 1:1: type_error", "│        (+ 1 nil)", // multi-line errors stay in the box
		"Feedback:", "Failed: gave_up: cannot", "4 turns, 4 LLM requests", "Duration: ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("trace lacks %q:\n%s", want, out)
		}
	}
	buf.Reset()
	if err := trace.PrintChain(&buf, []*agent.Step{step, nil}, trace.Options{NoTimings: true}); err != nil {
		t.Fatal(err)
	}
	out = buf.String()
	for _, want := range []string{"═══ Step 1 of 2 ═══", "═══ Step 2 of 2 ═══\n(no step)"} {
		if !strings.Contains(out, want) {
			t.Errorf("chain lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "Duration") || strings.Contains(out, "LLM reply") {
		t.Errorf("NoTimings and !Replies:\n%s", out)
	}
}

// Print is redacted by default: values, println output, tool errors
// and a nested agent's turns show firewalled data and copies of it as
// <Firewalled>; a child's trace hides what its caller hides (the caller
// passed its secret down as a public argument). Unredacted shows them.
func TestPrintRedacted(t *testing.T) {
	const secret, pin = "CTXSECRET-alpha-1234", 90817263544
	child := agent.MustNew(agent.Config{Prompt: "Echo {{x}}", Description: "Echoes.", Signature: "(x :string) -> :string"})
	childTool, err := child.AsTool(agent.AsToolOptions{LLM: llmtest.NewScript(llmtest.Code(`(println "got" ctx/x) (return (str "e:" ctx/x))`)).Func()})
	if err != nil {
		t.Fatal(err)
	}
	refuse := agent.Tool{Func: func(_ context.Context, args *lisp.Map) (any, error) {
		return nil, fmt.Errorf("refused %s", lisp.Print(args, lisp.PrintOptions{}))
	}}

	a := agent.MustNew(agent.Config{Prompt: "p", Tools: map[string]agent.Tool{"echo": childTool, "refuse": refuse}})
	model := llmtest.NewScript(
		llmtest.Code(`(println (str "L" ctx/_key) ctx/_pin) (tool/refuse {:k (str ctx/_key "!")})`),
		llmtest.Code(`(return {:leak (str "L" ctx/_key) :n ctx/_pin :e (tool/echo {:x (str "c" ctx/_key)})})`))
	step, err := a.Run(context.Background(), agent.Options{LLM: model.Func(), Input: map[string]any{"_key": secret, "_pin": pin}})
	if err != nil {
		t.Fatal(err)
	}
	print := func(opts trace.Options) string {
		var buf bytes.Buffer
		if err := trace.Print(&buf, step, opts); err != nil {
			t.Fatal(err)
		}
		return buf.String()
	}
	out := print(trace.Options{Full: true})
	for _, s := range []string{"CTXSECRET", "90817263544"} {
		if strings.Contains(out, s) {
			t.Errorf("the trace shows %q:\n%s", s, out)
		}
	}
	// What the program computed from the key (the output line, the
	// refused call's argument, :leak) is hidden whole, and scrubbed from
	// the tools' own texts (the refusal); the child agent, given such an
	// argument, hides it and what it computes from it (:e).
	for _, want := range []string{"│ Output:\n│   <Firewalled>\n", `→ refuse {:k <Firewalled>}`, `✗ refused {:k "<Firewalled>"}`, `│     │   got <Firewalled>`,
		`Returned: {:e <Firewalled>, :leak <Firewalled>, :n <Firewalled>}`} {
		if !strings.Contains(out, want) {
			t.Errorf("the trace lacks %q:\n%s", want, out)
		}
	}
	raw := print(trace.Options{Full: true, Unredacted: true})
	// Output is recorded as printed, firewalled values and what was
	// computed from them hidden (Turn.Output): values are shown whole.
	if !strings.Contains(raw, `:leak "LCTXSECRET-alpha-1234"`) || !strings.Contains(raw, `:e "e:cCTXSECRET`) {
		t.Errorf("Unredacted hides values:\n%s", raw)
	}
}
