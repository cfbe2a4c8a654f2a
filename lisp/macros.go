package lisp

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/ptc-go/ptc/lisp/internal/analyze"
	"github.com/ptc-go/ptc/lisp/syntax"
)

// macroHost runs the macros of one compilation (analyze.MacroHost): a
// defmacro compiles its function, which every call of the macro then
// runs, while the program is analyzed, on the unevaluated forms of the
// call. A macro runs as a program of its own, under limits that all the
// expansions of one compilation share (a hostile macro loops, allocates
// or expands into itself), with no tools and none of the program's defs:
// they do not exist until the program runs.
type macroHost struct {
	funcs *Funcs
	fns   map[string]Value // the expanders, by macro name
	names map[string]bool  // their names, for the analyzer
	// steps, argBytes, forms and spent are what the macros used so far.
	steps    int64
	argBytes int
	forms    int // nodes of the forms they made
	spent    time.Duration
	gensyms  atomic.Int64 // numbers (gensym) across the macros' runs
	// caller bounds the macros too: they stop when its context ends or
	// its deadline passes, whichever budget is left.
	caller callerBound
}

// macroStop ends a compilation whose caller's context ended or whose
// deadline passed while its macros ran (analyze.StopError): a Timeout or
// Cancelled *Error, not a fault of the program's macros.
type macroStop struct{ err *Error }

func (s macroStop) Error() string    { return s.err.Message }
func (s macroStop) StopKind() string { return string(s.err.Kind) }
func (s macroStop) Unwrap() error    { return s.err }

// The budget of the macros of one compilation.
const (
	macroSteps       = 1_000_000 // far below the time budget on any machine: the step limit, which does not depend on speed, is what a runaway macro meets
	macroTime        = time.Second
	macroMemory      = 16 << 20
	macroArgBytes    = 8 << 20 // the forms passed to macros, as text
	macroFormBudget  = 200_000 // nodes of all the expansions of a compilation
	macroFormDepth   = 512     // nesting of one expansion
	macroNameExpand  = "ptc-macro"
	macroContextHint = "a macro runs while the program is compiled: it sees its arguments, the builtins and the macros defined above it, not the program's defs, tools or data"
)

// Known returns the names of the macros defined so far.
func (h *macroHost) Known() map[string]bool { return h.names }

// DefineMacro compiles the expander of a macro: the value of its fn form.
func (h *macroHost) DefineMacro(name string, fn *syntax.List) error {
	v, err := h.run(syntax.Format(fn), nil)
	if err != nil {
		return err
	}
	if h.fns == nil {
		h.fns, h.names = map[string]Value{}, map[string]bool{}
	}
	h.fns[name] = v
	h.names[name] = true
	return nil
}

// ExpandMacro calls the expander of name with the forms of call's
// arguments, quoted, and makes a form of the data it returns.
func (h *macroHost) ExpandMacro(name string, call *syntax.List) (syntax.Node, error) {
	if h.forms >= macroFormBudget {
		return nil, errTooManyForms
	}
	var src strings.Builder
	src.WriteString("(" + macroNameExpand)
	vars := map[string]Value{macroNameExpand: h.fns[name]}
	for _, arg := range call.Items[1:] {
		text := syntax.Format(arg)
		h.argBytes += len(text)
		if h.argBytes > macroArgBytes {
			return nil, fmt.Errorf("the forms passed to macros pass %d MiB: expand less", macroArgBytes>>20)
		}
		src.WriteString(" '")
		src.WriteString(text)
	}
	src.WriteByte(')')
	v, err := h.run(src.String(), vars)
	if err != nil {
		return nil, err
	}
	// The budget is of all expansions: each may be small and their
	// number (maxMacroExpansions) large, and they all stay in the program.
	b := formBuilder{span: call.Span, budget: macroFormBudget - h.forms}
	n, err := b.form(v, 0)
	h.forms = macroFormBudget - max(b.budget, 0)
	return n, err
}

// run compiles and runs a macro's program with vars as its namespace.
func (h *macroHost) run(src string, vars map[string]Value) (Value, error) {
	if h.steps >= macroSteps || h.spent >= macroTime {
		return nil, errors.New("the macros of this program used their budget: expand less")
	}
	p, err := compileMacro(src, h)
	if err != nil {
		if h.callerEnded() {
			return nil, h.stopped() // a macro the macro's code calls
		}
		return nil, macroError(err)
	}
	start := time.Now()
	timeout := macroTime - h.spent
	if d := h.caller.limit(); !d.IsZero() {
		timeout = min(timeout, d.Sub(start))
	}
	ctx := h.caller.ctx
	if ctx == nil {
		ctx = context.Background()
	}
	if ctx.Err() != nil || timeout <= 0 {
		return nil, h.stopped()
	}
	opts := Options{
		Namespace: NewNamespace(vars),
		Limits: Limits{Timeout: timeout, MaxSteps: macroSteps - h.steps,
			MaxMemory: macroMemory},
		gensyms: &h.gensyms,
	}
	res, err := p.run(ctx, opts, start)
	h.spent += time.Since(start)
	h.steps += res.Steps
	switch {
	case err != nil && h.callerEnded():
		return nil, h.stopped()
	case err != nil:
		return nil, macroError(err)
	case res.Status == Failed:
		return nil, fmt.Errorf("it failed: %s", brief(res.Value))
	case res.Status == Returned:
		return nil, errors.New("return ends a program, not a macro: a macro's value is the form it makes")
	}
	return res.Value, nil
}

