// Package evals is an evaluation that runs in go test: two agents over a
// Go tool, their cases written in Go and in PTC-Lisp, evaluated by
// package eval/evaltest in evals_test.go against the recording in
// testdata/evals, offline. README.md says how to record it again against
// a real model.
//
//	go test ./examples/evals/                       # replays, offline
//	go test ./examples/evals/ -run 'TestEvals/refunds' -v
package evals

import (
	"context"
	_ "embed"
	"fmt"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/eval"
	"github.com/ptc-go/ptc/llm"
	"github.com/ptc-go/ptc/llm/llmtest"
)

// order is a row of the store the tool reads.
type order struct {
	ID     int     `json:"id"`
	Amount float64 `json:"amount"`
	Status string  `json:"status"`
}

// store is the tool's data: the orders of each customer.
var store = map[string][]order{
	"alice": {{1, 120.0, "paid"}, {2, 10.5, "paid"}, {3, 40.0, "refunded"}},
	"bob":   {{4, 99.0, "pending"}},
	"carol": {{5, 300.0, "paid"}, {6, 25.0, "refunded"}, {7, 5.0, "refunded"}},
}

// ordersArgs are the orders tool's arguments.
type ordersArgs struct {
	Customer string `json:"customer"`
}

// ordersTool is the Go tool: a customer's orders, or an error for a
// customer the store does not know.
func ordersTool(_ context.Context, a ordersArgs) ([]order, error) {
	os, ok := store[a.Customer]
	if !ok {
		return nil, fmt.Errorf("no customer %s", a.Customer)
	}
	return os, nil
}

// tools are the agents' tools.
func tools() map[string]agent.Tool {
	return map[string]agent.Tool{"orders": agent.NewTool("The orders of a customer; fails for an unknown customer.", ordersTool)}
}

// refundCases are the cases of the refunds task, in PTC-Lisp.
//
//go:embed refunds.cases.clj
var refundCases string

// Tasks are the agents and their cases: paid-total's written in Go,
// refunds' in PTC-Lisp (refunds.cases.clj).
func Tasks() ([]eval.Task, error) {
	refunds, err := eval.ParseCases("refunds.cases.clj", refundCases)
	if err != nil {
		return nil, err
	}
	return []eval.Task{
		{
			Name: "paid-total",
			Config: agent.Config{Prompt: "How many orders has {{customer}} paid, for how much in total?",
				Signature: "(customer :string) -> {count :int, total :float}", Tools: tools()},
			Cases: []eval.Case{
				{Name: "alice", Input: map[string]any{"customer": "alice"},
					Checks: []eval.Check{eval.Within(map[string]any{"count": 2, "total": 130.5}, 0.01)}},
				{Name: "nothing paid", Input: map[string]any{"customer": "bob"},
					Checks: []eval.Check{eval.Subset(map[string]any{"count": 0})}},
			},
		},
		{
			Name: "refunds",
			Config: agent.Config{Prompt: "What has {{customer}} been refunded? " +
				"Fail with reason not_found when the customer is unknown.",
				Signature: "(customer :string) -> {refunded :float, orders [:int]}", Tools: tools()},
			Cases: refunds,
		},
	}, nil
}

// Scripted is the stand-in model the recording in testdata/evals was
// made with: the programs a capable model writes for the two tasks. A
// real model takes its place when the recording is made again.
func Scripted() llm.Func {
	s := &llmtest.Script{}
	s.Respond = func(req llm.Request) llmtest.Reply {
		if req.Turn > 1 {
			return llmtest.Text("no more turns scripted")
		}
		switch {
		case len(req.Prompt) > 3 && req.Prompt[:3] == "How":
			return llmtest.Code(`(let [paid (filter #(= "paid" (:status %)) (tool/orders {:customer ctx/customer}))]
  (return {:count (count paid) :total (sum-by :amount paid)}))`)
		default:
			return llmtest.Code(`(let [os (try (tool/orders {:customer ctx/customer})
             (catch Exception e nil))
      refunded (filter #(= "refunded" (:status %)) os)]
  (if (nil? os)
    (fail {:reason :not_found :message (str "no customer " ctx/customer)})
    (return {:refunded (sum-by :amount refunded) :orders (mapv :id refunded)})))`)
		}
	}
	return s.Func()
}
