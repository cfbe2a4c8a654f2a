package analyze

import (
	"strings"

	"github.com/ptc-go/ptc/lisp/syntax"
)

// Records, protocols and reify are rewritten into defs and calls of the
// runtime's functions named below (lisp/protocols.go), and protocol
// implementations into defmethods of the protocol's methods, which are
// multimethods dispatching on the class of their first argument:
//
//	(defrecord R [a b] P (m [this x] body))
//	  => (do (def R (RecordClassFn "R"))
//	         (defn ->R [a b] (RecordFn R [:a :b] {:a a :b b}))
//	         (defn map->R [m] (RecordFn R [:a :b] (merge {:a nil :b nil} m)))
//	         (defmethod m R [r x] (let [this r a (:a r) b (:b r)] body))
//	         R)
//	(defprotocol P (m [this x]))
//	  => (do (def P (DefprotocolFn "P" '[m])) (def m (ProtocolFnFn "m" "P")) 'P)
//	(extend-type T P (m [x] body))  => (do (defmethod m T [x] body) nil)
//	(extend-protocol P T (m [x] body))  => the same
//	(reify P (m [this] body))  => (ReifyFn ["P"] {:m (fn [this] body)})
const (
	RecordClassFn = " record-class"
	RecordFn      = " record"
	ReifyFn       = " reify"
	DefprotocolFn = " defprotocol"
	ProtocolFnFn  = " protocol-fn"
)

// javaInterface reports whether a name after a record's fields or in a
// reify is a Java interface or class rather than a protocol: methods of
// those cannot be written here, except the functional interfaces a reify
// turns into a function (functionalInterface).
func javaInterface(name string) bool {
	if strings.Contains(name, ".") {
		return true
	}
	switch name {
	case "Object", "Comparable", "IFn", "ILookup", "IDeref", "Runnable", "Callable", "Iterable", "Seqable",
		"Counted", "Comparator", "Function", "BiFunction", "Predicate", "Supplier", "Consumer", "IPersistentMap",
		"Associative", "IRecord", "IObj", "IMeta", "Indexed", "Sequential", "Collection", "Map", "List":
		return true
	}
	return false
}

// functionalInterface reports whether a reify of name alone is a
// function: what Clojure calls through it is its one method.
func functionalInterface(name string) bool {
	switch strings.TrimPrefix(strings.TrimPrefix(strings.TrimPrefix(name, "java.util.function."), "java.util."), "clojure.lang.") {
	case "Comparator", "IFn", "Function", "BiFunction", "Predicate", "BiPredicate", "Supplier", "Consumer", "BiConsumer",
		"UnaryOperator", "BinaryOperator":
		return true
	}
	return name == "Runnable" || name == "java.lang.Runnable" || name == "Callable" || name == "java.util.concurrent.Callable"
}

// implSpec is one implementation block: a protocol (or interface) name
// and its methods, each method's fn tails (arities) in order.
type implSpec struct {
	name    *syntax.Symbol
	methods []*implMethod
}

type implMethod struct {
	name    *syntax.Symbol
	arities []*syntax.List // ([params] body...)
}

