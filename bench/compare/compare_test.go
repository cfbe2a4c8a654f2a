package compare

import (
	"context"
	"testing"

	"github.com/dop251/goja"
	"github.com/expr-lang/expr"
	"github.com/ptc-go/ptc/lisp"
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// The workloads, as each language writes them most directly.
var (
	ptcW1 = `(+ 1 2)`
	ptcW5 = `(loop [i 0 acc 0] (if (< i 1000) (recur (inc i) (+ acc i)) acc))`

	exprW1 = `1 + 2`
	exprW5 = `reduce(0..999, #acc + #, 0)`

	starW1 = "r = 1 + 2\n"
	starW5 = "def f():\n  acc = 0\n  for i in range(1000):\n    acc += i\n  return acc\nr = f()\n"

	jsW1 = `1 + 2`
	jsW5 = `let acc = 0; for (let i = 0; i < 1000; i++) { acc += i }; acc`
)

func benchPTC(b *testing.B, src string, want int64) {
	bg := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		res, err := lisp.Run(bg, src, lisp.Options{})
		if err != nil || res.Value != want {
			b.Fatal(res, err)
		}
	}
}

func benchExpr(b *testing.B, src string, want int) {
	b.ReportAllocs()
	for b.Loop() {
		prog, err := expr.Compile(src)
		if err != nil {
			b.Fatal(err)
		}
		v, err := expr.Run(prog, nil)
		if err != nil || v != want {
			b.Fatal(v, err)
		}
	}
}

func benchStarlark(b *testing.B, src string, want int64) {
	opts := &syntax.FileOptions{}
	b.ReportAllocs()
	for b.Loop() {
		th := &starlark.Thread{}
		g, err := starlark.ExecFileOptions(opts, th, "w.star", src, nil)
		if err != nil {
			b.Fatal(err)
		}
		if n, ok := g["r"].(starlark.Int).Int64(); !ok || n != want {
			b.Fatal(g["r"])
		}
	}
}

func benchGoja(b *testing.B, src string, want int64) {
	b.ReportAllocs()
	for b.Loop() {
		vm := goja.New()
		v, err := vm.RunString(src)
		if err != nil || v.ToInteger() != want {
			b.Fatal(v, err)
		}
	}
}

func w5Go() int64 {
	var acc int64
	for i := int64(0); i < 1000; i++ {
		acc += i
	}
	return acc
}

func BenchmarkW1(b *testing.B) {
	b.Run("lang=ptc", func(b *testing.B) { benchPTC(b, ptcW1, 3) })
	b.Run("lang=expr", func(b *testing.B) { benchExpr(b, exprW1, 3) })
	b.Run("lang=starlark", func(b *testing.B) { benchStarlark(b, starW1, 3) })
	b.Run("lang=goja", func(b *testing.B) { benchGoja(b, jsW1, 3) })
}

func BenchmarkW5(b *testing.B) {
	b.Run("lang=ptc", func(b *testing.B) { benchPTC(b, ptcW5, 499500) })
	b.Run("lang=expr", func(b *testing.B) { benchExpr(b, exprW5, 499500) })
	b.Run("lang=starlark", func(b *testing.B) { benchStarlark(b, starW5, 499500) })
	b.Run("lang=goja", func(b *testing.B) { benchGoja(b, jsW5, 499500) })
	b.Run("lang=go", func(b *testing.B) {
		for b.Loop() {
			if w5Go() != 499500 {
				b.Fatal()
			}
		}
	})
}
