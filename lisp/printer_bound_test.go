package lisp_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"unicode/utf8"

	"github.com/ptc-go/ptc/lisp"
)

// doubled is [v v] nested n times: 2^n leaves in n vectors, a value whose
// printed form is exponential in the steps that built it.
func doubled(n int) lisp.Value {
	var v lisp.Value = int64(1)
	for range n {
		v = lisp.NewVector([]lisp.Value{v, v})
	}
	return v
}

// countingCtx ends after its Err has been asked limit times: printing
// polls it as it goes, so how far printing got is counted in polls.
type countingCtx struct {
	context.Context
	limit int64
	n     atomic.Int64
	done  chan struct{}
}

// Done is a channel, as a context that can end has: its Err is what ends it.
func (c *countingCtx) Done() <-chan struct{} { return c.done }

func (c *countingCtx) Err() error {
	if c.n.Add(1) > c.limit {
		return context.Canceled
	}
	return nil
}

// TestFormatValueContext: printing a value under a context stops when the
// context ends, after at most one poll interval (64 KiB) more output, with
// a Cancelled or Timeout error (security.md, "The model and its programs").
func TestFormatValueContext(t *testing.T) {
	ctx := &countingCtx{Context: context.Background(), limit: 3, done: make(chan struct{})}
	s, err := lisp.PrintContext(ctx, doubled(60), lisp.PrintOptions{})
	var le *lisp.Error
	if !errors.As(err, &le) || le.Kind != lisp.Cancelled || s != "" {
		t.Fatalf("got %d chars, %v", len(s), err)
	}
	if n := ctx.n.Load(); n != 4 { // 1 before printing, 3 polls, then the one that ends it
		t.Errorf("Err asked %d times: printing went on past the context's end", n)
	}

	dead, cancel := context.WithTimeout(context.Background(), 0)
	defer cancel()
	<-dead.Done()
	if _, err := lisp.PrintContext(dead, doubled(60), lisp.PrintOptions{}); !errors.As(err, &le) || le.Kind != lisp.Timeout {
		t.Errorf("past its deadline: %v", err)
	}

	if s, err := lisp.PrintContext(context.Background(), doubled(3), lisp.PrintOptions{}); err != nil || s != "[[[1 1] [1 1]] [[1 1] [1 1]]]" {
		t.Errorf("a small value: %q, %v", s, err)
	}
}

// TestMaxCharsStopsPrinting: MaxChars stops the printing of a huge value
// near MaxChars characters, not at four times as many bytes; a cut counts
// characters, never bytes.
func TestMaxCharsStopsPrinting(t *testing.T) {
	// Measured through a context's polls: each is 64 KiB of output.
	ctx := &countingCtx{Context: context.Background(), limit: 1 << 30, done: make(chan struct{})}
	s, err := lisp.PrintContext(ctx, doubled(60), lisp.PrintOptions{MaxChars: 1 << 20})
	if err != nil || utf8.RuneCountInString(s) != 1<<20+3 {
		t.Fatalf("got %d chars, %v", utf8.RuneCountInString(s), err)
	}
	if polls := ctx.n.Load() - 1; polls > 17 { // 16 polls make 1 MiB
		t.Errorf("printed %d KiB for a bound of 1 MiB", polls*64)
	}

	items := make([]lisp.Value, 100)
	for i := range items {
		items[i] = "éé"
	}
	s = lisp.Print(lisp.NewVector(items), lisp.PrintOptions{MaxChars: 50})
	if utf8.RuneCountInString(s) != 53 || !strings.HasPrefix(s, `["éé" "éé"`) {
		t.Errorf("cut at %d chars: %s", utf8.RuneCountInString(s), s)
	}
}
