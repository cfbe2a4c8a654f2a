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

// deepShared is a vector whose printed form and full walk are 2^60 leaves.
const deepShared = `(loop [v [1] i 0] (if (< i 60) (recur [v v] (inc i)) v))`

// exceptionHostileCases: no try, whatever it catches, holds a program past
// a limit of the sandbox, nor lets it out of return, fail or a
// cancellation; throwing huge, shared or deeply chained values stays
// bounded. Each case ends with its kind (or succeeds when kind is empty).
var exceptionHostileCases = []hostileCase{
	{"catch Throwable around an endless loop", `(try (loop [i 0] (recur (inc i))) (catch Throwable e :caught))`, lisp.LoopLimitExceeded, lisp.Limits{}},
	{"catch Throwable around the step limit", `(try (loop [i 0] (recur (inc i))) (catch Throwable e :caught))`, lisp.StepLimitExceeded,
		lisp.Limits{MaxLoopIterations: -1, MaxSteps: 100_000}},
	{"a catch that loops again", `(defn f [] (try (loop [i 0] (recur (inc i))) (catch Throwable e (f)) (finally (f)))) (f)`, lisp.StepLimitExceeded,
		lisp.Limits{MaxLoopIterations: -1, MaxSteps: 100_000}},
	{"catching in every iteration", `(loop [i 0] (let [x (try (throw (ex-info "x" {})) (catch Exception e i))] (recur (inc x))))`, lisp.StepLimitExceeded,
		lisp.Limits{MaxLoopIterations: -1, MaxSteps: 100_000}},
	// Only the timeout can stop it: each caught exception is allocation
	// the memory budget would otherwise count, first on a fast machine.
	{"catching in every iteration until the timeout", `(loop [i 0] (let [x (try (quot 1 0) (catch Throwable e i))] (recur (inc x))))`, lisp.Timeout,
		lisp.Limits{Timeout: noLoopLimit.Timeout, MaxLoopIterations: -1, MaxSteps: -1, MaxMemory: -1}},
	{"a finally that loops after a timeout", `(try (loop [i 0] (recur (inc i))) (finally (loop [] (recur))))`, lisp.Timeout, noLoopLimit},
	{"catch :default around a memory bomb", `(try (vec (range 100000000)) (catch :default e :caught))`, lisp.MemoryExceeded, lisp.Limits{}},
	{"caught exceptions kept in a loop", `(loop [acc [] i 0] (recur (conj acc (try (throw (ex-info "x" {:i i})) (catch Exception e e))) (inc i)))`, lisp.MemoryExceeded,
		lisp.Limits{MaxLoopIterations: -1, MaxMemory: 1 << 20}},
	{"ex-info made in a loop", `(loop [acc [] i 0] (recur (conj acc (ex-info "x" {})) (inc i)))`, lisp.MemoryExceeded,
		lisp.Limits{MaxLoopIterations: -1, MaxMemory: 1 << 20}},
	{"catch around an output flood", `(try (dotimes [i 100000] (println "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx")) (catch Throwable e :caught))`, lisp.OutputExceeded, lisp.Limits{}},
	{"catch around tool calls in a loop", `(loop [i 0] (try (tool/ok {}) (catch Throwable e nil)) (recur (inc i)))`, lisp.ToolLimitExceeded, lisp.Limits{}},
	{"catch around tool calls from pmap", `(pmap (fn [i] (try (tool/ok {}) (catch Throwable e nil))) (range 5000))`, lisp.ToolLimitExceeded, lisp.Limits{}},
	{"catch around the tool limit set low", `(try [(tool/ok {}) (tool/ok {})] (catch Exception e :caught))`, lisp.ToolLimitExceeded, lisp.Limits{MaxToolCalls: 1}},
	{"catch around a blocking tool", `(try (tool/block {}) (catch Throwable e :caught))`, lisp.Timeout, lisp.Limits{Timeout: 50 * time.Millisecond}},
	{"catch around deep recursion", `(defn f [] (try (f) (catch Throwable e :caught))) (f)`, lisp.DepthExceeded, lisp.Limits{}},
	{"recursion from a catch", `(defn f [] (try (throw (ex-info "x" {})) (catch Exception e (f)))) (f)`, lisp.DepthExceeded, lisp.Limits{}},
	{"catch StackOverflowError around deep recursion", `(defn f [] (f)) (try (f) (catch StackOverflowError e :caught))`, lisp.DepthExceeded, lisp.Limits{}},
	{"catch around deep data", `(let [a (reduce (fn [acc _] [acc]) [] (range 20000)) b (reduce (fn [acc _] [acc]) [] (range 20000))] (try (= a b) (catch Throwable e :caught)))`, lisp.DepthExceeded, lisp.Limits{}},
	{"catch around comparing shared structures", `(let [a ` + deepShared + ` b ` + deepShared + `] (try (= a b) (catch Throwable e :caught)))`, lisp.StepLimitExceeded, lisp.Limits{}},
	{"catch around return in a pmap branch", `(try (pmap (fn [x] (return x)) [1 2]) (catch Throwable e :caught))`, lisp.PmapError, lisp.Limits{}},
	{"catch in pmap branches around endless loops", `(pmap (fn [_] (try (loop [] (recur)) (catch Throwable e :caught))) (range 8))`, lisp.LoopLimitExceeded, lisp.Limits{}},
	{"catch in pmap branches until the timeout", `(pmap (fn [_] (try (loop [] (recur)) (catch Throwable e :caught))) (range 8))`, lisp.Timeout, noLoopLimit},
	{"pmap branches rethrowing", `(pmap (fn [i] (try (quot 1 0) (catch Exception e (throw (ex-info "again" {:i i} e))))) (range 8))`, lisp.Thrown, lisp.Limits{}},
	{"throw a huge message and data", `(throw (ex-info (apply str (repeat 200000 "x")) {:big (vec (range 100000))}))`, lisp.Thrown, lisp.Limits{}},
	{"throw shared structure", `(throw (ex-info "shared" {:v ` + deepShared + `}))`, lisp.Thrown, lisp.Limits{}},
	{"str of an exception holding shared structure", `(str (ex-info "shared" {:v ` + deepShared + `}))`, lisp.MemoryExceeded, lisp.Limits{MaxMemory: 4 << 20}},
	{"pr-str of an exception holding shared structure", `(pr-str (ex-info "shared" {:v ` + deepShared + `}))`, lisp.MemoryExceeded, lisp.Limits{MaxMemory: 4 << 20}},
	{"println of an exception holding shared structure", `(println (ex-info "shared" {:v ` + deepShared + `}))`, lisp.OutputExceeded, lisp.Limits{}},
	{"a cause chain of thousands", `(defn f [n] (if (zero? n) (throw (ex-info "root" {})) (try (f (dec n)) (catch Exception e (throw (ex-info "wrap" {:n n} e)))))) (f 2000)`, lisp.Thrown, lisp.Limits{}},
	{"printing a cause chain of thousands", `(defn f [n] (if (zero? n) (throw (ex-info "root" {})) (try (f (dec n)) (catch Exception e (throw (ex-info "wrap" {:n n} e)))))) (count (pr-str (try (f 2000) (catch Exception e e))))`, "", lisp.Limits{}},
	{"a long cause chain built in a loop", `(count (str (reduce (fn [e _] (ex-info "x" {} e)) (ex-info "root" {}) (range 50000))))`, "", lisp.Limits{MaxLoopIterations: -1}},
	{"printing a long cause chain built in a loop", `(count (pr-str (reduce (fn [e _] (ex-info "x" {} e)) (ex-info "root" {}) (range 100000))))`, lisp.MemoryExceeded, lisp.Limits{MaxMemory: 4 << 20}},
	{"finally in every frame of a deep recursion", `(defn f [n] (if (zero? n) (throw (ex-info "deep" {})) (try (f (dec n)) (finally nil)))) (f 2000)`, lisp.Thrown, lisp.Limits{}},
	{"source of 400 nested tries", strings.Repeat("(try ", 400) + "(quot 1 0)" + strings.Repeat(" (catch Exception e 1))", 400), "", lisp.Limits{}},
	{"source of 600 nested tries", strings.Repeat("(try ", 600) + "1" + strings.Repeat(")", 600), lisp.ParseError, lisp.Limits{}},
	{"a catch of a Java class the runtime never throws", `(try (quot 1 0) (catch java.io.FileNotFoundException e :caught))`, lisp.ArithmeticError, lisp.Limits{}},
	{"a catch of a class no one has", `(try (quot 1 0) (catch FooException e :caught))`, lisp.InvalidForm, lisp.Limits{}},
}

