package analyze

import (
	"fmt"
	"strings"
	"testing"
)

// TestAnalyzeAllocations pins how few objects an analysis allocates: one
// for a one-line program, a handful for a loop, and a small fraction of
// the node count for a long program (nodes come from shared chunks).
func TestAnalyzeAllocations(t *testing.T) {
	var wide strings.Builder
	wide.WriteString("(let [base {:id 0}")
	for i := range 40 {
		fmt.Fprintf(&wide, " b%d (let [x {:id %d :tags [1 :k]} y (assoc x :n (count (:tags x)))] (+ (:id y) (:id base)))", i, i)
	}
	wide.WriteString("] (+ b0 b39))")
	tests := []struct {
		name, src string
		max       float64
	}{
		{"one call", `(+ 1 2)`, 1},
		{"loop and recur", `(loop [i 0 acc 0] (if (< i 1000) (recur (inc i) (+ acc i)) acc))`, 2},
		// About 1,300 nodes (412 allocations before the slabs took them
		// all; 38 while metered chunks grew by doubling, 28 with
		// meterGrowth 8, 25 with the top scope's locals made at once).
		{"40 nested lets", wide.String(), 26},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			forms := read(t, tt.src)
			cfg := testConfig()
			if _, err := Analyze(tt.src, forms, cfg); err != nil {
				t.Fatal(err)
			}
			got := testing.AllocsPerRun(20, func() { Analyze(tt.src, forms, cfg) })
			if got > tt.max {
				t.Errorf("Analyze allocates %v objects, want at most %v", got, tt.max)
			}
		})
	}
}

// TestManyLocals resolves names in scopes far wider than the buckets that
// index them: every reference must find the innermost binding of its name,
// also after inner scopes that shadow it have ended.
func TestManyLocals(t *testing.T) {
	const n = 100
	var src, want strings.Builder
	src.WriteString("(let [")
	want.WriteString("(let [")
	for i := range n {
		if i == 0 {
			src.WriteString("v0 0")
			want.WriteString("v0@0 0")
			continue
		}
		fmt.Fprintf(&src, " v%d v%d", i, i-1)
		fmt.Fprintf(&want, " v%d@%d v%d@%d", i, i, i-1, i-1)
	}
	// An inner let shadows v7 and v42; after it, they are the outer ones
	// again. A closure captures v3 and v99.
	src.WriteString("] (let [v7 v42 v42 v7] [v7 v42]) (fn [] [v3 v99]) [v7 v42 v0])")
	fmt.Fprintf(&want, "] (do (let [v7@%d v42@42 v42@%d v7@%d] [v7@%d v42@%d]) (fn caps=[v3<-L3 v99<-L99] ([] n=0 [^v3#0 ^v99#1])) [v7@7 v42@42 v0@0]))",
		n, n+1, n, n, n+1)
	p := mustAnalyze(t, src.String())
	if got := dump(p.Body); got != want.String() {
		t.Errorf("got:  %s\nwant: %s", got, want.String())
	}
}
