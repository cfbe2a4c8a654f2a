package lisp_test

import (
	"context"
	"errors"
	"testing"

	"github.com/ptc-go/ptc/lisp"
)

// TestFailedRunRestoresRefs: a run that fails after its transactions
// committed leaves the namespace's refs as they were, as it does atoms.
func TestFailedRunRestoresRefs(t *testing.T) {
	r1 := run(t, `(def r (ref 0)) (def s (ref {:n 1}))`, lisp.Options{})
	ns := r1.Namespace
	bad := `(dosync (alter r + 5) (alter s update :n inc))
	        (dorun (pmap (fn [_] (dosync (alter r inc))) (range 10)))
	        (/ 1 nil)`
	if _, err := lisp.Run(context.Background(), bad, lisp.Options{Namespace: ns}); !errors.Is(err, lisp.TypeError) {
		t.Fatalf("got %v, want a type error", err)
	}
	if got := lisp.Print(run(t, `[@r @s]`, lisp.Options{Namespace: ns}).Value, lisp.PrintOptions{}); got != "[0 {:n 1}]" {
		t.Errorf("after a failed run: %s, want [0 {:n 1}]", got)
	}
	res := run(t, `(dosync (alter r inc))`, lisp.Options{Namespace: ns})
	if got := lisp.Print(run(t, `@r`, lisp.Options{Namespace: res.Namespace}).Value, lisp.PrintOptions{}); got != "1" {
		t.Errorf("after a good run: %s, want 1", got)
	}
}

// TestTransactionsUnderContention: branches that each move an amount
// between two refs in a transaction keep the sum, whatever the
// interleaving; the retries counted by an atom in the body show the body
// may run more than once, never less.
func TestTransactionsUnderContention(t *testing.T) {
	src := `(def a (ref 1000)) (def b (ref 0)) (def runs (atom 0))
	        (dorun (pmap (fn [i] (dosync (swap! runs inc)
	                                     (let [n (mod i 7)] (alter a - n) (alter b + n))
	                                     [(+ @a @b)]))
	                     (range 400)))
	        [(+ @a @b) @b (>= @runs 400)]`
	for range 20 {
		res := run(t, src, lisp.Options{})
		var want int64
		for i := range int64(400) {
			want += i % 7
		}
		got := lisp.Print(res.Value, lisp.PrintOptions{})
		if exp := lisp.Print(lisp.NewVector([]lisp.Value{int64(1000), want, true}), lisp.PrintOptions{}); got != exp {
			t.Fatalf("got %s, want %s", got, exp)
		}
	}
}

// TestRefRoundTrip: a ref prints as #ref[v] and reads back as a ref.
func TestRefRoundTrip(t *testing.T) {
	v, err := lisp.Read(`#ref[{:a [1 2]}]`, lisp.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c, ok := v.(*lisp.Cell)
	if !ok || c.Kind() != "ref" {
		t.Fatalf("read %T %v, want a ref", v, v)
	}
	if got := lisp.Print(c, lisp.PrintOptions{}); got != "#ref[{:a [1 2]}]" {
		t.Errorf("printed %s", got)
	}
}
