package agent

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm"
	"github.com/ptc-go/ptc/signature"
)

// Step is the outcome of a mission: its value or its failure, the agent's
// memory, what it cost and what happened on each turn.
type Step struct {
	// Return is the mission's value ((return v), or a single-shot agent's
	// program value); nil when it failed. Firewalled (_) fields are
	// included: the firewall hides them from LLMs, not from Go.
	Return lisp.Value
	// Fail describes the failure, nil on success.
	Fail *Fail
	// Memory is the agent's memory at the end: its defs and stored values.
	Memory *lisp.Namespace
	// Signature is the contract the return value was validated against
	// (nil without one). A Step passed as the context of another run brings
	// it along as the context's signature.
	Signature *signature.Signature
	// Usage counts the turns, tokens and time of this mission alone.
	Usage Usage
	// TotalUsage adds up this mission's usage and that of every agent it
	// called as a tool, at any depth (Duration is a sum: it exceeds the
	// wall-clock time when pmap ran them at once).
	TotalUsage Usage
	// Warnings are the input's coercions and, under signature.WarnOnly,
	// the mismatches let through, scrubbed (a tool call's are in its
	// ToolCall).
	Warnings []string
	// Trace has one entry per turn (see Options.Trace).
	Trace []Turn
	// TraceID identifies this run (32 hex digits); a nested mission's Step
	// is the Child of a ToolCall in its caller's trace, whose TraceID is
	// its parent's (the Event's ParentTraceID).
	TraceID string
	// SystemPrompt is the system prompt of the mission's first LLM call
	// ("" when it made none). Later turns' may differ where a
	// SystemPrompt.LanguageFunc makes them.
	SystemPrompt string
	// Messages is the whole conversation, system prompt first, when
	// Options.Trace is TraceConversation.
	Messages []llm.Message
	// fieldDescriptions are the agent's descriptions of its signature's
	// fields (Config.FieldDescriptions), passed on to the next agent of a
	// chain.
	fieldDescriptions map[string]string
	// memoryBytes is MemoryBytes.
	memoryBytes int

	fw *firewall // what Redaction hides
}

// SystemPromptTokens estimates the size of SystemPrompt in tokens (4
// characters each): a cost the mission paid on every turn.
func (s *Step) SystemPromptTokens() int {
	if s == nil {
		return 0
	}
	return estimateTokens(s.SystemPrompt)
}

// MemoryBytes is the printed size of Memory at the end, as the mission
// measured it against Config.MaxAgentMemory; 0 for a Step read from a
// trace, which keeps no Memory.
func (s *Step) MemoryBytes() int {
	if s == nil {
		return 0
	}
	return s.memoryBytes
}

// Redaction hides from a reader outside the firewall (an LLM, an MCP
// client, a log, a person) what the mission's firewall hides from its LLM:
// the values of fields named with a leading _, values copied from
// firewalled data, at any depth, and copies of firewalled text inside any
// string or key (scrubbed as Scrub does; a number or keyword whose printed
// form is firewalled is hidden whole). Use it to show Return, Memory or a
// trace value to such a reader:
//
//	text := lisp.Print(step.Return, lisp.PrintOptions{Redact: step.Redaction()})
//	data, err := lisp.ToJSON(step.Return, step.Redaction())
//
// Hidden values print as the placeholder Firewalled. Safe for concurrent
// use; never nil.
func (s *Step) Redaction() *lisp.Redaction { return s.veil().Redaction() }

// OK reports whether the mission succeeded.
func (s *Step) OK() bool { return s != nil && s.Fail == nil }

// Decode stores the return value in the Go value pointed to by v, through
// its JSON form (so struct fields match by their json tags).
func (s *Step) Decode(v any) error {
	if s == nil {
		return errors.New("agent: Decode of a nil Step")
	}
	if s.Fail != nil {
		return fmt.Errorf("agent: cannot decode a failed step: %s", s.Fail.Message)
	}
	data, err := lisp.ToJSON(s.Return, nil)
	if err != nil {
		return err
	}
	return json.Unmarshal(data, v)
}

