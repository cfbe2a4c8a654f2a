package lisp_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ptc-go/ptc/lisp"
)

// hostileCase is a program an attacker (or a confused LLM) might write,
// with the error kind it must end with.
type hostileCase struct {
	name   string
	src    string
	kind   lisp.Kind
	limits lisp.Limits // Timeout and MaxMemory left zero: hostileLimits's
}

// hostileLimits fill the cases' zero Timeout and MaxMemory. A case that
// must end by a deterministic limit (memory, steps, depth...) runs with a
// timeout far beyond what it needs, so that a slow or busy machine cannot
// turn its error into a timeout; a case that must time out has its own
// short timeout. A 16 MiB memory budget lets the cases that exhaust memory
// do so quickly.
var hostileLimits = lisp.Limits{Timeout: 5 * time.Minute, MaxMemory: 16 << 20}

// noLoopLimit lets a loop run until another limit stops it.
var noLoopLimit = lisp.Limits{Timeout: 200 * time.Millisecond, MaxLoopIterations: -1, MaxSteps: -1}

var hostileCases = []hostileCase{
	// Loops and recursion.
	{"empty recur loop", `(loop [] (recur))`, lisp.LoopLimitExceeded, lisp.Limits{}},
	{"counting forever", `(loop [i 0] (recur (inc i)))`, lisp.LoopLimitExceeded, lisp.Limits{}},
	{"fn recur forever", `((fn [x] (recur x)) 1)`, lisp.LoopLimitExceeded, lisp.Limits{}},
	{"loop until timeout", `(loop [i 0] (recur (inc i)))`, lisp.Timeout, noLoopLimit},
	{"loop until step budget", `(loop [i 0] (recur (inc i)))`, lisp.StepLimitExceeded,
		lisp.Limits{MaxLoopIterations: -1, MaxSteps: 100_000}},
	{"self recursion", `(defn f [] (f)) (f)`, lisp.DepthExceeded, lisp.Limits{}},
	{"self recursion with args", `(defn f [n] (+ 1 (f (inc n)))) (f 0)`, lisp.DepthExceeded, lisp.Limits{}},
	{"mutual recursion", `(defn a [] (b)) (defn b [] (a)) (a)`, lisp.DepthExceeded, lisp.Limits{}},
	{"letfn mutual recursion", `(letfn [(a [] (b)) (b [] (a))] (a))`, lisp.DepthExceeded, lisp.Limits{}},
	{"omega combinator", `((fn [f] (f f)) (fn [f] (f f)))`, lisp.DepthExceeded, lisp.Limits{}},
	{"recursion inside map", `(defn f [x] (map f [x])) (f 1)`, lisp.DepthExceeded, lisp.Limits{}},
	{"recursion inside reduce", `(defn f [acc x] (reduce f acc [x])) (f 0 1)`, lisp.DepthExceeded, lisp.Limits{}},
	{"recursion through a comparator", `(defn c [a b] (sort c [a b])) (sort c [2 1])`, lisp.DepthExceeded, lisp.Limits{}},
	{"dotimes a billion", `(dotimes [i 1000000000] i)`, lisp.LoopLimitExceeded, lisp.Limits{}},
	{"dotimes until timeout", `(dotimes [i 1000000000] i)`, lisp.Timeout, noLoopLimit},
	{"doseq over an infinite range", `(doseq [x (range)] x)`, lisp.Timeout, noLoopLimit},
	{"for over an infinite range", `(count (for [x (range)] x))`, lisp.InvalidArgument, lisp.Limits{}},
	{"vec of an infinite for", `(vec (for [x (range)] x))`, lisp.InvalidArgument, lisp.Limits{}},
	{"nested for explosion", `(count (for [x (range 1000) y (range 1000) z (range 1000)] 1))`, lisp.MemoryExceeded, lisp.Limits{}},
	{"count an infinite seq", `(count (iterate inc 0))`, lisp.InvalidArgument, lisp.Limits{}},
	{"reduce an infinite seq", `(reduce + (range))`, lisp.InvalidArgument, lisp.Limits{}},
	// Ranges walked as they are made (reduce, run!, doseq): no memory, so
	// the step limit stops a huge one.
	{"reduce over a huge range", `(reduce + (range 2000000000))`, lisp.StepLimitExceeded, lisp.Limits{MaxSteps: 1_000_000}},
	{"reduce with a function over a huge range", `(reduce max (range 2000000000))`, lisp.StepLimitExceeded, lisp.Limits{MaxSteps: 1_000_000}},
	{"doseq over a huge range", `(doseq [i (range 2000000000)] i)`, lisp.StepLimitExceeded, lisp.Limits{MaxSteps: 1_000_000}},
	{"run! over a huge float range", `(run! identity (range 0.5 2000000000))`, lisp.StepLimitExceeded, lisp.Limits{MaxSteps: 1_000_000}},
	{"nested doseq over huge ranges", `(doseq [i (range 100000) j (range 100000)] j)`, lisp.StepLimitExceeded, lisp.Limits{MaxSteps: 1_000_000}},
	{"last of an infinite seq", `(last (repeat 1))`, lisp.InvalidArgument, lisp.Limits{}},
	{"sort an infinite seq", `(sort (cycle [3 1 2]))`, lisp.InvalidArgument, lisp.Limits{}},
	{"map over only infinite seqs", `(map + (range) (range))`, lisp.InvalidArgument, lisp.Limits{}},
	{"infinite result", `(iterate inc 0)`, lisp.InvalidArgument, lisp.Limits{}},
	{"take-while that never stops", `(count (take-while pos? (iterate inc 1)))`, lisp.MemoryExceeded,
		lisp.Limits{MaxLoopIterations: -1, MaxSteps: -1}},
	{"filter that never passes", `(first (filter neg? (range)))`, lisp.Timeout, noLoopLimit},
	{"reduce that never ends", `(reduce (fn [a x] (+ a x)) 0 (range))`, lisp.Timeout, noLoopLimit},
	{"some that never finds", `(some neg? (range))`, lisp.Timeout, noLoopLimit},
	{"iterate with a slow fn", `(nth (iterate (fn [x] (loop [i 0] (if (< i 1000) (recur (inc i)) x))) 0) 100000000)`, lisp.Timeout, noLoopLimit},
	{"while that never ends", `(while true 1)`, lisp.LoopLimitExceeded, lisp.Limits{}},
	{"while until step budget", `(def a (atom 0)) (while true (swap! a inc))`, lisp.StepLimitExceeded,
		lisp.Limits{MaxLoopIterations: -1, MaxSteps: 100_000}},
	{"while until timeout", `(while (pos? 1) nil)`, lisp.Timeout, noLoopLimit},
	{"steps in a deep map chain", `(reduce (fn [a _] (mapv inc a)) (vec (range 1000)) (range 100000))`, lisp.StepLimitExceeded,
		lisp.Limits{MaxSteps: 1_000_000, MaxMemory: -1}},
	{"pmap of infinite loops", `(pmap (fn [x] (loop [i 0] (recur (inc i)))) (range 8))`, lisp.Timeout, noLoopLimit},
	{"pcalls of deep recursion", `(defn f [] (f)) (pcalls f f f)`, lisp.DepthExceeded, lisp.Limits{}},

	// Memory bombs.
	{"vec of a huge range", `(vec (range 100000000))`, lisp.MemoryExceeded, lisp.Limits{}},
	{"apply str of a huge repeat", `(apply str (repeat 100000000 "x"))`, lisp.MemoryExceeded, lisp.Limits{}},
	{"map of big vectors", `(reduce (fn [m i] (assoc m i (vec (range 1000)))) {} (range 100000))`, lisp.MemoryExceeded, lisp.Limits{}},
	{"string doubling", `(loop [s "x" i 0] (if (< i 40) (recur (str s s) (inc i)) (count s)))`, lisp.MemoryExceeded, lisp.Limits{}},
	{"join of a repeat", `(count (clojure.string/join (repeat 10000000 "abc")))`, lisp.MemoryExceeded, lisp.Limits{}},
	{"into a huge range", `(count (into [] (range 100000000)))`, lisp.MemoryExceeded, lisp.Limits{}},
	{"zipmap of huge ranges", `(count (zipmap (range 10000000) (range 10000000)))`, lisp.MemoryExceeded, lisp.Limits{}},
	{"frequencies of a huge range", `(count (frequencies (range 10000000)))`, lisp.MemoryExceeded, lisp.Limits{}},
	{"take a lot of an infinite seq", `(count (take 100000000 (range)))`, lisp.MemoryExceeded, lisp.Limits{}},
	{"repeat a lot", `(count (repeat 100000000 1))`, lisp.MemoryExceeded, lisp.Limits{}},
	{"concat the same vector many times", `(let [v (vec (range 100000))] (count (apply concat (repeat 1000 v))))`, lisp.MemoryExceeded, lisp.Limits{}},
	{"mapcat explosion", `(let [v (vec (range 100000))] (count (mapcat (fn [_] v) (range 1000))))`, lisp.MemoryExceeded, lisp.Limits{}},
	{"format with a giant width", `(count (format "%1000000000d" 1))`, lisp.MemoryExceeded, lisp.Limits{}},
	{"conj in a loop", `(loop [v [] i 0] (if (< i 10000000) (recur (conj v i) (inc i)) (count v)))`, lisp.MemoryExceeded,
		lisp.Limits{MaxLoopIterations: -1}},
	{"assoc in a loop", `(loop [m {} i 0] (if (< i 10000000) (recur (assoc m i i) (inc i)) (count m)))`, lisp.MemoryExceeded,
		lisp.Limits{MaxLoopIterations: -1, MaxMemory: 8 << 20}},
	{"vector literals in a loop", `(loop [v nil i 0] (if (< i 10000000) (recur [v i i i i i] (inc i)) 1))`, lisp.MemoryExceeded,
		lisp.Limits{MaxLoopIterations: -1}},
	{"closures in a loop", `(loop [fs [] i 0] (if (< i 10000000) (recur (conj fs (fn [] i)) (inc i)) 1))`, lisp.MemoryExceeded,
		lisp.Limits{MaxLoopIterations: -1}},
	{"replace doubling", `(loop [s "a" i 0] (if (< i 40) (recur (clojure.string/replace s "a" "aa") (inc i)) (count s)))`, lisp.MemoryExceeded, lisp.Limits{}},
	{"pr-str of shared structure", `(count (pr-str (loop [v [1] i 0] (if (< i 60) (recur [v v] (inc i)) v))))`, lisp.MemoryExceeded, lisp.Limits{MaxMemory: 4 << 20}},
	{"str of shared structure", `(count (str (loop [v [1] i 0] (if (< i 60) (recur [v v] (inc i)) v))))`, lisp.MemoryExceeded, lisp.Limits{MaxMemory: 4 << 20}},
	{"flatten of shared structure", `(count (flatten (loop [v [1] i 0] (if (< i 60) (recur [v v] (inc i)) v))))`, lisp.MemoryExceeded, lisp.Limits{MaxMemory: 4 << 20}},
	{"flatten of shared empty structure", `(count (flatten (loop [v [] i 0] (if (< i 60) (recur [v v] (inc i)) v))))`, lisp.StepLimitExceeded,
		lisp.Limits{MaxSteps: 1_000_000}},
	{"equality of shared structures", `(let [a (loop [v [1] i 0] (if (< i 60) (recur [v v] (inc i)) v)) b (loop [v [1] i 0] (if (< i 60) (recur [v v] (inc i)) v))] (= a b))`, lisp.StepLimitExceeded, lisp.Limits{}},
	{"hash of shared structure", `(count (distinct [(loop [v [1] i 0] (if (< i 60) (recur [v v] (inc i)) v)) 1]))`, lisp.StepLimitExceeded, lisp.Limits{}},
	{"sorting equal shared structures", `(let [a (loop [v [1] i 0] (if (< i 60) (recur [v v] (inc i)) v)) b (loop [v [1] i 0] (if (< i 60) (recur [v v] (inc i)) v))] (count (sort [a b])))`, lisp.StepLimitExceeded, lisp.Limits{}},
	{"sorting different shared structures is quick", `(let [a (loop [v [1] i 0] (if (< i 60) (recur [v v] (inc i)) v)) b (loop [v [2] i 0] (if (< i 60) (recur [v v] (inc i)) v))] (count (sort [a b])))`, "", lisp.Limits{}},
	{"println of shared structure", `(println (loop [v [1] i 0] (if (< i 60) (recur [v v] (inc i)) v)))`, lisp.OutputExceeded, lisp.Limits{}},
	{"memory limit set low", `(count (vec (range 100000)))`, lisp.MemoryExceeded, lisp.Limits{MaxMemory: 100_000}},

	// Deep nesting, in source and in data.
	{"deep data equality", `(let [a (reduce (fn [acc _] [acc]) [] (range 20000)) b (reduce (fn [acc _] [acc]) [] (range 20000))] (= a b))`, lisp.DepthExceeded, lisp.Limits{}},
	{"deep data hashing", `(count (distinct [(reduce (fn [acc _] [acc]) [] (range 20000)) (reduce (fn [acc _] [acc]) [] (range 20000))]))`, lisp.DepthExceeded, lisp.Limits{}},
	{"deep data in a set", `(count (set [(reduce (fn [acc _] [acc]) [] (range 20000)) (reduce (fn [acc _] [acc]) [] (range 20000))]))`, lisp.DepthExceeded, lisp.Limits{}},
	{"deep data as a map key", `(let [k (reduce (fn [acc _] [acc]) [] (range 20000)) k2 (reduce (fn [acc _] [acc]) [] (range 20000))] (get {k 1} k2))`, lisp.DepthExceeded, lisp.Limits{}},
	{"deep data sorting", `(sort [(reduce (fn [acc _] [acc]) [1] (range 20000)) (reduce (fn [acc _] [acc]) [2] (range 20000))])`, lisp.DepthExceeded, lisp.Limits{}},
	{"deep data flatten", `(flatten (reduce (fn [acc _] [acc]) [] (range 20000)))`, lisp.DepthExceeded, lisp.Limits{}},
	{"deep data assoc-in path", `(assoc-in {} (vec (range 20000)) 1)`, lisp.DepthExceeded, lisp.Limits{}},
	{"deep map data", `(let [a (reduce (fn [acc _] {:a acc}) {} (range 20000)) b (reduce (fn [acc _] {:a acc}) {} (range 20000))] (= a b))`, lisp.DepthExceeded, lisp.Limits{}},
	{"source nested 100,000 levels", strings.Repeat("(", 100000) + strings.Repeat(")", 100000), lisp.ParseError, lisp.Limits{}},
	{"source nested 1,000,000 levels", strings.Repeat("[", 1000000), lisp.ParseError, lisp.Limits{}},
	{"source of 400 nested lets", strings.Repeat("(let [x 1] ", 400) + "x" + strings.Repeat(")", 400), "", lisp.Limits{}},
	{"deeply nested fn calls in source", strings.Repeat("(inc ", 600) + "0" + strings.Repeat(")", 600), lisp.ParseError, lisp.Limits{}},
	{"nested fn calls just under the reader's limit", strings.Repeat("(inc ", 500) + "0" + strings.Repeat(")", 500), "", lisp.Limits{}},
	{"deep quoted data", "'" + strings.Repeat("[", 600) + strings.Repeat("]", 600), lisp.ParseError, lisp.Limits{}},
	{"long threading chain", "(-> 0 " + strings.Repeat("inc ", 2000) + ")", lisp.InvalidForm, lisp.Limits{}},
	{"big literal vector", "(count [" + strings.Repeat("1 ", 100000) + "])", "", lisp.Limits{}},
	{"source over the size limit", "(count [" + strings.Repeat("1 ", docSourceBytes/2+1) + "])", lisp.ParseError, lisp.Limits{}},
	{"literal data counts against memory", "(count [" + strings.Repeat("1 ", 100000) + "])", lisp.MemoryExceeded, lisp.Limits{MaxMemory: 1 << 20}},

	// Pathological comparators and sorting.
	{"comparator that errors", `(sort (fn [a b] (+ a "x")) [3 1 2])`, lisp.TypeError, lisp.Limits{}},
	{"comparator returning a string", `(sort (fn [a b] "yes") [3 1 2])`, lisp.TypeError, lisp.Limits{}},
	{"comparator that loops", `(sort (fn [a b] (loop [i 0] (recur (inc i)))) [3 1 2])`, lisp.LoopLimitExceeded, lisp.Limits{}},
	{"comparator that returns", `(sort (fn [a b] (return :escaped)) [3 1 2])`, "", lisp.Limits{}},
	{"inconsistent comparator", `(count (sort (fn [a b] (odd? a)) (range 10000)))`, "", lisp.Limits{}},
	{"slow comparator on big input", `(count (sort (fn [a b] (loop [i 0] (if (< i 5000) (recur (inc i)) (< a b)))) (vec (range 100000))))`, lisp.Timeout,
		lisp.Limits{Timeout: 200 * time.Millisecond, MaxSteps: -1}},
	{"sort a million", `(count (sort (vec (range 1000000 0 -1))))`, lisp.Timeout, lisp.Limits{Timeout: 5 * time.Millisecond, MaxMemory: 64 << 20}},
	{"sort-by with a failing key", `(sort-by (fn [x] (inc x)) [1 :a])`, lisp.TypeError, lisp.Limits{}},

	// Regular expressions.
	// Lookaround and backreferences run on the backtracking matcher:
	// a catastrophic pattern is stopped by the step limit, a group
	// repeated too deep by the depth bound, a catastrophic lookbehind too.
	{"catastrophic backtracking hits the step limit", `(re-find #"(a|aa)+(?=c)" (apply str (repeat 60 "a")))`, lisp.StepLimitExceeded, lisp.Limits{}},
	{"catastrophic backreference hits the step limit", `(re-find #"(a+)+\1c" (apply str (repeat 60 "a")))`, lisp.StepLimitExceeded, lisp.Limits{}},
	{"catastrophic backtracking hits the deadline", `(re-find #"(a|aa)+(?=c)" (apply str (repeat 80 "a")))`, lisp.Timeout,
		lisp.Limits{Timeout: 50 * time.Millisecond, MaxSteps: -1}},
	{"a group repeated past the depth bound", `(re-find #"(a|b)*(?=c)" (apply str (repeat 60000 "a")))`, lisp.DepthExceeded, lisp.Limits{}},
	{"lookbehind over a long text", `(count (re-seq #"(?<=a{0,1000})b" (apply str (repeat 20000 "ab"))))`, "", lisp.Limits{}},
	{"catastrophic pattern is linear", `(re-find #"(a+)+$" (apply str (concat (repeat 30000 "a") ["!"])))`, "", lisp.Limits{}},
	{"regex over a big string times out", `(count (re-seq #"x" (apply str (repeat 3000000 "ab"))))`, lisp.Timeout,
		lisp.Limits{Timeout: 30 * time.Millisecond, MaxSteps: -1, MaxMemory: -1}},
	{"anchored regex over a big string", `(re-seq #"^a" (apply str (repeat 300000 "ab")))`, "", lisp.Limits{MaxMemory: -1}},
	{"word boundaries over a big string", `(count (re-seq #"\bb" (apply str (repeat 300000 "a b"))))`, "", lisp.Limits{MaxMemory: -1}},
	{"huge pattern", `(re-pattern (apply str (repeat 10000 "a")))`, lisp.InvalidArgument, lisp.Limits{}},
	{"invalid pattern", `(re-pattern "[")`, lisp.InvalidArgument, lisp.Limits{}},

	// Output floods.
	{"println flood", `(dotimes [i 100000] (println "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"))`, lisp.OutputExceeded, lisp.Limits{}},
	{"print flood without newlines", `(dotimes [i 100000] (print "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"))`, lisp.OutputExceeded, lisp.Limits{}},
	{"println of a big value", `(println (vec (range 100000)))`, lisp.OutputExceeded, lisp.Limits{}},
	{"prn flood from pmap", `(pmap (fn [i] (dotimes [j 10000] (prn i j))) (range 8))`, lisp.OutputExceeded, lisp.Limits{}},
	{"low output limit", `(println "hello world")`, lisp.OutputExceeded, lisp.Limits{MaxOutputBytes: 5}},

	// Arithmetic.
	{"multiplication overflow", `(* 9223372036854775807 2)`, lisp.ArithmeticError, lisp.Limits{}},
	{"addition overflow", `(+ 9223372036854775807 1)`, lisp.ArithmeticError, lisp.Limits{}},
	{"subtraction overflow", `(- -9223372036854775808 1)`, lisp.ArithmeticError, lisp.Limits{}},
	{"negation overflow", `(- -9223372036854775808)`, lisp.ArithmeticError, lisp.Limits{}},
	{"abs overflow", `(abs -9223372036854775808)`, lisp.ArithmeticError, lisp.Limits{}},
	{"factorial overflow", `(reduce * (range 1 30))`, lisp.ArithmeticError, lisp.Limits{}},
	{"sum overflow", `(reduce + [9223372036854775807 1])`, lisp.ArithmeticError, lisp.Limits{}},
	{"integer division by zero", `(quot 1 0)`, lisp.ArithmeticError, lisp.Limits{}},
	{"NaN to integer", `(long (/ 0.0 0.0))`, lisp.ArithmeticError, lisp.Limits{}},
	{"huge float to integer", `(int 1e300)`, lisp.ArithmeticError, lisp.Limits{}},

	// Escapes: nothing reaches the host.
	{"eval", `(eval '(+ 1 2))`, lisp.UnboundVar, lisp.Limits{}},
	{"slurp", `(slurp "/etc/passwd")`, lisp.UnboundVar, lisp.Limits{}},
	{"java interop", `(.exec (Runtime/getRuntime) "ls")`, lisp.InvalidForm, lisp.Limits{}},
	{"System/exit", `(System/exit 0)`, lisp.UnboundVar, lisp.Limits{}},
	{"getenv", `(System/getenv "HOME")`, lisp.UnboundVar, lisp.Limits{}},
	{"an agent whose action sends itself for ever", `(def a (agent 0)) (defn f [x] (send a f) (inc x)) (send a f) (await a)`, lisp.StepLimitExceeded, lisp.Limits{MaxSteps: 100_000}},
	{"a transaction that never commits", `(def r (ref 0)) (dosync (loop [] (alter r inc) (recur)))`, lisp.StepLimitExceeded, lisp.Limits{MaxSteps: 100_000, MaxLoopIterations: -1}},
	{"a transaction that writes a million refs", `(dosync (dotimes [i 900000] (ref-set (ref i) 0)))`, lisp.MemoryExceeded, lisp.Limits{MaxMemory: 1 << 20}},
	{"a future runs in place, under the step limit", `@(future (loop [] (recur)))`, lisp.StepLimitExceeded, lisp.Limits{MaxSteps: 10_000, MaxLoopIterations: -1}},
	{"a delay that derefs itself", `(def d (delay @d)) @d`, lisp.InvalidArgument, lisp.Limits{}},
	{"watches added one by one cost their copies", `(def a (atom 0)) (dotimes [i 100000] (add-watch a i (fn [& _]))) 1`, lisp.MemoryExceeded, lisp.Limits{}},
	{"a java.util list grown without end", `(def l (java.util.ArrayList.)) (run! #(.add l %) (range 100000000)) 1`, lisp.MemoryExceeded, lisp.Limits{}},
	{"a java.util list that doubles itself", `(def l (java.util.ArrayList. [1])) (run! (fn [_] (.addAll l l)) (range 64)) 1`, lisp.MemoryExceeded, lisp.Limits{}},
	{"a java.util map grown without end", `(def m (java.util.HashMap.)) (run! #(.put m % %) (range 100000000)) 1`, lisp.MemoryExceeded, lisp.Limits{}},
	{"inserts at the front of a long java.util list", `(def l (java.util.ArrayList. (range 100000))) (run! #(.add l 0 %) (range 100000)) 1`, lisp.StepLimitExceeded, lisp.Limits{}},
	// Comparing elements never holds a list's lock: a list that holds
	// itself, searched for itself, would otherwise wait for ever.
	{"a java.util list that holds itself, searched for itself", `(def l (java.util.ArrayList. [1])) (.add l l) [(.contains l l) (.indexOf l l) (.lastIndexOf l l) (.remove l l) (count l)]`, "", lisp.Limits{}},
	// An argument that is not an integer is described in its error, and
	// describing a java.util collection reads it: never under its lock
	// (the list itself as its own index waited for ever; fuzzing found it).
	{"a java.util list as its own index to .add", `(def a (java.util.ArrayList.)) (.add a a) (.add a a 1)`, lisp.TypeError, lisp.Limits{}},
	{"a java.util list as its own index to .get, .set and .subList", `(def a (java.util.ArrayList.)) (.add a a) (def b (java.util.ArrayList.)) (.add b a) [(try (.get a a) (catch Exception e 1)) (try (.set a a 1) (catch Exception e 2)) (try (.subList a a 1) (catch Exception e 3)) (try (.get b a) (catch Exception e 4))]`, "", lisp.Limits{}},
	// A PriorityQueue never calls its comparator under its lock: a
	// comparator that reads, changes or holds the queue ends, as does a
	// queue that holds itself.
	{"a comparator that adds to its own queue", `(def q (atom nil)) (reset! q (java.util.PriorityQueue. (fn [a b] (.add @q 0) (compare a b)))) (.add @q 1) (.add @q 2)`, lisp.DepthExceeded, lisp.Limits{}},
	{"a comparator that polls its own queue", `(def q (atom nil)) (reset! q (java.util.PriorityQueue. (fn [a b] (.poll @q) (compare a b)))) (.add @q 1) (.add @q 2) (.add @q 3)`, "", lisp.Limits{}},
	{"a comparator that reads its own queue", `(def q (atom nil)) (reset! q (java.util.PriorityQueue. (fn [a b] (+ (.size @q) (count (vec @q))) (compare a b)))) (doseq [x [3 1 2]] (.add @q x)) [(.poll @q) (.peek @q) (str @q)]`, "", lisp.Limits{}},
	{"a priority queue that holds itself", `(def q (java.util.PriorityQueue.)) (.add q q) (.add q q) [(count q) (.contains q q) (str q) (.remove q q) (count q)]`, "", lisp.Limits{}},
	{"a comparator that throws", `(def q (java.util.PriorityQueue. (fn [a b] (throw (ex-info "no" {}))))) (.add q 1) (.add q 2)`, lisp.Thrown, lisp.Limits{}},
	{"a comparator that loops", `(def q (java.util.PriorityQueue. (fn [a b] (loop [] (recur))))) (.add q 1) (.add q 2)`, lisp.LoopLimitExceeded, lisp.Limits{}},
	// clojure.zip over a tree that never ends, and formats asked for
	// every digit they may show, stop at the limits.
	{"a zipper walk down an endless tree", `(require '[clojure.zip :as z]) (def loc (z/zipper (constantly true) (fn [n] [n n]) (fn [n c] n) 1)) (count (z/path (nth (iterate z/down loc) 100000)))`, lisp.MemoryExceeded, lisp.Limits{}},
	{"a zipper next over an endless tree", `(require '[clojure.zip :as z]) (z/node (nth (iterate z/next (z/zipper (constantly true) (fn [n] [(inc n)]) (fn [n c] n) 0)) 1000000))`, lisp.MemoryExceeded, lisp.Limits{}},
	{"a DecimalFormat asked for every digit", `(let [df (java.text.DecimalFormat. "0")] (.setMinimumFractionDigits df 100000000) (.setMinimumIntegerDigits df 100000000) (count (.format df 1e308)))`, "", lisp.Limits{}},
	{"a BigDecimal exponent far out, added", `(+ 1e999999999M 1M)`, lisp.ArithmeticError, lisp.Limits{}},
	{"a BigDecimal exponent far out, printed plain", `(.toPlainString 1e-999999999M)`, lisp.ArithmeticError, lisp.Limits{}},
	{"a BigDecimal exponent far out, formatted", `(format "%.2f" 1e999999999M)`, lisp.ArithmeticError, lisp.Limits{}},
	{"BigDecimal exponents far out, compared, hashed, printed", `[(= 1e999999999M 1e999999998M) (< 1e-999999999M 1M) (str 1e999999999M) (double 1e999999999M) (count #{1e999999999M 1e-999999999M 1000e999999996M}) (int 1e-999999999M)]`, "", lisp.Limits{}},
	{"a BigDecimal precision far out", `(with-precision 100000000 (/ 1M 3))`, lisp.ArithmeticError, lisp.Limits{}},
	{"a BigDecimal power far out", `(.pow 10M 999999)`, lisp.ArithmeticError, lisp.Limits{}},
	{"BigDecimal products growing past the limit", `(reduce * (repeat 3000 123456789012345678901234567890.123456789M))`, lisp.MemoryExceeded, lisp.Limits{}},
	{"BigDecimal divisions at the largest precision", `(with-precision 100000 (reduce / 1M (repeat 50 3M)))`, "", lisp.Limits{}},
	{"a BigDecimal scale far out", `[(.setScale 1.5M 2000000000 RoundingMode/HALF_UP) (.setScale 1.5M -2000000000 RoundingMode/HALF_UP) (.divide 1M 3M 2000000000 RoundingMode/UP)]`, lisp.ArithmeticError, lisp.Limits{}},
	{"an array and a builder as their own index", `(def a (object-array 1)) (aset a 0 a) (def sb (StringBuilder. "x")) [(try (aset a a 1) (catch Exception e 1)) (try (aget a a) (catch Exception e 2)) (try (.insert sb sb "y") (catch Exception e 3)) (try (.charAt sb sb) (catch Exception e 4))]`, "", lisp.Limits{}},
	{"two java.util lists that hold each other, searched", `(def a (java.util.ArrayList.)) (def b (java.util.ArrayList.)) (.add a b) (.add b a) [(.contains a b) (.indexOf b a) (.remove a b)]`, "", lisp.Limits{}},
	{"two java.util lists that hold each other, compared", `(def l (java.util.ArrayList.)) (def m (java.util.ArrayList.)) (.add l m) (.add m l) (= l m)`, lisp.DepthExceeded, lisp.Limits{}},
	{"clojure.data/diff of values sharing their parts doubled", `(let [v (reduce (fn [x _] [x x]) 1 (range 60))] (clojure.data/diff v (reduce (fn [x _] [x x]) 2 (range 60))))`, lisp.MemoryExceeded, lisp.Limits{}},
	{"a chain of delays runs into the depth limit", `(def d (reduce (fn [d _] (delay (inc @d))) (delay 0) (range 10000))) @d`, lisp.DepthExceeded, lisp.Limits{}},
	{"unknown namespace", `(clojure.java.shell/sh "ls")`, lisp.UnboundVar, lisp.Limits{}},
	{"redefine a special form", `(def if -)`, lisp.CannotShadowBuiltin, lisp.Limits{}},
	{"redefine return", `(defn return [x] x)`, lisp.CannotShadowBuiltin, lisp.Limits{}},
	{"memory/put on a reserved name", `(memory/put :fail 1)`, lisp.CannotShadowBuiltin, lisp.Limits{}},
	{"calling a string", `("rm -rf" 1)`, lisp.NotCallable, lisp.Limits{}},

	// Misbehaving tools.
	{"tool panics", `(tool/panic {})`, lisp.ToolError, lisp.Limits{}},
	{"tool fails", `(tool/fail {})`, lisp.ToolError, lisp.Limits{}},
	{"tool blocks", `(tool/block {})`, lisp.Timeout, lisp.Limits{Timeout: 50 * time.Millisecond}},
	{"tool ignores its context", `(tool/stubborn {})`, lisp.Timeout, lisp.Limits{Timeout: 50 * time.Millisecond}},
	{"tool returns a giant value", `(count (tool/giant {}))`, "", lisp.Limits{}},
	{"tool returns a channel", `(tool/chan {})`, lisp.ToolError, lisp.Limits{}},
	{"tool called in a loop", `(loop [i 0] (tool/ok {}) (recur (inc i)))`, lisp.ToolLimitExceeded, lisp.Limits{}},
	{"tool calls from pmap", `(pmap (fn [i] (tool/ok {})) (range 5000))`, lisp.ToolLimitExceeded, lisp.Limits{}},
	{"unknown tool", `(tool/rm {:path "/"})`, lisp.UnknownTool, lisp.Limits{}},
	{"tool limit set low", `[(tool/ok {}) (tool/ok {})]`, lisp.ToolLimitExceeded, lisp.Limits{MaxToolCalls: 1}},
	{"pmap of blocking tools", `(pmap (fn [i] (tool/block {})) (range 8))`, lisp.Timeout, lisp.Limits{Timeout: 50 * time.Millisecond}},

	// Builtins that allocate or loop in proportion to their input (audit).
	// Most keep what they build alive across many calls, so that a builtin
	// that does not charge its result would end without an error; the
	// others build one result far beyond the budget, which must be charged
	// before it is allocated, or walk their input in a loop whose steps
	// must be counted.
	{"seq of a map's entries, kept", `(let [m (zipmap (range 1000) (range 1000))] (count (reduce (fn [acc _] (conj acc (seq m))) [] (range 1000))))`, lisp.MemoryExceeded,
		lisp.Limits{MaxMemory: 4 << 20}},
	{"entries of a map, kept", `(let [m (zipmap (range 1000) (range 1000))] (count (reduce (fn [acc _] (conj acc (entries m))) [] (range 1000))))`, lisp.MemoryExceeded,
		lisp.Limits{MaxMemory: 4 << 20}},
	{"seq of a string's characters, kept", `(let [s (apply str (repeat 10000 "a"))] (count (reduce (fn [acc _] (conj acc (seq s))) [] (range 1000))))`, lisp.MemoryExceeded,
		lisp.Limits{MaxMemory: 4 << 20}},
	{"seq of a set's elements, kept", `(let [s (set (range 1000))] (count (reduce (fn [acc _] (conj acc (seq s))) [] (range 1000))))`, lisp.MemoryExceeded,
		lisp.Limits{MaxMemory: 4 << 20}},
	{"keys of a map, kept", `(let [m (zipmap (range 1000) (range 1000))] (count (reduce (fn [acc _] (conj acc (keys m))) [] (range 1000))))`, lisp.MemoryExceeded,
		lisp.Limits{MaxMemory: 4 << 20}},
	{"vals of a map, kept", `(let [m (zipmap (range 1000) (range 1000))] (count (reduce (fn [acc _] (conj acc (vals m))) [] (range 1000))))`, lisp.MemoryExceeded,
		lisp.Limits{MaxMemory: 4 << 20}},
	{"rseq, kept", `(let [v (vec (range 1000))] (count (reduce (fn [acc _] (conj acc (rseq v))) [] (range 1000))))`, lisp.MemoryExceeded,
		lisp.Limits{MaxMemory: 4 << 20}},
	{"vector of spread arguments, kept", `(let [v (vec (range 1000))] (count (reduce (fn [acc _] (conj acc (apply vector v))) [] (range 1000))))`, lisp.MemoryExceeded,
		lisp.Limits{MaxMemory: 4 << 20}},
	{"hash-map of spread arguments, kept", `(let [v (vec (range 1000))] (count (reduce (fn [acc _] (conj acc (apply hash-map v))) [] (range 1000))))`, lisp.MemoryExceeded,
		lisp.Limits{MaxMemory: 4 << 20}},
	{"hash-set of spread arguments, kept", `(let [v (vec (range 1000))] (count (reduce (fn [acc _] (conj acc (apply hash-set v))) [] (range 1000))))`, lisp.MemoryExceeded,
		lisp.Limits{MaxMemory: 4 << 20}},
	{"zipmap of vectors, kept", `(let [v (vec (range 1000))] (count (reduce (fn [acc _] (conj acc (zipmap v v))) [] (range 1000))))`, lisp.MemoryExceeded,
		lisp.Limits{MaxMemory: 4 << 20}},
	{"select-keys of many keys, kept", `(let [v (vec (range 1000)) m (zipmap v v)] (count (reduce (fn [acc _] (conj acc (select-keys m v))) [] (range 1000))))`, lisp.MemoryExceeded,
		lisp.Limits{MaxMemory: 4 << 20}},
	{"update-vals, kept", `(let [m (zipmap (range 1000) (range 1000))] (count (reduce (fn [acc _] (conj acc (update-vals m inc))) [] (range 1000))))`, lisp.MemoryExceeded,
		lisp.Limits{MaxMemory: 4 << 20}},
	{"update-keys, kept", `(let [m (zipmap (range 1000) (range 1000))] (count (reduce (fn [acc _] (conj acc (update-keys m inc))) [] (range 1000))))`, lisp.MemoryExceeded,
		lisp.Limits{MaxMemory: 4 << 20}},
	{"map-invert, kept", `(let [m (zipmap (range 1000) (range 1000))] (count (reduce (fn [acc _] (conj acc (clojure.set/map-invert m))) [] (range 1000))))`, lisp.MemoryExceeded,
		lisp.Limits{MaxMemory: 4 << 20}},
	{"rename-keys of many keys, kept", `(let [m (zipmap (range 200) (range 200)) r (zipmap (range 200) (range 200 400))] (count (reduce (fn [acc _] (conj acc (clojure.set/rename-keys m r))) [] (range 1000))))`, lisp.MemoryExceeded,
		lisp.Limits{MaxMemory: 1 << 20}},
	{"union, kept", `(let [s (set (range 1000))] (count (reduce (fn [acc _] (conj acc (clojure.set/union s #{-1}))) [] (range 1000))))`, lisp.MemoryExceeded,
		lisp.Limits{MaxMemory: 4 << 20}},
	{"intersection, kept", `(let [s (set (range 1000))] (count (reduce (fn [acc _] (conj acc (clojure.set/intersection s s))) [] (range 1000))))`, lisp.MemoryExceeded,
		lisp.Limits{MaxMemory: 4 << 20}},
	{"clojure.set/select, kept", `(let [s (set (range 1000))] (count (reduce (fn [acc _] (conj acc (clojure.set/select number? s))) [] (range 1000))))`, lisp.MemoryExceeded,
		lisp.Limits{MaxMemory: 4 << 20}},
	{"assoc-in along a long path, kept", `(let [p (vec (range 200))] (count (reduce (fn [acc _] (conj acc (assoc-in {} p 1))) [] (range 1000))))`, lisp.MemoryExceeded,
		lisp.Limits{MaxMemory: 1 << 20}},
	{"update-in along a long path, kept", `(let [p (vec (range 200))] (count (reduce (fn [acc _] (conj acc (update-in {} p identity))) [] (range 1000))))`, lisp.MemoryExceeded,
		lisp.Limits{MaxMemory: 1 << 20}},
	{"frequencies, kept", `(let [v (vec (range 1000))] (count (reduce (fn [acc _] (conj acc (frequencies v))) [] (range 1000))))`, lisp.MemoryExceeded,
		lisp.Limits{MaxMemory: 4 << 20}},
	{"group-by into many groups, kept", `(let [v (vec (range 1000))] (count (reduce (fn [acc _] (conj acc (group-by identity v))) [] (range 200))))`, lisp.MemoryExceeded,
		lisp.Limits{MaxMemory: 8 << 20}},
	{"distinct, kept", `(let [v (vec (range 1000))] (count (reduce (fn [acc _] (conj acc (distinct v))) [] (range 150))))`, lisp.MemoryExceeded,
		lisp.Limits{MaxMemory: 4 << 20}},
	{"partition into ones, kept", `(let [v (vec (range 1000))] (count (reduce (fn [acc _] (conj acc (partition 1 v))) [] (range 150))))`, lisp.MemoryExceeded,
		lisp.Limits{MaxMemory: 4 << 20}},
	{"partition-by every element, kept", `(let [v (vec (range 1000))] (count (reduce (fn [acc _] (conj acc (partition-by identity v))) [] (range 150))))`, lisp.MemoryExceeded,
		lisp.Limits{MaxMemory: 4 << 20}},
	{"cycle of a vector, kept", `(let [v (vec (range 1000))] (count (reduce (fn [acc _] (conj acc (cycle v))) [] (range 1000))))`, lisp.MemoryExceeded,
		lisp.Limits{MaxMemory: 4 << 20}},
	{"replace in a vector, kept", `(let [v (vec (range 1000))] (count (reduce (fn [acc _] (conj acc (replace {1 2} v))) [] (range 1000))))`, lisp.MemoryExceeded,
		lisp.Limits{MaxMemory: 4 << 20}},
	{"into a vector through a transducer, kept", `(let [v (vec (range 1000))] (count (reduce (fn [acc _] (conj acc (into v (map inc) [1]))) [] (range 1000))))`, lisp.MemoryExceeded,
		lisp.Limits{MaxMemory: 4 << 20}},
	{"format of a long text, kept", `(let [f (apply str (repeat 10000 "x"))] (count (reduce (fn [acc _] (conj acc (format f))) [] (range 1000))))`, lisp.MemoryExceeded,
		lisp.Limits{MaxMemory: 4 << 20}},
	{"re-quote-replacement, kept", `(let [s (apply str (repeat 10000 "$"))] (count (reduce (fn [acc _] (conj acc (clojure.string/re-quote-replacement s))) [] (range 1000))))`, lisp.MemoryExceeded,
		lisp.Limits{MaxMemory: 4 << 20}},
	{"rest of a string destructured, kept", `(let [s (apply str (repeat 10000 "a"))] (count (reduce (fn [acc _] (conj acc (let [[c & r] s] r))) [] (range 1000))))`, lisp.MemoryExceeded,
		lisp.Limits{MaxMemory: 4 << 20}},
	{"keyword arguments from a big seq", `(let [v (seq (range 10000))] (reduce (fn [acc _] (let [{:keys [a]} v] acc)) 0 (range 1000)))`, lisp.MemoryExceeded,
		lisp.Limits{MaxMemory: 4 << 20}},
	{"into a map of many maps", `(let [m (zipmap (range 1000) (range 1000))] (count (into {} (repeat 1000 m))))`, lisp.MemoryExceeded,
		lisp.Limits{MaxMemory: 4 << 20}},
	{"conj of many maps onto a map", `(let [m (zipmap (range 200) (range 200))] (count (apply conj {} (repeat 1000 m))))`, lisp.MemoryExceeded,
		lisp.Limits{MaxMemory: 1 << 20}},
	{"into a map of many maps through a transducer", `(let [m (zipmap (range 1000) (range 1000))] (count (into {} (map identity) (repeat 1000 m))))`, lisp.MemoryExceeded,
		lisp.Limits{MaxMemory: 4 << 20}},
	{"interleave of many copies", `(let [v (vec (range 1000))] (count (apply interleave (repeat 3000 v))))`, lisp.MemoryExceeded,
		lisp.Limits{MaxMemory: 16 << 20}},
	{"format of a huge width on a percent sign", `(count (format "%1000000000%"))`, lisp.MemoryExceeded,
		lisp.Limits{MaxMemory: 16 << 20}},
	{"reverse, kept", `(let [v (vec (range 1000))] (count (reduce (fn [acc _] (conj acc (reverse v))) [] (range 1000))))`, lisp.MemoryExceeded,
		lisp.Limits{MaxMemory: 4 << 20}},
	{"interpose, kept", `(let [v (vec (range 1000))] (count (reduce (fn [acc _] (conj acc (interpose 0 v))) [] (range 1000))))`, lisp.MemoryExceeded,
		lisp.Limits{MaxMemory: 4 << 20}},
	{"map-indexed, kept", `(let [v (vec (range 1000))] (count (reduce (fn [acc _] (conj acc (map-indexed vector v))) [] (range 1000))))`, lisp.MemoryExceeded,
		lisp.Limits{MaxMemory: 4 << 20}},
	{"keep, kept", `(let [v (vec (range 1000))] (count (reduce (fn [acc _] (conj acc (keep identity v))) [] (range 1000))))`, lisp.MemoryExceeded,
		lisp.Limits{MaxMemory: 4 << 20}},
	{"reductions, kept", `(let [v (vec (range 1000))] (count (reduce (fn [acc _] (conj acc (reductions + v))) [] (range 1000))))`, lisp.MemoryExceeded,
		lisp.Limits{MaxMemory: 4 << 20}},
	{"pluck, kept", `(let [v (mapv (fn [i] {:a i}) (range 1000))] (count (reduce (fn [acc _] (conj acc (pluck :a v))) [] (range 1000))))`, lisp.MemoryExceeded,
		lisp.Limits{MaxMemory: 4 << 20}},
	{"take-nth, kept", `(let [v (vec (range 1000))] (count (reduce (fn [acc _] (conj acc (take-nth 1 v))) [] (range 1000))))`, lisp.MemoryExceeded,
		lisp.Limits{MaxMemory: 4 << 20}},
	{"dedupe, kept", `(let [v (vec (range 1000))] (count (reduce (fn [acc _] (conj acc (dedupe v))) [] (range 1000))))`, lisp.MemoryExceeded,
		lisp.Limits{MaxMemory: 4 << 20}},
	{"cons, kept", `(let [v (vec (range 1000))] (count (reduce (fn [acc _] (conj acc (cons 0 v))) [] (range 1000))))`, lisp.MemoryExceeded,
		lisp.Limits{MaxMemory: 4 << 20}},
	{"map over several collections, kept", `(let [v (vec (range 1000))] (count (reduce (fn [acc _] (conj acc (map + v v))) [] (range 1000))))`, lisp.MemoryExceeded,
		lisp.Limits{MaxMemory: 4 << 20}},
	{"sort-by, kept", `(let [v (vec (range 1000))] (count (reduce (fn [acc _] (conj acc (sort-by - v))) [] (range 1000))))`, lisp.MemoryExceeded,
		lisp.Limits{MaxMemory: 4 << 20}},
	{"count of a long string, repeated", `(let [s (apply str (repeat 10000 "a"))] (reduce (fn [a _] (+ a (count s))) 0 (range 1000)))`, lisp.StepLimitExceeded,
		lisp.Limits{MaxSteps: 1_000_000}},
	// A range an early-stopping consumer walks is lazy; walked to its end,
	// each element is counted.
	{"some over a long range that never stops early", `(some neg? (range 100000000))`, lisp.StepLimitExceeded,
		lisp.Limits{MaxSteps: 1_000_000}},
	{"not-any? over ranges, repeated", `(count (filter (fn [n] (not-any? #(= % -1) (range n))) (range 5000)))`, lisp.StepLimitExceeded,
		lisp.Limits{MaxSteps: 1_000_000}},
	// An ASCII string's prefix is scanned as bytes, a step per 16; other
	// text is walked a step per character.
	{"nth of a long string, repeated", `(let [s (apply str (repeat 10000 "a"))] (reduce (fn [a _] (nth s 9999)) 0 (range 2000)))`, lisp.StepLimitExceeded,
		lisp.Limits{MaxSteps: 1_000_000}},
	{"get of a long string, repeated", `(let [s (apply str (repeat 10000 "a"))] (reduce (fn [a _] (get s 9999)) 0 (range 2000)))`, lisp.StepLimitExceeded,
		lisp.Limits{MaxSteps: 1_000_000}},
	{"nth of a long non-ASCII string, repeated", `(let [s (apply str (repeat 10000 "é"))] (reduce (fn [a _] (nth s 9999)) 0 (range 1000)))`, lisp.StepLimitExceeded,
		lisp.Limits{MaxSteps: 1_000_000}},
	{"contains? on a vector, repeated", `(let [v (vec (range 10000))] (reduce (fn [a _] (contains? v -1)) 0 (range 1000)))`, lisp.StepLimitExceeded,
		lisp.Limits{MaxSteps: 1_000_000}},
	{"filter with a builtin predicate, repeated", `(let [v (vec (range 10000))] (reduce (fn [a _] (count (filter nil? v))) 0 (range 1000)))`, lisp.StepLimitExceeded,
		lisp.Limits{MaxSteps: 1_000_000}},
	{"where in over a big vector", `(let [ids (vec (range 2000)) rows (mapv (fn [i] {:id (- -1 i)}) (range 2000))] (count (filter (where :id in ids) rows)))`, lisp.StepLimitExceeded,
		lisp.Limits{MaxSteps: 1_000_000}},
	{"reduce-kv with a builtin, repeated", `(let [m (zipmap (range 10000) (range 10000))] (reduce (fn [a _] (reduce-kv max 0 m)) 0 (range 1000)))`, lisp.StepLimitExceeded,
		lisp.Limits{MaxSteps: 1_000_000}},
	{"subset? of big sets, repeated", `(let [s (set (range 2000))] (reduce (fn [a _] (clojure.set/subset? s s)) 0 (range 1000)))`, lisp.StepLimitExceeded,
		lisp.Limits{MaxSteps: 1_000_000}},
	{"difference of big sets, repeated", `(let [s (set (range 500))] (reduce (fn [a _] (clojure.set/difference s s)) 0 (range 1000)))`, lisp.StepLimitExceeded,
		lisp.Limits{MaxSteps: 100_000}},
	{"merge of big maps, repeated", `(let [m (zipmap (range 2000) (range 2000))] (count (reduce (fn [a _] (merge m m)) nil (range 1000))))`, lisp.StepLimitExceeded,
		lisp.Limits{MaxSteps: 200_000, MaxMemory: -1}},
	{"project on many keys", `(let [rows (set (map (fn [i] {:a i}) (range 1000))) ks (vec (range 2000))] (count (clojure.set/project rows ks)))`, lisp.StepLimitExceeded,
		lisp.Limits{MaxSteps: 1_000_000}},
	{"repeat counts its elements", `(count (repeat 1000000 1))`, lisp.StepLimitExceeded,
		lisp.Limits{MaxSteps: 100_000, MaxMemory: 64 << 20}},
	{"range counts its elements", `(count (range 1000000))`, lisp.StepLimitExceeded,
		lisp.Limits{MaxSteps: 100_000, MaxMemory: 64 << 20}},
	{"nth far into an infinite sequence keeps nothing", `(nth (iterate inc 0) 100000000)`, lisp.StepLimitExceeded,
		lisp.Limits{MaxSteps: 2_000_000, MaxMemory: 1 << 20}},

	// Lists.
	{"a list growing forever", `(loop [l '()] (recur (conj l 1)))`, lisp.MemoryExceeded,
		lisp.Limits{MaxLoopIterations: -1, MaxSteps: -1}},
	{"conj onto one big list again and again copies, charged", `(let [l (into '() (range 10000))] (count (reduce (fn [acc i] (conj acc (conj l i))) [] (range 100000))))`, lisp.MemoryExceeded,
		lisp.Limits{}},
	{"into a list again and again copies, charged", `(let [l (into '() (range 10000))] (count (reduce (fn [acc i] (conj acc (into l [i i]))) [] (range 100000))))`, lisp.MemoryExceeded,
		lisp.Limits{}},
	{"cons onto an infinite sequence stays lazy", `(count (cons 1 (range)))`, lisp.InvalidArgument, lisp.Limits{}},
	{"list* onto an infinite sequence", `(list* 1 (range))`, lisp.InvalidArgument, lisp.Limits{}},
	{"equality of deeply nested lists", `(let [a (reduce (fn [acc _] (list acc)) '() (range 20000)) b (reduce (fn [acc _] (list acc)) '() (range 20000))] (= a b))`, lisp.DepthExceeded, lisp.Limits{}},
	{"equality of shared lists", `(let [a (loop [v '(1) i 0] (if (< i 60) (recur (list v v) (inc i)) v)) b (loop [v '(1) i 0] (if (< i 60) (recur (list v v) (inc i)) v))] (= a b))`, lisp.StepLimitExceeded, lisp.Limits{}},
	{"hash of shared lists", `(count (distinct [(loop [v '(1) i 0] (if (< i 60) (recur (cons v (list v)) (inc i)) v)) 1]))`, lisp.StepLimitExceeded, lisp.Limits{}},
	{"pr-str of shared lists", `(count (pr-str (loop [v '(1) i 0] (if (< i 60) (recur (conj (list v) v) (inc i)) v))))`, lisp.MemoryExceeded, lisp.Limits{MaxMemory: 4 << 20}},
	{"a stack walked with pop and peek costs a step per element", `(loop [s (into '() (range 1000000)) n 0] (if (empty? s) n (recur (pop s) (+ n (peek s)))))`, lisp.StepLimitExceeded,
		lisp.Limits{MaxSteps: 500_000, MaxLoopIterations: -1, MaxMemory: 256 << 20}},
	{"a derive chain grows the hierarchy quadratically: charged per entry", `(reduce (fn [h i] (derive h (keyword (str "k" (inc i))) (keyword (str "k" i)))) (make-hierarchy) (range 20000))`, lisp.MemoryExceeded, lisp.Limits{}},
	{"a derive chain under a step budget", `(reduce (fn [h i] (derive h (keyword (str "k" (inc i))) (keyword (str "k" i)))) (make-hierarchy) (range 20000))`, lisp.StepLimitExceeded, lisp.Limits{MaxSteps: 1_000_000, MaxMemory: 1 << 30}},
	{"a protocol method that calls itself on its argument", `(defprotocol P (m [x])) (extend-protocol P Object (m [x] (m x))) (m 1)`, lisp.DepthExceeded, lisp.Limits{}},
	{"a reify whose method calls itself", `(defprotocol P (m [x])) (m (reify P (m [this] (m this))))`, lisp.DepthExceeded, lisp.Limits{}},
	{"a BigInt power past the bound is refused before it is computed", `(.pow (biginteger 7) 999999999)`, lisp.ArithmeticError, lisp.Limits{}},
	{"squaring a BigInt without end", `(loop [x 2N] (recur (*' x x)))`, lisp.ArithmeticError, lisp.Limits{}},
	{"a factorial of 200,000 is charged by the size of each product", `(count (str (reduce *' (range 1 200000))))`, lisp.MemoryExceeded, lisp.Limits{}},
	{"adding huge BigInts costs steps by their words", `(reduce +' (repeat 1000000 (.shiftLeft (biginteger 1) 1000000)))`, lisp.StepLimitExceeded,
		lisp.Limits{MaxSteps: 1_000_000, MaxMemory: 1 << 30}},
	{"a BigInt from a string of a million digits", `(bigint (apply str (repeat 1000000 "7")))`, lisp.ArithmeticError, lisp.Limits{MaxMemory: 1 << 30}},
	{"symbols as keys of a big map", `(count (reduce (fn [m i] (assoc m (symbol (str "s" i)) i)) {} (range 1000000)))`, lisp.StepLimitExceeded,
		lisp.Limits{MaxSteps: 1_000_000, MaxMemory: 256 << 20}},
	// Arrays/deepToString walks nested arrays: a chain deeper than the
	// data walks allow is an error, not a Go stack that grows unbounded;
	// a self-referencing array is written [...], once.
	{"deepToString of a 20,000-deep chain of arrays", `(java.util.Arrays/deepToString (reduce (fn [acc _] (let [x (object-array 1)] (aset x 0 acc) x)) (object-array 1) (range 20000)))`, lisp.InvalidArgument, lisp.Limits{}},
	{"deepToString of 40 levels of arrays each holding the next twice (2^40 paths)", `(java.util.Arrays/deepToString (reduce (fn [acc _] (object-array [acc acc])) (object-array 1) (range 40)))`, lisp.MemoryExceeded, lisp.Limits{}},
	{"deepToString of arrays holding each other", `(let [a (object-array 2) b (object-array [a a])] (aset a 0 b) (aset a 1 b) (count (java.util.Arrays/deepToString a)))`, "", lisp.Limits{}},
}

