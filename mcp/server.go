package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm"
)

// AddAgent serves a as the MCP tool name: each call runs a full mission,
// with the call's arguments as its context.
//
//   - Schemas: the input schema is the JSON Schema of the signature's
//     parameters, the output schema that of its output; firewalled ("_")
//     fields are left out of both. An agent without a signature takes any
//     object.
//   - Result: the mission's value, with its firewalled fields removed and
//     values copied from firewalled data shown as agent.Firewalled, is the
//     result's structuredContent, and its JSON a text content. MCP wants
//     structured content to be an object: a value of another type (a
//     list, a number, the value of an agent without an output record) is
//     wrapped as {"result": value}, and the output schema says so.
//   - Failure: a failed mission is a tool error (isError) whose text is
//     its reason and message, which the agent has already scrubbed of
//     firewalled data.
//
// opts are the base options of every mission: the model (opts.LLM, unless
// the agent's Config.LLM names one), registry, retries, validation,
// budgets... Their Context, when set (a map, a struct or a *lisp.Map),
// holds defaults the call's arguments go over: fixed data the client need
// not send.
//
// The tool's description is the agent's Config.Description, which must be
// set, for the client's model; a name the service already serves, or one
// MCP does not allow (letters, digits, _, - and dots), is an error too.
func (s *Service) AddAgent(name string, a *agent.Agent, opts agent.Options) error {
	if a == nil {
		return fmt.Errorf("mcp: AddAgent %q: nil agent", name)
	}
	cfg := a.Config()
	desc := cfg.Description
	if strings.TrimSpace(desc) == "" {
		return fmt.Errorf("mcp: AddAgent %q: the agent needs a description for the client's model: set its Config.Description", name)
	}
	if opts.LLM == nil && cfg.LLM == nil {
		return fmt.Errorf("mcp: AddAgent %q: no model runs the missions: set the options' LLM", name)
	}
	in := map[string]any{"type": "object"}
	out := map[string]any{}
	if sig := a.Signature(); sig != nil {
		pub := sig.Public()
		in = pub.InputSchema()
		out = pub.OutputSchema()
	}
	in = withoutFirewalledParams(in)
	outSchema, wrap := objectSchema(out)
	base := opts
	var defaults *lisp.Map
	if base.Input != nil {
		v, err := lisp.FromGo(base.Input)
		m, ok := v.(*lisp.Map)
		if err != nil || !ok {
			return fmt.Errorf("mcp: AddAgent %q: Options.Input must be a map of defaults, got %T", name, base.Input)
		}
		defaults = m
		in = withoutRequired(in, m)
	}
	handler := func(ctx context.Context, req *mcpsdk.CallToolRequest) (*mcpsdk.CallToolResult, error) {
		args, err := parseArguments(req)
		if err != nil {
			return errorResult(err.Error()), nil
		}
		o := base
		o.Input = args
		if defaults != nil {
			o.Input = mergeArgs(defaults, args)
		}
		step, _ := a.Run(ctx, o)
		return stepResult(step, wrap, failErrorText), nil
	}
	tool := &mcpsdk.Tool{Name: name, Description: desc, InputSchema: in, OutputSchema: outSchema}
	return s.add("an agent", []*mcpsdk.Tool{tool}, []mcpsdk.ToolHandler{handler})
}

// AddTools serves Go tools as MCP tools, one each, under their names:
// their arguments are checked and coerced against their signatures as a
// program's calls are, and their results are returned as AddAgent returns
// a mission's value (firewalled fields removed, non-objects wrapped as
// {"result": value}). A tool without a signature takes any object. A
// tool's error, or its panic, is a tool error (isError) with the tool's
// message.
//
// The tools are validated as agent.New validates them (a tool without a
// Func, a bad signature...), and their names as MCP names; any error adds
// none of them. Agents and LLM tools (Agent.AsTool, NewLLMTool) are served
// by running their mission, as their Func does; its result is shown as
// AddAgent shows a mission's, through the mission's firewall.
func (s *Service) AddTools(tools map[string]agent.Tool) error {
	names := slices.Sorted(maps.Keys(tools))
	defs := make([]*mcpsdk.Tool, 0, len(names))
	handlers := make([]mcpsdk.ToolHandler, 0, len(names))
	for _, name := range names {
		def, h, err := goTool(name, tools[name])
		if err != nil {
			return err
		}
		defs = append(defs, def)
		handlers = append(handlers, h)
	}
	return s.add("a Go tool", defs, handlers)
}

