package adapter

import (
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/ptc-go/ptc/llm"
)

// StatusClass classifies an HTTP status code: 429 is llm.llm.ClassRateLimit,
// 408 and 504 llm.llm.ClassTimeout, 401 and 403 llm.llm.ClassAuth, other 5xx
// llm.llm.ClassServerError, other 4xx llm.llm.ClassClientError. (A 400 about the
// context length is llm.llm.ClassContextLength, which only the body tells.)
func StatusClass(status int) llm.Class {
	switch {
	case status == 429:
		return llm.ClassRateLimit
	case status == 408 || status == 504:
		return llm.ClassTimeout
	case status == 401 || status == 403:
		return llm.ClassAuth
	case status >= 500:
		return llm.ClassServerError
	case status >= 400:
		return llm.ClassClientError
	}
	return llm.ClassUnknown
}

// HTTPError builds the *llm.Error of a failed HTTP call to a provider: the
// class from the status (see StatusClass), llm.llm.ClassContextLength when a
// 400's (413's, 422's) message says the prompt is too long, and RetryAfter
// from the response's headers (see RetryAfter). header may be nil.
func HTTPError(status int, header http.Header, message string, err error) *llm.Error {
	e := &llm.Error{Class: StatusClass(status), Status: status, Message: message, Err: err}
	if e.Class == llm.ClassClientError && (status == 400 || status == 413 || status == 422) && mentionsContextLength(message) {
		e.Class = llm.ClassContextLength
	}
	e.RetryAfter = RetryAfter(header, time.Now())
	return e
}

// RetryAfter reads how long a response asks to wait before retrying: the
// retry-after-ms header (OpenAI, Anthropic), else Retry-After in seconds or
// as an HTTP date relative to now; 0 when absent or unreadable. It is what
// the provider says, however long: the agent's llm.RetryPolicy decides whether
// to wait that long (see its MaxRetryAfter).
func RetryAfter(header http.Header, now time.Time) time.Duration {
	if header == nil {
		return 0
	}
	if ms, err := strconv.ParseFloat(strings.TrimSpace(header.Get("retry-after-ms")), 64); err == nil && ms > 0 {
		return duration(ms, time.Millisecond)
	}
	v := strings.TrimSpace(header.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil {
		if secs <= 0 {
			return 0
		}
		return duration(secs, time.Second)
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// duration is n units, the longest duration when it would overflow (a
// Retry-After of 1e12 seconds), never negative.
func duration(n float64, unit time.Duration) time.Duration {
	if d := n * float64(unit); d < float64(math.MaxInt64) {
		return time.Duration(d)
	}
	return math.MaxInt64
}

// mentionsContextLength reports whether a provider's message says the
// prompt does not fit the model's context window.
func mentionsContextLength(msg string) bool {
	m := strings.ToLower(msg)
	for _, s := range []string{"context_length", "context length", "context window", "maximum context",
		"prompt is too long", "too many tokens", "input is too long", "exceeds the maximum"} {
		if strings.Contains(m, s) {
			return true
		}
	}
	return false
}
