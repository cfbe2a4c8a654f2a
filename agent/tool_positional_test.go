package agent_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm/llmtest"
)

// TestUntypedToolPositionalArgs: a positional argument to a tool without a
// signature never reaches it as a silent nil (docs/agents.md, "Tools
// without a signature").
func TestUntypedToolPositionalArgs(t *testing.T) {
	upper := func(_ context.Context, args *lisp.Map) (any, error) {
		v, _ := args.Get(lisp.Keyword("text"))
		s, ok := v.(string)
		if !ok {
			return nil, errors.New("text: expected a string, got nil")
		}
		return strings.ToUpper(s), nil
	}
	cases := []struct {
		name    string
		tool    agent.Tool
		program string
		want    string // the value, or the error's text in part
	}{
		{"one named argument takes the one value",
			agent.Tool{Func: upper, Description: "Upper-cases.", FieldDescriptions: map[string]string{"text": "the text"}},
			`(return (tool/upper "abc"))`, `"ABC"`},
		{"a map still works",
			agent.Tool{Func: upper, Description: "Upper-cases.", FieldDescriptions: map[string]string{"text": "the text"}},
			`(return (tool/upper {:text "abc"}))`, `"ABC"`},
		{"several named arguments: refused with the calling form",
			agent.Tool{Func: upper, Description: "Upper-cases.", FieldDescriptions: map[string]string{"text": "the text", "lang": "a language"}},
			`(return (tool/upper "abc" "en"))`, `tool upper takes its arguments by name, in a map: (tool/upper {:lang … :text …}); the call passed 2 positional arguments`},
		{"no named arguments: the tool's error says how they arrived",
			agent.Tool{Func: upper, Description: "(tool/upper {:text s}) upper-cases s."},
			`(return (tool/upper "abc"))`, `text: expected a string, got nil (the call passed 1 positional argument, which tool upper gets as {:args [...]}`},
		{"no named arguments: a tool that reads :args gets them",
			agent.Tool{Func: func(_ context.Context, args *lisp.Map) (any, error) {
				v, _ := args.Get(lisp.Keyword("args"))
				return lisp.Print(v, lisp.PrintOptions{}), nil
			}, Description: "Echoes."},
			`(return (tool/upper "abc" 1))`, `"[\"abc\" 1]"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a, err := agent.New(agent.Config{Prompt: "go", MaxTurns: 1, Tools: map[string]agent.Tool{"upper": c.tool}})
			if err != nil {
				t.Fatal(err)
			}
			s := llmtest.NewScript(llmtest.Code(c.program))
			step, _ := a.Run(context.Background(), agent.Options{LLM: s.Func()})
			var got string
			if step.Fail != nil {
				got = step.Fail.Message
				if len(step.Trace) > 0 {
					got = step.Trace[0].Error // what the model was told
				}
			} else {
				got = lisp.Print(step.Return, lisp.PrintOptions{})
			}
			if !strings.Contains(got, c.want) {
				t.Errorf("got %s\nwant %s", got, c.want)
			}
		})
	}
}
