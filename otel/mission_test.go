package otel

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm"
	"github.com/ptc-go/ptc/llm/llmtest"
)

// Firewalled values of the mission: none may reach a span.
const (
	toolSecret    = "TOOL-SECRET-7f3a9c"
	contextSecret = "CONTEXT-SECRET-b2e8d1"
)

// missionModel answers the root "Triage" mission and the "Square"
// children: the root's turn 1 fails (a type error), its turn 2's
// first LLM attempt fails with a rate limit, the retry fans out to three
// children through pmap.
func missionModel() *llmtest.Script {
	var turn2 atomic.Int32
	s := llmtest.NewScript()
	s.Respond = func(req llm.Request) llmtest.Reply {
		switch {
		case strings.HasPrefix(req.Prompt, "Square"):
			return llmtest.Code(`(return (* ctx/n ctx/n))`)
		case req.Turn == 1:
			return llmtest.Code(`(def hits (tool/search {:q "urgent"}))
(println "secret:" (:_secret hits) ctx/_token)
(+ 1 (:items hits))`)
		case turn2.Add(1) == 1:
			return llmtest.Fail(&llm.Error{Class: llm.ClassRateLimit, Status: 429, Message: "slow down"})
		default:
			return llmtest.Code(`(return {:squares (pmap #(tool/square {:n %}) [1 2 3])
 :count (count (:items (tool/search {:q "again"})))
 :leak (:_secret (tool/search {:q "again"}))
 :token ctx/_token})`)
		}
	}
	return s
}

func missionAgent(t testing.TB) *agent.Agent {
	t.Helper()
	child := agent.MustNew(agent.Config{Name: "squarer", Prompt: "Square {{n}}", Signature: "(n :int) -> :int",
		Description: "Squares n.", MaxTurns: 2})
	square, err := child.AsTool(agent.AsToolOptions{})
	if err != nil {
		t.Fatal(err)
	}
	search := agent.Tool{Func: func(_ context.Context, args *lisp.Map) (any, error) {
		return map[string]any{"items": []any{1, 2, 3}, "_secret": toolSecret}, nil
	}}

	return agent.MustNew(agent.Config{Name: "triage", Prompt: "Triage the inbox.", MaxTurns: 4,
		Tools:    map[string]agent.Tool{"search": search, "square": square},
		LLMRetry: llm.RetryPolicy{MaxAttempts: 2, BaseDelay: time.Millisecond, Jitter: -1}})
}

