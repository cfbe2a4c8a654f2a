package lisp_test

import (
	"context"
	"os"
	"strings"
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
		v, err := lisp.Read(string(data), lisp.ReadOptions{Format: lisp.ReadJSON})
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
	opts := lisp.Options{Input: ctx}
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

// BenchmarkLimits runs W1–W6 with the default limits and with every limit
// switched off (negative), to show what enforcing them costs:
//
//	go test -run XXX -bench Limits -count 10 ./lisp/ > limits.txt
//	benchstat -col /limits limits.txt
//
// The step and memory accounting itself runs in both; a build with the
// ptc_nolimits tag compiles it out (go test -tags ptc_nolimits -bench W).
func BenchmarkLimits(b *testing.B) {
	unlimited := lisp.Limits{Timeout: -1, MaxSteps: -1, MaxDepth: -1, MaxLoopIterations: -1,
		MaxOutputBytes: -1, MaxToolCalls: -1, MaxMemory: -1}
	for _, w := range []struct {
		name   string
		orders bool
	}{{"w1.ptc", false}, {"w2.ptc", true}, {"w3.ptc", true}, {"w4.ptc", true}, {"w5.ptc", false}, {"w6.ptc", false}} {
		for _, l := range []struct {
			name   string
			limits lisp.Limits
		}{{"default", lisp.Limits{}}, {"none", unlimited}} {
			b.Run("w="+strings.ToUpper(strings.TrimSuffix(w.name, ".ptc"))+"/limits="+l.name, func(b *testing.B) {
				src, ctx := loadWorkload(b, w.name, w.orders)
				prog, err := lisp.Compile(src)
				if err != nil {
					b.Fatal(err)
				}
				opts := lisp.Options{Input: ctx, Limits: l.limits}
				bg := context.Background()
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if _, err := prog.Run(bg, opts); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkRun times the run part alone: each workload compiled once, then
// run many times (Program.Run), to show the per-run overhead and the data
// paths apart from reading and compiling (bench/instructions counts its
// instructions).
func BenchmarkRun(b *testing.B) {
	for _, name := range []string{"w1.ptc", "w2.ptc", "w3.ptc", "w4.ptc", "w5.ptc", "w6.ptc"} {
		b.Run("w="+strings.ToUpper(strings.TrimSuffix(name, ".ptc")), func(b *testing.B) {
			orders := name == "w2.ptc" || name == "w3.ptc" || name == "w4.ptc"
			src, ctx := loadWorkload(b, name, orders)
			prog, err := lisp.Compile(src)
			if err != nil {
				b.Fatal(err)
			}
			opts := lisp.Options{Input: ctx}
			bg := context.Background()
			if _, err := prog.Run(bg, opts); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := prog.Run(bg, opts); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
