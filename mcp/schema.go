package mcp

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ptc-go/ptc/signature"
)

// Schema conversion: an MCP tool's JSON Schemas (inputSchema, outputSchema)
// become one PTC signature, "(params) -> output", and a list of notes for
// what the signature cannot say. See the package documentation, "Schemas",
// for the mapping.

const (
	// schemaMaxDepth bounds the nesting converted; deeper parts are :any.
	schemaMaxDepth = 16
	// schemaPartChars bounds each piece of a note (a description, an enum).
	schemaPartChars = 200
	// schemaEnumShown is how many enum values a note lists.
	schemaEnumShown = 20
	// schemaNotesShown bounds the notes appended to a tool's description;
	// Infos has them all.
	schemaNotesShown = 40
)

// schemaConversion is the result of converting a tool's schemas.
type schemaConversion struct {
	sig      *signature.Signature
	notes    []string
	required map[string]bool // the required parameters
}

// schemaNote is the note of one path, filled in after its children were
// visited so that a parent's note comes first.
type schemaNote struct {
	path  string
	parts []string
}

// schemaConverter converts one schema document.
type schemaConverter struct {
	root   map[string]any  // the document, for local $refs
	active map[string]bool // the $refs being expanded (recursion guard)
	notes  []*schemaNote
}

// convertSchemas converts a tool's input and output schemas (as decoded
// JSON: map[string]any, bool...; nil: none) into a signature and notes.
func convertSchemas(input, output any) schemaConversion {
	sig := &signature.Signature{}
	var notes []string
	required := map[string]bool{}

	in := &schemaConverter{active: map[string]bool{}}
	if m, ok := input.(map[string]any); ok {
		in.root = m
	}
	sig.Params = in.params(input, required)
	notes = append(notes, in.finish()...)

	out := &schemaConverter{active: map[string]bool{}}
	if output == nil {
		sig.Output = signature.Type{Kind: signature.Any}
	} else {
		if m, ok := output.(map[string]any); ok {
			out.root = m
		}
		sig.Output = out.node(output, "result", 0)
	}
	notes = append(notes, out.finish()...)
	return schemaConversion{sig: sig, notes: notes, required: required}
}

// params converts the input schema, an object, into parameters.
func (c *schemaConverter) params(s any, required map[string]bool) []signature.Field {
	if s == nil {
		return nil
	}
	slot := c.reserve("arguments")
	m, ok := s.(map[string]any)
	if !ok {
		slot.parts = append(slot.parts, "not a JSON Schema object, arguments are not checked")
		return nil
	}
	m, refNote, ok := c.deref(m)
	if refNote != "" {
		slot.parts = append(slot.parts, refNote)
	}
	if !ok {
		return nil
	}
	defer c.release(m)
	if d := schemaText(m["description"]); d != "" {
		slot.parts = append(slot.parts, d)
	}
	c.leftovers(m, &slot.parts)
	types, _ := schemaTypes(m)
	_, hasProps := m["properties"]
	if !(hasProps || len(types) == 1 && types[0] == "object") {
		slot.parts = append(slot.parts, "schema "+schemaBrief(m)+", arguments are not checked")
		return nil
	}
	fields := c.object(m, "", 0, &slot.parts)
	for _, f := range fields {
		if !f.Type.Optional {
			required[f.Name] = true
		}
	}
	if req, ok := m["required"].([]any); ok {
		for _, r := range req {
			if name, ok := r.(string); ok {
				required[name] = true
			}
		}
	}
	return fields
}

// reserve adds the note of path, to be filled in.
func (c *schemaConverter) reserve(path string) *schemaNote {
	n := &schemaNote{path: path}
	c.notes = append(c.notes, n)
	return n
}

// finish returns the non-empty notes, "path: part; part".
func (c *schemaConverter) finish() []string {
	var out []string
	for _, n := range c.notes {
		if len(n.parts) > 0 {
			out = append(out, n.path+": "+strings.Join(n.parts, "; "))
		}
	}
	return out
}

