package temporal

import (
	"context"
	"errors"
	"fmt"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/lisp"
)

// StartOptions are the parameters of a mission started on Temporal.
type StartOptions struct {
	// TaskQueue is the task queue of the workers that run the agent.
	// Required.
	TaskQueue string
	// ID is the workflow id ("": one the client makes up). A mission's id
	// is how it is found again (Attach).
	ID string
	// Input is the mission's input, as agent.Options.Input: a map with
	// string keys, a struct, or a *lisp.Map.
	Input any
	// Model names the model in the workers' llm.Registry ("": the
	// workers' default model); the agent's own Config.LLM wins.
	Model string
	// Version is the agent version to run (agent.Agent.Fingerprint): the
	// mission starts on its task queue, in one run ("": the version of the
	// first worker that takes it up; docs/temporal.md, "Agent versions").
	Version string
	// StepTimeout bounds each run of the mission's programs; zero: a
	// minute.
	StepTimeout time.Duration
	// HistoryLimit is the history size in bytes past which the mission and
	// its nested agents continue in a new run of their workflow; zero:
	// 4 MB (docs/temporal.md, "History size").
	HistoryLimit int
	// SearchAttributes has the mission and its nested agents set PtcAgent,
	// PtcQueuedMs, PtcReason, PtcTurns and PtcTokens; register them on
	// the namespace first (docs/temporal.md, "How a mission ends").
	SearchAttributes bool
	// RunOptions are the agent.Options that travel with the mission.
	RunOptions
	// Workflow are more of the SDK's start options (ID and TaskQueue are
	// set from the fields above).
	Workflow client.StartWorkflowOptions
}

// Mission is a handle on a mission running on Temporal.
type Mission struct {
	c     client.Client
	id    string
	runID string
}

// Start starts a mission of the agent registered as agentName on the
// workers of opts.TaskQueue, and returns at once.
func Start(ctx context.Context, c client.Client, agentName string, opts StartOptions) (*Mission, error) {
	if c == nil || opts.TaskQueue == "" || agentName == "" {
		return nil, fmt.Errorf("%w: Start needs a client, an agent name and StartOptions.TaskQueue", ErrInvalidOptions)
	}
	input, err := contextMap(opts.Input)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidOptions, err)
	}
	wo := opts.Workflow
	wo.ID, wo.TaskQueue = opts.ID, opts.TaskQueue
	queue := ""
	if opts.Version != "" {
		// Straight to the version's task queue, where the workers that
		// serve it run its missions after their move.
		queue = versionTaskQueue(opts.TaskQueue, agentName, opts.Version)
		wo.TaskQueue = queue
	}
	memo := map[string]any{memoKey: summary{Agent: agentName, Status: StatusRunning, Version: opts.Version}}
	for k, v := range wo.Memo {
		memo[k] = v
	}
	wo.Memo = memo
	run, err := c.ExecuteWorkflow(ctx, wo, WorkflowName, missionInput{Agent: agentName,
		Context: lisp.Print(input, lisp.PrintOptions{Exact: true}), Model: opts.Model, StepTimeout: opts.StepTimeout,
		HistoryLimit: opts.HistoryLimit, SearchAttributes: opts.SearchAttributes,
		Run: runWire{opts.RunOptions}, Fingerprint: opts.Version, Queue: queue})
	if err != nil {
		return nil, fmt.Errorf("temporal: starting the mission: %w", err)
	}
	return &Mission{c: c, id: run.GetID(), runID: run.GetRunID()}, nil
}

// Attach returns a handle on the mission of workflow id (runID "": its
// latest run), started by this process or another.
func Attach(c client.Client, id, runID string) *Mission {
	return &Mission{c: c, id: id, runID: runID}
}

// ID is the mission's workflow id.
func (m *Mission) ID() string { return m.id }

// RunID is the id of the workflow's run ("" from Attach without one: the
// latest run).
func (m *Mission) RunID() string { return m.runID }

