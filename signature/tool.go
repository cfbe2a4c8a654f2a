package signature

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"

	"github.com/ptc-go/ptc/lisp"
)

// Tool is a host tool built from a typed Go function by TypedFunc: its
// signature and JSON Schemas are derived from the function's types, and
// Call converts a program's arguments into the function's input and its
// result back into a PTC-Lisp value. A Tool is safe for concurrent use.
type Tool struct {
	sig   *Signature
	desc  string
	mode  Mode
	shape inputShape
	elem  Type // element type of a map input
	call  func(ctx context.Context, args *lisp.Map) (lisp.Value, []Issue, error)
}

// inputShape is how a tool's arguments map onto its input type.
type inputShape uint8

const (
	shapeStruct inputShape = iota // fields are the parameters
	shapeValue                    // one parameter, "value"
	shapeMap                      // map[string]V: the arguments themselves
	shapeRaw                      // *lisp.Map: the arguments, unconverted
	shapeAny                      // interface: the arguments as map[string]any
)

// ToolOption configures TypedFunc.
type ToolOption func(*toolConfig)

type toolConfig struct {
	desc   string
	mode   Mode
	fields map[string]string
}

// WithDescription sets the tool's description, shown to the LLM with its
// signature.
func WithDescription(desc string) ToolOption {
	return func(c *toolConfig) { c.desc = desc }
}

// WithMode sets how arguments are validated (default Enabled: coerced,
// extra arguments ignored).
func WithMode(m Mode) ToolOption {
	return func(c *toolConfig) { c.mode = m }
}

// WithFieldDescriptions describes parameters and result fields by path,
// as Signature.WithDescriptions; they override desc tags.
func WithFieldDescriptions(descs map[string]string) ToolOption {
	return func(c *toolConfig) { c.fields = descs }
}

// TypedFunc builds a tool from a typed function. The signature is derived
// from In and Out with TypeOf:
//
//   - a struct In (or pointer to one) gives one parameter per field:
//     func(ctx, SearchArgs) gives (query :string, limit :int?) -> ...;
//   - a map[string]V In takes the arguments themselves, each converted to
//     V; the signature declares no parameters;
//   - a *lisp.Map In receives the arguments unconverted, and an interface
//     In (such as any) receives them as lisp.ToGo data (map[string]any);
//     neither declares parameters;
//   - any other In (a scalar, a slice, time.Time...) is a single parameter
//     named value: func(ctx, int) gives (value :int) -> ...
//
// Arguments are coerced and validated against the parameters (see Coerce
// and WithMode), then decoded into In with encoding/json, so json tags,
// UnmarshalJSON and UnmarshalText methods apply. A call with positional
// arguments, (tool/search "shoes" 10), arrives as {:args ["shoes" 10]};
// when the tool has no parameter named args, the values are taken as the
// parameters in declared order. The result is converted with lisp.FromGo.
//
// A mismatch is a *ValidationError listing every problem with its path;
// errors returned by fn are passed through unchanged.
func TypedFunc[In, Out any](fn func(context.Context, In) (Out, error), opts ...ToolOption) (*Tool, error) {
	if fn == nil {
		return nil, errors.New("signature: TypedFunc with a nil function")
	}
	var cfg toolConfig
	for _, o := range opts {
		o(&cfg)
	}
	inT := reflect.TypeFor[In]()
	t := &Tool{desc: cfg.desc, mode: cfg.mode}
	params, err := t.inputParams(inT)
	if err != nil {
		return nil, err
	}
	d := &deriver{visiting: map[reflect.Type]bool{}}
	out, err := d.derive(reflect.TypeFor[Out](), "result")
	if err != nil {
		return nil, err
	}
	t.sig = &Signature{Params: params, Output: out}
	if cfg.fields != nil {
		if t.sig, err = t.sig.WithDescriptions(cfg.fields); err != nil {
			return nil, err
		}
	}
	t.call = func(ctx context.Context, args *lisp.Map) (lisp.Value, []Issue, error) {
		var in In
		warnings, err := t.decode(args, &in)
		if err != nil {
			return nil, warnings, err
		}
		res, err := fn(ctx, in)
		if err != nil {
			return nil, warnings, err
		}
		v, err := lisp.FromGo(res)
		if err != nil {
			return nil, warnings, fmt.Errorf("signature: converting the result: %w", err)
		}
		return v, warnings, nil
	}
	return t, nil
}

