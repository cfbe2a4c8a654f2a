package typeinfer

import (
	"testing"

	"github.com/ptc-go/ptc/lisp"
)

func TestInfer(t *testing.T) {
	tests := []struct {
		src  string // a program whose value is inferred
		lim  Limits
		want string
	}{
		{`nil`, Limits{}, `:nil`},
		{`"s"`, Limits{}, `:string`},
		{`1`, Limits{}, `:int`},
		{`1.5`, Limits{}, `:float`},
		{`true`, Limits{}, `:bool`},
		{`:k`, Limits{}, `:keyword`},
		{`(java.time.LocalDate/parse "2024-01-02")`, Limits{}, `:date`},
		{`(java.util.Date. 0)`, Limits{}, `:inst`},
		{`inc`, Limits{}, `:any`},
		{`[]`, Limits{}, `[:any]`},
		{`[1 2.5]`, Limits{}, `[:float]`},
		{`[1 nil]`, Limits{}, `[:int?]`},
		{`[nil nil]`, Limits{}, `[:nil]`},
		{`[1 "a" nil]`, Limits{}, `[:any]`},
		{`#{1 2}`, Limits{}, `#{:int}`},
		{`[#{1} nil]`, Limits{}, `[#{:int}?]`},
		{`[{:a 1} {:a 2.0 :b "x"}]`, Limits{}, `[{a :float, b :string?}]`},
		{`[{:a 1} {1 2}]`, Limits{}, `[:map]`},
		{`{"x y" 1, :_s {:k 1}}`, Limits{}, `{_s :map, "x y" :int}`},
		{`{:a {:b 1}}`, Limits{Coarse: true}, `:map`},
		{`[{:a {:b 1}}]`, Limits{Coarse: true}, `[:map]`},
		// The limits: rows, depth, fields.
		{`[1 1 "a"]`, Limits{Rows: 2}, `[:int]`},
		{`[1 1 "a"]`, Limits{Rows: 3}, `[:any]`},
		{`[[[1]]]`, Limits{Depth: 2}, `[[[:any]]]`},
		{`[[[1]]]`, Limits{Depth: 3}, `[[[:int]]]`},
		{`{:a {:b 1}}`, Limits{Depth: 1}, `{a :map}`},
		{`{:a 1 :b 2}`, Limits{Fields: 1}, `:map`},
		{`[{:a 1} {:b 2}]`, Limits{Fields: 1}, `[:map]`},
		{`(vec (repeat 6 [1]))`, Limits{}, `[[:int]]`},
		{`(conj (vec (repeat 5 1)) "a")`, Limits{}, `[:int]`}, // five rows by default
		{`[[[[[1]]]]]`, Limits{}, `[[[[[:any]]]]]`},           // four levels by default
	}
	for _, tt := range tests {
		res, err := lisp.Run(t.Context(), tt.src, lisp.Options{})
		if err != nil {
			t.Fatalf("%s: %v", tt.src, err)
		}
		if got := Of(res.Value, tt.lim).String(); got != tt.want {
			t.Errorf("Of(%s, %+v) = %s, want %s", tt.src, tt.lim, got, tt.want)
		}
	}
}