// callerEnded reports whether the caller's context has ended or its
// deadline passed.
func (h *macroHost) callerEnded() bool {
	if h.caller.ctx != nil && h.caller.ctx.Err() != nil {
		return true
	}
	d := h.caller.limit()
	return !d.IsZero() && !time.Now().Before(d)
}

// stopped is the error of a compilation stopped while its macros ran: by
// the end of the caller's context, or by its deadline.
func (h *macroHost) stopped() error {
	var err error
	if h.caller.ctx != nil {
		err = h.caller.ctx.Err()
	}
	if err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return macroStop{&Error{Kind: Cancelled, Err: err,
			Message: "the run was cancelled while the program's macros expanded: " + err.Error()}}
	}
	return macroStop{&Error{Kind: Timeout, Err: err,
		Message: "the time limit passed while the program's macros expanded: expand less"}}
}

// compileMacro compiles a macro's program with the macros of h.
func compileMacro(src string, h *macroHost) (*Program, error) {
	return compileIn(nil, src, nil, nil, h.funcs, h)
}

// macroError is the message of an error in a macro's code.
func macroError(err error) error {
	var e *Error
	if errors.As(err, &e) && e.Kind == Timeout {
		// The remaining budget the run had is no part of the message: it
		// differs from run to run.
		return fmt.Errorf("the macros of this program ran longer than their %v: expand less", macroTime)
	}
	if errors.As(err, &e) {
		if e.Kind == UnboundVar || e.Kind == ToolError {
			return fmt.Errorf("%s (%s)", e.Message, macroContextHint)
		}
		return errors.New(e.Message)
	}
	return err
}

// formBuilder makes the form of the data a macro returned: lists and
// sequences are calls, vectors, maps and sets their literals, and
// symbols, keywords, strings, numbers and regexes themselves. Every node
// takes the position of the macro's call and one unit of the budget, which
// all the expansions of a compilation share: a value that shares its parts
// can be exponentially larger than its data.
var errTooManyForms = fmt.Errorf("the forms the program's macros made have more than %d parts in all: expand less", macroFormBudget)

type formBuilder struct {
	span   syntax.Span
	budget int
}

func (b *formBuilder) form(v Value, depth int) (syntax.Node, error) {
	if b.budget--; b.budget < 0 {
		return nil, errTooManyForms
	}
	if depth > macroFormDepth {
		return nil, fmt.Errorf("the form it made is nested more than %d levels deep", macroFormDepth)
	}
	sp := b.span
	switch x := v.(type) {
	case nil:
		return &syntax.Nil{Span: sp}, nil
	case bool:
		return &syntax.Bool{Span: sp, Value: x}, nil
	case int64:
		return &syntax.Int{Span: sp, Value: x}, nil
	case *big.Int:
		return &syntax.BigInt{Span: sp, Value: x}, nil
	case *Decimal:
		return &syntax.Decimal{Span: sp, Text: x.String()}, nil
	case float64:
		return &syntax.Float{Span: sp, Value: x}, nil
	case string:
		return &syntax.String{Span: sp, Value: x}, nil
	case Keyword:
		return &syntax.Keyword{Span: sp, Name: string(x)}, nil
	case Symbol:
		return &syntax.Symbol{Span: sp, Ns: x.Ns, Name: x.Name}, nil
	case *Regex:
		return &syntax.Regex{Span: sp, Pattern: x.Source}, nil
	case Instant:
		if !x.local && x.zone == nil { // a java.util.Date, not a LocalDateTime or a zoned one
			return &syntax.Inst{Span: sp, Text: x.printed(), Time: x.T}, nil
		}
	case *Vector:
		items, err := b.items(x.items, depth)
		if err != nil {
			return nil, err
		}
		if x.isVectorPred() {
			return &syntax.Vector{Span: sp, Items: items}, nil
		}
		return &syntax.List{Span: sp, Items: items}, nil
	case *Set:
		var vals []Value
		for e := range x.All() {
			vals = append(vals, e)
		}
		items, err := b.items(vals, depth)
		return &syntax.Set{Span: sp, Items: items}, err
	case *Map:
		var vals []Value
		for k, e := range x.All() {
			vals = append(vals, k, e)
		}
		items, err := b.items(vals, depth)
		return &syntax.Map{Span: sp, Items: items}, err
	}
	return nil, fmt.Errorf("the form it made holds %s, which is not code: a macro makes its form of lists, vectors, maps, sets, symbols and literals", describe(v))
}

func (b *formBuilder) items(vs []Value, depth int) ([]syntax.Node, error) {
	if len(vs) > b.budget {
		return nil, errTooManyForms
	}
	out := make([]syntax.Node, len(vs))
	for i, v := range vs {
		n, err := b.form(v, depth+1)
		if err != nil {
			return nil, err
		}
		out[i] = n
	}
	return out, nil
}

// gensym is (gensym) or (gensym prefix): a symbol no other call of the
// run, nor of the macros of its compilation, returns: G__12, or prefix12.
func (th *thread) gensym(a []Value) (Value, error) {
	prefix := "G__"
	if len(a) == 1 {
		switch p := a[0].(type) {
		case string:
			prefix = p
		case Symbol:
			prefix = p.Name
			if p.Ns != "" {
				prefix = p.Ns + "/" + p.Name
			}
		default:
			return nil, argError("gensym", 0, "a string", a[0])
		}
	}
	counter := th.run.gensymBase
	if counter == nil {
		counter = &th.run.gensyms
	}
	return Symbol{Name: prefix + strconv.FormatInt(counter.Add(1), 10)}, nil
}

var _ analyze.MacroHost = (*macroHost)(nil)
