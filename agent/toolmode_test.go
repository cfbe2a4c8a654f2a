package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm"
	"github.com/ptc-go/ptc/llm/llmtest"
)

const toolModeSecret = "acct-7f3e-93c1-secret"

// toolModeAgent looks orders up by customer and sums them; its lookup
// returns each order's firewalled account.
func toolModeAgent(t *testing.T, calls *atomic.Int32) *agent.Agent {
	t.Helper()
	return agent.MustNew(agent.Config{Mode: "tools", Prompt: "Sum the orders of {{customer}}.", MaxTurns: 4,
		Signature: "(customer :string) -> {total :int}",
		Tools: map[string]agent.Tool{
			"orders": {Signature: "(customer :string) -> [{id :int, amount :int, _account :string}]", Description: "Lists a customer's orders.",
				Func: func(_ context.Context, args *lisp.Map) (any, error) {
					calls.Add(1)
					c, _ := args.Get(lisp.Keyword("customer"))
					if c != "ada" {
						return nil, errors.New("no such customer")
					}
					return []map[string]any{{"id": 1, "amount": 30, "_account": toolModeSecret}, {"id": 2, "amount": 12, "_account": toolModeSecret}}, nil
				}},
			"rate": {Signature: "(currency :string) -> :float", Description: "An exchange rate.",
				Func: func(context.Context, *lisp.Map) (any, error) { calls.Add(1); return 1.0, nil }},
		}})
}

// In tool-calling mode the model calls the tools natively: the calls of a
// reply run at once, through the tools' validation and the firewall, each
// result (or error) goes back as the call's result, and return ends the
// mission with a value checked against the signature.
func TestToolMode(t *testing.T) {
	var calls atomic.Int32
	a := toolModeAgent(t, &calls)
	model := llmtest.NewScript(
		llmtest.Calls("orders", `{"customer": "ada"}`, "orders", `{"customer": "bob"}`, "rate", `{"currency": 3}`),
		llmtest.Calls("return", `{"total": "lots"}`),
		llmtest.Calls("return", `{"total": 42}`),
	)
	rec := &recorder{}
	step, err := a.Run(context.Background(), agent.Options{LLM: model.Func(), Input: map[string]any{"customer": "ada"},
		Observers: []agent.Observer{rec}})
	if err != nil {
		t.Fatal(err)
	}
	if got := lisp.Print(step.Return, lisp.PrintOptions{}); got != `{"total" 42}` {
		t.Errorf("return %s", got)
	}
	if calls.Load() != 2 { // rate's argument is refused before it runs
		t.Errorf("%d tool calls ran, want 2", calls.Load())
	}
	reqs := model.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests", len(reqs))
	}
	var names []string
	for _, s := range reqs[0].Tools {
		names = append(names, s.Name)
	}
	if strings.Join(names, " ") != "orders rate return fail" || reqs[0].Tools[0].Parameters["type"] != "object" {
		t.Errorf("tools %v", reqs[0].Tools)
	}
	if strings.Contains(reqs[0].System, "PTC-Lisp") || !strings.Contains(reqs[0].System, `"customer":"ada"`) {
		t.Errorf("system prompt:\n%s", reqs[0].System)
	}
	// Turn 2's conversation: the mission, three calls, three results.
	msgs := reqs[1].Messages
	if len(msgs) != 7 {
		t.Fatalf("%d messages: %+v", len(msgs), msgs)
	}
	results := msgs[4:]
	for i, r := range results {
		if r.Role != llm.User || r.ToolCallID != msgs[1+i].ToolCallID || msgs[1+i].ToolName == "" {
			t.Errorf("result %d %+v answers %+v", i, r, msgs[1+i])
		}
	}
	var orders []map[string]any
	if err := json.Unmarshal([]byte(results[0].Content), &orders); err != nil || len(orders) != 2 || orders[0]["amount"] != 30.0 {
		t.Errorf("orders result %q: %v", results[0].Content, err)
	}
	if !strings.Contains(results[1].Content, "no such customer") || !strings.HasPrefix(results[2].Content, "Error:") {
		t.Errorf("error results %q, %q", results[1].Content, results[2].Content)
	}
	// The refused return is explained as its call's result.
	if r := reqs[2].Messages[len(reqs[2].Messages)-1]; r.ToolCallID == "" || !strings.Contains(r.Content, "does not match the signature") {
		t.Errorf("the refused return's result: %+v", r)
	}
	// The firewalled account never reaches the model, nor an observer.
	for _, req := range reqs {
		b, _ := json.Marshal(req)
		if strings.Contains(string(b), toolModeSecret) || strings.Contains(string(b), toolModeSecret[:10]) {
			t.Fatalf("the firewalled value reached the model: %s", b)
		}
	}
	for _, e := range rec.events {
		b, _ := json.Marshal(&e)
		if strings.Contains(string(b), toolModeSecret) {
			t.Fatalf("the firewalled value reached an observer: %s", b)
		}
	}
	// The trace shows the program the calls ran as, and the tool calls.
	if tr := step.Trace[0]; !strings.Contains(tr.Program, "(tool/orders {") || len(tr.ToolCalls) != 3 {
		t.Errorf("turn 1: program %q, %d tool calls", tr.Program, len(tr.ToolCalls))
	}
}

