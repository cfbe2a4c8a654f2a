package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/agent/agentfile"
	"github.com/ptc-go/ptc/cmd/ptc/internal/base"
	"github.com/ptc-go/ptc/cmd/ptc/internal/load"
	"github.com/ptc-go/ptc/cmd/ptc/internal/runcmd"
	"github.com/ptc-go/ptc/cmd/ptc/internal/testcmd"
	"github.com/ptc-go/ptc/eval"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm"
	"github.com/ptc-go/ptc/signature"
)

// devAgent is an agent file as GET /api/agents lists it.
type devAgent struct {
	Name        string `json:"name"`
	File        string `json:"file"`
	Error       string `json:"error"`
	Description string `json:"description"`
	Model       string `json:"model"`
	// RunModel is the model a run of the agent uses when the page names
	// none: ptc dev's --model, else the file's model:, else $PTC_MODEL, as
	// for ptc run (the page shows it and sends it).
	RunModel   string          `json:"run_model"`
	Signature  string          `json:"signature"`
	Output     string          `json:"output"`
	Inputs     []devInput      `json:"inputs"`
	Context    json.RawMessage `json:"context"`
	Tools      []string        `json:"tools"`
	MCP        string          `json:"mcp"`
	Prompt     string          `json:"prompt"`
	MaxTurns   int             `json:"max_turns"`
	Limits     devLimits       `json:"limits"`
	Cases      []devCase       `json:"cases"`
	CasesError string          `json:"cases_error"`
}

type devInput struct {
	Name     string          `json:"name"`
	Type     string          `json:"type"`
	Kind     string          `json:"kind"`
	Optional bool            `json:"optional"`
	Value    json.RawMessage `json:"value"`
}

// devLimits are an agent file's limits: as it states them, "" or 0 where
// it does not (the default).
type devLimits struct {
	Timeout      string `json:"timeout"`
	MaxSteps     int64  `json:"max_steps"`
	MaxMemory    string `json:"max_memory"`
	MaxDepth     int    `json:"max_depth"`
	MaxLoop      int    `json:"max_loop"`
	MaxOutput    int    `json:"max_output"`
	MaxToolCalls int    `json:"max_tool_calls"`
	MaxParallel  int    `json:"max_parallel"`
}

type devCase struct {
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
}

// devLimitKeys maps the API's limit names to the agent file's.
var devLimitKeys = map[string]string{
	"timeout": "timeout", "max_steps": "max-steps", "max_memory": "max-memory", "max_depth": "max-depth",
	"max_loop": "max-loop", "max_output": "max-output", "max_tool_calls": "max-tool-calls", "max_parallel": "max-parallel",
}

// devAgentFile is an agent file of the folder: its name (the path below
// the folder without .md, / separated) and its path.
type devAgentFile struct{ name, path string }

// agentFiles lists the agent files of the folder: DIR/*.md and
// DIR/*/*.md that start with a front matter (other Markdown is skipped).
func (s *devServer) agentFiles() []devAgentFile {
	var out []devAgentFile
	for _, pat := range []string{"*.md", "*/*.md"} {
		found, _ := filepath.Glob(filepath.Join(s.opts.Dir, pat))
		for _, p := range found {
			rel, err := filepath.Rel(s.opts.Dir, p)
			if err != nil || strings.HasPrefix(rel, ".") || !startsAsAgentFile(p) {
				continue
			}
			out = append(out, devAgentFile{name: filepath.ToSlash(strings.TrimSuffix(rel, ".md")), path: p})
		}
	}
	slices.SortFunc(out, func(a, b devAgentFile) int { return strings.Compare(a.name, b.name) })
	return out
}

