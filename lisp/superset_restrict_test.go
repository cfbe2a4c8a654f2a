package lisp_test

import (
	"context"
	"errors"
	"testing"

	"github.com/ptc-go/ptc/lisp"
)

// clojure.string functions that convert their argument with toString (row 54
// of docs/deviations.md) render it under the run's memory limit: a value that
// shares its parts can print to far more than it weighs.
func TestStringConversionIsBounded(t *testing.T) {
	programs := []string{
		`(clojure.string/upper-case c)`,
		`(clojure.string/includes? c "x")`,
		`(clojure.string/replace c "1" "2")`,
		`(clojure.string/index-of c "x")`,
	}
	for _, p := range programs {
		src := `(let [a (vec (range 1000)) b (vec (repeat 1000 a)) c (vec (repeat 100 b))] ` + p + `)`
		_, err := lisp.Run(context.Background(), src, lisp.Options{Limits: lisp.Limits{MaxMemory: 1 << 20}})
		if !errors.Is(err, lisp.MemoryExceeded) {
			t.Errorf("%s: got %v, want memory_exceeded", p, err)
		}
	}
}
