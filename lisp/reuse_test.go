package lisp

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

// A Program keeps the thread of a finished run for the next one. Every run
// must behave as a first run: same results, steps, limits and memory
// charges, and the kept thread must not hold the last run's values.
func TestProgramReusesThread(t *testing.T) {
	opts := Options{Limits: Limits{Timeout: 5 * time.Minute}}
	for _, tc := range []struct {
		name, src string
		limits    Limits
		kind      Kind // of the error every run must fail with, or ""
	}{
		{name: "value", src: `(let [v (vec (range 100))] (count v))`},
		{name: "loop", src: `(loop [i 0 acc 0] (if (< i 1000) (recur (inc i) (+ acc i)) acc))`},
		{name: "deep calls", src: `(defn f [n] (if (zero? n) 0 (inc (f (dec n))))) (f 300)`},
		// 300 nested calls charge 300 KB for their frames: over the limit
		// in every run, also once the thread has the frames.
		{name: "frames charged each run", src: `(defn f [n] (if (zero? n) 0 (inc (f (dec n))))) (f 300)`,
			limits: Limits{MaxMemory: 200 << 10}, kind: MemoryExceeded},
		{name: "depth", src: `(defn f [n] (inc (f n))) (f 1)`, limits: Limits{MaxDepth: 50}, kind: DepthExceeded},
		{name: "steps", src: `(loop [i 0] (if (< i 5000) (recur (inc i)) i))`, limits: Limits{MaxSteps: 3000},
			kind: StepLimitExceeded},
		{name: "panic left frames", src: `(defn f [n] (if (zero? n) (vec (repeat 100000000 1)) (f (dec n)))) (f 20)`,
			limits: Limits{MaxMemory: 1 << 20}, kind: MemoryExceeded},
		{name: "output", src: `(dotimes [i 3] (println i)) :done`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Compile(tc.src)
			if err != nil {
				t.Fatal(err)
			}
			o := opts
			o.Limits = tc.limits
			o.Limits.Timeout = 5 * time.Minute
			var first *Result
			for i := range 3 {
				res, err := p.Run(context.Background(), o)
				if tc.kind != "" {
					var e *Error
					if !errors.As(err, &e) || e.Kind != tc.kind {
						t.Fatalf("run %d: error %v, want kind %s", i, err, tc.kind)
					}
				} else if err != nil {
					t.Fatalf("run %d: %v", i, err)
				}
				if i == 0 {
					first = res
					continue
				}
				if !Equal(res.Value, first.Value) || res.Steps != first.Steps || len(res.Output) != len(first.Output) {
					t.Fatalf("run %d: value %v, %d steps, output %q; first run: %v, %d steps, output %q",
						i, res.Value, res.Steps, res.Output, first.Value, first.Steps, first.Output)
				}
				th := p.spare.Load()
				if th == nil {
					t.Fatalf("run %d kept no thread", i)
				}
				for _, c := range th.stack.chunks {
					for j, v := range c {
						if v != nil {
							t.Fatalf("the kept thread's stack holds %v at %d", v, j)
						}
					}
				}
				for _, f := range th.frames {
					if f.slots != nil || f.captured != nil || f.self != nil {
						t.Fatal("the kept thread holds a frame's values")
					}
				}
				if th.fp != 0 || th.out != nil || th.run != nil || th.globals != nil {
					t.Fatalf("the kept thread was not reset: fp %d, out %q", th.fp, th.out)
				}
			}
		})
	}
}

// Runs of one Program at the same time share no thread.
func TestProgramConcurrentRuns(t *testing.T) {
	p, err := Compile(`(defn f [n acc] (if (zero? n) acc (f (dec n) (+ acc n)))) (f ctx/n 0)`)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 50 {
				n := int64(g*100 + i)
				res, err := p.Run(context.Background(), Options{Input: map[string]any{"n": n},
					Limits: Limits{Timeout: 5 * time.Minute}})
				if err != nil {
					t.Error(err)
					return
				}
				if res.Value != n*(n+1)/2 {
					t.Errorf("n=%d: got %v", n, res.Value)
					return
				}
			}
		})
	}
	wg.Wait()
}

// A run of a compiled program allocates its Result and its shared state
// only; a new thread is one allocation (docs/performance.md).
func TestRunAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("allocations differ under the race detector")
	}
	p, err := Compile(`(+ 1 2)`)
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{Limits: Limits{Timeout: 5 * time.Minute}}
	if n := testing.AllocsPerRun(20, func() {
		if _, err := p.Run(context.Background(), opts); err != nil {
			t.Fatal(err)
		}
	}); n > 2 {
		t.Errorf("a run of (+ 1 2) allocates %v times, want 2", n)
	}
	run := &runState{}
	if n := testing.AllocsPerRun(20, func() { _ = newThread(run, nil) }); n != 1 {
		t.Errorf("a new thread takes %v allocations, want 1", n)
	}
	// The first run of a new program takes the thread that came with it.
	for _, src := range []string{`(+ 1 2)`, `(let [a 1 b 2 c 3 d 4 e 5] (+ a b c d e))`} {
		progs := make([]*Program, 25)
		for i := range progs {
			if progs[i], err = Compile(src); err != nil {
				t.Fatal(err)
			}
		}
		i := 0
		if n := testing.AllocsPerRun(20, func() {
			if _, err := progs[i].Run(context.Background(), opts); err != nil {
				t.Fatal(err)
			}
			i++
		}); n > 2 {
			t.Errorf("the first run of %s allocates %v times, want 2", src, n)
		}
	}
}

// A straight-line program gets a small first thread (see compile): its
// value stack grows when nested calls need more, in every run alike.
func TestSmallThreadGrows(t *testing.T) {
	// a is a local: calls of constants only would be folded when compiled.
	src := `(let [a 1] (+ a (+ a 2 3 4 5 6 7 8 9) (+ a 2 3 4 5 6 7 8 9 (+ a 2 3 4 5 6 7 8 9 (- 9 8 7 6 5 4 3 2 a)))))`
	p, err := Compile(src)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(p.spare.Load().stack.chunks[0]); n != smallStackChunk {
		t.Fatal("the program did not get a small thread")
	}
	opts := Options{Limits: Limits{Timeout: 5 * time.Minute}}
	for i := range 3 {
		res, err := p.Run(context.Background(), opts)
		if err != nil {
			t.Fatal(err)
		}
		if res.Value != int64(109) {
			t.Fatalf("run %d: got %v, want 109", i, res.Value)
		}
		if n := len(p.spare.Load().stack.chunks); n < 2 {
			t.Fatalf("run %d: the stack has %d chunk(s): the test no longer makes it grow", i, n)
		}
	}
}
