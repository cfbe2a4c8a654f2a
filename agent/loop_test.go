package agent_test

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"testing"
	"time"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm"
	"github.com/ptc-go/ptc/llm/llmtest"
)

func TestToolsInTheLoop(t *testing.T) {
	together := newMeeting(2)
	tools := map[string]agent.Tool{
		"lookup": {Func: func(ctx context.Context, args *lisp.Map) (any, error) {
			defer together.enter()()
			id, _ := args.Get(lisp.Keyword("id"))
			return map[string]any{"id": id, "name": fmt.Sprint("item-", id)}, nil
		}, Signature: "(id :int) -> {id :int, name :string}", Description: "Look an item up."},
		"broken": {Func: func(context.Context, *lisp.Map) (any, error) { return nil, errors.New("database is down") }},
		"panics": agent.Tool{Func: func(context.Context, *lisp.Map) (any, error) { panic("boom") }},
	}
	s := llmtest.NewScript(
		llmtest.Code(`(tool/broken {})`),
		llmtest.Code(`[(:op ctx/fail) (tool/panics {})]`),
		llmtest.Code(`(tool/lookpu {:id 1})`),
		llmtest.Code(`(def items (pmap #(tool/lookup {:id %}) ["1" "2" "3"])) (mapv :name items)`),
		llmtest.Code(`(return (count items))`),
	)
	step, err := run(t, agent.Config{Prompt: "Use tools", Tools: tools, MaxTurns: 6}, agent.Options{LLM: s.Func()})
	if err != nil {
		t.Fatal(err)
	}
	if fb := s.LastMessage(1); !strings.Contains(fb, "tool broken failed: database is down") {
		t.Errorf("turn 1 feedback %q", fb)
	}
	if fb := s.LastMessage(2); !strings.Contains(fb, "panicked") {
		t.Errorf("turn 2 feedback %q", fb)
	}
	if fb := s.LastMessage(3); !strings.Contains(fb, "lookup") {
		t.Errorf("turn 3 feedback should suggest lookup: %q", fb)
	}
	if fb := s.LastMessage(4); !strings.Contains(fb, `["item-1" "item-2" "item-3"]`) {
		t.Errorf("turn 4 feedback %q", fb)
	}
	if printed(step.Return) != "3" {
		t.Errorf("return %s", printed(step.Return))
	}
	if p := together.maxAtOnce(); p < 2 {
		t.Errorf("pmap ran the tool calls one at a time (peak %d)", p)
	}
	calls := step.Trace[3].ToolCalls
	if len(calls) != 3 || calls[0].Name != "lookup" || len(calls[0].Warnings) == 0 || calls[0].Duration <= 0 {
		t.Fatalf("trace %+v", calls)
	}
	if !strings.Contains(calls[0].Warnings[0], "coerced") {
		t.Errorf("warnings %v", calls[0].Warnings)
	}
	if c := step.Trace[0].ToolCalls; len(c) != 1 || c[0].Error == "" {
		t.Errorf("broken call trace %+v", c)
	}
}

func TestCatalogTool(t *testing.T) {
	s := llmtest.NewScript(llmtest.Code(`(tool/plan {})`), llmtest.Code(`(return 1)`))
	_, err := run(t, agent.Config{Prompt: "p", Tools: map[string]agent.Tool{"t": agent.Tool{Func: nop}},
		ToolCatalog: map[string]agent.Tool{"plan": {Description: "planning only"}}}, agent.Options{LLM: s.Func()})
	if err != nil {
		t.Fatal(err)
	}
	if fb := s.LastMessage(1); !strings.Contains(fb, "planning only") {
		t.Errorf("feedback %q", fb)
	}
}

func TestTypedTool(t *testing.T) {
	type In struct {
		A int `json:"a"`
		B int `json:"b"`
	}
	add := agent.NewTool("Adds.", func(_ context.Context, in In) (int, error) { return in.A + in.B, nil })
	s := llmtest.NewScript(llmtest.Code(`(return (tool/add 2 "3"))`))
	step, err := run(t, agent.Config{Prompt: "p", Tools: map[string]agent.Tool{"add": add}},
		agent.Options{LLM: s.Func()})
	if err != nil {
		t.Fatal(err)
	}
	if printed(step.Return) != "5" {
		t.Errorf("return %s", printed(step.Return))
	}
}

