package lisp

import (
	"context"
	"errors"
	"fmt"

	"github.com/ptc-go/ptc/internal/textutil"
)

// ToolCaller calls the host's tools. A program calls a tool with
// (tool/name args), (ctx/name args) or (call "name" args); the arguments
// arrive as one map: no argument is {}, a single map is that map, and
// anything else is {:args [a b ...]}.
//
// The result may be any value FromGo accepts. An error from the tool
// becomes a tool_error of the program (its message is shown to the LLM),
// which a program may catch: its ex-data is {:tool name :message text},
// with the entries of Error.Data when the tool failed with an *Error
// whose Data is a map; a tool's error that errors.Is a limit kind
// (ToolLimitExceeded, Timeout ...) is not caught, and ends the program as
// that limit would. Return an *Error of kind UnknownTool for names the
// caller does not know.
// Implementations must be safe for concurrent use: pmap and pcalls call
// tools from several goroutines.
type ToolCaller interface {
	CallTool(ctx context.Context, name string, args *Map) (any, error)
}

// untimedToolCaller is a ToolCaller with a method Untimed(name string)
// bool, which reports the tools bounded by limits of their own, such as an
// agent called as a tool or a call of an LLM. While a program waits on an
// untimed tool its Timeout clock stands still, and the tool runs under the
// caller's context instead of one that ends at the program's deadline.
// Every other limit of the run holds. (An optional method, as io.WriterTo
// is to io.Writer; the agent package's tools have it.)
type untimedToolCaller interface {
	ToolCaller
	Untimed(name string) bool
}

// ToolFunc is a tool implemented by a Go function.
type ToolFunc func(ctx context.Context, args *Map) (any, error)

// Tools is a ToolCaller backed by a map of functions.
type Tools map[string]ToolFunc

// CallTool calls the named function.
func (t Tools) CallTool(ctx context.Context, name string, args *Map) (any, error) {
	f, ok := t[name]
	if !ok {
		names := make([]string, 0, len(t))
		for n := range t {
			names = append(names, n)
		}
		return nil, unknownToolError(name, names)
	}
	return f(ctx, args)
}

// unknownToolError is the error for a call of a tool that does not exist.
func unknownToolError(name string, available []string) *Error {
	return &Error{Kind: UnknownTool, Message: textutil.UnknownToolMessage(name, available)}
}

// callTool calls a tool on behalf of the program, turning panics and errors
// into tool errors and the result into a value.
func (th *thread) callTool(name string, args *Map) (v Value, err error) {
	r := th.run
	if r.tools == nil {
		if _, ok := r.context.Get(Keyword(name)); ok {
			return nil, &Error{Kind: UnknownTool, Op: name, Message: fmt.Sprintf("unknown tool %s: ctx/%s is context data, read it without parentheses", name, name)}
		}
		e := unknownToolError(name, nil)
		e.Op = name
		return nil, e
	}
	if n := r.toolCalls.Add(1); n > int64(r.limits.MaxToolCalls) {
		return nil, errorf(ToolLimitExceeded, "more than %d tool calls in one program: batch the work or split it across turns", r.limits.MaxToolCalls)
	}
	if args != nil {
		// The host sees data: lazy sequences that may end are realized
		// (language.md §11).
		realized, err := th.realizeValue(args)
		if err != nil {
			return nil, err
		}
		args = realized.(*Map)
	}
	if err := th.checkpoint(); err != nil {
		return nil, err
	}
	var tctx context.Context
	if r.untimed != nil && r.untimed.Untimed(name) {
		// Bounded by its own limits and the caller's context, not by the
		// program's clock, which stands still meanwhile.
		tctx = r.ctx
		r.pauseClock()
		defer r.resumeClock()
	} else {
		tctx = r.toolContext()
	}
	res, err := callAbandonable(tctx, r.tools, name, args)
	if err != nil {
		if e, ok := err.(*Error); ok && e.Kind == UnknownTool {
			if e.Op == "" {
				e.Op = name // ex-data's :tool, should the program catch it
			}
			if _, ok := r.context.Get(Keyword(name)); ok {
				e.Message += fmt.Sprintf(" (ctx/%s is context data: read it without parentheses)", name)
			}
			return nil, e
		}
		if ctxErr := tctx.Err(); ctxErr != nil {
			return nil, r.contextError(ctxErr)
		}
		te := &Error{Kind: ToolError, Op: name, Err: err, Message: "tool " + name + " failed: " + err.Error()}
		var inner *Error
		if errors.As(err, &inner) {
			// The tool's own *Error: its message without the kind, its data
			// for a program that catches the failure (ex-data).
			te.Message, te.Data = "tool "+name+" failed: "+inner.Message, inner.Data
		}
		return nil, te
	}
	v, err = FromGo(res)
	if err != nil {
		return nil, &Error{Kind: ToolError, Op: name, Err: err, Message: "tool " + name + " returned a value PTC-Lisp cannot hold: " + err.Error()}
	}
	return v, nil
}

// callAbandonable calls a tool on its own goroutine and waits for it or for
// the run's cancellation, whichever comes first. A tool that ignores its
// context and blocks is abandoned: the run ends on time, and the tool's
// goroutine finishes whenever the tool returns (its result is dropped).
func callAbandonable(ctx context.Context, t ToolCaller, name string, args *Map) (any, error) {
	type result struct {
		v   any
		err error
	}
	done := make(chan result, 1)
	go func() {
		v, err := safeToolCall(ctx, t, name, args)
		done <- result{v, err}
	}()
	select {
	case r := <-done:
		return r.v, r.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func safeToolCall(ctx context.Context, t ToolCaller, name string, args *Map) (res any, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	return t.CallTool(ctx, name, args)
}
