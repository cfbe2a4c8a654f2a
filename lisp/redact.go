package lisp

// Redaction hides values when they are printed for an audience that must
// not see them (an LLM, behind an agent's firewall). It applies to the
// output of println, print, prn, pr and printf (Options.Redact) and to
// FormatValue (PrintOptions.Redact); never to str, pr-str and the other
// functions that build values, whose results the program computes with.
type Redaction struct {
	// Placeholder is printed instead of a hidden value.
	Placeholder string
	// Value, when set, hides the collections and strings it reports.
	Value func(Value) bool
	// Key, when set, hides the value of every map entry whose key it
	// reports (the key itself is shown).
	Key func(key Value) bool
}

// hidesValue reports whether v prints as the placeholder.
func (r *Redaction) hidesValue(v Value) bool {
	if r == nil || r.Value == nil {
		return false
	}
	switch v.(type) {
	case *Vector, *Map, *Set, string:
		return r.Value(v)
	}
	return false
}

func (r *Redaction) hidesKey(k Value) bool {
	return r != nil && r.Key != nil && r.Key(k)
}
