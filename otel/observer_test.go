package otel

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	otelapi "go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/metric/noop"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/internal/textutil"
	"github.com/ptc-go/ptc/llm"
)

// script feeds hand-built events to an Observer, filling in the times
// and the fields that say where they happened.
type script struct {
	h     *harness
	ctx   context.Context
	clock *clock
}

func (s *script) emit(e agent.Event) {
	e.Time = s.clock.next()
	s.h.obs.Observe(s.ctx, &e)
}

// run is where events happen: one mission.
type run struct {
	s                    *script
	agent, trace, parent string
	depth                int
	parentCall           uint64
	turn                 int
}

func (r *run) ev(kind agent.EventKind) agent.Event {
	return agent.Event{Kind: kind, Agent: r.agent, TraceID: r.trace, ParentTraceID: r.parent,
		Depth: r.depth, Turn: r.turn}
}

func (r *run) start() {
	e := r.ev(agent.RunStart)
	e.ParentCallID = r.parentCall
	r.s.emit(e)
}

func (r *run) stop(tokens llm.Tokens, turns int, fail *agent.Fail) {
	e := r.ev(agent.RunStop)
	e.ParentCallID = r.parentCall
	if fail != nil {
		e.Err = fail
	}
	e.Usage = agent.Usage{Turns: turns, LLMRequests: turns, Tokens: tokens}
	e.Duration = 2 * time.Second
	e.ResultText = `{:answer 42}`
	r.s.emit(e)
}

func (r *run) turnStart(n int) {
	r.turn = n
	r.s.emit(r.ev(agent.TurnStart))
}

func (r *run) turnStop(tokens llm.Tokens, program, errText string) {
	e := r.ev(agent.TurnStop)
	e.Usage, e.Program, e.ResultText = agent.Usage{Turns: 1, LLMRequests: 1, Tokens: tokens, Programs: 1}, program, "42"
	if errText != "" {
		e.Err = errors.New(errText)
	}
	r.s.emit(e)
}

func (r *run) llm(id uint64, attempt int, model string, err error, tokens llm.Tokens) {
	e := r.ev(agent.LLMStart)
	e.CallID, e.Attempt = id, attempt
	e.Request = &llm.Request{System: "You write PTC-Lisp.",
		Messages: []llm.Message{{Role: llm.User, Content: "Find the urgent emails."}}}
	r.s.emit(e)
	// A model that streams: its chunks make no span of their own.
	for _, so := range []string{"```clo", "```clojure\n(return"} {
		c := r.ev(agent.LLMChunk)
		c.CallID, c.Attempt, c.Reply = id, attempt, &llm.Response{Content: so}
		r.s.emit(c)
	}
	e = r.ev(agent.LLMStop)
	e.CallID, e.Attempt, e.Usage = id, attempt, agent.Usage{LLMRequests: 1, Tokens: tokens}
	e.Reply = &llm.Response{Content: "```clojure\n(return 42)\n```", Model: model, RequestModel: model, FinishReason: "stop", Tokens: tokens}
	e.Duration = 500 * time.Millisecond
	if err != nil {
		e.Kind, e.Err, e.Reply, e.Usage = agent.LLMException, err, &llm.Response{RequestModel: model}, agent.Usage{}
	}
	r.s.emit(e)
}

// simple emits a whole one-turn run: an LLM call (id 1, model "m") whose
// program calls tool (id 2) once.
func (r *run) simple(tool, program string) {
	r.start()
	r.turnStart(1)
	r.llm(1, 1, "m", nil, llm.Tokens{Input: 1, Output: 1})
	r.toolStart(2, tool)
	r.toolStop(2, tool, nil)
	r.turnStop(llm.Tokens{}, program, "")
	r.stop(llm.Tokens{}, 1, nil)
}

func (r *run) toolStart(id uint64, name string) {
	e := r.ev(agent.ToolStart)
	e.CallID, e.Tool, e.ArgsText = id, name, `{:q "urgent"}`
	r.s.emit(e)
}