// hostileTools misbehave on purpose.
func hostileTools() (lisp.Tools, func()) {
	release := make(chan struct{})
	return lisp.Tools{
		"ok":    func(context.Context, *lisp.Map) (any, error) { return 1, nil },
		"panic": func(context.Context, *lisp.Map) (any, error) { panic("tool exploded") },
		"fail":  func(context.Context, *lisp.Map) (any, error) { return nil, errors.New("backend down") },
		"block": func(ctx context.Context, _ *lisp.Map) (any, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		},
		"stubborn": func(context.Context, *lisp.Map) (any, error) {
			<-release // ignores its context: abandoned by the run, released by the test
			return 1, nil
		},
		"giant": func(context.Context, *lisp.Map) (any, error) { return make([]int, 1_000_000), nil },
		"chan":  func(context.Context, *lisp.Map) (any, error) { return make(chan int), nil },
	}, func() { close(release) }
}

// TestHostilePrograms runs the hostile suite: each program ends with its
// error kind (or succeeds when kind is empty) within its time limit plus a
// margin, and no goroutine outlives its run.
func TestHostilePrograms(t *testing.T) {
	if len(hostileCases) < 100 {
		t.Fatalf("the hostile suite has %d programs, want at least 100", len(hostileCases))
	}
	tools, release := hostileTools()
	defer release()
	for _, hc := range hostileCases {
		t.Run(hc.name, func(t *testing.T) {
			limits := hc.limits
			if limits.Timeout == 0 {
				limits.Timeout = hostileLimits.Timeout
			}
			if limits.MaxMemory == 0 {
				limits.MaxMemory = hostileLimits.MaxMemory
			}
			start := time.Now()
			res, err := lisp.Run(context.Background(), hc.src, lisp.Options{Tools: tools, Limits: limits})
			elapsed := time.Since(start)
			if res == nil {
				t.Fatal("nil result")
			}
			if hc.kind == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
			} else if !errors.Is(err, hc.kind) {
				t.Fatalf("got %v, want %s", err, hc.kind)
			}
			// A run that times out must stop soon after: the margin covers
			// scheduling and the race detector's slowdown.
			if hc.kind == lisp.Timeout && elapsed > limits.Timeout+timeMargin {
				t.Errorf("took %v, limit %v", elapsed, limits.Timeout)
			}
		})
	}
}

