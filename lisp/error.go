package lisp

import (
	"errors"
	"fmt"
	"strings"

	"github.com/ptc-go/ptc/lisp/internal/analyze"
	"github.com/ptc-go/ptc/lisp/syntax"
)

// Kind classifies an error. Kinds are comparable with errors.Is:
//
//	if errors.Is(err, lisp.TypeError) { ... }
//
// The names are the ones the reference implementation reports, so agent
// traces and ctx/fail look the same. A few kinds name a special case of a
// broader one (invalid_cond_form of invalid_form, arity_mismatch of
// arity_error, pcalls_error of pmap_error): Error.Kind keeps the specific
// name, and errors.Is holds for the broader constant too.
type Kind string

// Error returns the kind's name, so that a Kind can be an errors.Is target.
func (k Kind) Error() string { return string(k) }

// Is makes errors.Is(k, broader) true when k is a special case of the
// kind broader (invalid_cond_form of InvalidForm, ...).
func (k Kind) Is(target error) bool {
	t, ok := target.(Kind)
	return ok && (t == k || t == k.broader())
}

// broader is the kind k is a special case of, or k.
func (k Kind) broader() Kind {
	switch k {
	case invalidArity, invalidCondForm, invalidWhereForm, invalidWhereOp, invalidThreadForm, invalidPlaceholder:
		return InvalidForm
	case arityMismatch:
		return ArityError
	case pcallsError:
		return PmapError
	}
	return k
}

// Error kinds.
const (
	ParseError Kind = "parse_error" // the text is not readable
	// InvalidForm: a special form is malformed; its special cases keep
	// their names in Error.Kind (invalid_arity, invalid_cond_form,
	// invalid_where_form, invalid_where_operator, invalid_thread_form, ...).
	InvalidForm         Kind = "invalid_form"
	UnboundVar          Kind = "unbound_var" // unknown name
	CannotShadowBuiltin Kind = "cannot_shadow_builtin"
	NotCallable         Kind = "not_callable" // calling a number, string, ...
	// ArityError: a function called with a wrong number of arguments; a user
	// function or recur reports it as arity_mismatch.
	ArityError        Kind = "arity_error"
	TypeError         Kind = "type_error"        // wrong argument type
	ArithmeticError   Kind = "arithmetic_error"  // division by zero, overflow, NaN to integer
	DestructureError  Kind = "destructure_error" // a value does not fit its binding pattern
	InvalidArgument   Kind = "invalid_argument"  // right type, unusable value
	AssertionError    Kind = "assertion_error"   // (assert ...) failed
	LoopLimitExceeded Kind = "loop_limit_exceeded"
	UnknownTool       Kind = "unknown_tool"
	ToolError         Kind = "tool_error"
	// PmapError: pmap or pcalls misused (a return inside a branch, ...);
	// pcalls reports it as pcalls_error.
	PmapError         Kind = "pmap_error"
	Timeout           Kind = "timeout"   // the wall-clock limit was reached
	Cancelled         Kind = "cancelled" // the caller's context was cancelled
	StepLimitExceeded Kind = "step_limit_exceeded"
	MemoryExceeded    Kind = "memory_exceeded" // the allocation budget was spent
	DepthExceeded     Kind = "depth_exceeded"  // call or data nesting too deep
	OutputExceeded    Kind = "output_exceeded" // println output over its limit
	ToolLimitExceeded Kind = "tool_limit_exceeded"
	InternalError     Kind = "internal_error" // a bug in the interpreter
	// Thrown is an exception the program threw with (throw (ex-info ...))
	// and did not catch: Message is the ex-info's message, Data its data.
	Thrown Kind = "exception"
)

// The special cases of broader kinds, which programs see by name.
const (
	invalidArity       Kind = "invalid_arity"      // a special form has the wrong number of parts
	invalidCondForm    Kind = "invalid_cond_form"  // cond without test/result pairs
	invalidWhereForm   Kind = "invalid_where_form" // malformed where
	invalidWhereOp     Kind = "invalid_where_operator"
	invalidThreadForm  Kind = "invalid_thread_form" // malformed ->, ->> ...
	invalidPlaceholder Kind = "invalid_placeholder" // % outside #()
	arityMismatch      Kind = "arity_mismatch"      // user function or recur with a wrong number of arguments
	pcallsError        Kind = "pcalls_error"
)

