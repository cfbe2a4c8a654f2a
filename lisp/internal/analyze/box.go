package analyze

import (
	"math"
	"unsafe"
)

// A program's constants are values of type any, and most of them would
// be boxed one by one: an int64 from 256 up or below 0, a float64 and a
// non-empty string each take an allocation of their own (Go boxes only
// the small ints, the zero values and single bytes for free). boxes
// holds them instead in chunks of its own, one allocation for many, and
// the constants point into them.
//
// The compiled program keeps its constants for as long as it lives, and
// nothing may ever write to the memory they point to: these chunks never
// come from a Buffers, are never recycled or changed, and only the
// element a constant points to is ever written, once, before the
// constant is made. A chunk lives as long as one of its constants does.
type boxes struct {
	words slab[uint64] // the bits of int64 and float64 constants
	strs  slab[string]
	// boxed: a number or a string was boxed the ordinary way. The first
	// of each is (a chunk of one is an allocation all the same): a
	// program of one large constant, W5's (range 1000), makes no chunk.
	boxedWord, boxedStr bool
}

// eface is the layout of a value of type any: its type and a pointer to
// its value.
type eface struct {
	typ, data unsafe.Pointer
}

// boxedAt is a value of the dynamic type of like (an any made from a
// constant, static data that costs no allocation) whose value is the
// one at p.
func boxedAt(like any, p unsafe.Pointer) any {
	(*eface)(unsafe.Pointer(&like)).data = p
	return like
}

// The layout boxedAt relies on, checked as keywordOf's.
var _ = [1]struct{}{}[unsafe.Sizeof(any(nil))-unsafe.Sizeof(eface{})]

// boxInt is any(v).
func (a *analyzer) boxInt(v int64) any {
	if uint64(v) < uint64(len(smallInts)) {
		return smallInts[v] // boxed already, no allocation and no call
	}
	return a.boxBits(int64(0), uint64(v))
}

// boxFloat is any(v).
func (a *analyzer) boxFloat(v float64) any {
	if b := math.Float64bits(v); b >= 256 {
		return a.boxBits(float64(0), b)
	}
	return v
}

// boxBits is a value of the type of like whose bits are those given,
// kept in a fresh word of the boxes.
func (a *analyzer) boxBits(like any, bits uint64) any {
	p := a.boxes.words.take()
	if p == nil {
		if !a.boxes.boxedWord {
			a.boxes.boxedWord = true
			if _, ok := like.(float64); ok {
				return math.Float64frombits(bits)
			}
			return int64(bits)
		}
		p = a.boxes.words.grow()
	}
	*p = bits
	return boxedAt(like, unsafe.Pointer(p))
}

// boxString is any(s).
func (a *analyzer) boxString(s string) any {
	if s == "" {
		return s
	}
	p := a.boxes.strs.take()
	if p == nil {
		if !a.boxes.boxedStr {
			a.boxes.boxedStr = true
			return s
		}
		p = a.boxes.strs.grow()
	}
	*p = s
	return boxedAt("", unsafe.Pointer(p))
}