func TestExceptionHostilePrograms(t *testing.T) {
	tools, release := hostileTools()
	defer release()
	for _, hc := range exceptionHostileCases {
		t.Run(hc.name, func(t *testing.T) {
			limits := hc.limits
			if limits.Timeout == 0 {
				limits.Timeout = hostileLimits.Timeout
			}
			if limits.MaxMemory == 0 {
				limits.MaxMemory = hostileLimits.MaxMemory
			}
			start := time.Now()
			res, err := lisp.Run(context.Background(), hc.src, lisp.Options{Tools: tools, Limits: limits})
			elapsed := time.Since(start)
			if res == nil {
				t.Fatal("nil result")
			}
			if hc.kind == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
			} else if !errors.Is(err, hc.kind) {
				t.Fatalf("got %v, want %s", err, hc.kind)
			}
			if hc.kind == lisp.Timeout && elapsed > limits.Timeout+timeMargin {
				t.Errorf("took %v, limit %v", elapsed, limits.Timeout)
			}
			// An error's text is bounded, whatever the program threw.
			if err != nil {
				var le *lisp.Error
				if errors.As(err, &le) && len(le.Detailed()) > 20_000 {
					t.Errorf("the error's text has %d bytes", len(le.Detailed()))
				}
			}
		})
	}
}

