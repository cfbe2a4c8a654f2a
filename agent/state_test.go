package agent_test

import (
	"context"
	"strings"
	"testing"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/agent/trace"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm"
	"github.com/ptc-go/ptc/llm/llmtest"
)

// TestAtomAcrossTurns: an atom def'd on one turn is the same cell on the
// next, as a model expects; the feedback shows what it holds; a turn that
// fails leaves it as it was, as the feedback says of memory.
func TestAtomAcrossTurns(t *testing.T) {
	s := llmtest.NewScript(
		llmtest.Code(`(def counter (atom 0)) (def seen (transient #{}))`),
		llmtest.Code(`(swap! counter inc) (conj! seen :a)`),
		llmtest.Code(`(swap! counter + 100) (conj! seen :b) (/ 1 nil)`),
		llmtest.Code(`(swap! counter inc) (return {:n @counter :seen (persistent! seen)})`),
	)
	step, err := run(t, agent.Config{Prompt: "Count", MaxTurns: 5}, agent.Options{LLM: s.Func(), Trace: agent.TraceConversation})
	if err != nil {
		t.Fatal(err)
	}
	if got := printed(step.Return); got != `{:n 2, :seen #{:a}}` {
		t.Errorf("return %s, want {:n 2, :seen #{:a}}", got)
	}
	for turn, want := range map[int][]string{
		1: {"Value: #'seen", "Memory: counter #atom[0], seen #transient[#{}]"},
		2: {"Value: #transient[#{:a}]", "Memory: counter #atom[1], seen #transient[#{:a}]"},
		3: {"Error: ", "Memory is as it was before this turn"},
	} {
		fb := s.LastMessage(turn)
		for _, w := range want {
			if !strings.Contains(fb, w) {
				t.Errorf("turn %d feedback lacks %q:\n%s", turn, w, fb)
			}
		}
	}
	// The debug trace keeps each turn's memory, whose cells are the live
	// ones (what they hold at the end), and reads back with them.
	data, err := trace.Marshal(step, trace.JSONOptions{})
	if err != nil {
		t.Fatal(err)
	}
	back, err := trace.Unmarshal(data)
	if err != nil {
		t.Fatal(err)
	}
	mem := back.Trace[1].Memory
	c, _ := mem.Get("counter")
	if cell, ok := c.(*lisp.Cell); !ok || cell.Kind() != "atom" || printed(cell.Deref()) != "2" {
		t.Errorf("turn 2's counter read back as %#v", c)
	}
}

