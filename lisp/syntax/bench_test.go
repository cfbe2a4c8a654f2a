package syntax

import (
	"os"
	"path/filepath"
	"testing"
)

func BenchmarkReadW6(b *testing.B) {
	src, err := os.ReadFile(filepath.Join("..", "..", "..", "shared", "bench", "w6.ptc"))
	if err != nil {
		b.Skip("benchmark program ../../../shared/bench/w6.ptc not found")
	}
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
	src, err := os.ReadFile(filepath.Join("..", "..", "..", "shared", "bench", "w6.ptc"))
	if err != nil {
		b.Skip("benchmark program ../../../shared/bench/w6.ptc not found")
	}
	s := string(src[:censusWindow])
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		var c census
		c.take(s)
	}
}
