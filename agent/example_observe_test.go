package agent_test

import (
	"context"
	"fmt"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm/llmtest"
)

// An observer sees the mission as it runs: here, each event's name, the
// messages each LLM request sends, the tool calls with their arguments,
// and the turns' values. The _token field is firewalled: the observer
// sees it as the LLM does.
func ExampleObserver() {
	a := agent.MustNew(agent.Config{
		Name:   "login",
		Prompt: "Log in and say who you are.",
		Tools: map[string]agent.Tool{
			"login": agent.Tool{Func: func(context.Context, *lisp.Map) (any, error) {
				return map[string]any{"user": "ann", "_token": "tok-9c1f22e0d4"}, nil
			}},
		},
	})
	model := llmtest.NewScript(
		llmtest.Code(`(def session (tool/login {:user "ann"}))`),
		llmtest.Code(`(return (:user session))`),
	)
	show := agent.ObserverFunc(func(_ context.Context, e *agent.Event) {
		switch e.Kind {
		case agent.LLMStart:
			fmt.Println(e.Kind, len(e.Request.Messages), "messages")
		case agent.ToolStart:
			fmt.Println(e.Kind, e.Tool, e.ArgsText)
		case agent.ToolStop, agent.TurnStop:
			fmt.Println(e.Kind, e.ResultText)
		case agent.RunStop:
			fmt.Println(e.Kind, e.Agent, e.ResultText, e.Usage.Turns, "turns")
		default:
			fmt.Println(e.Kind)
		}
	})
	if _, err := a.Run(context.Background(), agent.Options{LLM: model.Func(), Observers: []agent.Observer{show}}); err != nil {
		fmt.Println(err)
	}
	// Output:
	// run.start
	// turn.start
	// llm.start 1 messages
	// llm.stop
	// tool.start login {:user "ann"}
	// tool.stop {"_token" <Firewalled>, "user" "ann"}
	// turn.stop #'session
	// turn.start
	// llm.start 3 messages
	// llm.stop
	// turn.stop "ann"
	// run.stop login "ann" 2 turns
}
