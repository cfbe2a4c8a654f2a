package syntax

import (
	"os"
	"testing"

	"github.com/ptc-go/ptc/internal/shared"
)

// w6 is the shared workload W6, the largest program of ../shared/bench.
func w6(b *testing.B) []byte {
	p, ok := shared.Path("bench", "w6.ptc")
	if !ok {
		b.Skip("../shared/bench is absent: the reference workload W6 is not available")
	}
	src, err := os.ReadFile(p)
	if err != nil {
		b.Fatal(err)
	}
	return src
}

func BenchmarkReadW6(b *testing.B) {
	src := w6(b)
	s := string(src)
	if _, err := Read(s); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(s)))
	b.ReportAllocs()
	for b.Loop() {
		Read(s)
	}
}

func BenchmarkReadSmall(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		Read("(+ 1 2)")
	}
}

func BenchmarkCensusW6(b *testing.B) {
	src := w6(b)
	s := string(src[:censusWindow])
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		var c census
		c.take(s)
	}
}
