package bundled_test

import (
	"context"
	"strings"
	"testing"

	"github.com/ptc-go/ptc/eval"
	"github.com/ptc-go/ptc/eval/bundled"
	"github.com/ptc-go/ptc/internal/bundledtest"
	"github.com/ptc-go/ptc/llm"
)

func openSuite(t *testing.T) *bundled.Suite { return bundledtest.Open(t) }

// Every task passes with its reference solution, on every case.
func TestReferenceSolvesEveryTask(t *testing.T) {
	s := openSuite(t)
	rep, err := eval.Run(context.Background(), s.EvalTasks(), eval.Config{
		Variants: []eval.Variant{{Name: "reference", Model: s.Reference()}},
		Parallel: 2,
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Results {
		if !r.Passed {
			t.Errorf("%s, %s: %s", r.Task, r.Case, r.Why)
		}
	}
}

// No case passes with a decoy: the checks do not pass by accident.
func TestDecoysFail(t *testing.T) {
	s := openSuite(t)
	for _, task := range s.Tasks {
		if len(task.Decoys) == 0 {
			t.Errorf("%s has no decoys", task.Name)
		}
		for i, decoy := range task.Decoys {
			model := llm.Func(func(ctx context.Context, req llm.Request) (llm.Response, error) {
				if req.Turn == 1 && isRoot(task, req) {
					return llm.Response{Content: "```clojure\n" + decoy + "\n```"}, nil
				}
				reply, _ := task.Solve(req)
				return llm.Response{Content: reply}, nil
			})
			one := task.Task
			one.Config.MaxTurns = 1 // the decoy is the whole answer
			rep, err := eval.Run(context.Background(), []eval.Task{one}, eval.Config{Variants: []eval.Variant{{Name: "decoy", Model: model}}})
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range rep.Results {
				if r.Passed {
					t.Errorf("%s, %s: decoy %d passes: %s", task.Name, r.Case, i+1, decoy)
				}
			}
		}
	}
}

// isRoot reports whether req is the task's own mission (not a nested
// agent's or an LLM tool's): its prompt is the task's, expanded.
func isRoot(task bundled.Task, req llm.Request) bool {
	head, _, _ := strings.Cut(task.Config.Prompt, "{{")
	return strings.HasPrefix(req.Prompt, head)
}

// The suite has the tasks the issue asks for: at least 20, named uniquely,
// each with cases.
func TestSuiteShape(t *testing.T) {
	s := openSuite(t)
	names := map[string]bool{}
	for _, task := range s.Tasks {
		if names[task.Name] {
			t.Errorf("two tasks are named %s", task.Name)
		}
		names[task.Name] = true
		if len(task.Cases) == 0 || task.Description == "" || len(task.Tags) == 0 {
			t.Errorf("%s: %d cases, description %q, tags %v", task.Name, len(task.Cases), task.Description, task.Tags)
		}
	}
}

// Every task passes in tool-calling mode with a model that answers with
// native tool calls (the Reference answers with its tool calls), several at once where the reference
// program makes them in a pmap, but the one that needs a firewalled value
// passed on: that model is never shown it, and says so.
func TestReferenceSolvesEveryTaskWithToolCalls(t *testing.T) {
	s := openSuite(t)
	var stats bundledtest.Stats
	bundledtest.RunToolMode(t, bundledtest.Counting(s.Reference(), &stats))
	stats.Check(t)
}
