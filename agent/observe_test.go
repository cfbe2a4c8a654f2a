package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/agent/trace"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm"
	"github.com/ptc-go/ptc/llm/llmtest"
)

// recorder keeps the events it is given. It takes no lock: the agent
// promises never to call an observer concurrently, which -race checks.
type recorder struct{ events []agent.Event }

func (r *recorder) Observe(_ context.Context, e *agent.Event) { r.events = append(r.events, *e) }

const eventSecret = "s3cr3t-value-9f27c1"

// observedMission runs a mission with an LLM failure that is retried, a
// turn that fails after a tool call whose result is firewalled, and a turn
// that runs a nested agent twice through pmap and returns.
func observedMission(t *testing.T, observers ...agent.Observer) *agent.Step {
	t.Helper()
	child := agent.MustNew(agent.Config{
		Prompt:      "Double {{n}}.",
		Signature:   "(n :int) -> {d :int}",
		Description: "Doubles a number.",
		LLM: llmtest.NewScript(
			llmtest.Code(`(return {:d (* 2 ctx/n)})`),
			llmtest.Code(`(return {:d (* 2 ctx/n)})`),
		).Func(),
	})
	childTool, err := child.AsTool(agent.AsToolOptions{})
	if err != nil {
		t.Fatal(err)
	}
	parent := agent.MustNew(agent.Config{
		Name:      "parent",
		Prompt:    "Double 1 and 2.",
		Signature: "{r [{d :int}]}",
		Tools: map[string]agent.Tool{
			"vault": {Func: func(context.Context, *lisp.Map) (any, error) {
				return map[string]any{"_key": eventSecret, "ok": true}, nil
			}, Description: "Opens the vault: (tool/vault {})."},
			"child": childTool,
		},
		LLMRetry: llm.RetryPolicy{MaxAttempts: 2, BaseDelay: time.Millisecond, Jitter: -1},
	})
	model := llmtest.NewScript(
		llmtest.Fail(&llm.Error{Class: llm.ClassServerError, Message: "overloaded"}),
		llmtest.Code(`(let [v (tool/vault {})] (println "key" (:_key v)) (inc nil))`),
		llmtest.Code(`(return {:r (vec (pmap #(tool/child {:n %}) [1 2]))})`),
	)
	step, err := parent.Run(context.Background(), agent.Options{LLM: model.Func(), Observers: observers})
	if err != nil {
		t.Fatalf("mission: %v", err)
	}
	return step
}

