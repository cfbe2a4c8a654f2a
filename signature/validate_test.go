package signature

import (
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/ptc-go/ptc/lisp"
)

func edn(t *testing.T, src string) lisp.Value {
	t.Helper()
	v, err := lisp.Read(src, lisp.ReadOptions{Format: lisp.ReadEDN})
	if err != nil {
		t.Fatalf("ReadData(%q): %v", src, err)
	}
	return v
}

func issueStrings(is []Issue) []string {
	out := []string{}
	for _, i := range is {
		out = append(out, i.String())
	}
	return out
}

func errIssues(err error) []string {
	if err == nil {
		return []string{}
	}
	var ve *ValidationError
	if !errors.As(err, &ve) {
		return []string{"not a *ValidationError: " + err.Error()}
	}
	return issueStrings(ve.Issues)
}

// TestValidate checks values written in EDN against types, without
// coercion.
func TestValidate(t *testing.T) {
	tests := []struct {
		typ, val string
		mode     Mode
		errs     []string
	}{
		// primitives
		{":string", `"x"`, Enabled, nil},
		{":string", `""`, Enabled, nil},
		{":string", `42`, Enabled, []string{`expected :string, got 42`}},
		{":string", `:kw`, Enabled, []string{`expected :string, got :kw`}},
		{":string", `nil`, Enabled, []string{`expected :string, got nil`}},
		{":string?", `nil`, Enabled, nil},
		{":int", `42`, Enabled, nil},
		{":int", `-1`, Enabled, nil},
		{":int", `12345678901234567890N`, Enabled, nil}, // a BigInt is an integer
		{":float", `12345678901234567890N`, Enabled, nil},
		{":int", `"42"`, Enabled, []string{`expected :int, got "42"`}},
		{":int", `42.0`, Enabled, []string{`expected :int, got 42.0`}},
		{":int", `true`, Enabled, []string{`expected :int, got true`}},
		{":int?", `nil`, Enabled, nil},
		{":int?", `"x"`, Enabled, []string{`expected :int, got "x"`}},
		{":float", `3.14`, Enabled, nil},
		{":float", `42`, Enabled, nil},
		{":float", `"3.14"`, Enabled, []string{`expected :float, got "3.14"`}},
		{":float", `##NaN`, Enabled, nil},
		{":bool", `true`, Enabled, nil},
		{":bool", `false`, Enabled, nil},
		{":bool", `"true"`, Enabled, []string{`expected :bool, got "true"`}},
		{":bool", `nil`, Enabled, []string{`expected :bool, got nil`}},
		{":keyword", `:active`, Enabled, nil},
		{":keyword", `"active"`, Enabled, []string{`expected :keyword, got "active"`}},
		{":keyword", `1`, Enabled, []string{`expected :keyword, got 1`}},
		{":any", `nil`, Enabled, nil},
		{":any", `{:a [1 2]}`, Enabled, nil},
		{":map", `{}`, Enabled, nil},
		{":map", `{"a" 1}`, Enabled, nil},
		{":map", `[1]`, Enabled, []string{`expected :map, got [1]`}},
		{":map", `nil`, Enabled, []string{`expected :map, got nil`}},
		// lists
		{"[:int]", `[]`, Enabled, nil},
		{"[:int]", `[1 2 3]`, Enabled, nil},
		{"[:int]", `(1 2 3)`, Enabled, nil}, // a list validates as a vector does
		{"[:int]", `(1 "2")`, Enabled, []string{`[1]: expected :int, got "2"`}},
		{"[[:int]]", `([1] (2 "x"))`, Enabled, []string{`[1][1]: expected :int, got "x"`}},
		{"[:int]", `[1 "2" 3 4.5]`, Enabled, []string{`[1]: expected :int, got "2"`, `[3]: expected :int, got 4.5`}},
		{"[:int]", `#{1 2}`, Enabled, []string{`expected [:int], got #{1 2}`}},
		{"[:int]", `{:a 1}`, Enabled, []string{`expected [:int], got {:a 1}`}},
		{"[:int]", `nil`, Enabled, []string{`expected [:int], got nil`}},
		{"[:int]?", `nil`, Enabled, nil},
		{"[:int?]", `[1 nil 3]`, Enabled, nil},
		{"[:int]", `[1 nil]`, Enabled, []string{`[1]: expected :int, got nil`}},
		{"[[:int]]", `[[1] [2 "x"]]`, Enabled, []string{`[1][1]: expected :int, got "x"`}},
		{"[:any]", `[1 "a" nil]`, Enabled, nil},
		// records
		{"{}", `{}`, Enabled, nil},
		{"{}", `{:a 1}`, Enabled, nil},
		{"{}", `{:a 1}`, Strict, []string{`a: unexpected field (strict mode accepts only no fields)`}},
		{"{id :int}", `{:id 1}`, Enabled, nil},
		{"{id :int}", `{"id" 1}`, Enabled, nil},
		{"{id :int}", `{:id 1 :extra 2}`, Enabled, nil},
		{"{id :int}", `{:id 1 :extra 2 "more" 3 7 4}`, Strict, []string{
			`[7]: unexpected field (strict mode accepts only id)`,
			`extra: unexpected field (strict mode accepts only id)`,
			`more: unexpected field (strict mode accepts only id)`}},
		{"{id :int}", `{}`, Enabled, []string{`id: missing required field, expected :int`}},
		{"{id :int}", `{:id nil}`, Enabled, []string{`id: expected :int, got nil`}},
		{"{id :int?}", `{}`, Enabled, nil},
		{"{id :int?}", `{:id nil}`, Enabled, nil},
		{"{id :int}", `[1]`, Enabled, []string{`expected {id :int}, got [1]`}},
		{"{id :int, name :string}", `{:id "1" :name 2}`, Enabled, []string{`id: expected :int, got "1"`, `name: expected :string, got 2`}},
		{"{user {id :int, email :string?}}", `{:user {:id "x"}}`, Enabled, []string{`user.id: expected :int, got "x"`}},
		{"{user {id :int}}", `{:user nil}`, Enabled, []string{`user: expected {id :int}, got nil`}},
		{"{user {id :int}?}", `{:user nil}`, Enabled, nil},
		{"{items [{id :int}]}", `{:items [{:id 1} {:id 2} {:id "12"}]}`, Enabled, []string{`items[2].id: expected :int, got "12"`}},
		{"[{id :int}]", `[{:id 1} {} 3]`, Enabled, []string{`[1].id: missing required field, expected :int`, `[2]: expected {id :int}, got 3`}},
		{`{"a b" :int, "x.y" {z :int}}`, `{"a b" "1" "x.y" {:z "2"}}`, Enabled, []string{`["a b"]: expected :int, got "1"`, `["x.y"].z: expected :int, got "2"`}},
		{"{_ids [:int]}", `{:_ids [1 :two]}`, Enabled, []string{`_ids[1]: expected :int, got :two`}},
		// maps from strings: any string or keyword keys, every value checked
		{"{:string :int}", `{}`, Enabled, nil},
		{"{:string :int}", `{"ann" 3 "bob" 4}`, Enabled, nil},
		{"{:string :int}", `{:ann 3 "bob" 4}`, Enabled, nil},
		{"{:string :int}", `{:ann 3 "bob" "4" :cy nil}`, Enabled, []string{`cy: expected :int, got nil`, `bob: expected :int, got "4"`}}, // keywords first, as maps order them
		{"{:string :int?}", `{:ann nil}`, Enabled, nil},
		{"{:string :int}", `{1 3 [2] 4 "a b" 5}`, Enabled, []string{`[1]: expected a string or keyword key, got 1`, `[[2]]: expected a string or keyword key, got [2]`}},
		{"{:string :int}", `[1 2]`, Enabled, []string{`expected {:string :int}, got [1 2]`}},
		{"{:string :int}", `nil`, Enabled, []string{`expected {:string :int}, got nil`}},
		{"{:string :int}?", `nil`, Enabled, nil},
		{"{:string :any}", `{"a" nil "b" [1]}`, Enabled, nil},
		{"{:string :any}", `{2 1}`, Enabled, []string{`[2]: expected a string or keyword key, got 2`}},
		{"{:string {n :int}}", `{"ann" {:n 1} "bob" {:n "2"} "a.b" {}}`, Enabled, []string{`["a.b"].n: missing required field, expected :int`, `bob.n: expected :int, got "2"`}},
		{"{:string {n :int}}", `{"ann" {:n 1 :x 2}}`, Strict, []string{`ann.x: unexpected field (strict mode accepts only n)`}},
		{"{:string :int}", `{"ann" 1 "bob" 2}`, Strict, nil}, // the keys are data, not fields
		{"{tallies {:string :int}}", `{:tallies {"x" 1.5}}`, Enabled, []string{`tallies.x: expected :int, got 1.5`}},
		{"[{:string [:string]}]", `[{"a" ["x"]} {"b" [1]}]`, Enabled, []string{`[1].b[0]: expected :string, got 1`}},
		// long values and types are shortened
		{":int", `"` + strings.Repeat("x", 100) + `"`, Enabled, []string{`expected :int, got "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...`}},
		{":int", `[1 2 3 4 5]`, Enabled, []string{`expected :int, got [1 2 3 ... (2 more)]`}},
		{"{aaaaaaaaaa :int, bbbbbbbbbb :int, cccccccccc :int}", `1`, Enabled, []string{`expected a map {aaaaaaaaaa :int, bbbbbbbbbb :int, ...}, got 1`}},
		{"[{aaaaaaaaaa :int, bbbbbbbbbb :int, cccccccccc :int}]", `1`, Enabled, []string{`expected a list [{aaaaaaaaaa :int, bbbbbbbbbb :int, ...], got 1`}},
		// modes
		{":int", `"x"`, Disabled, nil},
		{"{id :int}", `{:x 1}`, Disabled, nil},
		{":int", `"x"`, Strict, []string{`expected :int, got "x"`}},
	}
	for _, tc := range tests {
		ty, err := parseType(tc.typ)
		if err != nil {
			t.Fatalf("parseType(%q): %v", tc.typ, err)
		}
		v := edn(t, tc.val)
		warns, err := ty.Validate(v, tc.mode)
		want := tc.errs
		if want == nil {
			want = []string{}
		}
		if got := errIssues(err); !reflect.DeepEqual(got, want) {
			t.Errorf("Validate(%s, %s, %s) errors:\n got %q\nwant %q", tc.typ, tc.val, tc.mode, got, want)
		}
		if len(warns) != 0 {
			t.Errorf("Validate(%s, %s, %s) warnings: %q", tc.typ, tc.val, tc.mode, issueStrings(warns))
		}
		// WarnOnly reports the same issues as warnings and never fails.
		if tc.mode == Enabled {
			warns, err := ty.Validate(v, WarnOnly)
			if err != nil || !reflect.DeepEqual(issueStrings(warns), want) {
				t.Errorf("WarnOnly Validate(%s, %s) = %q, %v; want warnings %q", tc.typ, tc.val, issueStrings(warns), err, want)
			}
		}
	}
}

