package load

import (
	"context"
	"errors"
	"testing"

	"github.com/ptc-go/ptc/lisp"
)

// TestRenderIsBounded: the value ptc eval, repl and run print is bounded
// by the program's memory limit and by its time (security.md, "The model
// and its programs"): a value of shared structure whose printed form is
// exponential ends with memory_exceeded or with the context, never after
// printing it all.
func TestRenderIsBounded(t *testing.T) {
	var v lisp.Value = int64(1)
	for range 60 {
		v = lisp.NewVector([]lisp.Value{v, v})
	}
	var le *lisp.Error
	_, err := EvalView{}.Render(context.Background(), v, false, lisp.Limits{MaxMemory: 1 << 20, Timeout: -1})
	if !errors.As(err, &le) || le.Kind != lisp.MemoryExceeded {
		t.Errorf("1 MiB limit: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = EvalView{}.Render(ctx, v, false, lisp.Limits{MaxMemory: 64 << 20})
	if !errors.As(err, &le) || le.Kind != lisp.Cancelled {
		t.Errorf("cancelled: %v", err)
	}
	if out, err := (EvalView{}).Render(context.Background(), lisp.NewVector([]lisp.Value{int64(1)}), false, lisp.Limits{}); err != nil || out != "[1]" {
		t.Errorf("a small value: %q, %v", out, err)
	}
}
