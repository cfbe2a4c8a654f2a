package signature

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/ptc-go/ptc/internal/textutil"
	"github.com/ptc-go/ptc/lisp"
)

// Signature is the contract of an agent or a tool: named input parameters
// and an output type. Parse one from text or build it directly.
//
// A Signature is meant to be shared and read concurrently: Public and
// WithDescriptions return modified copies and never change the receiver.
type Signature struct {
	// Params are the input parameters, in declared order. Firewalled
	// parameters (named with a leading underscore) are allowed but not
	// useful: the caller still has to provide them.
	Params []Field
	// Output is the type of the result.
	Output Type
}

// Param returns the parameter called name.
func (s *Signature) Param(name string) (Field, bool) {
	for _, f := range s.Params {
		if f.Name == name {
			return f, true
		}
	}
	return Field{}, false
}

// InputType returns the parameters as a record type: the type the map of
// arguments of a call must have.
func (s *Signature) InputType() Type { return recordOf(s.Params...) }

// String returns the compact canonical form,
//
//	(query :string, limit :int?) -> [{id :int}]
//
// which Parse reads back into an equal signature (descriptions aside).
func (s *Signature) String() string { return s.Render(RenderOptions{}) }

// RenderOptions select what Render shows.
type RenderOptions struct {
	// HideFirewalled drops the firewalled fields of the output type, at
	// every depth: the form a parent agent sees when the agent or tool is
	// one of its tools.
	HideFirewalled bool
	// MarkFirewalled keeps the firewalled output fields and ends with a
	// line naming them, "; hidden from you: _email, items._ssn": the form a
	// model is shown of a tool it calls. It wins over HideFirewalled.
	MarkFirewalled bool
	// Descriptions appends one comment line per described field,
	// "; path: description", parameters first, with the dotted paths of
	// WithDescriptions; the text stays parseable.
	Descriptions bool
}

// Render returns the compact form of the signature for a prompt:
//
//	(query :string, limit :int?) -> {count :int, items [{id :int}]}
//	; query: what to search for
//	; items.id: the item's id
func (s *Signature) Render(opts RenderOptions) string {
	var sb strings.Builder
	hide := opts.HideFirewalled && !opts.MarkFirewalled
	sb.WriteByte('(')
	writeFields(&sb, s.Params, false)
	sb.WriteString(") -> ")
	s.Output.write(&sb, hide)
	if opts.Descriptions {
		var lines []string
		collectDescriptions(&lines, "", s.Params, false)
		collectDescriptions(&lines, "", s.Output.recordFields(), hide)
		for _, l := range lines {
			sb.WriteString("\n; ")
			sb.WriteString(l)
		}
	}
	if opts.MarkFirewalled {
		var paths []string
		firewalledPaths(&paths, "", s.Output.recordFields())
		if len(paths) > 0 {
			sb.WriteString("\n; hidden from you: ")
			sb.WriteString(strings.Join(paths, ", "))
		}
	}
	return sb.String()
}

// firewalledPaths collects the dotted paths of the firewalled fields, the
// fields below a firewalled one being hidden with it.
func firewalledPaths(paths *[]string, prefix string, fields []Field) {
	for _, f := range fields {
		path := prefix + f.Name
		if f.Firewalled() {
			*paths = append(*paths, path)
			continue
		}
		firewalledPaths(paths, path+".", f.Type.recordFields())
	}
}

// recordFields returns the fields of a record type, looking through lists
// and the values of maps from strings.
func (t Type) recordFields() []Field {
	for t.Kind == List || t.IsMapOf() {
		t = t.elem()
	}
	if t.Kind == Record {
		return t.Fields
	}
	return nil
}

func collectDescriptions(lines *[]string, prefix string, fields []Field, hide bool) {
	for _, f := range fields {
		if hide && f.Firewalled() {
			continue
		}
		path := prefix + f.Name
		if f.Description != "" {
			*lines = append(*lines, path+": "+textutil.OneLine(f.Description))
		}
		collectDescriptions(lines, path+".", f.Type.recordFields(), hide)
	}
}

// Public returns the signature as a parent agent sees it: without the
// firewalled fields of its output, at every depth. Parameters are kept: a
// caller has to provide them all.
func (s *Signature) Public() *Signature {
	return &Signature{Params: cloneFields(s.Params), Output: s.Output.clone().public()}
}

