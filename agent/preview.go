package agent

import (
	"context"
	"errors"

	"github.com/ptc-go/ptc/lisp"
)

// Preview is what turn 1 of a mission would send an LLM: the system
// prompt, the expanded mission, and the tools as schemas.
type Preview struct {
	// System is the system prompt of turn 1.
	System string
	// User is the mission prompt with its placeholders filled in, the first
	// user message (an LLM tool's followed by the data inventory of its
	// input, which its system prompt then leaves out).
	User string
	// Tools are the schemas of the tools the programs can call.
	Tools []ToolSchema
}

// ToolSchema describes a tool for documentation and for provider tool
// definitions. Firewalled output fields are left out: they are hidden from
// LLMs.
type ToolSchema struct {
	Name string
	// Signature is the compact form, "(query :string) -> [{id :int}]";
	// "" for a tool without one.
	Signature   string
	Description string
	// InputSchema and OutputSchema are JSON Schemas of the arguments and
	// of the result ({"type": "object"} and {} for a tool without a
	// signature).
	InputSchema, OutputSchema map[string]any
	// Unlisted reports a tool the system prompt does not list (Tool.Unlisted).
	Unlisted bool
}

// PreviewPrompt builds the prompts of a mission exactly as turn 1 of Run
// would, without calling an LLM: to check a template's expansion, read the
// data inventory, measure the system prompt or review it. opts.LLM is not
// needed; a context that Run would reject (a failed chained Step, input
// that breaks the signature, a missing placeholder) is an error.
func PreviewPrompt(a *Agent, opts Options) (p *Preview, err error) {
	if a == nil || a.prompt == nil {
		return nil, errors.New("agent: PreviewPrompt of a nil agent, or one not made by New")
	}
	m := &mission{a: a, opts: opts, parent: context.Background(), memory: lisp.NewNamespace(nil)}
	defer func() {
		if r := recover(); r != nil { // a prompt hook panicked: an internal_error, as in Run
			p, err = nil, m.panicFail(r)
		}
	}()
	if fail := m.setContext(); fail != nil {
		return nil, fail
	}
	m.fw = newFirewall(a, m.context, nil)
	if fail := m.expandPrompt(); fail != nil {
		return nil, fail
	}
	m.turn = 1
	return &Preview{System: m.systemPrompt(), User: m.prompt, Tools: a.ToolSchemas()}, nil
}

// ToolSchemas returns the schemas of the agent's tools, sorted by name.
// Catalog entries are not included: they cannot be called.
func (a *Agent) ToolSchemas() []ToolSchema {
	if a == nil {
		return nil
	}
	out := make([]ToolSchema, 0, len(a.names))
	for _, name := range a.names {
		bt := a.tools[name]
		ts := ToolSchema{Name: name, Description: bt.desc, Unlisted: bt.unlisted}
		if bt.sig == nil {
			ts.InputSchema = map[string]any{"type": "object"}
			ts.OutputSchema = map[string]any{}
		} else {
			pub := bt.sig.Public()
			ts.Signature = pub.String()
			ts.InputSchema = pub.InputSchema()
			ts.OutputSchema = pub.OutputSchema()
		}
		out = append(out, ts)
	}
	return out
}
