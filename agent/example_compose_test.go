package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/agent/trace"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm"
	"github.com/ptc-go/ptc/llm/llmtest"
)

// scripted answers each mission by its prompt's first word.
func scripted(programs map[string]string) llm.Func {
	s := &llmtest.Script{Respond: func(req llm.Request) llmtest.Reply {
		return llmtest.Code(programs[strings.Fields(req.Prompt)[0]])
	}}
	return s.Func()
}

// An agent called as a tool: the orchestrator's program gets the child's
// whole value, _ids included, while the orchestrator's LLM is shown only
// what is not firewalled. The child inherits the orchestrator's model.
func ExampleAgent_AsTool() {
	finder := agent.MustNew(agent.Config{
		Prompt:      "Find the customers of {{city}}",
		Signature:   "(city :string) -> {count :int, _ids [:int]}",
		Description: "Finds the customers of a city.",
		Tools: map[string]agent.Tool{"crm": agent.Tool{Func: func(context.Context, *lisp.Map) (any, error) {
			return []map[string]any{{"id": 7, "city": "Oslo"}, {"id": 9, "city": "Oslo"}}, nil
		}}},
	})
	findTool, err := finder.AsTool(agent.AsToolOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	orchestrator := agent.MustNew(agent.Config{
		Prompt: "Mail the customers of Oslo",
		Tools: map[string]agent.Tool{
			"find": findTool,
			"mail": agent.Tool{Func: func(_ context.Context, args *lisp.Map) (any, error) {
				ids, _ := args.Get(lisp.Keyword("ids"))
				return fmt.Sprintf("mailed %s", lisp.Print(ids, lisp.PrintOptions{})), nil
			}},
		},
	})
	model := scripted(map[string]string{
		"Find": `(return {:count 2 :_ids (mapv :id (tool/crm {}))})`,
		"Mail": `(let [r (tool/find {:city "Oslo"})] (return (tool/mail {:ids (:_ids r)})))`,
	})
	step, err := orchestrator.Run(context.Background(), agent.Options{LLM: model})
	if err != nil {
		fmt.Println(err)
		return
	}
	child := step.Trace[0].ToolCalls[0].Child
	fmt.Println(lisp.Print(step.Return, lisp.PrintOptions{}))
	fmt.Println("child returned", lisp.Print(child.Return, lisp.PrintOptions{}), "in", child.Usage.Turns, "turn")
	fmt.Println("LLM requests in the tree:", step.TotalUsage.LLMRequests)
	// Output:
	// "mailed [7 9]"
	// child returned {:_ids [7 9], :count 2} in 1 turn
	// LLM requests in the tree: 2
}

// An LLM tool answers each call with one LLM call, checked against its
// signature; pmap runs the calls at once.
func ExampleNewLLMTool() {
	classify, err := agent.NewLLMTool(agent.Config{
		Prompt:      "Is this email urgent? {{text}}",
		Signature:   "(text :string) -> {urgent :bool}",
		Description: "Says whether an email is urgent.",
	}, agent.AsToolOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	triage := agent.MustNew(agent.Config{Prompt: "Triage the emails", Tools: map[string]agent.Tool{"classify": classify}})
	s := &llmtest.Script{Respond: func(req llm.Request) llmtest.Reply {
		switch {
		case strings.HasPrefix(req.Prompt, "Triage"):
			return llmtest.Code(`(return (mapv :urgent (pmap #(tool/classify {:text %}) ctx/emails)))`)
		case strings.Contains(req.Prompt, "down"):
			return llmtest.Code(`{:urgent true}`)
		}
		return llmtest.Code(`{:urgent false}`)
	}}
	step, err := triage.Run(context.Background(), agent.Options{LLM: s.Func(),
		Input: map[string]any{"emails": []string{"site down", "lunch?"}}})
	fmt.Println(lisp.Print(step.Return, lisp.PrintOptions{}), err)
	// Output: [true false] <nil>
}

// Compile once with an LLM, then execute without one, save the program
// for review, and load it back.
func ExampleAgent_Compile() {
	scorer := agent.MustNew(agent.Config{
		Prompt:      "Score {{report}}",
		Signature:   "(report {errors :int, requests :int}) -> {rate :float}",
		Description: "The error rate of a report.",
	})
	model := scripted(map[string]string{
		"Score": `(let [r ctx/report] (return {:rate (/ (:errors r) (:requests r))}))`,
	})
	compiled, err := scorer.Compile(context.Background(), agent.Options{LLM: model,
		Input: map[string]any{"report": map[string]any{"errors": 3, "requests": 100}}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(compiled.Source())
	step, _ := compiled.Execute(context.Background(), map[string]any{"report": map[string]any{"errors": 1, "requests": 3}})
	fmt.Println(lisp.Print(step.Return, lisp.PrintOptions{}), step.Usage.LLMRequests, "LLM requests")
	_, err = compiled.Execute(context.Background(), map[string]any{"report": map[string]any{"errors": 1}})
	fmt.Println(err)

	saved, _ := json.Marshal(compiled)
	loaded, err := agent.LoadCompiled(saved, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	step, _ = loaded.Execute(context.Background(), map[string]any{"report": map[string]any{"errors": 5, "requests": 10}})
	fmt.Println(lisp.Print(step.Return, lisp.PrintOptions{}))
	// Output:
	// (let [r ctx/report] (return {:rate (/ (:errors r) (:requests r))}))
	// {:rate 0.33} 0 LLM requests
	// agent: validation_error: input: report.requests: missing required field, expected :int
	// {:rate 0.5}
}

// An agent whose tools call LLMs cannot be compiled.
func ExampleReason_notCompilable() {
	judge, _ := agent.NewLLMTool(agent.Config{Prompt: "Judge {{x}}", Signature: "(x :string) -> :bool", Description: "Judges x."}, agent.AsToolOptions{})
	a := agent.MustNew(agent.Config{Prompt: "Judge all", Tools: map[string]agent.Tool{"judge": judge}})
	_, err := a.Compile(context.Background(), agent.Options{})
	fmt.Println(errors.Is(err, agent.ReasonNotCompilable))
	// Output: true
}

// A pipeline passes each return value on as the next agent's context and
// stops at the first failure.
func ExamplePipeline_Run() {
	find := agent.MustNew(agent.Config{Prompt: "Find the open tickets", Signature: "{ids [:int]}"})
	count := agent.MustNew(agent.Config{Prompt: "Count the tickets", Signature: "(ids [:int]) -> :int"})
	model := scripted(map[string]string{
		"Find":  `(return {:ids [4 8 15]})`,
		"Count": `(return (count ctx/ids))`,
	})
	steps, err := agent.Pipeline{find, count}.Run(context.Background(), agent.Options{LLM: model})
	fmt.Println(len(steps), lisp.Print(steps[1].Return, lisp.PrintOptions{}), err)
	_ = trace.PrintChain(os.Stdout, steps, trace.Options{NoTimings: true})
	// Output:
	// 2 3 <nil>
	// ═══ Step 1 of 2 ═══
	// ┌─ Turn 1 ────────────────────────────────────
	// │ Program:
	// │   (return {:ids [4 8 15]})
	// │ Result: {:ids [4 8 15]}
	// └──────────────────────────────────────────────
	// Returned: {:ids [4 8 15]}
	// 1 turn, 1 LLM request
	// ═══ Step 2 of 2 ═══
	// ┌─ Turn 1 ────────────────────────────────────
	// │ Program:
	// │   (return (count ctx/ids))
	// │ Result: 3
	// └──────────────────────────────────────────────
	// Returned: 3
	// 1 turn, 1 LLM request
}

// Then runs the next agent on a Step's value; a failed Step stops the chain
// with chained_failure, and the next agent's LLM is not called.
func ExampleThen() {
	find := agent.MustNew(agent.Config{Prompt: "Find the open tickets", Signature: "{ids [:int]}"})
	count := agent.MustNew(agent.Config{Prompt: "Count the tickets", Signature: "(ids [:int]) -> :int"})
	model := scripted(map[string]string{
		"Find": `(fail {:reason :unavailable :message "the tracker is down"})`,
	})
	found, _ := find.Run(context.Background(), agent.Options{LLM: model})
	_, err := agent.Then(context.Background(), found, count, agent.Options{LLM: model})
	fmt.Println(err)
	// Output: agent: chained_failure: the previous step failed: unavailable: the tracker is down
}

// A compiled agent saved by a colleague, loaded with the Go tools it needs
// and used as a tool: its program runs with no LLM.
func ExampleLoadCompiled() {
	saved := []byte(`{
  "format": "ptc-compiled-agent/1",
  "source": "(return {:total (reduce + (map :price (tool/prices {:skus ctx/skus})))})",
  "signature": "(skus [:string]) -> {total :float}",
  "description": "Totals the prices of a basket.",
  "prompt": "Total the basket {{skus}}",
  "tools": ["prices"],
  "float_precision": 2,
  "limits": {"timeout_ms": 1000},
  "metadata": {"compiled_at": "2026-11-01T10:00:00Z", "model": "sonnet",
    "usage": {"turns": 2, "llm_requests": 2, "tokens": {"input": 3100, "output": 120}}}
}`)
	prices := agent.Tool{Func: func(_ context.Context, args *lisp.Map) (any, error) {
		skus, _ := args.Get(lisp.Keyword("skus"))
		var out []map[string]any
		for _, s := range skus.(*lisp.Vector).Items() {
			out = append(out, map[string]any{"sku": s, "price": 2.5})
		}
		return out, nil
	}}

	total, err := agent.LoadCompiled(saved, map[string]agent.Tool{"prices": prices})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(total.CompiledBy(), total.CompiledAt().Format("2006-01-02"))
	totalTool, _ := total.AsTool(agent.AsToolOptions{})
	shop := agent.MustNew(agent.Config{Prompt: "Price the baskets", Tools: map[string]agent.Tool{"total": totalTool}})
	model := scripted(map[string]string{"Price": `(return (mapv #(:total (tool/total {:skus %})) ctx/baskets))`})
	step, err := shop.Run(context.Background(), agent.Options{LLM: model,
		Input: map[string]any{"baskets": [][]string{{"a", "b"}, {"c"}}}})
	fmt.Println(lisp.Print(step.Return, lisp.PrintOptions{}), err, step.TotalUsage.LLMRequests, "LLM request")
	// Output:
	// sonnet 2026-11-01
	// [5.0 2.5] <nil> 1 LLM request
}

// Must is the seeds' run! and then!: the Step, or a panic with the error.
// Here the finder's Step lacks the field the counter's signature requires,
// and the counter fails before its LLM is called.
func ExampleMust() {
	find := agent.MustNew(agent.Config{Prompt: "Find the open tickets", Signature: "{ids [:int]}"})
	count := agent.MustNew(agent.Config{Prompt: "Count the tickets", Signature: "(ids [:int]) -> :int"})
	model := scripted(map[string]string{
		"Find":  `(return {:ids [4 8 15]})`,
		"Count": `(return (count ctx/ids))`,
	})
	ctx, opts := context.Background(), agent.Options{LLM: model}
	counted := agent.Must(agent.Then(ctx, agent.Must(find.Run(ctx, opts)), count, opts))
	fmt.Println(lisp.Print(counted.Return, lisp.PrintOptions{}))

	defer func() {
		var ae *agent.Error
		fmt.Println(errors.As(recover().(error), &ae), ae.Step.Fail.Reason)
	}()
	other := agent.MustNew(agent.Config{Prompt: "Find the tickets", Signature: "{tickets [:int]}"})
	otherModel := scripted(map[string]string{"Find": `(return {:tickets [1]})`, "Count": `(return 0)`})
	agent.Must(agent.Then(ctx, agent.Must(other.Run(ctx, agent.Options{LLM: otherModel})), count, agent.Options{LLM: otherModel}))
	// Output:
	// 3
	// true validation_error
}
