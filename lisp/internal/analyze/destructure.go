package analyze

import (
	"github.com/ptc-go/ptc/lisp/syntax"
)

// pattern analyzes a binding form and declares the names it binds.
//
//	x                          a symbol binds the whole value
//	[a [b c] & more :as all]   sequential destructuring
//	{:keys [a b] :strs [c] :syms [d] :or {a 1} :as m, local :key}   map destructuring
func (a *analyzer) pattern(n syntax.Node) Pattern {
	// A plain name, the most frequent pattern, is bound here.
	if s, ok := n.(*syntax.Symbol); ok && s.Ns == "" && s.Name != "&" && a.depth < a.cfg.MaxDepth {
		// declare, written out: a call less for most of the names bound.
		f := a.fn
		slot := f.next
		f.next++
		if f.next > f.max {
			f.max = f.next
		}
		a.bindFP(f, s.Name, fingerprint(s.Name), slot)
		p := a.bindSlots.take()
		if p == nil {
			p = a.bindSlots.grow()
		}
		p.Name, p.Slot = s.Name, slot
		return p
	}
	a.depth++
	if a.depth > a.cfg.MaxDepth {
		a.errorf(a.pos(n), "invalid_form", "binding pattern nesting too deep")
		panic(bailout{})
	}
	p := a.pattern1(n)
	a.depth--
	return p
}

func (a *analyzer) pattern1(n syntax.Node) Pattern {
	switch n := n.(type) {
	case *syntax.Symbol:
		if n.Ns != "" {
			a.errorf(a.pos(n), "invalid_form", "cannot bind the qualified name %s: use a plain name", symText(n))
			return &BindSlot{Slot: a.temp()}
		}
		if n.Name == "&" {
			a.errorf(a.pos(n), "invalid_form", "& must be followed by exactly one name, inside a vector pattern")
			return &BindSlot{Slot: a.temp()}
		}
		return a.bindSlots.new(BindSlot{Name: n.Name, Slot: a.declare(n.Name)})
	case *syntax.Vector:
		return a.vectorPattern(n)
	case *syntax.Map:
		return a.mapPattern(n)
	}
	a.errorf(a.pos(n), "invalid_form",
		"cannot bind to %s: a binding is a name, a vector pattern [a b] or a map pattern {:keys [a b]}", syntax.Format(n))
	return &BindSlot{Slot: a.temp()}
}

func (a *analyzer) vectorPattern(v *syntax.Vector) Pattern {
	p := &BindVector{At: At{a.pos(v)}, As: -1}
	items := v.Items
	for i := 0; i < len(items); i++ {
		if s, ok := items[i].(*syntax.Symbol); ok && s.Ns == "" && s.Name == "&" {
			if i+1 >= len(items) {
				a.errorf(a.pos(s), "invalid_form", "& must be followed by a name in a vector pattern")
				return p
			}
			if p.Rest != nil {
				a.errorf(a.pos(s), "invalid_form", "a vector pattern can have only one &")
				return p
			}
			p.Rest = a.pattern(items[i+1])
			i++
			continue
		}
		if kw, ok := items[i].(*syntax.Keyword); ok && kw.Name == "as" {
			if i+2 != len(items) {
				a.errorf(a.pos(kw), "invalid_form", ":as must be followed by one name at the end of a vector pattern")
				return p
			}
			s, ok := items[i+1].(*syntax.Symbol)
			if !ok || s.Ns != "" {
				a.errorf(a.pos(items[i+1]), "invalid_form", ":as must be followed by a name")
				return p
			}
			p.As = int32(a.declare(s.Name))
			break
		}
		if p.Rest != nil {
			a.errorf(a.pos(items[i]), "invalid_form", "only :as may follow the & name in a vector pattern")
			return p
		}
		p.Items = append(p.Items, a.pattern(items[i]))
	}
	return p
}

