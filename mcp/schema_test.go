package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/ptc-go/ptc/mcp/internal/hostile"
	"github.com/ptc-go/ptc/signature"
)

func decodeSchema(t *testing.T, s string) any {
	t.Helper()
	if s == "" {
		return nil
	}
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("%s: %v", s, err)
	}
	return v
}

// convert converts schemas with the default budget.
func convert(t *testing.T, in, out any) schemaConversion {
	t.Helper()
	conv, err := convertSchemas(context.Background(), in, out, defaultSchemaWork)
	if err != nil {
		t.Fatal(err)
	}
	return conv
}

func TestConvertSchemas(t *testing.T) {
	for _, tc := range []struct {
		name, in, out string
		sig           string
		notes         []string
	}{
		{
			name: "required first, then optional, each by name",
			in: `{"type":"object","properties":{"query":{"type":"string"},"limit":{"type":"integer"},
				"archived":{"type":"boolean"},"after":{"type":"number"}},"required":["query","after"]}`,
			sig: "(after :float, query :string, archived :bool?, limit :int?) -> :any",
		},
		{
			name:  "descriptions and constraints",
			in:    `{"type":"object","description":"Search.","properties":{"state":{"type":"string","enum":["open","closed"],"description":"Issue state.","default":"open"},"limit":{"type":"integer","minimum":1,"maximum":100},"q":{"type":"string","pattern":"^[a-z]+$","minLength":1,"format":"regex"}},"required":["q"]}`,
			sig:   "(q :string, limit :int?, state :string?) -> :any",
			notes: []string{"arguments: Search.", "q: format regex; pattern ^[a-z]+$; length >= 1", "limit: 1..100", "state: Issue state.; one of open, closed; default open"},
		},
		{
			name:  "an example shows the format",
			in:    `{"type":"object","properties":{"id":{"type":"string","description":"Tracking id.","examples":["TRK-000123","TRK-000999"]},"n":{"type":"integer","examples":[3]}},"required":["id"]}`,
			sig:   "(id :string, n :int?) -> :any",
			notes: []string{"id: Tracking id.; e.g. TRK-000123", "n: e.g. 3"},
		},
		{
			name:  "nested objects and arrays",
			in:    `{"type":"object","properties":{"filter":{"type":"object","properties":{"labels":{"type":"array","items":{"type":"string","enum":["bug","feature request"]}},"since":{"type":"string","format":"date-time"}},"required":["labels"]}},"required":["filter"]}`,
			out:   `{"type":"object","properties":{"items":{"type":"array","items":{"type":"object","properties":{"id":{"type":"integer","description":"the id"},"title":{"type":"string"}},"required":["id"]},"maxItems":50},"total":{"type":"integer"}},"required":["items","total"]}`,
			sig:   "(filter {labels [:string], since :string?}) -> {items [{id :int, title :string?}], total :int}",
			notes: []string{`filter.labels: items: one of bug, "feature request"`, "filter.since: format date-time", "result.items: <= 50 items", "result.items.id: the id"},
		},
		{
			name:  "nullable forms",
			in:    `{"type":"object","properties":{"a":{"type":["string","null"]},"b":{"anyOf":[{"type":"integer"},{"type":"null"}]},"c":{"type":"integer","nullable":true}},"required":["a","b","c"]}`,
			sig:   "(a :string?, b :int?, c :int?) -> :any",
			notes: nil,
		},
		{
			name:  "alternatives and unions",
			in:    `{"type":"object","properties":{"id":{"oneOf":[{"type":"string"},{"type":"integer"}]},"v":{"type":["string","boolean"]},"n":{"type":["integer","number"]}},"required":["id","v","n"]}`,
			sig:   "(id :any, n :float, v :any) -> :any",
			notes: []string{"id: one of: string | integer", "v: string or boolean"},
		},
		{
			name:  "maps, additionalProperties and free objects",
			in:    `{"type":"object","properties":{"labels":{"type":"object","additionalProperties":{"type":"string"}},"meta":{"type":"object"},"strict":{"type":"object","properties":{"x":{"type":"integer"}},"additionalProperties":false}},"required":["labels"]}`,
			sig:   "(labels {:string :string}, meta :map?, strict {x :int?}?) -> :any",
			notes: []string{"strict: no other fields"},
		},
		{
			name: "additionalProperties: maps from strings",
			in: `{"type":"object","properties":{
				"tally":{"type":"object","additionalProperties":{"type":"integer","minimum":0}},
				"rows":{"additionalProperties":{"type":"object","properties":{"name":{"type":"string","description":"the name"},"tags":{"type":"array","items":{"type":"string"}}},"required":["name"]}},
				"free":{"type":"object","additionalProperties":{}},
				"open":{"type":"object","additionalProperties":true},
				"mixed":{"type":"object","additionalProperties":{"oneOf":[{"type":"string"},{"type":"integer"}]}},
				"maybe":{"type":["object","null"],"additionalProperties":{"type":["number","null"]}},
				"nested":{"type":"object","additionalProperties":{"type":"object","additionalProperties":{"type":"boolean"}}}},
				"required":["tally","rows","free","open","mixed","maybe","nested"]}`,
			out:   `{"type":"object","additionalProperties":{"type":"array","items":{"type":"integer"}},"description":"Ids by team."}`,
			sig:   "(free :map, maybe {:string :float?}?, mixed :map, nested {:string {:string :bool}}, open :map, rows {:string {name :string, tags [:string]?}}, tally {:string :int}) -> {:string [:int]}",
			notes: []string{"mixed: values: one of: string | integer", "rows.name: the name", "tally: values: >= 0", "result: Ids by team."},
		},
		{
			name:  "local refs, recursive refs and unresolved refs",
			in:    `{"type":"object","$defs":{"user":{"type":"object","properties":{"name":{"type":"string"},"boss":{"$ref":"#/$defs/user"}},"required":["name"]}},"properties":{"owner":{"$ref":"#/$defs/user"},"other":{"$ref":"https://example.com/x.json"}},"required":["owner"]}`,
			sig:   "(owner {name :string, boss :any?}, other :any?) -> :any",
			notes: []string{"owner.boss: recursive reference #/$defs/user, not expanded", "other: reference https://example.com/x.json not resolved"},
		},
		{
			name:  "allOf of objects merges",
			in:    `{"type":"object","properties":{"p":{"allOf":[{"type":"object","properties":{"a":{"type":"integer"}},"required":["a"]},{"type":"object","properties":{"b":{"type":"string"}}}]}},"required":["p"]}`,
			sig:   "(p {a :int, b :string?}) -> :any",
			notes: nil,
		},
		{
			name:  "names a signature must quote",
			in:    `{"type":"object","properties":{"Content-Type":{"type":"string"},"user.name":{"type":"string"},"2fa":{"type":"boolean"},"with space":{"type":"integer"}},"required":["user.name"]}`,
			sig:   `("user.name" :string, "2fa" :bool?, Content-Type :string?, "with space" :int?) -> :any`,
			notes: nil,
		},
		{
			name:  "unknown keywords are noted, extensions skipped",
			in:    `{"type":"object","properties":{"x":{"type":"string","not":{"const":"bad"},"x-internal":true,"examples":["a"]},"y":{"type":"integer","multipleOf":5,"exclusiveMinimum":0}},"required":["x"],"dependentRequired":{"x":["y"]}}`,
			sig:   "(x :string, y :int?) -> :any",
			notes: []string{`arguments: dependentRequired {"x":["y"]}`, `x: not {"const":"bad"}; e.g. a`, "y: > 0; multiple of 5"},
		},
		{
			name:  "tuples, const and output primitives",
			in:    `{"type":"object","properties":{"point":{"type":"array","prefixItems":[{"type":"number"},{"type":"number"}]},"kind":{"const":"fixed"}},"required":["point","kind"]}`,
			out:   `{"type":"array","items":{"type":"string"},"uniqueItems":true,"description":"Names."}`,
			sig:   "(kind :string, point [:any]) -> [:string]",
			notes: []string{"kind: always fixed", "point: a tuple: number, number", "result: Names.; unique items"},
		},
		{
			name:  "input that is not an object",
			in:    `{"type":"string"}`,
			sig:   "() -> :any",
			notes: []string{"arguments: schema string, arguments are not checked"},
		},
		{
			name:  "no input schema, boolean schemas",
			in:    ``,
			out:   `false`,
			sig:   "() -> :any",
			notes: []string{"result: no value is valid (schema false)"},
		},
		{
			name:  "firewalled-looking and empty names",
			in:    `{"type":"object","properties":{"_private":{"type":"string"},"":{"type":"string"}}}`,
			sig:   "(_private :string?) -> :any",
			notes: []string{"arguments: a field with an empty name is not described"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			conv := convert(t, decodeSchema(t, tc.in), decodeSchema(t, tc.out))
			got := conv.sig.String()
			if got != tc.sig {
				t.Errorf("signature\n got %s\nwant %s", got, tc.sig)
			}
			parsed, err := signature.Parse(got)
			if err != nil {
				t.Fatalf("%s does not parse: %v", got, err)
			}
			if parsed.String() != got {
				t.Errorf("round trip: %s", parsed)
			}
			if strings.Join(conv.notes, "\n") != strings.Join(tc.notes, "\n") {
				t.Errorf("notes\n got %q\nwant %q", conv.notes, tc.notes)
			}
		})
	}
}