// Error is an error of a PTC-Lisp program, with its kind and position.
// Errors that stop a program are always *Error values (possibly wrapping a
// tool's error or an error list).
type Error struct {
	Kind    Kind
	Message string     // one line an LLM can act on
	Pos     syntax.Pos // where in the source; zero when unknown
	Op      string     // the tool of a tool error
	Err     error      // the underlying error, if any
	// More holds further independent errors found in the same pass (parse
	// and analysis report several at once).
	More []*Error
	// Class, when set, is the Java class a try/catch of the program sees
	// for the error, such as "java.lang.NumberFormatException"; when empty
	// the class follows from Kind (see JavaClass).
	Class string
	// Data is an uncaught ex-info's map (kind Thrown). A tool that fails
	// with an *Error whose Data is a map gives it to a program that catches
	// the failure, as the exception's ex-data.
	Data Value
	src  string
	// exc is the exception the error carries: the one thrown, or the one a
	// catch clause made of it, which a rethrow keeps.
	exc *Exception
}

func (e *Error) Error() string {
	var sb strings.Builder
	if e.Pos.IsValid() {
		sb.WriteString(e.Pos.String())
		sb.WriteString(": ")
	}
	sb.WriteString(string(e.Kind))
	sb.WriteString(": ")
	sb.WriteString(e.Message)
	if len(e.More) > 0 {
		fmt.Fprintf(&sb, " (and %d more errors)", len(e.More))
	}
	return sb.String()
}

// Is makes errors.Is(err, kind) true for the error's kind and for the
// broader kind it is a special case of (see Kind).
func (e *Error) Is(target error) bool {
	return e.Kind.Is(target)
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// Snippet returns the source line of the error with a caret under its
// column, or "" when the position or the source is unknown.
func (e *Error) Snippet() string {
	if !e.Pos.IsValid() || e.src == "" {
		return ""
	}
	return syntax.Snippet(e.src, e.Pos, 80)
}

// Detailed returns the message with the snippet of every error, the form
// errors are best fed back to an LLM in. An uncaught exception's causes
// follow it, one line each.
func (e *Error) Detailed() string {
	var sb strings.Builder
	all := append([]*Error{e}, e.More...)
	for i, x := range all {
		if i > 0 {
			sb.WriteByte('\n')
		}
		sb.WriteString(x.Error())
		if s := x.Snippet(); s != "" {
			sb.WriteByte('\n')
			sb.WriteString(s)
		}
	}
	cause, _ := e.Err.(*Error)
	for n := 0; e.Kind == Thrown && cause != nil; n++ {
		if n == maxCausesShown {
			sb.WriteString("\ncaused by ...")
			break
		}
		sb.WriteString("\ncaused by ")
		sb.WriteString(cause.JavaClass())
		sb.WriteString(": ")
		sb.WriteString(cause.Message)
		next, _ := cause.Err.(*Error)
		if cause.Kind != Thrown {
			next = nil
		}
		cause = next
	}
	return sb.String()
}

// maxCausesShown bounds the causes Detailed lists: a program can chain
// any number.
const maxCausesShown = 5

// errorf returns a new *Error without a position (the evaluator adds the
// position of the form being evaluated).
func errorf(kind Kind, format string, args ...any) *Error {
	return &Error{Kind: kind, Message: fmt.Sprintf(format, args...)}
}

// exit is how (return v) and (fail v) unwind the evaluator.
type exit struct {
	value  Value
	failed bool
}

func (x *exit) Error() string {
	if x.failed {
		return "fail: " + brief(x.value)
	}
	return "return: " + brief(x.value)
}

// at gives err the position pos when it has none yet.
func at(err error, pos posT) error {
	if e, ok := err.(*Error); ok && !e.Pos.IsValid() {
		e.Pos = pos.resolve()
	}
	return err
}

// fromSyntax converts reader errors.
func fromSyntax(err error, src string) *Error {
	var list syntax.ErrorList
	if !errors.As(err, &list) || len(list) == 0 {
		return &Error{Kind: ParseError, Message: err.Error(), Err: err, src: src}
	}
	conv := func(e *syntax.Error) *Error {
		return &Error{Kind: ParseError, Message: e.Msg, Pos: e.Pos, Err: e, src: src}
	}
	first := conv(list[0])
	for _, e := range list[1:] {
		first.More = append(first.More, conv(e))
	}
	return first
}

// fromAnalyze converts analysis errors.
func fromAnalyze(err error, src string) *Error {
	var list analyze.ErrorList
	if !errors.As(err, &list) || len(list) == 0 {
		return &Error{Kind: InvalidForm, Message: err.Error(), Err: err, src: src}
	}
	conv := func(e *analyze.Error) *Error {
		return &Error{Kind: Kind(e.Kind), Message: e.Msg, Pos: e.Pos, Err: e, src: src}
	}
	first := conv(list[0])
	for _, e := range list[1:] {
		first.More = append(first.More, conv(e))
	}
	return first
}