// TestCellsBehindTheFirewall: firewalled data put in an atom stays hidden
// from the model, however the atom is shown (the turn's value, the memory
// line, output), and so does what a "_" var's atom holds, even once a
// later turn changes it.
func TestCellsBehindTheFirewall(t *testing.T) {
	const token = "sk-live-0123456789abcdef"
	const vault = "the-vault-combination-42"
	const later = "a-later-private-value-77"
	s := llmtest.NewScript(
		llmtest.Code(`(def box (atom nil)) (reset! box {:t ctx/_token :user ctx/user}) box`),
		llmtest.Code(`(def _vault (atom {:code "`+vault+`"})) (println (str "box holds " (:t @box)))`),
		llmtest.Code(`(reset! _vault "`+later+`") (println "code:" (:code {:code @_vault})) [_vault (atom [@box])]`),
		llmtest.Code(`(return (count (:t @box)))`),
	)
	step, err := run(t, agent.Config{Prompt: "Keep it", MaxTurns: 5},
		agent.Options{LLM: s.Func(), Input: map[string]any{"_token": token, "user": "ada"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := printed(step.Return); got != "24" {
		t.Errorf("return %s", got)
	}
	for i, req := range s.Requests() {
		for _, m := range req.Messages {
			if m.Role != llm.User {
				continue // the model's own programs hold what it wrote
			}
			for _, secret := range []string{token, vault, later} {
				if strings.Contains(m.Content, secret) {
					t.Errorf("request %d leaks %q:\n%s", i+1, secret, m.Content)
				}
			}
		}
	}
	for turn, want := range map[int][]string{
		1: {`Value: #atom[{:t ` + agent.Firewalled + `, :user "ada"}]`, `box #atom[{:t ` + agent.Firewalled},
		2: {"box holds " + agent.Firewalled, "_vault " + agent.Firewalled},
		3: {"code: " + agent.Firewalled, "Value: [" + agent.Firewalled + ` #atom[[{:t ` + agent.Firewalled},
	} {
		fb := s.LastMessage(turn)
		for _, w := range want {
			if !strings.Contains(fb, w) {
				t.Errorf("turn %d feedback lacks %q:\n%s", turn, w, fb)
			}
		}
	}
}

// TestCellsInMemoryStayBounded: an atom that holds itself in memory is
// shown, measured, traced and scrubbed in bounded work, and the memory
// limit sees an atom grow without a def.
func TestCellsInMemoryStayBounded(t *testing.T) {
	s := llmtest.NewScript(
		llmtest.Code(`(def a (atom nil)) (reset! a [a a {:self a}]) (def _b (atom nil)) (reset! _b [_b "private-value-of-b"]) a`),
		llmtest.Code(`(return (count @a))`),
	)
	step, err := run(t, agent.Config{Prompt: "Loop", MaxTurns: 3}, agent.Options{LLM: s.Func(), Trace: agent.TraceConversation})
	if err != nil {
		t.Fatal(err)
	}
	if fb := s.LastMessage(1); !strings.Contains(fb, "Value: #atom[[#atom[...] #atom[...] {:self #atom[...]}]]") ||
		!strings.Contains(fb, "Memory: _b "+agent.Firewalled+", a #atom[") {
		t.Errorf("feedback:\n%s", fb)
	}
	if _, err := trace.Marshal(step, trace.JSONOptions{}); err != nil {
		t.Errorf("trace.Marshal: %v", err)
	}
	if _, err := trace.Marshal(step, trace.JSONOptions{Raw: true}); err != nil {
		t.Errorf("trace.Marshal raw: %v", err)
	}

	grow := llmtest.NewScript(
		llmtest.Code(`(def rows (atom []))`),
		llmtest.Code(`(swap! rows into (range 5000)) (count @rows)`),
		llmtest.Code(`(return 1)`),
	)
	// A swap! that grows an atom past the limit is an error turn (the atom
	// keeps what it was given: a swap! is not a definition to roll back).
	step, _ = run(t, agent.Config{Prompt: "Grow", MaxTurns: 3, MaxAgentMemory: 10_000}, agent.Options{LLM: grow.Func()})
	if step.Fail != nil || len(step.Trace) != 3 || !strings.Contains(step.Trace[1].Error, "memory_limit_exceeded") ||
		!strings.Contains(step.Trace[1].Error, "Largest: rows") {
		t.Errorf("fail %+v after %d turns, want the memory limit's error on turn 2: %+v", step.Fail, step.Usage.Turns, step.Trace)
	}
}

// TestCellsToTools: a Go tool gets an atom's value (ToGo converts a cell
// as what it holds).
func TestCellsToTools(t *testing.T) {
	var got any
	tools := map[string]agent.Tool{"save": agent.Tool{Func: func(_ context.Context, args *lisp.Map) (any, error) {
		g, err := lisp.ToGo(args)
		got = g
		return "ok", err
	}}}
	s := llmtest.NewScript(llmtest.Code(`(let [a (atom {:n 1})] (swap! a update :n inc) (return (tool/save {:state a})))`))
	if _, err := run(t, agent.Config{Prompt: "Save", Tools: tools, MaxTurns: 2}, agent.Options{LLM: s.Func()}); err != nil {
		t.Fatal(err)
	}
	if printed(mustFromGo(t, got)) != `{"state" {"n" 2}}` {
		t.Errorf("the tool got %v", got)
	}
}

// TestCellsPassedToAgents: an atom passed to an agent tool is the child's
// ctx entry, the same cell; the child's data inventory shows it as an atom
// and what it holds, behind the caller's firewall.
func TestCellsPassedToAgents(t *testing.T) {
	const secret = "sk-live-abcdef0123456789"
	s := llmtest.NewScript(
		llmtest.Code(`(let [box (atom {:k ctx/_secret :n 41 :rows (range 200000)})] (tool/child {:box box}) (return (:n @box)))`),
		llmtest.Code(`(swap! ctx/box update :n inc) (return "done")`),
	)
	child := agent.MustNew(agent.Config{Prompt: "Bump", Signature: "(box :any) -> :string", Description: "bumps"})
	tool, err := child.AsTool(agent.AsToolOptions{})
	if err != nil {
		t.Fatal(err)
	}
	step, err := run(t, agent.Config{Prompt: "Go", Tools: map[string]agent.Tool{"child": tool}, MaxTurns: 2},
		agent.Options{LLM: s.Func(), Input: map[string]any{"_secret": secret}})
	if err != nil {
		t.Fatal(err)
	}
	if got := printed(step.Return); got != "42" {
		t.Errorf("return %s, want 42 (the child swapped the caller's atom)", got)
	}
	reqs := s.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	sys := reqs[1].System + reqs[1].Messages[0].Content
	if strings.Contains(sys, secret) || !strings.Contains(sys, "#atom[{:k "+agent.Firewalled+", :n 41, :rows [0 1 2 3") {
		t.Errorf("the child's prompt:\n%s", sys)
	}
}

// mustFromGo converts test data that converts (lisp.FromGo), failing the
// test otherwise.
func mustFromGo(tb testing.TB, x any) lisp.Value {
	tb.Helper()
	v, err := lisp.FromGo(x)
	if err != nil {
		tb.Fatal(err)
	}
	return v
}