// TestCancelledRunsStopPromptly checks that cancelling the caller's
// context stops a run quickly, also inside a long builtin.
func TestCancelledRunsStopPromptly(t *testing.T) {
	programs := []string{
		`(loop [i 0] (recur (inc i)))`,
		`(count (sort (fn [a b] (< a b)) (vec (range 2000000 0 -1))))`,
		`(count (re-seq #"x" (apply str (repeat 5000000 "ab"))))`,
		`(tool/block {})`,
		`(pmap (fn [i] (loop [j 0] (recur (inc j)))) (range 4))`,
	}
	tools, release := hostileTools()
	defer release()
	for _, src := range programs {
		ctx, cancel := context.WithCancel(context.Background())
		go func() {
			time.Sleep(30 * time.Millisecond)
			cancel()
		}()
		start := time.Now()
		_, err := lisp.Run(ctx, src, lisp.Options{Tools: tools,
			Limits: lisp.Limits{Timeout: time.Minute, MaxSteps: -1, MaxLoopIterations: -1, MaxMemory: -1}})
		if !errors.Is(err, lisp.Cancelled) {
			t.Errorf("%.50s: got %v, want cancelled", src, err)
		}
		if d := time.Since(start); d > 30*time.Millisecond+timeMargin {
			t.Errorf("%.50s: stopped after %v", src, d)
		}
		cancel()
	}
}