// goTool returns the definition and the handler of one Go tool.
func goTool(name string, t agent.Tool) (*mcpsdk.Tool, mcpsdk.ToolHandler, error) {
	if err := validName(name); err != nil {
		return nil, nil, err
	}
	// No clock on the one-call program that runs the tool: the client's
	// context bounds the call.
	a, err := agent.New(agent.Config{Prompt: "Answer MCP calls of tool " + name + ".",
		Tools: map[string]agent.Tool{name: t}, Limits: lisp.Limits{Timeout: -1}, MissionTimeout: -1})
	if err != nil {
		return nil, nil, fmt.Errorf("mcp: AddTools: %w", err)
	}
	ts := a.ToolSchemas()[0]
	outSchema, wrap := objectSchema(ts.OutputSchema)
	def := &mcpsdk.Tool{Name: name, Description: ts.Description,
		InputSchema: withoutFirewalledParams(ts.InputSchema), OutputSchema: outSchema}
	// One program calls the tool with the call's arguments, so that
	// coercion, validation, the firewall and panic recovery are the same
	// as in a mission.
	compiled, err := a.CompileSource("(tool/" + name + " ctx/args)")
	switch {
	case errors.Is(err, agent.ReasonNotCompilable):
		// A tool whose calls need an LLM: an agent tool or an LLM tool.
		child, model, ok := a.Engine().NestedTool(name)
		if !ok {
			return nil, nil, fmt.Errorf("mcp: AddTools: tool %q: %w", name, err)
		}
		return def, nestedHandler(child.(*agent.Agent), model, wrap), nil
	case err != nil:
		return nil, nil, fmt.Errorf("mcp: AddTools: tool %q: %w", name, err)
	}
	h := func(ctx context.Context, req *mcpsdk.CallToolRequest) (*mcpsdk.CallToolResult, error) {
		args, err := parseArguments(req)
		if err != nil {
			return errorResult(err.Error()), nil
		}
		step, _ := compiled.Execute(ctx, lisp.NewMap("args", args))
		return stepResult(step, wrap, callFailText), nil
	}
	return def, h, nil
}

// nestedHandler serves an agent tool or an LLM tool by running its
// mission, as its Func would, keeping the Step: its firewall hides from
// the client what the mission's program copied out of firewalled data.
func nestedHandler(child *agent.Agent, model llm.Model, wrap bool) mcpsdk.ToolHandler {
	return func(ctx context.Context, req *mcpsdk.CallToolRequest) (*mcpsdk.CallToolResult, error) {
		args, err := parseArguments(req)
		if err != nil {
			return errorResult(err.Error()), nil
		}
		step, _ := child.Run(ctx, agent.Options{LLM: model, Input: args})
		return stepResult(step, wrap, failErrorText), nil
	}
}

// stepResult is the result of a mission: its value for a reader outside
// its firewall, or its failure, whose text (made by failText) is scrubbed
// by the firewall.
func stepResult(step *agent.Step, wrap bool, failText func(*agent.Fail) string) *mcpsdk.CallToolResult {
	if step.Fail != nil {
		return errorResult(step.Scrub(failText(step.Fail)))
	}
	res, _ := valueResult(step, step.Return, wrap)
	return res
}

func failErrorText(f *agent.Fail) string { return f.Error() }

// add registers tools with their handlers, all or none.
func (s *Service) add(kind string, defs []*mcpsdk.Tool, handlers []mcpsdk.ToolHandler) (err error) {
	names := make([]string, len(defs))
	for i, d := range defs {
		names[i] = d.Name
	}
	if err := s.reserve(kind, names...); err != nil {
		return err
	}
	// The SDK panics on a schema it cannot use; ours are objects, but no
	// panic may cross this API.
	defer func() {
		if r := recover(); r != nil {
			s.srv.RemoveTools(names...)
			s.release(names...)
			err = fmt.Errorf("mcp: adding %s: %v", strings.Join(names, ", "), r)
		}
	}()
	for i, d := range defs {
		s.srv.AddTool(d, handlers[i])
	}
	return nil
}

// parseArguments returns the arguments of a call as a map with string keys
// (empty when there are none).
func parseArguments(req *mcpsdk.CallToolRequest) (*lisp.Map, error) {
	if req == nil || req.Params == nil {
		return lisp.NewMap(), nil
	}
	raw := bytes.TrimSpace(req.Params.Arguments)
	if len(raw) == 0 || string(raw) == "null" {
		return lisp.NewMap(), nil
	}
	v, err := lisp.Read(string(raw), lisp.ReadOptions{Format: lisp.ReadJSON})
	if err != nil {
		return nil, fmt.Errorf("invalid_arguments: the arguments are not JSON: %v", err)
	}
	m, ok := v.(*lisp.Map)
	if !ok {
		return nil, fmt.Errorf("invalid_arguments: the arguments must be a JSON object, got %s", lisp.TypeName(v))
	}
	return m, nil
}

// errorResult is a tool error: the client's model reads msg.
func errorResult(msg string) *mcpsdk.CallToolResult {
	return &mcpsdk.CallToolResult{IsError: true, Content: []mcpsdk.Content{&mcpsdk.TextContent{Text: msg}}}
}

