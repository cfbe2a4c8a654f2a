package signature_test

import (
	"fmt"
	"testing"

	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/signature"
)

// TestInferredKinds: the kinds only inferred types have are not declared
// by signatures, Validate accepts any value for them, and their JSON
// Schema is the one of their JSON form.
func TestInferredKinds(t *testing.T) {
	for _, src := range []string{`:date`, `:inst`, `:nil`, `:set`, `#{:int}`} {
		if _, err := signature.Parse(src); err == nil {
			t.Errorf("Parse(%s) reads", src)
		}
	}
	set := signature.Type{Kind: signature.Set, Elem: &signature.Type{Kind: signature.Int}}
	for _, typ := range []signature.Type{set, {Kind: signature.Date}, {Kind: signature.Inst}, {Kind: signature.Nil}} {
		for _, v := range []lisp.Value{int64(1), "x", lisp.NewSet(int64(1))} {
			if _, err := typ.Validate(v, signature.Strict); err != nil {
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
