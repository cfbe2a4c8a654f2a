package signature

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// maxDepth bounds the nesting of types, so that hostile input cannot
// exhaust the stack.
const maxDepth = 100

// ParseError is a syntax error in a signature or a type. Its message says
// what was expected and where:
//
//	expected a type after `limit` at 1:22 (found `)`)
type ParseError struct {
	Msg    string // what went wrong: "expected a type after `limit`"
	Hint   string // more detail, may be empty: "found `)`", "did you mean :string?"
	Line   int    // 1-based line
	Col    int    // 1-based column, in characters
	Offset int    // byte offset in Source
	Source string // the text being parsed
}

// Error returns "<Msg> at <Line>:<Col>", followed by the hint in parentheses.
func (e *ParseError) Error() string {
	s := fmt.Sprintf("%s at %d:%d", e.Msg, e.Line, e.Col)
	if e.Hint != "" {
		s += " (" + e.Hint + ")"
	}
	return s
}

// Snippet returns the source line of the error with a caret under the
// error's column.
func (e *ParseError) Snippet() string {
	return snippet(e.Source, e.Offset)
}

// snippet renders the line holding offset and a caret line under it.
func snippet(src string, offset int) string {
	if offset < 0 || offset > len(src) {
		return ""
	}
	start := strings.LastIndexByte(src[:offset], '\n') + 1
	end := strings.IndexByte(src[offset:], '\n')
	if end < 0 {
		end = len(src)
	} else {
		end += offset
	}
	line := strings.TrimSuffix(src[start:end], "\r")
	var caret strings.Builder
	for _, r := range src[start:offset] {
		if r == '\t' {
			caret.WriteByte('\t')
		} else {
			caret.WriteByte(' ')
		}
	}
	caret.WriteByte('^')
	return line + "\n" + caret.String()
}

// Parse parses a signature:
//
//	(query :string, limit :int?) -> [{id :int, title :string}]
//	{count :int}                       ; output only, same as () -> {count :int}
//
// Errors are *ParseError values.
func Parse(src string) (*Signature, error) {
	p := &parser{src: src, line: 1, col: 1}
	sig, err := p.signature()
	if err != nil {
		return nil, err
	}
	return sig, nil
}

// mark is a position in the source.
type mark struct{ off, line, col int }

func (m mark) String() string { return fmt.Sprintf("%d:%d", m.line, m.col) }

type parser struct {
	src       string
	off       int
	line, col int
	depth     int
}

func (p *parser) mark() mark { return mark{p.off, p.line, p.col} }
func (p *parser) eof() bool  { return p.off >= len(p.src) }
func (p *parser) peek() byte { return p.src[p.off] }
func (p *parser) at(c byte) bool {
	return p.off < len(p.src) && p.src[p.off] == c
}

// advance moves past one character.
func (p *parser) advance() {
	r, n := utf8.DecodeRuneInString(p.src[p.off:])
	p.off += n
	if r == '\n' {
		p.line++
		p.col = 1
	} else {
		p.col++
	}
}

// skip moves past whitespace, commas (which are whitespace, as in Clojure)
// and ; comments.
func (p *parser) skip() {
	for !p.eof() {
		switch p.peek() {
		case ' ', '\t', '\n', '\r', ',':
			p.advance()
		case ';':
			for !p.eof() && p.peek() != '\n' {
				p.advance()
			}
		default:
			return
		}
	}
}

func (p *parser) errAt(m mark, msg, hint string) *ParseError {
	return &ParseError{Msg: msg, Hint: hint, Line: m.line, Col: m.col, Offset: m.off, Source: p.src}
}

// found describes the text at the current position for error messages.
func (p *parser) found() string {
	if p.eof() {
		return "end of input"
	}
	rest := p.src[p.off:]
	if strings.HasPrefix(rest, "->") {
		return "`->`"
	}
	n := 0
	if rest[0] == ':' {
		n = 1
	}
	for n < len(rest) && n < 24 && (isIdentPart(rest[n]) || rest[n] == '.') {
		n++
	}
	if n <= 1 {
		r, size := utf8.DecodeRuneInString(rest)
		if r == utf8.RuneError && size <= 1 {
			return fmt.Sprintf("byte %#x", rest[0])
		}
		return "`" + string(r) + "`"
	}
	return "`" + rest[:n] + "`"
}

func (p *parser) foundHint() string { return "found " + p.found() }

// word reads a run of identifier characters.
func (p *parser) word(part func(byte) bool) string {
	start := p.off
	for !p.eof() && part(p.peek()) {
		p.advance()
	}
	return p.src[start:p.off]
}

