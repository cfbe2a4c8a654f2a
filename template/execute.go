package template

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/ptc-go/ptc/lisp"
)

// Option configures Execute.
type Option func(*config)

type config struct {
	print    lisp.PrintOptions
	maxBytes int
}

// WithFloatPrecision rounds floats to n decimals (PtcRunner's
// float_precision; the agent default is 2). Zero prints floats in full.
func WithFloatPrecision(n int) Option {
	return func(c *config) { c.print.FloatPrecision = n }
}

// WithPrintOptions bounds how collections are printed (items per
// collection, characters, depth, float precision); see lisp.PrintOptions.
// Its Redact hides values as they print, and a placeholder whose value it
// hides by its place (Redaction.Member) expands as Redact.Placeholder.
func WithPrintOptions(po lisp.PrintOptions) Option {
	return func(c *config) { c.print = po }
}

// WithMaxBytes bounds the expanded text: an expansion longer than n bytes
// is an error. Data can be large, and a value can share its parts
// ([v v] doubled sixty times prints to more than any memory holds), so a
// template filled from data that is not trusted should be bounded.
// Zero: no bound but the 64 MiB bound of lisp.Print per value.
func WithMaxBytes(n int) Option {
	return func(c *config) { c.maxBytes = n }
}

// MissingError reports placeholders that have no value in the data.
type MissingError struct {
	// Missing lists each missing placeholder once, in order of occurrence.
	Missing []Placeholder
}

func (e *MissingError) Error() string {
	if len(e.Missing) == 1 {
		p := e.Missing[0]
		return fmt.Sprintf("missing value for placeholder %s at %d:%d", p, p.Line, p.Col)
	}
	parts := make([]string, len(e.Missing))
	for i, p := range e.Missing {
		parts[i] = fmt.Sprintf("%s at %d:%d", p, p.Line, p.Col)
	}
	return "missing values for placeholders " + strings.Join(parts, ", ")
}

// Execute expands the template with data: a map or struct (anything
// lisp.FromGo accepts whose top level is a map), a *lisp.Map, or nil for
// no data. Names are looked up as PTC-Lisp does: {{name}} finds the key
// :name or "name".
//
// Values render readably: strings as they are, keywords by name (without
// the colon), nil as nothing, numbers and booleans in their printed form
// (floats rounded per WithFloatPrecision), and collections in the compact
// printed form, {:id 1, :tags ["a" "b"]}.
//
// A placeholder without a value is an error, a *MissingError naming every
// missing placeholder; a section over a missing value renders nothing.
func (t *Template) Execute(data any, opts ...Option) (string, error) {
	var cfg config
	for _, o := range opts {
		o(&cfg)
	}
	root, err := lisp.FromGo(data)
	if err != nil {
		return "", fmt.Errorf("template: data: %w", err)
	}
	if root == nil {
		root = lisp.NewMap()
	}
	if _, ok := root.(*lisp.Map); !ok {
		return "", fmt.Errorf("template: data must be a map, got %s", lisp.TypeName(root))
	}
	x := &executor{cfg: cfg, frames: []lisp.Value{root}}
	if err := x.nodes(t.nodes, nil); err != nil {
		return "", err
	}
	if len(x.missing) > 0 {
		return "", &MissingError{Missing: x.missing}
	}
	return x.out.String(), nil
}

type executor struct {
	cfg     config
	frames  []lisp.Value // the root, then the current element of each section
	out     strings.Builder
	missing []Placeholder
	seen    map[string]bool
}

// resolve looks a path up: the first name in the innermost frame that has
// it, the rest inside that value.
func (x *executor) resolve(path []string) (lisp.Value, bool) {
	if path == nil {
		return x.frames[len(x.frames)-1], true
	}
	var v lisp.Value
	found := false
	for i := len(x.frames) - 1; i >= 0 && !found; i-- {
		if m, ok := x.frames[i].(*lisp.Map); ok {
			v, found = m.Get(lisp.Keyword(path[0]))
		}
	}
	if !found {
		return nil, false
	}
	for _, name := range path[1:] {
		m, ok := v.(*lisp.Map)
		if !ok {
			return nil, false
		}
		if v, ok = m.Get(lisp.Keyword(name)); !ok {
			return nil, false
		}
	}
	return v, true
}

