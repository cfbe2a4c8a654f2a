package agent_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm/llmtest"
)

// An agent keeps the programs its missions ran: a second mission that
// sends the same text does not compile it again, and its events say so.
func TestAgentCompileCacheAcrossMissions(t *testing.T) {
	a := agent.MustNew(agent.Config{Prompt: "Sum.", Signature: "-> :int"})
	const prog = `(def xs [1 2 3])`
	run := func() (*agent.Step, []*agent.Event) {
		var mu sync.Mutex
		var events []*agent.Event
		obs := agent.ObserverFunc(func(_ context.Context, e *agent.Event) {
			mu.Lock()
			events = append(events, e)
			mu.Unlock()
		})
		s := llmtest.NewScript(llmtest.Code(prog), llmtest.Code(`(return (reduce + xs))`))
		step, err := a.Run(context.Background(), agent.Options{LLM: s.Func(), Observers: []agent.Observer{obs}, Trace: agent.TraceOn})
		if err != nil {
			t.Fatal(err)
		}
		return step, events
	}
	first, _ := run()
	if u := first.Usage; u.Programs != 2 || u.CachedPrograms != 0 {
		t.Fatalf("first mission: %d programs, %d cached", u.Programs, u.CachedPrograms)
	}
	second, events := run()
	if u := second.Usage; u.Programs != 2 || u.CachedPrograms != 2 {
		t.Fatalf("second mission: %d programs, %d cached", u.Programs, u.CachedPrograms)
	}
	if second.Trace[0].Usage.CachedPrograms != 1 || second.Trace[1].Usage.CachedPrograms != 1 {
		t.Fatalf("turns not marked cached: %+v", second.Trace)
	}
	var turnStops int
	for _, e := range events {
		switch e.Kind {
		case agent.TurnStop:
			turnStops++
			if e.Usage.CachedPrograms != 1 {
				t.Fatalf("turn %d: event not marked cached", e.Turn)
			}
			js, _ := json.Marshal(e)
			if !strings.Contains(string(js), `"cached":true`) {
				t.Fatalf("turn.stop JSON: %s", js)
			}
		case agent.RunStop:
			js, _ := json.Marshal(e)
			if !strings.Contains(string(js), `"cached_programs":2`) || !strings.Contains(string(js), `"programs":2`) {
				t.Fatalf("run.stop JSON: %s", js)
			}
		}
	}
	if turnStops != 2 {
		t.Fatalf("%d turn.stop events", turnStops)
	}
}

// Options.CompileCache is one cache for a tree of agents and for every
// agent given it: a program one agent compiled, another finds.
func TestSharedCompileCacheAcrossAgentsAndTree(t *testing.T) {
	cache := new(lisp.Cache)
	const childProg = `(return (* 2 ctx/n))`
	child := agent.MustNew(agent.Config{Name: "double", Prompt: "Double {{n}}.", Signature: "(n :int) -> :int"})
	tool, err := child.AsTool(agent.AsToolOptions{Description: "Doubles n."})
	if err != nil {
		t.Fatal(err)
	}
	parent := agent.MustNew(agent.Config{Prompt: "Double 3 and 4.", Signature: "-> [:int]",
		Tools: map[string]agent.Tool{"double": tool}})
	s := llmtest.NewScript(
		llmtest.Code(`(return [(tool/double {:n 3}) (tool/double {:n 4})])`),
		llmtest.Code(childProg), llmtest.Code(childProg))
	step, err := parent.Run(context.Background(), agent.Options{LLM: s.Func(), CompileCache: cache})
	if err != nil {
		t.Fatal(err)
	}
	if got := lisp.Print(step.Return, lisp.PrintOptions{}); got != "[6 8]" {
		t.Fatalf("return %s", got)
	}
	// Three programs ran: the parent's and the child's twice, compiled once.
	if u := step.TotalUsage; u.Programs != 3 || u.CachedPrograms != 1 {
		t.Fatalf("tree: %d programs, %d cached", u.Programs, u.CachedPrograms)
	}
	if st := cache.Stats(); st.Misses != 2 || st.Hits != 1 {
		t.Fatalf("cache %+v", st)
	}
	// Another agent given the cache finds the child's program.
	other := agent.MustNew(agent.Config{Prompt: "Double {{n}}.", Signature: "(n :int) -> :int"})
	s = llmtest.NewScript(llmtest.Code(childProg))
	step, err = other.Run(context.Background(), agent.Options{LLM: s.Func(), CompileCache: cache, Input: map[string]any{"n": 5}})
	if err != nil || step.Usage.CachedPrograms != 1 {
		t.Fatalf("other agent: %v, %+v", err, step.Usage)
	}
}

// A compiling mission's final program is compiled once: the Compile that
// keeps it finds it in the cache.
func TestCompileKeepsTheRunProgram(t *testing.T) {
	cache := new(lisp.Cache)
	a := agent.MustNew(agent.Config{Prompt: "Add.", Signature: "(a :int, b :int) -> :int"})
	s := llmtest.NewScript(llmtest.Code(`(return (+ ctx/a ctx/b))`))
	ca, err := a.Compile(context.Background(), agent.Options{LLM: s.Func(), CompileCache: cache,
		Input: map[string]any{"a": 1, "b": 2}})
	if err != nil {
		t.Fatal(err)
	}
	if st := cache.Stats(); st.Misses != 1 {
		t.Fatalf("cache %+v: the final program was compiled again", st)
	}
	step, err := ca.Execute(context.Background(), map[string]any{"a": 4, "b": 5})
	if err != nil || step.Return != int64(9) {
		t.Fatalf("%v %v", step, err)
	}
}

// A turn whose program does not compile counts as a program, never as a
// cached one: errors are not kept.
func TestCompileCacheCountsFailedPrograms(t *testing.T) {
	a := agent.MustNew(agent.Config{Prompt: "One.", Signature: "-> :int"})
	for i := 0; i < 2; i++ {
		s := llmtest.NewScript(llmtest.Code(`(+ 1`), llmtest.Code(`(return 1)`))
		step, err := a.Run(context.Background(), agent.Options{LLM: s.Func()})
		if err != nil {
			t.Fatal(err)
		}
		want := map[int]int{0: 0, 1: 1}[i] // the second mission's (return 1) is cached
		if u := step.Usage; u.Programs != 2 || u.CachedPrograms != want {
			t.Fatalf("mission %d: %d programs, %d cached, want 2 and %d", i+1, u.Programs, u.CachedPrograms, want)
		}
	}
}
