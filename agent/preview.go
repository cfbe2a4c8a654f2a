package agent

import (
	"context"
	"errors"

	"github.com/ptc-go/ptc/agent/prompt"
	"github.com/ptc-go/ptc/lisp"
)

// Preview builds the prompts of a mission exactly as turn 1 of Run
// would, without calling an LLM: to check a template's expansion, read the
// data inventory, measure the system prompt or review it. opts.LLM is not
// needed; a context that Run would reject (a failed chained Step, input
// that breaks the signature, a missing placeholder) is an error.
func (a *Agent) Preview(opts Options) (p *prompt.Preview, err error) {
	if a == nil || a.prompt == nil {
		return nil, errors.New("agent: Preview of a nil agent, or one not made by New")
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
	return &prompt.Preview{System: m.systemPrompt(), User: m.prompt, Tools: a.ToolSchemas()}, nil
}

// ToolSchemas returns the schemas of the agent's tools, sorted by name.
// Catalog entries are not included: they cannot be called.
func (a *Agent) ToolSchemas() []prompt.ToolSchema {
	if a == nil {
		return nil
	}
	out := make([]prompt.ToolSchema, 0, len(a.names))
	for _, name := range a.names {
		bt := a.tools[name]
		ts := prompt.ToolSchema{Name: name, Description: bt.desc, Unlisted: bt.unlisted}
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