// TestMission runs a scripted mission with a tool, an error turn, a
// retried LLM call and a nested agent called three times through pmap,
// and checks the span tree, the parents, and that no firewalled value
// reaches a span even with CaptureContent.
func TestMission(t *testing.T) {
	h := newHarness(t, true)
	ctx, caller := h.tp.Tracer("test").Start(context.Background(), "request")
	step, err := missionAgent(t).Run(ctx, agent.Options{LLM: llm.Name("haiku"),
		Registry:  llm.Registry{"haiku": missionModel().Func()},
		Input:     map[string]any{"_token": contextSecret},
		Observers: []agent.Observer{h.obs}})
	caller.End()
	if err != nil {
		t.Fatalf("%v\n%s", err, h.tree())
	}
	// The return value holds the firewalled values: the program had them.
	if got := lisp.Print(step.Return, lisp.PrintOptions{}); !strings.Contains(got, "[1 4 9]") ||
		!strings.Contains(got, toolSecret) || !strings.Contains(got, contextSecret) {
		t.Errorf("return %s", got)
	}
	h.checkClosed(t)

	want := `request
  invoke_agent triage
    ptc.turn
      chat haiku
      execute_tool search
    ptc.turn
      chat haiku
      chat haiku
      execute_tool search
      execute_tool search
      execute_tool square
        invoke_agent squarer
          ptc.turn
            chat haiku
      execute_tool square
        invoke_agent squarer
          ptc.turn
            chat haiku
      execute_tool square
        invoke_agent squarer
          ptc.turn
            chat haiku
`
	if got := h.tree(); got != want {
		t.Errorf("tree:\n%s\nwant:\n%s", got, want)
	}

	root := h.one(t, "invoke_agent triage")
	if !isChild(root, h.one(t, "request")) {
		t.Error("the mission is not a child of the caller's span")
	}
	wantAttrs(t, root, map[string]string{"gen_ai.agent.name": "triage", "ptc.depth": "0",
		"ptc.trace_id": step.TraceID, "ptc.turns": "2", "ptc.llm_requests": "3",
		"ptc.programs": "2", "ptc.programs.cached": "0"})
	// The squarer's three missions send one program: compiled once, found
	// twice in its agent's compile cache.
	var cached int
	for _, s := range h.named("ptc.turn") {
		if a := attrs(s); a["gen_ai.agent.name"].AsString() == "squarer" && a["ptc.program.cached"].AsBool() {
			cached++
		}
	}
	if cached != 2 {
		t.Errorf("%d of the squarer's turns ran a cached program, want 2", cached)
	}
	if root.Status().Code == codes.Error {
		t.Errorf("root status %+v", root.Status())
	}

	var turn1 sdktrace.ReadOnlySpan
	for _, s := range h.named("ptc.turn") {
		if a := attrs(s); a["gen_ai.agent.name"].AsString() == "triage" && a["ptc.turn"].AsInt64() == 1 {
			turn1 = s
		}
	}
	if turn1 == nil || turn1.Status().Code != codes.Error || turn1.Status().Description == "" {
		t.Errorf("turn 1: %+v", turn1)
	} else {
		wantAttrs(t, turn1, map[string]string{"error.type": "program_error"})
	}

	var failed int
	for _, c := range h.named("chat haiku") {
		if c.Status().Code == codes.Error {
			failed++
			wantAttrs(t, c, map[string]string{"error.type": "rate_limit", "ptc.attempt": "1", "ptc.turn": "2", "gen_ai.request.model": "haiku"})
		}
	}
	if failed != 1 {
		t.Errorf("%d failed LLM attempts", failed)
	}

	calls := h.named("execute_tool square")
	for _, m := range h.named("invoke_agent squarer") {
		a := attrs(m)
		if a["ptc.depth"].AsInt64() != 1 || a["ptc.parent_trace_id"].AsString() != step.TraceID {
			t.Errorf("child attributes %v", a)
		}
		parents := 0
		for _, c := range calls {
			if isChild(m, c) {
				parents++
			}
		}
		if parents != 1 {
			t.Errorf("child %s has %d tool-call parents", a["ptc.trace_id"].AsString(), parents)
		}
	}
	for _, c := range calls {
		n := 0
		for _, m := range h.named("invoke_agent squarer") {
			if isChild(m, c) {
				n++
			}
		}
		if n != 1 {
			t.Errorf("tool call %s runs %d missions", attrs(c)["gen_ai.tool.call.id"].AsString(), n)
		}
	}

	// Content is captured, the firewalled values are not.
	content := 0
	for _, s := range h.spans() {
		for _, kv := range s.Attributes() {
			v := kv.Value.String()
			if strings.Contains(v, toolSecret) || strings.Contains(v, contextSecret) {
				t.Errorf("span %q: %s holds a firewalled value: %s", s.Name(), kv.Key, v)
			}
			switch kv.Key {
			case "gen_ai.input.messages", "gen_ai.tool.call.result", "ptc.program":
				content++
			}
		}
		if d := s.Status().Description; strings.Contains(d, toolSecret) || strings.Contains(d, contextSecret) {
			t.Errorf("span %q: status holds a firewalled value: %s", s.Name(), d)
		}
		for _, ev := range s.Events() {
			for _, kv := range ev.Attributes {
				if v := kv.Value.String(); strings.Contains(v, toolSecret) || strings.Contains(v, contextSecret) {
					t.Errorf("span %q, event %q: %s holds a firewalled value", s.Name(), ev.Name, kv.Key)
				}
			}
		}
	}
	if content == 0 {
		t.Error("no content captured")
	}

	m := h.metrics(t)
	if _, ok := m["gen_ai.client.token.usage"]; !ok {
		t.Error("no token usage metric")
	}
	if p := histCount(m["ptc.mission.duration"]); p != 4 {
		t.Errorf("%d missions measured", p)
	}
}

// histCount adds up the counts of a histogram's points.
func histCount(m metricdata.Metrics) uint64 {
	var n uint64
	if h, ok := m.Data.(metricdata.Histogram[float64]); ok {
		for _, p := range h.DataPoints {
			n += p.Count
		}
	}
	return n
}

