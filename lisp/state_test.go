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

// stateHostileCases are programs that misuse atoms, volatiles and
// transients, with the error kind each must end with ("" for success).
var stateHostileCases = []hostileCase{
	// A swap! function runs under every limit, in every goroutine.
	{"swap! of its own atom never settles", `(let [a (atom 0)] (swap! a (fn [x] (swap! a inc) (inc x))))`,
		lisp.StepLimitExceeded, lisp.Limits{MaxSteps: 100_000}},
	{"a swap! function that computes forever", `(let [a (atom 0)] (swap! a (fn [x] (reduce (fn [s i] (+ s i)) x (iterate inc 0)))))`,
		lisp.StepLimitExceeded, lisp.Limits{MaxSteps: 100_000}},
	{"a swap! function that loops", `(let [a (atom 0)] (swap! a (fn [x] (loop [] (recur)))))`,
		lisp.LoopLimitExceeded, lisp.Limits{}},
	{"a swap! function that recurses", `(def a (atom 0)) (defn f [x] (swap! a f) x) (swap! a f)`,
		lisp.DepthExceeded, lisp.Limits{}},
	{"swap! functions in pmap that loop", `(let [a (atom 0)] (doall (pmap (fn [_] (swap! a (fn [x] (reduce (fn [s i] (+ s i)) x (iterate inc 0))))) (range 8))))`,
		lisp.StepLimitExceeded, lisp.Limits{MaxSteps: 200_000}},
	{"a swap! function that builds too much", `(let [a (atom [])] (swap! a (fn [v] (vec (range 10000000)))))`,
		lisp.MemoryExceeded, lisp.Limits{}},
	{"writes forever stop on steps", `(let [a (atom 0)] (loop [i 0] (reset! a i) (swap! a inc) (recur (inc i))))`,
		lisp.StepLimitExceeded, lisp.Limits{MaxLoopIterations: -1, MaxSteps: 2_000_000}},
	{"what writes put in is charged", `(let [a (atom [])] (dotimes [i 10000000] (swap! a conj i)))`,
		lisp.MemoryExceeded, lisp.Limits{MaxLoopIterations: -1, MaxSteps: -1}},
	{"cells are charged", `(count (mapv (fn [i] (atom i)) (range 300000)))`,
		lisp.MemoryExceeded, lisp.Limits{}},
	{"transient writes are charged", `(let [t (transient {})] (dotimes [i 10000000] (assoc! t 1 i)))`,
		lisp.MemoryExceeded, lisp.Limits{MaxLoopIterations: -1, MaxSteps: -1}},

	// Cycles and shared structure through cells: every walk stays bounded.
	{"an atom that holds itself, printed", `(let [a (atom nil)] (reset! a a) (pr-str a))`, "", lisp.Limits{}},
	{"an atom that holds itself twice, printed", `(let [a (atom nil)] (reset! a [a a {a a}]) (str a))`, "", lisp.Limits{}},
	{"a cycle of atoms, printed", `(let [a (atom nil) b (atom nil)] (reset! a b) (reset! b a) (println a) (pr-str b))`, "", lisp.Limits{}},
	{"a chain of 100000 atoms, printed", `(let [a (reduce (fn [x _] (atom x)) nil (range 100000))] (count (pr-str a)))`, "", lisp.Limits{}},
	{"doubling through atoms, printed", `(let [a (reduce (fn [x _] (atom [x x])) 0 (range 60))] (pr-str a))`,
		lisp.MemoryExceeded, lisp.Limits{}},
	{"an atom that holds itself, compared", `(let [a (atom nil)] (reset! a [a]) [(= a a) (= @a @a) (hash a) (count #{a @a})])`, "", lisp.Limits{}},
	{"an atom that holds itself, in a set of itself", `(let [a (atom nil)] (reset! a #{a}) (contains? @a a))`, "", lisp.Limits{}},
	{"an atom that holds itself, sorted with others", `(let [a (atom nil) b (atom 1)] (reset! a [a b]) (sort [a b a]))`, "", lisp.Limits{}},
	{"an atom that holds itself, returned", `(let [a (atom nil)] (reset! a {:self a}) a)`, "", lisp.Limits{}},
	{"a transient that holds itself", `(let [t (transient [])] (conj! t t) (pr-str (persistent! t)))`, "", lisp.Limits{}},
	{"a volatile that holds itself", `(let [v (volatile! nil)] (vreset! v [v]) (pr-str v))`, "", lisp.Limits{}},
	{"printing a self-holding atom under the output limit", `(let [a (atom nil)] (reset! a (vec (repeat 1000 a))) (dotimes [i 100] (println a)))`,
		lisp.OutputExceeded, lisp.Limits{}},
	{"format of a self-holding atom", `(let [a (atom nil)] (reset! a a) (format "%s" a))`, "", lisp.Limits{}},

	// A transient vector changed in place: unbounded loops of writes stop
	// on steps, growth on memory, and goroutines sharing one see whole
	// values (run under -race).
	{"in-place assoc! forever", `(let [t (transient [0])] (loop [i 0] (assoc! t 0 i) (recur (inc i))))`,
		lisp.StepLimitExceeded, lisp.Limits{MaxSteps: 1_000_000, MaxLoopIterations: -1}},
	{"a transient vector grown by conj! is charged", `(let [t (transient [])] (dotimes [i 100000000] (conj! t i)))`,
		lisp.MemoryExceeded, lisp.Limits{MaxLoopIterations: -1, MaxSteps: -1}},
	{"a transient vector shared by pmap", `(let [t (transient (vec (range 64)))]
	   (doall (pmap (fn [i] (dotimes [j 200] (assoc! t (mod (+ i j) 64) j) (nth t j 0) (count t) (t 3) (contains? t 70)
	                  (conj! t i) (pop! t) (pr-str t))) (range 8)))
	   (count (persistent! t)))`, "", lisp.Limits{}},
	{"persistent! racing writes in pmap", `(let [t (transient [1 2 3])]
	   (doall (pmap (fn [i] (try (dotimes [j 100] (if (= i 3) (persistent! t) (assoc! t 0 j))) (catch Exception _ :ended))) (range 6))))`,
		"", lisp.Limits{}},

	// Transients cannot be used once persistent! ended them, in any goroutine.
	{"a transient after persistent!, in pmap", `(let [t (transient [])] (persistent! t) (doall (pmap #(conj! t %) [1 2])))`,
		lisp.InvalidArgument, lisp.Limits{}},
}