// Fail describes why a mission failed, or why New (or a tool
// constructor) refused a definition: then Op names the Config field at
// fault ("Prompt", "Tools") and Unwrap gives the cause, when there is one
// (a *signature.ParseError, a template's positioned error).
type Fail struct {
	// Reason is a machine-readable code: one of the Reason constants, or
	// the reason a program gave to (fail {:reason ...}).
	Reason Reason
	// Message says what happened.
	Message string
	// Op is the tool or operation at fault, when there is one.
	Op string
	// Details carries more data (the upstream Fail, the value given to
	// fail, validation issues, a panic's "stack"), firewalled values
	// included; every sink but a Raw observer shows it redacted.
	Details map[string]any
	// ByProgram reports that the mission's program ended it with (fail v),
	// so that Reason is the program's word: a program's (fail {:reason
	// :timeout}) is not the runtime's timeout.
	ByProgram bool
	// cause is what a refused definition failed on (Unwrap).
	cause error
}

// Unwrap returns, for a chained_failure, the upstream Fail (the failure
// of the step it chained to), so that errors.Is and errors.As see through
// a chain; for a refused definition, its cause; nil otherwise.
func (f *Fail) Unwrap() error {
	if f == nil {
		return nil
	}
	if f.Reason != ReasonChainedFailure {
		return f.cause
	}
	if up, ok := f.Details["upstream"].(*Fail); ok && up != nil {
		return up
	}
	return nil
}

// Cause is the failure a chain of chained_failures comes from: f itself
// when it is not a chained_failure, else the first upstream Fail that is
// not one (f when none is recorded).
func (f *Fail) Cause() *Fail {
	// A chain is as long as the pipeline that made it; the bound guards a
	// Details map built by hand into a cycle.
	for n := 0; f != nil && n < 1<<16; n++ {
		up, ok := f.Unwrap().(*Fail)
		if !ok || up == nil {
			return f
		}
		f = up
	}
	return f
}

func (f *Fail) Error() string {
	if f.Op != "" {
		return string(f.Reason) + " (" + f.Op + "): " + f.Message
	}
	return string(f.Reason) + ": " + f.Message
}

// Reason is why a mission failed or an agent could not be made: one of
// the constants below, or the word a program gave to (fail {:reason :x}).
// A Reason is an error value for errors.Is, as lisp.Kind is:
//
//	if errors.Is(err, agent.ReasonMaxTurnsExceeded) { … }
//
// matches a run's error (an *Error, through its Fail, and through the
// upstream Fails of a chained_failure) and New's *Fail. A program's own
// reason matches by its word, errors.Is(err, agent.Reason("not_found")),
// but never a runtime reason: a program's (fail {:reason :timeout}) is not
// the runtime's timeout (Fail.ByProgram); ReasonFailed matches a program's
// fail without a reason.
type Reason string

func (r Reason) Error() string { return string(r) }

// Is reports whether f failed for reason target (a Reason), as the Reason
// type says.
func (f *Fail) Is(target error) bool {
	r, ok := target.(Reason)
	if !ok || f == nil || f.Reason != r {
		return false
	}
	return !f.ByProgram || r == ReasonFailed || !runtimeReasons[r]
}

// runtimeReasons are the reasons the runtime gives, which a program's
// fail of the same word does not match.
var runtimeReasons = func() map[Reason]bool {
	m := map[Reason]bool{}
	for _, r := range []Reason{ReasonMaxTurnsExceeded, ReasonMaxDepthExceeded, ReasonTurnBudgetExhausted,
		ReasonMissionTimeout, ReasonLLMError, ReasonLLMRequired, ReasonLLMNotFound, ReasonLLMRegistryRequired,
		ReasonInvalidLLM, ReasonNoCodeFound, ReasonParseError, ReasonAnalysisError, ReasonEvalError, ReasonTimeout,
		ReasonMemoryExceeded, ReasonValidationError, ReasonToolError, ReasonUnknownTool, ReasonMemoryLimitExceeded,
		ReasonChainedFailure, ReasonTemplateError, ReasonBudgetExceeded, ReasonCancelled, ReasonReservedToolName,
		ReasonInternalError, ReasonInvalidConfig, ReasonInvalidSignature, ReasonNotCompilable} {
		m[r] = true
	}
	return m
}()