func (a *analyzer) mapPattern(m *syntax.Map) Pattern {
	p := &BindMap{At: At{a.pos(m)}, As: -1}
	defaults := map[string]syntax.Node{}
	var asSym *syntax.Symbol
	// First pass: collect :or and :as so that defaults attach to their keys.
	for i := 0; i+1 < len(m.Items); i += 2 {
		kw, ok := m.Items[i].(*syntax.Keyword)
		if !ok {
			continue
		}
		switch kw.Name {
		case "or":
			om, ok := m.Items[i+1].(*syntax.Map)
			if !ok {
				a.errorf(a.pos(m.Items[i+1]), "invalid_form", ":or must be followed by a map of defaults, e.g. :or {a 0}")
				continue
			}
			for j := 0; j+1 < len(om.Items); j += 2 {
				s, ok := om.Items[j].(*syntax.Symbol)
				if !ok || s.Ns != "" {
					a.errorf(a.pos(om.Items[j]), "invalid_form", ":or keys must be the bound names, got %s", syntax.Format(om.Items[j]))
					continue
				}
				defaults[s.Name] = om.Items[j+1]
			}
		case "as":
			s, ok := m.Items[i+1].(*syntax.Symbol)
			if !ok || s.Ns != "" {
				a.errorf(a.pos(m.Items[i+1]), "invalid_form", ":as must be followed by a name")
				continue
			}
			asSym = s
		}
	}
	// As in Clojure, :as is bound first, then the keys in order; a key's
	// default is analyzed just before its name is bound, so it sees :as and
	// the keys before it (and the enclosing scope).
	if asSym != nil {
		p.As = int32(a.declare(asSym.Name))
	}
	defaultFor := func(name string) Expr {
		if d, ok := defaults[name]; ok {
			return a.expr(d, false)
		}
		return nil
	}
	for i := 0; i+1 < len(m.Items); i += 2 {
		k, v := m.Items[i], m.Items[i+1]
		if kw, ok := k.(*syntax.Keyword); ok {
			// {:person/keys [name]} (and ::keys, read as :user/keys) binds
			// name from :person/name; :ns/syms likewise from the symbol.
			directive, ns := kw.Name, ""
			if j := lastSlash(directive); j > 0 && (directive[j+1:] == "keys" || directive[j+1:] == "syms") {
				directive, ns = directive[j+1:], directive[:j]
			}
			switch directive {
			case "or", "as":
				continue
			case "keys", "strs", "syms":
				vec, ok := v.(*syntax.Vector)
				if !ok {
					a.errorf(a.pos(v), "invalid_form", ":%s must be followed by a vector of names, e.g. :%s [a b]", kw.Name, kw.Name)
					continue
				}
				for _, it := range vec.Items {
					var name, key string
					switch s := it.(type) {
					case *syntax.Symbol:
						// {:keys [a/b]} binds b from the key :a/b.
						name, key = s.Name, symText(s)
						if ns != "" && s.Ns == "" {
							key = ns + "/" + s.Name
						}
					case *syntax.Keyword:
						name, key = s.Name, s.Name
						if j := lastSlash(name); j >= 0 {
							name = name[j+1:]
						}
					case *syntax.String:
						name, key = s.Value, s.Value
					default:
						a.errorf(a.pos(it), "invalid_form", ":%s lists names, got %s", kw.Name, syntax.Format(it))
						continue
					}
					def := defaultFor(name)
					p.Keys = append(p.Keys, MapKey{Key: key, Keyword: directive == "keys", Symbol: directive == "syms",
						Pattern: &BindSlot{Name: name, Slot: a.declare(name)}, Default: def})
				}
				continue
			}
		}
		// {local key} rename: the key is a keyword, a string or another
		// literal ({v 1} looks up the key 1, as in Clojure).
		mk := MapKey{}
		switch key := v.(type) {
		case *syntax.Keyword:
			mk.Key, mk.Keyword = key.Name, true
		case *syntax.String:
			mk.Key = key.Value
		case *syntax.Int:
			mk.Literal, mk.Value = true, key.Value
		case *syntax.Float:
			mk.Literal, mk.Value = true, key.Value
		case *syntax.Bool:
			mk.Literal, mk.Value = true, key.Value
		case *syntax.Nil:
			mk.Literal = true
		default:
			a.errorf(a.pos(v), "invalid_form", "map pattern keys must be keywords, strings or other literals, e.g. {the-name :name}, got %s", syntax.Format(v))
			continue
		}
		if s, ok := k.(*syntax.Symbol); ok {
			mk.Default = defaultFor(s.Name)
		}
		mk.Pattern = a.pattern(k)
		p.Keys = append(p.Keys, mk)
	}
	return p
}

func lastSlash(s string) int {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == '/' {
			return i
		}
	}
	return -1
}
