package temporal

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	sdktemporal "go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/agent/prompt"
	"github.com/ptc-go/ptc/llm"
)

// lostWorkerAttempts are the attempts an LLM or tool activity has beyond
// the agent's policy, for workers lost in the middle of a call (the call
// never completed, so it is made again).
const lostWorkerAttempts = 3

// toolTimeoutMargin is how much longer than its call a tool activity may
// take before it is taken for lost.
const toolTimeoutMargin = 10 * time.Second

// stepAttempts are the attempts of a Step round that fails on its own (it
// ran past StepTimeout, say); stepRetryMargin is the time its retries may
// spend waiting between attempts (the default backoff: 1 s, then 2 s).
const (
	stepAttempts    = 3
	stepRetryMargin = 10 * time.Second
)

// stepOptions are the Step round's: a local activity, run by the worker
// of the workflow task, inside it (no task of its own on the server; its
// result is a marker in the history). A worker lost during a round loses
// the workflow task, and the worker that gets it next runs the round
// again (a round does nothing that must not be done twice). A round
// longer than the workflow task's timeout is fine: the SDK heartbeats the
// workflow task while its local activities run.
func stepOptions(timeout time.Duration) workflow.LocalActivityOptions {
	return workflow.LocalActivityOptions{
		StartToCloseTimeout:    timeout,
		ScheduleToCloseTimeout: stepAttempts*timeout + stepRetryMargin,
		RetryPolicy: &sdktemporal.RetryPolicy{MaximumAttempts: stepAttempts,
			NonRetryableErrorTypes: []string{errTypeConfig}},
	}
}

// versionProduction is the workflow's version (workflow.GetVersion)
// that ends missions in the state their Step says (Canceled, Failed),
// with a last round for their trace, keeps a readable summary in the
// memo, names child workflows after their tools, sends LLM requests as
// differences and continues long missions in new runs. Missions started
// before it replay as they ran.
//
// versionRouted moves a mission to the task queue of its agent's
// version (versionTaskQueue) once its first calls are made: they are
// scheduled there, and the workflow then continues in a new run there
// (a run that started sooner than a second before would wait for the
// rest of it: the server's bound on continue-as-new loops). From then on
// its rounds, its calls and its nested agents reach only workers that
// have that version. Missions started before it run on the task queue
// they started on, a worker without their version refusing them
// (runner.lookup), until they continue in a new run past their
// HistoryLimit.
//
// versionQueuedClock starts a mission's clock (its MissionTimeout) when
// a worker first runs it rather than when it was started: the time it
// waited in its task queue before that is its Queued time, reported and
// not charged. It also keeps the calls a mission's end cuts short in its
// journal, as such (tool calls as errors with the time they ran, nested
// agents' missions, waited for, with their Steps), and measures tool calls
// in their activity (toolOutput.Took). Missions started before it keep
// the start as their clock and end as they did.
const (
	versionChange      = "ptc.production"
	versionProduction  = 1
	versionRouted      = 2
	versionQueuedClock = 3
)

// mission is the workflow's state: the journal of what the mission did,
// and its progress.
type mission struct {
	in       missionInput
	version  workflow.Version
	j        journal
	last     *llm.Request // the last LLM request, whole
	progress Progress
	// started is when the mission's clock started: when a worker first
	// ran it (versionQueuedClock), else when it was started.
	started time.Time
	runs    int
	// startSize is the history's size when a run that continues the
	// mission starts: mostly the journal it carries.
	startSize int
	// route is the task queue of the mission's version while it is not
	// there yet: its calls are made there, and it moves there after them.
	route    string
	deadline time.Time
	timedOut bool
	// toolTimeout bounds each tool call: the agent's Limits.Timeout, from
	// the run's first round.
	toolTimeout time.Duration
}

