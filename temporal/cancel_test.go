package temporal

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm"
)

// watched is a call that blocks until its context ends (or ten minutes):
// it reports when it started and how its context ended.
type watched struct {
	started chan struct{}
	ended   chan error // ctx.Err() when the call returned, nil when it was never cancelled
	once    sync.Once
}

func newWatched() *watched { return &watched{started: make(chan struct{}), ended: make(chan error, 1)} }

func (w *watched) wait(ctx context.Context) error {
	w.once.Do(func() { close(w.started) })
	select {
	case <-ctx.Done():
		w.ended <- ctx.Err()
		return ctx.Err()
	case <-time.After(10 * time.Minute):
		w.ended <- nil
		return nil
	}
}

// awaitEnd waits (generously: the SDK sends heartbeats every 8 s) for the
// watched call to see its context end.
func (w *watched) awaitEnd(t *testing.T, what string) {
	t.Helper()
	select {
	case err := <-w.ended:
		if !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%s returned with %v, want its context ended", what, err)
		}
	case <-time.After(90 * time.Second):
		t.Errorf("%s still runs 90 s after its mission ended: its context did not end", what)
	}
}

// Cancelling a mission, or its running past its MissionTimeout, ends the
// context of the tool call it was making: the tool stops, instead of
// running on to its own end after the mission.
func TestCancelReachesTool(t *testing.T) {
	c, _ := devServer(t)
	queue := testQueue("cancel-tool")
	cancelled, timedOut := newWatched(), newWatched()
	tool := func(w *watched) agent.Tool {
		return agent.Tool{Signature: "() -> :int", Description: "Waits.", Func: func(ctx context.Context, _ *lisp.Map) (any, error) {
			return 1, w.wait(ctx)
		}}
	}
	model := newScripted(map[string][]string{"Hold": {`(tool/hold {})`}, "Wait": {`(tool/hold {})`}})
	startWorker(t, c, queue, WorkerOptions{Model: llm.Func(model.Func), Agents: map[string]*agent.Agent{
		"held": mustAgent(t, agent.Config{Prompt: "Hold {{x}}.", MaxTurns: 2, Limits: lisp.Limits{Timeout: 20 * time.Minute},
			Tools: map[string]agent.Tool{"hold": tool(cancelled)}}),
		"slow": mustAgent(t, agent.Config{Prompt: "Wait {{x}}.", MaxTurns: 2, MissionTimeout: 3 * time.Second,
			Limits: lisp.Limits{Timeout: 20 * time.Minute}, Tools: map[string]agent.Tool{"hold": tool(timedOut)}}),
	}})
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()

	m, err := Start(ctx, c, "held", StartOptions{TaskQueue: queue, Input: map[string]any{"x": 1}})
	if err != nil {
		t.Fatal(err)
	}
	<-cancelled.started
	const held = time.Second
	time.Sleep(held)
	if err := m.Cancel(ctx); err != nil {
		t.Fatal(err)
	}
	step, _ := m.Result(ctx)
	if step == nil || step.Fail == nil || step.Fail.Reason != agent.ReasonCancelled {
		t.Fatalf("the cancelled mission's Step: %+v", step)
	}
	cancelled.awaitEnd(t, "the cancelled mission's tool call")
	// The trace shows the call the cancellation cut short as such, with
	// the time it ran.
	checkCut(t, step, "cancelled", held)

	m, err = Start(ctx, c, "slow", StartOptions{TaskQueue: queue, Input: map[string]any{"x": 1}})
	if err != nil {
		t.Fatal(err)
	}
	step, _ = m.Result(ctx)
	if step == nil || step.Fail == nil || step.Fail.Reason != agent.ReasonMissionTimeout {
		t.Fatalf("the timed-out mission's Step: %+v", step)
	}
	timedOut.awaitEnd(t, "the timed-out mission's tool call")
	checkCut(t, step, "timed out", time.Second)
}

// checkCut checks that the last call of step's trace is an error that
// says why the mission's end cut it short, and that ran at least least.
func checkCut(t *testing.T, step *agent.Step, why string, least time.Duration) {
	t.Helper()
	if len(step.Trace) == 0 || len(step.Trace[len(step.Trace)-1].ToolCalls) == 0 {
		t.Fatalf("no tool call in the trace: %+v", step.Trace)
	}
	calls := step.Trace[len(step.Trace)-1].ToolCalls
	tc := calls[len(calls)-1]
	if !strings.HasPrefix(tc.Error, why+":") || tc.Duration < least || tc.Result != nil {
		t.Errorf("the call cut short: error %q, duration %v, result %v; want %q..., at least %v", tc.Error, tc.Duration,
			tc.Result, why, least)
	}
}

