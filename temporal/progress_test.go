package temporal

import (
	"context"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"

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

// A mission's clock starts when a worker first runs it: a mission that
// waited in its task queue longer than its MissionTimeout (no worker was
// up) still has the whole of it, and the wait is reported as Queued, in
// Progress while it waits and after, in the memo and in the PtcQueuedMs
// search attribute.
func TestClockStartsAtFirstWorker(t *testing.T) {
	c, _ := devServer(t)
	queue := testQueue("queued")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	const timeout, wait = 3 * time.Second, 4 * time.Second
	m, err := Start(ctx, c, "answerer", StartOptions{TaskQueue: queue, Input: map[string]any{"q": "x"}, SearchAttributes: true})
	if err != nil {
		t.Fatal(err)
	}
	// An operator's own bound from the start, queued time included: the
	// server times the workflow out.
	bounded, err := Start(ctx, c, "answerer", StartOptions{TaskQueue: queue, Input: map[string]any{"q": "y"},
		Workflow: client.StartWorkflowOptions{WorkflowExecutionTimeout: time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	begin := time.Now()
	p, err := m.Progress(ctx)
	if err != nil || !p.Recorded || p.Status != StatusRunning || p.Queued <= 0 {
		t.Errorf("progress before any worker: %+v, %v (want Recorded, running, Queued > 0)", p, err)
	}
	time.Sleep(wait - time.Since(begin))

	a := mustAgent(t, agent.Config{Prompt: "Answer {{q}}.", MaxTurns: 2, MissionTimeout: timeout})
	model := newScripted(map[string][]string{"Answer": {`(return 42)`}})
	startWorker(t, c, queue, WorkerOptions{Model: llm.Func(model.Func), Agents: map[string]*agent.Agent{"answerer": a}})
	step, err := m.Result(ctx)
	if err != nil || printed(step.Return) != "42" {
		t.Fatalf("step %v, err %v: the time queued counted against MissionTimeout", step, err)
	}
	p, err = m.Progress(ctx)
	if err != nil || p.Recorded || p.Queued < wait {
		t.Errorf("progress from the worker: %+v, %v (want Queued >= %v)", p, err, wait)
	}

	if _, err := bounded.Result(ctx); err == nil {
		t.Error("the mission bounded by WorkflowExecutionTimeout ran")
	}
	if d, err := c.DescribeWorkflow(ctx, bounded.ID(), ""); err != nil ||
		d.RawResponse.GetWorkflowExecutionInfo().GetStatus() != enumspb.WORKFLOW_EXECUTION_STATUS_TIMED_OUT {
		t.Errorf("the bounded mission's workflow: %v, %v; want timed out", d, err)
	}

	d, err := c.DescribeWorkflow(ctx, m.ID(), "")
	if err != nil {
		t.Fatal(err)
	}
	info := d.RawResponse.GetWorkflowExecutionInfo()
	var sum summary
	if err := converter.GetDefaultDataConverter().FromPayload(info.GetMemo().GetFields()[memoKey], &sum); err != nil {
		t.Fatal(err)
	}
	var queuedMs int64
	_ = converter.GetDefaultDataConverter().FromPayload(info.GetSearchAttributes().GetIndexedFields()["PtcQueuedMs"], &queuedMs)
	if sum.QueuedMs != p.Queued.Milliseconds() || queuedMs != p.Queued.Milliseconds() {
		t.Errorf("memo's QueuedMs %d, PtcQueuedMs %d; want %v", sum.QueuedMs, queuedMs, p.Queued)
	}
}