// missionWorkflow runs one mission: the loop of the agent, its programs
// run by the step local activity from the journal, each LLM call and each
// tool call an activity (a nested agent's mission a child workflow),
// recorded in the journal as it completes. Everything that is not
// deterministic happens in activities, local or not, whose results the
// history records.
func missionWorkflow(ctx workflow.Context, in missionInput) (*Result, error) {
	info := workflow.GetInfo(ctx)
	if in.TraceID == "" {
		in.TraceID = traceID(info.WorkflowExecution.ID)
	}
	if in.StepTimeout <= 0 {
		in.StepTimeout = defaultStepTimeout
	}
	m := &mission{in: in, started: info.WorkflowStartTime,
		progress: Progress{Agent: in.Agent, Status: StatusRunning, Version: in.Fingerprint}}
	m.version = workflow.GetVersion(ctx, versionChange, workflow.DefaultVersion, versionQueuedClock)
	if r := in.Resume; r != nil {
		m.j, m.started, m.runs, m.progress.Queued = r.Journal, r.Started, r.Runs, r.Queued
		m.in.Resume = nil
		m.startSize = info.GetCurrentHistorySize()
	} else {
		if m.version >= versionQueuedClock {
			// The first workflow task's time: when a worker took the
			// mission up (deterministic: the history records it).
			m.started = workflow.Now(ctx)
			m.progress.Queued = max(0, m.started.Sub(info.WorkflowStartTime))
		}
		if m.version >= versionProduction && in.SearchAttributes {
			attrs := []sdktemporal.SearchAttributeUpdate{searchAttributeAgent.ValueSet(in.Agent)}
			if m.version >= versionQueuedClock {
				attrs = append(attrs, searchAttributeQueued.ValueSet(m.progress.Queued.Milliseconds()))
			}
			if err := workflow.UpsertTypedSearchAttributes(ctx, attrs...); err != nil {
				return nil, err
			}
		}
	}
	if err := workflow.SetQueryHandler(ctx, queryProgress, func() (Progress, error) { return m.progress, nil }); err != nil {
		return nil, err
	}
	// The LLM activity that got its request as a difference and cannot
	// rebuild it asks for it whole (conversations.request).
	if err := workflow.SetQueryHandler(ctx, queryLLMRequest, func(digest string) (*llm.Request, error) {
		if m.last == nil || requestDigest(*m.last) != digest {
			return nil, errors.New("the mission has no LLM call in flight with that request")
		}
		return m.last, nil
	}); err != nil {
		return nil, err
	}
	mctx, cancel := workflow.WithCancel(ctx)
	defer cancel()
	armed := false
	for {
		// The local activity gets its input as it is, not encoded: the
		// journal's entries are shared with it, read-only, and the
		// workflow appends to the journal only after the round.
		var out stepOutput
		err := workflow.ExecuteLocalActivity(workflow.WithLocalActivityOptions(mctx, stepOptions(in.StepTimeout)),
			activityStep, stepInput{Mission: m.in, Journal: m.j, Last: m.last, Started: m.started, Armed: armed}).Get(mctx, &out)
		if m.stopped(ctx) {
			return m.end(ctx)
		}
		if err != nil {
			if changed(err) {
				// Not this worker's mission: the workflow task fails, and
				// the mission waits for a worker that has its version.
				panic(err)
			}
			return nil, err
		}
		if !armed {
			armed = true
			m.in.Fingerprint, m.toolTimeout = out.Fingerprint, out.ToolTimeout
			if m.version >= versionRouted && m.in.Queue == "" {
				m.route = out.Queue
			}
			m.arm(mctx, cancel, out.MissionTimeout)
		}
		queued := m.progress.Queued
		m.progress = out.Progress
		m.progress.Queued, m.progress.Version = queued, m.in.Fingerprint
		if out.ProgramOfReply {
			m.progress.LastProgram = prompt.ExtractProgram(lastReply(m.j))
		}
		if out.Done {
			return m.finish(ctx, out.Result)
		}
		if out.LLM != nil {
			req, err := m.request(out.LLM)
			if err != nil {
				return nil, err
			}
			e := m.callLLM(mctx, out.LLM, req)
			if m.stopped(ctx) {
				return m.end(ctx)
			}
			m.j.LLM = append(m.j.LLM, e)
		} else {
			entries := m.callTools(mctx, out)
			if m.stopped(ctx) {
				if m.version >= versionQueuedClock {
					// The calls the end cut short are in the trace as
					// such, with the time they ran; those that ended
					// first, and the nested missions' Steps, as they are.
					m.j.Tools = append(m.j.Tools, entries...)
				}
				return m.end(ctx)
			}
			m.j.Tools = append(m.j.Tools, entries...)
		}
		if m.route != "" {
			// The calls were made on the version's task queue: the
			// mission moves there.
			return nil, m.move(ctx)
		}
		if m.full(ctx) {
			// The history is large: the mission goes on in a new run of
			// the workflow, with its journal (the timers, the progress
			// query and the delta base start afresh there).
			m.in.Resume = m.resume()
			m.in.Deadline = m.deadline
			return nil, workflow.NewContinueAsNewError(ctx, WorkflowName, m.in)
		}
	}
}

