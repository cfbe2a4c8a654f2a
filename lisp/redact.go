package lisp

// Redaction hides values when they are printed for an audience that must
// not see them (an LLM, behind an agent's firewall). It applies to the
// output of println, print, prn, pr and printf (Options.Redact), to
// Print (PrintOptions.Redact) and to ToJSON; never to str,
// pr-str and the other functions that build values, whose results the
// program computes with.
type Redaction struct {
	// Placeholder is printed instead of a hidden value.
	Placeholder string
	// Value, when set, hides the values it reports: collections, cells,
	// strings and the other scalars but nil and booleans.
	Value func(Value) bool
	// Key, when set, hides the value of every map entry whose key it
	// reports (the key itself is shown).
	Key func(key Value) bool
	// Member, when set, hides an element by its place: the value under key
	// in the map coll, or at index key (an int64) in the vector coll. Print
	// and ToJSON apply it (an agent hides what was computed from secrets).
	Member func(coll, key Value) bool
	// Text, when set, rewrites strings (and map keys) as they print; another
	// scalar whose printed form it changes prints as Placeholder, whole. It
	// may grow a text by a bounded amount only (a placeholder per secret).
	Text func(string) string
}

// hidesValue reports whether v prints as the placeholder.
func (r *Redaction) hidesValue(v Value) bool {
	if r == nil {
		return false
	}
	switch v.(type) {
	case *Vector, *Map, *Set, string:
		return r.Value != nil && r.Value(v)
	case *Exception:
		// Printed part by part: its message as text, its data as a map.
		return false
	case *Cell:
		// A cell hidden as a whole hides whatever it holds, now or later;
		// otherwise what it holds is printed, and judged, on its own.
		return r.Value != nil && r.Value(v)
	case nil, bool:
		return false
	}
	if r.Value != nil && r.Value(v) {
		return true
	}
	return r.hidesAtom(v)
}

// hidesAtom reports whether Text changes the printed form of the scalar v
// (not a string, not a collection).
func (r *Redaction) hidesAtom(v Value) bool {
	if r.Text == nil {
		return false
	}
	s := printString(v)
	return r.Text(s) != s
}

// text is s as Text rewrites it.
func (r *Redaction) text(s string) string {
	if r == nil || r.Text == nil {
		return s
	}
	return r.Text(s)
}

func (r *Redaction) hidesKey(k Value) bool {
	return r != nil && r.Key != nil && r.Key(k)
}

// hidesEntry reports whether the value under k in the map m prints as the
// placeholder: a hidden key's, or a hidden member's.
func (r *Redaction) hidesEntry(m *Map, k Value) bool {
	return r != nil && (r.Key != nil && r.Key(k) || r.Member != nil && r.Member(m, k))
}

// hidesElement reports whether the element at index i of the vector v
// prints as the placeholder.
func (r *Redaction) hidesElement(v *Vector, i int) bool {
	return r != nil && r.Member != nil && r.Member(v, int64(i))
}
