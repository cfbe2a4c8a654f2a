package agent

import (
	"encoding/json"
	"time"

	"github.com/ptc-go/ptc/llm"
)

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
	Cached        bool           `json:"cached,omitempty"`
	Output        []string       `json:"output,omitempty"`
	Tool          string         `json:"tool,omitempty"`
	Args          string         `json:"args,omitempty"`
	Result        string         `json:"result,omitempty"`
	Error         string         `json:"error,omitempty"`
	Fail          *failJSON      `json:"fail,omitempty"`
	Usage         map[string]any `json:"usage,omitempty"`
	Warnings      []string       `json:"warnings,omitempty"`
}

type failJSON struct {
	Reason  string `json:"reason"`
	Message string `json:"message"`
	Op      string `json:"op,omitempty"`
}

// MarshalJSON writes the event with snake_case fields, its texts as they
// are (redacted as for the LLM), durations in milliseconds (RetryIn as
// retry_in_ms, absent when no attempt follows), a request's message
// count rather than its messages (the system prompt is left out: it is in
// the Step), and of a reply its content, finish reason and model (the one
// that answered, else the one asked for). The raw values (Args, Result,
// Step) are never written.
func (e *Event) MarshalJSON() ([]byte, error) {
	j := eventJSON{
		Kind: e.Kind.String(), Time: e.Time, Agent: e.Agent, TraceID: e.TraceID, ParentTraceID: e.ParentTraceID,
		Depth: e.Depth, Turn: e.Turn, CallID: e.CallID, ParentCallID: e.ParentCallID, Attempt: e.Attempt,
		Program: e.Program, Cached: e.Kind == TurnStop && e.Usage.CachedPrograms > 0, Output: e.Output, Tool: e.Tool, Args: e.ArgsText, Result: e.ResultText,
		Warnings: e.Warnings,
	}
	if f, ok := e.Err.(*Fail); ok && f != nil && (e.Kind == RunStop || e.Kind == RunException) {
		// The mission's failure, as "fail" (not "error") has always said.
		j.Fail = &failJSON{Reason: string(f.Reason), Message: f.Message, Op: f.Op}
	} else if e.Err != nil {
		j.Error = e.Err.Error()
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
	if r := e.Request; r != nil {
		j.Messages = len(r.Messages)
	}
	if r := e.Reply; r != nil {
		j.FinishReason, j.Response, j.Model = r.FinishReason, r.Content, r.RequestModel
		if r.Model != "" {
			// The model that answered, as "model" has always said of llm.stop.
			j.Model = r.Model
		}
	}
	if e.Usage.Tokens != (llm.Tokens{}) {
		t := e.Usage.Tokens
		j.Tokens = &t
	}
	if e.Kind == RunStop || e.Kind == RunException {
		j.Usage = map[string]any{"turns": e.Usage.Turns, "llm_requests": e.Usage.LLMRequests,
			"duration_ms": float64(e.Usage.Duration.Microseconds()) / 1000,
			"programs":    e.Usage.Programs, "cached_programs": e.Usage.CachedPrograms}
	}
	return json.Marshal(j)
}