// The last round of a mission its end cut short (stepInput.End) has the
// call the end cut, from its journal entry, in its trace: its error and the
// time it ran, though the entry's answer ends the run at once. Each run
// races the answer's recording with the run's end (agent's toolCalls.close
// waits for it): it runs a few times.
func TestEndRoundRecordsCutCall(t *testing.T) {
	a := mustAgent(t, agent.Config{Prompt: "Wait {{x}}.", MaxTurns: 2, Tools: map[string]agent.Tool{
		"hold": {Signature: "() -> :int", Description: "Waits.", Func: func(context.Context, *lisp.Map) (any, error) {
			t.Error("the tool ran in the mission's last round")
			return 1, nil
		}}}})
	r, err := newRunner(WorkerOptions{Model: llm.Func(newScripted(nil).Func), Agents: map[string]*agent.Agent{"slow": a}})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	const why = "timed out: the mission ran past its MissionTimeout while the call ran"
	j := journal{
		LLM: []llmEntry{{Response: &llm.Response{Content: "```clojure\n(tool/hold {})\n```"}, Start: start,
			End: start.Add(time.Second)}},
		Tools: []toolEntry{{Turn: 1, Name: "hold", Key: toolKey("hold", "{}"), Start: start.Add(time.Second),
			End: start.Add(4 * time.Second), Err: why, Cut: true}},
	}
	in := stepInput{Mission: missionInput{Agent: "slow", Context: "{:x 1}"}, Journal: j, Started: start,
		EndTime: start.Add(4 * time.Second), End: &agent.Fail{Reason: agent.ReasonMissionTimeout,
			Message: "the mission ran past its deadline (MissionTimeout)"}}
	for range 20 {
		out, err := r.step(context.Background(), in)
		if err != nil {
			t.Fatal(err)
		}
		step, err := resultStep(out.Result)
		if err != nil {
			t.Fatal(err)
		}
		if step.Fail == nil || step.Fail.Reason != agent.ReasonMissionTimeout {
			t.Fatalf("the Step's Fail: %+v", step.Fail)
		}
		checkCut(t, step, "timed out", 3*time.Second)
		if t.Failed() {
			return
		}
	}
}

// Cancelling a mission cancels its nested agents' missions, and the LLM
// call a nested agent was making sees its context end: no reply completes
// after the cancellation.
func TestCancelReachesNestedLLMCall(t *testing.T) {
	c, _ := devServer(t)
	queue := testQueue("cancel-nested")
	call := newWatched()
	var mu sync.Mutex
	var afterCancel []string
	cancelledAt := time.Time{}
	script := newScripted(map[string][]string{"Delegate": {`(tool/helper {:q "x"})`}})
	model := func(ctx context.Context, req llm.Request) (llm.Response, error) {
		if req.Prompt == "Help with x." {
			return llm.Response{}, call.wait(ctx)
		}
		resp, err := script.Func(ctx, req)
		mu.Lock()
		if !cancelledAt.IsZero() && err == nil {
			afterCancel = append(afterCancel, req.Prompt)
		}
		mu.Unlock()
		return resp, err
	}
	helper := mustAgent(t, agent.Config{Prompt: "Help with {{q}}.", Description: "Helps.", Signature: "(q :string) -> :int",
		LLMTimeout: 20 * time.Minute})
	tool, err := helper.AsTool(agent.AsToolOptions{})
	if err != nil {
		t.Fatal(err)
	}
	root := mustAgent(t, agent.Config{Prompt: "Delegate {{x}}.", MaxTurns: 2, Tools: map[string]agent.Tool{"helper": tool}})
	startWorker(t, c, queue, WorkerOptions{Model: llm.Func(model), Agents: map[string]*agent.Agent{"root": root}})
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	m, err := Start(ctx, c, "root", StartOptions{TaskQueue: queue, ID: queue + "-root", Input: map[string]any{"x": 1}})
	if err != nil {
		t.Fatal(err)
	}
	<-call.started
	mu.Lock()
	cancelledAt = time.Now()
	mu.Unlock()
	if err := m.Cancel(ctx); err != nil {
		t.Fatal(err)
	}
	rootStep, _ := m.Result(ctx)
	if rootStep == nil || rootStep.Fail == nil || rootStep.Fail.Reason != agent.ReasonCancelled {
		t.Fatalf("the cancelled mission's Step: %+v", rootStep)
	}
	call.awaitEnd(t, "the nested agent's LLM call")
	child := Attach(c, m.ID()+"/helper-1", "")
	if step, _ := child.Result(ctx); step == nil || step.Fail == nil || step.Fail.Reason != agent.ReasonCancelled {
		t.Errorf("the nested agent's Step: %+v", step)
	}
	// The caller's trace has the nested mission's Step under its call.
	if len(rootStep.Trace) == 0 || len(rootStep.Trace[0].ToolCalls) != 1 {
		t.Fatalf("the caller's trace: %+v", rootStep.Trace)
	}
	if tc := rootStep.Trace[0].ToolCalls[0]; tc.Child == nil || tc.Child.Fail == nil || tc.Child.Fail.Reason != agent.ReasonCancelled {
		t.Errorf("the nested agent's call in its caller's trace: %+v", tc)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(afterCancel) > 0 {
		t.Errorf("LLM replies completed after the cancellation: %v", afterCancel)
	}
}
