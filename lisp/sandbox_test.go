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

// Recursion through pmap and pcalls: every branch continues its caller's
// call depth, the goroutines of a run are bounded by MaxParallel, and the
// deadline, the caller's context and the memory budget reach every branch.

// generous is a timeout no case needs: the deterministic limits decide.
const generous = 5 * time.Minute

func TestParallelRecursionIsContained(t *testing.T) {
	cases := []struct {
		name string
		src  string
		want []lisp.Kind // any of these
	}{
		{"pmap chain", `(defn f [n] (pmap (fn [_] (f (inc n))) [1])) (f 0)`, []lisp.Kind{lisp.DepthExceeded}},
		{"pcalls chain", `(defn f [n] (pcalls #(f (inc n)))) (f 0)`, []lisp.Kind{lisp.DepthExceeded}},
		{"pmap fan-out", `(defn f [n] (pmap (fn [_] (f (inc n))) [1 2 3])) (f 0)`, []lisp.Kind{lisp.DepthExceeded, lisp.MemoryExceeded}},
		{"pcalls fan-out", `(defn f [n] (pcalls #(f (inc n)) #(f (inc n)))) (f 0)`, []lisp.Kind{lisp.DepthExceeded, lisp.MemoryExceeded}},
		{"mutual recursion through pmap", `(defn a [n] (pmap (fn [_] (b n)) [1 2])) (defn b [n] (pcalls #(a n))) (a 0)`,
			[]lisp.Kind{lisp.DepthExceeded, lisp.MemoryExceeded}},
		{"pmap inside map", `(defn f [n] (doall (map (fn [x] (pmap f [x x])) [n]))) (f 0)`, []lisp.Kind{lisp.DepthExceeded, lisp.MemoryExceeded}},
		{"nested pmap of endless loops", `(pmap (fn [_] (pmap (fn [_] (loop [] (recur))) (range 8))) (range 8))`, []lisp.Kind{lisp.StepLimitExceeded}},
		{"one branch fails, the others loop", `(pmap (fn [i] (if (= i 0) (+ 1 "x") (loop [] (recur)))) (range 4))`,
			[]lisp.Kind{lisp.TypeError, lisp.StepLimitExceeded}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := runtime.NumGoroutine()
			_, err := lisp.Run(context.Background(), tc.src, lisp.Options{Limits: lisp.Limits{
				Timeout: generous, MaxLoopIterations: -1, MaxSteps: 5_000_000, MaxDepth: 1000}})
			ok := false
			for _, k := range tc.want {
				ok = ok || errors.Is(err, k)
			}
			if !ok {
				t.Fatalf("got %v, want one of %v", err, tc.want)
			}
			waitGoroutines(t, before)
		})
	}
}

// waitGoroutines fails when goroutines started since before are still
// running a while after the run returned.
func waitGoroutines(t *testing.T, before int) {
	t.Helper()
	deadline := time.Now().Add(time.Minute) // generous: a busy machine schedules them late
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Errorf("%d goroutines before the run, %d after", before, n)
	}
}

// A branch continues its caller's depth: two frames per level (f and the
// fn), so 2,400 levels fit in 5,000 and 2,600 do not.
func TestBranchesInheritDepth(t *testing.T) {
	prog := `(defn f [n] (if (= n 0) 0 (inc (first (pmap (fn [_] (f (dec n))) [1]))))) (f %d)`
	limits := lisp.Limits{Timeout: generous, MaxDepth: 5000}
	res, err := lisp.Run(context.Background(), fmt.Sprintf(prog, 2400), lisp.Options{Limits: limits})
	if err != nil || res.Value != int64(2400) {
		t.Fatalf("2,400 levels: got %v, %v", res.Value, err)
	}
	_, err = lisp.Run(context.Background(), fmt.Sprintf(prog, 2600), lisp.Options{Limits: limits})
	if !errors.Is(err, lisp.DepthExceeded) {
		t.Fatalf("2,600 levels: got %v, want depth_exceeded", err)
	}
}

// However a program forks, no more than MaxParallel goroutines evaluate it
// at once: a tool called from every branch sees the concurrency.
func TestMaxParallelBoundsGoroutines(t *testing.T) {
	for _, limit := range []int{1, 3, 16} {
		var inFlight, peak atomic.Int64
		tools := lisp.Tools{"probe": func(context.Context, *lisp.Map) (any, error) {
			n := inFlight.Add(1)
			for {
				p := peak.Load()
				if n <= p || peak.CompareAndSwap(p, n) {
					break
				}
			}
			time.Sleep(200 * time.Microsecond)
			inFlight.Add(-1)
			return 1, nil
		}}
		src := `(defn f [n] (if (= n 0) (tool/probe {}) (reduce + (pmap (fn [_] (f (dec n))) (range 4))))) (f 4)`
		res, err := lisp.Run(context.Background(), src, lisp.Options{Tools: tools,
			Limits: lisp.Limits{Timeout: generous, MaxParallel: limit}})
		if err != nil || res.Value != int64(256) {
			t.Fatalf("MaxParallel %d: got %v, %v", limit, res.Value, err)
		}
		if p := peak.Load(); p > int64(limit) {
			t.Errorf("MaxParallel %d: %d tool calls ran at once", limit, p)
		}
	}
}

