package agent_test

import (
	"context"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/internal/engine"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm"
	"github.com/ptc-go/ptc/llm/llmtest"
)

// fakeClock is an engine's clock: it moves only when the engine says so.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

var clockStart = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func newFakeClock() *fakeClock { return &fakeClock{t: clockStart} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// at is the instant d after the clock's start.
func at(d time.Duration) time.Time { return clockStart.Add(d) }

// eventLog records the events of a mission.
type eventLog struct {
	mu     sync.Mutex
	events []agent.Event
}

func (l *eventLog) Observe(_ context.Context, e *agent.Event) {
	l.mu.Lock()
	l.events = append(l.events, *e)
	l.mu.Unlock()
}

func (l *eventLog) of(kind agent.EventKind) []agent.Event {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []agent.Event
	for _, e := range l.events {
		if e.Kind == kind {
			out = append(out, e)
		}
	}
	return out
}

// With Hooks.Now, what a mission records as a time or a duration reads
// the engine's clock: each LLM call here takes 2 s of it, the first tool
// call 3 s; the calls answered without moving the clock keep the durations
// the engine gives them (ToolResult.Duration): pmap's two calls, answered
// together, an agent tool's and a compiled agent's.
func TestHooksNow(t *testing.T) {
	clk := newFakeClock()
	model := llmtest.NewScript(
		llmtest.Code(`[(tool/slow {:n 1}) (tool/kid {:x 1}) (tool/comp {:x 1})]`),
		llmtest.Code(`(pmap (fn [n] (tool/par {:n n})) [1 2])`),
		llmtest.Code(`(return (count *1))`))
	noTool := func(context.Context, *lisp.Map) (any, error) {
		t.Error("the tool ran despite the hook")
		return nil, nil
	}
	kid := agent.MustNew(agent.Config{Prompt: "Kid {{x}}", Description: "A kid.", Signature: "(x :int) -> :int"})
	kidTool, err := kid.AsTool(agent.AsToolOptions{})
	if err != nil {
		t.Fatal(err)
	}
	comp, err := kid.CompileSource(`ctx/x`)
	if err != nil {
		t.Fatal(err)
	}
	compTool, err := comp.AsTool(agent.AsToolOptions{})
	if err != nil {
		t.Fatal(err)
	}
	a := agent.MustNew(agent.Config{Prompt: "Go", MaxTurns: 5, Tools: map[string]agent.Tool{
		"slow": {Func: noTool, Signature: "(n :int) -> :int"},
		"par":  {Func: noTool, Signature: "(n :int) -> :int"},
		"kid":  kidTool,
		"comp": compTool,
	}})
	hooks := &engine.Hooks{
		Now: clk.Now,
		LLM: func(ctx context.Context, call engine.LLMCall) (engine.LLMReply, error) {
			clk.advance(2 * time.Second)
			resp, err := model.Func()(ctx, call.Request)
			return engine.LLMReply{Response: resp}, err
		},
		Tool: func(ctx context.Context, call engine.ToolRequest) (engine.ToolResult, error) {
			n, _ := call.Args.Get(lisp.Keyword("n"))
			switch call.Name {
			case "slow":
				clk.advance(3 * time.Second)
				return engine.ToolResult{Value: n}, nil
			case "kid":
				return engine.ToolResult{Step: &agent.Step{Return: int64(1),
					TotalUsage: agent.Usage{Turns: 1, Duration: 6 * time.Second}}, Duration: 6 * time.Second}, nil
			case "comp":
				return engine.ToolResult{Value: int64(1), Duration: time.Second}, nil
			}
			return engine.ToolResult{Value: n, Duration: time.Duration(n.(int64)) * 4 * time.Second}, nil
		},
	}
	var budgetTimes []time.Duration
	log := &eventLog{}
	step, err := a.Run(engine.WithHooks(context.Background(), hooks), agent.Options{Observers: []agent.Observer{log},
		Budget: func(u agent.Usage) bool {
			budgetTimes = append(budgetTimes, u.Duration)
			return true
		}})
	if err != nil {
		t.Fatal(err)
	}
	if step.Usage.Duration != 9*time.Second || step.TotalUsage.Duration != 15*time.Second {
		t.Errorf("usage duration %v, total %v; want 9s, 9s + the kid's 6s", step.Usage.Duration, step.TotalUsage.Duration)
	}
	turns := []struct{ duration, llm time.Duration }{{5 * time.Second, 2 * time.Second},
		{2 * time.Second, 2 * time.Second}, {2 * time.Second, 2 * time.Second}}
	if len(step.Trace) != len(turns) {
		t.Fatalf("%d turns", len(step.Trace))
	}
	for i, want := range turns {
		if tr := step.Trace[i]; tr.Usage.Duration != want.duration || tr.LLMDuration != want.llm {
			t.Errorf("turn %d: duration %v, LLM %v; want %v, %v", i+1, tr.Usage.Duration, tr.LLMDuration, want.duration, want.llm)
		}
	}
	type call struct {
		start    time.Time
		duration time.Duration
	}
	calls := func(tcs []agent.ToolCall) []call {
		out := make([]call, len(tcs))
		for i, c := range tcs {
			out[i] = call{c.Start, c.Duration}
		}
		sort.Slice(out, func(i, j int) bool { return out[i].duration < out[j].duration }) // pmap's in any order
		return out
	}
	for i, want := range [][]call{
		{{at(5 * time.Second), time.Second}, {at(2 * time.Second), 3 * time.Second}, {at(5 * time.Second), 6 * time.Second}},
		{{at(7 * time.Second), 4 * time.Second}, {at(7 * time.Second), 8 * time.Second}},
	} {
		got := calls(step.Trace[i].ToolCalls)
		if len(got) != len(want) {
			t.Fatalf("turn %d: calls %+v", i+1, got)
		}
		for j := range want {
			if !got[j].start.Equal(want[j].start) || got[j].duration != want[j].duration {
				t.Errorf("turn %d, call %d: %v for %v; want %v for %v", i+1, j, got[j].start, got[j].duration,
					want[j].start, want[j].duration)
			}
		}
	}
	// Events read the same clock.
	var starts []time.Time
	for _, e := range log.of(agent.TurnStart) {
		starts = append(starts, e.Time)
	}
	if len(starts) != 3 || !starts[0].Equal(at(0)) || !starts[1].Equal(at(5*time.Second)) || !starts[2].Equal(at(7*time.Second)) {
		t.Errorf("turn starts %v", starts)
	}
	var toolTimes []time.Duration
	for _, e := range log.of(agent.ToolStop) {
		toolTimes = append(toolTimes, e.Duration)
	}
	sort.Slice(toolTimes, func(i, j int) bool { return toolTimes[i] < toolTimes[j] })
	if len(toolTimes) != 5 || toolTimes[0] != time.Second || toolTimes[1] != 3*time.Second ||
		toolTimes[2] != 4*time.Second || toolTimes[3] != 6*time.Second || toolTimes[4] != 8*time.Second {
		t.Errorf("tool.stop durations %v", toolTimes)
	}
	if stops := log.of(agent.RunStop); len(stops) != 1 || stops[0].Duration != 9*time.Second {
		t.Errorf("run.stop %+v", stops)
	}
	// The Budget callback, asked after each LLM call, is given the
	// clock's time since the mission started.
	if len(budgetTimes) != 3 || budgetTimes[0] != 2*time.Second || budgetTimes[1] != 7*time.Second ||
		budgetTimes[2] != 9*time.Second {
		t.Errorf("budget durations %v", budgetTimes)
	}
}

// The missions that run in-process under a mission with Hooks.Now read
// its clock: an agent tool (whose model takes 1 s of it) and a compiled
// agent (whose Go tool takes 5 s). The other hooks are not inherited: the
// child calls its own model, and no tool's context carries them.
func TestHooksNowInherited(t *testing.T) {
	clk := newFakeClock()
	childModel := &llmtest.Script{Respond: func(llm.Request) llmtest.Reply {
		clk.advance(time.Second)
		return llmtest.Code(`(return (* 2 ctx/x))`)
	}}
	child := agent.MustNew(agent.Config{Prompt: "Double {{x}}", Description: "Doubles.", Signature: "(x :int) -> :int",
		LLM: childModel.Func()})
	childTool, err := child.AsTool(agent.AsToolOptions{})
	if err != nil {
		t.Fatal(err)
	}
	inner := agent.MustNew(agent.Config{Prompt: "Inner", Description: "Waits.", Signature: "(x :int) -> :int",
		Tools: map[string]agent.Tool{"wait": {Func: func(ctx context.Context, _ *lisp.Map) (any, error) {
			if engine.HooksFrom(ctx) != nil {
				t.Error("a tool's context carries the hooks: a mission it runs would inherit them")
			}
			clk.advance(5 * time.Second)
			return 3, nil
		}, Signature: "() -> :int"}}})
	compiled, err := inner.CompileSource(`(+ ctx/x (tool/wait {}))`)
	if err != nil {
		t.Fatal(err)
	}
	compTool, err := compiled.AsTool(agent.AsToolOptions{})
	if err != nil {
		t.Fatal(err)
	}
	model := llmtest.NewScript(llmtest.Code(`[(tool/child {:x 1}) (tool/comp {:x 1})]`), llmtest.Code(`(return *1)`))
	a := agent.MustNew(agent.Config{Prompt: "Go", MaxTurns: 3, Tools: map[string]agent.Tool{"child": childTool, "comp": compTool}})
	// The engine moves its clock 2 s for each LLM call, and says the
	// model took 1.5 s of them (the rest was its own: a replay, a queue).
	hooks := &engine.Hooks{Now: clk.Now, LLM: func(ctx context.Context, call engine.LLMCall) (engine.LLMReply, error) {
		clk.advance(2 * time.Second)
		resp, err := model.Func()(ctx, call.Request)
		return engine.LLMReply{Response: resp, Took: 1500 * time.Millisecond}, err
	}}
	step, err := a.Run(engine.WithHooks(context.Background(), hooks), agent.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if printed(step.Return) != "[2 4]" {
		t.Fatalf("return %s", printed(step.Return))
	}
	// 2 s (LLM) + 1 s (child) + 5 s (compiled) + 2 s (LLM).
	if step.Usage.Duration != 10*time.Second || step.TotalUsage.Duration != 16*time.Second {
		t.Errorf("usage %v, total %v; want 10s, 16s", step.Usage.Duration, step.TotalUsage.Duration)
	}
	for i, turn := range step.Trace {
		if turn.LLMDuration != 1500*time.Millisecond {
			t.Errorf("turn %d's LLM call: %v, want the 1.5s the engine measured", i+1, turn.LLMDuration)
		}
	}
	calls := step.Trace[0].ToolCalls
	if len(calls) != 2 {
		t.Fatalf("calls %+v", calls)
	}
	for i, want := range []struct {
		start           time.Time
		duration, child time.Duration
	}{{at(2 * time.Second), time.Second, time.Second}, {at(3 * time.Second), 5 * time.Second, 5 * time.Second}} {
		c := calls[i]
		if !c.Start.Equal(want.start) || c.Duration != want.duration || c.Child == nil ||
			c.Child.Usage.Duration != want.child || c.Child.Trace[0].Usage.Duration != want.child {
			t.Errorf("call %s: %v for %v (child %+v); want %v for %v", c.Name, c.Start, c.Duration, c.Child,
				want.start, want.duration)
		}
	}
}

// Durations never come out negative, whatever the engine's clock does,
// nor does a clock that panics break the mission; a ToolResult.Duration
// that is not positive leaves the call to the clock. The clock drives no
// limit: hours of it pass within a mission whose MissionTimeout,
// LLMTimeout and program Timeout are minutes.
func TestHooksNowOdd(t *testing.T) {
	for _, tc := range []struct {
		name    string
		timed   time.Duration // the tool hook's ToolResult.Duration
		maxWant time.Duration // the longest a recorded duration may be
	}{
		{name: "backwards", timed: -time.Second}, // goes back 10 s on each hook call
		{name: "still"},
		{name: "panics", maxWant: time.Hour},    // the real clock
		{name: "leaps", maxWant: 4 * time.Hour}, // an hour on each hook call
	} {
		t.Run(tc.name, func(t *testing.T) {
			clk := newFakeClock()
			now := clk.Now
			tick := func() {}
			switch tc.name {
			case "backwards":
				tick = func() { clk.advance(-10 * time.Second) }
			case "panics":
				now = func() time.Time { panic("no clock") }
			case "leaps":
				tick = func() { clk.advance(time.Hour) }
			}
			model := llmtest.NewScript(llmtest.Code(`(pmap (fn [n] (tool/t {:n n})) [1 2])`), llmtest.Code(`(return *1)`))
			a := agent.MustNew(agent.Config{Prompt: "Go", MaxTurns: 3, MissionTimeout: 5 * time.Minute, LLMTimeout: time.Minute,
				Limits: lisp.Limits{Timeout: time.Minute}, Tools: map[string]agent.Tool{
					"t": {Func: func(context.Context, *lisp.Map) (any, error) { return nil, nil }, Signature: "(n :int) -> :int"}}})
			log := &eventLog{}
			hooks := &engine.Hooks{
				Now: now,
				LLM: func(ctx context.Context, call engine.LLMCall) (engine.LLMReply, error) {
					tick()
					resp, err := model.Func()(ctx, call.Request)
					return engine.LLMReply{Response: resp}, err
				},
				Tool: func(ctx context.Context, call engine.ToolRequest) (engine.ToolResult, error) {
					tick()
					n, _ := call.Args.Get(lisp.Keyword("n"))
					return engine.ToolResult{Value: n, Duration: tc.timed}, nil
				},
			}
			step, err := a.Run(engine.WithHooks(context.Background(), hooks), agent.Options{Observers: []agent.Observer{log}})
			if err != nil || printed(step.Return) != "[1 2]" {
				t.Fatalf("%s %v", printed(step.Return), err)
			}
			check := func(what string, d time.Duration) {
				t.Helper()
				if d < 0 || d > tc.maxWant {
					t.Errorf("%s: %v, want within [0, %v]", what, d, tc.maxWant)
				}
			}
			if tc.name == "leaps" && step.Usage.Duration != 4*time.Hour {
				t.Errorf("usage %v, want the clock's 4h", step.Usage.Duration)
			}
			check("usage", step.Usage.Duration)
			check("total usage", step.TotalUsage.Duration)
			for _, tr := range step.Trace {
				check("turn", tr.Usage.Duration)
				check("turn's LLM", tr.LLMDuration)
				for _, c := range tr.ToolCalls {
					check("tool call", c.Duration)
				}
			}
			for _, e := range log.events {
				check(e.Kind.String(), e.Duration)
			}
		})
	}
}
