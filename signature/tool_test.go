package signature

import (
	"context"
	"encoding/json"
	"errors"
	"math/big"
	"net/netip"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ptc-go/ptc/lisp"
)

type base struct {
	ID      int       `json:"id" desc:"unique id"`
	Created time.Time `json:"created"`
}

type Inner struct {
	Depth int `json:"depth"`
}

type node struct {
	Name     string  `json:"name"`
	Children []node  `json:"children,omitempty"`
	Parent   *node   `json:"parent"`
	Next     []*node `json:"-"`
}

// Types that contain themselves without a struct between.
type (
	tree    map[string]tree
	loop    []loop
	selfPtr *selfPtr
)

type tallies struct {
	Counts map[string]int    `json:"counts"`
	ByTeam map[string][]node `json:"by_team,omitempty"`
}

type textOnly struct{ v string }

func (t textOnly) MarshalText() ([]byte, error) { return []byte(t.v), nil }

type ptrText struct{ v string }

func (t *ptrText) MarshalText() ([]byte, error) { return []byte(t.v), nil }

type ptrJSON struct{}

func (*ptrJSON) MarshalJSON() ([]byte, error) { return []byte(`1`), nil }

type ambiguous1 struct{ X int }
type ambiguous2 struct{ X int }

func TestTypeOf(t *testing.T) {
	tests := []struct {
		typ  reflect.Type
		want string
	}{
		{reflect.TypeFor[string](), ":string"},
		{reflect.TypeFor[bool](), ":bool"},
		{reflect.TypeFor[int](), ":int"},
		{reflect.TypeFor[uint8](), ":int"},
		{reflect.TypeFor[int64](), ":int"},
		{reflect.TypeFor[float32](), ":float"},
		{reflect.TypeFor[json.Number](), ":float"},
		{reflect.TypeFor[time.Time](), ":string"},
		{reflect.TypeFor[*time.Time](), ":string?"},
		{reflect.TypeFor[time.Duration](), ":int"},
		{reflect.TypeFor[[]byte](), ":string"},
		{reflect.TypeFor[[]int](), "[:int]"},
		{reflect.TypeFor[[3]string](), "[:string]"},
		{reflect.TypeFor[[][]float64](), "[[:float]]"},
		{reflect.TypeFor[map[string]int](), "{:string :int}"},
		{reflect.TypeFor[map[string]*float64](), "{:string :float?}"},
		{reflect.TypeFor[map[string][]string](), "{:string [:string]}"},
		{reflect.TypeFor[map[string]Inner](), "{:string {depth :int}}"},
		{reflect.TypeFor[map[string]map[string]bool](), "{:string {:string :bool}}"},
		{reflect.TypeFor[map[lisp.Keyword]int](), "{:string :int}"},
		{reflect.TypeFor[map[string]any](), ":map"},
		{reflect.TypeFor[map[string]lisp.Value](), ":map"},
		{reflect.TypeFor[map[string]json.RawMessage](), ":map"},
		{reflect.TypeFor[map[int]string](), ":map"},
		{reflect.TypeFor[map[int]any](), ":map"},
		{reflect.TypeFor[tree](), "{:string :map}"},
		{reflect.TypeFor[loop](), "[[:any]]"},
		{reflect.TypeFor[selfPtr](), ":any?"},
		{reflect.TypeFor[tallies](), "{counts {:string :int}, by_team {:string [{name :string, children [:map]?, parent :map?}]}?}"},
		{reflect.TypeFor[any](), ":any"},
		{reflect.TypeFor[error](), ":any"},
		{reflect.TypeFor[*int](), ":int?"},
		{reflect.TypeFor[**int](), ":int?"},
		{reflect.TypeFor[lisp.Keyword](), ":keyword"},
		{reflect.TypeFor[*lisp.Map](), ":map?"},
		{reflect.TypeFor[*lisp.Vector](), "[:any]?"},
		{reflect.TypeFor[lisp.Value](), ":any"},
		{reflect.TypeFor[lisp.Instant](), ":any"},
		{reflect.TypeFor[netip.Addr](), ":string"},
		{reflect.TypeFor[textOnly](), ":string"},
		{reflect.TypeFor[*ptrText](), ":string?"},
		{reflect.TypeFor[*ptrJSON](), ":any?"},
		{reflect.TypeFor[*big.Int](), ":any?"},
		{reflect.TypeFor[struct{}](), "{}"},
		{reflect.TypeFor[base](), "{id :int, created :string}"},
		{reflect.TypeFor[struct {
			base
			Name  string `json:"name"`
			Email string `json:"email,omitempty"`
			Nick  *string
			Skip  int `json:"-"`
			//lint:ignore SA5008 encoding/json names this field "-", which is what the case tests
			Dash    int `json:"-,"`
			private int
			Count   int    `json:",string"`
			When    string `json:"when,omitzero"`
			*Inner
		}](), `{id :int, created :string, name :string, email :string?, Nick :string?, "-" :int, Count :string, when :string?, depth :int}`},
		{reflect.TypeFor[struct {
			ambiguous1
			ambiguous2
			Y int
		}](), "{Y :int}"},
		{reflect.TypeFor[struct {
			ambiguous1
			X string `json:"X"`
		}](), "{X :string}"},
		{reflect.TypeFor[struct {
			ambiguous1
			A ambiguous2 `json:"X"`
		}](), "{X {X :int}}"},
		{reflect.TypeFor[struct {
			ambiguous1
			Tagged struct{} `json:"X"`
		}](), "{X {}}"},
		{reflect.TypeFor[node](), "{name :string, children [:map]?, parent :map?}"},
		{reflect.TypeFor[[]node](), "[{name :string, children [:map]?, parent :map?}]"},
		{nil, ":any"},
	}
	for _, tc := range tests {
		got, err := TypeOf(tc.typ)
		if err != nil {
			t.Errorf("TypeOf(%v): %v", tc.typ, err)
			continue
		}
		if got.String() != tc.want {
			t.Errorf("TypeOf(%v) = %s, want %s", tc.typ, got, tc.want)
		}
	}
	ty, err := TypeFor[base]()
	if err != nil || ty.Fields[0].Description != "unique id" {
		t.Errorf("TypeFor[base] = %#v, %v", ty, err)
	}
}

