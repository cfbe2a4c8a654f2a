package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/agent/trace"
	"github.com/ptc-go/ptc/internal/engine"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm"
)

// Tests of the promises that hold on every route by which one agent's
// result reaches another: the firewall and the tree's budgets. Names start
// with tree.

// treeTokens is what every scripted LLM call of these tests costs.
var treeTokens = llm.Tokens{Input: 100, Output: 20}

// treeModel answers each mission by the first word of its prompt, with
// the program of its turn (the last one again when they run out), each
// call costing treeTokens; it records the requests.
type treeModel struct {
	routes map[string][]string
	mu     sync.Mutex
	reqs   []llm.Request
}

func (m *treeModel) Func() llm.Func {
	return func(ctx context.Context, req llm.Request) (llm.Response, error) {
		m.mu.Lock()
		req.Messages = append([]llm.Message(nil), req.Messages...)
		m.reqs = append(m.reqs, req)
		m.mu.Unlock()
		word, _, _ := strings.Cut(req.Prompt, " ")
		programs, ok := m.routes[word]
		if !ok {
			return llm.Response{}, fmt.Errorf("no route for %q", req.Prompt)
		}
		p := programs[min(req.Turn, len(programs))-1]
		return llm.Response{Content: "```clojure\n" + p + "\n```", Tokens: treeTokens}, nil
	}
}

// calls counts the requests whose prompt's first word is word ("" for all).
func (m *treeModel) calls(word string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for _, r := range m.reqs {
		if first, _, _ := strings.Cut(r.Prompt, " "); word == "" || first == word {
			n++
		}
	}
	return n
}

// texts returns every text of the requests whose prompt's first word is word.
func (m *treeModel) texts(word string) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	var sb strings.Builder
	for _, r := range m.reqs {
		if first, _, _ := strings.Cut(r.Prompt, " "); first == word {
			sb.WriteString(r.System + "\n" + r.Prompt + "\n")
			for _, msg := range r.Messages {
				sb.WriteString(msg.Content + "\n")
			}
		}
	}
	return sb.String()
}

// The secrets of the child's vault: a string, a number and a collection
// (whose strings are short, so that only its identity hides it).
const (
	treeSecret = "tok-4f9a8b7c6d5e"
	treePin    = int64(73194628550)
	treeRowA   = "rowA"
)

func treeVault() agent.Tool {
	return agent.Tool{Func: func(context.Context, *lisp.Map) (any, error) {
		return map[string]any{"_token": treeSecret, "_pin": treePin, "_rows": []any{[]any{treeRowA, "rowB"}}}, nil
	}}

}

// treeChildProgram copies the vault's firewalled fields under public keys.
const treeChildProgram = `(let [r (tool/vault {})] (return {:token (:_token r) :pin (:_pin r) :rows (:_rows r)}))`

// treeLeaks returns the secrets found in text.
func treeLeaks(text string) []string {
	var out []string
	for _, s := range []string{treeSecret, fmt.Sprint(treePin), treeRowA} {
		if strings.Contains(text, s) {
			out = append(out, s)
		}
	}
	return out
}

