package lisp_test

import (
	"context"
	"os"
	"testing"

	"github.com/ptc-go/ptc/internal/shared"
	"github.com/ptc-go/ptc/lisp"
)

// loadWorkload reads a shared benchmark program and its context.
func loadWorkload(b *testing.B, name string, withOrders bool) (string, *lisp.Map) {
	b.Helper()
	p, ok := shared.Path("bench", name)
	if !ok {
		b.Skip("../shared/bench is absent: the reference workloads are not available")
	}
	src, err := os.ReadFile(p)
	if err != nil {
		b.Fatal(err)
	}
	ctx := lisp.NewMap()
	if withOrders {
		op, _ := shared.Path("bench", "orders.json")
		data, err := os.ReadFile(op)
		if err != nil {
			b.Fatal(err)
		}
		v, err := lisp.ParseJSON(data)
		if err != nil {
			b.Fatal(err)
		}
		ctx = v.(*lisp.Map)
	}
	return string(src), ctx
}

// benchWorkload times a workload from source text to result, as an agent
// turn runs it: read, analyze, compile and evaluate, context already loaded.
func benchWorkload(b *testing.B, name string, withOrders bool) {
	src, ctx := loadWorkload(b, name, withOrders)
	opts := lisp.Options{Context: ctx}
	bg := context.Background()
	if _, err := lisp.Run(bg, src, opts); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := lisp.Run(bg, src, opts); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkW1(b *testing.B) { benchWorkload(b, "w1.ptc", false) }
func BenchmarkW2(b *testing.B) { benchWorkload(b, "w2.ptc", true) }
func BenchmarkW3(b *testing.B) { benchWorkload(b, "w3.ptc", true) }
func BenchmarkW4(b *testing.B) { benchWorkload(b, "w4.ptc", true) }
func BenchmarkW5(b *testing.B) { benchWorkload(b, "w5.ptc", false) }
func BenchmarkW6(b *testing.B) { benchWorkload(b, "w6.ptc", false) }
