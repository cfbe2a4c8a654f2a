package temporal

import (
	"context"
	"strings"
	"testing"
	"time"

	"go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/worker"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm"
)

// A changed agent meets a mission in flight: the mission started with one
// version of its agent; its worker stops after turn 1's tool call; a
// worker whose agent has that tool renamed refuses the mission (its
// workflow task fails, saying why) instead of replaying turn 1 with an
// unknown tool; a worker that has the old version too (Versions) finishes
// it, each LLM call and tool call made once.
func TestChangedAgentRefused(t *testing.T) {
	c, _ := devServer(t)
	queue := testQueue("versions")
	lookups := newCounter()
	release, started := make(chan struct{}), make(chan struct{}, 1)
	version := func(tool string) *agent.Agent {
		return mustAgent(t, agent.Config{Prompt: "Look up {{id}}.", MaxTurns: 3, Tools: map[string]agent.Tool{
			tool: {Signature: "(id :int) -> :int", Description: "Looks an id up.",
				Func: func(ctx context.Context, args *lisp.Map) (any, error) {
					select {
					case started <- struct{}{}:
					default:
					}
					<-release
					lookups.add(args)
					return 7, nil
				}}}})
	}
	v1, v2 := version("lookup"), version("find")
	if v1.Fingerprint() == v2.Fingerprint() {
		t.Fatal("a renamed tool does not change the agent's fingerprint")
	}
	model := newScripted(map[string][]string{"Look": {`(def v (tool/lookup {:id 1}))`, `(return v)`}})
	opts := func(current *agent.Agent, older ...*agent.Agent) WorkerOptions {
		o := WorkerOptions{Model: llm.Func(model.Func), Agents: map[string]*agent.Agent{"look": current},
			Worker: worker.Options{WorkerStopTimeout: time.Minute}}
		if len(older) > 0 {
			o.Versions = map[string][]*agent.Agent{"look": older}
		}
		return o
	}
	first, err := NewWorker(c, queue, opts(v1))
	if err != nil {
		t.Fatal(err)
	}
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	m, err := Start(ctx, c, "look", StartOptions{TaskQueue: queue, Context: map[string]any{"id": 1}})
	if err != nil {
		t.Fatal(err)
	}
	<-started
	// The first worker stops polling, finishes the tool call in flight,
	// and is gone before the next round.
	stopped := make(chan struct{})
	go func() { first.Stop(); close(stopped) }()
	time.Sleep(time.Second)
	close(release)
	<-stopped

	changed, err := NewWorker(c, queue, opts(v2))
	if err != nil {
		t.Fatal(err)
	}
	if err := changed.Start(); err != nil {
		t.Fatal(err)
	}
	refusal := ""
	for refusal == "" && ctx.Err() == nil {
		for _, e := range history(t, c, m.ID(), "") {
			if a := e.GetWorkflowTaskFailedEventAttributes(); a != nil && e.EventType == enums.EVENT_TYPE_WORKFLOW_TASK_FAILED {
				refusal = a.GetFailure().GetMessage()
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	changed.Stop()
	if !strings.Contains(refusal, `agent "look" changed since the mission started`) {
		t.Fatalf("the changed worker's refusal: %q", refusal)
	}
	if model.total() != 1 || lookups.total() != 1 {
		t.Errorf("the changed worker went on: %d LLM calls, %d tool calls", model.total(), lookups.total())
	}

	startWorker(t, c, queue, opts(v2, v1))
	step, err := m.Result(ctx)
	if err != nil || printed(step.Return) != "7" {
		t.Fatalf("step %v, err %v", step, err)
	}
	if model.total() != 2 || len(model.repeated()) > 0 || lookups.total() != 1 {
		t.Errorf("%d LLM calls (repeated %v), %d tool calls", model.total(), model.repeated(), lookups.total())
	}
	// A new mission runs the current version.
	m2, err := Start(ctx, c, "look", StartOptions{TaskQueue: queue, Context: map[string]any{"id": 2}})
	if err != nil {
		t.Fatal(err)
	}
	step, _ = m2.Result(ctx) // it fails: the script calls a tool the current version does not have
	if step == nil || len(step.Trace) == 0 {
		t.Fatalf("the new mission's Step: %+v", step)
	}
	if e := step.Trace[0].Error; !strings.Contains(e, "lookup") {
		t.Errorf("the new mission's turn 1 ran with the current version (no tool lookup): %q", e)
	}
}
