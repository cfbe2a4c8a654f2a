package trace

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	fwall "github.com/ptc-go/ptc/internal/firewall"
	"math"
	"strconv"
	"time"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm"
	"github.com/ptc-go/ptc/signature"
)

// Format and Version name the JSON form of a trace
// (docs/trace-format.md); a reader refuses a newer version.
const (
	Format  = "ptc-trace"
	Version = 1
)

// JSONOptions select how Marshal writes a trace.
type JSONOptions struct {
	// Raw keeps firewalled values and texts as they are, instead of the
	// placeholder <Firewalled>: a raw trace holds every secret the mission
	// saw, for your own audit files only (docs/trace-format.md).
	Raw bool
	// MaxBytes bounds the printed and JSON forms of all the trace's values
	// together (0: DefaultMaxBytes): past it (shared structure can print
	// huge), Marshal fails instead of filling memory.
	MaxBytes int
	// Indent, when set, indents the JSON with it ("  "); else it is compact.
	Indent string
	// Recording, when set, makes the trace a recording: its fields are
	// written beside the mission (see Recording).
	Recording *Recording
}

// DefaultMaxBytes is JSONOptions.MaxBytes's default: 256 MiB.
const DefaultMaxBytes = 256 << 20

// maxDepth bounds the nesting of values (as lisp.ToJSON does) and of
// agents in a trace.
const maxDepth = 10_000 // lisp.ReadOptions.MaxDepth's default

// Marshal returns the JSON form of step's trace (docs/trace-format.md),
// the agents it called nested in their tool calls. Unless opts.Raw,
// firewalled values are the placeholder <Firewalled>, as step.Redaction()
// prints them, and texts are scrubbed with step.Scrub.
func Marshal(step *agent.Step, opts JSONOptions) ([]byte, error) {
	if step == nil {
		return nil, errors.New("trace: Marshal: no step")
	}
	w := traceWriter{raw: opts.Raw, budget: opts.MaxBytes, seen: map[*agent.Step]bool{}}
	if w.budget <= 0 {
		w.budget = DefaultMaxBytes
	}
	js, err := w.step(step, "", 0, fwall.Veil(nil))
	if err != nil {
		return nil, err
	}
	doc := &traceDoc{Format: Format, Version: Version, Redacted: !opts.Raw, Step: js}
	if opts.Raw {
		doc.Firewall = fwall.MarshalVeil(step.Veil(), step.Return, stepValues(step, map[*agent.Step]bool{})...)
	}
	if opts.Recording != nil {
		addRecording(doc, step, opts.Recording, opts.Raw)
	}
	return encodeTrace(doc, opts.Indent)
}

