package transcript

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/agent/agentfile"
	"github.com/ptc-go/ptc/agent/trace"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm"
)

// Shown is how a mission's leavings are shown (the value ptc run prints,
// --json, the recording): through the Step's firewall, as a trace shows
// it, or raw (ptc run --unredacted).
type Shown struct {
	Step *agent.Step
	Raw  bool
}

// Text is a text of the mission, scrubbed unless raw.
func (sh Shown) Text(t string) string {
	if sh.Raw {
		return t
	}
	return sh.Step.Scrub(t)
}

// Texts are texts of the mission, scrubbed unless raw (nil for none).
func (sh Shown) Texts(ts []string) []string {
	if len(ts) == 0 {
		return nil
	}
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = sh.Text(t)
	}
	return out
}

// Redaction is the printers' redaction: the Step's, nil when raw.
func (sh Shown) Redaction() *lisp.Redaction {
	if sh.Raw {
		return nil
	}
	return sh.Step.Redaction()
}

// Value prints v, redacted and scrubbed unless raw.
func (sh Shown) Value(v lisp.Value, opts lisp.PrintOptions) string {
	opts.Redact = sh.Redaction()
	return sh.Text(lisp.Print(v, opts))
}

// ValueContext is Value with printing bounded by ctx.
func (sh Shown) ValueContext(ctx context.Context, v lisp.Value, opts lisp.PrintOptions) (string, error) {
	opts.Redact = sh.Redaction()
	s, err := lisp.PrintContext(ctx, v, opts)
	return sh.Text(s), err
}

// OutcomeOf is the outcome of a mission.
func OutcomeOf(step *agent.Step, sh Shown) Outcome {
	o := Outcome{OK: step.Fail == nil, Return: json.RawMessage("null"), TraceID: step.TraceID, Warnings: sh.Texts(step.Warnings)}
	u := step.Usage
	o.Usage = OutcomeUsage{Turns: u.Turns, LLMRequests: u.LLMRequests, Tokens: u.Tokens, DurationMS: u.Duration.Milliseconds()}
	if f := step.Fail; f != nil {
		o.Fail = &OutcomeFail{Reason: sh.Text(string(f.Reason)), Message: sh.Text(f.Message), Op: sh.Text(f.Op)}
		if c, ok := f.Details["class"].(string); ok {
			o.Fail.Class = sh.Text(c)
		}
		return o
	}
	b, err := lisp.ToJSON(step.Return, sh.Redaction())
	if err != nil {
		// A value JSON cannot hold as such: its printed form, as a string.
		b, _ = json.Marshal(sh.Value(step.Return, lisp.PrintOptions{}))
		o.Warnings = append(o.Warnings, "return: "+err.Error()+"; the value is given in its printed form")
	}
	o.Return = b
	return o
}

// Recorder wraps a model and keeps every call for the recording.
type Recorder struct {
	Inner llm.Func
	// Run is the run's context: a call that fails because it ended was
	// interrupted, not failed.
	Run context.Context
	// Calls are the calls made so far.
	Calls []trace.LLMCall
	mu    sync.Mutex
}

// Call calls the model and records the call: the request, and the reply
// or the error (its message, class and status).
func (r *Recorder) Call(ctx context.Context, req llm.Request) (llm.Response, error) {
	start := time.Now()
	resp, err := r.Inner(ctx, req)
	c := trace.LLMCall{Turn: req.Turn, System: req.System, Messages: append([]llm.Message(nil), req.Messages...),
		Reply: trace.LLMReply{Content: resp.Content, Tokens: resp.Tokens}, DurationMS: time.Since(start).Milliseconds()}
	if err != nil {
		le := llm.Classify(err)
		c.Reply = trace.LLMReply{Error: le.Message, Class: le.Class}
		if c.Reply.Error == "" && le.Err != nil {
			c.Reply.Error = le.Err.Error()
		}
		if c.Reply.Error == "" {
			c.Reply.Error = string(le.Class)
		}
		c.Status = le.Status
		c.Interrupted = r.Run.Err() != nil
	}
	r.mu.Lock()
	r.Calls = append(r.Calls, c)
	r.mu.Unlock()
	return resp, err
}

// AgentSource is the agent file a recording names: its name (recorded as
// given) and its text.
type AgentSource struct {
	File string
	Text []byte
}

// Transcript builds the recording of the run: the mission's trace with
// the calls, what the mission firewalled shown as <Firewalled> everywhere
// in it (the context, the agent file's text, the calls, the outcome)
// unless sh is raw. A nil src records no agent (an agent a program built,
// not read from a file); model is the model's reference, version the
// recording ptc's.
func (r *Recorder) Transcript(src *AgentSource, model string, ctx *lisp.Map, sh Shown, version string) (*Transcript, error) {
	rec := &trace.Recording{PTC: version, RecordedAt: time.Now().UTC().Format(time.RFC3339), Model: model}
	if src != nil {
		text := src.Text
		sum := sha256.Sum256(text)
		if !sh.Raw {
			text = redactInlineContext(src.File, text)
		}
		rec.Agent = &trace.RecordedAgent{File: src.File, SHA256: hex.EncodeToString(sum[:]), Text: string(text)}
	}
	var err error
	if rec.Context, rec.ContextEDN, err = contextForms(ctx, sh); err != nil {
		return nil, err
	}
	r.mu.Lock()
	rec.Calls = append([]trace.LLMCall(nil), r.Calls...)
	r.mu.Unlock()
	doc, err := trace.Marshal(sh.Step, trace.JSONOptions{Raw: sh.Raw, Indent: "  ", Recording: rec})
	if err != nil {
		return nil, err
	}
	return ReadRecording(doc)
}

