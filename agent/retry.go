package agent

import (
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

func (m *mission) safeCall(req llm.Request) (resp llm.Response, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = &llm.Error{Class: llm.Unknown, Message: fmt.Sprintf("the LLM callback panicked: %v", r)}
		}
	}()
	return m.call(m.ctx, req)
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
