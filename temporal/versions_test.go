package temporal

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm"
)

// deployAgent is a version of an agent whose tool looks an id up: v1's
// tool waits until its context ends or release is closed, v2's returns
// at once; each records the version and the id it ran for when it
// returns a value.
type deployAgent struct {
	release chan struct{}
	entered chan string
	mu      sync.Mutex
	done    map[string]int // "version id" -> values returned
}

func (d *deployAgent) version(t *testing.T, v string) *agent.Agent {
	return mustAgent(t, agent.Config{Prompt: "Look up {{id}}.", MaxTurns: 3, MissionTimeout: 5 * time.Minute,
		Limits: lisp.Limits{Timeout: 2 * time.Minute},
		Tools: map[string]agent.Tool{"lookup": {Signature: "(id :int) -> :int",
			Description: "Looks an id up (" + v + ").", // v1 and v2 differ: their fingerprints differ
			Func: func(ctx context.Context, args *lisp.Map) (any, error) {
				id, _ := args.Get(lisp.Keyword("id"))
				d.entered <- v + " " + printed(id)
				if v == "v1" {
					select {
					case <-d.release:
					case <-ctx.Done():
						return nil, ctx.Err()
					}
				}
				d.mu.Lock()
				d.done[v+" "+printed(id)]++
				d.mu.Unlock()
				n, _ := id.(int64)
				return n * 10, nil
			}}}})
}

// pendingAttempts is the attempt of each activity the mission's latest run
// waits for, scheduled (not started): nil when there is none.
func pendingAttempts(ctx context.Context, t *testing.T, c client.Client, id string) []int32 {
	t.Helper()
	d, err := describe(ctx, c, id, "")
	if err != nil {
		t.Fatal(err)
	}
	var out []int32
	for _, a := range d.GetPendingActivities() {
		if a.GetState() == enums.PENDING_ACTIVITY_STATE_SCHEDULED {
			out = append(out, a.GetAttempt())
		}
	}
	return out
}