// A Go tool that runs an agent (Run, Then, a compiled agent's Execute,
// Pipeline.Run) with the context it was given joins the agent to the
// caller's tree: the caller's LLM does not see what the agent firewalled,
// wherever its program copied it, and the caller's TotalUsage counts the
// agent's turns, with pmap too.
func TestTreeGoToolRunsAgent(t *testing.T) {
	child := agent.MustNew(agent.Config{Name: "fetcher", Prompt: "FETCH data", MaxTurns: 2,
		Tools: map[string]agent.Tool{"vault": treeVault()}})
	compModel := &treeModel{routes: map[string][]string{"FETCH": {treeChildProgram}}}
	comp, err := child.Compile(context.Background(), agent.Options{LLM: compModel.Func()})
	if err != nil {
		t.Fatal(err)
	}
	runs := map[string]func(ctx context.Context) (*agent.Step, error){
		"Run": func(ctx context.Context) (*agent.Step, error) { return child.Run(ctx, agent.Options{}) },
		"Then": func(ctx context.Context) (*agent.Step, error) {
			return agent.Then(ctx, &agent.Step{Return: lisp.NewMap()}, child, agent.Options{})
		},
		"Execute": func(ctx context.Context) (*agent.Step, error) { return comp.Execute(ctx, nil) },
		"Pipeline": func(ctx context.Context) (*agent.Step, error) {
			steps, err := agent.Pipeline{child}.Run(ctx, agent.Options{})
			return steps[len(steps)-1], err
		},
	}
	for name, runChild := range runs {
		for _, fanOut := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/pmap=%v", name, fanOut), func(t *testing.T) {
				fetch := agent.Tool{Description: "Fetches, through Go.", Func: func(ctx context.Context, args *lisp.Map) (any, error) {
					step, err := runChild(ctx)
					if err != nil {
						return nil, err
					}
					return step.Return, nil
				}}
				root := agent.MustNew(agent.Config{Prompt: "ROOT go", MaxTurns: 4, Tools: map[string]agent.Tool{"fetch": fetch}})
				first := `(def r (tool/fetch {})) r`
				if fanOut {
					first = `(def r (first (pmap (fn [i] (tool/fetch {:i i})) [1 2 3]))) r`
				}
				model := &treeModel{routes: map[string][]string{
					"ROOT":  {first, `(println (:token r) (:pin r) (:rows r) (str (:token r)) (str (:pin r))) (:rows r)`, `(return 1)`},
					"FETCH": {treeChildProgram},
				}}
				step, err := root.Run(context.Background(), agent.Options{LLM: model.Func()})
				if err != nil {
					t.Fatal(err)
				}
				if leaks := treeLeaks(model.texts("ROOT")); len(leaks) > 0 {
					t.Errorf("the caller's LLM saw %q", leaks)
				}
				if c := step.Trace[0].ToolCalls; len(c) == 0 || c[0].Child != nil {
					t.Errorf("the tool calls %+v: the agent's Step is not the call's", c)
				}
				children := 1
				if fanOut {
					children = 3
				}
				if name == "Execute" {
					children = 0 // a compiled agent takes no turn
				}
				if got, want := step.TotalUsage.Turns, 3+children; got != want {
					t.Errorf("TotalUsage.Turns %d, want %d", got, want)
				}
				if got, want := step.TotalUsage.Tokens, treeTokens.Add(treeTokens).Add(treeTokens); name != "Execute" && !fanOut &&
					got != want.Add(treeTokens) {
					t.Errorf("TotalUsage.Tokens %+v", got)
				}
			})
		}
	}
}

// The agent-tool route counts a child once: its usage is the tool call's,
// not adopted again.
func TestTreeAgentToolCountedOnce(t *testing.T) {
	child := agent.MustNew(agent.Config{Prompt: "CHILD go", Description: "A child.", MaxTurns: 2})
	tool, err := child.AsTool(agent.AsToolOptions{})
	if err != nil {
		t.Fatal(err)
	}
	wrapped := agent.Tool{Description: "Through Go.", Func: func(ctx context.Context, args *lisp.Map) (any, error) {
		return tool.Func(ctx, args)
	}}
	root := agent.MustNew(agent.Config{Prompt: "ROOT go", MaxTurns: 3,
		Tools: map[string]agent.Tool{"child": tool, "wrapped": wrapped}})
	model := &treeModel{routes: map[string][]string{
		"ROOT":  {`[(tool/child {}) (tool/wrapped {})]`, `(return 1)`},
		"CHILD": {`(return 2)`},
	}}
	step, err := root.Run(context.Background(), agent.Options{LLM: model.Func()})
	if err != nil {
		t.Fatal(err)
	}
	if step.TotalUsage.Turns != 4 || step.TotalUsage.LLMRequests != 4 || step.TotalUsage.Tokens.Total() != 4*treeTokens.Total() {
		t.Errorf("total usage %+v, want 4 turns", step.TotalUsage)
	}
}