func TestConvertSchemasDeterministic(t *testing.T) {
	in := `{"type":"object","properties":{"a":{"type":"string","enum":["x","y"]},"b":{"type":"object","properties":{"c":{"type":"integer","description":"cc"},"d":{"type":"string","format":"uri"}}},"e":{"oneOf":[{"type":"string"},{"type":"object","properties":{"z":{},"y":{}}}]}}}`
	first := convert(t, decodeSchema(t, in), nil)
	for range 50 {
		c := convert(t, decodeSchema(t, in), nil)
		if c.sig.String() != first.sig.String() || strings.Join(c.notes, "|") != strings.Join(first.notes, "|") {
			t.Fatalf("not deterministic: %s %q vs %s %q", c.sig, c.notes, first.sig, first.notes)
		}
	}
}

func TestConvertSchemasDeepAndHostile(t *testing.T) {
	// Nesting deeper than schemaMaxDepth ends in :any with a note; the
	// signature still parses.
	s := `{"type":"string"}`
	for range 40 {
		s = `{"type":"object","properties":{"x":` + s + `},"required":["x"]}`
	}
	conv := convert(t, decodeSchema(t, s), decodeSchema(t, s))
	if _, err := signature.Parse(conv.sig.String()); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(conv.notes, "\n"), "nested deeper than 16 levels") {
		t.Errorf("notes %q", conv.notes)
	}
	// Garbage never panics.
	for _, g := range []string{`[]`, `"x"`, `{"type":"object","properties":[]}`, `{"type":7}`, `{"type":"object","properties":{"a":5}}`,
		`{"type":"object","required":"a"}`, `{"$ref":"#/nope"}`, `{"$ref":"#"}`, `{"anyOf":"x"}`, `{"allOf":[{"type":"string"},{"type":"integer"}]}`} {
		conv := convert(t, decodeSchema(t, g), decodeSchema(t, g))
		if _, err := signature.Parse(conv.sig.String()); err != nil {
			t.Errorf("%s: %v", g, err)
		}
	}
}

