package temporal

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	sdktemporal "go.temporal.io/sdk/temporal"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/agent/prompt"
	"github.com/ptc-go/ptc/agent/trace"
	"github.com/ptc-go/ptc/internal/engine"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm"
)

// errSuspended ends a run of the mission at a call the journal does not
// have yet.
var errSuspended = errors.New("the mission waits for a call the workflow makes")

// settleWindow is how long a run waits, after a call the journal does not
// have, for more such calls before it stops: the calls a pmap makes at
// once all reach their hooks within it, and run together.
const settleWindow = 10 * time.Millisecond

// replay answers a mission's LLM and tool calls from the journal; at the
// first call it does not have, the run stops and reports the calls it
// waits for.
//
// Tool calls are matched by turn, name and arguments. A call that does
// not match waits until the run is quiescent (no new call for a settle
// window: pmap's calls have all arrived, each matched or waiting). Then a
// waiting call takes an unused entry of the same turn and tool, if there
// is one: the program made the call with other arguments than when it
// was recorded (it read the clock, say), and the recorded result is used,
// with a warning, so that the mission moves on instead of calling the
// tool again each round. Otherwise the waiting calls are the ones the
// workflow makes, and the run stops.
type replay struct {
	mu      sync.Mutex
	j       journal
	nextLLM int
	byKey   map[string][]int // tool entries by turn and key, in journal order
	byRound map[int][]int    // tool entries by the round that made them together
	used    []bool
	stop    context.CancelFunc
	done    chan struct{}

	suspended bool
	settling  bool
	arrivals  int // calls that did not match, for the settle window
	waiting   []*waiter
	held      []held
	llm       *llm.Request
	tools     []pendingTool
	warnings  []string
	clock     *replayClock
	end       time.Time // when set, where a run the workflow ends stops (stepInput.EndTime)
}

// replayClock is a mission's clock when it runs again from its journal:
// the mission's start, moved on to the end of each recorded call as the
// call is answered, and real time in between (the programs' own time).
// So the Step has the durations the mission had, not those of the run.
type replayClock struct {
	mu     sync.Mutex
	anchor time.Time // the mission's time at since
	since  time.Time // real time, monotonic
}

func newReplayClock(start time.Time) *replayClock {
	return &replayClock{anchor: start, since: time.Now()}
}

func (c *replayClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.anchor.Add(time.Since(c.since))
}

// advance moves the clock on to t, never back.
func (c *replayClock) advance(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if t.After(c.anchor.Add(time.Since(c.since))) {
		c.anchor, c.since = t, time.Now()
	}
}

// held is a recorded call answered once the other calls of its round have
// come too: the calls a pmap made together all run again, as they ran,
// though the first answer could end the pmap before the others start
// (a failed nested mission), and every one of them counts in the
// mission's usage and budgets.
type held struct {
	round int
	ch    chan struct{}
}

// waiter is a tool call that did not match the journal.
type waiter struct {
	call pendingTool
	ch   chan toolEntry // receives the entry it is answered with
}

func newReplay(j journal, stop context.CancelFunc, start time.Time) *replay {
	r := &replay{j: j, byKey: map[string][]int{}, byRound: map[int][]int{}, used: make([]bool, len(j.Tools)), stop: stop,
		done: make(chan struct{})}
	if !start.IsZero() {
		r.clock = newReplayClock(start)
	}
	for i, e := range j.Tools {
		k := turnKey(e.Turn, e.Key)
		r.byKey[k] = append(r.byKey[k], i)
		if e.Round > 0 {
			r.byRound[e.Round] = append(r.byRound[e.Round], i)
		}
	}
	return r
}

func (r *replay) hooks(in missionInput) *engine.Hooks {
	h := &engine.Hooks{LLM: r.callLLM, Tool: r.callTool, Position: in.Position, TraceID: in.TraceID}
	if r.clock != nil {
		h.Now = r.clock.now
	}
	return h
}

// recorded moves the clock on to the end of a recorded call.
func (r *replay) recorded(end time.Time) {
	if r.clock != nil && !end.IsZero() {
		r.clock.advance(end)
	}
}

// suspend is a run's stop at a call the journal does not have: when the
// workflow ends the mission there, its clock moves on to that end.
func (r *replay) suspend() {
	r.recorded(r.end)
	r.stop()
}

func (r *replay) callLLM(ctx context.Context, call engine.LLMCall) (engine.LLMReply, error) {
	r.mu.Lock()
	i := r.nextLLM
	r.nextLLM++
	if i < len(r.j.LLM) {
		e := r.j.LLM[i]
		r.mu.Unlock()
		r.recorded(e.End)
		if e.Response == nil {
			return engine.LLMReply{}, &llm.Error{Class: e.Class, Message: e.Err}
		}
		// The model's own time, as its activity measured it (replies
		// recorded before it have none: the clock's is used).
		return engine.LLMReply{Response: *e.Response, Took: e.Took}, nil
	}
	if !r.suspended {
		req := call.Request
		r.llm = &req
		r.suspended = true
	}
	r.mu.Unlock()
	r.suspend()
	return engine.LLMReply{}, errSuspended
}

