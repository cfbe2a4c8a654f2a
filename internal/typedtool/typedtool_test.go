package typedtool

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/signature"
)

// testTool calls a Tool in one mode, as a run does.
type testTool struct {
	*Tool
	mode signature.Mode
}

func mustNew[In, Out any](t *testing.T, mode signature.Mode, fn func(context.Context, In) (Out, error)) testTool {
	t.Helper()
	tl, err := New("", fn)
	if err != nil {
		t.Fatal(err)
	}
	return testTool{Tool: tl, mode: mode}
}

func (tt testTool) Call(ctx context.Context, args *lisp.Map) (lisp.Value, error) {
	v, _, err := tt.Tool.Call(ctx, args, tt.mode)
	return v, err
}

func (tt testTool) CallWithWarnings(ctx context.Context, args *lisp.Map) (lisp.Value, []signature.Issue, error) {
	return tt.Tool.Call(ctx, args, tt.mode)
}

func (tt testTool) Func() lisp.ToolFunc {
	return func(ctx context.Context, args *lisp.Map) (any, error) { return tt.Call(ctx, args) }
}

func edn(t *testing.T, src string) lisp.Value {
	t.Helper()
	v, err := lisp.Read(src, lisp.ReadOptions{Format: lisp.ReadEDN})
	if err != nil {
		t.Fatalf("ReadData(%q): %v", src, err)
	}
	return v
}

func issueStrings(is []signature.Issue) []string {
	out := []string{}
	for _, i := range is {
		out = append(out, i.String())
	}
	return out
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
	tl, err := New("Search the catalogue.", search)
	if err != nil {
		t.Fatal(err)
	}
	tool := testTool{Tool: tl}
	if got, want := tool.Signature().String(), "(query :string, limit :int?, since :string?, tags [:string]?, level :int?) -> {items [{id :int, title :string, score :float}], total :int, _raw :map?}"; got != want {
		t.Errorf("signature:\n got %s\nwant %s", got, want)
	}
	if tool.Description() != "Search the catalogue." {
		t.Error(tool.Description())
	}
	if got := tool.Signature().Render(signature.RenderOptions{Descriptions: true, HideFirewalled: true}); got != "(query :string, limit :int?, since :string?, tags [:string]?, level :int?) -> {items [{id :int, title :string, score :float}], total :int}\n; query: what to search for\n; limit: at most this many results" {
		t.Errorf("Render: %s", got)
	}
	b, _ := json.Marshal(tool.Signature().InputSchema())
	if want := `{"properties":{"level":{"type":["integer","null"]},"limit":{"description":"at most this many results","type":["integer","null"]},"query":{"description":"what to search for","type":"string"},"since":{"type":["string","null"]},"tags":{"items":{"type":"string"},"type":["array","null"]}},"required":["query"],"type":"object"}`; string(b) != want {
		t.Errorf("InputSchema = %s", b)
	}
	b, _ = json.Marshal(tool.Signature().OutputSchema())
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
	// validation errors are *signature.ValidationError values with paths
	_, err = tool.Call(ctx, args(t, `{:query "x" :tags ["a" 2]}`))
	var ve *signature.ValidationError
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
	strict := mustNew(t, signature.Strict, search)
	if _, err := strict.Call(ctx, args(t, `{:query "x" :limit "1" :extra 1}`)); err == nil ||
		err.Error() != `2 validation errors: limit: expected :int, got "1"; extra: unexpected field (strict mode accepts only query, limit, since, tags, level)` {
		t.Error(err)
	}
	lenient := mustNew(t, signature.WarnOnly, search)
	_, warns, err := lenient.CallWithWarnings(ctx, args(t, `{:query "x" :limit "many"}`))
	// The mismatch is only a warning, but the argument still cannot be
	// stored in the Go int: decoding reports it.
	if err == nil || err.Error() != "limit: cannot store string in a Go int" || len(warns) != 1 {
		t.Errorf("signature.WarnOnly: %q %v", issueStrings(warns), err)
	}
	off := mustNew(t, signature.Disabled, search)
	if v, err := off.Call(ctx, args(t, `{:query "x" :limit 1}`)); err != nil || v == nil {
		t.Error(err)
	}
}

