package trace

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/llm"
)

// Recording is what a trace carries beside the mission when it is a
// recording ("ptc run --record"): where the mission came from and every
// LLM call it made, so that a replay can answer the calls again and check
// that the agent still sends the same requests. JSONOptions.Recording
// writes it (its fields at the top of the document, Calls as the top
// step's "llm_calls"); ReadRecording reads it back. docs/trace-format.md
// describes the fields.
type Recording struct {
	// PTC is the version of the program that recorded it.
	PTC string
	// RecordedAt is when, as RFC 3339 UTC.
	RecordedAt string
	// Agent is the agent file, nil for none.
	Agent *RecordedAgent
	// Model is the model reference of the recorded run.
	Model string
	// Context is the mission's context as JSON; ContextEDN its exact
	// PTC-Lisp form when JSON loses something (keywords, sets, 80.0).
	// Marshal writes them as given: the caller redacts them.
	Context    json.RawMessage
	ContextEDN string
	// Calls are the LLM calls of the mission (its agents' too, when they
	// share the model), in the order they were made, retries and failures
	// included.
	Calls []LLMCall
	// ToolCalls are the recorded tool results, in clear even in a redacted
	// trace: a replay gives the program what the tool gave it.
	ToolCalls []RecordedToolCall
}

// RecordedToolCall is one call of a recorded tool, keyed by the tool and
// its arguments (JSON, keys sorted; Seq numbers equal calls from 0).
// Value is the result as lisp.Print prints it with Exact, Error a failure's text.
type RecordedToolCall struct {
	Tool  string `json:"tool"`
	Args  string `json:"args"`
	Seq   int    `json:"seq"`
	Value string `json:"value,omitempty"`
	Error string `json:"error,omitempty"`
}

// RecordedAgent identifies an agent file and keeps its text, so that a
// replay needs nothing else.
type RecordedAgent struct {
	File   string `json:"file"`
	SHA256 string `json:"sha256"`
	Text   string `json:"text"`
}

// LLMCall is one LLM call: the request and the reply.
type LLMCall struct {
	Turn int `json:"turn"`
	// System is the call's system prompt; Marshal leaves it out when it
	// is the step's system_prompt, and ReadRecording leaves it empty then.
	System   string        `json:"system,omitempty"`
	Messages []llm.Message `json:"messages"`
	Reply    LLMReply      `json:"reply"`
	// Status is the HTTP status of a failed call, when there was one.
	Status int `json:"status,omitempty"`
	// Interrupted: the call was cut short because the run was cancelled.
	Interrupted bool  `json:"interrupted,omitempty"`
	DurationMS  int64 `json:"duration_ms"`
}

// LLMReply is a call's reply, or its failure: Error (never empty for a
// failure) and the llm.Class of the error.
type LLMReply struct {
	Content string     `json:"content"`
	Tokens  llm.Tokens `json:"tokens"`
	Error   string     `json:"error,omitempty"`
	Class   llm.Class  `json:"class,omitempty"`
}

// recordingHead is the Recording's part of the document's top.
type recordingHead struct {
	PTC        string          `json:"ptc,omitempty"`
	RecordedAt string          `json:"recorded_at,omitempty"`
	Agent      *RecordedAgent  `json:"agent,omitempty"`
	Model      string          `json:"model,omitempty"`
	Context    json.RawMessage `json:"context,omitempty"`
	ContextEDN string          `json:"context_edn,omitempty"`
	// ToolCalls are Recording.ToolCalls, never scrubbed.
	ToolCalls []RecordedToolCall `json:"recorded_tool_calls,omitempty"`
}

// addRecording puts rec into doc, its texts scrubbed as the trace's unless
// raw.
func addRecording(doc *traceDoc, step *agent.Step, rec *Recording, raw bool) {
	text := func(t string) string {
		if raw {
			return t
		}
		return step.Scrub(t)
	}
	h := &recordingHead{PTC: rec.PTC, RecordedAt: rec.RecordedAt, Model: text(rec.Model),
		Context: rec.Context, ContextEDN: text(rec.ContextEDN), ToolCalls: rec.ToolCalls}
	if a := rec.Agent; a != nil {
		h.Agent = &RecordedAgent{File: text(a.File), SHA256: a.SHA256, Text: text(a.Text)}
	}
	doc.recordingHead = *h
	calls := make([]LLMCall, len(rec.Calls))
	for i, c := range rec.Calls {
		c.System = text(c.System)
		if c.System == doc.Step.SystemPrompt {
			c.System = ""
		}
		msgs := make([]llm.Message, len(c.Messages))
		for k, m := range c.Messages {
			msgs[k] = llm.Message{Role: m.Role, Content: text(m.Content)}
		}
		c.Messages = msgs
		c.Reply.Content, c.Reply.Error = text(c.Reply.Content), text(c.Reply.Error)
		calls[i] = c
	}
	doc.Step.LLMCalls = calls
}

// ReadRecording reads the Recording of a trace Marshal wrote; its fields
// are empty for a trace that is not a recording.
func ReadRecording(data []byte) (*Recording, error) {
	if err := checkHead(data); err != nil {
		return nil, err
	}
	var doc struct {
		recordingHead
		Step *struct {
			LLMCalls []LLMCall `json:"llm_calls"`
		} `json:"step"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("trace: reading the recording: %w", err)
	}
	if doc.Step == nil {
		return nil, errors.New("trace: the trace has no step")
	}
	h := doc.recordingHead
	rec := &Recording{PTC: h.PTC, RecordedAt: h.RecordedAt, Agent: h.Agent, Model: h.Model,
		Context: h.Context, ContextEDN: h.ContextEDN, Calls: doc.Step.LLMCalls, ToolCalls: h.ToolCalls}
	return rec, nil
}