func toolKey(name, args string) string { return name + " " + args }

func turnKey(turn int, key string) string { return strconv.Itoa(turn) + " " + key }

func (r *replay) callTool(ctx context.Context, call engine.ToolRequest) (engine.ToolResult, error) {
	args := lisp.Print(call.Args, lisp.PrintOptions{Exact: true})
	key := toolKey(call.Name, args)
	r.mu.Lock()
	for _, i := range r.byKey[turnKey(call.Turn, key)] {
		if r.used[i] {
			continue
		}
		r.used[i] = true
		e := r.j.Tools[i]
		if e.Round == 0 || r.releaseRound(e.Round) {
			r.mu.Unlock()
			return r.answer(e)
		}
		h := held{round: e.Round, ch: make(chan struct{})}
		r.held = append(r.held, h)
		r.arrive()
		r.mu.Unlock()
		select {
		case <-h.ch:
			return r.answer(e)
		case <-ctx.Done():
			return engine.ToolResult{}, errSuspended
		}
	}
	if r.suspended {
		r.mu.Unlock()
		return engine.ToolResult{}, errSuspended
	}
	w := &waiter{call: pendingTool{Turn: call.Turn, Key: key, Name: call.Name, Args: args, Nested: call.Nested,
		TokenLimit: call.TokenLimit, Position: call.Position}, ch: make(chan toolEntry, 1)}
	r.waiting = append(r.waiting, w)
	r.arrive()
	r.mu.Unlock()
	select {
	case e := <-w.ch:
		return r.answer(e)
	case <-ctx.Done():
		return engine.ToolResult{}, errSuspended
	}
}

// arrive counts a call that has to wait and starts settle unless it runs.
// r.mu is held.
func (r *replay) arrive() {
	r.arrivals++
	if !r.settling {
		r.settling = true
		go r.settle()
	}
}

// releaseRound answers the held calls of a round once all its calls have
// come, and reports whether they have.
func (r *replay) releaseRound(round int) bool {
	for _, i := range r.byRound[round] {
		if !r.used[i] {
			return false
		}
	}
	left := r.held[:0]
	for _, h := range r.held {
		if h.round == round {
			close(h.ch)
		} else {
			left = append(left, h)
		}
	}
	r.held = left
	return true
}

// settle waits for the run to be quiescent, then answers the held calls
// (the rest of their round did not come: the program made other calls
// this time, or fewer at once), else the waiting calls that have an
// unused entry of their turn and tool, or stops the run.
func (r *replay) settle() {
	last := -1
	t := time.NewTicker(settleWindow)
	defer t.Stop()
	for {
		select {
		case <-r.done:
			return
		case <-t.C:
		}
		r.mu.Lock()
		if r.suspended { // the run stopped at an LLM call
			r.mu.Unlock()
			return
		}
		if r.arrivals != last {
			last = r.arrivals
			r.mu.Unlock()
			continue
		}
		if len(r.held) > 0 {
			for _, h := range r.held {
				close(h.ch)
			}
			r.held = nil
			r.mu.Unlock()
			continue
		}
		if len(r.waiting) == 0 {
			r.settling = false
			r.mu.Unlock()
			return
		}
		var left []*waiter
		for _, w := range r.waiting {
			if i := r.unusedOf(w.call.Turn, w.call.Name); i >= 0 {
				r.used[i] = true
				e := r.j.Tools[i]
				r.warnings = append(r.warnings, fmt.Sprintf(
					"turn %d called %s with other arguments than when it was recorded (%s, recorded %s): the recorded result was used",
					w.call.Turn, w.call.Name, clip(w.call.Args, 200), clip(strings.TrimPrefix(e.Key, e.Name+" "), 200)))
				w.ch <- e
				continue
			}
			left = append(left, w)
		}
		if len(left) < len(r.waiting) {
			// Some calls were answered: the program goes on.
			r.waiting = left
			if len(left) == 0 {
				r.settling = false
				r.mu.Unlock()
				return
			}
			r.mu.Unlock()
			continue
		}
		for _, w := range r.waiting {
			r.tools = append(r.tools, w.call)
		}
		r.waiting = nil
		r.suspended = true
		r.mu.Unlock()
		r.suspend()
		return
	}
}

// unusedOf is the first unused entry of a turn and tool, -1 if none.
func (r *replay) unusedOf(turn int, name string) int {
	for i, e := range r.j.Tools {
		if !r.used[i] && e.Turn == turn && e.Name == name {
			return i
		}
	}
	return -1
}