func kinds(events []agent.Event) string {
	var parts []string
	for _, e := range events {
		s := e.Kind.String()
		if e.Tool != "" {
			s += "(" + e.Tool + ")"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " ")
}

func TestEvents(t *testing.T) {
	rec := &recorder{}
	step := observedMission(t, rec)

	var top []agent.Event
	children := map[string][]agent.Event{}
	for _, e := range rec.events {
		if e.Depth == 0 {
			top = append(top, e)
		} else {
			children[e.TraceID] = append(children[e.TraceID], e)
		}
	}
	// pmap's calls may start and end in any order: the test sorts them.
	want := "run.start turn.start llm.start llm.exception llm.start llm.stop tool.start(vault) tool.stop(vault) turn.stop " +
		"turn.start llm.start llm.stop tool.start(child) tool.start(child) tool.stop(child) tool.stop(child) turn.stop run.stop"
	got := strings.Fields(kinds(top))
	if len(got) == 18 {
		slices.Sort(got[12:16]) // "tool.start" < "tool.stop"
	}
	if strings.Join(got, " ") != want {
		t.Errorf("the parent's events:\n got %s\nwant %s", kinds(top), want)
	}

	// Where: every event of the parent carries its name, trace id, depth;
	// turn numbers; attempts; pairs of call ids.
	starts := map[uint64]agent.Event{}
	childCalls := map[uint64]bool{}
	for _, e := range top {
		if e.Agent != "parent" || e.TraceID != step.TraceID || e.ParentTraceID != "" || e.Time.IsZero() {
			t.Errorf("%s: agent %q, trace %q/%q, time %v", e.Kind, e.Agent, e.TraceID, e.ParentTraceID, e.Time)
		}
		switch e.Kind {
		case agent.LLMStart, agent.ToolStart:
			if e.CallID == 0 || starts[e.CallID].Kind != 0 {
				t.Errorf("%s: call id %d not new", e.Kind, e.CallID)
			}
			starts[e.CallID] = e
			if e.Tool == "child" {
				childCalls[e.CallID] = true
			}
		case agent.LLMStop, agent.LLMException, agent.ToolStop, agent.ToolException:
			s, ok := starts[e.CallID]
			if !ok || s.Tool != e.Tool || s.Attempt != e.Attempt {
				t.Errorf("%s (call %d) pairs with no start", e.Kind, e.CallID)
			}
			if e.Duration < 0 {
				t.Errorf("%s: duration %v", e.Kind, e.Duration)
			}
		}
	}
	if top[2].Attempt != 1 || top[4].Attempt != 2 || top[2].Turn != 1 || top[10].Turn != 2 {
		t.Errorf("attempts %d, %d; turns %d, %d", top[2].Attempt, top[4].Attempt, top[2].Turn, top[10].Turn)
	}
	if e := top[3]; e.Err == nil || !strings.Contains(e.Err.Error(), "overloaded") {
		t.Errorf("llm.exception error %v", e.Err)
	}
	var le *llm.Error
	if !errors.As(top[3].Err, &le) || le.Class != llm.ClassServerError {
		t.Errorf("llm.exception's error does not unwrap to the *llm.Error: %v", top[3].Err)
	}
	if e := top[8]; e.Kind != agent.TurnStop || !strings.Contains(e.Program, "(inc nil)") || e.Err == nil || !strings.Contains(e.Err.Error(), "type_error") {
		t.Errorf("the failed turn's stop: program %q, error %v", e.Program, e.Err)
	}
	// A turn's stop carries the turn's usage: its two attempts, its
	// tokens as the trace has them; an llm.stop its reply's tokens.
	if u := top[8].Usage; u.Turns != 1 || u.LLMRequests != 2 || u.Programs != 1 || u.CachedPrograms != 0 ||
		u != step.Trace[0].Usage || u.Tokens.Total() == 0 {
		t.Errorf("turn.stop usage %+v, want that of the trace's turn 1 %+v", u, step.Trace[0])
	}
	if e := top[5]; e.Usage.LLMRequests != 1 || e.Reply == nil || e.Usage.Tokens != e.Reply.Tokens || e.Usage.Tokens.Total() == 0 {
		t.Errorf("llm.stop usage %+v, reply %+v", e.Usage, e.Reply)
	}
	if e := top[len(top)-1]; e.Err != nil || e.Usage.Turns != 2 || e.Usage.LLMRequests != 3 || e.ResultText != "{:r [{:d 2} {:d 4}]}" {
		t.Errorf("run.stop: err %v, usage %+v, result %q", e.Err, e.Usage, e.ResultText)
	}
	if r := top[2].Request; r == nil || !strings.Contains(r.System, "tool/vault") || len(r.Messages) == 0 {
		t.Errorf("llm.start lacks the request: %+v", r)
	}
	if r := top[5].Reply; top[5].Kind != agent.LLMStop || r == nil || r.Content == "" {
		t.Errorf("llm.stop lacks the reply: %s %+v", top[5].Kind, r)
	}

	// The nested missions: named after their tool, under the parent's
	// trace, each started by one of the parent's child calls.
	if len(children) != 2 {
		t.Fatalf("%d nested missions observed, want 2", len(children))
	}
	for id, evs := range children {
		if got := kinds(evs); got != "run.start turn.start llm.start llm.stop turn.stop run.stop" {
			t.Errorf("child %s: %s", id, got)
		}
		first := evs[0]
		if first.Agent != "child" || first.Depth != 1 || first.ParentTraceID != step.TraceID || !childCalls[first.ParentCallID] {
			t.Errorf("child run.start: agent %q depth %d parent %q/%d", first.Agent, first.Depth, first.ParentTraceID, first.ParentCallID)
		}
	}

	// The firewall: no text of any event shows the secret, and the values
	// themselves are withheld.
	for _, e := range rec.events {
		texts := fmt.Sprint(e.ArgsText, e.ResultText, e.Reply, e.Program, e.Request, e.Err)
		if strings.Contains(texts, eventSecret) {
			t.Errorf("%s shows the firewalled value: %s", e.Kind, texts)
		}
		if e.Args() != nil || e.Result() != nil || e.Step() != nil {
			t.Errorf("%s carries raw values to an observer that did not ask for them", e.Kind)
		}
	}
	if e := top[7]; !strings.Contains(e.ResultText, agent.Firewalled) {
		t.Errorf("tool.stop(vault) result %q: the firewalled field should show as %s", e.ResultText, agent.Firewalled)
	}
}

// A Raw observer gets the values, firewalled parts included; the others
// of the same run still do not.
func TestEventsRaw(t *testing.T) {
	raw, plain := &recorder{}, &recorder{}
	step := observedMission(t, agent.Raw(raw), plain)
	var vault, stop *agent.Event
	for i := range raw.events {
		e := &raw.events[i]
		if e.Kind == agent.ToolStop && e.Tool == "vault" {
			vault = e
		}
		if e.Kind == agent.RunStop && e.Depth == 0 {
			stop = e
		}
	}
	if vault == nil || !strings.Contains(lisp.Print(vault.Result(), lisp.PrintOptions{}), eventSecret) {
		t.Errorf("the raw observer's tool.stop lacks the value: %+v", vault)
	}
	if stop == nil || stop.Step() != step {
		t.Errorf("the raw observer's run.stop lacks the Step")
	}
	for _, e := range plain.events {
		if e.Result() != nil || e.Step() != nil || e.Args() != nil {
			t.Fatalf("the plain observer got raw values on %s", e.Kind)
		}
	}
	if len(raw.events) != len(plain.events) {
		t.Errorf("raw %d events, plain %d", len(raw.events), len(plain.events))
	}
}

// A panicking observer is dropped; the mission and the other observers
// go on, and the Step says what happened.
func TestObserverPanics(t *testing.T) {
	calls := 0
	bad := agent.ObserverFunc(func(_ context.Context, e *agent.Event) {
		calls++
		if e.Kind == agent.TurnStart {
			panic("boom")
		}
	})
	good := &recorder{}
	step := observedMission(t, bad, good)
	if calls != 2 {
		t.Errorf("the panicking observer was called %d times, want 2 (run.start, then turn.start)", calls)
	}
	if len(good.events) < 20 {
		t.Errorf("the other observer got %d events", len(good.events))
	}
	found := false
	for _, w := range step.Warnings {
		found = found || strings.Contains(w, "observer 1 panicked on turn.start (boom)")
	}
	if !found {
		t.Errorf("warnings %q", step.Warnings)
	}
}

// TraceConversation keeps each turn's memory.
func TestDebugMemory(t *testing.T) {
	a := agent.MustNew(agent.Config{Prompt: "Count.", MaxTurns: 3})
	model := llmtest.NewScript(llmtest.Code(`(def n 1)`), llmtest.Code(`(def n (inc n))`), llmtest.Code(`(return n)`))
	step, err := a.Run(context.Background(), agent.Options{LLM: model.Func(), Trace: agent.TraceConversation})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tr := range step.Trace {
		v, _ := tr.Memory.Get("n")
		got = append(got, lisp.Print(v, lisp.PrintOptions{}))
	}
	if strings.Join(got, " ") != "1 2 2" {
		t.Errorf("memory per turn %v, want 1 2 2", got)
	}
	if !strings.Contains(step.SystemPrompt, "PTC-Lisp") {
		t.Errorf("Step.SystemPrompt %d bytes", len(step.SystemPrompt))
	}
}

// The slog observer logs every event at its level, with its fields, and
// never a firewalled value.
func TestSlogObserver(t *testing.T) {
	var buf strings.Builder
	logger := slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	observedMission(t, trace.NewSlogObserver(logger))
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 30 { // 18 events of the parent, 6 of each child
		t.Errorf("%d records, want 30:\n%s", len(lines), buf.String())
	}
	var first, last map[string]any
	_ = json.Unmarshal([]byte(lines[0]), &first)
	_ = json.Unmarshal([]byte(lines[len(lines)-1]), &last)
	if first["msg"] != "ptc run.start" || first["level"] != "INFO" || first["agent"] != "parent" {
		t.Errorf("first record %v", first)
	}
	if last["msg"] != "ptc run.stop" || last["level"] != "INFO" || last["turns"] != 2.0 || last["result"] != "{:r [{:d 2} {:d 4}]}" {
		t.Errorf("last record %v", last)
	}
	for _, want := range []string{`"level":"WARN","msg":"ptc llm.exception"`, `"tool":"vault"`, `"depth":1`} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("the log lacks %s", want)
		}
	}
	if strings.Contains(buf.String(), eventSecret) {
		t.Errorf("the log shows the firewalled value")
	}

	// At Info, only the missions' starts and ends (and warnings) are written.
	buf.Reset()
	observedMission(t, trace.NewSlogObserver(slog.New(slog.NewTextHandler(&buf, nil))))
	if n := strings.Count(buf.String(), "\n"); n != 7 { // 3 starts, 3 stops, 1 llm.exception
		t.Errorf("%d records at Info:\n%s", n, buf.String())
	}
}

