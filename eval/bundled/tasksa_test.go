package bundled_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/ptc-go/ptc/eval"
	"github.com/ptc-go/ptc/eval/bundled"
	"github.com/ptc-go/ptc/llm"
)

// taskNamed returns the suite's task name.
func taskNamed(t *testing.T, s *bundled.Suite, name string) bundled.Task {
	t.Helper()
	for _, task := range s.Tasks {
		if task.Name == name {
			return task
		}
	}
	t.Fatalf("no task %s", name)
	return bundled.Task{}
}

// requestText is everything a model is sent in req.
func requestText(req llm.Request) string {
	var b strings.Builder
	b.WriteString(req.System)
	for _, m := range req.Messages {
		b.WriteString("\n")
		b.WriteString(m.Content)
	}
	return b.String()
}

// The references of the multi-turn tasks take the turns their tasks are
// about (explore, then answer; fail on the tool's format, then recover;
// a page a turn), and the model is never shown what it must not see.
func TestTasksAReferenceTurns(t *testing.T) {
	s := openSuite(t)
	tests := []struct {
		task              string
		turns, errorTurns int
		never             []string // in no request the model receives
	}{
		{"explore-unknown-shape", 3, 0, nil},
		{"recover-from-tool-error", 2, 1, nil},
		{"paging-audit-log", 5, 0, nil},
		{"single-shot-median", 1, 0, nil},
		{"firewall-hidden-emails", 2, 0, []string{"@mailbox.example", "@post.example", "@inbox.example"}},
		{"join-orders-customers", 1, 0, nil},
		{"text-tickets-refunds", 1, 0, nil},
		{"dates-overdue-invoices", 1, 0, nil},
		{"fold-running-balance", 1, 0, nil},
		{"top-n-with-ties", 1, 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.task, func(t *testing.T) {
			task := taskNamed(t, s, tt.task)
			var mu sync.Mutex
			var seen []string
			ref := s.Reference()
			model := llm.Func(func(ctx context.Context, req llm.Request) (llm.Response, error) {
				mu.Lock()
				seen = append(seen, requestText(req))
				mu.Unlock()
				return ref(ctx, req)
			})
			rep, err := eval.Run(context.Background(), []eval.Task{task.Task}, eval.Config{Variants: []eval.Variant{{Name: "reference", Model: model}}})
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Results) != len(task.Cases) || len(task.Cases) < 2 {
				t.Fatalf("%d results, %d cases", len(rep.Results), len(task.Cases))
			}
			for _, r := range rep.Results {
				if !r.Passed || r.Turns != tt.turns || r.ErrorTurns != tt.errorTurns {
					t.Errorf("%s: passed %v (%s), %d turns, %d error turns; want %d and %d", r.Case, r.Passed, r.Why, r.Turns, r.ErrorTurns, tt.turns, tt.errorTurns)
				}
			}
			for _, text := range seen {
				for _, bad := range tt.never {
					if strings.Contains(text, bad) {
						t.Errorf("a request shows %q", bad)
					}
				}
			}
		})
	}
}

// Each task's cases expect different answers: a constant answer cannot
// pass two of them.
func TestTasksACasesDiffer(t *testing.T) {
	s := openSuite(t)
	for _, name := range []string{"explore-unknown-shape", "recover-from-tool-error", "paging-audit-log", "single-shot-median",
		"firewall-hidden-emails", "join-orders-customers", "text-tickets-refunds", "dates-overdue-invoices",
		"fold-running-balance", "top-n-with-ties"} {
		task := taskNamed(t, s, name)
		seen := map[string]string{}
		for _, c := range task.Cases {
			var b strings.Builder
			for _, chk := range c.Checks {
				b.WriteString(chk.String())
			}
			if other, ok := seen[b.String()]; ok {
				t.Errorf("%s: cases %s and %s expect the same: %s", name, other, c.Name, b.String())
			}
			seen[b.String()] = c.Name
		}
	}
}

// The paging task is solved by a loop in one program as well as by the
// reference's page a turn.
func TestTasksAPagingInOneProgram(t *testing.T) {
	s := openSuite(t)
	task := taskNamed(t, s, "paging-audit-log")
	const loop = "```clojure\n" + `(let [all (loop [page (tool/events {}) acc []]
            (let [acc (into acc (:items page))]
              (if-let [c (:next_cursor page)] (recur (tool/events {:cursor c}) acc) acc)))
      mine (filter (where :kind = ctx/kind) all)]
  (return {:count (count mine) :bytes (sum-by :bytes mine) :last_id (:id (last mine)) :users (sort (distinct (map :user mine)))}))` + "\n```"
	model := llm.Func(func(ctx context.Context, req llm.Request) (llm.Response, error) {
		return llm.Response{Content: loop}, nil
	})
	rep, err := eval.Run(context.Background(), []eval.Task{task.Task}, eval.Config{Variants: []eval.Variant{{Name: "loop", Model: model}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Results {
		if !r.Passed || r.Turns != 1 {
			t.Errorf("%s: passed %v (%s) in %d turns", r.Case, r.Passed, r.Why, r.Turns)
		}
	}
}
