package lisp_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ptc-go/ptc/lisp"
)

// Host functions: Go helpers a program calls as it calls a builtin.
func ExampleFuncs() {
	funcs, err := lisp.NewFuncs(map[string]any{
		"slug": func(s string) string { return strings.ReplaceAll(strings.ToLower(s), " ", "-") },
		"clamp": func(x, lo, hi float64) float64 {
			return min(max(x, lo), hi)
		},
	})
	if err != nil {
		panic(err)
	}
	prog, err := funcs.Compile(`{:slugs (mapv slug ctx/titles) :score (clamp 1.7 0 1)}`)
	if err != nil {
		panic(err)
	}
	res, err := prog.Run(context.Background(), lisp.Options{Input: map[string]any{"titles": []string{"Hello World", "Go Fast"}}})
	fmt.Println(lisp.Print(res.Value, lisp.PrintOptions{}), err)
	_, err = funcs.Compile(`(slug "a" "b")`)
	fmt.Println(err)
	// Output:
	// {:score 1.0, :slugs ["hello-world" "go-fast"]} <nil>
	// 1:1: arity_error: slug expects 1 argument(s), got 2
}

func testFuncs(t *testing.T, extra map[string]any) *lisp.Funcs {
	t.Helper()
	fns := map[string]any{
		"slug": func(s string) string { return strings.ReplaceAll(strings.ToLower(s), " ", "-") },
		"sum-of": func(xs ...int) int {
			s := 0
			for _, x := range xs {
				s += x
			}
			return s
		},
		"boom":  func() (string, error) { return "", errors.New("bad input") },
		"kaput": func(x int) int { panic("kaput") },
		"names": func(m map[string][]string) int { return len(m["names"]) },
		"raw":   func(v lisp.Value) string { return lisp.Print(v, lisp.PrintOptions{}) },
		"big":   func(n int) string { return strings.Repeat("x", n) },
		"noop":  func() {},
		"small": func(x int8) int8 { return x },
	}
	for k, v := range extra {
		fns[k] = v
	}
	f, err := lisp.NewFuncs(fns)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestFuncsCalls: arguments convert to the Go types, results back, and
// mismatches are errors with the right kind, at compile time for literals.
func TestFuncsCalls(t *testing.T) {
	funcs := testFuncs(t, nil)
	cases := []struct {
		src      string
		want     string    // printed value, when no error
		kind     lisp.Kind // the error's kind
		compile  bool      // the error comes from compiling
		position string    // the error's position
		msg      string    // a part of its message
	}{
		{src: `(slug "Hello World")`, want: `"hello-world"`},
		{src: `(slug :Key)`, want: `"key"`},
		{src: `(sum-of)`, want: `0`},
		{src: `(sum-of 1 2 3)`, want: `6`},
		{src: `(apply sum-of (range 5))`, want: `10`},
		{src: `(names {:names (take 3 (map str (range)))})`, want: `3`},
		{src: `(names {:names (map str (range))})`, kind: lisp.TypeError, msg: "names expects a map of vector of string"},
		{src: `(map slug ["A B" "C"])`, want: `["a-b" "c"]`},
		{src: `(names {:names ["a" "b"]})`, want: `2`},
		{src: `(raw [1 {:a "x"}])`, want: `"[1 {:a \"x\"}]"`},
		{src: `(noop)`, want: `nil`},
		{src: `(small 127)`, want: `127`},
		{src: `(try (boom) (catch Exception e (ex-message e)))`, want: `"boom failed: bad input"`},
		{src: `(slug)`, kind: lisp.ArityError, compile: true, position: "1:1", msg: "slug expects 1 argument(s), got 0"},
		{src: `(do 1 (slug 42))`, kind: lisp.TypeError, compile: true, position: "1:13", msg: "slug expects a string as argument 1, got"},
		{src: `(small 300)`, kind: lisp.TypeError, compile: true, msg: "small expects an integer (int8) as argument 1"},
		{src: `(sum-of 1 "2")`, kind: lisp.TypeError, compile: true, msg: "sum-of expects an integer (int) as argument 2"},
		{src: `(slug (+ 1 2))`, kind: lisp.TypeError, msg: "slug expects a string as argument 1, got"},
		{src: `(names {:names [1]})`, kind: lisp.TypeError, compile: true, position: "1:8", msg: "names expects a map of vector of string"},
		{src: `(names (hash-map :names [1]))`, kind: lisp.TypeError, msg: "names expects a map of vector of string"},
		{src: `(boom)`, kind: lisp.ToolError, msg: "boom failed: bad input"},
		{src: `(kaput 1)`, kind: lisp.ToolError, msg: "kaput failed: panic: kaput"},
	}
	for _, tc := range cases {
		t.Run(tc.src, func(t *testing.T) {
			prog, err := funcs.Compile(tc.src)
			if err == nil {
				var res *lisp.Result
				res, err = prog.Run(context.Background(), lisp.Options{})
				if err == nil {
					if tc.kind != "" {
						t.Fatalf("got %s, want a %s error", lisp.Print(res.Value, lisp.PrintOptions{}), tc.kind)
					}
					if got := lisp.Print(res.Value, lisp.PrintOptions{}); got != tc.want {
						t.Fatalf("got %s, want %s", got, tc.want)
					}
					return
				}
				if tc.compile {
					t.Fatalf("the error came from the run, want it from compiling: %v", err)
				}
			} else if tc.kind != "" && !tc.compile {
				t.Fatalf("the error came from compiling, want it from the run: %v", err)
			}
			if tc.kind == "" {
				t.Fatalf("unexpected error %v", err)
			}
			var le *lisp.Error
			if !errors.As(err, &le) || le.Kind != tc.kind || !strings.Contains(le.Message, tc.msg) {
				t.Fatalf("got %v, want a %s error with %q", err, tc.kind, tc.msg)
			}
			if tc.position != "" && le.Pos.String() != tc.position {
				t.Errorf("the error is at %s, want %s", le.Pos, tc.position)
			}
		})
	}
}

// TestFuncsLimits: a host call counts against the run's limits: a step per
// call, its result's memory, the time limit (a function that honours its
// context and one that ignores it both end at the deadline).
func TestFuncsLimits(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	funcs := testFuncs(t, map[string]any{
		"wait-ctx": func(ctx context.Context) error { <-ctx.Done(); return ctx.Err() },
		"stuck":    func() int { <-release; return 1 },
	})
	cases := []struct {
		src    string
		limits lisp.Limits
		kind   lisp.Kind
	}{
		{`(dotimes [i 1000] (slug "a"))`, lisp.Limits{MaxSteps: 1500}, lisp.StepLimitExceeded},
		{`(big 100000)`, lisp.Limits{MaxMemory: 10_000}, lisp.MemoryExceeded},
		{`(wait-ctx)`, lisp.Limits{Timeout: 50 * time.Millisecond}, lisp.Timeout},
		{`(stuck)`, lisp.Limits{Timeout: 50 * time.Millisecond}, lisp.Timeout},
		{`(try (wait-ctx) (catch Exception e :caught))`, lisp.Limits{Timeout: 50 * time.Millisecond}, lisp.Timeout},
	}
	for _, tc := range cases {
		t.Run(tc.src, func(t *testing.T) {
			_, err := lisp.Run(context.Background(), tc.src, lisp.Options{Funcs: funcs, Limits: tc.limits})
			if !errors.Is(err, tc.kind) {
				t.Fatalf("got %v, want %s", err, tc.kind)
			}
		})
	}
	// Within the limits, the same calls pass.
	if _, err := lisp.Run(context.Background(), `(dotimes [i 1000] (slug "a"))`, lisp.Options{Funcs: funcs}); err != nil {
		t.Fatal(err)
	}
}

// TestNewFuncsRefuses: names that are not plain symbols or that would
// replace a part of the language, and Go types a value cannot convert to.
func TestNewFuncsRefuses(t *testing.T) {
	cases := []struct {
		name string
		fn   any
		msg  string
	}{
		{"map", func(x int) int { return x }, "the name of a builtin"},
		{"if", func(x int) int { return x }, "special form"},
		{"a/b", func(x int) int { return x }, "plain symbol"},
		{"two words", func(x int) int { return x }, "not a symbol"},
		{"9lives", func(x int) int { return x }, "digit"},
		{"", func(x int) int { return x }, "required"},
		{"f", 42, "not a function"},
		{"f", (func())(nil), "not a function"},
		{"f", func(c chan int) int { return 0 }, "parameter 1 has type chan int"},
		{"f", func(x struct{ A int }) int { return 0 }, "parameter 1"},
		{"f", func(m map[int]string) int { return 0 }, "parameter 1"},
		{"f", func() (int, int) { return 0, 0 }, "results must be"},
		{"f", func() (int, string, error) { return 0, "", nil }, "results must be"},
	}
	for _, tc := range cases {
		t.Run(tc.name+" "+tc.msg, func(t *testing.T) {
			_, err := lisp.NewFuncs(map[string]any{tc.name: tc.fn})
			if err == nil || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("got %v, want an error with %q", err, tc.msg)
			}
		})
	}
}

