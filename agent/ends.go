package agent

import (
	"fmt"
	"runtime/debug"

	"github.com/ptc-go/ptc/lisp"
)

// crashed ends a mission that a panic (r) or runtime.Goexit (r nil) cut
// short: the turn in progress is recorded with the failure as its error,
// the Step has the usage and trace so far, and the end is reported as
// run.exception. It returns nil for a mission the watchdog abandoned
// (see guard), which delivered its Step and reported its end.
func (m *mission) crashed(r any) (step *Step) {
	if m.guard != nil && m.guard.isAbandoned() {
		return nil
	}
	fail := m.panicFail(r)
	defer func() {
		if recover() != nil { // the Step could not be made: the failure alone
			step = bareCrash(m, r)
		}
		m.outcome = step
	}()
	if m.cur != nil {
		m.cur.Error = fail.Message
		m.record(m.cur, m.curStart)
	}
	step = m.finish(nil, fail)
	m.end(step)
	return step
}

// panicFail describes a panic (r; nil for runtime.Goexit) as an
// internal_error: Op is the host callback that was running, when known,
// and Details["stack"] the goroutine's stack at the panic. Called from
// the deferred function that recovered, so the stack shows where the
// panic happened.
func (m *mission) panicFail(r any) *Fail {
	who := "the mission"
	if m.callback != "" {
		who = m.callback
	}
	msg := fmt.Sprintf("%s panicked: %v", who, r)
	if r == nil {
		msg = who + " called runtime.Goexit"
	}
	return &Fail{Reason: ReasonInternalError, Op: m.callback, Message: m.clip(msg, maxFailChars),
		Details: map[string]any{"stack": string(debug.Stack())}}
}

// bareCrash is the Step of a mission whose Step could not be made.
func bareCrash(m *mission, r any) *Step {
	return &Step{Fail: &Fail{Reason: ReasonInternalError, Message: fmt.Sprintf("the mission panicked: %v", r),
		Details: map[string]any{"stack": string(debug.Stack())}}, Memory: lisp.NewNamespace(nil), TraceID: m.traceID}
}
