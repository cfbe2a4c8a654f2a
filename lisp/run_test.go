package lisp_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ptc-go/ptc/lisp"
)

// run runs src, which must succeed: with a generous timeout unless opts
// sets one, so that a busy machine does not fail it.
func run(t *testing.T, src string, opts lisp.Options) *lisp.Result {
	t.Helper()
	if opts.Limits.Timeout == 0 {
		opts.Limits.Timeout = generous
	}
	res, err := lisp.Run(context.Background(), src, opts)
	if err != nil {
		t.Fatalf("%s: %v", src, err)
	}
	return res
}

func TestToolCallSpellings(t *testing.T) {
	var got []string
	var mu sync.Mutex
	tools := lisp.Tools{
		"echo": func(_ context.Context, args *lisp.Map) (any, error) {
			mu.Lock()
			got = append(got, lisp.Print(args, lisp.PrintOptions{}))
			mu.Unlock()
			return map[string]any{"ok": true, "n": 1}, nil
		},
	}
	src := `[(call "echo" {:q 1})
	         (tool/echo)
	         (ctx/echo 1 2)
	         (call :echo "x")
	         (:n (tool/echo {:a {:b 2}}))]`
	res := run(t, src, lisp.Options{Tools: tools})
	want := []string{`{:q 1}`, `{}`, `{:args [1 2]}`, `{:args ["x"]}`, `{:a {:b 2}}`}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("tool args %v, want %v", got, want)
	}
	if s := lisp.Print(res.Value, lisp.PrintOptions{}); s != `[{"n" 1, "ok" true} {"n" 1, "ok" true} {"n" 1, "ok" true} {"n" 1, "ok" true} 1]` {
		t.Errorf("result %s", s)
	}
	if res.ToolCalls != 5 {
		t.Errorf("ToolCalls = %d, want 5", res.ToolCalls)
	}
}

func TestToolErrors(t *testing.T) {
	tools := lisp.Tools{
		"fails":  func(context.Context, *lisp.Map) (any, error) { return nil, errors.New("backend down") },
		"panics": func(context.Context, *lisp.Map) (any, error) { panic("boom") },
		"search": func(context.Context, *lisp.Map) (any, error) { return nil, nil },
		"bad":    func(context.Context, *lisp.Map) (any, error) { return make(chan int), nil },
	}
	tests := []struct {
		src  string
		kind lisp.Kind
		text string
	}{
		{`(tool/fails {})`, lisp.ToolError, "tool fails failed: backend down"},
		{`(tool/panics {})`, lisp.ToolError, "panic: boom"},
		{`(tool/serch {})`, lisp.UnknownTool, "did you mean search?"},
		{`(tool/bad {})`, lisp.ToolError, "cannot hold"},
		{`(call "return" 1 2)`, lisp.InvalidForm, "invalid_arity"},
	}
	for _, tc := range tests {
		_, err := lisp.Run(context.Background(), tc.src, lisp.Options{Tools: tools})
		if !errors.Is(err, tc.kind) {
			t.Errorf("%s: error %v, want kind %s", tc.src, err, tc.kind)
			continue
		}
		if !strings.Contains(err.Error(), tc.text) {
			t.Errorf("%s: error %q does not mention %q", tc.src, err, tc.text)
		}
	}
	// The tool's own error stays reachable.
	_, err := lisp.Run(context.Background(), `(tool/fails)`, lisp.Options{Tools: tools})
	var le *lisp.Error
	if !errors.As(err, &le) || le.Op != "fails" || le.Err == nil || le.Err.Error() != "backend down" {
		t.Errorf("tool error %#v does not wrap the tool's error", err)
	}
}

func TestNoToolsHint(t *testing.T) {
	_, err := lisp.Run(context.Background(), `(ctx/items)`, lisp.Options{Input: map[string]any{"items": []int{1}}})
	if !errors.Is(err, lisp.UnknownTool) || !strings.Contains(err.Error(), "without parentheses") {
		t.Errorf("got %v", err)
	}
}

