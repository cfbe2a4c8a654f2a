package signature_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"time"

	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/signature"
)

func ExampleParse() {
	sig, err := signature.Parse(`(query :string, limit :int?) ->
		{count :int, items [{id :int, title :string}], _raw [:map]}`)
	if err != nil {
		panic(err)
	}
	fmt.Println(sig)
	fmt.Println(sig.Render(signature.RenderOptions{HideFirewalled: true}))
	fmt.Println(sig.Params[1].Name, sig.Params[1].Optional())

	// The output-only shorthand, also the way to read a type alone.
	out, _ := signature.Parse("{count :int}")
	fmt.Println(out, out.Output.Kind)

	_, err = signature.Parse("(query :string, limit) -> :int")
	fmt.Println(err)
	fmt.Println(err.(*signature.ParseError).Snippet())
	// Output:
	// (query :string, limit :int?) -> {count :int, items [{id :int, title :string}], _raw [:map]}
	// (query :string, limit :int?) -> {count :int, items [{id :int, title :string}]}
	// limit true
	// () -> {count :int} record
	// expected a type after `limit` at 1:22 (found `)`)
	// (query :string, limit) -> :int
	//                      ^
}

func mustParse(src string) *signature.Signature {
	sig, err := signature.Parse(src)
	if err != nil {
		panic(err)
	}
	return sig
}

func ExampleType_Validate() {
	out := mustParse("{items [{id :int, name :string}], total :int}").Output
	value, _ := lisp.Read(`{:items [{:id 1 :name "a"} {:id "2" :name "b"} {:id 3}] :total 3}`, lisp.ReadOptions{Format: lisp.ReadEDN})
	_, err := out.Validate(value, signature.Enabled)
	for _, issue := range err.(*signature.ValidationError).Issues {
		fmt.Println(issue)
	}

	// Plain Go values work too; integers are valid floats.
	_, err = mustParse("{ratio :float}").Output.Validate(
		map[string]any{"ratio": 1, "extra": true}, signature.Strict)
	fmt.Println(err)
	// Output:
	// items[1].id: expected :int, got "2"
	// items[2].name: missing required field, expected :string
	// extra: unexpected field (strict mode accepts only ratio)
}

func ExampleSignature_CoerceInput() {
	sig := mustParse("(id :int, price :float, active :bool, status :keyword) -> :bool")
	args, _ := lisp.Read(`{:id "42" :price 10 :active "true" :status "open"}`, lisp.ReadOptions{Format: lisp.ReadEDN})
	coerced, warnings, err := sig.CoerceInput(args, signature.Enabled)
	fmt.Println(lisp.Print(coerced, lisp.PrintOptions{}), err)
	for _, w := range warnings {
		fmt.Println(w)
	}
	// Output:
	// {:active true, :id 42, :price 10.0, :status :open} <nil>
	// id: coerced "42" to :int
	// active: coerced "true" to :bool
	// status: coerced "open" to :keyword
}

// The Go types of a function's input become a signature type, named as
// lisp.FromGo converts the values.
func ExampleTypeOf() {
	type SearchArgs struct {
		Query string    `json:"query" desc:"what to search for"`
		Limit int       `json:"limit,omitempty"`
		Tags  []string  `json:"tags"`
		Since time.Time `json:"since"`
	}
	t, err := signature.TypeOf(reflect.TypeFor[SearchArgs]())
	if err != nil {
		panic(err)
	}
	fmt.Println(t, t.Fields[0].Description)

	_, err = signature.TypeOf(reflect.TypeFor[chan int]())
	fmt.Println(err)
	// Output:
	// {query :string, limit :int?, tags [:string], since :string} what to search for
	// signature: no signature type for the Go type chan int
}

func ExampleSignature_WithDescriptions() {
	sig, err := mustParse("(user {id :int}) -> {summary :string, _ids [:int]}").
		WithDescriptions(map[string]string{
			"user.id": "the user to look at",
			"summary": "one sentence",
			"_ids":    "matching ids",
		})
	if err != nil {
		panic(err)
	}
	// What a parent agent sees: no firewalled fields.
	fmt.Println(sig.Render(signature.RenderOptions{Descriptions: true, HideFirewalled: true}))
	schema, _ := json.Marshal(sig.Public().OutputSchema())
	fmt.Println(string(schema))
	// Output:
	// (user {id :int}) -> {summary :string}
	// ; user.id: the user to look at
	// ; summary: one sentence
	// {"properties":{"summary":{"description":"one sentence","type":"string"}},"required":["summary"],"type":"object"}
}

// A map from strings, {:string :t}: data keyed by values, such as
// per-key tallies. Keys may be strings (JSON data) or keywords.
func ExampleMapOf() {
	sig := mustParse("(region :string) -> {votes {:string :int}, total :int}")
	fmt.Println(sig.Output.Fields[0].Type.IsMapOf(), sig.Output.Fields[0].Type.Elem)

	value, _ := lisp.Read(`{:votes {"ann" 3 :bob "4"} :total 7}`, lisp.ReadOptions{Format: lisp.ReadEDN})
	_, err := sig.ValidateOutput(value, signature.Enabled)
	fmt.Println(err)

	schema, _ := json.Marshal(signature.MapOf(signature.Type{Kind: signature.Int}).JSONSchema())
	fmt.Println(string(schema))
	// Output:
	// true :int
	// votes.bob: expected :int, got "4"
	// {"additionalProperties":{"type":"integer"},"type":"object"}
}