func TestMemoryContract(t *testing.T) {
	s := llmtest.NewScript(
		llmtest.Code(`{:row-count (count ctx/data) :sample (take 1 ctx/data)}`),
		llmtest.Code(`(memory/put :cols 2) {:columns [:a :b] :return "found columns"}`),
		llmtest.Code(`(return {:rows memory/row-count :cols (memory/get :cols) :columns columns :first *1})`),
	)
	step, err := run(t, agent.Config{Prompt: "Explore"}, agent.Options{LLM: s.Func(),
		Input: map[string]any{"data": []int{7, 8, 9}}})
	if err != nil {
		t.Fatal(err)
	}
	if got := printed(step.Return); got != `{:cols 2, :columns [:a :b], :first {:columns [:a :b], :return "found columns"}, :rows 3}` {
		t.Errorf("return %s", got)
	}
	if fb := s.LastMessage(2); !strings.Contains(fb, `Value: "found columns"`) || !strings.Contains(fb, "Memory: cols, columns, row-count, sample") {
		t.Errorf("feedback %q", fb)
	}
	if v, ok := step.Memory.Get("sample"); !ok || printed(v) != "[7]" {
		t.Errorf("memory sample %v", v)
	}
	// KeepMaps: maps are plain values.
	s = llmtest.NewScript(llmtest.Code(`{:a 1}`), llmtest.Code(`(return (memory/get :a))`))
	step, _ = run(t, agent.Config{Prompt: "p", KeepMaps: true}, agent.Options{LLM: s.Func()})
	if step.Return != nil {
		t.Errorf("KeepMaps stored a map entry: %v", step.Return)
	}
}

// TestMemoryLimit: a turn whose definitions take the memory past its limit
// is an error turn, rolled back, that says the sizes and the limit; the
// next turn goes on, and a second overrun in a row ends the mission.
func TestMemoryLimit(t *testing.T) {
	s := llmtest.NewScript(
		llmtest.Code(`(def small 1) (def big (vec (range 1000)))`),
		llmtest.Code(`(return [small (count big)])`),
		llmtest.Code(`(return 1)`),
	)
	step, _ := run(t, agent.Config{Prompt: "p", MaxAgentMemory: 1000}, agent.Options{LLM: s.Func(), Trace: agent.TraceConversation})
	if step.Return != int64(1) || len(step.Trace) != 3 || !strings.Contains(step.Trace[1].Error, "small") {
		t.Fatalf("turn 2 should fail on the names turn 1 did not keep, turn 3 return: %+v %+v", step.Trace, step.Fail)
	}
	fb := step.Trace[0].Feedback
	for _, want := range []string{"Error: memory_limit_exceeded", "over its limit of 1000 bytes", "none of them was kept",
		"Largest: big 3.8 KB", "read ctx/... again", "Memory is as it was before this turn"} {
		if !strings.Contains(fb, want) {
			t.Errorf("turn 1's feedback lacks %q:\n%s", want, fb)
		}
	}

	// Two overruns in a row end the mission; an overrun, then a turn that
	// fits, then an overrun again does not.
	over := llmtest.Code(`(def big (vec (range 1000)))`)
	s = llmtest.NewScript(over, over)
	step, _ = run(t, agent.Config{Prompt: "p", MaxAgentMemory: 1000}, agent.Options{LLM: s.Func()})
	if step.Fail == nil || step.Fail.Reason != agent.ReasonMemoryLimitExceeded || step.Usage.Turns != 2 {
		t.Errorf("two overruns: %+v after %d turns", step.Fail, step.Usage.Turns)
	}
	s = llmtest.NewScript(over, llmtest.Code(`(def a 1)`), over, llmtest.Code(`(return a)`))
	step, err := run(t, agent.Config{Prompt: "p", MaxAgentMemory: 1000}, agent.Options{LLM: s.Func()})
	if err != nil || step.Return != int64(1) {
		t.Errorf("overruns apart: %v, %+v", step.Return, step.Fail)
	}
}

