package agent

import (
	"context"
	"errors"
	"fmt"
	fwall "github.com/ptc-go/ptc/internal/firewall"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm"
)

// EventKind is what an Event reports: a mission (run), a turn, an LLM call
// or a tool call starting, stopping, or failing.
type EventKind uint8

// The events of a mission, as seed 001 lists them. Every run reports one
// RunStart and exactly one end, however it ends: RunStop, failed or not
// (Event.Err, a *Fail), or RunException when a fault of the host ended it (a
// panic of a host callback: reason internal_error, Fail.Op naming the
// callback when known, Fail.Details["stack"] the stack); an LLM call
// attempt ends with LLMStop or LLMException (a retry starts again with
// LLMStart); a tool call with ToolStop or ToolException (the tool's
// error, a refused argument, a panic).
const (
	RunStart EventKind = iota + 1
	RunStop
	RunException
	TurnStart
	TurnStop
	LLMStart
	LLMStop
	LLMException
	ToolStart
	ToolStop
	ToolException
	// LLMChunk reports a reply as a model that streams writes it
	// (Reply.Content: the reply so far, scrubbed), at most every 256
	// bytes or 100 ms of it; the call's LLMStop has it whole.
	LLMChunk
)

var eventNames = [...]string{
	RunStart: "run.start", RunStop: "run.stop", RunException: "run.exception",
	TurnStart: "turn.start", TurnStop: "turn.stop",
	LLMStart: "llm.start", LLMStop: "llm.stop", LLMException: "llm.exception",
	ToolStart: "tool.start", ToolStop: "tool.stop", ToolException: "tool.exception",
	LLMChunk: "llm.chunk",
}

// String is the event's name, as "tool.stop".
func (k EventKind) String() string {
	if int(k) < len(eventNames) && eventNames[k] != "" {
		return eventNames[k]
	}
	return fmt.Sprintf("EventKind(%d)", k)
}

// Event is one thing that happened in a mission. Every event has Kind,
// Time and the fields that say where it happened (Agent, TraceID,
// ParentTraceID, Depth, Turn); the rest belong to some kinds, as each
// field's comment says:
//
//	run.*   Usage, Warnings, Err (a *Fail), ResultText
//	turn.*  Program, Output, ResultText, Err, Usage
//	llm.*   Attempt, Request (start), Reply (chunk, stop, exception), RetryIn, Err, Usage
//	tool.*  Tool, ArgsText, ResultText, Err
//
// Firewalled data never reaches an observer through the fields: ArgsText,
// ResultText, Output and the error texts are redacted and scrubbed
// exactly as the LLM is shown them, Request is what the LLM was sent, and
// Program and Reply.Content are scrubbed too. A mission's Fail (the Err
// of run.stop and run.exception) reaches an observer with its texts
// scrubbed and its Details redacted. The values themselves (Args, Result,
// Step) and the Fail itself are given only to observers registered with
// Raw.
type Event struct {
	Kind EventKind
	// Time is when it happened: the start, or the end for stop and
	// exception events.
	Time time.Time

	// Agent is the agent's Config.Name (or the name it was called by as a
	// tool); "" when it has none.
	Agent string
	// TraceID is the mission's; ParentTraceID its caller's ("" at the top);
	// Depth counts the missions above it (0 at the top).
	TraceID, ParentTraceID string
	Depth                  int
	// Turn is the turn's number (0 for run events, and for the tool calls
	// of a compiled agent's program, which has no turns).
	Turn int
	// CallID pairs a call's start with its stop or exception, unique in
	// the tree; ParentCallID, on a nested mission's run events, is the
	// CallID of the tool call that runs it (0 at the top).
	CallID, ParentCallID uint64

	// Duration is the time since the matching start (stop and exception
	// events).
	Duration time.Duration

	// Attempt numbers the attempts of one LLM call, from 1 (llm events).
	Attempt int
	// RetryIn is how long the mission waits before the next attempt of a
	// failed LLM call (llm.exception): the retry policy's backoff, or the
	// provider's Retry-After when longer. 0 when no attempt follows.
	RetryIn time.Duration
	// Request is what the LLM is sent (llm.start). Reply is the reply,
	// Content scrubbed (llm.stop; the reply so far: llm.chunk; what a
	// failed call named: llm.exception), RequestModel the model asked for.
	Request *llm.Request
	Reply   *llm.Response

	// Program is the program the turn ran (turn.stop; "" when the reply
	// had none), and Output its println output, scrubbed (at most
	// outputLines lines).
	Program string
	Output  []string

	// Tool is the tool's name (tool events).
	Tool string
	// ArgsText and ResultText are a tool call's arguments and result (or
	// the turn's value, the mission's return value) printed as the LLM sees
	// them: firewalled parts redacted, bounded in length.
	ArgsText, ResultText string
	// Err is what failed, its message scrubbed: the call (llm.exception,
	// tool.exception), the turn's program as the LLM was told (turn.stop),
	// or the mission, a *Fail (run.stop, run.exception; nil on success).
	Err error
	// Usage is the call's tokens (llm.stop), the turn's (turn.stop:
	// CachedPrograms 1 when its program came from Options.CompileCache)
	// or the mission's (run.stop, run.exception).
	Usage Usage
	// Warnings are the mission's Step.Warnings (run.stop, run.exception),
	// scrubbed; trace.NewSlogObserver logs each at WARN.
	Warnings []string

	// The values themselves, for observers registered with Raw (Args,
	// Result and Step read them).
	args   *lisp.Map
	result lisp.Value
	step   *Step
}

