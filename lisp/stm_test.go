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
	// An agent too, which can be sent to once read.
	v, err = lisp.Read(`#agent[5]`, lisp.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	res := run(t, `(send ctx/a inc) @ctx/a`, lisp.Options{Input: lisp.NewMap(lisp.Keyword("a"), v)})
	if got := lisp.Print(res.Value, lisp.PrintOptions{}); got != "6" {
		t.Errorf("a read agent after send: %s", got)
	}
}

// TestAgentsUnderContention: pmap branches that send to one agent, whose
// action also sends to a second, lose no action and never run two actions
// of one agent at once (the action checks an atom it holds while it runs).
func TestAgentsUnderContention(t *testing.T) {
	src := `(def a (agent 0)) (def b (agent 0)) (def busy (atom false)) (def overlaps (atom 0))
	        (defn step [x] (when-not (compare-and-set! busy false true) (swap! overlaps inc))
	                       (send b inc)
	                       (reset! busy false)
	                       (inc x))
	        (dorun (pmap (fn [_] (send a step)) (range 300)))
	        (await a b)
	        [@a @b @overlaps]`
	for range 10 {
		if got := lisp.Print(run(t, src, lisp.Options{}).Value, lisp.PrintOptions{}); got != "[300 300 0]" {
			t.Fatalf("got %s, want [300 300 0]", got)
		}
	}
}

// TestFailedRunRestoresAgents: a run that fails puts back the value its
// actions gave an agent of the namespace, as it does an atom's.
func TestFailedRunRestoresAgents(t *testing.T) {
	ns := run(t, `(def a (agent 1))`, lisp.Options{}).Namespace
	if _, err := lisp.Run(context.Background(), `(send a + 10) (await a) (/ 1 nil)`, lisp.Options{Namespace: ns}); !errors.Is(err, lisp.TypeError) {
		t.Fatalf("got %v, want a type error", err)
	}
	if got := lisp.Print(run(t, `(send a inc) @a`, lisp.Options{Namespace: ns}).Value, lisp.PrintOptions{}); got != "2" {
		t.Errorf("after a failed run: %s, want 2", got)
	}
}