// A limit reached inside a try skips its finally: the program ends at
// once, and nothing the finally would print or do happens.
func TestFinallyDoesNotRunAfterALimit(t *testing.T) {
	tools, release := hostileTools()
	defer release()
	cases := []struct {
		src    string
		kind   lisp.Kind
		limits lisp.Limits
	}{
		{`(try (loop [] (recur)) (finally (println "finally")))`, lisp.LoopLimitExceeded, lisp.Limits{}},
		{`(try (loop [] (recur)) (catch Throwable e (println "catch")) (finally (println "finally")))`, lisp.StepLimitExceeded,
			lisp.Limits{MaxLoopIterations: -1, MaxSteps: 50_000}},
		{`(try (vec (range 100000000)) (finally (println "finally")))`, lisp.MemoryExceeded, lisp.Limits{MaxMemory: 1 << 20}},
		{`(try (tool/ok {}) (tool/ok {}) (finally (println "finally")))`, lisp.ToolLimitExceeded, lisp.Limits{MaxToolCalls: 1}},
		{`(try (return 1) (finally (println "finally")))`, "", lisp.Limits{}},
		{`(try (fail 1) (finally (println "finally")))`, "", lisp.Limits{}},
	}
	for _, c := range cases {
		limits := c.limits
		limits.Timeout = generous
		res, err := lisp.Run(context.Background(), c.src, lisp.Options{Tools: tools, Limits: limits})
		if c.kind == "" && err != nil || c.kind != "" && !errors.Is(err, c.kind) {
			t.Errorf("%s: got %v, want %q", c.src, err, c.kind)
		}
		if len(res.Output) != 0 {
			t.Errorf("%s: printed %q", c.src, res.Output)
		}
	}
}

// Cancelling the caller's context stops a program that catches everything.
func TestCancelledRunCannotBeCaught(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		time.Sleep(30 * time.Millisecond)
		cancel()
	}()
	start := time.Now()
	_, err := lisp.Run(ctx, `(loop [] (try (loop [] (recur)) (catch Throwable e nil) (finally nil)) (recur))`,
		lisp.Options{Limits: lisp.Limits{Timeout: time.Minute, MaxSteps: -1, MaxLoopIterations: -1}})
	if !errors.Is(err, lisp.Cancelled) {
		t.Fatalf("got %v, want cancelled", err)
	}
	if d := time.Since(start); d > 30*time.Millisecond+timeMargin {
		t.Errorf("stopped after %v", d)
	}
}

