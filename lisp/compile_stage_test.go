package lisp

import (
	"testing"

	"github.com/ptc-go/ptc/lisp/internal/analyze"
)

// call asks fusedCall for a terminal only when its last argument may be a
// stage (mayBeStage): every stage fusedCall knows must pass, anything else
// may be left out.
func TestMayBeStage(t *testing.T) {
	builtin := func(name string, args ...analyze.Expr) analyze.Expr {
		return &analyze.Call{Fn: &analyze.Builtin{Name: name}, Args: args}
	}
	x, f := &analyze.Local{Slot: 0}, &analyze.Keyword{Name: "ok"}
	for _, tc := range []struct {
		e    analyze.Expr
		want bool
	}{
		{builtin("filter", f, x), true},
		{builtin("filterv", f, x), true},
		{builtin("map", f, x), true},
		{builtin("mapv", f, x), true},
		{builtin("remove", f, x), true},
		{builtin("keep", f, x), true},
		{builtin("filter", f), false},                             // no collection
		{builtin("get-in", x, x), false},                          // no stage
		{builtin("count", x), false},                              // one argument
		{&analyze.Call{Fn: f, Args: []analyze.Expr{x, x}}, false}, // (:ok x d)
		{x, false},
		{f, false},
	} {
		if got := mayBeStage(tc.e); got != tc.want {
			t.Errorf("mayBeStage(%#v) = %v, want %v", tc.e, got, tc.want)
		}
		// Every name fusibleStage knows is one mayBeStage lets through.
		if c, ok := tc.e.(*analyze.Call); ok && len(c.Args) == 2 {
			if b, ok := c.Fn.(*analyze.Builtin); ok {
				if _, stage := fusibleStage(b.Name); stage != tc.want {
					t.Errorf("%s: fusibleStage says %v, mayBeStage %v", b.Name, stage, tc.want)
				}
			}
		}
	}
}
