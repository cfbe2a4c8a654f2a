package lisp

import (
	"math"
	"math/big"
	"regexp"
	"strconv"
	"sync"

	"github.com/ptc-go/ptc/lisp/internal/backtrack"
)

// Value is a PTC-Lisp value. Its dynamic type is always one of:
//
//	nil                  nil
//	bool                 true, false
//	int64                integers (64-bit; overflow is an error, never a wrap-around)
//	*big.Int             BigInts, integers past 64 bits (1N, +' ...); never changed
//	*Decimal             BigDecimals, exact decimals (1.50M, bigdec ...)
//	float64              floats, including ##Inf, ##-Inf and ##NaN
//	string               strings; a character is a one-character string
//	Keyword              :keywords
//	Symbol               quoted symbols, 'foo, as data
//	Class                classes, from type, class and names such as String
//	*Vector              vectors, and lists ('(1 2), (list ...); see Vector.IsList)
//	*Map                 maps, iterated in canonical key order
//	*Set                 sets, iterated in canonical order
//	*Closure, *Builtin   functions (fn/defn closures, and Go functions)
//	*Var                 a var, from #'name or def
//	*Regex               a compiled regular expression
//	*Seq                 a lazy sequence: infinite (range, iterate, ...) or from lazy-seq
//	Instant, Date        a point in time and a calendar date (the date helpers)
//	*Exception           an exception: what ex-info makes and catch binds
//	*Cell                an atom, a volatile, a transient, a Java array or a
//	                     StringBuilder: mutable state
//
// Use FromGo to turn host data into values and ToGo to turn values back.
// Values are immutable and safe to share between goroutines, but for cells,
// which change (atomically) and are equal only to themselves; ToGo and
// ToJSON convert a cell as what it holds (see Cell).
//
// Every value type of this package implements fmt.Stringer with its
// printed form, what Print returns and a REPL shows:
// fmt.Println(res.Value), %v, %+v and %s print {:a [1 2]}, also inside Go
// structs, slices and maps. %#v prints the Go type, then the printed form
// in parentheses: (*lisp.Map)({:a [1 2]}), lisp.Keyword(:a),
// (*lisp.Map)(nil). Like Print, these stop at maxPrintBytes with
// "...", however much a value shares its parts; use Print for a
// shorter bound. nil, bool, int64, float64 and string are Go's own types
// and print as Go prints them (<nil>, 1 for 1.0, text unquoted) at the
// top level; inside a collection they print in the collection's printed
// form.
type Value = any

// Keyword is a keyword such as :name, stored without the colon.
type Keyword string

// String returns the printed form, with the colon.
func (k Keyword) String() string { return ":" + string(k) }

// truthy reports whether v counts as true: everything but nil and false.
func truthy(v Value) bool {
	switch v := v.(type) {
	case nil:
		return false
	case bool:
		return v
	}
	return true
}

// TypeName returns the PTC-Lisp name of v's type, as error messages use it.
func TypeName(v Value) string {
	switch v := v.(type) {
	case nil:
		return "nil"
	case bool:
		return "boolean"
	case int64:
		return "integer"
	case *big.Int:
		return "bigint"
	case *Decimal:
		return "bigdecimal"
	case float64:
		return "float"
	case string:
		return "string"
	case Keyword:
		return "keyword"
	case Symbol:
		return "symbol"
	case Class:
		return "class"
	case *Vector:
		if v.IsList() {
			return "list"
		}
		if v.IsQueue() {
			return "queue"
		}
		return "vector"
	case *Map, *transientMap:
		return "map"
	case *Set, *transientSet:
		return "set"
	case *transientVector:
		return "vector"
	case *Closure, *Builtin:
		return "function"
	case *Var:
		return "var"
	case *Regex:
		return "regex"
	case *Seq:
		return "sequence"
	case Instant:
		return "date-time"
	case Date:
		return "date"
	case *Exception:
		return "exception"
	case *Cell:
		if v.kind == utilCell {
			return cellClassName(v) // java.util.HashMap, not hash-map (a Clojure function)
		}
		return v.Kind()
	}
	return "host value"
}

// describe renders v for an error message: its type and a short printed form.
func describe(v Value) string {
	if t, ok := v.(*transientVector); ok {
		v = t.view() // a reducing function's accumulator (transient.go)
	}
	switch c := v.(type) {
	case nil:
		return "nil"
	case *Closure, *Builtin:
		return printString(v)
	case *Cell:
		// A cell where a value was expected is usually a missing deref.
		hint := " (read what it holds with @ or deref)"
		switch c.kind {
		case transientCell:
			hint = " (make it a collection with persistent! first)"
		case arrayCell:
			hint = " (a Java array: read it with aget, or make it a vector with vec)"
		case builderCell:
			hint = " (a StringBuilder: make it a string with str or .toString)"
		case utilCell:
			hint = " (a mutable Java collection: change it with its methods, .add .put .remove; make it a Clojure one with vec, set or (into {} m))"
		}
		return TypeName(v) + " " + Print(v, PrintOptions{MaxItems: 5, MaxChars: 60}) + hint
	}
	return TypeName(v) + " " + Print(v, PrintOptions{MaxItems: 5, MaxChars: 60})
}

