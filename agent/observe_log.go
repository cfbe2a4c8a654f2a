package agent

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/ptc-go/ptc/llm"
)

// NewSlogObserver returns an observer that logs every event to logger, as
// a record whose message is "ptc " and the event's name ("ptc tool.stop")
// with the event's fields as attributes (agent, trace_id, depth, turn,
// tool, duration, tokens, error...). Levels: the end of a mission at Info
// (Warn when it failed, Error for run.exception), failed LLM calls and
// tool calls at Warn, everything else at Debug; set the handler's level to
// choose how much is written. Texts are redacted as for the LLM, so a log
// never holds firewalled data (unless the observer is registered with
// Raw, whose Fail it logs as it is).
func NewSlogObserver(logger *slog.Logger) Observer {
	if logger == nil {
		logger = slog.Default()
	}
	return slogObserver{logger}
}

type slogObserver struct{ l *slog.Logger }

func (o slogObserver) Observe(ctx context.Context, e *Event) {
	level := slog.LevelDebug
	switch e.Kind {
	case RunStart:
		level = slog.LevelInfo
	case RunStop:
		level = slog.LevelInfo
		if e.Fail != nil {
			level = slog.LevelWarn
		}
	case RunException:
		level = slog.LevelError
	case LLMException, ToolException:
		level = slog.LevelWarn
	}
	if !o.l.Enabled(ctx, level) {
		return
	}
	attrs := make([]slog.Attr, 0, 12)
	add := func(a slog.Attr) { attrs = append(attrs, a) }
	if e.Agent != "" {
		add(slog.String("agent", e.Agent))
	}
	add(slog.String("trace_id", e.TraceID))
	if e.ParentTraceID != "" {
		add(slog.String("parent_trace_id", e.ParentTraceID))
	}
	if e.Depth > 0 {
		add(slog.Int("depth", e.Depth))
	}
	if e.Turn > 0 {
		add(slog.Int("turn", e.Turn))
	}
	if e.Tool != "" {
		add(slog.String("tool", e.Tool))
	}
	if e.Attempt > 1 {
		add(slog.Int("attempt", e.Attempt))
	}
	if e.Model != "" {
		add(slog.String("model", e.Model))
	}
	switch e.Kind {
	case RunStop, RunException, TurnStop, LLMStop, LLMException, ToolStop, ToolException:
		add(slog.Duration("duration", e.Duration))
	}
	if e.Tokens != (llm.Tokens{}) {
		add(slog.Group("tokens", slog.Int("input", e.Tokens.Input), slog.Int("output", e.Tokens.Output)))
	}
	if e.Kind == ToolStart || e.Kind == ToolException {
		add(slog.String("args", e.ArgsText))
	}
	if e.ResultText != "" {
		add(slog.String("result", e.ResultText))
	}
	if e.ErrorText != "" {
		add(slog.String("error", e.ErrorText))
	}
	if e.Err != nil {
		add(slog.String("error", e.Err.Error()))
	}
	if e.RetryIn > 0 {
		add(slog.Duration("retry_in", e.RetryIn))
	}
	if e.Fail != nil {
		add(slog.String("reason", e.Fail.Reason))
		add(slog.String("message", e.Fail.Message))
	}
	if e.Kind == RunStop || e.Kind == RunException {
		add(slog.Int("turns", e.Usage.Turns))
	}
	o.l.LogAttrs(ctx, level, "ptc "+e.Kind.String(), attrs...)
}

// NewJSONLObserver returns an observer that writes each event to w as one
// line of JSON (Event.MarshalJSON): a stream a long mission can be
// followed by (tail -f) and tools can read. The first write error stops
// the writing; Err reports it. One observer may serve concurrent Runs:
// each line is written whole, one at a time.
func NewJSONLObserver(w io.Writer) *JSONLObserver { return &JSONLObserver{w: w} }

// JSONLObserver writes events as JSON Lines; see NewJSONLObserver.
type JSONLObserver struct {
	mu  sync.Mutex // concurrent Runs share it
	w   io.Writer
	err error
}