// contextForms returns the context as JSON and, when JSON does not read
// back as the same value, its printed PTC-Lisp form too; redacted unless
// sh is raw.
func contextForms(ctx *lisp.Map, sh Shown) (json.RawMessage, string, error) {
	red := sh.Redaction()
	if red != nil {
		// The placeholder as a string, so that a replay reads the context
		// back (as the JSON form has it).
		r := *red
		r.Placeholder = strconv.Quote(agent.Firewalled)
		red = &r
	}
	printed := sh.Text(lisp.Print(ctx, lisp.PrintOptions{Redact: red}))
	b, err := lisp.ToJSON(ctx, sh.Redaction())
	if err != nil {
		return json.RawMessage("null"), printed, nil
	}
	if back, err := lisp.Read(string(b), lisp.ReadOptions{Format: lisp.ReadJSON}); err == nil && lisp.Print(back, lisp.PrintOptions{}) == printed {
		return b, "", nil
	}
	return b, printed, nil
}

// outcomeRecord is the outcome of a mission as its trace shows it
// (redacted unless sh is raw): what a replay compares with the recorded
// one, read from a recording alike.
func outcomeRecord(sh Shown) *RecordedOutcome {
	doc, err := trace.Marshal(sh.Step, trace.JSONOptions{Raw: sh.Raw})
	if err == nil {
		var o *RecordedOutcome
		if o, err = traceOutcome(doc); err == nil {
			return o
		}
	}
	// A trace too large to write: the outcome without its turns.
	o := &RecordedOutcome{Outcome: OutcomeOf(sh.Step, sh)}
	if sh.Step.Fail == nil {
		o.ReturnEDN = sh.Value(sh.Step.Return, lisp.PrintOptions{})
	}
	return o
}

// redactInlineContext returns an agent file's text with the values of the
// _ fields of its inline context (context: {...}) shown as Firewalled. The
// recording's redaction hides what the mission's firewall knows; when a
// run gave such a field another value (-c, --set, ptc dev's form), the
// file's own value is not the mission's, and would stay in clear. The
// context entry is written again on one line, as EDN; the rest of the
// text is kept byte for byte. A text without an inline context, or one
// that does not parse, is returned as it is (the mission's redaction
// still applies to it).
func redactInlineContext(name string, text []byte) []byte {
	f, err := agentfile.Parse(name, text)
	if err != nil || !f.Has("context") || f.ContextFile() != "" {
		return text
	}
	ctx, err := f.Context()
	if err != nil || !hasFirewalledKey(ctx) {
		return text
	}
	red := &lisp.Redaction{Placeholder: strconv.Quote(agent.Firewalled), Key: func(k lisp.Value) bool {
		s, ok := k.(string)
		if kw, isKw := k.(lisp.Keyword); isKw {
			s, ok = string(kw), true
		}
		return ok && strings.HasPrefix(s, "_")
	}}
	entry := "context: " + lisp.Print(ctx, lisp.PrintOptions{Redact: red})
	lines := strings.SplitAfter(string(text), "\n")
	// Pos is where the value starts: on the key's line, or below it for a
	// block (context: |).
	start := f.Pos("context").Line - 1
	for start >= 0 && start < len(lines) && !strings.HasPrefix(lines[start], "context:") {
		start--
	}
	if start < 0 || start >= len(lines) {
		return text
	}
	end := start + 1 // the entry's continuation lines are indented
	for end < len(lines) && (strings.HasPrefix(lines[end], " ") || strings.HasPrefix(lines[end], "\t")) {
		end++
	}
	nl := "\n"
	if !strings.HasSuffix(lines[end-1], "\n") {
		nl = ""
	}
	out := strings.Join(lines[:start], "") + entry + nl + strings.Join(lines[end:], "")
	return []byte(out)
}

// hasFirewalledKey reports whether a map has a _ key at any depth, within
// a bound of work (an inline context is at most an agent file's size).
func hasFirewalledKey(v lisp.Value) bool {
	work := 1 << 16
	var walk func(v lisp.Value) bool
	walk = func(v lisp.Value) bool {
		if work--; work < 0 {
			return true // too big to tell: redact
		}
		switch x := v.(type) {
		case *lisp.Map:
			for k, e := range x.All() {
				if s, ok := k.(string); ok && strings.HasPrefix(s, "_") {
					return true
				}
				if kw, ok := k.(lisp.Keyword); ok && strings.HasPrefix(string(kw), "_") {
					return true
				}
				if walk(e) {
					return true
				}
			}
		case *lisp.Vector:
			for _, e := range x.Items() {
				if walk(e) {
					return true
				}
			}
		}
		return false
	}
	return walk(v)
}
