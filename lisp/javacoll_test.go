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

// TestUtilPrintReadConvert: a java.util collection prints as what it holds
// (as Clojure's pr does), exactly with its class; it reads back as a live
// collection of that class; JSON and Go see what it holds; a list that
// holds itself prints cut.
func TestUtilPrintReadConvert(t *testing.T) {
	res := run(t, `[(java.util.ArrayList. [1 "a"]) (java.util.HashMap. {"k" [1]}) (java.util.TreeSet. [2 1]) (java.util.ArrayDeque. [3])]`, lisp.Options{})
	if p := lisp.Print(res.Value, lisp.PrintOptions{}); p != `[[1 "a"] {"k" [1]} #{1 2} [3]]` {
		t.Errorf("Print: %s", p)
	}
	printed := lisp.Print(res.Value, lisp.PrintOptions{Exact: true})
	want := `[#array-list[[1 "a"]] #hash-map[{"k" [1]}] #tree-set[#{1 2}] #array-deque[[3]]]`
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
	ns := lisp.NewNamespace(map[string]lisp.Value{"l": items[0], "m": items[1], "q": items[3]})
	got := lisp.Print(run(t, `(.add l 2) (.put m "j" 0) (.push q 4) [(vec l) (into (sorted-map) m) (vec q) (str (type l)) (str (type q))]`,
		lisp.Options{Namespace: ns}).Value, lisp.PrintOptions{})
	if got != `[[1 "a" 2] {"j" 0, "k" [1]} [4 3] "class java.util.ArrayList" "class java.util.ArrayDeque"]` {
		t.Errorf("changed after Read: %s", got)
	}
	if j, err := lisp.ToJSON(res.Value, nil); err != nil || string(j) != `[[1,"a"],{"k":[1]},[1,2],[3]]` {
		t.Errorf("ToJSON: %s %v", j, err)
	}
	if g, err := lisp.ToGo(res.Value); err != nil || fmt.Sprint(g) != `[[1 a] map[k:[1]] [1 2] [3]]` {
		t.Errorf("ToGo: %v %v", g, err)
	}
	if d := lisp.Print(items[0].(*lisp.Cell).Deref(), lisp.PrintOptions{}); d != `[1 "a" 2]` {
		t.Errorf("Deref of a list: %s", d)
	}

	// A linked map prints exactly as its entries in order, and reads back
	// in that order.
	linked := run(t, `(doto (java.util.LinkedHashMap.) (.put :b 1) (.put :a 2))`, lisp.Options{}).Value
	exact := lisp.Print(linked, lisp.PrintOptions{Exact: true})
	if exact != `#linked-hash-map[[[:b 1] [:a 2]]]` {
		t.Errorf("PrintExact of a LinkedHashMap: %s", exact)
	}
	if back, err := lisp.Read(exact, lisp.ReadOptions{}); err != nil || lisp.Print(back, lisp.PrintOptions{}) != `{:b 1, :a 2}` {
		t.Errorf("a LinkedHashMap read back: %v %v", back, err)
	}

	cyclic := run(t, `(let [l (java.util.ArrayList. [1])] (.add l l) l)`, lisp.Options{}).Value
	if p := lisp.Print(cyclic, lisp.PrintOptions{}); p != `[1 (this Collection)]` {
		t.Errorf("Print of a cycle: %s", p)
	}
	if _, err := lisp.ToJSON(cyclic, nil); !errors.Is(err, lisp.InvalidArgument) {
		t.Errorf("ToJSON of a cycle: %v", err)
	}
	for _, bad := range []string{"#array-list[{}]", "#hash-map[[1]]", "#tree-set[1]", "#hash-set[#{1} #{2}]", "#array-list[[1]"} {
		if v, err := lisp.Read(bad, lisp.ReadOptions{}); err == nil {
			t.Errorf("Read(%q) = %v, want an error", bad, v)
		}
	}
}

// TestFailedRunRollsBackUtil: a run that fails puts back the java.util
// collections of its namespace as they were; one that succeeds keeps its
// changes.
func TestFailedRunRollsBackUtil(t *testing.T) {
	ns := run(t, `(def l (java.util.ArrayList. [1])) (def m (java.util.HashMap.)) (def s (java.util.HashSet.)) (def q (java.util.ArrayDeque. [1 2]))`,
		lisp.Options{}).Namespace
	bad := `(.add l 2) (.put m :a 1) (.add s :x) (.poll q) (.push q 0)
	        (dorun (pmap (fn [i] (.add l i) (.put m i i)) (range 10))) (/ 1 nil)`
	if _, err := lisp.Run(context.Background(), bad, lisp.Options{Namespace: ns}); !errors.Is(err, lisp.TypeError) {
		t.Fatalf("got %v, want a type error", err)
	}
	check := `[(vec l) (into {} m) (vec s) (vec q)]`
	if got := lisp.Print(run(t, check, lisp.Options{Namespace: ns}).Value, lisp.PrintOptions{}); got != `[[1] {} [] [1 2]]` {
		t.Errorf("after a failed run: %s", got)
	}
	ns = run(t, `(.add l 2) (.put m :a 1) (.add s :x) (.poll q)`, lisp.Options{Namespace: ns}).Namespace
	if got := lisp.Print(run(t, check, lisp.Options{Namespace: ns}).Value, lisp.PrintOptions{}); got != `[[1 2] {:a 1} [:x] [2]]` {
		t.Errorf("after a good run: %s", got)
	}
}