// Observe writes e.
func (o *JSONLObserver) Observe(_ context.Context, e *Event) {
	line, err := json.Marshal(e)
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.err != nil {
		return
	}
	if err == nil {
		_, err = o.w.Write(append(line, '\n'))
	}
	o.err = err
}

// Err is the first error writing the events, if any.
func (o *JSONLObserver) Err() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.err
}

// eventJSON is the JSON form of an Event.
type eventJSON struct {
	Kind          string         `json:"kind"`
	Time          time.Time      `json:"time"`
	Agent         string         `json:"agent,omitempty"`
	TraceID       string         `json:"trace_id"`
	ParentTraceID string         `json:"parent_trace_id,omitempty"`
	Depth         int            `json:"depth"`
	Turn          int            `json:"turn,omitempty"`
	CallID        uint64         `json:"call_id,omitempty"`
	ParentCallID  uint64         `json:"parent_call_id,omitempty"`
	DurationMS    *float64       `json:"duration_ms,omitempty"`
	Tokens        *llm.Tokens    `json:"tokens,omitempty"`
	Attempt       int            `json:"attempt,omitempty"`
	RetryInMS     *float64       `json:"retry_in_ms,omitempty"`
	Model         string         `json:"model,omitempty"`
	FinishReason  string         `json:"finish_reason,omitempty"`
	Messages      int            `json:"messages,omitempty"`
	Response      string         `json:"response,omitempty"`
	Program       string         `json:"program,omitempty"`
	Output        []string       `json:"output,omitempty"`
	Tool          string         `json:"tool,omitempty"`
	Args          string         `json:"args,omitempty"`
	Result        string         `json:"result,omitempty"`
	Error         string         `json:"error,omitempty"`
	Fail          *failJSON      `json:"fail,omitempty"`
	Usage         map[string]any `json:"usage,omitempty"`
}

type failJSON struct {
	Reason  string `json:"reason"`
	Message string `json:"message"`
	Op      string `json:"op,omitempty"`
}

// MarshalJSON writes the event with snake_case fields, its texts as they
// are (redacted as for the LLM), durations in milliseconds (RetryIn as
// retry_in_ms, absent when no attempt follows), and a request's
// message count rather than its messages (the system prompt is left out:
// it is in the Step). The raw values (Args, Result, Step) are never
// written.
func (e *Event) MarshalJSON() ([]byte, error) {
	j := eventJSON{
		Kind: e.Kind.String(), Time: e.Time, Agent: e.Agent, TraceID: e.TraceID, ParentTraceID: e.ParentTraceID,
		Depth: e.Depth, Turn: e.Turn, CallID: e.CallID, ParentCallID: e.ParentCallID, Attempt: e.Attempt,
		Model: e.Model, FinishReason: e.FinishReason, Messages: len(e.Messages), Response: e.Response,
		Program: e.Program, Output: e.Output, Tool: e.Tool, Args: e.ArgsText, Result: e.ResultText, Error: e.ErrorText,
	}
	if e.Fail != nil {
		j.Fail = &failJSON{Reason: e.Fail.Reason, Message: e.Fail.Message, Op: e.Fail.Op}
	}
	switch e.Kind {
	case RunStop, RunException, TurnStop, LLMStop, LLMException, ToolStop, ToolException:
		ms := float64(e.Duration.Microseconds()) / 1000
		j.DurationMS = &ms
	}
	if e.RetryIn > 0 {
		ms := float64(e.RetryIn.Microseconds()) / 1000
		j.RetryInMS = &ms
	}
	if e.Tokens != (llm.Tokens{}) {
		t := e.Tokens
		j.Tokens = &t
	}
	if e.Err != nil {
		j.Error = e.Err.Error()
	}
	if e.Kind == RunStop || e.Kind == RunException {
		j.Usage = map[string]any{"turns": e.Usage.Turns, "llm_requests": e.Usage.LLMRequests,
			"duration_ms": float64(e.Usage.Duration.Microseconds()) / 1000}
	}
	return json.Marshal(j)
}