// treeLooper is a child that never returns: every turn costs treeTokens.
func treeLooper(name string) *agent.Agent {
	return agent.MustNew(agent.Config{Name: name, Prompt: "LOOP forever", Description: "Loops.", MaxTurns: 50})
}

// treeBudgetRoot returns a root with the tools, looping too once they
// returned.
func treeBudgetRoot(tools map[string]agent.Tool) *agent.Agent {
	return agent.MustNew(agent.Config{Name: "root", Prompt: "ROOT go", MaxTurns: 50, MaxTreeTurns: 200, Tools: tools})
}

// A TokenLimit set on a mission bounds its whole tree, on every route: an
// agent tool, an LLM tool, a Go tool that runs an agent. Every call costs
// 120 tokens: with a limit of 500, the root's call and the child's first
// three are within it (480), the child's fourth goes over (600), the
// child fails, and so does the root, its Fail naming the child.
func TestTreeTokenLimit(t *testing.T) {
	looper := treeLooper("looper")
	agentTool, err := looper.AsTool(agent.AsToolOptions{})
	if err != nil {
		t.Fatal(err)
	}
	judge, err := agent.NewLLMTool(agent.Config{
		Prompt:      "JUDGE {{x}}",
		Signature:   "(x :int) -> :int",
		Description: "Judges.",
		MaxTurns:    1,
	}, agent.AsToolOptions{})
	if err != nil {
		t.Fatal(err)
	}
	goTool := agent.Tool{Description: "Runs the looper.", Func: func(ctx context.Context, args *lisp.Map) (any, error) {
		step, err := looper.Run(ctx, agent.Options{})
		if err != nil {
			return nil, err
		}
		return step.Return, nil
	}}
	for _, tc := range []struct {
		name, program string
		childName     string
	}{
		{"agent tool", `(tool/child {})`, "looper"},
		{"LLM tool", `(mapv #(tool/judge {:x %}) (range 10))`, "judge"},
		{"Go tool", `(tool/gochild {})`, "looper"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := treeBudgetRoot(map[string]agent.Tool{"child": agentTool, "judge": judge, "gochild": goTool})
			model := &treeModel{routes: map[string][]string{
				"ROOT": {tc.program, `(return 1)`}, "LOOP": {`1`}, "JUDGE": {`ctx/x`},
			}}
			step, err := root.Run(context.Background(), agent.Options{LLM: model.Func(), TokenLimit: 500})
			if err == nil {
				t.Fatalf("the mission succeeded: %s", printed(step.Return))
			}
			if step.Fail.Reason != agent.ReasonBudgetExceeded {
				t.Fatalf("fail %+v", step.Fail)
			}
			if n := model.calls(""); n != 5 {
				t.Errorf("%d LLM calls, want 5 (the root's, then 4 of the child's)", n)
			}
			if got := step.TotalUsage.Tokens.Total(); got != 600 {
				t.Errorf("the tree used %d tokens, want 600", got)
			}
			d := step.Fail.Details
			if d["agent"] != tc.childName || d["depth"] != 1 || d["token_limit"] != 500 || d["tokens"] != 600 {
				t.Errorf("details %v", d)
			}
			if id, _ := d["trace_id"].(string); len(id) != 32 || id == step.TraceID {
				t.Errorf("trace id %q", id)
			}
			if !strings.Contains(step.Fail.Message, "600 tokens") || !strings.Contains(step.Fail.Message, fmt.Sprintf("%q (depth 1)", tc.childName)) {
				t.Errorf("message %q", step.Fail.Message)
			}
		})
	}
}

