// Package signature implements signatures: the typed contracts of agents
// and tools. A signature names the inputs a caller provides and the type of
// the output:
//
//	(query :string, limit :int?) -> [{id :int, title :string}]
//
// Signatures are parsed once (Parse), rendered compactly into prompts
// (Signature.Render) and as JSON Schemas into provider tool definitions
// (Signature.InputSchema, Signature.OutputSchema), and used to validate
// the values that cross the boundary: tool arguments written by an LLM are
// coerced and validated (Type.Coerce, Signature.CoerceInput), results are
// validated strictly (Type.Validate, Signature.ValidateOutput). TypeOf
// derives a type from a Go type. Besides the kinds signatures declare, a
// type inferred from data (an agent's data inventory) has the kinds only
// data has: sets, dates, instants and nil.
//
// # Syntax
//
// Types:
//
//	:string :int :float :bool :keyword :any    primitives
//	:map                                       any map
//	[:int]                                     a list (vector) of integers
//	{id :int, name :string}                    a map with these fields
//	{:id :int :name :string}                   the same, with keyword names
//	{:string :int}                             a map from strings to integers
//	{user {id :int, tags [:string]}}           nested types
//	:string?  [:int]?  {a :int}?               optional: nil is accepted, and a
//	                                           field or parameter may be absent
//	[:int?]                                    a list whose elements may be nil
//
// A signature is either the full form, parameters and an output type,
//
//	(name :type, name :type) -> output
//	() -> {count :int}
//
// or the output type alone, the shorthand for a signature without
// parameters: {count :int} is () -> {count :int}. A leading arrow,
// -> {count :int}, is accepted too.
//
// Commas are whitespace, as in Clojure: they may separate fields and
// parameters, or not. Line breaks are whitespace as well, so long
// signatures can span lines, and ; starts a comment that runs to the end
// of the line.
//
// Names (of fields and parameters) start with a letter or an underscore
// and contain letters, digits, underscores and hyphens. Field names may
// also be written as keywords ({:id :int}) or, for names that are not
// identifiers, as quoted strings ({"Content-Type" :string}). Parameter
// names are bare: (:id :int) is an error, since it usually means a
// parameter whose name was forgotten. A name cannot end in ?: optionality
// belongs to the type, so {email :string?}, not {email? :string}.
//
// A map from strings, {:string :t}, is the type of data keyed by values
// rather than by names: per-key tallies {:string :int}, rows by id
// {:string {name :string}}. Any keys are valid, strings or keywords (as
// for record fields, :a and "a" are the same key to a signature: data
// read from JSON has string keys, maps built by programs keyword keys),
// and every value must have type :t; its JSON Schema is an object with
// "additionalProperties". It is written with the key type as a keyword,
// :string, which is what tells it from a record: a record field called
// string is written bare ({string :int}) or quoted, and {:string :int}
// has a single entry ({:string :int, n :int} is an error). The values of
// a map from strings are transparent to descriptions and firewalling, as
// list elements are: in {by_id {:string {name :string, _ssn :string}}},
// by_id.name names each value's name and by_id._ssn is firewalled.
//
// Names that start with an underscore are firewalled:
//
//	{summary :string, _email_ids [:int]}
//
// A firewalled output field is available to programs (ctx/_email_ids) and
// to Go code, but hidden from LLMs: Signature.Public and
// RenderOptions.HideFirewalled drop it; RenderOptions.MarkFirewalled keeps
// it and names it hidden, which is what a parent agent's model is shown
// when the agent is one of its tools (its programs get the field). Firewalling parameters is allowed but
// pointless, since the caller has to provide them.
//
// Parse errors are *ParseError values that say what was expected and where:
//
//	expected a type after `limit` at 1:22 (found `)`)
//	unknown type `:str` at 1:5 (did you mean :string?)
//
// # Validation
//
// Values are PTC-Lisp values or plain Go values (anything lisp.FromGo
// accepts: maps, slices, structs, numbers of every Go type). Record fields
// are looked up as PTC-Lisp looks keys up: the field id matches the key
// :id and the key "id". Every mismatch is reported with its path, and all
// of them are reported at once:
//
//	items[2].id: expected :int, got "12"
//	user.email: missing required field, expected :string
//	counts.bob: expected :int, got "3"           (counts {:string :int})
//
// The values of a map from strings are checked (and coerced) under their
// keys, which are kept as they are; a key that is neither a string nor a
// keyword is a mismatch.
//
// Integers are valid :float values, as JSON data mixes 100 and 100.0.
// Keywords and strings are distinct: a string is not a valid :keyword
// without coercion.
//
// The modes are those of the design documents' signature_validation
// (docs/deviations.md): Enabled (the
// default: fail on mismatches, allow extra record fields), Strict (extra
// fields are errors too, and nothing is coerced), WarnOnly (report
// mismatches as warnings, never fail) and Disabled (skip validation).
//
// # Coercion
//
// LLMs sometimes quote numbers or write keywords as strings. Type.Coerce
// repairs, for inputs, what can be repaired without guessing, and reports
// each repair as a warning (path: coerced "42" to :int):
//
//	"42" → 42 for :int           "3.14" → 3.14 for :float
//	42.0 → 42 for :int           "true"/"false" → true/false for :bool
//	"active" → :active for :keyword
//	:active → "active" for :string
//
// Integers given for :float become floats silently, since they were valid
// already. Outputs are validated strictly, without coercion. Two
// deliberate differences from the reference implementation: an integral
// float (42.0) is coerced to :int, because PTC-Lisp's / always returns a
// float and (/ total 2) is a common way to compute an integer argument;
// and boolean strings are recognized in any case ("True").
//
// # Descriptions
//
// Signature.WithDescriptions attaches descriptions to parameters and
// output fields by dotted path (field_descriptions in docs/deviations.md). They appear
// as comment lines in Render's output and as "description" in the JSON
// Schemas. For typed tools, the struct tag desc:"..." does the same.
//
// # Go types
//
// TypeOf derives a signature type from a Go type, as lisp.FromGo converts
// its values; agent.NewTool makes a tool from a typed Go function with it:
//
//	type SearchArgs struct {
//		Query string `json:"query" desc:"what to search for"`
//		Limit int    `json:"limit,omitempty"`
//	}
//	t, err := signature.TypeOf(reflect.TypeFor[SearchArgs]())
//	// t: {query :string, limit :int?}
package signature