func TestToolDescriptionBoundsNotes(t *testing.T) {
	notes := make([]string, 45)
	for i := range notes {
		notes[i] = "n"
	}
	d := toolDescription("Does things.", notes, schemaNotesShown)
	if strings.Count(d, "\n- n") != schemaNotesShown || !strings.HasSuffix(d, "- (5 more notes: see the tool's JSON Schema)") {
		t.Errorf("description %q", d)
	}
}

func TestRemoteToolName(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"search_issues", "gh.search_issues"},
		{"get-file", "gh.get-file"},
		{"admin.users.list", "gh.admin.users.list"},
		{"a..b", "gh.a._b"},
		{".x.", "gh._x_"},
		{"repo/list files", "gh.repo_list_files"},
		{"", "gh._"},
	} {
		if got, _ := remoteToolName("gh", tc.in); got != tc.want {
			t.Errorf("%q: got %q, want %q", tc.in, got, tc.want)
		}
	}
}

// countdownCtx is a context whose Err is nil for its first n calls, then
// context.Canceled: a cancellation at a deterministic point of the work.
type countdownCtx struct {
	context.Context
	n, calls int
}

func (c *countdownCtx) Err() error {
	c.calls++
	if c.calls > c.n {
		return context.Canceled
	}
	return nil
}

// The schema bomb of the attack (40 $defs, each referring to the next
// three times: 3^40 nodes once expanded) is converted within its budget
// of work, and its output is bounded by it.
func TestConvertSchemasBomb(t *testing.T) {
	bomb := decodeSchema(t, string(hostile.BombSchema(40, 3)))
	for _, budget := range []int{100, 1000, defaultSchemaWork, 100_000} {
		conv, err := convertSchemas(context.Background(), bomb, bomb, budget)
		if err != nil {
			t.Fatal(err)
		}
		size := len(conv.sig.String())
		for _, n := range conv.notes {
			size += len(n)
		}
		t.Logf("budget %d: %d units, %d bytes of signature and notes", budget, conv.work, size)
		// One step spends at most a few units past the budget (a $ref's
		// target's keywords, here 3).
		if conv.work > budget+10 {
			t.Errorf("budget %d: %d units of work", budget, conv.work)
		}
		// Each unit produces at most about 64 bytes of text, and names
		// and punctuation a few more.
		if size > 200*budget {
			t.Errorf("budget %d: %d bytes of output", budget, size)
		}
		if !strings.HasPrefix(conv.notes[0], "schema: too large to convert in full") {
			t.Errorf("budget %d: first note %q", budget, conv.notes[0])
		}
		if _, err := signature.Parse(conv.sig.String()); err != nil {
			t.Errorf("budget %d: %v", budget, err)
		}
	}
	// A schema within the budget converts whole, without the note.
	conv := convert(t, decodeSchema(t, string(hostile.BombSchema(5, 2))), nil)
	if strings.Contains(strings.Join(conv.notes, "\n"), "too large") || !strings.Contains(conv.sig.String(), "{f0 {f0 {f0 {f0 :string") {
		t.Errorf("a small schema: %s %q", conv.sig, conv.notes)
	}
}

// The conversion looks at its context as it goes, and stops when it is
// done, even with a budget that would let it run for hours.
func TestConvertSchemasHonoursCancellation(t *testing.T) {
	bomb := decodeSchema(t, string(hostile.BombSchema(40, 3)))
	for _, n := range []int{0, 1, 5, 50} {
		ctx := &countdownCtx{Context: context.Background(), n: n}
		_, err := convertSchemas(ctx, bomb, nil, 1<<40)
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("after %d checks: error %v", n, err)
		}
		// It stopped at the first check that saw the cancellation.
		if ctx.calls != n+1 {
			t.Errorf("Err called %d times, want %d", ctx.calls, n+1)
		}
	}
}