func TestTypeOfErrors(t *testing.T) {
	tests := []struct {
		typ  reflect.Type
		want string
	}{
		{reflect.TypeFor[chan int](), "signature: no signature type for the Go type chan int"},
		{reflect.TypeFor[func()](), "signature: no signature type for the Go type func()"},
		{reflect.TypeFor[complex128](), "signature: no signature type for the Go type complex128"},
		{reflect.TypeFor[struct {
			A struct {
				B []chan int `json:"b"`
			} `json:"a"`
		}](), "signature: no signature type for the Go type chan int (at a.b[])"},
		{reflect.TypeFor[*struct{ F func() }](), "signature: no signature type for the Go type func() (at F)"},
	}
	for _, tc := range tests {
		_, err := TypeOf(tc.typ)
		if err == nil || err.Error() != tc.want {
			t.Errorf("TypeOf(%v) error = %v, want %s", tc.typ, err, tc.want)
		}
	}
}

type SearchArgs struct {
	Query string     `json:"query" desc:"what to search for"`
	Limit int        `json:"limit,omitempty" desc:"at most this many results"`
	Since *time.Time `json:"since"`
	Tags  []string   `json:"tags,omitempty"`
	Level int8       `json:"level,omitempty"`
}

type Item struct {
	ID    int     `json:"id"`
	Title string  `json:"title"`
	Score float64 `json:"score"`
}

type SearchResult struct {
	Items []Item         `json:"items"`
	Total int            `json:"total"`
	Raw   map[string]any `json:"_raw,omitempty"`
}

