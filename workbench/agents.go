package workbench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/agent/agentfile"
	"github.com/ptc-go/ptc/eval"
	"github.com/ptc-go/ptc/internal/hostio"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm"
	"github.com/ptc-go/ptc/signature"
)

// apiAgent is an agent as GET /api/agents lists it.
type apiAgent struct {
	Name        string `json:"name"`
	File        string `json:"file"`
	Error       string `json:"error"`
	Description string `json:"description"`
	// Model is the agent's own model name; RunModel the model a run of
	// it uses when the page names none (the page shows it and sends it).
	Model     string          `json:"model"`
	RunModel  string          `json:"run_model"`
	Signature string          `json:"signature"`
	Output    string          `json:"output"`
	Inputs    []apiInput      `json:"inputs"`
	Context   json.RawMessage `json:"context"`
	Tools     []string        `json:"tools"`
	// ToolsFrom is the saved run the tools were read from, when they are
	// known only from a run (an MCP agent); CanListTools: the page may
	// list them on demand (starting the servers).
	ToolsFrom    string    `json:"tools_from"`
	CanListTools bool      `json:"can_list_tools"`
	MCP          string    `json:"mcp"`
	Prompt       string    `json:"prompt"`
	MaxTurns     int       `json:"max_turns"`
	Limits       apiLimits `json:"limits"`
	// Editable: the page may edit the prompt and limits, and save them.
	Editable   bool      `json:"editable"`
	Cases      []apiCase `json:"cases"`
	CasesError string    `json:"cases_error"`
}

type apiInput struct {
	Name     string          `json:"name"`
	Type     string          `json:"type"`
	Kind     string          `json:"kind"`
	Optional bool            `json:"optional"`
	Value    json.RawMessage `json:"value"`
}

// apiLimits are an agent's limits: "" or 0 where it keeps the default.
type apiLimits struct {
	Timeout      string `json:"timeout"`
	MaxSteps     int64  `json:"max_steps"`
	MaxMemory    string `json:"max_memory"`
	MaxDepth     int    `json:"max_depth"`
	MaxLoop      int    `json:"max_loop"`
	MaxOutput    int    `json:"max_output"`
	MaxToolCalls int    `json:"max_tool_calls"`
	MaxParallel  int    `json:"max_parallel"`
}

type apiCase struct {
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
}

// agents lists the agents (Options.List, else Agents).
func (w *Workbench) agents(ctx context.Context) []Agent {
	if w.opts.List != nil {
		return w.opts.List(ctx)
	}
	return w.opts.Agents
}

// agent finds the agent called name.
func (w *Workbench) agent(ctx context.Context, name string) (Agent, bool) {
	for _, a := range w.agents(ctx) {
		if a.Name == name {
			return a, true
		}
	}
	return Agent{}, false
}

// modelName is the name of the agent's own model: ModelName, "model"
// for a Model without one.
func modelName(a Agent) string {
	if a.ModelName == "" && a.Model != nil {
		return "model"
	}
	return a.ModelName
}

// runModel is the model name a run of a uses when the page names none.
func (w *Workbench) runModel(a Agent) string { return firstNonEmpty(w.opts.Model, modelName(a)) }

// openModel returns the model named name (the page's, "" for none) for
// a run of a, and its name. The status goes with the error.
func (w *Workbench) openModel(ctx context.Context, a Agent, name string) (llm.Func, string, int, error) {
	ref := firstNonEmpty(name, w.runModel(a))
	switch {
	case a.Model != nil && (ref == "" || ref == modelName(a)):
		return a.Model, modelName(a), 0, nil
	case ref == "":
		return nil, "", http.StatusBadRequest, errors.New("model: no model: choose one (the field at the top of the page)")
	case w.opts.Models == nil:
		return nil, "", http.StatusBadRequest, fmt.Errorf("model %s: this workbench resolves no model names", quoteShort(ref))
	}
	fn, err := w.opts.Models(ctx, ref)
	if err == nil && fn == nil {
		err = errors.New("no such model")
	}
	if err != nil {
		return nil, "", http.StatusBadRequest, fmt.Errorf("model %s: %v", ref, err)
	}
	return fn, ref, 0, nil
}

