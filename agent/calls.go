package agent

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ptc-go/ptc/internal/engine"
	fwall "github.com/ptc-go/ptc/internal/firewall"
	"github.com/ptc-go/ptc/internal/textutil"

	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/signature"
)

// toolCalls is the lisp.ToolCaller of one turn: it dispatches to the
// agent's tools and records every call for the trace. Calls may come from
// several goroutines (pmap); a call abandoned by a cancelled run may
// finish after the turn, and is then not recorded, unless the engine
// answers it (Hooks.Tool): the turn waits for those (close).
type toolCalls struct {
	m       *mission
	mu      sync.Mutex
	calls   []ToolCall
	closing bool           // the run ended: no call is waited for any more
	hooked  sync.WaitGroup // the calls in flight that Hooks.Tool answers
	closed  bool
	probes  int // the probes made for live events (probeLive)
}

// CallTool implements lisp.ToolCaller.
func (tc *toolCalls) CallTool(ctx context.Context, name string, args *lisp.Map) (any, error) {
	m := tc.m
	bt, ok := m.a.tools[name]
	if !ok {
		return nil, m.unknownTool(name)
	}
	if h := m.hooks(); h != nil && h.Tool != nil && tc.enter() {
		defer tc.hooked.Done() // after the call's end is recorded
	}
	if bt.nested != nil || bt.compiled != nil {
		return tc.callNested(ctx, bt, args)
	}
	// Observers see the arguments now, before the turn's shadow runs:
	// what the program computed of them from firewalled data is found by a
	// probe first (flow.go), or, past the turn's probes, every argument's
	// value is hidden.
	theirs, opaque := tc.probeLive(ctx, name, args)
	rec := ToolCall{Name: name, Args: args, Start: m.now()}
	idx := tc.begin(rec)
	id := m.toolStart(name, args, rec.Start, opaque)
	if id != 0 {
		// An agent the tool runs from Go names this call as its origin.
		ctx = context.WithValue(ctx, callRefKey{}, callRef{id: id, name: name})
	}
	var (
		res      any
		warnings []signature.Issue
		err      error
		timed    time.Duration // as the engine timed the call
	)
	if h := m.hooks(); h != nil && h.Tool != nil {
		var r engine.ToolResult
		r, warnings, err = tc.hookedTool(ctx, h, bt, args)
		res, timed = r.Value, r.Duration
	} else {
		res, warnings, err = tc.invoke(ctx, bt, args)
	}
	var v lisp.Value
	if err == nil {
		// Convert here, so that the firewall sees the very values the
		// program will hold.
		v, err = convertResult(res)
		if err == nil {
			m.fw.AddToolResult(v)
		}
	}
	d := m.callDuration(rec.Start, timed)
	tc.end(idx, d, v, warnings, err, nil)
	m.toolEnd(id, name, args, d, v, m.liveArgsError(bt, args, err, theirs, opaque), opaque)
	if err != nil {
		return nil, err
	}
	return v, nil
}

// invoke calls the tool, turning a panic into an error.
func (tc *toolCalls) invoke(ctx context.Context, bt *boundTool, args *lisp.Map) (res any, warnings []signature.Issue, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("the tool panicked: %v", r)
		}
	}()
	return bt.call(ctx, args, tc.m.opts.Validation)
}

// convertResult converts a tool's result, a panic (of the result's
// MarshalJSON) being the tool's error: the call still reports its end.
func convertResult(res any) (v lisp.Value, err error) {
	defer func() {
		if r := recover(); r != nil {
			v, err = nil, fmt.Errorf("the tool's result could not be converted: it panicked: %v", r)
		}
	}()
	return lisp.FromGo(res)
}

// snapshot returns the number of calls to the tool name begun so far, and
// a copy of the calls that have finished.
func (tc *toolCalls) snapshot(name string) (begun int, done []ToolCall) {
	tc.mu.Lock()
	defer tc.mu.Unlock()
	for _, c := range tc.calls {
		if c.Name == name {
			begun++
		}
		if c.finished {
			done = append(done, c)
		}
	}
	return begun, done
}

// liveProbes bounds the probes a turn makes for the events of its calls to
// Go and MCP tools: each re-runs the program up to the call, so a loop of
// calls would cost the square of its length.
const liveProbes = 16

