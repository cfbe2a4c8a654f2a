package lisp_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"

	"github.com/ptc-go/ptc/lisp"
)

// A builtin name a run defines means the user's value in the later runs
// that share its namespace, on every path: calls, arguments, fused
// pipelines, fast-path loops, transducers, pmap branches, threading.
func TestShadowedBuiltinAcrossRuns(t *testing.T) {
	first := run(t, `(defn f [xs] (count xs)) (defn count [xs] 42) (defn inc [x] (+ x 2)) (def entries [[1 2] [3]])`, lisp.Options{})
	if want := []string{"count", "inc", "entries"}; !slices.Equal(first.Shadowed, want) {
		t.Errorf("Shadowed = %v, want %v", first.Shadowed, want)
	}
	ns := first.Namespace
	for _, tc := range []struct{ src, want string }{
		{`(count [1 2])`, `42`},
		{`(clojure.core/count [1 2])`, `2`},
		{`(map count entries)`, `[42 42]`},
		{`(->> entries (map count) (reduce +))`, `84`},
		{`(->> [1 2 3] (map inc) (filter odd?) count)`, `42`},
		{`(->> [1 2 3] (map inc) (filter odd?) (clojure.core/count))`, `2`},
		{`(loop [i 0] (if (< i 3) (recur (inc i)) i))`, `4`},
		{`(into [] (map inc) [1 2])`, `[3 4]`},
		{`(vec (pmap count entries))`, `[42 42]`},
		{`[(-> 1 inc) (#(inc %) 1) (some-> 1 inc) (for [x [1]] (inc x))]`, `[3 3 3 [3]]`},
		// f was compiled above the def of count: it keeps the builtin.
		{`(f [1 2])`, `2`},
		// A local still wins.
		{`(let [count (fn [_] :local)] (count [1]))`, `:local`},
	} {
		res := run(t, tc.src, lisp.Options{Namespace: ns})
		if got := lisp.Print(res.Value, lisp.PrintOptions{}); got != tc.want {
			t.Errorf("%s = %s, want %s", tc.src, got, tc.want)
		}
		if len(res.Shadowed) != 0 {
			t.Errorf("%s: Shadowed = %v, want none", tc.src, res.Shadowed)
		}
	}
	// Redefining an already shadowed name is not news; a failed run
	// defines nothing.
	if res := run(t, `(defn count [xs] 7) (count [])`, lisp.Options{Namespace: ns}); len(res.Shadowed) != 0 || lisp.Print(res.Value, lisp.PrintOptions{}) != "7" {
		t.Errorf("redefinition: Shadowed = %v, value %s", res.Shadowed, lisp.Print(res.Value, lisp.PrintOptions{}))
	}
	res, err := lisp.Run(context.Background(), `(defn first [x] x) (+ 1 "x")`, lisp.Options{Namespace: ns})
	if err == nil || len(res.Shadowed) != 0 || len(res.Defined) != 0 {
		t.Errorf("failed run: err %v, Shadowed %v, Defined %v", err, res.Shadowed, res.Defined)
	}
	// Without the var the builtin is back.
	if res := run(t, `(count [1 2])`, lisp.Options{Namespace: ns.Without("count")}); lisp.Print(res.Value, lisp.PrintOptions{}) != "2" {
		t.Errorf("after Without: %s", lisp.Print(res.Value, lisp.PrintOptions{}))
	}
}

