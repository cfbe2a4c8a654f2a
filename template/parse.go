package template

import (
	"fmt"
	"slices"
	"strings"
)

// Kind is the kind of a placeholder.
type Kind uint8

// Placeholder kinds.
const (
	Simple   Kind = iota // {{name}}, {{user.name}}: a value
	Section              // {{#items}}…{{/items}}: iteration
	Inverted             // {{^items}}…{{/items}}: rendered when items is empty or missing
	Dot                  // {{.}}: the current element
)

var kindNames = [...]string{Simple: "simple", Section: "section", Inverted: "inverted", Dot: "dot"}

// String returns "simple", "section", "inverted" or "dot".
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", int(k))
}

// Placeholder is a placeholder of a template: its path and kind, where it
// first occurs and the sections it is in.
type Placeholder struct {
	// Path is the dotted name split at the dots: {{user.name}} has
	// ["user", "name"]. It is nil for {{.}} and {{#.}}.
	Path []string
	Kind Kind
	// Scope lists the sections the placeholder is in, outermost first, as
	// dotted names: {{name}} in {{#items}}…{{/items}} has ["items"]. Inside
	// a section a name is looked up in the current element first.
	Scope []string
	// Line and Col give the first occurrence (1-based; Col in characters).
	Line, Col int
}

// Name returns the dotted path, or "." for the current element.
func (p Placeholder) Name() string {
	if p.Path == nil {
		return "."
	}
	return strings.Join(p.Path, ".")
}

// String returns the placeholder as written: {{user.name}}, {{#items}},
// {{^items}} or {{.}}.
func (p Placeholder) String() string {
	switch p.Kind {
	case Section:
		return "{{#" + p.Name() + "}}"
	case Inverted:
		return "{{^" + p.Name() + "}}"
	}
	return "{{" + p.Name() + "}}"
}

// Error is a syntax error in a template, with its position:
//
//	unclosed section {{#items}} opened at 1:10 (close it with {{/items}})
type Error struct {
	Msg    string // what went wrong
	Hint   string // how to fix it; may be empty
	Line   int    // 1-based line
	Col    int    // 1-based column, in characters
	Offset int    // byte offset in the template
}

// Error returns "<Msg> at <Line>:<Col>", followed by the hint in
// parentheses.
func (e *Error) Error() string {
	s := fmt.Sprintf("%s at %d:%d", e.Msg, e.Line, e.Col)
	if e.Hint != "" {
		s += " (" + e.Hint + ")"
	}
	return s
}

// Template is a parsed prompt template, the Go counterpart of PtcRunner's
// ~PROMPT sigil. It is immutable and safe for concurrent use.
type Template struct {
	src          string
	nodes        []node
	placeholders []Placeholder
}

// Parse parses a template. Errors are *Error values.
func Parse(src string) (*Template, error) {
	toks, err := tokenize(src)
	if err != nil {
		return nil, err
	}
	standalone(toks)
	nodes, err := build(toks)
	if err != nil {
		return nil, err
	}
	t := &Template{src: src, nodes: nodes}
	t.placeholders = collect(nodes, nil, map[string]bool{}, nil)
	return t, nil
}

// MustParse is Parse for templates known to be valid, such as literals in
// the program; it panics on error.
func MustParse(src string) *Template {
	t, err := Parse(src)
	if err != nil {
		panic("template: " + err.Error())
	}
	return t
}

// Source returns the template text.
func (t *Template) Source() string { return t.src }

// String returns the template text.
func (t *Template) String() string { return t.src }

// Placeholders returns the placeholders in order of first occurrence,
// each once per kind and scope. The slice is a copy.
func (t *Template) Placeholders() []Placeholder {
	out := make([]Placeholder, len(t.placeholders))
	for i, p := range t.placeholders {
		p.Path = slices.Clone(p.Path)
		p.Scope = slices.Clone(p.Scope)
		out[i] = p
	}
	return out
}

type nodeKind uint8

const (
	textNode nodeKind = iota
	varNode
	dotNode
	sectionNode
	invertedNode
	closeNode   // only while parsing
	commentNode // only while parsing
)

// node is a piece of a parsed template.
type node struct {
	kind      nodeKind
	text      string   // textNode: the text
	path      []string // varNode, sectionNode, invertedNode (nil: the current element)
	line, col int
	off       int
	children  []node // sectionNode, invertedNode
}

func (n *node) placeholder(scope []string) Placeholder {
	p := Placeholder{Path: n.path, Line: n.line, Col: n.col, Scope: scope}
	switch n.kind {
	case dotNode:
		p.Kind = Dot
	case sectionNode:
		p.Kind = Section
	case invertedNode:
		p.Kind = Inverted
	}
	return p
}

// token is a lexical piece: text, or a tag as a node without children.
type token struct {
	node
	end int // tags: offset after the closing }}
}

