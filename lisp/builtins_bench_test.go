package lisp_test

import (
	"context"
	"fmt"
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
	ctxVal := lisp.MustFromGo(map[string]any{"rows": rows, "words": words, "text": text})
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
	for _, p := range programs {
		prog, err := lisp.Compile(p.src)
		if err != nil {
			b.Fatal(err)
		}
		opts := lisp.Options{Context: ctxVal, Limits: lisp.Limits{Timeout: -1, MaxSteps: -1}}
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