// encodeTrace writes doc as JSON, with <, > and & as they are (readable
// placeholders; a page that embeds a trace escapes it).
func encodeTrace(doc *traceDoc, indent string) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", indent)
	if err := enc.Encode(doc); err != nil {
		return nil, fmt.Errorf("trace: Marshal: %w", err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// Unmarshal reads a trace Marshal wrote (of this version or an older one)
// into a Step that Print prints as it printed the
// original: values are read back from their printed forms. The Step has
// no Memory, and its Redaction hides the placeholders of a redacted trace.
func Unmarshal(data []byte) (*agent.Step, error) {
	if err := checkHead(data); err != nil {
		return nil, err
	}
	var doc traceDoc
	err := json.Unmarshal(data, &doc)
	if err != nil {
		return nil, fmt.Errorf("trace: reading the trace: %w", err)
	}
	if doc.Step == nil {
		return nil, errors.New("trace: the trace has no step")
	}
	s, err := readStep(doc.Step, 0)
	if err != nil {
		return nil, err
	}
	if err := s.RestoreVeil(doc.Redacted, doc.Firewall); err != nil {
		return nil, fmt.Errorf("trace: reading the trace: %w", err)
	}
	return s, nil
}

// checkHead checks that data is a ptc trace of a version this package
// reads.
func checkHead(data []byte) error {
	var head struct {
		Format  *string `json:"format"`
		Version *int    `json:"version"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return fmt.Errorf("trace: not a ptc trace: %w", err)
	}
	switch {
	case head.Format == nil || *head.Format != Format:
		got := "none"
		if head.Format != nil {
			got = strconv.Quote(*head.Format)
		}
		return fmt.Errorf("trace: not a ptc trace: format %s, want %q", got, Format)
	case head.Version == nil || *head.Version < 1:
		return fmt.Errorf("trace: a ptc trace without a valid version")
	case *head.Version > Version:
		return fmt.Errorf("trace: the trace is of format version %d, newer than this program reads (%d): use a newer ptc to read it",
			*head.Version, Version)
	}
	return nil
}

// The JSON documents.

type traceDoc struct {
	Format  string `json:"format"`
	Version int    `json:"version"`
	// The recording's fields, when the trace is one.
	recordingHead
	Redacted bool       `json:"redacted"`
	Step     *traceStep `json:"step"`
	// Firewall is, in a raw trace, what the mission's firewall and its
	// callers' hide (firewall.MarshalVeil: the firewalled texts, and the
	// places of the return value's firewalled collections), so that a Step
	// read back hides it again.
	Firewall json.RawMessage `json:"firewall,omitempty"`
}

type traceStep struct {
	TraceID       string         `json:"trace_id"`
	ParentTraceID string         `json:"parent_trace_id,omitempty"`
	OK            bool           `json:"ok"`
	Return        *traceValue    `json:"return,omitempty"`
	Fail          *traceFail     `json:"fail,omitempty"`
	Signature     string         `json:"signature,omitempty"`
	SystemPrompt  string         `json:"system_prompt,omitempty"`
	Usage         traceUsage     `json:"usage"`
	TotalUsage    traceUsage     `json:"total_usage"`
	Warnings      []string       `json:"warnings,omitempty"`
	Turns         []traceTurn    `json:"turns"`
	Messages      []traceMessage `json:"messages,omitempty"`
	// LLMCalls are a recording's LLM calls (Recording.Calls), in the top
	// step only.
	LLMCalls []LLMCall `json:"llm_calls,omitempty"`
}

type traceValue struct {
	Lisp      string          `json:"lisp"`
	JSON      json.RawMessage `json:"json,omitempty"`
	JSONError string          `json:"json_error,omitempty"`
}

type traceFail struct {
	Reason    string      `json:"reason"`
	Message   string      `json:"message"`
	Op        string      `json:"op,omitempty"`
	ByProgram bool        `json:"by_program,omitempty"`
	Details   *traceValue `json:"details,omitempty"`
}

type traceUsage struct {
	Turns              int        `json:"turns"`
	LLMRequests        int        `json:"llm_requests"`
	Tokens             llm.Tokens `json:"tokens"`
	DurationMS         msDuration `json:"duration_ms"`
	SystemPromptTokens int        `json:"system_prompt_tokens,omitempty"`
	MemoryBytes        int        `json:"memory_bytes,omitempty"` // older traces' only; ignored
	Programs           int        `json:"programs,omitempty"`
	CachedPrograms     int        `json:"cached_programs,omitempty"`
}

type traceTurn struct {
	Number        int                    `json:"number"`
	Program       string                 `json:"program,omitempty"`
	Cached        bool                   `json:"cached,omitempty"`
	Result        *traceValue            `json:"result,omitempty"`
	Error         string                 `json:"error,omitempty"`
	Output        []string               `json:"output,omitempty"`
	ToolCalls     []traceCall            `json:"tool_calls,omitempty"`
	DurationMS    msDuration             `json:"duration_ms"`
	LLMDurationMS msDuration             `json:"llm_duration_ms"`
	LLMRetries    []traceAttempt         `json:"llm_retries,omitempty"`
	Tokens        llm.Tokens             `json:"tokens"`
	Response      string                 `json:"response,omitempty"`
	Feedback      string                 `json:"feedback,omitempty"`
	Memory        map[string]*traceValue `json:"memory,omitempty"`
}

// traceAttempt is a failed attempt of a turn's LLM call.
type traceAttempt struct {
	Attempt int        `json:"attempt"`
	Error   string     `json:"error"`
	Class   string     `json:"class,omitempty"`
	WaitMS  msDuration `json:"wait_ms,omitempty"`
}

type traceCall struct {
	Name       string      `json:"name"`
	Args       *traceValue `json:"args,omitempty"`
	Result     *traceValue `json:"result,omitempty"`
	Error      string      `json:"error,omitempty"`
	Warnings   []string    `json:"warnings,omitempty"`
	Start      string      `json:"start"`
	DurationMS msDuration  `json:"duration_ms"`
	Child      *traceStep  `json:"child,omitempty"`
}

type traceMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// msDuration is a duration written as milliseconds, to the nanosecond.
type msDuration time.Duration

func (d msDuration) MarshalJSON() ([]byte, error) {
	return strconv.AppendFloat(nil, float64(d)/1e6, 'f', -1, 64), nil
}

func (d *msDuration) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*d = 0
		return nil
	}
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil || math.IsNaN(f) || math.Abs(f*1e6) > math.MaxInt64 {
		return fmt.Errorf("bad duration_ms %.40q", b) // a trace may come from elsewhere: quote little
	}
	*d = msDuration(math.Round(f * 1e6))
	return nil
}

// Writing.

type traceWriter struct {
	raw    bool
	budget int
	seen   map[*agent.Step]bool // the steps on the current path: a cycle is an error
}

func (w *traceWriter) text(vl fwall.Veil, t string) string {
	if w.raw {
		return t
	}
	return vl.Scrub(t)
}

func (w *traceWriter) texts(vl fwall.Veil, ts []string) []string {
	if len(ts) == 0 {
		return nil
	}
	if w.raw {
		return ts
	}
	return vl.ScrubAll(ts)
}

// value writes v in both forms, redacted as vl's redaction says.
func (w *traceWriter) value(vl fwall.Veil, v lisp.Value) (*traceValue, error) {
	var red *lisp.Redaction
	if !w.raw {
		red = vl.Redaction()
	}
	if w.budget <= 0 {
		return nil, w.tooLarge()
	}
	// MaxChars stops the printer soon after the budget, whatever the
	// value's expanded size.
	text := lisp.Print(v, lisp.PrintOptions{MaxDepth: maxDepth + 1, Redact: red, MaxChars: w.budget})
	if w.budget -= len(text); w.budget < 0 {
		return nil, w.tooLarge()
	}
	tv := &traceValue{Lisp: text}
	data, err := lisp.ToJSON(v, red)
	if err != nil {
		tv.JSONError = err.Error()
		return tv, nil
	}
	if w.budget -= len(data); w.budget < 0 {
		return nil, w.tooLarge()
	}
	tv.JSON = data
	return tv, nil
}

func (w *traceWriter) tooLarge() error {
	return errors.New("trace: Marshal: the trace's values exceed JSONOptions.MaxBytes")
}

// step writes s, whose readers' firewalls are outer: a nested agent's
// trace hides what its callers hide.
// step writes s, called by the mission whose trace id is parentID ("" at
// the top).
func (w *traceWriter) step(s *agent.Step, parentID string, depth int, outer fwall.Veil) (*traceStep, error) {
	if depth > maxDepth {
		return nil, errors.New("trace: Marshal: agents nested too deep")
	}
	if w.seen[s] {
		return nil, errors.New("trace: Marshal: a step is its own descendant")
	}
	w.seen[s] = true
	defer delete(w.seen, s)
	vl := s.Veil().With(outer)
	js := &traceStep{
		TraceID:       s.TraceID,
		ParentTraceID: parentID,
		OK:            s.Fail == nil,
		SystemPrompt:  w.text(vl, s.SystemPrompt),
		Usage:         usageJSON(s.Usage),
		TotalUsage:    usageJSON(s.TotalUsage),
		Warnings:      w.texts(vl, s.Warnings),
		Turns:         []traceTurn{},
	}
	// The step's estimate, beside its usage (a reader of the trace does
	// not restore it: Step computes it from the system prompt).
	js.Usage.SystemPromptTokens = s.SystemPromptTokens()
	if s.Signature != nil {
		js.Signature = s.Signature.String()
	}
	var err error
	if s.Fail == nil {
		if js.Return, err = w.value(vl, s.Return); err != nil {
			return nil, err
		}
	} else {
		f := s.Fail
		js.Fail = &traceFail{Reason: w.text(vl, string(f.Reason)), Message: w.text(vl, f.Message), Op: w.text(vl, f.Op), ByProgram: f.ByProgram}
		if len(f.Details) > 0 {
			if d, derr := lisp.FromGo(detailsData(f.Details, 0)); derr == nil {
				if js.Fail.Details, err = w.value(vl, d); err != nil {
					return nil, err
				}
			}
		}
	}
	for i := range s.Trace {
		t, err := w.turn(vl, s.TraceID, i+1, &s.Trace[i], depth)
		if err != nil {
			return nil, err
		}
		js.Turns = append(js.Turns, t)
	}
	for _, m := range s.Messages {
		js.Messages = append(js.Messages, traceMessage{Role: string(m.Role), Content: w.text(vl, m.Content)})
	}
	return js, nil
}

// detailsData is Fail.Details with the Fails it holds (a chained
// failure's upstream) as maps.
func detailsData(d map[string]any, depth int) map[string]any {
	out := make(map[string]any, len(d))
	for k, v := range d {
		if f, ok := v.(*agent.Fail); ok && f != nil {
			m := map[string]any{"reason": f.Reason, "message": f.Message}
			if f.Op != "" {
				m["op"] = f.Op
			}
			if len(f.Details) > 0 && depth < 100 {
				m["details"] = detailsData(f.Details, depth+1)
			}
			v = m
		}
		out[k] = v
	}
	return out
}

func usageJSON(u agent.Usage) traceUsage {
	return traceUsage{Turns: u.Turns, LLMRequests: u.LLMRequests, Tokens: u.Tokens, DurationMS: msDuration(u.Duration),
		Programs: u.Programs, CachedPrograms: u.CachedPrograms}
}

func (w *traceWriter) turn(vl fwall.Veil, traceID string, number int, t *agent.Turn, depth int) (traceTurn, error) {
	jt := traceTurn{
		Number:        number,
		Program:       w.text(vl, t.Program),
		Cached:        t.Usage.CachedPrograms > 0,
		Error:         w.text(vl, t.Error),
		Output:        w.output(vl, t.Output),
		DurationMS:    msDuration(t.Usage.Duration),
		LLMDurationMS: msDuration(t.LLMDuration),
		Tokens:        t.Usage.Tokens,
		Response:      w.text(vl, t.Response),
		Feedback:      w.text(vl, t.Feedback),
	}
	for i, a := range t.LLMRetries {
		ja := traceAttempt{Attempt: i + 1, WaitMS: msDuration(a.Wait)}
		if a.Err != nil {
			ja.Error, ja.Class = w.text(vl, a.Err.Error()), string(llm.Classify(a.Err).Class)
		}
		jt.LLMRetries = append(jt.LLMRetries, ja)
	}
	var err error
	if t.Error == "" && (t.Program != "" || t.Result != nil) {
		if jt.Result, err = w.value(vl, t.Result); err != nil {
			return jt, err
		}
	}
	if t.Memory != nil && t.Memory.Len() > 0 {
		hiddenName := fwall.Veil(nil).Redaction().Key // the "_" rule alone
		jt.Memory = map[string]*traceValue{}
		for _, name := range t.Memory.Names() {
			v, _ := t.Memory.Get(name)
			// A name is data too ((memory/put (keyword s) 1)): scrubbed,
			// and kept apart from another name it scrubs alike.
			shown := w.text(vl, name)
			for i := 2; jt.Memory[shown] != nil; i++ {
				shown = w.text(vl, name) + "#" + strconv.Itoa(i)
			}
			if !w.raw && hiddenName(name) {
				jt.Memory[shown] = &traceValue{Lisp: agent.Firewalled, JSON: json.RawMessage(strconv.Quote(agent.Firewalled))}
				continue
			}
			if jt.Memory[shown], err = w.value(vl, v); err != nil {
				return jt, err
			}
		}
	}
	for i := range t.ToolCalls {
		c := &t.ToolCalls[i]
		jc := traceCall{
			Name:       w.text(vl, c.Name),
			Error:      w.text(vl, c.Error),
			Warnings:   w.texts(vl, c.Warnings),
			DurationMS: msDuration(c.Duration),
		}
		if !c.Start.IsZero() {
			jc.Start = c.Start.UTC().Format(time.RFC3339Nano)
		}
		if c.Args != nil {
			if jc.Args, err = w.value(vl, c.Args); err != nil {
				return jt, err
			}
		}
		if c.Error == "" {
			if jc.Result, err = w.value(vl, c.Result); err != nil {
				return jt, err
			}
		}
		if c.Child != nil {
			if jc.Child, err = w.step(c.Child, traceID, depth+1, vl); err != nil {
				return jt, err
			}
		}
		jt.ToolCalls = append(jt.ToolCalls, jc)
	}
	return jt, nil
}

// Reading.

// readStep rebuilds a Step; Unmarshal then restores its veil.
func readStep(js *traceStep, depth int) (*agent.Step, error) {
	if depth > maxDepth {
		return nil, errors.New("trace: reading the trace: agents nested too deep")
	}
	s := &agent.Step{
		TraceID:      js.TraceID,
		SystemPrompt: js.SystemPrompt,
		Usage:        usageOf(js.Usage),
		TotalUsage:   usageOf(js.TotalUsage),
		Warnings:     js.Warnings,
	}
	if js.Signature != "" {
		if sig, err := signature.Parse(js.Signature); err == nil {
			s.Signature = sig
		}
	}
	if js.Fail != nil {
		f := js.Fail
		s.Fail = &agent.Fail{Reason: agent.Reason(f.Reason), Message: f.Message, Op: f.Op, ByProgram: f.ByProgram}
		if f.Details != nil {
			if g, err := lisp.ToGo(readValue(f.Details)); err == nil {
				if m, ok := g.(map[string]any); ok {
					s.Fail.Details = m
				}
			}
		}
	} else if !js.OK {
		s.Fail = &agent.Fail{Reason: "unknown", Message: "the trace does not say why the mission failed"}
	} else if js.Return != nil {
		s.Return = readValue(js.Return)
	}
	for _, jt := range js.Turns {
		t := agent.Turn{
			Program:     jt.Program,
			Error:       jt.Error,
			Output:      jt.Output,
			LLMDuration: time.Duration(jt.LLMDurationMS),
			Response:    jt.Response,
			Feedback:    jt.Feedback,
		}
		for _, a := range jt.LLMRetries {
			t.LLMRetries = append(t.LLMRetries, agent.LLMAttempt{Err: &attemptErr{a.Error, &llm.Error{Class: llm.Class(a.Class)}},
				Wait: time.Duration(a.WaitMS)})
		}
		// The turn's Usage, rebuilt from what the JSON form keeps of it.
		t.Usage = agent.Usage{Turns: 1, LLMRequests: 1 + len(jt.LLMRetries), Tokens: jt.Tokens,
			Duration: time.Duration(jt.DurationMS)}
		if jt.Program != "" {
			t.Usage.Programs = 1
		}
		if jt.Cached {
			t.Usage.CachedPrograms = 1
		}
		if jt.Result != nil {
			t.Result = readValue(jt.Result)
		}
		if len(jt.Memory) > 0 {
			vars := make(map[string]lisp.Value, len(jt.Memory))
			for name, v := range jt.Memory {
				if v != nil {
					vars[name] = readValue(v)
				}
			}
			t.Memory = lisp.NewNamespace(vars)
		}
		for _, jc := range jt.ToolCalls {
			c := agent.ToolCall{
				Name:     jc.Name,
				Error:    jc.Error,
				Warnings: jc.Warnings,
				Duration: time.Duration(jc.DurationMS),
			}
			if jc.Start != "" {
				if tm, err := time.Parse(time.RFC3339Nano, jc.Start); err == nil {
					c.Start = tm
				}
			}
			if jc.Args != nil {
				if m, ok := readValue(jc.Args).(*lisp.Map); ok {
					c.Args = m
				}
			}
			if jc.Result != nil {
				c.Result = readValue(jc.Result)
			}
			if jc.Child != nil {
				child, err := readStep(jc.Child, depth+1)
				if err != nil {
					return nil, err
				}
				c.Child = child
			}
			t.ToolCalls = append(t.ToolCalls, c)
		}
		s.Trace = append(s.Trace, t)
	}
	for _, m := range js.Messages {
		s.Messages = append(s.Messages, llm.Message{Role: llm.Role(m.Role), Content: m.Content})
	}
	return s, nil
}

func usageOf(u traceUsage) agent.Usage {
	return agent.Usage{Turns: u.Turns, LLMRequests: u.LLMRequests, Tokens: u.Tokens, Duration: time.Duration(u.DurationMS),
		Programs: u.Programs, CachedPrograms: u.CachedPrograms}
}

// attemptErr is a failed LLM attempt read from a trace: its text as it
// was written, and its class for errors.Is and llm.Classify.
type attemptErr struct {
	text  string
	class *llm.Error
}

func (e *attemptErr) Error() string { return e.text }
func (e *attemptErr) Unwrap() error { return e.class }

// readValue rebuilds a value from its printed form, else from its JSON
// form, else keeps its printed form as a string.
func readValue(tv *traceValue) lisp.Value {
	if v, err := readPrinted(tv.Lisp); err == nil {
		return v
	}
	if len(tv.JSON) > 0 {
		if v, err := lisp.Read(string(tv.JSON), lisp.ReadOptions{Format: lisp.ReadJSON}); err == nil {
			return v
		}
	}
	return tv.Lisp
}

// readPrinted reads a value's printed form (lisp.Read), the
// placeholder as the string agent.Firewalled.
func readPrinted(src string) (lisp.Value, error) {
	return lisp.Read(src, lisp.ReadOptions{Placeholder: agent.Firewalled, MaxDepth: maxDepth})
}

// output is a turn's println output for the trace: scrubbed as a whole
// (a firewalled text may span lines) when that keeps the lines apart, each
// line on its own otherwise.
func (w *traceWriter) output(vl fwall.Veil, lines []string) []string {
	if w.raw || len(lines) == 0 {
		return w.texts(vl, lines)
	}
	return vl.ScrubLines(lines)
}

// stepValues are the values a raw trace holds of step and the Steps below
// it besides its return value: each turn's value and memory, each tool
// call's arguments and result, the memory at the end.
func stepValues(step *agent.Step, seen map[*agent.Step]bool) []lisp.Value {
	if step == nil || seen[step] {
		return nil
	}
	seen[step] = true
	var out []lisp.Value
	addMemory := func(ns *lisp.Namespace) {
		for _, name := range ns.Names() {
			v, _ := ns.Get(name)
			out = append(out, v)
		}
	}
	if step.Memory != nil {
		addMemory(step.Memory)
	}
	for _, tr := range step.Trace {
		out = append(out, tr.Result)
		if tr.Memory != nil {
			addMemory(tr.Memory)
		}
		for _, c := range tr.ToolCalls {
			out = append(out, c.Args, c.Result)
			out = append(out, stepValues(c.Child, seen)...)
		}
	}
	return out
}
