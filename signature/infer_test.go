package signature_test

import (
	"fmt"
	"testing"

	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/signature"
)

func TestInfer(t *testing.T) {
	tests := []struct {
		src  string // a program whose value is inferred
		lim  signature.InferLimits
		want string
	}{
		{`nil`, signature.InferLimits{}, `:nil`},
		{`"s"`, signature.InferLimits{}, `:string`},
		{`1`, signature.InferLimits{}, `:int`},
		{`1.5`, signature.InferLimits{}, `:float`},
		{`true`, signature.InferLimits{}, `:bool`},
		{`:k`, signature.InferLimits{}, `:keyword`},
		{`(java.time.LocalDate/parse "2024-01-02")`, signature.InferLimits{}, `:date`},
		{`(java.util.Date. 0)`, signature.InferLimits{}, `:inst`},
		{`inc`, signature.InferLimits{}, `:any`},
		{`[]`, signature.InferLimits{}, `[:any]`},
		{`[1 2.5]`, signature.InferLimits{}, `[:float]`},
		{`[1 nil]`, signature.InferLimits{}, `[:int?]`},
		{`[nil nil]`, signature.InferLimits{}, `[:nil]`},
		{`[1 "a" nil]`, signature.InferLimits{}, `[:any]`},
		{`#{1 2}`, signature.InferLimits{}, `#{:int}`},
		{`[#{1} nil]`, signature.InferLimits{}, `[#{:int}?]`},
		{`[{:a 1} {:a 2.0 :b "x"}]`, signature.InferLimits{}, `[{a :float, b :string?}]`},
		{`[{:a 1} {1 2}]`, signature.InferLimits{}, `[:map]`},
		{`{"x y" 1, :_s {:k 1}}`, signature.InferLimits{}, `{_s :map, "x y" :int}`},
		{`{:a {:b 1}}`, signature.InferLimits{Coarse: true}, `:map`},
		{`[{:a {:b 1}}]`, signature.InferLimits{Coarse: true}, `[:map]`},
		// The limits: rows, depth, fields.
		{`[1 1 "a"]`, signature.InferLimits{Rows: 2}, `[:int]`},
		{`[1 1 "a"]`, signature.InferLimits{Rows: 3}, `[:any]`},
		{`[[[1]]]`, signature.InferLimits{Depth: 2}, `[[[:any]]]`},
		{`[[[1]]]`, signature.InferLimits{Depth: 3}, `[[[:int]]]`},
		{`{:a {:b 1}}`, signature.InferLimits{Depth: 1}, `{a :map}`},
		{`{:a 1 :b 2}`, signature.InferLimits{Fields: 1}, `:map`},
		{`[{:a 1} {:b 2}]`, signature.InferLimits{Fields: 1}, `[:map]`},
		{`(vec (repeat 6 [1]))`, signature.InferLimits{}, `[[:int]]`},
		{`(conj (vec (repeat 5 1)) "a")`, signature.InferLimits{}, `[:int]`}, // five rows by default
		{`[[[[[1]]]]]`, signature.InferLimits{}, `[[[[[:any]]]]]`},           // four levels by default
	}
	for _, tt := range tests {
		res, err := lisp.Run(t.Context(), tt.src, lisp.Options{})
		if err != nil {
			t.Fatalf("%s: %v", tt.src, err)
		}
		if got := signature.Infer(res.Value, tt.lim).String(); got != tt.want {
			t.Errorf("Infer(%s, %+v) = %s, want %s", tt.src, tt.lim, got, tt.want)
		}
	}
}

// TestInferredKinds: the kinds only Infer makes are not declared by
// signatures, Validate accepts any value for them, and their JSON Schema
// is the one of their JSON form.
func TestInferredKinds(t *testing.T) {
	for _, src := range []string{`:date`, `:inst`, `:nil`, `:set`, `#{:int}`} {
		if _, err := signature.ParseType(src); err == nil {
			t.Errorf("ParseType(%s) reads", src)
		}
	}
	set := signature.Type{Kind: signature.Set, Elem: &signature.Type{Kind: signature.Int}}
	for _, typ := range []signature.Type{set, {Kind: signature.Date}, {Kind: signature.Inst}, {Kind: signature.Nil}} {
		for _, v := range []lisp.Value{int64(1), "x", lisp.NewSet(int64(1))} {
			if _, err := signature.Validate(typ, v, signature.Strict); err != nil {
				t.Errorf("%s refuses %s: %v", typ, lisp.Print(v, lisp.PrintOptions{}), err)
			}
		}
	}
	schemas := map[string]signature.Type{
		`map[items:map[type:integer] type:array uniqueItems:true]`: set,
		`map[format:date type:string]`:                             {Kind: signature.Date},
		`map[format:date-time type:[string null]]`:                 {Kind: signature.Inst, Optional: true},
		`map[type:null]`: {Kind: signature.Nil},
	}
	for want, typ := range schemas {
		if got := fmt.Sprint(typ.JSONSchema()); got != want {
			t.Errorf("%s: schema %s, want %s", typ, got, want)
		}
	}
}
