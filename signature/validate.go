package signature

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/ptc-go/ptc/lisp"
)

// Mode is how values are checked against their types: an agent's
// Options.Validation (docs/signatures.md).
type Mode uint8

// Validation modes.
const (
	// Enabled validates and fails on mismatches; records may have fields
	// the type does not list. The default.
	Enabled Mode = iota
	// Strict is Enabled without leniency: extra record fields are errors,
	// and Coerce converts nothing (a quoted number stays an error).
	Strict
	// WarnOnly validates (and coerces) but never fails: every mismatch is
	// reported as a warning.
	WarnOnly
	// Disabled skips validation: values pass unchanged.
	Disabled
)

var modeNames = [...]string{Enabled: "enabled", Strict: "strict", WarnOnly: "warn_only", Disabled: "disabled"}

// String returns the mode's name: "enabled", "strict", "warn_only" or
// "disabled".
func (m Mode) String() string {
	if int(m) < len(modeNames) {
		return modeNames[m]
	}
	return "mode(" + strconv.Itoa(int(m)) + ")"
}

// Issue is one validation error or warning, at a path into the value:
// items[2].id, user.name, or "" for the value itself.
type Issue struct {
	Path    string
	Message string
}

// String returns "path: message", or the message alone at the root.
func (i Issue) String() string {
	if i.Path == "" {
		return i.Message
	}
	return i.Path + ": " + i.Message
}

// ValidationError is a failed validation; it lists every mismatch found.
type ValidationError struct {
	Issues []Issue
}

func (e *ValidationError) Error() string {
	if len(e.Issues) == 1 {
		return e.Issues[0].String()
	}
	parts := make([]string, len(e.Issues))
	for i, is := range e.Issues {
		parts[i] = is.String()
	}
	return fmt.Sprintf("%d validation errors: %s", len(e.Issues), strings.Join(parts, "; "))
}

// Validate checks v against t without changing it, the way outputs are
// checked. v may be a PTC-Lisp value or any Go value lisp.FromGo accepts.
// It returns the warnings (the mismatches, in WarnOnly mode) and, when v
// does not match, a *ValidationError listing every mismatch with its path:
//
//	items[2].id: expected :int, got "12"
//
// Record fields are looked up as PTC-Lisp does: the field id matches the
// key :id or "id". Integers are valid floats.
func (t Type) Validate(v any, mode Mode) (warnings []Issue, err error) {
	_, warnings, err = check(t, v, mode, false)
	return warnings, err
}

// Coerce checks v against t like Validate, and also repairs what LLMs
// commonly get wrong in tool arguments, reporting each repair as a warning:
//
//	"42" for :int        42      (also " 42 ", "-5")
//	42.0 for :int        42      (integral floats only; 42.5 is an error)
//	"3.14" for :float    3.14
//	"true" for :bool     true    (and "false", in any case)
//	"active" for :keyword :active
//	:active for :string  "active"
//
// Integers given for :float become floats silently: they were valid
// already. Coercion applies at every depth, and the value returned is the
// coerced one (maps and vectors are copied only where something changed).
// In Strict mode nothing is converted; in Disabled mode v is returned as
// is.
func (t Type) Coerce(v any, mode Mode) (lisp.Value, []Issue, error) {
	return check(t, v, mode, true)
}

// ValidateInput checks a map of arguments against the parameters, without
// coercion.
func (s *Signature) ValidateInput(args any, mode Mode) ([]Issue, error) {
	_, w, err := check(s.InputType(), emptyIfNil(args), mode, false)
	return w, err
}

// CoerceInput checks and coerces a map of arguments against the
// parameters, as tool arguments written by an LLM are. A nil args is an
// empty map.
func (s *Signature) CoerceInput(args any, mode Mode) (*lisp.Map, []Issue, error) {
	v, w, err := check(s.InputType(), emptyIfNil(args), mode, true)
	m, _ := v.(*lisp.Map)
	if err == nil && m == nil {
		m = lisp.NewMap()
	}
	return m, w, err
}

// ValidateOutput checks a result against the output type, strictly: no
// coercion.
func (s *Signature) ValidateOutput(v any, mode Mode) ([]Issue, error) {
	return s.Output.Validate(v, mode)
}

func emptyIfNil(v any) any {
	if m, ok := v.(*lisp.Map); v == nil || ok && m == nil {
		return lisp.NewMap()
	}
	return v
}

func check(t Type, v any, mode Mode, coerce bool) (lisp.Value, []Issue, error) {
	val, err := lisp.FromGo(v)
	if err != nil {
		iss := Issue{Message: "cannot convert the value: " + err.Error()}
		if mode == WarnOnly {
			return v, []Issue{iss}, nil
		}
		return nil, nil, &ValidationError{Issues: []Issue{iss}}
	}
	if mode == Disabled {
		return val, nil, nil
	}
	c := &checker{mode: mode, coerce: coerce && mode != Strict}
	return c.result(c.check(t, val))
}

