package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/agent/prompt"
	"github.com/ptc-go/ptc/agent/trace"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm"
	"github.com/ptc-go/ptc/llm/llmtest"
	"github.com/ptc-go/ptc/signature"
)

// routed is a scripted model for agent trees: it answers each mission by
// the start of its prompt, with the program of the mission's turn (the
// last one again when the turns run out), and records what it served.
type routed struct {
	name   string
	routes map[string][]string
	delay  time.Duration

	mu       sync.Mutex
	requests []llm.Request
}

func (r *routed) Func() llm.Func {
	return func(ctx context.Context, req llm.Request) (llm.Response, error) {
		r.mu.Lock()
		r.requests = append(r.requests, req)
		r.mu.Unlock()
		if r.delay > 0 {
			select {
			case <-time.After(r.delay):
			case <-ctx.Done():
				return llm.Response{}, ctx.Err()
			}
		}
		for prefix, programs := range r.routes {
			if strings.HasPrefix(req.Prompt, prefix) {
				p := programs[min(req.Turn, len(programs))-1]
				return llm.Response{Content: "```clojure\n" + p + "\n```", Tokens: llm.Tokens{Input: 10, Output: 5}}, nil
			}
		}
		return llm.Response{}, fmt.Errorf("%s: no route for prompt %q", r.name, req.Prompt)
	}
}

// served returns the mission prompts the model answered, sorted, once each.
func (r *routed) served() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, req := range r.requests {
		if !slices.Contains(out, req.Prompt) {
			out = append(out, req.Prompt)
		}
	}
	slices.Sort(out)
	return out
}

func (r *routed) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.requests)
}

// lastFeedback returns the last message of the last request for a prompt.
func (r *routed) lastFeedback(prefix string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := len(r.requests) - 1; i >= 0; i-- {
		if req := r.requests[i]; strings.HasPrefix(req.Prompt, prefix) {
			return req.Messages[len(req.Messages)-1].Content
		}
	}
	return ""
}

// toolOf(t)(a.AsTool(...)) is the tool, the test failing on an error.
func toolOf(t *testing.T) func(agent.Tool, error) agent.Tool {
	return func(tool agent.Tool, err error) agent.Tool {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return tool
	}
}

// TestLLMInheritance checks seed 001's order over three levels: the agent's
// own Config.LLM, then the tool's bound LLM, then the caller's model, with
// the registry given once at the top.
func TestLLMInheritance(t *testing.T) {
	models := map[string]*routed{}
	registry := llm.Registry{}
	for _, name := range []string{"sonnet", "haiku", "opus"} {
		r := &routed{name: name, routes: map[string][]string{
			"Analyze":  {`(return {:c (tool/classifier {:x 1}) :s (tool/scorer {:x 2}) :e (tool/expert {:x 3})})`},
			"Classify": {`(return "classified")`},
			"Score":    {`(return "scored")`},
			"Expert":   {`(return "expert")`},
			"Top":      {`(return (tool/analyzer {}))`},
		}}
		models[name], registry[name] = r, r.Func()
	}
	leaf := func(prompt string, own llm.Model) *agent.Agent {
		return agent.MustNew(agent.Config{Prompt: prompt, Signature: "(x :int) -> :string", Description: prompt, LLM: own})
	}
	classifier, scorer := leaf("Classify", nil), leaf("Score", nil)
	expert := leaf("Expert", llm.Name("opus"))
	analyzer := agent.MustNew(agent.Config{Prompt: "Analyze", Description: "Analyzes.", Tools: map[string]agent.Tool{
		"classifier": toolOf(t)(classifier.AsTool(agent.AsToolOptions{LLM: llm.Name("haiku")})), // bound
		"scorer":     toolOf(t)(scorer.AsTool(agent.AsToolOptions{})),                           // inherits
		"expert":     toolOf(t)(expert.AsTool(agent.AsToolOptions{LLM: llm.Name("haiku")})),     // own wins
	}})
	top := agent.MustNew(agent.Config{Prompt: "Top", Tools: map[string]agent.Tool{
		"analyzer": toolOf(t)(analyzer.AsTool(agent.AsToolOptions{})),
	}})
	step, err := top.Run(context.Background(), agent.Options{LLM: llm.Name("sonnet"), Registry: registry})
	if err != nil {
		t.Fatal(err)
	}
	if got := printed(step.Return); got != `{:c "classified", :e "expert", :s "scored"}` {
		t.Errorf("return %s", got)
	}
	want := map[string][]string{"sonnet": {"Analyze", "Score", "Top"}, "haiku": {"Classify"}, "opus": {"Expert"}}
	for name, prompts := range want {
		if got := models[name].served(); !slices.Equal(got, prompts) {
			t.Errorf("%s served %v, want %v", name, got, prompts)
		}
	}
	// Usage: each Step its own, and the subtree's in TotalUsage.
	if step.Usage.LLMRequests != 1 || step.TotalUsage.LLMRequests != 5 || step.TotalUsage.Turns != 5 {
		t.Errorf("usage %+v, total %+v", step.Usage, step.TotalUsage)
	}
	an := step.Trace[0].ToolCalls[0].Child
	if an == nil || an.TraceID == "" || an.TraceID == step.TraceID || an.TotalUsage.LLMRequests != 4 || len(an.Trace[0].ToolCalls) != 3 {
		t.Fatalf("analyzer step %+v", an)
	}
	if g := an.Trace[0].ToolCalls[0].Child; g.TraceID == "" || g.TraceID == an.TraceID {
		t.Errorf("trace ids: grandchild %s, child %s", g.TraceID, an.TraceID)
	}

	// A bound name the registry lacks fails the child with the seeds'
	// reason, and the caller's program sees it as a tool error.
	lost := agent.MustNew(agent.Config{Prompt: "Top", Tools: map[string]agent.Tool{
		"analyzer": toolOf(t)(classifier.AsTool(agent.AsToolOptions{LLM: llm.Name("gpt-9")})),
	}})
	models["sonnet"].routes["Top"] = []string{`(tool/analyzer {:x 1})`, `(return (:reason ctx/fail))`}
	step, _ = lost.Run(context.Background(), agent.Options{LLM: llm.Name("sonnet"), Registry: registry})
	if printed(step.Return) != ":tool_error" {
		t.Fatalf("return %s, fail %+v", printed(step.Return), step.Fail)
	}
	if c := step.Trace[0].ToolCalls[0].Child; c == nil || c.Fail.Reason != agent.ReasonLLMNotFound {
		t.Errorf("child %+v", c)
	}
}

