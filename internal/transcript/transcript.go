package transcript

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/ptc-go/ptc/agent/trace"
	"github.com/ptc-go/ptc/internal/textutil"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm"
)

// Transcript is a recorded mission, as a replay uses it.
type Transcript struct {
	Format  string `json:"format"`  // trace.Format ("ptc-run-transcript" in a legacy file)
	Version int    `json:"version"` // trace.Version
	// PTC is the version of the ptc that recorded it.
	PTC string `json:"ptc,omitempty"`
	// Redacted: the recording shows what the mission firewalled as
	// <Firewalled> (in the context, the calls, the outcome, the agent
	// file's text), as a trace does; false for one recorded with
	// --unredacted (and by a ptc older than this field).
	Redacted   bool                `json:"redacted,omitempty"`
	RecordedAt string              `json:"recorded_at,omitempty"`
	Agent      trace.RecordedAgent `json:"agent"`
	// Model is the model reference of the recorded run.
	Model string `json:"model"`
	// Context is the mission's context as JSON; ContextEDN its exact
	// PTC-Lisp form, present only when JSON loses something (keywords,
	// sets, floats with no fraction).
	Context    json.RawMessage `json:"context"`
	ContextEDN string          `json:"context_edn,omitempty"`
	// System is the system prompt of the first call; a call whose system
	// prompt differs has its own.
	System string          `json:"system"`
	Calls  []trace.LLMCall `json:"calls"`
	// Outcome is how the mission ended.
	Outcome *RecordedOutcome `json:"outcome"`

	// HasAgent: the recording holds an agent (a Go agent's run in the
	// workbench has none).
	HasAgent bool `json:"-"`
	// Doc is the ptc-trace document read or recorded, which the caller
	// saves as it is (nil for a legacy transcript).
	Doc []byte
}

// RecordedOutcome is the mission's outcome, as --json prints it, plus
// the exact printed return value and each turn's program and result.
type RecordedOutcome struct {
	Outcome
	ReturnEDN string `json:"return_edn,omitempty"`
	Turns     []Turn `json:"turns"`
}

// Turn is a turn of the trace: the program and what it did.
type Turn struct {
	Number    int        `json:"number"`
	Program   string     `json:"program,omitempty"`
	Result    string     `json:"result,omitempty"` // printed
	Error     string     `json:"error,omitempty"`
	Output    []string   `json:"output,omitempty"`
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
}

// ToolCall is a tool call of a turn.
type ToolCall struct {
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
	Usage    OutcomeUsage    `json:"usage"`
	TraceID  string          `json:"trace_id"`
	Warnings []string        `json:"warnings,omitempty"`
}

// OutcomeFail is the failure of an Outcome.
type OutcomeFail struct {
	Reason  string `json:"reason"`
	Message string `json:"message"`
	Op      string `json:"op,omitempty"`
	// Class is the failure class of an llm_error (rate_limit, timeout...).
	Class string `json:"class,omitempty"`
}

// OutcomeUsage is the usage of an Outcome.
type OutcomeUsage struct {
	Turns       int        `json:"turns"`
	LLMRequests int        `json:"llm_requests"`
	Tokens      llm.Tokens `json:"tokens"`
	DurationMS  int64      `json:"duration_ms"`
}

// The parts of a trace's step that make the outcome.
type (
	// TraceValue is a value of a trace: its printed form and its JSON.
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
	// TraceRetry is a failed attempt of a turn's LLM call, as the trace holds
	// it.
	TraceRetry struct {
		Attempt int     `json:"attempt"`
		Error   string  `json:"error"`
		Class   string  `json:"class"`
		WaitMS  float64 `json:"wait_ms"`
	}
)

// LispString is the value's printed form, "" for none.
func (v *TraceValue) LispString() string {
	if v == nil {
		return ""
	}
	return v.Lisp
}

// traceOutcome reads the outcome of a trace's top step.
func traceOutcome(doc []byte) (*RecordedOutcome, error) {
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
	o := &RecordedOutcome{Outcome: Outcome{OK: s.OK, Return: json.RawMessage("null"), TraceID: s.TraceID,
		Warnings: s.Warnings, Usage: OutcomeUsage{Turns: s.Usage.Turns, LLMRequests: s.Usage.LLMRequests,
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
		tt := Turn{Number: t.Number, Program: t.Program, Result: t.Result.LispString(), Error: t.Error, Output: t.Output}
		for _, c := range t.ToolCalls {
			tt.ToolCalls = append(tt.ToolCalls, ToolCall{Name: c.Name, Args: c.Args.LispString(), Result: c.Result.LispString(), Error: c.Error})
		}
		o.Turns = append(o.Turns, tt)
	}
	return o, nil
}

// maxQuote bounds what an error message quotes of a recording.
const maxQuote = 300

// ReadRecording reads a ptc-trace that is a recording (trace.Format, of
// any version trace.ReadRecording reads).
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
		t.Agent, t.HasAgent = *rec.Agent, true
	}
	return t, nil
}

// ContextMap returns the recorded context. An error quotes at most
// maxQuote characters of the recording; it is not made safe for a
// terminal (the CLI does that).
func (t *Transcript) ContextMap() (*lisp.Map, error) {
	var v lisp.Value
	var err error
	switch {
	case t.ContextEDN != "":
		v, err = lisp.Read(t.ContextEDN, lisp.ReadOptions{Format: lisp.ReadEDN})
	case len(t.Context) == 0 || string(t.Context) == "null":
		return lisp.NewMap(), nil
	default:
		v, err = lisp.Read(string(t.Context), lisp.ReadOptions{Format: lisp.ReadJSON})
	}
	if err != nil {
		return nil, fmt.Errorf("the recorded context: %s", textutil.Clip(err.Error(), maxQuote))
	}
	m, ok := v.(*lisp.Map)
	if !ok {
		return nil, fmt.Errorf("the recorded context is a %s, not a map", lisp.TypeName(v))
	}
	return m, nil
}