// TestFuncsOptions: Run compiles with Options.Funcs; a Program compiled
// with one set refuses another; without Funcs the names are unknown.
func TestFuncsOptions(t *testing.T) {
	funcs := testFuncs(t, nil)
	res, err := lisp.Run(context.Background(), `(slug "A B")`, lisp.Options{Funcs: funcs})
	if err != nil || lisp.Print(res.Value, lisp.PrintOptions{}) != `"a-b"` {
		t.Fatalf("Run with Options.Funcs: %v %v", res, err)
	}
	if _, err := lisp.Run(context.Background(), `(slug "A B")`, lisp.Options{}); !errors.Is(err, lisp.UnboundVar) {
		t.Fatalf("Run without Funcs: %v, want unbound_var", err)
	}
	prog, err := funcs.Compile(`(slug "A B")`)
	if err != nil {
		t.Fatal(err)
	}
	other := testFuncs(t, nil)
	if _, err := prog.Run(context.Background(), lisp.Options{Funcs: other}); !errors.Is(err, lisp.InvalidArgument) {
		t.Fatalf("Run with other Funcs: %v, want invalid_argument", err)
	}
	if _, err := prog.Run(context.Background(), lisp.Options{Funcs: funcs}); err != nil {
		t.Fatalf("Run with the same Funcs: %v", err)
	}
	if got := funcs.Names(); strings.Join(got, " ") != "big boom kaput names noop raw slug small sum-of" {
		t.Fatalf("Names: %v", got)
	}
}