// A failing tool call is an ExceptionInfo: its ex-data names the tool and
// its message, with the data of the *lisp.Error the tool failed with.
func TestCatchToolErrors(t *testing.T) {
	tools := lisp.Tools{
		"get": func(_ context.Context, args *lisp.Map) (any, error) {
			id, _ := args.Get(lisp.Keyword("id"))
			if id == int64(2) {
				return nil, errors.New("user 2 not found")
			}
			if id == int64(3) {
				return nil, &lisp.Error{Kind: lisp.ToolError, Message: "rate limited",
					Data: lisp.NewMap(lisp.Keyword("retry-after"), int64(30), lisp.Keyword("tool"), "ignored")}
			}
			return lisp.NewMap(lisp.Keyword("id"), id), nil
		},
	}
	cases := []struct{ src, want string }{
		{`(try (tool/get {:id 2}) (catch Exception e (ex-data e)))`, `{:message "user 2 not found", :tool "get"}`},
		{`(try (tool/get {:id 2}) (catch clojure.lang.ExceptionInfo e (ex-message e)))`, `"tool get failed: user 2 not found"`},
		{`(try (tool/get {:id 3}) (catch Exception e (ex-data e)))`, `{:message "rate limited", :retry-after 30, :tool "get"}`},
		{`(try (call "get" {:id 2}) (catch Exception e (:tool (ex-data e))))`, `"get"`},
		// Collecting failures, the way models write it.
		{`(reduce (fn [acc id]
		     (try (update acc :ok conj (tool/get {:id id}))
		          (catch Exception e (update acc :failed conj {:id id :error (:message (ex-data e))}))))
		   {:ok [] :failed []} [1 2 3])`,
			`{:failed [{:error "user 2 not found", :id 2} {:error "rate limited", :id 3}], :ok [{:id 1}]}`},
		{`(let [results (mapv (fn [id] (try {:ok (tool/get {:id id})} (catch Exception e {:error (ex-message e)}))) [1 2])]
		   (count (filter :error results)))`, `1`},
		{`(pmap (fn [id] (try (:id (tool/get {:id id})) (catch Exception e :failed))) [1 2 3 4])`, `[1 :failed :failed 4]`},
		// An unknown tool, at run time, is caught too.
		{`(let [name (str "g" "x")] (try (call name {}) (catch Exception e (:tool (ex-data e)))))`, `"gx"`},
	}
	for _, c := range cases {
		res, err := lisp.Run(context.Background(), c.src, lisp.Options{Tools: tools, Limits: lisp.Limits{Timeout: generous}})
		if err != nil {
			t.Errorf("%s: %v", c.src, err)
			continue
		}
		if got := lisp.Print(res.Value, lisp.PrintOptions{}); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.src, got, c.want)
		}
	}
	// doseq over tool calls, printing the failures.
	res, err := lisp.Run(context.Background(), `(doseq [id [1 2 3]]
  (try (println "got" (:id (tool/get {:id id})))
       (catch Exception e (println "failed" id (:message (ex-data e))))))`, lisp.Options{Tools: tools})
	if err != nil || strings.Join(res.Output, "|") != "got 1|failed 2 user 2 not found|failed 3 rate limited" {
		t.Errorf("doseq: %q, %v", res.Output, err)
	}
	// A tool that failed for a limit of its own is not caught either.
	limited := lisp.Tools{"agent": func(context.Context, *lisp.Map) (any, error) {
		return nil, fmt.Errorf("child: %w", &lisp.Error{Kind: lisp.ToolLimitExceeded, Message: "the tree ran out of turns"})
	}}
	res, err = lisp.Run(context.Background(), `(try (tool/agent {}) (catch Throwable e :caught) (finally (println "finally")))`, lisp.Options{Tools: limited})
	if !errors.Is(err, lisp.ToolError) || !errors.Is(err, lisp.ToolLimitExceeded) || len(res.Output) > 0 {
		t.Errorf("a tool's limit: got %v, output %q", err, res.Output)
	}
	// Not caught, the tool's error is the program's, as before.
	_, err = lisp.Run(context.Background(), `(tool/get {:id 2})`, lisp.Options{Tools: tools})
	var le *lisp.Error
	if !errors.As(err, &le) || le.Kind != lisp.ToolError || le.Op != "get" || le.JavaClass() != "clojure.lang.ExceptionInfo" {
		t.Errorf("uncaught tool error: %v", err)
	}
}

// An uncaught ex-info reaches the host as an *Error of kind Thrown: the
// message is the ex-info's, the data is in Data (not in the text), the
// causes follow in Detailed.
func TestUncaughtExInfo(t *testing.T) {
	src := `(try (quot 1 0)
  (catch ArithmeticException e (throw (ex-info "cannot compute the ratio" {:order 7 :secret-ish "s3cr3t"} e))))`
	_, err := lisp.Run(context.Background(), src, lisp.Options{})
	var le *lisp.Error
	if !errors.As(err, &le) {
		t.Fatalf("got %v", err)
	}
	if le.Kind != lisp.Thrown || le.Message != "cannot compute the ratio" || le.Pos.Line != 2 {
		t.Errorf("got kind %s, message %q, position %v", le.Kind, le.Message, le.Pos)
	}
	if lisp.Print(le.Data, lisp.PrintOptions{}) != `{:order 7, :secret-ish "s3cr3t"}` {
		t.Errorf("Data = %v", le.Data)
	}
	if strings.Contains(le.Detailed(), "s3cr3t") {
		t.Errorf("the error's text holds the data: %s", le.Detailed())
	}
	if want := "caused by java.lang.ArithmeticException: Divide by zero"; !strings.Contains(le.Detailed(), want) {
		t.Errorf("Detailed() = %s, want it to hold %q", le.Detailed(), want)
	}
	if !errors.Is(err, lisp.ArithmeticError) {
		t.Error("the cause is not in the error's chain")
	}
	if le.JavaClass() != "clojure.lang.ExceptionInfo" {
		t.Errorf("JavaClass() = %s", le.JavaClass())
	}
}

