package lisp

import "sync/atomic"

// Vector is an immutable sequence of values, backed by a flat slice.
//
// Slices make iteration and indexing as fast as Go allows and make rest,
// subvec, take and drop O(1) views. Conj stays amortized O(1) without copying
// the whole vector thanks to a claim on the backing array's spare capacity:
// the first vector to append into a free slot gets it, every later one copies.
// So the usual accumulator pattern, (conj acc x) in a loop, appends in place,
// while an older vector never sees elements appended after it.
type Vector struct {
	items []Value
	claim *vectorClaim // shared by the vectors over one backing array; nil if none may append in place
}

// vectorClaim records how much of a backing array is in use.
type vectorClaim struct {
	capacity int          // cap of the backing array
	used     atomic.Int64 // highest index in use + 1
}

// emptyVector is shared by all empty results (it is never mutated).
var emptyVector = &Vector{}

// NewVector returns a vector holding items. The vector takes ownership of
// the slice: the caller must not modify it afterwards.
func NewVector(items []Value) *Vector {
	if len(items) == 0 {
		return emptyVector
	}
	return &Vector{items: items}
}

// VectorOf returns a vector of the arguments.
func VectorOf(items ...Value) *Vector { return NewVector(append([]Value(nil), items...)) }

// Len returns the number of elements.
func (v *Vector) Len() int { return len(v.items) }

// At returns element i; it panics when i is out of range.
func (v *Vector) At(i int) Value { return v.items[i] }

// Items returns the elements. The slice must not be modified.
func (v *Vector) Items() []Value { return v.items }

// Conj returns a vector with x appended.
func (v *Vector) Conj(x Value) *Vector {
	n := len(v.items)
	if c := v.claim; c != nil && n < cap(v.items) {
		end := int64(c.capacity - cap(v.items) + n) // absolute index of the free slot
		if c.used.CompareAndSwap(end, end+1) {
			items := v.items[:n+1]
			items[n] = x
			return &Vector{items: items, claim: c}
		}
	}
	newCap := 2 * n
	if newCap < 4 {
		newCap = 4
	}
	items := make([]Value, n+1, newCap)
	copy(items, v.items)
	items[n] = x
	c := &vectorClaim{capacity: newCap}
	c.used.Store(int64(n + 1))
	return &Vector{items: items, claim: c}
}

// appendsInPlace reports whether Conj can append without copying (another
// thread may take the slot first: then it copies all the same).
func (v *Vector) appendsInPlace() bool {
	n := len(v.items)
	c := v.claim
	return c != nil && n < cap(v.items) && c.used.Load() == int64(c.capacity-cap(v.items)+n)
}

// conjVector is Conj for programs: a copy of the vector (when another
// vector already appended to its backing array, as when a program adds to
// the same host vector again and again) is charged and counted.
func (th *thread) conjVector(v *Vector, x Value) (*Vector, error) {
	if !v.appendsInPlace() {
		if err := th.copying(2 * v.Len()); err != nil {
			return nil, err
		}
	}
	return v.Conj(x), nil
}

// assocVector is Assoc for programs: the copy is charged and counted.
func (th *thread) assocVector(v *Vector, i int, x Value) (*Vector, error) {
	if i == v.Len() {
		return th.conjVector(v, x)
	}
	if err := th.copying(v.Len()); err != nil {
		return nil, err
	}
	return v.Assoc(i, x), nil
}

// copying accounts for copying n values: memory, and a step per 16.
func (th *thread) copying(n int) error {
	if err := th.charge(int64(n)); err != nil {
		return err
	}
	return th.ticks(n >> 4)
}

// Slice returns the elements [from, to) as a vector sharing the backing array.
func (v *Vector) Slice(from, to int) *Vector {
	if from == 0 && to == len(v.items) {
		return v
	}
	if from >= to {
		return emptyVector
	}
	// A slice that ends at the old end may keep appending in place; others
	// must not (their "free" slot is an element of another vector).
	if to == len(v.items) {
		return &Vector{items: v.items[from:to], claim: v.claim}
	}
	return &Vector{items: v.items[from:to:to]}
}

// Assoc returns a copy of v with element i replaced (i == Len appends).
// It copies the elements: vectors are optimised for appending and reading.
func (v *Vector) Assoc(i int, x Value) *Vector {
	if i == len(v.items) {
		return v.Conj(x)
	}
	items := make([]Value, len(v.items))
	copy(items, v.items)
	items[i] = x
	return &Vector{items: items}
}