func TestNamespaceCarriesDefsAndRollsBack(t *testing.T) {
	r1 := run(t, `(def a 1) (defn twice [x] (* 2 x)) (memory/put :b 5)`, lisp.Options{})
	if got := r1.Namespace.Names(); fmt.Sprint(got) != "[a b twice]" {
		t.Fatalf("names %v", got)
	}
	if fmt.Sprint(r1.Defined) != "[a twice b]" {
		t.Errorf("Defined %v", r1.Defined)
	}
	r2 := run(t, `[(twice a) memory/b (memory/get :b) memory/missing b]`, lisp.Options{Namespace: r1.Namespace})
	if s := lisp.Print(r2.Value, lisp.PrintOptions{}); s != "[2 5 5 nil 5]" {
		t.Errorf("second run %s", s)
	}
	// An error rolls back this run's defs.
	res, err := lisp.Run(context.Background(), `(def a 100) (def c 3) (+ 1 "x")`, lisp.Options{Namespace: r1.Namespace})
	if err == nil {
		t.Fatal("expected an error")
	}
	if res.Namespace != r1.Namespace {
		t.Error("namespace not rolled back")
	}
	// fail keeps the defs made before it.
	res = run(t, `(def kept 1) (fail {:reason :nope})`, lisp.Options{Namespace: r1.Namespace})
	if res.Status != lisp.Failed {
		t.Errorf("status %v", res.Status)
	}
	if v, ok := res.Namespace.Get("kept"); !ok || v != int64(1) {
		t.Error("fail lost the defs made before it")
	}
	// The original namespace is never modified.
	if _, ok := r1.Namespace.Get("kept"); ok {
		t.Error("a run modified its input namespace")
	}
}

// TestHintedNamesFromEarlierRuns checks that a name PTC-Lisp explains away
// (shuffle, type, try...) is still usable once a run has defined it.
func TestHintedNamesFromEarlierRuns(t *testing.T) {
	r1 := run(t, `(def type "invoice") (defn shuffle [x] [x])`, lisp.Options{})
	r2 := run(t, `[type (shuffle 1)]`, lisp.Options{Namespace: r1.Namespace})
	if s := lisp.Print(r2.Value, lisp.PrintOptions{}); s != `["invoice" [1]]` {
		t.Errorf("got %s", s)
	}
	_, err := lisp.Run(context.Background(), `(shuffle 1)`, lisp.Options{})
	if !errors.Is(err, lisp.UnboundVar) || !strings.Contains(err.Error(), "no randomness") {
		t.Errorf("without a def: %v, want the randomness hint", err)
	}
}

func TestReturnFailStatus(t *testing.T) {
	for src, want := range map[string]lisp.Status{
		`(+ 1 2)`:                  lisp.Completed,
		`(return 3)`:               lisp.Returned,
		`(fail "x")`:               lisp.Failed,
		`(call "fail" {:r 1})`:     lisp.Failed,
		`(do (return 1) (fail 2))`: lisp.Returned,
	} {
		if res := run(t, src, lisp.Options{}); res.Status != want {
			t.Errorf("%s: status %v, want %v", src, res.Status, want)
		}
	}
}

func TestHistoryAndOutput(t *testing.T) {
	res := run(t, `(println "a" 1 [1 "s"] nil) (print "x") (print "y") (println) (prn "q") [*1 *2 *3]`,
		lisp.Options{History: []lisp.Value{int64(1), "two"}})
	if s := lisp.Print(res.Value, lisp.PrintOptions{}); s != `[1 "two" nil]` {
		t.Errorf("history %s", s)
	}
	want := []string{`a 1 [1 s] nil`, `xy`, `"q"`} // println, as Clojure's print, leaves nested strings unquoted
	if fmt.Sprint(res.Output) != fmt.Sprint(want) {
		t.Errorf("output %q, want %q", res.Output, want)
	}
}

