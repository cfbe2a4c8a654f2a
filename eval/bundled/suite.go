package bundled

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/ptc-go/ptc/eval"
	"github.com/ptc-go/ptc/llm"
)

// Task is a bundled task: the eval.Task, with how a competent model
// solves it and wrong answers its checks must refuse.
type Task struct {
	eval.Task
	// Solve answers one LLM request of the task's missions (its agent's,
	// and those of the agents and LLM tools it calls) with the reply a
	// competent model would give, usually a program; ok is false for a
	// request that is not the task's.
	Solve func(req llm.Request) (reply string, ok bool)
	// Decoys are programs a careless model might return (the agent's
	// whole answer, on turn 1): every case must fail with each of them.
	Decoys []string
}

// Suite is the bundled suite, open: its tasks, and what Close ends (the
// in-process MCP server of the MCP task).
type Suite struct {
	Tasks  []Task
	closes []func() error
}

// builders make the tasks, in the order listed.
var builders = []func(ctx context.Context) (Task, func() error, error){}

// Open builds the suite's tasks. Close it when done.
func Open(ctx context.Context) (*Suite, error) {
	s := &Suite{}
	for _, b := range builders {
		t, closeFn, err := b(ctx)
		if err != nil {
			_ = s.Close()
			return nil, err
		}
		s.Tasks = append(s.Tasks, t)
		if closeFn != nil {
			s.closes = append(s.closes, closeFn)
		}
	}
	slices.SortStableFunc(s.Tasks, func(a, b Task) int { return strings.Compare(a.Name, b.Name) })
	return s, nil
}

// Close ends what Open started.
func (s *Suite) Close() error {
	var errs []error
	for _, c := range s.closes {
		errs = append(errs, c())
	}
	s.closes = nil
	return errors.Join(errs...)
}

// EvalTasks returns the tasks as eval.Run takes them.
func (s *Suite) EvalTasks() []eval.Task {
	out := make([]eval.Task, len(s.Tasks))
	for i, t := range s.Tasks {
		out[i] = t.Task
	}
	return out
}

// Reference is the model that answers every request of the suite's
// missions with the task's reference reply: a program, or, to a request
// that declares functions (an agent in tool-calling mode, Config.Mode
// "tools"), the tool calls those programs make (see toolReply). A
// request no task claims fails (class config_error).
func (s *Suite) Reference() llm.Func {
	tasks := s.Tasks
	return func(ctx context.Context, req llm.Request) (llm.Response, error) {
		for _, t := range tasks {
			if len(req.Tools) > 0 {
				if resp, ok, err := toolReply(ctx, t, req); ok || err != nil {
					return resp, err
				}
				continue
			}
			if reply, ok := t.Solve(req); ok {
				return llm.Response{Content: reply, Model: "reference",
					Tokens: llm.Tokens{Input: (len(req.System) + promptLen(req) + 3) / 4, Output: (len(reply) + 3) / 4}}, nil
			}
		}
		return llm.Response{}, &llm.Error{Class: llm.ClassConfig, Message: fmt.Sprintf("the reference has no answer to turn %d of %q", req.Turn, firstLine(req.Prompt))}
	}
}

func promptLen(req llm.Request) int {
	n := 0
	for _, m := range req.Messages {
		n += len(m.Content)
	}
	return n
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > 60 {
		s = s[:60] + "…"
	}
	return s
}

// program wraps a program as a model's reply.
func program(src string) string { return "```clojure\n" + strings.TrimSpace(src) + "\n```" }

// hasPrompt reports whether req is a mission whose prompt starts with
// prefix.
func hasPrompt(req llm.Request, prefix string) bool { return strings.HasPrefix(req.Prompt, prefix) }
