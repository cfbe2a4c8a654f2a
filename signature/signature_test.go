package signature

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestRender(t *testing.T) {
	sig := mustParse("(query :string, user {id :int, _token :string}, limit :int?) -> {summary :string, count :int, _email_ids [:int], items [{id :int, _raw :map}]}")
	_, err := sig.WithDescriptions(map[string]string{
		"query":        "what to search for",
		"user.id":      "the user's id",
		"summary":      "one  line\n summary",
		"items.id":     "the item's id",
		"_email_ids":   "ids for later",
		"items._raw":   "the raw record",
		"user._token":  "a token",
		"limit":        "at most this many",
		"count":        "how many matched",
		"items":        "the matches",
		"user":         "who is asking",
		"user.id.what": "", // no such field: id is an :int
	})
	if err == nil || err.Error() != `signature: no field "user.id.what" in (query :string, user {id :int, _token :string}, limit :int?) -> {summary :string, count :int, _email_ids [:int], items [{id :int, _raw :map}]} to describe` {
		t.Fatalf("WithDescriptions error = %v", err)
	}
	sig, err = mustParse(sig.String()).WithDescriptions(map[string]string{
		"query":       "what to search for",
		"user.id":     "the user's id",
		"summary":     "one  line\n summary",
		"items.id":    "the item's id",
		"_email_ids":  "ids for later",
		"items._raw":  "the raw record",
		"user._token": "a token",
	})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		opts RenderOptions
		want string
	}{
		{RenderOptions{}, "(query :string, user {id :int, _token :string}, limit :int?) -> {summary :string, count :int, _email_ids [:int], items [{id :int, _raw :map}]}"},
		{RenderOptions{HideFirewalled: true}, "(query :string, user {id :int, _token :string}, limit :int?) -> {summary :string, count :int, items [{id :int}]}"},
		{RenderOptions{Descriptions: true}, `(query :string, user {id :int, _token :string}, limit :int?) -> {summary :string, count :int, _email_ids [:int], items [{id :int, _raw :map}]}
; query: what to search for
; user.id: the user's id
; user._token: a token
; summary: one line summary
; _email_ids: ids for later
; items.id: the item's id
; items._raw: the raw record`},
		{RenderOptions{Descriptions: true, HideFirewalled: true}, `(query :string, user {id :int, _token :string}, limit :int?) -> {summary :string, count :int, items [{id :int}]}
; query: what to search for
; user.id: the user's id
; user._token: a token
; summary: one line summary
; items.id: the item's id`},
		{RenderOptions{MarkFirewalled: true, HideFirewalled: true}, `(query :string, user {id :int, _token :string}, limit :int?) -> {summary :string, count :int, _email_ids [:int], items [{id :int, _raw :map}]}
; hidden from you: _email_ids, items._raw`},
	}
	for _, tc := range tests {
		if got := sig.Render(tc.opts); got != tc.want {
			t.Errorf("Render(%+v):\n got %s\nwant %s", tc.opts, got, tc.want)
		}
	}
	// Public drops firewalled output fields at every depth, keeps params.
	pub := sig.Public()
	if got, want := pub.String(), "(query :string, user {id :int, _token :string}, limit :int?) -> {summary :string, count :int, items [{id :int}]}"; got != want {
		t.Errorf("Public() = %s", got)
	}
	if pub.Output.Fields[2].Type.Elem.Fields[0].Description != "the item's id" {
		t.Error("Public lost a description")
	}
	// The receiver is unchanged.
	if len(sig.Output.Fields) != 4 {
		t.Error("Public modified the receiver")
	}
}

