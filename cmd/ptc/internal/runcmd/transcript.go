package runcmd

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/agent/agentfile"
	"github.com/ptc-go/ptc/agent/trace"
	"github.com/ptc-go/ptc/cmd/ptc/internal/base"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm"
)

// The recording of "ptc run --record", which "--replay" reads: a ptc-trace
// (docs/trace-format.md) that is also a trace.Recording, so that it holds
// everything needed to run the mission again offline and to tell whether
// it went the same way. --replay still reads the transcripts of older ptc
// versions (legacyFormat), converted on reading. docs/cli.md describes it.
const (
	TranscriptFormat  = trace.Format
	transcriptVersion = trace.Version
	legacyFormat      = "ptc-run-transcript"
)

// Transcript is a recorded mission, as a replay uses it.
type Transcript struct {
	Format  string `json:"format"`  // TranscriptFormat (legacyFormat in an old file)
	Version int    `json:"version"` // transcriptVersion
	// PTC is the version of the ptc that recorded it.
	PTC string `json:"ptc,omitempty"`
	// Redacted: the recording shows what the mission firewalled as
	// <Firewalled> (in the context, the calls, the outcome, the agent
	// file's text), as a trace does; false for one recorded with
	// --unredacted (and by a ptc older than this field).
	Redacted   bool            `json:"redacted,omitempty"`
	RecordedAt string          `json:"recorded_at,omitempty"`
	Agent      transcriptAgent `json:"agent"`
	// Model is the model reference of the recorded run.
	Model string `json:"model"`
	// Context is the mission's context as JSON; ContextEDN its exact
	// PTC-Lisp form, present only when JSON loses something (keywords,
	// sets, floats with no fraction).
	Context    json.RawMessage `json:"context"`
	ContextEDN string          `json:"context_edn,omitempty"`
	// System is the system prompt of the first call; a call whose system
	// prompt differs has its own.
	System string           `json:"system"`
	Calls  []TranscriptCall `json:"calls"`
	// Outcome is how the mission ended.
	Outcome *transcriptOutcome `json:"outcome"`

	// Doc is the ptc-trace document read or recorded, which Save writes
	// (nil for a legacy transcript).
	Doc []byte
}

type transcriptAgent = trace.RecordedAgent

// TranscriptCall is one LLM call: the request's messages and the reply
// ({"content", "tokens", "error", "class"}: llmtest.Replay reads the
// replies of a recording).
type TranscriptCall = trace.LLMCall

// transcriptOutcome is the mission's outcome, as --json prints it, plus
// the exact printed return value and each turn's program and result.
type transcriptOutcome struct {
	Outcome
	ReturnEDN string           `json:"return_edn,omitempty"`
	Turns     []transcriptTurn `json:"turns"`
}

// transcriptTurn is a turn of the trace: the program and what it did.
type transcriptTurn struct {
	Number    int                  `json:"number"`
	Program   string               `json:"program,omitempty"`
	Result    string               `json:"result,omitempty"` // printed
	Error     string               `json:"error,omitempty"`
	Output    []string             `json:"output,omitempty"`
	ToolCalls []transcriptToolCall `json:"tool_calls,omitempty"`
}

// transcriptToolCall is a tool call of a turn.
type transcriptToolCall struct {
	Name   string `json:"name"`
	Args   string `json:"args,omitempty"`   // printed
	Result string `json:"result,omitempty"` // printed
	Error  string `json:"error,omitempty"`
}

// Outcome is a mission's outcome as "ptc run --json" prints it.
type Outcome struct {
	OK       bool            `json:"ok"`
	Return   json.RawMessage `json:"return"` // null on failure
	Fail     *OutcomeFail    `json:"fail"`   // null on success
	Usage    outcomeUsage    `json:"usage"`
	TraceID  string          `json:"trace_id"`
	Warnings []string        `json:"warnings,omitempty"`
}

type OutcomeFail struct {
	Reason  string `json:"reason"`
	Message string `json:"message"`
	Op      string `json:"op,omitempty"`
	// Class is the failure class of an llm_error (rate_limit, timeout...).
	Class string `json:"class,omitempty"`
}

type outcomeUsage struct {
	Turns       int        `json:"turns"`
	LLMRequests int        `json:"llm_requests"`
	Tokens      llm.Tokens `json:"tokens"`
	DurationMS  int64      `json:"duration_ms"`
}