// A child may have a tighter limit of its own, from a Go tool
// (Options.TokenLimit) or bound to its tool (AsToolOptions.TokenLimit,
// LLMToolConfig.TokenLimit): it ends the child alone, a tool error for
// the caller, whose mission goes on. The child's limit counts its own
// tree: 2 calls, 240 tokens, over 200.
func TestTreeChildTokenLimit(t *testing.T) {
	looper := treeLooper("looper")
	bound, err := looper.AsTool(agent.AsToolOptions{TokenLimit: 200})
	if err != nil {
		t.Fatal(err)
	}
	judge, err := agent.NewLLMTool(agent.Config{
		Prompt:      "JUDGE {{x}}",
		Signature:   "(x :int) -> :int",
		Description: "Judges.",
		Tools:       map[string]agent.Tool{"noop": agent.Tool{Func: func(context.Context, *lisp.Map) (any, error) { return 1, nil }}},
		MaxTurns:    10,
	}, agent.AsToolOptions{TokenLimit: 200})
	if err != nil {
		t.Fatal(err)
	}
	goTool := agent.Tool{Description: "Runs the looper.", Func: func(ctx context.Context, args *lisp.Map) (any, error) {
		step, err := looper.Run(ctx, agent.Options{TokenLimit: 200})
		if err != nil {
			return nil, err
		}
		return step.Return, nil
	}}
	for _, tc := range []struct{ name, program string }{
		{"AsToolOptions", `(tool/child {})`},
		{"LLMToolConfig", `(tool/judge {:x 1})`},
		{"Go tool", `(tool/gochild {})`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := treeBudgetRoot(map[string]agent.Tool{"child": bound, "judge": judge, "gochild": goTool})
			model := &treeModel{routes: map[string][]string{
				"ROOT": {tc.program, `(return (get-in ctx/fail [:details :child :reason]))`}, "LOOP": {`1`}, "JUDGE": {`1`},
			}}
			step, err := root.Run(context.Background(), agent.Options{LLM: model.Func(), TokenLimit: 10000})
			if err != nil {
				t.Fatal(err)
			}
			if tc.name != "Go tool" && printed(step.Return) != ":budget_callback_exceeded" {
				t.Errorf("the root's second turn read %s", printed(step.Return))
			}
			if n := model.calls(""); n != 4 {
				t.Errorf("%d LLM calls, want 4 (2 of the root, 2 of the child)", n)
			}
			if got := step.TotalUsage.Tokens.Total(); got != 480 {
				t.Errorf("the tree used %d tokens, want 480", got)
			}
		})
	}
	if _, err := looper.AsTool(agent.AsToolOptions{TokenLimit: -1}); err == nil {
		t.Error("a negative TokenLimit was accepted")
	}
}

// The tree's limit ends a child even when the child would return its
// partial value over its own: ReturnPartialOnBudget applies to the mission
// whose limit went over. The root's ReturnPartialOnBudget returns its last
// value when a child's turn spent the tree's budget.
func TestTreeBudgetEndings(t *testing.T) {
	looper := treeLooper("looper")
	goTool := agent.Tool{Description: "Runs the looper.", Func: func(ctx context.Context, args *lisp.Map) (any, error) {
		step, err := looper.Run(ctx, agent.Options{TokenLimit: 100000, ReturnPartialOnBudget: true})
		if err != nil {
			return nil, err
		}
		return step.Return, nil
	}}
	root := treeBudgetRoot(map[string]agent.Tool{"gochild": goTool})
	model := &treeModel{routes: map[string][]string{"ROOT": {`42`, `(tool/gochild {})`, `(return 1)`}, "LOOP": {`7`}}}
	step, err := root.Run(context.Background(), agent.Options{LLM: model.Func(), TokenLimit: 500,
		ReturnPartialOnBudget: true})
	if err != nil || printed(step.Return) != "42" {
		t.Fatalf("return %s, err %v", printed(step.Return), err)
	}
	calls := step.Trace[1].ToolCalls
	if len(calls) != 1 || !strings.Contains(calls[0].Error, "budget_callback_exceeded") {
		t.Errorf("the child's call %+v", calls)
	}
	if n := model.calls(""); n != 5 {
		t.Errorf("%d LLM calls, want 5 (2 of the root, 3 of the child)", n)
	}
}

