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
//
// A Vector is also the list type: IsList reports a list, which a program
// grows at the front (see vectorClaim). Lists and vectors share every
// reading path (iteration, nth, count, equality, hashing, fused
// pipelines), so a list costs nothing where it behaves as a vector; only
// what Clojure distinguishes (conj, into, peek, pop, printing, calling,
// get by index, the predicates, type) looks at IsList.
type Vector struct {
	items []Value
	claim *vectorClaim // shared by the vectors over one backing array; nil if none may append in place
}

// vectorClaim records how much of a backing array is in use.
//
// A list ('(1 2), (list ...), cons, conj onto a list) is a Vector whose
// claim is marked list: it reads, iterates, counts and compares as a
// vector, and grows at the front instead (conj, into), the way Clojure's
// PersistentList does. Its claim then holds the whole backing array, front,
// and used is the lowest index in use: the first list to prepend into the
// free slot before it gets it, every later one copies, so a stack built
// with conj in a loop prepends in place. A list's items always run to the
// end of front (never a three-index slice), so their start in front is
// cap(front) - cap(items).
type vectorClaim struct {
	capacity int          // cap of the backing array (vectors)
	used     atomic.Int64 // vectors: highest index in use + 1; lists: lowest index in use
	list     bool
	front    []Value // lists: the backing array, nil when none may prepend in place
}

// emptyVector is shared by all empty results (it is never mutated).
var emptyVector = &Vector{}

// listMark marks lists that cannot prepend in place (it is never mutated:
// its front is nil).
var listMark = &vectorClaim{list: true}

// emptyList is '(), shared like emptyVector.
var emptyList = &Vector{claim: listMark}

// NewList returns a list holding items, first element first. The list
// takes ownership of the slice: the caller must not modify it afterwards.
func NewList(items []Value) *Vector {
	if len(items) == 0 {
		return emptyList
	}
	return &Vector{items: items, claim: listMark}
}

// ListOf returns a list of the arguments.
func ListOf(items ...Value) *Vector { return NewList(append([]Value(nil), items...)) }

// IsList reports whether v is a list rather than a vector. Lists print as
// (1 2 3), grow at the front, and are = to the vectors of the same
// elements; ToGo and JSON make them arrays.
func (v *Vector) IsList() bool { return v.claim != nil && v.claim.list }

// asVector returns a list's elements as a vector (sharing them), and a
// vector as it is.
func (v *Vector) asVector() *Vector {
	if !v.IsList() {
		return v
	}
	return NewVector(v.items[:len(v.items):len(v.items)])
}

// asList returns a vector's elements as a list (sharing them), and a list
// as it is.
func (v *Vector) asList() *Vector {
	if v.IsList() {
		return v
	}
	return NewList(v.items[:len(v.items):len(v.items)])
}

// empty returns the empty vector or list, of v's kind.
func (v *Vector) empty() *Vector {
	if v.IsList() {
		return emptyList
	}
	return emptyVector
}

// Prepend returns a list with x before the elements of v (a list or a
// vector).
func (v *Vector) Prepend(x Value) *Vector {
	n := len(v.items)
	if c := v.claim; c != nil && c.list && c.front != nil {
		if off := cap(c.front) - cap(v.items); off > 0 && c.used.CompareAndSwap(int64(off), int64(off-1)) {
			c.front[off-1] = x
			return &Vector{items: c.front[off-1 : off+n], claim: c}
		}
	}
	front := make([]Value, max(2*n, 4))
	start := len(front) - n - 1
	front[start] = x
	copy(front[start+1:], v.items)
	c := &vectorClaim{list: true, front: front}
	c.used.Store(int64(start))
	return &Vector{items: front[start:], claim: c}
}

// prependsInPlace reports whether Prepend can prepend without copying.
func (v *Vector) prependsInPlace() bool {
	c := v.claim
	if c == nil || !c.list || c.front == nil {
		return false
	}
	off := cap(c.front) - cap(v.items)
	return off > 0 && c.used.Load() == int64(off)
}

// conjList is Prepend for programs: a copy is charged and counted.
func (th *thread) conjList(v *Vector, x Value) (*Vector, error) {
	if !v.prependsInPlace() {
		if err := th.copying(2 * v.Len()); err != nil {
			return nil, err
		}
	}
	return v.Prepend(x), nil
}

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

// Conj returns a vector with x appended (a vector, also when v is a list:
// conj onto a list is Prepend).
func (v *Vector) Conj(x Value) *Vector {
	n := len(v.items)
	if c := v.claim; c != nil && !c.list && n < cap(v.items) {
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
	return c != nil && !c.list && n < cap(v.items) && c.used.Load() == int64(c.capacity-cap(v.items)+n)
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

// Slice returns the elements [from, to) as a vector sharing the backing
// array; a slice of a list is a list.
func (v *Vector) Slice(from, to int) *Vector {
	if from == 0 && to == len(v.items) {
		return v
	}
	if v.IsList() {
		if from >= to {
			return emptyList
		}
		// Never a three-index slice: Prepend finds a list's start in its
		// array from its capacity.
		return &Vector{items: v.items[from:to], claim: v.claim}
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
// The result is a vector.
func (v *Vector) Assoc(i int, x Value) *Vector {
	if i == len(v.items) {
		return v.Conj(x)
	}
	items := make([]Value, len(v.items))
	copy(items, v.items)
	items[i] = x
	return &Vector{items: items}
}

// isList reports whether v is a list.
func isList(v Value) bool {
	l, ok := v.(*Vector)
	return ok && l.IsList()
}

// prependAll conjoins xs onto the list l one by one, as (into l xs) does:
// the result starts with xs reversed. One copy, charged, whatever the
// count.
func (th *thread) prependAll(l *Vector, xs []Value) (*Vector, error) {
	if len(xs) == 0 {
		return l, nil
	}
	if len(xs) == 1 {
		return th.conjList(l, xs[0])
	}
	if err := th.copying(2 * (len(xs) + l.Len())); err != nil {
		return nil, err
	}
	n := len(xs) + l.Len()
	front := make([]Value, 2*n)
	start := len(front) - n
	for i, x := range xs {
		front[start+len(xs)-1-i] = x
	}
	copy(front[start+len(xs):], l.items)
	c := &vectorClaim{list: true, front: front}
	c.used.Store(int64(start))
	return &Vector{items: front[start:], claim: c}, nil
}
