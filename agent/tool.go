package agent

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/ptc-go/ptc/internal/typedtool"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/signature"
)

// ToolFunc is a tool implemented by a Go function. args holds the
// arguments as the program wrote them: (tool/search {:q "x"}) passes
// {:q "x"}; positional arguments arrive as {:args [...]}. The result may be
// any value lisp.FromGo accepts; an error becomes a tool_error the LLM sees
// (with the tool's name), and a panic is caught and reported the same way.
// It is lisp.ToolFunc: one function type serves the interpreter's tools
// and an agent's.
type ToolFunc = lisp.ToolFunc

// Tool is a function an agent's programs can call, with the contract the
// LLM is shown. Build one as a literal,
//
//	agent.Tool{Func: search, Signature: "(query :string) -> [{id :int}]", Description: "Full-text search."}
//
// or from a typed Go function with NewTool. Agent.AsTool, NewLLMTool and
// CompiledAgent.AsTool make tools answered by an agent's mission, by an
// LLM, and by a compiled agent's program; their Func runs them from Go.
type Tool struct {
	// Func implements the tool.
	Func ToolFunc
	// Signature is the tool's contract, shown to the LLM; arguments are
	// checked against it before Func runs (Options.Validation). Empty:
	// arguments are passed as they are.
	Signature string
	// Description says what the tool does and when to use it.
	Description string
	// FieldDescriptions describe parameters and result fields by dotted
	// path ("id": "the tracking id, e.g. TRK-000123"), shown under the tool
	// in the system prompt (docs/agents.md).
	FieldDescriptions map[string]string
	// Unlisted keeps the tool out of the system prompt's list (which only
	// counts such tools); programs can still call it by name once another
	// tool, a catalog search say, names it.
	Unlisted bool

	typed    *typedtool.Tool
	nested   *nestedAgent   // an agent or an LLM answers the calls
	compiled *CompiledAgent // a compiled agent's program answers them
	err      error          // NewTool could not make the tool: binding it fails with this
	wraps    []func(ToolFunc) ToolFunc
}

// Wrap returns the tool with its calls going through wrap, which gets the
// call it wraps and returns the function that runs instead: to record a
// tool's results, answer them from a recording, log or cache its calls,
// without changing what the LLM is shown. The function wrap returns gets
// the arguments as the program wrote them; the call it wraps validates
// and coerces them against the signature, as an unwrapped tool does, and
// must be called, if at all, before that function returns. Wraps apply
// in order: the last one added runs first.
//
// Only tools run by a Go function (NewTool, a literal with a Func) are
// wrapped: an agent, an LLM or a compiled agent called as a tool
// (Agent.AsTool, NewLLMTool, CompiledAgent.AsTool) is returned as it is,
// since its work goes through the run's model, which is where to record
// it.
func (t Tool) Wrap(wrap func(call ToolFunc) ToolFunc) Tool {
	if wrap == nil || t.nested != nil || t.compiled != nil {
		return t
	}
	t.wraps = append(slices.Clip(t.wraps), wrap)
	return t
}

// NewTool returns the tool for a typed Go function, in one call: the
// signature the LLM sees comes from In (a struct: its fields are the
// arguments) and Out, the description is description, and the arguments
// are checked in the run's Options.Validation mode, then decoded into In
// before fn runs. FieldDescriptions of the returned Tool describe its
// fields further; desc:"..." struct tags do too.
//
//	agent.NewTool("Current weather of a city.", func(ctx context.Context, q Query) (Weather, error) { … })
//
// A type the signature cannot describe (a channel, a func …) makes a tool
// that agent.New refuses, naming the tool and the type (reason
// invalid_signature), so a tool table is one expression with no error to
// check at each entry.
func NewTool[In, Out any](description string, fn func(context.Context, In) (Out, error)) Tool {
	t, err := typedtool.New(description, fn)
	if err != nil {
		return Tool{Description: description, err: err}
	}
	return Tool{Signature: t.Signature().String(), Description: t.Description(), typed: t}
}

// boundTool is a validated tool.
type boundTool struct {
	name     string
	sig      *signature.Signature // nil: no contract
	desc     string
	fn       ToolFunc
	typ      *typedtool.Tool
	nested   *nestedAgent
	compiled *CompiledAgent
	unlisted bool
	wraps    []func(ToolFunc) ToolFunc // Tool.Wrap's, applied at each call
	// args describes an untyped tool's arguments (its FieldDescriptions),
	// sorted by name.
	args []argDesc
}