func (r *run) toolStop(id uint64, name string, err error) {
	e := r.ev(agent.ToolStop)
	e.CallID, e.Tool, e.ArgsText, e.ResultText = id, name, `{:q "urgent"}`, `[1 2 3]`
	e.Duration = 100 * time.Millisecond
	if err != nil {
		e.Kind, e.Err, e.ResultText = agent.ToolException, err, ""
	}
	r.s.emit(e)
}

func newScript(h *harness, ctx context.Context) *script {
	return &script{h: h, ctx: ctx, clock: newClock()}
}

// TestSpanTree feeds a mission with a failed turn, a retried LLM call, a
// tool call and a nested mission run by a tool call, under a caller's
// span, and checks the tree, the kinds and the attributes.
func TestSpanTree(t *testing.T) {
	h := newHarness(t, false)
	ctx, caller := h.tp.Tracer("caller").Start(context.Background(), "caller")
	s := newScript(h, ctx)
	root := &run{s: s, agent: "finder", trace: "t-root"}
	root.start()
	root.turnStart(1)
	root.llm(1, 1, "haiku", &llm.Error{Class: llm.ClassRateLimit, Status: 429, Message: "slow down"}, llm.Tokens{})
	root.llm(2, 2, "haiku", nil, llm.Tokens{Input: 100, Output: 20, CacheRead: 60, CacheWrite: 10})
	root.toolStart(3, "search")
	root.toolStop(3, "search", errors.New("search is down"))
	root.turnStop(llm.Tokens{Input: 100, Output: 20}, "(tool/search {})", "tool_error: search is down")
	root.turnStart(2)
	root.llm(4, 1, "haiku", nil, llm.Tokens{Input: 200, Output: 30})
	root.toolStart(5, "helper")
	child := &run{s: s, agent: "helper", trace: "t-child", parent: "t-root", depth: 1, parentCall: 5}
	child.start()
	child.turnStart(1)
	child.llm(6, 1, "haiku", nil, llm.Tokens{Input: 50, Output: 5})
	child.turnStop(llm.Tokens{Input: 50, Output: 5}, "(return 1)", "")
	child.stop(llm.Tokens{Input: 50, Output: 5}, 1, nil)
	root.toolStop(5, "helper", nil)
	root.turnStop(llm.Tokens{Input: 200, Output: 30}, "(return (tool/helper {}))", "")
	root.stop(llm.Tokens{Input: 300, Output: 50}, 2, nil)
	caller.End()

	want := `caller
  invoke_agent finder
    ptc.turn
      chat haiku
      chat haiku
      execute_tool search
    ptc.turn
      chat haiku
      execute_tool helper
        invoke_agent helper
          ptc.turn
            chat haiku
`
	if got := h.tree(); got != want {
		t.Errorf("tree:\n%s\nwant:\n%s", got, want)
	}
	h.checkClosed(t)

	callerSpan := h.one(t, "caller")
	rootSpan := h.named("invoke_agent finder")[0]
	if !isChild(rootSpan, callerSpan) {
		t.Error("the root mission is not a child of the caller's span")
	}
	if rootSpan.SpanKind() != trace.SpanKindInternal {
		t.Errorf("invoke_agent kind %v", rootSpan.SpanKind())
	}
	wantAttrs(t, rootSpan, map[string]string{
		"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "finder",
		"ptc.trace_id": "t-root", "ptc.depth": "0", "ptc.turns": "2", "ptc.llm_requests": "2",
		"gen_ai.usage.input_tokens": "300", "gen_ai.usage.output_tokens": "50",
	})
	noAttrs(t, rootSpan, "ptc.parent_trace_id", "error.type", "ptc.result", "ptc.unfinished")
	if rootSpan.Status().Code == codes.Error {
		t.Errorf("root status %v", rootSpan.Status())
	}

	// The timestamps are the events'.
	if got := rootSpan.StartTime(); !got.Equal(time.Date(2026, 1, 2, 3, 4, 5, int(time.Millisecond), time.UTC)) {
		t.Errorf("root start %v", got)
	}

	var turn1, turn2 sdktrace.ReadOnlySpan
	for _, tu := range h.named("ptc.turn") {
		if a := attrs(tu); a["gen_ai.agent.name"].AsString() == "finder" {
			if a["ptc.turn"].AsInt64() == 1 {
				turn1 = tu
			} else {
				turn2 = tu
			}
		}
	}
	if turn1 == nil || turn2 == nil {
		t.Fatalf("turns:\n%s", h.tree())
	}
	if !isChild(turn1, rootSpan) || !isChild(turn2, rootSpan) {
		t.Error("the turns are not children of the mission")
	}
	wantAttrs(t, turn1, map[string]string{"ptc.turn": "1", "gen_ai.agent.name": "finder",
		"error.type": "program_error", "gen_ai.usage.input_tokens": "100"})
	if st := turn1.Status(); st.Code != codes.Error || st.Description != "tool_error: search is down" {
		t.Errorf("turn 1 status %+v", st)
	}
	noAttrs(t, turn1, "ptc.program", "ptc.result")
	if turn2.Status().Code == codes.Error {
		t.Errorf("turn 2 status %+v", turn2.Status())
	}

	chats := h.named("chat haiku")
	if len(chats) != 4 {
		t.Fatalf("%d chat spans", len(chats))
	}
	var failed, retried int
	for _, c := range chats {
		a := attrs(c)
		if c.SpanKind() != trace.SpanKindClient {
			t.Errorf("chat kind %v", c.SpanKind())
		}
		wantAttrs(t, c, map[string]string{"gen_ai.operation.name": "chat", "gen_ai.request.model": "haiku"})
		noAttrs(t, c, "gen_ai.input.messages", "gen_ai.output.messages", "gen_ai.system_instructions")
		switch {
		case a["ptc.attempt"].AsInt64() == 1 && c.Status().Code == codes.Error:
			failed++
			if !isChild(c, turn1) {
				t.Error("the failed attempt is not in turn 1")
			}
			wantAttrs(t, c, map[string]string{"error.type": "rate_limit", "ptc.turn": "1"})
			if !strings.Contains(c.Status().Description, "slow down") {
				t.Errorf("failed attempt status %+v", c.Status())
			}
			noAttrs(t, c, "gen_ai.usage.input_tokens")
		case a["ptc.attempt"].AsInt64() == 2:
			retried++
			if !isChild(c, turn1) {
				t.Error("the retry is not in turn 1")
			}
			wantAttrs(t, c, map[string]string{"gen_ai.response.model": "haiku", "gen_ai.response.finish_reasons": `["stop"]`,
				"gen_ai.usage.input_tokens": "100", "gen_ai.usage.output_tokens": "20",
				"gen_ai.usage.cache_read.input_tokens": "60", "gen_ai.usage.cache_creation.input_tokens": "10"})
			noAttrs(t, c, "error.type")
		}
	}
	if failed != 1 || retried != 1 {
		t.Errorf("%d failed attempts, %d retries", failed, retried)
	}

	search := h.one(t, "execute_tool search")
	if !isChild(search, turn1) || search.SpanKind() != trace.SpanKindInternal {
		t.Errorf("search: parent %v, kind %v", search.Parent().SpanID(), search.SpanKind())
	}
	wantAttrs(t, search, map[string]string{"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "search",
		"gen_ai.tool.call.id": "3", "ptc.turn": "1", "error.type": "tool_error"})
	if st := search.Status(); st.Code != codes.Error || st.Description != "search is down" {
		t.Errorf("search status %+v", st)
	}
	noAttrs(t, search, "gen_ai.tool.call.arguments", "gen_ai.tool.call.result")

	helper := h.one(t, "execute_tool helper")
	childSpan := h.one(t, "invoke_agent helper")
	if !isChild(helper, turn2) || !isChild(childSpan, helper) {
		t.Error("the nested mission is not under its tool call, in turn 2")
	}
	wantAttrs(t, childSpan, map[string]string{"ptc.depth": "1", "ptc.parent_trace_id": "t-root",
		"ptc.trace_id": "t-child", "gen_ai.usage.input_tokens": "50"})
}