// The JSON Lines observer writes one object per event.
func TestJSONLObserver(t *testing.T) {
	var buf strings.Builder
	o := trace.NewJSONLObserver(&buf)
	observedMission(t, o)
	if o.Err() != nil {
		t.Fatal(o.Err())
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 30 {
		t.Fatalf("%d lines", len(lines))
	}
	var e map[string]any
	if err := json.Unmarshal([]byte(lines[3]), &e); err != nil {
		t.Fatal(err)
	}
	if e["kind"] != "llm.exception" || e["attempt"] != 1.0 || e["turn"] != 1.0 || e["duration_ms"] == nil ||
		!strings.Contains(fmt.Sprint(e["error"]), "overloaded") {
		t.Errorf("line 4: %v", e)
	}
	if strings.Contains(buf.String(), eventSecret) {
		t.Errorf("the stream shows the firewalled value")
	}
	// A failing writer stops the stream, not the mission.
	bad := trace.NewJSONLObserver(failingWriter{})
	observedMission(t, bad)
	if bad.Err() == nil {
		t.Error("no error from a failing writer")
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

// An observer that is not Raw gets the Fail of a run's end (Event.Err) with its
// Details redacted (firewalled values and "_" entries as the placeholder,
// copies of firewalled text scrubbed); a Raw one gets the Fail itself.
func TestEventsFailDetails(t *testing.T) {
	raw, plain := &recorder{}, &recorder{}
	model := llmtest.NewScript(llmtest.Code(
		`(fail {:reason :x :message "m" :details {:s ctx/_secret :c (str "c" ctx/_secret) :_d 1 :n ctx/_pin :v [ctx/_secret]}})`))
	step, _ := agent.MustNew(agent.Config{Prompt: "p"}).Run(context.Background(), agent.Options{LLM: model.Func(),
		Input: map[string]any{"_secret": eventSecret, "_pin": 90817263544}, Observers: []agent.Observer{agent.Raw(raw), plain}})
	if step.Fail == nil || step.Fail.Details["s"] != eventSecret {
		t.Fatalf("the mission should fail with the secret in its details: %+v", step.Fail)
	}
	stop := func(r *recorder) *agent.Fail {
		for _, e := range r.events {
			if e.Kind == agent.RunStop {
				var f *agent.Fail
				if !errors.As(e.Err, &f) {
					t.Fatalf("run.stop's Err %v is not a *Fail", e.Err)
				}
				return f
			}
		}
		t.Fatal("no run.stop")
		return nil
	}
	if f := stop(raw); f != step.Fail {
		t.Errorf("the raw observer should get the Step's Fail, got %+v", f)
	}
	f := stop(plain)
	// "c" + the secret is computed from it: hidden whole (docs/agents.md,
	// "Derived values").
	want := map[string]any{"s": agent.Firewalled, "c": agent.Firewalled, "_d": agent.Firewalled, "n": agent.Firewalled,
		"v": []any{agent.Firewalled}}
	if fmt.Sprint(f.Details) != fmt.Sprint(want) || f.Reason != "x" || f.Message != "m" {
		t.Errorf("the plain observer's Fail: %+v, details %v; want details %v", f, f.Details, want)
	}
	if step.Fail.Details["s"] != eventSecret {
		t.Errorf("redacting the event changed the Step's Fail: %v", step.Fail.Details)
	}
}

// A failed mission's run.stop has the Fail as its Err: its texts
// scrubbed (as the Step's are) and its Details redacted for an observer
// that is not Raw; the Step's Fail itself for a Raw one.
func TestRunStopErrRedacted(t *testing.T) {
	raw, plain := &recorder{}, &recorder{}
	model := llmtest.NewScript(llmtest.Code(
		`(fail {:reason :x :message (str "m " ctx/_secret) :details {:s ctx/_secret}})`))
	step, _ := agent.MustNew(agent.Config{Prompt: "p"}).Run(context.Background(), agent.Options{LLM: model.Func(),
		Input: map[string]any{"_secret": eventSecret}, Observers: []agent.Observer{agent.Raw(raw), plain}})
	if step.Fail == nil || step.Fail.Details["s"] != eventSecret {
		t.Fatalf("the mission should fail with the secret in its details: %+v", step.Fail)
	}
	stop := func(r *recorder) error {
		for _, e := range r.events {
			if e.Kind == agent.RunStop {
				return e.Err
			}
		}
		t.Fatal("no run.stop")
		return nil
	}
	tests := []struct {
		name        string
		err         error
		wantDetails any
	}{
		{"raw", stop(raw), eventSecret},
		{"plain", stop(plain), agent.Firewalled},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var f *agent.Fail
			if !errors.As(tc.err, &f) || f.Reason != "x" {
				t.Fatalf("run.stop's Err %v: want a *Fail with reason x", tc.err)
			}
			// The message is computed from the secret: hidden whole.
			if msg := tc.err.Error(); strings.Contains(msg, eventSecret) || msg != "x: "+agent.Firewalled {
				t.Errorf("Err's text %q: want the message scrubbed", msg)
			}
			if got := f.Details["s"]; got != tc.wantDetails {
				t.Errorf("Details[s] = %v, want %v", got, tc.wantDetails)
			}
		})
	}
	if err := stop(raw); err != error(step.Fail) {
		t.Errorf("the raw observer should get the Step's Fail itself, got %v", err)
	}
}

// A tool call's error that wraps a nested mission's failure reaches an
// observer that is not Raw cut at that Fail, redacted: errors.As finds
// neither the raw Fail nor the *agent.Error and its Step.
func TestToolExceptionErrRedacted(t *testing.T) {
	child := agent.MustNew(agent.Config{Prompt: "Check {{s}}.", Signature: "(s :string) -> :int", Description: "Checks s.",
		LLM: llmtest.NewScript(llmtest.Code(`(fail {:reason :x :message "m" :details {:s ctx/s}})`)).Func()})
	childTool, err := child.AsTool(agent.AsToolOptions{})
	if err != nil {
		t.Fatal(err)
	}
	raw, plain := &recorder{}, &recorder{}
	model := llmtest.NewScript(llmtest.Code(`(tool/child {:s ctx/_secret})`), llmtest.Code(`(return 1)`))
	parent := agent.MustNew(agent.Config{Prompt: "p", Tools: map[string]agent.Tool{"child": childTool}})
	if _, err := parent.Run(context.Background(), agent.Options{LLM: model.Func(),
		Input: map[string]any{"_secret": eventSecret}, Observers: []agent.Observer{agent.Raw(raw), plain}}); err != nil {
		t.Fatal(err)
	}
	exception := func(r *recorder) error {
		for _, e := range r.events {
			if e.Kind == agent.ToolException && e.Depth == 0 {
				return e.Err
			}
		}
		t.Fatal("no tool.exception")
		return nil
	}
	var f *agent.Fail
	if !errors.As(exception(raw), &f) || f.Details["s"] != eventSecret {
		t.Fatalf("the raw observer's tool.exception should unwrap to the child's Fail: %v", f)
	}
	perr := exception(plain)
	if !errors.As(perr, &f) || f.Reason != "x" || f.Details["s"] != agent.Firewalled {
		t.Errorf("the plain observer's tool.exception: Fail %+v, want details redacted", f)
	}
	var ae *agent.Error
	if errors.As(perr, &ae) || strings.Contains(perr.Error(), eventSecret) {
		t.Errorf("the plain observer's tool.exception reaches raw values: %v", perr)
	}
}

// One JSONLObserver serves concurrent runs, as docs/observability.md
// suggests: -race checks it, and every line is whole.
func TestJSONLObserverShared(t *testing.T) {
	var w lockedBuffer
	o := trace.NewJSONLObserver(&w)
	const runs = 8
	done := make(chan struct{})
	for range runs {
		go func() {
			defer func() { done <- struct{}{} }()
			model := llmtest.NewScript(llmtest.Code(`(println "a") 1`), llmtest.Code(`(return 2)`))
			_, _ = agent.MustNew(agent.Config{Prompt: "p"}).Run(context.Background(),
				agent.Options{LLM: model.Func(), Observers: []agent.Observer{o}})
			_ = o.Err()
		}()
	}
	for range runs {
		<-done
	}
	if o.Err() != nil {
		t.Fatal(o.Err())
	}
	lines := strings.Split(strings.TrimSpace(w.String()), "\n")
	if len(lines) != runs*10 {
		t.Errorf("%d lines, want %d (10 events a run)", len(lines), runs*10)
	}
	for _, l := range lines {
		if !json.Valid([]byte(l)) {
			t.Fatalf("a line is not JSON: %q", l)
		}
	}
}

// lockedBuffer is a writer safe for concurrent use.
type lockedBuffer struct {
	mu sync.Mutex
	sb strings.Builder
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.sb.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.sb.String()
}

// The llm.stop and llm.exception events' Reply names the model asked for,
// the one that answered and the provider, as the model's reply reports
// them (a failed call's too), the llm.Name standing in for the model asked
// for when the reply names none; llm.start names none (the request is not
// answered yet).
func TestEventModelNames(t *testing.T) {
	named := llm.Response{RequestModel: "gpt-4.1-mini", Provider: "openai"}
	for _, tc := range []struct {
		name  string
		model llm.Model
		resp  llm.Response
		err   error
		// want: Reply.RequestModel, Reply.Model, Reply.Provider of
		// llm.start, then of llm.stop or llm.exception.
		start, stop [3]string
	}{
		{"reply names all", nil, llm.Response{Content: "```clojure\n(return 1)\n```", Model: "gpt-4.1-mini-2025-04-14",
			RequestModel: "gpt-4.1-mini", Provider: "openai"}, nil,
			[3]string{}, [3]string{"gpt-4.1-mini", "gpt-4.1-mini-2025-04-14", "openai"}},
		{"failed call", nil, named, &llm.Error{Class: llm.ClassRateLimit}, [3]string{}, [3]string{"gpt-4.1-mini", "", "openai"}},
		{"by name", llm.Name("haiku"), llm.Response{Content: "```clojure\n(return 1)\n```"}, nil,
			[3]string{}, [3]string{"haiku", "", ""}},
		{"by name, reply names the model", llm.Name("haiku"), named, &llm.Error{Class: llm.ClassServerError},
			[3]string{}, [3]string{"gpt-4.1-mini", "", "openai"}},
		{"nothing names it", nil, llm.Response{Content: "```clojure\n(return 1)\n```", Model: "answered"}, nil,
			[3]string{}, [3]string{"", "answered", ""}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := llm.Func(func(context.Context, llm.Request) (llm.Response, error) { return tc.resp, tc.err })
			model, reg := tc.model, llm.Registry{"haiku": f}
			if model == nil {
				model = f
			}
			var got [][3]string
			obs := agent.ObserverFunc(func(_ context.Context, e *agent.Event) {
				if e.Kind == agent.LLMStart || e.Kind == agent.LLMStop || e.Kind == agent.LLMException {
					var r llm.Response
					if e.Reply != nil {
						r = *e.Reply
					}
					got = append(got, [3]string{r.RequestModel, r.Model, r.Provider})
				}
			})
			a := agent.MustNew(agent.Config{Prompt: "p", MaxTurns: 1, LLMRetry: llm.RetryPolicy{MaxAttempts: 1}})
			_, _ = a.Run(context.Background(), agent.Options{LLM: model, Registry: reg, Observers: []agent.Observer{obs}})
			if len(got) != 2 || got[0] != tc.start || got[1] != tc.stop {
				t.Errorf("events %q, want %q then %q", got, tc.start, tc.stop)
			}
		})
	}
}