// Cancellation and deadlines reach recursive branches promptly, although
// each branch does almost nothing but fork.
func TestParallelRecursionStopsOnTime(t *testing.T) {
	// Each level forks two branches: one loops for ever, the other forks
	// again. Only time can end these runs.
	src := `(defn f [] (pcalls #(loop [] (recur)) f)) (f)`
	limits := lisp.Limits{Timeout: generous, MaxLoopIterations: -1, MaxSteps: -1, MaxMemory: -1}
	check := func(t *testing.T, ctx context.Context, limits lisp.Limits, want lisp.Kind) {
		t.Helper()
		before := runtime.NumGoroutine()
		start := time.Now()
		_, err := lisp.Run(ctx, src, lisp.Options{Limits: limits})
		if !errors.Is(err, want) {
			t.Fatalf("got %v, want %s", err, want)
		}
		if d := time.Since(start); d > 30*time.Millisecond+timeMargin {
			t.Errorf("stopped after %v", d)
		}
		waitGoroutines(t, before)
	}
	t.Run("cancelled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(30*time.Millisecond, cancel)
		check(t, ctx, limits, lisp.Cancelled)
	})
	t.Run("caller deadline", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
		defer cancel()
		check(t, ctx, limits, lisp.Timeout)
	})
	t.Run("run timeout", func(t *testing.T) {
		l := limits
		l.Timeout = 30 * time.Millisecond
		check(t, context.Background(), l, lisp.Timeout)
	})
}

// Output is kept until the run ends: without an output limit, the memory
// limit bounds it.
func TestUnlimitedOutputIsCharged(t *testing.T) {
	_, err := lisp.Run(context.Background(), `(dotimes [i 100000000] (println))`, lisp.Options{Limits: lisp.Limits{
		Timeout: generous, MaxOutputBytes: -1, MaxLoopIterations: -1, MaxSteps: -1, MaxMemory: 16 << 20}})
	if !errors.Is(err, lisp.MemoryExceeded) {
		t.Fatalf("got %v, want memory_exceeded", err)
	}
}

// The output limit is shared by all branches of a run.
func TestBranchOutputIsBounded(t *testing.T) {
	src := `(dorun (pmap (fn [i] (print (apply str (repeat 1000 "x")))) (range 1000)))`
	res, err := lisp.Run(context.Background(), src, lisp.Options{Limits: lisp.Limits{Timeout: generous, MaxOutputBytes: 64 << 10}})
	if !errors.Is(err, lisp.OutputExceeded) {
		t.Fatalf("got %v, want output_exceeded", err)
	}
	if n := len(strings.Join(res.Output, "\n")); n > 64<<10 {
		t.Errorf("%d bytes of output kept", n)
	}
}

// Programs are limited in size, and what their literals build is charged.
func TestSourceLimits(t *testing.T) {
	big := "(count [" + strings.Repeat("1 ", docSourceBytes) + "])"
	if _, err := lisp.Compile(big); !errors.Is(err, lisp.ParseError) || !strings.Contains(err.Error(), "limit") {
		t.Fatalf("a %d-byte program: got %v, want a parse error naming the limit", len(big), err)
	}
	// 100,000 literal values weigh about 1.8 MB.
	src := "(count [" + strings.Repeat("1 ", 100_000) + "])"
	if _, err := lisp.Run(context.Background(), src, lisp.Options{Limits: lisp.Limits{MaxMemory: 1 << 20, Timeout: generous}}); !errors.Is(err, lisp.MemoryExceeded) {
		t.Fatalf("literals over the memory limit: got %v", err)
	}
	if res, err := lisp.Run(context.Background(), src, lisp.Options{Limits: lisp.Limits{MaxMemory: 4 << 20, Timeout: generous}}); err != nil || res.Value != int64(100_000) {
		t.Fatalf("literals within the memory limit: got %v, %v", res.Value, err)
	}
}