// deref follows a local $ref ("#/$defs/x", "#/definitions/x"): the target's
// keywords, overridden by the node's own. ok is false when the node is
// :any (an unresolved or recursive reference); note says why.
func (c *schemaConverter) deref(m map[string]any) (out map[string]any, note string, ok bool) {
	ref, isRef := m["$ref"].(string)
	if !isRef {
		return m, "", true
	}
	if c.active[ref] {
		return nil, "recursive reference " + ref + ", not expanded", false
	}
	target, found := schemaResolve(c.root, ref)
	if !found {
		return nil, "reference " + ref + " not resolved", false
	}
	merged := make(map[string]any, len(target)+len(m))
	for k, v := range target {
		merged[k] = v
	}
	for k, v := range m {
		if k != "$ref" {
			merged[k] = v
		}
	}
	merged["$ref"] = ref // remembered for release
	c.active[ref] = true
	return merged, "", true
}

// release ends the expansion of m's $ref, if any.
func (c *schemaConverter) release(m map[string]any) {
	if ref, ok := m["$ref"].(string); ok {
		delete(c.active, ref)
	}
}

// schemaResolve resolves a JSON pointer reference into the document.
func schemaResolve(root map[string]any, ref string) (map[string]any, bool) {
	if root == nil || !strings.HasPrefix(ref, "#") {
		return nil, false
	}
	ptr := strings.TrimPrefix(ref, "#")
	if ptr == "" {
		return root, true
	}
	tokens, err := parsePointer(ptr)
	if err != nil {
		return nil, false
	}
	var cur any = root
	for _, tok := range tokens {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = m[tok]; !ok {
			return nil, false
		}
	}
	m, ok := cur.(map[string]any)
	return m, ok
}

// node converts the schema at path into a type, recording its notes.
func (c *schemaConverter) node(s any, path string, depth int) signature.Type {
	slot := c.reserve(path)
	return c.shape(s, path, depth, &slot.parts)
}

// shape converts a schema, adding what the type cannot say to parts.
// Children get notes of their own.
func (c *schemaConverter) shape(s any, path string, depth int, parts *[]string) signature.Type {
	add := func(p string) { *parts = append(*parts, p) }
	anyType := signature.Type{Kind: signature.Any}
	var m map[string]any
	switch v := s.(type) {
	case bool:
		if !v {
			add("no value is valid (schema false)")
		}
		return anyType
	case map[string]any:
		m = v
	default:
		add("unreadable schema " + schemaJSON(s))
		return anyType
	}
	if depth > schemaMaxDepth {
		add(fmt.Sprintf("nested deeper than %d levels, not described", schemaMaxDepth))
		return anyType
	}
	m, refNote, ok := c.deref(m)
	if refNote != "" {
		add(refNote)
	}
	if !ok {
		return anyType
	}
	defer c.release(m)
	if d := schemaText(m["description"]); d != "" {
		add(d)
	}
	if dep, _ := m["deprecated"].(bool); dep {
		add("deprecated")
	}
	c.leftovers(m, parts)

	types, nullable := schemaTypes(m)
	var t signature.Type
	switch {
	case len(types) == 0 && (m["anyOf"] != nil || m["oneOf"] != nil || m["allOf"] != nil):
		t = c.composite(m, path, depth, parts)
	case len(types) == 0:
		t = anyType
		c.enumNotes(m, parts)
	case len(types) > 1:
		t = anyType
		add(strings.Join(types, " or "))
		c.enumNotes(m, parts)
	default:
		t = c.typed(types[0], m, path, depth, parts)
	}
	if nullable {
		t.Optional = true
	}
	if def, ok := m["default"]; ok {
		add("default " + schemaValue(def))
	}
	return t
}