// TestMissionFailure: a failed mission, a run.exception without a Fail, a
// failed nested mission as a tool error.
func TestMissionFailure(t *testing.T) {
	h := newHarness(t, false)
	s := newScript(h, context.Background())
	r := &run{s: s, agent: "a", trace: "t1"}
	r.start()
	r.toolStart(1, "child")
	fail := &agent.Fail{Reason: "max_turns_exceeded", Message: "no return after 5 turns"}
	r.toolStop(1, "child", &agent.Error{Step: &agent.Step{Fail: fail}})
	r.stop(llm.Tokens{}, 5, &agent.Fail{Reason: "tool_failed", Message: "the tool failed", Op: "child"})

	r2 := &run{s: s, trace: "t2"}
	r2.start()
	s.emit(agent.Event{Kind: agent.RunException, TraceID: "t2"})
	h.checkClosed(t)

	a := h.one(t, "invoke_agent a")
	if st := a.Status(); st.Code != codes.Error || st.Description != "the tool failed" {
		t.Errorf("status %+v", st)
	}
	wantAttrs(t, a, map[string]string{"error.type": "tool_failed", "ptc.fail.op": "child", "ptc.turns": "5"})
	tool := h.one(t, "execute_tool child")
	wantAttrs(t, tool, map[string]string{"error.type": "max_turns_exceeded"})
	if !isChild(tool, a) {
		t.Error("a call outside turns is not a child of the mission")
	}

	anon := h.one(t, "invoke_agent")
	if st := anon.Status(); st.Code != codes.Error {
		t.Errorf("run.exception status %+v", st)
	}
	wantAttrs(t, anon, map[string]string{"error.type": "_OTHER"})
	noAttrs(t, anon, "gen_ai.agent.name")
	if anon.Parent().IsValid() {
		t.Error("a root mission without a caller's span has a parent")
	}
}