// One exception thrown and caught by many branches at once: each throw
// makes its own error (run with -race).
func TestExceptionSharedByBranches(t *testing.T) {
	src := `(let [e (ex-info "shared" {:n 1})]
  (pmap (fn [i] (try (if (even? i) (throw e) (quot i 0)) (catch Exception c (if (identical? c e) :same (ex-message c))))) (range 32)))`
	res, err := lisp.Run(context.Background(), src, lisp.Options{Limits: lisp.Limits{Timeout: generous}})
	if err != nil {
		t.Fatal(err)
	}
	v := res.Value.(*lisp.Vector)
	for i := 0; i < v.Len(); i++ {
		want := any(lisp.Keyword("same"))
		if i%2 == 1 {
			want = "Divide by zero"
		}
		if v.At(i) != want {
			t.Fatalf("branch %d: %v", i, v.At(i))
		}
	}
	_, err = lisp.Run(context.Background(), `(let [e (ex-info "shared" {})] (pmap (fn [_] (throw e)) (range 16)))`,
		lisp.Options{Limits: lisp.Limits{Timeout: generous}})
	if !errors.Is(err, lisp.Thrown) {
		t.Fatalf("got %v", err)
	}
}

// Catching counts steps as any evaluation does: a program's steps do not
// depend on the machine, and a caught error costs a few.
func TestCatchingCountsSteps(t *testing.T) {
	steps := func(src string) int64 {
		res, err := lisp.Run(context.Background(), src, lisp.Options{})
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		return res.Steps
	}
	plain := steps(`(dotimes [i 1000] (quot 1 1))`)
	caught := steps(`(dotimes [i 1000] (try (quot 1 0) (catch Exception e nil)))`)
	if caught <= plain {
		t.Errorf("1,000 caught errors took %d steps, 1,000 divisions %d", caught, plain)
	}
	if again := steps(`(dotimes [i 1000] (try (quot 1 0) (catch Exception e nil)))`); again != caught {
		t.Errorf("steps differ between two runs: %d, %d", caught, again)
	}
}

// Exceptions convert for the host: ToGo and ToJSON give their class,
// message, data and cause; a redacted print hides their data's secrets.
func TestExceptionValuesForTheHost(t *testing.T) {
	res, err := lisp.Run(context.Background(), `(ex-info "outer" {:k "v" :_hidden "secret-value"} (ex-info "inner" {}))`, lisp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	g, err := lisp.ToGo(res.Value)
	if err != nil {
		t.Fatal(err)
	}
	if s := fmt.Sprint(g); s != "map[cause:map[data:map[] message:inner type:clojure.lang.ExceptionInfo] data:map[_hidden:secret-value k:v] message:outer type:clojure.lang.ExceptionInfo]" {
		t.Errorf("ToGo = %s", s)
	}
	r := &lisp.Redaction{Placeholder: "<hidden>", Key: func(k lisp.Value) bool { return k == lisp.Keyword("_hidden") }}
	j, err := lisp.ToJSON(res.Value, r)
	if err != nil || strings.Contains(string(j), "secret-value") || !strings.Contains(string(j), `"message":"outer"`) {
		t.Errorf("ToJSON = %s, %v", j, err)
	}
	if s := lisp.Print(res.Value, lisp.PrintOptions{Redact: r}); strings.Contains(s, "secret-value") {
		t.Errorf("FormatValue = %s", s)
	}
	back, err := lisp.Read(lisp.Print(res.Value, lisp.PrintOptions{Exact: true}), lisp.ReadOptions{})
	if err != nil || lisp.Print(back, lisp.PrintOptions{Exact: true}) != lisp.Print(res.Value, lisp.PrintOptions{Exact: true}) {
		t.Errorf("ReadValue(PrintExact) = %v, %v", back, err)
	}
	if x, ok := back.(*lisp.Exception); !ok || x.Message() != "outer" || x.Cause().Message() != "inner" || x.ClassName() != "clojure.lang.ExceptionInfo" {
		t.Errorf("read back %#v", back)
	}
}