// implSpecs parses `Name (method [params] body...) ... Name ...`, the
// tail of defrecord, extend-type and reify. A method with several arities
// is written (m ([x] ...) ([x y] ...)) or as several (m [x] ...) lists.
func (a *analyzer) implSpecs(form string, items []syntax.Node) ([]*implSpec, bool) {
	var specs []*implSpec
	for _, it := range items {
		switch n := it.(type) {
		case *syntax.Symbol:
			specs = append(specs, &implSpec{name: n})
			continue
		case *syntax.Nil:
			specs = append(specs, &implSpec{name: &syntax.Symbol{Span: n.Span, Name: "nil"}})
			continue
		case *syntax.List:
			if len(specs) == 0 {
				break
			}
			if len(n.Items) < 2 { // () or (m): no parameters
				break
			}
			mname, ok := n.Items[0].(*syntax.Symbol)
			if !ok || mname.Ns != "" {
				break
			}
			spec := specs[len(specs)-1]
			var m *implMethod
			for _, x := range spec.methods {
				if x.name.Name == mname.Name {
					m = x
				}
			}
			if m == nil {
				m = &implMethod{name: mname}
				spec.methods = append(spec.methods, m)
			}
			if _, ok := n.Items[1].(*syntax.Vector); ok {
				m.arities = append(m.arities, &syntax.List{Span: n.Span, Items: n.Items[1:]})
				continue
			}
			for _, ar := range n.Items[1:] {
				l, ok := ar.(*syntax.List)
				if !ok || len(l.Items) == 0 {
					a.errorf(a.pos(ar), "invalid_form", "%s: a method is (%s [params] body...) or (%s ([params] body...) ...), got %s",
						form, mname.Name, mname.Name, syntax.Format(ar))
					return nil, false
				}
				if _, ok := l.Items[0].(*syntax.Vector); !ok {
					a.errorf(a.pos(ar), "invalid_form", "%s: a method's arity starts with its parameters, got %s", form, syntax.Format(ar))
					return nil, false
				}
				m.arities = append(m.arities, l)
			}
			continue
		}
		a.errorf(a.pos(it), "invalid_form", "%s expects a protocol name followed by its methods, (m [this] body), got %s", form, syntax.Format(it))
		return nil, false
	}
	for _, s := range specs {
		for _, m := range s.methods {
			for _, ar := range m.arities {
				if len(ar.Items[0].(*syntax.Vector).Items) == 0 {
					a.errorf(a.pos(ar), "invalid_form", "%s: the method %s takes the object as its first parameter, [this ...]", form, m.name.Name)
					return nil, false
				}
			}
		}
	}
	return specs, true
}

// fnOf builds (fn arity...) from a method's arities.
func fnOf(span syntax.Span, m *implMethod, name *syntax.Symbol) *syntax.List {
	items := []syntax.Node{&syntax.Symbol{Span: span, Ns: "clojure.core", Name: "fn"}}
	if name != nil {
		items = append(items, name)
	}
	for _, ar := range m.arities {
		items = append(items, ar)
	}
	return &syntax.List{Span: span, Items: items}
}

// defmethodOf is (defmethod m T ([x] ...) ...): the implementation of m
// for the type T.
func defmethodOf(span syntax.Span, m *implMethod, typ syntax.Node) syntax.Node {
	if s, ok := typ.(*syntax.Symbol); ok && s.Ns == "" && s.Name == "nil" {
		typ = &syntax.Nil{Span: s.Span}
	}
	items := []syntax.Node{&syntax.Symbol{Span: span, Name: "defmethod"}, m.name, typ}
	for _, ar := range m.arities {
		items = append(items, ar)
	}
	return &syntax.List{Span: span, Items: items}
}

// defprotocol is (defprotocol Name doc? options? (method [params]... doc?)...).
func (a *analyzer) defprotocol(l *syntax.List) Expr {
	pos := a.pos(l)
	args := l.Items[1:]
	if len(args) < 1 {
		return a.errorf(pos, "invalid_arity", "defprotocol expects (defprotocol Name (method [this]) ...), got no name")
	}
	name, ok := args[0].(*syntax.Symbol)
	if !ok || name.Ns != "" {
		return a.errorf(a.pos(args[0]), "invalid_form", "defprotocol needs a plain name, got %s", syntax.Format(args[0]))
	}
	sp := l.Span
	sym := func(ns, n string) *syntax.Symbol { return &syntax.Symbol{Span: sp, Ns: ns, Name: n} }
	var names []syntax.Node
	var defs []syntax.Node
	rest := args[1:]
	for i := 0; i < len(rest); i++ {
		switch it := rest[i].(type) {
		case *syntax.String:
			continue // the docstring
		case *syntax.Keyword:
			i++ // an option and its value (:extend-via-metadata true)
			continue
		case *syntax.List:
			if len(it.Items) >= 1 {
				if m, ok := it.Items[0].(*syntax.Symbol); ok && m.Ns == "" {
					names = append(names, m)
					defs = append(defs, &syntax.List{Span: it.Span, Items: []syntax.Node{sym("", "def"), m,
						&syntax.List{Span: it.Span, Items: []syntax.Node{sym("", ProtocolFnFn),
							&syntax.String{Span: m.Span, Value: m.Name}, &syntax.String{Span: name.Span, Value: name.Name}}}}})
					continue
				}
			}
		}
		return a.errorf(a.pos(rest[i]), "invalid_form", "defprotocol %s: a method is (name [this ...]), got %s", name.Name, syntax.Format(rest[i]))
	}
	quote := func(n syntax.Node) syntax.Node {
		return &syntax.List{Span: sp, Items: []syntax.Node{sym("clojure.core", "quote"), n}}
	}
	items := []syntax.Node{sym("", "do"),
		&syntax.List{Span: sp, Items: []syntax.Node{sym("", "def"), name, &syntax.List{Span: sp, Items: []syntax.Node{
			sym("", DefprotocolFn), &syntax.String{Span: name.Span, Value: name.Name}, quote(&syntax.Vector{Span: sp, Items: names})}}}}}
	items = append(items, defs...)
	items = append(items, quote(name))
	return a.expr(&syntax.List{Span: sp, Items: items}, false)
}

