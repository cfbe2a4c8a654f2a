package signature_test

import (
	"reflect"
	"testing"

	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/signature"
)

type gfBase struct {
	ID   int    `json:"id"`
	Note string `json:"note,omitzero"`
}

type gfRow struct {
	*gfBase
	Name   string `json:"name" desc:"display name"`
	Count  int    `json:"count,string"`
	Hidden string `json:"-"`
	Plain  bool
	secret int
}

// A Go type's signature names the fields exactly as lisp.FromGo converts
// the values: both use internal/gostruct.
func TestTypeOfMatchesFromGo(t *testing.T) {
	typ, err := signature.TypeOf(reflect.TypeFor[gfRow]())
	if err != nil {
		t.Fatal(err)
	}
	if got, want := typ.String(), "{id :int, note :string?, name :string, count :string, Plain :bool}"; got != want {
		t.Errorf("type %s, want %s", got, want)
	}
	v, err := lisp.FromGo(gfRow{gfBase: &gfBase{ID: 7}, Name: "a", Count: 3, Hidden: "x", Plain: true, secret: 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := typ.Validate(v, signature.Strict); err != nil {
		t.Errorf("the value %s does not match its own type: %v", lisp.Print(v, lisp.PrintOptions{}), err)
	}
}
