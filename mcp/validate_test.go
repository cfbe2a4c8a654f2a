package mcp

import (
	"strings"
	"testing"
)

// validateOutput checks what the package documentation says it checks;
// each keyword is tried with a value it accepts and one it refuses.
func TestValidateOutput(t *testing.T) {
	for _, tc := range []struct {
		name, schema, ok, bad, want string
	}{
		{"type", `{"type":"string"}`, `"a"`, `1`, "result: expected string, got integer 1"},
		{"type list", `{"type":["string","null"]}`, `null`, `true`, "expected string or null, got boolean true"},
		{"integer", `{"type":"integer"}`, `2.0`, `2.5`, "expected integer, got number 2.5"},
		{"number takes integers", `{"type":"number"}`, `2`, `"2"`, `expected number, got string "2"`},
		{"nullable", `{"type":"string","nullable":true}`, `null`, `3`, "expected string"},
		{"enum", `{"enum":["a",1,{"x":[1]}]}`, `{"x":[1.0]}`, `{"x":[2]}`, "is not one of the enum's values"},
		{"const", `{"const":{"a":1}}`, `{"a":1}`, `{"a":1,"b":2}`, "is not the const"},
		{"required", `{"type":"object","required":["a"]}`, `{"a":null}`, `{}`, `the required field "a" is missing`},
		{"properties", `{"properties":{"a":{"type":"integer"}}}`, `{"a":1,"b":"x"}`, `{"a":"x"}`, "result.a: expected integer"},
		{"additionalProperties false", `{"properties":{"a":{}},"additionalProperties":false}`, `{"a":1}`, `{"a":1,"b":2}`, "result.b: a field the schema does not allow"},
		{"additionalProperties schema", `{"additionalProperties":{"type":"integer"}}`, `{"a":1}`, `{"a":"x"}`, "result.a: expected integer"},
		{"patternProperties", `{"patternProperties":{"^n_":{"type":"integer"}},"additionalProperties":false}`, `{"n_a":1}`, `{"n_a":"x"}`, "result.n_a: expected integer"},
		{"min/maxProperties", `{"minProperties":1,"maxProperties":1}`, `{"a":1}`, `{}`, "fewer than minProperties 1"},
		{"items", `{"items":{"type":"integer"}}`, `[1,2]`, `[1,"x"]`, "result[1]: expected integer"},
		{"prefixItems", `{"prefixItems":[{"type":"string"}],"items":{"type":"integer"}}`, `["a",1]`, `[1]`, "result[0]: expected string"},
		{"draft 4 tuple", `{"items":[{"type":"string"}],"additionalItems":false}`, `["a"]`, `["a",1]`, "result[1]: no value is valid here"},
		{"min/maxItems", `{"minItems":1,"maxItems":2}`, `[1]`, `[1,2,3]`, "3 items, more than maxItems 2"},
		{"uniqueItems", `{"uniqueItems":true}`, `[1,"1",[1]]`, `[{"a":1},{"a":1.0}]`, "items 0 and 1 are equal"},
		{"lengths in characters", `{"minLength":2,"maxLength":3}`, `"été"`, `"é"`, "shorter than minLength 2"},
		{"pattern", `{"pattern":"^[a-z]+$"}`, `"abc"`, `"ab1"`, "does not match the pattern"},
		{"a pattern Go cannot compile is not checked", `{"pattern":"(?<=a)b"}`, `"anything"`, ``, ""},
		{"minimum", `{"minimum":1,"maximum":3}`, `3`, `0`, "0 is below the minimum 1"},
		{"exclusive (2020)", `{"exclusiveMinimum":1}`, `1.5`, `1`, "not above the exclusiveMinimum 1"},
		{"exclusive (draft 4)", `{"maximum":3,"exclusiveMaximum":true}`, `2`, `3`, "not below the exclusive maximum 3"},
		{"multipleOf", `{"multipleOf":0.1}`, `0.3`, `0.35`, "is not a multiple of 0.1"},
		{"allOf", `{"allOf":[{"minimum":1},{"maximum":2}]}`, `2`, `3`, "above the maximum 2"},
		{"anyOf", `{"anyOf":[{"type":"string"},{"type":"integer"}]}`, `1`, `true`, "matches none of the anyOf alternatives"},
		{"oneOf", `{"oneOf":[{"type":"integer"},{"minimum":0}]}`, `-1`, `1`, "matches more than one of the oneOf alternatives"},
		{"not", `{"not":{"type":"null"}}`, `1`, `null`, "matches the schema of not"},
		{"if/then/else", `{"if":{"type":"string"},"then":{"minLength":2},"else":{"type":"integer"}}`, `"ab"`, `true`, "expected integer"},
		{"local $ref", `{"$defs":{"p":{"type":"integer"}},"properties":{"a":{"$ref":"#/$defs/p"}}}`, `{"a":1}`, `{"a":"x"}`, "result.a: expected integer"},
		{"recursive $ref", `{"properties":{"next":{"$ref":"#"},"v":{"type":"integer"}}}`, `{"v":1,"next":{"v":2}}`, `{"next":{"next":{"v":"x"}}}`, "result.next.next.v: expected integer"},
		{"a failed alternative leaves the path as it was", `{"anyOf":[{"properties":{"a":{"type":"string"}}},{"properties":{"b":{"type":"string"}}}],"properties":{"c":{"type":"string"}}}`, `{"a":"x"}`, `{"a":"x","c":1}`, "result.c: expected string"},
		{"false", `false`, ``, `1`, "result: no value is valid here (schema false)"},
		{"format is not checked", `{"format":"email"}`, `"not an email"`, ``, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			schema := decodeSchema(t, tc.schema)
			if tc.ok != "" {
				if err := validateOutput(schema, decodeNumbers(t, tc.ok)); err != nil {
					t.Errorf("%s: %v", tc.ok, err)
				}
			}
			if tc.bad != "" {
				err := validateOutput(schema, decodeNumbers(t, tc.bad))
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("%s: error %v, want %q", tc.bad, err, tc.want)
				}
			}
		})
	}
}

// A schema that refers to itself without going deeper into the value, or
// that takes exponential time, is refused within the budget.
func TestValidateOutputBounded(t *testing.T) {
	for _, schema := range []string{
		`{"$ref":"#"}`,
		`{"allOf":[{"$ref":"#"},{"$ref":"#"}]}`,
		`{"anyOf":[{"$ref":"#/$defs/a"},{"type":"null"}],"$defs":{"a":{"anyOf":[{"$ref":"#/$defs/b"},{"$ref":"#/$defs/b"}]},"b":{"anyOf":[{"$ref":"#/$defs/a"},{"$ref":"#/$defs/a"}]}}}`,
	} {
		err := validateOutput(decodeSchema(t, schema), decodeNumbers(t, `{"a":1}`))
		if err == nil || !strings.Contains(err.Error(), "could not be checked") {
			t.Errorf("%s: error %v", schema, err)
		}
	}
}

func decodeNumbers(t *testing.T, s string) any {
	t.Helper()
	v, err := decodeJSON([]byte(s))
	if err != nil {
		t.Fatalf("%s: %v", s, err)
	}
	return v
}