// move continues the mission in a new run on the task queue of its
// agent's version, with its journal, its memo saying which version it
// runs.
func (m *mission) move(ctx workflow.Context) error {
	m.in.Queue, m.route = m.route, ""
	if err := workflow.UpsertMemo(ctx, map[string]any{memoKey: summary{Agent: m.in.Agent, Status: StatusRunning,
		Turns: m.progress.Turn, Tokens: m.progress.Usage.Tokens, Version: m.in.Fingerprint, QueuedMs: m.progress.Queued.Milliseconds()}}); err != nil {
		return err
	}
	m.in.Resume = m.resume()
	m.in.Deadline = m.deadline
	return workflow.NewContinueAsNewError(workflow.WithWorkflowTaskQueue(ctx, m.in.Queue), WorkflowName, m.in)
}

// resume is what the mission's next run carries.
func (m *mission) resume() *resume {
	return &resume{Journal: m.j, Started: m.started, Runs: m.runs + 1, Queued: m.progress.Queued}
}

// full reports whether the mission should continue in a new run: its
// history is past its HistoryLimit, or the server suggests it.
func (m *mission) full(ctx workflow.Context) bool {
	if m.version < versionProduction {
		return false
	}
	info := workflow.GetInfo(ctx)
	limit := m.in.HistoryLimit
	if limit <= 0 {
		limit = defaultHistoryLimit
	}
	size := info.GetCurrentHistorySize()
	// A run whose carried journal is most of its history would only
	// carry it on again: it goes on until it has added as much.
	return (size >= limit || info.GetContinueAsNewSuggested()) && size >= 2*m.startSize
}

// request is the whole LLM request of a call, from the previous one when
// the call continues it.
func (m *mission) request(c *llmCall) (llm.Request, error) {
	req := c.Request
	if c.Base > 0 {
		if m.last == nil || c.Base > len(m.last.Messages) {
			return llm.Request{}, sdktemporal.NewNonRetryableApplicationError(
				"the LLM request continues a request the workflow does not have", errTypeConfig, nil)
		}
		full := *m.last
		full.Messages = slices.Clip(m.last.Messages[:c.Base])
		if c.Reply {
			full.Messages = append(full.Messages, llm.Message{Role: llm.Assistant, Content: lastReply(m.j)})
		}
		full.Messages = append(full.Messages, req.Messages...)
		full.Turn = req.Turn
		req = full
	}
	m.last = &req
	return req, nil
}

// arm ends the mission at its deadline: the tree's, or the agent's own
// MissionTimeout from the mission's start, whichever comes first.
func (m *mission) arm(ctx workflow.Context, cancel workflow.CancelFunc, own time.Duration) {
	d := m.in.Deadline
	if own > 0 {
		if od := m.started.Add(own); d.IsZero() || od.Before(d) {
			d = od
		}
	}
	if d.IsZero() {
		return
	}
	m.deadline = d
	workflow.Go(ctx, func(gctx workflow.Context) {
		if left := d.Sub(workflow.Now(gctx)); left > 0 {
			if err := workflow.NewTimer(gctx, left).Get(gctx, nil); err != nil {
				return // the mission ended first
			}
		}
		m.timedOut = true
		cancel()
	})
}

// heartbeatTimeout is the LLM and tool activities' (missions started
// before versionProduction did not heartbeat).
func (m *mission) heartbeatTimeout() time.Duration {
	if m.version < versionProduction {
		return 0
	}
	return heartbeatTimeout
}

// stopped reports whether the mission was cancelled or ran out of time.
func (m *mission) stopped(ctx workflow.Context) bool { return ctx.Err() != nil || m.timedOut }

