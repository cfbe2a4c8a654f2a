package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm"
	"github.com/ptc-go/ptc/signature"
)

// An agent in tool-calling mode (Config.Mode "tools") has its model call
// its tools through the provider's native function calling instead of
// writing programs, for models that call tools well and write poor Lisp.
// The calls of a reply run as one program the agent writes for them, a
// pcalls of (tool/name args) each caught apart: so they go through what a
// program's calls go through (argument validation, the firewall, the
// limits, MaxParallel, events and the trace), and the turn's trace shows
// that program. The answer is a call of the return tool, whose arguments
// are the signature's output (wrapped as {"value": ...} when it is not a
// map), checked as a returned value is; fail ends the mission as (fail
// ...) does.

// toolSpecs are the functions a tool-mode agent's model may call: its
// tools, return and fail.
func (a *Agent) toolSpecs() []llm.ToolSpec {
	var specs []llm.ToolSpec
	a.wireNames = map[string]string{}
	taken := map[string]bool{"return": true, "fail": true}
	for _, n := range a.names {
		taken[n] = true
	}
	for _, ts := range a.ToolSchemas() {
		params := ts.InputSchema
		if params == nil || params["type"] != "object" {
			params = map[string]any{"type": "object"}
		}
		// Providers take function names of letters, digits, _ and -: a
		// tool name's dots become _ (and a suffix when that is taken).
		wire := ts.Name
		if strings.Contains(wire, ".") {
			base := strings.ReplaceAll(wire, ".", "_")
			wire = base
			for i := 2; taken[wire]; i++ {
				wire = fmt.Sprintf("%s_%d", base, i)
			}
			taken[wire] = true
		}
		a.wireNames[wire] = ts.Name
		specs = append(specs, llm.ToolSpec{Name: wire, Description: ts.Description, Parameters: params})
	}
	ret := map[string]any{"type": "object"}
	if a.sig != nil && a.sig.Output.Kind != signature.Any {
		out := a.sig.OutputSchema()
		if out["type"] == "object" {
			ret = out
		} else {
			ret = map[string]any{"type": "object", "properties": map[string]any{"value": out}, "required": []any{"value"}}
		}
	}
	specs = append(specs,
		llm.ToolSpec{Name: "return", Description: "Ends the task with its answer: call it alone, when you have the answer.", Parameters: ret},
		llm.ToolSpec{Name: "fail", Description: "Ends the task as failed, when it cannot be done.",
			Parameters: map[string]any{"type": "object", "properties": map[string]any{
				"reason":  map[string]any{"type": "string", "description": "a short snake_case reason"},
				"message": map[string]any{"type": "string", "description": "what went wrong"}}, "required": []any{"message"}}})
	return specs
}

// returnWraps reports whether the return tool's arguments wrap the answer
// as {"value": ...}.
func (a *Agent) returnWraps() bool {
	return a.sig != nil && a.sig.Output.Kind != signature.Any && a.sig.OutputSchema()["type"] != "object"
}

// toolsPrompt is a tool-mode agent's system prompt.
func (m *mission) toolsPrompt() string {
	sp := m.a.cfg.Presentation
	role := "You solve the user's task by calling the functions of this request, with the data below. " +
		"Call several at once when they do not depend on each other's results. " +
		"When you have the answer, call return with it, alone; call fail when the task cannot be done. " +
		"Values shown as \"" + Firewalled + "\" are hidden from you; the functions still get them."
	var data string
	if !m.a.inputInMessage {
		data = m.textData()
	}
	var parts []string
	for _, s := range []string{sp.Prefix, role, data, sp.Suffix} {
		if s = strings.TrimSpace(s); s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, "\n\n")
}

