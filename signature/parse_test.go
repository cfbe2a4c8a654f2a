package signature

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// validSignatures maps sources to their canonical form.
var validSignatures = []struct{ src, want string }{
	// primitives, as output shorthand
	{":string", "() -> :string"},
	{":int", "() -> :int"},
	{":float", "() -> :float"},
	{":bool", "() -> :bool"},
	{":keyword", "() -> :keyword"},
	{":any", "() -> :any"},
	{":map", "() -> :map"},
	{":string?", "() -> :string?"},
	// lists
	{"[:int]", "() -> [:int]"},
	{"[ :int ]", "() -> [:int]"},
	{"[:int?]", "() -> [:int?]"},
	{"[:int]?", "() -> [:int]?"},
	{"[[:string]]", "() -> [[:string]]"},
	{"[{}]", "() -> [{}]"},
	{"[:any]", "() -> [:any]"},
	{"[:map]", "() -> [:map]"},
	// records
	{"{}", "() -> {}"},
	{"{ }", "() -> {}"},
	{"{count :int}", "() -> {count :int}"},
	{"{id :int, name :string}", "() -> {id :int, name :string}"},
	{"{id :int name :string}", "() -> {id :int, name :string}"},
	{"{:id :int :name :string}", "() -> {id :int, name :string}"},
	{"{:id :int, :email :string?}", "() -> {id :int, email :string?}"},
	{"{id:int}", "() -> {id :int}"},
	{"{user {id :int, profile {bio :string}}}", "() -> {user {id :int, profile {bio :string}}}"},
	{"{:user {:id :int :profile {:bio :string}}}", "() -> {user {id :int, profile {bio :string}}}"},
	{"{tags [:string], items [{id :int}]}", "() -> {tags [:string], items [{id :int}]}"},
	{"{a {b :int}?}", "() -> {a {b :int}?}"},
	{"{user-name :string, user_id :int, _ids [:int]}", "() -> {user-name :string, user_id :int, _ids [:int]}"},
	{`{"Content-Type" :string, "a b" :int, "x.y" :int, "1st" :int}`, `() -> {Content-Type :string, "a b" :int, "x.y" :int, "1st" :int}`},
	{`("x y" :int) -> :int`, `("x y" :int) -> :int`},
	{`{"plain" :string}`, `() -> {plain :string}`},
	{`{"tab\there" :string}`, `() -> {"tab\there" :string}`},
	{"{a :int,}", "() -> {a :int}"},
	{"{,a :int,,b :int,}", "() -> {a :int, b :int}"},
	// maps from strings
	{"{:string :int}", "() -> {:string :int}"},
	{"{ :string :int }", "() -> {:string :int}"},
	{"{:string, :int}", "() -> {:string :int}"},
	{"{:string ; tallies\n :int}", "() -> {:string :int}"},
	{"{:string :int?}", "() -> {:string :int?}"},
	{"{:string :int}?", "() -> {:string :int}?"},
	{"{:string [:string]}", "() -> {:string [:string]}"},
	{"{:string {name :string, _ssn :string}}", "() -> {:string {name :string, _ssn :string}}"},
	{"{:string {:string :bool}}", "() -> {:string {:string :bool}}"},
	{"{:string :any}", "() -> {:string :any}"},
	{"{:string :map}", "() -> {:string :map}"},
	{"[{:string :float}]", "() -> [{:string :float}]"},
	{"{tally {:string :int}, total :int}", "() -> {tally {:string :int}, total :int}"},
	{"(votes {:string :int}) -> {:string :float}", "(votes {:string :int}) -> {:string :float}"},
	// ... and records with a field called string, written bare or quoted
	{"{string :int}", "() -> {string :int}"},
	{`{"string" :int}`, "() -> {string :int}"},
	{"{string :int, n :int}", "() -> {string :int, n :int}"},
	{"{:strings :int}", "() -> {strings :int}"},
	{"{:string-id :int}", "() -> {string-id :int}"},
	// full form
	{"() -> {count :int}", "() -> {count :int}"},
	{"()->:int", "() -> :int"},
	{"-> {count :int}", "() -> {count :int}"},
	{"->:int", "() -> :int"},
	{"(query :string) -> [{id :int}]", "(query :string) -> [{id :int}]"},
	{"(query :string, limit :int) -> :bool", "(query :string, limit :int) -> :bool"},
	{"(query :string limit :int?) -> :bool", "(query :string, limit :int?) -> :bool"},
	{"(user {:id :int}, limit :int) -> :any", "(user {id :int}, limit :int) -> :any"},
	{"(a :t) -> :int", ""}, // placeholder replaced below: invalid
	{"(email {:subject :string}, tier :string) -> {:urgent :bool, :reason :string}",
		"(email {subject :string}, tier :string) -> {urgent :bool, reason :string}"},
	{"(_secret :string) -> :bool", "(_secret :string) -> :bool"},
	{"(id :int) -> {summary :string, _raw_data :map}", "(id :int) -> {summary :string, _raw_data :map}"},
	// layout
	{"  \n\t{count :int}  \n", "() -> {count :int}"},
	{"(query :string, options {limit :int?, sort :string?}) ->\n{results [{id :int, score :float, metadata :map}], total :int}",
		"(query :string, options {limit :int?, sort :string?}) -> {results [{id :int, score :float, metadata :map}], total :int}"},
	{"(a :int,   ; the first\n b :int)   ; the second\n-> :int ; done", "(a :int, b :int) -> :int"},
	{"; leading comment\n:int", "() -> :int"},
	{"(a :int)\r\n->\r\n:int", "(a :int) -> :int"},
}

