package lisp_test

import (
	"math/big"
	"testing"

	"github.com/ptc-go/ptc/lisp"
)

// TestBigIntCrossesTheAPI: a BigInt reaches the host as a *big.Int of its
// own (ToGo copies), JSON as the number, and a host's *big.Int is a BigInt
// to the program (FromGo copies).
func TestBigIntCrossesTheAPI(t *testing.T) {
	res := run(t, `(*' 4294967296 4294967296 3)`, lisp.Options{})
	want, _ := new(big.Int).SetString("55340232221128654848", 10)
	got, err := lisp.ToGo(res.Value)
	if err != nil {
		t.Fatal(err)
	}
	g, ok := got.(*big.Int)
	if !ok || g.Cmp(want) != 0 {
		t.Fatalf("ToGo = %#v, want the *big.Int %s", got, want)
	}
	g.SetInt64(0) // the caller's copy: the value stays
	if p := lisp.Print(res.Value, lisp.PrintOptions{}); p != "55340232221128654848N" {
		t.Errorf("after the host changed its copy: %s", p)
	}
	j, err := lisp.ToJSON(res.Value, nil)
	if err != nil || string(j) != "55340232221128654848" {
		t.Errorf("ToJSON = %s, %v", j, err)
	}
	host := new(big.Int).Lsh(big.NewInt(1), 70)
	v, err := lisp.FromGo(map[string]any{"n": host})
	if err != nil {
		t.Fatal(err)
	}
	host.SetInt64(5)
	r := run(t, `[(inc ctx/n) (class ctx/n)]`, lisp.Options{Input: v})
	if p := lisp.Print(r.Value, lisp.PrintOptions{}); p != "[1180591620717411303425N clojure.lang.BigInt]" {
		t.Errorf("a host *big.Int in the program: %s", p)
	}
}