// Var is a named binding of the user namespace, the value of #'name and of
// (def name ...). Calling a var calls the function it holds.
type Var struct {
	Name string
}

// Regex is a compiled regular expression (from re-pattern or #"...").
type Regex struct {
	Source string
	re     *regexp.Regexp
	// bt, for a pattern Go's regexp cannot run (lookaround,
	// backreferences), is the backtracking matcher that runs it instead
	// (re is then nil).
	bt      *backtrack.Regexp
	pattern string // the pattern in Go's syntax
	weight  int    // see regexWeight
	// contextual: the pattern looks at the text before a position (^, \b).
	contextual bool
	// nullable: the pattern can match the empty string (a*, \b, x|), so
	// its matches are iterated with Java's rules (see eachMatch).
	nullable bool
	// anchored is the whole-string version, for re-matches; resume, for a
	// contextual pattern, finds the pattern's first match after the first
	// character of its input, that character being the context (see
	// findAt). Both are compiled when first needed.
	anchored, resume         *regexp.Regexp
	anchoredOnce, resumeOnce sync.Once
	// trimEnd: the pattern ends with Java's $, compiled to match a final
	// line terminator as its last group, which trimMatch drops.
	trimEnd bool
}

// isNumber reports whether v is an int64 or a float64.
func isNumber(v Value) bool {
	switch v.(type) {
	case int64, float64, *big.Int, *Decimal:
		return true
	}
	return false
}

// toFloat converts a number to float64.
func toFloat(v Value) (float64, bool) {
	switch v := v.(type) {
	case int64:
		return float64(v), true
	case float64:
		return v, true
	case *big.Int:
		return bigToFloat(v), true
	case *Decimal:
		return v.Float64(), true
	}
	return 0, false
}

// formatFloat prints a float the way Clojure does: a decimal point always,
// scientific notation outside [1e-3, 1e7), and ##Inf/##-Inf/##NaN.
func formatFloat(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "##Inf"
	case math.IsInf(f, -1):
		return "##-Inf"
	case math.IsNaN(f):
		return "##NaN"
	}
	return formatFiniteFloat(f, -1)
}

// formatFiniteFloat formats f with prec decimals (prec < 0: shortest exact).
func formatFiniteFloat(f float64, prec int) string {
	abs := math.Abs(f)
	if prec >= 0 {
		s := strconv.FormatFloat(f, 'f', prec, 64)
		if prec == 0 {
			s += ".0"
		}
		return s
	}
	if abs != 0 && (abs < 1e-3 || abs >= 1e7) {
		s := strconv.FormatFloat(f, 'E', -1, 64) // 1.5E+07
		mant, exp, _ := cutByte(s, 'E')
		if !containsByte(mant, '.') {
			mant += ".0"
		}
		if exp[0] == '+' {
			exp = exp[1:]
		}
		for len(exp) > 1 && exp[0] == '0' {
			exp = exp[1:]
		}
		if len(exp) > 1 && exp[0] == '-' && exp[1] == '0' {
			exp = "-" + trimLeadingZeros(exp[1:])
		}
		return mant + "E" + exp
	}
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !containsByte(s, '.') {
		s += ".0"
	}
	return s
}

func trimLeadingZeros(s string) string {
	for len(s) > 1 && s[0] == '0' {
		s = s[1:]
	}
	return s
}

func cutByte(s string, c byte) (before, after string, found bool) {
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}

func containsByte(s string, c byte) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			return true
		}
	}
	return false
}

// Boxed small integers. Storing an int64 in a Value allocates unless it is
// below 256; integer code (counters, indices, sums) boxes its results all
// the time, so boxInt hands out the values of [minSmallInt, maxSmallInt]
// from smallInts (17,408 boxes, 408 KB of the binary's data, never
// written). The table is a generated literal of constants
// (smallints_table.go, go generate), which the compiler lays out in the
// binary: built by a loop at init it cost every process that imports the
// package 17,408 allocations and about 4 million instructions at start-up.
//
//go:generate go run gen_smallints.go
const (
	minSmallInt = -1024
	maxSmallInt = 16383
)

// boxInt returns i as a Value without allocating when i is small.
func boxInt(i int64) Value {
	if uint64(i-minSmallInt) <= maxSmallInt-minSmallInt {
		return smallInts[i-minSmallInt]
	}
	return i
}
