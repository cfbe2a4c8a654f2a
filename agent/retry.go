package agent

import (
	"context"
	"fmt"
	goruntime "runtime"
	"slices"
	"sync"
	"time"

	"github.com/ptc-go/ptc/llm"
)

// callLLM calls the model, retrying per the policy. Retries wait between
// attempts (honouring the mission's context) and never consume turns. A
// panic in the callback is an llm_error, not a crash.
func (m *mission) callLLM(req llm.Request) (llm.Response, error) {
	if h := m.hooks(); h != nil && h.LLM != nil {
		return m.hookedLLM(h, req)
	}
	p := m.retry
	var err error
	m.retries = nil
	for attempt := 1; ; attempt++ {
		var resp llm.Response
		m.requests++
		var id uint64
		var start time.Time
		if m.obs != nil {
			id, start = m.callIDs.Add(1), m.now()
			sent := req
			m.emit(&Event{Kind: LLMStart, Time: start, CallID: id, Attempt: attempt, Request: &sent})
		}
		// The reply as it is written, for observers and to stop it at
		// its program (stream.go); each attempt has its own.
		streamed := req
		streamed.Stream = m.newReplyStream(id, attempt).write
		resp, err = m.safeCall(streamed)
		// Whether and when the next attempt comes is decided before the
		// exception is reported, so that observers learn how long the run
		// waits (Event.RetryIn).
		var wait time.Duration
		retry := false
		if err != nil {
			wait, retry, err = p.Next(m.ctx, attempt, err)
		}
		if m.obs != nil {
			e := &Event{Kind: LLMStop, CallID: id, Attempt: attempt, Duration: m.since(start)}
			reply := resp
			if reply.RequestModel == "" { // a failed call names it too (see llm.Func)
				reply.RequestModel = m.modelName()
			}
			e.Reply = &reply
			if err == nil {
				e.Usage = Usage{LLMRequests: 1, Tokens: resp.Tokens}
			} else {
				// What the failed call reported: its model and provider.
				reply = llm.Response{RequestModel: reply.RequestModel, Provider: reply.Provider}
				e.Kind, e.Err = LLMException, m.eventErr(err)
				if retry {
					e.RetryIn = wait
				}
			}
			m.emit(e)
		}
		if err == nil {
			return resp, nil
		}
		failed := LLMAttempt{Err: err}
		if retry {
			failed.Wait = wait
		}
		m.retries = append(m.retries, failed)
		if !retry {
			return llm.Response{}, err
		}
		t := time.NewTimer(wait)
		select {
		case <-m.ctx.Done():
			t.Stop()
			return llm.Response{}, err
		case <-t.C:
		}
	}
}

// safeCall calls the model, the call bounded by its timeout
// (Config.LLMTimeout) and the mission's context. A callback that honours
// its context returns when either ends, and the end is an error (a timeout
// is retryable). A callback that ignores it is abandoned: the mission runs
// on its own goroutine (see runGuarded), and a watchdog ends it without
// waiting for the callback, whose reply is then dropped. A reply that comes
// after the deadline is never used. A panic in the callback is an error.
func (m *mission) safeCall(req llm.Request) (llm.Response, error) {
	if err := m.ctx.Err(); err != nil {
		return llm.Response{}, err
	}
	// The callback may still read the request after the mission moved on:
	// it gets its own copy of the message list.
	req.Messages = slices.Clone(req.Messages)
	ctx := m.ctx
	limit := m.llmTimeout()
	if limit > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(m.ctx, limit)
		defer cancel()
	}
	if m.guard != nil && ctx.Done() != nil {
		stop := m.guard.watch(ctx, m)
		defer stop()
	}
	resp, err := m.callRecovered(ctx, req)
	if m.guard != nil && !m.guard.leave() {
		// The mission was abandoned while the callback ran, and its Step
		// delivered: this goroutine must not touch the mission again.
		goruntime.Goexit()
	}
	// A reply that comes too late is dropped, but still names its model
	// (see llm.Func).
	named := llm.Response{RequestModel: resp.RequestModel, Provider: resp.Provider}
	if err := m.ctx.Err(); err != nil {
		return named, err // too late: the mission's deadline passed during the call
	}
	if ctx.Err() != nil {
		return named, m.llmTimedOut(limit, ctx.Err())
	}
	return resp, err
}

func (m *mission) llmTimedOut(limit time.Duration, err error) error {
	return &llm.Error{Class: llm.ClassTimeout, Err: err, Message: fmt.Sprintf(
		"no reply within %v (Config.LLMTimeout)", limit)}
}

// guard lets Run return on time when an LLM callback ignores its context:
// the mission runs on its own goroutine, and a watchdog delivers its Step
// when a call outlives its context by more than a grace period.
type guard struct {
	mu        sync.Mutex
	call      int  // the number of the call in progress
	inCall    bool // a callback is running
	abandoned bool
	out       chan *Step // receives the mission's Step, once
	// turn is the turn whose LLM call is in progress, recorded in the
	// trace of an abandoned mission.
	turn      *Turn
	turnStart time.Time
}