// TestOutOfOrder: stops without starts are ignored, spans left open by a
// mission's end are ended (marked unfinished), a repeated start ends the
// first, EndAll ends the rest, and nothing stays in the maps.
func TestOutOfOrder(t *testing.T) {
	h := newHarness(t, false)
	s := newScript(h, context.Background())
	h.obs.Observe(context.Background(), nil)
	var noCtx context.Context
	h.obs.Observe(noCtx, &agent.Event{Kind: agent.RunStart, TraceID: "nil-ctx"})
	h.obs.Observe(noCtx, &agent.Event{Kind: agent.RunStop, TraceID: "nil-ctx"})
	h.rec.Reset()
	s.emit(agent.Event{Kind: agent.LLMStop, TraceID: "nope", CallID: 1})
	s.emit(agent.Event{Kind: agent.ToolException, TraceID: "nope", CallID: 2})
	s.emit(agent.Event{Kind: agent.TurnStop, TraceID: "nope", Turn: 1})
	s.emit(agent.Event{Kind: agent.ToolStart, TraceID: "nope", CallID: 3, Tool: "x"}) // mission unknown
	s.emit(agent.Event{Kind: agent.TurnStart, TraceID: "nope", Turn: 1})
	s.emit(agent.Event{Kind: agent.EventKind(99), TraceID: "nope"})
	if n := len(h.rec.Started()); n != 0 {
		t.Fatalf("%d spans from events of an unknown mission", n)
	}

	r := &run{s: s, agent: "a", trace: "t1"}
	r.start()
	r.turnStart(1)
	r.toolStart(1, "slow")
	r.toolStart(1, "slow")                                             // again: the first is ended
	s.emit(agent.Event{Kind: agent.LLMStop, TraceID: "t1", CallID: 1}) // a tool call's id: not an LLM call
	r.turnStart(2)                                                     // turn 1 never stopped
	s.emit(agent.Event{Kind: agent.TurnStop, TraceID: "t1", Turn: 1})  // not the open turn
	c := &run{s: s, agent: "c", trace: "t2", parent: "t1", depth: 1, parentCall: 1}
	c.start()
	c.turnStart(1)
	c.llm(7, 1, "", nil, llm.Tokens{})
	c.s.emit(agent.Event{Kind: agent.LLMStart, TraceID: "t2", Turn: 1, CallID: 8})
	r.stop(llm.Tokens{}, 2, nil) // with the child, its turn and call, the tool call and turn 2 open
	if m, calls := h.obs.open(); m != 0 || calls != 0 {
		t.Fatalf("after the root's end: %d missions, %d calls open", m, calls)
	}
	c.stop(llm.Tokens{}, 1, nil) // too late: ignored

	r3 := &run{s: s, agent: "b", trace: "t3"}
	r3.start()
	r3.start() // the same trace again: the first span ends
	r3.turnStart(1)
	r3.toolStart(4, "t")
	h.obs.EndAll()
	h.checkClosed(t)

	unfinished := 0
	for _, sp := range h.spans() {
		if attrs(sp)["ptc.unfinished"].AsBool() {
			unfinished++
		}
	}
	// slow ×2, turn 1, turn 2, child mission, child turn, call 8; b ×2,
	// its turn and its tool call.
	if unfinished != 11 {
		t.Errorf("%d unfinished spans:\n%s", unfinished, h.tree())
	}
	if a := h.one(t, "invoke_agent a"); attrs(a)["ptc.unfinished"].AsBool() {
		t.Error("the mission that ended is marked unfinished")
	}
	for _, c := range h.named("chat") {
		if c.Status().Code == codes.Error {
			t.Errorf("a call without a model: %+v", c.Status())
		}
	}
	var nilObs *Observer
	nilObs.Observe(context.Background(), &agent.Event{Kind: agent.RunStart})
	nilObs.EndAll()
}