// TestFuncsConcurrent: a compiled program calls its host functions from
// many runs and pmap branches at once (run with -race).
func TestFuncsConcurrent(t *testing.T) {
	funcs := testFuncs(t, nil)
	prog, err := funcs.Compile(`(reduce + (pmap #(sum-of % 1) (range 50)))`)
	if err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, 8)
	for range 8 {
		go func() {
			res, err := prog.Run(context.Background(), lisp.Options{})
			if err == nil && lisp.Print(res.Value, lisp.PrintOptions{}) != "1275" {
				err = fmt.Errorf("got %s", lisp.Print(res.Value, lisp.PrintOptions{}))
			}
			errs <- err
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}

// TestFuncsStepsPerElement: converting arguments counts a step per 16
// elements, so a host call over a large vector is not a free walk.
func TestFuncsStepsPerElement(t *testing.T) {
	funcs, err := lisp.NewFuncs(map[string]any{"n": func(xs []int) int { return len(xs) }})
	if err != nil {
		t.Fatal(err)
	}
	steps := func(src string) int64 {
		res, err := lisp.Run(context.Background(), src, lisp.Options{Funcs: funcs, Input: map[string]any{"xs": make([]int, 1600)}})
		if err != nil {
			t.Fatal(err)
		}
		return res.Steps
	}
	small, large := steps(`(n [])`), steps(`(n ctx/xs)`)
	if large-small != 100 {
		t.Fatalf("a call over 1,600 elements took %d steps more than over none, want 100", large-small)
	}
}
