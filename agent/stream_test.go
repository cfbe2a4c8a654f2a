package agent_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/agent/trace"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm"
	"github.com/ptc-go/ptc/llm/adapter"
	"github.com/ptc-go/ptc/llm/llmtest"
)

// A model that streams shows observers its reply as it writes it
// (llm.chunk events, each the reply so far, growing, throttled), and the
// agent stops the reply once it holds a whole program: what the model
// would write after is neither generated nor read.
func TestStreamedReplyStopsAtProgram(t *testing.T) {
	chatter := strings.Repeat("Now let me explain what this program does, line by line. ", 40)
	reply := "I will count them.\n```clojure\n(return {:n (count ctx/items)})\n```\n" + chatter
	model := llmtest.NewScript(llmtest.Text(reply))
	model.StreamBytes = 16
	rec := &recorder{}
	a := agent.MustNew(agent.Config{Prompt: "Count the items.", Signature: "{n :int}"})
	step, err := a.Run(context.Background(), agent.Options{LLM: model.Func(), Input: map[string]any{"items": []int{1, 2, 3}},
		Observers: []agent.Observer{rec}})
	if err != nil || lisp.Print(step.Return, lisp.PrintOptions{}) != "{:n 3}" {
		t.Fatalf("step %v, err %v", step, err)
	}

	var chunks []string
	var stop *agent.Event
	for i, e := range rec.events {
		switch e.Kind {
		case agent.LLMChunk:
			chunks = append(chunks, e.Reply.Content)
		case agent.LLMStop:
			stop = &rec.events[i]
		}
	}
	program := "I will count them.\n```clojure\n(return {:n (count ctx/items)})\n```"
	if stop == nil || stop.Reply.FinishReason != adapter.FinishStoppedEarly || !strings.HasPrefix(stop.Reply.Content, program) ||
		len(stop.Reply.Content) > len(program)+16 {
		t.Fatalf("llm.stop: %+v", stop)
	}
	if len(chunks) == 0 || len(chunks) > len(stop.Reply.Content)/16+1 {
		t.Fatalf("%d chunk events for a reply of %d bytes", len(chunks), len(stop.Reply.Content))
	}
	for i, c := range chunks {
		if !strings.HasPrefix(stop.Reply.Content, c) || (i > 0 && len(c) <= len(chunks[i-1])) {
			t.Fatalf("chunk %d %q is not the reply so far, growing", i, c)
		}
	}
	if got := chunks[len(chunks)-1]; got != stop.Reply.Content {
		t.Errorf("the last chunk %q is not the reply the model stopped at %q", got, stop.Reply.Content)
	}
	if strings.Contains(stop.Reply.Content, "line by line") {
		t.Error("the reply was not stopped at its program")
	}
}

// The mission's value is the program's, and the conversation keeps the
// reply as it was stopped.
func TestStreamedMission(t *testing.T) {
	model := llmtest.NewScript(
		llmtest.Text("```clojure\n(def n (count ctx/items))\n```\nThat stores the count; next I will return it, "+strings.Repeat("and more. ", 50)),
		llmtest.Text("```clojure\n(return {:n n})\n```\nDone."),
	)
	model.StreamBytes = 7
	a := agent.MustNew(agent.Config{Prompt: "Count the items.", Signature: "{n :int}"})
	step, err := a.Run(context.Background(), agent.Options{LLM: model.Func(), Input: map[string]any{"items": []int{1, 2, 3}}})
	if err != nil {
		t.Fatal(err)
	}
	if got := lisp.Print(step.Return, lisp.PrintOptions{}); got != "{:n 3}" {
		t.Errorf("return %s", got)
	}
	reqs := model.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	if m := reqs[1].Messages[1]; m.Role != llm.Assistant || strings.Contains(m.Content, "and more") ||
		!strings.HasPrefix(m.Content, "```clojure\n(def n (count ctx/items))\n```") {
		t.Errorf("the conversation keeps the reply %q", m.Content)
	}
	// The tokens of a stopped reply are those of what was written.
	if got, want := step.Trace[0].Usage.Tokens.Output, (len(reqs[1].Messages[1].Content)+3)/4; got != want {
		t.Errorf("turn 1's output tokens %d, want %d", got, want)
	}
}

// A chunk event shows the reply scrubbed as a whole: a firewalled text the
// model echoes, cut between pieces, never reaches an observer that is not
// Raw, in a chunk or in the llm.stop.
func TestStreamedChunksScrubbed(t *testing.T) {
	model := llmtest.NewScript(
		llmtest.Code(`(def v (tool/vault {}))`),
		llmtest.Text("The key was "+eventSecret+", I saw it.\n```clojure\n(return {:ok true})\n```"),
	)
	model.StreamBytes = 5
	rec := &recorder{}
	a := agent.MustNew(agent.Config{Prompt: "Open the vault.", Signature: "{ok :bool}",
		Tools: map[string]agent.Tool{"vault": {Func: func(context.Context, *lisp.Map) (any, error) {
			return map[string]any{"_key": eventSecret}, nil
		}, Description: "Opens the vault."}}})
	if _, err := a.Run(context.Background(), agent.Options{LLM: model.Func(), Observers: []agent.Observer{rec}}); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range rec.events {
		if e.Reply == nil {
			continue
		}
		if e.Kind == agent.LLMChunk {
			n++
		}
		for i := 0; i+8 <= len(eventSecret); i++ {
			if strings.Contains(e.Reply.Content, eventSecret[i:i+8]) {
				t.Fatalf("%s shows part of the firewalled text: %q", e.Kind, e.Reply.Content)
			}
		}
	}
	if n == 0 {
		t.Error("no chunk events")
	}
}

// The slog observer logs a streamed call once, at its llm.stop: no chunk.
func TestSlogObserverSkipsChunks(t *testing.T) {
	var buf strings.Builder
	logger := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	model := llmtest.NewScript(llmtest.Text("```clojure\n(return {:n 1})\n```\n" + strings.Repeat("and so on ", 100)))
	model.StreamBytes = 8
	a := agent.MustNew(agent.Config{Prompt: "One.", Signature: "{n :int}"})
	if _, err := a.Run(context.Background(), agent.Options{LLM: model.Func(), Observers: []agent.Observer{trace.NewSlogObserver(logger)}}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), "llm.chunk") || !strings.Contains(buf.String(), "llm.stop") {
		t.Errorf("log:\n%s", buf.String())
	}
}