// TestMemoryChargesWhatItAdds: a name for the context, part of it or a
// tool's result costs its name, however big the data; rows of the context
// in a new vector cost the vector; structure two names share is charged
// once. A 50,000-row context named with def on turn 1 costs no turn.
func TestMemoryChargesWhatItAdds(t *testing.T) {
	rows := make([]map[string]any, 50_000)
	for i := range rows {
		rows[i] = map[string]any{"id": i, "kind": "click", "page": fmt.Sprintf("/p/%d", i%40)}
	}
	list := agent.Tool{Func: func(context.Context, *lisp.Map) (any, error) { return rows, nil }}
	tests := []struct {
		name, program string
		fits          bool
	}{
		{"the context", `(def evs ctx/events)`, true},
		{"part of the context", `(def first-rows (take 1000 ctx/events)) (def e (nth ctx/events 7))`, true},
		{"a tool's result", `(def fetched (tool/list {}))`, true},
		{"two names for one built value", `(def a (mapv inc (range 100))) (def b a) (def c {:a a :b b})`, true},
		{"a copy of the context", `(def copy (mapv #(assoc % :seen true) ctx/events))`, false},
		{"a value built from the context", `(def pages (mapv :page ctx/events))`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := llmtest.NewScript(llmtest.Code(tt.program), llmtest.Code(`(return :done)`))
			step, err := run(t, agent.Config{Prompt: "p", MaxAgentMemory: 4096, Tools: map[string]agent.Tool{"list": list}},
				agent.Options{LLM: s.Func(), Input: map[string]any{"events": rows}})
			if err != nil {
				t.Fatalf("%v", err)
			}
			if fits := step.Trace[0].Error == ""; fits != tt.fits {
				t.Errorf("turn 1 kept its names: %v, want %v (error %q)", fits, tt.fits, step.Trace[0].Error)
			}
		})
	}
}

func TestErrorRollsBackMemory(t *testing.T) {
	s := llmtest.NewScript(
		llmtest.Code(`(def a 1)`),
		llmtest.Code(`(def a 2) (def b 3) (/ 1 nil)`),
		llmtest.Code(`(return [a (memory/get :b)])`),
	)
	step, err := run(t, agent.Config{Prompt: "p"}, agent.Options{LLM: s.Func()})
	if err != nil {
		t.Fatal(err)
	}
	if printed(step.Return) != "[1 nil]" {
		t.Errorf("return %s", printed(step.Return))
	}
}

func TestNoCode(t *testing.T) {
	s := llmtest.NewScript(llmtest.Text("I think the answer is 4."), llmtest.Text("Sure:\n(return 4)\nDone."))
	step, err := run(t, agent.Config{Prompt: "p"}, agent.Options{LLM: s.Func()})
	if err != nil {
		t.Fatal(err)
	}
	if printed(step.Return) != "4" || !strings.Contains(s.LastMessage(1), "no program") {
		t.Errorf("return %v feedback %q", step.Return, s.LastMessage(1))
	}
	s = llmtest.NewScript(llmtest.Text("no code here"))
	step, _ = run(t, agent.Config{Prompt: "p", MaxTurns: 1}, agent.Options{LLM: s.Func()})
	if step.Fail == nil || step.Fail.Reason != agent.ReasonNoCodeFound {
		t.Errorf("single-shot without code: %+v", step.Fail)
	}
}

func TestSingleShotErrors(t *testing.T) {
	tests := []struct {
		code, sig, reason string
	}{
		{`(+ 1`, "", string(agent.ReasonParseError)},
		{`(foo 1)`, "", string(agent.ReasonAnalysisError)},
		{`(/ 1 nil)`, "", string(agent.ReasonEvalError)},
		{`"x"`, ":int", string(agent.ReasonValidationError)},
		{`(return "x")`, ":int", string(agent.ReasonValidationError)},
		{`(fail {:reason :nope :message "no"})`, "", "nope"},
		{`(loop [] (recur))`, "", string(agent.ReasonEvalError)},
	}
	for _, tt := range tests {
		s := llmtest.NewScript(llmtest.Code(tt.code))
		step, err := run(t, agent.Config{Prompt: "p", MaxTurns: 1, Signature: tt.sig}, agent.Options{LLM: s.Func()})
		if err == nil || string(step.Fail.Reason) != tt.reason {
			t.Errorf("%s: fail %+v, want %s", tt.code, step.Fail, tt.reason)
		}
	}
}

