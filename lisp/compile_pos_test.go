package lisp

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ptc-go/ptc/lisp/syntax"
)

// srcLines must answer exactly as syntax.Lines, in any order of offsets,
// on ASCII and non-ASCII lines, at line ends and past the end of input.
func TestSrcLinesMatchesSyntaxLines(t *testing.T) {
	long := strings.Repeat("(+ 1 2) ", 40)
	srcs := []string{
		"", "\n", "\n\n", "a", "abc\n", "abc\ndef", "(+ 1 2)\n(* 3 4)\n",
		"é", "aé\nb", "\"café\" x\n(str \"ü\" 1)\n\nz", "日本語\n語\n",
		long + "\n" + long + "é\n" + long, "\xff\xfe\n\x80a\nb",
		strings.Repeat("line\n", 300), strings.Repeat("ab\ncdé\n", 100),
		// Around the most lines kept without an allocation (smallLines).
		strings.Repeat("x\n", smallLines-1), strings.Repeat("é\n", smallLines-1) + "z",
		strings.Repeat("ab\n", smallLines), strings.Repeat("\n", smallLines+1),
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for _, src := range srcs {
		var offs []int32
		for off := 0; off <= len(src)+3; off++ {
			offs = append(offs, int32(off))
		}
		for range 3 {
			var ours srcLines
			ours.build(src)
			ref := syntax.LinesOf(src)
			for _, off := range offs {
				if got, want := ours.pos(off), ref.Pos(off); got != want {
					t.Fatalf("%q at %d: %+v, want %+v", src, off, got, want)
				}
			}
			rng.Shuffle(len(offs), func(i, j int) { offs[i], offs[j] = offs[j], offs[i] })
		}
	}
}