// argDesc is an argument of an untyped tool and what it is.
type argDesc struct{ name, desc string }

// kind names what answers the tool's calls, for messages.
func (bt *boundTool) kind() string {
	switch {
	case bt.nested != nil && bt.nested.kind == "llm":
		return "LLM tool"
	case bt.nested != nil:
		return "agent"
	case bt.compiled != nil:
		return "compiled agent"
	}
	return "tool"
}

// needsLLM reports whether calling the tool calls an LLM.
func (bt *boundTool) needsLLM() bool { return bt.nested != nil }

func bindTool(name string, t Tool) (*boundTool, error) {
	bt := &boundTool{name: name, desc: t.Description, fn: t.Func, typ: t.typed, nested: t.nested, compiled: t.compiled,
		unlisted: t.Unlisted, wraps: t.wraps}
	switch {
	case t.err != nil:
		return nil, &Fail{Op: "Tools", Reason: ReasonInvalidSignature,
			Message: fmt.Sprintf("tool %q: %v", name, t.err), cause: t.err}
	case bt.typ != nil:
		bt.sig = bt.typ.Signature()
	case t.Func == nil:
		return nil, configErr("Tools", fmt.Sprintf("tool %q has no Func", name))
	case t.Signature != "":
		sig, err := signature.Parse(t.Signature)
		if err != nil {
			return nil, &Fail{Op: "Tools", Reason: ReasonInvalidSignature,
				Message: fmt.Sprintf("tool %q: %v", name, err), cause: err}
		}
		bt.sig = sig
	}
	if len(t.FieldDescriptions) > 0 && bt.sig == nil {
		for k, d := range t.FieldDescriptions {
			if !validArgName(k) {
				return nil, configErr("Tools", fmt.Sprintf("tool %q has no Signature, so its FieldDescriptions name its arguments; %q is not a keyword name", name, k))
			}
			bt.args = append(bt.args, argDesc{k, d})
		}
		slices.SortFunc(bt.args, func(a, b argDesc) int { return strings.Compare(a.name, b.name) })
	} else if len(t.FieldDescriptions) > 0 {
		sig, err := bt.sig.WithDescriptions(t.FieldDescriptions)
		if err != nil {
			return nil, &Fail{Op: "Tools", Reason: ReasonInvalidSignature,
				Message: fmt.Sprintf("tool %q: FieldDescriptions: %v", name, err), cause: err}
		}
		bt.sig = sig
	}
	return bt, nil
}

// validArgName reports whether s can be an argument's keyword: a name
// without spaces, dots of paths or a namespace.
func validArgName(s string) bool {
	return s != "" && !strings.ContainsAny(s, " \t\n./:{}[]()\"'`;,@^~#")
}

// untypedWarning is the warning a run gives for a listed tool the model
// knows only by name and description: it has to guess the arguments.
func (bt *boundTool) untypedWarning() string {
	if bt.sig != nil || bt.unlisted || len(bt.args) > 0 || callingForm(bt.name, bt.desc) != "" {
		return ""
	}
	return fmt.Sprintf("tool %s has no Signature or FieldDescriptions: the model sees only its description, and guesses its arguments", bt.name)
}

// call runs the tool through its wraps (Tool.Wrap), if any.
func (bt *boundTool) call(ctx context.Context, args *lisp.Map, mode signature.Mode) (any, []signature.Issue, error) {
	if len(bt.wraps) == 0 {
		return bt.callDirect(ctx, args, mode)
	}
	var warnings []signature.Issue
	f := ToolFunc(func(ctx context.Context, args *lisp.Map) (any, error) {
		res, w, err := bt.callDirect(ctx, args, mode)
		warnings = w
		return res, err
	})
	for _, w := range bt.wraps {
		f = w(f)
	}
	res, err := f(ctx, args)
	return res, warnings, err
}