func TestRegistry(t *testing.T) {
	s := llmtest.NewScript(llmtest.Code("1"))
	reg := llm.Registry{"fast": s.Func()}
	tests := []struct {
		opts   agent.Options
		cfg    llm.Model
		reason string
	}{
		{agent.Options{LLM: llm.Name("fast"), Registry: reg}, nil, ""},
		{agent.Options{LLM: llm.Name("slow"), Registry: reg}, nil, string(agent.ReasonLLMNotFound)},
		{agent.Options{LLM: llm.Name("fast")}, nil, string(agent.ReasonLLMRegistryRequired)},
		{agent.Options{}, nil, string(agent.ReasonLLMRequired)},
		{agent.Options{LLM: llm.Name("slow"), Registry: reg}, llm.Name("fast"), ""}, // the agent's own wins
		{agent.Options{Registry: llm.Registry{"nil": nil}, LLM: llm.Name("nil")}, nil, string(agent.ReasonInvalidLLM)},
	}
	for i, tt := range tests {
		step, _ := run(t, agent.Config{Prompt: "p", MaxTurns: 1, LLM: tt.cfg}, tt.opts)
		got := ""
		if step.Fail != nil {
			got = string(step.Fail.Reason)
		}
		if got != tt.reason {
			t.Errorf("%d: reason %q, want %q (%v)", i, got, tt.reason, step.Fail)
		}
		s = llmtest.NewScript(llmtest.Code("1"))
		reg["fast"] = s.Func()
	}
}

