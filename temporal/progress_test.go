package temporal

import (
	"context"
	"testing"
	"time"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/llm"
)

// Progress answers when no worker is up: the workflow's state and the
// summary its memo keeps, marked Recorded, before the mission's first
// worker came and after the last one left.
func TestProgressWithoutWorker(t *testing.T) {
	c, _ := devServer(t)
	queue := testQueue("progress")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	m, err := Start(ctx, c, "adder", StartOptions{TaskQueue: queue, Input: map[string]any{"x": 1}})
	if err != nil {
		t.Fatal(err)
	}
	begin := time.Now()
	p, err := m.Progress(ctx)
	t.Logf("no worker yet: %+v after %v", p, time.Since(begin).Round(time.Millisecond))
	if err != nil || !p.Recorded || p.Status != StatusRunning || p.Agent != "adder" || p.Unanswered == "" {
		t.Errorf("progress before any worker: %+v, %v", p, err)
	}

	a := mustAgent(t, agent.Config{Prompt: "Add {{x}}.", MaxTurns: 3})
	model := newScripted(map[string][]string{"Add": {`(def y (inc ctx/x))`, `(return y)`}})
	w, err := NewWorker(c, queue, WorkerOptions{Model: llm.Func(model.Func), Agents: map[string]*agent.Agent{"adder": a}})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	step, err := m.Result(ctx)
	if err != nil || printed(step.Return) != "2" {
		t.Fatalf("step %v, err %v", step, err)
	}
	p, err = m.Progress(ctx)
	if err != nil || p.Recorded || p.Status != StatusCompleted || p.Turn != 2 || p.LLMCalls != 2 {
		t.Errorf("progress from the worker: %+v, %v", p, err)
	}
	w.Stop()

	p, err = m.Progress(ctx)
	if err != nil || !p.Recorded || p.Status != StatusCompleted || p.Agent != "adder" || p.Turn != 2 ||
		p.Usage.Tokens != step.TotalUsage.Tokens {
		t.Errorf("progress after the worker left: %+v, %v", p, err)
	}
}
