package lisp

import (
	"strings"
	"testing"
)

// callArgPrograms exercise the ways a call's arguments are compiled
// (argValue, argTo, argList, callBuiltin3): closures, constants held by
// value, (:k x) of a local, in every place, with the errors of the
// arguments and of the call itself. Each must behave exactly as it does
// with the fast paths off (steps, value, error, position).
var callArgPrograms = []string{
	// One and two arguments: (:k x) and constants held by value.
	`(let [m {:a 1 :b [1 2]}] [(count (:b m)) (str (:a m)) (get m :a) (get {:a 9} :a) (get (:b m) 1)])`,
	`(let [m {:a 1}] (+ (:a m) 2.5))`,
	"(let [s #{:a}]\n  [(get (:a s) 0) (count (:a s))])",
	"(let [m {:a \"x\"}]\n  (inc (:a m)))",
	"(let [v [1 2]]\n  (nth v (:i {:i \"5\"})))",
	// Three arguments: closures only, constants, (:k x), in each place.
	`(let [m {:a 1} x 2] [(assoc m :b x) (assoc m (:a m) x) (+ x x x) (+ x 1 2.5) (+ 1.5 x 2) (+ 1.5 2 x)])`,
	`(let [m {:a 1 :n 4}] [(assoc {} :k [1 2]) (get-in m [:a] 0) (subs "hello" 1 (:n m)) (get m :z [0])])`,
	`(reduce (fn [acc o] (assoc acc (:id o) (:amount o))) {} [{:id 1 :amount 2} {:id 3 :amount 4}])`,
	"(let [x 1]\n  (+ x \"a\" 2))",
	"(let [x 1]\n  (+ \"a\" x 2))",
	"(let [x 1]\n  (+ x 2 \"a\"))",
	"(let [x \"s\"]\n  (subs x :a 6))",
	"(let [x \"s\"]\n  (subs \"abc\" 1 (inc x)))",
	"(let [x 1]\n  (assoc (inc x) :a 1))",
	"(let [x 1]\n  (assoc nil (inc [x]) 1))",
	// Many arguments, with and without constants, a constant first,
	// in the middle and last.
	`(let [a 1 b 2] [(+ a b a b) (+ 1 a b 2) (+ a 1.5 b 2) (str a "x" b "y" [1 2]) (hash-map :a a :b b)])`,
	`(let [a 1 b 2] (assoc {} :a a :b b :c [a b] :d {:e 1}))`,
	"(let [a 1 b \"x\"]\n  (+ a 1 b 2))",
	"(let [a 1 b \"x\"]\n  (+ a (inc b) 1 2))",
	"(let [a 1]\n  (str a (dec \"3\") \"x\" 2))",
	// Map literals of constant keys: closures only, with constants, and
	// a failing value.
	`(let [p 1 q 2] [{:p p :q q :r (+ p q 1)} {:ref (:id {:id 3}) :item p :meta {:k 0}} {:a 1 :b p :c [1 p]}])`,
	"(let [p 1]\n  {:a p :b (inc \"x\") :c 2})",
	"(let [p 1]\n  {:a 1 :b (inc \"x\") :c p})",
	// Calls of the program's functions, arguments of every kind.
	`(let [f (fn [& xs] (vec xs)) m {:a 1}] [(f) (f 1) (f (:a m) 2 [3]) (f m m m m) (f 1 m :k "s")])`,
	"(let [f (fn [a b c] (+ a b c))]\n  (f 1 \"x\" 2))",
	"(let [f (fn [a b c] (+ a b c))]\n  (f 1 (inc \"x\") 2))",
	"(let [f (fn [a b] a)]\n  (f 1 2 3))",
	// Bindings whose values are constants, literals and closures.
	`(let [a 1 b [1 2] c {:k a} d (count b) e :kw f nil g "s"] [a b c d e f g])`,
}

func TestCallArgs(t *testing.T) {
	for _, src := range callArgPrograms {
		out := sameBothWays(t, src, Limits{})
		if strings.Contains(out, "error=") && !strings.Contains(src, "\n") {
			t.Errorf("%s: %s (the programs that fail are the ones of two lines)", src, out)
		}
		if !strings.Contains(out, "error=") && strings.Contains(src, "\n") {
			t.Errorf("%s: %s, want an error", src, out)
		}
	}
}

// callInfo answers as lookupCallInfo for every name, whatever its bucket held
// before (every builtin, twice over, so that names that share a bucket
// take it from one another), for names that are no builtin's, and for "".
func TestCallInfoBuckets(t *testing.T) {
	var c compiler
	names := []string{"", "no-such-builtin", "x", "count", "counts"}
	for name := range builtins {
		names = append(names, name)
	}
	for round := range 2 {
		for _, name := range names {
			want, wantOK := lookupCallInfo(name)
			if got, ok := c.callInfo(name); got != want || ok != wantOK {
				t.Fatalf("round %d: callInfo(%q) = %v, %v; want %v, %v", round, name, got, ok, want, wantOK)
			}
		}
	}
	if c.seenCalls == nil {
		t.Errorf("no cache after %d lookups", 2*len(names))
	}
}

// callFlags gives each builtin the flags its name has by the predicates
// the compiler asks later (fastCall's, a fused pipeline's terminal,
// re-pattern, markLazyRange's), and a name that is no builtin's none.
func TestCallFlags(t *testing.T) {
	for name, v := range builtins {
		var want uint8
		switch name {
		case "inc", "dec", "zero?", "+", "-", "*":
			want |= callFast
		case "re-pattern":
			want |= callRegex
		}
		if isIntOp(name) || isCmpOp(name) || isPredOp(name) {
			want |= callFast
		}
		if terminal, _ := fusibleTerminal(name, 0); terminal {
			want |= callTerminal
		}
		if earlyStop(name) >= 0 || name == "reduce" || name == "run!" {
			want |= callLazy
		}
		info, ok := lookupCallInfo(name)
		if !ok || info.flags != want {
			t.Errorf("lookupCallInfo(%q) = %08b, %v; want %08b, true", name, info.flags, ok, want)
		}
		if b, _ := v.(*Builtin); info.b != b {
			t.Errorf("lookupCallInfo(%q).b = %p, want %p", name, info.b, b)
		}
	}
	if info, ok := lookupCallInfo("no-such-builtin"); ok || info != (callInfo{}) {
		t.Errorf("lookupCallInfo of an unknown name = %v, %v", info, ok)
	}
}