// A Budget callback is asked after every LLM call of the tree, with the
// tree's usage; false ends the tree, the Fail naming the mission whose
// call it was.
func TestTreeBudgetCallback(t *testing.T) {
	looper := treeLooper("looper")
	tool, err := looper.AsTool(agent.AsToolOptions{})
	if err != nil {
		t.Fatal(err)
	}
	root := treeBudgetRoot(map[string]agent.Tool{"child": tool})
	model := &treeModel{routes: map[string][]string{"ROOT": {`(tool/child {})`}, "LOOP": {`1`}}}
	var seen []string
	step, err := root.Run(context.Background(), agent.Options{LLM: model.Func(), Budget: func(u agent.Usage) bool {
		seen = append(seen, fmt.Sprintf("%d/%d/%d", u.Turns, u.LLMRequests, u.Tokens.Total()))
		return u.Tokens.Total() < 360
	}})
	if err == nil || step.Fail.Reason != agent.ReasonBudgetExceeded {
		t.Fatalf("step %+v err %v", step.Fail, err)
	}
	if got := strings.Join(seen, " "); got != "1/1/120 2/2/240 3/3/360" {
		t.Errorf("the callback saw %s", got)
	}
	if step.Fail.Details["agent"] != "looper" || step.TotalUsage.Tokens.Total() != 360 || step.TotalUsage.Turns != 3 {
		t.Errorf("fail %+v, total %+v", step.Fail, step.TotalUsage)
	}
}

// Pipeline.Run's TokenLimit bounds the pipeline's total: the first agent
// takes 2 calls (240 tokens), the second goes over 300 with its first.
func TestTreePipelineTokenLimit(t *testing.T) {
	first := agent.MustNew(agent.Config{Name: "first", Prompt: "FIRST go", MaxTurns: 3})
	second := agent.MustNew(agent.Config{Name: "second", Prompt: "SECOND go", MaxTurns: 3})
	model := &treeModel{routes: map[string][]string{"FIRST": {`1`, `(return {:a 1})`}, "SECOND": {`1`, `(return 2)`}}}
	steps, err := agent.Pipeline{first, second}.Run(context.Background(), agent.Options{LLM: model.Func(), TokenLimit: 300})
	if err == nil || len(steps) != 2 {
		t.Fatalf("%d steps, err %v", len(steps), err)
	}
	f := steps[1].Fail
	if f.Reason != agent.ReasonBudgetExceeded || f.Details["limit_of"] != "the pipeline" || f.Details["tokens"] != 360 ||
		!strings.HasPrefix(f.Message, "the pipeline used 360 tokens") {
		t.Errorf("fail %+v", f)
	}
	if model.calls("") != 3 {
		t.Errorf("%d LLM calls", model.calls(""))
	}
	// ReturnPartialOnBudget: the agent that was running returns its last
	// value.
	model = &treeModel{routes: map[string][]string{"FIRST": {`1`, `(return {:a 1})`}, "SECOND": {`5`, `6`, `(return 2)`}}}
	steps, err = agent.Pipeline{first, second}.Run(context.Background(), agent.Options{LLM: model.Func(), TokenLimit: 400,
		ReturnPartialOnBudget: true})
	if err != nil || len(steps) != 2 || printed(steps[1].Return) != "5" || model.calls("") != 4 {
		t.Errorf("%d steps, err %v, %d calls", len(steps), err, model.calls(""))
	}
}

// Children started at once by pmap share the tree's limit as they go:
// once it is spent, each ends after its turn in flight, and no new turn
// starts. With a limit of 500 and 3 children, at most 5 calls fit, and
// the 2 other children may each finish a call in flight.
func TestTreeTokenLimitFanOut(t *testing.T) {
	tool, err := treeLooper("looper").AsTool(agent.AsToolOptions{})
	if err != nil {
		t.Fatal(err)
	}
	root := treeBudgetRoot(map[string]agent.Tool{"child": tool})
	model := &treeModel{routes: map[string][]string{"ROOT": {`(pmap (fn [i] (tool/child {:i i})) [1 2 3])`}, "LOOP": {`1`}}}
	step, err := root.Run(context.Background(), agent.Options{LLM: model.Func(), TokenLimit: 500})
	if err == nil || step.Fail.Reason != agent.ReasonBudgetExceeded {
		t.Fatalf("step %+v err %v", step.Fail, err)
	}
	if n := model.calls(""); n < 5 || n > 7 {
		t.Errorf("%d LLM calls for a limit of 500 tokens (5 reach it, 2 may be in flight)", n)
	}
	if got := step.TotalUsage.Tokens.Total(); got != 120*model.calls("") {
		t.Errorf("TotalUsage counts %d tokens for %d calls", got, model.calls(""))
	}
}