// A compiled Program reads a builtin name as the namespace it runs in
// says: the builtin in an empty namespace, the user's value where a run
// defined it, concurrently.
func TestCompiledProgramInShadowingNamespace(t *testing.T) {
	prog, err := lisp.Compile(`[(count [1 2]) (->> [1 2 3] (map inc) (reduce +)) (first [5 6])]`)
	if err != nil {
		t.Fatal(err)
	}
	spaces := []struct {
		ns   *lisp.Namespace
		want string
	}{
		{nil, `[2 9 5]`},
		// Vars a host binds are data: the builtin stays.
		{lisp.NewNamespace(map[string]lisp.Value{"count": int64(1)}), `[2 9 5]`},
		{run(t, `(defn count [_] 42)`, lisp.Options{}).Namespace, `[42 9 5]`},
		{run(t, `(defn inc [x] (* 10 x)) (defn count [_] 0)`, lisp.Options{}).Namespace, `[0 60 5]`},
		{run(t, `(def first 1)`, lisp.Options{}).Namespace, ``}, // 1 is not a function
		{run(t, `(memory/put :first (fn [xs] :mine))`, lisp.Options{}).Namespace, `[2 9 :mine]`},
	}
	var wg sync.WaitGroup
	for round := 0; round < 4; round++ {
		for _, sp := range spaces {
			wg.Add(1)
			go func() {
				defer wg.Done()
				res, err := prog.Run(context.Background(), lisp.Options{Namespace: sp.ns, Limits: lisp.Limits{Timeout: generous}})
				switch {
				case sp.want == "" && err == nil:
					t.Errorf("%v: no error, want not_callable", sp.ns.Names())
				case sp.want == "" && kindOf(err) != lisp.NotCallable:
					t.Errorf("%v: %v, want not_callable", sp.ns.Names(), err)
				case sp.want != "" && err != nil:
					t.Errorf("%v: %v", sp.ns.Names(), err)
				case sp.want != "" && lisp.Print(res.Value, lisp.PrintOptions{}) != sp.want:
					t.Errorf("%v: %s, want %s", sp.ns.Names(), lisp.Print(res.Value, lisp.PrintOptions{}), sp.want)
				}
			}()
		}
	}
	wg.Wait()
}

// memory/put under a builtin name shadows it for the later runs, as def
// does; the names the language needs stay reserved.
func TestMemoryPutShadowsBuiltin(t *testing.T) {
	first := run(t, `(memory/put :inc 5)`, lisp.Options{})
	if !slices.Equal(first.Shadowed, []string{"inc"}) {
		t.Errorf("Shadowed = %v", first.Shadowed)
	}
	if res := run(t, `[(+ inc 1) memory/inc (clojure.core/inc 1)]`, lisp.Options{Namespace: first.Namespace}); lisp.Print(res.Value, lisp.PrintOptions{}) != "[6 5 2]" {
		t.Errorf("got %s", lisp.Print(res.Value, lisp.PrintOptions{}))
	}
	for _, name := range []string{"return", "fail", "call", "when", "*1"} {
		_, err := lisp.Run(context.Background(), `(memory/put :`+name+` 1)`, lisp.Options{})
		if kindOf(err) != lisp.CannotShadowBuiltin {
			t.Errorf("memory/put :%s: %v, want cannot_shadow_builtin", name, err)
		}
	}
}

func kindOf(err error) lisp.Kind {
	var le *lisp.Error
	if errors.As(err, &le) {
		return le.Kind
	}
	return ""
}

// Vars a host binds (an agent's map results: {:count 3}) are data: the
// plain name stays the builtin, memory/name reads the var; binding a name
// a program shadowed gives the builtin back.
func TestHostVarsDoNotShadow(t *testing.T) {
	ns := lisp.NewNamespace(map[string]lisp.Value{"count": int64(3)}).With("first", "x")
	if got := ns.Shadowed(); len(got) != 0 {
		t.Errorf("Shadowed() = %v, want none", got)
	}
	res := run(t, `[(count [1 2]) memory/count (first [5]) memory/first]`, lisp.Options{Namespace: ns})
	if got := lisp.Print(res.Value, lisp.PrintOptions{}); got != `[2 3 5 "x"]` {
		t.Errorf("got %s", got)
	}
	shadowing := run(t, `(defn count [_] 42) (defn first [_] :mine)`, lisp.Options{Namespace: ns}).Namespace
	if got := shadowing.Shadowed(); !slices.Equal(got, []string{"count", "first"}) {
		t.Errorf("Shadowed() = %v", got)
	}
	back := shadowing.WithVars(map[string]lisp.Value{"count": int64(7)})
	if got := back.Shadowed(); !slices.Equal(got, []string{"first"}) {
		t.Errorf("after WithVars: Shadowed() = %v", got)
	}
	res = run(t, `[(count [1 2]) memory/count (first [5])]`, lisp.Options{Namespace: back})
	if got := lisp.Print(res.Value, lisp.PrintOptions{}); got != `[2 7 :mine]` {
		t.Errorf("got %s", got)
	}
	if got := shadowing.Without("first").Shadowed(); !slices.Equal(got, []string{"count"}) {
		t.Errorf("after Without: Shadowed() = %v", got)
	}
}