// hiddenMember reports whether the print options' redaction hides the
// value at path by its place (lisp.Redaction.Member): the entry of the
// map that holds it, under the key as the map stores it.
func (x *executor) hiddenMember(path []string) bool {
	r := x.cfg.print.Redact
	if r == nil || r.Member == nil || len(path) == 0 {
		return false
	}
	var holder *lisp.Map
	for i := len(x.frames) - 1; i >= 0 && holder == nil; i-- {
		if m, ok := x.frames[i].(*lisp.Map); ok {
			if _, found := m.Get(lisp.Keyword(path[0])); found {
				holder = m
			}
		}
	}
	for i, name := range path {
		if holder == nil {
			return false
		}
		key, v, ok := holder.Entry(lisp.Keyword(name))
		if !ok {
			return false
		}
		if r.Member(holder, key) {
			return true
		}
		if i < len(path)-1 {
			holder, _ = v.(*lisp.Map)
		}
	}
	return false
}

func (x *executor) nodes(nodes []node, scope []string) error {
	for i := range nodes {
		n := &nodes[i]
		switch n.kind {
		case textNode:
			if err := x.write(n, n.text); err != nil {
				return err
			}
		case varNode, dotNode:
			v, ok := x.resolve(n.path)
			if !ok {
				x.miss(n, scope)
				continue
			}
			text := x.format(v)
			if x.hiddenMember(n.path) {
				text = x.cfg.print.Redact.Placeholder
			}
			if err := x.write(n, text); err != nil {
				return err
			}
		case sectionNode, invertedNode:
			v, _ := x.resolve(n.path)
			items, err := elements(v, n)
			if err != nil {
				return err
			}
			inner := append(scope[:len(scope):len(scope)], pathName(n.path))
			if n.kind == invertedNode {
				if len(items) == 0 {
					if err := x.nodes(n.children, inner); err != nil {
						return err
					}
				}
				continue
			}
			for _, it := range items {
				x.frames = append(x.frames, it)
				err := x.nodes(n.children, inner)
				x.frames = x.frames[:len(x.frames)-1]
				if err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func (x *executor) miss(n *node, scope []string) {
	p := n.placeholder(scope)
	key := p.String() + "\x00" + strings.Join(scope, "\x00")
	if x.seen == nil {
		x.seen = map[string]bool{}
	}
	if !x.seen[key] {
		x.seen[key] = true
		p.Path = append([]string(nil), p.Path...)
		p.Scope = append([]string(nil), scope...)
		x.missing = append(x.missing, p)
	}
}

// elements returns what a section iterates over: the elements of a vector
// or set, nothing for a falsy or empty value, else the value once.
func elements(v lisp.Value, n *node) ([]lisp.Value, error) {
	switch v := v.(type) {
	case nil:
		return nil, nil
	case bool:
		if !v {
			return nil, nil
		}
	case string:
		if v == "" {
			return nil, nil
		}
	case *lisp.Vector:
		return v.Items(), nil
	case *lisp.Set:
		return v.Items(), nil
	case *lisp.Map:
		if v.Len() == 0 {
			return nil, nil
		}
	case *lisp.Seq:
		return nil, &Error{Msg: "section " + opener(&token{node: *n}) + " over an infinite sequence",
			Hint: "take a finite part first", Line: n.line, Col: n.col, Offset: n.off}
	}
	return []lisp.Value{v}, nil
}

// write appends the text of node n to the output, within the bound.
func (x *executor) write(n *node, text string) error {
	if limit := x.cfg.maxBytes; limit > 0 && x.out.Len()+len(text) > limit {
		return &Error{Msg: fmt.Sprintf("the expanded text is longer than %d bytes", limit),
			Hint: "show less data in the prompt: give the data to programs instead",
			Line: n.line, Col: n.col, Offset: n.off}
	}
	x.out.WriteString(text)
	return nil
}

// format renders a value for the output.
func (x *executor) format(v lisp.Value) string {
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		return v
	case lisp.Keyword:
		return string(v)
	case bool:
		return strconv.FormatBool(v)
	case int64:
		return strconv.FormatInt(v, 10)
	case float64, *lisp.Vector, *lisp.Map, *lisp.Set:
		po := x.cfg.print
		if x.cfg.maxBytes > 0 {
			// Printing stops soon past what the bound lets through.
			left := max(x.cfg.maxBytes-x.out.Len(), 0) + 1
			if po.MaxChars == 0 || po.MaxChars > left {
				po.MaxChars = left
			}
		}
		return lisp.Print(v, po)
	}
	return lisp.Print(v, lisp.PrintOptions{Display: true})
}