// answer answers a call with a recorded entry, the clock moved on to the
// entry's end.
func (r *replay) answer(e toolEntry) (engine.ToolResult, error) {
	r.recorded(e.End)
	if e.Cut {
		// The mission ended during this call: the run ends with it, as
		// an in-process mission's context ends, and no turn follows.
		r.stop()
	}
	return e.answer()
}

// answer is a recorded call's outcome, as the hook returns it, with the
// call's recorded duration.
func (e toolEntry) answer() (engine.ToolResult, error) {
	var d time.Duration
	switch {
	case e.Took > 0:
		d = e.Took
	case !e.Start.IsZero() && e.End.After(e.Start):
		d = e.End.Sub(e.Start)
	}
	if e.Child != nil {
		step, err := resultStep(e.Child)
		if err != nil {
			return engine.ToolResult{}, err
		}
		return engine.ToolResult{Step: step, Duration: d}, nil
	}
	r := engine.ToolResult{Firewall: e.Firewall, Duration: d}
	if e.Usage != nil {
		r.Usage = *e.Usage
	}
	if e.Err != "" {
		r.Firewall = nil
		return r, errors.New(e.Err)
	}
	v, err := readValue(e.Value)
	if err != nil {
		return engine.ToolResult{}, fmt.Errorf("the recorded result cannot be read: %w", err)
	}
	r.Value = v
	return r, nil
}

