package agent

import (
	"math"
	"strconv"
	"testing"

	"github.com/ptc-go/ptc/lisp"
)

func TestIntWidth(t *testing.T) {
	for _, n := range []int64{0, 7, -7, 10, 99, -100, 123456789, math.MaxInt64, math.MinInt64, math.MinInt64 + 1} {
		if got, want := intWidth(n), len(strconv.FormatInt(n, 10)); got != want {
			t.Errorf("intWidth(%d) = %d, want %d", n, got, want)
		}
	}
}

// A value whose printed form is exponential (each level holds the level
// below twice) is measured by its distinct parts: the walk visits each
// collection once, so it ends at once, and small.
func TestSharedSizeOfSharedStructure(t *testing.T) {
	v := lisp.Value(int64(1))
	for range 60 {
		v = lisp.NewVector([]lisp.Value{v, v})
	}
	seen := map[any]bool{}
	if got := sharedSize(v, 1<<20, nil, seen); got > 60*8 || len(seen) != 60 {
		t.Errorf("sharedSize of 60 levels of sharing = %d over %d collections, want at most 480 over 60", got, len(seen))
	}
	// The printed size walks the tree; it stops soon after its limit.
	if got := valueSize(v, 1000); got <= 1000 || got > 1100 {
		t.Errorf("valueSize past its limit: %d, want just over 1000", got)
	}
}
