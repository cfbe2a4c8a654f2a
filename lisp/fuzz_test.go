package lisp_test

import (
	"bufio"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ptc-go/ptc/internal/shared"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/lisp/conformance"
)

// fuzzLimits keep each fuzzed run short.
var fuzzLimits = lisp.Limits{
	Timeout:           200 * time.Millisecond,
	MaxSteps:          200_000,
	MaxDepth:          200,
	MaxLoopIterations: 10_000,
	MaxOutputBytes:    1 << 16,
	MaxMemory:         8 << 20,
}

// FuzzEval reads, analyzes and runs arbitrary text under tight limits: it
// must never panic, hang or crash, and every failure must be a *lisp.Error.
func FuzzEval(f *testing.F) {
	for _, seed := range fuzzSeeds(f) {
		f.Add(seed)
	}
	// rows: JSON rows of one shape, which decode as records (record.go).
	rows, err := lisp.Read(`[{"id": 1, "amount": 120, "status": "open"}, {"id": 2, "amount": 80.5, "status": "closed"},
		{"id": 3, "amount": null, "status": "open"}, {"id": 4, "amount": 300, "status": "pending"}, {"id": 5, "amount": "x"},
		{"id": 6, "amount": 7, "status": "open"}, {"id": 7, "amount": 9, "status": "open"}]`, lisp.ReadOptions{Format: lisp.ReadJSON})

	if err != nil {
		f.Fatal(err)
	}
	ctxVal := mustFromGo(f, map[string]any{
		"items": []any{map[string]any{"id": 1, "name": "a", "tags": []any{"x"}}, map[string]any{"id": 2}},
		"n":     3,
		"rows":  rows,
	})
	tools := lisp.Tools{
		"echo": func(_ context.Context, args *lisp.Map) (any, error) { return args, nil },
		"fail": func(context.Context, *lisp.Map) (any, error) { return nil, errors.New("tool failed") },
	}
	f.Fuzz(func(t *testing.T, src string) {
		res, err := lisp.Run(context.Background(), src, lisp.Options{Input: ctxVal, Tools: tools, Limits: fuzzLimits})
		if res == nil {
			t.Fatal("nil result")
		}
		if err != nil {
			var le *lisp.Error
			if !errors.As(err, &le) {
				t.Fatalf("error %T is not a *lisp.Error: %v", err, err)
			}
			if le.Kind == lisp.InternalError {
				t.Fatalf("internal error: %v", err)
			}
			_ = le.Detailed()
			return
		}
		// Whatever a program returns can be printed and converted.
		_ = lisp.Print(res.Value, lisp.PrintOptions{MaxItems: 20, MaxChars: 2000})
		_, _ = lisp.ToGo(res.Value)
		_, _ = lisp.ToJSON(res.Value, nil)
	})
}

// fuzzSeeds are the shared conformance programs, the hostile suite, the
// language tests and a few malformed inputs.
func fuzzSeeds(tb testing.TB) []string {
	seeds := []string{
		"", "(", ")", "(((", "[{#{", "\"", "\\", "#", "#_", "'", "@", "`", "~", "^",
		"(loop [x 0] (recur (inc x)))",
		"(defn f [x] (f x)) (f 1)",
		"(reduce (fn [acc _] [acc]) [] (range 100000))",
		"(apply str (repeat 100000 \"x\"))",
		"(range)", "(count (iterate inc 0))",
		"(pmap (fn [x] (tool/echo {:x x})) (range 20))",
		"(tool/fail {})", "(call \"nope\")",
		"\x00\xff\xfe", strings.Repeat("(", 10000), strings.Repeat("[1 ", 3000),
		// Records and fused pipelines over them.
		"(->> ctx/rows (filter (where :amount > 100)) (sum-by :amount))",
		"(->> ctx/rows (map :amount) (remove nil?) (keep #(when (number? %) (* 2 %))) (into #{}))",
		"(->> ctx/rows (group-by :status) (map (fn [[k v]] [k (sum-by :id v) (count v)])))",
		"(->> ctx/rows (map #(assoc % :amount 1)) (filter :status) count)",
		"(map (fn [{:keys [id amount]}] [id amount]) (map #(dissoc % \"status\") ctx/rows))",
	}
	if p, ok := shared.Path("conformance", "dev.jsonl"); ok {
		if fh, err := os.Open(p); err == nil {
			vs, _ := conformance.Load(fh)
			fh.Close()
			for _, v := range vs {
				seeds = append(seeds, v.Program)
			}
		}
	}
	for _, hc := range hostileCases {
		seeds = append(seeds, hc.src)
	}
	files, _ := filepath.Glob("testdata/lang/*.txt")
	for _, file := range files {
		fh, err := os.Open(file)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(fh)
		var prog []string
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "==="):
				prog = prog[:0]
			case strings.HasPrefix(line, "---"):
				if len(prog) > 0 {
					seeds = append(seeds, strings.Join(prog, "\n"))
					prog = prog[:0]
				}
			default:
				prog = append(prog, line)
			}
		}
		fh.Close()
	}
	return seeds
}

// TestFuzzSeeds runs the fuzz corpus as a regular test.
func TestFuzzSeeds(t *testing.T) {
	for _, src := range fuzzSeeds(t) {
		res, err := lisp.Run(context.Background(), src, lisp.Options{Limits: fuzzLimits})
		if res == nil {
			t.Fatalf("%q: nil result", src)
		}
		var le *lisp.Error
		if err != nil && (!errors.As(err, &le) || le.Kind == lisp.InternalError) {
			t.Fatalf("%q: %v", src, err)
		}
	}
}

// mustFromGo converts test data that converts (lisp.FromGo), failing the
// test otherwise.
func mustFromGo(tb testing.TB, x any) lisp.Value {
	tb.Helper()
	v, err := lisp.FromGo(x)
	if err != nil {
		tb.Fatal(err)
	}
	return v
}