// WithDescriptions returns a copy of the signature with field descriptions
// attached (field_descriptions in the design documents, docs/deviations.md). Keys name fields by dotted paths
// through records, with lists and the values of maps from strings
// transparent: "query" names the parameter query or a top-level field of
// the output (both, when both exist), "user.name" a field of the record
// parameter or output field user, "items.id" the id of each element of
// items [{id :int}], and "by_id.name" the name of each value of by_id
// {:string {name :string}}. A key that names no field is an error, so
// that typos do not go unnoticed.
func (s *Signature) WithDescriptions(descriptions map[string]string) (*Signature, error) {
	c := &Signature{Params: cloneFields(s.Params), Output: s.Output.clone()}
	var unknown []string
	for key, desc := range descriptions {
		path := strings.Split(key, ".")
		inParams := describe(c.Params, path, desc)
		inOutput := describe(c.Output.recordFields(), path, desc)
		if !inParams && !inOutput {
			unknown = append(unknown, strconv.Quote(key))
		}
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		return nil, fmt.Errorf("signature: no field %s in %s to describe", strings.Join(unknown, ", "), s)
	}
	return c, nil
}

// describe sets the description of the field at path; fields must be
// owned by the caller.
func describe(fields []Field, path []string, desc string) bool {
	for i := range fields {
		if fields[i].Name != path[0] {
			continue
		}
		if len(path) == 1 {
			fields[i].Description = desc
			return true
		}
		return describe(fields[i].Type.recordFields(), path[1:], desc)
	}
	return false
}

// InputSchema returns a JSON Schema (draft 2020-12 vocabulary, as provider
// tool definitions and MCP use it) of the arguments: an object with one
// property per parameter, the non-optional ones required.
func (s *Signature) InputSchema() map[string]any {
	return s.InputType().JSONSchema()
}

// OutputSchema returns a JSON Schema of the output type.
func (s *Signature) OutputSchema() map[string]any {
	return s.Output.JSONSchema()
}

// JSONSchema returns a JSON Schema of the type, as data ready for
// encoding/json:
//
//	:string :keyword  {"type": "string"}
//	:int              {"type": "integer"}
//	:float            {"type": "number"}
//	:bool             {"type": "boolean"}
//	:map              {"type": "object"}
//	{:string :t}      {"type": "object", "additionalProperties": <t>}
//	:any              {}
//	[:t]              {"type": "array", "items": <t>}
//	{a :t, b :u?}     {"type": "object", "properties": {...}, "required": ["a"]}
//
// An optional type also accepts null ("type": ["integer", "null"]), and a
// field's description becomes its schema's "description".
func (t Type) JSONSchema() map[string]any {
	s := map[string]any{}
	var typ string
	switch t.Kind {
	case Any:
		return s
	case String, Keyword:
		typ = "string"
	case Int:
		typ = "integer"
	case Float:
		typ = "number"
	case Bool:
		typ = "boolean"
	case Map:
		typ = "object"
		if t.Elem != nil && t.Elem.Kind != Any {
			// {:string :any} is any object: its values are unchecked.
			s["additionalProperties"] = t.Elem.JSONSchema()
		}
	case List:
		typ = "array"
		s["items"] = t.elem().JSONSchema()
	case Set:
		typ = "array"
		s["items"] = t.elem().JSONSchema()
		s["uniqueItems"] = true
	case Date:
		typ = "string"
		s["format"] = "date"
	case Inst:
		typ = "string"
		s["format"] = "date-time"
	case Nil:
		return map[string]any{"type": "null"}
	case Record:
		typ = "object"
		props := map[string]any{}
		required := []string{}
		for _, f := range t.Fields {
			fs := f.Type.JSONSchema()
			if f.Description != "" {
				fs["description"] = f.Description
			}
			props[f.Name] = fs
			if !f.Type.Optional {
				required = append(required, f.Name)
			}
		}
		s["properties"] = props
		if len(required) > 0 {
			s["required"] = required
		}
	}
	if t.Optional {
		s["type"] = []string{typ, "null"}
	} else {
		s["type"] = typ
	}
	return s
}

// Positional maps positional arguments onto the parameters: a program's
// (tool/search "shoes" 10) arrives as {:args ["shoes" 10]}, which becomes
// {:query "shoes" :limit 10} for (query :string, limit :int). Other
// argument maps, and any when the signature has a parameter called args or
// none at all, are returned as they are. More values than parameters is a
// *ValidationError.
func (s *Signature) Positional(args *lisp.Map) (*lisp.Map, error) {
	if args.Len() != 1 {
		return args, nil
	}
	_, v, ok := lookup(args, "args")
	vec, isVec := v.(*lisp.Vector)
	if !ok || !isVec {
		return args, nil
	}
	if _, named := s.Param("args"); named || len(s.Params) == 0 {
		return args, nil
	}
	if vec.Len() > len(s.Params) {
		return nil, &ValidationError{Issues: []Issue{{Message: fmt.Sprintf(
			"too many arguments: got %d, the tool takes %d: %s",
			vec.Len(), len(s.Params), fieldList(s.Params))}}}
	}
	b := lisp.NewMapBuilder(nil)
	for i, x := range vec.Items() {
		b.Set(lisp.Keyword(s.Params[i].Name), x)
	}
	return b.Map(), nil
}
