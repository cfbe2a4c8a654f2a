package eval

import (
	"fmt"
	"strings"

	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/lisp/syntax"
)

// Case is one input of a task and what its answer must satisfy.
type Case struct {
	// Name identifies the case in reports; unique within its task.
	Name string
	// Input is the mission's context (agent.Options.Input): a map with
	// string keys, a struct, a *lisp.Map; nil for none.
	Input any
	// Checks must all pass; none: the mission must succeed.
	Checks []Check
}

// maxCasesSize bounds the text ParseCases reads: 4 MiB.
const maxCasesSize = 4 << 20

// CaseError is an error in a cases text, at a line and column.
type CaseError struct {
	File      string
	Line, Col int
	Message   string
}

func (e *CaseError) Error() string {
	if e.Line == 0 {
		return fmt.Sprintf("%s: %s", e.File, e.Message)
	}
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Message)
}

// ParseCases reads the cases of a task written in PTC-Lisp: a vector of
// maps, each with
//
//	:name    "a name"                     (default "case N")
//	:input   {:customer "alice"}          the context (data only)
//	:expect  {:count 2 :total 130.5}      Equals
//	:within  0.01                         makes :expect a Within
//	:subset  {:count 2}                   Subset
//	:check   (fn [r] (> (:total r) 100))  Satisfies: code, not data
//	:fails   :not_found                   Fails (true: any reason)
//
// Everything but :check is data (lisp.Read (EDN)); :check is kept as its
// source and compiled, never run, until a mission's value is checked.
// file names the text in errors. A text over 4 MiB is refused.
func ParseCases(file, src string) ([]Case, error) {
	lines := syntax.LinesOf(src)
	errAt := func(n syntax.Node, format string, args ...any) error {
		e := &CaseError{File: file, Message: fmt.Sprintf(format, args...)}
		if n != nil {
			p := lines.Pos(n.Bounds().Start)
			e.Line, e.Col = int(p.Line), int(p.Col)
		}
		return e
	}
	if len(src) > maxCasesSize {
		return nil, errAt(nil, "%d bytes, more than the %d a cases text may have", len(src), maxCasesSize)
	}
	forms, err := syntax.Read(src)
	if err != nil {
		return nil, &CaseError{File: file, Message: err.Error()}
	}
	if len(forms) != 1 {
		return nil, errAt(nil, "want one vector of cases, found %d forms", len(forms))
	}
	vec, ok := forms[0].(*syntax.Vector)
	if !ok {
		return nil, errAt(forms[0], "want a vector of cases, [{:name … :input … :expect …} …]")
	}
	text := func(n syntax.Node) string { return src[n.Bounds().Start:n.Bounds().Stop] }
	data := func(n syntax.Node) (lisp.Value, error) {
		v, err := lisp.Read(text(n), lisp.ReadOptions{Format: lisp.ReadEDN})
		if err != nil {
			return nil, errAt(n, "%v", err)
		}
		return v, nil
	}
	cases := make([]Case, 0, len(vec.Items))
	names := map[string]bool{}
	for i, item := range vec.Items {
		m, ok := item.(*syntax.Map)
		if !ok {
			return nil, errAt(item, "case %d is not a map", i+1)
		}
		c := Case{Name: fmt.Sprintf("case %d", i+1)}
		var expect lisp.Value
		var within *float64
		for j := 0; j+1 < len(m.Items); j += 2 {
			k, val := m.Items[j], m.Items[j+1]
			kw, ok := k.(*syntax.Keyword)
			if !ok {
				return nil, errAt(k, "a case's keys are keywords (:name, :input, :expect, :within, :subset, :check, :fails)")
			}
			switch name := strings.TrimPrefix(text(kw), ":"); name {
			case "name":
				v, err := data(val)
				if err != nil {
					return nil, err
				}
				s, ok := v.(string)
				if !ok || strings.TrimSpace(s) == "" {
					return nil, errAt(val, ":name wants a string")
				}
				c.Name = s
			case "input":
				v, err := data(val)
				if err != nil {
					return nil, err
				}
				if _, ok := v.(*lisp.Map); !ok && v != nil {
					return nil, errAt(val, ":input wants a map, the mission's context")
				}
				c.Input = v
			case "expect":
				v, err := data(val)
				if err != nil {
					return nil, err
				}
				expect = v
				if expect == nil {
					expect = nilValue{}
				}
			case "within":
				v, err := data(val)
				if err != nil {
					return nil, err
				}
				f, ok := number(v)
				if !ok || f < 0 {
					return nil, errAt(val, ":within wants a number ≥ 0")
				}
				within = &f
			case "subset":
				v, err := data(val)
				if err != nil {
					return nil, err
				}
				c.Checks = append(c.Checks, Subset(v))
			case "check":
				chk := Satisfies(text(val))
				if err := chk.Validate(); err != nil {
					return nil, errAt(val, "%v", err)
				}
				c.Checks = append(c.Checks, chk)
			case "fails":
				v, err := data(val)
				if err != nil {
					return nil, err
				}
				switch r := v.(type) {
				case lisp.Keyword:
					c.Checks = append(c.Checks, Fails(string(r)))
				case string:
					c.Checks = append(c.Checks, Fails(r))
				case bool:
					if !r {
						return nil, errAt(val, ":fails false: leave it out")
					}
					c.Checks = append(c.Checks, Fails(""))
				default:
					return nil, errAt(val, ":fails wants a reason (:not_found) or true")
				}
			default:
				return nil, errAt(kw, "unknown key :%s (the keys are :name, :input, :expect, :within, :subset, :check, :fails)", name)
			}
		}
		switch {
		case expect != nil && within != nil:
			c.Checks = append(c.Checks, Within(unNil(expect), *within))
		case expect != nil:
			c.Checks = append(c.Checks, Equals(unNil(expect)))
		case within != nil:
			return nil, errAt(item, ":within needs an :expect")
		}
		if names[c.Name] {
			return nil, errAt(item, "two cases are named %q", c.Name)
		}
		names[c.Name] = true
		cases = append(cases, c)
	}
	return cases, nil
}

// nilValue stands for an :expect of nil while the case is read.
type nilValue struct{}

func unNil(v lisp.Value) lisp.Value {
	if _, ok := v.(nilValue); ok {
		return nil
	}
	return v
}
