package lisp_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/ptc-go/ptc/lisp"
)

// arraysHostileCases are hostile programs against Java arrays,
// StringBuilder, while, read-string and multimethods: each ends with its
// limit's error, or ("") runs and leaves a value whose print and
// conversions stay bounded.
var arraysHostileCases = []hostileCase{
	// Sizes past the memory limit are refused before anything is allocated.
	{"a huge make-array", `(make-array Long/TYPE 1000000000)`, lisp.MemoryExceeded, lisp.Limits{}},
	{"a huge make-array of arrays", `(make-array Long/TYPE 100000 100000)`, lisp.MemoryExceeded, lisp.Limits{}},
	{"make-array sizes whose product overflows", `(make-array Long/TYPE 4000000000 4000000000 4000000000)`, lisp.MemoryExceeded, lisp.Limits{}},
	{"make-array past any memory", `(make-array Object 9000000000000000000)`, lisp.MemoryExceeded, lisp.Limits{MaxMemory: -1}},
	{"a huge long-array", `(long-array 2000000000)`, lisp.MemoryExceeded, lisp.Limits{}},
	{"a huge int-array with an initial value", `(int-array 2000000000 7)`, lisp.MemoryExceeded, lisp.Limits{}},
	{"a huge object-array", `(object-array 9000000000000000000)`, lisp.MemoryExceeded, lisp.Limits{MaxMemory: -1}},
	{"a huge boolean-array", `(boolean-array 2000000000)`, lisp.MemoryExceeded, lisp.Limits{}},
	{"to-array of an infinite sequence", `(to-array (range))`, lisp.InvalidArgument, lisp.Limits{}},
	{"a sized array from an infinite sequence takes its size", `(vec (long-array 3 (range)))`, "", lisp.Limits{}},
	{"arrays of arrays doubling, printed", `(let [a (reduce (fn [x _] (to-array [x x])) 0 (range 60))] (pr-str a))`,
		lisp.MemoryExceeded, lisp.Limits{}},
	{"aset writes in place, not copies", `(let [a (long-array 1000)] (dotimes [i 1000000] (aset a (mod i 1000) i)) (aget a 5))`,
		"", lisp.Limits{MaxLoopIterations: -1, MaxSteps: -1}},
	{"aset forever", `(let [a (long-array 1)] (loop [i 0] (aset a 0 i) (recur (inc i))))`, lisp.LoopLimitExceeded, lisp.Limits{}},

	// Arrays that hold themselves: print, equality, hash and conversions stay bounded.
	{"an array that holds itself, printed", `(let [a (object-array 1)] (aset a 0 a) (pr-str a))`, "", lisp.Limits{}},
	{"an array that holds itself twice, printed", `(let [a (object-array 3)] (aset a 0 a) (aset a 1 [a a]) (aset a 2 {a a}) (str a))`, "", lisp.Limits{}},
	{"an array that holds itself, compared and hashed", `(let [a (object-array 2)] (aset a 0 a) (aset a 1 a) [(= a a) (= (vec a) (vec a)) (hash a) (count #{a (vec a)})])`,
		"", lisp.Limits{}},
	{"a cycle of arrays, returned", `(let [a (object-array 1) b (object-array 1)] (aset a 0 b) (aset b 0 a) a)`, "", lisp.Limits{}},
	{"an array that holds itself, in a map returned", `(let [a (object-array 1)] (aset a 0 {:self a}) {:a a})`, "", lisp.Limits{}},
	{"an array in an atom that holds the atom", `(let [a (object-array 1) c (atom a)] (aset a 0 c) (pr-str c))`, "", lisp.Limits{}},
	{"an array that holds itself, walked", `(let [a (object-array 1)] (aset a 0 a) (clojure.walk/postwalk identity [a]))`, "", lisp.Limits{}},

	// StringBuilder growth is charged.
	{"a StringBuilder appended to itself", `(let [sb (StringBuilder. "x")] (dotimes [i 100] (.append sb sb)) (count sb))`,
		lisp.MemoryExceeded, lisp.Limits{}},
	{"a StringBuilder appended forever", `(let [sb (StringBuilder.)] (while true (.append sb "xxxxxxxxxxxxxxxx")))`,
		lisp.MemoryExceeded, lisp.Limits{MaxLoopIterations: -1, MaxSteps: -1}},
	{"a StringBuilder's setLength past the memory", `(.setLength (StringBuilder.) 100000000)`, lisp.MemoryExceeded, lisp.Limits{}},
	{"a StringBuilder's setLength past any memory", `(.setLength (StringBuilder.) 9000000000000000000)`, lisp.MemoryExceeded, lisp.Limits{MaxMemory: -1}},
	{"a StringBuilder that reverses a long text again and again", `(let [sb (StringBuilder. (apply str (repeat 100000 "ab")))] (dotimes [i 1000] (.reverse sb)))`,
		lisp.MemoryExceeded, lisp.Limits{}},

	// while loops are loops.
	{"while with a test that stays true", `(let [a (atom 0)] (while (< @a 10) (swap! a identity)))`, lisp.LoopLimitExceeded, lisp.Limits{MaxLoopIterations: 100_000}},

	// read-string reads bounded data.
	{"read-string of deep nesting", `(read-string (apply str (repeat 100000 "[")))`, lisp.InvalidArgument, lisp.Limits{}},
	{"read-string of a huge vector", `(count (read-string (str "[" (apply str (repeat 2000000 "1 ")) "]")))`, lisp.MemoryExceeded, lisp.Limits{}},

	// Multimethods.
	{"a multimethod whose method calls it forever", `(defmulti f identity) (defmethod f :default [x] (f x)) (f 1)`, lisp.DepthExceeded, lisp.Limits{}},
	{"a multimethod whose dispatch calls it", `(defmulti f (fn [x] (f x))) (f 1)`, lisp.DepthExceeded, lisp.Limits{}},
	{"a multimethod whose dispatch value is huge", `(defmulti f identity) (f (vec (range 100000)))`, lisp.InvalidArgument, lisp.Limits{}},
}

