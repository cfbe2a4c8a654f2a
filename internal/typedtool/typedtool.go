package typedtool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/signature"
)

// Tool is a host tool built from a typed Go function by New. It is safe
// for concurrent use.
type Tool struct {
	sig   *signature.Signature
	desc  string
	shape inputShape
	elem  signature.Type // element type of a map input
	call  func(ctx context.Context, args *lisp.Map, mode signature.Mode) (lisp.Value, []signature.Issue, error)
	check func(args *lisp.Map, mode signature.Mode) ([]signature.Issue, error)
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

var mapType = reflect.TypeFor[*lisp.Map]()

// New builds a tool from a typed function. The signature is derived from
// In and Out with signature.TypeOf:
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
// Arguments are coerced and validated against the parameters (see
// signature.Type.Coerce and Call's mode), then decoded into In with
// encoding/json, so json tags, UnmarshalJSON and UnmarshalText methods
// apply. A call with positional arguments, (tool/search "shoes" 10),
// arrives as {:args ["shoes" 10]}; when the tool has no parameter named
// args, the values are taken as the parameters in declared order. The
// result is converted with lisp.FromGo.
//
// A mismatch is a *signature.ValidationError listing every problem with
// its path; errors returned by fn are passed through unchanged.
func New[In, Out any](description string, fn func(context.Context, In) (Out, error)) (*Tool, error) {
	if fn == nil {
		return nil, errors.New("a typed tool with a nil function")
	}
	t := &Tool{desc: description}
	params, err := t.inputParams(reflect.TypeFor[In]())
	if err != nil {
		return nil, err
	}
	out, err := signature.TypeOf(reflect.TypeFor[Out]())
	if err != nil {
		return nil, fmt.Errorf("the result: %w", err)
	}
	t.sig = &signature.Signature{Params: params, Output: out}
	t.call = func(ctx context.Context, args *lisp.Map, mode signature.Mode) (lisp.Value, []signature.Issue, error) {
		var in In
		warnings, err := t.decode(args, &in, mode)
		if err != nil {
			return nil, warnings, err
		}
		res, err := fn(ctx, in)
		if err != nil {
			return nil, warnings, err
		}
		v, err := lisp.FromGo(res)
		if err != nil {
			return nil, warnings, fmt.Errorf("converting the result: %w", err)
		}
		return v, warnings, nil
	}
	t.check = func(args *lisp.Map, mode signature.Mode) ([]signature.Issue, error) {
		var in In
		return t.decode(args, &in, mode)
	}
	return t, nil
}

func (t *Tool) inputParams(inT reflect.Type) ([]signature.Field, error) {
	switch {
	case inT == mapType:
		t.shape = shapeRaw
		return nil, nil
	case inT.Kind() == reflect.Interface:
		t.shape = shapeAny
		return nil, nil
	case inT.Kind() == reflect.Map && inT.Key().Kind() == reflect.String:
		t.shape = shapeMap
		elem, err := signature.TypeOf(inT.Elem())
		if err != nil {
			return nil, err
		}
		t.elem = elem
		return nil, nil
	}
	typ, err := signature.TypeOf(inT)
	if err != nil {
		return nil, err
	}
	if typ.Kind == signature.Record {
		t.shape = shapeStruct
		return typ.Fields, nil
	}
	t.shape = shapeValue
	return []signature.Field{{Name: "value", Type: typ}}, nil
}

// Signature returns the tool's signature.
func (t *Tool) Signature() *signature.Signature { return t.sig }

// Description returns the tool's description.
func (t *Tool) Description() string { return t.desc }

// Call calls the tool with the arguments of a program, checked in mode;
// it also returns the coercions applied to the arguments (and, in
// WarnOnly mode, the mismatches), for feeding back to the LLM. In
// Disabled mode the arguments are decoded as they are.
func (t *Tool) Call(ctx context.Context, args *lisp.Map, mode signature.Mode) (lisp.Value, []signature.Issue, error) {
	return t.call(ctx, args, mode)
}

// Check reports what Call would say of the arguments, without calling
// the function: the coercions, and the error of arguments that do not
// fit.
func (t *Tool) Check(args *lisp.Map, mode signature.Mode) ([]signature.Issue, error) {
	return t.check(args, mode)
}

// decode converts the arguments into *dst.
func (t *Tool) decode(args *lisp.Map, dst any, mode signature.Mode) ([]signature.Issue, error) {
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
			return nil, &signature.ValidationError{Issues: []signature.Issue{{Message: err.Error()}}}
		}
		reflect.ValueOf(dst).Elem().Set(reflect.ValueOf(g))
		return nil, nil
	case shapeMap:
		v, warnings, err := coerceEntries(t.elem, args, mode)
		if err != nil {
			return warnings, err
		}
		return warnings, unmarshal(v, dst, "")
	}
	args, err := t.sig.Positional(args)
	if err != nil {
		return nil, err
	}
	m, warnings, err := t.sig.CoerceInput(args, mode)
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
	var ve *signature.ValidationError
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
			var ve1 *signature.ValidationError
			if errors.As(e, &ve1) && len(ve1.Issues) == 1 && ve1.Issues[0].Path == "" {
				return &signature.ValidationError{Issues: []signature.Issue{{Path: name, Message: ve1.Issues[0].Message}}}
			}
			return e
		}
	}
	return err
}