// TestDepthFromRoot: depth counts from the root, and the smallest MaxDepth
// above an agent wins, whatever the agent itself allows.
func TestDepthFromRoot(t *testing.T) {
	model := &routed{routes: map[string][]string{
		"Root":       {`(tool/child {})`, `(return ctx/fail)`},
		"Child":      {`(return (tool/grandchild {}))`},
		"Grandchild": {`(return 1)`},
	}}
	grandchild := agent.MustNew(agent.Config{Prompt: "Grandchild", Description: "Leaf."})
	child := agent.MustNew(agent.Config{Prompt: "Child", Description: "Middle.", MaxNesting: 10, MaxTurns: 1,
		Tools: map[string]agent.Tool{"grandchild": toolOf(t)(grandchild.AsTool(agent.AsToolOptions{}))}})
	root := agent.MustNew(agent.Config{Prompt: "Root", MaxNesting: 2,
		Tools: map[string]agent.Tool{"child": toolOf(t)(child.AsTool(agent.AsToolOptions{}))}})
	step, err := root.Run(context.Background(), agent.Options{LLM: model.Func()})
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(model.served(), "Grandchild") {
		t.Error("the grandchild ran past the root's MaxDepth 2")
	}
	c := step.Trace[0].ToolCalls[0].Child
	if c == nil || c.Fail == nil {
		t.Fatalf("child %+v", c)
	}
	g := c.Trace[0].ToolCalls[0].Child
	if g == nil || g.Fail.Reason != agent.ReasonMaxDepthExceeded || !strings.Contains(g.Fail.Message, "level 3") {
		t.Fatalf("grandchild %+v", g)
	}
	// The root's next program read the failure, child reason included.
	got := printed(step.Return)
	for _, want := range []string{":reason :tool_error", ":child {:message", ":reason :tool_error"} {
		if !strings.Contains(got, want) {
			t.Errorf("ctx/fail %s lacks %s", got, want)
		}
	}
}

// TestSharedTurnBudget: one budget for the tree, quoted as the root's, and
// a root whose child used it up ends with turn_budget_exhausted.
func TestSharedTurnBudget(t *testing.T) {
	model := &routed{routes: map[string][]string{
		"Root":   {`(tool/child {})`},
		"Worker": {`(+ 1 1)`},
	}}
	child := agent.MustNew(agent.Config{Prompt: "Worker", Description: "Works.", MaxTurns: 10, MaxTreeTurns: 100})
	root := agent.MustNew(agent.Config{Prompt: "Root", MaxTreeTurns: 4,
		Tools: map[string]agent.Tool{"child": toolOf(t)(child.AsTool(agent.AsToolOptions{}))}})
	step, err := root.Run(context.Background(), agent.Options{LLM: model.Func()})
	if err == nil || step.Fail.Reason != agent.ReasonTurnBudgetExhausted {
		t.Fatalf("fail %+v", step.Fail)
	}
	if !strings.Contains(step.Fail.Message, "budget of 4 turns") {
		t.Errorf("message %q", step.Fail.Message)
	}
	if n := model.count(); n != 4 {
		t.Errorf("%d LLM calls in a tree with a budget of 4 turns", n)
	}
	c := step.Trace[0].ToolCalls[0].Child
	if c.Fail.Reason != agent.ReasonTurnBudgetExhausted || !strings.Contains(c.Fail.Message, "root agent's MaxTreeTurns") ||
		!strings.Contains(c.Fail.Message, "4 turns") {
		t.Errorf("child fail %+v", c.Fail)
	}
	if step.TotalUsage.Turns != 4 {
		t.Errorf("total turns %d", step.TotalUsage.Turns)
	}
}

// TestChildOutlivesProgramTimeout: a child mission is bounded by its own
// limits and the root's MissionTimeout, not by its caller's per-program
// timeout, whose clock stands still while the program waits.
func TestChildOutlivesProgramTimeout(t *testing.T) {
	// Each child takes more than the root's program timeout, which leaves
	// the program's own work, tiny, plenty of room on a busy machine.
	slow := &routed{delay: 700 * time.Millisecond, routes: map[string][]string{"Slow": {`(return 42)`}}}
	child := agent.MustNew(agent.Config{Prompt: "Slow", Description: "Takes its time.", LLM: slow.Func(), LLMTimeout: time.Minute})
	fast := &routed{routes: map[string][]string{"Root": {`(return (+ (tool/slow {}) (tool/slow {})))`}}}
	root := agent.MustNew(agent.Config{Prompt: "Root", Limits: lisp.Limits{Timeout: 300 * time.Millisecond}, LLMTimeout: time.Minute,
		Tools: map[string]agent.Tool{"slow": toolOf(t)(child.AsTool(agent.AsToolOptions{}))}})
	step, err := root.Run(context.Background(), agent.Options{LLM: fast.Func()})
	if err != nil {
		t.Fatalf("the program's 300ms timeout killed its children: %v", err)
	}
	if printed(step.Return) != "84" {
		t.Errorf("return %s", printed(step.Return))
	}

	// The root's MissionTimeout does bound them.
	timed := agent.MustNew(agent.Config{Prompt: "Root", MissionTimeout: 100 * time.Millisecond,
		Tools: map[string]agent.Tool{"slow": toolOf(t)(child.AsTool(agent.AsToolOptions{}))}})
	step, _ = timed.Run(context.Background(), agent.Options{LLM: fast.Func()})
	if step.Fail == nil || step.Fail.Reason != agent.ReasonMissionTimeout {
		t.Fatalf("fail %+v", step.Fail)
	}
	// (The children end with the same deadline; the trace may not wait for
	// them, as a run does not wait for a tool it abandoned.)
}

