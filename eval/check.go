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
// with Equals, Subset, Within, Satisfies, Fails or Func; the zero Check
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

// Func passes when f returns nil; its error says why not.
func Func(f func(*agent.Step) error) Check { return Check{kind: checkFunc, fn: f} }

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
// what was expected and what came. The message goes where the mission's
// firewall holds (a terminal, a CI report): every value in it is printed
// through the Step's Redaction, the expected one too (a case can expect a
// value from its input's _ fields), and every text is scrubbed.
func (c Check) Verify(ctx context.Context, step *agent.Step) error {
	if step == nil {
		return errors.New("no step")
	}
	if c.kind == checkFails {
		switch {
		case step.Fail == nil:
			return fmt.Errorf("succeeded with %s, want a failure", shortIn(step, step.Return))
		case c.reason != "" && step.Fail.Reason != c.reason:
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
		if where := w.match(c.want, got, ""); where != "" {
			if w.err != nil {
				return w.err
			}
			return fmt.Errorf("%s: got %s, want %s", where, shortIn(step, step.Return), shortIn(step, c.want))
		}
	case checkSatisfies:
		if c.prog == nil {
			return c.Validate()
		}
		res, err := c.prog.Run(ctx, lisp.Options{Context: lisp.NewMap("result", got)})
		if err != nil {
			// The error can quote the value (a type error shows it).
			return fmt.Errorf("check %s: %s", c.src, step.Scrub(err.Error()))
		}
		if !lisp.Truthy(res.Value) {
			return fmt.Errorf("%s is false of %s", c.src, shortIn(step, got))
		}
	}
	return nil
}

// short prints v for a message: at most 200 characters.
func short(v lisp.Value) string {
	return lisp.FormatValue(v, lisp.PrintOptions{MaxChars: 200})
}

// shortWant is short with the values of _ fields hidden.
func shortWant(v lisp.Value) string {
	hide := func(k lisp.Value) bool {
		name := keyName(k)
		return strings.HasPrefix(name, "_")
	}
	return lisp.FormatValue(v, lisp.PrintOptions{MaxChars: 200, Redact: &lisp.Redaction{Placeholder: agent.Firewalled, Key: hide}})
}

// shortIn is short behind the mission's firewall.
func shortIn(step *agent.Step, v lisp.Value) string {
	return lisp.FormatValue(v, lisp.PrintOptions{MaxChars: 200, Redact: step.Redaction()})
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

// match returns "" when got matches want, else the path where it does not
// ("" path is the value itself: "the value").
func (w *walker) match(want, got lisp.Value, path string) string {
	here := path
	if here == "" {
		here = "the value"
	}
	if w.work++; w.work > maxCompareWork {
		w.err = errTooLarge
		return here
	}
	if u, ok := want.(unconvertible); ok {
		w.err = fmt.Errorf("the expected value: %w", u.err)
		return here
	}
	if wn, ok := number(want); ok {
		gn, ok := number(got)
		if !ok || math.Abs(wn-gn) > w.tol || math.IsNaN(gn) != math.IsNaN(wn) {
			return here
		}
		return ""
	}
	switch wv := want.(type) {
	case *lisp.Map:
		gv, ok := got.(*lisp.Map)
		if !ok || (!w.subset && gv.Len() != wv.Len()) {
			return here
		}
		for k, x := range wv.All() {
			y, found := field(gv, k)
			if !found {
				return path + "/" + keyName(k) + " (missing)"
			}
			if p := w.match(x, y, path+"/"+keyName(k)); p != "" {
				return p
			}
		}
		return ""
	case *lisp.Vector:
		gv, ok := got.(*lisp.Vector)
		if !ok || gv.Len() != wv.Len() {
			return here
		}
		for i := range wv.Len() {
			if p := w.match(wv.At(i), gv.At(i), fmt.Sprintf("%s[%d]", path, i)); p != "" {
				return p
			}
		}
		return ""
	case *lisp.Set:
		gv, ok := got.(*lisp.Set)
		if !ok || (!w.subset && gv.Len() != wv.Len()) {
			return here
		}
		for x := range wv.All() {
			w.work += gv.Len() / 64 // Has is logarithmic; count it roughly
			if !gv.Has(x) {
				return here
			}
		}
		return ""
	case lisp.Keyword:
		if s, ok := got.(string); ok && s == string(wv) {
			return "" // a keyword read back from JSON is a string
		}
	case string:
		if k, ok := got.(lisp.Keyword); ok && string(k) == wv {
			return ""
		}
	}
	if !lisp.Equal(want, got) {
		return here
	}
	return ""
}

// field finds k in m as a keyword or a string key.
func field(m *lisp.Map, k lisp.Value) (lisp.Value, bool) {
	if v, ok := m.Get(k); ok {
		return v, true
	}
	switch k := k.(type) {
	case lisp.Keyword:
		return m.Get(string(k))
	case string:
		return m.Get(lisp.Keyword(k))
	}
	return nil, false
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