// valueResult is a successful result with value v, as a reader outside the
// firewall of step may see it (step nil: only "_" entries are hidden).
func valueResult(step *agent.Step, v lisp.Value, wrap bool) (*mcpsdk.CallToolResult, error) {
	x, err := publicValue(step, v)
	if err != nil {
		return errorResult("the value has no JSON form: " + err.Error()), nil
	}
	var sc any = x
	if wrap {
		sc = map[string]any{"result": x}
	}
	data, err := marshalJSON(sc)
	if err != nil {
		return errorResult("the value has no JSON form: " + err.Error()), nil
	}
	return &mcpsdk.CallToolResult{
		Content:           []mcpsdk.Content{&mcpsdk.TextContent{Text: string(data)}},
		StructuredContent: json.RawMessage(data),
	}, nil
}

// marshalJSON is json.Marshal without the escaping of <, > and &, which
// the client's model would read as \u003c: <Firewalled> stays readable.
func marshalJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// publicValue returns v as JSON data (maps, slices, strings, json.Number,
// bools, nil) for a reader outside the firewall of step: values the
// firewall hides are agent.Firewalled, entries under "_" keys are left
// out, and every string and key is scrubbed of firewalled text.
func publicValue(step *agent.Step, v lisp.Value) (any, error) {
	data, err := lisp.ToJSON(v, step.Redaction())
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var x any
	if err := dec.Decode(&x); err != nil {
		return nil, err
	}
	return clean(x, step.Scrub), nil
}

// clean drops the "_" entries of the maps in x, at every depth, and
// scrubs its strings and keys.
func clean(x any, scrub func(string) string) any {
	switch x := x.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, v := range x {
			if strings.HasPrefix(k, "_") {
				continue
			}
			out[scrub(k)] = clean(v, scrub)
		}
		return out
	case []any:
		for i, v := range x {
			x[i] = clean(v, scrub)
		}
		return x
	case string:
		return scrub(x)
	}
	return x
}

// objectSchema returns the output schema to declare for values of schema
// s: s itself when it describes a JSON object, else an object whose
// "result" property is s, and then wrap is true.
func objectSchema(s map[string]any) (schema map[string]any, wrap bool) {
	if t, ok := s["type"].(string); ok && t == "object" {
		return s, false
	}
	return map[string]any{
		"type":       "object",
		"properties": map[string]any{"result": s},
		"required":   []string{"result"},
	}, true
}

// withoutFirewalledParams removes firewalled ("_") parameters from an
// input schema: the client's model is outside the firewall.
func withoutFirewalledParams(s map[string]any) map[string]any {
	props, _ := s["properties"].(map[string]any)
	hidden := false
	for k := range props {
		if strings.HasPrefix(k, "_") {
			hidden = true
		}
	}
	if !hidden {
		return s
	}
	out := maps.Clone(s)
	p := maps.Clone(props)
	for k := range p {
		if strings.HasPrefix(k, "_") {
			delete(p, k)
		}
	}
	out["properties"] = p
	if req, ok := s["required"].([]string); ok {
		kept := slices.DeleteFunc(slices.Clone(req), func(n string) bool { return strings.HasPrefix(n, "_") })
		if len(kept) > 0 {
			out["required"] = kept
		} else {
			delete(out, "required")
		}
	}
	return out
}

// positionPrefix is the "line:col: " a program error starts with.
var positionPrefix = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\d+:\d+: `) })

// callFailText is the text of a failed call of a Go tool: the first line
// of the failure, without the position in the one-call program (which
// the client did not write).
func callFailText(f *agent.Fail) string {
	msg, _, _ := strings.Cut(f.Message, "\n")
	msg = positionPrefix().ReplaceAllString(msg, "")
	if strings.HasPrefix(msg, string(f.Reason)+":") {
		return msg
	}
	return string(f.Reason) + ": " + msg
}

// mergeArgs puts a call's arguments over an agent's default context; an
// argument replaces a default of the same name, keyword or string.
func mergeArgs(defaults, args *lisp.Map) *lisp.Map {
	out := defaults
	for k, v := range args.All() {
		switch k := k.(type) {
		case string:
			out = out.Dissoc(lisp.Keyword(k))
		case lisp.Keyword:
			out = out.Dissoc(string(k))
		}
		out = out.Assoc(k, v)
	}
	return out
}

// withoutRequired drops from an input schema's required list the
// parameters a default context gives: the client may leave them out.
func withoutRequired(schema map[string]any, defaults *lisp.Map) map[string]any {
	req, ok := schema["required"].([]string)
	if !ok {
		return schema
	}
	out := make(map[string]any, len(schema))
	for k, v := range schema {
		out[k] = v
	}
	var kept []string
	for _, r := range req {
		if _, ok := defaults.Get(lisp.Keyword(r)); ok {
			continue
		}
		if _, ok := defaults.Get(r); ok {
			continue
		}
		kept = append(kept, r)
	}
	if len(kept) == 0 {
		delete(out, "required")
	} else {
		out["required"] = kept
	}
	return out
}
