package lisp_test

import (
	"context"
	"errors"
	"testing"

	"github.com/ptc-go/ptc/lisp"
)

// TestGlobalHierarchyFollowsTheNamespace: what a run derives in the global
// hierarchy, the namespace it leaves holds for the next runs (an agent's
// later turns); a run that fails leaves it as it found it, as its defs;
// Namespace.With keeps it.
func TestGlobalHierarchyFollowsTheNamespace(t *testing.T) {
	ns := run(t, `(derive :k/dog :k/animal) (defmulti sound identity) (defmethod sound :k/animal [_] "animal")`, lisp.Options{}).Namespace
	if _, err := lisp.Run(context.Background(), `(derive :k/cat :k/animal) (/ 1 nil)`, lisp.Options{Namespace: ns}); !errors.Is(err, lisp.TypeError) {
		t.Fatalf("got %v, want a type error", err)
	}
	check := `[(sound :k/dog) (isa? :k/cat :k/animal)]`
	if got := lisp.Print(run(t, check, lisp.Options{Namespace: ns.With("x", int64(1))}).Value, lisp.PrintOptions{}); got != `["animal" false]` {
		t.Errorf("after a failed run: %s", got)
	}
	ns = run(t, `(derive :k/cat :k/animal)`, lisp.Options{Namespace: ns}).Namespace
	if got := lisp.Print(run(t, check, lisp.Options{Namespace: ns}).Value, lisp.PrintOptions{}); got != `["animal" true]` {
		t.Errorf("after a good run: %s", got)
	}
	if got := lisp.Print(run(t, `(isa? :k/dog :k/animal)`, lisp.Options{}).Value, lisp.PrintOptions{}); got != `false` {
		t.Errorf("a fresh namespace: %s, want an empty hierarchy", got)
	}
}
