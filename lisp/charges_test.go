package lisp_test

import (
	"context"
	"errors"
	"testing"

	"github.com/ptc-go/ptc/lisp"
)

// TestTablesInPlaceChargeTheirCopyOnly: a table filled in place is charged
// for its one copy and its growth, not for each write, so that a dynamic
// program's millions of writes fit a memory limit its table fits; the same
// writes on a table that is kept (persistent) still run out.
func TestTablesInPlaceChargeTheirCopyOnly(t *testing.T) {
	limits := lisp.Limits{MaxMemory: 4_000_000, MaxLoopIterations: -1, Timeout: generous}
	tests := []chargeCase{
		{"a loop's table",
			`(loop [i 0 t (vec (repeat 1000 0))] (if (< i 1000000) (recur (inc i) (update (assoc t (mod i 1000) i) (mod (* 7 i) 1000) inc)) (reduce + t)))`,
			"999500001"},
		{"a reduce's table",
			`(reduce + (reduce (fn [t k] (reduce (fn [t i] (assoc t i (+ k i))) t (range 1000))) (vec (repeat 1000 0)) (range 1000)))`,
			"1498500"},
		{"a table handed to an inner loop",
			`(loop [i 0 t (vec (repeat 1000 0))] (if (< i 1000) (recur (inc i) (loop [j 0 s t] (if (< j 1000) (recur (inc j) (assoc s j (+ i j))) s))) (reduce + t)))`,
			"1498500"},
		{"a transient's writes",
			`(let [t (transient (vec (repeat 1000 0)))] (dotimes [i 1000000] (assoc! t (mod i 1000) i)) (reduce + (persistent! t)))`,
			"999499500"},
		{"a kept table copies on each write",
			`(let [seen (atom nil)] (loop [i 0 t (vec (repeat 1000 0))] (if (< i 1000000) (do (reset! seen t) (recur (inc i) (assoc t (mod i 1000) i))) (reduce + t))))`,
			""},
	}
	runChargeCases(t, limits, tests)
}

// TestWalkedRangesAreNotBuilt: a range that reduce, run!, doseq or an
// inner clause of for walks is made as it is walked, as Clojure's, so the
// nested loops models write over ranges fit a memory limit far below
// what building every range would take; a range kept is still charged.
func TestWalkedRangesAreNotBuilt(t *testing.T) {
	limits := lisp.Limits{MaxMemory: 1_000_000, MaxLoopIterations: -1, Timeout: generous}
	tests := []chargeCase{
		{"reduce over ranges in a loop", `(reduce (fn [acc i] (+ acc (reduce + (range i)))) 0 (range 3000))`, "4495501000"},
		{"reduce through map and filter", `(reduce + (map #(* % %) (filter odd? (range 200000))))`, "1333333333300000"},
		{"reduce with a function", `(reduce (fn [m i] (max m (mod (* i 7919) 10007))) 0 (range 200000))`, "10006"},
		{"run!", `(let [a (atom 0)] (run! #(swap! a + %) (range 200000)) @a)`, "19999900000"},
		{"nested doseq with a counter", `(let [a (atom 0)] (doseq [i (range 1000) j (range 1000)] (swap! a + i j)) @a)`, "999000000"},
		{"a for's inner clauses", `(count (for [i (range 2000) j (range i 2000) :when (zero? (mod (+ i j) 1000))] 1))`, "2002"},
		{"a range kept is charged", `(count (vec (range 200000)))`, ""},
		{"a range reduced after it is kept is charged", `(let [r (range 200000)] (reduce + r))`, ""},
	}
	runChargeCases(t, limits, tests)
}

// chargeCase is a program and the value it prints, or "" when it must
// end with memory_exceeded.
type chargeCase struct{ name, src, want string }

func runChargeCases(t *testing.T, limits lisp.Limits, tests []chargeCase) {
	t.Helper()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := lisp.Run(context.Background(), tc.src, lisp.Options{Limits: limits})
			if tc.want == "" {
				if !errors.Is(err, lisp.MemoryExceeded) {
					t.Fatalf("got %v, want memory_exceeded", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := lisp.Print(res.Value, lisp.PrintOptions{}); got != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
}
