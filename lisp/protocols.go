package lisp

import (
	"strings"

	"github.com/ptc-go/ptc/lisp/internal/analyze"
)

// Records with a type, protocols and reify, as Clojure has them
// (analyze/forms.go rewrites defrecord, defprotocol, extend-type,
// extend-protocol and reify into calls of the functions below).
//
// A record is a map (every function takes it, it prints and compares as
// the map of its fields) that also carries its type: the map's vals hold
// the record's *recordType where a sorted-map holds its mark (map.go), so
// a record costs no more than any map. assoc, merge, into and conj keep the
// type; dissoc of a field drops it, as in Clojure; record?, type, class
// and instance? see it, and so does a protocol's dispatch.
//
// A protocol method is a multimethod (multi.go) whose dispatch value is
// the class of its first argument (a record's type for a record) and whose
// methods are the implementations extend-type, extend-protocol and
// defrecord add, by class: the method of the most specific class that the
// argument is an instance of wins (Long before Number before Object), nil
// only by an implementation for nil. A reify is a map of its methods'
// functions that the protocol method calls directly.

// recordType is the type of a record's map, or of a reify's.
type recordType struct {
	class  Class   // user.Name (the namespace of every program is user)
	fields *Vector // the fields' keywords, in their order; nil for a reify
	// reify lists the protocols a reify implements (nil for a record).
	reify []string
}

// isField reports whether k is one of the record's fields.
func (rt *recordType) isField(k Value) bool {
	if rt.fields == nil {
		return false
	}
	for _, f := range rt.fields.Items() {
		if f == k {
			return true
		}
	}
	return false
}

// holdsFields reports whether m has every field of the record's type.
func (rt *recordType) holdsFields(m *Map) bool {
	if rt.fields == nil {
		return false
	}
	for _, f := range rt.fields.Items() {
		if _, ok := m.getExact(f); !ok {
			return false
		}
	}
	return true
}

// recordNamespace is the namespace of the classes defrecord makes.
const recordNamespace = "user."

// isRecordClass reports whether c is a class made by defrecord or reify:
// its instances are maps, as Clojure's records are.
func isRecordClass(c Class) bool {
	return strings.HasPrefix(c.Name, recordNamespace) && classIndex()[c.Name] == nil
}

// recordClassIsa reports whether a record's class c implements parent:
// what a map of Clojure implements, and clojure.lang.IRecord.
func recordClassIsa(c, parent Class) bool {
	if c == parent || parent.Name == "java.lang.Object" || parent.Name == "clojure.lang.IRecord" {
		return true
	}
	return classIndex()["clojure.lang.PersistentArrayMap"].all[parent.Name]
}

// protocolKey is the dispatch value of a protocol method for x: a
// record's type, the class of anything else, nil for nil.
func protocolKey(x Value) Value {
	if m, ok := x.(*Map); ok {
		if rt := m.recordType(); rt != nil {
			return rt.class
		}
	}
	if c, ok := classOf(x); ok {
		return c
	}
	return nil
}

// noDefault is a protocol method's default dispatch value: a protocol has
// no :default (an implementation for Object serves every class).
var noDefault = Keyword(" no-default")

// reifyMethod returns the function a reify x holds for the method name.
func reifyMethod(x Value, name string) (Value, bool) {
	m, ok := x.(*Map)
	if !ok {
		return nil, false
	}
	if rt := m.recordType(); rt == nil || rt.reify == nil {
		return nil, false
	}
	return m.getExact(Keyword(name))
}

// protocolMethods returns the names of protocol p's methods.
func protocolMethods(fn string, a []Value, i int) ([]string, string, error) {
	p, ok := a[i].(*Map)
	if ok {
		name, _ := p.getExact(Keyword("name"))
		methods, _ := p.getExact(Keyword("methods"))
		if n, ok := name.(Symbol); ok {
			if v, ok := methods.(*Vector); ok {
				out := make([]string, 0, v.Len())
				for _, m := range v.Items() {
					if s, ok := m.(Symbol); ok {
						out = append(out, s.Name)
					}
				}
				return out, n.Name, nil
			}
		}
	}
	return nil, "", argError(fn, i, "a protocol (from defprotocol)", a[i])
}

// implements reports whether the protocol with these methods has an
// implementation for the dispatch value key (or x is a reify of it).
func (th *thread) implements(protocol string, methods []string, key Value, x Value) (bool, error) {
	if m, ok := x.(*Map); ok {
		if rt := m.recordType(); rt != nil && rt.reify != nil {
			for _, p := range rt.reify {
				if p == protocol {
					return true, nil
				}
			}
		}
	}
	if len(methods) == 0 {
		return false, nil
	}
	v, ok := th.globals.lookup(methods[0])
	if !ok {
		return false, nil
	}
	b, ok := v.(*Builtin)
	if !ok || b.multi == nil {
		return false, nil
	}
	f, err := th.findMethod(b.multi, key)
	return f != nil, err
}