// The reasons a mission can fail with, and an agent's configuration be
// refused with (New's *Fail). A program's (fail {:reason :x}) gives its
// own reason.
const (
	ReasonFailed              Reason = "failed"                   // (fail v) without a :reason
	ReasonMaxTurnsExceeded    Reason = "max_turns_exceeded"       // no return or fail within MaxTurns
	ReasonMaxDepthExceeded    Reason = "max_depth_exceeded"       // agents nested deeper than MaxDepth
	ReasonTurnBudgetExhausted Reason = "turn_budget_exhausted"    // the mission tree used up MaxTreeTurns
	ReasonMissionTimeout      Reason = "mission_timeout"          // MissionTimeout passed
	ReasonLLMError            Reason = "llm_error"                // the LLM failed, retries included
	ReasonLLMRequired         Reason = "llm_required"             // no LLM anywhere
	ReasonLLMNotFound         Reason = "llm_not_found"            // a model name the registry lacks
	ReasonLLMRegistryRequired Reason = "llm_registry_required"    // a model name without a registry
	ReasonInvalidLLM          Reason = "invalid_llm"              // a nil function
	ReasonNoCodeFound         Reason = "no_code_found"            // single-shot reply without a program
	ReasonParseError          Reason = "parse_error"              // single-shot program does not read
	ReasonAnalysisError       Reason = "analysis_error"           // ... does not analyze
	ReasonEvalError           Reason = "eval_error"               // ... fails while running
	ReasonTimeout             Reason = "timeout"                  // ... ran out of time
	ReasonMemoryExceeded      Reason = "memory_exceeded"          // ... built too much data
	ReasonValidationError     Reason = "validation_error"         // input or single-shot output breaks the signature
	ReasonToolError           Reason = "tool_error"               // ... a tool failed
	ReasonUnknownTool         Reason = "unknown_tool"             // ... called a tool that does not exist
	ReasonMemoryLimitExceeded Reason = "memory_limit_exceeded"    // memory grew past MaxAgentMemory
	ReasonChainedFailure      Reason = "chained_failure"          // the context was a failed Step
	ReasonTemplateError       Reason = "template_error"           // a placeholder has no value
	ReasonBudgetExceeded      Reason = "budget_callback_exceeded" // TokenLimit or Budget said stop
	ReasonCancelled           Reason = "cancelled"                // the caller's context was cancelled
	ReasonReservedToolName    Reason = "reserved_tool_name"       // a tool named return or fail
	ReasonInternalError       Reason = "internal_error"           // a host callback (Budget, a prompt hook) panicked; Op names it
	ReasonInvalidConfig       Reason = "invalid_config"           // New: a Config field is not valid
	ReasonInvalidSignature    Reason = "invalid_signature"        // New: a signature does not parse, or a Go type has none
	ReasonNotCompilable       Reason = "not_compilable"           // New: a tool cannot run in a compiled agent
)

// Usage is what a mission cost.
type Usage struct {
	Turns       int           // LLM turns taken
	LLMRequests int           // LLM calls, retries included
	Tokens      llm.Tokens    // tokens reported by the LLM
	Duration    time.Duration // wall-clock time of the mission (by Hooks.Now when set)
	// Programs counts the turns' programs (compiled or not), CachedPrograms
	// those the compile cache had (Options.CompileCache): their ratio is
	// the hit rate.
	Programs, CachedPrograms int
}

// TotalTokens is Tokens.Input + Tokens.Output.
func (u Usage) TotalTokens() int { return u.Tokens.Total() }