// unused describes the recorded tool calls the run did not make again,
// after the calls it made with other arguments.
func (r *replay) unused() []string {
	out := r.warnings
	for i, u := range r.used {
		if !u {
			out = append(out, "the program did not make the recorded call "+clip(r.j.Tools[i].Key, 200)+
				" again; its result is unused")
		}
	}
	return out
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

// step is the local activity that runs the mission from its journal: its
// programs run again (they are cheap), their calls answered from the
// journal, up to the end of the mission or to the first call the journal
// does not have. A program's error is a turn of the mission, as
// in-process: only the worker's own troubles fail the activity.
func (r *runner) step(ctx context.Context, in stepInput) (*stepOutput, error) {
	e, err := r.lookup(in.Mission.Agent, in.Mission.Fingerprint)
	if err != nil {
		return nil, err
	}
	input, err := readMap(in.Mission.Context)
	if err != nil {
		return nil, sdktemporal.NewNonRetryableApplicationError("the mission's context: "+err.Error(), errTypeConfig, nil)
	}
	cfg := e.agent.Config()
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	rp := newReplay(in.Journal, cancel, in.Started)
	rp.end = in.EndTime
	opts := in.Mission.Run.options()
	opts.Input = input
	step, _ := e.agent.Run(engine.WithHooks(runCtx, rp.hooks(in.Mission)), opts)
	close(rp.done)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := &stepOutput{Progress: progressOf(in.Mission.Agent, step, in.Journal)}
	if p := out.Progress.LastProgram; p != "" && p == prompt.ExtractProgram(lastReply(in.Journal)) {
		// The workflow reads it from the reply its journal holds: the
		// marker does not repeat it.
		out.Progress.LastProgram, out.ProgramOfReply = "", true
	}
	if !in.Armed {
		// The agent's settings, which the workflow keeps for the run:
		// its later rounds' markers do not repeat them.
		out.MissionTimeout, out.ToolTimeout, out.Fingerprint = cfg.MissionTimeout, cfg.Limits.Timeout, e.fingerprint
		out.Progress.Version = e.fingerprint
	}
	if in.Mission.Queue == "" {
		out.Queue = r.versionQueue(in.Mission.Agent, e)
	}
	rp.mu.Lock()
	defer rp.mu.Unlock()
	if rp.suspended && in.End == nil {
		out.Tools = rp.tools
		for i, p := range out.Tools {
			if p.Nested {
				out.Tools[i].Fingerprint = e.nested[p.Name]
			}
		}
		if rp.llm != nil {
			out.LLM = llmCallOf(cfg, delta(in.Last, *rp.llm, lastReply(in.Journal)))
			out.Tools = nil
		}
		return out, nil
	}
	if (rp.suspended || in.End != nil) && step != nil {
		// The workflow ends the mission (cancelled, out of time) where it
		// waited: its Step is the trace so far, with the workflow's Fail
		// (whatever its program did with the calls the end cut short).
		f := *in.End
		step.Fail = &f
		step.Return = nil
	}
	res, err := resultOf(in.Mission.Agent, step)
	if err != nil {
		return nil, err
	}
	res.Warnings = rp.unused()
	out.Done = true
	out.Result = res
	out.Progress.Status = res.Status
	return out, nil
}

// delta is req as the difference from last when it continues it (same
// system prompt, prompt, tools, options and sender; last's messages
// first), else req whole. When the first new message is reply, the model's
// last reply, which the history holds already, it is left out too
// (llmCall.Reply).
func delta(last *llm.Request, req llm.Request, reply string) llmCall {
	if last == nil || len(last.Messages) == 0 || len(last.Messages) > len(req.Messages) || last.System != req.System ||
		last.Agent != req.Agent || last.Depth != req.Depth || last.TraceID != req.TraceID || last.ParentTraceID != req.ParentTraceID ||
		last.Prompt != req.Prompt || last.Cache != req.Cache || !slices.Equal(last.ToolNames, req.ToolNames) ||
		!reflect.DeepEqual(last.Options, req.Options) || !slices.Equal(last.Messages, req.Messages[:len(last.Messages)]) {
		return llmCall{Request: req}
	}
	n := len(last.Messages)
	c := llmCall{Base: n, Request: llm.Request{Turn: req.Turn, Messages: req.Messages[n:]}}
	if len(c.Request.Messages) > 0 && c.Request.Messages[0] == (llm.Message{Role: llm.Assistant, Content: reply}) {
		c.Reply, c.Request.Messages = true, c.Request.Messages[1:]
	}
	return c
}

// lastReply is the content of the last reply j holds ("" when its last
// LLM call failed, or it has none).
func lastReply(j journal) string {
	if len(j.LLM) == 0 || j.LLM[len(j.LLM)-1].Response == nil {
		return ""
	}
	return j.LLM[len(j.LLM)-1].Response.Content
}

// resultOf is the Result of a Step: a summary, and its raw trace, which
// carries its firewall.
func resultOf(name string, step *agent.Step) (*Result, error) {
	data, err := trace.Marshal(step, trace.JSONOptions{Raw: true})
	if err != nil {
		return nil, sdktemporal.NewNonRetryableApplicationError("the mission's Step: "+err.Error(), errTypeConfig, nil)
	}
	res := &Result{Agent: name, Status: statusOf(step.Fail), Turns: step.Usage.Turns, Tokens: step.TotalUsage.Tokens,
		Trace: data}
	if step.Fail != nil {
		res.Reason, res.Message = string(step.Fail.Reason), step.Scrub(step.Fail.Message)
	}
	return res, nil
}

// llmCallOf is a pending LLM call with the agent's timeout and retry
// policy.
func llmCallOf(cfg agent.Config, c llmCall) *llmCall {
	timeout := max(cfg.LLMTimeout, 0) // none of its own: callLLM's ceiling
	p := cfg.LLMRetry
	c.Timeout, c.MaxAttempts, c.BaseDelay, c.MaxDelay, c.Backoff = timeout, max(p.MaxAttempts, 1), p.BaseDelay, p.MaxDelay, 2
	if p.Backoff != llm.BackoffExponential {
		c.Backoff = 1 // Temporal has no linear backoff: Linear waits BaseDelay each time, as Constant does
	}
	return &c
}

func progressOf(name string, step *agent.Step, j journal) Progress {
	p := Progress{Agent: name, Status: StatusRunning, LLMCalls: len(j.LLM), ToolCalls: len(j.Tools)}
	if step == nil {
		return p
	}
	p.Turn = step.Usage.Turns
	p.Usage = step.Usage
	p.Usage.LLMRequests = len(j.LLM)
	p.Usage.Duration = 0
	for i := len(step.Trace) - 1; i >= 0; i-- {
		if step.Trace[i].Program != "" {
			p.LastProgram = step.Scrub(step.Trace[i].Program) // for display: through the firewall
			break
		}
	}
	return p
}

// resultStep is the Step of a mission workflow's Result.
func resultStep(res *Result) (*agent.Step, error) {
	if res == nil {
		return nil, errors.New("temporal: the mission has no result")
	}
	if len(res.Trace) > 0 {
		data, err := traceBytes(res.Trace)
		if err != nil {
			return nil, fmt.Errorf("temporal: the mission's trace: %w", err)
		}
		step, err := trace.Unmarshal(data)
		if err != nil {
			return nil, fmt.Errorf("temporal: the mission's trace: %w", err)
		}
		step.Warnings = append(step.Warnings, res.Warnings...)
		if step.Memory == nil {
			step.Memory = lisp.NewNamespace(nil)
		}
		return step, nil
	}
	step := &agent.Step{Fail: res.Fail, Usage: res.Usage, TotalUsage: res.Usage, Warnings: res.Warnings,
		Memory: lisp.NewNamespace(nil)}
	if step.Fail == nil {
		step.Fail = &agent.Fail{Reason: agent.ReasonInternalError, Message: "the mission ended without a result"}
	}
	return step, nil
}
