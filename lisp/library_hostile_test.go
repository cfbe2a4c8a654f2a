package lisp_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/ptc-go/ptc/lisp"
)

// libraryHostileCases are hostile programs against the library of issue 39
// (clojure.walk, the Java calls, sorted-by collections, lazy-seq): each
// must end with its limit's error, as those of hostile_test.go.
var libraryHostileCases = []hostileCase{
	// clojure.walk over values that share their parts: 2^60 nodes.
	{"postwalk of a doubled vector", `(clojure.walk/postwalk identity (nth (iterate (fn [v] [v v]) 1) 60))`,
		lisp.StepLimitExceeded, lisp.Limits{MaxSteps: 200_000, MaxMemory: -1}},
	{"prewalk of a doubled vector", `(clojure.walk/prewalk identity (nth (iterate (fn [v] [v v]) 1) 60))`,
		lisp.StepLimitExceeded, lisp.Limits{MaxSteps: 200_000, MaxMemory: -1}},
	{"postwalk of a doubled vector, by memory", `(clojure.walk/postwalk identity (nth (iterate (fn [v] [v v]) 1) 60))`,
		lisp.MemoryExceeded, lisp.Limits{}},
	{"keywordize-keys of a doubled map", `(clojure.walk/keywordize-keys (nth (iterate (fn [m] {"a" m "b" m}) 1) 60))`,
		lisp.StepLimitExceeded, lisp.Limits{MaxSteps: 200_000, MaxMemory: -1}},
	{"postwalk-replace of a vector shared 1000 times", `(let [big (vec (range 10000))] (clojure.walk/postwalk-replace {1 2} (vec (repeat 1000 big))))`,
		lisp.StepLimitExceeded, lisp.Limits{MaxSteps: 200_000, MaxMemory: -1}},
	{"postwalk until timeout", `(clojure.walk/postwalk identity (nth (iterate (fn [v] [v v]) 1) 60))`,
		lisp.Timeout, lisp.Limits{Timeout: 200 * time.Millisecond, MaxSteps: -1, MaxMemory: -1}},
	{"walk of deeply nested data", `(clojure.walk/postwalk identity (nth (iterate vector 1) 20000))`,
		lisp.DepthExceeded, lisp.Limits{}},

	// clojure.walk keeps lists, entries and sequences: the same bounds.
	{"postwalk of a doubled list", `(clojure.walk/postwalk identity (nth (iterate (fn [v] (list v v)) 1) 60))`,
		lisp.StepLimitExceeded, lisp.Limits{MaxSteps: 200_000, MaxMemory: -1}},
	{"prewalk of a doubled map, through its entries", `(clojure.walk/prewalk identity (nth (iterate (fn [m] {:a m :b m}) 1) 60))`,
		lisp.StepLimitExceeded, lisp.Limits{MaxSteps: 200_000, MaxMemory: -1}},
	{"walk of deeply nested maps", `(clojure.walk/postwalk identity (nth (iterate (fn [m] {:a m}) 1) 20000))`,
		lisp.DepthExceeded, lisp.Limits{}},
	{"walk of deeply nested lists", `(clojure.walk/postwalk identity (reduce (fn [acc _] (list acc)) 1 (range 100000)))`,
		lisp.DepthExceeded, lisp.Limits{}},
	{"walk of a lazy-seq that holds itself", `(def s (lazy-seq (list s))) (clojure.walk/postwalk identity s)`,
		lisp.DepthExceeded, lisp.Limits{}},

	// Queues, memoized repeatedly, transients that move on.
	{"a queue grown past the memory limit", `(loop [q clojure.lang.PersistentQueue/EMPTY i 0] (if (< i 100000000) (recur (conj q i) (inc i)) (count q)))`,
		lisp.MemoryExceeded, lisp.Limits{MaxMemory: 1 << 20, MaxLoopIterations: -1, MaxSteps: -1}},
	{"a queue doubled sixty times", `(count (nth (iterate (fn [q] (into q q)) (conj clojure.lang.PersistentQueue/EMPTY 1)) 60))`,
		lisp.MemoryExceeded, lisp.Limits{}},
	{"a queue walked whole", `(count (clojure.walk/postwalk identity (into clojure.lang.PersistentQueue/EMPTY (range 100000))))`,
		lisp.MemoryExceeded, lisp.Limits{MaxMemory: 1 << 20}},
	{"a queue that never empties", `(loop [q (conj clojure.lang.PersistentQueue/EMPTY 0) i 0] (if (seq q) (recur (conj (pop q) i) (inc i)) i))`,
		lisp.StepLimitExceeded, lisp.Limits{MaxSteps: 200_000, MaxLoopIterations: -1}},
	{"repeatedly realized past the memory limit", `(nth (repeatedly (constantly 1)) 100000000)`,
		lisp.MemoryExceeded, lisp.Limits{MaxMemory: 1 << 20}},
	{"a small transient map bashed forever", `(let [t (transient {})] (dotimes [i 100000000] (assoc! t i i)) (count (persistent! t)))`,
		lisp.MemoryExceeded, lisp.Limits{MaxMemory: 1 << 20, MaxLoopIterations: -1, MaxSteps: -1}},

	// Java calls that build.
	{"a huge .repeat", `(.repeat "abcdefgh" 100000000)`, lisp.MemoryExceeded, lisp.Limits{}},
	{".repeat past any memory", `(.repeat "ab" 9000000000000000000)`, lisp.MemoryExceeded, lisp.Limits{}},
	{".replace that multiplies a string", `(loop [s "ab" i 0] (if (< i 40) (recur (.replace s "a" "aa") (inc i)) (count s)))`,
		lisp.MemoryExceeded, lisp.Limits{}},

	// lazy-seq that never ends, or recurses without yielding.
	{"count of an endless lazy-seq", `(defn ones [] (lazy-seq (cons 1 (ones)))) (count (ones))`,
		lisp.StepLimitExceeded, lisp.Limits{MaxSteps: 200_000}},
	{"vec of an endless lazy-seq, by memory", `(defn ones [] (lazy-seq (cons 1 (ones)))) (vec (ones))`,
		lisp.MemoryExceeded, lisp.Limits{MaxMemory: 1 << 20}},
	{"an endless lazy-seq as the program's value", `(defn ones [] (lazy-seq (cons 1 (ones)))) (ones)`,
		lisp.MemoryExceeded, lisp.Limits{MaxMemory: 1 << 20}},
	{"printing an endless lazy-seq", `(defn ones [] (lazy-seq (cons 1 (ones)))) (pr-str (ones))`,
		lisp.StepLimitExceeded, lisp.Limits{MaxSteps: 200_000}},
	{"= of two endless lazy-seqs", `(defn ones [] (lazy-seq (cons 1 (ones)))) (= (ones) (ones))`,
		lisp.StepLimitExceeded, lisp.Limits{MaxSteps: 200_000}},
	{"a lazy-seq whose body recurses forever", `(defn f [] (lazy-seq (f))) (first (f))`,
		lisp.StepLimitExceeded, lisp.Limits{MaxSteps: 200_000}},
	{"a lazy-seq whose body forces itself", `(def s (lazy-seq (cons 1 (rest s)))) (count s)`,
		lisp.DepthExceeded, lisp.Limits{}},
	{"a lazy-seq whose body calls itself deeper", `(defn f [n] (lazy-seq (cons n (seq (f (inc n)))))) (first (f 0))`,
		lisp.DepthExceeded, lisp.Limits{}},
	{"an endless lazy-seq until timeout", `(defn ones [] (lazy-seq (cons 1 (ones)))) (count (ones))`,
		lisp.Timeout, lisp.Limits{Timeout: 200 * time.Millisecond, MaxSteps: -1, MaxMemory: -1}},
	{"take of huge elements", `(take 100 (repeatedly #(vec (range 1000000))))`, lisp.MemoryExceeded, lisp.Limits{}},
	{"take of huge lazy elements", `(defn big [] (lazy-seq (cons (apply str (repeat 1000000 "x")) (big)))) (take 100 (big))`,
		lisp.MemoryExceeded, lisp.Limits{}},
	{"filter of an endless lazy-seq that never passes", `(defn ones [] (lazy-seq (cons 1 (ones)))) (first (filter zero? (ones)))`,
		lisp.StepLimitExceeded, lisp.Limits{MaxSteps: 200_000}},

	// Comparators of sorted-by collections that fail, loop or lie.
	{"a comparator that throws", `(sorted-map-by (fn [a b] (assert (< a 0) "no")) 1 :a 2 :b)`,
		lisp.AssertionError, lisp.Limits{}},
	{"a comparator that loops", `(sorted-set-by (fn [a b] (loop [] (recur))) 1 2)`, lisp.LoopLimitExceeded, lisp.Limits{}},
	{"a comparator that loops until the step limit", `(sorted-set-by (fn [a b] (loop [i 0] (recur (inc i)))) 1 2)`,
		lisp.StepLimitExceeded, lisp.Limits{MaxLoopIterations: -1, MaxSteps: 200_000}},
	{"a comparator that recurses", `(defn c [a b] (c a b)) (sorted-set-by c 1 2)`, lisp.DepthExceeded, lisp.Limits{}},
	{"a comparator that sorts with itself", `(defn c [a b] (count (sorted-set-by c a b))) (sorted-set-by c 1 2)`,
		lisp.DepthExceeded, lisp.Limits{}},
	{"a comparator returning a string", `(sorted-map-by (fn [a b] "x") 1 2 3 4)`, lisp.TypeError, lisp.Limits{}},
	{"a comparator returning nil", `(into (sorted-set-by (fn [a b] nil)) [1 2])`, lisp.TypeError, lisp.Limits{}},
	{"a comparator that fails in subseq", `(let [s (sorted-set-by (fn [a b] (assert (not= b 99)) (compare a b)) 1 2)] (subseq s > 99))`,
		lisp.AssertionError, lisp.Limits{}},
	{"an inconsistent comparator on many keys", `(count (into (sorted-set-by (fn [a b] (if (even? (+ a b)) -1 1))) (range 100000)))`,
		lisp.StepLimitExceeded, lisp.Limits{MaxSteps: 200_000}},
	{"a slow comparator until timeout", `(into (sorted-set-by (fn [a b] (reduce + (range 1000)) (compare a b))) (range 1000000))`,
		lisp.Timeout, lisp.Limits{Timeout: 200 * time.Millisecond, MaxSteps: -1, MaxMemory: -1}},
}

func TestLibraryHostilePrograms(t *testing.T) {
	for _, hc := range libraryHostileCases {
		t.Run(hc.name, func(t *testing.T) {
			limits := hc.limits
			if limits.Timeout == 0 {
				limits.Timeout = hostileLimits.Timeout
			}
			if limits.MaxMemory == 0 {
				limits.MaxMemory = hostileLimits.MaxMemory
			}
			start := time.Now()
			_, err := lisp.Run(context.Background(), hc.src, lisp.Options{Limits: limits})
			if !errors.Is(err, hc.kind) {
				t.Fatalf("got %v, want %s", err, hc.kind)
			}
			if hc.kind == lisp.Timeout && time.Since(start) > limits.Timeout+timeMargin {
				t.Errorf("took %v, limit %v", time.Since(start), limits.Timeout)
			}
		})
	}
}
