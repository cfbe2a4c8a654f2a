package lisp

import (
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strings"
	"unicode"

	"github.com/ptc-go/ptc/lisp/internal/analyze"
)

// Funcs are Go functions a program calls by name, as it calls a builtin:
// (slug title), (within-budget? cost 100). Where a tool is a service the
// program calls with a map of arguments, (tool/search {:q "x"}), a host
// function is a helper of the language, with positional arguments.
//
// Build a set once with NewFuncs and compile programs against it with
// Funcs.Compile (or give it to Run as Options.Funcs): the calls' arity is
// checked when the program compiles, and so are the types of the literal
// arguments; other arguments are checked when the call runs, a mismatch
// being a type_error that names the function and the argument. A call
// counts a step, runs under the run's time limit (a function whose first
// parameter is a context.Context gets the run's, cancelled at its
// deadline; one that ignores it is abandoned there, so the run ends on
// time), and a panic or a returned error is a tool_error the program can
// catch, naming the function. What a function returns is converted with
// FromGo and charged to the run's memory like what a builtin builds.
//
// A Funcs is immutable and safe for concurrent use.
type Funcs struct {
	byName map[string]*Builtin
	params map[string][]reflect.Type // each function's parameter types, for compile-time checks
	names  []string                  // sorted
}

// NewFuncs checks the functions and returns the set. Each value must be a
// Go func whose parameters are, after an optional leading
// context.Context, of these types (a variadic last parameter too): string,
// bool, the integer and float types, Value, any (the argument converted
// with ToGo), *Map, *Vector, and slices and string-keyed maps of these;
// whose results are none, a value FromGo accepts, an error, or a value and
// an error. A name must be a plain symbol (no namespace) that is not a
// builtin or a special form: a host function adds to the language, it
// does not replace a part of it.
func NewFuncs(fns map[string]any) (*Funcs, error) {
	f := &Funcs{byName: make(map[string]*Builtin, len(fns)), params: make(map[string][]reflect.Type, len(fns))}
	for name, fn := range fns {
		if err := checkFuncName(name); err != nil {
			return nil, err
		}
		b, params, err := hostBuiltin(name, fn)
		if err != nil {
			return nil, err
		}
		f.byName[name], f.params[name] = b, params
		f.names = append(f.names, name)
	}
	sort.Strings(f.names)
	return f, nil
}

// Names returns the functions' names, sorted.
func (f *Funcs) Names() []string {
	if f == nil {
		return nil
	}
	return append([]string(nil), f.names...)
}

// Compile is lisp.Compile for programs that call the functions of f.
func (f *Funcs) Compile(src string) (*Program, error) {
	return compile(nil, src, nil, nil, f)
}

// lookup returns the builtin of the host function name, if f has one.
func (f *Funcs) lookup(name string) (*Builtin, bool) {
	if f == nil {
		return nil, false
	}
	b, ok := f.byName[name]
	return b, ok
}

// analyzeConfig is the analyzer's configuration for programs that may call
// f's functions.
func (f *Funcs) analyzeConfig() analyze.Config {
	cfg := analyzeConfig
	if f != nil && len(f.byName) > 0 {
		cfg.IsBuiltin = func(name string) bool { _, ok := f.byName[name]; return ok || isBuiltinName(name) }
	}
	return cfg
}

func checkFuncName(name string) error {
	bad := func(why string) error {
		return &Error{Kind: InvalidArgument, Message: fmt.Sprintf("lisp: host function %q: %s", name, why)}
	}
	switch {
	case name == "":
		return bad("a name is required")
	case strings.ContainsAny(name, "/.:"):
		return bad("a name is a plain symbol, without a namespace or dots")
	case strings.ContainsFunc(name, func(r rune) bool {
		return unicode.IsSpace(r) || strings.ContainsRune("()[]{}\"'`;,@^~#\\", r)
	}):
		return bad("not a symbol")
	case unicode.IsDigit(rune(name[0])):
		return bad("a symbol cannot start with a digit")
	case analyze.IsSpecialForm(name):
		return bad("the name of a special form")
	case isBuiltinName(name):
		return bad("the name of a builtin: pick another name")
	}
	return nil
}

