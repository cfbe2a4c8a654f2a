package typeinfer

import (
	"strings"

	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/signature"
)

// Limits bound Of's walk of a value. A zero field takes its
// default.
type Limits struct {
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

// Of returns the type of v, inferred from a bounded prefix of it (the
// first Rows elements of lists and sets, records of up to Fields keys, to
// Depth levels), so that the type of a million rows costs what the type of
// five does: at most Fields^Depth values are visited.
//
// Besides the kinds signatures declare, an inferred type uses
// signature.Set (#{:t}), signature.Date (:date), signature.Inst (:inst)
// and signature.Nil (:nil, the type of nil alone). The
// elements of a list or set, and the fields of records, are unified: nil
// makes a type optional, ints widen to floats, records merge their fields
// (a field one row lacks is optional), maps of other shapes are :map, and
// any other mix is :any (never written :any?).
func Of(v lisp.Value, lim Limits) signature.Type {
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

func (lim Limits) infer(v lisp.Value, depth int, coarse bool) signature.Type {
	switch x := v.(type) {
	case nil:
		return signature.Type{Kind: signature.Nil}
	case string:
		return signature.Type{Kind: signature.String}
	case int64:
		return signature.Type{Kind: signature.Int}
	case float64:
		return signature.Type{Kind: signature.Float}
	case bool:
		return signature.Type{Kind: signature.Bool}
	case lisp.Keyword:
		return signature.Type{Kind: signature.Keyword}
	case lisp.Date:
		return signature.Type{Kind: signature.Date}
	case lisp.Instant:
		return signature.Type{Kind: signature.Inst}
	case *lisp.Vector:
		items := x.Items()
		return lim.elems(signature.List, items[:min(len(items), lim.Rows)], depth, coarse)
	case *lisp.Set:
		var first []lisp.Value
		for e := range x.All() {
			if len(first) == lim.Rows {
				break
			}
			first = append(first, e)
		}
		return lim.elems(signature.Set, first, depth, coarse)
	case *lisp.Map:
		if coarse || depth >= lim.Depth || x.Len() > lim.Fields {
			return signature.Type{Kind: signature.Map}
		}
		t := signature.Type{Kind: signature.Record}
		for k, e := range x.All() {
			name, ok := inferredName(k)
			if !ok {
				return signature.Type{Kind: signature.Map}
			}
			t.Fields = append(t.Fields, signature.Field{Name: name, Type: lim.infer(e, depth+1, strings.HasPrefix(name, "_"))})
		}
		return t
	}
	return signature.Type{}
}

// elems returns the list or set type of items, their types unified.
func (lim Limits) elems(kind signature.Kind, items []lisp.Value, depth int, coarse bool) signature.Type {
	var t signature.Type
	if depth < lim.Depth {
		for i, e := range items {
			if et := lim.infer(e, depth+1, coarse); i == 0 {
				t = et
			} else {
				t = lim.unify(t, et)
			}
		}
	}
	return signature.Type{Kind: kind, Elem: &t}
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
func (lim Limits) unify(a, b signature.Type) signature.Type {
	switch {
	case a.Kind == signature.Nil:
		if b.Kind == signature.Nil {
			return a
		}
		return optional(b)
	case b.Kind == signature.Nil:
		return optional(a)
	}
	var t signature.Type
	switch {
	case a.Kind == b.Kind && (a.Kind == signature.List || a.Kind == signature.Set):
		e := lim.unify(*a.Elem, *b.Elem)
		t = signature.Type{Kind: a.Kind, Elem: &e}
	case a.Kind == signature.Record && b.Kind == signature.Record:
		t = lim.mergeRecords(a, b)
	case a.Kind == b.Kind:
		t = signature.Type{Kind: a.Kind}
	case (a.Kind == signature.Int && b.Kind == signature.Float) || (a.Kind == signature.Float && b.Kind == signature.Int):
		t = signature.Type{Kind: signature.Float}
	case (a.Kind == signature.Map || a.Kind == signature.Record) && (b.Kind == signature.Map || b.Kind == signature.Record):
		t = signature.Type{Kind: signature.Map}
	default:
		t = signature.Type{}
	}
	if a.Optional || b.Optional {
		return optional(t)
	}
	return t
}

// optional makes t accept nil; :any and :nil already do.
func optional(t signature.Type) signature.Type {
	if t.Kind != signature.Any && t.Kind != signature.Nil {
		t.Optional = true
	}
	return t
}

func (lim Limits) mergeRecords(a, b signature.Type) signature.Type {
	fields := make([]signature.Field, 0, len(a.Fields))
	for _, f := range a.Fields {
		if g, ok := b.Field(f.Name); ok {
			fields = append(fields, signature.Field{Name: f.Name, Type: lim.unify(f.Type, g.Type)})
		} else {
			fields = append(fields, signature.Field{Name: f.Name, Type: optional(f.Type)})
		}
	}
	for _, g := range b.Fields {
		if _, ok := a.Field(g.Name); !ok {
			fields = append(fields, signature.Field{Name: g.Name, Type: optional(g.Type)})
		}
	}
	if len(fields) > lim.Fields {
		return signature.Type{Kind: signature.Map}
	}
	return signature.Type{Kind: signature.Record, Fields: fields}
}