// TestMissionFails: a mission whose LLM refuses the key fails; its span
// and the failed call's say why.
func TestMissionFails(t *testing.T) {
	h := newHarness(t, false)
	model := llmtest.NewScript(llmtest.Fail(&llm.Error{Class: llm.ClassAuth, Status: 401, Message: "bad key"}))
	_, err := agent.MustNew(agent.Config{Name: "solo", Prompt: "p", MaxTurns: 2,
		LLMRetry: llm.RetryPolicy{MaxAttempts: 3, BaseDelay: time.Millisecond}}).Run(context.Background(),
		agent.Options{LLM: model.Func(), Observers: []agent.Observer{h.obs}})
	if err == nil {
		t.Fatal("the mission succeeded")
	}
	h.checkClosed(t)
	root := h.one(t, "invoke_agent solo")
	if root.Status().Code != codes.Error || attrs(root)["error.type"].AsString() == "" {
		t.Errorf("root: %+v %v", root.Status(), attrs(root))
	}
	chat := h.one(t, "chat") // auth is not retried
	wantAttrs(t, chat, map[string]string{"error.type": "auth", "ptc.attempt": "1"})
	if chat.Status().Code != codes.Error {
		t.Errorf("chat status %+v", chat.Status())
	}
}

// TestNestedFailure: a nested mission that fails makes its tool call fail
// with the child's reason, and its own span says so.
func TestNestedFailure(t *testing.T) {
	h := newHarness(t, false)
	child := agent.MustNew(agent.Config{Name: "lookup", Prompt: "Look up {{id}}", Signature: "(id :int) -> :string",
		Description: "Looks up an id.", MaxTurns: 1})
	lookup, err := child.AsTool(agent.AsToolOptions{})
	if err != nil {
		t.Fatal(err)
	}
	model := llmtest.NewScript()
	model.Respond = func(req llm.Request) llmtest.Reply {
		if strings.HasPrefix(req.Prompt, "Look up") {
			return llmtest.Code(`(fail {:reason :not_found :message "no such id"})`)
		}
		if req.Turn == 1 {
			return llmtest.Code(`(tool/lookup {:id 7})`)
		}
		return llmtest.Code(`(return "gave up")`)
	}
	root := agent.MustNew(agent.Config{Name: "root", Prompt: "Find 7.", MaxTurns: 3,
		Tools: map[string]agent.Tool{"lookup": lookup}})
	if _, err := root.Run(context.Background(), agent.Options{LLM: model.Func(), Observers: []agent.Observer{h.obs}}); err != nil {
		t.Fatal(err)
	}
	h.checkClosed(t)
	call := h.one(t, "execute_tool lookup")
	mission := h.one(t, "invoke_agent lookup")
	if !isChild(mission, call) {
		t.Error("the child is not under its call")
	}
	for _, s := range []sdktrace.ReadOnlySpan{call, mission} {
		if s.Status().Code != codes.Error {
			t.Errorf("%s: status %+v", s.Name(), s.Status())
		}
		wantAttrs(t, s, map[string]string{"error.type": "not_found"})
	}
	if r := h.one(t, "invoke_agent root"); r.Status().Code == codes.Error {
		t.Errorf("root status %+v", r.Status())
	}
}

// TestCompiledTool: a compiled agent called as a tool is a mission
// without turns; its tool calls hang under its invoke_agent span.
func TestCompiledTool(t *testing.T) {
	h := newHarness(t, false)
	lookup := agent.Tool{Func: func(context.Context, *lisp.Map) (any, error) { return 0.8, nil }}
	scorer := agent.MustNew(agent.Config{Name: "scorer", Prompt: "Score {{v}}", Signature: "(v :float) -> :bool",
		Description: "Scores a value.", Tools: map[string]agent.Tool{"threshold": lookup}})
	compiled, err := scorer.CompileSource(`(return (> ctx/v (tool/threshold {})))`)
	if err != nil {
		t.Fatal(err)
	}
	score, err := compiled.AsTool(agent.AsToolOptions{})
	if err != nil {
		t.Fatal(err)
	}
	root := agent.MustNew(agent.Config{Name: "root", Prompt: "Check.", MaxTurns: 1,
		Tools: map[string]agent.Tool{"score": score}})
	model := llmtest.NewScript(llmtest.Code(`(return (tool/score {:v 0.9}))`))
	if _, err := root.Run(context.Background(), agent.Options{LLM: model.Func(), Observers: []agent.Observer{h.obs}}); err != nil {
		t.Fatal(err)
	}
	h.checkClosed(t)
	want := `invoke_agent root
  ptc.turn
    chat
    execute_tool score
      invoke_agent scorer
        execute_tool threshold
`
	if got := h.tree(); got != want {
		t.Errorf("tree:\n%s\nwant:\n%s", got, want)
	}
	noAttrs(t, h.one(t, "execute_tool threshold"), "ptc.turn")
}
