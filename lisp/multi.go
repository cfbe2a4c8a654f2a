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
// default dispatch value (:default unless defmulti says otherwise). isa?
// reads the global hierarchy, or the one defmulti's :hierarchy names
// (hierarchy.go); prefer-method settles ties, as in Clojure.

// multiFn is what a multimethod knows.
type multiFn struct {
	name     string
	dispatch Value
	dflt     Value // the default dispatch value
	methods  *Map  // dispatch value -> function
	// protocol names the protocol of a protocol method (protocols.go), ""
	// for a defmulti.
	protocol string
	// hierarchy is the var of defmulti's :hierarchy option (nil: the
	// global hierarchy), prefers prefer-method's table: a dispatch value
	// -> the set of those it is preferred to.
	hierarchy *Var
	prefers   *Map
}

// with returns a copy of m with methods (and the rest of m).
func (m *multiFn) with(methods *Map) *multiFn {
	out := *m
	out.methods = methods
	return &out
}

// hierarchyOf returns the hierarchy m dispatches through.
func (th *thread) hierarchyOf(m *multiFn) *Map {
	if m.hierarchy != nil {
		if v, ok := th.globals.lookup(m.hierarchy.Name); ok {
			if h, ok := v.(*Map); ok {
				return h
			}
		}
	}
	return th.run.globalHierarchy()
}

// dominates is Clojure's: x is preferred to y, or isa? it.
func (th *thread) dominates(m *multiFn, h *Map, x, y Value) bool {
	if m.prefers != nil {
		if v, ok := m.prefers.getExact(x); ok {
			if s, ok := v.(*Set); ok && s.Has(y) {
				return true
			}
		}
	}
	return th.isaIn(h, x, y)
}

// newMultiFn returns the function value of m.
func newMultiFn(m *multiFn) *Builtin {
	b := &Builtin{Name: m.name, MinArgs: 0, MaxArgs: -1, multi: m}
	b.fn = func(th *thread, a []Value) (Value, error) {
		if m.protocol != "" && len(a) > 0 {
			if f, ok := reifyMethod(a[0], m.name); ok {
				return th.call(f, a)
			}
		}
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
	if f == nil && m.protocol != "" {
		c := "nil"
		if dc, ok := dv.(Class); ok {
			c = dc.Name
		}
		return nil, classError(InvalidArgument, classIllegalArgument, "No implementation of method: :%s of protocol: #'user/%s found for class: %s", m.name, m.protocol, c)
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
	h := th.hierarchyOf(m)
	for k, f := range m.methods.All() {
		if !th.isaIn(h, dv, k) {
			continue
		}
		if !found || th.dominates(m, h, k, best) {
			best, bestFn, found = k, f, true
		}
		if !th.dominates(m, h, best, k) && m.protocol == "" {
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

// classIsa reports whether class c is parent or implements it.
func classIsa(c, parent Class) bool {
	if c == parent || parent.Name == "java.lang.Object" {
		return true
	}
	if isRecordClass(c) {
		return recordClassIsa(c, parent)
	}
	if info := classIndex()[c.Name]; info != nil {
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

func registerMulti(t *builtinTable) {
	t.set(analyze.DefmultiFn, &Builtin{Name: "defmulti", MinArgs: 5, MaxArgs: 5, fn: func(th *thread, a []Value) (Value, error) {
		// a: #'name, "name", dispatch, default, #'hierarchy or nil. As
		// Clojure's defmulti, a name that holds a multimethod keeps it
		// (and its methods).
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
		var hierarchy *Var
		if a[4] != nil {
			v, ok := a[4].(*Var)
			if !ok {
				return nil, argError("defmulti", 4, "the var of a hierarchy, :hierarchy #'h", a[4])
			}
			hierarchy = v
		}
		return newMultiFn(&multiFn{name: name, dispatch: a[2], dflt: a[3], methods: emptyMapBuilder().Map(), hierarchy: hierarchy}), nil
	}})
	t.set(analyze.ChangeMethodsFn, &Builtin{Name: "prefer-method", MinArgs: 5, MaxArgs: 5, fn: func(th *thread, a []Value) (Value, error) {
		// a: the operation, the multimethod, its arguments (nil-padded).
		op, _ := a[0].(string)
		m, err := multiArg(op, a, 1)
		if err != nil {
			return nil, err
		}
		if err := th.charge(8); err != nil {
			return nil, err
		}
		switch op {
		case "remove-method":
			return newMultiFn(m.with(m.methods.Dissoc(a[2]))), nil
		case "remove-all-methods":
			return newMultiFn(m.with(emptyMap)), nil
		}
		// (prefer-method f x y): x wins over y; Clojure refuses the
		// opposite of a preference already there.
		if m.prefers != nil {
			if v, ok := m.prefers.getExact(a[3]); ok {
				if s, ok := v.(*Set); ok && s.Has(a[2]) {
					return nil, classError(InvalidArgument, classIllegalState, "Preference conflict in multimethod '%s': %s is already preferred to %s",
						m.name, th.javaText(a[3]), th.javaText(a[2]))
				}
			}
		}
		prefers := m.prefers
		if prefers == nil {
			prefers = emptyMap
		}
		cur, _ := prefers.getExact(a[2])
		s, _ := cur.(*Set)
		out := *m
		out.prefers = prefers.Assoc(a[2], setOrEmpty(s).Conj(a[3]))
		return newMultiFn(&out), nil
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
		return newMultiFn(m.with(methods.(*Map))), nil
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
