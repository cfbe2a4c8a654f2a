package adapter_test

import (
	"math"
	"net/http"
	"testing"
	"time"

	"github.com/ptc-go/ptc/llm"
	"github.com/ptc-go/ptc/llm/adapter"
)

func TestStatusClass(t *testing.T) {
	for status, want := range map[int]llm.Class{429: llm.ClassRateLimit, 408: llm.ClassTimeout, 504: llm.ClassTimeout,
		500: llm.ClassServerError, 503: llm.ClassServerError, 400: llm.ClassClientError, 404: llm.ClassClientError, 200: llm.ClassUnknown,
		401: llm.ClassAuth, 403: llm.ClassAuth, 529: llm.ClassServerError} {
		if got := adapter.StatusClass(status); got != want {
			t.Errorf("StatusClass(%d) = %s, want %s", status, got, want)
		}
	}
}

func TestHTTPError(t *testing.T) {
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	h := func(kv ...string) http.Header {
		hd := http.Header{}
		for i := 0; i < len(kv); i += 2 {
			hd.Set(kv[i], kv[i+1])
		}
		return hd
	}
	for _, tc := range []struct {
		status int
		header http.Header
		msg    string
		class  llm.Class
		after  time.Duration
	}{
		{429, h("Retry-After", "2"), "slow down", llm.ClassRateLimit, 2 * time.Second},
		{429, h("retry-after-ms", "1500", "Retry-After", "9"), "", llm.ClassRateLimit, 1500 * time.Millisecond},
		{429, h("Retry-After", now.Add(30*time.Second).Format(http.TimeFormat)), "", llm.ClassRateLimit, 30 * time.Second},
		{429, h("Retry-After", "soon"), "", llm.ClassRateLimit, 0},
		{429, h("Retry-After", "999999"), "", llm.ClassRateLimit, 999999 * time.Second},
		// Past what a Duration holds: the longest, not a negative wait.
		{429, h("Retry-After", "1e12"), "", llm.ClassRateLimit, math.MaxInt64},
		{429, h("retry-after-ms", "1e300"), "", llm.ClassRateLimit, math.MaxInt64},
		{408, nil, "", llm.ClassTimeout, 0},
		{504, nil, "", llm.ClassTimeout, 0},
		{500, nil, "", llm.ClassServerError, 0},
		{529, nil, "overloaded", llm.ClassServerError, 0},
		{401, nil, "invalid x-api-key", llm.ClassAuth, 0},
		{403, nil, "", llm.ClassAuth, 0},
		{400, nil, "This model's maximum context length is 128000 tokens", llm.ClassContextLength, 0},
		{400, nil, "prompt is too long: 210000 tokens > 200000 maximum", llm.ClassContextLength, 0},
		{400, nil, "invalid temperature", llm.ClassClientError, 0},
		{404, nil, "no such model", llm.ClassClientError, 0},
	} {
		e := adapter.HTTPError(tc.status, tc.header, tc.msg, nil)
		got := adapter.RetryAfter(tc.header, now)
		if e.Class != tc.class || got != tc.after || e.Status != tc.status || e.Message != tc.msg {
			t.Errorf("%d %v %q: class %s, retry after %v", tc.status, tc.header, tc.msg, e.Class, got)
		}
	}
	if adapter.RetryAfter(nil, now) != 0 {
		t.Error("nil header")
	}
}