// typed converts a schema of one JSON type.
func (c *schemaConverter) typed(typ string, m map[string]any, path string, depth int, parts *[]string) signature.Type {
	add := func(p string) { *parts = append(*parts, p) }
	var t signature.Type
	switch typ {
	case "string":
		t.Kind = signature.String
		c.enumNotes(m, parts)
		if f, ok := m["format"].(string); ok {
			add("format " + f)
		}
		if p, ok := m["pattern"].(string); ok {
			add("pattern " + schemaCut(p))
		}
		if r := schemaRange(m, "minLength", "", "maxLength", ""); r != "" {
			add("length " + r)
		}
		for _, k := range []string{"contentEncoding", "contentMediaType"} {
			if v, ok := m[k].(string); ok {
				add(k + " " + v)
			}
		}
	case "integer", "number":
		t.Kind = signature.Int
		if typ == "number" {
			t.Kind = signature.Float
		}
		c.enumNotes(m, parts)
		if r := schemaRange(m, "minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum"); r != "" {
			add(r)
		}
		if v, ok := m["multipleOf"]; ok {
			add("multiple of " + schemaValue(v))
		}
		if f, ok := m["format"].(string); ok {
			add("format " + f)
		}
	case "boolean":
		t.Kind = signature.Bool
		c.enumNotes(m, parts)
	case "null":
		t.Kind = signature.Any
		t.Optional = true
		add("always null")
	case "array":
		t = c.array(m, path, depth, parts)
	case "object":
		t = c.objectType(m, path, depth, parts)
	default:
		t.Kind = signature.Any
		add("unknown type " + strconv.Quote(typ))
	}
	return t
}

// array converts an array schema: [:elem]. Elements share the array's
// path; the notes of a scalar element join the array's, after "items:".
func (c *schemaConverter) array(m map[string]any, path string, depth int, parts *[]string) signature.Type {
	add := func(p string) { *parts = append(*parts, p) }
	elem := signature.Type{Kind: signature.Any}
	if prefix, ok := m["prefixItems"].([]any); ok {
		var kinds []string
		for _, p := range prefix {
			kinds = append(kinds, schemaBrief(p))
		}
		add(fmt.Sprintf("a tuple: %s", strings.Join(kinds, ", ")))
	} else if items, ok := m["items"]; ok {
		var sub []string
		elem = c.shape(items, path, depth+1, &sub)
		if len(sub) > 0 {
			add("items: " + strings.Join(sub, ", "))
		}
	}
	if r := schemaRange(m, "minItems", "", "maxItems", ""); r != "" {
		add(r + " items")
	}
	if u, _ := m["uniqueItems"].(bool); u {
		add("unique items")
	}
	c.enumNotes(m, parts)
	return signature.ListOf(elem)
}

// objectType converts an object schema: a record when it lists
// properties, else :map.
func (c *schemaConverter) objectType(m map[string]any, path string, depth int, parts *[]string) signature.Type {
	props, _ := m["properties"].(map[string]any)
	if len(props) == 0 {
		if ap, ok := m["additionalProperties"]; ok {
			if b, isBool := ap.(bool); !isBool || !b {
				if isBool {
					*parts = append(*parts, "an empty object")
				} else {
					*parts = append(*parts, "values: "+schemaBrief(ap))
				}
			}
		}
		c.enumNotes(m, parts)
		return signature.Type{Kind: signature.Map}
	}
	c.enumNotes(m, parts)
	return signature.RecordOf(c.object(m, path, depth, parts)...)
}

