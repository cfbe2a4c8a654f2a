package agent

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/ptc-go/ptc/llm"
)

var defaultRetryable = []llm.Class{llm.RateLimit, llm.Timeout, llm.ServerError}

// callLLM calls the model, retrying per the policy. Retries wait between
// attempts (honouring the mission's context) and never consume turns. A
// panic in the callback is an llm_error, not a crash.
func (m *mission) callLLM(req llm.Request) (llm.Response, error) {
	p := m.retry
	attempts := max(p.MaxAttempts, 1)
	var err error
	for attempt := 1; ; attempt++ {
		var resp llm.Response
		m.requests++
		resp, err = m.safeCall(req)
		if err == nil {
			return resp, nil
		}
		if attempt >= attempts || m.ctx.Err() != nil || !p.retryable(err) {
			return llm.Response{}, err
		}
		wait := p.delay(attempt)
		if le := llm.Classify(err); le.RetryAfter > wait {
			wait = le.RetryAfter
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

// safeCall calls the model on its own goroutine and waits for its answer,
// for the attempt's timeout (Config.LLMTimeout) or for the end of the
// mission's context, whichever comes first. A callback that ignores its
// context is abandoned, as a blocked tool is: the mission ends on time,
// and the callback's goroutine finishes whenever it returns, its reply
// dropped. A reply that comes after the deadline is never used. A panic in
// the callback is an error.
func (m *mission) safeCall(req llm.Request) (llm.Response, error) {
	type result struct {
		resp llm.Response
		err  error
	}
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
	timedOut := func() error {
		return &llm.Error{Class: llm.Timeout, Message: fmt.Sprintf(
			"no reply within %v (Config.LLMTimeout; by default the turn's Limits.Timeout)", limit), Err: ctx.Err()}
	}
	if ctx.Done() == nil {
		// A context that can never end: nothing to abandon the call for,
		// and no goroutine handoff to pay.
		return m.callRecovered(ctx, req)
	}
	done := make(chan result, 1)
	go func() {
		var r result
		r.resp, r.err = m.callRecovered(ctx, req)
		done <- r
	}()
	select {
	case r := <-done:
		if err := m.ctx.Err(); err != nil {
			return llm.Response{}, err // too late: the deadline passed during the call
		}
		if ctx.Err() != nil {
			return llm.Response{}, timedOut()
		}
		return r.resp, r.err
	case <-ctx.Done():
		if err := m.ctx.Err(); err != nil {
			return llm.Response{}, err
		}
		return llm.Response{}, timedOut()
	}
}

// llmTimeout bounds one LLM call: Config.LLMTimeout, else the turn's
// timeout, as the seeds have it; 0 for none.
func (m *mission) llmTimeout() time.Duration {
	if t := m.a.cfg.LLMTimeout; t != 0 {
		return max(t, 0)
	}
	return max(m.a.cfg.Limits.Timeout, 0)
}

// callRecovered calls the model, turning a panic into an error.
func (m *mission) callRecovered(ctx context.Context, req llm.Request) (resp llm.Response, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = &llm.Error{Class: llm.Unknown, Message: fmt.Sprintf("the LLM callback panicked: %v", p)}
		}
	}()
	return m.call(ctx, req)
}

func (p RetryPolicy) retryable(err error) bool {
	classes := p.Retryable
	if classes == nil {
		classes = defaultRetryable
	}
	return slices.Contains(classes, llm.Classify(err).Class)
}

// delay is the wait before retry n (n from 1).
func (p RetryPolicy) delay(n int) time.Duration {
	base := p.BaseDelay
	if base <= 0 {
		base = time.Second
	}
	switch p.Backoff {
	case Linear:
		return base * time.Duration(n)
	case Constant:
		return base
	}
	if n > 20 {
		n = 20
	}
	return base << (n - 1)
}
