package template

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/signature"
)

// describe prints placeholders compactly: kind:name@line:col[scope].
func describe(ps []Placeholder) []string {
	out := []string{}
	for _, p := range ps {
		s := fmt.Sprintf("%s:%s@%d:%d", p.Kind, p.Name(), p.Line, p.Col)
		if len(p.Scope) > 0 {
			s += "[" + strings.Join(p.Scope, " ") + "]"
		}
		out = append(out, s)
	}
	return out
}

func TestPlaceholders(t *testing.T) {
	tests := []struct {
		src  string
		want []string
	}{
		{"", nil},
		{"no placeholders here", nil},
		{"Hello {{name}}", []string{"simple:name@1:7"}},
		{"Hello {{name}}, you have {{count}} items", []string{"simple:name@1:7", "simple:count@1:26"}},
		{"{{name}} and {{name}}", []string{"simple:name@1:1"}},
		{"{{ user.name }} {{user.address.city}}", []string{"simple:user.name@1:1", "simple:user.address.city@1:17"}},
		{"{{user-name}} {{user_name}} {{_x}}", []string{"simple:user-name@1:1", "simple:user_name@1:15", "simple:_x@1:29"}},
		{"{{#items}}{{name}}{{.}}{{/items}}", []string{"section:items@1:1", "simple:name@1:11[items]", "dot:.@1:19[items]"}},
		{"{{name}}{{#items}}{{name}}{{/items}}", []string{"simple:name@1:1", "section:items@1:9", "simple:name@1:19[items]"}},
		{"{{^items}}none{{/items}}", []string{"inverted:items@1:1"}},
		{"{{# a.b }}{{#c}}{{d}}{{/c}}{{/ a.b }}", []string{"section:a.b@1:1", "section:c@1:11[a.b]", "simple:d@1:17[a.b c]"}},
		{"{{#.}}{{.}}{{/.}}", []string{"section:.@1:1", "dot:.@1:7[.]"}},
		{"{{! a comment {{with}} braces? no: }} {{x}}", []string{"simple:x@1:39"}},
		{"line\n  {{x}}\n\t{{y}}", []string{"simple:x@2:3", "simple:y@3:2"}},
		{"é{{x}}", []string{"simple:x@1:2"}},
		{`\{{x}} {{y}}`, []string{"simple:y@1:8"}},
	}
	for _, tc := range tests {
		tpl, err := Parse(tc.src)
		if err != nil {
			t.Errorf("Parse(%q): %v", tc.src, err)
			continue
		}
		want := tc.want
		if want == nil {
			want = []string{}
		}
		if got := describe(tpl.Placeholders()); !reflect.DeepEqual(got, want) {
			t.Errorf("Parse(%q).Placeholders() = %q, want %q", tc.src, got, want)
		}
	}
	// Placeholders returns copies.
	tpl := MustParse("{{#a}}{{b.c}}{{/a}}")
	ps := tpl.Placeholders()
	ps[1].Path[0] = "x"
	ps[1].Scope[0] = "y"
	if got := tpl.Placeholders()[1]; got.Path[0] != "b" || got.Scope[0] != "a" {
		t.Error("Placeholders shares its slices")
	}
	p := Placeholder{Path: []string{"a", "b"}}
	if p.String() != "{{a.b}}" || (Placeholder{Kind: Section, Path: []string{"a"}}).String() != "{{#a}}" ||
		(Placeholder{Kind: Inverted, Path: []string{"a"}}).String() != "{{^a}}" || (Placeholder{Kind: Dot}).String() != "{{.}}" {
		t.Error("Placeholder.String")
	}
	if Simple.String() != "simple" || Section.String() != "section" || Inverted.String() != "inverted" || Dot.String() != "dot" || Kind(9).String() != "kind(9)" {
		t.Error("Kind.String")
	}
	if tpl.Source() != "{{#a}}{{b.c}}{{/a}}" || tpl.String() != tpl.Source() {
		t.Error("Source")
	}
}