// probeLive probes a call to a Go or MCP tool for its live events, when
// the mission holds firewalled data and an observer listens: theirs are
// the shadow runs' arguments of the call (the firewall now hides by place
// what of args differs from them); opaque says the call could not be
// probed (past the turn's probes, or with no turn to probe: a compiled
// agent's program), so its events hide every argument's value. The
// probes run on the call's time, which counts against the program's
// Timeout as the call does.
func (tc *toolCalls) probeLive(ctx context.Context, name string, args *lisp.Map) (theirs []*lisp.Map, opaque bool) {
	m := tc.m
	if m.obs == nil || !m.fw.Labelled() {
		return nil, false
	}
	tc.mu.Lock()
	ok := tc.probes < liveProbes
	tc.probes++
	tc.mu.Unlock()
	if !ok {
		return nil, true
	}
	earlier, done := tc.snapshot(name)
	theirs = m.probeArgs(ctx, name, earlier, done, args)
	return theirs, theirs == nil
}

// liveArgsError is a call's error for its live event: when it is the
// check of the arguments (which quotes them), what the probed shadow runs'
// arguments gave differently is hidden, or all of it for opaque
// arguments; a tool's own error is its own.
func (m *mission) liveArgsError(bt *boundTool, args *lisp.Map, err error, theirs []*lisp.Map, opaque bool) error {
	if err == nil || theirs == nil && !opaque {
		return err
	}
	msg := err.Error()
	if opaque {
		if _, cerr := bt.checkArgs(args, m.opts.Validation); cerr != nil {
			return &scrubbedErr{msg: fwall.DeriveText(msg, ""), err: err}
		}
		return err
	}
	for _, their := range theirs {
		msg = m.deriveArgsError(bt.name, args, msg, their)
	}
	return &scrubbedErr{msg: msg, err: err}
}

func (tc *toolCalls) begin(rec ToolCall) int {
	tc.mu.Lock()
	defer tc.mu.Unlock()
	if tc.closed {
		return -1
	}
	tc.calls = append(tc.calls, rec)
	return len(tc.calls) - 1
}

// callDuration is the duration of a tool call that started at start: the
// engine's timing when it gave one (engine.ToolResult.Duration), else the
// mission's clock's.
func (m *mission) callDuration(start time.Time, timed time.Duration) time.Duration {
	if timed > 0 {
		return timed
	}
	return m.since(start)
}

func (tc *toolCalls) end(idx int, d time.Duration, v lisp.Value, warnings []signature.Issue, err error, child *Step) {
	tc.mu.Lock()
	defer tc.mu.Unlock()
	if tc.closed || idx < 0 {
		return
	}
	c := &tc.calls[idx]
	c.Duration = d
	c.Result = v
	c.finished = true
	c.Child = child
	if err != nil {
		c.Error = err.Error()
	}
	for _, w := range warnings {
		// For display: a coercion echoes the argument.
		c.Warnings = append(c.Warnings, tc.m.fw.Scrub(w.String()))
	}
}

// enter counts a call the engine answers (Hooks.Tool), unless the run
// has ended; the call is done with it once its end is recorded.
func (tc *toolCalls) enter() bool {
	tc.mu.Lock()
	defer tc.mu.Unlock()
	if tc.closing {
		return false
	}
	tc.hooked.Add(1)
	return true
}

// close ends the turn's recording and returns the calls. It first waits
// for the calls the engine answers: an engine that ends the mission in the
// middle of a call (a mission cancelled or out of time on Temporal) ends
// the run's context as it answers the call, and the run, which abandons
// the call at once, would otherwise race the recording of the call's end
// (its error, its duration). An engine answers promptly once the run's
// context ends (Hooks.Tool), so the wait is short.
func (tc *toolCalls) close() []ToolCall {
	tc.mu.Lock()
	tc.closing = true
	tc.mu.Unlock()
	tc.hooked.Wait()
	tc.mu.Lock()
	defer tc.mu.Unlock()
	tc.closed = true
	return tc.calls
}

// unknownTool explains a call of a tool the agent does not have: a catalog
// entry (for planning only), or a name with the closest matches.
func (m *mission) unknownTool(name string) error {
	for _, c := range m.a.catalog {
		if c == name {
			return &lisp.Error{Kind: lisp.UnknownTool, Op: name, Message: fmt.Sprintf(
				"tool %s is listed for planning only and cannot be called; the tools you can call: %s",
				name, toolList(m.a.names))}
		}
	}
	return &lisp.Error{Kind: lisp.UnknownTool, Message: textutil.UnknownToolMessage(name, slices.Clone(m.a.names))}
}

func toolList(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}