// TestAgentToolFanOut: pmap over an agent tool runs the children at once,
// each with its own trace, the budget shared.
func TestAgentToolFanOut(t *testing.T) {
	together := newMeeting(2)
	child := agent.MustNew(agent.Config{Prompt: "Square {{n}}", Signature: "(n :int) -> :int", Description: "Squares n."})
	model := &routed{routes: map[string][]string{
		"Root":   {`(return (pmap #(tool/square {:n %}) [1 2 3 4 5]))`},
		"Square": {`(return (* ctx/n ctx/n))`},
	}}
	inner := model.Func()
	gauge := llm.Func(func(ctx context.Context, req llm.Request) (llm.Response, error) {
		if strings.HasPrefix(req.Prompt, "Square") {
			defer together.enter()()
		}
		return inner(ctx, req)
	})
	root := agent.MustNew(agent.Config{Prompt: "Root", MaxTreeTurns: 6,
		Tools: map[string]agent.Tool{"square": toolOf(t)(child.AsTool(agent.AsToolOptions{}))}})
	step, err := root.Run(context.Background(), agent.Options{LLM: gauge})
	if err != nil {
		t.Fatal(err)
	}
	if printed(step.Return) != "[1 4 9 16 25]" {
		t.Errorf("return %s", printed(step.Return))
	}
	if p := together.maxAtOnce(); p < 2 {
		t.Errorf("the children ran one at a time (peak %d)", p)
	}
	calls := step.Trace[0].ToolCalls
	ids := map[string]bool{}
	for _, c := range calls {
		if c.Child == nil || c.Child.TraceID == step.TraceID || len(c.Child.Trace) != 1 {
			t.Fatalf("call %+v", c)
		}
		ids[c.Child.TraceID] = true
	}
	if len(calls) != 5 || len(ids) != 5 {
		t.Errorf("%d calls, %d trace ids", len(calls), len(ids))
	}
	// Budget 6: the root's turn and five children; a sixth child fails.
	model.routes["Root"] = []string{`(return (pmap #(tool/square {:n %}) [1 2 3 4 5 6]))`}
	step, _ = root.Run(context.Background(), agent.Options{LLM: model.Func()})
	if step.Fail == nil || step.Fail.Reason != agent.ReasonTurnBudgetExhausted {
		t.Errorf("fail %+v", step.Fail)
	}
}

