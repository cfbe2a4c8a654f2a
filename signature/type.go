package signature

import (
	"strconv"
	"strings"
)

// Kind is the shape of a Type.
type Kind uint8

// The kinds of types. The zero Kind is Any, so the zero Type is :any.
const (
	Any     Kind = iota // :any — every value, nil included
	String              // :string
	Int                 // :int — 64-bit integers
	Float               // :float — floats; integers are accepted too
	Bool                // :bool
	Keyword             // :keyword
	Map                 // :map — any map; with Elem, {:string :t}: string keys, values of type Elem
	List                // [:t] — a vector whose elements all have type Elem
	Record              // {name :t ...} — a map with the listed fields

	// The kinds below are inferred from values to describe data (the data
	// inventory of an agent's prompt); signatures do not declare them
	// (Parse refuses them), Validate accepts any value for them, as for
	// :any, and their JSON Schema is the one of their JSON form.
	Set  // #{:t} — a set whose elements have type Elem
	Date // :date — a calendar date
	Inst // :inst — an instant
	Nil  // :nil — nil alone
)

// kindNames are the names of the primitive kinds as written after the colon.
var kindNames = [...]string{
	Any: "any", String: "string", Int: "int", Float: "float", Bool: "bool",
	Keyword: "keyword", Map: "map", List: "list", Record: "record",
	Set: "set", Date: "date", Inst: "inst", Nil: "nil",
}

// String returns the kind's name: "int", "list", "record"...
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// primitiveKind returns the kind written :name.
func primitiveKind(name string) (Kind, bool) {
	for k := Any; k <= Map; k++ {
		if kindNames[k] == name {
			return k, true
		}
	}
	return 0, false
}

// Type is a signature type. Build primitive types as Type{Kind: Int},
// lists with ListOf, maps from strings with MapOf and records as
// Type{Kind: Record, Fields: ...}, or parse one: Parse("[{id :int}]")
// reads a type alone as the Output of a signature without parameters.
//
// Types are values; treat the Elem and Fields of a type you did not build
// yourself as read-only (the methods of this package never modify them).
type Type struct {
	Kind Kind
	// Optional is the `?` suffix: nil is accepted, and a field or parameter
	// of this type may also be absent. `?` may follow any type, so [:int?]
	// is a list whose elements may be nil, and [:int]? a list that may be nil.
	Optional bool
	// Elem is the element type of a List (and of an inferred Set), and
	// the value type of a Map from strings ({:string :t}, MapOf); nil for
	// :map, whose values are unchecked.
	Elem *Type
	// Fields are the fields of a Record, in declared order.
	Fields []Field
}

// Field is a named, typed field of a record, or a parameter of a signature.
type Field struct {
	Name string
	Type Type
	// Description documents the field in rendered signatures and JSON
	// Schemas; see Signature.WithDescriptions.
	Description string
}

// ListOf returns the type [elem].
func ListOf(elem Type) Type { return Type{Kind: List, Elem: &elem} }

// recordOf returns the record type {fields...}.
func recordOf(fields ...Field) Type { return Type{Kind: Record, Fields: fields} }

// MapOf returns the type {:string elem}: a map whose keys are strings (or
// keywords, which data written by programs has: :a and "a" are the same
// key to a signature) and whose values all have type elem, such as the
// tallies {:string :int} or the rows by id {:string {name :string}}. Its
// JSON Schema is an object with additionalProperties.
func MapOf(elem Type) Type { return Type{Kind: Map, Elem: &elem} }

// IsMapOf reports whether t is a map from strings to values of one type,
// {:string :t}, rather than :map.
func (t Type) IsMapOf() bool { return t.Kind == Map && t.Elem != nil }

// OrNil returns a copy of t that accepts nil: the type followed by `?`.
func (t Type) OrNil() Type {
	t.Optional = true
	return t
}

// Optional reports whether the field may be nil or absent (its type ends in `?`).
func (f Field) Optional() bool { return f.Type.Optional }