func TestMissionTimeoutAndCancel(t *testing.T) {
	slow := llm.Func(func(ctx context.Context, _ llm.Request) (llm.Response, error) {
		select {
		case <-ctx.Done():
			return llm.Response{}, ctx.Err()
		case <-time.After(5 * time.Second):
			return llm.Response{Content: "(return 1)"}, nil
		}
	})
	start := time.Now()
	step, _ := run(t, agent.Config{Prompt: "p", MissionTimeout: 50 * time.Millisecond}, agent.Options{LLM: slow})
	// The kind of ending is the point; the bound only catches a mission
	// that does not stop (generous: a busy machine schedules it late).
	if step.Fail == nil || step.Fail.Reason != agent.ReasonMissionTimeout || time.Since(start) > time.Minute {
		t.Errorf("fail %+v after %v", step.Fail, time.Since(start))
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	a := agent.MustNew(agent.Config{Prompt: "p"})
	step, _ = a.Run(ctx, agent.Options{LLM: slow})
	if step.Fail == nil || step.Fail.Reason != agent.ReasonCancelled {
		t.Errorf("cancelled: %+v", step.Fail)
	}
	// A program that loops until the mission's deadline.
	s := llmtest.NewScript(llmtest.Code(`(loop [i 0] (recur (inc i)))`))
	step, _ = run(t, agent.Config{Prompt: "p", MissionTimeout: 100 * time.Millisecond,
		Limits: lisp.Limits{MaxLoopIterations: -1, MaxSteps: -1, Timeout: 10 * time.Second}}, agent.Options{LLM: s.Func()})
	if step.Fail == nil || step.Fail.Reason != agent.ReasonMissionTimeout {
		t.Errorf("program past the deadline: %+v", step.Fail)
	}
}

func TestTurnBudget(t *testing.T) {
	s := llmtest.NewScript(llmtest.Code("1"), llmtest.Code("2"), llmtest.Code("3"))
	step, _ := run(t, agent.Config{Prompt: "p", MaxTreeTurns: 2}, agent.Options{LLM: s.Func()})
	if step.Fail == nil || step.Fail.Reason != agent.ReasonTurnBudgetExhausted || s.Calls() != 2 {
		t.Errorf("fail %+v calls %d", step.Fail, s.Calls())
	}
}

func TestTokenBudget(t *testing.T) {
	reply := llmtest.Reply{Content: "```clojure\n(* 6 7)\n```", Tokens: llm.Tokens{Input: 60, Output: 40}}
	s := llmtest.NewScript(reply, reply, reply)
	step, _ := run(t, agent.Config{Prompt: "p"}, agent.Options{LLM: s.Func(), TokenLimit: 150})
	if step.Fail == nil || step.Fail.Reason != agent.ReasonBudgetExceeded || s.Calls() != 2 {
		t.Errorf("fail %+v calls %d", step.Fail, s.Calls())
	}
	s = llmtest.NewScript(reply, reply, reply)
	step, err := run(t, agent.Config{Prompt: "p"}, agent.Options{LLM: s.Func(), TokenLimit: 150,
		ReturnPartialOnBudget: true})
	if err != nil || printed(step.Return) != "42" {
		t.Errorf("partial: %v %v", step.Return, err)
	}
	s = llmtest.NewScript(reply, reply, reply)
	step, _ = run(t, agent.Config{Prompt: "p"}, agent.Options{LLM: s.Func(),
		Budget: func(u agent.Usage) bool { return u.LLMRequests < 3 }})
	if step.Fail == nil || step.Fail.Reason != agent.ReasonBudgetExceeded || step.Usage.Tokens.Total() != 300 {
		t.Errorf("budget func: %+v %+v", step.Fail, step.Usage)
	}
}

func TestTraceModesDebugAndMessages(t *testing.T) {
	script := func() *llmtest.Script { return llmtest.NewScript(llmtest.Code("1"), llmtest.Code("(return 2)")) }
	step, _ := run(t, agent.Config{Prompt: "p"}, agent.Options{LLM: script().Func(), Trace: agent.TraceOff})
	if step.Trace != nil {
		t.Error("TraceOff kept a trace")
	}
	step, _ = run(t, agent.Config{Prompt: "p"}, agent.Options{LLM: script().Func(), Trace: agent.TraceOnError})
	if step.Trace != nil {
		t.Error("TraceOnError kept the trace of a success")
	}
	step, _ = run(t, agent.Config{Prompt: "p", MaxTurns: 1}, agent.Options{LLM: llmtest.NewScript(llmtest.Code("(/ 1 nil)")).Func(), Trace: agent.TraceOnError})
	if len(step.Trace) != 1 {
		t.Error("TraceOnError lost the trace of a failure")
	}
	step, _ = run(t, agent.Config{Prompt: "p"}, agent.Options{LLM: script().Func(), Trace: agent.TraceConversation})
	if step.Trace[0].Response == "" || !strings.Contains(step.Trace[0].Feedback, "Value: 1") {
		t.Errorf("debug trace %+v", step.Trace[0])
	}
	if len(step.Messages) != 4 || step.Messages[0].Role != llm.System || step.Messages[1].Content != "p" {
		t.Errorf("messages %+v", step.Messages)
	}
	if len(step.TraceID) != 32 {
		t.Errorf("trace id %q", step.TraceID)
	}
}

func TestInputValidationAndFloatPrecision(t *testing.T) {
	s := llmtest.NewScript(llmtest.Code(`(return {:avg (/ ctx/n 3)})`))
	step, err := run(t, agent.Config{Prompt: "p {{n}}", Signature: "(n :int) -> {avg :float}"},
		agent.Options{LLM: s.Func(), Input: map[string]any{"n": "10"}})
	if err != nil {
		t.Fatal(err)
	}
	if printed(step.Return) != "{:avg 3.33}" {
		t.Errorf("return %s", printed(step.Return))
	}
	step, _ = run(t, agent.Config{Prompt: "p {{n}}", Signature: "(n :int) -> :int"},
		agent.Options{LLM: s.Func(), Input: map[string]any{"n": "ten"}})
	if step.Fail == nil || step.Fail.Reason != agent.ReasonValidationError {
		t.Errorf("bad input: %+v", step.Fail)
	}
	step, _ = run(t, agent.Config{Prompt: "p {{missing}}"}, agent.Options{LLM: s.Func()})
	if step.Fail == nil || step.Fail.Reason != agent.ReasonTemplateError {
		t.Errorf("missing placeholder: %+v", step.Fail)
	}
}

func TestDecode(t *testing.T) {
	s := llmtest.NewScript(llmtest.Code(`(return {:count 2 :names ["a" "b"]})`))
	step, err := run(t, agent.Config{Prompt: "p"}, agent.Options{LLM: s.Func()})
	if err != nil {
		t.Fatal(err)
	}
	var out struct {
		Count int      `json:"count"`
		Names []string `json:"names"`
	}
	if err := step.Decode(&out); err != nil || out.Count != 2 || len(out.Names) != 2 {
		t.Errorf("decode %+v %v", out, err)
	}
}

// TestOutputCutSaysHowMuch: output over the turn's budget is cut, and the
// feedback says where and how much there was.
func TestOutputCutSaysHowMuch(t *testing.T) {
	s := llmtest.NewScript(llmtest.Code(`(doseq [i (range 40)] (println "row" i (apply str (repeat 20 "x"))))`), llmtest.Code(`(return 1)`))
	step, err := run(t, agent.Config{Prompt: "p"}, agent.Options{LLM: s.Func(), Trace: agent.TraceConversation})
	if err != nil {
		t.Fatal(err)
	}
	fb := step.Trace[0].Feedback
	// 40 lines of 27 or 28 chars, 1,110 with the line breaks; 512 shown.
	if !strings.Contains(fb, "... (output cut at 512 of 1,109 chars, in line 19 of 40: print less, or print counts and samples)") {
		t.Errorf("feedback:\n%s", fb)
	}
}