func TestStateHostilePrograms(t *testing.T) {
	for _, hc := range stateHostileCases {
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

// TestSwapIsAtomicUnderPmap: 100 goroutines that each swap! one atom 100
// times count exactly 10,000; the functions that lost a race ran again.
func TestSwapIsAtomicUnderPmap(t *testing.T) {
	src := `(let [a (atom 0) calls (atom 0) t (transient #{})]
	  (dorun (pmap (fn [i] (dotimes [_ 100] (swap! a (fn [x] (swap! calls inc) (inc x)))) (conj! t i)) (range 100)))
	  [@a (>= @calls 10000) (count (persistent! t))])`
	for range 3 {
		res := run(t, src, lisp.Options{Limits: lisp.Limits{MaxParallel: 100}})
		if got := lisp.Print(res.Value, lisp.PrintOptions{}); got != "[10000 true 100]" {
			t.Fatalf("got %s, want [10000 true 100]", got)
		}
	}
}

// TestCellsAcrossRuns: a def'd atom is the same cell in the runs that get
// the namespace; concurrent runs on one namespace swap! it atomically.
func TestCellsAcrossRuns(t *testing.T) {
	r1 := run(t, `(def counter (atom 0)) (def seen (volatile! [])) (def acc (transient []))`, lisp.Options{})
	ns := r1.Namespace
	for i := range 3 {
		res := run(t, `(swap! counter inc) (vswap! seen conj @counter) (conj! acc @counter) [@counter @seen (count acc)]`, lisp.Options{Namespace: ns})
		want := fmt.Sprintf("[%d %s %d]", i+1, lisp.Print(mustFromGo(t, seq(i+1)), lisp.PrintOptions{}), i+1)
		if got := lisp.Print(res.Value, lisp.PrintOptions{}); got != want {
			t.Fatalf("run %d: got %s, want %s", i, got, want)
		}
		ns = res.Namespace
	}
	var wg sync.WaitGroup
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := lisp.Run(context.Background(), `(dotimes [_ 50] (swap! counter inc))`, lisp.Options{Namespace: ns, Limits: lisp.Limits{Timeout: generous}}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if got := lisp.Print(run(t, `@counter`, lisp.Options{Namespace: ns}).Value, lisp.PrintOptions{}); got != "1003" {
		t.Errorf("after 20 concurrent runs: %s, want 1003", got)
	}
}

func seq(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i + 1
	}
	return out
}

// TestTransientVectorAcrossRuns: a transient vector a run changes in
// place is the one a later run finds; a failed run's in-place writes are
// undone, and a value taken out of the transient (Deref, persistent!) never
// changes afterwards.
func TestTransientVectorAcrossRuns(t *testing.T) {
	r1 := run(t, `(def acc (transient [0 0 0])) (assoc! acc 0 1) (conj! acc :a) (def kept (persistent! (transient [7])))`, lisp.Options{})
	cell, ok := r1.Namespace.Get("acc")
	if !ok {
		t.Fatal("acc is not defined")
	}
	seen := cell.(*lisp.Cell).Deref()
	ns := run(t, `(assoc! acc 1 2) (conj! acc :b)`, lisp.Options{Namespace: r1.Namespace}).Namespace
	if _, err := lisp.Run(context.Background(), `(assoc! acc 0 :lost 2 :lost) (conj! acc :lost) (pop! acc) (/ 1 nil)`, lisp.Options{Namespace: ns}); !errors.Is(err, lisp.TypeError) {
		t.Fatalf("got %v, want a type error", err)
	}
	res := run(t, `[(count acc) (persistent! acc)]`, lisp.Options{Namespace: ns})
	if got, want := lisp.Print(res.Value, lisp.PrintOptions{}), "[5 [1 2 0 :a :b]]"; got != want {
		t.Errorf("after a failed run: %s, want %s", got, want)
	}
	if got := lisp.Print(seen, lisp.PrintOptions{}); got != "[1 0 0 :a]" {
		t.Errorf("the value Deref gave after the first run changed: %s", got)
	}
}

// TestFailedRunRollsBackCells: a run that ends with an error leaves the
// cells of its namespace as they were, as it leaves its defs; (fail v)
// and (return v) keep what they changed.
func TestFailedRunRollsBackCells(t *testing.T) {
	r1 := run(t, `(def a (atom 0)) (def v (volatile! :v)) (def t (transient {:k 1})) (def box (atom nil))`, lisp.Options{})
	ns := r1.Namespace
	bad := `(swap! a + 5) (swap! a inc) (vreset! v :changed) (assoc! t :k 2) (persistent! t)
	        (reset! box (atom :made-here)) (dorun (pmap (fn [_] (swap! a inc)) (range 10))) (def b 1) (/ 1 nil)`
	res, err := lisp.Run(context.Background(), bad, lisp.Options{Namespace: ns})
	if !errors.Is(err, lisp.TypeError) {
		t.Fatalf("got %v, want a type error", err)
	}
	if res.Namespace != ns {
		t.Errorf("the failed run changed the namespace")
	}
	check := `[@a @v (get t :k) @box]`
	if got := lisp.Print(run(t, check, lisp.Options{Namespace: ns}).Value, lisp.PrintOptions{}); got != "[0 :v 1 nil]" {
		t.Errorf("after a failed run: %s, want [0 :v 1 nil]", got)
	}
	for _, end := range []string{`(fail :no)`, `(return :yes)`} {
		res := run(t, `(swap! a inc) `+end, lisp.Options{Namespace: ns})
		ns = res.Namespace
	}
	if got := lisp.Print(run(t, `@a`, lisp.Options{Namespace: ns}).Value, lisp.PrintOptions{}); got != "2" {
		t.Errorf("after fail and return: %s, want 2", got)
	}
}

// TestCellOrder: cells order (and so print in sets and maps) by creation,
// also across the runs of a namespace, and hash by identity: the same
// program prints the same text every time.
func TestCellOrder(t *testing.T) {
	var first string
	for i := range 3 {
		r1 := run(t, `(def a (atom :a))`, lisp.Options{})
		r2 := run(t, `(def b (atom :b)) (def c (atom :c))`, lisp.Options{Namespace: r1.Namespace})
		res := run(t, `[(sort [c a b]) #{c b a} {c 3 a 1 b 2} (= (hash a) (hash a)) (= a b)]`, lisp.Options{Namespace: r2.Namespace})
		got := lisp.Print(res.Value, lisp.PrintOptions{})
		if i == 0 {
			first = got
			want := `[[#atom[:a] #atom[:b] #atom[:c]] #{#atom[:a] #atom[:b] #atom[:c]} {#atom[:a] 1, #atom[:b] 2, #atom[:c] 3} true false]`
			if got != want {
				t.Fatalf("got  %s\nwant %s", got, want)
			}
		} else if got != first {
			t.Fatalf("run %d printed %s, before %s", i, got, first)
		}
	}
}

// TestCellsPrintReadConvert: cells print as #atom[...], read back with
// Read as new cells holding the same value, convert to Go and JSON as
// what they hold, and a cell that holds itself is cut in print and an
// error in conversions.
func TestCellsPrintReadConvert(t *testing.T) {
	res := run(t, `[(atom {:n [1 2.5 "x"]}) (volatile! :v) (transient #{1}) (atom (atom nil))]`, lisp.Options{})
	printed := lisp.Print(res.Value, lisp.PrintOptions{Exact: true})
	if want := `[#atom[{:n [1 2.5 "x"]}] #volatile[:v] #transient[#{1}] #atom[#atom[nil]]]`; printed != want {
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
	for i, kind := range []string{"atom", "volatile", "transient", "atom"} {
		c, ok := items[i].(*lisp.Cell)
		if !ok || c.Kind() != kind {
			t.Fatalf("item %d read as %#v, want a %s", i, items[i], kind)
		}
	}
	// A cell read back is a live cell: programs can swap! it.
	ns := lisp.NewNamespace(map[string]lisp.Value{"state": items[0]})
	if got := lisp.Print(run(t, `(swap! state update :n conj 3) @state`, lisp.Options{Namespace: ns}).Value, lisp.PrintOptions{}); got != `{:n [1 2.5 "x" 3]}` {
		t.Errorf("swap! of a cell read back: %s", got)
	}
	if j, err := lisp.ToJSON(res.Value, nil); err != nil || string(j) != `[{"n":[1,2.5,"x"]},"v",[1],null]` {
		t.Errorf("ToJSON: %s %v", j, err)
	}
	if g, err := lisp.ToGo(items[0]); err != nil || fmt.Sprint(g) != `map[n:[1 2.5 x 3]]` {
		t.Errorf("ToGo: %v %v", g, err)
	}
	c := items[0].(*lisp.Cell)
	if s, gs := c.String(), fmt.Sprintf("%#v", c); s != `#atom[{:n [1 2.5 "x" 3]}]` || gs != `(*lisp.Cell)(#atom[{:n [1 2.5 "x" 3]}])` {
		t.Errorf("String %s, GoString %s", s, gs)
	}

	for _, bad := range []string{"#atom[1 2]", "#atom[]", "#transient[1]", "#atom[1", "#atom[[#atom[...]]]"} {
		if v, err := lisp.Read(bad, lisp.ReadOptions{}); err == nil {
			t.Errorf("ReadValue(%q) = %v, want an error", bad, v)
		}
	}
	if _, err := lisp.Read(strings.Repeat("#atom[", 20)+"1"+strings.Repeat("]", 20), lisp.ReadOptions{MaxDepth: 10}); !errors.Is(err, lisp.DepthExceeded) {
		t.Errorf("20 nested atoms with MaxDepth 10: %v", err)
	}

	cyclic := run(t, `(let [a (atom nil) b (atom nil)] (reset! a [1 b]) (reset! b {:a a}) a)`, lisp.Options{}).Value
	if p := lisp.Print(cyclic, lisp.PrintOptions{Exact: true}); p != `#atom[[1 #atom[{:a #atom[...]}]]]` {
		t.Errorf("PrintExact of a cycle: %s", p)
	}
	if _, err := lisp.Read(lisp.Print(cyclic, lisp.PrintOptions{Exact: true}), lisp.ReadOptions{}); err == nil {
		t.Error("a cut cycle read back")
	}
	if _, err := lisp.ToGo(cyclic); !errors.Is(err, lisp.InvalidArgument) {
		t.Errorf("ToGo of a cycle: %v", err)
	}
	if _, err := lisp.ToJSON(cyclic, nil); !errors.Is(err, lisp.InvalidArgument) {
		t.Errorf("ToJSON of a cycle: %v", err)
	}
	// The same cell twice, not in a cycle, converts twice.
	if j, err := lisp.ToJSON(run(t, `(let [a (atom 1)] [a a {:b a}])`, lisp.Options{}).Value, nil); err != nil || string(j) != `[1,1,{"b":1}]` {
		t.Errorf("ToJSON of a shared cell: %s %v", j, err)
	}
}

// TestCellsRedacted: a redaction sees inside cells: what it hides stays
// hidden in an atom, and a cell it hides hides what it will hold.
func TestCellsRedacted(t *testing.T) {
	v := run(t, `(def box (atom {:name "ada" :secret "s3cr3t-value"})) [box (atom [box])]`, lisp.Options{}).Value
	box := v.(*lisp.Vector).At(0)
	red := &lisp.Redaction{Placeholder: "<hidden>", Value: func(x lisp.Value) bool { return x == "s3cr3t-value" }}
	if got := lisp.Print(v, lisp.PrintOptions{Redact: red}); got != `[#atom[{:name "ada", :secret <hidden>}] #atom[[#atom[{:name "ada", :secret <hidden>}]]]]` {
		t.Errorf("FormatValue: %s", got)
	}
	if j, err := lisp.ToJSON(v, red); err != nil || string(j) != `[{"name":"ada","secret":"<hidden>"},[{"name":"ada","secret":"<hidden>"}]]` {
		t.Errorf("ToJSON: %s %v", j, err)
	}
	whole := &lisp.Redaction{Placeholder: "<hidden>", Value: func(x lisp.Value) bool { return x == box }}
	if got := lisp.Print(v, lisp.PrintOptions{Redact: whole}); got != `[<hidden> #atom[[<hidden>]]]` {
		t.Errorf("FormatValue hiding the cell: %s", got)
	}
	// println output of a run goes through Options.Redact, inside cells too.
	res := run(t, `(println (atom {:secret "s3cr3t-value"}))`, lisp.Options{Redact: red})
	if len(res.Output) != 1 || res.Output[0] != `#atom[{:secret <hidden>}]` {
		t.Errorf("println: %q", res.Output)
	}
}

// TestZeroCell: a Cell a Go caller makes with new is an atom holding nil.
func TestZeroCell(t *testing.T) {
	c := new(lisp.Cell)
	ns := lisp.NewNamespace(map[string]lisp.Value{"c": c})
	res := run(t, `[@c (swap! c (fnil inc 0)) (reset! c 5) (compare-and-set! c 5 6) @c]`, lisp.Options{Namespace: ns})
	if got := lisp.Print(res.Value, lisp.PrintOptions{}); got != "[nil 1 5 true 6]" || c.Kind() != "atom" || c.Version() != 3 {
		t.Errorf("got %s, kind %s, version %d", got, c.Kind(), c.Version())
	}
}
