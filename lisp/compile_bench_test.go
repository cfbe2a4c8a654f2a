package lisp

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/ptc-go/ptc/internal/shared"
	"github.com/ptc-go/ptc/lisp/internal/analyze"
	"github.com/ptc-go/ptc/lisp/syntax"
)

// benchSources are the shared workloads whose compilation is measured.
var benchSources = []string{"w1.ptc", "w5.ptc", "w6.ptc"}

func readBenchSource(b *testing.B, name string) string {
	b.Helper()
	p, ok := shared.Path("bench", name)
	if !ok {
		b.Skip("../shared/bench is absent: the reference workloads are not available")
	}
	src, err := os.ReadFile(p)
	if err != nil {
		b.Fatal(err)
	}
	return string(src)
}

func benchName(file string) string {
	return "w=" + strings.ToUpper(strings.TrimSuffix(file, ".ptc"))
}

// BenchmarkCompile times Compile (read, analyze, lower) of the workloads.
func BenchmarkCompile(b *testing.B) {
	for _, file := range benchSources {
		b.Run(benchName(file), func(b *testing.B) {
			src := readBenchSource(b, file)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Compile(src); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkLower times the compiler alone: the analyzed tree of each
// workload lowered into closures, as compile does after the analyzer.
func BenchmarkLower(b *testing.B) {
	for _, file := range benchSources {
		b.Run(benchName(file), func(b *testing.B) {
			src := readBenchSource(b, file)
			forms, err := syntax.Read(src)
			if err != nil {
				b.Fatal(err)
			}
			ap, err := analyze.Analyze(src, forms, analyzeConfig)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				c := &compiler{src: src}
				c.expr(ap.Body)
				if len(c.errs) > 0 {
					b.Fatal(c.errs[0])
				}
			}
		})
	}
}

// BenchmarkCacheMiss times a Cache's misses: each iteration compiles a new
// text (the workload and a comment that numbers it) through one Cache, as
// an agent's turns do with a live model's programs. The Cache recycles the
// reader's and the analyzer's memory from one miss to the next.
func BenchmarkCacheMiss(b *testing.B) {
	for _, file := range benchSources {
		b.Run(benchName(file), func(b *testing.B) {
			src := readBenchSource(b, file)
			srcs := numberedCopies(src, 512)
			c := &Cache{MaxPrograms: 1}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if _, cached, err := c.Compile(context.Background(), srcs[i%len(srcs)]); err != nil || cached {
					b.Fatal(err, cached)
				}
				i++
			}
		})
	}
}

// BenchmarkTurn times what an agent turn with a new program costs the
// interpreter: the text compiled through a Cache (a miss, as in
// BenchmarkCacheMiss) and then run, from text to result. BenchmarkW1…W6
// time the same without a Cache (lisp.Run), as a caller that holds none
// pays it.
func BenchmarkTurn(b *testing.B) {
	for _, file := range benchSources {
		b.Run(benchName(file), func(b *testing.B) {
			src := readBenchSource(b, file)
			srcs := numberedCopies(src, 512)
			c := &Cache{MaxPrograms: 1}
			bg := context.Background()
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				p, cached, err := c.Compile(context.Background(), srcs[i%len(srcs)])
				if err != nil || cached {
					b.Fatal(err, cached)
				}
				if _, err := p.Run(bg, Options{}); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}

// numberedCopies returns n texts of src, each made new by a comment that
// numbers it, for benchmarks of a Cache's misses.
func numberedCopies(src string, n int) []string {
	srcs := make([]string, n)
	for i := range srcs {
		srcs[i] = src + "\n; " + strconv.Itoa(i)
	}
	return srcs
}
