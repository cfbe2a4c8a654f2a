package signature

import (
	"strings"

	"github.com/ptc-go/ptc/lisp"
)

// InferLimits bound Infer's walk of a value. A zero field takes its
// default.
type InferLimits struct {
	// Rows is how many elements of a list or set its element type is
	// inferred from (0: 5).
	Rows int
	// Depth bounds the nesting of the type (0: 4): a deeper map is :map,
	// a deeper list [:any].
	Depth int
	// Fields is the most keys a map may have to be a record type (0: 16);
	// a larger map is :map, its keys likely data.
	Fields int
	// Coarse makes every map :map, for a value whose keys may be secret
	// (a firewalled one). Values under fields whose names start with _
	// are coarse too.
	Coarse bool
}

// Infer returns the type of v, inferred from a bounded prefix of it (the
// first Rows elements of lists and sets, records of up to Fields keys, to
// Depth levels), so that the type of a million rows costs what the type of
// five does: at most Fields^Depth values are visited.
//
// Besides the kinds signatures declare, an inferred type uses Set (#{:t}),
// Date (:date), Inst (:inst) and Nil (:nil, the type of nil alone). The
// elements of a list or set, and the fields of records, are unified: nil
// makes a type optional, ints widen to floats, records merge their fields
// (a field one row lacks is optional), maps of other shapes are :map, and
// any other mix is :any (never written :any?).
func Infer(v lisp.Value, lim InferLimits) Type {
	if lim.Rows <= 0 {
		lim.Rows = 5
	}
	if lim.Depth <= 0 {
		lim.Depth = 4
	}
	if lim.Fields <= 0 {
		lim.Fields = 16
	}
	return lim.infer(v, 0, lim.Coarse)
}

func (lim InferLimits) infer(v lisp.Value, depth int, coarse bool) Type {
	switch x := v.(type) {
	case nil:
		return Type{Kind: Nil}
	case string:
		return Type{Kind: String}
	case int64:
		return Type{Kind: Int}
	case float64:
		return Type{Kind: Float}
	case bool:
		return Type{Kind: Bool}
	case lisp.Keyword:
		return Type{Kind: Keyword}
	case lisp.Date:
		return Type{Kind: Date}
	case lisp.Instant:
		return Type{Kind: Inst}
	case *lisp.Vector:
		items := x.Items()
		return lim.elems(List, items[:min(len(items), lim.Rows)], depth, coarse)
	case *lisp.Set:
		var first []lisp.Value
		for e := range x.All() {
			if len(first) == lim.Rows {
				break
			}
			first = append(first, e)
		}
		return lim.elems(Set, first, depth, coarse)
	case *lisp.Map:
		if coarse || depth >= lim.Depth || x.Len() > lim.Fields {
			return Type{Kind: Map}
		}
		t := Type{Kind: Record}
		for k, e := range x.All() {
			name, ok := inferredName(k)
			if !ok {
				return Type{Kind: Map}
			}
			t.Fields = append(t.Fields, Field{Name: name, Type: lim.infer(e, depth+1, strings.HasPrefix(name, "_"))})
		}
		return t
	}
	return Type{}
}

// elems returns the list or set type of items, their types unified.
func (lim InferLimits) elems(kind Kind, items []lisp.Value, depth int, coarse bool) Type {
	var t Type
	if depth < lim.Depth {
		for i, e := range items {
			if et := lim.infer(e, depth+1, coarse); i == 0 {
				t = et
			} else {
				t = lim.unify(t, et)
			}
		}
	}
	return Type{Kind: kind, Elem: &t}
}

// inferredName returns a map key as a record field name.
func inferredName(k lisp.Value) (string, bool) {
	switch k := k.(type) {
	case lisp.Keyword:
		return string(k), true
	case string:
		return k, k != ""
	}
	return "", false
}

// unify returns a type of both a and b.
func (lim InferLimits) unify(a, b Type) Type {
	switch {
	case a.Kind == Nil:
		if b.Kind == Nil {
			return a
		}
		return optional(b)
	case b.Kind == Nil:
		return optional(a)
	}
	var t Type
	switch {
	case a.Kind == b.Kind && (a.Kind == List || a.Kind == Set):
		e := lim.unify(*a.Elem, *b.Elem)
		t = Type{Kind: a.Kind, Elem: &e}
	case a.Kind == Record && b.Kind == Record:
		t = lim.mergeRecords(a, b)
	case a.Kind == b.Kind:
		t = Type{Kind: a.Kind}
	case (a.Kind == Int && b.Kind == Float) || (a.Kind == Float && b.Kind == Int):
		t = Type{Kind: Float}
	case (a.Kind == Map || a.Kind == Record) && (b.Kind == Map || b.Kind == Record):
		t = Type{Kind: Map}
	default:
		t = Type{}
	}
	if a.Optional || b.Optional {
		return optional(t)
	}
	return t
}

// optional makes t accept nil; :any and :nil already do.
func optional(t Type) Type {
	if t.Kind != Any && t.Kind != Nil {
		t.Optional = true
	}
	return t
}

func (lim InferLimits) mergeRecords(a, b Type) Type {
	fields := make([]Field, 0, len(a.Fields))
	for _, f := range a.Fields {
		if g, ok := b.Field(f.Name); ok {
			fields = append(fields, Field{Name: f.Name, Type: lim.unify(f.Type, g.Type)})
		} else {
			fields = append(fields, Field{Name: f.Name, Type: optional(f.Type)})
		}
	}
	for _, g := range b.Fields {
		if _, ok := a.Field(g.Name); !ok {
			fields = append(fields, Field{Name: g.Name, Type: optional(g.Type)})
		}
	}
	if len(fields) > lim.Fields {
		return Type{Kind: Map}
	}
	return Type{Kind: Record, Fields: fields}
}
