package agent

import (
	"testing"

	"github.com/ptc-go/ptc/lisp"
)

// The values the model is shown keep their kind: a list whose floats are
// rounded, or which is cut to a size, or sampled for the inventory, still
// prints as a list.
func TestFeedbackKeepsLists(t *testing.T) {
	l := lisp.NewList([]lisp.Value{1.23456, int64(2), "a long string to cut"})
	if got := lisp.Print(roundFloats(l, 2), lisp.PrintOptions{}); got != `(1.23 2 "a long string to cut")` {
		t.Errorf("roundFloats = %s", got)
	}
	if got := lisp.Print(truncateValue(l, 20), lisp.PrintOptions{}); got != `(1.23456 2)` {
		t.Errorf("truncateValue = %s", got)
	}
	s := &sampler{items: 1, chars: 100, maxChars: 100, nodes: 10}
	if got := s.sample(l); got != `(1.23456 ... (2 more))` {
		t.Errorf("sample = %s", got)
	}
}