// TestUtilUnderPmap: pmap branches that change one collection lose no
// change, and concurrent runs on one namespace lose none.
func TestUtilUnderPmap(t *testing.T) {
	src := `(let [l (java.util.ArrayList.) m (java.util.HashMap.) s (java.util.HashSet.) q (java.util.ArrayDeque.)]
	  (dorun (pmap (fn [i] (.add l i) (.put m i i) (.add s (mod i 10)) (.push q i) (count l) (vec q) (.get m i)) (range 100)))
	  [(reduce + l) (count m) (count s) (count q)])`
	for range 3 {
		if got := lisp.Print(run(t, src, lisp.Options{Limits: lisp.Limits{MaxParallel: 100}}).Value, lisp.PrintOptions{}); got != "[4950 100 10 100]" {
			t.Fatalf("got %s, want [4950 100 10 100]", got)
		}
	}
	// Removals by element, decided outside the list's lock, lose none.
	removals := `(let [l (java.util.ArrayList. (map str (range 100)))]
	  [(count (filter true? (pmap #(.remove l (str %)) (range 100)))) (count l)])`
	for range 3 {
		if got := lisp.Print(run(t, removals, lisp.Options{Limits: lisp.Limits{MaxParallel: 100}}).Value, lisp.PrintOptions{}); got != "[100 0]" {
			t.Fatalf("removals: got %s, want [100 0]", got)
		}
	}
	ns := run(t, `(def l (java.util.ArrayList.)) (def m (java.util.HashMap.))`, lisp.Options{}).Namespace
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			src := fmt.Sprintf(`(.add l %d) (.put m %d true) (vec l)`, i+1, i)
			if _, err := lisp.Run(context.Background(), src, lisp.Options{Namespace: ns, Limits: lisp.Limits{Timeout: generous}}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if got := lisp.Print(run(t, `[(reduce + l) (count m)]`, lisp.Options{Namespace: ns}).Value, lisp.PrintOptions{}); got != "[210 20]" {
		t.Errorf("after 20 concurrent runs: %s, want [210 20]", got)
	}
}

// TestUtilErrors: what a program gets wrong with a java.util collection
// says what to do.
func TestUtilErrors(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{`(conj (java.util.ArrayList.) 1)`, "change it with its methods"},
		{`(assoc (java.util.HashMap.) :a 1)`, "make it a Clojure one with vec, set or (into {} m)"},
		{`(.put (java.util.ArrayList.) 1 2)`, ".put is not a method of java.util.ArrayList"},
		{`(.add (java.util.HashMap.) 1)`, ".add is not a method of java.util.HashMap"},
		{`(.add [1] 2)`, "a java.util collection"},
		{`(.get (java.util.ArrayList. [1]) 3)`, "Index 3 out of bounds for length 1"},
		{`(.add (java.util.ArrayDeque.) 0 1)`, "takes one element"},
		{`(.pop (java.util.ArrayDeque.))`, "NoSuchElementException"},
		{`(.pop (java.util.Stack.))`, "EmptyStackException"},
		{`(java.util.ArrayList. -1)`, "Illegal initial capacity"},
		{`(java.util.HashMap. [1 2])`, "a map"},
		{`(Collections/sort (java.util.HashSet.))`, "a java.util list"},
		{`(.add nil 1)`, "NullPointerException"},
	} {
		_, err := lisp.Run(context.Background(), tc.src, lisp.Options{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want an error containing %q", tc.src, err, tc.want)
		}
	}
}

// TestPriorityQueueRunsPrintAndRead: a failed run puts a PriorityQueue
// back; its exact form reads back as a queue in the natural order; pmap
// branches that add to one lose nothing.
func TestPriorityQueueRunsPrintAndRead(t *testing.T) {
	ns := run(t, `(def q (java.util.PriorityQueue. (comparator >))) (.addAll q [3 1 2])`, lisp.Options{}).Namespace
	if _, err := lisp.Run(context.Background(), `(.add q 9) (.poll q) (.poll q) (/ 1 nil)`, lisp.Options{Namespace: ns}); !errors.Is(err, lisp.TypeError) {
		t.Fatalf("got %v, want a type error", err)
	}
	if got := lisp.Print(run(t, `(vec q)`, lisp.Options{Namespace: ns}).Value, lisp.PrintOptions{}); got != `[3 1 2]` {
		t.Errorf("after a failed run: %s", got)
	}
	ns = run(t, `(.add q 9) (.poll q)`, lisp.Options{Namespace: ns}).Namespace
	if got := lisp.Print(run(t, `(vec q)`, lisp.Options{Namespace: ns}).Value, lisp.PrintOptions{}); got != `[3 1 2]` {
		t.Errorf("after a good run: %s", got)
	}

	v := run(t, `(java.util.PriorityQueue. [5 3 4 1])`, lisp.Options{}).Value
	exact := lisp.Print(v, lisp.PrintOptions{Exact: true})
	if exact != `#priority-queue[[1 3 4 5]]` {
		t.Fatalf("PrintExact: %s", exact)
	}
	back, err := lisp.Read(exact, lisp.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ns = lisp.NewNamespace(map[string]lisp.Value{"q": back})
	if got := lisp.Print(run(t, `(.add q 2) [(.poll q) (.poll q) (str (type q))]`, lisp.Options{Namespace: ns}).Value, lisp.PrintOptions{}); got != `[1 2 "class java.util.PriorityQueue"]` {
		t.Errorf("read back: %s", got)
	}
	// A queue printed in a comparator's order reads back in the natural one.
	if back, err := lisp.Read(`#priority-queue[[9 1 5]]`, lisp.ReadOptions{}); err != nil || lisp.Print(back, lisp.PrintOptions{}) != `[1 9 5]` {
		t.Errorf("read back heapified: %v %v", lisp.Print(back, lisp.PrintOptions{}), err)
	}

	src := `(let [q (java.util.PriorityQueue.)]
	  (dorun (pmap (fn [i] (.add q i) (.peek q) (vec q)) (range 100)))
	  (loop [acc []] (if-let [x (.poll q)] (recur (conj acc x)) [(count acc) (= acc (sort acc))])))`
	for range 3 {
		if got := lisp.Print(run(t, src, lisp.Options{Limits: lisp.Limits{MaxParallel: 100}}).Value, lisp.PrintOptions{}); got != "[100 true]" {
			t.Fatalf("got %s, want [100 true]", got)
		}
	}
}

// TestTreeWithComparatorConcurrentAndRolledBack: branches that put into
// one TreeMap ordered by a comparator lose no key (each put that found the
// map changed while its comparator ran starts again), a comparator that
// reads or clears its own map neither deadlocks nor breaks it, and a run
// that fails puts the map back.
func TestTreeWithComparatorConcurrentAndRolledBack(t *testing.T) {
	res := run(t, `(def m (java.util.TreeMap. (comparator >)))
	               (dorun (pmap (fn [i] (.put m i (* i i))) (range 300)))
	               [(count m) (.firstKey m) (.lastKey m) (= (vec (keys m)) (vec (range 299 -1 -1)))]`, lisp.Options{})
	if got := lisp.Print(res.Value, lisp.PrintOptions{}); got != "[300 299 0 true]" {
		t.Errorf("concurrent puts: %s", got)
	}
	res = run(t, `(def seen (atom 0))
	              (def m (java.util.TreeMap. (fn [a b] (swap! seen + (.size m)) (when (some #{5} [a b]) (.clear m)) (compare a b))))
	              (doseq [i [1 2 3 4]] (.put m i i))
	              (.put m 5 5)
	              [(vec (keys m)) (pos? @seen)]`, lisp.Options{})
	if got := lisp.Print(res.Value, lisp.PrintOptions{}); got != "[[5] true]" {
		t.Errorf("a comparator that clears its map: %s", got)
	}
	ns := run(t, `(def m (java.util.TreeMap. (comparator >))) (.put m 1 :a)`, lisp.Options{}).Namespace
	if _, err := lisp.Run(context.Background(), `(.put m 2 :b) (.remove m 1) (/ 1 nil)`, lisp.Options{Namespace: ns}); !errors.Is(err, lisp.TypeError) {
		t.Fatalf("got %v, want a type error", err)
	}
	if got := lisp.Print(run(t, `[(vec (keys m)) (.put m 0 :z) (vec (keys m))]`, lisp.Options{Namespace: ns}).Value, lisp.PrintOptions{}); got != "[[1] nil [1 0]]" {
		t.Errorf("after a failed run: %s, want [[1] nil [1 0]]", got)
	}
}
