package temporal

import (
	"context"
	"testing"
	"time"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm"
)

// A mission's Step has the durations the mission had, not those of the
// last run of its programs: the LLM call's, the tool call's and the whole
// mission's, from the times recorded in its journal. The bounds are lower
// bounds the sleeps guarantee.
func TestDurations(t *testing.T) {
	c, _ := devServer(t)
	queue := testQueue("durations")
	const llmSleep, toolSleep = time.Second, 1500 * time.Millisecond
	a := mustAgent(t, agent.Config{Prompt: "Time {{x}}.", MaxTurns: 3, Tools: map[string]agent.Tool{
		"slow": {Signature: "() -> :int", Description: "Takes its time.", Func: func(ctx context.Context, _ *lisp.Map) (any, error) {
			time.Sleep(toolSleep)
			return 1, nil
		}}}})
	script := newScripted(map[string][]string{"Time": {`(def a (tool/slow {}))`, `(return a)`}})
	model := func(ctx context.Context, req llm.Request) (llm.Response, error) {
		if req.Turn == 1 {
			time.Sleep(llmSleep)
		}
		return script.Func(ctx, req)
	}
	startWorker(t, c, queue, WorkerOptions{Model: llm.Func(model), Agents: map[string]*agent.Agent{"timed": a}})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	m, err := Start(ctx, c, "timed", StartOptions{TaskQueue: queue, Input: map[string]any{"x": 1}})
	if err != nil {
		t.Fatal(err)
	}
	step, err := m.Result(ctx)
	if err != nil || len(step.Trace) != 2 || len(step.Trace[0].ToolCalls) != 1 {
		t.Fatalf("step %v, err %v", step, err)
	}
	turn1, call := step.Trace[0], step.Trace[0].ToolCalls[0]
	if turn1.LLMDuration < llmSleep {
		t.Errorf("turn 1's LLM call took %v, less than the model's %v", turn1.LLMDuration, llmSleep)
	}
	if call.Duration < toolSleep {
		t.Errorf("the tool call took %v, less than the tool's %v", call.Duration, toolSleep)
	}
	if turn1.Usage.Duration < llmSleep+toolSleep {
		t.Errorf("turn 1 took %v, less than its calls' %v", turn1.Usage.Duration, llmSleep+toolSleep)
	}
	if step.Usage.Duration < llmSleep+toolSleep {
		t.Errorf("the mission took %v, less than its calls' %v", step.Usage.Duration, llmSleep+toolSleep)
	}

	// A cancelled mission's Step has its trace and lasts until it was cancelled.
	started := make(chan struct{}, 1)
	w := mustAgent(t, agent.Config{Prompt: "Wait {{x}}.", MaxTurns: 2, Tools: map[string]agent.Tool{"wait": blockingTool(started)}})
	wscript := newScripted(map[string][]string{"Wait": {`(tool/wait {})`}})
	wqueue := testQueue("durations-cancel")
	startWorker(t, c, wqueue, WorkerOptions{Model: llm.Func(wscript.Func), Agents: map[string]*agent.Agent{"waits": w}})
	m, err = Start(ctx, c, "waits", StartOptions{TaskQueue: wqueue, Input: map[string]any{"x": 1}})
	if err != nil {
		t.Fatal(err)
	}
	<-started
	const held = 2 * time.Second
	time.Sleep(held)
	if err := m.Cancel(ctx); err != nil {
		t.Fatal(err)
	}
	step, _ = m.Result(ctx)
	if step == nil || step.Fail == nil || step.Fail.Reason != agent.ReasonCancelled || len(step.Trace) != 1 {
		t.Fatalf("step %+v", step)
	}
	if step.Usage.Duration < held {
		t.Errorf("the cancelled mission took %v, less than the %v it was held", step.Usage.Duration, held)
	}
}

// A recorded tool call's duration is the time the activity measured
// around the call (Took) when there is one: not the workflow's view,
// which counts queueing and the gap a crashed worker leaves between the
// call's end and the workflow seeing it.
func TestRecordedToolDuration(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name string
		e    toolEntry
		want time.Duration
	}{
		{"measured in the activity", toolEntry{Start: start, End: start.Add(10600 * time.Millisecond), Took: 500 * time.Millisecond, Value: "1"}, 500 * time.Millisecond},
		{"recorded before Took", toolEntry{Start: start, End: start.Add(2 * time.Second), Value: "1"}, 2 * time.Second},
		{"cut short", toolEntry{Start: start, End: start.Add(3 * time.Second), Err: "cancelled: the mission was cancelled while the call ran", Cut: true}, 3 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, _ := tt.e.answer()
			if res.Duration != tt.want {
				t.Errorf("duration %v, want %v", res.Duration, tt.want)
			}
		})
	}
}