// Shown is how ptc run shows what a mission left (the value it prints,
// --json, the transcript): through the Step's firewall, as a trace shows
// it, or raw with --unredacted.
type Shown struct {
	Step *agent.Step
	raw  bool
}

// Text is a text of the mission, scrubbed unless raw.
func (sh Shown) Text(t string) string {
	if sh.raw {
		return t
	}
	return sh.Step.Scrub(t)
}

func (sh Shown) texts(ts []string) []string {
	if len(ts) == 0 {
		return nil
	}
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = sh.Text(t)
	}
	return out
}

// redaction is the printers' redaction: the Step's, nil when raw.
func (sh Shown) redaction() *lisp.Redaction {
	if sh.raw {
		return nil
	}
	return sh.Step.Redaction()
}

// Value prints v, redacted and scrubbed unless raw.
func (sh Shown) Value(v lisp.Value, opts lisp.PrintOptions) string {
	opts.Redact = sh.redaction()
	return sh.Text(lisp.FormatValue(v, opts))
}

// valueContext is value with printing bounded by ctx.
func (sh Shown) valueContext(ctx context.Context, v lisp.Value, opts lisp.PrintOptions) (string, error) {
	opts.Redact = sh.redaction()
	s, err := lisp.FormatValueContext(ctx, v, opts)
	return sh.Text(s), err
}

// outcomeOf is the outcome of a mission.
func outcomeOf(step *agent.Step, sh Shown) Outcome {
	o := Outcome{OK: step.Fail == nil, Return: json.RawMessage("null"), TraceID: step.TraceID, Warnings: sh.texts(step.Warnings)}
	u := step.Usage
	o.Usage = outcomeUsage{Turns: u.Turns, LLMRequests: u.LLMRequests, Tokens: u.Tokens, DurationMS: u.Duration.Milliseconds()}
	if f := step.Fail; f != nil {
		o.Fail = &OutcomeFail{Reason: sh.Text(string(f.Reason)), Message: sh.Text(f.Message), Op: sh.Text(f.Op)}
		if c, ok := f.Details["class"].(string); ok {
			o.Fail.Class = sh.Text(c)
		}
		return o
	}
	b, err := lisp.ToJSONRedacted(step.Return, sh.redaction())
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
	Run   context.Context
	mu    sync.Mutex
	Calls []TranscriptCall
}

