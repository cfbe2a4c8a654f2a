package lisp

import (
	"testing"

	"github.com/ptc-go/ptc/lisp/internal/analyze"
)

// call asks markLazyRange only of the builtins flagged callLazy: no other
// marks a range, in any place of up to three arguments.
func TestCallLazyFlag(t *testing.T) {
	rangeCall := &analyze.Call{Fn: &analyze.Builtin{Name: "range"}, Args: []analyze.Expr{&analyze.Const{Value: int64(3)}}}
	for name, info := range callInfos {
		marks := false
		for n := range 4 {
			args := make([]analyze.Expr, n)
			for i := range args {
				args[i] = rangeCall
			}
			var c compiler
			c.markLazyRange(name, &analyze.Call{Fn: &analyze.Builtin{Name: name}, Args: args})
			marks = marks || len(c.lazyRanges) > 0
		}
		if marks && info.flags&callLazy == 0 {
			t.Errorf("%s marks a lazy range but is not flagged callLazy", name)
		}
	}
}
