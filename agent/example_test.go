package agent_test

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm"
	"github.com/ptc-go/ptc/llm/llmtest"
)

// A multi-turn mission: the scripted model explores, then returns a value
// that the signature checks. A real model is any llm.Func.
func ExampleAgent_Run() {
	a := agent.MustNew(agent.Config{
		Prompt:    "How many {{kind}} items are in stock?",
		Signature: "(kind :string) -> {count :int}",
		Tools: map[string]agent.Tool{
			"stock": agent.Tool{Func: func(ctx context.Context, args *lisp.Map) (any, error) {
				return []map[string]any{{"kind": "tool", "qty": 3}, {"kind": "toy", "qty": 0}, {"kind": "tool", "qty": 5}}, nil
			}},
		},
	})
	model := llmtest.NewScript(
		llmtest.Code(`(def rows (tool/stock {})) (println (count rows) "rows")`),
		llmtest.Code(`(return {:count (sum-by :qty (filter #(= (:kind %) ctx/kind) rows))})`),
	)
	step, err := a.Run(context.Background(), agent.Options{LLM: model.Func(), Input: map[string]any{"kind": "tool"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(lisp.Print(step.Return, lisp.PrintOptions{}), step.Usage.Turns, "turns")
	fmt.Println("feedback of turn 1:", strings.Fields(model.LastMessage(1))[0:3])
	// Output:
	// {:count 8} 2 turns
	// feedback of turn 1: [Value: nil Output:]
}

// A single-shot agent (MaxTurns 1, no tools) makes one LLM call; the
// program's value is the answer.
func ExampleAgent_Run_singleShot() {
	model := llmtest.NewScript(llmtest.Code(`(->> ctx/words (map count) (apply max))`))
	step, err := agent.MustNew(agent.Config{Prompt: "Length of the longest word?", Signature: "-> :int", MaxTurns: 1}).Run(context.Background(),
		agent.Options{LLM: model.Func(), Input: map[string]any{"words": []string{"go", "lisp", "agents"}}})
	fmt.Println(lisp.Print(step.Return, lisp.PrintOptions{}), err)
	// Output: 6 <nil>
}

// New validates a definition and returns a *Fail naming the field (Op).
func ExampleNew() {
	_, err := agent.New(agent.Config{Prompt: "Summarize {{doc}}", Signature: "(text :string) -> :string"})
	var ce *agent.Fail
	fmt.Println(errors.As(err, &ce), ce.Op)
	_, err = agent.New(agent.Config{Prompt: "x", Tools: map[string]agent.Tool{"return": agent.Tool{Func: nil}}})
	fmt.Println(errors.Is(err, agent.ReasonReservedToolName))
	// Output:
	// true Prompt
	// true
}

// A failed mission returns its Step and an *agent.Error wrapping it.
func ExampleError() {
	model := llmtest.NewScript(llmtest.Code(`(fail {:reason :not_found :message "no such user"})`))
	_, err := agent.MustNew(agent.Config{Prompt: "Find the user", MaxTurns: 3}).Run(context.Background(),
		agent.Options{LLM: model.Func()})
	var ae *agent.Error
	if errors.As(err, &ae) {
		fmt.Println(ae.Step.Fail.Reason, "-", ae.Step.Fail.Message)
	}
	// Output: not_found - no such user
}

// A Step given as the context of the next run chains the agents: its
// return value becomes ctx, its signature the context's signature.
func ExampleOptions_chaining() {
	model := llmtest.NewScript(llmtest.Code(`{:total (* 2 ctx/n)}`), llmtest.Code(`(str "total: " ctx/total)`))
	double := agent.MustNew(agent.Config{Prompt: "Double {{n}}", Signature: "(n :int) -> {total :int}", MaxTurns: 1})
	report := agent.MustNew(agent.Config{Prompt: "Report {{total}}", Signature: "(total :int) -> :string", MaxTurns: 1})
	s1, _ := double.Run(context.Background(), agent.Options{LLM: model.Func(), Input: map[string]any{"n": 21}})
	s2, err := report.Run(context.Background(), agent.Options{LLM: model.Func(), Input: s1})
	fmt.Println(lisp.Print(s2.Return, lisp.PrintOptions{}), err)
	// Output: "total: 42" <nil>
}

// Step.Decode fills a Go value from the return value, by JSON field names;
// firewalled fields are included.
func ExampleStep_Decode() {
	model := llmtest.NewScript(llmtest.Code(`{:name "ann" :_ids [1 2]}`))
	step, _ := agent.MustNew(agent.Config{Prompt: "Who?", Signature: "-> {name :string, _ids [:int]}", MaxTurns: 1}).Run(context.Background(),
		agent.Options{LLM: model.Func()})
	var out struct {
		Name string `json:"name"`
		IDs  []int  `json:"_ids"`
	}
	err := step.Decode(&out)
	fmt.Println(out.Name, out.IDs, err)
	// Output: ann [1 2] <nil>
}

// A typed tool in one call: the signature the LLM sees comes from the Go
// types, and the program's arguments are decoded into the struct.
func ExampleNewTool() {
	type query struct {
		City string `json:"city"`
	}
	type weather struct {
		TempC float64 `json:"temp_c"`
	}
	a := agent.MustNew(agent.Config{
		Prompt:    "How warm is it in {{city}}?",
		Signature: "(city :string) -> :float",
		Tools: map[string]agent.Tool{
			"weather": agent.NewTool("Current weather of a city.", func(ctx context.Context, q query) (weather, error) {
				return weather{TempC: map[string]float64{"Oslo": 4.5}[q.City]}, nil
			}),
		},
	})
	model := llmtest.NewScript(llmtest.Code(`(return (:temp_c (tool/weather {:city ctx/city})))`))
	step, err := a.Run(context.Background(), agent.Options{LLM: model.Func(), Input: map[string]any{"city": "Oslo"}})
	fmt.Println(a.Config().Tools["weather"].Signature)
	fmt.Println(lisp.Print(step.Return, lisp.PrintOptions{}), err)
	// Output:
	// (city :string) -> {temp_c :float}
	// 4.5 <nil>
}

// Models can be named and resolved in a registry, which agents called as
// tools inherit.
func ExampleOptions_registry() {
	fast := llmtest.NewScript(llmtest.Code(`(+ 1 2)`))
	reg := llm.Registry{"fast": fast.Func()}
	step, err := agent.MustNew(agent.Config{Prompt: "Add", MaxTurns: 1}).Run(context.Background(),
		agent.Options{LLM: llm.Name("fast"), Registry: reg})
	fmt.Println(lisp.Print(step.Return, lisp.PrintOptions{}), err)
	_, err = agent.MustNew(agent.Config{Prompt: "Add", MaxTurns: 1}).Run(context.Background(),
		agent.Options{LLM: llm.Name("slow"), Registry: reg})
	fmt.Println(err)
	// Output:
	// 3 <nil>
	// agent: llm_not_found: LLM "slow" is not in the registry (it has: fast)
}
