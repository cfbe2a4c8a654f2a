package lisp_test

import (
	"context"
	"errors"
	"testing"

	"github.com/ptc-go/ptc/lisp"
)

// TestMemoizeBound checks that a memoized function keeps at most 10,000
// results: the 10,001st distinct call is computed but not kept.
func TestMemoizeBound(t *testing.T) {
	src := `(def f (memoize (fn [x] (print "c") x)))
	        (doseq [i (range 10001)] (f i))
	        [(f 0) (f 9999) (f 10000)]`
	res, err := lisp.Run(context.Background(), src, lisp.Options{Limits: lisp.Limits{Timeout: generous}})
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	for _, line := range res.Output {
		calls += len(line)
	}
	// 10,001 first calls, then only (f 10000) again.
	if calls != 10002 {
		t.Errorf("the function ran %d times, want 10002", calls)
	}
}

// TestMemoizeMemory checks that the cache is charged to the memory limit:
// the same calls fit the limit without memoize.
func TestMemoizeMemory(t *testing.T) {
	limits := lisp.Limits{Timeout: generous, MaxMemory: 1 << 20}
	calls := `(doseq [i (range 10000)] (f i i i i i i i i i i))`
	plain := `(def f (fn [a b c d e g h i j k] a))` + calls
	if _, err := lisp.Run(context.Background(), plain, lisp.Options{Limits: limits}); err != nil {
		t.Fatalf("without memoize: %v", err)
	}
	memo := `(def f (memoize (fn [a b c d e g h i j k] a)))` + calls
	if _, err := lisp.Run(context.Background(), memo, lisp.Options{Limits: limits}); !errors.Is(err, lisp.MemoryExceeded) {
		t.Fatalf("with memoize: got %v, want memory_exceeded", err)
	}
}

// TestMemoizeConcurrent shares a memoized recursive function between pmap
// branches (run it with -race), and checks that a new run starts with an
// empty cache.
func TestMemoizeConcurrent(t *testing.T) {
	src := `(def fib (memoize (fn [n] (if (< n 2) n (+ (fib (- n 1)) (fib (- n 2)))))))
	        (vec (pmap (fn [i] (fib (+ 40 (mod i 30)))) (range 64)))`
	res, err := lisp.Run(context.Background(), src, lisp.Options{Limits: lisp.Limits{Timeout: generous}})
	if err != nil {
		t.Fatal(err)
	}
	fib := []int64{0, 1}
	for len(fib) < 70 {
		fib = append(fib, fib[len(fib)-1]+fib[len(fib)-2])
	}
	for i, v := range res.Value.(*lisp.Vector).Items() {
		if want := fib[40+i%30]; v != want {
			t.Fatalf("element %d = %v, want %d", i, v, want)
		}
	}

	// The cache belongs to the run: a later run computes again.
	first, err := lisp.Run(context.Background(), `(def g (memoize (fn [x] (println "computing") x))) (g 1)`, lisp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	again, err := lisp.Run(context.Background(), `[(g 1) (g 1)]`, lisp.Options{Namespace: first.Namespace})
	if err != nil {
		t.Fatal(err)
	}
	if len(first.Output) != 1 || len(again.Output) != 1 {
		t.Errorf("output %q then %q, want one line each", first.Output, again.Output)
	}
}

// TestMemoizeDeepArguments checks that arguments too deep to compare are
// not cached instead of failing the call.
func TestMemoizeDeepArguments(t *testing.T) {
	src := `(def f (memoize count))
	        (def x (reduce (fn [a _] [a]) [] (range 20000)))
	        (def y (reduce (fn [a _] [a]) [] (range 20000)))
	        [(f x) (f y) (f x)]`
	res, err := lisp.Run(context.Background(), src, lisp.Options{Limits: lisp.Limits{Timeout: generous}})
	if err != nil {
		t.Fatal(err)
	}
	if got := lisp.Print(res.Value, lisp.PrintOptions{}); got != "[1 1 1]" {
		t.Errorf("got %s", got)
	}
}
