package syntax

import (
	"math/big"
	"time"
)

// Node is a form read from source. Every implementation is a pointer to one
// of the structs below, each of which embeds a Span (byte offsets: Lines
// gives their line and column).
type Node interface {
	Bounds() Span
	node()
}

// Nil is the literal nil.
type Nil struct{ Span }

// Bool is the literal true or false.
type Bool struct {
	Span
	Value bool
}

// Int is an integer literal (decimal or hex, optional N suffix).
type Int struct {
	Span
	Value int64
}

// BigInt is an integer literal with the N suffix (1N), or one past 64
// bits: Clojure's BigInt. Value is never changed.
type BigInt struct {
	Span
	Value *big.Int
}

// Decimal is a literal with the M suffix (1.50M, 10M, 1e3M): Clojure's
// BigDecimal. Text is its number without the M (1.50, 10, 1e3), which
// the runtime reads exactly.
type Decimal struct {
	Span
	Text string
}

// Float is a floating-point literal, including ##Inf, ##-Inf and ##NaN.
type Float struct {
	Span
	Value float64
}

// String is a string literal or, when Char is set, a character literal such
// as \a, whose Value is the one-character (one grapheme) string.
type String struct {
	Span
	Value string
	Char  bool
}

// Keyword is :name; Name excludes the colon and may contain '/' and '.'.
type Keyword struct {
	Span
	Name string
}

// Symbol is a name, optionally namespaced: "str/join" has Ns "str" and Name
// "join"; Ns never contains '/'.
type Symbol struct {
	Span
	Ns, Name string
}

// List is ( ... ).
type List struct {
	Span
	Items []Node
}

// Vector is [ ... ].
type Vector struct {
	Span
	Items []Node
}

// Map is { ... }: Items alternate key, value. The count is even whenever
// Read reports no error.
type Map struct {
	Span
	Items []Node
}

// Set is #{ ... }. The reader keeps duplicates; deciding what they mean is
// left to later stages.
type Set struct {
	Span
	Items []Node
}

// ShortFn is #( ... ). The % parameters are ordinary symbols here; the
// analyzer expands them.
type ShortFn struct {
	Span
	Items []Node
}

// Quote is 'form.
type Quote struct {
	Span
	Form Node
}

// Deref is @form, which reads as (clojure.core/deref form) in Clojure.
type Deref struct {
	Span
	Form Node
}

// SyntaxQuote is `form, a template a macro fills in: the analyzer
// expands it into the calls that build the form, with ~x and ~@xs
// (Unquote and UnquoteSplicing) evaluated in place.
type SyntaxQuote struct {
	Span
	Form Node
}

// Unquote is ~form, meaningful only inside a SyntaxQuote.
type Unquote struct {
	Span
	Form Node
}

// UnquoteSplicing is ~@form, meaningful only inside a SyntaxQuote.
type UnquoteSplicing struct {
	Span
	Form Node
}

// VarQuote is #'sym.
type VarQuote struct {
	Span
	Sym *Symbol
}

// Regex is #"...". Pattern is the source text between the quotes, without
// escape processing (a backslash always stays with the character after it).
type Regex struct {
	Span
	Pattern string
}

// Inst is #inst "…", an instant: Text as written, Time what it names (in
// UTC, to the millisecond; see ParseInst).
type Inst struct {
	Span
	Text string
	Time time.Time
}

// UUID is #uuid "…": Value is its canonical text (see CanonicalUUID).
type UUID struct {
	Span
	Value string
}

func (*Nil) node()             {}
func (*Bool) node()            {}
func (*Int) node()             {}
func (*BigInt) node()          {}
func (*Decimal) node()         {}
func (*Float) node()           {}
func (*String) node()          {}
func (*Keyword) node()         {}
func (*Symbol) node()          {}
func (*List) node()            {}
func (*Vector) node()          {}
func (*Map) node()             {}
func (*Set) node()             {}
func (*ShortFn) node()         {}
func (*Quote) node()           {}
func (*Deref) node()           {}
func (*VarQuote) node()        {}
func (*SyntaxQuote) node()     {}
func (*Unquote) node()         {}
func (*UnquoteSplicing) node() {}
func (*Regex) node()           {}
func (*Inst) node()            {}
func (*UUID) node()            {}
