package llm

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sort"
	"strings"
	"syscall"
	"time"
)

// Role is who wrote a message.
type Role string

// The roles of a conversation.
const (
	System    Role = "system"
	User      Role = "user"
	Assistant Role = "assistant"
)

// Message is one message of a conversation. In tool-calling mode
// (Request.Tools), an assistant message with a ToolName is one call of that
// tool, its Content the JSON arguments; a user message with a ToolCallID is
// the result of that call, its Content the result. Consecutive calls (or
// results) belong together: an adapter sends them as its provider's one
// message with several calls (results).
type Message struct {
	Role       Role   `json:"role"`
	Content    string `json:"content"`
	ToolCallID string `json:"tool_call_id,omitempty"`
	ToolName   string `json:"tool_name,omitempty"`
}

// ToolSpec declares a function the model may call natively (tool-calling
// mode): its name, what it does, and the JSON Schema of its arguments (an
// object).
type ToolSpec struct {
	Name        string         `json:"name"`
	Description string         `json:"description,omitempty"`
	Parameters  map[string]any `json:"parameters"`
}

// Request is what an agent sends to the model on each turn.
type Request struct {
	// System is the system prompt.
	System string
	// Messages is the conversation so far, starting with the mission (a
	// user message) and alternating assistant replies and user feedback.
	// It never contains the system prompt.
	Messages []Message
	// Turn is the turn number, from 1.
	Turn int
	// Prompt is the first user message: the expanded mission prompt (an
	// LLM tool's followed by its input, which its system prompt leaves
	// out so as to be the same on every call).
	Prompt string
	// ToolNames are the names of the tools the program may call, sorted.
	ToolNames []string
	// Options are the caller's per-call options (temperature, model
	// parameters...), passed through untouched.
	Options map[string]any
	// Cache asks the provider to cache the request's stable prefix between
	// turns where it caches explicitly (Anthropic); the others ignore it
	// (docs/models.md, "Tokens and prompt caching").
	Cache bool

	// Tools, when set, are the functions the model may call natively
	// instead of answering in text (an agent in tool-calling mode); its
	// calls come back in Response.ToolCalls.
	Tools []ToolSpec `json:",omitempty"`
	// Stream, when set, takes the reply as the model writes it, piece by
	// piece; false stops the generation. A Func that does not stream
	// ignores it (docs/models.md, "Streaming"). Not serialized.
	Stream func(text string) (more bool) `json:"-"`

	// Agent, Depth, TraceID and ParentTraceID say which mission of an agent
	// tree sends the request (as agent.Event does); adapters do not send
	// them (docs/models.md, "Writing an adapter").
	Agent                  string `json:",omitempty"`
	Depth                  int    `json:",omitempty"`
	TraceID, ParentTraceID string `json:",omitempty"`
}

// Tokens counts the tokens of one call (or of a whole mission).
type Tokens struct {
	// Input counts every prompt token, cached ones included.
	Input  int `json:"input"`
	Output int `json:"output"`
	// CacheRead are the input tokens served from the provider's prompt
	// cache, CacheWrite those written to it; both are part of Input.
	CacheRead  int `json:"cache_read,omitempty"`
	CacheWrite int `json:"cache_write,omitempty"`
}

// Total is Input + Output.
func (t Tokens) Total() int { return t.Input + t.Output }

// Add returns the sum of t and o, field by field.
func (t Tokens) Add(o Tokens) Tokens {
	return Tokens{Input: t.Input + o.Input, Output: t.Output + o.Output,
		CacheRead: t.CacheRead + o.CacheRead, CacheWrite: t.CacheWrite + o.CacheWrite}
}

// Response is the model's reply.
type Response struct {
	// Content is the text of the reply.
	Content string
	// Tokens are the token counts the provider reported; zero when unknown.
	Tokens Tokens
	// Model is the model that answered, as the provider names it
	// ("gpt-4.1-mini-2025-04-14"); "" when unknown.
	Model string
	// FinishReason is why the reply ended, as the provider says it
	// ("stop", "end_turn", "max_tokens"...); "" when unknown.
	FinishReason string
	// RequestModel is the model the adapter asked for, its configured one
	// ("gpt-4.1-mini"), where Model is the one that answered; "" when
	// unknown.
	RequestModel string
	// ToolCalls are the calls the model asked for (Request.Tools): each an
	// assistant Message with its ToolCallID, ToolName and JSON arguments.
	ToolCalls []Message `json:",omitempty"`
	// Provider names the provider as the OpenTelemetry GenAI conventions
	// do (gen_ai.provider.name): "openai", "anthropic", "gcp.gemini",
	// "groq"...; "" when unknown.
	Provider string
}

// Func calls a model. It must honour ctx (the agent's deadline and
// cancellation) and be safe for concurrent use: agents running as tools of
// a parent may call it from several goroutines. With an error, only the
// Response's RequestModel and Provider are read (so that a failed call is
// attributed to its model); the adapters of this module set them on every
// call.
type Func func(ctx context.Context, req Request) (Response, error)

// Model identifies the model an agent uses: a Func, or a Name resolved in a
// Registry. A nil Model means "not set" (an agent then inherits its
// parent's model).
type Model interface {
	model()
}

func (Func) model() {}

// Name is a model referred to by name, resolved in the Registry of the run
// (which children inherit): llm.Name("haiku").
type Name string

func (Name) model() {}

