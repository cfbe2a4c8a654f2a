package lisp_test

import (
	"context"
	"errors"
	"testing"

	"github.com/ptc-go/ptc/lisp"
)

// TestFailedRunRollsBackMatcher: a matcher is an atom, so a run that fails
// puts back the position it advanced, and a run that succeeds keeps it.
func TestFailedRunRollsBackMatcher(t *testing.T) {
	ns := run(t, `(def m (re-matcher #"\d" "1 2 3 4"))`, lisp.Options{}).Namespace
	if _, err := lisp.Run(context.Background(), `(re-find m) (re-find m) (/ 1 nil)`, lisp.Options{Namespace: ns}); !errors.Is(err, lisp.TypeError) {
		t.Fatalf("got %v, want a type error", err)
	}
	r := run(t, `(re-find m)`, lisp.Options{Namespace: ns})
	if got := lisp.Print(r.Value, lisp.PrintOptions{}); got != `"1"` {
		t.Errorf("after a failed run: %s, want \"1\"", got)
	}
	if got := lisp.Print(run(t, `(re-find m)`, lisp.Options{Namespace: r.Namespace}).Value, lisp.PrintOptions{}); got != `"2"` {
		t.Errorf("after a good run: %s, want \"2\"", got)
	}
}
