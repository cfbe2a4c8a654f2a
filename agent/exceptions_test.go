package agent_test

import (
	"context"
	"strings"
	"testing"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm"
	"github.com/ptc-go/ptc/llm/llmtest"
)

// An ex-info thrown and not caught reaches the model as an error with its
// message and its data; data that holds firewalled values (a "_" field, a
// firewalled string or collection of the context) shows them as the
// placeholder, uncaught, in ctx/fail, and printed from a catch.
func TestExceptionFeedbackBehindTheFirewall(t *testing.T) {
	secret := fwSecrets[1]
	ctx := map[string]any{
		"_secret": secret,
		"user":    map[string]any{"name": "Ann", "_ssn": "123-45-6789"},
		"_card":   map[string]any{"last4": "4242", "holder": "Ann Example"},
	}
	s := llmtest.NewScript(
		llmtest.Code(`(throw (ex-info "order 7 has no items" {:id 7 :_s ctx/_secret :copy ctx/_secret :who ctx/user :card ctx/_card}))`),
		llmtest.Code(`(println "fail:" (:data (:details ctx/fail)))
(try (throw (ex-info (str "bad " ctx/_secret) {:id 8 :_s ctx/_secret :copy ctx/_secret :card ctx/_card}))
  (catch Exception e (println "caught" (ex-data e)) (println (ex-message e)) (println e) (:id (ex-data e))))`),
		llmtest.Code(`(return 1)`),
	)
	a := agent.MustNew(agent.Config{Prompt: "p", MaxTurns: 5})
	if _, err := a.Run(context.Background(), agent.Options{LLM: s.Func(), Input: ctx}); err != nil {
		t.Fatal(err)
	}
	reqs := s.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests", len(reqs))
	}
	turn1 := lastMessage(reqs[1])
	for _, want := range []string{"Error: 1:1: exception: order 7 has no items", "ex-data: {", ":id 7", `"name" "Ann"`,
		`:_s ` + agent.Firewalled, `:copy ` + agent.Firewalled, `:card ` + agent.Firewalled} {
		if !strings.Contains(turn1, want) {
			t.Errorf("the feedback of the uncaught exception lacks %q:\n%s", want, turn1)
		}
	}
	turn2 := lastMessage(reqs[2])
	for _, want := range []string{"fail: {", ":id 7", "caught {", ":id 8", "bad " + agent.Firewalled, "#error {:cause bad " + agent.Firewalled, "Value: 8"} {
		if !strings.Contains(turn2, want) {
			t.Errorf("the feedback of the caught exception lacks %q:\n%s", want, turn2)
		}
	}
	for i, req := range reqs {
		for _, text := range requestTexts(req) {
			for _, hidden := range []string{secret, "123-45-6789", "4242", "Ann Example"} {
				if f := leak(text, hidden); f != "" || strings.Contains(text, hidden) {
					t.Errorf("request %d shows %q:\n%s", i+1, hidden, text)
				}
			}
		}
	}
}

// A program catches a failing tool call and reads its ex-data; a nested
// agent's failure is a tool error like any other, and the program goes on.
func TestCatchingAToolErrorInAMission(t *testing.T) {
	tools := map[string]agent.Tool{
		"lookup": agent.Tool{Func: func(_ context.Context, args *lisp.Map) (any, error) {
			return nil, &lisp.Error{Kind: lisp.ToolError, Message: "no such order", Data: lisp.NewMap(lisp.Keyword("status"), int64(404))}
		}},
	}
	s := llmtest.NewScript(llmtest.Code(`(return (try (tool/lookup {:id 1}) (catch Exception e (ex-data e))))`))
	a := agent.MustNew(agent.Config{Prompt: "p", Tools: tools})
	step, err := a.Run(context.Background(), agent.Options{LLM: s.Func()})
	if err != nil {
		t.Fatal(err)
	}
	if got := lisp.Print(step.Return, lisp.PrintOptions{}); got != `{:message "no such order", :status 404, :tool "lookup"}` {
		t.Errorf("returned %s", got)
	}
}

// lastMessage is the text of a request's last message: the feedback of
// the turn before.
func lastMessage(req llm.Request) string { return req.Messages[len(req.Messages)-1].Content }

// A nested agent that runs out of the tree's turns ends its caller, as
// before: it is a limit, which no try of the calling program catches.
func TestTurnBudgetCannotBeCaught(t *testing.T) {
	child, err := agent.MustNew(agent.Config{Name: "child", Prompt: "CHILD", MaxTurns: 5}).AsTool(agent.AsToolOptions{Description: "does the work"})
	if err != nil {
		t.Fatal(err)
	}
	root := agent.MustNew(agent.Config{Name: "root", Prompt: "ROOT", MaxTurns: 5, MaxTreeTurns: 2,
		Tools: map[string]agent.Tool{"child": child}})
	s := llmtest.NewScript(
		llmtest.Code(`(try (tool/child {}) (catch Throwable e (println "caught") :caught) (finally (println "finally")))`),
		llmtest.Code(`1`), // the child's first turn; its second has no budget left
		llmtest.Code(`(return 1)`),
	)
	step, err := root.Run(context.Background(), agent.Options{LLM: s.Func()})
	if err == nil || step.Fail == nil || step.Fail.Reason != agent.ReasonTurnBudgetExhausted {
		t.Fatalf("got %+v, %v; want turn_budget_exhausted", step.Fail, err)
	}
	if n := len(s.Requests()); n != 2 {
		t.Errorf("%d requests, want 2", n)
	}
	// The program stopped at the call: neither its catch nor its finally ran.
	for i, tr := range step.Trace {
		if len(tr.Output) > 0 {
			t.Errorf("turn %d printed %q", i+1, tr.Output)
		}
	}
}