// Firewalled reports whether the field is firewalled: its name starts with
// an underscore. A firewalled field is available to programs and to Go code
// but hidden from LLMs; see Signature.Public.
func (f Field) Firewalled() bool { return strings.HasPrefix(f.Name, "_") }

// Field returns the record field called name.
func (t Type) Field(name string) (Field, bool) {
	for _, f := range t.Fields {
		if f.Name == name {
			return f, true
		}
	}
	return Field{}, false
}

// String returns the compact form of the type, as it is written in
// signatures: :int, :string?, [:int], {id :int, name :string?},
// {:string :int}; an inferred set is #{:int}.
func (t Type) String() string {
	var sb strings.Builder
	t.write(&sb, false)
	return sb.String()
}

// write appends the compact form; hide drops firewalled record fields.
func (t Type) write(sb *strings.Builder, hide bool) {
	switch t.Kind {
	case List:
		sb.WriteByte('[')
		if t.Elem != nil {
			t.Elem.write(sb, hide)
		} else {
			sb.WriteString(":any")
		}
		sb.WriteByte(']')
	case Set:
		sb.WriteString("#{")
		t.elem().write(sb, hide)
		sb.WriteByte('}')
	case Record:
		sb.WriteByte('{')
		writeFields(sb, t.Fields, hide)
		sb.WriteByte('}')
	case Map:
		if t.Elem == nil {
			sb.WriteString(":map")
			break
		}
		sb.WriteString("{:string ")
		t.Elem.write(sb, hide)
		sb.WriteByte('}')
	default:
		sb.WriteByte(':')
		sb.WriteString(t.Kind.String())
	}
	if t.Optional {
		sb.WriteByte('?')
	}
}

func writeFields(sb *strings.Builder, fields []Field, hide bool) {
	first := true
	for _, f := range fields {
		if hide && f.Firewalled() {
			continue
		}
		if !first {
			sb.WriteString(", ")
		}
		first = false
		sb.WriteString(quoteName(f.Name))
		sb.WriteByte(' ')
		f.Type.write(sb, hide)
	}
}

// quoteName returns the name as written in a signature: bare when it is an
// identifier, a quoted string otherwise.
func quoteName(name string) string {
	if isIdent(name) {
		return name
	}
	return strconv.Quote(name)
}

// isIdent reports whether s is a valid bare name: a letter or underscore,
// then letters, digits, underscores and hyphens.
func isIdent(s string) bool {
	if s == "" || !isIdentStart(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if !isIdentPart(s[i]) {
			return false
		}
	}
	return true
}

func isIdentStart(c byte) bool {
	return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

func isIdentPart(c byte) bool {
	return isIdentStart(c) || '0' <= c && c <= '9' || c == '-'
}

// clone returns a deep copy of t.
func (t Type) clone() Type {
	if t.Elem != nil {
		e := t.Elem.clone()
		t.Elem = &e
	}
	if t.Fields != nil {
		t.Fields = cloneFields(t.Fields)
	}
	return t
}

func cloneFields(fs []Field) []Field {
	out := make([]Field, len(fs))
	for i, f := range fs {
		out[i] = Field{Name: f.Name, Type: f.Type.clone(), Description: f.Description}
	}
	return out
}

// public returns t without firewalled record fields, at every depth.
func (t Type) public() Type {
	switch t.Kind {
	case List, Set, Map:
		if t.Elem != nil {
			e := t.Elem.public()
			t.Elem = &e
		}
	case Record:
		fs := make([]Field, 0, len(t.Fields))
		for _, f := range t.Fields {
			if !f.Firewalled() {
				f.Type = f.Type.public()
				fs = append(fs, f)
			}
		}
		t.Fields = fs
	}
	return t
}

// elem returns the element type of a list or the value type of a map
// (:any when unset).
func (t Type) elem() Type {
	if t.Elem == nil {
		return Type{}
	}
	return *t.Elem
}
