package lisp

import (
	"github.com/ptc-go/ptc/lisp/internal/analyze"
)

// pattern compiles a destructuring pattern.
func (c *compiler) pattern(p analyze.Pattern) bindFn {
	switch p := p.(type) {
	case *analyze.BindSlot:
		slot := p.Slot
		return func(fr *frame, v Value) error {
			fr.slots[slot] = v
			return nil
		}
	case *analyze.BindVector:
		return c.vectorPattern(p)
	case *analyze.BindMap:
		return c.mapPattern(p)
	}
	c.errorf(posT{}, InternalError, "unknown pattern %T", p)
	return func(*frame, Value) error { return nil }
}

func (c *compiler) vectorPattern(p *analyze.BindVector) bindFn {
	items := make([]bindFn, len(p.Items))
	for i, it := range p.Items {
		items[i] = c.pattern(it)
	}
	var rest bindFn
	if p.Rest != nil {
		rest = c.pattern(p.Rest)
	}
	as, pos := p.As, c.pos(p.Off)
	return func(fr *frame, v Value) error {
		var elems []Value
		var lazyRest Value // the rest of an infinite sequence, lazily
		switch x := v.(type) {
		case nil:
		case *Vector:
			elems = x.items
		case string:
			if rest == nil {
				// Only the first characters are bound: walk to them, do
				// not split the whole string.
				elems = make([]Value, 0, len(items))
				for i := 0; i < len(x) && len(elems) < len(items); {
					n := graphemeLen(x[i:])
					elems = append(elems, x[i:i+n])
					i += n
				}
				if err := fr.th.ticks(len(elems)); err != nil {
					return at(err, pos)
				}
				break
			}
			// The rest is a vector of the characters: charged as items
			// charges them (a slot and a boxed string each, at most two
			// slots a byte), before they are split.
			if err := fr.th.charge(2 * int64(len(x))); err != nil {
				return at(err, pos)
			}
			elems = graphemes(x)
			if err := fr.th.ticks(len(elems)); err != nil {
				return at(err, pos)
			}
		case *Seq:
			var err error
			need := len(items)
			if rest != nil && !x.finite {
				// [x & xs] over (cycle ...), (range) ...: xs is the rest,
				// as lazy as the sequence, as Clojure's nthnext.
				lazyRest = dropSeq(x, len(items))
			} else if rest != nil {
				need = -1
			}
			if elems, err = fr.th.realize(x, need, "destructuring"); err != nil {
				return at(err, pos)
			}
		case *Cell:
			// A Java array, a StringBuilder's characters or a java.util
			// collection, as nth sees them.
			if x.kind != arrayCell && x.kind != builderCell && x.kind != utilCell {
				return &Error{Kind: DestructureError, Pos: pos.resolve(),
					Message: "a vector pattern [a b ...] needs a vector, got " + describe(v) + vectorPatternHint(v)}
			}
			var err error
			if elems, err = fr.th.items(x, "destructuring"); err != nil {
				return at(err, pos)
			}
		case *Map, *Set:
			if rest == nil {
				// nth of a map or set: Clojure's UnsupportedOperationException.
				return &Error{Kind: DestructureError, Pos: pos.resolve(),
					Message: "a vector pattern [a b ...] needs a vector, got " + describe(v) + vectorPatternHint(v)}
			}
			// With & Clojure walks (seq v): entries, or elements.
			var err error
			if elems, err = fr.th.items(x, "destructuring"); err != nil {
				return at(err, pos)
			}
		default:
			return &Error{Kind: DestructureError, Pos: pos.resolve(),
				Message: "a vector pattern [a b ...] needs a vector, got " + describe(v) + vectorPatternHint(v)}
		}
		for i, b := range items {
			var e Value
			if i < len(elems) {
				e = elems[i]
			}
			if err := b(fr, e); err != nil {
				return err
			}
		}
		if rest != nil {
			// The rest is a seq, as Clojure's nthnext gives it (a list's
			// rest a list): seq? true, and keyword arguments to a map
			// pattern, [a & {:keys [b]}].
			var r Value = lazyRest
			if lazyRest == nil && len(elems) > len(items) {
				if vec, ok := v.(*Vector); ok {
					if vec.IsList() {
						r = vec.Slice(len(items), len(elems))
					} else {
						r = &Vector{items: vec.items[len(items):len(elems):len(elems)], claim: seqMark}
					}
				} else {
					// elems is fresh (the characters of a string) and charged.
					r = newSeqView(elems[len(items):len(elems):len(elems)])
				}
			}
			if err := rest(fr, r); err != nil {
				return err
			}
		}
		if as >= 0 {
			fr.slots[as] = v
		}
		return nil
	}
}

