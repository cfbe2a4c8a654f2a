package agent_test

import (
	"context"
	"strings"
	"testing"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/llm/llmtest"
)

// A turn that defines a builtin's name is told so, once, in its feedback;
// the entries of a map result are data and shadow nothing.
func TestFeedbackNamesShadowedBuiltins(t *testing.T) {
	s := llmtest.NewScript(
		llmtest.Code(`(defn count [xs] 42) (def entries [1 2]) {:first 1 :n (count entries)}`),
		llmtest.Code(`(defn count [xs] 7) [(count [1]) (first [9]) memory/first (clojure.core/count entries)]`),
		llmtest.Code(`(return (count []))`),
	)
	step, err := run(t, agent.Config{Prompt: "Count"}, agent.Options{LLM: s.Func()})
	if err != nil {
		t.Fatal(err)
	}
	if got := printed(step.Return); got != "7" {
		t.Errorf("return %s", got)
	}
	want1 := "Value: {:first 1, :n 42}\n" +
		"Memory: count, entries, first, n\n" +
		"Stored this turn: new count, entries; from the keys of the map it ended with: first, n.\n" +
		"`count` now names your value (it was a builtin; the builtin is still clojure.core/count)\n" +
		"`entries` now names your value (it was a builtin; the builtin is still clojure.core/entries)\n" +
		"\nTurn 2 of 5 is next (4 left)."
	if got := s.LastMessage(1); got != want1 {
		t.Errorf("feedback of turn 1:\n%s\nwant:\n%s", got, want1)
	}
	// count was already the program's: no news.
	want2 := "Value: [7 9 1 2]\nMemory: count, entries, first, n\nStored this turn: changed count.\n\nTurn 3 of 5 is next (3 left)."
	if got := s.LastMessage(2); got != want2 {
		t.Errorf("feedback of turn 2:\n%s\nwant:\n%s", got, want2)
	}
}

// A program kept by Compile runs alone, where a builtin an earlier turn
// redefined is the builtin again: reading it is a dependency.
func TestCompileRefusesShadowedBuiltinOfEarlierTurn(t *testing.T) {
	s := llmtest.NewScript(
		llmtest.Code(`(defn count [xs] 42) (count [1])`),
		llmtest.Code(`(return {:n (count [1 2])})`),
		llmtest.Code(`(return {:n (clojure.core/count [1 2])})`),
	)
	a := agent.MustNew(agent.Config{Prompt: "Count", Signature: "{n :int}"})
	compiled, err := a.Compile(context.Background(), agent.Options{LLM: s.Func()})
	if err != nil {
		t.Fatal(err)
	}
	if fb := s.LastMessage(2); !strings.Contains(fb, "it reads count, defined in an earlier turn") {
		t.Errorf("feedback of turn 2: %q", fb)
	}
	if !strings.Contains(compiled.Source(), "clojure.core/count") {
		t.Errorf("kept %q", compiled.Source())
	}
}

// A keyword called on a vector of maps is nil, as in Clojure; the turn's
// feedback says what the program nearly always meant.
func TestFeedbackNotesKeywordOnRows(t *testing.T) {
	s := llmtest.NewScript(
		llmtest.Code(`(def rows [{:name "a"} {:name "b"}]) [(:name rows) (:id rows)]`),
		llmtest.Code(`(return (map :name rows))`),
	)
	step, err := run(t, agent.Config{Prompt: "Names"}, agent.Options{LLM: s.Func()})
	if err != nil {
		t.Fatal(err)
	}
	if got := printed(step.Return); got != `["a" "b"]` {
		t.Errorf("return %s", got)
	}
	want := "Value: [nil nil]\n" +
		"Memory: rows\n" +
		"Stored this turn: new rows.\n" +
		"Note: (:name rows) on a vector of maps is nil, as in Clojure; to read the field of each row write (map :name rows)\n" +
		"Note: (:id rows) on a vector of maps is nil, as in Clojure; to read the field of each row write (map :id rows)\n" +
		"\nTurn 2 of 5 is next (4 left)."
	if got := s.LastMessage(1); got != want {
		t.Errorf("feedback of turn 1:\n%s\nwant:\n%s", got, want)
	}
}
