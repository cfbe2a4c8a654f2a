package template

import (
	"strings"

	"github.com/ptc-go/ptc/signature"
)

// NotInSignatureError reports placeholders that name no input parameter of
// a signature. Its message is PtcRunner's wording
// (docs/deviations.md lists where we differ):
//
//	placeholder {{user}} not found in signature
//	placeholders {{user}}, {{x.y}} not found in signature
type NotInSignatureError struct {
	Placeholders []Placeholder
}

func (e *NotInSignatureError) Error() string {
	names := make([]string, len(e.Placeholders))
	for i, p := range e.Placeholders {
		names[i] = p.String()
	}
	if len(names) == 1 {
		return "placeholder " + names[0] + " not found in signature"
	}
	return "placeholders " + strings.Join(names, ", ") + " not found in signature"
}

// Validate checks, at definition time, that every placeholder names an
// input parameter of sig, and that dotted paths follow its record types:
// with (user {name :string}) the template may use {{user}} and
// {{user.name}} but not {{user.email}} or {{name}}. Paths into :map and
// :any values are not checked. Inside {{#items}}…{{/items}}, names are
// looked up in the element type of items first, then outside.
//
// The error is a *NotInSignatureError listing every offending placeholder.
func (t *Template) Validate(sig *signature.Signature) error {
	v := &validator{seen: map[string]bool{}}
	v.nodes(t.nodes, []signature.Type{sig.InputType()}, nil)
	if len(v.bad) > 0 {
		return &NotInSignatureError{Placeholders: v.bad}
	}
	return nil
}

type validator struct {
	bad  []Placeholder
	seen map[string]bool
}

// typeOf resolves a path against the scopes, innermost first.
func typeOf(path []string, scopes []signature.Type) (signature.Type, bool) {
	if path == nil {
		return scopes[len(scopes)-1], true
	}
	for i := len(scopes) - 1; i >= 0; i-- {
		t, ok := step(scopes[i], path[0])
		if !ok {
			continue
		}
		for _, name := range path[1:] {
			if t, ok = step(t, name); !ok {
				return t, false
			}
		}
		return t, true
	}
	return signature.Type{}, false
}

// step returns the type of field name in t.
func step(t signature.Type, name string) (signature.Type, bool) {
	switch {
	case t.IsMapOf(): // {:string :t}: any key, a value of type :t
		return *t.Elem, true
	case t.Kind == signature.Any, t.Kind == signature.Map:
		return signature.Type{}, true
	case t.Kind == signature.Record:
		if f, ok := t.Field(name); ok {
			return f.Type, true
		}
	}
	return signature.Type{}, false
}

func (v *validator) nodes(nodes []node, scopes []signature.Type, scope []string) {
	for i := range nodes {
		n := &nodes[i]
		switch n.kind {
		case textNode, dotNode:
			continue
		}
		t, ok := typeOf(n.path, scopes)
		if !ok {
			p := n.placeholder(scope)
			if key := p.String(); !v.seen[key] {
				v.seen[key] = true
				p.Path = append([]string(nil), p.Path...)
				p.Scope = append([]string(nil), scope...)
				v.bad = append(v.bad, p)
			}
		}
		inner := append(scope[:len(scope):len(scope)], pathName(n.path))
		switch n.kind {
		case sectionNode:
			// The element type of a list, else the value itself (:any
			// when the section is not found, to avoid cascading reports).
			if t.Kind == signature.List && t.Elem != nil {
				t = *t.Elem
			}
			v.nodes(n.children, append(scopes[:len(scopes):len(scopes)], t), inner)
		case invertedNode:
			// An inverted section renders in the enclosing scope.
			v.nodes(n.children, scopes, inner)
		}
	}
}
