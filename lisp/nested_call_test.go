package lisp

import (
	"strings"
	"testing"

	"github.com/ptc-go/ptc/lisp/internal/analyze"
	"github.com/ptc-go/ptc/lisp/syntax"
)

// nestedCallPrograms are calls of a builtin of one argument whose argument
// is a call of a builtin (nestedCall): results, and the errors of the
// inner call, of its arguments and of the outer call, each at its own
// position, must be as with a closure for each call (the fast paths off).
var nestedCallPrograms = []string{
	// Inner calls of one and two arguments: closures, constants, (:k x).
	`(let [m {:a [1 2 3] :b {:c "x"}} k :kw] [(count (get-in m [:a])) (count (get m :a)) (str (name k)) (vec (keys m)) (str (get-in m [:b :c])) (count (get (:b m) :c))])`,
	`(let [m {:a 1}] [(count (keys {})) (str (name :k)) (count (get m :z)) (vec (vals m)) (count (seq [1 2]))])`,
	`(let [xs [1 2 3]] (count (conj xs 4)))`,
	`(let [s "abc"] [(count (subs s 1)) (str (subs "hello" 1 3)) (vec (subs s 0 2))])`,
	`(for [m [{:a [1]} {:a [1 2]}]] (count (get m :a)))`,
	// The inner call fails, at its own position.
	"(let [x 5]\n  (str (name x)))",
	"(let [s \"abc\"]\n  (count\n    (subs s :a)))",
	"(let [m {:a 1}]\n  (vec (keys (:a m))))",
	// An argument of the inner call fails.
	"(let [m {:a 1}]\n  (count (get-in (inc \"x\") [:a])))",
	"(let [m {:a 1}]\n  (count (get m (inc \"x\"))))",
	// The outer call fails, at its position, not the inner one's.
	"(let [m {:a 5}]\n  (count\n   (get m :a)))",
	"(let [m {:a 5}]\n  (keys (get-in m [:a])))",
	"(let [x :k]\n  (keys (name x)))",
	// Arity errors and calls nestedCall leaves alone: a fast inner call,
	// a fused pipeline, a lazy range, a program's function.
	"(count\n  (get-in))",
	"(count\n  (get-in {} [:a] 1 2))",
	`(let [x 1] [(str (inc x)) (count (filter odd? [1 2 3])) (first (filter even? (range 1 100000000))) (str (+ x 1))])`,
	`(let [f (fn [x] [x x])] (count (f 1)))`,
	`(let [f (fn [x] [x x])] (count (map f [1 2])))`,
	// Nested in a loop and under a let's value.
	`(loop [i 0 acc []] (if (< i 3) (recur (inc i) (conj acc (count (get {:a [1 2]} :a)))) acc))`,
	`(let [a (count (get-in {:a {:b [1 2 3]}} [:a :b])) b (str (name :x))] [a b])`,
}

func TestNestedCall(t *testing.T) {
	for _, src := range nestedCallPrograms {
		out := sameBothWays(t, src, Limits{})
		if fails := strings.Contains(src, "\n"); fails != strings.Contains(out, "error=") {
			t.Errorf("%s: %s (the programs of more than one line fail, only they)", src, out)
		}
	}
}

// nestedCall takes the calls it is meant for and leaves the others to
// call.
func TestNestedCallShapes(t *testing.T) {
	for _, tc := range []struct {
		src    string
		nested bool
	}{
		{`(count (get-in {:a [1]} [:a]))`, true},
		{`(str (name :k))`, true},
		{`(count (get {:a [1]} :a))`, true},
		{`(str (inc 1))`, false},          // inc has a fast path
		{`(str (re-pattern "a"))`, false}, // compiled once, as a literal
		{`(count (first [[1]]))`, false},  // first may mark a lazy range
		{`(count (get-in))`, false},       // an arity error, reported by call
		{`(count [1])`, false},
		{`(count (:a {:a [1]}))`, false},
	} {
		forms, err := syntax.Read(tc.src)
		if err != nil {
			t.Fatal(err)
		}
		ap, err := analyze.Analyze(tc.src, forms, analyzeConfig)
		if err != nil {
			t.Fatal(err)
		}
		outer := ap.Body.(*analyze.Call)
		c := &compiler{src: tc.src}
		if got := c.nestedCall(nil, outer.Args[0], posT{}) != nil; got != tc.nested {
			t.Errorf("%s: nested %v, want %v", tc.src, got, tc.nested)
		}
	}
}