// Args is a tool call's arguments as the program gave them, firewalled
// parts included (tool events); nil unless the observer was registered
// with Raw.
func (e *Event) Args() *lisp.Map { return e.args }

// Result is the value itself, firewalled parts included: a tool call's
// result (tool.stop), the turn's value (turn.stop) or the mission's return
// value (run.stop); nil unless the observer was registered with Raw.
func (e *Event) Result() lisp.Value { return e.result }

// Step is the mission's Step as Run returns it (run.stop, run.exception);
// nil unless the observer was registered with Raw.
func (e *Event) Step() *Step { return e.step }

// Observer receives a mission's events. Observe is called synchronously,
// in the order of Options.Observers, once per event, and never
// concurrently for one mission tree (events of pmap's parallel tool calls
// are delivered one at a time): an observer needs no locking of its own for
// the events of one Run. It must not block: the mission waits for it.
// Events are notifications: an observer cannot change what a mission
// does, and one that panics is dropped for the rest of the run (the panic
// becomes a warning of the Step) without breaking the mission.
type Observer interface {
	Observe(ctx context.Context, e *Event)
}

// ObserverFunc is a function as an Observer.
type ObserverFunc func(ctx context.Context, e *Event)

// Observe calls f.
func (f ObserverFunc) Observe(ctx context.Context, e *Event) { f(ctx, e) }

// Raw registers o to receive the values themselves (Event.Args, Result,
// Step) and the Step's Fail as it is (its Details unredacted), firewalled
// parts included: for an audit log of your own, never for a sink an LLM,
// a user or a third party reads.
func Raw(o Observer) Observer { return rawObserver{o} }

type rawObserver struct{ Observer }

// textLimit bounds the ArgsText and ResultText of events, and each line
// of Output; outputLines bounds the lines of Output.
const (
	textLimit   = 1024
	outputLines = 20
)

// observers delivers the events of one mission tree: the root's observers
// and, below them, those a nested run adds. One lock serializes the
// deliveries of the whole tree.
type observers struct {
	shared *observerState
	list   []*observerEntry
	raw    bool // some observer wants raw values
}

type observerState struct {
	mu sync.Mutex
	// warnings are the panics of observers, for the root's Step.
	warnings []string
}

type observerEntry struct {
	o       Observer
	raw     bool
	dropped bool // it panicked (guarded by the shared lock)
}

// newObservers returns the dispatcher of list under parent's (parent
// itself when list is empty; nil when there are no observers at all).
func newObservers(parent *observers, list []Observer) *observers {
	var added []*observerEntry
	for _, o := range list {
		if o == nil {
			continue
		}
		ro, raw := o.(rawObserver)
		if raw {
			o = ro.Observer
		}
		added = append(added, &observerEntry{o: o, raw: raw})
	}
	if len(added) == 0 {
		return parent
	}
	d := &observers{shared: &observerState{}}
	if parent != nil {
		d.shared = parent.shared
		d.list = append(d.list, parent.list...)
	}
	d.list = append(d.list, added...)
	for _, e := range d.list {
		d.raw = d.raw || e.raw
	}
	return d
}