// end ends a mission that was cancelled or ran out of time: a last round
// runs it from its journal up to the call it was waiting for, so that its
// Step has its trace.
func (m *mission) end(ctx workflow.Context) (*Result, error) {
	fail := &agent.Fail{Reason: agent.ReasonCancelled, Message: "the caller cancelled the mission"}
	if ctx.Err() == nil && m.timedOut {
		fail = &agent.Fail{Reason: agent.ReasonMissionTimeout, Message: "the mission ran past its deadline (MissionTimeout)"}
	}
	if m.version < versionProduction {
		m.progress.Status = StatusFailed
		return &Result{Fail: fail, Usage: m.progress.Usage}, nil
	}
	dctx, _ := workflow.NewDisconnectedContext(ctx)
	var out stepOutput
	err := workflow.ExecuteLocalActivity(workflow.WithLocalActivityOptions(dctx, stepOptions(m.in.StepTimeout)),
		activityStep, stepInput{Mission: m.in, Journal: m.j, Last: m.last, Started: m.started, End: fail, EndTime: workflow.Now(dctx)}).Get(dctx, &out)
	res := out.Result
	if err != nil || res == nil {
		res = &Result{Agent: m.in.Agent, Reason: string(fail.Reason), Message: fail.Message, Turns: m.progress.Turn,
			Tokens: m.progress.Usage.Tokens, Fail: fail, Usage: m.progress.Usage}
		res.Status = statusOf(fail)
	}
	return m.finish(ctx, res)
}

// finish ends the workflow in the state that matches the mission's end:
// Completed with the Result when it returned, Canceled when it was
// cancelled, else Failed with the Fail's reason as the error's type; the
// Result is the error's details.
func (m *mission) finish(ctx workflow.Context, res *Result) (*Result, error) {
	if res.Status == "" {
		res.Status = StatusCompleted
	}
	m.progress.Status = res.Status
	if m.version < versionProduction {
		return res, nil
	}
	res.Runs = m.runs + 1
	m.annotate(ctx, res)
	switch {
	case res.Status == StatusCompleted:
		return res, nil
	case res.Status == StatusCancelled && ctx.Err() != nil:
		return nil, sdktemporal.NewCanceledError(*res)
	}
	msg := res.Message
	if msg == "" {
		msg = "the mission failed"
	}
	return nil, sdktemporal.NewNonRetryableApplicationError(msg, res.Reason, nil, *res)
}

// annotate writes the mission's summary in the workflow's memo, and its
// search attributes when the mission sets them (they must be registered
// on the namespace: a server that does not know them fails the workflow
// task).
func (m *mission) annotate(ctx workflow.Context, res *Result) {
	sum := summaryOf(res)
	sum.Version, sum.QueuedMs = m.in.Fingerprint, m.progress.Queued.Milliseconds()
	_ = workflow.UpsertMemo(ctx, map[string]any{memoKey: sum})
	if m.in.SearchAttributes {
		_ = workflow.UpsertTypedSearchAttributes(ctx, searchAttributeReason.ValueSet(res.Reason),
			searchAttributeTurns.ValueSet(int64(res.Turns)), searchAttributeTokens.ValueSet(int64(res.Tokens.Total())))
	}
}

