package lisp

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/ptc-go/ptc/lisp/syntax"
)

// The compiled code holds the offsets of the forms that can fail, and
// turns one into a line and column only when an error is given it
// (posT.resolve): the positions must be those of the source, on any line,
// after non-ASCII text, in functions called from elsewhere (even from a
// later program), in caught and rethrown exceptions and in runs at once.
func TestLazyPositions(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		at        string // the failing form: its first occurrence in src
		line, col int32
		kind      Kind
	}{
		{"line 3", "(def x 1)\n(let [y 2]\n  (/ x 0))", "(/ x 0)", 3, 3, ArithmeticError},
		{"after non-ASCII on the line", "\"日本語\" \"é\"\n(str \"ü\") (inc \"a\")", "(inc \"a\")", 2, 11, TypeError},
		{"after non-ASCII lines", "(def s \"héllo\")\n;; ünïcödé\n  (+ 1 (first s))", "(+ 1 (first s))", 3, 3, TypeError},
		{"in a fn called later", "(defn f [m]\n  (:k m) (inc (:k m)))\n\n(f {:k \"a\"})", "(inc (:k m))", 2, 10, TypeError},
		{"keyword of a local", "(defn f [m]\n  (+ 1 (:k m)))\n(f {:k \"é\"})", "(+ 1 (:k m))", 2, 3, TypeError},
		{"in a builtin of three arguments", "\"ü\"\n  \"é\" (assoc [1 2] 5 3)", "(assoc [1 2] 5 3)", 2, 7, InvalidArgument},
		{"rethrown", "(defn g []\n  (/ 1 0))\n(try (g)\n  (catch ArithmeticException e (throw e)))", "(/ 1 0)", 2, 3, ArithmeticError},
		{"caught in a loop, then not", "(defn h [i] (inc i))\n(loop [i 0 n 0]\n (if (< i 3)\n  (recur (inc i) (try (h \"é\") (catch Exception e (inc n))))\n  (h \"ü\")))", "(inc i)", 1, 13, TypeError},
		{"overflow", "\n (let [big 9223372036854775807]\n  (inc big))", "(inc big)", 3, 3, ArithmeticError},
		{"map pipeline", "\n\"é\" (reduce + (map inc [1 \"x\"]))", "(map inc [1 \"x\"])", 2, 15, TypeError},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Run(context.Background(), tc.src, Options{})
			var le *Error
			if !errors.As(err, &le) {
				t.Fatalf("got %v, want an error", err)
			}
			off := int32(strings.Index(tc.src, tc.at))
			want := syntax.Pos{Offset: off, Line: tc.line, Col: tc.col}
			lines := syntax.LinesOf(tc.src)
			if le.Pos != want || le.Pos != lines.Pos(off) || !errors.Is(le, tc.kind) {
				t.Errorf("%s at %+v, want %s at %+v", le.Kind, le.Pos, tc.kind, want)
			}
		})
	}
}

// A function of an earlier program keeps the positions of its own source
// when a later program calls it.
func TestLazyPositionsAcrossPrograms(t *testing.T) {
	first := "\n\n(defn h [x]\n  (inc x))"
	res, err := Run(context.Background(), first, Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = Run(context.Background(), "(h \"a\")", Options{Namespace: res.Namespace})
	var le *Error
	want := syntax.Pos{Offset: int32(strings.Index(first, "(inc x)")), Line: 4, Col: 3}
	if !errors.As(err, &le) || le.Pos != want {
		t.Fatalf("got %v, want an error at %+v", err, want)
	}
}

// Runs of one program that fail at once give the same positions (and the
// race detector sees the table of lines made once, under its lock).
func TestLazyPositionsConcurrent(t *testing.T) {
	src := "(def v [\"é\" 1 2])\n(map (fn [x]\n  (inc x)) v)\n(/ 1 0)"
	p, err := Compile(src)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = p.Run(context.Background(), Options{})
		}()
	}
	wg.Wait()
	want := syntax.Pos{Offset: int32(strings.Index(src, "(inc x)")), Line: 3, Col: 3}
	for _, err := range errs {
		var le *Error
		if !errors.As(err, &le) || le.Pos != want {
			t.Errorf("got %v, want an error at %+v", err, want)
		}
	}
}