// position computes 1-based line and column (in characters) of an offset.
type position struct {
	src       string
	off       int
	line, col int
}

func (p *position) at(off int) (int, int) {
	if off < p.off {
		p.off, p.line, p.col = 0, 1, 1
	}
	for _, r := range p.src[p.off:off] {
		if r == '\n' {
			p.line++
			p.col = 1
		} else {
			p.col++
		}
	}
	p.off = off
	return p.line, p.col
}

func tokenize(src string) ([]token, error) {
	pos := &position{src: src, line: 1, col: 1}
	errAt := func(off int, msg, hint string) *Error {
		l, c := pos.at(off)
		return &Error{Msg: msg, Hint: hint, Line: l, Col: c, Offset: off}
	}
	var toks []token
	var text strings.Builder
	textStart := 0
	flush := func() {
		if text.Len() > 0 {
			toks = append(toks, token{node: node{kind: textNode, text: text.String(), off: textStart}})
			text.Reset()
		}
	}
	i := 0
	for {
		j := strings.Index(src[i:], "{{")
		if j < 0 {
			text.WriteString(src[i:])
			break
		}
		j += i
		// A run of backslashes before {{: pairs stand for one backslash
		// each; an odd one out makes the {{ literal.
		k := j
		for k > i && src[k-1] == '\\' {
			k--
		}
		n := j - k
		text.WriteString(src[i:k])
		text.WriteString(strings.Repeat(`\`, n/2))
		if n%2 == 1 {
			text.WriteString("{{")
			i = j + 2
			continue
		}
		// A tag.
		end := strings.Index(src[j+2:], "}}")
		if end < 0 || strings.IndexByte(src[j+2:j+2+end], '\n') >= 0 {
			return nil, errAt(j, "unclosed tag {{", "expected }} on the same line; write \\{{ for a literal {{")
		}
		end += j + 2
		raw := src[j+2 : end]
		tok, err := tag(raw, j, errAt)
		if err != nil {
			return nil, err
		}
		flush()
		textStart = end + 2
		l, c := pos.at(j)
		tok.line, tok.col, tok.off, tok.end = l, c, j, end+2
		toks = append(toks, tok)
		i = end + 2
	}
	flush()
	return toks, nil
}

// tag parses the content of {{ }}.
func tag(raw string, off int, errAt func(int, string, string) *Error) (token, error) {
	s := strings.TrimSpace(raw)
	var t token
	if s == "" {
		return t, errAt(off, "empty placeholder {{}}", "write a name such as {{name}}")
	}
	kind := varNode
	body := s
	switch s[0] {
	case '!':
		t.kind = commentNode
		return t, nil
	case '#':
		kind, body = sectionNode, strings.TrimSpace(s[1:])
	case '^':
		kind, body = invertedNode, strings.TrimSpace(s[1:])
	case '/':
		kind, body = closeNode, strings.TrimSpace(s[1:])
	}
	t.kind = kind
	if body == "." {
		if kind == varNode {
			t.kind = dotNode
		}
		return t, nil
	}
	path, ok := parsePath(body)
	if !ok {
		hint := "a placeholder is a name or a dotted path such as user.name; names start with a letter or _ and hold letters, digits, _ and -"
		if strings.HasPrefix(s, "{") {
			hint = "write \\{{ for a literal {{"
		} else if body == "" {
			hint = "a section needs a name, such as {{#items}}"
		}
		return t, errAt(off, "invalid placeholder {{"+raw+"}}", hint)
	}
	t.path = path
	return t, nil
}

// parsePath splits a dotted path and checks its names.
func parsePath(s string) ([]string, bool) {
	if s == "" {
		return nil, false
	}
	parts := strings.Split(s, ".")
	for _, p := range parts {
		if !isIdent(p) {
			return nil, false
		}
	}
	return parts, true
}

// isIdent reports whether s is a name: a letter or underscore, then
// letters, digits, underscores and hyphens (as signature names).
func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
		case i > 0 && ('0' <= c && c <= '9' || c == '-'):
		default:
			return false
		}
	}
	return true
}

// standalone removes the lines of section, inverted, closing and comment
// tags that stand alone on their line: the indentation before the tag and
// the line break after it are dropped, so that block tags on their own
// lines leave no blank lines behind.
func standalone(toks []token) {
	// Decide on the original texts, then cut: a text between two
	// standalone tags loses both its first and its last line.
	from := make([]int, len(toks))
	to := make([]int, len(toks))
	for i, t := range toks {
		to[i] = len(t.text)
	}
	for i := range toks {
		k := toks[i].kind
		if k != sectionNode && k != invertedNode && k != closeNode && k != commentNode {
			continue
		}
		// The line must begin at the start or after a newline in the
		// preceding text, with only blanks in between.
		before := -1 // length of the preceding text to keep
		if i == 0 {
			before = 0
		} else if p := toks[i-1]; p.kind == textNode {
			nl := strings.LastIndexByte(p.text, '\n')
			if (nl >= 0 || i-1 == 0) && blank(p.text[nl+1:]) {
				before = nl + 1
			}
		}
		if before < 0 {
			continue
		}
		// The line must end at the end or at a newline in the following
		// text, with only blanks in between.
		after := -1 // bytes of the following text to drop
		if i == len(toks)-1 {
			after = 0
		} else if n := toks[i+1]; n.kind == textNode {
			nl := strings.IndexByte(n.text, '\n')
			switch {
			case nl >= 0 && blank(n.text[:nl]):
				after = nl + 1
			case nl < 0 && i+1 == len(toks)-1 && blank(n.text):
				after = len(n.text)
			}
		}
		if after < 0 {
			continue
		}
		if i > 0 {
			to[i-1] = before
		}
		if i < len(toks)-1 {
			from[i+1] = after
		}
	}
	for i := range toks {
		if toks[i].kind == textNode {
			toks[i].text = toks[i].text[from[i]:max(from[i], to[i])]
		}
	}
}

func blank(s string) bool {
	return strings.Trim(s, " \t\r") == ""
}

// maxDepth bounds the nesting of sections.
const maxDepth = 100

// build nests the tokens into sections.
func build(toks []token) ([]node, error) {
	type frame struct {
		open  *token
		nodes []node
	}
	stack := []frame{{}}
	for i := range toks {
		t := &toks[i]
		top := &stack[len(stack)-1]
		switch t.kind {
		case textNode:
			if t.text != "" {
				top.nodes = append(top.nodes, t.node)
			}
		case commentNode:
		case sectionNode, invertedNode:
			if len(stack) > maxDepth {
				return nil, &Error{Msg: fmt.Sprintf("sections nested deeper than %d levels", maxDepth),
					Line: t.line, Col: t.col, Offset: t.off}
			}
			stack = append(stack, frame{open: t})
		case closeNode:
			if top.open == nil {
				return nil, &Error{Msg: "unexpected {{/" + pathName(t.path) + "}}", Hint: "no section is open",
					Line: t.line, Col: t.col, Offset: t.off}
			}
			if pathName(top.open.path) != pathName(t.path) {
				return nil, &Error{Msg: "mismatched {{/" + pathName(t.path) + "}}",
					Hint: fmt.Sprintf("%s opened at %d:%d is closed by {{/%s}}", opener(top.open), top.open.line, top.open.col, pathName(top.open.path)),
					Line: t.line, Col: t.col, Offset: t.off}
			}
			n := top.open.node
			n.children = top.nodes
			stack = stack[:len(stack)-1]
			parent := &stack[len(stack)-1]
			parent.nodes = append(parent.nodes, n)
		default:
			top.nodes = append(top.nodes, t.node)
		}
	}
	if top := stack[len(stack)-1]; top.open != nil {
		return nil, &Error{Msg: "unclosed section " + opener(top.open) + " opened",
			Hint: "close it with {{/" + pathName(top.open.path) + "}}",
			Line: top.open.line, Col: top.open.col, Offset: top.open.off}
	}
	return stack[0].nodes, nil
}

func pathName(p []string) string {
	if p == nil {
		return "."
	}
	return strings.Join(p, ".")
}

func opener(t *token) string {
	if t.kind == invertedNode {
		return "{{^" + pathName(t.path) + "}}"
	}
	return "{{#" + pathName(t.path) + "}}"
}

// collect lists the placeholders of nodes, once per kind, name and scope.
func collect(nodes []node, scope []string, seen map[string]bool, acc []Placeholder) []Placeholder {
	for i := range nodes {
		n := &nodes[i]
		if n.kind == textNode {
			continue
		}
		p := n.placeholder(scope)
		key := p.String() + "\x00" + strings.Join(scope, "\x00")
		if !seen[key] {
			seen[key] = true
			acc = append(acc, p)
		}
		if n.kind == sectionNode || n.kind == invertedNode {
			inner := append(slices.Clip(scope), pathName(n.path))
			acc = collect(n.children, inner, seen, acc)
		}
	}
	return acc
}

// Escape returns template source that renders as text, unchanged: every
// {{ in text is escaped (with the backslashes before it doubled). Use it to
// put literal text, such as examples or user content, into a template
// being assembled.
func Escape(text string) string {
	var sb strings.Builder
	i := 0
	for {
		j := strings.Index(text[i:], "{{")
		if j < 0 {
			sb.WriteString(text[i:])
			return sb.String()
		}
		j += i
		k := j
		for k > i && text[k-1] == '\\' {
			k--
		}
		sb.WriteString(text[i:k])
		sb.WriteString(strings.Repeat(`\`, 2*(j-k)+1))
		sb.WriteString("{{")
		i = j + 2
	}
}