func TestWithDescriptionsCopies(t *testing.T) {
	base := mustParse("(a {b :int}) -> [{c :int}]")
	d, err := base.WithDescriptions(map[string]string{"a.b": "B", "c": "C", "a": "A"})
	if err != nil {
		t.Fatal(err)
	}
	if base.Params[0].Type.Fields[0].Description != "" || base.Output.Elem.Fields[0].Description != "" || base.Params[0].Description != "" {
		t.Error("WithDescriptions modified the receiver")
	}
	if d.Params[0].Description != "A" || d.Params[0].Type.Fields[0].Description != "B" || d.Output.Elem.Fields[0].Description != "C" {
		t.Errorf("descriptions not set: %#v", d)
	}
	// a key matching both a parameter and an output field describes both
	both, err := mustParse("(id :int) -> {id :int, name :string}").WithDescriptions(map[string]string{"id": "the id"})
	if err != nil || both.Params[0].Description != "the id" || both.Output.Fields[0].Description != "the id" {
		t.Errorf("both: %v %#v", err, both)
	}
	// unknown keys are listed, sorted
	_, err = mustParse(":int").WithDescriptions(map[string]string{"zeta": "", "alpha": ""})
	if err == nil || err.Error() != `signature: no field "alpha", "zeta" in () -> :int to describe` {
		t.Error(err)
	}
}

func TestJSONSchema(t *testing.T) {
	tests := []struct{ typ, want string }{
		{":string", `{"type":"string"}`},
		{":keyword", `{"type":"string"}`},
		{":int", `{"type":"integer"}`},
		{":float", `{"type":"number"}`},
		{":bool", `{"type":"boolean"}`},
		{":map", `{"type":"object"}`},
		{":any", `{}`},
		{":any?", `{}`},
		{":int?", `{"type":["integer","null"]}`},
		{"[:int]", `{"items":{"type":"integer"},"type":"array"}`},
		{"[:any]?", `{"items":{},"type":["array","null"]}`},
		{"{}", `{"properties":{},"type":"object"}`},
		{"{id :int, email :string?, tags [:string]}", `{"properties":{"email":{"type":["string","null"]},"id":{"type":"integer"},"tags":{"items":{"type":"string"},"type":"array"}},"required":["id","tags"],"type":"object"}`},
		{"{a {b :int}?}", `{"properties":{"a":{"properties":{"b":{"type":"integer"}},"required":["b"],"type":["object","null"]}},"type":"object"}`},
		{"{:string :int}", `{"additionalProperties":{"type":"integer"},"type":"object"}`},
		{"{:string :int?}?", `{"additionalProperties":{"type":["integer","null"]},"type":["object","null"]}`},
		{"{:string {n :int}}", `{"additionalProperties":{"properties":{"n":{"type":"integer"}},"required":["n"],"type":"object"},"type":"object"}`},
		{"{:string [{:string :bool}]}", `{"additionalProperties":{"items":{"additionalProperties":{"type":"boolean"},"type":"object"},"type":"array"},"type":"object"}`},
		{"{:string :any}", `{"type":"object"}`},
	}
	for _, tc := range tests {
		b, err := json.Marshal(mustType(t, tc.typ).JSONSchema())
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != tc.want {
			t.Errorf("JSONSchema(%s) = %s, want %s", tc.typ, b, tc.want)
		}
	}
	sig, _ := mustParse("(query :string, limit :int?) -> {count :int, _ids [:int]}").WithDescriptions(map[string]string{"query": "search text", "count": "matches"})
	b, _ := json.Marshal(sig.InputSchema())
	if want := `{"properties":{"limit":{"type":["integer","null"]},"query":{"description":"search text","type":"string"}},"required":["query"],"type":"object"}`; string(b) != want {
		t.Errorf("InputSchema = %s", b)
	}
	b, _ = json.Marshal(sig.Public().OutputSchema())
	if want := `{"properties":{"count":{"description":"matches","type":"integer"}},"required":["count"],"type":"object"}`; string(b) != want {
		t.Errorf("OutputSchema = %s", b)
	}
	b, _ = json.Marshal(mustParse(":int").InputSchema())
	if want := `{"properties":{},"type":"object"}`; string(b) != want {
		t.Errorf("InputSchema without params = %s", b)
	}
}