// result finishes a check according to the mode.
func (c *checker) result(out lisp.Value) (lisp.Value, []Issue, error) {
	if c.dropped > 0 {
		c.errs = append(c.errs, Issue{Message: fmt.Sprintf("... and %d more problems", c.dropped)})
	}
	if c.mode == WarnOnly {
		return out, append(c.warns, c.errs...), nil
	}
	if len(c.errs) > 0 {
		return out, c.warns, &ValidationError{Issues: c.errs}
	}
	return out, c.warns, nil
}

// rawSeg is a path segment for a map key that is neither a keyword nor a
// string, in printed form.
type rawSeg string

type checker struct {
	mode   Mode
	coerce bool
	path   []any // field names (string) and indices (int)
	errs   []Issue
	warns  []Issue
	// dropped counts the problems past maxIssues; work, the values
	// checked, is bounded by maxCheckWork: values can share structure, so
	// their size is no bound on a walk.
	dropped int
	work    int
}

// Bounds of one check.
const (
	maxIssues    = 100
	maxCheckWork = 20_000_000
)

func (c *checker) pathString() string {
	var sb strings.Builder
	for i, seg := range c.path {
		switch s := seg.(type) {
		case int:
			sb.WriteByte('[')
			sb.WriteString(strconv.Itoa(s))
			sb.WriteByte(']')
		case rawSeg:
			sb.WriteByte('[')
			sb.WriteString(string(s))
			sb.WriteByte(']')
		case string:
			if !isIdent(s) {
				sb.WriteByte('[')
				sb.WriteString(strconv.Quote(s))
				sb.WriteByte(']')
				continue
			}
			if i > 0 {
				sb.WriteByte('.')
			}
			sb.WriteString(s)
		}
	}
	return sb.String()
}

func (c *checker) fail(format string, args ...any) {
	if len(c.errs) >= maxIssues {
		c.dropped++
		return
	}
	c.errs = append(c.errs, Issue{Path: c.pathString(), Message: fmt.Sprintf(format, args...)})
}

func (c *checker) warn(v lisp.Value, t Type) {
	if len(c.warns) >= maxIssues {
		return
	}
	c.warns = append(c.warns, Issue{Path: c.pathString(),
		Message: fmt.Sprintf("coerced %s to :%s", show(v), t.Kind)})
}

func (c *checker) mismatch(t Type, v lisp.Value) {
	c.fail("expected %s, got %s", expected(t), show(v))
}

// show prints a value briefly for a message.
func show(v lisp.Value) string {
	return lisp.Print(v, lisp.PrintOptions{MaxItems: 3, MaxChars: 48, MaxDepth: 2})
}

// expected names a type in a message.
func expected(t Type) string {
	t.Optional = false
	s := t.String()
	if len(s) <= 40 {
		return s
	}
	cut := s[:36]
	if i := strings.LastIndex(cut, ", "); i > 0 {
		cut = cut[:i+2]
	}
	cut = strings.ToValidUTF8(cut, "")
	if t.Kind == List {
		return "a list " + cut + "...]"
	}
	return "a map " + cut + "...}"
}

// check returns v, coerced when c.coerce is set.
func (c *checker) check(t Type, v lisp.Value) lisp.Value {
	if c.work++; c.work > maxCheckWork {
		if c.work == maxCheckWork+1 {
			c.errs = append(c.errs, Issue{Path: c.pathString(), Message: fmt.Sprintf(
				"the value is too large to check (more than %d elements, counting shared parts each time they occur)", maxCheckWork)})
		}
		return v
	}
	if v == nil {
		if !t.Optional && t.Kind != Any {
			c.mismatch(t, v)
		}
		return v
	}
	switch t.Kind {
	case Any:
	case String:
		switch x := v.(type) {
		case string:
		case lisp.Keyword:
			if c.coerce {
				c.warn(v, t)
				return string(x)
			}
			c.mismatch(t, v)
		default:
			c.mismatch(t, v)
		}
	case Int:
		switch x := v.(type) {
		case int64, *big.Int: // a BigInt is an integer too
		case float64:
			if c.coerce && x == math.Trunc(x) && x >= -(1<<63) && x < 1<<63 {
				c.warn(v, t)
				return int64(x)
			}
			c.mismatch(t, v)
		case string:
			if c.coerce {
				if n, err := strconv.ParseInt(strings.TrimSpace(x), 10, 64); err == nil {
					c.warn(v, t)
					return n
				}
			}
			c.mismatch(t, v)
		default:
			c.mismatch(t, v)
		}
	case Float:
		switch x := v.(type) {
		case float64:
		case int64:
			if c.coerce {
				return float64(x)
			}
		case *big.Int: // an integer is a :float, as a long is
			if c.coerce {
				f, _ := new(big.Float).SetInt(x).Float64()
				return f
			}
		case *lisp.Decimal: // a BigDecimal is a :float, kept exact
		case string:
			if c.coerce {
				if f, err := strconv.ParseFloat(strings.TrimSpace(x), 64); err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
					c.warn(v, t)
					return f
				}
			}
			c.mismatch(t, v)
		default:
			c.mismatch(t, v)
		}
	case Bool:
		switch x := v.(type) {
		case bool:
		case string:
			if c.coerce {
				switch s := strings.TrimSpace(x); {
				case strings.EqualFold(s, "true"):
					c.warn(v, t)
					return true
				case strings.EqualFold(s, "false"):
					c.warn(v, t)
					return false
				}
			}
			c.mismatch(t, v)
		default:
			c.mismatch(t, v)
		}
	case Keyword:
		switch x := v.(type) {
		case lisp.Keyword:
		case string:
			name := strings.TrimPrefix(strings.TrimSpace(x), ":")
			if c.coerce && name != "" && !strings.ContainsAny(name, " \t\n\r,;()[]{}\"") {
				c.warn(v, t)
				return lisp.Keyword(name)
			}
			c.mismatch(t, v)
		default:
			c.mismatch(t, v)
		}
	case Map:
		m, ok := v.(*lisp.Map)
		if !ok {
			c.mismatch(t, v)
			return v
		}
		if t.Elem != nil {
			return c.mapOf(*t.Elem, m)
		}
	case List:
		vec, ok := v.(*lisp.Vector)
		if !ok {
			c.mismatch(t, v)
			return v
		}
		return c.list(t.elem(), vec)
	case Record:
		m, ok := v.(*lisp.Map)
		if !ok {
			c.mismatch(t, v)
			return v
		}
		return c.record(t, m)
	}
	return v
}