// treeMission runs a child that copies its vault's secrets under public
// keys, and returns its Step.
func treeMission(t *testing.T) *agent.Step {
	t.Helper()
	child := agent.MustNew(agent.Config{Name: "fetcher", Prompt: "FETCH data", MaxTurns: 2,
		Tools: map[string]agent.Tool{"vault": treeVault()}})
	model := &treeModel{routes: map[string][]string{"FETCH": {treeChildProgram}}}
	step, err := child.Run(context.Background(), agent.Options{LLM: model.Func()})
	if err != nil {
		t.Fatal(err)
	}
	return step
}

// A Step moved as a raw trace keeps what its firewall hides (the trace
// carries it): its Redaction and Scrub are the original's, and the next
// agent of a chain (Then) is sent the very same requests.
func TestTreeFirewallExport(t *testing.T) {
	orig := treeMission(t)
	data, err := trace.Marshal(orig, trace.JSONOptions{Raw: true})
	if err != nil {
		t.Fatal(err)
	}
	show := func(s *agent.Step) string {
		return lisp.Print(s.Return, lisp.PrintOptions{Redact: s.Redaction()})
	}
	// Without its firewall the trace would show the secrets: the test
	// tests something.
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(data, &doc); err != nil || len(doc["firewall"]) == 0 {
		t.Fatalf("the raw trace carries no firewall (%v)", err)
	}
	delete(doc, "firewall")
	bare, _ := json.Marshal(doc)
	if stripped, err := trace.Unmarshal(bare); err != nil || len(treeLeaks(show(stripped))) == 0 {
		t.Fatalf("a trace without its firewall hides the secrets (%v): %s", err, show(stripped))
	}
	moved, err := trace.Unmarshal(data)
	if err != nil {
		t.Fatal(err)
	}
	if show(moved) != show(orig) || strings.Contains(show(moved), treeRowA) {
		t.Errorf("redacted:\n original %s\n moved    %s", show(orig), show(moved))
	}
	text := "the token is " + treeSecret + fmt.Sprint(" and the pin ", treePin)
	if moved.Scrub(text) != orig.Scrub(text) || len(treeLeaks(moved.Scrub(text))) > 0 {
		t.Errorf("scrubbed: %q", moved.Scrub(text))
	}
	next := agent.MustNew(agent.Config{Prompt: "NEXT look", MaxTurns: 2})
	then := func(prev *agent.Step) string {
		model := &treeModel{routes: map[string][]string{"NEXT": {`(println ctx/rows ctx/token ctx/pin) ctx`, `(return 1)`}}}
		if _, err := agent.Then(context.Background(), prev, next, agent.Options{LLM: model.Func()}); err != nil {
			t.Fatal(err)
		}
		return model.texts("NEXT")
	}
	if a, b := then(orig), then(moved); a != b || len(treeLeaks(b)) > 0 {
		t.Errorf("the next agent's requests differ or leak (%q):\n original %q\n moved    %q", treeLeaks(b), a, b)
	}
	doc["firewall"] = json.RawMessage(`{"format":"other"}`)
	other, _ := json.Marshal(doc)
	if _, err := trace.Unmarshal(other); err == nil {
		t.Error("a firewall of another format was read")
	}
}