func TestParseValid(t *testing.T) {
	for _, tc := range validSignatures {
		if tc.want == "" {
			continue
		}
		sig, err := Parse(tc.src)
		if err != nil {
			t.Errorf("Parse(%q): %v", tc.src, err)
			continue
		}
		if got := sig.String(); got != tc.want {
			t.Errorf("Parse(%q).String() = %q, want %q", tc.src, got, tc.want)
		}
	}
}

func TestParseStructure(t *testing.T) {
	sig := mustParse("(user {id :int, tags [:string?]}, limit :int?) -> [{id :int}]?")
	want := &Signature{
		Params: []Field{
			{Name: "user", Type: recordOf(
				Field{Name: "id", Type: Type{Kind: Int}},
				Field{Name: "tags", Type: ListOf(Type{Kind: String, Optional: true})},
			)},
			{Name: "limit", Type: Type{Kind: Int, Optional: true}},
		},
		Output: ListOf(recordOf(Field{Name: "id", Type: Type{Kind: Int}})).OrNil(),
	}
	if !reflect.DeepEqual(sig, want) {
		t.Errorf("got %#v\nwant %#v", sig, want)
	}
	if !sig.Params[1].Optional() || sig.Params[0].Optional() {
		t.Error("Optional")
	}
	empty := mustParse("{}")
	if empty.Output.Kind != Record || empty.Output.Fields == nil || len(empty.Params) != 0 {
		t.Errorf("{} = %#v", empty)
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct{ src, want string }{
		{"", "empty signature at 1:1 (write an output type such as {count :int}, or (x :int) -> :string)"},
		{"   \n ", "empty signature at 2:2 (write an output type such as {count :int}, or (x :int) -> :string)"},
		{"; only a comment", "empty signature at 1:17 (write an output type such as {count :int}, or (x :int) -> :string)"},
		{"(query :string, limit) -> :int", "expected a type after `limit` at 1:22 (found `)`)"},
		{"(limit", "expected a type after `limit` at 1:7 (found end of input)"},
		{"(limit int) -> :int", "expected a type after `limit` at 1:8 (found `int`; did you mean :int?)"},
		{"{id int}", "expected a type after `id` at 1:5 (found `int`; did you mean :int?)"},
		{"{id}", "expected a type after `id` at 1:4 (found `}`)"},
		{"{id foo}", "expected a type after `id` at 1:5 (found `foo`)"},
		{"{user.name :string}", "expected a type after `user` at 1:6 (found `.name`)"},
		{"{id :str}", "unknown type `:str` at 1:5 (did you mean :string?)"},
		{"{id :integer}", "unknown type `:integer` at 1:5 (did you mean :int?)"},
		{":number", "unknown type `:number` at 1:1 (did you mean :int?)"},
		{":double", "unknown type `:double` at 1:1 (did you mean :float?)"},
		{":boolean", "unknown type `:boolean` at 1:1 (did you mean :bool?)"},
		{":atom", "unknown type `:atom` at 1:1 (did you mean :keyword?)"},
		{":object", "unknown type `:object` at 1:1 (did you mean :map, {name :type} or {:string :type}?)"},
		{":list", "unknown type `:list` at 1:1 (did you mean [:type]?)"},
		{":nil", "unknown type `:nil` at 1:1 (did you mean :any?)"},
		{":INT", "unknown type `:INT` at 1:1 (did you mean :int?)"},
		{":foo", "unknown type `:foo` at 1:1 (types are :string :int :float :bool :keyword :any :map, [:type], {name :type} and {:string :type})"},
		{":", "expected a type name after `:` at 1:1 (found end of input)"},
		{": int", "expected a type name after `:` at 1:1 (found ` `)"},
		{"[]", "list type `[]` without an element type at 1:1 (write [:any] for a list of anything)"},
		{"[ ]", "list type `[]` without an element type at 1:1 (write [:any] for a list of anything)"},
		{"[:int :string]", "expected `]` to close the list at 1:7 (found `:string`; `[` opened at 1:1; a list has a single element type)"},
		{"[:int", "expected `]` to close the list at 1:6 (found end of input; `[` opened at 1:1)"},
		{"{a [:int}", "expected `]` to close the list at 1:9 (found `}`; `[` opened at 1:4)"},
		{"[", "expected an element type after `[` at 1:2 (found end of input)"},
		{"[int]", "expected an element type after `[` at 1:2 (found `int`; did you mean :int?)"},
		{"{a :int", "expected `}` to close the record at 1:8 (found end of input; `{` opened at 1:1)"},
		{"{a :int b}", "expected a type after `b` at 1:10 (found `}`)"},
		{"{1a :int}", "expected a field name or `}` at 1:2 (found `1a`)"},
		{"{a :int ]", "expected a field name or `}` at 1:9 (found `]`)"},
		{"{: :int}", "expected a field name after `:` at 1:2"},
		{"{:1 :int}", "expected a field name after `:` at 1:2"},
		{"{email? :string}", "`?` goes after the type, not the name at 1:7 (write email :type? for an optional field)"},
		{"(limit? :int) -> :int", "`?` goes after the type, not the name at 1:7 (write limit :type? for an optional parameter)"},
		{"{a :int, a :string}", "duplicate field `a` at 1:10 (first declared at 1:2)"},
		{"{a :int, :a :string}", "duplicate field `a` at 1:10 (first declared at 1:2)"},
		{"(a :int, a :int) -> :int", "duplicate parameter `a` at 1:10 (first declared at 1:2)"},
		{"(a :int\n b :int\n a :int) -> :int", "duplicate parameter `a` at 3:2 (first declared at 1:2)"},
		{`{"" :int}`, "empty field name at 1:2"},
		{`{"abc :int}`, "unterminated quoted field name at 1:2"},
		{`{"a\q" :int}`, "invalid quoted field name at 1:2 (use Go string escapes)"},
		{`("x :int) -> :int`, `unterminated quoted parameter name at 1:2`},
		{"{\"a\n\" :int}", `unterminated quoted field name at 1:2`},
		{`("" :int) -> :int`, "empty parameter name at 1:2"},
		{"(:string) -> :int", "expected a parameter name or `)` at 1:2 (found `:string`; parameters are written name :type)"},
		{"(1 :int) -> :int", "expected a parameter name or `)` at 1:2 (found `1`)"},
		{"(a :int", "expected `)` to close the parameter list at 1:8 (found end of input; `(` opened at 1:1)"},
		{"(a :int) {x :int}", "expected `->` after the parameter list at 1:10 (found `{`)"},
		{"(a :int)", "expected `->` after the parameter list at 1:9 (found end of input)"},
		{"(a :int) - > :int", "expected `->` after the parameter list at 1:10 (found `-`)"},
		{"(a :int) ->", "expected a type after `->` at 1:12 (found end of input)"},
		{"(a :int) -> ", "expected a type after `->` at 1:13 (found end of input)"},
		{"() -> -> :int", "expected a type after `->` at 1:7 (found `->`)"},
		{":int -> :string", "unexpected `->` after the signature at 1:6 (parameters go in parentheses: (name :type) -> output)"},
		{"{a :int} {b :int}", "unexpected `{` after the signature at 1:10"},
		{"() -> :int :string", "unexpected `:string` after the signature at 1:12"},
		{":int??", "unexpected `?` after the signature at 1:6"},
		{"{a :int}}", "unexpected `}` after the signature at 1:9"},
		{"foo", "expected a signature at 1:1 (found `foo`)"},
		{"int", "expected a signature at 1:1 (found `int`; did you mean :int?)"},
		{"#{}", "expected a signature at 1:1 (found `#`)"},
		{"{a :int} é", "unexpected `é` after the signature at 1:10"},
		{"{é :int}", "expected a field name or `}` at 1:2 (found `é`)"},
		{"\xff", "expected a signature at 1:1 (found byte 0xff)"},
		{"  (a :int) -> {b\n   :int,\n   c}", "expected a type after `c` at 3:5 (found `}`)"},
		{strings.Repeat("[", 150) + ":int" + strings.Repeat("]", 150), "types nested deeper than 100 levels at 1:101"},
		{strings.Repeat("{:string ", 150) + ":int" + strings.Repeat("}", 150), "types nested deeper than 100 levels at 1:901"},
		// maps from strings
		{"{:string}", "expected the type of the values after `{:string` at 1:9 (found `}`)"},
		{"{:string", "expected the type of the values after `{:string` at 1:9 (found end of input)"},
		{"{:string :int", "expected `}` to close the map at 1:14 (found end of input; `{` opened at 1:1)"},
		{"{:string :int :string}", "expected `}` to close the map at 1:15 (found `:string`; `{` opened at 1:1; {:string :type} is a map from strings with one type of values (a record field called string is written string :type))"},
		{"{:string :int, n :int}", "expected `}` to close the map at 1:16 (found `n`; `{` opened at 1:1; {:string :type} is a map from strings with one type of values (a record field called string is written string :type))"},
		{"{:string :int]", "expected `}` to close the map at 1:14 (found `]`; `{` opened at 1:1)"},
		{"{:string :str}", "unknown type `:str` at 1:10 (did you mean :string?)"},
		{"{:string? :int}", "`?` goes after the type, not the name at 1:9 (write string :type? for an optional field)"},
		{"{:string string}", "expected the type of the values after `{:string` at 1:10 (found `string`; did you mean :string?)"},
	}
	for _, tc := range tests {
		_, err := Parse(tc.src)
		if err == nil {
			t.Errorf("Parse(%q): no error, want %q", tc.src, tc.want)
			continue
		}
		var pe *ParseError
		if !errors.As(err, &pe) {
			t.Errorf("Parse(%q): error %T, want *ParseError", tc.src, err)
			continue
		}
		if got := err.Error(); got != tc.want {
			t.Errorf("Parse(%q) error:\n got %s\nwant %s", tc.src, got, tc.want)
		}
		if pe.Source != tc.src || pe.Offset < 0 || pe.Offset > len(tc.src) {
			t.Errorf("Parse(%q): bad source/offset %d", tc.src, pe.Offset)
		}
	}
}

func TestParseTypeFunc(t *testing.T) {
	ty, err := parseType(" [{id :int, tags [:string]?}] ")
	if err != nil {
		t.Fatal(err)
	}
	if got := ty.String(); got != "[{id :int, tags [:string]?}]" {
		t.Errorf("got %s", got)
	}
	for src, want := range map[string]string{
		"":                 "empty type at 1:1 (write a type such as :int, [:string] or {id :int})",
		":int :int":        "unexpected `:int` after the type at 1:6",
		"(a :int) -> :int": "expected a type at 1:1 (found `(`)",
		":int?x":           "unexpected `x` after the type at 1:6",
	} {
		if _, err := parseType(src); err == nil || err.Error() != want {
			t.Errorf("parseType(%q) = %v, want %s", src, err, want)
		}
	}
}

func TestSnippet(t *testing.T) {
	_, err := Parse("(a :int,\n\tb) -> :int")
	pe := err.(*ParseError)
	if got, want := pe.Snippet(), "\tb) -> :int\n\t ^"; got != want {
		t.Errorf("Snippet = %q, want %q", got, want)
	}
	_, err = Parse("{a :int")
	if got, want := err.(*ParseError).Snippet(), "{a :int\n       ^"; got != want {
		t.Errorf("Snippet = %q, want %q", got, want)
	}
	_, err = Parse("(a :int) x\r\n")
	if got, want := err.(*ParseError).Snippet(), "(a :int) x\n         ^"; got != want {
		t.Errorf("Snippet = %q, want %q", got, want)
	}
	if s := snippet("abc", 10); s != "" {
		t.Errorf("snippet out of range = %q", s)
	}
}

// TestRoundTrip parses, renders and parses again: the second parse must
// give the same signature, and rendering must be stable.
func TestRoundTrip(t *testing.T) {
	for _, tc := range validSignatures {
		sig, err := Parse(tc.src)
		if err != nil {
			continue
		}
		s1 := sig.String()
		sig2, err := Parse(s1)
		if err != nil {
			t.Errorf("reparse of %q (from %q): %v", s1, tc.src, err)
			continue
		}
		if !reflect.DeepEqual(sig, sig2) {
			t.Errorf("round trip of %q changed the signature:\n%#v\n%#v", tc.src, sig, sig2)
		}
		if s2 := sig2.String(); s2 != s1 {
			t.Errorf("unstable rendering: %q then %q", s1, s2)
		}
		// The rendered forms with descriptions and without firewalled
		// fields parse too.
		d, err := sig.WithDescriptions(map[string]string{})
		if err != nil {
			t.Fatal(err)
		}
		for _, opts := range []RenderOptions{{Descriptions: true}, {HideFirewalled: true}, {HideFirewalled: true, Descriptions: true}} {
			if _, err := Parse(d.Render(opts)); err != nil {
				t.Errorf("Render(%+v) of %q does not parse: %v", opts, tc.src, err)
			}
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, tc := range validSignatures {
		f.Add(tc.src)
	}
	for _, s := range []string{"", "(", "{a", "[[", ":int?", `{"a\"b" :int}`, "(a :int) -> {b [:int]?}", "; x\n:int", "{:a :int :b {:c [:any]}}",
		"{:string :int}", "{:string", "{:string}", "{:string? :int}", "{:string {:string [:any]?}?}", "{:string :int, n :int}", "{:strin :int}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		sig, err := Parse(src)
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %T: %v", err, err)
			}
			if pe.Line < 1 || pe.Col < 1 || pe.Offset < 0 || pe.Offset > len(src) || pe.Msg == "" {
				t.Fatalf("bad position in %+v", pe)
			}
			_ = pe.Snippet()
			return
		}
		s1 := sig.String()
		sig2, err := Parse(s1)
		if err != nil {
			t.Fatalf("Parse(%q) ok but its rendering %q fails: %v", src, s1, err)
		}
		if !reflect.DeepEqual(sig, sig2) {
			t.Fatalf("round trip of %q changed the signature", src)
		}
		if s2 := sig2.String(); s2 != s1 {
			t.Fatalf("unstable rendering %q vs %q", s1, s2)
		}
		_ = sig.Render(RenderOptions{HideFirewalled: true, Descriptions: true})
		_ = sig.InputSchema()
		_ = sig.OutputSchema()
	})
}

// parseType parses a single type such as [{id :int, tags [:string]}].
func parseType(src string) (Type, error) {
	p := &parser{src: src, line: 1, col: 1}
	p.skip()
	if p.eof() {
		return Type{}, p.errAt(p.mark(), "empty type", "write a type such as :int, [:string] or {id :int}")
	}
	t, err := p.typ("expected a type")
	if err != nil {
		return Type{}, err
	}
	p.skip()
	if !p.eof() {
		return Type{}, p.errAt(p.mark(), "unexpected "+p.found()+" after the type", "")
	}
	return t, nil
}

// mustParse is Parse for the tests' literals.
func mustParse(src string) *Signature {
	sig, err := Parse(src)
	if err != nil {
		panic("signature: " + err.Error())
	}
	return sig
}