func (c *checker) list(elem Type, vec *lisp.Vector) lisp.Value {
	if elem.Kind == Any {
		return vec
	}
	items := vec.Items()
	var out []lisp.Value
	for i, x := range items {
		c.path = append(c.path, i)
		y := c.check(elem, x)
		c.path = c.path[:len(c.path)-1]
		if out == nil && !same(x, y) {
			out = make([]lisp.Value, len(items))
			copy(out, items[:i])
		}
		if out != nil {
			out[i] = y
		}
	}
	if out == nil {
		return vec
	}
	if vec.IsList() {
		return lisp.NewList(out) // a list stays a list when items are coerced
	}
	return lisp.NewVector(out)
}

// mapOf checks a map from strings, {:string elem}: every key is a string
// or a keyword (kept as it is: :a and "a" name the same field), every
// value has type elem.
func (c *checker) mapOf(elem Type, m *lisp.Map) lisp.Value {
	out := m
	for k, x := range m.All() {
		if c.work > maxCheckWork {
			break
		}
		if name, ok := keyName(k); ok {
			c.path = append(c.path, name)
		} else {
			c.path = append(c.path, rawSeg(show(k)))
			c.fail("expected a string or keyword key, got %s", show(k))
		}
		if y := c.check(elem, x); !same(x, y) {
			out = out.Assoc(k, y)
		}
		c.path = c.path[:len(c.path)-1]
	}
	return out
}

// same reports whether check returned its argument unchanged.
func same(x, y lisp.Value) bool {
	switch a := x.(type) {
	case *lisp.Map:
		b, ok := y.(*lisp.Map)
		return ok && a == b
	case *lisp.Vector:
		b, ok := y.(*lisp.Vector)
		return ok && a == b
	case nil, bool, int64, float64, string, lisp.Keyword:
		return x == y
	}
	return true // other values are never replaced
}

func (c *checker) record(t Type, m *lisp.Map) lisp.Value {
	out := m
	for _, f := range t.Fields {
		key, x, found := lookup(m, f.Name)
		c.path = append(c.path, f.Name)
		if !found {
			if !f.Type.Optional {
				c.fail("missing required field, expected %s", expected(f.Type))
			}
		} else if y := c.check(f.Type, x); !same(x, y) {
			out = out.Assoc(key, y)
		}
		c.path = c.path[:len(c.path)-1]
	}
	if c.mode == Strict {
		for k := range m.All() {
			name, ok := keyName(k)
			if ok {
				if _, known := t.Field(name); known {
					continue
				}
				c.path = append(c.path, name)
			} else {
				c.path = append(c.path, rawSeg(show(k)))
			}
			c.fail("unexpected field (strict mode accepts only %s)", fieldList(t.Fields))
			c.path = c.path[:len(c.path)-1]
		}
	}
	return out
}

func fieldList(fs []Field) string {
	if len(fs) == 0 {
		return "no fields"
	}
	names := make([]string, len(fs))
	for i, f := range fs {
		names[i] = quoteName(f.Name)
	}
	return strings.Join(names, ", ")
}

// lookup finds a field by name under a keyword or a string key.
func lookup(m *lisp.Map, name string) (key, val lisp.Value, ok bool) {
	return m.Entry(lisp.Keyword(name))
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