var (
	ctxType   = reflect.TypeFor[context.Context]()
	errType   = reflect.TypeFor[error]()
	valueType = reflect.TypeFor[Value]()
	mapPtr    = reflect.TypeFor[*Map]()
	vecPtr    = reflect.TypeFor[*Vector]()
)

// hostBuiltin wraps fn as the builtin name.
func hostBuiltin(name string, fn any) (*Builtin, []reflect.Type, error) {
	bad := func(format string, args ...any) error {
		return &Error{Kind: InvalidArgument, Message: fmt.Sprintf("lisp: host function %s: ", name) + fmt.Sprintf(format, args...)}
	}
	rv := reflect.ValueOf(fn)
	if !rv.IsValid() || rv.Kind() != reflect.Func || rv.IsNil() {
		return nil, nil, bad("%T is not a function", fn)
	}
	t := rv.Type()
	withCtx := t.NumIn() > 0 && t.In(0) == ctxType
	var params []reflect.Type
	for i := 0; i < t.NumIn(); i++ {
		if i == 0 && withCtx {
			continue
		}
		p := t.In(i)
		if t.IsVariadic() && i == t.NumIn()-1 {
			p = p.Elem()
		}
		if !hostParamOK(p, 0) {
			return nil, nil, bad("parameter %d has type %s, which a program's value does not convert to (use string, bool, a number type, any, lisp.Value, *lisp.Map, *lisp.Vector, or slices and string-keyed maps of them)", i+1, t.In(i))
		}
		params = append(params, p)
	}
	hasErr := t.NumOut() > 0 && t.Out(t.NumOut()-1) == errType
	switch {
	case t.NumOut() > 2, t.NumOut() == 2 && !hasErr:
		return nil, nil, bad("results must be (), (T), (error) or (T, error), got %s", t)
	}
	minArgs, maxArgs := len(params), len(params)
	if t.IsVariadic() {
		minArgs, maxArgs = len(params)-1, -1
	}
	call := func(th *thread, args []Value) (Value, error) {
		in := make([]reflect.Value, 0, len(args)+1)
		if withCtx {
			in = append(in, reflect.Value{}) // the run's context, set below
		}
		work := 0 // elements converted: a step per 16, as copying charges
		for i, a := range args {
			p := params[min(i, len(params)-1)]
			// The host sees data: lazy sequences that may end are
			// realized, as for a tool (an infinite one is an error).
			a, err := th.realizeValue(a)
			if err != nil {
				return nil, err
			}
			v, err := toParam(a, p, 0, &work)
			if err != nil {
				return nil, &Error{Kind: TypeError, Op: name, Message: fmt.Sprintf("%s expects %s as argument %d, got %s", name, describeParam(p), i+1, describe(a))}
			}
			in = append(in, v)
		}
		if err := th.ticks(1 + work>>4); err != nil {
			return nil, err
		}
		if err := th.checkpoint(); err != nil {
			return nil, err
		}
		r := th.run
		ctx := r.toolContext()
		if withCtx {
			in[0] = reflect.ValueOf(ctx)
		}
		out, err := callHostAbandonable(ctx, rv, in)
		if err == nil && hasErr {
			if e, _ := out[len(out)-1].Interface().(error); e != nil {
				err = e
			}
		}
		if err != nil {
			if ctxErr := ctx.Err(); ctxErr != nil {
				return nil, r.contextError(ctxErr)
			}
			var inner *Error
			if errors.As(err, &inner) && isLimitKind(inner.Kind) {
				return nil, err
			}
			return nil, &Error{Kind: ToolError, Op: name, Err: err, Message: name + " failed: " + err.Error()}
		}
		if len(out) == 0 || len(out) == 1 && hasErr {
			return nil, nil
		}
		v, err := FromGo(out[0].Interface())
		if err != nil {
			return nil, &Error{Kind: ToolError, Op: name, Err: err, Message: name + " returned a value PTC-Lisp cannot hold: " + err.Error()}
		}
		return v, th.chargeResult(v)
	}
	return &Builtin{Name: name, MinArgs: minArgs, MaxArgs: maxArgs, fn: call}, params, nil
}

