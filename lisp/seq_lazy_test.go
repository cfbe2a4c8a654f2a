package lisp_test

import (
	"context"
	"testing"

	"github.com/ptc-go/ptc/lisp"
)

// A tool receives data: lazy sequences of unknown length in its arguments
// are realized, as in the program's value.
func TestLazySeqInToolArguments(t *testing.T) {
	var got string
	tools := lisp.Tools{"echo": func(_ context.Context, args *lisp.Map) (any, error) {
		got = lisp.Print(args, lisp.PrintOptions{Exact: true})
		return "ok", nil
	}}
	src := `(defn upto [n i] (lazy-seq (when (< i n) (cons i (upto n (inc i))))))
(tool/echo {:xs (upto 3 0) :nested [(upto 2 0)] :first (first (upto 9 5))})`
	if _, err := lisp.Run(context.Background(), src, lisp.Options{Tools: tools}); err != nil {
		t.Fatal(err)
	}
	if want := "{:first 5, :nested [[0 1]], :xs [0 1 2]}"; got != want {
		t.Errorf("the tool got %s, want %s", got, want)
	}
}