// emit delivers e to every observer, raw values removed for those that
// did not ask for them: they get a copy without Args, Result and Step, and
// with a mission's Fail (Err) whose texts are scrubbed and whose Details
// are redacted by v, the mission's firewall.
func (d *observers) emit(ctx context.Context, e *Event, v veil) {
	if d == nil {
		return
	}
	d.shared.mu.Lock()
	defer d.shared.mu.Unlock()
	var redacted *Event
	var fail *Fail
	if e.Err != nil {
		errors.As(e.Err, &fail)
	}
	for i, entry := range d.list {
		if entry.dropped {
			continue
		}
		ev := e
		if !entry.raw && (e.args != nil || e.result != nil || e.step != nil || fail != nil) {
			if redacted == nil {
				c := *e
				c.args, c.result, c.step = nil, nil, nil
				c.Err = redactedErr(v, e.Err, fail)
				redacted = &c
			}
			ev = redacted
		}
		d.deliver(ctx, entry, i, ev)
	}
}

// redactedErr is err for an observer that is not Raw when its chain holds
// fail: the mission's Fail redacted, or (a nested mission's failure under
// a tool call's error) err's scrubbed text over the redacted Fail, the
// chain cut there so that no raw Fail or Step is reachable.
func redactedErr(v veil, err error, fail *Fail) error {
	if fail == nil {
		return err
	}
	if f, ok := err.(*Fail); ok && f == fail {
		return redactedFail(v, fail)
	}
	return &scrubbedErr{msg: v.Scrub(err.Error()), err: redactedFail(v, fail)}
}

func (d *observers) deliver(ctx context.Context, entry *observerEntry, i int, e *Event) {
	defer func() {
		if r := recover(); r != nil {
			entry.dropped = true
			d.shared.warnings = append(d.shared.warnings,
				fmt.Sprintf("observer %d panicked on %s (%v) and got no more events", i+1, e.Kind, r))
		}
	}()
	entry.o.Observe(ctx, e)
}

// panics returns the warnings about observers that panicked.
func (d *observers) panics() []string {
	if d == nil {
		return nil
	}
	d.shared.mu.Lock()
	defer d.shared.mu.Unlock()
	return append([]string(nil), d.shared.warnings...)
}

// callRef identifies, in a nested mission's context, the tool call of its
// caller that runs it.
type callRef struct {
	id   uint64
	name string
}

type callRefKey struct{}

// begin places the mission in its tree (trace ids, depth, name, the
// observers) and reports its start.
func (m *mission) begin() {
	m.traceID = newTraceID()
	m.name = m.a.cfg.Name
	var parentObs *observers
	if parent := m.up; parent != nil {
		m.depth, m.parentTraceID = parent.depth+1, parent.traceID
		parentObs, m.callIDs = parent.obs, parent.callIDs
	} else if h := m.hooks(); h != nil {
		if h.TraceID != "" {
			m.traceID = h.TraceID
		}
		if p := h.Position; p != nil {
			m.depth, m.parentTraceID = p.Depth, p.ParentTraceID
			if m.name == "" {
				m.name = p.Name
			}
		}
	}
	if ref, ok := m.parent.Value(callRefKey{}).(callRef); ok {
		m.parentCallID = ref.id
		if m.name == "" {
			m.name = ref.name
		}
	}
	if m.callIDs == nil {
		m.callIDs = new(atomic.Uint64)
	}
	m.obs = newObservers(parentObs, m.opts.Observers)
	if m.obs != nil {
		m.emit(&Event{Kind: RunStart, Time: m.start})
	}
}

// end reports the mission's end; at the top of the tree, the panics of
// observers become warnings of the Step.
func (m *mission) end(step *Step) {
	if m.ended {
		return // reported already (an abandoned mission's watchdog)
	}
	m.ended = true
	if m.obs == nil {
		return
	}
	e := &Event{Kind: RunStop, Duration: step.Usage.Duration, Usage: step.Usage, Warnings: step.Warnings}
	if step.Fail != nil {
		e.Err = step.Fail // never a nil *Fail in the interface
		if step.Fail.Reason == ReasonInternalError {
			e.Kind = RunException
		}
	} else {
		e.ResultText = m.eventText(step.Return)
	}
	if m.obs.raw {
		e.step, e.result = step, step.Return
	}
	m.emit(e)
	if m.depth == 0 {
		step.Warnings = append(step.Warnings, m.obs.panics()...)
	}
}

// endWith is end for the paths that return the Step at once.
func (m *mission) endWith(step *Step) *Step {
	m.end(step)
	return step
}