func TestOutputKeptOnError(t *testing.T) {
	res, err := lisp.Run(context.Background(), `(println "before") (+ 1 nil)`, lisp.Options{})
	if err == nil || len(res.Output) != 1 || res.Output[0] != "before" {
		t.Errorf("output %q err %v", res.Output, err)
	}
}

func TestContextFromGo(t *testing.T) {
	type Order struct {
		ID     int     `json:"id"`
		Amount float64 `json:"amount"`
		Note   string  `json:"note,omitempty"`
	}
	ctx := map[string]any{
		"orders": []Order{{ID: 1, Amount: 9.5}, {ID: 2, Amount: 20, Note: "big"}},
		"when":   time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC),
	}
	res := run(t, `[(sum-by :amount ctx/orders) (map :note ctx/orders) (keys (first ctx/orders)) ctx/when ctx/missing]`,
		lisp.Options{Input: ctx})
	if s := lisp.Print(res.Value, lisp.PrintOptions{}); s != `[29.5 [nil "big"] ["amount" "id"] "2024-01-02T03:04:05Z" nil]` {
		t.Errorf("got %s", s)
	}
}

func TestTimeoutAndCancel(t *testing.T) {
	start := time.Now()
	_, err := lisp.Run(context.Background(), `(loop [i 0] (recur (inc i)))`,
		lisp.Options{Limits: lisp.Limits{Timeout: 50 * time.Millisecond, MaxLoopIterations: -1, MaxSteps: -1}})
	if !errors.Is(err, lisp.Timeout) {
		t.Fatalf("got %v, want timeout", err)
	}
	if d := time.Since(start); d > 50*time.Millisecond+timeMargin {
		t.Errorf("timeout took %v", d)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = lisp.Run(ctx, `(loop [i 0] (recur (inc i)))`, lisp.Options{Limits: lisp.Limits{MaxLoopIterations: -1}})
	if !errors.Is(err, lisp.Cancelled) {
		t.Errorf("got %v, want cancelled", err)
	}
}

func TestStepLimit(t *testing.T) {
	_, err := lisp.Run(context.Background(), `(loop [i 0] (recur (inc i)))`,
		lisp.Options{Limits: lisp.Limits{MaxSteps: 10_000, MaxLoopIterations: -1}})
	if !errors.Is(err, lisp.StepLimitExceeded) {
		t.Errorf("got %v", err)
	}
}

func TestMemoryLimit(t *testing.T) {
	_, err := lisp.Run(context.Background(), `(count (range 100000000))`, lisp.Options{})
	if !errors.Is(err, lisp.MemoryExceeded) {
		t.Errorf("got %v", err)
	}
}

func TestConcurrentRunsShareContext(t *testing.T) {
	rows := make([]map[string]any, 1000)
	for i := range rows {
		rows[i] = map[string]any{"id": i, "v": i % 7}
	}
	ctxVal, err := lisp.FromGo(map[string]any{"rows": rows})
	if err != nil {
		t.Fatal(err)
	}
	p, err := lisp.Compile(`(->> ctx/rows (filter (where :v = 3)) (map :id) (reduce +))`)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 20; i++ {
				// Eight runs share two cores: the timeout is generous.
				res, err := p.Run(context.Background(), lisp.Options{Input: ctxVal, Limits: lisp.Limits{Timeout: generous}})
				if err != nil || res.Value != int64(71500) {
					t.Errorf("got %v %v", res.Value, err)
					return
				}
			}
		}()
	}
	wg.Wait()
}