// TestCoerce checks coercion of values written in EDN.
func TestCoerce(t *testing.T) {
	tests := []struct {
		typ, val string
		mode     Mode
		want     string // printed result ("" when err)
		warns    []string
		errs     []string
	}{
		{":int", `"42"`, Enabled, `42`, []string{`coerced "42" to :int`}, nil},
		{":int", `" -5 "`, Enabled, `-5`, []string{`coerced " -5 " to :int`}, nil},
		{":int", `42.0`, Enabled, `42`, []string{`coerced 42.0 to :int`}, nil},
		{":int", `-3.0`, Enabled, `-3`, []string{`coerced -3.0 to :int`}, nil},
		{":int", `42.5`, Enabled, ``, nil, []string{`expected :int, got 42.5`}},
		{":int", `1.0E300`, Enabled, ``, nil, []string{`expected :int, got 1.0E300`}},
		{":int", `##NaN`, Enabled, ``, nil, []string{`expected :int, got ##NaN`}},
		{":int", `"hello"`, Enabled, ``, nil, []string{`expected :int, got "hello"`}},
		{":int", `"4.5"`, Enabled, ``, nil, []string{`expected :int, got "4.5"`}},
		{":int", `"99999999999999999999"`, Enabled, ``, nil, []string{`expected :int, got "99999999999999999999"`}},
		{":int", `:x`, Enabled, ``, nil, []string{`expected :int, got :x`}},
		{":int", `42`, Enabled, `42`, nil, nil},
		{"[:int]", `("1" 2)`, Enabled, `(1 2)`, []string{`[0]: coerced "1" to :int`}, nil}, // a list stays a list
		{":float", `"3.14"`, Enabled, `3.14`, []string{`coerced "3.14" to :float`}, nil},
		{":float", `"42"`, Enabled, `42.0`, []string{`coerced "42" to :float`}, nil},
		{":float", `42`, Enabled, `42.0`, nil, nil},
		{":float", `10N`, Enabled, `10.0`, nil, nil},
		{":int", `12345678901234567890N`, Enabled, `12345678901234567890N`, nil, nil},
		{":float", `"NaN"`, Enabled, ``, nil, []string{`expected :float, got "NaN"`}},
		{":float", `"1e999"`, Enabled, ``, nil, []string{`expected :float, got "1e999"`}},
		{":float", `"abc"`, Enabled, ``, nil, []string{`expected :float, got "abc"`}},
		{":float", `true`, Enabled, ``, nil, []string{`expected :float, got true`}},
		{":bool", `"true"`, Enabled, `true`, []string{`coerced "true" to :bool`}, nil},
		{":bool", `"false"`, Enabled, `false`, []string{`coerced "false" to :bool`}, nil},
		{":bool", `"True"`, Enabled, `true`, []string{`coerced "True" to :bool`}, nil},
		{":bool", `"yes"`, Enabled, ``, nil, []string{`expected :bool, got "yes"`}},
		{":bool", `1`, Enabled, ``, nil, []string{`expected :bool, got 1`}},
		{":keyword", `"active"`, Enabled, `:active`, []string{`coerced "active" to :keyword`}, nil},
		{":keyword", `":active"`, Enabled, `:active`, []string{`coerced ":active" to :keyword`}, nil},
		{":keyword", `"two words"`, Enabled, ``, nil, []string{`expected :keyword, got "two words"`}},
		{":keyword", `""`, Enabled, ``, nil, []string{`expected :keyword, got ""`}},
		{":keyword", `1`, Enabled, ``, nil, []string{`expected :keyword, got 1`}},
		{":string", `:active`, Enabled, `"active"`, []string{`coerced :active to :string`}, nil},
		{":string", `42`, Enabled, ``, nil, []string{`expected :string, got 42`}},
		{":string?", `nil`, Enabled, `nil`, nil, nil},
		{":any", `"42"`, Enabled, `"42"`, nil, nil},
		{":map", `{:a "1"}`, Enabled, `{:a "1"}`, nil, nil},
		// nested: coercion applies at every depth, and only changed parts are copied
		{"[:int]", `["1" 2 "3"]`, Enabled, `[1 2 3]`, []string{`[0]: coerced "1" to :int`, `[2]: coerced "3" to :int`}, nil},
		{"[:int]", `[1 2 "3"]`, Enabled, `[1 2 3]`, []string{`[2]: coerced "3" to :int`}, nil},
		{"[{id :int, name :string}]", `[{"id" "42" "name" "Alice"}]`, Enabled, `[{"id" 42, "name" "Alice"}]`, []string{`[0].id: coerced "42" to :int`}, nil},
		{"{id :int, tags [:keyword]}", `{:id "7" :tags ["a" :b] :extra "9"}`, Enabled, `{:extra "9", :id 7, :tags [:a :b]}`,
			[]string{`id: coerced "7" to :int`, `tags[0]: coerced "a" to :keyword`}, nil},
		{"{id :int}", `{:id "x" :y 1}`, Enabled, ``, nil, []string{`id: expected :int, got "x"`}},
		{"{a :int, b :int}", `{:a "1" :b "x"}`, Enabled, ``, []string{`a: coerced "1" to :int`}, []string{`b: expected :int, got "x"`}},
		// maps from strings: values are coerced, keys kept as they are
		{"{:string :int}", `{"a" "1" :b 2 "c" 3.0}`, Enabled, `{:b 2, "a" 1, "c" 3}`, []string{`a: coerced "1" to :int`, `c: coerced 3.0 to :int`}, nil},
		{"{:string :float}", `{"a" 1}`, Enabled, `{"a" 1.0}`, nil, nil},
		{"{:string {ok :bool}}", `{"x" {"ok" "true"}}`, Enabled, `{"x" {"ok" true}}`, []string{`x.ok: coerced "true" to :bool`}, nil},
		{"{:string :keyword}", `{"x" "two words"}`, Enabled, ``, nil, []string{`x: expected :keyword, got "two words"`}},
		{"{:string :int}", `{"a" "1"}`, Strict, ``, nil, []string{`a: expected :int, got "1"`}},
		// strict: nothing is converted (integers still widen to floats)
		{":int", `"42"`, Strict, ``, nil, []string{`expected :int, got "42"`}},
		{":float", `42`, Strict, `42`, nil, nil},
		{"{id :int}", `{:id 1 :x 2}`, Strict, ``, nil, []string{`x: unexpected field (strict mode accepts only id)`}},
		// warn_only: coerce what can be, report the rest
		{"[:int]", `["1" "x"]`, WarnOnly, `[1 "x"]`, []string{`[0]: coerced "1" to :int`, `[1]: expected :int, got "x"`}, nil},
		// disabled: unchanged
		{":int", `"42"`, Disabled, `"42"`, nil, nil},
	}
	for _, tc := range tests {
		ty := mustType(t, tc.typ)
		got, warns, err := ty.Coerce(edn(t, tc.val), tc.mode)
		wantErrs := tc.errs
		if wantErrs == nil {
			wantErrs = []string{}
		}
		if g := errIssues(err); !reflect.DeepEqual(g, wantErrs) {
			t.Errorf("Coerce(%s, %s, %s) errors:\n got %q\nwant %q", tc.typ, tc.val, tc.mode, g, wantErrs)
		}
		wantWarns := tc.warns
		if wantWarns == nil {
			wantWarns = []string{}
		}
		if g := issueStrings(warns); !reflect.DeepEqual(g, wantWarns) {
			t.Errorf("Coerce(%s, %s, %s) warnings:\n got %q\nwant %q", tc.typ, tc.val, tc.mode, g, wantWarns)
		}
		if err == nil && lisp.Print(got, lisp.PrintOptions{}) != tc.want {
			t.Errorf("Coerce(%s, %s, %s) = %s, want %s", tc.typ, tc.val, tc.mode, lisp.Print(got, lisp.PrintOptions{}), tc.want)
		}
	}
}