// TestFanOut: the children of a pmap over an agent tool, their events
// interleaved, each sit under their own tool call.
func TestFanOut(t *testing.T) {
	h := newHarness(t, false)
	s := newScript(h, context.Background())
	root := &run{s: s, agent: "root", trace: "r"}
	root.start()
	root.turnStart(1)
	root.llm(1, 1, "m", nil, llm.Tokens{Input: 1, Output: 1})
	const n = 4
	children := make([]*run, n)
	for i := range n {
		root.toolStart(uint64(10+i), "square")
		children[i] = &run{s: s, agent: "square", trace: fmt.Sprintf("c%d", i), parent: "r", depth: 1, parentCall: uint64(10 + i)}
		children[i].start()
	}
	for i := range n {
		children[i].turnStart(1)
	}
	for i := n - 1; i >= 0; i-- {
		children[i].llm(uint64(20+i), 1, "m", nil, llm.Tokens{Input: 1, Output: 1})
		children[i].turnStop(llm.Tokens{}, "", "")
		children[i].stop(llm.Tokens{}, 1, nil)
		root.toolStop(uint64(10+i), "square", nil)
	}
	root.turnStop(llm.Tokens{}, "", "")
	root.stop(llm.Tokens{}, 1, nil)
	h.checkClosed(t)

	calls := h.named("execute_tool square")
	missions := h.named("invoke_agent square")
	if len(calls) != n || len(missions) != n {
		t.Fatalf("%d calls, %d missions:\n%s", len(calls), len(missions), h.tree())
	}
	for _, m := range missions {
		id := attrs(m)["ptc.trace_id"].AsString()
		var i int
		fmt.Sscanf(id, "c%d", &i)
		var parent trace.SpanID
		for _, c := range calls {
			if attrs(c)["gen_ai.tool.call.id"].AsString() == fmt.Sprint(10+i) {
				parent = c.SpanContext().SpanID()
			}
		}
		if m.Parent().SpanID() != parent {
			t.Errorf("mission %s is not under call %d", id, 10+i)
		}
	}
}

