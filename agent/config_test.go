package agent_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/agent/prompt"
	"github.com/ptc-go/ptc/lisp"
)

func nop(context.Context, *lisp.Map) (any, error) { return nil, nil }

func TestNewValidates(t *testing.T) {
	tests := []struct {
		name   string
		cfg    agent.Config
		field  string
		reason string
		msg    string
	}{
		{"no prompt", agent.Config{}, "Prompt", "invalid_config", "required"},
		{"blank prompt", agent.Config{Prompt: "  "}, "Prompt", "invalid_config", "required"},
		{"negative turns", agent.Config{Prompt: "p", MaxTurns: -1}, "MaxTurns", "invalid_config", "at least 1"},
		{"negative depth", agent.Config{Prompt: "p", MaxNesting: -2}, "MaxNesting", "invalid_config", "positive"},
		{"bad signature", agent.Config{Prompt: "p", Signature: "(a) -> :int"}, "Signature", "invalid_signature", "expected a type"},
		{"placeholder not in signature", agent.Config{Prompt: "Find {{user}}", Signature: "(person :string) -> :int"},
			"Prompt", "template_error", "{{user}} not found in signature"},
		{"bad template", agent.Config{Prompt: "Find {{#items}}"}, "Prompt", "template_error", "unclosed section"},
		{"reserved return", agent.Config{Prompt: "p", Tools: map[string]agent.Tool{"return": agent.Tool{Func: nop}}},
			"Tools", "reserved_tool_name", "return and fail"},
		{"reserved fail", agent.Config{Prompt: "p", Tools: map[string]agent.Tool{"fail": agent.Tool{Func: nop}}},
			"Tools", "reserved_tool_name", "return and fail"},
		{"tool without func", agent.Config{Prompt: "p", Tools: map[string]agent.Tool{"t": {}}}, "Tools", "invalid_config", "no Func"},
		{"bad tool name", agent.Config{Prompt: "p", Tools: map[string]agent.Tool{"a b": agent.Tool{Func: nop}}}, "Tools", "invalid_config", "not a PTC-Lisp name"},
		{"leading dot", agent.Config{Prompt: "p", Tools: map[string]agent.Tool{".a": agent.Tool{Func: nop}}}, "Tools", "invalid_config", "not a PTC-Lisp name"},
		{"trailing dot", agent.Config{Prompt: "p", Tools: map[string]agent.Tool{"a.": agent.Tool{Func: nop}}}, "Tools", "invalid_config", "not a PTC-Lisp name"},
		{"double dot", agent.Config{Prompt: "p", Tools: map[string]agent.Tool{"a..b": agent.Tool{Func: nop}}}, "Tools", "invalid_config", "not a PTC-Lisp name"},
		{"bad tool signature", agent.Config{Prompt: "p", Tools: map[string]agent.Tool{"t": {Func: nop, Signature: "{x}"}}},
			"Tools", "invalid_signature", `tool "t"`},
		{"catalog clash", agent.Config{Prompt: "p", Tools: map[string]agent.Tool{"t": agent.Tool{Func: nop}},
			ToolCatalog: map[string]agent.Tool{"t": {}}}, "ToolCatalog", "invalid_config", "both"},
		{"descriptions without signature", agent.Config{Prompt: "p", FieldDescriptions: map[string]string{"a": "b"}},
			"FieldDescriptions", "invalid_config", "needs a Signature"},
		{"unknown profile", agent.Config{Prompt: "p", Presentation: prompt.Options{Language: "tiny"}},
			"Presentation.Language", "invalid_config", "unknown profile"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := agent.New(tt.cfg)
			var ce *agent.Fail
			if !errors.As(err, &ce) {
				t.Fatalf("err %v, want a *Fail", err)
			}
			if ce.Op != tt.field || string(ce.Reason) != tt.reason || !strings.Contains(ce.Error(), tt.msg) {
				t.Errorf("got %s / %s: %v; want %s / %s / %q", ce.Op, ce.Reason, err, tt.field, tt.reason, tt.msg)
			}
		})
	}
	_, err := agent.New(agent.Config{Prompt: "p", Tools: map[string]agent.Tool{"return": agent.Tool{Func: nop}}})
	if !errors.Is(err, agent.ReasonReservedToolName) {
		t.Errorf("errors.Is(reserved): %v", err)
	}
}

func TestDefaults(t *testing.T) {
	a := agent.MustNew(agent.Config{Prompt: "p"})
	c := a.Config()
	if c.MaxTurns != 5 || c.MaxAgentMemory != 1<<20 || c.MaxNesting != 3 || c.MaxTreeTurns != 20 || c.Presentation.FloatPrecision != 2 {
		t.Errorf("defaults %+v", c)
	}
	if c.Presentation.FeedbackLimit != 10 || c.Presentation.FeedbackMaxChars != 512 ||
		c.Presentation.HistoryMaxBytes != 512 || c.Presentation.ResultLimit != 50 || c.Presentation.ResultMaxChars != 500 {
		t.Errorf("format %+v", c.Presentation)
	}
	if a.SingleShot() {
		t.Error("5 turns is not single-shot")
	}
	if !agent.MustNew(agent.Config{Prompt: "p", MaxTurns: 1}).SingleShot() {
		t.Error("1 turn without tools is single-shot")
	}
	if agent.MustNew(agent.Config{Prompt: "p", MaxTurns: 1, Tools: map[string]agent.Tool{"t": agent.Tool{Func: nop}}}).SingleShot() {
		t.Error("1 turn with tools is not single-shot")
	}
}
