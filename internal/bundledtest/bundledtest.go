package bundledtest

import (
	"context"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/ptc-go/ptc/eval"
	"github.com/ptc-go/ptc/eval/bundled"
	"github.com/ptc-go/ptc/llm"
	"github.com/ptc-go/ptc/llm/adapter/adaptertest"
)

// Firewalled is the task that needs a firewalled value passed from one
// tool to another: a model calling tools natively is never shown it, so
// the task ends with the reference's fail (reason firewalled_input).
const Firewalled = "firewall-hidden-emails"

// Open opens the bundled suite for t, closed when t ends.
func Open(t testing.TB) *bundled.Suite {
	t.Helper()
	s, err := bundled.Open(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// Stats are what the model was asked in a run of RunToolMode.
type Stats struct {
	// Requests counts the requests that declared functions, Calls the
	// tool calls of their replies, MaxCalls the most in one reply.
	Requests, Calls, MaxCalls int
}

// emailAddress matches the firewalled addresses of the Firewalled task's
// accounts (the only addresses in the suite's data).
var emailAddress = regexp.MustCompile(`[a-z]+\.[0-9]{4}@[a-z]+\.example\.[a-z]+`)

// RunToolMode runs every task of the suite in tool-calling mode on model
// and checks the outcome: each case passes, but those of the Firewalled
// task, which fail with firewalled_input; and no request shows the model
// a firewalled address.
func RunToolMode(t *testing.T, model llm.Func) {
	t.Helper()
	s := Open(t)
	var leaks atomic.Int32
	watched := llm.Func(func(ctx context.Context, req llm.Request) (llm.Response, error) {
		text := req.System
		for _, m := range req.Messages {
			text += "\n" + m.Content
		}
		if emailAddress.MatchString(text) && leaks.Add(1) == 1 {
			t.Errorf("a request shows the model a firewalled address: %s", emailAddress.FindString(text))
		}
		return model(ctx, req)
	})
	rep, err := eval.Run(context.Background(), s.EvalTasks(), eval.Config{
		Variants: []eval.Variant{{Name: "tools", Model: watched, Mode: "tools"}},
		Parallel: 2,
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Results) < 40 {
		t.Fatalf("only %d results", len(rep.Results))
	}
	for _, r := range rep.Results {
		switch {
		case r.Task == Firewalled:
			if r.Passed || !strings.Contains(r.Why, "firewalled_input") {
				t.Errorf("%s, %s: passed %v (%s); want a fail with firewalled_input", r.Task, r.Case, r.Passed, r.Why)
			}
		case !r.Passed:
			t.Errorf("%s, %s: %s", r.Task, r.Case, r.Why)
		}
	}
}

// Counting wraps model, counting in stats the tool-mode requests it
// answers. Read stats once the run is over.
func Counting(model llm.Func, stats *Stats) llm.Func {
	var mu sync.Mutex
	return func(ctx context.Context, req llm.Request) (llm.Response, error) {
		resp, err := model(ctx, req)
		if len(req.Tools) > 0 {
			mu.Lock()
			stats.Requests++
			stats.Calls += len(resp.ToolCalls)
			stats.MaxCalls = max(stats.MaxCalls, len(resp.ToolCalls))
			mu.Unlock()
		}
		return resp, err
	}
}

// Respond is a fake provider's handler for adaptertest's server that
// plays the suite's reference: decode reads a request body in the
// provider's wire format, encode writes the reference's reply in it, and
// errorBody writes the provider's error body. When t ends it checks (Stats.
// Check) that the requests looked like a model calling tools.
func Respond(t *testing.T, decode func(body []byte) (llm.Request, error), encode func(llm.Response) string,
	errorBody func(status int, message string) string) func(n int, r adaptertest.Received) adaptertest.Reply {
	var stats Stats
	model := Counting(Open(t).Reference(), &stats)
	t.Cleanup(func() { stats.Check(t) })
	return func(_ int, r adaptertest.Received) adaptertest.Reply {
		req, err := decode(r.Body)
		if err != nil {
			return adaptertest.Reply{Status: 400, Body: errorBody(400, err.Error())}
		}
		resp, err := model(context.Background(), req)
		if err != nil {
			return adaptertest.Reply{Status: 500, Body: errorBody(500, "the reference failed: "+err.Error())}
		}
		return adaptertest.Reply{Body: encode(resp)}
	}
}

// Check fails t unless the requests look like a model calling tools
// through the whole suite: many requests, more calls than requests, and
// several calls in one reply (the reference asks for a pmap's at once).
func (s Stats) Check(t testing.TB) {
	t.Helper()
	if s.Requests < 50 || s.MaxCalls < 5 || s.Calls <= s.Requests {
		t.Errorf("the tool-calling requests do not look like a model calling tools: %+v", s)
	}
}