func registerProtocols(t *builtinTable) {
	t.set(analyze.RecordClassFn, &Builtin{Name: "defrecord", MinArgs: 1, MaxArgs: 1, fn: func(_ *thread, a []Value) (Value, error) {
		name, _ := a[0].(string)
		return Class{Name: recordNamespace + name}, nil
	}})
	t.set(analyze.RecordFn, &Builtin{Name: "defrecord", MinArgs: 3, MaxArgs: 3, fn: func(th *thread, a []Value) (Value, error) {
		// a: the class, the fields' keywords, the map of the fields.
		c, _ := a[0].(Class)
		fields, _ := a[1].(*Vector)
		m, ok := a[2].(*Map)
		if !ok {
			if a[2] != nil {
				return nil, argError("map->"+c.Name[len(recordNamespace):], 0, "a map", a[2])
			}
			m = emptyMap
		}
		if err := th.charge(4); err != nil {
			return nil, err
		}
		kinds := m.kinds
		if m.rec != nil {
			kinds = m.rec.kinds
		}
		return &Map{t: m.tree(), vals: []Value{&recordType{class: c, fields: fields}}, kinds: kinds}, nil
	}})
	t.set(analyze.ReifyFn, &Builtin{Name: "reify", MinArgs: 2, MaxArgs: 2, fn: func(th *thread, a []Value) (Value, error) {
		// a: the protocols' names, the map of the methods' functions.
		names, _ := a[0].(*Vector)
		m, _ := a[1].(*Map)
		if names == nil || m == nil {
			return nil, errorf(InternalError, "reify: malformed")
		}
		var protocols []string
		for _, n := range names.Items() {
			s, _ := n.(string)
			protocols = append(protocols, s)
		}
		if err := th.charge(int64(4 + len(protocols))); err != nil {
			return nil, err
		}
		kinds := m.kinds
		if m.rec != nil {
			kinds = m.rec.kinds
		}
		rt := &recordType{class: Class{Name: recordNamespace + "reify"}, reify: protocols}
		return &Map{t: m.tree(), vals: []Value{rt}, kinds: kinds}, nil
	}})
	t.set(analyze.DefprotocolFn, &Builtin{Name: "defprotocol", MinArgs: 2, MaxArgs: 2, fn: func(th *thread, a []Value) (Value, error) {
		// a: the protocol's name, its methods' names (symbols).
		if err := th.charge(8); err != nil {
			return nil, err
		}
		name, _ := a[0].(string)
		return NewMap(Keyword("name"), Symbol{Name: name}, Keyword("methods"), a[1]), nil
	}})
	t.set(analyze.ProtocolFnFn, &Builtin{Name: "defprotocol", MinArgs: 2, MaxArgs: 2, fn: func(th *thread, a []Value) (Value, error) {
		// a: the method's name, the protocol's name.
		name, _ := a[0].(string)
		protocol, _ := a[1].(string)
		if err := th.charge(8); err != nil {
			return nil, err
		}
		dispatch := &Builtin{Name: name, MinArgs: 1, MaxArgs: -1, fn: func(_ *thread, a []Value) (Value, error) {
			return protocolKey(a[0]), nil
		}}
		return newMultiFn(&multiFn{name: name, protocol: protocol, dispatch: dispatch, dflt: noDefault, methods: emptyMapBuilder().Map()}), nil
	}})
	t.add("record?", 1, 1, func(_ *thread, a []Value) (Value, error) {
		m, ok := a[0].(*Map)
		if !ok {
			return false, nil
		}
		rt := m.recordType()
		return rt != nil && rt.reify == nil, nil
	})
	t.add("satisfies?", 2, 2, func(th *thread, a []Value) (Value, error) {
		methods, name, err := protocolMethods("satisfies?", a, 0)
		if err != nil {
			return nil, err
		}
		return th.implements(name, methods, protocolKey(a[1]), a[1])
	})
	t.add("extends?", 2, 2, func(th *thread, a []Value) (Value, error) {
		methods, name, err := protocolMethods("extends?", a, 0)
		if err != nil {
			return nil, err
		}
		if a[1] != nil {
			if _, ok := a[1].(Class); !ok {
				return nil, argError("extends?", 1, "a class", a[1])
			}
		}
		return th.implements(name, methods, a[1], nil)
	})
}
