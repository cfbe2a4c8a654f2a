package lisp

import (
	"strings"

	"github.com/ptc-go/ptc/lisp/internal/analyze"
)

// where compiles (where field op value) into an expression that builds a
// predicate. The value is evaluated once, when the predicate is built.
func (c *compiler) where(e *analyze.Where) evalFn {
	path := make([]Value, len(e.Path))
	keys := make([]*flexKey, len(e.Path))
	for i, p := range e.Path {
		v, _ := constValue(p)
		path[i] = v
		keys[i] = c.flexKey(v)
	}
	name := "where " + printString(NewVector(path))
	if len(path) == 1 {
		name = "where " + printString(path[0])
	}
	if e.Op == "" {
		if len(keys) == 1 {
			return constant(fieldPredicate(name, keys[0], truthy))
		}
		test := func(x Value) bool { return truthy(readKeys(x, keys)) }
		return constant(predicate(name, test))
	}
	op := e.Op
	valE := c.expr(e.Value)
	return func(fr *frame) (Value, error) {
		v, err := valE(fr)
		if err != nil {
			return nil, err
		}
		test := whereTest(op, v)
		full := name + " " + op + " " + brief(v)
		if scan := whereScan(op, v); scan != nil {
			// The test walks a vector: a builtin that counts the steps of
			// the walk ((where :id in ids) over many rows is quadratic),
			// called through fn since a Go predicate cannot count them.
			return &Builtin{Name: full, MinArgs: 1, MaxArgs: 1, fn: func(th *thread, args []Value) (Value, error) {
				f := readKeys(args[0], keys)
				if err := th.ticks(scan(f)); err != nil {
					return nil, err
				}
				return test(f), nil
			}}, nil
		}
		if len(keys) == 1 {
			// One field, the common case: read it without the path loop.
			return fieldPredicate(full, keys[0], test), nil
		}
		return predicate(full, func(x Value) bool { return test(readKeys(x, keys)) }), nil
	}
}

// whereScan returns, for the operators whose test walks a vector (in over
// a vector value, includes over a vector field), the length of the walk for
// a field value; nil for the others.
func whereScan(op string, v Value) func(f Value) int {
	switch op {
	case "in":
		if vec, ok := v.(*Vector); ok {
			return func(f Value) int {
				if f == nil {
					return 0
				}
				return vec.Len()
			}
		}
	case "includes":
		return func(f Value) int {
			if fv, ok := f.(*Vector); ok {
				return fv.Len()
			}
			return 0
		}
	}
	return nil
}

// predicate makes a one-argument builtin from a Go test that cannot fail;
// filter and friends call the test directly.
func predicate(name string, test func(Value) bool) *Builtin {
	return &Builtin{Name: name, MinArgs: 1, MaxArgs: 1, pred: test,
		fn: func(_ *thread, args []Value) (Value, error) { return test(args[0]), nil }}
}

// fieldPredicate is predicate for a test of one field of a map (nil for
// anything else), which fused pipelines run without calling the builtin.
func fieldPredicate(name string, k *flexKey, test func(Value) bool) *Builtin {
	b := predicate(name, func(x Value) bool {
		if m, ok := x.(*Map); ok {
			f, _ := m.lookupFlex(k)
			return test(f)
		}
		return test(nil)
	})
	b.field = &fieldTest{k, test}
	return b
}

// fieldTest is a test of one field of a map (Builtin.field).
type fieldTest struct {
	key  *flexKey
	test func(Value) bool
}

// readKeys reads a field path of prepared keys; non-maps give nil.
func readKeys(row Value, path []*flexKey) Value {
	for _, k := range path {
		m, ok := row.(*Map)
		if !ok {
			return nil
		}
		row, _ = m.lookupFlex(k)
	}
	return row
}

// readPath reads a field path with flexible keys; non-maps give nil.
func readPath(row Value, path []Value) Value {
	for _, k := range path {
		m, ok := row.(*Map)
		if !ok {
			return nil
		}
		row, _ = m.Get(k)
	}
	return row
}