// toolTurn handles a tool-mode reply: its calls run (return and fail end
// the mission), and each call's result goes back to the model.
func (m *mission) toolTurn(tr *Turn, resp llm.Response) *ending {
	if len(resp.ToolCalls) == 0 {
		tr.Error = "Your reply calls no function."
		m.feedback(tr, resp.Content, tr.Error+" Call the functions of this request; call return with the answer."+m.textTurnInfo())
		return nil
	}
	if resp.Content != "" {
		m.messages = append(m.messages, llm.Message{Role: llm.Assistant, Content: resp.Content})
	}
	results := make([]string, len(resp.ToolCalls))
	type pending struct {
		i    int
		name string
		args *lisp.Map
	}
	var run []pending
	var end *ending
	for i, c := range resp.ToolCalls {
		m.messages = append(m.messages, llm.Message{Role: llm.Assistant, ToolCallID: c.ToolCallID, ToolName: c.ToolName, Content: c.Content})
		args, err := callArgs(c.Content)
		switch {
		case err != nil:
			results[i] = "Error: the arguments are not a JSON object: " + err.Error()
		case c.ToolName == "return":
			if end != nil || len(resp.ToolCalls) > 1 {
				results[i] = "Error: call return alone, once the other calls have given their results."
				continue
			}
			var v lisp.Value = args
			if m.a.returnWraps() {
				v, _ = args.Get(lisp.Keyword("value"))
			}
			tr.Result = v
			if issues := m.validateReturn(v); issues != nil {
				tr.Error = m.textValidationFeedback(v, issues)
				results[i] = tr.Error
				continue
			}
			end = &ending{value: v}
		case c.ToolName == "fail":
			end = &ending{fail: m.programFailValue(args)}
			results[i] = "The task ends as failed."
		case m.a.tools[m.a.wireNames[c.ToolName]] == nil:
			results[i] = fmt.Sprintf("Error: there is no function %q.", c.ToolName)
		default:
			run = append(run, pending{i: i, name: m.a.wireNames[c.ToolName], args: args})
		}
	}
	if end != nil {
		return end
	}
	if len(run) > 0 {
		var prog strings.Builder
		prog.WriteString("(vec (pcalls")
		for _, p := range run {
			fmt.Fprintf(&prog, "\n  (fn [] (try {:ok (tool/%s %s)} (catch Exception e {:error (ex-message e)})))",
				p.name, lisp.Print(p.args, lisp.PrintOptions{Exact: true}))
		}
		prog.WriteString("))")
		code := prog.String()
		tr.Program = code
		res, err := m.runLisp(tr, m.context, func(ctx context.Context, opts lisp.Options) (*lisp.Result, error) {
			p, err := m.compile(tr, code)
			if err != nil {
				return &lisp.Result{Namespace: opts.Namespace}, err
			}
			return p.Run(ctx, opts)
		})
		if err != nil {
			le := asLispError(err)
			if fail := m.endedByContext(le); fail != nil {
				return &ending{fail: fail}
			}
			msg := m.clip(le.Error(), m.a.format.FeedbackMaxChars)
			tr.Error = msg
			for _, p := range run {
				results[p.i] = "Error: " + msg
			}
		} else {
			tr.Result = res.Value
			m.fw.Add(res.Value, false)
			vec, _ := res.Value.(*lisp.Vector)
			for k, p := range run {
				var out lisp.Value
				if vec != nil && k < vec.Len() {
					out = vec.At(k)
				}
				results[p.i] = m.callResultText(out)
			}
		}
	}
	for i, c := range resp.ToolCalls {
		m.messages = append(m.messages, llm.Message{Role: llm.User, ToolCallID: c.ToolCallID, Content: results[i]})
	}
	if m.opts.Trace == TraceConversation {
		tr.Feedback = strings.Join(results, "\n")
	}
	return nil
}

// callArgs reads a call's JSON arguments: an object ({} when empty).
func callArgs(text string) (*lisp.Map, error) {
	if strings.TrimSpace(text) == "" {
		return lisp.NewMap(), nil
	}
	if !json.Valid([]byte(text)) {
		return nil, fmt.Errorf("not JSON")
	}
	v, err := lisp.Read(text, lisp.ReadOptions{Format: lisp.ReadJSON})
	if err != nil {
		return nil, err
	}
	m, ok := v.(*lisp.Map)
	if !ok {
		return nil, fmt.Errorf("a %s, not an object", lisp.TypeName(v))
	}
	return m, nil
}

// callResultText is a call's outcome ({:ok v} or {:error msg}) as the
// model is shown it: the value as JSON, firewalled parts hidden, bounded.
func (m *mission) callResultText(out lisp.Value) string {
	om, _ := out.(*lisp.Map)
	if om == nil {
		return "Error: the call did not run."
	}
	if e, ok := om.Get(lisp.Keyword("error")); ok {
		return "Error: " + m.clip(m.fw.Scrub(fmt.Sprint(e)), m.a.format.FeedbackMaxChars)
	}
	v, _ := om.Get(lisp.Keyword("ok"))
	data, err := lisp.ToJSON(v, m.fw.Redaction())
	if err != nil {
		return m.show(v, 20, m.a.format.ResultMaxChars*4)
	}
	return cutData(m.fw.Scrub(string(data)), "result")
}