// callLLM makes the LLM call, retried per the agent's policy; its outcome,
// a failure included, is the journal's next entry.
func (m *mission) callLLM(ctx workflow.Context, c *llmCall, req llm.Request) llmEntry {
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = 10 * time.Minute
	}
	base := c.BaseDelay
	if base <= 0 {
		base = time.Second
	}
	ao := workflow.ActivityOptions{
		TaskQueue:           m.callQueue(),
		StartToCloseTimeout: timeout,
		HeartbeatTimeout:    m.heartbeatTimeout(),
		RetryPolicy: &sdktemporal.RetryPolicy{
			InitialInterval:        base,
			BackoffCoefficient:     c.Backoff,
			MaximumInterval:        c.MaxDelay,
			MaximumAttempts:        int32(c.MaxAttempts + lostWorkerAttempts),
			NonRetryableErrorTypes: []string{errTypeConfig, string(llm.ClassAuth), string(llm.ClassConfig)},
		},
	}
	if ao.RetryPolicy.MaximumInterval <= 0 {
		ao.RetryPolicy.MaximumInterval = 30 * time.Second
	}
	if ao.RetryPolicy.MaximumInterval < base {
		ao.RetryPolicy.MaximumInterval = base
	}
	in := llmInput{Agent: m.in.Agent, Fingerprint: m.in.Fingerprint, Model: m.in.Model, Request: req,
		MaxAttempts: c.MaxAttempts}
	switch {
	case !m.sendsDifferences(ctx):
	case c.Base > 0:
		// What is new since the previous request, which the history
		// holds already (conversation.go).
		in.Request, in.Base, in.Reply, in.Digest = c.Request, c.Base, c.Reply, requestDigest(req)
	case requestSize(req) > largeRequestBytes:
		// A run's first request, in the round's marker already: a large
		// one is not stored again, its worker asks for it.
		in.Request, in.Digest = llm.Request{Turn: req.Turn}, requestDigest(req)
	}
	var out llmOutput
	start := workflow.Now(ctx)
	err := workflow.ExecuteActivity(workflow.WithActivityOptions(ctx, ao), activityLLM, in).Get(ctx, &out)
	end := workflow.Now(ctx)
	if err == nil {
		return llmEntry{Response: &out.Response, Start: start, End: end, Took: out.Took}
	}
	class, msg := llm.ClassUnknown, err.Error()
	var ae *sdktemporal.ApplicationError
	var te *sdktemporal.TimeoutError
	switch {
	case errors.As(err, &ae):
		class, msg = llm.Class(ae.Type()), ae.Message()
	case errors.As(err, &te):
		class, msg = llm.ClassTimeout, fmt.Sprintf("no reply within %v (Config.LLMTimeout)", timeout)
	}
	return llmEntry{Err: msg, Class: class, Start: start, End: end}
}

// callTools makes the pending tool calls at once, each an activity, or a
// child workflow for a nested agent; their outcomes, in the order the
// calls were listed, are the journal's next entries.
func (m *mission) callTools(ctx workflow.Context, out stepOutput) []toolEntry {
	// The tool activity bounds the call itself, by the agent's
	// Limits.Timeout (a call past it is the tool's error, not retried);
	// the activity's own timeout, a little longer, is for lost workers.
	actx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		TaskQueue:           m.callQueue(),
		StartToCloseTimeout: m.toolTimeout + toolTimeoutMargin,
		HeartbeatTimeout:    m.heartbeatTimeout(),
		RetryPolicy: &sdktemporal.RetryPolicy{MaximumAttempts: lostWorkerAttempts,
			NonRetryableErrorTypes: []string{errTypeConfig}},
	})
	// Calls made together cannot share the turns and tokens left as
	// concurrent children in one process do (each runs on its own, a
	// nested mission or the agents a Go tool runs): each gets its part of
	// them, so that together they stay within the tree's budgets.
	n := len(out.Tools)
	start := workflow.Now(ctx)
	futures := make([]workflow.Future, n)
	for i, p := range out.Tools {
		pos := p.Position
		if n > 1 {
			pos.TurnsLeft = budgetPart(p.Position.TurnsLeft, n, i)
			if t := p.Position.Tokens; t != nil {
				part := *t
				part.Left = budgetPart(t.Left, n, i)
				pos.Tokens = &part
			}
		}
		if p.Nested {
			run := m.in.Run.inherited()
			run.TokenLimit = p.TokenLimit
			child := missionInput{Agent: m.in.Agent + "/" + p.Name, Context: p.Args, Model: m.in.Model,
				Position: &pos, TraceID: traceID(m.in.TraceID + "/" + strconv.Itoa(len(m.j.Tools)+i)),
				Deadline: m.deadline, StepTimeout: m.in.StepTimeout, Run: runWire{run}, Fingerprint: p.Fingerprint,
				SearchAttributes: m.in.SearchAttributes, HistoryLimit: m.in.HistoryLimit, Queue: m.callQueue()}
			futures[i] = workflow.ExecuteChildWorkflow(m.childContext(ctx, child, p.Name, len(m.j.Tools)+i+1), WorkflowName, child)
			continue
		}
		futures[i] = workflow.ExecuteActivity(actx, activityTool, toolInput{Agent: m.in.Agent, Fingerprint: m.in.Fingerprint,
			Tool: p.Name, Args: p.Args, Timeout: m.toolTimeout, Position: &pos})
	}
	entries := make([]toolEntry, len(out.Tools))
	for i, p := range out.Tools {
		e := toolEntry{Turn: p.Turn, Name: p.Name, Key: p.Key, Start: start}
		if n > 1 {
			e.Round = len(m.j.Tools) + 1
		}
		if p.Nested {
			var res Result
			if err := futures[i].Get(ctx, &res); err == nil {
				e.Child = &res
			} else if r := ResultFromError(err); r != nil {
				e.Child = r // a failed or cancelled nested mission
			} else if cut := m.cut(ctx, err); cut != "" {
				e.Err, e.Cut = cut, true
			} else {
				e.Err = "the nested agent's mission did not end: " + err.Error()
			}
		} else {
			var res toolOutput
			if err := futures[i].Get(ctx, &res); err != nil {
				if e.Err = m.cut(ctx, err); e.Err == "" {
					e.Err = "the tool call did not complete: " + err.Error()
				} else {
					e.Cut = true
				}
			} else {
				e.Value, e.Err, e.Firewall, e.Usage, e.Child = res.Value, res.Err, res.Firewall, res.Usage, res.Child
				e.Took = res.Took
				if e.Value == "" && e.Err == "" && e.Child == nil {
					e.Value = "nil"
				}
			}
		}
		e.End = workflow.Now(ctx)
		entries[i] = e
	}
	return entries
}

