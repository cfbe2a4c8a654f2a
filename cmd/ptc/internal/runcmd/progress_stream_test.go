package runcmd

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/cmd/ptc/internal/base"
	"github.com/ptc-go/ptc/llm"
)

// A streamed reply's program is printed line by line as the model
// finishes each line, each line once; the reply's end prints the rest.
func TestProgressShowsProgramAsWritten(t *testing.T) {
	var out bytes.Buffer
	p := newProgress(&base.SyncWriter{W: &out}, 5)
	reply := "Counting.\n```clojure\n(def n (count ctx/items))\n(println n)\n(return n)\n```\nDone, and more."
	var lines []string
	for _, cut := range []int{5, 20, 30, 48, 60, 75, len(reply)} {
		p.llmWriting(1, reply[:cut])
		lines = append(lines, out.String())
	}
	p.llmReplied(1, reply, llm.Tokens{}, nil)
	want := "    (def n (count ctx/items))\n    (println n)\n    (return n)\n"
	if out.String() != want {
		t.Errorf("printed\n%s\nwant\n%s", out.String(), want)
	}
	// The first line was shown before the reply ended.
	if !strings.Contains(lines[3], "(def n (count ctx/items))") || strings.Contains(lines[3], "(return n)") {
		t.Errorf("after 48 bytes, printed %q", lines[3])
	}
}

// When the reply's program is not what its lines so far suggested, the
// program is printed whole when the reply ends.
func TestProgressProgramChanged(t *testing.T) {
	var out bytes.Buffer
	p := newProgress(&base.SyncWriter{W: &out}, 5)
	p.llmWriting(1, "```clojure\n(inc 1)\n(dec")
	p.llmReplied(1, "```clojure\n(inc 2)\n```", llm.Tokens{}, nil)
	if got := out.String(); got != "    (inc 1)\n  (the program, as the reply ended:)\n    (inc 2)\n" {
		t.Errorf("printed %q", got)
	}
}

// A tool-calling-mode reply shows as its calls, a line each.
func TestProgressShowsToolCalls(t *testing.T) {
	var out bytes.Buffer
	p := &progressObserver{ev: newProgress(&base.SyncWriter{W: &out}, 5)}
	p.Observe(context.Background(), &agent.Event{Kind: agent.LLMStop, Turn: 1, Reply: &llm.Response{ToolCalls: []llm.Message{
		{Role: llm.Assistant, ToolName: "search", Content: `{"q": "x"}`}, {Role: llm.Assistant, ToolName: "return", Content: `{"value": 1}`}}}})
	if got := out.String(); got != "    (tool/search {\"q\": \"x\"})\n    (tool/return {\"value\": 1})\n" {
		t.Errorf("printed %q", got)
	}
}
