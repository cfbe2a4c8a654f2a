package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/ptc-go/ptc/internal/textutil"
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
	// schemaListShown bounds the alternatives, tuple items and names a
	// note lists.
	schemaListShown = 20
	// schemaCheckEvery is how often (in units of work) the conversion
	// looks at its context.
	schemaCheckEvery = 1024
)

// schemaConversion is the result of converting a tool's schemas.
type schemaConversion struct {
	sig      *signature.Signature
	notes    []string
	required map[string]bool // the required parameters
	work     int             // the units of work spent
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
	work   *schemaWork
}

// schemaWork is the budget of one conversion. A schema is small as text
// but its local $refs may expand into exponentially many nodes: every
// step of the conversion spends from the budget, and once it is spent (or
// the context is done) the conversion stops, leaving what it did not
// convert as :any.
type schemaWork struct {
	ctx   context.Context
	used  int
	limit int
	out   bool  // the budget ran out
	err   error // the context's error, once seen
}

// spend spends n units; it reports whether the conversion may go on.
func (w *schemaWork) spend(n int) bool {
	if w.stopped() {
		return false
	}
	before := w.used
	w.used += n
	if w.used/schemaCheckEvery != before/schemaCheckEvery {
		if err := w.ctx.Err(); err != nil {
			w.err = err
			return false
		}
	}
	if w.used > w.limit {
		w.out = true
		return false
	}
	return true
}

func (w *schemaWork) stopped() bool { return w.out || w.err != nil }

// textCost is what producing s costs: one unit, and one per 64 bytes.
func textCost(s string) int { return 1 + len(s)/64 }

// convertSchemas converts a tool's input and output schemas (as decoded
// JSON: map[string]any, bool...; nil: none) into a signature and notes,
// within work units of work (see Limits.SchemaWork). Past them, what is
// left is :any and the first note says so. The error is ctx's, when it
// ends during the conversion.
func convertSchemas(ctx context.Context, input, output any, work int) (schemaConversion, error) {
	sig := &signature.Signature{}
	var notes []string
	required := map[string]bool{}
	w := &schemaWork{ctx: ctx, limit: work}
	if err := ctx.Err(); err != nil {
		return schemaConversion{}, err
	}

	in := &schemaConverter{active: map[string]bool{}, work: w}
	if m, ok := input.(map[string]any); ok {
		in.root = m
	}
	sig.Params = in.params(input, required)
	notes = append(notes, in.finish()...)

	out := &schemaConverter{active: map[string]bool{}, work: w}
	if output == nil {
		sig.Output = signature.Type{Kind: signature.Any}
	} else {
		if m, ok := output.(map[string]any); ok {
			out.root = m
		}
		sig.Output = out.node(output, "result", 0)
	}
	notes = append(notes, out.finish()...)
	if w.err != nil {
		return schemaConversion{}, w.err
	}
	if w.out {
		notes = append([]string{fmt.Sprintf("schema: too large to convert in full (more than %d units of work, Limits.SchemaWork): "+
			"the parts not converted are :any or left out; the tool's JSON Schema has them", w.limit)}, notes...)
	}
	return schemaConversion{sig: sig, notes: notes, required: required, work: w.used}, nil
}