// unmarshal decodes a value into dst through its JSON form.
func unmarshal(v lisp.Value, dst any, prefix string) error {
	data, err := lisp.ToJSON(v, nil)
	if err != nil {
		return &signature.ValidationError{Issues: []signature.Issue{{Path: prefix, Message: err.Error()}}}
	}
	if err := json.Unmarshal(data, dst); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			path := te.Field
			if prefix != "" {
				path = joinPath(prefix, path)
			}
			return &signature.ValidationError{Issues: []signature.Issue{{Path: path,
				Message: fmt.Sprintf("cannot store %s in a Go %s", te.Value, te.Type)}}}
		}
		return &signature.ValidationError{Issues: []signature.Issue{{Path: prefix, Message: err.Error()}}}
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

// coerceEntries checks and coerces every value of a map against elem, each
// under its key; keys of any kind are let through (encoding/json decides).
func coerceEntries(elem signature.Type, m *lisp.Map, mode signature.Mode) (lisp.Value, []signature.Issue, error) {
	if mode == signature.Disabled {
		return m, nil, nil
	}
	out := m
	var warns, errs []signature.Issue
	for k, v := range m.All() {
		seg := "[" + lisp.Print(k, lisp.PrintOptions{}) + "]"
		if name, ok := keyName(k); ok {
			seg = name
			if !isIdent(name) {
				seg = "[" + strconv.Quote(name) + "]"
			}
		}
		y, w, err := elem.Coerce(v, mode)
		warns = append(warns, under(seg, w)...)
		var ve *signature.ValidationError
		switch {
		case errors.As(err, &ve):
			errs = append(errs, under(seg, ve.Issues)...)
		case err != nil:
			return nil, warns, err
		case len(w) > 0:
			out = out.Assoc(k, y)
		}
	}
	if len(errs) > 0 {
		return out, warns, &signature.ValidationError{Issues: errs}
	}
	return out, warns, nil
}

// under puts issues under the path segment seg.
func under(seg string, issues []signature.Issue) []signature.Issue {
	out := make([]signature.Issue, len(issues))
	for i, is := range issues {
		switch {
		case is.Path == "":
			is.Path = seg
		case strings.HasPrefix(is.Path, "["):
			is.Path = seg + is.Path
		default:
			is.Path = seg + "." + is.Path
		}
		out[i] = is
	}
	return out
}

// isIdent reports whether a key can be written bare in a path.
func isIdent(s string) bool {
	return s != "" && !strings.ContainsAny(s, " .[]\"\t\n")
}

// lookup finds a field by name under a keyword or a string key.
func lookup(m *lisp.Map, name string) (key, val lisp.Value, ok bool) {
	if v, ok := m.Get(lisp.Keyword(name)); ok {
		return lisp.Keyword(name), v, true
	}
	if v, ok := m.Get(name); ok {
		return name, v, true
	}
	return nil, nil, false
}

// keyName returns the name of a keyword or string key.
func keyName(k lisp.Value) (string, bool) {
	switch k := k.(type) {
	case lisp.Keyword:
		return string(k), true
	case string:
		return k, true
	}
	return "", false
}
