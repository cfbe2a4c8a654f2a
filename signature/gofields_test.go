package signature_test

import (
	"context"
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

// A typed tool's signature names the fields exactly as lisp.FromGo
// converts the values: both use internal/gostruct.
func TestTypedSignatureMatchesFromGo(t *testing.T) {
	tool := signature.MustTypedFunc(func(ctx context.Context, in struct{}) (gfRow, error) {
		return gfRow{gfBase: &gfBase{ID: 7}, Name: "a", Count: 3, Hidden: "x", Plain: true, secret: 1}, nil
	})
	if got, want := tool.Signature().String(), "() -> {id :int, note :string?, name :string, count :string, Plain :bool}"; got != want {
		t.Errorf("signature %s, want %s", got, want)
	}
	v, err := tool.Call(context.Background(), lisp.NewMap())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tool.Signature().ValidateOutput(v, signature.Strict); err != nil {
		t.Errorf("the result %s does not match its own signature: %v", lisp.Print(v, lisp.PrintOptions{}), err)
	}
}