// RunTool answers a tool call as the calling mission would have run it:
// a compiled agent with its Step; a Go tool that runs an agent with its
// value, the agent's firewall and usage, the agent placed at the
// request's Position (its depth, its turns and tokens left) and behind
// the caller's firewall.
func TestTreeRunTool(t *testing.T) {
	var childDepth int
	model := &treeModel{routes: map[string][]string{"FETCH": {`(println ctx/who) 1`, treeChildProgram}}}
	child := agent.MustNew(agent.Config{Name: "fetcher", Prompt: "FETCH data for {{who}}", MaxTurns: 5, LLM: model.Func(),
		Tools: map[string]agent.Tool{"vault": treeVault()}})
	comp, err := agent.MustNew(agent.Config{Prompt: "COMP", Description: "Copies.",
		Tools: map[string]agent.Tool{"vault": treeVault()}}).CompileSource(treeChildProgram)
	if err != nil {
		t.Fatal(err)
	}
	nestedTool, err := child.AsTool(agent.AsToolOptions{Description: "x"})
	if err != nil {
		t.Fatal(err)
	}
	host := agent.MustNew(agent.Config{Prompt: "HOST", Tools: map[string]agent.Tool{
		"comp": must(comp.AsTool(agent.AsToolOptions{})),
		"go": agent.Tool{Func: func(ctx context.Context, args *lisp.Map) (any, error) {
			step, err := child.Run(ctx, agent.Options{Input: args, Observers: []agent.Observer{agent.ObserverFunc(
				func(_ context.Context, e *agent.Event) { childDepth = e.Depth })}})
			if err != nil {
				return nil, err
			}
			return step.Return, nil
		}},

		"nested": nestedTool,
	}})
	// The caller firewalls who: a caller's secret passed down.
	caller := agent.MustNew(agent.Config{Prompt: "CALLER", MaxTurns: 2, Tools: map[string]agent.Tool{"go": agent.Tool{Func: func(context.Context, *lisp.Map) (any, error) { return nil, nil }}}})
	var pos engine.Position
	posHooks := &engine.Hooks{Tool: func(ctx context.Context, req engine.ToolRequest) (engine.ToolResult, error) {
		pos = req.Position
		return engine.ToolResult{Value: int64(1)}, nil
	}}
	_, _ = caller.Run(engine.WithHooks(context.Background(), posHooks), agent.Options{LLM: (&treeModel{routes: map[string][]string{"CALLER": {
		`(tool/go {:who ctx/_who})`, `(return 1)`}}}).Func(), Input: map[string]any{"_who": "caller-secret-42"}})
	if pos.Depth != 1 || len(pos.CallerFirewall) == 0 || pos.Name != "go" {
		t.Fatalf("position %+v", pos)
	}
	pos.TurnsLeft, pos.Tokens = 10, &engine.TokenAllowance{Left: 1000, Limit: 5000, SetBy: "x"}
	res, err := host.Engine().RunTool(context.Background(), engine.ToolRequest{Name: "go",
		Args: lisp.NewMap(lisp.Keyword("who"), "caller-secret-42"), Position: pos})
	if err != nil {
		t.Fatal(err)
	}
	if u, _ := res.Usage.(agent.Usage); res.Step != nil || u.Turns != 2 || u.Tokens != treeTokens.Add(treeTokens) || len(res.Firewall) == 0 {
		t.Errorf("result %+v", res)
	}
	if childDepth != 1 {
		t.Errorf("the agent ran at depth %d, want the Position's", childDepth)
	}
	if strings.Contains(model.texts("FETCH"), "caller-secret-42") {
		t.Error("the agent's LLM saw what its caller firewalls")
	}
	// Answered with that result, a caller's model does not see what the
	// agent firewalled.
	shown := &treeModel{routes: map[string][]string{"CALLER": {`(tool/go {:who "x"})`, `(return 1)`}}}
	resHooks := &engine.Hooks{Tool: func(context.Context, engine.ToolRequest) (engine.ToolResult, error) { return res, nil }}
	if _, err := caller.Run(engine.WithHooks(context.Background(), resHooks), agent.Options{LLM: shown.Func()}); err != nil {
		t.Fatal(err)
	}
	if leaks := treeLeaks(shown.texts("CALLER")); len(leaks) > 0 || !strings.Contains(shown.texts("CALLER"), agent.Firewalled) {
		t.Errorf("the caller's model saw %q: %s", leaks, shown.texts("CALLER"))
	}
	// Out of turns: the agent fails, and its usage still comes back.
	pos.TurnsLeft = 1
	res, err = host.Engine().RunTool(context.Background(), engine.ToolRequest{Name: "go", Args: lisp.NewMap(lisp.Keyword("who"), "x"), Position: pos})
	if u, _ := res.Usage.(agent.Usage); err == nil || !strings.Contains(err.Error(), string(agent.ReasonTurnBudgetExhausted)) || u.Turns != 1 {
		t.Errorf("result %+v, err %v", res, err)
	}
	res, err = host.Engine().RunTool(context.Background(), engine.ToolRequest{Name: "comp", Args: lisp.NewMap(), Position: pos})
	if s, _ := res.Step.(*agent.Step); err != nil || s == nil || s.Fail != nil || s.TraceID == "" || s.TraceID == pos.ParentTraceID {
		t.Fatalf("compiled: %+v, err %v", res, err)
	}
	if _, err := host.Engine().RunTool(context.Background(), engine.ToolRequest{Name: "nested", Nested: true}); err == nil {
		t.Error("RunTool ran an agent tool")
	}
}