func TestArraysHostilePrograms(t *testing.T) {
	for _, hc := range arraysHostileCases {
		t.Run(hc.name, func(t *testing.T) {
			limits := hc.limits
			if limits.Timeout == 0 {
				limits.Timeout = hostileLimits.Timeout
			}
			if limits.MaxMemory == 0 {
				limits.MaxMemory = hostileLimits.MaxMemory
			}
			res, err := lisp.Run(context.Background(), hc.src, lisp.Options{Limits: limits})
			if res == nil {
				t.Fatal("nil result")
			}
			if hc.kind == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				// What a host does with the value stays bounded too.
				_ = lisp.Print(res.Value, lisp.PrintOptions{})
				_ = lisp.Print(res.Value, lisp.PrintOptions{Exact: true})
				_, _ = lisp.ToGo(res.Value)
				_, _ = lisp.ToJSON(res.Value, nil)
				_ = fmt.Sprintf("%v %#v", res.Value, res.Value)
			} else if !errors.Is(err, hc.kind) {
				t.Fatalf("got %v, want %s", err, hc.kind)
			}
		})
	}
}

// TestArraysAndBuildersPrintReadConvert: arrays print with their kind and
// elements, builders with their text; both read back with Read as new
// ones, convert to Go and JSON as their elements and text, and a cycle
// through an array is cut in print and an error in conversions.
func TestArraysAndBuildersPrintReadConvert(t *testing.T) {
	res := run(t, `[(long-array [1 2]) (to-array ["a" nil]) (StringBuilder. "x\"y") (make-array Double/TYPE 1 2) (char-array "ab")]`, lisp.Options{})
	printed := lisp.Print(res.Value, lisp.PrintOptions{Exact: true})
	want := `[#long-array[1 2] #object-array["a" nil] #string-builder["x\"y"] #object-array[#double-array[0.0 0.0]] #char-array["a" "b"]]`
	if printed != want {
		t.Fatalf("PrintExact: %s, want %s", printed, want)
	}
	back, err := lisp.Read(printed, lisp.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if again := lisp.Print(back, lisp.PrintOptions{Exact: true}); again != printed {
		t.Errorf("read back prints %s", again)
	}
	items := back.(*lisp.Vector).Items()
	for i, kind := range []string{"long-array", "object-array", "string-builder", "object-array", "char-array"} {
		c, ok := items[i].(*lisp.Cell)
		if !ok || c.Kind() != kind {
			t.Fatalf("item %d read as %#v, want a %s", i, items[i], kind)
		}
	}
	// Read back, they are live: programs change them.
	ns := lisp.NewNamespace(map[string]lisp.Value{"arr": items[0], "sb": items[2]})
	got := lisp.Print(run(t, `(aset arr 0 9) (.append sb "z") [(vec arr) (str sb) (class arr)]`, lisp.Options{Namespace: ns}).Value, lisp.PrintOptions{})
	if got != `[[9 2] "x\"yz" [J]` {
		t.Errorf("changed after ReadValue: %s", got)
	}
	if j, err := lisp.ToJSON(res.Value, nil); err != nil || string(j) != `[[1,2],["a",null],"x\"y",[[0,0]],["a","b"]]` {
		t.Errorf("ToJSON: %s %v", j, err)
	}
	if g, err := lisp.ToGo(res.Value); err != nil || fmt.Sprint(g) != `[[1 2] [a <nil>] x"y [[0 0]] [a b]]` {
		t.Errorf("ToGo: %v %v", g, err)
	}
	c := items[0].(*lisp.Cell)
	if d := lisp.Print(c.Deref(), lisp.PrintOptions{}); d != "[9 2]" {
		t.Errorf("Deref of an array: %s", d)
	}
	if d := items[2].(*lisp.Cell).Deref(); d != `x"yz` {
		t.Errorf("Deref of a builder: %v", d)
	}

	cyclic := run(t, `(let [a (object-array 2) b (to-array [a])] (aset a 0 1) (aset a 1 b) a)`, lisp.Options{}).Value
	if p := lisp.Print(cyclic, lisp.PrintOptions{Exact: true}); p != `#object-array[1 #object-array[#object-array[...]]]` {
		t.Errorf("PrintExact of a cycle: %s", p)
	}
	if _, err := lisp.ToJSON(cyclic, nil); !errors.Is(err, lisp.InvalidArgument) {
		t.Errorf("ToJSON of a cycle: %v", err)
	}
	for _, bad := range []string{"#long-array[1.5]", "#bogus-array[1]", "#string-builder[1]", "#long-array[1"} {
		if v, err := lisp.Read(bad, lisp.ReadOptions{}); err == nil {
			t.Errorf("ReadValue(%q) = %v, want an error", bad, v)
		}
	}
}

// TestFailedRunRollsBackArrays: a run that fails puts back the arrays and
// builders of its namespace as they were; one that succeeds keeps its
// writes, and the runs after it see them.
func TestFailedRunRollsBackArrays(t *testing.T) {
	r1 := run(t, `(def arr (long-array 3)) (def grid (make-array Long/TYPE 2 2)) (def sb (StringBuilder. "a"))`, lisp.Options{})
	ns := r1.Namespace
	bad := `(aset arr 0 5) (aset grid 1 1 7) (.append sb "b") (.reverse sb) (sort (to-array [2 1]))
	        (dorun (pmap (fn [i] (aset arr 1 i) (.append sb "x")) (range 10))) (/ 1 nil)`
	if _, err := lisp.Run(context.Background(), bad, lisp.Options{Namespace: ns}); !errors.Is(err, lisp.TypeError) {
		t.Fatalf("got %v, want a type error", err)
	}
	check := `[(vec arr) (mapv vec grid) (str sb)]`
	if got := lisp.Print(run(t, check, lisp.Options{Namespace: ns}).Value, lisp.PrintOptions{}); got != `[[0 0 0] [[0 0] [0 0]] "a"]` {
		t.Errorf("after a failed run: %s", got)
	}
	ns = run(t, `(aset arr 2 9) (aset grid 0 1 3) (.append sb "c")`, lisp.Options{Namespace: ns}).Namespace
	if got := lisp.Print(run(t, check, lisp.Options{Namespace: ns}).Value, lisp.PrintOptions{}); got != `[[0 0 9] [[0 3] [0 0]] "ac"]` {
		t.Errorf("after a good run: %s", got)
	}
}

// TestArraysUnderPmap: goroutines that write one array or append to one
// builder lose no write, and concurrent runs on one namespace lose none.
func TestArraysUnderPmap(t *testing.T) {
	src := `(let [a (long-array 100) sb (StringBuilder.)]
	  (dorun (pmap (fn [i] (aset a i i) (.append sb "x") (aget a i) (count sb) (vec a)) (range 100)))
	  [(reduce + a) (count sb)])`
	for range 3 {
		if got := lisp.Print(run(t, src, lisp.Options{Limits: lisp.Limits{MaxParallel: 100}}).Value, lisp.PrintOptions{}); got != "[4950 100]" {
			t.Fatalf("got %s, want [4950 100]", got)
		}
	}
	ns := run(t, `(def arr (long-array 20)) (def sb (StringBuilder.))`, lisp.Options{}).Namespace
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			src := fmt.Sprintf(`(aset arr %d %d) (.append sb "x") (vec arr)`, i, i+1)
			if _, err := lisp.Run(context.Background(), src, lisp.Options{Namespace: ns, Limits: lisp.Limits{Timeout: generous}}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if got := lisp.Print(run(t, `[(reduce + arr) (count sb)]`, lisp.Options{Namespace: ns}).Value, lisp.PrintOptions{}); got != "[210 20]" {
		t.Errorf("after 20 concurrent runs: %s, want [210 20]", got)
	}
}

// TestArrayErrors: what a program gets wrong with arrays says how to do it.
func TestArrayErrors(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{`(aset [1 2] 0 3)`, "vectors do not change"},
		{`(conj (to-array [1]) 2)`, "a Java array: read it with aget, or make it a vector with vec"},
		{`(@(to-array [1]))`, "deref"},
		{`(.append "s" "t")`, "strings do not change"},
		{`(subs (StringBuilder. "ab") 1)`, "make it a string with str"},
	} {
		_, err := lisp.Run(context.Background(), tc.src, lisp.Options{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.src, err, tc.want)
		}
	}
}