func TestParseErrors(t *testing.T) {
	const names = "a placeholder is a name or a dotted path such as user.name; names start with a letter or _ and hold letters, digits, _ and -"
	tests := []struct{ src, want string }{
		{"{{}}", "empty placeholder {{}} at 1:1 (write a name such as {{name}})"},
		{"ab {{  }}", "empty placeholder {{}} at 1:4 (write a name such as {{name}})"},
		{"{{123}}", "invalid placeholder {{123}} at 1:1 (" + names + ")"},
		{"{{a..b}}", "invalid placeholder {{a..b}} at 1:1 (" + names + ")"},
		{"{{a.}}", "invalid placeholder {{a.}} at 1:1 (" + names + ")"},
		{"{{.a}}", "invalid placeholder {{.a}} at 1:1 (" + names + ")"},
		{"{{user name}}", "invalid placeholder {{user name}} at 1:1 (" + names + ")"},
		{"{{a[0]}}", "invalid placeholder {{a[0]}} at 1:1 (" + names + ")"},
		{"{{&x}}", "invalid placeholder {{&x}} at 1:1 (" + names + ")"},
		{"x\n {{{x}}}", "invalid placeholder {{{x}} at 2:2 (write \\{{ for a literal {{)"},
		{"{{#}}", "invalid placeholder {{#}} at 1:1 (a section needs a name, such as {{#items}})"},
		{"{{^ }}", "invalid placeholder {{^ }} at 1:1 (a section needs a name, such as {{#items}})"},
		{"{{/}}", "invalid placeholder {{/}} at 1:1 (a section needs a name, such as {{#items}})"},
		{"{{#1}}", "invalid placeholder {{#1}} at 1:1 (" + names + ")"},
		{"Hello {{name", "unclosed tag {{ at 1:7 (expected }} on the same line; write \\{{ for a literal {{)"},
		{"Hello {{name\n}}", "unclosed tag {{ at 1:7 (expected }} on the same line; write \\{{ for a literal {{)"},
		{"{{", "unclosed tag {{ at 1:1 (expected }} on the same line; write \\{{ for a literal {{)"},
		{"List: {{#items}}x", "unclosed section {{#items}} opened at 1:7 (close it with {{/items}})"},
		{"{{#a}}{{#b}}{{/b}}", "unclosed section {{#a}} opened at 1:1 (close it with {{/a}})"},
		{"{{^a}}", "unclosed section {{^a}} opened at 1:1 (close it with {{/a}})"},
		{"x{{/items}}", "unexpected {{/items}} at 1:2 (no section is open)"},
		{"{{#a}}{{/a}}\n{{/a}}", "unexpected {{/a}} at 2:1 (no section is open)"},
		{"{{#items}}\n{{/item}}", "mismatched {{/item}} at 2:1 ({{#items}} opened at 1:1 is closed by {{/items}})"},
		{"{{#a}}{{#b}}{{/a}}{{/b}}", "mismatched {{/a}} at 1:13 ({{#b}} opened at 1:7 is closed by {{/b}})"},
		{"{{^a}}{{/.}}", "mismatched {{/.}} at 1:7 ({{^a}} opened at 1:1 is closed by {{/a}})"},
		{"é {{#x}}", "unclosed section {{#x}} opened at 1:3 (close it with {{/x}})"},
		{strings.Repeat("{{#a}}", 101), "sections nested deeper than 100 levels at 1:601"},
	}
	for _, tc := range tests {
		_, err := Parse(tc.src)
		var te *Error
		if !errors.As(err, &te) {
			t.Errorf("Parse(%q) = %v, want *Error %s", tc.src, err, tc.want)
			continue
		}
		if err.Error() != tc.want {
			t.Errorf("Parse(%q):\n got %s\nwant %s", tc.src, err, tc.want)
		}
		if te.Offset < 0 || te.Offset > len(tc.src) {
			t.Errorf("Parse(%q): offset %d", tc.src, te.Offset)
		}
	}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "empty placeholder") {
			t.Errorf("MustParse: recover() = %v", r)
		}
	}()
	MustParse("{{}}")
}