// Registry maps model names to functions.
type Registry map[string]Func

// Resolve returns the function of m: m itself for a Func, the registry's
// entry for a Name. Its errors are *Error values of ClassConfig, with the
// reasons the agents report: llm_required (m is nil), llm_registry_required
// (a Name without a registry), llm_not_found (a Name the registry does not
// have) and invalid_llm (a nil function).
func (r Registry) Resolve(m Model) (Func, error) {
	switch m := m.(type) {
	case nil:
		return nil, &Error{Class: ClassConfig, Reason: "llm_required",
			Message: "no LLM: set the agent's LLM or pass one in the run options"}
	case Func:
		if m == nil {
			return nil, &Error{Class: ClassConfig, Reason: "invalid_llm", Message: "the LLM function is nil"}
		}
		return m, nil
	case Name:
		if r == nil {
			return nil, &Error{Class: ClassConfig, Reason: "llm_registry_required",
				Message: fmt.Sprintf("an LLM registry is required to use the model name %q", string(m))}
		}
		f, ok := r[string(m)]
		if !ok {
			names := make([]string, 0, len(r))
			for n := range r {
				names = append(names, n)
			}
			sort.Strings(names)
			return nil, &Error{Class: ClassConfig, Reason: "llm_not_found",
				Message: fmt.Sprintf("LLM %q is not in the registry (it has: %s)", string(m), strings.Join(names, ", "))}
		}
		if f == nil {
			return nil, &Error{Class: ClassConfig, Reason: "invalid_llm",
				Message: fmt.Sprintf("the registry entry for %q is a nil function", string(m))}
		}
		return f, nil
	}
	return nil, &Error{Class: ClassConfig, Reason: "invalid_llm", Message: fmt.Sprintf("unsupported model reference %T", m)}
}

// Class says what kind of failure an LLM call had, for retry decisions.
// A Class is an error value for errors.Is, as lisp.Kind is:
// errors.Is(err, llm.ClassRateLimit) is true for an *Error of that class
// anywhere in err's chain.
type Class string

// Error returns the class's name, "rate_limit"...
func (c Class) Error() string { return string(c) }

// The classes of failures. ClassRateLimit, ClassTimeout, ClassServerError
// and ClassNetwork are worth retrying by default; ClassAuth and ClassConfig
// never are.
const (
	ClassRateLimit     Class = "rate_limit"     // HTTP 429: slow down and retry
	ClassTimeout       Class = "timeout"        // the call took too long (HTTP 408, 504, a deadline)
	ClassServerError   Class = "server_error"   // HTTP 5xx, the provider overloaded (Anthropic's 529)
	ClassNetwork       Class = "network"        // the connection was refused or broken
	ClassContextLength Class = "context_length" // the prompt is longer than the model's context window
	ClassAuth          Class = "auth"           // HTTP 401, 403: a missing or wrong key; never retried
	ClassClientError   Class = "client_error"   // other HTTP 4xx, a reply an adapter.Guard refuses: retrying will not help
	ClassConfig        Class = "config_error"   // no model, unknown name...
	ClassCancelled     Class = "cancelled"      // the caller's context was cancelled
	ClassUnknown       Class = "unknown"
)

// Error is a failed LLM call.
type Error struct {
	Class Class
	// Reason is a short machine-readable code; for configuration errors the
	// reason the agent reports (llm_not_found...). Optional otherwise.
	Reason string
	// Status is the HTTP status code, when there was one.
	Status int
	// Message describes the failure.
	Message string
	// RetryAfter is how long the provider asked to wait, when it said.
	RetryAfter time.Duration
	// Err is the underlying error, if any.
	Err error
}

func (e *Error) Error() string {
	var sb strings.Builder
	sb.WriteString("llm: ")
	sb.WriteString(string(e.Class))
	if e.Status != 0 {
		fmt.Fprintf(&sb, " (HTTP %d)", e.Status)
	}
	if e.Message != "" {
		sb.WriteString(": ")
		sb.WriteString(e.Message)
	} else if e.Err != nil {
		sb.WriteString(": ")
		sb.WriteString(e.Err.Error())
	}
	return sb.String()
}

func (e *Error) Unwrap() error { return e.Err }

// Is reports whether target is e's Class: errors.Is(err, llm.ClassAuth).
func (e *Error) Is(target error) bool { c, ok := target.(Class); return ok && e != nil && e.Class == c }

// Classify returns err as an *Error: an *Error in its chain as it is,
// context.DeadlineExceeded as ClassTimeout, context.Canceled as
// ClassCancelled, a Class returned as an error as an *Error of that class,
// and anything else as ClassUnknown. Classify(nil) is nil.
func Classify(err error) *Error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	var c Class
	if errors.As(err, &c) {
		if err == error(c) {
			return &Error{Class: c}
		}
		return &Error{Class: c, Err: err}
	}
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return &Error{Class: ClassTimeout, Err: err}
	case errors.Is(err, context.Canceled):
		return &Error{Class: ClassCancelled, Err: err}
	}
	var t interface{ Timeout() bool } // net.Error and friends
	if errors.As(err, &t) && t.Timeout() {
		return &Error{Class: ClassTimeout, Err: err}
	}
	var op *net.OpError
	if errors.As(err, &op) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) {
		return &Error{Class: ClassNetwork, Err: err}
	}
	return &Error{Class: ClassUnknown, Err: err}
}
