package agent

import (
	"context"
	"testing"

	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm/llmtest"
)

// Programs whose string literals span lines (Clojure allows it, and LLMs
// write data that way) come out of a reply whole.
func TestExtractMultiLineStrings(t *testing.T) {
	tests := []struct{ name, reply, want string }{
		{"fenced", "Here:\n```clojure\n(def csv \"a,b\n1,2\n(x)\")\n(count csv)\n```\nDone.",
			"(def csv \"a,b\n1,2\n(x)\")\n(count csv)"},
		{"bare forms, code-like and prose lines inside the string",
			"Let me see.\n(def log \"ERROR disk\nnot code )] at all\n  (x\")\n(count log)\nThat counts it.",
			"(def log \"ERROR disk\nnot code )] at all\n  (x\")\n(count log)"},
		{"bare forms, a string open at depth 0",
			"(def a 1) \"a note\nsecond line\"\n(+ a 1)\nDone.",
			"(def a 1) \"a note\nsecond line\"\n(+ a 1)"},
	}
	for _, tt := range tests {
		if got := extractCode(tt.reply); got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
		}
	}
}

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
	if got := lisp.PrintString(step.Return); got != `[["ann" "31"] ["bob" "42"]]` {
		t.Errorf("return %s", got)
	}
}