// fail ends the mission as (fail ...) does; a reply without calls is
// told to call one.
func TestToolModeFail(t *testing.T) {
	var calls atomic.Int32
	model := llmtest.NewScript(llmtest.Text("I think the total is 42."),
		llmtest.Calls("fail", `{"reason": "no_data", "message": "nothing to sum"}`))
	_, err := toolModeAgent(t, &calls).Run(context.Background(), agent.Options{LLM: model.Func(), Input: map[string]any{"customer": "x"}})
	var ae *agent.Error
	if !errors.As(err, &ae) || ae.Step.Fail.Reason != "no_data" || ae.Step.Fail.Message != "nothing to sum" {
		t.Fatalf("err %v", err)
	}
	if fb := model.Requests()[1].Messages[2].Content; !strings.Contains(fb, "calls no function") {
		t.Errorf("feedback %q", fb)
	}
}

// A tool whose name has a dot is declared with an underscore (providers
// take function names of letters, digits, _ and -), and called by it.
func TestToolModeDottedName(t *testing.T) {
	a := agent.MustNew(agent.Config{Mode: "tools", Prompt: "Go.", Signature: "-> :int",
		Tools: map[string]agent.Tool{
			"geo.lookup": {Func: func(context.Context, *lisp.Map) (any, error) { return 5, nil }},
			"geo_lookup": {Func: func(context.Context, *lisp.Map) (any, error) { return 6, nil }},
		}})
	model := llmtest.NewScript(llmtest.Calls("geo_lookup_2", `{}`, "geo_lookup", `{}`), llmtest.Calls("return", `{"value": 11}`))
	step, err := a.Run(context.Background(), agent.Options{LLM: model.Func()})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range model.Requests()[0].Tools {
		names = append(names, s.Name)
	}
	if strings.Join(names, " ") != "geo_lookup_2 geo_lookup return fail" {
		t.Errorf("declared %v", names)
	}
	results := model.Requests()[1].Messages[3:]
	if results[0].Content != "5" || results[1].Content != "6" || lisp.Print(step.Return, lisp.PrintOptions{}) != "11" {
		t.Errorf("results %+v, return %v", results, step.Return)
	}
}

// A tool's result reaches a tool-calling model whole up to 64 KB, as
// JSON (it has no program to look at it with); past that, it is cut and
// the cut says how long the result was.
func TestToolModeResultBound(t *testing.T) {
	rows := func(n int) func(context.Context, *lisp.Map) (any, error) {
		return func(context.Context, *lisp.Map) (any, error) {
			out := make([]map[string]any, n)
			for i := range out {
				out[i] = map[string]any{"id": i, "note": strings.Repeat("x", 90)}
			}
			return out, nil
		}
	}
	a := agent.MustNew(agent.Config{Mode: "tools", Prompt: "Go.", Signature: "-> :int",
		Tools: map[string]agent.Tool{"small": {Func: rows(100)}, "large": {Func: rows(1000)}}})
	model := llmtest.NewScript(llmtest.Calls("small", `{}`, "large", `{}`), llmtest.Calls("return", `{"value": 1}`))
	if _, err := a.Run(context.Background(), agent.Options{LLM: model.Func()}); err != nil {
		t.Fatal(err)
	}
	results := model.Requests()[1].Messages[3:]
	var small []map[string]any
	if err := json.Unmarshal([]byte(results[0].Content), &small); err != nil || len(small) != 100 {
		t.Errorf("the 11 KB result is not whole: %d rows, %v", len(small), err)
	}
	large := results[1].Content
	head, cut, ok := strings.Cut(large, "\n[... the result is cut here: it has ")
	if !ok || len(head) != 64<<10 || !strings.HasSuffix(cut, " bytes]") {
		t.Errorf("the large result: %d bytes, cut %q", len(head), cut)
	}
}