// TestCompiledAgent walks compile → execute → validate → save → load → use
// as a tool.
func TestCompiledAgent(t *testing.T) {
	var lookups atomic.Int32
	tools := map[string]agent.Tool{"threshold": {Func: func(_ context.Context, args *lisp.Map) (any, error) {
		lookups.Add(1)
		kind, _ := args.Get(lisp.Keyword("kind"))
		if kind == "cpu" {
			return 0.8, nil
		}
		return 0.5, nil
	}, Signature: "(kind :string) -> :float", Description: "The alert threshold of a metric kind."}}
	scorer := agent.MustNew(agent.Config{
		Prompt:      "Score the report {{report}}",
		Signature:   "(report {kind :string, value :float}) -> {alert :bool, margin :float}",
		Description: "Scores a metric report.",
		Tools:       tools,
	})
	model := &routed{routes: map[string][]string{"Score": {
		// Turn 1 explores; turn 2 returns from a def of turn 1, which a
		// compiled program cannot have; turn 3 does the whole work.
		`(def t (tool/threshold {:kind (:kind ctx/report)})) t`,
		`(return {:alert (> (:value ctx/report) t) :margin (- (:value ctx/report) t)})`,
		`(let [r ctx/report
       t (tool/threshold {:kind (:kind r)})]
  (if (= (:kind r) "broken")
    (return {:alert "yes"})
    (return {:alert (> (:value r) t) :margin (- (:value r) t)})))`,
	}}}
	sample := map[string]any{"report": map[string]any{"kind": "cpu", "value": 0.9}}
	compiled, err := scorer.Compile(context.Background(), agent.Options{LLM: llm.Name("m"),
		Registry: llm.Registry{"m": model.Func()}, Input: sample})
	if err != nil {
		t.Fatal(err)
	}
	if fb := model.lastFeedback("Score"); !strings.Contains(fb, "reads t, defined in an earlier turn") {
		t.Errorf("the dependent program was not refused: %q", fb)
	}
	if sys := model.requests[0].System; !strings.Contains(sys, "## Compilation") {
		t.Error("the compiling model was not told its program is kept")
	}
	cs := compiled.CompileStep()
	if compiled.CompiledBy() != "m" || cs.Usage.Turns != 3 || cs.Usage.LLMRequests != 3 || cs.Usage.Tokens.Total() != 45 ||
		compiled.CompiledAt().IsZero() || len(cs.Trace) != 3 || cs.TraceID == "" {
		t.Errorf("compiled by %q at %v, step %+v", compiled.CompiledBy(), compiled.CompiledAt(), cs)
	}
	if !strings.Contains(compiled.Source(), "(let [r ctx/report") {
		t.Errorf("source %q", compiled.Source())
	}

	calls := model.count()
	step, err := compiled.Execute(context.Background(), map[string]any{"report": map[string]any{"kind": "disk", "value": "0.7"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := printed(step.Return); got != "{:alert true, :margin 0.2}" {
		t.Errorf("execute: %s", got)
	}
	if step.Usage.LLMRequests != 0 || len(step.Trace) != 1 || len(step.Trace[0].ToolCalls) != 1 || model.count() != calls {
		t.Errorf("execution step %+v", step)
	}
	if len(step.Warnings) != 1 || !strings.Contains(step.Warnings[0], "coerced") {
		t.Errorf("warnings %v", step.Warnings)
	}
	// A result that breaks the signature is an error, never a value.
	step, err = compiled.Execute(context.Background(), map[string]any{"report": map[string]any{"kind": "broken", "value": 1}})
	if err == nil || step.Fail.Reason != agent.ReasonValidationError || step.Return != nil {
		t.Errorf("broken output: %+v", step.Fail)
	}
	// So is an input that breaks it.
	if step, err = compiled.Execute(context.Background(), map[string]any{"report": 5}); err == nil || step.Fail.Reason != agent.ReasonValidationError {
		t.Errorf("bad input: %+v", step.Fail)
	}

	// Concurrent executions.
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			step, err := compiled.Execute(context.Background(), map[string]any{"report": map[string]any{"kind": "cpu", "value": float64(i) / 10}})
			if err == nil && printed(step.Return) != fmt.Sprintf("{:alert %v, :margin %v}", float64(i)/10 > 0.8, printed(roundTo2(float64(i)/10-0.8))) {
				err = fmt.Errorf("execution %d: %s", i, printed(step.Return))
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}

	// Save, load, and call from another agent.
	data, err := json.Marshal(compiled)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := agent.LoadCompiled(data, nil); err == nil || !strings.Contains(err.Error(), "needs tool threshold") {
		t.Errorf("load without its tools: %v", err)
	}
	loaded, err := agent.LoadCompiled(data, tools)
	if err != nil {
		t.Fatal(err)
	}
	if loaded.Source() != compiled.Source() || loaded.CompiledBy() != "m" || !loaded.CompiledAt().Equal(compiled.CompiledAt()) ||
		loaded.Signature().String() != compiled.Signature().String() {
		t.Errorf("loaded %q by %q at %v", loaded.Source(), loaded.CompiledBy(), loaded.CompiledAt())
	}
	// A loaded agent keeps a summary of the compiling mission: its trace id
	// and usage, no trace.
	ls := loaded.CompileStep()
	if got, want := ls.Usage, cs.Usage; got.Turns != want.Turns ||
		got.LLMRequests != want.LLMRequests || got.Tokens != want.Tokens || got.Duration != want.Duration.Truncate(time.Millisecond) ||
		ls.TraceID != cs.TraceID || ls.Trace != nil {
		t.Errorf("loaded compile step %+v, compiled %+v", ls, cs)
	}
	tampered := strings.Replace(string(data), `(let [r ctx/report`, `(let [r memory/report`, 1)
	if _, err := agent.LoadCompiled([]byte(tampered), tools); err == nil || !strings.Contains(err.Error(), "not self-contained") {
		t.Errorf("load of a dependent program: %v", err)
	}
	parentModel := &routed{routes: map[string][]string{"Check": {`(return (mapv #(:alert (tool/score {:report %})) ctx/reports))`}}}
	parent := agent.MustNew(agent.Config{Prompt: "Check the reports", Tools: map[string]agent.Tool{
		"score": toolOf(t)(loaded.AsTool(agent.AsToolOptions{})),
	}})
	step, err = parent.Run(context.Background(), agent.Options{LLM: parentModel.Func(), Input: map[string]any{
		"reports": []any{map[string]any{"kind": "cpu", "value": 0.95}, map[string]any{"kind": "cpu", "value": 0.1}}}})
	if err != nil {
		t.Fatal(err)
	}
	if printed(step.Return) != "[true false]" || parentModel.count() != 1 {
		t.Errorf("return %s", printed(step.Return))
	}
	if c := step.Trace[0].ToolCalls[0].Child; c == nil || c.Usage.LLMRequests != 0 || c.Trace[0].Program != loaded.Source() {
		t.Errorf("compiled call trace %+v", c)
	}
}

func roundTo2(f float64) float64 {
	v, _ := lisp.Run(context.Background(), fmt.Sprintf("(/ (Math/round (* %v 100.0)) 100.0)", f), lisp.Options{})
	return v.Value.(float64)
}

// TestPureToolsRule: an agent whose tools call LLMs cannot compile.
func TestPureToolsRule(t *testing.T) {
	judge := toolOf(t)(agent.NewLLMTool(agent.Config{Prompt: "Judge {{x}}", Signature: "(x :string) -> :bool", Description: "Judges."}, agent.AsToolOptions{}))
	helper := toolOf(t)(agent.MustNew(agent.Config{Prompt: "Help", Description: "Helps."}).AsTool(agent.AsToolOptions{}))
	for name, tool := range map[string]agent.Tool{"judge": judge, "helper": helper} {
		a := agent.MustNew(agent.Config{Prompt: "Work", Tools: map[string]agent.Tool{name: tool}})
		model := &routed{routes: map[string][]string{"Work": {`(return 1)`}}}
		_, err := a.Compile(context.Background(), agent.Options{LLM: model.Func()})
		if !errors.Is(err, agent.ReasonNotCompilable) || !strings.Contains(err.Error(), "tool "+name) {
			t.Errorf("%s: %v", name, err)
		}
		if model.count() != 0 {
			t.Errorf("%s: the LLM was called", name)
		}
	}
}

// TestLLMTool: one LLM call per call, validated, retried with the problem
// fed back, on the caller's model by default.
func TestLLMTool(t *testing.T) {
	classify := toolOf(t)(agent.NewLLMTool(agent.Config{
		Prompt:      "Classify this email: {{text}}",
		Signature:   "(text :string) -> {urgent :bool, reason :string}",
		Description: "Says whether an email is urgent.",
	}, agent.AsToolOptions{}))
	var mu sync.Mutex
	attempts := map[string]int{}
	model := llm.Func(func(_ context.Context, req llm.Request) (llm.Response, error) {
		code := func(p string) (llm.Response, error) { return llm.Response{Content: "```clojure\n" + p + "\n```"}, nil }
		if strings.HasPrefix(req.Prompt, "Triage") {
			return code(`(return (pmap #(tool/classify {:text (:body %)}) ctx/emails))`)
		}
		mu.Lock()
		attempts[req.Prompt]++
		n := attempts[req.Prompt]
		mu.Unlock()
		if strings.Contains(req.Prompt, "server down") {
			if n == 1 {
				return code(`{:urgent "very"}`) // breaks the signature: retried
			}
			return code(`{:urgent true :reason "outage"}`)
		}
		return code(`{:urgent false :reason "newsletter"}`)
	})
	root := agent.MustNew(agent.Config{Prompt: "Triage", Tools: map[string]agent.Tool{"classify": classify}})
	step, err := root.Run(context.Background(), agent.Options{LLM: model, Input: map[string]any{"emails": []any{
		map[string]any{"body": "server down"}, map[string]any{"body": "weekly digest"}}}})
	if err != nil {
		t.Fatal(err)
	}
	if got := printed(step.Return); got != `[{:reason "outage", :urgent true} {:reason "newsletter", :urgent false}]` {
		t.Errorf("return %s", got)
	}
	var first *agent.Step
	for _, c := range step.Trace[0].ToolCalls {
		if v, _ := c.Args.Get(lisp.Keyword("text")); v == "server down" {
			first = c.Child
		}
	}
	if first == nil || first.Usage.Turns != 2 || !strings.Contains(first.Trace[0].Error, "does not match the signature") {
		t.Errorf("retried call %+v", first.Trace)
	}
	if step.TotalUsage.LLMRequests != 4 {
		t.Errorf("total usage %+v", step.TotalUsage)
	}

	// Without retries, the broken answer fails the call.
	strict := toolOf(t)(agent.NewLLMTool(agent.Config{
		Prompt:      "Classify this email: {{text}}",
		Signature:   "(text :string) -> {urgent :bool, reason :string}",
		Description: "Says whether an email is urgent.",
		MaxTurns:    1,
	}, agent.AsToolOptions{}))
	attempts = map[string]int{}
	root = agent.MustNew(agent.Config{Prompt: "Triage", MaxTurns: 1, Tools: map[string]agent.Tool{"classify": strict}})
	step, _ = root.Run(context.Background(), agent.Options{LLM: model, Input: map[string]any{"emails": []any{map[string]any{"body": "server down"}}}})
	if c := step.Trace[0].ToolCalls[0].Child; c.Fail == nil || c.Fail.Reason != agent.ReasonValidationError || c.Usage.Turns != 1 {
		t.Errorf("child %+v", c.Fail)
	}
	if !strings.Contains(step.Trace[0].Error, "tool classify failed: agent: validation_error") {
		t.Errorf("turn error %q", step.Trace[0].Error)
	}
	for _, bad := range []agent.Config{
		{Prompt: "x {{y}}", Signature: "(z :int) -> :string", Description: "d"},
		{Prompt: "x", Description: "d"},
	} {
		if _, err := agent.NewLLMTool(bad, agent.AsToolOptions{}); err == nil {
			t.Errorf("NewLLMTool(%+v) accepted", bad)
		}
	}
}

// TestPipeline: each Step is the next agent's context; a failure stops the
// pipeline with chained_failure and calls no more LLMs.
func TestPipeline(t *testing.T) {
	model := &routed{routes: map[string][]string{
		"Find":  {`(return {:ids [1 2 3]})`},
		"Draft": {`(return {:drafts (count ctx/ids)})`},
		"Send":  {`(return "sent")`},
	}}
	find := agent.MustNew(agent.Config{Prompt: "Find", Signature: "{ids [:int]}"})
	draft := agent.MustNew(agent.Config{Prompt: "Draft", Signature: "(ids [:int]) -> {drafts :int}"})
	send := agent.MustNew(agent.Config{Prompt: "Send", Signature: ":string"})
	steps, err := agent.Pipeline{find, draft, send}.Run(context.Background(), agent.Options{LLM: model.Func()})
	if err != nil || len(steps) != 3 || printed(steps[1].Return) != "{:drafts 3}" || printed(steps[2].Return) != `"sent"` {
		t.Fatalf("steps %v, err %v", steps, err)
	}
	model.routes["Draft"] = []string{`(fail {:reason :no_data :message "nothing to draft"})`}
	before := model.count()
	steps, err = agent.Pipeline{find, draft, send}.Run(context.Background(), agent.Options{LLM: model.Func()})
	var fail *agent.Fail
	if !errors.As(err, &fail) || fail.Reason != agent.ReasonChainedFailure || len(steps) != 3 {
		t.Fatalf("err %v, %d steps", err, len(steps))
	}
	if up, _ := fail.Details["upstream"].(*agent.Fail); up == nil || up.Reason != "no_data" || !up.ByProgram {
		t.Errorf("upstream %+v", fail.Details)
	}
	if model.count() != before+2 {
		t.Errorf("%d LLM calls, want 2 (send must not run)", model.count()-before)
	}
	step, err := agent.Then(context.Background(), steps[1], send, agent.Options{}) // no LLM needed to fail
	if err == nil || step.Fail.Reason != agent.ReasonChainedFailure {
		t.Errorf("then: %+v", step.Fail)
	}
}

// TestResultBounds: the caller's LLM sees a child's result within the
// child's ResultLimit and ResultMaxChars, firewalled fields hidden; its
// programs get all of it.
func TestResultBounds(t *testing.T) {
	child := agent.MustNew(agent.Config{Prompt: "List", Description: "Lists.", Presentation: prompt.Options{ResultLimit: 3}})
	model := &routed{routes: map[string][]string{
		"List": {`(return (vec (range 20)))`},
		"Root": {`(tool/list {})`, `(return (count *1))`},
	}}
	root := agent.MustNew(agent.Config{Prompt: "Root", Tools: map[string]agent.Tool{"list": toolOf(t)(child.AsTool(agent.AsToolOptions{}))}})
	step, err := root.Run(context.Background(), agent.Options{LLM: model.Func()})
	if err != nil {
		t.Fatal(err)
	}
	fb := model.lastFeedback("Root")
	if !strings.Contains(fb, "Value: [0 1 2 ...") || strings.Contains(fb, " 3 4") {
		t.Errorf("feedback %q", fb)
	}
	if printed(step.Return) != "20" {
		t.Errorf("return %s", printed(step.Return))
	}
}

// TestAsToolSchemaAndErrors: the caller's LLM sees the child's contract
// without its firewalled fields, and an agent tool needs a description.
func TestAsToolSchemaAndErrors(t *testing.T) {
	child := agent.MustNew(agent.Config{Prompt: "Find {{name}}", Signature: "(name :string) -> {id :int, _token :string}"})
	if _, err := child.AsTool(agent.AsToolOptions{}); err == nil || !strings.Contains(err.Error(), "description") {
		t.Errorf("no description: %v", err)
	}
	tool := toolOf(t)(child.AsTool(agent.AsToolOptions{Description: "Finds a customer."}))
	if _, err := child.AsTool(agent.AsToolOptions{Description: "x", Signature: "(("}); err == nil {
		t.Error("a broken signature was accepted")
	}
	root := agent.MustNew(agent.Config{Prompt: "Root", Tools: map[string]agent.Tool{"find": tool}})
	schemas := root.ToolSchemas()
	if len(schemas) != 1 || schemas[0].Signature != "(name :string) -> {id :int}" || schemas[0].Description != "Finds a customer." {
		t.Errorf("schemas %+v", schemas)
	}
	p, err := root.Preview(agent.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(p.System, "; hidden from you: _token") || !strings.Contains(p.System, "(tool/find {:name ...}) ; Finds a customer.") {
		t.Errorf("tools section:\n%s", p.System)
	}
	// Arguments are checked against the child's parameters before it runs.
	model := &routed{routes: map[string][]string{"Root": {`(tool/find {:name 5})`, `(return (tool/find "ann"))`}, "Find": {`(return {:id 1 :_token "t"})`}}}
	step, err := root.Run(context.Background(), agent.Options{LLM: model.Func()})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(step.Trace[0].Error, "name") || step.Trace[0].ToolCalls[0].Child != nil {
		t.Errorf("turn 1: %q %+v", step.Trace[0].Error, step.Trace[0].ToolCalls)
	}
	if printed(step.Return) != `{:_token "t", :id 1}` {
		t.Errorf("return %s", printed(step.Return))
	}
}

// TestLLMTimeout: Config.LLMTimeout bounds each attempt and a timeout is
// retried; without one, a reply slower than the turn's Limits.Timeout
// (which bounds programs, not the model) is waited for, as a real model's
// must be (docs/agents.md, "Models").
func TestLLMTimeout(t *testing.T) {
	slow := &routed{delay: 2 * time.Second, routes: map[string][]string{"Q": {`(return 1)`}}}
	a := agent.MustNew(agent.Config{Prompt: "Q", LLMTimeout: 50 * time.Millisecond,
		LLMRetry: llm.RetryPolicy{MaxAttempts: 2, BaseDelay: time.Millisecond}})
	step, err := a.Run(context.Background(), agent.Options{LLM: slow.Func()})
	if err == nil || step.Fail.Reason != agent.ReasonLLMError || step.Fail.Details["class"] != string(llm.ClassTimeout) {
		t.Fatalf("fail %+v", step.Fail)
	}
	if step.Usage.LLMRequests != 2 || slow.count() != 2 || !strings.Contains(step.Fail.Message, "50ms") {
		t.Errorf("requests %d, message %q", step.Usage.LLMRequests, step.Fail.Message)
	}
	// A zero Config: the reply takes twelve times the turn's timeout and
	// the mission waits for it.
	for _, cfg := range []agent.Config{
		{Prompt: "Q", Limits: lisp.Limits{Timeout: 50 * time.Millisecond}},
		{Prompt: "Q", Limits: lisp.Limits{Timeout: 50 * time.Millisecond}, LLMTimeout: -1},
	} {
		slower := &routed{delay: 600 * time.Millisecond, routes: slow.routes}
		step, err := agent.MustNew(cfg).Run(context.Background(), agent.Options{LLM: slower.Func()})
		if err != nil || step.Return != int64(1) || slower.count() != 1 {
			t.Errorf("LLMTimeout %v: %v, return %v after %d requests", cfg.LLMTimeout, err, step.Return, slower.count())
		}
	}
	// The mission still bounds a call that never ends.
	stuck := &routed{delay: time.Hour, routes: slow.routes}
	step, _ = agent.MustNew(agent.Config{Prompt: "Q", MissionTimeout: 100 * time.Millisecond}).
		Run(context.Background(), agent.Options{LLM: stuck.Func()})
	if step.Fail == nil || step.Fail.Reason != agent.ReasonMissionTimeout {
		t.Errorf("a call that never ends: %+v, want mission_timeout", step.Fail)
	}
}

// TestValidationModes: WarnOnly keeps its warnings in the Step; Strict
// wants every tool to have a signature.
func TestValidationModes(t *testing.T) {
	model := &routed{routes: map[string][]string{"Count": {`(return {:count "many"})`}}}
	a := agent.MustNew(agent.Config{Prompt: "Count {{n}}", Signature: "(n :int) -> {count :int}"})
	step, err := a.Run(context.Background(), agent.Options{LLM: model.Func(), Validation: signature.WarnOnly,
		Input: map[string]any{"n": "3"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(step.Warnings) != 2 || !strings.HasPrefix(step.Warnings[0], "input: n") || !strings.HasPrefix(step.Warnings[1], "return: count") {
		t.Errorf("warnings %q", step.Warnings)
	}
	b := agent.MustNew(agent.Config{Prompt: "Count", Tools: map[string]agent.Tool{"raw": agent.Tool{Func: nop}}})
	step, _ = b.Run(context.Background(), agent.Options{LLM: model.Func(), Validation: signature.Strict})
	if step.Fail == nil || step.Fail.Reason != agent.ReasonValidationError || step.Fail.Op != "raw" || model.count() != 1 {
		t.Errorf("strict: %+v", step.Fail)
	}
}

// TestReturnPartialOnBudget: the partial value must match the signature.
func TestReturnPartialOnBudget(t *testing.T) {
	for _, tc := range []struct {
		program, want string
	}{
		{`{:count 3}`, "{:count 3}"},
		{`{:count "three"}`, string(agent.ReasonBudgetExceeded)},
	} {
		model := &routed{routes: map[string][]string{"Count": {tc.program, `(+ 1 1)`}}}
		a := agent.MustNew(agent.Config{Prompt: "Count", Signature: "{count :int}", KeepMaps: true})
		step, _ := a.Run(context.Background(), agent.Options{LLM: model.Func(), ReturnPartialOnBudget: true,
			Budget: func(u agent.Usage) bool { return u.Turns < 2 }})
		got := printed(step.Return)
		if step.Fail != nil {
			got = string(step.Fail.Reason)
		}
		if got != tc.want {
			t.Errorf("%s: got %s (%+v)", tc.program, got, step.Fail)
		}
	}
	if agent.ReasonBudgetExceeded != "budget_callback_exceeded" {
		t.Errorf("reason %s", agent.ReasonBudgetExceeded)
	}
}

// TestFailContextAndOrigin: ctx/fail describes a rejected return; unknown
// tools have one name; a program's own :timeout is marked as the program's.
func TestFailContextAndOrigin(t *testing.T) {
	model := &routed{routes: map[string][]string{"Go": {
		`(return {:count "x"})`,
		`(def f1 ctx/fail) 1`,
		`(tool/nope {})`,
		`(def f2 ctx/fail) (fail {:reason :timeout :message "gave up"})`,
	}}}
	a := agent.MustNew(agent.Config{Prompt: "Go", Signature: "{count :int}"})
	step, _ := a.Run(context.Background(), agent.Options{LLM: model.Func()})
	if step.Fail == nil || step.Fail.Reason != "timeout" || !step.Fail.ByProgram {
		t.Fatalf("fail %+v", step.Fail)
	}
	f1, _ := step.Memory.Get("f1")
	if got := printed(f1); !strings.Contains(got, ":reason :validation_error") || !strings.Contains(got, "count") {
		t.Errorf("ctx/fail after a rejected return: %s", got)
	}
	f2, _ := step.Memory.Get("f2")
	if got := printed(f2); !strings.Contains(got, ":reason :unknown_tool") {
		t.Errorf("ctx/fail after an unknown tool: %s", got)
	}
	// The runtime's own timeout is not the program's.
	model.routes["Go"] = []string{`(loop [i 0] (if (< i 1000000000000) (recur (inc i)) i))`}
	single := agent.MustNew(agent.Config{Prompt: "Go", MaxTurns: 1, LLMTimeout: time.Minute, // the LLM call is not the point
		Limits: lisp.Limits{Timeout: 20 * time.Millisecond, MaxSteps: -1, MaxLoopIterations: -1}})
	step, _ = single.Run(context.Background(), agent.Options{LLM: model.Func()})
	if step.Fail == nil || step.Fail.Reason != agent.ReasonTimeout || step.Fail.ByProgram {
		t.Errorf("runtime timeout %+v", step.Fail)
	}
}

// TestNestedTracePrinting: trace.Print shows a child's turns inside the
// caller's tool call, and trace.Options.NoChildren leaves them out.
func TestNestedTracePrinting(t *testing.T) {
	child := agent.MustNew(agent.Config{Prompt: "Inner", Description: "Inner work."})
	model := &routed{routes: map[string][]string{
		"Outer": {`(return (tool/inner {}))`},
		"Inner": {`(println "inside") (return 5)`},
	}}
	root := agent.MustNew(agent.Config{Prompt: "Outer", Tools: map[string]agent.Tool{"inner": toolOf(t)(child.AsTool(agent.AsToolOptions{}))}})
	step, err := root.Run(context.Background(), agent.Options{LLM: model.Func()})
	if err != nil {
		t.Fatal(err)
	}
	var full, flat strings.Builder
	if err := trace.Print(&full, step, trace.Options{NoTimings: true}); err != nil {
		t.Fatal(err)
	}
	_ = trace.Print(&flat, step, trace.Options{NoTimings: true, NoChildren: true})
	if !strings.Contains(full.String(), "│     │   (println \"inside\") (return 5)") || !strings.Contains(full.String(), "│     │   inside") {
		t.Errorf("nested trace:\n%s", full.String())
	}
	if strings.Contains(flat.String(), "inside") || !strings.Contains(flat.String(), "→ inner {}") {
		t.Errorf("NoChildren trace:\n%s", flat.String())
	}
	// TraceOnError keeps a successful child's trace out too.
	step, _ = root.Run(context.Background(), agent.Options{LLM: model.Func(), Trace: agent.TraceOnError})
	if step.Trace != nil {
		t.Errorf("trace kept on success")
	}
}

// TestNestedOptions: a child on the caller's model is called with the
// caller's LLMOptions; a child on a model of its own is not.
func TestNestedOptions(t *testing.T) {
	var mu sync.Mutex
	seen := map[string]any{}
	model := llm.Func(func(_ context.Context, req llm.Request) (llm.Response, error) {
		mu.Lock()
		seen[req.Prompt] = req.Options["temperature"]
		mu.Unlock()
		p := `(return 1)`
		if req.Prompt == "Root" {
			p = `(return [(tool/same {}) (tool/other {})])`
		}
		return llm.Response{Content: "```clojure\n" + p + "\n```"}, nil
	})
	same := agent.MustNew(agent.Config{Prompt: "Same", Description: "Same model."})
	other := agent.MustNew(agent.Config{Prompt: "Other", Description: "Its own model.", LLM: model})
	root := agent.MustNew(agent.Config{Prompt: "Root", Tools: map[string]agent.Tool{
		"same": toolOf(t)(same.AsTool(agent.AsToolOptions{})), "other": toolOf(t)(other.AsTool(agent.AsToolOptions{}))}})
	if _, err := root.Run(context.Background(), agent.Options{LLM: model, LLMOptions: map[string]any{"temperature": 0.1}}); err != nil {
		t.Fatal(err)
	}
	if seen["Root"] != 0.1 || seen["Same"] != 0.1 || seen["Other"] != nil {
		t.Errorf("options seen %v", seen)
	}
}

// TestIgnoringCallbackPastItsTimeout: a callback that ignores the end of
// its call's timeout is abandoned, the mission ending with a timeout
// llm_error, the turn in the trace.
func TestIgnoringCallbackPastItsTimeout(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	var calls atomic.Int32
	stubborn := llm.Func(func(context.Context, llm.Request) (llm.Response, error) {
		calls.Add(1)
		<-release
		return llm.Response{Content: "```clojure\n(return 1)\n```"}, nil
	})
	a := agent.MustNew(agent.Config{Prompt: "x", LLMTimeout: 20 * time.Millisecond,
		LLMRetry: llm.RetryPolicy{MaxAttempts: 3, BaseDelay: time.Millisecond}})
	start := time.Now()
	step, err := a.Run(context.Background(), agent.Options{LLM: stubborn})
	if err == nil || step.Fail.Reason != agent.ReasonLLMError || step.Fail.Details["class"] != string(llm.ClassTimeout) {
		t.Fatalf("fail %+v", step.Fail)
	}
	if calls.Load() != 1 || len(step.Trace) != 1 || step.Trace[0].Error == "" {
		t.Errorf("%d calls, trace %+v", calls.Load(), step.Trace)
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("took %v", d)
	}
}

// CompileSource runs a program written elsewhere with the agent's tools and
// limits; the Step's Redaction hides what the firewall hides.
func TestCompileSource(t *testing.T) {
	a := agent.MustNew(agent.Config{
		Prompt: "code mode",
		Tools: map[string]agent.Tool{
			"user.get": {Func: func(_ context.Context, args *lisp.Map) (any, error) {
				return map[string]any{"name": "ann", "_token": "tok-4b1f9a77c2"}, nil
			}, Signature: "(id :int) -> {name :string, _token :string}"},
		},
		Limits: lisp.Limits{MaxToolCalls: 3},
	})
	c, err := a.CompileSource(`(let [u (tool/user.get {:id "7"})] (println "got" (:name u)) {:u u :copy (:_token u) :n 1})`)
	if err != nil {
		t.Fatal(err)
	}
	step, err := c.Execute(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := lisp.Print(step.Return, lisp.PrintOptions{}); !strings.Contains(got, "tok-4b1f9a77c2") {
		t.Errorf("Go sees %s", got)
	}
	j, err := lisp.ToJSON(step.Return, step.Redaction())
	if err != nil {
		t.Fatal(err)
	}
	want := `{"copy":"<Firewalled>","n":1,"u":{"_token":"<Firewalled>","name":"ann"}}`
	if string(j) != want {
		t.Errorf("redacted %s\nwant     %s", j, want)
	}
	if len(step.Trace) != 1 || len(step.Trace[0].Output) != 1 || step.Trace[0].Output[0] != "got ann" {
		t.Errorf("trace %+v", step.Trace)
	}
	// Scrub hides copies of firewalled strings in text built outside the
	// firewall (a trace's output, say), and leaves the rest.
	if got := step.Scrub("token=tok-4b1f9a77c2, name=ann"); strings.Contains(got, "4b1f9a77") || !strings.Contains(got, "name=ann") {
		t.Errorf("Scrub gave %q", got)
	}
	var none *agent.Step
	if got := none.Scrub("tok-4b1f9a77c2"); got != "tok-4b1f9a77c2" {
		t.Errorf("a nil Step's Scrub changed the text: %q", got)
	}

	// Errors at compile time keep their position; state of earlier turns
	// does not exist; limits hold.
	_, err = a.CompileSource("(+ 1")
	var le *lisp.Error
	if !errors.As(err, &le) || le.Pos.Line != 1 {
		t.Errorf("syntax error %v", err)
	}
	if _, err := a.CompileSource("(inc previous)"); err == nil || !strings.Contains(err.Error(), "previous, which it never defines") {
		t.Errorf("undefined var: %v", err)
	}
	c, err = a.CompileSource(`(dotimes [i 5] (tool/user.get {:id i}))`)
	if err != nil {
		t.Fatal(err)
	}
	step, err = c.Execute(context.Background(), nil)
	if err == nil || step.Fail == nil || !strings.Contains(step.Fail.Message, "tool_limit_exceeded") {
		t.Errorf("MaxToolCalls: %v %+v", err, step.Fail)
	}
	// An agent tool needs an LLM.
	child := agent.MustNew(agent.Config{Prompt: "c", Description: "d"})
	ct, _ := child.AsTool(agent.AsToolOptions{})
	b := agent.MustNew(agent.Config{Prompt: "p", Tools: map[string]agent.Tool{"child": ct}})
	if _, err := b.CompileSource("1"); !errors.Is(err, agent.ReasonNotCompilable) {
		t.Errorf("agent tool: %v", err)
	}
}

// An LLM tool and a compiled agent used as a tool without a description
// are described by their prompt's first line (the seeds make it optional);
// an agent used as a tool still needs one.
func TestDerivedToolDescriptions(t *testing.T) {
	judge, err := agent.NewLLMTool(agent.Config{
		Prompt:    "Is this ticket urgent? {{text}}\nAnswer true or false.",
		Signature: "(text :string) -> :bool",
	}, agent.AsToolOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if judge.Description != "Asks an LLM: Is this ticket urgent? {{text}}" {
		t.Errorf("LLM tool description %q", judge.Description)
	}
	long, err := agent.NewLLMTool(agent.Config{Prompt: strings.Repeat("word ", 100), Signature: "(x :string) -> :bool"}, agent.AsToolOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if n := len([]rune(long.Description)); n > len("Asks an LLM: ")+161 { // 160 and the "…"
		t.Errorf("a long prompt gives a description of %d characters", n)
	}
	scorer := agent.MustNew(agent.Config{Prompt: "Score {{x}}.", Signature: "(x :int) -> :int", MaxTurns: 2})
	compiled, err := scorer.Compile(context.Background(), agent.Options{LLM: llmtest.NewScript(llmtest.Code(`(return (* 2 ctx/x))`)).Func(),
		Input: map[string]any{"x": 1}})
	if err != nil {
		t.Fatal(err)
	}
	tool, err := compiled.AsTool(agent.AsToolOptions{})
	if err != nil || tool.Description != "Runs a compiled program (no LLM): Score {{x}}." {
		t.Errorf("compiled tool description %q, %v", tool.Description, err)
	}
	if _, err := scorer.AsTool(agent.AsToolOptions{}); err == nil {
		t.Error("an agent without a description became a tool")
	}
}

// compileUsage is the usage of c's compiling mission (zero without one).
func compileUsage(c *agent.CompiledAgent) agent.Usage {
	if s := c.CompileStep(); s != nil {
		return s.Usage
	}
	return agent.Usage{}
}

// LoadCompiled reads a compiled agent's metadata in both shapes: "usage"
// (written since the metadata kept a whole Usage) and the older one, whose turns,
// llm_requests and tokens stand beside compiled_at.
func TestLoadCompiledMetadataShapes(t *testing.T) {
	const head = `{"format": "ptc-compiled-agent/1", "source": "(return 1)", "prompt": "p", "limits": {}, "metadata": `
	want := agent.Usage{Turns: 2, LLMRequests: 3, Tokens: llm.Tokens{Input: 3100, Output: 120}}
	tests := []struct {
		name, metadata, by string
		want               agent.Usage
	}{
		{"old shape", `{"compiled_at": "2026-11-01T10:00:00Z", "model": "sonnet", "turns": 2, "llm_requests": 3, "tokens": {"input": 3100, "output": 120}}`, "sonnet", want},
		{"usage", `{"compiled_at": "2026-11-01T10:00:00Z", "model": "sonnet", "usage": {"turns": 2, "llm_requests": 3, "tokens": {"input": 3100, "output": 120}, "duration_ms": 1500}}`,
			"sonnet", agent.Usage{Turns: 2, LLMRequests: 3, Tokens: want.Tokens, Duration: 1500 * time.Millisecond}},
		{"none", `{"compiled_at": "2026-11-01T10:00:00Z"}`, "", agent.Usage{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := agent.LoadCompiled([]byte(head+tc.metadata+"}"), nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := compileUsage(c); got != tc.want || c.CompiledAt().IsZero() || c.CompiledBy() != tc.by {
				t.Errorf("compiled by %q at %v, usage %+v; want usage %+v", c.CompiledBy(), c.CompiledAt(), got, tc.want)
			}
			// Saved again, it is in the new shape and reads back the same.
			data, err := json.Marshal(c)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(data), `"usage":{"turns":`) != (tc.want != agent.Usage{}) {
				t.Errorf("saved: %s", data)
			}
			again, err := agent.LoadCompiled(data, nil)
			if err != nil || compileUsage(again) != tc.want || !again.CompiledAt().Equal(c.CompiledAt()) {
				t.Errorf("read back: %v %+v", err, again.CompileStep())
			}
		})
	}
}