// Progress asks the mission where it is (the progress query, answered by
// a worker). When no worker can answer (none polls the mission's task
// queue, none that serves the version of its agent the mission runs, or
// the query failed), it reads what the server keeps: the workflow's state
// and the summary in its memo, and says so (Progress.Recorded, with
// Unanswered naming the version and the task queue a mission waits on).
func (m *Mission) Progress(ctx context.Context) (Progress, error) {
	d, err := describe(ctx, m.c, m.id, "")
	if err != nil {
		return Progress{}, fmt.Errorf("temporal: the mission's progress: %w", err)
	}
	info := d.GetWorkflowExecutionInfo()
	queue := info.GetTaskQueue()
	var sum summary
	if f := info.GetMemo().GetFields()[memoKey]; f != nil {
		if converter.GetDefaultDataConverter().FromPayload(f, &sum) != nil {
			sum = summary{}
		}
	}
	unanswered := ""
	if tq, err := m.c.DescribeTaskQueue(ctx, queue, enumspb.TASK_QUEUE_TYPE_WORKFLOW); err == nil && len(tq.GetPollers()) == 0 {
		unanswered = fmt.Sprintf("no worker polls the task queue %q", queue)
	} else {
		// The query waits for a worker; it gives up in time for the
		// server's answer to be read before ctx ends.
		wait := progressQueryTimeout
		if dl, ok := ctx.Deadline(); ok {
			wait = min(wait, time.Until(dl)*3/4)
		}
		qctx, cancel := context.WithTimeout(ctx, wait)
		v, qerr := m.c.QueryWorkflow(qctx, m.id, "", queryProgress)
		timedOut := qctx.Err() != nil
		cancel()
		if qerr == nil {
			var p Progress
			if err := v.Get(&p); err != nil {
				return Progress{}, fmt.Errorf("temporal: the mission's progress: %w", err)
			}
			return p, nil
		}
		if ctx.Err() != nil {
			return Progress{}, fmt.Errorf("temporal: querying the mission's progress: %w", qerr)
		}
		unanswered = qerr.Error()
		if timedOut {
			unanswered = fmt.Sprintf("no worker answered the progress query within %v", wait.Round(time.Millisecond))
		}
	}
	running := info.GetStatus() == enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING
	if sum.Version != "" && running {
		unanswered = fmt.Sprintf("the mission waits for a worker that serves version %s of agent %q (task queue %q): %s",
			sum.Version, sum.Agent, queue, unanswered)
	}
	p := Progress{Recorded: true, Unanswered: unanswered, Agent: sum.Agent, Status: sum.Status, Version: sum.Version,
		Turn: sum.Turns}
	p.Usage.Turns, p.Usage.Tokens, p.Queued = sum.Turns, sum.Tokens, time.Duration(sum.QueuedMs)*time.Millisecond
	if running && info.GetHistoryLength() <= 2 {
		// Started and its first workflow task scheduled: no worker has
		// taken the mission up yet, and its clock has not started.
		p.Queued = max(0, time.Since(info.GetStartTime().AsTime()))
	}
	switch info.GetStatus() {
	case enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING, enumspb.WORKFLOW_EXECUTION_STATUS_CONTINUED_AS_NEW:
		p.Status = StatusRunning
	case enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED:
		p.Status = StatusCompleted
	case enumspb.WORKFLOW_EXECUTION_STATUS_CANCELED:
		p.Status = StatusCancelled
	default:
		if p.Status == "" || p.Status == StatusRunning {
			p.Status = StatusFailed // failed, terminated or timed out by the server
		}
	}
	return p, nil
}

// describe is the server's description of a workflow run.
func describe(ctx context.Context, c client.Client, id, runID string) (*workflowservice.DescribeWorkflowExecutionResponse, error) {
	d, err := c.DescribeWorkflow(ctx, id, runID)
	if err != nil {
		return nil, err
	}
	return d.RawResponse, nil
}

// progressQueryTimeout bounds the progress query (and three quarters of
// what is left of the caller's context): a server whose workers went away
// holds a query until it gives up.
const progressQueryTimeout = 10 * time.Second

// Cancel asks the mission to stop: it ends with the reason cancelled (its
// workflow Canceled), its nested agents' missions with it. Result then
// returns its Step.
func (m *Mission) Cancel(ctx context.Context) error {
	if err := m.c.CancelWorkflow(ctx, m.id, ""); err != nil {
		return fmt.Errorf("temporal: cancelling the mission: %w", err)
	}
	return nil
}

// Result waits for the mission's end and returns its Step, as Agent.Run
// does: when the mission failed, err is an *agent.Error wrapping the same
// Step. Other errors (the workflow could not run, ctx ended) come with a
// nil Step. The Step has no Memory: the journal keeps what the mission
// did, not its namespace. A mission that went on in new runs of its
// workflow (continue-as-new) is followed to its last.
func (m *Mission) Result(ctx context.Context) (*agent.Step, error) {
	var res Result
	for wait := 100 * time.Millisecond; ; wait = min(2*wait, 5*time.Second) {
		err := m.c.GetWorkflow(ctx, m.id, m.runID).Get(ctx, &res)
		if err == nil {
			return stepResult(&res)
		}
		if r := ResultFromError(err); r != nil {
			return stepResult(r)
		}
		if ctx.Err() != nil || !pollTimedOut(err) {
			return nil, fmt.Errorf("temporal: the mission's workflow: %w", err)
		}
		// The server let the wait for the result time out (a busy server
		// with thousands of waiters): wait again, until ctx ends.
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return nil, fmt.Errorf("temporal: the mission's workflow: %w", err)
		}
	}
}

// pollTimedOut reports whether err is the timeout of one long poll for a
// workflow's result, rather than the workflow's own failure.
func pollTimedOut(err error) bool {
	var de *serviceerror.DeadlineExceeded
	return errors.Is(err, context.DeadlineExceeded) || errors.As(err, &de)
}

// Step is the mission's Step, as Mission.Result returns it: when the
// mission failed, err is an *agent.Error wrapping the same Step.
func (r *Result) Step() (*agent.Step, error) { return stepResult(r) }

// stepResult is the Step of a Result, with an *agent.Error when it failed.
func stepResult(res *Result) (*agent.Step, error) {
	step, err := resultStep(res)
	if err != nil {
		return nil, err
	}
	if step.Fail != nil {
		return step, &agent.Error{Step: step}
	}
	return step, nil
}

// contextMap converts a mission's input to a map, as Agent.Run does.
func contextMap(c any) (*lisp.Map, error) {
	switch c := c.(type) {
	case nil:
		return lisp.NewMap(), nil
	case *lisp.Map:
		return c, nil
	}
	v, err := lisp.FromGo(c)
	if err != nil {
		return nil, fmt.Errorf("temporal: the mission's context: %w", err)
	}
	switch v := v.(type) {
	case *lisp.Map:
		return v, nil
	case nil:
		return lisp.NewMap(), nil
	}
	return nil, fmt.Errorf("temporal: the mission's context must be a map, got %s", lisp.TypeName(v))
}
