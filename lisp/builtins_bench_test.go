package lisp_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/ptc-go/ptc/lisp"
)

// Benchmarks of the heavy builtins over large inputs. The programs are
// compiled once; each iteration is one run over a pre-converted context.
func BenchmarkBuiltins(b *testing.B) {
	const n = 100_000
	rows := make([]map[string]any, n)
	words := make([]string, n)
	for i := range rows {
		rows[i] = map[string]any{"id": i, "score": (i * 7919) % 1000, "tag": fmt.Sprintf("t%d", i%500)}
		words[i] = fmt.Sprintf("w%d", (i*31)%20000)
	}
	text := strings.Repeat("order 12345 shipped to 678 on day 9; ", 20_000)
	ctxVal := mustFromGo(b, map[string]any{"rows": rows, "words": words, "text": text})
	programs := []struct{ name, src string }{
		{"sort-by/100k", `(count (sort-by :score ctx/rows))`},
		{"sort-by-desc/100k", `(count (sort-by :score > ctx/rows))`},
		{"sort/100k", `(count (sort ctx/words))`},
		{"group-by/100k", `(count (group-by :tag ctx/rows))`},
		{"frequencies/100k", `(count (frequencies ctx/words))`},
		{"distinct/100k", `(count (distinct ctx/words))`},
		{"str-join/100k", `(count (clojure.string/join "," ctx/words))`},
		{"re-seq/780KB", `(count (re-seq #"\d+" ctx/text))`},
		{"map-filter-reduce/100k", `(->> ctx/rows (map :score) (filter even?) (reduce +))`},
		{"into-map/100k", `(count (into {} (map (juxt :id :score) ctx/rows)))`},
	}
	benchPrograms(b, ctxVal, programs)
}

// BenchmarkTextAndNumbers covers the string, regex, printing and number
// builtins whose Clojure semantics are subtle (Java's regex iteration,
// HALF_UP formatting, special casing), so that the exact versions stay fast.
func BenchmarkTextAndNumbers(b *testing.B) {
	const n = 10_000
	floats := make([]float64, n)
	ints := make([]int, n)
	words := make([]string, n)
	for i := range floats {
		floats[i] = float64(i)*0.37 + 0.1
		ints[i] = (i * 7919) % 100_000
		words[i] = fmt.Sprintf("  w%d\t", i)
	}
	text := strings.Repeat("order 12345 shipped to 678 on day 9; ", 20_000)
	small := strings.Repeat("order 12345 shipped to 678 on day 9; ", 500)
	ctxVal := mustFromGo(b, map[string]any{"floats": floats, "ints": ints, "words": words, "text": text, "small": small})
	programs := []struct{ name, src string }{
		{"re-seq-words/780KB", `(count (re-seq #"\w+" ctx/text))`},
		{"re-seq-nullable/780KB", `(count (re-seq #"\d*" ctx/text))`},
		{"re-seq-nullable/19KB", `(count (re-seq #"\d*" ctx/small))`},
		{"re-seq-boundary/19KB", `(count (re-seq #"\b\d*" ctx/small))`},
		{"split-regex/780KB", `(count (clojure.string/split ctx/text #"\s+"))`},
		{"replace-regex/780KB", `(count (clojure.string/replace ctx/text #"\d+" "N"))`},
		{"replace-nullable/19KB", `(count (clojure.string/replace ctx/small #"x*" "-"))`},
		{"upper-case/780KB", `(count (clojure.string/upper-case ctx/text))`},
		{"lower-case/780KB", `(count (clojure.string/lower-case ctx/text))`},
		{"trim/10k", `(count (mapv clojure.string/trim ctx/words))`},
		{"format-f/10k", `(count (mapv #(format "%.2f" %) ctx/floats))`},
		{"format-e/10k", `(count (mapv #(format "%.3e" %) ctx/floats))`},
		{"print-str/10k", `(count (print-str ctx/words))`},
		{"pr-str/10k", `(count (pr-str ctx/words))`},
		{"range-float/100k", `(count (range 0 50000 0.5))`},
		{"range-int/100k", `(count (range 100000))`},
		{"max/10k", `(apply max ctx/ints)`},
		{"partition-all/10k", `(count (partition-all 3 1 ctx/ints))`},
		{"seq-pipeline/10k", `(count (->> ctx/ints (filter even?) (map inc) (take 2000) (into [])))`},
	}
	if os.Getenv("PTC_BENCH_XF") != "" { // transducers (absent before they were added)
		programs = append(programs, []struct{ name, src string }{
			{"into-xf/10k", `(count (into [] (comp (filter even?) (map inc) (take 2000)) ctx/ints))`},
			{"transduce-xf/10k", `(transduce (comp (filter even?) (map inc)) + ctx/ints)`},
			{"reduce-seq/10k", `(reduce + (map inc (filter even? ctx/ints)))`},
		}...)
	}
	benchPrograms(b, ctxVal, programs)
}

// benchPrograms compiles each program once and times its runs over ctx,
// without a time or step limit, as sub-benchmarks.
func benchPrograms(b *testing.B, ctx lisp.Value, programs []struct{ name, src string }) {
	for _, p := range programs {
		prog, err := lisp.Compile(p.src)
		if err != nil {
			b.Fatal(err)
		}
		opts := lisp.Options{Input: ctx, Limits: lisp.Limits{Timeout: -1, MaxSteps: -1}}
		b.Run(p.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := prog.Run(context.Background(), opts); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