// params converts the input schema, an object, into parameters.
func (c *schemaConverter) params(s any, required map[string]bool) []signature.Field {
	if s == nil {
		return nil
	}
	slot := c.reserve("arguments")
	m, ok := s.(map[string]any)
	if !ok {
		c.add(&slot.parts, "not a JSON Schema object, arguments are not checked")
		return nil
	}
	if !c.work.spend(1) {
		return nil
	}
	m, refNote, ok := c.deref(m)
	if refNote != "" {
		c.add(&slot.parts, refNote)
	}
	if !ok {
		return nil
	}
	defer c.release(m)
	if d := schemaText(m["description"]); d != "" {
		c.add(&slot.parts, d)
	}
	c.leftovers(m, &slot.parts)
	types, _ := c.types(m)
	_, hasProps := m["properties"]
	if !(hasProps || len(types) == 1 && types[0] == "object") {
		c.add(&slot.parts, "schema "+c.brief(m)+", arguments are not checked")
		return nil
	}
	fields := c.object(m, "", 0, &slot.parts)
	for _, f := range fields {
		if !f.Type.Optional {
			required[f.Name] = true
		}
	}
	if req, ok := m["required"].([]any); ok && c.work.spend(len(req)) {
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

// add adds a piece of a note, paying for its text. A conversion out of
// budget adds nothing: the note saying so replaces the rest.
func (c *schemaConverter) add(parts *[]string, p string) {
	if c.work.spend(textCost(p)) {
		*parts = append(*parts, p)
	}
}

// finish returns the non-empty notes, "path: part; part".
func (c *schemaConverter) finish() []string {
	var out []string
	for _, n := range c.notes {
		if len(n.parts) > 0 {
			out = append(out, schemaCut(n.path)+": "+strings.Join(n.parts, "; "))
		}
	}
	return out
}

// deref follows a local $ref ("#/$defs/x", "#/definitions/x"): the target's
// keywords, overridden by the node's own. ok is false when the node is
// :any (an unresolved or recursive reference, or the budget spent); note
// says why.
func (c *schemaConverter) deref(m map[string]any) (out map[string]any, note string, ok bool) {
	ref, isRef := m["$ref"].(string)
	if !isRef {
		return m, "", true
	}
	if c.active[ref] {
		return nil, "recursive reference " + schemaCut(ref) + ", not expanded", false
	}
	target, found := schemaResolve(c.root, ref)
	if !found {
		return nil, "reference " + schemaCut(ref) + " not resolved", false
	}
	if !c.work.spend(len(target) + len(m) + textCost(ref)) {
		return nil, "", false
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
	add := func(p string) { c.add(parts, p) }
	anyType := signature.Type{Kind: signature.Any}
	if !c.work.spend(1) {
		return anyType
	}
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
		add("unreadable schema " + c.jsonText(s))
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

	types, nullable := c.types(m)
	var t signature.Type
	switch {
	case len(types) == 0 && (m["anyOf"] != nil || m["oneOf"] != nil || m["allOf"] != nil):
		t = c.composite(m, path, depth, parts)
	case len(types) == 0:
		t = anyType
		c.enumNotes(m, parts)
	case len(types) > 1:
		t = anyType
		add(c.join(types, " or "))
		c.enumNotes(m, parts)
	default:
		t = c.typed(types[0], m, path, depth, parts)
	}
	if nullable {
		t.Optional = true
	}
	if def, ok := m["default"]; ok {
		add("default " + c.value(def))
	}
	// An example shows the format a server wants (ids written
	// TRK-000123), which a type alone does not: the first one is enough.
	if ex, ok := m["examples"].([]any); ok && len(ex) > 0 {
		add("e.g. " + c.value(ex[0]))
	}
	return t
}

// typed converts a schema of one JSON type.
func (c *schemaConverter) typed(typ string, m map[string]any, path string, depth int, parts *[]string) signature.Type {
	add := func(p string) { c.add(parts, p) }
	var t signature.Type
	switch typ {
	case "string":
		t.Kind = signature.String
		c.enumNotes(m, parts)
		if f, ok := m["format"].(string); ok {
			add("format " + schemaCut(f))
		}
		if p, ok := m["pattern"].(string); ok {
			add("pattern " + schemaCut(p))
		}
		if r := c.rangeText(m, "minLength", "", "maxLength", ""); r != "" {
			add("length " + r)
		}
		for _, k := range []string{"contentEncoding", "contentMediaType"} {
			if v, ok := m[k].(string); ok {
				add(k + " " + schemaCut(v))
			}
		}
	case "integer", "number":
		t.Kind = signature.Int
		if typ == "number" {
			t.Kind = signature.Float
		}
		c.enumNotes(m, parts)
		if r := c.rangeText(m, "minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum"); r != "" {
			add(r)
		}
		if v, ok := m["multipleOf"]; ok {
			add("multiple of " + c.value(v))
		}
		if f, ok := m["format"].(string); ok {
			add("format " + schemaCut(f))
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
		add("unknown type " + strconv.Quote(schemaCut(typ)))
	}
	return t
}

// array converts an array schema: [:elem]. Elements share the array's
// path; the notes of a scalar element join the array's, after "items:".
func (c *schemaConverter) array(m map[string]any, path string, depth int, parts *[]string) signature.Type {
	add := func(p string) { c.add(parts, p) }
	elem := signature.Type{Kind: signature.Any}
	if prefix, ok := m["prefixItems"].([]any); ok {
		var kinds []string
		for _, p := range prefix {
			if len(kinds) == schemaListShown || !c.work.spend(1) {
				break
			}
			kinds = append(kinds, c.brief(p))
		}
		add(fmt.Sprintf("a tuple: %s", c.more(strings.Join(kinds, ", "), len(prefix)-len(kinds))))
	} else if items, ok := m["items"]; ok {
		var sub []string
		elem = c.shape(items, path, depth+1, &sub)
		if len(sub) > 0 {
			add("items: " + strings.Join(sub, ", "))
		}
	}
	if r := c.rangeText(m, "minItems", "", "maxItems", ""); r != "" {
		add(r + " items")
	}
	if u, _ := m["uniqueItems"].(bool); u {
		add("unique items")
	}
	c.enumNotes(m, parts)
	return signature.ListOf(elem)
}

// objectType converts an object schema: a record when it lists
// properties, a map from strings {:string :t} when additionalProperties
// gives the values' schema, else :map. The values of a map share its
// path, as the elements of an array do; the notes of a scalar value join
// the map's, after "values:".
func (c *schemaConverter) objectType(m map[string]any, path string, depth int, parts *[]string) signature.Type {
	props, _ := m["properties"].(map[string]any)
	if len(props) == 0 {
		t := signature.Type{Kind: signature.Map}
		if ap, ok := m["additionalProperties"]; ok {
			if b, isBool := ap.(bool); isBool {
				if !b {
					c.add(parts, "an empty object")
				}
			} else {
				var sub []string
				if elem := c.shape(ap, path, depth+1, &sub); elem.Kind != signature.Any || elem.Optional {
					t = signature.MapOf(elem)
				}
				if len(sub) > 0 {
					c.add(parts, "values: "+strings.Join(sub, ", "))
				}
			}
		}
		c.enumNotes(m, parts)
		return t
	}
	c.enumNotes(m, parts)
	return signature.Type{Kind: signature.Record, Fields: c.object(m, path, depth, parts)}
}

// object converts the properties of an object schema into fields, the
// required ones first, each group in name order (JSON objects are
// unordered once decoded, so the schema's order is not known). When the
// budget runs out, the fields not converted yet are left out.
func (c *schemaConverter) object(m map[string]any, path string, depth int, parts *[]string) []signature.Field {
	add := func(p string) { c.add(parts, p) }
	props, _ := m["properties"].(map[string]any)
	req, _ := m["required"].([]any)
	if !c.work.spend(len(props) + len(req)) {
		return nil
	}
	required := map[string]bool{}
	for _, r := range req {
		if name, ok := r.(string); ok {
			required[name] = true
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
		add("also requires " + c.join(missing, ", "))
	}
	if ap, ok := m["additionalProperties"]; ok {
		if b, isBool := ap.(bool); isBool && !b {
			add("no other fields")
		} else if !isBool {
			add("other fields: " + c.brief(ap))
		}
	}
	fields := make([]signature.Field, 0, len(names))
	for _, name := range names {
		if name == "" {
			add("a field with an empty name is not described")
			continue
		}
		// The name is kept whole (programs send it back), so it is paid for.
		if !c.work.spend(textCost(name)) {
			break
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
	anyType := signature.Type{Kind: signature.Any}
	for _, kw := range []string{"anyOf", "oneOf"} {
		alts, ok := m[kw].([]any)
		if !ok {
			continue
		}
		if !c.work.spend(len(alts)) {
			return anyType
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
			t = anyType
			word := "any of"
			if kw == "oneOf" {
				word = "one of"
			}
			c.add(parts, word+": "+c.briefs(rest, " | "))
		}
		if nullable {
			t.Optional = true
		}
		return t
	}
	alls, _ := m["allOf"].([]any)
	if !c.work.spend(len(alls)) {
		return anyType
	}
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
				c.add(parts, note)
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
		if types, _ := c.types(am); !hasProps && !(len(types) == 1 && types[0] == "object") {
			merged = nil
			break
		}
		r, _ := am["required"].([]any)
		if !c.work.spend(len(p) + len(r)) {
			return anyType
		}
		for k, v := range p {
			props[k] = v
		}
		req = append(req, r...)
	}
	if merged != nil {
		merged["properties"] = props
		merged["required"] = req
		return c.objectType(merged, path, depth, parts)
	}
	c.add(parts, "all of: "+c.briefs(alls, " & "))
	return anyType
}

// enumNotes notes enum and const.
func (c *schemaConverter) enumNotes(m map[string]any, parts *[]string) {
	if vals, ok := m["enum"].([]any); ok {
		shown := vals[:min(len(vals), schemaEnumShown)]
		strs := make([]string, 0, len(shown))
		for _, v := range shown {
			if !c.work.spend(1) {
				return
			}
			strs = append(strs, c.value(v))
		}
		s := "one of " + strings.Join(strs, ", ")
		if len(vals) > len(shown) {
			s += fmt.Sprintf(" (and %d more)", len(vals)-len(shown))
		}
		c.add(parts, s)
	}
	if v, ok := m["const"]; ok {
		c.add(parts, "always "+c.value(v))
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
	if !c.work.spend(len(m)) {
		return
	}
	var keys []string
	for k := range m {
		if !schemaHandled(k) && !strings.HasPrefix(k, "x-") {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		c.add(parts, schemaCut(k)+" "+c.jsonText(m[k]))
	}
	anyOf, _ := m["anyOf"].([]any)
	oneOf, _ := m["oneOf"].([]any)
	allOf, _ := m["allOf"].([]any)
	if len(anyOf) > 0 || len(oneOf) > 0 || len(allOf) > 0 {
		if types, _ := c.types(m); len(types) > 0 {
			// a type and alternatives: the type is converted, the
			// alternatives noted.
			for _, kw := range []string{"anyOf", "oneOf", "allOf"} {
				if alts, ok := m[kw].([]any); ok {
					c.add(parts, kw+": "+c.briefs(alts, " | "))
				}
			}
		}
	}
}

// types returns the JSON types a schema names, without "null", and
// whether null is allowed ("type": ["string", "null"], "nullable": true).
// Without "type", the type is inferred from properties, items, enum or const.
func (c *schemaConverter) types(m map[string]any) (types []string, nullable bool) {
	switch t := m["type"].(type) {
	case string:
		types = []string{t}
	case []any:
		if !c.work.spend(len(t)) {
			return nil, false
		}
		for _, x := range t {
			if s, ok := x.(string); ok && !slices.Contains(types, s) {
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
				vals = append(vals[:len(vals):len(vals)], v)
			}
			if !c.work.spend(len(vals)) {
				return nil, false
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

// rangeText renders min/max keywords: "1..100", ">= 0", "< 10".
func (c *schemaConverter) rangeText(m map[string]any, minK, exMinK, maxK, exMaxK string) string {
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
		return c.value(lo) + ".." + c.value(hi)
	}
	var rs []string
	if hasExLo {
		rs = append(rs, "> "+c.value(exLo))
	} else if hasLo {
		rs = append(rs, ">= "+c.value(lo))
	}
	if hasExHi {
		rs = append(rs, "< "+c.value(exHi))
	} else if hasHi {
		rs = append(rs, "<= "+c.value(hi))
	}
	return strings.Join(rs, ", ")
}

// brief summarizes a schema in a few words, for alternatives and
// map values: "string", "integer", "object {id, name}", "one of a, b".
func (c *schemaConverter) brief(s any) string {
	m, ok := s.(map[string]any)
	if !ok {
		return c.jsonText(s)
	}
	if ref, ok := m["$ref"].(string); ok {
		return schemaCut(ref)
	}
	if v, ok := m["const"]; ok {
		return c.value(v)
	}
	if vals, ok := m["enum"].([]any); ok && len(vals) <= schemaEnumShown {
		strs := make([]string, len(vals))
		for i, v := range vals {
			strs[i] = c.value(v)
		}
		return schemaCut(strings.Join(strs, "/"))
	}
	types, nullable := c.types(m)
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
		if !c.work.spend(len(props)) {
			return "object"
		}
		names := make([]string, 0, len(props))
		for k := range props {
			names = append(names, k)
		}
		slices.Sort(names)
		b = "object"
		if len(names) > 0 {
			b += " {" + c.join(names, ", ") + "}"
		}
	case len(types) == 1 && types[0] == "array":
		b = "array"
		if items, ok := m["items"]; ok && c.work.spend(1) {
			b = "array of " + c.brief(items)
		}
	default:
		b = c.join(types, "/")
	}
	if nullable {
		b += " or null"
	}
	return schemaCut(b)
}

// briefs summarizes alternatives: at most schemaListShown of them.
func (c *schemaConverter) briefs(alts []any, sep string) string {
	var bs []string
	for _, a := range alts {
		if len(bs) == schemaListShown || !c.work.spend(1) {
			break
		}
		bs = append(bs, c.brief(a))
	}
	return c.more(strings.Join(bs, sep), len(alts)-len(bs))
}

// join joins at most schemaListShown strings, cut, saying how many more.
func (c *schemaConverter) join(ss []string, sep string) string {
	shown := ss[:min(len(ss), schemaListShown)]
	cut := make([]string, len(shown))
	for i, s := range shown {
		cut[i] = schemaCut(s)
	}
	return c.more(schemaCut(strings.Join(cut, sep)), len(ss)-len(shown))
}

// more appends "(and n more)" when n > 0.
func (c *schemaConverter) more(s string, n int) string {
	if n > 0 {
		return fmt.Sprintf("%s (and %d more)", s, n)
	}
	return s
}

// value renders a JSON value in a note: plain words bare, other
// strings and values as JSON.
func (c *schemaConverter) value(v any) string {
	if s, ok := v.(string); ok && s != "" && !strings.ContainsAny(s, " ,;\"'\n\t|/") && len(s) <= 60 {
		return s
	}
	return c.jsonText(v)
}

// jsonText is v as compact JSON (keys sorted), cut to schemaPartChars:
// only what is shown is rendered, each element paid for.
func (c *schemaConverter) jsonText(v any) string {
	var sb strings.Builder
	full := c.writeJSON(&sb, v)
	s := sb.String()
	if len(s) > schemaPartChars {
		return schemaCut(s)
	}
	if !full {
		return s + "…"
	}
	return s
}

// writeJSON writes v as JSON until schemaPartChars bytes are written or
// the budget is spent; it reports whether v was written whole.
func (c *schemaConverter) writeJSON(sb *strings.Builder, v any) bool {
	if sb.Len() > schemaPartChars || !c.work.spend(1) {
		return false
	}
	switch x := v.(type) {
	case map[string]any:
		if !c.work.spend(len(x)) {
			return false
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		sb.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				sb.WriteByte(',')
			}
			writeJSONString(sb, k)
			sb.WriteByte(':')
			if !c.writeJSON(sb, x[k]) {
				return false
			}
		}
		sb.WriteByte('}')
	case []any:
		sb.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				sb.WriteByte(',')
			}
			if !c.writeJSON(sb, e) {
				return false
			}
		}
		sb.WriteByte(']')
	case string:
		writeJSONString(sb, x)
	default:
		b, err := json.Marshal(x) // a number, a boolean, null
		if err != nil {
			sb.WriteString(fmt.Sprint(x))
		} else {
			sb.Write(b)
		}
	}
	return sb.Len() <= schemaPartChars
}

// writeJSONString writes s as a JSON string, at most schemaPartChars of it.
func writeJSONString(sb *strings.Builder, s string) {
	b, _ := json.Marshal(textutil.TruncateBytes(s, schemaPartChars+1))
	sb.Write(b)
}

// schemaText is a description folded onto one line and bounded.
func schemaText(v any) string {
	s, _ := v.(string)
	return schemaCut(textutil.OneLine(textutil.TruncateBytes(s, 4*schemaPartChars)))
}

// schemaCut bounds a piece of a note.
func schemaCut(s string) string { return textutil.ClipBytes(s, schemaPartChars) }