// keywordArgs is the map a seq of keyword arguments stands for, as
// Clojure 1.11 makes it for a map pattern: key value pairs, then a
// trailing map's entries ((f :a 1 {:b 2}) and (f {:a 1})); an empty seq is
// the empty map and a single element that is not a map finds nothing.
// as is what :as names: the map, or that single element. Charged two
// slots and a step an entry.
func keywordArgs(th *thread, x *Vector) (m *Map, as Value, err error) {
	items := x.items
	switch {
	case len(items) == 0:
		return emptyMap, emptyMap, nil
	case len(items) == 1:
		if m, ok := items[0].(*Map); ok {
			return m, m, nil
		}
		return emptyMap, items[0], nil
	}
	var tail *Map
	if len(items)%2 == 1 {
		m, ok := items[len(items)-1].(*Map)
		if !ok {
			return nil, nil, errorf(InvalidArgument, "no value supplied for key: %s", printString(items[len(items)-1]))
		}
		tail, items = m, items[:len(items)-1]
	}
	if err := th.charge(int64(len(items))); err != nil {
		return nil, nil, err
	}
	if err := th.ticks(len(items) / 2); err != nil {
		return nil, nil, err
	}
	m = NewMap(items...)
	if tail != nil {
		merged, err := mergeMaps(th, "destructure", nil, []Value{m, tail})
		if err != nil {
			return nil, nil, err
		}
		m = merged.(*Map)
	}
	return m, m, nil
}

func vectorPatternHint(v Value) string {
	if _, ok := v.(*Map); ok {
		return " (to destructure a map use {:keys [a b]}; to walk its entries use (seq m))"
	}
	return ""
}

func (c *compiler) mapPattern(p *analyze.BindMap) bindFn {
	type key struct {
		key  *flexKey
		bind bindFn
		slot int
		def  evalFn
	}
	keys := make([]key, len(p.Keys))
	for i, k := range p.Keys {
		if k.Literal {
			keys[i].key = c.flexKey(k.Value)
		} else if k.Symbol {
			keys[i].key = c.flexKey(parseSymbol(k.Key))
		} else if k.Keyword {
			keys[i].key = c.flexKey(Keyword(k.Key))
		} else {
			keys[i].key = c.flexKey(k.Key)
		}
		keys[i].slot = -1
		if s, ok := k.Pattern.(*analyze.BindSlot); ok {
			keys[i].slot = s.Slot
		} else {
			keys[i].bind = c.pattern(k.Pattern)
		}
		if k.Default != nil {
			keys[i].def = c.expr(k.Default)
		}
	}
	as, pos := p.As, c.pos(p.Off)
	return func(fr *frame, v Value) error {
		var m *Map
		var byIndex *Vector
		switch x := v.(type) {
		case nil:
			m = emptyMap
		case *Map:
			m = x
		case *Vector:
			if !x.IsList() && !x.IsSeqView() {
				// A vector is looked up by index, as get does: (let [{a 0}
				// [:x]] a) is :x, and a keyword key finds nothing.
				byIndex, m = x, emptyMap
				break
			}
			var err error
			if m, v, err = keywordArgs(fr.th, x); err != nil {
				return at(err, pos)
			}
		default:
			return &Error{Kind: DestructureError, Pos: pos.resolve(), Message: "a map pattern {:keys [...]} needs a map, got " + describe(v)}
		}
		if as >= 0 {
			fr.slots[as] = v // bound first: defaults may refer to it
		}
		for i := range keys {
			k := &keys[i]
			val, ok := m.lookupFlex(k.key)
			if byIndex != nil {
				val, ok = nil, false
				if i, isInt := k.key.primary.(int64); isInt && i >= 0 && i < int64(len(byIndex.items)) {
					val, ok = byIndex.items[i], true
				}
			}
			if !ok && k.def != nil {
				var err error
				if val, err = k.def(fr); err != nil {
					return err
				}
			}
			if k.slot >= 0 {
				fr.slots[k.slot] = val
			} else if err := k.bind(fr, val); err != nil {
				return err
			}
		}
		return nil
	}
}
