package lisp

// Every value type prints as a REPL shows it (see Value): String is
// Print, GoString the Go type followed by the printed form in
// parentheses. The typed methods pass isNil because a nil pointer in an
// interface is not a nil interface.

// String returns the printed form, printString(m).
func (m *Map) String() string { return stringOf(m, m == nil) }

// String returns the printed form, printString(v).
func (v *Vector) String() string { return stringOf(v, v == nil) }

// String returns the printed form, printString(s).
func (s *Set) String() string { return stringOf(s, s == nil) }

// String returns the printed form, printString(c): #fn[name] or #fn[params].
func (c *Closure) String() string { return stringOf(c, c == nil) }

// String returns the printed form, printString(b): #fn[name].
func (b *Builtin) String() string { return stringOf(b, b == nil) }

// String returns the printed form, printString(v): #'name.
func (v *Var) String() string { return stringOf(v, v == nil) }

// String returns the printed form, printString(r): #"pattern".
func (r *Regex) String() string { return stringOf(r, r == nil) }

// String returns the printed form, printString(s): #seq[name].
func (s *Seq) String() string { return stringOf(s, s == nil) }

// String returns the printed form, printString(x): #error {:cause ...}.
func (x *Exception) String() string { return stringOf(x, x == nil) }

// String returns the printed form, printString(c): #atom[value],
// #volatile[value] or #transient[coll], with what the cell holds now.
func (c *Cell) String() string { return stringOf(c, c == nil) }

// String returns the printed form, #inst "2024-01-02T03:04:05.000-00:00".
// (str and ToJSON give the RFC 3339 text; i.T is the time itself.)
func (i Instant) String() string { return printString(i) }

// String returns the printed form, #date "2024-01-02". (str, ToGo and
// ToJSON give the ISO 8601 text, 2024-01-02.)
func (d Date) String() string { return printString(d) }

// GoString, for %#v, returns (*lisp.Map)({:a 1}): the type, then the
// printed form in parentheses.
func (m *Map) GoString() string { return goStringOf("(*lisp.Map)", m, m == nil) }

// GoString, for %#v, returns (*lisp.Vector)([1 2]).
func (v *Vector) GoString() string { return goStringOf("(*lisp.Vector)", v, v == nil) }

// GoString, for %#v, returns (*lisp.Set)(#{1 2}).
func (s *Set) GoString() string { return goStringOf("(*lisp.Set)", s, s == nil) }

// GoString, for %#v, returns (*lisp.Closure)(#fn[name]).
func (c *Closure) GoString() string { return goStringOf("(*lisp.Closure)", c, c == nil) }

// GoString, for %#v, returns (*lisp.Builtin)(#fn[name]).
func (b *Builtin) GoString() string { return goStringOf("(*lisp.Builtin)", b, b == nil) }

// GoString, for %#v, returns (*lisp.Var)(#'name).
func (v *Var) GoString() string { return goStringOf("(*lisp.Var)", v, v == nil) }

// GoString, for %#v, returns (*lisp.Regex)(#"pattern").
func (r *Regex) GoString() string { return goStringOf("(*lisp.Regex)", r, r == nil) }

// GoString, for %#v, returns (*lisp.Seq)(#seq[name]).
func (s *Seq) GoString() string { return goStringOf("(*lisp.Seq)", s, s == nil) }

// GoString, for %#v, returns (*lisp.Exception)(#error {:cause ...}).
func (x *Exception) GoString() string { return goStringOf("(*lisp.Exception)", x, x == nil) }

// GoString, for %#v, returns (*lisp.Cell)(#atom[1]).
func (c *Cell) GoString() string { return goStringOf("(*lisp.Cell)", c, c == nil) }

// GoString, for %#v, returns lisp.Keyword(:name).
func (k Keyword) GoString() string { return goStringOf("lisp.Keyword", k, false) }

// GoString, for %#v, returns lisp.Instant(#inst "...").
func (i Instant) GoString() string { return goStringOf("lisp.Instant", i, false) }

// GoString, for %#v, returns lisp.Date(#date "2024-01-02").
func (d Date) GoString() string { return goStringOf("lisp.Date", d, false) }

// stringOf prints v, or nil for a nil pointer.
func stringOf(v Value, isNil bool) string {
	if isNil {
		return "nil"
	}
	return printString(v)
}

// goStringOf is the %#v form: as fmt shows a pointer, (*lisp.Map)(0xc000…),
// with the printed form in place of the address.
func goStringOf(typ string, v Value, isNil bool) string {
	return typ + "(" + stringOf(v, isNil) + ")"
}