// MustTypedFunc is TypedFunc for functions whose types are known to be
// supported; it panics on error.
func MustTypedFunc[In, Out any](fn func(context.Context, In) (Out, error), opts ...ToolOption) *Tool {
	t, err := TypedFunc(fn, opts...)
	if err != nil {
		panic(err)
	}
	return t
}

func (t *Tool) inputParams(inT reflect.Type) ([]Field, error) {
	d := &deriver{visiting: map[reflect.Type]bool{}}
	switch {
	case inT == mapType:
		t.shape = shapeRaw
		return nil, nil
	case inT.Kind() == reflect.Interface:
		t.shape = shapeAny
		return nil, nil
	case inT.Kind() == reflect.Map && inT.Key().Kind() == reflect.String:
		t.shape = shapeMap
		elem, err := d.derive(inT.Elem(), "")
		if err != nil {
			return nil, err
		}
		t.elem = elem
		return nil, nil
	}
	typ, err := d.derive(inT, "")
	if err != nil {
		return nil, err
	}
	if typ.Kind == Record {
		t.shape = shapeStruct
		return typ.Fields, nil
	}
	t.shape = shapeValue
	return []Field{{Name: "value", Type: typ}}, nil
}

// Signature returns the tool's signature.
func (t *Tool) Signature() *Signature { return t.sig }

// Description returns the tool's description.
func (t *Tool) Description() string { return t.desc }

// InputSchema returns the JSON Schema of the tool's arguments.
func (t *Tool) InputSchema() map[string]any {
	switch t.shape {
	case shapeRaw, shapeAny:
		return map[string]any{"type": "object"}
	case shapeMap:
		s := map[string]any{"type": "object"}
		if t.elem.Kind != Any {
			s["additionalProperties"] = t.elem.JSONSchema()
		}
		return s
	}
	return t.sig.InputSchema()
}

// OutputSchema returns the JSON Schema of the tool's result.
func (t *Tool) OutputSchema() map[string]any { return t.sig.OutputSchema() }

// Call calls the tool with the arguments of a program.
func (t *Tool) Call(ctx context.Context, args *lisp.Map) (lisp.Value, error) {
	v, _, err := t.call(ctx, args)
	return v, err
}

// CallWithWarnings is Call that also returns the coercions applied to the
// arguments (and, in WarnOnly mode, the mismatches), for feeding back to
// the LLM.
func (t *Tool) CallWithWarnings(ctx context.Context, args *lisp.Map) (lisp.Value, []Issue, error) {
	return t.call(ctx, args)
}

// Func returns the tool as a lisp.ToolFunc, for lisp.Tools.
func (t *Tool) Func() lisp.ToolFunc {
	return func(ctx context.Context, args *lisp.Map) (any, error) {
		v, _, err := t.call(ctx, args)
		return v, err
	}
}

// positional turns {:args [a b]} into named parameters.
func (t *Tool) positional(args *lisp.Map) (*lisp.Map, error) { return t.sig.Positional(args) }