func mustType(t *testing.T, src string) Type {
	t.Helper()
	ty, err := parseType(src)
	if err != nil {
		t.Fatalf("parseType(%q): %v", src, err)
	}
	return ty
}

func TestCoerceSharesUnchanged(t *testing.T) {
	v := edn(t, `{:items [{:id 1} {:id 2}] :meta {:a 1}}`)
	got, warns, err := mustType(t, "{items [{id :int}], meta :map}").Coerce(v, Enabled)
	if err != nil || len(warns) != 0 {
		t.Fatal(err, warns)
	}
	if got.(*lisp.Map) != v.(*lisp.Map) {
		t.Error("an unchanged map was copied")
	}
	v2 := edn(t, `[[1] [2] ["3"]]`)
	got2, _, _ := mustType(t, "[[:int]]").Coerce(v2, Enabled)
	items, orig := got2.(*lisp.Vector).Items(), v2.(*lisp.Vector).Items()
	if items[0].(*lisp.Vector) != orig[0].(*lisp.Vector) || items[2].(*lisp.Vector) == orig[2].(*lisp.Vector) {
		t.Error("copying is not limited to the changed parts")
	}
}

func TestGoValues(t *testing.T) {
	type item struct {
		ID   int    `json:"id"`
		Name string `json:"name,omitempty"`
	}
	ty := mustType(t, "{items [{id :int, name :string}], count :int, ratio :float}")
	tests := []struct {
		val  any
		errs []string
	}{
		{map[string]any{"items": []any{map[string]any{"id": 1, "name": "a"}}, "count": int8(1), "ratio": float32(0.5)}, nil},
		{map[string]any{"items": []item{{ID: 1, Name: "a"}, {ID: 2}}, "count": uint(3), "ratio": 1}, []string{"items[1].name: missing required field, expected :string"}},
		{struct {
			Items []item `json:"items"`
			Count string
			Ratio float64 `json:"ratio"`
		}{Items: []item{{3, "c"}}, Count: "x"}, []string{"count: missing required field, expected :int"}},
		{map[string]any{"items": "nope", "count": 1.5, "ratio": "x"}, []string{"items: expected [{id :int, name :string}], got \"nope\"", "count: expected :int, got 1.5", "ratio: expected :float, got \"x\""}},
		{map[string]any{"items": nil, "count": json1(), "ratio": math.Pi}, []string{"items: expected [{id :int, name :string}], got nil"}},
		{make(chan int), []string{"cannot convert the value: cannot convert a Go chan int into a PTC-Lisp value"}},
	}
	for i, tc := range tests {
		_, err := ty.Validate(tc.val, Enabled)
		want := tc.errs
		if want == nil {
			want = []string{}
		}
		if got := errIssues(err); !reflect.DeepEqual(got, want) {
			t.Errorf("case %d: got %q, want %q", i, got, want)
		}
	}
	// typed nil pointers are nil
	if _, err := mustType(t, "{a :int}?").Validate((*lisp.Map)(nil), Enabled); err != nil {
		t.Error(err)
	}
	if _, err := mustType(t, "[:int]").Validate((*lisp.Vector)(nil), Enabled); err == nil || err.Error() != "expected [:int], got nil" {
		t.Error(err)
	}
	// WarnOnly never fails, not even on unconvertible values.
	ch := make(chan int)
	v, warns, err := ty.Coerce(ch, WarnOnly)
	if err != nil || len(warns) != 1 || v != any(ch) {
		t.Errorf("WarnOnly on a channel: %v %v %v", v, warns, err)
	}
}