// TestCaptureContent: content attributes only with CaptureContent.
func TestCaptureContent(t *testing.T) {
	h := newHarness(t, true)
	s := newScript(h, context.Background())
	r := &run{s: s, agent: "a", trace: "t"}
	r.simple("search", "(tool/search {})")
	h.checkClosed(t)

	wantAttrs(t, h.one(t, "chat m"), map[string]string{
		"gen_ai.system_instructions": `[{"type":"text","content":"You write PTC-Lisp."}]`,
		"gen_ai.input.messages":      `[{"role":"user","parts":[{"type":"text","content":"Find the urgent emails."}]}]`,
		"gen_ai.output.messages":     `[{"role":"assistant","parts":[{"type":"text","content":"` + "```clojure\\n(return 42)\\n```" + `"}]}]`,
	})
	wantAttrs(t, h.one(t, "execute_tool search"), map[string]string{
		"gen_ai.tool.call.arguments": `{:q "urgent"}`, "gen_ai.tool.call.result": "[1 2 3]"})
	wantAttrs(t, h.one(t, "ptc.turn"), map[string]string{"ptc.program": "(tool/search {})", "ptc.result": "42"})
	wantAttrs(t, h.one(t, "invoke_agent a"), map[string]string{"ptc.result": "{:answer 42}"})
}

// TestMetrics reads the histograms through a manual reader.
func TestMetrics(t *testing.T) {
	h := newHarness(t, false)
	s := newScript(h, context.Background())
	r := &run{s: s, agent: "a", trace: "t"}
	r.start()
	r.turnStart(1)
	r.llm(1, 1, "haiku", &llm.Error{Class: llm.ClassServerError}, llm.Tokens{})
	r.llm(2, 2, "haiku", nil, llm.Tokens{Input: 100, Output: 20})
	r.llm(3, 1, "haiku", nil, llm.Tokens{Input: 300, Output: 40})
	r.toolStart(4, "search")
	r.toolStop(4, "search", nil)
	r.toolStart(5, "search")
	s.emit(agent.Event{Kind: agent.ToolException, TraceID: "t", Turn: 1, CallID: 5, Err: errors.New("x")}) // no Duration: from the times
	r.turnStop(llm.Tokens{}, "", "")
	r.stop(llm.Tokens{}, 1, &agent.Fail{Reason: "timeout"})
	h.checkClosed(t)

	m := h.metrics(t)
	tok := m["gen_ai.client.token.usage"]
	if tok.Unit != "{token}" {
		t.Errorf("token unit %q", tok.Unit)
	}
	model := attribute.String("gen_ai.request.model", "haiku")
	chat := attribute.String("gen_ai.operation.name", "chat")
	answered := attribute.String("gen_ai.response.model", "haiku")
	in := exact[int64](t, tok, chat, model, answered, attribute.String("gen_ai.token.type", "input"))
	out := exact[int64](t, tok, chat, model, answered, attribute.String("gen_ai.token.type", "output"))
	if in.Count != 2 || in.Sum != 400 || out.Count != 2 || out.Sum != 60 {
		t.Errorf("tokens: input %d/%d, output %d/%d", in.Count, in.Sum, out.Count, out.Sum)
	}

	dur := m["gen_ai.client.operation.duration"]
	if dur.Unit != "s" {
		t.Errorf("duration unit %q", dur.Unit)
	}
	ok := exact[float64](t, dur, chat, model, answered)
	if ok.Count != 2 || ok.Sum != 1 {
		t.Errorf("chat duration: %d, %v", ok.Count, ok.Sum)
	}
	failed := exact[float64](t, dur, chat, model, attribute.String("error.type", "server_error"))
	if failed.Count != 1 || failed.Sum != 0.5 {
		t.Errorf("failed chat duration: %d, %v", failed.Count, failed.Sum)
	}

	tool := m["ptc.tool.duration"]
	search := attribute.String("gen_ai.tool.name", "search")
	exec := attribute.String("gen_ai.operation.name", "execute_tool")
	if okTool := exact[float64](t, tool, search, exec); okTool.Count != 1 || okTool.Sum != 0.1 {
		t.Errorf("tool duration: %d, %v", okTool.Count, okTool.Sum)
	}
	errTool := exact[float64](t, tool, search, exec, attribute.String("error.type", "tool_error"))
	if errTool.Count != 1 || errTool.Sum != 0.001 {
		t.Errorf("failed tool duration: %d, %v (1 ms from the event times)", errTool.Count, errTool.Sum)
	}
	mission := exact[float64](t, m["ptc.mission.duration"], attribute.String("gen_ai.agent.name", "a"),
		attribute.String("error.type", "timeout"), attribute.String("gen_ai.operation.name", "invoke_agent"))
	if mission.Count != 1 || mission.Sum != 2 {
		t.Errorf("mission duration: %d, %v", mission.Count, mission.Sum)
	}
}

