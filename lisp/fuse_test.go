package lisp

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// fusedPrograms are pipelines the compiler fuses (fuse.go), their
// fallbacks and near misses. Each must behave exactly alike fused and
// unfused: value, output, steps, error kind, message and position.
var fusedPrograms = []string{
	// The terminals that fold as elements come.
	`(->> (range 20) vec (filter even?) count)`,
	`(count (map inc [1 2 3]))`,
	`(count (remove odd? (map inc [1 2 3 4 5])))`,
	`(count (keep #(when (odd? %) %) [1 2 3 nil 5]))`,
	`(count (keep identity [1 false nil 2]))`,
	`(->> [{:a 1} {:a 200} {:a 150} {:a nil} {}] (filter (where :a > 100)) (sum-by :a))`,
	`(->> [{:a 1} {:a 2.5} {:a 3}] (map #(update % :a inc)) (sum-by :a))`,
	`(->> [{:a 1} {:a 2}] (filter map?) (sum-by "a"))`,
	`(->> [{:a {:b 1}} {:a {:b 2}}] (map identity) (sum-by [:a :b]))`,
	`(->> [{:a 1} {:a 2}] (map identity) (sum-by #(* 10 (:a %))))`,
	`(->> [{:a 1} {:a 2}] (map identity) (sum-by {{:a 1} 5 {:a 2} 7}))`,
	`(->> [1 2 3] (map inc) (into []))`,
	`(->> [1 2 3] (map inc) (into [0]))`,
	`(->> [1 2 3] (map inc) (into nil))`,
	`(->> [1 2 3 2] (map inc) (into #{}))`,
	`(->> [1 2 3] (map (fn [x] [x (* x x)])) (into {}))`,
	`(->> [{:a 1} {:b 2}] (filter map?) (into {:c 3}))`,
	`(into (sorted-map) (map (fn [x] [x x]) [3 1 2]))`,
	// Terminals given the last stage's output.
	`(->> (vec (range 10)) (filter even?) (map #(* % %)) (reduce +))`,
	`(->> (vec (range 10)) (filter even?) (reduce + 100))`,
	`(->> (vec (range 10)) (map inc) (reduce (fn [acc x] (conj acc x)) []))`,
	`(->> (vec (range 10)) (map inc) (reduce (fn [acc x] (if (> x 5) (reduced acc) (+ acc x)))))`,
	`(->> [] (map inc) (reduce +))`,
	`(->> [] (map inc) (reduce + 7))`,
	`(->> [1 2.5 3] (map identity) (reduce +))`,
	`(->> [2 3 4] (map identity) (reduce * 1.5))`,
	`(->> [9223372036854775807 1] (map identity) (reduce +))`,
	`(->> [1 "a" 3] (map identity) (reduce +))`,
	`(->> ["a" 1 3] (map identity) (reduce +))`,
	`(->> ["a"] (map identity) (reduce +))`,
	`(->> [1 2] (map identity) (reduce + nil))`,
	`(->> [1 2 3 4] (map #(do (println "m" %) %)) (reduce (fn [a x] (if (= x 2) (reduced [a x]) (+ a x)))))`,
	`(->> [1 2 3 "x"] (map inc) (reduce (fn [a x] (reduced a))))`,
	`(->> [{:a 1} {:a 2}] (map identity) (reduce (fn [acc m] (assoc acc (:a m) m)) {}))`,
	`(->> (vec (range 100)) (filter even?) (reduce conj []))`,
	`(->> [1 2 3] (map inc) (reduce (fn [] 0)))`,
	`(->> [] (map inc) (reduce (fn [] :empty)))`,
	`(->> [] (map inc) (reduce (fn [a b] :two)))`,
	`(->> [1] (map inc) (reduce 42))`,
	`(let [xs [3 1 2]] (count (filter odd? (sort (map inc xs)))))`,
	`(let [f (fn [x] (* x 10)) xs (vec (range 5))] (->> xs (map f) (filter #(> % 15)) (into [])))`,
	`(->> [5] (map inc) (reduce (fn [a b] (+ a b))))`,
	`(->> [{:c "x" :a 1} {:c "y" :a 2} {:c "x" :a 3}] (filter #(> (:a %) 1)) (group-by :c))`,
	`(->> ["a" "b" "a"] (map clojure.string/upper-case) frequencies)`,
	`(->> [3 1 2] (map inc) vec)`,
	`(->> [3 1 2 1] (map inc) set)`,
	`(->> [{:a 1} {:a 3}] (remove nil?) (avg-by :a))`,
	`(->> [{:a 1} {:a 3}] (remove nil?) (max-by :a))`,
	`(->> [{:a 1} {:a 3}] (remove nil?) (min-by :a))`,
	`(->> [{:a 1} {:a 3} {:a 2}] (filter map?) (sort-by :a))`,
	// Stages of every kind, chained; mapv and filterv.
	`(->> (vec (range 30)) (map inc) (filter odd?) (remove #(= 0 (mod % 3))) (keep #(when (> % 5) (* 2 %))) (mapv str) count)`,
	`(count (filterv pos? (mapv dec [1 2 3])))`,
	`(->> [{:a 1} {:a 2}] (map :a) (filter #{2}) (into []))`,
	`(->> [[1 2] [3 4]] (map first) (into []))`,
	`(->> ["a" "bb"] (map count) (reduce max))`,
	// Keywords as stage functions, over records, trees and non-maps.
	`(->> [{:a 1 :b true} {:a 2} {"a" 3 "b" false} nil] (filter :b) (map :a) (into []))`,
	`(->> [{:a 1 :b true} {:a 2} {"a" 3 "b" false} nil] (remove :b) (keep :a) (into []))`,
	`(->> [{:a 1} #{:a} nil] (map :a) (into []))`,
	`(->> [{:a 1} 5] (map :a) (into []))`,
	`(->> [{:a 1} [1 2]] (keep :a) (into []))`,
	`(->> [{:a 1} "s"] (filter :a) (into []))`,
	// Not vectors: lazy sequences, maps, sets, strings, nil run unfused.
	`(->> (range 10) (filter even?) count)`,
	`(->> (range) (map inc) (filter even?) (take 3) (reduce +))`,
	`(->> {:a 1 :b 2} (map val) (reduce +))`,
	`(->> #{1 2 3} (map inc) (into []))`,
	`(->> "abc" (map clojure.string/upper-case) (into []))`,
	`(->> nil (map inc) count)`,
	// Lists fuse as vectors do; into a list puts each element in front.
	`(->> (list 1 2 3) (map inc) (sum-by identity))`,
	`(->> '(1 2 3) (map inc) (into '()))`,
	`(->> [1 2 3] (map inc) (into '(0)))`,
	`(->> [1 2 3] (filter odd?) (into (list)))`,
	`(->> '(3 1 2) (filter odd?) (into []))`,
	`(->> '(1 2 3) (map inc) count)`,
	`(->> '(1 2 3) (map inc) (reduce conj '()))`,
	`(->> '(1 2 3) (remove odd?) vec)`,
	// Errors: positions and messages as written.
	`(->> [1 2 3] (map :a) (sum-by :b))`,
	`(->> [1 "x" 3] (map inc) count)`,
	`(->> [{:a 1} {:a "x"}] (filter map?) (sum-by :a))`,
	`(->> [{:a 1}] (filter 42) count)`,
	`(->> [{:a 1}] (map nil) count)`,
	`(->> [{:a 1}] (map :a) (sum-by 42))`,
	`(->> [{:a 1}] (map :a) (into 42))`,
	`(->> [1 2] (map inc) (into {}))`,
	`(->> [[1 2 3]] (map identity) (into {}))`,
	`(->> {:a 1} (map :a) count)`,
	`(->> [1 2] (map (fn [x y] x)) count)`,
	`(->> [9223372036854775807 1] (map identity) (sum-by identity))`,
	`(->> [1 2] (filter (fn [x] (/ 1 (- x 2)))) count)`,
	`(->> [1 2 3] (map #(tool/nope %)) count)`,
	// Side effects in one stage keep their order.
	`(->> [1 2 3] (map #(do (println "m" %) %)) (filter odd?) count)`,
	`(->> [1 2 3] (filter #(do (println "f" %) true)) (into []))`,
	// Not pipelines: shadowed names, transducers, one-argument forms.
	`(let [map (fn [f xs] [:mine])] (count (map inc [1 2])))`,
	`(let [count (fn [x] :mine)] (count (map inc [1 2])))`,
	`(into [] (map inc) [1 2 3])`,
	`(count (map + [1 2] [3 4]))`,
	`(defn go [xs] (->> xs (filter even?) (map inc) (reduce +))) [(go [1 2 3 4]) (go (range 5)) (go nil)]`,
	`(->> [1 2 3] (map inc) (map inc) (map inc) (map inc) (map inc) (filter odd?) (sum-by identity))`,
	`(pmap (fn [n] (->> (vec (range n)) (filter even?) (map inc) count)) [10 20 30])`,
}