// Regex literals are compiled once, with the program, within a budget;
// patterns compiled at run time count against the run's limits.
func TestRegexCompilationIsBounded(t *testing.T) {
	run := func(src string, limits lisp.Limits) (*lisp.Result, error) {
		limits.Timeout = generous
		return lisp.Run(context.Background(), src, lisp.Options{Limits: limits})
	}
	if res, err := run(`(let [f (fn [] #"a+")] (identical? (f) (f)))`, lisp.Limits{}); err != nil || res.Value != true {
		t.Errorf("a literal evaluated twice: got %v, %v; want the same regex", res.Value, err)
	}
	if _, err := run(`#"\pL{1,1000}"`, lisp.Limits{}); !errors.Is(err, lisp.InvalidArgument) || !strings.Contains(err.Error(), "too large") {
		t.Errorf("one huge pattern: got %v", err)
	}
	var many strings.Builder
	for i := range 100 {
		fmt.Fprintf(&many, `#"\pL{1,%d}" `, 200+i)
	}
	if _, err := lisp.Compile(many.String()); !errors.Is(err, lisp.InvalidArgument) || !strings.Contains(err.Error(), "regexes are too large") {
		t.Errorf("many large literals: got %v", err)
	}
	loop := `(count (for [i (range 5000)] (re-pattern (str "\\pL{1," (+ 100 (mod i 100)) "}"))))`
	if _, err := run(loop, lisp.Limits{MaxMemory: -1, MaxSteps: 10_000_000}); !errors.Is(err, lisp.StepLimitExceeded) {
		t.Errorf("compiling in a loop, steps: got %v", err)
	}
	if _, err := run(loop, lisp.Limits{MaxSteps: -1}); !errors.Is(err, lisp.MemoryExceeded) {
		t.Errorf("compiling in a loop, memory: got %v", err)
	}
}

// Work inside one builtin call counts: comparing, hashing and copying big
// host values in a loop runs into the step, memory and time limits.
func TestBigValueWorkCounts(t *testing.T) {
	big := make([]int, 200_000)
	for i := range big {
		big[i] = i
	}
	data := mustFromGo(t, map[string]any{"v": big, "w": append([]int(nil), big...)})
	steps := lisp.Limits{Timeout: generous, MaxSteps: 4_000_000, MaxLoopIterations: -1, MaxMemory: -1}
	mem := lisp.Limits{Timeout: generous, MaxSteps: -1, MaxLoopIterations: -1, MaxMemory: 16 << 20}
	cases := []struct {
		name, src string
		limits    lisp.Limits
		want      lisp.Kind
	}{
		{"equality", `(dotimes [i 100000] (= ctx/v ctx/w))`, steps, lisp.StepLimitExceeded},
		{"inequality", `(dotimes [i 100000] (not= ctx/v ctx/w))`, steps, lisp.StepLimitExceeded},
		{"compare", `(dotimes [i 100000] (compare ctx/v ctx/w))`, steps, lisp.StepLimitExceeded},
		{"hash", `(dotimes [i 100000] (hash ctx/v))`, steps, lisp.StepLimitExceeded},
		{"distinct", `(count (distinct (repeat 100000 ctx/v)))`, steps, lisp.StepLimitExceeded},
		{"conj onto a host vector", `(count (mapv (fn [i] (conj ctx/v i)) (range 1000)))`, mem, lisp.MemoryExceeded},
		{"assoc into a host vector", `(dotimes [i 1000] (assoc ctx/v 0 i))`, mem, lisp.MemoryExceeded},
		{"update of a host vector", `(dotimes [i 1000] (update ctx/v 5 inc))`, mem, lisp.MemoryExceeded},
		{"into a host vector", `(dotimes [i 1000] (into ctx/v [1]))`, mem, lisp.MemoryExceeded},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := lisp.Run(context.Background(), tc.src, lisp.Options{Input: data, Limits: tc.limits})
			if !errors.Is(err, tc.want) {
				t.Fatalf("got %v, want %s", err, tc.want)
			}
		})
	}
	t.Run("equality stops at the deadline", func(t *testing.T) {
		start := time.Now()
		_, err := lisp.Run(context.Background(), `(dotimes [i 100000] (= ctx/v ctx/w))`, lisp.Options{Input: data,
			Limits: lisp.Limits{Timeout: 50 * time.Millisecond, MaxSteps: -1, MaxLoopIterations: -1}})
		if !errors.Is(err, lisp.Timeout) {
			t.Fatalf("got %v, want timeout", err)
		}
		if d := time.Since(start); d > 50*time.Millisecond+timeMargin {
			t.Errorf("stopped after %v", d)
		}
	})
}

// A run whose context has ended does not start, however short the program.
func TestEndedContextRunsNothing(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	called := false
	tools := lisp.Tools{"t": func(context.Context, *lisp.Map) (any, error) { called = true; return 1, nil }}
	if _, err := lisp.Run(ctx, `(tool/t {})`, lisp.Options{Tools: tools}); !errors.Is(err, lisp.Cancelled) || called {
		t.Fatalf("got %v (tool called: %v), want cancelled before anything ran", err, called)
	}
}
