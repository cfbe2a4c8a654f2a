package analyze

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ptc-go/ptc/lisp/syntax"
)

// TestMeter checks the chunk sizes the meter chooses: close to what a
// uniform program needs, and never more than maxChunk elements past it
// whatever the program, as chunks that double.
func TestMeter(t *testing.T) {
	var uniform strings.Builder
	uniform.WriteString("(let [base {:id 0}")
	for i := range 60 {
		fmt.Fprintf(&uniform, "\n b%d (let [x {:id %d :tags [1 :k]} y (assoc x :n (count (:tags x)))] (+ (:id y) (:id base)))", i, i)
	}
	uniform.WriteString("] (+ b0 b59))")
	// Dense in constants at the start, then none: the estimate at the
	// end of the vector is far too high.
	skewed := "[" + strings.Repeat("1 ", 300) + "]" + strings.Repeat("(inc (inc (inc x)))", 200)
	for _, tc := range []struct {
		name, src string
		slack     float64 // allocated/used
	}{{"uniform", uniform.String(), 1.2}, {"skewed", skewed, 0}} {
		t.Run(tc.name, func(t *testing.T) {
			forms := read(t, tc.src)
			a := &analyzer{cfg: testConfig(), lines: syntax.LinesOf(tc.src), epoch: 1}
			a.cfg.MaxDepth, a.cfg.MaxErrors = 512, 10
			a.fn, _ = a.start(len(tc.src), nil)
			for _, f := range forms {
				a.predeclare(f)
			}
			for _, f := range forms {
				a.expr(f, false)
			}
			check := func(kind string, used, allocated int) {
				t.Helper()
				if allocated-used > maxArena || tc.slack > 0 && used > 32 && float64(allocated) > tc.slack*float64(used) {
					t.Errorf("%s: %d allocated for %d used", kind, allocated, used)
				}
			}
			check("consts", a.consts.done+a.consts.n, a.consts.done+len(a.consts.buf))
			check("calls", a.calls.done+a.calls.n, a.calls.done+len(a.calls.buf))
			check("locals", a.locals.done+a.locals.n, a.locals.done+len(a.locals.buf))
			check("maps", a.maps.done+a.maps.n, a.maps.done+len(a.maps.buf))
			check("exprs", a.exprBuf.done+a.exprBuf.n, a.exprBuf.done+len(a.exprBuf.buf))
		})
	}
	// Without the meter (a short source), and before it has seen any of
	// the source, chunks double.
	var m *meter
	if got := m.next(8, 20, 1, 4, maxChunk); got != 16 {
		t.Errorf("next without a meter = %d, want 16", got)
	}
	if got := (&meter{size: 1000}).next(8, 20, 1, 4, maxChunk); got != 16 {
		t.Errorf("next at offset 0 = %d, want 16", got)
	}
}