// startsAsAgentFile reports whether the file at path is a regular file
// whose text starts with ---.
func startsAsAgentFile(path string) bool {
	st, err := os.Stat(path)
	if err != nil || !st.Mode().IsRegular() {
		return false
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	b := make([]byte, 6)
	n, _ := f.Read(b)
	return bytes.HasPrefix(bytes.TrimPrefix(b[:n], []byte("\ufeff")), []byte("---"))
}

// agentFile finds the agent file called name (only a listed one: a name
// from a URL never becomes a path).
func (s *devServer) agentFile(name string) (devAgentFile, bool) {
	for _, f := range s.agentFiles() {
		if f.name == name {
			return f, true
		}
	}
	return devAgentFile{}, false
}

func (s *devServer) handleAgents(w http.ResponseWriter, r *http.Request) {
	agents := []devAgent{}
	for _, f := range s.agentFiles() {
		agents = append(agents, s.describe(f))
	}
	writeJSON(w, http.StatusOK, map[string]any{"dir": s.opts.Dir,
		"default_model": base.FirstNonEmpty(s.opts.Model, s.env.Getenv("PTC_MODEL")), "agents": agents})
}

// devRedaction hides what ptc run hides of a context before a mission:
// the values of "_" entries.
func devRedaction() *lisp.Redaction { return (*agent.Step)(nil).Veil().Redaction() }

// devJSON is v as JSON for the page, redacted; null when it has none.
func devJSON(v lisp.Value) json.RawMessage {
	b, err := lisp.ToJSONRedacted(v, devRedaction())
	if err != nil {
		b, _ = json.Marshal(lisp.FormatValue(v, lisp.PrintOptions{Redact: devRedaction(), MaxChars: 10_000}))
	}
	return b
}

// relFile is the agent file's path below the folder, / separated.
func (s *devServer) relFile(f devAgentFile) string {
	rel, err := filepath.Rel(s.opts.Dir, f.path)
	if err != nil {
		return filepath.Base(f.path)
	}
	return filepath.ToSlash(rel)
}

// describe reads the agent file f for the listing.
// runModel is the model a run uses when the request names none: the same
// order as ptc run's (--model, the file's model:, $PTC_MODEL).
func (s *devServer) runModel(fileModel string) string {
	return base.FirstNonEmpty(s.opts.Model, fileModel, s.env.Getenv("PTC_MODEL"))
}

func (s *devServer) describe(f devAgentFile) devAgent {
	d := devAgent{Name: f.name, File: s.relFile(f),
		Inputs: []devInput{}, Tools: []string{}, Cases: []devCase{}, Context: json.RawMessage("{}")}
	af, text, err := load.ReadAgentFile(f.path)
	if err != nil {
		d.Error = err.Error()
		return d
	}
	d.fill(af)
	d.RunModel = s.runModel(d.Model)
	// The duration and the size as written (2s, 16MiB), not as Go prints them.
	ed := newTextEditor(text)
	if v := ed.limit("timeout"); v != "" {
		d.Limits.Timeout = v
	}
	if v := ed.limit("max-memory"); v != "" {
		d.Limits.MaxMemory = v
	}
	d.MCP = base.FirstNonEmpty(s.opts.MCP, af.MCPFile())
	d.Tools = slices.Sorted(maps.Keys(s.env.Tools))
	if d.Tools == nil {
		d.Tools = []string{}
	}
	ctxMap, err := af.LoadContext()
	if err != nil {
		d.Error = err.Error()
		ctxMap = lisp.NewMap()
	} else {
		d.Context = devJSON(ctxMap)
	}
	cfg := af.CLIConfig()
	s.env.AddTools(&cfg)
	a, err := af.NewAgent(cfg)
	if err != nil {
		if d.Error == "" {
			d.Error = err.Error()
		}
	} else if sig := a.Signature(); sig != nil {
		d.Signature, d.Output = sig.String(), strings.TrimPrefix(sig.Output.String(), ":")
		for _, p := range sig.Params {
			in := devInput{Name: p.Name, Type: strings.TrimPrefix(p.Type.String(), ":"), Kind: inputKind(p.Type.Kind),
				Optional: p.Optional(), Value: json.RawMessage("null")}
			if v, ok := contextValue(ctxMap, p.Name); ok {
				in.Value = devJSON(lisp.NewMap(p.Name, v)) // the entry, so that a "_" name hides it
				var m map[string]json.RawMessage
				if json.Unmarshal(in.Value, &m) == nil {
					in.Value = m[p.Name]
				}
			}
			d.Inputs = append(d.Inputs, in)
		}
	}
	if testcmd.HasCases(af) {
		cases, err := testcmd.LoadCases(af, f.path)
		if err != nil {
			d.CasesError = err.Error()
		}
		for _, c := range cases {
			d.Cases = append(d.Cases, devCase{Name: c.Name, Input: devJSON(c.Input)})
		}
	}
	return d
}

// fill sets what the agent file states.
func (d *devAgent) fill(af *load.AgentFile) {
	c := af.Config
	d.Description, d.Model, d.Prompt, d.MaxTurns = c.Description, af.Model, c.Prompt, c.MaxTurns
	l := c.Limits
	d.Limits = devLimits{MaxSteps: l.MaxSteps, MaxDepth: l.MaxDepth, MaxLoop: l.MaxLoopIterations,
		MaxOutput: l.MaxOutputBytes, MaxToolCalls: l.MaxToolCalls, MaxParallel: l.MaxParallel}
	switch {
	case l.Timeout < 0:
		d.Limits.Timeout = "-1"
	case l.Timeout > 0:
		d.Limits.Timeout = l.Timeout.String()
	}
	switch {
	case l.MaxMemory < 0:
		d.Limits.MaxMemory = "-1"
	case l.MaxMemory > 0:
		d.Limits.MaxMemory = agentfile.FormatSize(l.MaxMemory)
	}
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

// devEdit is what a run or a save changes in an agent file's text: the
// prompt, max-turns, limits (nil, 0: unchanged).
type devEdit struct {
	Prompt   string                     `json:"prompt"`
	MaxTurns int                        `json:"max_turns"`
	Limits   map[string]json.RawMessage `json:"limits"`
}

func (e *devEdit) empty() bool { return e.Prompt == "" && e.MaxTurns == 0 && len(e.Limits) == 0 }

// apply returns text edited as e says, parsed (the parse error when it
// does not parse, the file untouched). The edited text must read back as
// e says: a prompt that would not (a prompt: key's block that cannot
// hold it) is refused.
func (e *devEdit) apply(name, dir string, text []byte) ([]byte, *load.AgentFile, error) {
	if e.MaxTurns < 0 {
		return nil, nil, errors.New("max_turns: want a positive number")
	}
	ed := newTextEditor(text)
	limits := slices.Sorted(maps.Keys(e.Limits))
	for _, k := range limits {
		key, ok := devLimitKeys[k]
		if !ok {
			return nil, nil, fmt.Errorf("limits: unknown limit %s (the limits are %s)", base.QuoteShort(k),
				strings.Join(slices.Sorted(maps.Keys(devLimitKeys)), ", "))
		}
		v, err := limitText(e.Limits[k])
		if err != nil {
			return nil, nil, fmt.Errorf("limits: %s: %v", k, err)
		}
		if v != "" {
			ed.setLimit(key, v)
		}
	}
	if e.MaxTurns > 0 {
		ed.set("max-turns", strconv.Itoa(e.MaxTurns))
	}
	if e.Prompt != "" {
		ed.setPrompt(e.Prompt)
	}
	out := ed.bytes()
	af, err := load.ParseAgentFile(name, dir, out)
	if err != nil {
		return nil, nil, err
	}
	if want := strings.TrimRight(strings.TrimLeft(strings.ReplaceAll(e.Prompt, "\r\n", "\n"), "\n"), " \t\n"); e.Prompt != "" && af.Config.Prompt != want {
		return nil, nil, errors.New("prompt: the edited prompt would not read back as written (in a prompt: key, its first line sets the indentation of the block: put the prompt after the front matter instead)")
	}
	if e.MaxTurns > 0 && af.Config.MaxTurns != e.MaxTurns {
		return nil, nil, errors.New("max_turns: the edit did not take")
	}
	return out, af, nil
}

// limitText is the text of a limit's value in the agent file: a JSON
// number or string, on one line ("" or null: unchanged).
func limitText(raw json.RawMessage) (string, error) {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return "", err
	}
	switch v := v.(type) {
	case nil:
		return "", nil
	case float64:
		return strings.TrimSpace(string(raw)), nil
	case string:
		v = strings.TrimSpace(v)
		if strings.ContainsAny(v, "\r\n\"'|#:") || strings.ContainsFunc(v, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
			return "", fmt.Errorf("%s is not a limit's value (as 500ms, 16MiB or 1000)", base.QuoteShort(v))
		}
		return v, nil
	}
	return "", errors.New("want a number or a string (as 500ms, 16MiB)")
}

// textEditor edits an agent file's lines: it replaces or adds front
// matter keys and the prompt, and leaves every other line as it is.
type textEditor struct {
	lines []string
	nl    string // "\r" on a file with CRLF line ends
	bom   string
	// end is the index of the closing --- (0: no front matter).
	end int
}

func newTextEditor(text []byte) *textEditor {
	s := string(text)
	e := &textEditor{}
	if rest, ok := strings.CutPrefix(s, "\ufeff"); ok {
		e.bom, s = "\ufeff", rest
	}
	e.lines = strings.Split(s, "\n")
	if strings.HasSuffix(e.lines[0], "\r") {
		e.nl = "\r"
	}
	if strings.TrimRight(e.lines[0], " \t\r") == "---" {
		for i := 1; i < len(e.lines); i++ {
			if strings.TrimRight(e.lines[i], " \t\r") == "---" {
				e.end = i
				break
			}
		}
	}
	if e.end == 0 { // no front matter: make an empty one
		e.lines = append([]string{"---" + e.nl, "---" + e.nl}, e.lines...)
		e.end = 1
	}
	return e
}

func (e *textEditor) bytes() []byte { return []byte(e.bom + strings.Join(e.lines, "\n")) }

// entry finds the key at indentation indent in lines[from:to]: its line
// and the end of its indented lines.
func (e *textEditor) entry(key string, indent, from, to int) (int, int, bool) {
	for i := from; i < to; i++ {
		l := strings.TrimRight(e.lines[i], "\r")
		if leadingBlanks(l) != indent || !strings.HasPrefix(l[indent:], key+":") {
			continue
		}
		j := i + 1
		for j < to && (strings.TrimSpace(e.lines[j]) == "" || leadingBlanks(e.lines[j]) > indent) {
			j++
		}
		for j > i+1 && strings.TrimSpace(e.lines[j-1]) == "" {
			j--
		}
		return i, j, true
	}
	return 0, 0, false
}

func (e *textEditor) splice(i, j int, with ...string) {
	e.lines = slices.Replace(e.lines, i, j, with...)
	e.end += len(with) - (j - i)
}

// set sets a top-level key to a one-line value.
func (e *textEditor) set(key, value string) {
	line := key + ": " + value + e.nl
	if i, j, ok := e.entry(key, 0, 1, e.end); ok {
		e.splice(i, j, line)
		return
	}
	e.splice(e.end, e.end, line)
}

// setLimit sets a key under limits:.
func (e *textEditor) setLimit(key, value string) {
	i, j, ok := e.entry("limits", 0, 1, e.end)
	if !ok {
		e.splice(e.end, e.end, "limits:"+e.nl, "  "+key+": "+value+e.nl)
		return
	}
	indent := 2
	for k := i + 1; k < j; k++ {
		if !skippable(e.lines[k]) {
			indent = leadingBlanks(e.lines[k])
			break
		}
	}
	line := strings.Repeat(" ", indent) + key + ": " + value + e.nl
	if ci, cj, ok := e.entry(key, indent, i+1, j); ok {
		e.splice(ci, cj, line)
		return
	}
	e.splice(j, j, line)
}

// limit is the text of a limit's value on its line ("" when the file
// does not set it so).
func (e *textEditor) limit(key string) string {
	i, j, ok := e.entry("limits", 0, 1, e.end)
	if !ok {
		return ""
	}
	for k := i + 1; k < j; k++ {
		l := strings.TrimSpace(strings.TrimRight(e.lines[k], "\r"))
		if v, ok := strings.CutPrefix(l, key+":"); ok {
			v, _, _ = strings.Cut(v, " #")
			return strings.Trim(strings.TrimSpace(v), `"'`)
		}
	}
	return ""
}

// setPrompt sets the prompt: the prompt: key's value as a | block when
// the file has one, else the text after the front matter.
func (e *textEditor) setPrompt(prompt string) {
	plines := strings.Split(strings.ReplaceAll(prompt, "\r\n", "\n"), "\n")
	if i, j, ok := e.entry("prompt", 0, 1, e.end); ok {
		block := []string{"prompt: |" + e.nl}
		for _, l := range plines {
			if strings.TrimSpace(l) == "" {
				block = append(block, e.nl)
				continue
			}
			block = append(block, "  "+l+e.nl)
		}
		e.splice(i, j, block...)
		return
	}
	body := e.lines[e.end+1:]
	lead := 0
	for lead < len(body) && strings.TrimSpace(body[lead]) == "" {
		lead++
	}
	out := append(slices.Clone(body[:lead]), plines...)
	for k := lead; k < len(out); k++ {
		out[k] += e.nl
	}
	out = append(out, "")
	e.lines = append(e.lines[:e.end+1], out...)
}

// handleAgentAction serves POST /api/agents/{name}/test and
// /api/agents/{name}/save (a name may hold a /).
func (s *devServer) handleAgentAction(w http.ResponseWriter, r *http.Request) {
	p := r.PathValue("name")
	i := strings.LastIndexByte(p, '/')
	if i < 0 {
		writeError(w, http.StatusNotFound, "no such route")
		return
	}
	name, action := p[:i], p[i+1:]
	if action != "test" && action != "save" {
		writeError(w, http.StatusNotFound, "no such route: POST /api/agents/NAME/test or /save")
		return
	}
	f, ok := s.agentFile(name)
	if !ok {
		writeError(w, http.StatusNotFound, "no agent file "+base.QuoteShort(name))
		return
	}
	if action == "test" {
		s.handleTest(w, r, f)
		return
	}
	s.handleSave(w, r, f)
}

// handleSave writes the edited text back to the agent file, atomically,
// after parsing it.
func (s *devServer) handleSave(w http.ResponseWriter, r *http.Request, f devAgentFile) {
	var e devEdit
	if !readJSON(w, r, &e, false) {
		return
	}
	text, err := base.ReadBounded(f.path, base.KindAgentFile)
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	out, _, err := e.apply(f.path, filepath.Dir(f.path), text)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	st, err := os.Stat(f.path)
	if err == nil {
		err = base.WriteFileAtomic(f.path, out, st.Mode().Perm())
	}
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	writeJSON(w, http.StatusOK, s.describe(f))
}

// devTestRow is a case's result.
type devTestRow struct {
	Case       string     `json:"case"`
	Passed     bool       `json:"passed"`
	Detail     string     `json:"detail"`
	Turns      int        `json:"turns"`
	Tokens     llm.Tokens `json:"tokens"`
	DurationMS int64      `json:"duration_ms"`
	Return     string     `json:"return"`
}

// handleTest runs the agent file's cases once each, as ptc test does,
// for as long as the client waits.
func (s *devServer) handleTest(w http.ResponseWriter, r *http.Request, f devAgentFile) {
	var body struct {
		Model string `json:"model"`
	}
	if !readJSON(w, r, &body, true) {
		return
	}
	af, _, err := load.ReadAgentFile(f.path)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	if !testcmd.HasCases(af) {
		writeError(w, http.StatusNotFound, f.name+" has no test cases (a cases: key, or "+filepath.Base(testcmd.CasesBeside(f.path))+" beside it)")
		return
	}
	env := *s.env
	env.Ctx = r.Context()
	tc := &testcmd.Command{Env: &env, Flags: &testcmd.Flags{Quiet: true}, Stderr: s.log}
	defer tc.Close()
	task, model, mcpPath, err := tc.FileTask(f.path)
	if err == nil && mcpPath != "" {
		tc.MCP = map[string]testcmd.MCPSource{task.Name: {Agent: f.path, Config: mcpPath}}
		err = tc.AddMCPTools(&task)
	}
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	ref := base.FirstNonEmpty(body.Model, s.runModel(model))
	if ref == "" {
		writeError(w, http.StatusBadRequest, "no model: choose one, or start ptc dev with --model REF (or set PTC_MODEL)")
		return
	}
	fn, err := s.env.OpenModel(r.Context(), ref)
	if err != nil {
		writeError(w, http.StatusBadRequest, "model "+ref+": "+err.Error())
		return
	}
	rows := []devTestRow{}
	passed := 0
	cfg := eval.Config{Variants: []eval.Variant{{Name: ref, Model: fn}}, Runs: 1, Parallel: 1,
		Done: func(res *eval.RunResult) {
			row := devTestRow{Case: res.Case, Passed: res.Passed, Detail: res.Why, Turns: res.Turns, Tokens: res.Tokens,
				DurationMS: res.Duration.Milliseconds()}
			if st := res.Step; st != nil {
				sh := runcmd.Shown{Step: st}
				row.Detail = sh.Text(row.Detail)
				if st.Fail == nil {
					row.Return = sh.Value(st.Return, lisp.PrintOptions{MaxChars: 2000})
				}
			}
			if res.Passed {
				passed++
			}
			rows = append(rows, row)
		}}
	if _, err := eval.Run(r.Context(), []eval.Task{task}, cfg); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"agent": f.name, "model": ref, "rows": rows, "passed": passed, "total": len(rows)})
}

func leadingBlanks(line string) int { return len(line) - len(strings.TrimLeft(line, " \t")) }

// skippable: a blank line or a comment line of the front matter.
func skippable(line string) bool {
	t := strings.TrimSpace(line)
	return t == "" || strings.HasPrefix(t, "#")
}