// whereTest returns the comparison of a where operator against v.
func whereTest(op string, v Value) func(f Value) bool {
	switch op {
	case "=":
		return func(f Value) bool { return whereEqual(f, v) }
	case "not=":
		return func(f Value) bool { return !whereEqual(f, v) }
	case ">", "<", ">=", "<=":
		if vi, ok := v.(int64); ok {
			// The common case, (where :amount > 100): compare integers directly.
			slow := whereOrder(op, v)
			switch op {
			case ">":
				return func(f Value) bool {
					if fi, ok := f.(int64); ok {
						return fi > vi
					}
					return slow(f)
				}
			case "<":
				return func(f Value) bool {
					if fi, ok := f.(int64); ok {
						return fi < vi
					}
					return slow(f)
				}
			case ">=":
				return func(f Value) bool {
					if fi, ok := f.(int64); ok {
						return fi >= vi
					}
					return slow(f)
				}
			}
			return func(f Value) bool {
				if fi, ok := f.(int64); ok {
					return fi <= vi
				}
				return slow(f)
			}
		}
		return whereOrder(op, v)
	case "in":
		return func(f Value) bool { return f != nil && collHas(v, f) }
	case "includes":
		return func(f Value) bool {
			if fs, ok := f.(string); ok {
				if vs, ok := v.(string); ok {
					return strings.Contains(fs, vs)
				}
				return false
			}
			return collHas(f, v)
		}
	}
	return func(Value) bool { return false }
}

// whereOrder compares a field with v for > < >= <=; values that are not
// both numbers or both strings do not match.
func whereOrder(op string, v Value) func(f Value) bool {
	return func(f Value) bool {
		c, ok := orderable(f, v)
		if !ok {
			return false
		}
		switch op {
		case ">":
			return c > 0
		case "<":
			return c < 0
		case ">=":
			return c >= 0
		}
		return c <= 0
	}
}

// whereEqual is = after turning keywords into strings on both sides, so that
// (where :status = :open) matches "open" from JSON data.
func whereEqual(a, b Value) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return equal(kwToString(a), kwToString(b))
}

func kwToString(v Value) Value {
	if k, ok := v.(Keyword); ok {
		return string(k)
	}
	return v
}

// orderable compares two numbers or two strings (keywords as strings);
// anything else is not ordered.
func orderable(a, b Value) (int, bool) {
	if isNumber(a) && isNumber(b) {
		fa, _ := toFloat(a)
		fb, _ := toFloat(b)
		if fa != fa || fb != fb { // NaN
			return 0, false
		}
		return compare(a, b), true
	}
	sa, okA := kwToString(a).(string)
	sb, okB := kwToString(b).(string)
	if okA && okB {
		return strings.Compare(sa, sb), true
	}
	return 0, false
}

// collHas reports whether coll (a vector or set) holds x, comparing with
// keyword/string coercion.
func collHas(coll, x Value) bool {
	switch c := coll.(type) {
	case *Vector:
		for _, it := range c.items {
			if whereEqual(it, x) {
				return true
			}
		}
	case *Set:
		if c.Has(x) {
			return true
		}
		switch x := x.(type) {
		case string:
			return c.Has(Keyword(x))
		case Keyword:
			return c.Has(string(x))
		}
	}
	return false
}

// combine compiles all-of, any-of and none-of.
func (c *compiler) combine(e *analyze.Combine) evalFn {
	preds := c.exprs(e.Preds)
	kind, pos := e.Kind, c.pos(e.Off)
	return func(fr *frame) (Value, error) {
		fns := make([]Value, len(preds))
		for i, p := range preds {
			v, err := p(fr)
			if err != nil {
				return nil, err
			}
			if !isCallable(v) {
				return nil, &Error{Kind: TypeError, Pos: pos.resolve(), Message: kind + " expects predicates such as (where :a > 1), got " + describe(v)}
			}
			fns[i] = v
		}
		return &Builtin{Name: kind, MinArgs: 1, MaxArgs: 1, fn: func(th *thread, args []Value) (Value, error) {
			for _, f := range fns {
				r, err := th.call(f, args)
				if err != nil {
					return nil, err
				}
				t := truthy(r)
				switch {
				case kind == "all-of" && !t:
					return false, nil
				case kind == "any-of" && t:
					return true, nil
				case kind == "none-of" && t:
					return false, nil
				}
			}
			return kind != "any-of", nil
		}}, nil
	}
}

// isFunction is isCallable without the collections that are functions
// (vectors, maps, sets): for hints that tell a misplaced function from data.
func isFunction(v Value) bool {
	switch v.(type) {
	case *Builtin, *Closure, Keyword, *Var:
		return true
	}
	return false
}

func isCallable(v Value) bool {
	switch v := v.(type) {
	case *Builtin, *Closure, Keyword, Symbol, *Map, *Set, *Var:
		return true
	case *Vector:
		return v.isVectorType()
	case *Cell:
		return v.kind == transientCell // a transient vector, map or set, as its collection
	}
	return false
}