// Grace periods: how long a callback may take to return once its context
// ended, before the mission is abandoned. A call's own timeout is retried
// when the callback returns, so it gets longer.
const (
	graceMissionEnd = 50 * time.Millisecond
	graceCallEnd    = 500 * time.Millisecond
)

// runGuarded runs the mission, on its own goroutine when an LLM callback
// could hold it past a deadline (a context that can end, a timeout). Either
// way no panic escapes (see run).
func (m *mission) runGuarded() *Step {
	if m.preFail != nil || m.parent.Done() == nil && m.a.cfg.MissionTimeout <= 0 && m.llmTimeout() <= 0 {
		return m.run() // nothing to abandon a call for
	}
	g := &guard{out: make(chan *Step, 1)}
	m.guard = g
	go func() {
		var step *Step
		defer func() {
			if r := recover(); r != nil { // run recovers: a fault of its own recovery
				step = bareCrash(m, r)
			}
			if step == nil { // the goroutine was ended by runtime.Goexit
				step = m.outcome
			}
			if step == nil {
				step = bareCrash(m, nil)
			}
			g.mu.Lock()
			if !g.abandoned {
				g.abandoned = true
				g.out <- step
			}
			g.mu.Unlock()
		}()
		growStack(0)
		step = m.run()
	}()
	return <-g.out
}

// missionStack is about the stack a mission's goroutine reaches: the
// loop's frames and the recursion of reading, analyzing and compiling a
// program of some depth.
const missionStack = 48 << 10

// growStack grows a new goroutine's stack at once to missionStack: one
// copy of a stack two frames deep, instead of three or four copies of a
// deep one as the turns reach it (each copy walks every frame). The frame
// is the work: pad is what makes the runtime grow the stack.
//
//go:noinline
func growStack(i int) byte {
	var pad [missionStack]byte
	pad[i] = 1
	return pad[i/2]
}

// watch starts watching a call whose context is ctx; stop ends the watch
// when the call returns.
func (g *guard) watch(ctx context.Context, m *mission) (stop func()) {
	g.mu.Lock()
	g.call++
	id := g.call
	g.inCall = true
	g.mu.Unlock()
	stopAfter := context.AfterFunc(ctx, func() {
		grace := graceCallEnd
		if m.ctx.Err() != nil {
			grace = graceMissionEnd
		}
		time.AfterFunc(grace, func() { g.abandon(id, m) })
	})
	return func() { stopAfter() }
}

// leave ends a call; false means the mission was abandoned meanwhile.
func (g *guard) leave() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.inCall = false
	return !g.abandoned
}

// abandon delivers the Step of a mission whose call id still runs. The
// mission's goroutine is inside the callback and cannot touch the mission
// until leave, which waits for the lock: the Step is built safely here.
func (g *guard) abandon(id int, m *mission) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.inCall || g.call != id || g.abandoned {
		return
	}
	g.abandoned = true
	var fail *Fail
	if err := m.ctx.Err(); err != nil {
		fail = m.contextFail(err)
	} else {
		fail = &Fail{Reason: ReasonLLMError, Details: map[string]any{"class": string(llm.ClassTimeout)},
			Message: fmt.Sprintf("the LLM callback ignored the end of its %v timeout and was abandoned", m.llmTimeout())}
	}
	if g.turn != nil {
		g.turn.LLMDuration = m.since(g.turnStart)
		g.turn.Error = fail.Message
		m.record(g.turn, g.turnStart)
	}
	step := m.finish(nil, fail)
	m.end(step) // the mission's goroutine never will: it ends in the callback
	g.out <- step
}

// isAbandoned reports whether the watchdog delivered the mission's Step.
func (g *guard) isAbandoned() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.abandoned
}

// llmTimeout bounds one LLM call: Config.LLMTimeout; 0 for none of its own
// (the mission's deadline still holds). Not the turn's Limits.Timeout: that
// bounds programs, and a real model's reply routinely takes longer.
func (m *mission) llmTimeout() time.Duration {
	return max(m.a.cfg.LLMTimeout, 0)
}

// callRecovered calls the model, turning a panic into an error.
func (m *mission) callRecovered(ctx context.Context, req llm.Request) (resp llm.Response, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = &llm.Error{Class: llm.ClassUnknown, Message: fmt.Sprintf("the LLM callback panicked: %v", p)}
		}
	}()
	return m.call(ctx, req)
}

// modelName is the name of the mission's model when it was given by name.
func (m *mission) modelName() string {
	if m.rt != nil {
		if n, ok := m.rt.model.(llm.Name); ok {
			return string(n)
		}
	}
	return ""
}
