package trace_test

import (
	"context"
	"os"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/agent/trace"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm/llmtest"
)

// Print shows what each turn did.
func ExamplePrint() {
	model := llmtest.NewScript(
		llmtest.Code(`(tool/double {:x 4})`),
		llmtest.Code(`(return (+ *1 1))`),
	)
	step, _ := agent.MustNew(agent.Config{
		Prompt: "Compute",
		Tools: map[string]agent.Tool{"double": agent.Tool{Func: func(ctx context.Context, args *lisp.Map) (any, error) {
			x, _ := args.Get(lisp.Keyword("x"))
			return x.(int64) * 2, nil
		}}},
	}).Run(context.Background(), agent.Options{LLM: model.Func()})
	_ = trace.Print(os.Stdout, step, trace.Options{NoTimings: true})
	// Output:
	// ┌─ Turn 1 ────────────────────────────────────
	// │ Program:
	// │   (tool/double {:x 4})
	// │ Tools:
	// │   → double {:x 4}
	// │     ← 8
	// │ Result: 8
	// └──────────────────────────────────────────────
	// ┌─ Turn 2 ────────────────────────────────────
	// │ Program:
	// │   (return (+ *1 1))
	// │ Result: 9
	// └──────────────────────────────────────────────
	// Returned: 9
	// 2 turns, 2 LLM requests
}