// build returns the agent of a (a.Agent, else a.Config's).
func build(a Agent) (*agent.Agent, error) {
	if a.Error != nil {
		return nil, a.Error
	}
	if a.Agent != nil {
		return a.Agent, nil
	}
	return agent.New(a.Config)
}

// inputMap is an Input as a map.
func inputMap(v any) (*lisp.Map, error) {
	switch v := v.(type) {
	case nil:
		return lisp.NewMap(), nil
	case *lisp.Map:
		if v == nil {
			return lisp.NewMap(), nil
		}
		return v, nil
	}
	lv, err := lisp.FromGo(v)
	if err != nil {
		return nil, fmt.Errorf("the input: %v", err)
	}
	m, ok := lv.(*lisp.Map)
	if !ok {
		return nil, fmt.Errorf("the input is a %s, not a map", lisp.TypeName(lv))
	}
	return m, nil
}

func (w *Workbench) handleAgents(rw http.ResponseWriter, r *http.Request) {
	list := w.agents(r.Context())
	var last map[string]lastTools
	for _, a := range list {
		if a.MCP != "" {
			last = w.lastRuns()
			break
		}
	}
	out := []apiAgent{}
	for _, a := range list {
		out = append(out, w.describe(a, last))
	}
	// The page speaks of agent files when the agents come from files, or
	// when a List (a folder) gives none yet.
	files := len(list) == 0 && w.opts.List != nil
	for _, a := range list {
		files = files || a.File != ""
	}
	writeJSON(rw, http.StatusOK, map[string]any{"dir": w.opts.Title, "files": files, "name": w.opts.Name,
		"default_model": w.opts.Model, "can_choose_model": w.opts.Models != nil, "agents": out})
}

// redaction hides what a run hides of a context before its mission: the
// values of "_" entries.
func redaction() *lisp.Redaction { return (*agent.Step)(nil).Redaction() }

// redactedJSON is v as JSON for the page, redacted.
func redactedJSON(v lisp.Value) json.RawMessage {
	b, err := lisp.ToJSON(v, redaction())
	if err != nil {
		b, _ = json.Marshal(lisp.Print(v, lisp.PrintOptions{Redact: redaction(), MaxChars: 10_000}))
	}
	return b
}

// describe is a for the listing; last are the last saved runs of each
// agent that recorded its tools.
func (w *Workbench) describe(a Agent, last map[string]lastTools) apiAgent {
	d := apiAgent{Name: a.Name, File: a.File, Description: a.Description, Model: modelName(a), RunModel: w.runModel(a),
		Inputs: []apiInput{}, Tools: []string{}, Cases: []apiCase{}, Context: json.RawMessage("{}"), MCP: a.MCP,
		CasesError: a.CasesError}
	_, d.Editable = a.Source.(Editor)
	_, d.CanListTools = a.Source.(ToolLister)
	if a.Error != nil {
		d.Error = a.Error.Error()
		return d
	}
	ctxMap, err := inputMap(a.Input)
	if err != nil {
		d.Error = err.Error()
		ctxMap = lisp.NewMap()
	} else {
		d.Context = redactedJSON(ctxMap)
	}
	built, err := build(a)
	if err != nil {
		d.Error = err.Error()
		return d
	}
	// The agent as declared, before the defaults: its Config, unless
	// only Agent says what it is.
	cfg := a.Config
	if a.Agent != nil && cfg.Prompt == "" {
		cfg = built.Config()
	}
	if d.Description == "" {
		d.Description = cfg.Description
	}
	d.Prompt, d.MaxTurns, d.Limits = cfg.Prompt, cfg.MaxTurns, limitsOf(cfg.Limits)
	if ed, ok := a.Source.(Editor); ok {
		if v := ed.Written("timeout"); v != "" {
			d.Limits.Timeout = v
		}
		if v := ed.Written("max_memory"); v != "" {
			d.Limits.MaxMemory = v
		}
	}
	d.Tools = built.ToolNames()
	slices.Sort(d.Tools)
	if d.Tools == nil {
		d.Tools = []string{}
	}
	if lt, ok := last[a.Name]; a.MCP != "" && ok {
		d.Tools, d.ToolsFrom = lt.tools, lt.id
	}
	if sig := built.Signature(); sig != nil {
		d.Signature, d.Output = sig.String(), strings.TrimPrefix(sig.Output.String(), ":")
		for _, p := range sig.Params {
			in := apiInput{Name: p.Name, Type: strings.TrimPrefix(p.Type.String(), ":"), Kind: inputKind(p.Type.Kind),
				Optional: p.Optional(), Value: json.RawMessage("null")}
			if v, ok := contextValue(ctxMap, p.Name); ok {
				in.Value = redactedJSON(lisp.NewMap(p.Name, v)) // the entry, so that a "_" name hides it
				var m map[string]json.RawMessage
				if json.Unmarshal(in.Value, &m) == nil {
					in.Value = m[p.Name]
				}
			}
			d.Inputs = append(d.Inputs, in)
		}
	}
	for _, c := range a.Cases {
		in, err := inputMap(c.Input)
		if err != nil {
			in = lisp.NewMap()
		}
		d.Cases = append(d.Cases, apiCase{Name: c.Name, Input: redactedJSON(in)})
	}
	return d
}