func must(t agent.Tool, err error) agent.Tool {
	if err != nil {
		panic(err)
	}
	return t
}

// A Budget callback is asked from the goroutines of concurrent children,
// one call at a time, until it says stop, and sees the time since its
// mission started.
func TestTreeBudgetCallbackSerialized(t *testing.T) {
	tool, err := treeLooper("looper").AsTool(agent.AsToolOptions{})
	if err != nil {
		t.Fatal(err)
	}
	root := treeBudgetRoot(map[string]agent.Tool{"child": tool})
	model := &treeModel{routes: map[string][]string{"ROOT": {`(pmap (fn [i] (tool/child {:i i})) (range 8))`}, "LOOP": {`1`}}}
	var inside, overlaps, calls int32
	var mu sync.Mutex
	var last agent.Usage
	step, _ := root.Run(context.Background(), agent.Options{LLM: model.Func(), Budget: func(u agent.Usage) bool {
		mu.Lock()
		inside++
		if inside > 1 {
			overlaps++
		}
		calls++
		last = u
		mu.Unlock()
		for i := 0; i < 1000; i++ { // widen the window a concurrent call would overlap in
			_ = fmt.Sprint(i)
		}
		mu.Lock()
		inside--
		mu.Unlock()
		return u.Turns < 20
	}})
	if step.Fail == nil || step.Fail.Reason != agent.ReasonBudgetExceeded {
		t.Fatalf("fail %+v", step.Fail)
	}
	// Once it said stop, the calls in flight do not ask it again.
	if overlaps > 0 || int(calls) > model.calls("") || last.Turns < 20 {
		t.Errorf("%d overlapping calls; %d calls for %d LLM calls; the last saw %d turns", overlaps, calls, model.calls(""), last.Turns)
	}
	if last.Duration <= 0 || last.Duration > step.Usage.Duration {
		t.Errorf("the callback saw a duration of %v, the mission took %v", last.Duration, step.Usage.Duration)
	}
}

// A Budget callback that panics, asked after a child's LLM call, ends the
// tree with internal_error.
func TestTreeBudgetCallbackPanics(t *testing.T) {
	tool, err := treeLooper("looper").AsTool(agent.AsToolOptions{})
	if err != nil {
		t.Fatal(err)
	}
	root := treeBudgetRoot(map[string]agent.Tool{"child": tool})
	model := &treeModel{routes: map[string][]string{"ROOT": {`(tool/child {})`}, "LOOP": {`1`}}}
	step, err := root.Run(context.Background(), agent.Options{LLM: model.Func(), Budget: func(u agent.Usage) bool {
		if u.Turns == 3 {
			panic("broken budget")
		}
		return true
	}})
	if err == nil || step.Fail.Reason != agent.ReasonInternalError || !strings.Contains(step.Fail.Message, "broken budget") ||
		step.Fail.Details["agent"] != "looper" || model.calls("") != 3 {
		t.Fatalf("fail %+v after %d calls", step.Fail, model.calls(""))
	}
}