// object converts the properties of an object schema into fields, the
// required ones first, each group in name order (JSON objects are
// unordered once decoded, so the schema's order is not known).
func (c *schemaConverter) object(m map[string]any, path string, depth int, parts *[]string) []signature.Field {
	add := func(p string) { *parts = append(*parts, p) }
	props, _ := m["properties"].(map[string]any)
	required := map[string]bool{}
	if req, ok := m["required"].([]any); ok {
		for _, r := range req {
			if name, ok := r.(string); ok {
				required[name] = true
			}
		}
	}
	names := make([]string, 0, len(props))
	for name := range props {
		names = append(names, name)
	}
	sort.Slice(names, func(i, j int) bool {
		if required[names[i]] != required[names[j]] {
			return required[names[i]]
		}
		return names[i] < names[j]
	})
	var missing []string
	for name := range required {
		if _, ok := props[name]; !ok {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		slices.Sort(missing)
		add("also requires " + strings.Join(missing, ", "))
	}
	if ap, ok := m["additionalProperties"]; ok {
		if b, isBool := ap.(bool); isBool && !b {
			add("no other fields")
		} else if !isBool {
			add("other fields: " + schemaBrief(ap))
		}
	}
	fields := make([]signature.Field, 0, len(names))
	for _, name := range names {
		if name == "" {
			add("a field with an empty name is not described")
			continue
		}
		p := name
		if path != "" {
			p = path + "." + name
		}
		t := c.node(props[name], p, depth+1)
		if !required[name] {
			t.Optional = true
		}
		fields = append(fields, signature.Field{Name: name, Type: t})
	}
	return fields
}

// composite converts anyOf, oneOf and allOf without a type of their own.
// A nullable form (anyOf [X, {"type": "null"}]) is X?; a single
// alternative is that alternative; allOf of objects merges them;
// anything else is :any with a note listing the alternatives.
func (c *schemaConverter) composite(m map[string]any, path string, depth int, parts *[]string) signature.Type {
	for _, kw := range []string{"anyOf", "oneOf"} {
		alts, ok := m[kw].([]any)
		if !ok {
			continue
		}
		var rest []any
		nullable := false
		for _, a := range alts {
			if am, ok := a.(map[string]any); ok && len(am) == 1 && am["type"] == "null" {
				nullable = true
				continue
			}
			rest = append(rest, a)
		}
		var t signature.Type
		if len(rest) == 1 {
			t = c.shape(rest[0], path, depth+1, parts)
		} else {
			t = signature.Type{Kind: signature.Any}
			var briefs []string
			for _, a := range rest {
				briefs = append(briefs, schemaBrief(a))
			}
			word := "any of"
			if kw == "oneOf" {
				word = "one of"
			}
			*parts = append(*parts, word+": "+strings.Join(briefs, " | "))
		}
		if nullable {
			t.Optional = true
		}
		return t
	}
	alls, _ := m["allOf"].([]any)
	if len(alls) == 1 {
		return c.shape(alls[0], path, depth+1, parts)
	}
	merged := map[string]any{"type": "object"}
	props := map[string]any{}
	var req []any
	for _, a := range alls {
		am, ok := a.(map[string]any)
		if ok {
			var note string
			am, note, ok = c.deref(am)
			if note != "" {
				*parts = append(*parts, note)
			}
			if ok {
				c.release(am)
			}
		}
		if !ok {
			merged = nil
			break
		}
		p, hasProps := am["properties"].(map[string]any)
		if types, _ := schemaTypes(am); !hasProps && !(len(types) == 1 && types[0] == "object") {
			merged = nil
			break
		}
		for k, v := range p {
			props[k] = v
		}
		if r, ok := am["required"].([]any); ok {
			req = append(req, r...)
		}
	}
	if merged != nil {
		merged["properties"] = props
		merged["required"] = req
		return c.objectType(merged, path, depth, parts)
	}
	var briefs []string
	for _, a := range alls {
		briefs = append(briefs, schemaBrief(a))
	}
	*parts = append(*parts, "all of: "+strings.Join(briefs, " & "))
	return signature.Type{Kind: signature.Any}
}

// enumNotes notes enum and const.
func (c *schemaConverter) enumNotes(m map[string]any, parts *[]string) {
	if vals, ok := m["enum"].([]any); ok {
		shown := vals
		if len(shown) > schemaEnumShown {
			shown = shown[:schemaEnumShown]
		}
		strs := make([]string, len(shown))
		for i, v := range shown {
			strs[i] = schemaValue(v)
		}
		s := "one of " + strings.Join(strs, ", ")
		if len(vals) > len(shown) {
			s += fmt.Sprintf(" (and %d more)", len(vals)-len(shown))
		}
		*parts = append(*parts, s)
	}
	if v, ok := m["const"]; ok {
		*parts = append(*parts, "always "+schemaValue(v))
	}
}

// schemaHandled reports the keywords the converter reads or deliberately
// ignores (annotations that say nothing about valid values).
func schemaHandled(k string) bool {
	switch k {
	case "type", "description", "properties", "required", "items", "prefixItems", "enum", "const", "format",
		"pattern", "minLength", "maxLength", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
		"multipleOf", "minItems", "maxItems", "uniqueItems", "additionalProperties", "anyOf", "oneOf", "allOf",
		"$ref", "default", "nullable", "deprecated", "contentEncoding", "contentMediaType",
		// annotations and containers
		"$schema", "$id", "$comment", "$anchor", "$defs", "definitions", "title", "examples", "readOnly", "writeOnly":
		return true
	}
	return false
}

// leftovers notes the keywords the converter does not know (not, if,
// patternProperties, dependentRequired...), compactly, so that nothing a
// server says about valid values is silently dropped. x- extensions are
// skipped.
func (c *schemaConverter) leftovers(m map[string]any, parts *[]string) {
	var keys []string
	for k := range m {
		if !schemaHandled(k) && !strings.HasPrefix(k, "x-") {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		*parts = append(*parts, k+" "+schemaCut(schemaJSON(m[k])))
	}
	anyOf, _ := m["anyOf"].([]any)
	oneOf, _ := m["oneOf"].([]any)
	allOf, _ := m["allOf"].([]any)
	if len(anyOf) > 0 || len(oneOf) > 0 || len(allOf) > 0 {
		if types, _ := schemaTypes(m); len(types) > 0 {
			// a type and alternatives: the type is converted, the
			// alternatives noted.
			for _, kw := range []string{"anyOf", "oneOf", "allOf"} {
				if alts, ok := m[kw].([]any); ok {
					var briefs []string
					for _, a := range alts {
						briefs = append(briefs, schemaBrief(a))
					}
					*parts = append(*parts, kw+": "+strings.Join(briefs, " | "))
				}
			}
		}
	}
}

// schemaTypes returns the JSON types a schema names, without "null", and
// whether null is allowed ("type": ["string", "null"], "nullable": true).
// Without "type", the type is inferred from properties, items, enum or const.
func schemaTypes(m map[string]any) (types []string, nullable bool) {
	switch t := m["type"].(type) {
	case string:
		types = []string{t}
	case []any:
		for _, x := range t {
			if s, ok := x.(string); ok {
				types = append(types, s)
			}
		}
	}
	if n, _ := m["nullable"].(bool); n {
		nullable = true
	}
	if len(types) == 0 {
		switch {
		case m["properties"] != nil || m["additionalProperties"] != nil:
			types = []string{"object"}
		case m["items"] != nil || m["prefixItems"] != nil:
			types = []string{"array"}
		case m["enum"] != nil || m["const"] != nil:
			vals, _ := m["enum"].([]any)
			if v, ok := m["const"]; ok {
				vals = append(vals, v)
			}
			for _, v := range vals {
				if jt := jsonTypeOf(v); !slices.Contains(types, jt) {
					types = append(types, jt)
				}
			}
		}
	}
	out := types[:0:0]
	for _, t := range types {
		if t == "null" {
			nullable = true
			continue
		}
		out = append(out, t)
	}
	if len(out) == 0 && len(types) > 0 {
		out = []string{"null"} // only null
		nullable = true
	}
	// integer and number together are a number.
	if len(out) == 2 && slices.Contains(out, "integer") && slices.Contains(out, "number") {
		out = []string{"number"}
	}
	return out, nullable
}

// jsonTypeOf is the JSON Schema type of a decoded JSON value.
func jsonTypeOf(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case float64:
		if x == math.Trunc(x) {
			return "integer"
		}
		return "number"
	case json.Number:
		if _, err := x.Int64(); err == nil {
			return "integer"
		}
		return "number"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return "any"
}

// schemaRange renders min/max keywords: "1..100", ">= 0", "< 10".
func schemaRange(m map[string]any, minK, exMinK, maxK, exMaxK string) string {
	lo, hasLo := m[minK]
	hi, hasHi := m[maxK]
	var exLo, exHi any
	var hasExLo, hasExHi bool
	if exMinK != "" {
		exLo, hasExLo = m[exMinK]
		if _, isBool := exLo.(bool); isBool { // draft 4: a flag on minimum
			hasExLo = exLo == true && hasLo
			exLo = lo
		}
	}
	if exMaxK != "" {
		exHi, hasExHi = m[exMaxK]
		if _, isBool := exHi.(bool); isBool {
			hasExHi = exHi == true && hasHi
			exHi = hi
		}
	}
	switch {
	case hasLo && hasHi && !hasExLo && !hasExHi:
		return schemaValue(lo) + ".." + schemaValue(hi)
	}
	var rs []string
	if hasExLo {
		rs = append(rs, "> "+schemaValue(exLo))
	} else if hasLo {
		rs = append(rs, ">= "+schemaValue(lo))
	}
	if hasExHi {
		rs = append(rs, "< "+schemaValue(exHi))
	} else if hasHi {
		rs = append(rs, "<= "+schemaValue(hi))
	}
	return strings.Join(rs, ", ")
}

// schemaBrief summarizes a schema in a few words, for alternatives and
// map values: "string", "integer", "object {id, name}", "one of a, b".
func schemaBrief(s any) string {
	m, ok := s.(map[string]any)
	if !ok {
		return schemaCut(schemaJSON(s))
	}
	if ref, ok := m["$ref"].(string); ok {
		return ref
	}
	if v, ok := m["const"]; ok {
		return schemaValue(v)
	}
	if vals, ok := m["enum"].([]any); ok && len(vals) <= schemaEnumShown {
		strs := make([]string, len(vals))
		for i, v := range vals {
			strs[i] = schemaValue(v)
		}
		return strings.Join(strs, "/")
	}
	types, nullable := schemaTypes(m)
	var b string
	switch {
	case len(types) == 0:
		b = "any"
		if _, ok := m["anyOf"]; ok {
			b = "anyOf"
		} else if _, ok := m["oneOf"]; ok {
			b = "oneOf"
		}
	case len(types) == 1 && types[0] == "object":
		props, _ := m["properties"].(map[string]any)
		names := make([]string, 0, len(props))
		for k := range props {
			names = append(names, k)
		}
		slices.Sort(names)
		b = "object"
		if len(names) > 0 {
			b += " {" + strings.Join(names, ", ") + "}"
		}
	case len(types) == 1 && types[0] == "array":
		b = "array"
		if items, ok := m["items"]; ok {
			b = "array of " + schemaBrief(items)
		}
	default:
		b = strings.Join(types, "/")
	}
	if nullable {
		b += " or null"
	}
	return schemaCut(b)
}

// schemaValue renders a JSON value in a note: plain words bare, other
// strings and values as JSON.
func schemaValue(v any) string {
	if s, ok := v.(string); ok && s != "" && !strings.ContainsAny(s, " ,;\"'\n\t|/") && len(s) <= 60 {
		return s
	}
	return schemaCut(schemaJSON(v))
}

// schemaJSON is v as compact JSON (keys sorted).
func schemaJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// schemaText is a description folded onto one line and bounded.
func schemaText(v any) string {
	s, _ := v.(string)
	return schemaCut(strings.Join(strings.Fields(s), " "))
}

// schemaCut bounds a piece of a note.
func schemaCut(s string) string {
	if len(s) <= schemaPartChars {
		return s
	}
	cut := schemaPartChars
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