// Positional maps positional arguments onto the parameters: a program's
// (tool/search "shoes" 10) arrives as {:args ["shoes" 10]}, which becomes
// {:query "shoes" :limit 10} for (query :string, limit :int). Other
// argument maps, and any when the signature has a parameter called args or
// none at all, are returned as they are. More values than parameters is a
// *ValidationError.
func (s *Signature) Positional(args *lisp.Map) (*lisp.Map, error) {
	if args.Len() != 1 {
		return args, nil
	}
	_, v, ok := lookup(args, "args")
	vec, isVec := v.(*lisp.Vector)
	if !ok || !isVec {
		return args, nil
	}
	if _, named := s.Param("args"); named || len(s.Params) == 0 {
		return args, nil
	}
	if vec.Len() > len(s.Params) {
		return nil, &ValidationError{Issues: []Issue{{Message: fmt.Sprintf(
			"too many arguments: got %d, the tool takes %d: %s",
			vec.Len(), len(s.Params), fieldList(s.Params))}}}
	}
	b := lisp.NewMapBuilder(nil)
	for i, x := range vec.Items() {
		b.Set(lisp.Keyword(s.Params[i].Name), x)
	}
	return b.Map(), nil
}

// decode converts the arguments into *dst.
func (t *Tool) decode(args *lisp.Map, dst any) ([]Issue, error) {
	if args == nil {
		args = lisp.NewMap()
	}
	switch t.shape {
	case shapeRaw:
		reflect.ValueOf(dst).Elem().Set(reflect.ValueOf(args))
		return nil, nil
	case shapeAny:
		g, err := lisp.ToGo(args)
		if err != nil {
			return nil, &ValidationError{Issues: []Issue{{Message: err.Error()}}}
		}
		reflect.ValueOf(dst).Elem().Set(reflect.ValueOf(g))
		return nil, nil
	case shapeMap:
		v, warnings, err := checkEntries(t.elem, args, t.mode)
		if err != nil {
			return warnings, err
		}
		return warnings, unmarshal(v, dst, "")
	}
	args, err := t.positional(args)
	if err != nil {
		return nil, err
	}
	m, warnings, err := t.sig.CoerceInput(args, t.mode)
	if err != nil {
		return warnings, err
	}
	if t.shape == shapeValue {
		_, v, _ := lookup(m, "value")
		return warnings, unmarshal(v, dst, "value")
	}
	if err := unmarshal(m, dst, ""); err != nil {
		return warnings, locate(m, reflect.TypeOf(dst).Elem(), err)
	}
	return warnings, nil
}

// locate finds the argument a decoding error without a path comes from
// (such as an UnmarshalJSON method's error), by decoding the arguments one
// at a time.
func locate(m *lisp.Map, t reflect.Type, err error) error {
	var ve *ValidationError
	if !errors.As(err, &ve) || len(ve.Issues) != 1 || ve.Issues[0].Path != "" {
		return err
	}
	for k, v := range m.All() {
		name, ok := keyName(k)
		if !ok {
			continue
		}
		one := lisp.NewMap(k, v)
		if e := unmarshal(one, reflect.New(t).Interface(), ""); e != nil {
			var ve1 *ValidationError
			if errors.As(e, &ve1) && len(ve1.Issues) == 1 && ve1.Issues[0].Path == "" {
				return &ValidationError{Issues: []Issue{{Path: name, Message: ve1.Issues[0].Message}}}
			}
			return e
		}
	}
	return err
}

// unmarshal decodes a value into dst through its JSON form.
func unmarshal(v lisp.Value, dst any, prefix string) error {
	data, err := lisp.ToJSON(v)
	if err != nil {
		return &ValidationError{Issues: []Issue{{Path: prefix, Message: err.Error()}}}
	}
	if err := json.Unmarshal(data, dst); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			path := te.Field
			if prefix != "" {
				path = joinPath(prefix, path)
			}
			return &ValidationError{Issues: []Issue{{Path: path,
				Message: fmt.Sprintf("cannot store %s in a Go %s", te.Value, te.Type)}}}
		}
		return &ValidationError{Issues: []Issue{{Path: prefix, Message: err.Error()}}}
	}
	return nil
}

func joinPath(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "." + b
}