func TestTypedFuncShapes(t *testing.T) {
	ctx := context.Background()
	double := mustNew(t, signature.Enabled, func(_ context.Context, n int) (int, error) { return 2 * n, nil })
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
	small := mustNew(t, signature.Enabled, func(_ context.Context, n []int8) (int, error) { return len(n), nil })
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
	sum := mustNew(t, signature.Enabled, func(_ context.Context, in withArgs) (int, error) {
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
	ptr := mustNew(t, signature.Enabled, func(_ context.Context, in *SearchArgs) (*Item, error) {
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
	total := mustNew(t, signature.Enabled, func(_ context.Context, in map[string]float64) (float64, error) {
		s := 0.0
		for _, x := range in {
			s += x
		}
		return s, nil
	})
	if got := total.Signature().String(); got != "() -> :float" {
		t.Error(got)
	}
	v, warns, err := total.CallWithWarnings(ctx, args(t, `{:a 1 "b" "2.5" 3 1}`))
	if err != nil || v != 4.5 || len(warns) != 1 || warns[0].String() != `b: coerced "2.5" to :float` {
		t.Error(v, issueStrings(warns), err)
	}
	if _, err := total.Call(ctx, args(t, `{:a "x"}`)); err == nil || err.Error() != `a: expected :float, got "x"` {
		t.Error(err)
	}
	anyMap := mustNew(t, signature.Enabled, func(_ context.Context, in map[string]any) (int, error) { return len(in), nil })
	if v, err := anyMap.Call(ctx, args(t, `{:a 1 :b [1]}`)); err != nil || v != int64(2) {
		t.Error(v, err)
	}

	// *lisp.Map: unconverted; interface: lisp.ToGo data
	raw := mustNew(t, signature.Enabled, func(_ context.Context, in *lisp.Map) (*lisp.Map, error) { return in, nil })
	in := args(t, `{:a [1 2]}`)
	if v, err := raw.Call(ctx, in); err != nil || v.(*lisp.Map) != in {
		t.Error(v, err)
	}
	if got := raw.Signature().String(); got != "() -> :map?" {
		t.Error(got)
	}
	untyped := mustNew(t, signature.Enabled, func(_ context.Context, in any) (any, error) { return in.(map[string]any)["a"], nil })
	if v, err := untyped.Call(ctx, in); err != nil || lisp.Print(v, lisp.PrintOptions{}) != "[1 2]" {
		t.Error(v, err)
	}
	if got := untyped.Signature().String(); got != "() -> :any" {
		t.Error(got)
	}
	// a slice In is a value parameter too
	count := mustNew(t, signature.Enabled, func(_ context.Context, xs []string) (int, error) { return len(xs), nil })
	if v, err := count.Call(ctx, args(t, `{:args [["a" "b"]]}`)); err != nil || v != int64(2) {
		t.Error(v, err)
	}
	if _, err := count.Call(ctx, args(t, `{:value [1]}`)); err == nil || err.Error() != `value[0]: expected :string, got 1` {
		t.Error(err)
	}
	// time.Time In is a value, decoded from its text
	year := mustNew(t, signature.Enabled, func(_ context.Context, t time.Time) (int, error) { return t.Year(), nil })
	if v, err := year.Call(ctx, args(t, `{:value "2023-01-02T00:00:00Z"}`)); err != nil || v != int64(2023) {
		t.Error(v, err)
	}
	if _, err := year.Call(ctx, args(t, `{:value "soon"}`)); err == nil || !strings.HasPrefix(err.Error(), `value: parsing time "soon"`) {
		t.Error(err)
	}
}

func TestNewErrors(t *testing.T) {
	if _, err := New[int, int]("", nil); err == nil || err.Error() != "a typed tool with a nil function" {
		t.Error(err)
	}
	if _, err := New("", func(context.Context, chan int) (int, error) { return 0, nil }); err == nil || err.Error() != "signature: no signature type for the Go type chan int" {
		t.Error(err)
	}
	if _, err := New("", func(context.Context, map[string]func()) (int, error) { return 0, nil }); err == nil {
		t.Error("map of funcs accepted")
	}
	if _, err := New("", func(context.Context, int) (struct{ C chan int }, error) { return struct{ C chan int }{}, nil }); err == nil || err.Error() != "the result: signature: no signature type for the Go type chan int (at C)" {
		t.Error(err)
	}
	if _, err := New("", func(context.Context, complex64) (int, error) { return 0, nil }); err == nil {
		t.Error("complex64 accepted")
	}
	bad := mustNew(t, signature.Enabled, func(context.Context, int) (any, error) { return func() {}, nil })
	if _, err := bad.Call(context.Background(), args(t, `{:value 1}`)); err == nil || !strings.HasPrefix(err.Error(), "converting the result: ") {
		t.Error(err)
	}
}

// TestTypedFuncInProgram calls a typed tool from PTC-Lisp.
func TestTypedFuncInProgram(t *testing.T) {
	tool := mustNew(t, signature.Enabled, search)
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
	tool := mustNew(t, signature.Enabled, search)
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
	tool := mustNew(t, signature.Enabled, func(_ context.Context, in tallyIn) (tallyOut, error) {
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
	if got, want := sig.Render(signature.RenderOptions{Descriptions: true}), sig.String()+"\n; votes: votes per candidate"; got != want {
		t.Errorf("rendered %q, want %q", got, want)
	}
	in, _ := json.Marshal(tool.Signature().InputSchema())
	if want := `{"properties":{"votes":{"additionalProperties":{"type":"integer"},"description":"votes per candidate","type":"object"},` +
		`"weight":{"additionalProperties":{"type":["number","null"]},"type":["object","null"]}},"required":["votes"],"type":"object"}`; string(in) != want {
		t.Errorf("InputSchema %s\nwant        %s", in, want)
	}
	out, _ := json.Marshal(tool.Signature().OutputSchema())
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
	if _, err := sig.ValidateOutput(v, signature.Strict); err != nil {
		t.Errorf("the result does not match its own signature: %v", err)
	}
	if _, err := tool.Call(ctx, args(t, `{:votes {:ann "many" 7 1}}`)); err == nil ||
		err.Error() != `2 validation errors: votes[7]: expected a string or keyword key, got 7; votes.ann: expected :int, got "many"` {
		t.Errorf("bad votes: %v", err)
	}
}