func (p *parser) signature() (*Signature, error) {
	p.skip()
	if p.eof() {
		return nil, p.errAt(p.mark(), "empty signature",
			"write an output type such as {count :int}, or (x :int) -> :string")
	}
	sig := &Signature{}
	arrow := false
	switch {
	case p.at('('):
		params, err := p.params()
		if err != nil {
			return nil, err
		}
		sig.Params = params
		p.skip()
		if !strings.HasPrefix(p.src[p.off:], "->") {
			return nil, p.errAt(p.mark(), "expected `->` after the parameter list", p.foundHint())
		}
		arrow = true
	case strings.HasPrefix(p.src[p.off:], "->"):
		arrow = true
	}
	expect := "expected a signature"
	if arrow {
		p.advance()
		p.advance()
		p.skip()
		expect = "expected a type after `->`"
	}
	out, err := p.typ(expect)
	if err != nil {
		return nil, err
	}
	sig.Output = out
	p.skip()
	if !p.eof() {
		hint := ""
		if !arrow && strings.HasPrefix(p.src[p.off:], "->") {
			hint = "parameters go in parentheses: (name :type) -> output"
		}
		return nil, p.errAt(p.mark(), "unexpected "+p.found()+" after the signature", hint)
	}
	return sig, nil
}

// params parses "(name :type, ...)".
func (p *parser) params() ([]Field, error) {
	open := p.mark()
	p.advance()
	var params []Field
	seen := map[string]mark{}
	for {
		p.skip()
		if p.eof() {
			return nil, p.errAt(p.mark(), "expected `)` to close the parameter list", p.foundHint()+"; `(` opened at "+open.String())
		}
		if p.at(')') {
			p.advance()
			return params, nil
		}
		if p.at(':') {
			return nil, p.errAt(p.mark(), "expected a parameter name or `)`",
				"found "+p.found()+"; parameters are written name :type")
		}
		f, err := p.field("parameter", "`)`", seen)
		if err != nil {
			return nil, err
		}
		params = append(params, f)
	}
}

// field parses "name :type" in a parameter list or a record.
func (p *parser) field(what, closer string, seen map[string]mark) (Field, error) {
	start := p.mark()
	var name string
	switch {
	case p.at(':') && what == "field":
		p.advance()
		name = p.word(isIdentPart)
		if name == "" || !isIdentStart(name[0]) {
			return Field{}, p.errAt(start, "expected a field name after `:`", "")
		}
	case p.at('"'):
		var err error
		if name, err = p.quoted(what); err != nil {
			return Field{}, err
		}
	case !p.eof() && isIdentStart(p.peek()):
		name = p.word(isIdentPart)
	default:
		return Field{}, p.errAt(start, "expected a "+what+" name or "+closer, p.foundHint())
	}
	if p.at('?') {
		return Field{}, p.errAt(p.mark(), "`?` goes after the type, not the name",
			"write "+quoteName(name)+" :type? for an optional "+what)
	}
	if first, dup := seen[name]; dup {
		return Field{}, p.errAt(start, "duplicate "+what+" `"+name+"`", "first declared at "+first.String())
	}
	seen[name] = start
	p.skip()
	t, err := p.typ("expected a type after `" + name + "`")
	if err != nil {
		return Field{}, err
	}
	return Field{Name: name, Type: t}, nil
}

// quoted parses a name written as a quoted string, for names that are not
// identifiers.
func (p *parser) quoted(what string) (string, error) {
	start := p.mark()
	i := p.off + 1
	for i < len(p.src) && p.src[i] != '"' && p.src[i] != '\n' {
		if p.src[i] == '\\' {
			i++
		}
		i++
	}
	if i >= len(p.src) || p.src[i] != '"' {
		return "", p.errAt(start, "unterminated quoted "+what+" name", "")
	}
	name, err := strconv.Unquote(p.src[p.off : i+1])
	if err != nil {
		return "", p.errAt(start, "invalid quoted "+what+" name", "use Go string escapes")
	}
	if name == "" {
		return "", p.errAt(start, "empty "+what+" name", "")
	}
	for p.off <= i {
		p.advance()
	}
	return name, nil
}