// emit completes e with where it happened and delivers it.
func (m *mission) emit(e *Event) {
	if e.Time.IsZero() {
		e.Time = m.now()
	}
	e.Agent, e.TraceID, e.ParentTraceID, e.Depth = m.name, m.traceID, m.parentTraceID, m.depth
	if e.Kind == RunStart || e.Kind == RunStop || e.Kind == RunException {
		e.ParentCallID = m.parentCallID
	} else if e.Turn == 0 {
		e.Turn = m.turn
	}
	ctx := m.ctx
	if ctx == nil {
		ctx = m.parent
	}
	// Every text reaches observers scrubbed, whoever built the event: the
	// program and the reply too (which the LLM wrote without seeing
	// firewalled data, but may echo by chance).
	v := veil{m.fw}
	if e.Program != "" {
		e.Program = v.Scrub(e.Program)
	}
	if e.Reply != nil && e.Reply.Content != "" {
		e.Reply.Content = v.Scrub(e.Reply.Content)
	}
	m.obs.emit(ctx, e, v)
}

// eventText prints a value for observers as the LLM would be shown it:
// firewalled parts hidden, copies of firewalled text scrubbed, bounded.
func (m *mission) eventText(v lisp.Value) string {
	if v == nil {
		return "nil"
	}
	redact := &lisp.Redaction{Placeholder: Firewalled, Key: fwall.HiddenKey}
	if m.fw != nil {
		redact = m.fw.Redaction()
	}
	s := lisp.Print(v, lisp.PrintOptions{MaxItems: 20, MaxChars: 4*textLimit + 64, MaxDepth: 8, Redact: redact,
		FloatPrecision: max(m.a.cfg.Presentation.FloatPrecision, 0)})
	return m.clip(s, textLimit)
}

// argsText is a tool call's arguments for events; opaque ones show their
// keys and the placeholder for every value.
func (m *mission) argsText(args *lisp.Map, opaque bool) string {
	if !opaque || args == nil {
		return m.eventText(args)
	}
	redact := *m.fw.Redaction()
	member := redact.Member
	redact.Member = func(coll, key lisp.Value) bool {
		if coll == lisp.Value(args) {
			return true
		}
		return member != nil && member(coll, key)
	}
	s := lisp.Print(args, lisp.PrintOptions{MaxItems: 20, MaxChars: 4*textLimit + 64, MaxDepth: 8, Redact: &redact})
	return m.clip(s, textLimit)
}

// scrubbedErr is an error whose text the firewall scrubbed, for events.
type scrubbedErr struct {
	msg string
	err error
}

func (e *scrubbedErr) Error() string { return e.msg }
func (e *scrubbedErr) Unwrap() error { return e.err }

func (m *mission) eventErr(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	if m.fw != nil {
		msg = m.fw.Scrub(msg)
	}
	return &scrubbedErr{msg: msg, err: err}
}

// toolStart reports the start of a tool call and returns its id (0 when
// nobody observes). Opaque arguments show their keys only: what of them
// was computed from firewalled data is not known yet (probeLive).
func (m *mission) toolStart(name string, args *lisp.Map, start time.Time, opaque bool) uint64 {
	if m.obs == nil {
		return 0
	}
	id := m.callIDs.Add(1)
	e := &Event{Kind: ToolStart, Time: start, CallID: id, Tool: name, ArgsText: m.argsText(args, opaque)}
	if m.obs.raw {
		e.args = args
	}
	m.emit(e)
	return id
}

// toolEnd reports the end of the tool call id, which took d.
func (m *mission) toolEnd(id uint64, name string, args *lisp.Map, d time.Duration, v lisp.Value, err error, opaque bool) {
	if m.obs == nil {
		return
	}
	e := &Event{Kind: ToolStop, CallID: id, Tool: name, Duration: d, ArgsText: m.argsText(args, opaque)}
	if err != nil {
		e.Kind, e.Err = ToolException, m.eventErr(err)
	} else {
		e.ResultText = m.eventText(v)
	}
	if m.obs.raw {
		e.args, e.result = args, v
	}
	m.emit(e)
}

// eventOutput is a turn's println output for observers: scrubbed, bounded.
func (m *mission) eventOutput(lines []string) []string {
	if len(lines) == 0 {
		return nil
	}
	out := make([]string, 0, min(len(lines), outputLines))
	for _, l := range lines[:min(len(lines), outputLines)] {
		out = append(out, m.clip(l, textLimit))
	}
	return out
}