// TestNoGoroutineLeaks checks that runs, including pmap and tool calls,
// leave no goroutine behind.
func TestNoGoroutineLeaks(t *testing.T) {
	var calls atomic.Int64
	tools := lisp.Tools{"t": func(ctx context.Context, _ *lisp.Map) (any, error) {
		calls.Add(1)
		return 1, nil
	}}
	before := runtime.NumGoroutine()
	for i := 0; i < 50; i++ {
		_, _ = lisp.Run(context.Background(), `(pmap (fn [x] (tool/t {:x x})) (range 20))`, lisp.Options{Tools: tools,
			Limits: lisp.Limits{Timeout: generous}})
		_, _ = lisp.Run(context.Background(), `(pcalls #(tool/t {}) #(+ 1 "x"))`, lisp.Options{Tools: tools,
			Limits: lisp.Limits{Timeout: generous}})
		_, _ = lisp.Run(context.Background(), `(loop [i 0] (recur (inc i)))`, lisp.Options{Limits: lisp.Limits{Timeout: time.Millisecond, MaxLoopIterations: -1}})
	}
	deadline := time.Now().Add(time.Minute) // generous: a busy machine schedules them late
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Errorf("%d goroutines before, %d after", before, n)
	}
	if calls.Load() == 0 {
		t.Error("tools were not called")
	}
}

// TestConcurrentHostileRuns runs hostile programs concurrently on one
// shared context: under -race this checks that limits and state are per run.
func TestConcurrentHostileRuns(t *testing.T) {
	data := mustFromGo(t, map[string]any{"rows": make([]int, 1000)})
	done := make(chan error, 40)
	for i := 0; i < 40; i++ {
		go func(i int) {
			src := []string{
				`(loop [i 0] (recur (inc i)))`,
				`(count (vec (range 100000000)))`,
				`(reduce + ctx/rows)`,
				`(defn f [] (f)) (f)`,
			}[i%4]
			_, err := lisp.Run(context.Background(), src, lisp.Options{Input: data})
			if i%4 == 2 && err != nil {
				done <- fmt.Errorf("benign run failed: %v", err)
				return
			}
			if i%4 != 2 && err == nil {
				done <- fmt.Errorf("hostile run %q succeeded", src)
				return
			}
			done <- nil
		}(i)
	}
	for i := 0; i < 40; i++ {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
}