// typ parses a type; expect is the message used when no type is found.
func (p *parser) typ(expect string) (Type, error) {
	p.depth++
	defer func() { p.depth-- }()
	start := p.mark()
	if p.depth > maxDepth {
		return Type{}, p.errAt(start, fmt.Sprintf("types nested deeper than %d levels", maxDepth), "")
	}
	var t Type
	switch {
	case p.at(':'):
		p.advance()
		name := p.word(func(c byte) bool { return isIdentPart(c) && c != '-' })
		if name == "" {
			return Type{}, p.errAt(start, "expected a type name after `:`", p.foundHint())
		}
		k, ok := primitiveKind(name)
		if !ok {
			return Type{}, p.errAt(start, "unknown type `:"+name+"`", typeHint(name))
		}
		t = Type{Kind: k}
	case p.at('['):
		p.advance()
		p.skip()
		if p.at(']') {
			return Type{}, p.errAt(start, "list type `[]` without an element type", "write [:any] for a list of anything")
		}
		elem, err := p.typ("expected an element type after `[`")
		if err != nil {
			return Type{}, err
		}
		p.skip()
		if !p.at(']') {
			hint := p.foundHint() + "; `[` opened at " + start.String()
			if !p.eof() && p.peek() != '}' && p.peek() != ')' {
				hint += "; a list has a single element type"
			}
			return Type{}, p.errAt(p.mark(), "expected `]` to close the list", hint)
		}
		p.advance()
		t = ListOf(elem)
	case p.at('{'):
		if p.atMapOf() {
			elem, err := p.mapOf()
			if err != nil {
				return Type{}, err
			}
			t = MapOf(elem)
			break
		}
		fields, err := p.record()
		if err != nil {
			return Type{}, err
		}
		t = recordOf(fields...)
	default:
		hint := p.foundHint()
		if !p.eof() && isIdentStart(p.peek()) {
			w := p.src[p.off:]
			n := 0
			for n < len(w) && isIdentPart(w[n]) {
				n++
			}
			if _, ok := primitiveKind(w[:n]); ok {
				hint += "; did you mean :" + w[:n] + "?"
			}
		}
		return Type{}, p.errAt(start, expect, hint)
	}
	if p.at('?') {
		p.advance()
		t.Optional = true
	}
	return t, nil
}

// record parses "{name :type, ...}"; names may also be written as
// keywords, {:id :int}.
func (p *parser) record() ([]Field, error) {
	open := p.mark()
	p.advance()
	fields := []Field{}
	seen := map[string]mark{}
	for {
		p.skip()
		if p.eof() {
			return nil, p.errAt(p.mark(), "expected `}` to close the record", p.foundHint()+"; `{` opened at "+open.String())
		}
		if p.at('}') {
			p.advance()
			return fields, nil
		}
		f, err := p.field("field", "`}`", seen)
		if err != nil {
			return nil, err
		}
		fields = append(fields, f)
	}
}

// mapKey is how a map from strings starts, after its `{`: the key type.
const mapKey = ":string"

// atMapOf reports whether the `{` at the position opens a map from
// strings, {:string :t}, rather than a record: its first entry is the key
// :string written as a keyword (a record field called string is written
// bare, {string :t}, or quoted). The position does not change.
func (p *parser) atMapOf() bool {
	m := p.mark()
	defer func() { p.off, p.line, p.col = m.off, m.line, m.col }()
	p.advance()
	p.skip()
	rest := p.src[p.off:]
	if !strings.HasPrefix(rest, mapKey) {
		return false
	}
	rest = rest[len(mapKey):]
	return rest == "" || !isIdentPart(rest[0]) && rest[0] != '?'
}

// mapOf parses "{:string :type}", atMapOf having said it is one.
func (p *parser) mapOf() (Type, error) {
	open := p.mark()
	p.advance()
	p.skip()
	for range mapKey {
		p.advance()
	}
	p.skip()
	elem, err := p.typ("expected the type of the values after `{:string`")
	if err != nil {
		return Type{}, err
	}
	p.skip()
	if !p.at('}') {
		hint := p.foundHint() + "; `{` opened at " + open.String()
		if !p.eof() && p.peek() != ']' && p.peek() != ')' {
			hint += "; {:string :type} is a map from strings with one type of values (a record field called string is written string :type)"
		}
		return Type{}, p.errAt(p.mark(), "expected `}` to close the map", hint)
	}
	p.advance()
	return elem, nil
}

// typeHint suggests a type for an unknown type name.
func typeHint(name string) string {
	const all = "types are :string :int :float :bool :keyword :any :map, [:type], {name :type} and {:string :type}"
	var s string
	switch strings.ToLower(name) {
	case "str", "text", "strings", "char":
		s = ":string"
	case "integer", "long", "number", "num", "i64", "int64", "uint", "ints":
		s = ":int"
	case "double", "decimal", "real", "f64", "float64", "floats":
		s = ":float"
	case "boolean", "bools":
		s = ":bool"
	case "kw", "atom", "symbol", "keywords", "enum":
		s = ":keyword"
	case "object", "dict", "hash", "hashmap", "obj", "maps":
		s = ":map, {name :type} or {:string :type}"
	case "list", "array", "vector", "vec", "seq", "coll", "set":
		s = "[:type]"
	case "nil", "null", "void", "unit", "term", "value", "anything":
		s = ":any"
	default:
		if k, ok := primitiveKind(strings.ToLower(name)); ok {
			s = ":" + k.String()
		} else {
			return all
		}
	}
	return "did you mean " + s + "?"
}
