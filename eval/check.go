package eval

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/lisp"
)

// A Check decides whether a mission's Step answers its case. Build one
// with Equals, Subset, Within, Satisfies, Fails or Passes; the zero Check
// passes any mission that succeeds.
type Check struct {
	kind   checkKind
	want   lisp.Value
	tol    float64
	src    string // Satisfies: a PTC-Lisp function
	prog   *lisp.Program
	reason string // Fails
	fn     func(*agent.Step) error
}

type checkKind uint8

const (
	checkOK checkKind = iota
	checkEquals
	checkSubset
	checkWithin
	checkSatisfies
	checkFails
	checkFunc
)

// maxCompareWork bounds the nodes a comparison visits: a returned value
// comes from a model's program and may share structure.
const maxCompareWork = 1 << 20

// errTooLarge ends a comparison that went past maxCompareWork.
var errTooLarge = errors.New("the value is too large to compare (over a million nodes)")

// Equals passes when the mission returns a value equal to want: maps and
// vectors element by element, keyword and string keys alike (:total is
// "total"), numbers by value (2 equals 2.0), other values as lisp.Equal
// says. want is Go data (lisp.FromGo) or a lisp.Value.
func Equals(want any) Check { return Check{kind: checkEquals, want: mustValue(want)} }

// Subset passes when every field want names is in the returned value
// with an equal value, recursively: a map may have more fields than want,
// a set more elements; vectors must match element by element.
func Subset(want any) Check { return Check{kind: checkSubset, want: mustValue(want)} }

// Within is Equals with numbers, wherever they are in want, allowed to
// differ by tol (absolute).
func Within(want any, tol float64) Check {
	return Check{kind: checkWithin, want: mustValue(want), tol: math.Abs(tol)}
}

// Satisfies passes when the PTC-Lisp function src, called with the
// returned value, returns a truthy value: "(fn [r] (> (:total r) 100))",
// "#(= 3 (count %))". It runs in the sandbox with the default limits. A
// src that does not compile makes the check fail every run with the
// compiler's error (Validate reports it at once).
func Satisfies(src string) Check {
	c := Check{kind: checkSatisfies, src: strings.TrimSpace(src)}
	c.prog, _ = lisp.Compile("(" + c.src + " ctx/result)")
	return c
}

// Fails passes when the mission fails with reason ("not_found"), or with
// any reason when reason is "".
func Fails(reason string) Check {
	return Check{kind: checkFails, reason: strings.TrimPrefix(reason, ":")}
}

// Passes is a check in Go: it passes when f returns nil for the
// mission's Step, and its error says why not.
func Passes(f func(*agent.Step) error) Check { return Check{kind: checkFunc, fn: f} }

// String describes the check, as reports show it. The values of _ fields
// in the expected value print as agent.Firewalled: a report goes where the
// firewall holds, and a case may expect a value from its input's _ fields.
func (c Check) String() string {
	switch c.kind {
	case checkEquals:
		return "equals " + shortWant(c.want)
	case checkSubset:
		return "has " + shortWant(c.want)
	case checkWithin:
		return fmt.Sprintf("equals %s within %g", shortWant(c.want), c.tol)
	case checkSatisfies:
		return "satisfies " + c.src
	case checkFails:
		if c.reason == "" {
			return "fails"
		}
		return "fails with " + c.reason
	case checkFunc:
		return "passes a Go check"
	}
	return "succeeds"
}

// Validate reports a check that can never pass: a Satisfies whose
// function does not compile.
func (c Check) Validate() error {
	if c.kind == checkSatisfies {
		if _, err := lisp.Compile("(" + c.src + " ctx/result)"); err != nil {
			return fmt.Errorf("check %s: %w", c.src, err)
		}
	}
	return nil
}

// Verify returns nil when step passes the check, else an error that says
// what was expected and what came. For Equals, Within and Subset it names
// the first place the value differs, as a get-in path, with the two
// values there rather than the whole value:
//
//	:subset: at [:orders 2 :total] want 130.5, got 120.0
//	:subset: at [:orders 2 :total] missing, want 130.5
//	:expect: at [:tags 3] unexpected, got "extra"
//	:expect: want 6, got 7
//
// (:expect for Equals and Within, :subset for Subset, the keys of a cases
// file.) Maps are walked in key order, so a failing value is described the
// same way every run. The message goes where the mission's firewall holds
// (a terminal, a CI report): every value in it is printed through the
// Step's Redaction, the expected one too (a case can expect a value from
// its input's _ fields), the values at a path through a _ field not at all
// (they print as agent.Firewalled), and every text is scrubbed.
func (c Check) Verify(ctx context.Context, step *agent.Step) error {
	if step == nil {
		return errors.New("no step")
	}
	if c.kind == checkFails {
		switch {
		case step.Fail == nil:
			return fmt.Errorf("succeeded with %s, want a failure", shortIn(step, step.Return))
		case c.reason != "" && string(step.Fail.Reason) != c.reason:
			return fmt.Errorf("failed with %s, want %s", step.Fail.Reason, c.reason)
		}
		return nil
	}
	if c.kind == checkFunc {
		if err := c.fn(step); err != nil {
			return errors.New(step.Scrub(err.Error()))
		}
		return nil
	}
	if step.Fail != nil {
		return fmt.Errorf("failed: %s", step.Scrub(step.Fail.Error()))
	}
	got := step.Return
	switch c.kind {
	case checkEquals, checkWithin, checkSubset:
		w := &walker{tol: c.tol, subset: c.kind == checkSubset}
		if d := w.match(c.want, got, nil, false); d != nil {
			if w.err != nil {
				return w.err
			}
			return errors.New(c.describe(step, d))
		}
	case checkSatisfies:
		if c.prog == nil {
			return c.Validate()
		}
		res, err := c.prog.Run(ctx, lisp.Options{Input: lisp.NewMap("result", got)})
		if err != nil {
			// The error can quote the value (a type error shows it).
			return fmt.Errorf("check %s: %s", c.src, step.Scrub(err.Error()))
		}
		if res.Value == nil || res.Value == false { // falsey, as Clojure's if

			return fmt.Errorf("%s is false of %s", c.src, shortIn(step, got))
		}
	}
	return nil
}

