package trace

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"sync"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/llm"
)

// NewSlogObserver returns an observer that logs every event to logger, as
// a record whose message is "ptc " and the event's name ("ptc tool.stop")
// with the event's fields as attributes (agent, trace_id, depth, turn,
// tool, duration, tokens, error...). Levels: the end of a mission at Info
// (Warn when it failed, Error for run.exception), failed LLM calls and
// tool calls at Warn, everything else at Debug, and after the end of a
// mission each of its warnings (Event.Warnings: what signature.WarnOnly
// let through) as a "ptc warning" record at Warn; set the handler's level to
// choose how much is written. Texts are redacted as for the LLM, so a log
// never holds firewalled data (unless the observer is registered with
// Raw, whose mission Fail it logs as it is).
func NewSlogObserver(logger *slog.Logger) agent.Observer {
	if logger == nil {
		logger = slog.Default()
	}
	return slogObserver{logger}
}

type slogObserver struct{ l *slog.Logger }

func (o slogObserver) Observe(ctx context.Context, e *agent.Event) {
	if e.Kind == agent.LLMChunk {
		return // the llm.stop logs the reply whole
	}
	level := slog.LevelDebug
	switch e.Kind {
	case agent.RunStart:
		level = slog.LevelInfo
	case agent.RunStop:
		level = slog.LevelInfo
		if e.Err != nil {
			level = slog.LevelWarn
		}
	case agent.RunException:
		level = slog.LevelError
	case agent.LLMException, agent.ToolException:
		level = slog.LevelWarn
	}
	defer o.warnings(ctx, e)
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
	if e.Kind != agent.LLMChunk && e.Reply != nil && e.Reply.RequestModel != "" {
		add(slog.String("model", e.Reply.RequestModel))
	}
	switch e.Kind {
	case agent.RunStop, agent.RunException, agent.TurnStop, agent.LLMStop, agent.LLMException, agent.ToolStop, agent.ToolException:
		add(slog.Duration("duration", e.Duration))
	}
	if e.Usage.Tokens != (llm.Tokens{}) {
		add(slog.Group("tokens", slog.Int("input", e.Usage.Tokens.Input), slog.Int("output", e.Usage.Tokens.Output)))
	}
	if e.Kind == agent.ToolStart || e.Kind == agent.ToolException {
		add(slog.String("args", e.ArgsText))
	}
	if e.ResultText != "" {
		add(slog.String("result", e.ResultText))
	}
	var fail *agent.Fail
	if errors.As(e.Err, &fail) && (e.Kind == agent.RunStop || e.Kind == agent.RunException) {
		add(slog.String("reason", string(fail.Reason)))
		add(slog.String("message", fail.Message))
	} else if e.Err != nil {
		add(slog.String("error", e.Err.Error()))
	}
	if e.RetryIn > 0 {
		add(slog.Duration("retry_in", e.RetryIn))
	}
	if e.Kind == agent.RunStop || e.Kind == agent.RunException {
		add(slog.Int("turns", e.Usage.Turns))
	}
	o.l.LogAttrs(ctx, level, "ptc "+e.Kind.String(), attrs...)
}

// warnings logs each of a mission's warnings at WARN, on its own line: a
// validation mismatch that signature.WarnOnly let through, or a coercion
// of the input.
func (o slogObserver) warnings(ctx context.Context, e *agent.Event) {
	if len(e.Warnings) == 0 || !o.l.Enabled(ctx, slog.LevelWarn) {
		return
	}
	for _, w := range e.Warnings {
		attrs := []slog.Attr{slog.String("trace_id", e.TraceID), slog.String("warning", w)}
		if e.Agent != "" {
			attrs = append([]slog.Attr{slog.String("agent", e.Agent)}, attrs...)
		}
		o.l.LogAttrs(ctx, slog.LevelWarn, "ptc warning", attrs...)
	}
}

// NewJSONLObserver returns an observer that writes each event to w as one
// line of JSON (agent.Event.MarshalJSON): a stream a long mission can be
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
func (o *JSONLObserver) Observe(_ context.Context, e *agent.Event) {
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