// callDirect runs the tool: arguments coerced and validated against its
// signature first. warnings lists the coercions.
func (bt *boundTool) callDirect(ctx context.Context, args *lisp.Map, mode signature.Mode) (any, []signature.Issue, error) {
	if bt.typ != nil {
		return bt.typ.Call(ctx, args, mode)
	}
	if bt.sig == nil {
		return bt.callUntyped(ctx, args)
	}
	if mode == signature.Disabled {
		res, err := bt.fn(ctx, args) // arguments as the program wrote them
		return res, nil, err
	}
	args, warnings, err := bt.coerceArgs(args, mode)
	if err != nil {
		return nil, warnings, err
	}
	res, err := bt.fn(ctx, args)
	return res, warnings, err
}

// checkArgs reports what calling the tool would say of args before it
// runs: the coercions, and the error of arguments that do not fit (nil,
// nil for a tool that checks none). It calls no host code but a typed
// tool's argument decoding.
func (bt *boundTool) checkArgs(args *lisp.Map, mode signature.Mode) (warnings []signature.Issue, err error) {
	defer func() {
		if r := recover(); r != nil { // a typed argument's UnmarshalJSON
			warnings, err = nil, fmt.Errorf("the arguments could not be decoded: it panicked: %v", r)
		}
	}()
	switch {
	case bt.typ != nil:
		return bt.typ.Check(args, mode)
	case bt.sig == nil || mode == signature.Disabled:
		return nil, nil
	}
	_, warnings, err = bt.coerceArgs(args, mode)
	return warnings, err
}

// callUntyped calls a tool without a signature. Positional arguments,
// (tool/upper "x"), reach it as {:args ["x"]}, as ToolFunc says; but a
// tool whose FieldDescriptions name its arguments reads them by name, and
// would see nil. So a single value for a tool with a single named
// argument is passed under that name, other positional calls of a tool
// with named arguments are refused with the calling form, and when a tool
// with no named arguments fails on a positional call its error says how
// the arguments arrived: the model learns to pass a map, never a nil.
func (bt *boundTool) callUntyped(ctx context.Context, args *lisp.Map) (any, []signature.Issue, error) {
	vals, positional := positionalArgs(args)
	if positional && len(bt.args) > 0 && !bt.hasArg("args") {
		if len(bt.args) == 1 && len(vals) == 1 {
			args = lisp.NewMap(lisp.Keyword(bt.args[0].name), vals[0])
		} else {
			return nil, nil, fmt.Errorf("tool %s takes its arguments by name, in a map: %s; the call passed %s",
				bt.name, bt.namedForm(), plural(len(vals), "positional argument"))
		}
	}
	res, err := bt.fn(ctx, args)
	if err != nil && positional && len(bt.args) == 0 {
		err = fmt.Errorf("%w (the call passed %s, which tool %s gets as {:args [...]}: if it takes named arguments, pass a map, (tool/%s {:name value}))",
			err, plural(len(vals), "positional argument"), bt.name, bt.name)
	}
	return res, nil, err
}

// positionalArgs reports whether args is what a call with positional
// arguments passes, {:args [...]}, and returns them.
func positionalArgs(args *lisp.Map) ([]lisp.Value, bool) {
	if args == nil || args.Len() != 1 {
		return nil, false
	}
	v, ok := args.Get(lisp.Keyword("args"))
	vec, isVec := v.(*lisp.Vector)
	if !ok || !isVec {
		return nil, false
	}
	return vec.Items(), true
}

func (bt *boundTool) hasArg(name string) bool {
	for _, a := range bt.args {
		if a.name == name {
			return true
		}
	}
	return false
}

// namedForm is the calling form of an untyped tool with named arguments:
// (tool/search {:limit … :query …}).
func (bt *boundTool) namedForm() string {
	var b strings.Builder
	b.WriteString("(tool/" + bt.name + " {")
	for i, a := range bt.args {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(":" + a.name + " …")
	}
	b.WriteString("})")
	return b.String()
}

// coerceArgs checks and coerces a call's arguments against the tool's
// signature; warnings lists the coercions.
func (bt *boundTool) coerceArgs(args *lisp.Map, mode signature.Mode) (*lisp.Map, []signature.Issue, error) {
	if bt.sig == nil {
		return args, nil, nil
	}
	named, err := bt.sig.Positional(args)
	if err != nil {
		return nil, nil, err
	}
	if mode == signature.Disabled {
		return named, nil, nil
	}
	coerced, w, err := bt.sig.CoerceInput(named, mode)
	if err != nil {
		return nil, w, err
	}
	if coerced == nil {
		coerced = named
	}
	return coerced, w, nil
}