// extendType is (extend-type T P (m ...) ... P2 ...): each method
// implemented for T.
func (a *analyzer) extendType(l *syntax.List) Expr {
	return a.extend("extend-type", "(extend-type Type Protocol (method [this] body) ...)", l,
		func(*implSpec) syntax.Node { return l.Items[1] })
}

// extendProtocol is (extend-protocol P T (m ...) ... T2 ...): each
// method implemented for the type it follows.
func (a *analyzer) extendProtocol(l *syntax.List) Expr {
	return a.extend("extend-protocol", "(extend-protocol Protocol Type (method [this] body) ...)", l,
		func(s *implSpec) syntax.Node { return s.name })
}

// extend rewrites extend-type and extend-protocol into defmethods, the
// type of each spec's methods given by typeOf.
func (a *analyzer) extend(form, usage string, l *syntax.List, typeOf func(*implSpec) syntax.Node) Expr {
	pos := a.pos(l)
	if len(l.Items) < 3 {
		return a.errorf(pos, "invalid_arity", "%s expects %s", form, usage)
	}
	specs, ok := a.implSpecs(form, l.Items[2:])
	if !ok {
		return &Const{At: At{pos}}
	}
	items := []syntax.Node{&syntax.Symbol{Span: l.Span, Name: "do"}}
	for _, s := range specs {
		for _, m := range s.methods {
			items = append(items, defmethodOf(l.Span, m, typeOf(s)))
		}
	}
	items = append(items, &syntax.Nil{Span: l.Span})
	return a.expr(&syntax.List{Span: l.Span, Items: items}, false)
}