// limitsOf is how the page shows limits.
func limitsOf(l lisp.Limits) apiLimits {
	d := apiLimits{MaxSteps: l.MaxSteps, MaxDepth: l.MaxDepth, MaxLoop: l.MaxLoopIterations,
		MaxOutput: l.MaxOutputBytes, MaxToolCalls: l.MaxToolCalls, MaxParallel: l.MaxParallel}
	switch {
	case l.Timeout < 0:
		d.Timeout = "-1"
	case l.Timeout > 0:
		d.Timeout = shortDuration(l.Timeout)
	}
	switch {
	case l.MaxMemory < 0:
		d.MaxMemory = "-1"
	case l.MaxMemory > 0:
		d.MaxMemory = agentfile.FormatSize(l.MaxMemory)
	}
	return d
}

// shortDuration is d as a person writes it: 2m, not 2m0s.
func shortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// contextValue is the context's entry name (a string or keyword key).
func contextValue(m *lisp.Map, name string) (lisp.Value, bool) {
	if m == nil {
		return nil, false
	}
	if v, ok := m.Get(name); ok {
		return v, true
	}
	return m.Get(lisp.Keyword(name))
}

// inputKind is the kind of form field for a parameter of kind k.
func inputKind(k signature.Kind) string {
	switch k {
	case signature.String, signature.Int, signature.Float, signature.Bool, signature.Keyword, signature.List, signature.Map:
		return k.String()
	case signature.Record:
		return "map"
	}
	return "any"
}

// handleAgentAction serves POST /api/agents/{name}/test, /save and
// /tools (a name may hold a /).
func (w *Workbench) handleAgentAction(rw http.ResponseWriter, r *http.Request) {
	p := r.PathValue("name")
	i := strings.LastIndexByte(p, '/')
	if i < 0 {
		writeError(rw, http.StatusNotFound, "no such route")
		return
	}
	name, action := p[:i], p[i+1:]
	if action != "test" && action != "save" && action != "tools" {
		writeError(rw, http.StatusNotFound, "no such route: POST /api/agents/NAME/test, /save or /tools")
		return
	}
	a, ok := w.agent(r.Context(), name)
	if !ok {
		writeError(rw, http.StatusNotFound, "no agent "+quoteShort(name))
		return
	}
	switch action {
	case "test":
		w.handleTest(rw, r, a)
	case "save":
		w.handleSave(rw, r, a)
	default:
		w.handleTools(rw, r, a)
	}
}

// handleSave writes the edit with the agent's Editor.
func (w *Workbench) handleSave(rw http.ResponseWriter, r *http.Request, a Agent) {
	ed, ok := a.Source.(Editor)
	if !ok {
		writeError(rw, http.StatusNotFound, a.Name+" cannot be edited here: it is defined in Go")
		return
	}
	var e Edit
	if !readJSON(rw, r, &e, false) {
		return
	}
	if err := ed.Save(r.Context(), e); err != nil {
		writeError(rw, http.StatusBadRequest, err.Error())
		return
	}
	a, ok = w.agent(r.Context(), a.Name)
	if !ok {
		writeError(rw, http.StatusNotFound, "no agent "+quoteShort(a.Name)+" after the save")
		return
	}
	writeJSON(rw, http.StatusOK, w.describe(a, nil))
}