func data(t *testing.T, src string) lisp.Value {
	t.Helper()
	v, err := lisp.Read(src, lisp.ReadOptions{Format: lisp.ReadEDN})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestExecute(t *testing.T) {
	tests := []struct {
		src, data string
		opts      []Option
		want      string
	}{
		{"Hello", `{}`, nil, "Hello"},
		{"", `{}`, nil, ""},
		{"Hello {{name}}", `{:name "Alice"}`, nil, "Hello Alice"},
		{"Hello {{name}}", `{"name" "Alice"}`, nil, "Hello Alice"},
		{"Count: {{count}}", `{:count 42}`, nil, "Count: 42"},
		{"{{a.b.c}}", `{:a {:b {:c "deep"}}}`, nil, "deep"},
		{"{{a.b.c}}", `{"a" {:b {"c" "mixed"}}}`, nil, "mixed"},
		{"{{ x }}|{{x}}", `{:x 1}`, nil, "1|1"},
		// values
		{"{{s}}|{{k}}|{{n}}|{{b}}|{{f}}|{{nil}}", `{:s "str" :k :active :n -3 :b false :f 2.5 :nil nil}`, nil, "str|active|-3|false|2.5|"},
		{"{{f}} {{g}} {{h}}", `{:f 3.14159 :g 2.0 :h 0.126}`, []Option{WithFloatPrecision(2)}, "3.14 2.0 0.13"},
		{"{{f}}", `{:f 3.14159}`, nil, "3.14159"},
		{"{{v}} {{m}} {{s}}", `{:v [1 "a" :b] :m {:id 1 :tags ["x"]} :s #{2 1}}`, nil, `[1 "a" :b] {:id 1, :tags ["x"]} #{1 2}`},
		{"{{v}}", `{:v [1.234 {:x 5.678}]}`, []Option{WithFloatPrecision(1)}, `[1.2 {:x 5.7}]`},
		{"{{v}}", `{:v [1 2 3 4 5]}`, []Option{WithPrintOptions(lisp.PrintOptions{MaxItems: 2})}, `[1 2 ... (3 more)]`},
		{"{{.}}", `{:a 1}`, nil, "{:a 1}"},
		// sections
		{"{{#items}}{{.}},{{/items}}", `{:items [1 2 3]}`, nil, "1,2,3,"},
		{"{{#items}}{{name}};{{/items}}", `{:items [{:name "a"} {"name" "b"}]}`, nil, "a;b;"},
		{"{{#items}}x{{/items}}", `{:items []}`, nil, ""},
		{"{{#items}}x{{/items}}", `{}`, nil, ""},
		{"{{#items}}x{{/items}}", `{:items nil}`, nil, ""},
		{"{{#items}}x{{/items}}", `{:items false}`, nil, ""},
		{"{{#items}}x{{/items}}", `{:items ""}`, nil, ""},
		{"{{#items}}x{{/items}}", `{:items {}}`, nil, ""},
		{"{{#items}}x{{/items}}", `{:items #{}}`, nil, ""},
		{"{{#flag}}yes{{/flag}}", `{:flag true}`, nil, "yes"},
		{"{{#n}}[{{.}}]{{/n}}", `{:n 0}`, nil, "[0]"},
		{"{{#user}}{{name}} ({{id}}){{/user}}", `{:user {:name "Bob" :id 7}}`, nil, "Bob (7)"},
		{"{{#note}}Note: {{note}}{{/note}}", `{:note "be brief"}`, nil, "Note: be brief"},
		{"{{#note}}Note: {{note}}{{/note}}", `{}`, nil, ""},
		{"{{#s}}{{.}}{{/s}}", `{:s #{:b :a}}`, nil, "ab"},
		{"{{#items}}{{name}} {{currency}};{{/items}}", `{:currency "EUR" :items [{:name "a"} {:name "b" :currency "USD"}]}`, nil, "a EUR;b USD;"},
		{"{{#rows}}{{#.}}{{.}}{{/.}}|{{/rows}}", `{:rows [[1 2] [3]]}`, nil, "12|3|"},
		{"{{#a}}{{#b}}{{x}}{{y}}{{z}}{{/b}}{{/a}}", `{:z 3 :a {:y 2 :b [{:x 1}]}}`, nil, "123"},
		{"{{#user.tags}}#{{.}} {{/user.tags}}", `{:user {:tags ["go" "lisp"]}}`, nil, "#go #lisp "},
		// inverted sections
		{"{{^items}}none{{/items}}", `{:items []}`, nil, "none"},
		{"{{^items}}none{{/items}}", `{}`, nil, "none"},
		{"{{^items}}none{{/items}}", `{:items [1]}`, nil, ""},
		{"{{^ok}}not ok{{/ok}}", `{:ok false}`, nil, "not ok"},
		// comments
		{"a{{! ignored }}b", `{}`, nil, "ab"},
		// escaping
		{`\{{name}}`, `{:name "x"}`, nil, "{{name}}"},
		{`\\{{name}}`, `{:name "x"}`, nil, `\x`},
		{`\\\{{name}}`, `{:name "x"}`, nil, `\{{name}}`},
		{`\\\\{{name}}`, `{:name "x"}`, nil, `\\x`},
		{`a\b \n {{name}}`, `{:name "x"}`, nil, `a\b \n x`},
		{`{{name}}\`, `{:name "x"}`, nil, `x\`},
		{`}} {"a": {"b": 1}}`, `{}`, nil, `}} {"a": {"b": 1}}`},
		{`\{{{{x}}`, `{:x 1}`, nil, `{{1`},
		{`{{x}}}`, `{:x 1}`, nil, `1}`},
	}
	for _, tc := range tests {
		tpl, err := Parse(tc.src)
		if err != nil {
			t.Errorf("Parse(%q): %v", tc.src, err)
			continue
		}
		got, err := tpl.Execute(data(t, tc.data), tc.opts...)
		if err != nil {
			t.Errorf("Execute(%q, %s): %v", tc.src, tc.data, err)
			continue
		}
		if got != tc.want {
			t.Errorf("Execute(%q, %s) = %q, want %q", tc.src, tc.data, got, tc.want)
		}
	}
}

// TestStandalone checks that block tags alone on their lines leave no
// blank lines behind, and that other tags keep their whitespace.
func TestStandalone(t *testing.T) {
	d := `{:items ["a" "b"] :empty [] :name "N"}`
	tests := []struct{ src, want string }{
		{"Items:\n{{#items}}\n- {{.}}\n{{/items}}\nDone.\n", "Items:\n- a\n- b\nDone.\n"},
		{"Items:\n  {{#items}}  \n  - {{.}}\n  {{/items}}\nDone.", "Items:\n  - a\n  - b\nDone."},
		{"Items:\r\n{{#items}}\r\n- {{.}}\r\n{{/items}}\r\nDone.", "Items:\r\n- a\r\n- b\r\nDone."},
		{"{{#items}}\n{{.}}\n{{/items}}", "a\nb\n"},
		{"{{#items}}\n{{.}}\n{{/items}}\n", "a\nb\n"},
		{"  {{#empty}}\nx\n{{/empty}}\n{{^empty}}\nnone\n{{/empty}}\nend", "none\nend"},
		{"a\n{{! comment }}\nb", "a\nb"},
		{"a\n\t{{! comment }}\t\nb", "a\nb"},
		{"{{#items}}{{.}}{{/items}}\n", "ab\n"},
		{"x {{#items}}\n{{.}}{{/items}} y", "x \na\nb y"},
		{"{{#items}}\n{{.}}\n{{/items}} y", "a\nb\n y"},
		{"{{name}}\n{{#empty}}\n{{/empty}}\n{{name}}", "N\nN"},
		{"  {{name}}  \n", "  N  \n"},
		{"{{#items}}\n\n{{/items}}", "\n\n"},
		{"\n{{#empty}}\n{{/empty}}\n", "\n"},
		{"{{#empty}}\n{{/empty}}", ""},
		{"{{^empty}}  {{/empty}}", "  "},
		{"{{#empty}}x{{/empty}}  \n", "  \n"},
		{"{{^empty}}\n  {{/empty}}", ""},
		{"{{^empty}}  ", "unclosed"},
	}
	for _, tc := range tests {
		tpl, err := Parse(tc.src)
		if tc.want == "unclosed" {
			if err == nil {
				t.Errorf("Parse(%q): no error", tc.src)
			}
			continue
		}
		if err != nil {
			t.Errorf("Parse(%q): %v", tc.src, err)
			continue
		}
		got, err := tpl.Execute(data(t, d))
		if err != nil || got != tc.want {
			t.Errorf("Execute(%q) = %q, %v; want %q", tc.src, got, err, tc.want)
		}
	}
}

type user struct {
	Name  string `json:"name"`
	Email string `json:"email,omitempty"`
}

func TestExecuteData(t *testing.T) {
	tpl := MustParse("{{user.name}} <{{user.email}}> {{#tags}}#{{.}}{{/tags}}")
	got, err := tpl.Execute(map[string]any{"user": user{Name: "Ann", Email: "a@x"}, "tags": []string{"x", "y"}})
	if err != nil || got != "Ann <a@x> #x#y" {
		t.Errorf("Go data: %q, %v", got, err)
	}
	got, err = tpl.Execute(struct {
		User user     `json:"user"`
		Tags []string `json:"tags"`
	}{User: user{Name: "Bo", Email: "b@y"}})
	if err != nil || got != "Bo <b@y> " {
		t.Errorf("struct data: %q, %v", got, err)
	}
	got, err = MustParse("static").Execute(nil)
	if err != nil || got != "static" {
		t.Errorf("nil data: %q, %v", got, err)
	}
	got, err = MustParse("static{{#a}}x{{/a}}").Execute((*lisp.Map)(nil))
	if err != nil || got != "static" {
		t.Errorf("nil map data: %q, %v", got, err)
	}
	if _, err := tpl.Execute([]int{1}); err == nil || err.Error() != "template: data must be a map, got vector" {
		t.Error(err)
	}
	if _, err := tpl.Execute("x"); err == nil || err.Error() != "template: data must be a map, got string" {
		t.Error(err)
	}
	if _, err := tpl.Execute(map[string]any{"c": make(chan int)}); err == nil || !strings.HasPrefix(err.Error(), "template: data: ") {
		t.Error(err)
	}
	// an infinite sequence cannot be iterated
	res, err := lisp.Run(t.Context(), "{:xs (range)}", lisp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = MustParse("a\n {{#xs}}{{.}}{{/xs}}").Execute(res.Value)
	if err == nil || err.Error() != "section {{#xs}} over an infinite sequence at 2:2 (take a finite part first)" {
		t.Error(err)
	}
	_, err = MustParse("{{#a}}{{#xs}}{{.}}{{/xs}}{{/a}}").Execute(lisp.NewMap(lisp.Keyword("a"), res.Value))
	if err == nil {
		t.Error("no error for a nested infinite sequence")
	}
	_, err = MustParse("{{^a}}{{#xs}}{{.}}{{/xs}}{{/a}}").Execute(res.Value)
	if err == nil {
		t.Error("no error for an infinite sequence in an inverted section")
	}
	// other values render in their display form
	d := lisp.NewMap(lisp.Keyword("d"), lisp.Date{Y: 2024, M: 1, D: 2})
	if got, err := MustParse("{{d}}").Execute(d); err != nil || got != "2024-01-02" {
		t.Errorf("date: %q %v", got, err)
	}
}

func TestMissing(t *testing.T) {
	tests := []struct{ src, data, want string }{
		{"{{missing}}", `{}`, "missing value for placeholder {{missing}} at 1:1"},
		{"{{a}} and {{b}}", `{:a "1"}`, "missing value for placeholder {{b}} at 1:11"},
		{"{{a}} {{b}} {{a}}", `{}`, "missing values for placeholders {{a}} at 1:1, {{b}} at 1:7"},
		{"{{user.name}}", `{:user {}}`, "missing value for placeholder {{user.name}} at 1:1"},
		{"{{user.name}}", `{:user "bob"}`, "missing value for placeholder {{user.name}} at 1:1"},
		{"{{user.name.first}}", `{:user {:name "x"}}`, "missing value for placeholder {{user.name.first}} at 1:1"},
		{"{{#items}}{{id}}{{/items}}", `{:items [{:id 1} {}]}`, "missing value for placeholder {{id}} at 1:11"},
		{"{{#m}}{{x}}{{/m}}", `{:m 1}`, "missing value for placeholder {{x}} at 1:7"},
	}
	for _, tc := range tests {
		_, err := MustParse(tc.src).Execute(data(t, tc.data))
		var me *MissingError
		if !errors.As(err, &me) {
			t.Errorf("Execute(%q, %s) = %v, want *MissingError", tc.src, tc.data, err)
			continue
		}
		if err.Error() != tc.want {
			t.Errorf("Execute(%q, %s):\n got %s\nwant %s", tc.src, tc.data, err, tc.want)
		}
	}
	_, err := MustParse("{{#items}}{{id}}{{/items}}").Execute(data(t, `{:items [{} {}]}`))
	if me := err.(*MissingError); len(me.Missing) != 1 || !reflect.DeepEqual(me.Missing[0].Scope, []string{"items"}) {
		t.Errorf("%#v", me)
	}
}

func TestValidate(t *testing.T) {
	tests := []struct{ tpl, sig, want string }{
		{"Hello {{name}}", "(name :string) -> {greeting :string}", ""},
		{"Hello {{unknown}}", "(name :string) -> {greeting :string}", "placeholder {{unknown}} not found in signature"},
		{"Find emails for {{user}}", "(person :string) -> {count :int}", "placeholder {{user}} not found in signature"},
		{"{{a}} {{b}} {{a}}", "(c :int) -> :int", "placeholders {{a}}, {{b}} not found in signature"},
		{"{{name}}", "{count :int}", "placeholder {{name}} not found in signature"},
		{"Static text", "{count :int}", ""},
		{"Is {{email.subject}} urgent for {{tier}}?", "(email {:subject :string}, tier :string) -> {:urgent :bool}", ""},
		{"{{email.body}}", "(email {:subject :string}) -> :bool", "placeholder {{email.body}} not found in signature"},
		{"{{user.address.city}}", "(user {address {city :string}}) -> :any", ""},
		{"{{user.address.zip}}", "(user {address {city :string}}) -> :any", "placeholder {{user.address.zip}} not found in signature"},
		{"{{user.name}}", "(user :string) -> :any", "placeholder {{user.name}} not found in signature"},
		{"{{data.anything.goes}}", "(data :map) -> :any", ""},
		{"{{data.anything}}", "(data :any) -> :any", ""},
		{"{{data.anything}}", "(data {x :int}?) -> :any", "placeholder {{data.anything}} not found in signature"},
		{"{{items.count}}", "(items [:int]) -> :any", "placeholder {{items.count}} not found in signature"},
		// a map from strings has any key, each a value of its type
		{"{{votes.ann}}", "(votes {:string :int}) -> :any", ""},
		{"{{votes.ann.x}}", "(votes {:string :int}) -> :any", "placeholder {{votes.ann.x}} not found in signature"},
		{"{{people.ann.name}}", "(people {:string {name :string}}) -> :any", ""},
		{"{{people.ann.age}}", "(people {:string {name :string}}) -> :any", "placeholder {{people.ann.age}} not found in signature"},
		// sections look names up in the element type first, then outside
		{"{{#items}}{{id}}: {{name}} ({{currency}}){{/items}}", "(items [{id :int, name :string}], currency :string) -> :any", ""},
		{"{{#items}}{{price}}{{/items}}", "(items [{id :int}]) -> :any", "placeholder {{price}} not found in signature"},
		{"{{#items}}{{.}}{{/items}}", "(items [:int]) -> :any", ""},
		{"{{#items}}{{x}}{{/items}}", "(items [:int]) -> :any", "placeholder {{x}} not found in signature"},
		{"{{#items}}{{x}}{{/items}}", "(items [:map]) -> :any", ""},
		{"{{#items}}{{x}}{{/items}}", "(items :any) -> :any", ""},
		{"{{#user}}{{name}}{{/user}}", "(user {name :string}?) -> :any", ""},
		{"{{#rows}}{{#.}}{{.}}{{/.}}{{/rows}}", "(rows [[:int]]) -> :any", ""},
		{"{{#a}}{{#b}}{{c}}{{/b}}{{/a}}", "(a [{b [{c :int}]}]) -> :any", ""},
		{"{{^items}}none{{/items}}", "(items [:int]) -> :any", ""},
		{"{{^missing}}none{{x}}{{/missing}}", "(items [:int]) -> :any", "placeholders {{^missing}}, {{x}} not found in signature"},
		{"{{#nope}}{{/nope}}", "(items [:int]) -> :any", "placeholder {{#nope}} not found in signature"},
		{"{{#nope}}{{id}}{{/nope}}", "(items [:int]) -> :any", "placeholder {{#nope}} not found in signature"},
		{"{{.}}", ":int", ""},
		{"{{#items}}{{x}}{{/items}}{{#items}}{{x}}{{/items}}", "(items [{y :int}]) -> :any", "placeholder {{x}} not found in signature"},
	}
	for _, tc := range tests {
		err := MustParse(tc.tpl).Validate(mustSig(tc.sig))
		got := ""
		if err != nil {
			got = err.Error()
			var ne *NotInSignatureError
			if !errors.As(err, &ne) {
				t.Errorf("error %T", err)
			}
		}
		if got != tc.want {
			t.Errorf("Validate(%q, %q) = %q, want %q", tc.tpl, tc.sig, got, tc.want)
		}
	}
	err := MustParse("x\n{{#items}}{{nope}}{{/items}}").Validate(mustSig("(items [{a :int}]) -> :any"))
	p := err.(*NotInSignatureError).Placeholders[0]
	if p.Line != 2 || p.Col != 11 || !reflect.DeepEqual(p.Scope, []string{"items"}) || p.Kind != Simple {
		t.Errorf("%+v", p)
	}
}

func TestEscape(t *testing.T) {
	for _, s := range []string{"", "plain", "{{x}}", `\{{x}}`, `\\{{`, "{{{{", "{{\\{{", `a\`, `}}{{`, "{{#a}}\n{{/a}}", `\\\`} {
		e := Escape(s)
		tpl, err := Parse(e)
		if err != nil {
			t.Errorf("Parse(Escape(%q) = %q): %v", s, e, err)
			continue
		}
		if got, err := tpl.Execute(nil); err != nil || got != s || len(tpl.Placeholders()) != 0 {
			t.Errorf("Escape(%q) = %q renders %q, %v", s, e, got, err)
		}
	}
	if got := Escape(`a {{b}} \{{c}}`); got != `a \{{b}} \\\{{c}}` {
		t.Error(got)
	}
}

// TestRoundTrip parses, prints and parses again.
func TestRoundTrip(t *testing.T) {
	srcs := []string{
		"Hello {{ name }}",
		"Items:\n{{#items}}\n- {{name}}: {{.}}\n{{/items}}\n{{^items}}none{{/items}}",
		`\{{literal}} \\{{x}} {{! c }}`,
	}
	d := data(t, `{:name "n" :x 1 :items [{:name "a"}]}`)
	for _, src := range srcs {
		t1 := MustParse(src)
		t2, err := Parse(t1.String())
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(t1.Placeholders(), t2.Placeholders()) || !reflect.DeepEqual(t1.nodes, t2.nodes) {
			t.Errorf("round trip of %q changed the template", src)
		}
		o1, e1 := t1.Execute(d)
		o2, e2 := t2.Execute(d)
		if o1 != o2 || (e1 == nil) != (e2 == nil) {
			t.Errorf("round trip of %q renders differently", src)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"", "Hello {{name}}", "{{#items}}\n- {{.}}\n{{/items}}", "{{^a}}x{{/a}}", `\{{x}}`, `\\{{x}}`,
		"{{a.b.c}}", "{{#a}}{{#b}}{{c}}{{/b}}{{/a}}", "{{! c }}", "{{", "}}", "{{}}", "{{#a}}", "{{/a}}",
		"  {{#a}}  \r\n{{/a}}\n", "{{{x}}}",
	} {
		f.Add(s)
	}
	d := mustFromGo(f, map[string]any{"a": []any{1, map[string]any{"b": "x"}}, "name": "n", "b": map[string]any{"c": 1.5}})
	sig := mustSig("(a [{b :string}], name :string, b {c :float}) -> :any")
	f.Fuzz(func(t *testing.T, src string) {
		// Escaped text always renders as itself.
		if e, err := Parse(Escape(src)); err != nil {
			t.Fatalf("Escape(%q) does not parse: %v", src, err)
		} else if out, err := e.Execute(nil); err != nil || out != src {
			t.Fatalf("Escape(%q) renders %q, %v", src, out, err)
		}
		tpl, err := Parse(src)
		if err != nil {
			var te *Error
			if !errors.As(err, &te) {
				t.Fatalf("error %T: %v", err, err)
			}
			if te.Line < 1 || te.Col < 1 || te.Offset < 0 || te.Offset > len(src) {
				t.Fatalf("bad position in %+v", te)
			}
			return
		}
		for _, p := range tpl.Placeholders() {
			if p.Line < 1 || p.Col < 1 || (p.Path == nil) != (p.Name() == ".") {
				t.Fatalf("bad placeholder %+v", p)
			}
		}
		_ = tpl.Validate(sig)
		if _, err := tpl.Execute(d, WithFloatPrecision(2)); err != nil {
			var me *MissingError
			if !errors.As(err, &me) || len(me.Missing) == 0 {
				t.Fatalf("Execute: %v", err)
			}
		}
		t2, err := Parse(tpl.String())
		if err != nil || !reflect.DeepEqual(tpl.nodes, t2.nodes) {
			t.Fatalf("reparse of %q: %v", src, err)
		}
	})
}

func TestExecuteConcurrent(t *testing.T) {
	tpl := MustParse("{{#items}}{{name}}{{/items}}")
	done := make(chan string)
	for i := 0; i < 8; i++ {
		go func() {
			out, _ := tpl.Execute(map[string]any{"items": []any{map[string]any{"name": i}}})
			done <- out
		}()
	}
	for i := 0; i < 8; i++ {
		if out := <-done; len(out) != 1 {
			t.Error(out)
		}
	}
}

// WithMaxBytes bounds the expansion, also of a value that shares its
// parts and would print to more than any memory holds.
func TestMaxBytes(t *testing.T) {
	dag, err := lisp.Run(context.Background(), `(nth (iterate (fn [v] [v v]) 1) 60)`, lisp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tpl := MustParse("Look at {{d}}; {{#d}}{{.}}{{/d}}")
	_, err = tpl.Execute(map[string]any{"d": dag.Value}, WithMaxBytes(1<<20))
	var te *Error
	if !errors.As(err, &te) || !strings.Contains(te.Msg, "longer than 1048576 bytes") || te.Col != 9 {
		t.Fatalf("got %v, want a bound error at the {{d}} placeholder", err)
	}
	out, err := tpl.Execute(map[string]any{"d": []any{1, 2}}, WithMaxBytes(40))
	if err != nil || out != "Look at [1 2]; 12" {
		t.Fatalf("within the bound: %q, %v", out, err)
	}
	if _, err := tpl.Execute(map[string]any{"d": []any{1, 2}}, WithMaxBytes(16)); err == nil {
		t.Fatal("over the bound: no error")
	}
}

// mustSig parses a signature literal of a test.
func mustSig(src string) *signature.Signature {
	sig, err := signature.Parse(src)
	if err != nil {
		panic(err)
	}
	return sig
}

// mustFromGo converts test data that converts (lisp.FromGo), failing the
// test otherwise.
func mustFromGo(tb testing.TB, x any) lisp.Value {
	tb.Helper()
	v, err := lisp.FromGo(x)
	if err != nil {
		tb.Fatal(err)
	}
	return v
}

// A value the print options' redaction hides by its place (an agent's
// firewall: what a caller computed from firewalled data) expands as the
// placeholder, looked up by the key as the map stores it.
func TestExecuteHidesMembers(t *testing.T) {
	inner := lisp.NewMap("city", "Oslo", "code", "N-7")
	ctx := lisp.NewMap("topic", "secret-ish", "who", "me", "place", inner)
	red := &lisp.Redaction{Placeholder: "<Hidden>", Member: func(coll, key lisp.Value) bool {
		return coll == lisp.Value(ctx) && key == "topic" || coll == lisp.Value(inner) && key == "code"
	}}
	got, err := MustParse("{{topic}} for {{who}} in {{place.city}} ({{place.code}})").Execute(ctx, WithPrintOptions(lisp.PrintOptions{Redact: red}))
	if err != nil {
		t.Fatal(err)
	}
	if want := "<Hidden> for me in Oslo (<Hidden>)"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
