package llm

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"
)

// RetryPolicy says when a failed LLM call is tried again and after how
// long. The agent loop follows it for every call of a mission, and the
// Temporal integration maps it onto activity retries. The zero value makes
// one attempt.
type RetryPolicy struct {
	// MaxAttempts is the number of calls, the first included. 0 or 1: no
	// retries.
	MaxAttempts int
	// Backoff is how the delay grows: BackoffExponential (the default),
	// BackoffLinear or BackoffConstant.
	Backoff Backoff
	// BaseDelay is the first delay. Default 1s. A provider's longer
	// Retry-After (Error.RetryAfter) wins, even past MaxDelay, up to
	// MaxRetryAfter.
	BaseDelay time.Duration
	// MaxDelay caps the backoff. Default 30s.
	MaxDelay time.Duration
	// MaxRetryAfter is the longest Retry-After waited for (default 1
	// minute); a longer one, or a wait past the caller's deadline, ends the
	// retries at once with the error (docs/models.md, "Errors and retries").
	MaxRetryAfter time.Duration
	// Jitter spreads each delay at random by up to this fraction, so that
	// callers that failed together do not retry together. Default 0.2
	// (±20%); negative: none.
	Jitter float64
	// Retryable are the failure classes worth retrying. Default
	// ClassRateLimit, ClassTimeout, ClassServerError and ClassNetwork;
	// ClassAuth and ClassConfig are never retried.
	Retryable []Class
}

// Backoff is a delay strategy.
type Backoff int

// Backoff strategies: the nth retry waits BaseDelay×2ⁿ⁻¹, BaseDelay×n or
// BaseDelay.
const (
	BackoffExponential Backoff = iota
	BackoffLinear
	BackoffConstant
)

// defaultMaxRetryAfter is the longest Retry-After a RetryPolicy waits for
// when its MaxRetryAfter is zero: a minute, within which the providers'
// per-minute quotas refill; a longer wait (a daily quota spent, a hostile
// Retry-After: 999999) is not waited for.
const defaultMaxRetryAfter = time.Minute

// Retry defaults.
const (
	defaultBaseDelay = time.Second
	defaultMaxDelay  = 30 * time.Second
	defaultJitter    = 0.2
)

var defaultRetryable = []Class{ClassRateLimit, ClassTimeout, ClassServerError, ClassNetwork}

// Next decides whether a call that failed with err on attempt (from 1) is
// tried again, and after how long: the policy's backoff, jittered, or the
// provider's Retry-After when longer. A Retry-After beyond MaxRetryAfter,
// or a wait that would end past ctx's deadline, ends the retries at once:
// waiting could only end in a timeout. The error returned is err, wrapped
// with why it is not retried in those two cases.
func (p RetryPolicy) Next(ctx context.Context, attempt int, err error) (wait time.Duration, retry bool, _ error) {
	if attempt >= max(p.MaxAttempts, 1) || ctx.Err() != nil || !p.Retries(Classify(err).Class) {
		return 0, false, err
	}
	wait = p.jittered(p.delay(attempt))
	if after := Classify(err).RetryAfter; after > 0 {
		if limit := p.MaxWait(); after > limit {
			return 0, false, &notRetried{err: err, why: fmt.Sprintf(
				"not retried: the provider asks to wait %v, longer than the retry policy's MaxRetryAfter (%v)",
				roundWait(after), limit)}
		}
		wait = max(wait, after)
	}
	if deadline, ok := ctx.Deadline(); ok {
		if left := time.Until(deadline); wait >= left {
			return 0, false, &notRetried{err: err, why: fmt.Sprintf(
				"not retried: the next attempt would start in %v, after the mission's deadline (in %v)",
				roundWait(wait), roundWait(max(left, 0)))}
		}
	}
	return wait, true, err
}

// Retries reports whether the policy retries a failure of the class: auth
// and config errors never, the others when Retryable (or its default)
// lists them.
func (p RetryPolicy) Retries(class Class) bool {
	if class == ClassAuth || class == ClassConfig {
		return false // a wrong key or model name does not heal
	}
	classes := p.Retryable
	if classes == nil {
		classes = defaultRetryable
	}
	return slices.Contains(classes, class)
}

// MaxWait is MaxRetryAfter, or its default (1 minute) when it is zero.
func (p RetryPolicy) MaxWait() time.Duration {
	if p.MaxRetryAfter > 0 {
		return p.MaxRetryAfter
	}
	return defaultMaxRetryAfter
}

// delay is the backoff before retry n (n from 1), capped at MaxDelay.
func (p RetryPolicy) delay(n int) time.Duration {
	base := p.BaseDelay
	if base <= 0 {
		base = defaultBaseDelay
	}
	limit := p.MaxDelay
	if limit <= 0 {
		limit = defaultMaxDelay
	}
	var d time.Duration
	switch p.Backoff {
	case BackoffLinear:
		d = base * time.Duration(min(n, 1<<20))
	case BackoffConstant:
		d = base
	default:
		d = base << min(n-1, 20)
	}
	if d <= 0 || d > limit {
		d = limit
	}
	return d
}

// jittered spreads d by the policy's jitter.
func (p RetryPolicy) jittered(d time.Duration) time.Duration {
	j := p.Jitter
	if j == 0 {
		j = defaultJitter
	}
	if j < 0 || d <= 0 {
		return d
	}
	j = min(j, 1)
	return time.Duration(float64(d) * (1 - j + 2*j*rand.Float64()))
}

// notRetried is a failed call's error with why it is not retried.
type notRetried struct {
	err error
	why string
}

func (e *notRetried) Error() string { return e.err.Error() + " (" + e.why + ")" }
func (e *notRetried) Unwrap() error { return e.err }

// roundWait rounds a wait for a message: to the second, or to the
// millisecond below one.
func roundWait(d time.Duration) time.Duration {
	if d >= time.Second {
		return d.Round(time.Second)
	}
	return d.Round(time.Millisecond)
}