func TestPmapRunsConcurrentlyInOrder(t *testing.T) {
	var mu sync.Mutex
	active, peak := 0, 0
	// The first two calls wait for each other: calls that run at once meet,
	// however slowly the machine starts them; calls made one after the
	// other would wait the whole minute and fail.
	met := make(chan struct{})
	tools := lisp.Tools{"slow": func(_ context.Context, args *lisp.Map) (any, error) {
		mu.Lock()
		active++
		peak = max(peak, active)
		if peak == 2 && active == 2 {
			select {
			case <-met:
			default:
				close(met)
			}
		}
		mu.Unlock()
		select {
		case <-met:
		case <-time.After(time.Minute):
		}
		mu.Lock()
		active--
		mu.Unlock()
		v, _ := args.Get(lisp.Keyword("args"))
		return v.(*lisp.Vector).At(0), nil
	}}
	res := run(t, `(pmap #(tool/slow %) (range 8))`, lisp.Options{Tools: tools})
	if s := lisp.Print(res.Value, lisp.PrintOptions{}); s != "[0 1 2 3 4 5 6 7]" {
		t.Errorf("pmap result %s", s)
	}
	if peak < 2 {
		t.Errorf("pmap ran at most %d tool calls at once", peak)
	}
	res = run(t, `(pcalls #(do (println "a") 1) #(do (println "b") 2))`, lisp.Options{})
	if lisp.Print(res.Value, lisp.PrintOptions{}) != "[1 2]" || fmt.Sprint(res.Output) != "[a b]" {
		t.Errorf("pcalls %s %q", lisp.Print(res.Value, lisp.PrintOptions{}), res.Output)
	}
}

func TestPmapErrorIsFirstFailingBranch(t *testing.T) {
	_, err := lisp.Run(context.Background(), `(pmap (fn [x] (if (> x 2) (+ x "bad") x)) (range 10))`, lisp.Options{})
	if !errors.Is(err, lisp.TypeError) || !strings.Contains(err.Error(), "pmap item 3 (3)") {
		t.Errorf("got %v", err)
	}
}

func TestCompileOnceRunMany(t *testing.T) {
	p, err := lisp.Compile(`(def n (inc (or memory/n 0))) n`)
	if err != nil {
		t.Fatal(err)
	}
	var ns *lisp.Namespace
	for i := 1; i <= 3; i++ {
		res, err := p.Run(context.Background(), lisp.Options{Namespace: ns})
		if err != nil {
			t.Fatal(err)
		}
		if res.Value != int64(i) {
			t.Errorf("run %d: %v", i, res.Value)
		}
		ns = res.Namespace
	}
}

func TestErrorSnippetAndList(t *testing.T) {
	// Compile leaves foo to the namespace of the run; Run reports it before
	// anything executes.
	if _, err := lisp.Compile("(let [x 1]\n  (foo x))"); err != nil {
		t.Fatalf("compile: %v", err)
	}
	var le *lisp.Error
	_, err := lisp.Run(context.Background(), "(let [x 1]\n  (foo x))", lisp.Options{})
	if !errors.As(err, &le) || le.Pos.Line != 2 || le.Pos.Col != 4 {
		t.Fatalf("got %v", err)
	}
	if snip := le.Snippet(); snip != "  (foo x))\n   ^" {
		t.Errorf("snippet %q", snip)
	}
	_, err = lisp.Compile("(if) (let [a] a)")
	if !errors.As(err, &le) || len(le.More) != 1 {
		t.Errorf("want two analysis errors, got %v", err)
	}
	_, err = lisp.Compile("(+ 1 2] (- 3")
	if !errors.As(err, &le) || le.Kind != lisp.ParseError || len(le.More) == 0 {
		t.Errorf("want several parse errors, got %v", err)
	}
}

// TestDefaultLimitsAsDocumented: the defaults docs/language.md ("13.
// Limits") and the fields of Limits state.
func TestDefaultLimitsAsDocumented(t *testing.T) {
	got := lisp.Limits{}.Effective()
	want := lisp.Limits{Timeout: time.Second, MaxSteps: 500_000_000, MaxDepth: 5_000, MaxLoopIterations: 1_000_000,
		MaxOutputBytes: 64 << 10, MaxToolCalls: 1_000, MaxMemory: 64 << 20, MaxParallel: 16}
	if got != want {
		t.Errorf("Limits{}.Effective() = %+v, want %+v", got, want)
	}
}
