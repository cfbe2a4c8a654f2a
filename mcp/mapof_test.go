package mcp

import (
	"testing"

	"github.com/ptc-go/ptc/signature"
)

// Maps from strings, {:string :t}, count as a level of nesting when a
// signature is cut for the prompt, and "*" of a firewall pointer names
// every value's fields.
func TestMapOfTypes(t *testing.T) {
	parse := func(src string) signature.Type {
		t.Helper()
		sig, err := signature.Parse(src)
		if err != nil {
			t.Fatal(err)
		}
		return sig.Output
	}
	for _, tc := range []struct {
		src   string
		depth int
		cut1  string // cutType at depth 1
		cut0  string // at depth 0
	}{
		{":map", 0, ":map", ":map"},
		{"{:string :int}", 1, "{:string :int}", ":map"},
		{"{:string :int}?", 1, "{:string :int}?", ":map?"},
		{"{:string {a {b :int}}}", 3, "{:string :map}", ":map"},
		{"{m {:string [:int]}}", 3, "{m :map}", ":map"},
		{"[{:string :bool}]", 2, "[:map]", "[:any]"},
	} {
		ty := parse(tc.src)
		if d := typeDepth(ty); d != tc.depth {
			t.Errorf("typeDepth(%s) = %d, want %d", tc.src, d, tc.depth)
		}
		if got := cutType(ty, 1).String(); got != tc.cut1 {
			t.Errorf("cutType(%s, 1) = %s, want %s", tc.src, got, tc.cut1)
		}
		if got := cutType(ty, 0).String(); got != tc.cut0 {
			t.Errorf("cutType(%s, 0) = %s, want %s", tc.src, got, tc.cut0)
		}
	}

	for _, tc := range []struct{ src, pointer, want string }{
		{"{:string {token :string, n :int}}", "/*/token", "{:string {_token :string, n :int}}"},
		{"{by_id {:string {token :string}}?}", "/by_id/*/token", "{by_id {:string {_token :string}}?}"},
		// One key's value, or the keys themselves: the type cannot say.
		{"{:string {token :string}}", "/ann/token", "{:string {token :string}}"},
		{"{:string :string}", "/*", "{:string :string}"},
	} {
		toks, err := parsePointer(tc.pointer)
		if err != nil {
			t.Fatal(err)
		}
		if got := firewallType(parse(tc.src), toks).String(); got != tc.want {
			t.Errorf("firewallType(%s, %s) = %s, want %s", tc.src, tc.pointer, got, tc.want)
		}
	}
}