// short prints v for a message: at most 200 characters.
func short(v lisp.Value) string {
	return lisp.Print(v, lisp.PrintOptions{MaxChars: 200})
}

// shortWant is short with the values of _ fields hidden.
func shortWant(v lisp.Value) string {
	hide := func(k lisp.Value) bool {
		name := keyName(k)
		return strings.HasPrefix(name, "_")
	}
	return lisp.Print(v, lisp.PrintOptions{MaxChars: 200, Redact: &lisp.Redaction{Placeholder: agent.Firewalled, Key: hide}})
}

// shortIn is short behind the mission's firewall.
func shortIn(step *agent.Step, v lisp.Value) string {
	return lisp.Print(v, lisp.PrintOptions{MaxChars: 200, Redact: step.Redaction()})
}

// mustValue converts Go data, which a program's value is compared with.
// A value FromGo refuses becomes a check no value passes.
func mustValue(x any) lisp.Value {
	if isLisp(x) {
		return x
	}
	v, err := lisp.FromGo(x)
	if err != nil {
		return unconvertible{err}
	}
	return v
}

// isLisp reports the types lisp.FromGo would give back as they are.
func isLisp(v lisp.Value) bool {
	switch v.(type) {
	case *lisp.Map, *lisp.Vector, *lisp.Set, lisp.Keyword:
		return true
	}
	return false
}

// unconvertible is an expected value that Go could not give.
type unconvertible struct{ err error }

func (u unconvertible) String() string { return "<" + u.err.Error() + ">" }

// walker compares an expected value with a returned one, bounded in work.
type walker struct {
	tol    float64
	subset bool
	work   int
	err    error
}

// diffKind is how a returned value differs from the expected one at a
// path.
type diffKind uint8

const (
	diffValue      diffKind = iota // both are there, and differ
	diffMissing                    // the expected key or element is not in the value
	diffUnexpected                 // the value has a key or element the expected one has not (:expect)
)

// diff is where a returned value first differs from the expected one: the
// path from the top (map keys and vector indices), the two values there,
// and whether a key on the path names a firewalled (_) field, whose
// values a report never prints.
type diff struct {
	path      []lisp.Value
	kind      diffKind
	want, got lisp.Value
	hidden    bool
}