func json1() any { return int64(1) }

func TestValidationError(t *testing.T) {
	e := &ValidationError{Issues: []Issue{{Path: "a", Message: "x"}}}
	if e.Error() != "a: x" {
		t.Error(e.Error())
	}
	e.Issues = append(e.Issues, Issue{Message: "y"})
	if e.Error() != "2 validation errors: a: x; y" {
		t.Error(e.Error())
	}
}

func TestModes(t *testing.T) {
	for m, want := range map[Mode]string{Enabled: "enabled", Strict: "strict", WarnOnly: "warn_only", Disabled: "disabled", Mode(9): "mode(9)"} {
		if s := m.String(); s != want {
			t.Errorf("%d: %s, want %s", m, s, want)
		}
	}
}

func TestSignatureValidation(t *testing.T) {
	sig := mustParse("(query :string, limit :int?) -> {count :int, ids [:int]}")
	// inputs
	m, warns, err := sig.CoerceInput(edn(t, `{:query "shoes" :limit "10"}`), Enabled)
	if err != nil || lisp.Print(m, lisp.PrintOptions{}) != `{:limit 10, :query "shoes"}` || len(warns) != 1 || warns[0].String() != `limit: coerced "10" to :int` {
		t.Errorf("CoerceInput = %v %v %v", lisp.Print(m, lisp.PrintOptions{}), warns, err)
	}
	m, _, err = sig.CoerceInput(nil, Enabled)
	if got := errIssues(err); !reflect.DeepEqual(got, []string{"query: missing required field, expected :string"}) || m == nil {
		t.Errorf("CoerceInput(nil) = %v, %q", m, got)
	}
	m, _, err = mustParse(":int").CoerceInput((*lisp.Map)(nil), Enabled)
	if err != nil || m == nil || m.Len() != 0 {
		t.Errorf("CoerceInput without params = %v, %v", m, err)
	}
	m, _, err = mustParse(":int").CoerceInput(nil, Disabled)
	if err != nil || m == nil {
		t.Errorf("CoerceInput disabled = %v, %v", m, err)
	}
	if _, err := sig.ValidateInput(map[string]any{"query": "x", "limit": "10"}, Enabled); errIssues(err)[0] != `limit: expected :int, got "10"` {
		t.Error(err)
	}
	if _, err := sig.ValidateInput(map[string]any{"query": "x", "other": 1}, Strict); errIssues(err)[0] != `other: unexpected field (strict mode accepts only query, limit)` {
		t.Error(err)
	}
	// outputs: strict about types, lenient about extra fields unless Strict
	if _, err := sig.ValidateOutput(edn(t, `{:count 2 :ids [1 2] :note "x"}`), Enabled); err != nil {
		t.Error(err)
	}
	if _, err := sig.ValidateOutput(edn(t, `{:count "2" :ids [1 2]}`), Enabled); err == nil {
		t.Error("output coerced")
	}
	warns, err = sig.ValidateOutput(edn(t, `{:count "2"}`), WarnOnly)
	if err != nil || !reflect.DeepEqual(issueStrings(warns), []string{`count: expected :int, got "2"`, `ids: missing required field, expected [:int]`}) {
		t.Errorf("WarnOnly = %q, %v", issueStrings(warns), err)
	}
}