// handleTools lists an agent's tools on demand (its Source's ToolLister).
func (w *Workbench) handleTools(rw http.ResponseWriter, r *http.Request, a Agent) {
	tl, ok := a.Source.(ToolLister)
	if !ok {
		writeError(rw, http.StatusNotFound, a.Name+" does not list its tools on demand")
		return
	}
	tools, err := tl.ListTools(r.Context())
	if err != nil {
		writeError(rw, http.StatusBadGateway, err.Error())
		return
	}
	tools = slices.Clone(tools)
	slices.Sort(tools)
	if tools == nil {
		tools = []string{}
	}
	writeJSON(rw, http.StatusOK, map[string]any{"agent": a.Name, "tools": tools})
}

// testRow is a case's result.
type testRow struct {
	Case       string     `json:"case"`
	Passed     bool       `json:"passed"`
	Detail     string     `json:"detail"`
	Turns      int        `json:"turns"`
	Tokens     llm.Tokens `json:"tokens"`
	DurationMS int64      `json:"duration_ms"`
	Return     string     `json:"return"`
}

// handleTest runs the agent's cases once each, for as long as the client
// waits.
func (w *Workbench) handleTest(rw http.ResponseWriter, r *http.Request, a Agent) {
	var body struct {
		Model string `json:"model"`
	}
	if !readJSON(rw, r, &body, true) {
		return
	}
	if a.Error != nil {
		writeError(rw, http.StatusBadRequest, a.Error.Error())
		return
	}
	if a.CasesError != "" {
		writeError(rw, http.StatusBadRequest, a.CasesError)
		return
	}
	if len(a.Cases) == 0 {
		writeError(rw, http.StatusNotFound, a.Name+" has no test cases")
		return
	}
	ctx := r.Context()
	var cfg agent.Config
	var base *lisp.Map
	var ctxSig string
	if a.Source != nil {
		m, err := a.Source.Mission(ctx, nil)
		if err != nil {
			writeError(rw, http.StatusBadRequest, err.Error())
			return
		}
		if m.Close != nil {
			defer m.Close()
		}
		cfg, base, ctxSig = m.Agent.Config(), m.Context, m.ContextSignature
	} else {
		built, err := build(a)
		if err != nil {
			writeError(rw, http.StatusBadRequest, err.Error())
			return
		}
		if base, err = inputMap(a.Input); err != nil {
			writeError(rw, http.StatusBadRequest, err.Error())
			return
		}
		cfg, ctxSig = built.Config(), a.ContextSignature
	}
	if base == nil {
		base = lisp.NewMap()
	}
	cases := slices.Clone(a.Cases)
	for i := range cases {
		in, err := inputMap(cases[i].Input)
		if err != nil {
			writeError(rw, http.StatusBadRequest, "case "+cases[i].Name+": "+err.Error())
			return
		}
		cases[i].Input = hostio.MergeContext(base, in)
	}
	fn, ref, code, err := w.openModel(ctx, a, body.Model)
	if err != nil {
		writeError(rw, code, err.Error())
		return
	}
	task := eval.Task{Name: a.Name, Description: cfg.Description, Config: cfg, Cases: cases,
		Options: agent.Options{InputSignature: ctxSig}}
	rows := []testRow{}
	passed := 0
	ecfg := eval.Config{Variants: []eval.Variant{{Name: ref, Model: fn}}, Runs: 1, Parallel: 1,
		Done: func(res *eval.RunResult) {
			row := testRow{Case: res.Case, Passed: res.Passed, Detail: res.Why, Turns: res.Turns, Tokens: res.Tokens,
				DurationMS: res.Duration.Milliseconds()}
			if st := res.Step; st != nil {
				row.Detail = st.Scrub(row.Detail)
				if st.Fail == nil {
					row.Return = st.Scrub(lisp.Print(st.Return, lisp.PrintOptions{MaxChars: 2000, Redact: st.Redaction()}))
				}
			}
			if res.Passed {
				passed++
			}
			rows = append(rows, row)
		}}
	if _, err := eval.Run(ctx, []eval.Task{task}, ecfg); err != nil {
		writeError(rw, http.StatusBadRequest, err.Error())
		return
	}
	writeJSON(rw, http.StatusOK, map[string]any{"agent": a.Name, "model": ref, "rows": rows, "passed": passed, "total": len(rows)})
}