// Turn is the trace of one turn: Step.Trace[i] is turn i+1.
type Turn struct {
	// Program is the code the turn ran ("" when the reply had none).
	Program string
	// Result is the program's value (nil on error).
	Result lisp.Value
	// Error is the program's error, the reminder sent when there was no
	// code, or the validation failure of a return, as the LLM was told.
	Error string
	// Output is the println output as printed: firewalled values, and
	// what was computed from them, hidden; copies of firewalled text kept
	// (show it through Step.Scrub, as trace.Print does).
	Output []string
	// ToolCalls are the tool calls, in the order they started.
	ToolCalls []ToolCall
	// Usage is what the turn cost: its LLM requests, tokens and time (the
	// LLM call's included); CachedPrograms 1 when its program came from
	// the compile cache (Options.CompileCache).
	Usage Usage
	// LLMDuration is the time of the turn's LLM call alone, its retries and
	// their waits included.
	LLMDuration time.Duration
	// LLMRetries are the failed attempts of the turn's LLM call, in order
	// (the first is attempt 1), with their error and the wait before the
	// next (Config.LLMRetry).
	LLMRetries []LLMAttempt
	// Response is the LLM's whole reply ("" when the call failed). It may
	// quote firewalled text: show it through Step.Scrub, as trace.Print
	// does.
	Response string
	// Feedback is the message sent back to the LLM after the turn,
	// recorded when Options.Trace is TraceConversation.
	Feedback string
	// Memory is the agent's memory after the turn, recorded when
	// Options.Trace is TraceConversation (persistent, so cheap to keep; its atoms are the
	// live cells, holding what the last turn left in them).
	Memory *lisp.Namespace
}

// LLMAttempt is a failed attempt of a turn's LLM call.
type LLMAttempt struct {
	// Err is the provider's error, as it came: errors.Is(Err,
	// llm.ClassRateLimit) and llm.Classify read its class. Its text may
	// quote firewalled data: show it through Step.Scrub, as trace.Print does.
	Err error
	// Wait is how long the mission waited before the next attempt (0
	// after the last).
	Wait time.Duration
}

// ToolCall is the trace of one tool call.
type ToolCall struct {
	Name     string
	Args     *lisp.Map
	Result   lisp.Value // nil on error
	Error    string     // "" on success; the tool's message as it is (show it through Step.Scrub)
	Warnings []string   // argument coercions, scrubbed by the firewall
	Start    time.Time
	Duration time.Duration
	// Child is the Step of the agent, LLM tool or compiled agent called as
	// this tool: its trace, usage and trace id.
	Child *Step
	// finished: the call ended (its result or error is known).
	finished bool
}

// Error is the error Run returns for a failed mission. It carries the Step,
// so that callers that only check err still get the whole story:
//
//	step, err := a.Run(ctx, opts)
//	var ae *agent.Error
//	if errors.As(err, &ae) { log.Print(ae.Step.Fail.Reason) }
type Error struct {
	Step *Step
}

func (e *Error) Error() string { return "agent: " + e.Step.Fail.Error() }

// Unwrap returns the Fail, so errors.As(err, &fail) works too.
func (e *Error) Unwrap() error { return e.Step.Fail }

// Is reports a nested agent that ran out of the tree's turns as a limit of
// the program that called it (lisp.ToolLimitExceeded): no try of that
// program catches it, and the caller's mission ends with it.
func (e *Error) Is(target error) bool {
	return target == lisp.ToolLimitExceeded && e.Step != nil && e.Step.Fail != nil &&
		e.Step.Fail.Reason == ReasonTurnBudgetExhausted
}

// Scrub returns text with every fragment of the mission's firewalled texts
// replaced by Firewalled, as the firewall scrubs every text an LLM is sent
// (see docs/agents.md, "The guarantee"). Use it, with Redaction, on text
// built from a Step for a reader outside the firewall: a trace's println
// output, or the strings of a value a program computed with str from a
// firewalled one. Safe for concurrent use.
func (s *Step) Scrub(text string) string { return s.veil().Scrub(text) }
