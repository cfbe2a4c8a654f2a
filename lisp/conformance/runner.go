package conformance

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"strconv"
	"strings"

	"github.com/ptc-go/ptc/lisp"
)

// Vector is one test vector.
type Vector struct {
	ID         string          `json:"id"`
	Program    string          `json:"program"`
	Context    json.RawMessage `json:"context,omitempty"`
	ContextEDN string          `json:"context_edn,omitempty"`
	// JSONContextEquivalent says whether Context (plain JSON) gives the same
	// result as ContextEDN.
	JSONContextEquivalent *bool  `json:"json_context_equivalent,omitempty"`
	Expect                string `json:"expect,omitempty"`
	ExpectError           string `json:"expect_error,omitempty"`
	Source                string `json:"source,omitempty"`
}

// Load reads vectors in JSON Lines form (blank lines are skipped).
func Load(r io.Reader) ([]Vector, error) {
	var out []Vector
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" {
			continue
		}
		var v Vector
		if err := json.Unmarshal([]byte(text), &v); err != nil {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
		out = append(out, v)
	}
	return out, sc.Err()
}

// Outcome is the result of running one vector.
type Outcome struct {
	Vector Vector
	Passed bool
	// Got is the printed value, or "error <kind>: <message>".
	Got string
	// Reason says why a vector failed.
	Reason string
}

// Run runs one vector: the program with its context (from context_edn when
// present), no tools and no namespace, compared with Clojure = semantics
// (integers and floats differ, floats with more than 6 decimals compare with
// a relative tolerance of 1e-9), or the error kind.
func Run(ctx context.Context, v Vector) Outcome {
	o := Outcome{Vector: v}
	opts := lisp.Options{}
	switch {
	case v.ContextEDN != "":
		c, err := lisp.Read(v.ContextEDN, lisp.ReadOptions{Format: lisp.ReadEDN})
		if err != nil {
			o.Reason = "cannot read context_edn: " + err.Error()
			return o
		}
		opts.Input = c
	case len(v.Context) > 0:
		c, err := lisp.Read(string(v.Context), lisp.ReadOptions{Format: lisp.ReadJSON})
		if err != nil {
			o.Reason = "cannot read context: " + err.Error()
			return o
		}
		opts.Input = c
	}
	res, err := lisp.Run(ctx, v.Program, opts)
	if err != nil {
		var le *lisp.Error
		kind := "error"
		if errors.As(err, &le) {
			kind = string(le.Kind)
		}
		o.Got = "error " + kind + ": " + err.Error()
		switch {
		case v.ExpectError == "":
			o.Reason = "unexpected error"
		case kind != v.ExpectError:
			o.Reason = fmt.Sprintf("error kind %s, want %s", kind, v.ExpectError)
		default:
			o.Passed = true
		}
		return o
	}
	o.Got = lisp.Print(res.Value, lisp.PrintOptions{})
	if res.Status != lisp.Completed {
		o.Got = res.Status.String() + " " + o.Got
	}
	if v.ExpectError != "" {
		o.Reason = "expected error " + v.ExpectError
		return o
	}
	want, err := lisp.Read(v.Expect, lisp.ReadOptions{Format: lisp.ReadEDN})
	if err != nil {
		o.Reason = "cannot read expect: " + err.Error()
		return o
	}
	if res.Status == lisp.Completed && Equivalent(want, res.Value) {
		o.Passed = true
	} else {
		o.Reason = "value differs"
	}
	return o
}

// Equivalent is Clojure's = for data, with the suite's float tolerance.
func Equivalent(want, got lisp.Value) bool {
	switch w := want.(type) {
	case nil, bool, string, int64, lisp.Keyword:
		return w == got
	case float64:
		g, ok := got.(float64)
		if !ok {
			return false
		}
		if w == g || (math.IsNaN(w) && math.IsNaN(g)) {
			return true
		}
		if decimals(w) > 6 {
			return math.Abs(w-g) <= 1e-9*math.Max(math.Abs(w), math.Abs(g))
		}
		return false
	case *lisp.Vector:
		g, ok := got.(*lisp.Vector)
		if !ok || g.Len() != w.Len() {
			return false
		}
		for i := 0; i < w.Len(); i++ {
			if !Equivalent(w.At(i), g.At(i)) {
				return false
			}
		}
		return true
	case *lisp.Map:
		g, ok := got.(*lisp.Map)
		if !ok || g.Len() != w.Len() {
			return false
		}
		for k, wv := range w.All() {
			// Exactly k: {:a 1} is not {"a" 1}, though Get finds either.
			gk, gv, ok := g.Entry(k)
			if !ok || reflect.TypeOf(gk) != reflect.TypeOf(k) || !Equivalent(wv, gv) {
				return false
			}
		}
		return true
	case *lisp.Set:
		g, ok := got.(*lisp.Set)
		if !ok || g.Len() != w.Len() {
			return false
		}
		for x := range w.All() {
			if !g.Has(x) {
				return false
			}
		}
		return true
	}
	return lisp.Equal(want, got)
}

// decimals counts the digits after the decimal point of f's shortest form.
func decimals(f float64) int {
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if i := strings.IndexByte(s, '.'); i >= 0 {
		return len(s) - i - 1
	}
	return 0
}

// Summary counts outcomes.
type Summary struct {
	Passed, Failed int
	Failures       []Outcome
}

// RunAll runs every vector.
func RunAll(ctx context.Context, vs []Vector) Summary {
	var s Summary
	for _, v := range vs {
		o := Run(ctx, v)
		if o.Passed {
			s.Passed++
		} else {
			s.Failed++
			s.Failures = append(s.Failures, o)
		}
	}
	return s
}

// Deviations reads the deviations table of docs/deviations.md and returns,
// for each conformance vector listed in its last column, the topic of the
// row (its reason for failing).
func Deviations(r io.Reader) (map[string]string, error) {
	out := map[string]string{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if !strings.HasPrefix(line, "|") || strings.HasPrefix(line, "|---") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		if len(cells) < 3 {
			continue
		}
		topic := strings.TrimSpace(cells[1])
		for _, f := range strings.Split(cells[len(cells)-1], ",") {
			id := strings.Trim(strings.TrimSpace(f), "`")
			if strings.Contains(id, ":") && !strings.ContainsAny(id, " ") {
				out[id] = topic
			}
		}
	}
	return out, sc.Err()
}