func TestTypeHelpers(t *testing.T) {
	names := map[Kind]string{Any: "any", String: "string", Int: "int", Float: "float", Bool: "bool", Keyword: "keyword", Map: "map", List: "list", Record: "record", Kind(42): "kind(42)"}
	for k, want := range names {
		if k.String() != want {
			t.Errorf("Kind(%d).String() = %s", k, k.String())
		}
	}
	rec := recordOf(Field{Name: "id", Type: Type{Kind: Int}}, Field{Name: "_x", Type: Type{}})
	if f, ok := rec.Field("id"); !ok || f.Type.Kind != Int {
		t.Error("Field(id)")
	}
	if _, ok := rec.Field("nope"); ok {
		t.Error("Field(nope)")
	}
	if !rec.Fields[1].Firewalled() || rec.Fields[0].Firewalled() {
		t.Error("Firewalled")
	}
	if (Type{}).String() != ":any" || (Type{Kind: List}).String() != "[:any]" || (Type{Kind: Int}).OrNil().String() != ":int?" {
		t.Error("String of zero-ish types")
	}
	sig := mustParse("(a :int, b :string) -> :int")
	if p, ok := sig.Param("b"); !ok || p.Type.Kind != String {
		t.Error("Param(b)")
	}
	if _, ok := sig.Param("c"); ok {
		t.Error("Param(c)")
	}
	if got := sig.InputType().String(); got != "{a :int, b :string}" {
		t.Error(got)
	}
	want := recordOf(Field{Name: "a", Type: ListOf(Type{Kind: Int})})
	if got := mustType(t, "{a [:int]}"); !reflect.DeepEqual(got, want) {
		t.Errorf("%#v", got)
	}
}

// The values of a map from strings, {:string :t}, are transparent to
// descriptions, firewalled fields and Public, as list elements are.
func TestMapOfFields(t *testing.T) {
	sig, err := mustParse("(votes {:string :int}) -> {by_id {:string {name :string, _ssn :string}}, tally {:string :int}}").
		WithDescriptions(map[string]string{"votes": "per candidate", "by_id": "people by id", "by_id.name": "full name", "by_id._ssn": "hidden"})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		opts RenderOptions
		want string
	}{
		{RenderOptions{}, "(votes {:string :int}) -> {by_id {:string {name :string, _ssn :string}}, tally {:string :int}}"},
		{RenderOptions{HideFirewalled: true}, "(votes {:string :int}) -> {by_id {:string {name :string}}, tally {:string :int}}"},
		{RenderOptions{MarkFirewalled: true}, "(votes {:string :int}) -> {by_id {:string {name :string, _ssn :string}}, tally {:string :int}}\n; hidden from you: by_id._ssn"},
		{RenderOptions{Descriptions: true, HideFirewalled: true}, "(votes {:string :int}) -> {by_id {:string {name :string}}, tally {:string :int}}\n; votes: per candidate\n; by_id: people by id\n; by_id.name: full name"},
	}
	for _, tc := range tests {
		if got := sig.Render(tc.opts); got != tc.want {
			t.Errorf("Render(%+v):\n got %s\nwant %s", tc.opts, got, tc.want)
		}
	}
	pub := sig.Public()
	if got, want := pub.String(), "(votes {:string :int}) -> {by_id {:string {name :string}}, tally {:string :int}}"; got != want {
		t.Errorf("Public() = %s", got)
	}
	if sig.Output.Fields[0].Type.Elem.Fields[1].Name != "_ssn" {
		t.Error("Public modified the receiver")
	}
	b, _ := json.Marshal(pub.OutputSchema())
	if want := `{"properties":{"by_id":{"additionalProperties":{"properties":{"name":{"description":"full name","type":"string"}},"required":["name"],"type":"object"},"description":"people by id","type":"object"},` +
		`"tally":{"additionalProperties":{"type":"integer"},"type":"object"}},"required":["by_id","tally"],"type":"object"}`; string(b) != want {
		t.Errorf("OutputSchema = %s", b)
	}
	if _, err := sig.WithDescriptions(map[string]string{"tally.x": ""}); err == nil {
		t.Error("a field of an :int value was described")
	}
	// The helpers.
	m := MapOf(Type{Kind: Int})
	if !m.IsMapOf() || (Type{Kind: Map}).IsMapOf() || ListOf(Type{Kind: Int}).IsMapOf() || m.String() != "{:string :int}" {
		t.Errorf("MapOf: %#v", m)
	}
	if got := mustType(t, "{:string [:int]}?"); !reflect.DeepEqual(got, MapOf(ListOf(Type{Kind: Int})).OrNil()) {
		t.Errorf("%#v", got)
	}
}