func search(_ context.Context, in SearchArgs) (SearchResult, error) {
	if in.Query == "fail" {
		return SearchResult{}, errors.New("backend down")
	}
	res := SearchResult{Total: in.Limit}
	for i := 0; i < in.Limit; i++ {
		res.Items = append(res.Items, Item{ID: i + 1, Title: in.Query + strings.Join(in.Tags, ","), Score: 0.5})
	}
	if in.Since != nil {
		res.Raw = map[string]any{"since": in.Since.Year(), "level": in.Level}
	}
	return res, nil
}

func args(t *testing.T, src string) *lisp.Map {
	t.Helper()
	m, ok := edn(t, src).(*lisp.Map)
	if !ok {
		t.Fatalf("%s is not a map", src)
	}
	return m
}

func TestTypedFuncStruct(t *testing.T) {
	tool, err := TypedFunc(search, WithDescription("Search the catalogue."))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := tool.Signature().String(), "(query :string, limit :int?, since :string?, tags [:string]?, level :int?) -> {items [{id :int, title :string, score :float}], total :int, _raw :map?}"; got != want {
		t.Errorf("signature:\n got %s\nwant %s", got, want)
	}
	if tool.Description() != "Search the catalogue." {
		t.Error(tool.Description())
	}
	if got := tool.Signature().Render(RenderOptions{Descriptions: true, HideFirewalled: true}); got != "(query :string, limit :int?, since :string?, tags [:string]?, level :int?) -> {items [{id :int, title :string, score :float}], total :int}\n; query: what to search for\n; limit: at most this many results" {
		t.Errorf("Render: %s", got)
	}
	b, _ := json.Marshal(tool.InputSchema())
	if want := `{"properties":{"level":{"type":["integer","null"]},"limit":{"description":"at most this many results","type":["integer","null"]},"query":{"description":"what to search for","type":"string"},"since":{"type":["string","null"]},"tags":{"items":{"type":"string"},"type":["array","null"]}},"required":["query"],"type":"object"}`; string(b) != want {
		t.Errorf("InputSchema = %s", b)
	}
	b, _ = json.Marshal(tool.OutputSchema())
	if !strings.Contains(string(b), `"required":["items","total"]`) {
		t.Errorf("OutputSchema = %s", b)
	}

	ctx := context.Background()
	tests := []struct {
		args  string
		want  string
		warns []string
		err   string
	}{
		{`{:query "shoe" :limit 2}`, `{"items" [{"id" 1, "score" 0.5, "title" "shoe"} {"id" 2, "score" 0.5, "title" "shoe"}], "total" 2}`, nil, ""},
		{`{"query" "shoe" "limit" "1" :tags [:red "blue"]}`, `{"items" [{"id" 1, "score" 0.5, "title" "shoered,blue"}], "total" 1}`,
			[]string{`limit: coerced "1" to :int`, `tags[0]: coerced :red to :string`}, ""},
		{`{:query "x" :limit 1.0 :since "2024-05-06T07:08:09Z" :level 3 :extra true}`, `{"_raw" {"level" 3, "since" 2024}, "items" [{"id" 1, "score" 0.5, "title" "x"}], "total" 1}`,
			[]string{`limit: coerced 1.0 to :int`}, ""},
		{`{:args ["shoe" 1]}`, `{"items" [{"id" 1, "score" 0.5, "title" "shoe"}], "total" 1}`, nil, ""},
		{`{:args ["shoe"]}`, `{"items" nil, "total" 0}`, nil, ""},
		{`{:args ["shoe" 1 nil nil 1 2]}`, ``, nil, "too many arguments: got 6, the tool takes 5: query, limit, since, tags, level"},
		{`{}`, ``, nil, "query: missing required field, expected :string"},
		{`{:query 1 :limit "many" :tags "a"}`, ``, nil, `3 validation errors: query: expected :string, got 1; limit: expected :int, got "many"; tags: expected [:string], got "a"`},
		{`{:query "x" :level 300}`, ``, nil, "level: cannot store number 300 in a Go int8"},
		{`{:query "x" :since "yesterday"}`, ``, nil, `since: parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"`},
		{`{:query "fail"}`, ``, nil, "backend down"},
	}
	for _, tc := range tests {
		v, warns, err := tool.CallWithWarnings(ctx, args(t, tc.args))
		if tc.err != "" {
			if err == nil || err.Error() != tc.err {
				t.Errorf("Call(%s) error = %v, want %s", tc.args, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("Call(%s): %v", tc.args, err)
			continue
		}
		if got := lisp.Print(v, lisp.PrintOptions{}); got != tc.want {
			t.Errorf("Call(%s) = %s, want %s", tc.args, got, tc.want)
		}
		want := tc.warns
		if want == nil {
			want = []string{}
		}
		if got := issueStrings(warns); !reflect.DeepEqual(got, want) {
			t.Errorf("Call(%s) warnings = %q, want %q", tc.args, got, want)
		}
	}
	// validation errors are *ValidationError values with paths
	_, err = tool.Call(ctx, args(t, `{:query "x" :tags ["a" 2]}`))
	var ve *ValidationError
	if !errors.As(err, &ve) || ve.Issues[0].Path != "tags[1]" {
		t.Errorf("error = %#v", err)
	}
	// nil arguments are an empty map
	if _, err := tool.Call(ctx, nil); err == nil || err.Error() != "query: missing required field, expected :string" {
		t.Error(err)
	}
}

func TestTypedFuncModes(t *testing.T) {
	ctx := context.Background()
	strict := MustTypedFunc(search, WithMode(Strict))
	if _, err := strict.Call(ctx, args(t, `{:query "x" :limit "1" :extra 1}`)); err == nil ||
		err.Error() != `2 validation errors: limit: expected :int, got "1"; extra: unexpected field (strict mode accepts only query, limit, since, tags, level)` {
		t.Error(err)
	}
	lenient := MustTypedFunc(search, WithMode(WarnOnly))
	_, warns, err := lenient.CallWithWarnings(ctx, args(t, `{:query "x" :limit "many"}`))
	// The mismatch is only a warning, but the argument still cannot be
	// stored in the Go int: decoding reports it.
	if err == nil || err.Error() != "limit: cannot store string in a Go int" || len(warns) != 1 {
		t.Errorf("WarnOnly: %q %v", issueStrings(warns), err)
	}
	off := MustTypedFunc(search, WithMode(Disabled))
	if v, err := off.Call(ctx, args(t, `{:query "x" :limit 1}`)); err != nil || v == nil {
		t.Error(err)
	}
}

func TestTypedFuncShapes(t *testing.T) {
	ctx := context.Background()
	double := MustTypedFunc(func(_ context.Context, n int) (int, error) { return 2 * n, nil })
	if got := double.Signature().String(); got != "(value :int) -> :int" {
		t.Error(got)
	}
	for src, want := range map[string]string{`{:value 21}`: "42", `{"value" "4"}`: "8", `{:args [5]}`: "10"} {
		v, err := double.Call(ctx, args(t, src))
		if err != nil || lisp.Print(v, lisp.PrintOptions{}) != want {
			t.Errorf("double(%s) = %v, %v", src, v, err)
		}
	}
	if _, err := double.Call(ctx, args(t, `{:args [1 2]}`)); err == nil || err.Error() != "too many arguments: got 2, the tool takes 1: value" {
		t.Error(err)
	}
	small := MustTypedFunc(func(_ context.Context, n []int8) (int, error) { return len(n), nil })
	if _, err := small.Call(ctx, args(t, `{:value [1 300]}`)); err == nil || err.Error() != "value: cannot store number 300 in a Go int8" {
		t.Error(err)
	}
	if _, err := double.Call(ctx, args(t, `{}`)); err == nil || err.Error() != "value: missing required field, expected :int" {
		t.Error(err)
	}

	// a parameter named args disables positional arguments
	type withArgs struct {
		Args []int `json:"args"`
	}
	sum := MustTypedFunc(func(_ context.Context, in withArgs) (int, error) {
		s := 0
		for _, x := range in.Args {
			s += x
		}
		return s, nil
	})
	if v, err := sum.Call(ctx, args(t, `{:args [1 2 3]}`)); err != nil || v != int64(6) {
		t.Error(v, err)
	}

	// pointers to structs work like structs
	ptr := MustTypedFunc(func(_ context.Context, in *SearchArgs) (*Item, error) {
		if in.Query == "" {
			return nil, nil
		}
		return &Item{ID: in.Limit, Title: in.Query}, nil
	})
	if got := ptr.Signature().String(); !strings.HasPrefix(got, "(query :string, limit :int?") || !strings.HasSuffix(got, "-> {id :int, title :string, score :float}?") {
		t.Error(got)
	}
	if v, err := ptr.Call(ctx, args(t, `{:query "q" :limit 3}`)); err != nil || lisp.Print(v, lisp.PrintOptions{}) != `{"id" 3, "score" 0.0, "title" "q"}` {
		t.Error(lisp.Print(v, lisp.PrintOptions{}), err)
	}
	if v, err := ptr.Call(ctx, args(t, `{:query ""}`)); err != nil || v != nil {
		t.Error(v, err)
	}

	// map[string]V: the arguments themselves, each converted to V
	total := MustTypedFunc(func(_ context.Context, in map[string]float64) (float64, error) {
		s := 0.0
		for _, x := range in {
			s += x
		}
		return s, nil
	})
	if got := total.Signature().String(); got != "() -> :float" {
		t.Error(got)
	}
	b, _ := json.Marshal(total.InputSchema())
	if string(b) != `{"additionalProperties":{"type":"number"},"type":"object"}` {
		t.Errorf("map InputSchema = %s", b)
	}
	v, warns, err := total.CallWithWarnings(ctx, args(t, `{:a 1 "b" "2.5" 3 1}`))
	if err != nil || v != 4.5 || len(warns) != 1 || warns[0].String() != `b: coerced "2.5" to :float` {
		t.Error(v, issueStrings(warns), err)
	}
	if _, err := total.Call(ctx, args(t, `{:a "x"}`)); err == nil || err.Error() != `a: expected :float, got "x"` {
		t.Error(err)
	}
	anyMap := MustTypedFunc(func(_ context.Context, in map[string]any) (int, error) { return len(in), nil })
	b, _ = json.Marshal(anyMap.InputSchema())
	if string(b) != `{"type":"object"}` {
		t.Errorf("map[string]any InputSchema = %s", b)
	}
	if v, err := anyMap.Call(ctx, args(t, `{:a 1 :b [1]}`)); err != nil || v != int64(2) {
		t.Error(v, err)
	}

	// *lisp.Map: unconverted; interface: lisp.ToGo data
	raw := MustTypedFunc(func(_ context.Context, in *lisp.Map) (*lisp.Map, error) { return in, nil })
	in := args(t, `{:a [1 2]}`)
	if v, err := raw.Call(ctx, in); err != nil || v.(*lisp.Map) != in {
		t.Error(v, err)
	}
	if got := raw.Signature().String(); got != "() -> :map?" {
		t.Error(got)
	}
	if b, _ := json.Marshal(raw.InputSchema()); string(b) != `{"type":"object"}` {
		t.Errorf("raw InputSchema = %s", b)
	}
	untyped := MustTypedFunc(func(_ context.Context, in any) (any, error) { return in.(map[string]any)["a"], nil })
	if v, err := untyped.Call(ctx, in); err != nil || lisp.Print(v, lisp.PrintOptions{}) != "[1 2]" {
		t.Error(v, err)
	}
	if got := untyped.Signature().String(); got != "() -> :any" {
		t.Error(got)
	}
	// a slice In is a value parameter too
	count := MustTypedFunc(func(_ context.Context, xs []string) (int, error) { return len(xs), nil })
	if v, err := count.Call(ctx, args(t, `{:args [["a" "b"]]}`)); err != nil || v != int64(2) {
		t.Error(v, err)
	}
	if _, err := count.Call(ctx, args(t, `{:value [1]}`)); err == nil || err.Error() != `value[0]: expected :string, got 1` {
		t.Error(err)
	}
	// time.Time In is a value, decoded from its text
	year := MustTypedFunc(func(_ context.Context, t time.Time) (int, error) { return t.Year(), nil })
	if v, err := year.Call(ctx, args(t, `{:value "2023-01-02T00:00:00Z"}`)); err != nil || v != int64(2023) {
		t.Error(v, err)
	}
	if _, err := year.Call(ctx, args(t, `{:value "soon"}`)); err == nil || !strings.HasPrefix(err.Error(), `value: parsing time "soon"`) {
		t.Error(err)
	}
}

func TestTypedFuncErrors(t *testing.T) {
	if _, err := TypedFunc[int, int](nil); err == nil || err.Error() != "signature: TypedFunc with a nil function" {
		t.Error(err)
	}
	if _, err := TypedFunc(func(context.Context, chan int) (int, error) { return 0, nil }); err == nil || err.Error() != "signature: no signature type for the Go type chan int" {
		t.Error(err)
	}
	if _, err := TypedFunc(func(context.Context, map[string]func()) (int, error) { return 0, nil }); err == nil {
		t.Error("map of funcs accepted")
	}
	if _, err := TypedFunc(func(context.Context, int) (struct{ C chan int }, error) { return struct{ C chan int }{}, nil }); err == nil || err.Error() != "signature: no signature type for the Go type chan int (at result.C)" {
		t.Error(err)
	}
	if _, err := TypedFunc(search, WithFieldDescriptions(map[string]string{"nope": "x"})); err == nil || !strings.HasPrefix(err.Error(), `signature: no field "nope" in`) {
		t.Error(err)
	}
	tool, err := TypedFunc(search, WithFieldDescriptions(map[string]string{"query": "overridden", "items.title": "the title"}))
	if err != nil || tool.Signature().Params[0].Description != "overridden" || tool.Signature().Output.Fields[0].Type.Elem.Fields[1].Description != "the title" {
		t.Error(err)
	}
	bad := MustTypedFunc(func(context.Context, int) (any, error) { return func() {}, nil })
	if _, err := bad.Call(context.Background(), args(t, `{:value 1}`)); err == nil || !strings.HasPrefix(err.Error(), "signature: converting the result: ") {
		t.Error(err)
	}
	defer func() {
		if r := recover(); r == nil {
			t.Error("MustTypedFunc did not panic")
		}
	}()
	MustTypedFunc(func(context.Context, complex64) (int, error) { return 0, nil })
}

// TestTypedFuncInProgram calls a typed tool from PTC-Lisp.
func TestTypedFuncInProgram(t *testing.T) {
	tool := MustTypedFunc(search)
	tools := lisp.Tools{"search": tool.Func()}
	res, err := lisp.Run(context.Background(), `
		(let [r (tool/search {:query "hat" :limit "2"})]
		  (mapv :id (:items r)))`, lisp.Options{Tools: tools})
	if err != nil {
		t.Fatal(err)
	}
	if got := lisp.Print(res.Value, lisp.PrintOptions{}); got != "[1 2]" {
		t.Errorf("got %s", got)
	}
	res, err = lisp.Run(context.Background(), `(:total (tool/search "hat" 3))`, lisp.Options{Tools: tools})
	if err != nil || res.Value != int64(3) {
		t.Errorf("positional: %v %v", res.Value, err)
	}
	_, err = lisp.Run(context.Background(), `(tool/search {:limit 2})`, lisp.Options{Tools: tools})
	if err == nil || !strings.Contains(err.Error(), "query: missing required field, expected :string") {
		t.Errorf("error = %v", err)
	}
}

func TestToolConcurrent(t *testing.T) {
	tool := MustTypedFunc(search)
	res, err := lisp.Run(context.Background(),
		`(pmap (fn [i] (:total (tool/search {:query "q" :limit (str i)}))) (range 20))`,
		lisp.Options{Tools: lisp.Tools{"search": tool.Func()}})
	if err != nil {
		t.Fatal(err)
	}
	if got := lisp.Print(res.Value, lisp.PrintOptions{}); !strings.HasPrefix(got, "[0 1 2 3") {
		t.Error(got)
	}
}

// Fields of type map[string]T are maps from strings, {:string T}: their
// values are coerced and checked, their keys (keywords or strings) reach
// Go as strings, and both JSON Schemas say additionalProperties.
func TestTypedFuncMapFields(t *testing.T) {
	type tallyIn struct {
		Votes  map[string]int      `json:"votes" desc:"votes per candidate"`
		Weight map[string]*float64 `json:"weight,omitempty"`
	}
	type tallyOut struct {
		Totals map[string]int   `json:"totals"`
		Teams  map[string][]int `json:"teams"`
	}
	tool := MustTypedFunc(func(_ context.Context, in tallyIn) (tallyOut, error) {
		out := tallyOut{Totals: map[string]int{}, Teams: map[string][]int{"all": nil}}
		for k, n := range in.Votes {
			w := 1.0
			if p := in.Weight[k]; p != nil {
				w = *p
			}
			out.Totals[k] = int(float64(n) * w)
			out.Teams["all"] = append(out.Teams["all"], n)
		}
		return out, nil
	})
	sig := tool.Signature()
	if got, want := sig.String(), "(votes {:string :int}, weight {:string :float?}?) -> {totals {:string :int}, teams {:string [:int]}}"; got != want {
		t.Errorf("signature %s\nwant      %s", got, want)
	}
	if got, want := sig.Render(RenderOptions{Descriptions: true}), sig.String()+"\n; votes: votes per candidate"; got != want {
		t.Errorf("rendered %q, want %q", got, want)
	}
	in, _ := json.Marshal(tool.InputSchema())
	if want := `{"properties":{"votes":{"additionalProperties":{"type":"integer"},"description":"votes per candidate","type":"object"},` +
		`"weight":{"additionalProperties":{"type":["number","null"]},"type":["object","null"]}},"required":["votes"],"type":"object"}`; string(in) != want {
		t.Errorf("InputSchema %s\nwant        %s", in, want)
	}
	out, _ := json.Marshal(tool.OutputSchema())
	if want := `{"properties":{"teams":{"additionalProperties":{"items":{"type":"integer"},"type":"array"},"type":"object"},` +
		`"totals":{"additionalProperties":{"type":"integer"},"type":"object"}},"required":["totals","teams"],"type":"object"}`; string(out) != want {
		t.Errorf("OutputSchema %s\nwant         %s", out, want)
	}

	ctx := context.Background()
	v, warns, err := tool.CallWithWarnings(ctx, args(t, `{:votes {:ann 3 "bob" "2"} :weight {"ann" 2 :bob nil}}`))
	if err != nil || lisp.Print(v, lisp.PrintOptions{}) != `{"teams" {"all" [3 2]}, "totals" {"ann" 6, "bob" 2}}` && lisp.Print(v, lisp.PrintOptions{}) != `{"teams" {"all" [2 3]}, "totals" {"ann" 6, "bob" 2}}` {
		t.Errorf("call = %s, %v", lisp.Print(v, lisp.PrintOptions{}), err)
	}
	if len(warns) != 1 || warns[0].String() != `votes.bob: coerced "2" to :int` {
		t.Errorf("warnings %q", issueStrings(warns))
	}
	if _, err := sig.ValidateOutput(v, Strict); err != nil {
		t.Errorf("the result does not match its own signature: %v", err)
	}
	if _, err := tool.Call(ctx, args(t, `{:votes {:ann "many" 7 1}}`)); err == nil ||
		err.Error() != `2 validation errors: votes[7]: expected a string or keyword key, got 7; votes.ann: expected :int, got "many"` {
		t.Errorf("bad votes: %v", err)
	}
}
