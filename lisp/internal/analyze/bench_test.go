package analyze_test

import (
	"os"
	"slices"
	"testing"

	"github.com/ptc-go/ptc/internal/shared"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/lisp/internal/analyze"
	"github.com/ptc-go/ptc/lisp/syntax"
)

// BenchmarkAnalyze times the analyzer alone on the shared workloads: the
// forms are read once, outside the loop, and the builtins are the runtime's.
//
//	go test -run XXX -bench Analyze -benchmem ./lisp/internal/analyze/
func BenchmarkAnalyze(b *testing.B) {
	names := builtinNames()
	builtins := make(map[string]bool, len(names))
	for _, n := range names {
		builtins[n] = true
	}
	cfg := analyze.Config{IsBuiltin: func(name string) bool { return builtins[name] }}
	for _, w := range []string{"w1", "w5", "w6"} {
		b.Run(w, func(b *testing.B) {
			p, ok := shared.Path("bench", w+".ptc")
			if !ok {
				b.Skip("../shared/bench is absent: the reference workloads are not available")
			}
			src, err := os.ReadFile(p)
			if err != nil {
				b.Fatal(err)
			}
			text := string(src)
			forms, err := syntax.Read(text)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := analyze.Analyze(text, forms, cfg); err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(src)))
			b.ReportAllocs()
			for b.Loop() {
				analyze.Analyze(text, forms, cfg)
			}
		})
	}
}

// builtinNames is every builtin name: the documentation entries' names and
// aliases (lisp.Docs), special forms left out.
func builtinNames() []string {
	var names []string
	for _, d := range lisp.Docs() {
		if !d.Special {
			names = append(names, d.Name)
		}
		names = append(names, d.Aliases...)
	}
	slices.Sort(names)
	return names
}