// reify is (reify P (m [this] body) ...): a map of the methods' functions
// that the protocols' methods call, or for one functional interface
// (Comparator, IFn, java.util.function's) the function of its method.
func (a *analyzer) reify(l *syntax.List, tail bool) Expr {
	pos := a.pos(l)
	specs, ok := a.implSpecs("reify", l.Items[1:])
	if !ok {
		return &Const{At: At{pos}}
	}
	sp := l.Span
	if len(specs) == 1 && functionalInterface(specs[0].name.Name) && len(specs[0].methods) == 1 {
		m := specs[0].methods[0]
		// The first parameter, this, is the function itself.
		var self *syntax.Symbol
		arities := make([]*syntax.List, len(m.arities))
		for i, ar := range m.arities {
			params := ar.Items[0].(*syntax.Vector)
			first := params.Items[0]
			if s, ok := first.(*syntax.Symbol); ok && s.Ns == "" && s.Name != "_" {
				if self == nil {
					self = s
				}
				if s.Name != self.Name {
					first = s
				} else {
					first = nil
				}
			}
			body := ar.Items[1:]
			if first != nil {
				if s, ok := first.(*syntax.Symbol); !ok || s.Name != "_" {
					body = []syntax.Node{&syntax.List{Span: ar.Span, Items: append([]syntax.Node{&syntax.Symbol{Span: sp, Name: "let"},
						&syntax.Vector{Span: sp, Items: []syntax.Node{first, &syntax.Nil{Span: sp}}}}, body...)}}
				}
			}
			arities[i] = &syntax.List{Span: ar.Span, Items: append([]syntax.Node{&syntax.Vector{Span: params.Span, Items: params.Items[1:]}}, body...)}
		}
		return a.expr(fnOf(sp, &implMethod{name: m.name, arities: arities}, self), tail)
	}
	var names, entries []syntax.Node
	for _, s := range specs {
		if javaInterface(s.name.Name) {
			return a.errorf(a.pos(s.name), "invalid_form",
				"reify of %s: Java interfaces cannot be implemented here, only protocols (defprotocol) and one functional interface (Comparator, IFn, java.util.function)", s.name.Name)
		}
		names = append(names, &syntax.String{Span: s.name.Span, Value: s.name.Name})
		for _, m := range s.methods {
			entries = append(entries, &syntax.Keyword{Span: m.name.Span, Name: m.name.Name}, fnOf(sp, m, nil))
		}
	}
	call := &syntax.List{Span: sp, Items: []syntax.Node{&syntax.Symbol{Span: sp, Name: ReifyFn},
		&syntax.Vector{Span: sp, Items: names}, &syntax.Map{Span: sp, Items: entries}}}
	return a.expr(call, tail)
}

// recordMethods rewrites the implementations inside (defrecord R [fields]
// P (m [this x] body) ...) into defmethods for R whose bodies see the
// fields as locals (those the parameters do not shadow).
func (a *analyzer) recordMethods(name *syntax.Symbol, fields []*syntax.Symbol, specs []*implSpec, sp syntax.Span) ([]syntax.Node, bool) {
	var out []syntax.Node
	for _, s := range specs {
		if javaInterface(s.name.Name) {
			a.errorf(a.pos(s.name), "invalid_form",
				"defrecord %s implements %s: Java interfaces and Object's methods cannot be implemented here; a record can implement protocols (defprotocol), and it prints as the map of its fields",
				name.Name, s.name.Name)
			return nil, false
		}
		for _, m := range s.methods {
			arities := make([]*syntax.List, len(m.arities))
			for i, ar := range m.arities {
				params := ar.Items[0].(*syntax.Vector)
				self := a.gensym(sp.Start, "this")
				shadowed := map[string]bool{}
				collectSymbols(params, shadowed)
				binds := []syntax.Node{params.Items[0], self}
				for _, f := range fields {
					if !shadowed[f.Name] {
						binds = append(binds, f, &syntax.List{Span: sp, Items: []syntax.Node{
							&syntax.Keyword{Span: f.Span, Name: f.Name}, self}})
					}
				}
				newParams := &syntax.Vector{Span: params.Span, Items: append([]syntax.Node{self}, params.Items[1:]...)}
				body := &syntax.List{Span: ar.Span, Items: append([]syntax.Node{&syntax.Symbol{Span: sp, Name: "let"},
					&syntax.Vector{Span: sp, Items: binds}}, ar.Items[1:]...)}
				arities[i] = &syntax.List{Span: ar.Span, Items: []syntax.Node{newParams, body}}
			}
			out = append(out, defmethodOf(sp, &implMethod{name: m.name, arities: arities}, name))
		}
	}
	return out, true
}

// collectSymbols adds the names of the symbols in n (a parameter vector,
// with its destructuring) to into.
func collectSymbols(n syntax.Node, into map[string]bool) {
	switch x := n.(type) {
	case *syntax.Symbol:
		if x.Ns == "" {
			into[x.Name] = true
		}
	case *syntax.Vector:
		for _, it := range x.Items {
			collectSymbols(it, into)
		}
	case *syntax.Map:
		for _, it := range x.Items {
			collectSymbols(it, into)
		}
	case *syntax.List:
		for _, it := range x.Items {
			collectSymbols(it, into)
		}
	}
}
