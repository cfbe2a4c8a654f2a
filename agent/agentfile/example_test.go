package agentfile_test

import (
	"context"
	"fmt"
	"testing/fstest"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/agent/agentfile"
	"github.com/ptc-go/ptc/llm/llmtest"
)

func Example() {
	fsys := fstest.MapFS{
		"agents/count.md": {Data: []byte(`---
signature: (items [:int]) -> :int
max-turns: 2
context: items.json
---
Count the items in ctx/items.
`)},
		"agents/items.json": {Data: []byte(`{"items": [3, 1, 2]}`)},
	}
	f, err := agentfile.Load(fsys, "agents/count.md")
	if err != nil {
		fmt.Println(err)
		return
	}
	a, err := f.NewAgent(f.Config)
	if err != nil {
		fmt.Println(err)
		return
	}
	input, err := f.Context()
	if err != nil {
		fmt.Println(err)
		return
	}
	model := llmtest.NewScript(llmtest.Code("(return (count ctx/items))"))
	step, _ := a.Run(context.Background(), agent.Options{LLM: model.Func(), Input: input})
	fmt.Println(f.Config.MaxTurns, step.Return)

	_, err = agentfile.Parse("bad.md", []byte("---\nmax-turn: 3\n---\nP"))
	fmt.Println(err)
	// Output:
	// 2 3
	// bad.md:2:1: unknown key "max-turn" (did you mean max-turns?)
}
