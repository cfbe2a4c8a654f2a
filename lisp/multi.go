package lisp

import (
	"unicode/utf8"

	"github.com/ptc-go/ptc/lisp/internal/analyze"
)

// Multimethods: defmulti and defmethod (analyze/forms.go rewrites them into
// defs of the runtime functions below).
//
// A multimethod is a builtin function value whose multi field holds its
// dispatch function and methods. It is immutable: defmethod makes a new
// multimethod with one more method and defs it under the name again, so a
// run that fails drops its methods with its defs, and a method added later
// is seen through the name (a program calls its multimethods by name), not
// by a copy of the value taken before.
//
// Dispatch is Clojure's: the dispatch function's value selects the method
// whose dispatch value is = to it, or isa? it: a class is isa? the classes
// and interfaces it implements (Long isa? Number), a vector each of whose
// elements is isa? the element of the method's; of several matches the one
// whose dispatch value isa? every other's wins, and matches none dominates
// are an error, as in Clojure. No match falls back on the method of the
// default dispatch value (:default unless defmulti says otherwise). There
// are no hierarchies (derive) and no prefer-method.

// multiFn is what a multimethod knows.
type multiFn struct {
	name     string
	dispatch Value
	dflt     Value // the default dispatch value
	methods  *Map  // dispatch value -> function
}

// newMultiFn returns the function value of m.
func newMultiFn(m *multiFn) *Builtin {
	b := &Builtin{Name: m.name, MinArgs: 0, MaxArgs: -1, multi: m}
	b.fn = func(th *thread, a []Value) (Value, error) {
		f, err := th.multiMethod(m, a)
		if err != nil {
			return nil, err
		}
		return th.call(f, a)
	}
	return b
}

// multiMethod returns the method of m for the arguments a.
func (th *thread) multiMethod(m *multiFn, a []Value) (Value, error) {
	dv, err := th.call(m.dispatch, a)
	if err != nil {
		return nil, err
	}
	f, err := th.findMethod(m, dv)
	if err != nil {
		return nil, err
	}
	if f == nil {
		return nil, classError(InvalidArgument, classIllegalArgument, "No method in multimethod '%s' for dispatch value: %s", m.name, th.javaText(dv))
	}
	return f, nil
}

// findMethod returns the method of m for the dispatch value dv, the
// default method when none matches, or nil.
func (th *thread) findMethod(m *multiFn, dv Value) (Value, error) {
	if f, ok := m.methods.Get(dv); ok {
		return f, nil
	}
	if err := th.ticks(m.methods.Len()); err != nil {
		return nil, err
	}
	var best, bestFn Value
	found := false
	for k, f := range m.methods.All() {
		if !th.isa(dv, k) {
			continue
		}
		if !found || th.isa(k, best) {
			best, bestFn, found = k, f, true
		}
		if !th.isa(best, k) {
			return nil, classError(InvalidArgument, classIllegalArgument, "Multiple methods in multimethod '%s' match dispatch value: %s -> %s and %s, and neither is preferred",
				m.name, th.javaText(dv), th.javaText(k), th.javaText(best))
		}
	}
	if found {
		return bestFn, nil
	}
	if f, ok := m.methods.Get(m.dflt); ok {
		return f, nil
	}
	return nil, nil
}

// isa is Clojure's isa? without hierarchies: child = parent, a class that
// is or implements parent, or vectors of the same length whose elements
// are isa? pairwise.
func (th *thread) isa(child, parent Value) bool {
	if th.equal(child, parent) {
		return true
	}
	switch p := parent.(type) {
	case Class:
		c, ok := child.(Class)
		return ok && classIsa(c, p)
	case *Vector:
		c, ok := child.(*Vector)
		if !ok || c.IsList() || p.IsList() || c.Len() != p.Len() {
			return false
		}
		for i := range c.Len() {
			if !th.isa(c.At(i), p.At(i)) {
				return false
			}
		}
		return true
	}
	return false
}

// classIsa reports whether class c is parent or implements it.
func classIsa(c, parent Class) bool {
	if c == parent || parent.Name == "java.lang.Object" {
		return true
	}
	if info := classIndex[c.Name]; info != nil {
		return info.all[parent.Name]
	}
	return false
}

// javaText is Java's toString of v for an exception message: "null" for
// nil, "class java.lang.Long" for a class, str's text for the rest, cut
// to a few hundred characters.
func (th *thread) javaText(v Value) string {
	if v == nil {
		return "null"
	}
	s, err := th.render(v, false)
	if err != nil {
		return brief(v)
	}
	if len(s) > 300 {
		n := 300
		for n > 0 && !utf8.RuneStart(s[n]) {
			n--
		}
		return s[:n] + "..."
	}
	return s
}

// multiArg returns argument i as a multimethod.
func multiArg(fn string, a []Value, i int) (*multiFn, error) {
	if b, ok := a[i].(*Builtin); ok && b.multi != nil {
		return b.multi, nil
	}
	return nil, argError(fn, i, "a multimethod (from defmulti)", a[i])
}

func registerMulti(t builtinTable) {
	t.set(analyze.DefmultiFn, &Builtin{Name: "defmulti", MinArgs: 4, MaxArgs: 4, fn: func(th *thread, a []Value) (Value, error) {
		// a: #'name, "name", dispatch, default. As Clojure's defmulti, a
		// name that holds a multimethod keeps it (and its methods).
		if v, ok := a[0].(*Var); ok {
			if old, ok := th.globals.lookup(v.Name); ok {
				if b, ok := old.(*Builtin); ok && b.multi != nil {
					return b, nil
				}
			}
		}
		if _, err := fnArg("defmulti", a, 2); err != nil {
			return nil, err
		}
		name, _ := a[1].(string)
		if err := th.charge(8); err != nil {
			return nil, err
		}
		return newMultiFn(&multiFn{name: name, dispatch: a[2], dflt: a[3], methods: emptyMapBuilder().Map()}), nil
	}})
	t.set(analyze.DefmethodFn, &Builtin{Name: "defmethod", MinArgs: 3, MaxArgs: 3, fn: func(th *thread, a []Value) (Value, error) {
		m, err := multiArg("defmethod", a, 0)
		if err != nil {
			return nil, err
		}
		if err := th.charge(8); err != nil {
			return nil, err
		}
		methods, err := th.assocKey("defmethod", m.methods, a[1], a[2], false)
		if err != nil {
			return nil, err
		}
		return newMultiFn(&multiFn{name: m.name, dispatch: m.dispatch, dflt: m.dflt, methods: methods.(*Map)}), nil
	}})
	t.add("methods", 1, 1, func(_ *thread, a []Value) (Value, error) {
		m, err := multiArg("methods", a, 0)
		if err != nil {
			return nil, err
		}
		return m.methods, nil
	})
	t.add("get-method", 2, 2, func(th *thread, a []Value) (Value, error) {
		m, err := multiArg("get-method", a, 0)
		if err != nil {
			return nil, err
		}
		return th.findMethod(m, a[1])
	})
}