// match returns nil when got matches want, else where they first differ;
// path is the path to them, hidden whether it goes through a _ field.
// Maps are walked in their canonical key order, so the difference
// reported is the same every run.
func (w *walker) match(want, got lisp.Value, path []lisp.Value, hidden bool) *diff {
	differs := func() *diff { return &diff{path: path, want: want, got: got, hidden: hidden} }
	if w.work++; w.work > maxCompareWork {
		w.err = errTooLarge
		return differs()
	}
	if u, ok := want.(unconvertible); ok {
		w.err = fmt.Errorf("the expected value: %w", u.err)
		return differs()
	}
	if wn, ok := number(want); ok {
		gn, ok := number(got)
		if !ok || math.Abs(wn-gn) > w.tol || math.IsNaN(gn) != math.IsNaN(wn) {
			return differs()
		}
		return nil
	}
	switch wv := want.(type) {
	case *lisp.Map:
		gv, ok := got.(*lisp.Map)
		if !ok {
			return differs()
		}
		for k, x := range wv.All() {
			gk, y, found := field(gv, k)
			if !found {
				return &diff{path: appendPath(path, keyLike(gv, k, path)), kind: diffMissing, want: x, hidden: hidden || firewalledKey(k)}
			}
			// The path names the key as the value has it (:total, where
			// want may say "total"), so that get-in finds it.
			if d := w.match(x, y, appendPath(path, gk), hidden || firewalledKey(k) || firewalledKey(gk)); d != nil {
				return d
			}
		}
		if w.subset || gv.Len() == wv.Len() {
			return nil
		}
		for k, y := range gv.All() {
			if w.work++; w.work > maxCompareWork {
				w.err = errTooLarge
				return differs()
			}
			if _, _, found := field(wv, k); !found {
				return &diff{path: appendPath(path, k), kind: diffUnexpected, got: y, hidden: hidden || firewalledKey(k)}
			}
		}
		return differs() // as many keys, one of them twice (:a and "a")
	case *lisp.Vector:
		gv, ok := got.(*lisp.Vector)
		if !ok {
			return differs()
		}
		n := min(wv.Len(), gv.Len())
		for i := range n {
			if d := w.match(wv.At(i), gv.At(i), appendPath(path, int64(i)), hidden); d != nil {
				return d
			}
		}
		switch {
		case wv.Len() > n:
			return &diff{path: appendPath(path, int64(n)), kind: diffMissing, want: wv.At(n), hidden: hidden}
		case gv.Len() > n:
			return &diff{path: appendPath(path, int64(n)), kind: diffUnexpected, got: gv.At(n), hidden: hidden}
		}
		return nil
	case *lisp.Set:
		gv, ok := got.(*lisp.Set)
		if !ok || (!w.subset && gv.Len() != wv.Len()) {
			return differs()
		}
		for x := range wv.All() {
			w.work += gv.Len() / 64 // Has is logarithmic; count it roughly
			if !gv.Has(x) {
				return differs()
			}
		}
		return nil
	case lisp.Keyword:
		if s, ok := got.(string); ok && s == string(wv) {
			return nil // a keyword read back from JSON is a string
		}
	case string:
		if k, ok := got.(lisp.Keyword); ok && string(k) == wv {
			return nil
		}
	}
	if !lisp.Equal(want, got) {
		return differs()
	}
	return nil
}

// keyLike returns a missing key k written as the keys of m are: a
// keyword when m's keys are keywords (a program's map), a string when
// they are strings (JSON data), so that the path reads as m's. An empty
// m follows the key of the path above it, if any.
func keyLike(m *lisp.Map, k lisp.Value, path []lisp.Value) lisp.Value {
	var like lisp.Value
	if m.Len() > 0 {
		like, _ = m.EntryAt(0)
	} else if len(path) > 0 {
		like = path[len(path)-1]
	}
	switch kk := k.(type) {
	case string:
		if _, ok := like.(lisp.Keyword); ok {
			return lisp.Keyword(kk)
		}
	case lisp.Keyword:
		if _, ok := like.(string); ok {
			return string(kk)
		}
	}
	return k
}

// appendPath returns path with one more step, never sharing the
// caller's backing array.
func appendPath(path []lisp.Value, step lisp.Value) []lisp.Value {
	return append(path[:len(path):len(path)], step)
}

// firewalledKey reports a key naming a firewalled field: :_email, "_email".
func firewalledKey(k lisp.Value) bool {
	switch k := k.(type) {
	case lisp.Keyword:
		return strings.HasPrefix(string(k), "_")
	case string:
		return strings.HasPrefix(k, "_")
	}
	return false
}

// describe says where the returned value differs from the expected one,
// for a report: the check's key in a cases file, the path as a get-in
// vector, and the two values there, printed behind the step's firewall,
// the values under a _ field not at all:
//
//	:subset: at [:orders 2 :total] want 130.5, got 120.0
//	:subset: at [:orders 2 :total] missing, want 130.5
//	:expect: at [:tags 3] unexpected, got "extra"
//	:expect: want 6, got 7
func (c Check) describe(step *agent.Step, d *diff) string {
	show := func(v lisp.Value) string {
		if d.hidden {
			return agent.Firewalled
		}
		return shortIn(step, v)
	}
	var sb strings.Builder
	if c.kind == checkSubset {
		sb.WriteString(":subset: ")
	} else {
		sb.WriteString(":expect: ")
	}
	if len(d.path) > 0 {
		sb.WriteString("at ")
		sb.WriteString(shortIn(step, lisp.NewVector(d.path)))
		sb.WriteByte(' ')
	}
	want := show(d.want)
	if _, isNum := number(d.want); isNum && c.kind == checkWithin && !d.hidden {
		want += fmt.Sprintf(" within %g", c.tol)
	}
	switch d.kind {
	case diffMissing:
		sb.WriteString("missing, want " + want)
	case diffUnexpected:
		sb.WriteString("unexpected, got " + show(d.got))
	default:
		sb.WriteString("want " + want + ", got " + show(d.got))
	}
	return sb.String()
}

// field finds k in m as a keyword or a string key; key is the key m has.
func field(m *lisp.Map, k lisp.Value) (key, v lisp.Value, ok bool) {
	return m.Entry(k)
}

func keyName(k lisp.Value) string {
	switch k := k.(type) {
	case lisp.Keyword:
		return string(k)
	case string:
		return k
	}
	return short(k)
}

// number gives a number's value as a float64.
func number(v lisp.Value) (float64, bool) {
	switch n := v.(type) {
	case int64:
		return float64(n), true
	case float64:
		return n, true
	case int:
		return float64(n), true
	}
	return 0, false
}