// TestConcurrentRuns: one Observer serving many runs at once (-race).
func TestConcurrentRuns(t *testing.T) {
	h := newHarness(t, true)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			s := newScript(h, context.Background())
			for i := range 20 {
				r := &run{s: s, agent: "a", trace: fmt.Sprintf("g%d-%d", g, i)}
				r.simple("t", "")
			}
		})
	}
	wg.Wait()
	h.checkClosed(t)
	if n := len(h.named("invoke_agent a")); n != 160 {
		t.Errorf("%d missions", n)
	}
}

// TestDefaults: without providers, the global ones (no-ops by default).
func TestDefaults(t *testing.T) {
	obs, err := NewObserver(Options{})
	if err != nil {
		t.Fatal(err)
	}
	obs.Observe(context.Background(), &agent.Event{Kind: agent.RunStart, TraceID: "x"})
	obs.Observe(context.Background(), &agent.Event{Kind: agent.RunStop, TraceID: "x"})
	if m, c := obs.open(); m != 0 || c != 0 {
		t.Errorf("%d, %d open", m, c)
	}
	if got := textutil.ClipBytes(strings.Repeat("é", 600), descLimit); len(got) > descLimit+len("…") || !strings.HasSuffix(got, "é…") {
		t.Errorf("ClipBytes: %d bytes, %q", len(got), got[len(got)-8:])
	}
}

// TestGlobalProviders: without providers in the Options, the global ones.
func TestGlobalProviders(t *testing.T) {
	h := newHarness(t, false)
	old := otelapi.GetTracerProvider()
	otelapi.SetTracerProvider(h.tp)
	defer otelapi.SetTracerProvider(old)
	obs, err := NewObserver(Options{})
	if err != nil {
		t.Fatal(err)
	}
	obs.Observe(context.Background(), &agent.Event{Kind: agent.RunStart, TraceID: "g", Agent: "global"})
	obs.Observe(context.Background(), &agent.Event{Kind: agent.RunStop, TraceID: "g", Agent: "global"})
	h.one(t, "invoke_agent global")
}

// failingMeter refuses to make instruments.
type failingMeter struct{ noop.Meter }

func (failingMeter) Int64Histogram(string, ...metric.Int64HistogramOption) (metric.Int64Histogram, error) {
	return nil, errors.New("no histograms today")
}

type failingProvider struct{ noop.MeterProvider }

func (failingProvider) Meter(string, ...metric.MeterOption) metric.Meter { return failingMeter{} }

// TestInstrumentError: NewObserver reports the meter's error.
func TestInstrumentError(t *testing.T) {
	if _, err := NewObserver(Options{MeterProvider: failingProvider{}}); err == nil || !strings.Contains(err.Error(), "no histograms") {
		t.Errorf("err %v", err)
	}
}