func (r *Recorder) Call(ctx context.Context, req llm.Request) (llm.Response, error) {
	start := time.Now()
	resp, err := r.Inner(ctx, req)
	c := TranscriptCall{Turn: req.Turn, System: req.System, Messages: append([]llm.Message(nil), req.Messages...),
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

// Transcript builds the recording of the run: the mission's trace with
// the calls, what the mission firewalled shown as <Firewalled> everywhere
// in it (the context, the agent file's text, the calls, the outcome)
// unless sh is raw.
func (r *Recorder) Transcript(agentFile string, agentText []byte, model string, ctx *lisp.Map, sh Shown, version string) (*Transcript, error) {
	sum := sha256.Sum256(agentText)
	if !sh.raw {
		agentText = redactInlineContext(agentFile, agentText)
	}
	rec := &trace.Recording{PTC: version, RecordedAt: time.Now().UTC().Format(time.RFC3339),
		Agent: &trace.RecordedAgent{File: filepath.Base(agentFile), SHA256: hex.EncodeToString(sum[:]), Text: string(agentText)},
		Model: model}
	var err error
	if rec.Context, rec.ContextEDN, err = contextForms(ctx, sh); err != nil {
		return nil, err
	}
	r.mu.Lock()
	rec.Calls = append([]TranscriptCall(nil), r.Calls...)
	r.mu.Unlock()
	doc, err := trace.Marshal(sh.Step, trace.JSONOptions{Raw: sh.raw, Indent: "  ", Recording: rec})
	if err != nil {
		return nil, err
	}
	return ReadRecording(doc)
}

// contextForms returns the context as JSON and, when JSON does not read
// back as the same value, its printed PTC-Lisp form too; redacted unless
// sh is raw.
func contextForms(ctx *lisp.Map, sh Shown) (json.RawMessage, string, error) {
	red := sh.redaction()
	if red != nil {
		// The placeholder as a string, so that a replay reads the context
		// back (as the JSON form has it).
		r := *red
		r.Placeholder = strconv.Quote(agent.Firewalled)
		red = &r
	}
	printed := sh.Text(lisp.FormatValue(ctx, lisp.PrintOptions{Redact: red}))
	b, err := lisp.ToJSONRedacted(ctx, sh.redaction())
	if err != nil {
		return json.RawMessage("null"), printed, nil
	}
	if back, err := lisp.ParseJSON(b); err == nil && lisp.PrintString(back) == printed {
		return b, "", nil
	}
	return b, printed, nil
}

// outcomeRecord is the outcome of a mission as its trace shows it
// (redacted unless sh is raw): what a replay compares with the recorded
// one, read from a recording alike.
func outcomeRecord(sh Shown) *transcriptOutcome {
	doc, err := trace.Marshal(sh.Step, trace.JSONOptions{Raw: sh.raw})
	if err == nil {
		var o *transcriptOutcome
		if o, err = traceOutcome(doc); err == nil {
			return o
		}
	}
	// A trace too large to write: the outcome without its turns.
	o := &transcriptOutcome{Outcome: outcomeOf(sh.Step, sh)}
	if sh.Step.Fail == nil {
		o.ReturnEDN = sh.Value(sh.Step.Return, lisp.PrintOptions{})
	}
	return o
}

// The parts of a trace's step that make the outcome.
type (
	TraceValue struct {
		Lisp string          `json:"lisp"`
		JSON json.RawMessage `json:"json,omitempty"`
	}
	tStep struct {
		TraceID string      `json:"trace_id"`
		OK      bool        `json:"ok"`
		Return  *TraceValue `json:"return,omitempty"`
		Fail    *struct {
			Reason  string      `json:"reason"`
			Message string      `json:"message"`
			Op      string      `json:"op,omitempty"`
			Details *TraceValue `json:"details,omitempty"`
		} `json:"fail,omitempty"`
		Usage struct {
			Turns       int        `json:"turns"`
			LLMRequests int        `json:"llm_requests"`
			Tokens      llm.Tokens `json:"tokens"`
			DurationMS  float64    `json:"duration_ms"`
		} `json:"usage"`
		Warnings []string    `json:"warnings,omitempty"`
		Turns    []TraceTurn `json:"turns"`
	}
	// TraceTurn is a turn of a trace as its readers here need it (the outcome
	// of a recording, ptc dev's run detail).
	TraceTurn struct {
		Number    int         `json:"number"`
		Program   string      `json:"program"`
		Result    *TraceValue `json:"result"`
		Error     string      `json:"error"`
		Output    []string    `json:"output"`
		ToolCalls []struct {
			Name       string      `json:"name"`
			Args       *TraceValue `json:"args"`
			Result     *TraceValue `json:"result"`
			Error      string      `json:"error"`
			DurationMS float64     `json:"duration_ms"`
		} `json:"tool_calls"`
		Tokens     llm.Tokens   `json:"tokens"`
		DurationMS float64      `json:"duration_ms"`
		Response   string       `json:"response"`
		LLMRetries []TraceRetry `json:"llm_retries"`
	}
	// tRetry is a failed attempt of a turn's LLM call, as the trace holds
	// it.
	TraceRetry struct {
		Attempt int     `json:"attempt"`
		Error   string  `json:"error"`
		Class   string  `json:"class"`
		WaitMS  float64 `json:"wait_ms"`
	}
)

func (v *TraceValue) LispString() string {
	if v == nil {
		return ""
	}
	return v.Lisp
}

// traceOutcome reads the outcome of a trace's top step.
func traceOutcome(doc []byte) (*transcriptOutcome, error) {
	var d struct {
		Step *tStep `json:"step"`
	}
	if err := json.Unmarshal(doc, &d); err != nil {
		return nil, err
	}
	s := d.Step
	if s == nil {
		return nil, errors.New("the trace has no step")
	}
	o := &transcriptOutcome{Outcome: Outcome{OK: s.OK, Return: json.RawMessage("null"), TraceID: s.TraceID,
		Warnings: s.Warnings, Usage: outcomeUsage{Turns: s.Usage.Turns, LLMRequests: s.Usage.LLMRequests,
			Tokens: s.Usage.Tokens, DurationMS: int64(s.Usage.DurationMS)}}}
	if f := s.Fail; f != nil {
		o.Fail = &OutcomeFail{Reason: f.Reason, Message: f.Message, Op: f.Op}
		if f.Details != nil {
			var det struct {
				Class string `json:"class"`
			}
			if json.Unmarshal(f.Details.JSON, &det) == nil {
				o.Fail.Class = det.Class
			}
		}
	} else if s.Return != nil {
		o.ReturnEDN = s.Return.Lisp
		if len(s.Return.JSON) > 0 {
			o.Return = s.Return.JSON
		}
	}
	for _, t := range s.Turns {
		tt := transcriptTurn{Number: t.Number, Program: t.Program, Result: t.Result.LispString(), Error: t.Error, Output: t.Output}
		for _, c := range t.ToolCalls {
			tt.ToolCalls = append(tt.ToolCalls, transcriptToolCall{Name: c.Name, Args: c.Args.LispString(), Result: c.Result.LispString(), Error: c.Error})
		}
		o.Turns = append(o.Turns, tt)
	}
	return o, nil
}

// Save writes the recording as recorded, through a temporary file so
// that a failed write leaves no half file.
func (t *Transcript) Save(path string) error {
	return base.WriteFileAtomic(path, append(t.Doc, '\n'), 0o644)
}

// LoadTranscript reads a recording: a ptc-trace, or a transcript of an
// older ptc.
func LoadTranscript(path string) (*Transcript, error) {
	b, err := base.ReadBounded(path, base.KindTranscript)
	if err != nil {
		return nil, err
	}
	var head struct {
		Format  string `json:"format"`
		Version int    `json:"version"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		if _, derr := base.ReadData(b, false); derr != nil {
			var de *base.DataError
			if errors.As(derr, &de) && de.Pos.IsValid() {
				return nil, fmt.Errorf("%s:%d:%d (byte %d): %s", path, de.Pos.Line, de.Pos.Col, de.Pos.Offset, de.Msg)
			}
		}
		return nil, fmt.Errorf("%s: not a recording: %s", path, base.ClipMessage(err.Error(), base.MaxFileMessage))
	}
	var t *Transcript
	switch head.Format {
	case trace.Format:
		if head.Version > transcriptVersion {
			return nil, fmt.Errorf("%s: recording version %d, newer than this ptc reads (%d): update ptc", path, head.Version, transcriptVersion)
		}
		t, err = ReadRecording(b)
	case legacyFormat:
		t, err = readLegacy(b)
	default:
		return nil, fmt.Errorf("%s: not a transcript of ptc run (format %s, want %q)", path, base.QuoteShort(head.Format), TranscriptFormat)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %s", path, base.ClipMessage(err.Error(), base.MaxFileMessage))
	}
	// Shown, never compared: a name, not a page.
	t.Agent.File, t.Model = base.ClipText(t.Agent.File, 100), base.ClipText(t.Model, 100)
	return t, nil
}

// ReadRecording reads a ptc-trace that is a recording.
func ReadRecording(doc []byte) (*Transcript, error) {
	rec, err := trace.ReadRecording(doc)
	if err != nil {
		return nil, err
	}
	var top struct {
		Redacted bool `json:"redacted"`
		Step     struct {
			SystemPrompt string `json:"system_prompt"`
		} `json:"step"`
	}
	if err := json.Unmarshal(doc, &top); err != nil {
		return nil, err
	}
	o, err := traceOutcome(doc)
	if err != nil {
		return nil, err
	}
	t := &Transcript{Format: trace.Format, Version: trace.Version, PTC: rec.PTC, Redacted: top.Redacted,
		RecordedAt: rec.RecordedAt, Model: rec.Model, Context: rec.Context, ContextEDN: rec.ContextEDN,
		System: top.Step.SystemPrompt, Calls: rec.Calls, Outcome: o, Doc: doc}
	if rec.Agent != nil {
		t.Agent = *rec.Agent
	}
	return t, nil
}

// readLegacy reads a transcript of a ptc older than the ptc-trace
// recordings (format "ptc-run-transcript", version 1).
func readLegacy(b []byte) (*Transcript, error) {
	var t Transcript
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&t); err != nil {
		return nil, fmt.Errorf("not a transcript: %s", base.ClipMessage(err.Error(), base.MaxFileMessage))
	}
	switch {
	case t.Version > 1:
		return nil, fmt.Errorf("transcript version %d, newer than this ptc reads (1): update ptc", t.Version)
	case t.Version < 1:
		return nil, fmt.Errorf("transcript version %d is not valid", t.Version)
	}
	return &t, nil
}

// ContextMap returns the recorded context.
func (t *Transcript) ContextMap() (*lisp.Map, error) {
	var v lisp.Value
	var err error
	switch {
	case t.ContextEDN != "":
		v, err = lisp.ReadData(t.ContextEDN)
	case len(t.Context) == 0 || string(t.Context) == "null":
		return lisp.NewMap(), nil
	default:
		v, err = lisp.ParseJSON(t.Context)
	}
	if err != nil {
		return nil, fmt.Errorf("the recorded context: %s", base.ClipMessage(err.Error(), base.MaxFileMessage))
	}
	m, ok := v.(*lisp.Map)
	if !ok {
		return nil, fmt.Errorf("the recorded context is a %s, not a map", lisp.TypeName(v))
	}
	return m, nil
}

// Replayer answers the agent's calls with the recorded replies, checking
// on each call that the agent sent what it sent when the transcript was
// recorded. The first difference ends the mission (a config_error the
// agent does not retry) and is kept for the report.
type Replayer struct {
	Rec *Transcript
	// Stop cancels the mission, where the recorded one was cancelled or
	// timed out.
	Stop func()

	mu       sync.Mutex
	next     int
	stopped  bool
	mismatch *replayMismatch
	// systemDiff is the first difference between the system prompt and
	// the recorded one, when there is one: a note, not a mismatch.
	systemDiff string
}

// replayMismatch is where a replay first departed from the recording.
type replayMismatch struct {
	Call     int    `json:"call,omitempty"` // the LLM call, from 1 (0: the outcome)
	Turn     int    `json:"turn,omitempty"`
	What     string `json:"what"`
	Expected string `json:"expected"`
	Got      string `json:"got"`
	Diff     string `json:"diff,omitempty"`
}

// reasonReplayMismatch is the reason of a replayed mission stopped at its
// first difference.
const reasonReplayMismatch = "replay_mismatch"

// errReplayMismatch ends a replayed mission at its first difference.
var errReplayMismatch = &llm.Error{Class: llm.Config, Reason: reasonReplayMismatch,
	Message: "the agent's request differs from the recorded one"}

func (r *Replayer) Call(ctx context.Context, req llm.Request) (llm.Response, error) {
	if err := ctx.Err(); err != nil {
		return llm.Response{}, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.mismatch != nil {
		return llm.Response{}, errReplayMismatch
	}
	i := r.next
	r.next++
	if i >= len(r.Rec.Calls) {
		if o := r.Rec.Outcome; o != nil && o.Fail != nil && endedByContext(o.Fail.Reason) {
			// The recorded mission was cut short here: cut this one too.
			r.stopped = true
			r.Stop()
			return llm.Response{}, context.Canceled
		}
		r.mismatch = &replayMismatch{Call: i + 1, Turn: req.Turn, What: "an LLM call the recording does not have",
			Expected: fmt.Sprintf("the mission to end after %s", base.Plural(len(r.Rec.Calls), "LLM call")),
			Got:      fmt.Sprintf("call %d, for turn %d, after %s", i+1, req.Turn, lastMessage(req.Messages))}
		return llm.Response{}, errReplayMismatch
	}
	c := r.Rec.Calls[i]
	if mm := compareMessages(c.Messages, req.Messages, r.Rec.Redacted); mm != nil {
		mm.Call, mm.Turn = i+1, req.Turn
		r.mismatch = mm
		return llm.Response{}, errReplayMismatch
	}
	want := c.System
	if want == "" {
		want = r.Rec.System
	}
	if r.systemDiff == "" && req.System != want {
		r.systemDiff = firstDifference(want, req.System)
	}
	if c.Interrupted {
		r.stopped = true
		r.Stop()
		return llm.Response{}, context.Canceled
	}
	if c.Reply.Error != "" {
		class := c.Reply.Class
		if class == "" {
			class = llm.ServerError
		}
		return llm.Response{}, &llm.Error{Class: class, Status: c.Status, Message: c.Reply.Error}
	}
	return llm.Response{Content: c.Reply.Content, Tokens: c.Reply.Tokens}, nil
}

// endedByContext: the reasons of a mission cut short from outside, which a
// replay reproduces by cancelling the mission where the recording ends.
func endedByContext(reason string) bool {
	return reason == string(agent.ReasonCancelled) || reason == string(agent.ReasonMissionTimeout)
}

// Finish compares the mission's end with the recording's: every recorded
// call made, the same value or failure. Durations and trace ids, which
// vary from run to run, are not compared, nor the message of an
// llm_error (timeouts are measured): its class is.
func (r *Replayer) Finish(step *agent.Step) *replayMismatch {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.mismatch != nil {
		return r.mismatch
	}
	// A redacted recording is compared with the replay redacted alike.
	got := outcomeText(outcomeRecord(Shown{Step: step, raw: !r.Rec.Redacted}))
	if n := len(r.Rec.Calls); r.next < n {
		r.mismatch = &replayMismatch{Call: r.next + 1, What: "the end of the mission",
			Expected: fmt.Sprintf("%s (the recording has %d more)", base.Plural(n, "LLM call"), n-r.next),
			Got:      fmt.Sprintf("%s, then %s", base.Plural(r.next, "LLM call"), got)}
		return r.mismatch
	}
	want := r.Rec.Outcome
	if want == nil {
		return nil
	}
	if r.stopped && step.Fail != nil && endedByContext(string(step.Fail.Reason)) {
		return nil // cut short where the recording was
	}
	if exp := outcomeText(want); placeholders(exp, r.Rec.Redacted) != placeholders(got, r.Rec.Redacted) {
		r.mismatch = &replayMismatch{What: "the outcome", Expected: exp, Got: got, Diff: LineDiff(exp, got)}
	}
	return r.mismatch
}

// outcomeText is what a replay compares of an outcome.
func outcomeText(o *transcriptOutcome) string {
	if o.Fail == nil {
		return "returned " + o.ReturnEDN
	}
	if o.Fail.Reason == string(agent.ReasonLLMError) {
		return "failed: llm_error of class " + o.Fail.Class
	}
	return "failed: " + o.Fail.Reason + ": " + o.Fail.Message
}

// placeholders returns text with the placeholder's quoted and keyword
// forms as the placeholder, when redacted: a replay of a redacted
// transcript runs on the placeholder where the recording had firewalled
// values, and a copy of one (a string, a keyword) prints as the
// placeholder itself, quoted or not.
func placeholders(text string, redacted bool) string {
	if !redacted {
		return text
	}
	return placeholderForms.Replace(text)
}

var placeholderForms = strings.NewReplacer(strconv.Quote(agent.Firewalled), agent.Firewalled, ":"+agent.Firewalled, agent.Firewalled)

// compareMessages reports the first difference between the recorded
// messages of a request and the agent's (as placeholders says, when the
// recording is redacted).
func compareMessages(want, got []llm.Message, redacted bool) *replayMismatch {
	same := func(a, b llm.Message) bool {
		return a.Role == b.Role && placeholders(a.Content, redacted) == placeholders(b.Content, redacted)
	}
	for i := range max(len(want), len(got)) {
		switch {
		case i >= len(want):
			return &replayMismatch{What: fmt.Sprintf("message %d, %s", i+1, messageRole(i)),
				Expected: fmt.Sprintf("no message %d (the recorded request has %d)", i+1, len(want)), Got: got[i].Content,
				Diff: LineDiff("", got[i].Content)}
		case i >= len(got):
			return &replayMismatch{What: fmt.Sprintf("message %d, %s", i+1, messageRole(i)),
				Expected: want[i].Content, Got: fmt.Sprintf("no message %d (the request has %d)", i+1, len(got)),
				Diff: LineDiff(want[i].Content, "")}
		case !same(want[i], got[i]):
			return &replayMismatch{What: fmt.Sprintf("message %d, %s", i+1, messageRole(i)),
				Expected: want[i].Content, Got: got[i].Content, Diff: LineDiff(want[i].Content, got[i].Content)}
		}
	}
	return nil
}

// messageRole says what message i (from 0) of a conversation is.
func messageRole(i int) string {
	switch {
	case i == 0:
		return "the mission prompt"
	case i%2 == 1:
		return fmt.Sprintf("the model's reply on turn %d", (i+1)/2)
	}
	return fmt.Sprintf("the feedback on turn %d", i/2)
}

func lastMessage(msgs []llm.Message) string {
	if len(msgs) == 0 {
		return "no messages"
	}
	return fmt.Sprintf("%q", base.OneLine(msgs[len(msgs)-1].Content, 80))
}

// maxDiffLines bounds each side of a diff, maxDiffWidth each line.
const (
	maxDiffLines = 8
	maxDiffWidth = 160
)

// diffLine is a line of a diff cut to maxDiffWidth characters: those
// around column col (from 1), where the first difference is, or the
// first ones when col is 0.
func diffLine(s string, col int) string {
	if utf8.RuneCountInString(s) <= maxDiffWidth {
		return s
	}
	r := []rune(s)
	lo := max(0, min(col-1-maxDiffWidth/4, len(r)-maxDiffWidth))
	hi := min(len(r), lo+maxDiffWidth)
	out := string(r[lo:hi])
	if lo > 0 {
		out = "…" + out
	}
	if hi < len(r) {
		out += "…"
	}
	return out
}

// LineDiff is a short diff of two texts: the lines they share at the
// start and the end left out but one line of context, the rest as
// "- expected" and "+ got" lines, with the column of the first difference.
func LineDiff(want, got string) string {
	a, b := strings.Split(want, "\n"), strings.Split(got, "\n")
	if want == "" {
		a = nil
	}
	if got == "" {
		b = nil
	}
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	// The column of the first difference, for the lines that show it.
	col := 0
	if pre < len(a) && pre < len(b) {
		col = firstDiffColumn(a[pre], b[pre])
	}
	var sb strings.Builder
	if pre > 0 {
		if pre > 1 {
			fmt.Fprintf(&sb, "  … (%s)\n", base.Plural(pre-1, "same line"))
		}
		fmt.Fprintf(&sb, "  %s\n", diffLine(a[pre-1], 0))
	}
	side := func(mark string, lines []string) {
		for i, l := range lines {
			if i == maxDiffLines {
				fmt.Fprintf(&sb, "%s … (%s)\n", mark, base.Plural(len(lines)-i, "more line"))
				break
			}
			c := 0
			if i == 0 {
				c = col
			}
			fmt.Fprintf(&sb, "%s %s\n", mark, diffLine(l, c))
		}
	}
	side("-", a[pre:len(a)-suf])
	side("+", b[pre:len(b)-suf])
	if suf > 0 {
		fmt.Fprintf(&sb, "  %s\n", diffLine(a[len(a)-suf], 0))
		if suf > 1 {
			fmt.Fprintf(&sb, "  … (%s)\n", base.Plural(suf-1, "same line"))
		}
	}
	if col > 0 {
		fmt.Fprintf(&sb, "(first difference: line %d, column %d)\n", pre+1, col)
	}
	return strings.TrimRight(sb.String(), "\n")
}

func firstDiffColumn(a, b string) int {
	col := 1
	for len(a) > 0 && len(b) > 0 {
		ra, na := utf8.DecodeRuneInString(a)
		rb, nb := utf8.DecodeRuneInString(b)
		if ra != rb {
			break
		}
		a, b = a[na:], b[nb:]
		col++
	}
	return col
}

// firstDifference describes where two texts first differ, in a line.
func firstDifference(want, got string) string {
	a, b := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := range max(len(a), len(b)) {
		var x, y string
		if i < len(a) {
			x = a[i]
		}
		if i < len(b) {
			y = b[i]
		}
		if x != y || i >= len(a) || i >= len(b) {
			return fmt.Sprintf("line %d: recorded %q, now %q", i+1, base.OneLine(x, 60), base.OneLine(y, 60))
		}
	}
	return ""
}

// Report writes the mismatch for a person.
func (m *replayMismatch) Report() string {
	var sb strings.Builder
	sb.WriteString("replay mismatch: ")
	switch {
	case m.Call > 0 && m.Turn > 0:
		fmt.Fprintf(&sb, "turn %d (LLM call %d), %s\n", m.Turn, m.Call, m.What)
	case m.Call > 0:
		fmt.Fprintf(&sb, "LLM call %d, %s\n", m.Call, m.What)
	default:
		fmt.Fprintf(&sb, "%s\n", m.What)
	}
	fmt.Fprintf(&sb, "  expected: %s\n", base.OneLine(m.Expected, 200))
	fmt.Fprintf(&sb, "  got:      %s\n", base.OneLine(m.Got, 200))
	if m.Diff != "" {
		for _, l := range strings.Split(m.Diff, "\n") {
			fmt.Fprintf(&sb, "  %s\n", l)
		}
	}
	return sb.String()
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
	entry := "context: " + lisp.FormatValue(ctx, lisp.PrintOptions{Redact: red})
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