func TestFusedPipelines(t *testing.T) {
	for _, src := range fusedPrograms {
		sameFusedOrNot(t, src, Limits{})
	}
}

// sameFusedOrNot checks that src behaves alike fused and unfused, and
// returns the outcome. Runs that succeed must match exactly, steps
// included. Runs that fail must fail alike, but may have counted fewer
// steps when they stop: an unfused stage counts its whole input before
// walking it, a fused one as elements arrive; and a step limit is reported
// at the stage where the count crossed it.
func sameFusedOrNot(t *testing.T, src string, limits Limits) string {
	t.Helper()
	fused := outcome(src, limits)
	var unfused string
	withoutFastPaths(func() { unfused = outcome(src, limits) })
	if !strings.Contains(fused, " error=") {
		if fused != unfused {
			t.Errorf("%s\n fused:   %s\n unfused: %s", src, fused, unfused)
		}
		return fused
	}
	errorOf := func(out string) string {
		e := out[strings.Index(out, " error="):]
		if strings.Contains(e, string(StepLimitExceeded)) {
			e = e[:strings.LastIndex(e, "|")]
		}
		return e
	}
	if errorOf(fused) != errorOf(unfused) {
		t.Errorf("%s\n fused:   %s\n unfused: %s", src, fused, unfused)
	}
	return fused
}