// cut is the error of a call the mission's end cut short (err is its
// cancellation): "" when the mission goes on.
func (m *mission) cut(ctx workflow.Context, err error) string {
	if !sdktemporal.IsCanceledError(err) || !m.stopped(ctx) {
		return ""
	}
	if m.timedOut {
		return "timed out: the mission ran past its MissionTimeout while the call ran"
	}
	return "cancelled: the mission was cancelled while the call ran"
}

// childContext sets the options of a nested agent's child workflow: an
// id that names the caller and the tool (the caller's id, the tool, the
// call's number in the mission), the summary in its memo, and
// cancellation when its caller ends.
func (m *mission) childContext(ctx workflow.Context, child missionInput, tool string, call int) workflow.Context {
	if m.version < versionProduction {
		return ctx
	}
	id := workflow.GetInfo(ctx).WorkflowExecution.ID + "/" + tool + "-" + strconv.Itoa(call)
	if len(id) > maxWorkflowID {
		// Deep trees of long names: keep the end, which names the tool.
		id = traceID(id)[:16] + "…" + id[len(id)-maxWorkflowID/2:]
	}
	return workflow.WithChildOptions(ctx, workflow.ChildWorkflowOptions{WorkflowID: id, TaskQueue: m.callQueue(),
		ParentClosePolicy: enumspb.PARENT_CLOSE_POLICY_REQUEST_CANCEL,
		// A cancelled child's last round gives its Step to its caller's
		// trace (versionQueuedClock).
		WaitForCancellation: m.version >= versionQueuedClock,
		Memo:                map[string]any{memoKey: summary{Agent: child.Agent, Status: StatusRunning, Version: child.Fingerprint}}})
}

// callQueue is the task queue of the mission's calls and nested agents:
// its version's ("": the workflow's own, for missions started before
// routing by version and in a test environment).
func (m *mission) callQueue() string {
	if m.route != "" {
		return m.route
	}
	return m.in.Queue
}

// sendsDifferences reports whether the mission's LLM calls reach workers
// that take their requests as differences: those of a version's task
// queue of this release (a nested agent's calls are made on its caller's
// task queue, where its workflow runs). Deterministic: the task queues are
// the run's own, recorded in its history.
func (m *mission) sendsDifferences(ctx workflow.Context) bool {
	q := m.callQueue()
	if q == "" {
		q = workflow.GetInfo(ctx).TaskQueueName
	}
	return sendsDifferences(q)
}

// maxWorkflowID bounds the child workflow ids the mission makes up
// (Temporal's limit is 1,000 bytes by default).
const maxWorkflowID = 400

// budgetPart is the i-th of n parts of turns: as equal as they can be, the
// first ones a turn larger when they cannot.
func budgetPart(turns, n, i int) int {
	if turns <= 0 {
		return turns
	}
	p := turns / n
	if i < turns%n {
		p++
	}
	return p
}

// traceID derives a mission's trace id (32 hex digits) from a stable
// name, so that every run of the mission has the same.
func traceID(name string) string {
	sum := sha256.Sum256([]byte(name))
	return hex.EncodeToString(sum[:16])
}
