package lisp

import (
	"context"
	"fmt"
	"testing"
	"unsafe"

	"github.com/ptc-go/ptc/lisp/internal/analyze"
)

// call asks markLazyRange only of the builtins flagged callLazy: no other
// marks a range, in any place of up to three arguments.
func TestCallLazyFlag(t *testing.T) {
	rangeCall := &analyze.Call{Fn: &analyze.Builtin{Name: "range"}, Args: []analyze.Expr{&analyze.Const{Value: int64(3)}}}
	for name := range builtins {
		info, _ := lookupCallInfo(name)
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

// The (:k x) of a local are shared by key and slot (keywordOfLocal): each
// closure must read its own key of its own slot, however the pairs fall
// in the table (more of them than it has places), and a pair met again
// finds the closure made first while nothing took its place.
func TestKeywordOfLocalShared(t *testing.T) {
	var c compiler
	const slots, keys = 6, 5
	fr := &frame{slots: make([]Value, slots)}
	for s := range slots {
		var kvs []Value
		for k := range keys {
			kvs = append(kvs, Keyword(fmt.Sprint("k", k)), int64(10*s+k))
		}
		fr.slots[s] = NewMap(kvs...)
	}
	for round := range 2 {
		for s := range slots {
			for k := range keys {
				fk := c.keywordKey(fmt.Sprint("k", k))
				f := c.keywordOfLocal(fk, int32(s))
				if v, err := f(fr); err != nil || v != int64(10*s+k) {
					t.Fatalf("round %d, (:k%d slot %d): %v, %v", round, k, s, v, err)
				}
			}
		}
	}
	fk := c.keywordKey("k0")
	f := c.keywordOfLocal(fk, 2)
	// (A func value is a pointer to its closure: the same closure, the
	// same pointer.)
	if g := c.keywordOfLocal(fk, 2); *(*unsafe.Pointer)(unsafe.Pointer(&f)) != *(*unsafe.Pointer)(unsafe.Pointer(&g)) {
		t.Errorf("the second (:k0 x) of slot 2 made a closure of its own")
	}
	// Scopes that reuse a slot read their own values.
	res, err := Run(context.Background(), `(let [a (let [x {:k 1}] (:k x)) b (let [y {:k 2}] (:k y)) c (let [z [{:k 3}]] (:k z))] [a b c (:k a)])`, Options{})
	if err != nil || Print(res.Value, PrintOptions{}) != "[1 2 nil nil]" {
		t.Errorf("got %v, %v", res, err)
	}
}

// Each closure of localReads reads its own slot.
func TestLocalReads(t *testing.T) {
	fr := &frame{slots: make([]Value, len(localReads))}
	for i := range fr.slots {
		fr.slots[i] = int64(i)
	}
	for i, f := range localReads {
		if v, err := f(fr); err != nil || v != int64(i) {
			t.Errorf("localReads[%d] reads %v, %v", i, v, err)
		}
	}
}

// unmadeConst answers each int from minConstInt to maxConstInt with a
// closure of that int, the same closure every time it is asked (the block
// that holds it is made once), which sharedConst then answers too, and no
// shared closure for the ints past them.
func TestSharedConstInts(t *testing.T) {
	for x := int64(minConstInt); x <= maxConstInt; x++ {
		if f := sharedConst(x); f == nil && unmadeConst(x) == nil {
			t.Fatalf("unmadeConst(%d) = nil", x)
		}
		f := sharedConst(x)
		if f == nil {
			t.Fatalf("sharedConst(%d) = nil", x)
		}
		if v, err := f(nil); v != Value(x) || err != nil {
			t.Fatalf("sharedConst(%d) yields %v, %v", x, v, err)
		}
		// A func value is a pointer to its closure: the same closure is the
		// same pointer.
		if g := sharedConst(x); *(*unsafe.Pointer)(unsafe.Pointer(&g)) != *(*unsafe.Pointer)(unsafe.Pointer(&f)) {
			t.Fatalf("sharedConst(%d) made a second closure", x)
		}
	}
	for _, x := range []int64{minConstInt - 1, maxConstInt + 1, -1 << 63, 1<<63 - 1} {
		if sharedConst(x) != nil || unmadeConst(x) != nil {
			t.Errorf("sharedConst(%d) is shared", x)
		}
	}
	if unmadeConst(1.5) != nil || unmadeConst("1") != nil {
		t.Errorf("unmadeConst shares a float or a string")
	}
}