// callHostAbandonable calls fn on its own goroutine and waits for it or for
// the run's end, as a tool call does (callAbandonable).
func callHostAbandonable(ctx context.Context, fn reflect.Value, in []reflect.Value) ([]reflect.Value, error) {
	type result struct {
		out []reflect.Value
		err error
	}
	done := make(chan result, 1)
	go func() {
		var r result
		defer func() {
			if p := recover(); p != nil {
				r.err = fmt.Errorf("panic: %v", p)
			}
			done <- r
		}()
		r.out = fn.Call(in)
	}()
	select {
	case r := <-done:
		return r.out, r.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// chargeResult charges what a host function returned, as the builtins
// charge what they build: a slot per element, a byte per byte of a string.
func (th *thread) chargeResult(v Value) error {
	switch x := v.(type) {
	case string:
		return th.chargeString(len(x))
	case *Vector:
		return th.charge(int64(x.Len()))
	case *Map:
		return th.charge(2 * int64(x.Len()))
	case *Set:
		return th.charge(int64(x.Len()))
	}
	return nil
}

// hostParamOK reports whether a program's value can convert to t.
func hostParamOK(t reflect.Type, depth int) bool {
	if depth > 8 {
		return false
	}
	switch t {
	case valueType, mapPtr, vecPtr:
		return true
	}
	switch t.Kind() {
	case reflect.String, reflect.Bool,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return true
	case reflect.Interface:
		return t.NumMethod() == 0
	case reflect.Slice:
		return hostParamOK(t.Elem(), depth+1)
	case reflect.Map:
		return t.Key().Kind() == reflect.String && hostParamOK(t.Elem(), depth+1)
	}
	return false
}

// errParam is a value that does not convert to a parameter's type.
var errParam = errors.New("does not convert")

// toParam converts the program's value v to the parameter type t.
func toParam(v Value, t reflect.Type, depth int, work *int) (reflect.Value, error) {
	switch t {
	case valueType:
		if v == nil {
			return reflect.Zero(t), nil
		}
		return reflect.ValueOf(&v).Elem(), nil
	case mapPtr:
		if m, ok := v.(*Map); ok {
			return reflect.ValueOf(m), nil
		}
		if v == nil {
			return reflect.Zero(t), nil
		}
		return reflect.Value{}, errParam
	case vecPtr:
		if x, ok := v.(*Vector); ok {
			return reflect.ValueOf(x), nil
		}
		if v == nil {
			return reflect.Zero(t), nil
		}
		return reflect.Value{}, errParam
	}
	switch t.Kind() {
	case reflect.String:
		switch x := v.(type) {
		case string:
			return reflect.ValueOf(x).Convert(t), nil
		case Keyword:
			return reflect.ValueOf(string(x)).Convert(t), nil
		}
	case reflect.Bool:
		if b, ok := v.(bool); ok {
			return reflect.ValueOf(b).Convert(t), nil
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if i, ok := v.(int64); ok {
			r := reflect.New(t).Elem()
			if r.OverflowInt(i) {
				return reflect.Value{}, errParam
			}
			r.SetInt(i)
			return r, nil
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if i, ok := v.(int64); ok && i >= 0 {
			r := reflect.New(t).Elem()
			if r.OverflowUint(uint64(i)) {
				return reflect.Value{}, errParam
			}
			r.SetUint(uint64(i))
			return r, nil
		}
	case reflect.Float32, reflect.Float64:
		var f float64
		switch x := v.(type) {
		case float64:
			f = x
		case int64:
			f = float64(x)
		default:
			return reflect.Value{}, errParam
		}
		if t.Kind() == reflect.Float32 && !math.IsInf(f, 0) && math.Abs(f) > math.MaxFloat32 {
			return reflect.Value{}, errParam
		}
		return reflect.ValueOf(f).Convert(t), nil
	case reflect.Interface:
		switch x := v.(type) {
		case *Vector:
			*work += x.Len()
		case *Map:
			*work += x.Len()
		}
		g, err := ToGo(v)
		if err != nil {
			return reflect.Value{}, err
		}
		if g == nil {
			return reflect.Zero(t), nil
		}
		return reflect.ValueOf(g), nil
	case reflect.Slice:
		if v == nil {
			return reflect.Zero(t), nil
		}
		x, ok := v.(*Vector)
		if !ok {
			return reflect.Value{}, errParam
		}
		*work += x.Len()
		out := reflect.MakeSlice(t, x.Len(), x.Len())
		for i, e := range x.Items() {
			ev, err := toParam(e, t.Elem(), depth+1, work)
			if err != nil {
				return reflect.Value{}, err
			}
			out.Index(i).Set(ev)
		}
		return out, nil
	case reflect.Map:
		if v == nil {
			return reflect.Zero(t), nil
		}
		m, ok := v.(*Map)
		if !ok {
			return reflect.Value{}, errParam
		}
		*work += m.Len()
		out := reflect.MakeMapWithSize(t, m.Len())
		for k, e := range m.All() {
			var ks string
			switch k := k.(type) {
			case string:
				ks = k
			case Keyword:
				ks = string(k)
			default:
				return reflect.Value{}, errParam
			}
			ev, err := toParam(e, t.Elem(), depth+1, work)
			if err != nil {
				return reflect.Value{}, err
			}
			out.SetMapIndex(reflect.ValueOf(ks).Convert(t.Key()), ev)
		}
		return out, nil
	}
	return reflect.Value{}, errParam
}

// describeParam names what a parameter of type t takes, for messages.
func describeParam(t reflect.Type) string {
	switch t {
	case valueType:
		return "any value"
	case mapPtr:
		return "a map"
	case vecPtr:
		return "a vector"
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "an integer (" + t.Kind().String() + ")"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a non-negative integer (" + t.Kind().String() + ")"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice:
		return "a vector of " + strings.TrimPrefix(strings.TrimPrefix(describeParam(t.Elem()), "a "), "an ")
	case reflect.Map:
		return "a map of " + strings.TrimPrefix(strings.TrimPrefix(describeParam(t.Elem()), "a "), "an ")
	}
	return "any value"
}

// hostCall compiles a call of a host function: its arity, and the types of
// its literal arguments, are checked now.
func (c *compiler) hostCall(b *Builtin, args []analyze.Expr, pos posT) evalFn {
	if err := b.checkArity(len(args)); err != nil {
		c.errs = append(c.errs, &Error{Kind: ArityError, Pos: pos.resolve(), Message: err.(*Error).Message, src: c.src})
		return constant(nil)
	}
	params := c.funcs.params[b.Name]
	for i, a := range args {
		v, ok := constValue(a)
		if !ok {
			continue
		}
		p := params[min(i, len(params)-1)]
		if _, err := toParam(v, p, 0, new(int)); err != nil {
			c.errs = append(c.errs, &Error{Kind: TypeError, Pos: c.pos(a.Offset()).resolve(), src: c.src,
				Message: fmt.Sprintf("%s expects %s as argument %d, got %s", b.Name, describeParam(p), i+1, describe(v))})
			return constant(nil)
		}
	}
	return c.callBuiltin(b.fn, args, pos)
}