// Deploying a changed agent with the SDK's defaults (WorkerStopTimeout 0,
// as a crash or a hurried deploy): five missions each in a tool call; their
// worker (v1) stops, cutting the calls short; a worker with the changed
// agent (v2) starts. It takes new missions, and never the old ones: their
// calls wait, scheduled on the task queue of v1, without spending their
// attempts, and Progress says which version they wait for. A worker that
// serves v1 (Versions) then finishes them, each tool call's value in its
// journal, each call that completed made once, and no workflow task or
// call refused.
func TestDeployChangedAgent(t *testing.T) {
	c, _ := devServer(t)
	queue := testQueue("deploy")
	const missions = 5
	d := &deployAgent{release: make(chan struct{}), entered: make(chan string, 4*missions), done: map[string]int{}}
	v1, v2 := d.version(t, "v1"), d.version(t, "v2")
	if v1.Fingerprint() == v2.Fingerprint() {
		t.Fatal("a changed description does not change the agent's fingerprint")
	}
	model := newScripted(map[string][]string{"Look": {`(def v (tool/lookup {:id ctx/id}))`, `(return v)`}})
	opts := func(current *agent.Agent, older ...*agent.Agent) WorkerOptions {
		o := WorkerOptions{Model: llm.Func(model.Func), Agents: map[string]*agent.Agent{"look": current}}
		if len(older) > 0 {
			o.Versions = map[string][]*agent.Agent{"look": older}
		}
		return o
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	await := func(what string) string {
		t.Helper()
		select {
		case s := <-d.entered:
			return s
		case <-ctx.Done():
			t.Fatalf("waiting for %s: %v", what, ctx.Err())
			return ""
		}
	}

	first, err := NewWorker(c, queue, opts(v1))
	if err != nil {
		t.Fatal(err)
	}
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	var ms []*Mission
	for i := 1; i <= missions; i++ {
		m, err := Start(ctx, c, "look", StartOptions{TaskQueue: queue, ID: fmt.Sprintf("%s-%d", queue, i),
			Input: map[string]any{"id": i}})
		if err != nil {
			t.Fatal(err)
		}
		ms = append(ms, m)
	}
	for range missions {
		if s := await("the missions' tool calls"); !strings.HasPrefix(s, "v1 ") {
			t.Fatalf("a mission's call ran %q", s)
		}
	}
	first.Stop() // the SDK's default WorkerStopTimeout: the calls in flight are cut short
	close(d.release)
	startWorker(t, c, queue, opts(v2))

	// The calls are made again only on a worker of v1: they wait,
	// scheduled, at their second attempt (the first was cut short).
	for _, m := range ms {
		for {
			a := pendingAttempts(ctx, t, c, m.ID())
			if len(a) == 1 && a[0] == 2 {
				break
			}
			if len(a) > 1 || len(a) == 1 && a[0] > 2 {
				t.Fatalf("mission %s: pending calls at attempts %v", m.ID(), a)
			}
			if ctx.Err() != nil {
				t.Fatalf("mission %s: its call was not scheduled again: %v", m.ID(), a)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	// A new mission runs v2.
	fresh, err := Start(ctx, c, "look", StartOptions{TaskQueue: queue, Input: map[string]any{"id": 100}})
	if err != nil {
		t.Fatal(err)
	}
	if s := await("the new mission's call"); s != "v2 100" {
		t.Errorf("the new mission's call ran %q", s)
	}
	if step, err := fresh.Result(ctx); err != nil || printed(step.Return) != "1000" {
		t.Fatalf("the new mission: step %v, err %v", step, err)
	}
	// No worker answers: Progress reads the server's record, within the
	// caller's time.
	pctx, pcancel := context.WithTimeout(ctx, 8*time.Second)
	p, err := ms[0].Progress(pctx)
	pcancel()
	t.Logf("an old mission's progress while no worker of v1 is up: %+v", p)
	if err != nil || !p.Recorded || p.Status != StatusRunning || p.Version != v1.Fingerprint() ||
		!strings.Contains(p.Unanswered, v1.Fingerprint()) || !strings.Contains(p.Unanswered, versionTaskQueue(queue, "look", v1.Fingerprint())) {
		t.Errorf("an old mission's progress: %+v, %v", p, err)
	}
	for _, m := range ms {
		if a := pendingAttempts(ctx, t, c, m.ID()); len(a) != 1 || a[0] != 2 {
			t.Errorf("mission %s: its call is at attempts %v while it waits, want 2", m.ID(), a)
		}
	}

	startWorker(t, c, queue, opts(v2, v1))
	for i, m := range ms {
		step, err := m.Result(ctx)
		if err != nil || printed(step.Return) != fmt.Sprint((i+1)*10) {
			t.Fatalf("mission %d: step %v, err %v", i+1, step, err)
		}
		if e := step.Trace[0].Error; e != "" {
			t.Errorf("mission %d: turn 1's error %q", i+1, e)
		}
		tools := map[int64]bool{} // the tool activities' scheduled events
		for _, e := range history(t, c, m.ID(), "") {
			if a := e.GetActivityTaskScheduledEventAttributes(); a != nil && a.GetActivityType().GetName() == activityTool {
				tools[e.GetEventId()] = true
			}
			if a := e.GetActivityTaskStartedEventAttributes(); a != nil && tools[a.GetScheduledEventId()] && a.GetAttempt() != 2 {
				t.Errorf("mission %d: the tool call ran at attempt %d, want 2", i+1, a.GetAttempt())
			}
			if a := e.GetWorkflowTaskFailedEventAttributes(); a != nil {
				t.Errorf("mission %d: a workflow task failed: %s", i+1, a.GetFailure().GetMessage())
			}
		}
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	for i := 1; i <= missions; i++ {
		if n := d.done[fmt.Sprintf("v1 %d", i)]; n != 1 {
			t.Errorf("the call of mission %d completed %d times on v1", i, n)
		}
		if n := d.done[fmt.Sprintf("v2 %d", i)]; n != 0 {
			t.Errorf("the call of mission %d ran on v2", i)
		}
	}
	if r := model.repeated(); len(r) > 0 || model.total() != 2*(missions+1) {
		t.Errorf("%d LLM calls, repeated %v", model.total(), r)
	}
}

// A worker polls the task queue missions start on and one per version of
// each agent it serves (its nested agents run on their caller's); a
// mission started before routing by version, with a version the worker
// does not have, is refused.
func TestWorkerQueues(t *testing.T) {
	c, err := client.NewLazyClient(client.Options{HostPort: "127.0.0.1:1", Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	mk := func(prompt string, tools map[string]agent.Tool) *agent.Agent {
		return mustAgent(t, agent.Config{Prompt: prompt, Description: "Does " + prompt, Tools: tools})
	}
	child := mk("Answer.", nil)
	ask, err := child.AsTool(agent.AsToolOptions{})
	if err != nil {
		t.Fatal(err)
	}
	a1, a2, b := mk("A1.", map[string]agent.Tool{"ask": ask}), mk("A2.", nil), mk("B.", nil)
	for _, tt := range []struct {
		name   string
		opts   WorkerOptions
		queues int
	}{
		// Where missions start, and for each version its task queue and
		// the one of earlier releases (legacyVersionTaskQueue).
		{"one agent", WorkerOptions{Agents: map[string]*agent.Agent{"a": a1}}, 3},
		{"two agents", WorkerOptions{Agents: map[string]*agent.Agent{"a": a1, "b": b}}, 5},
		{"an older version", WorkerOptions{Agents: map[string]*agent.Agent{"a": a2}, Versions: map[string][]*agent.Agent{"a": {a1}}}, 5},
		{"the same version twice", WorkerOptions{Agents: map[string]*agent.Agent{"a": a1}, Versions: map[string][]*agent.Agent{"a": {a1}}}, 3},
	} {
		t.Run(tt.name, func(t *testing.T) {
			w, err := NewWorker(c, "missions", tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if n := len(w.(*fleet).all); n != tt.queues {
				t.Errorf("%d task queues polled, want %d", n, tt.queues)
			}
		})
	}
	r, err := newRunner(WorkerOptions{Agents: map[string]*agent.Agent{"a": a2}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.lookup("a", a1.Fingerprint()); !changed(err) {
		t.Errorf("a mission of another version: %v", err)
	}
	if e, err := r.lookup("a", a2.Fingerprint()); err != nil || e.agent != a2 {
		t.Errorf("a mission of the worker's version: %v", err)
	}
	if got, want := versionTaskQueue("missions", "a", a1.Fingerprint()), "missions@a@"+a1.Fingerprint()[7:19]+"@p2"; got != want {
		t.Errorf("versionTaskQueue: %q, want %q", got, want)
	}
	if got, want := legacyVersionTaskQueue("missions", "a", a1.Fingerprint()), "missions@a@"+a1.Fingerprint()[7:19]; got != want {
		t.Errorf("legacyVersionTaskQueue: %q, want %q", got, want)
	}
	if !sendsDifferences(versionTaskQueue("missions", "a", a1.Fingerprint())) || sendsDifferences("missions") ||
		sendsDifferences(legacyVersionTaskQueue("missions", "a", a1.Fingerprint())) {
		t.Error("sendsDifferences: only a version's task queue of this release gets differences")
	}
}

// A starter that has the agent names its version (StartOptions.Version):
// the mission starts on that version's task queue and ends in one run,
// without the move after its first call; its nested agents follow it.
// A version no worker serves waits, and Progress says which.
func TestStartOnVersion(t *testing.T) {
	c, _ := devServer(t)
	queue := testQueue("start-version")
	child := mustAgent(t, agent.Config{Prompt: "Double {{n}}.", Description: "Doubles n.", Signature: "(n :int) -> :int"})
	double, err := child.AsTool(agent.AsToolOptions{})
	if err != nil {
		t.Fatal(err)
	}
	a := mustAgent(t, agent.Config{Prompt: "Use {{x}}.", MaxTurns: 3, Tools: map[string]agent.Tool{"double": double}})
	model := newScripted(map[string][]string{"Use": {`(return (tool/double {:n ctx/x}))`}, "Double": {`(return (* 2 ctx/n))`}})
	startWorker(t, c, queue, WorkerOptions{Model: llm.Func(model.Func), Agents: map[string]*agent.Agent{"user": a}})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	m, err := Start(ctx, c, "user", StartOptions{TaskQueue: queue, Version: a.Fingerprint(), Input: map[string]any{"x": 21}})
	if err != nil {
		t.Fatal(err)
	}
	step, err := m.Result(ctx)
	if err != nil || printed(step.Return) != "42" {
		t.Fatalf("step %v, err %v", step, err)
	}
	if runs := missionRuns(t, c, m.ID(), m.RunID()); len(runs) != 1 {
		t.Errorf("%d runs, want 1", len(runs))
	}
	d, err := describe(ctx, c, m.ID(), "")
	if err != nil {
		t.Fatal(err)
	}
	if q, want := d.GetExecutionConfig().GetTaskQueue().GetName(), versionTaskQueue(queue, "user", a.Fingerprint()); q != want {
		t.Errorf("task queue %q, want %q", q, want)
	}

	other := mustAgent(t, agent.Config{Prompt: "Use {{x}} otherwise.", MaxTurns: 3})
	m, err = Start(ctx, c, "user", StartOptions{TaskQueue: queue, Version: other.Fingerprint(), Input: map[string]any{"x": 1}})
	if err != nil {
		t.Fatal(err)
	}
	p, err := m.Progress(ctx)
	if err != nil || !p.Recorded || p.Version != other.Fingerprint() || !strings.Contains(p.Unanswered, "no worker polls") {
		t.Errorf("a mission of a version no worker serves: %+v, %v", p, err)
	}
	_ = m.Cancel(ctx)
}
