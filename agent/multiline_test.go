package agent

import (
	"context"
	"testing"

	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm/llmtest"
)

func TestRunMultiLineString(t *testing.T) {
	s := llmtest.NewScript(llmtest.Code("(def rows \"ann,31\nbob,42\")\n(return (mapv #(str/split % #\",\") (str/split-lines rows)))"))
	a, err := New(Config{Prompt: "Parse the rows", MaxTurns: 1})
	if err != nil {
		t.Fatal(err)
	}
	step, err := a.Run(context.Background(), Options{LLM: s.Func()})
	if err != nil {
		t.Fatal(err)
	}
	if got := lisp.Print(step.Return, lisp.PrintOptions{}); got != `[["ann" "31"] ["bob" "42"]]` {
		t.Errorf("return %s", got)
	}
}
