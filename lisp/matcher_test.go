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

// TestFailedRunRollsBackValidatorAndFormat: set-validator! and a
// DecimalFormat's setters change an atom, so a run that fails puts them
// back; one that succeeds keeps them.
func TestFailedRunRollsBackValidatorAndFormat(t *testing.T) {
	ns := run(t, `(def a (atom 1)) (def df (java.text.DecimalFormat. "0.00"))`, lisp.Options{}).Namespace
	bad := `(set-validator! a pos?) (.setMaximumFractionDigits df 0) (/ 1 nil)`
	if _, err := lisp.Run(context.Background(), bad, lisp.Options{Namespace: ns}); !errors.Is(err, lisp.TypeError) {
		t.Fatalf("got %v, want a type error", err)
	}
	check := `[(reset! a -1) (get-validator a) (.format df 2.5)]`
	if got := lisp.Print(run(t, check, lisp.Options{Namespace: ns}).Value, lisp.PrintOptions{}); got != `[-1 nil "2.50"]` {
		t.Errorf("after a failed run: %s", got)
	}
	ns = run(t, `(reset! a 1) (set-validator! a pos?) (.setMaximumFractionDigits df 0)`, lisp.Options{Namespace: ns}).Namespace
	if got := lisp.Print(run(t, `[(try (reset! a -1) (catch IllegalStateException e :rejected)) (.format df 2.5)]`, lisp.Options{Namespace: ns}).Value, lisp.PrintOptions{}); got != `[:rejected "2"]` {
		t.Errorf("after a good run: %s", got)
	}
}