// Limits trip in fused pipelines as they do unfused: steps at the same
// count, a timeout, a cancelled context, and memory for what a pipeline
// still builds.
func TestFusedPipelineLimits(t *testing.T) {
	for _, tc := range []struct {
		src    string
		limits Limits
		kind   Kind
	}{
		{`(->> (vec (range 10000)) (map inc) (filter odd?) count)`, Limits{MaxSteps: 5000}, StepLimitExceeded},
		{`(->> (vec (range 10000)) (map inc) (filter odd?) (sum-by identity))`, Limits{MaxSteps: 20000}, StepLimitExceeded},
		{`(->> (vec (range 100000)) (map (fn [x] (vec (range 100)))) (reduce (fn [a x] a) 0))`, Limits{MaxMemory: 1 << 20}, MemoryExceeded},
		{`(->> (vec (range 100000)) (map (fn [x] [x x])) (into []))`, Limits{MaxMemory: 1 << 20}, MemoryExceeded},
	} {
		out := sameFusedOrNot(t, tc.src, tc.limits)
		if !strings.Contains(out, "error="+string(tc.kind)) {
			t.Errorf("%s: %s, want %s", tc.src, out, tc.kind)
		}
	}
	// A pipeline over a large vector stops when its context is cancelled.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Run(ctx, `(->> (vec (range 1000000)) (map inc) (filter odd?) count)`, Options{})
	if !errors.Is(err, Cancelled) && !errors.Is(err, Timeout) {
		t.Errorf("cancelled: %v", err)
	}
}

// Fusing builds no intermediate vectors: under a memory limit that holds
// the source vector but not the stages' vectors as well, the fused
// pipeline runs and the unfused one fails.
func TestFusedPipelineBuildsNoIntermediates(t *testing.T) {
	src := `(->> (vec (range 100000)) (map inc) (filter odd?) (map #(* 2 %)) (sum-by identity))`
	// The source: 100k slots; unfused, the stages add 100k + 50k + 50k.
	limits := patient(Limits{MaxMemory: 150_000 * valueSize})
	fused, err := Run(context.Background(), src, Options{Limits: limits})
	if err != nil {
		t.Fatalf("fused: %v", err)
	}
	if fused.Value != int64(5_000_000_000) {
		t.Errorf("fused: %v", fused.Value)
	}
	withoutFastPaths(func() { _, err = Run(context.Background(), src, Options{Limits: limits}) })
	if !errors.Is(err, MemoryExceeded) {
		t.Errorf("unfused: %v, want the memory limit: the test would not show what fusing saves", err)
	}
}
