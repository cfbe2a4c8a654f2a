package temporal

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"time"

	sdktemporal "go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/ptc-go/ptc/agent"
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

// mission is the workflow's state: the journal of what the mission did,
// and its progress.
type mission struct {
	in       MissionInput
	j        journal
	progress Progress
	deadline time.Time
	timedOut bool
}

// missionWorkflow runs one mission: the loop of the agent, its programs
// run by the step local activity from the journal, each LLM call and each
// tool call an activity (a nested agent's mission a child workflow),
// recorded in the journal as it completes. Everything that is not
// deterministic happens in activities, local or not, whose results the
// history records.
func missionWorkflow(ctx workflow.Context, in MissionInput) (*Result, error) {
	info := workflow.GetInfo(ctx)
	if in.TraceID == "" {
		in.TraceID = traceID(info.WorkflowExecution.ID)
	}
	if in.StepTimeout <= 0 {
		in.StepTimeout = DefaultStepTimeout
	}
	m := &mission{in: in, progress: Progress{Agent: in.Agent, Status: StatusRunning}}
	if err := workflow.SetQueryHandler(ctx, QueryProgress, func() (Progress, error) { return m.progress, nil }); err != nil {
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
			activityStep, stepInput{Mission: m.in, Journal: m.j}).Get(mctx, &out)
		if r := m.ended(ctx); r != nil {
			return r, nil
		}
		if err != nil {
			return nil, err
		}
		if !armed {
			armed = true
			m.arm(mctx, cancel, info.WorkflowStartTime, out.MissionTimeout)
		}
		m.progress = out.Progress
		if out.Done {
			return out.Result, nil
		}
		if out.LLM != nil {
			e := m.callLLM(mctx, out.LLM)
			if r := m.ended(ctx); r != nil {
				return r, nil
			}
			m.j.LLM = append(m.j.LLM, e)
			continue
		}
		entries := m.callTools(mctx, out)
		if r := m.ended(ctx); r != nil {
			return r, nil
		}
		m.j.Tools = append(m.j.Tools, entries...)
	}
}

// arm ends the mission at its deadline: the tree's, or the agent's own
// MissionTimeout from the workflow's start, whichever comes first.
func (m *mission) arm(ctx workflow.Context, cancel workflow.CancelFunc, start time.Time, own time.Duration) {
	d := m.in.Deadline
	if own > 0 {
		if od := start.Add(own); d.IsZero() || od.Before(d) {
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

// ended is the mission's Result when it was cancelled or ran out of time,
// nil while it goes on.
func (m *mission) ended(ctx workflow.Context) *Result {
	var fail *agent.Fail
	switch {
	case ctx.Err() != nil:
		fail = &agent.Fail{Reason: agent.ReasonCancelled, Message: "the caller cancelled the mission"}
	case m.timedOut:
		fail = &agent.Fail{Reason: agent.ReasonMissionTimeout, Message: "the mission ran past its deadline (MissionTimeout)"}
	default:
		return nil
	}
	m.progress.Status = StatusFailed
	return &Result{Fail: fail, Usage: m.progress.Usage}
}

// callLLM makes the LLM call, retried per the agent's policy; its outcome,
// a failure included, is the journal's next entry.
func (m *mission) callLLM(ctx workflow.Context, c *llmCall) llmEntry {
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = 10 * time.Minute
	}
	base := c.BaseDelay
	if base <= 0 {
		base = time.Second
	}
	ao := workflow.ActivityOptions{
		StartToCloseTimeout: timeout,
		RetryPolicy: &sdktemporal.RetryPolicy{
			InitialInterval:        base,
			BackoffCoefficient:     c.Backoff,
			MaximumInterval:        c.MaxDelay,
			MaximumAttempts:        int32(c.MaxAttempts + lostWorkerAttempts),
			NonRetryableErrorTypes: []string{errTypeConfig, string(llm.Auth), string(llm.Config)},
		},
	}
	if ao.RetryPolicy.MaximumInterval <= 0 {
		ao.RetryPolicy.MaximumInterval = 30 * time.Second
	}
	if ao.RetryPolicy.MaximumInterval < base {
		ao.RetryPolicy.MaximumInterval = base
	}
	var resp llm.Response
	err := workflow.ExecuteActivity(workflow.WithActivityOptions(ctx, ao), activityLLM,
		llmInput{Agent: m.in.Agent, Model: m.in.Model, Request: c.Request, MaxAttempts: c.MaxAttempts}).Get(ctx, &resp)
	if err == nil {
		return llmEntry{Response: &resp}
	}
	class, msg := llm.Unknown, err.Error()
	var ae *sdktemporal.ApplicationError
	var te *sdktemporal.TimeoutError
	switch {
	case errors.As(err, &ae):
		class, msg = llm.Class(ae.Type()), ae.Message()
	case errors.As(err, &te):
		class, msg = llm.Timeout, fmt.Sprintf("no reply within %v (Config.LLMTimeout; by default the turn's Limits.Timeout)", timeout)
	}
	return llmEntry{Err: msg, Class: class}
}

// callTools makes the pending tool calls at once, each an activity, or a
// child workflow for a nested agent; their outcomes, in the order the
// calls were listed, are the journal's next entries.
func (m *mission) callTools(ctx workflow.Context, out stepOutput) []toolEntry {
	// The tool activity bounds the call itself, by the agent's
	// Limits.Timeout (a call past it is the tool's error, not retried);
	// the activity's own timeout, a little longer, is for lost workers.
	actx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: out.ToolTimeout + toolTimeoutMargin,
		RetryPolicy: &sdktemporal.RetryPolicy{MaximumAttempts: lostWorkerAttempts,
			NonRetryableErrorTypes: []string{errTypeConfig}},
	})
	// Calls made together cannot share the turns and tokens left as
	// concurrent children in one process do (each runs on its own, a
	// nested mission or the agents a Go tool runs): each gets its part of
	// them, so that together they stay within the tree's budgets.
	n := len(out.Tools)
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
			child := MissionInput{Agent: m.in.Agent + "/" + p.Name, Context: p.Args, Model: m.in.Model,
				Position: &pos, TraceID: traceID(m.in.TraceID + "/" + strconv.Itoa(len(m.j.Tools)+i)),
				Deadline: m.deadline, StepTimeout: m.in.StepTimeout, Run: run}
			futures[i] = workflow.ExecuteChildWorkflow(ctx, WorkflowName, child)
			continue
		}
		futures[i] = workflow.ExecuteActivity(actx, activityTool, toolInput{Agent: m.in.Agent, Tool: p.Name, Args: p.Args,
			Timeout: out.ToolTimeout, Position: &pos})
	}
	entries := make([]toolEntry, len(out.Tools))
	for i, p := range out.Tools {
		e := toolEntry{Turn: p.Turn, Name: p.Name, Key: p.Key}
		if n > 1 {
			e.Round = len(m.j.Tools) + 1
		}
		if p.Nested {
			var res Result
			if err := futures[i].Get(ctx, &res); err != nil {
				e.Err = "the nested agent's mission did not end: " + err.Error()
			} else {
				e.Child = &res
			}
		} else {
			var res toolOutput
			if err := futures[i].Get(ctx, &res); err != nil {
				e.Err = "the tool call did not complete: " + err.Error()
			} else {
				e.Value, e.Err, e.Firewall, e.Usage, e.Child = res.Value, res.Err, res.Firewall, res.Usage, res.Child
				if e.Value == "" && e.Err == "" && e.Child == nil {
					e.Value = "nil"
				}
			}
		}
		entries[i] = e
	}
	return entries
}

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
