package lisp

import (
	"errors"
	"strings"
	"sync/atomic"
)

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
//
// The claim also says which of Clojure's types a vector or list stands for,
// where Clojure has more than PersistentVector and PersistentList (kind):
// a list may be a Cons (what cons returns: seq? but not list?), a vector a
// map entry (what a map's seq holds: map-entry?) or a PersistentQueue
// (conj at the end, peek and pop at the front). A Cons made by cons onto a
// list that prepends in place shares that list's array: its claim is then a
// view, whose base holds the array and its counter.
type vectorClaim struct {
	capacity int          // cap of the backing array (vectors)
	used     atomic.Int64 // vectors: highest index in use + 1; lists: lowest index in use
	list     bool
	kind     vectorKind
	// front is a list's backing array, nil when none may prepend in
	// place; a zipper location (zipKind, never a list) keeps its tree's
	// three functions there (builtins_zip.go), so claims stay this size.
	front []Value
	base  *vectorClaim // a view: the claim of the array (never a view itself)
}

// vectorKind is the Clojure type a vector or list stands for, beyond
// PersistentVector and PersistentList.
type vectorKind uint8

const (
	plainKind vectorKind = iota
	consKind             // a list: clojure.lang.Cons
	entryKind            // a vector of two: clojure.lang.MapEntry
	queueKind            // a vector: clojure.lang.PersistentQueue
	seqKind              // a vector: the seq a sequence function returns (LazySeq, ChunkedSeq, …)
	zipKind              // a vector: a clojure.zip location, [node path], with its tree's functions (zip)
)

// root returns the claim that holds the array and its counter.
func (c *vectorClaim) root() *vectorClaim {
	if c.base != nil {
		return c.base
	}
	return c
}

// entryMark marks map entries, queueMark the empty queue; neither may
// append in place (their capacity is 0) and neither is ever mutated.
var (
	entryMark = &vectorClaim{kind: entryKind}
	queueMark = &vectorClaim{kind: queueKind}
)

// emptyQueue is clojure.lang.PersistentQueue/EMPTY.
var emptyQueue = &Vector{claim: queueMark}

// seqMark marks the results of the sequence functions (map, filter, rest,
// take, sort, keys …), which are seqs in Clojure: they read, print and
// compare as vectors here (docs/deviations.md row 33), but conj and into put
// new elements in front, as onto any Clojure seq, and the predicates and
// type answer as for a seq. Its capacity is 0: none appends in place.
var seqMark = &vectorClaim{kind: seqKind}

// emptySeqView is the empty result of a sequence function.
var emptySeqView = &Vector{claim: seqMark}

// IsSeqView reports whether v is the result of a sequence function over a
// vector: a vector that stands for a Clojure seq (seq? true, vector? false,
// conj puts in front).
func (v *Vector) IsSeqView() bool { return v.kindOf() == seqKind }

// asSeqView marks a plain vector as a sequence function's result (sharing
// its elements); lists, queues, entries and seq views are returned as they
// are.
func (v *Vector) asSeqView() *Vector {
	if v.claim != nil && (v.claim.list || v.claim.kind != plainKind) {
		return v
	}
	if len(v.items) == 0 {
		return emptySeqView
	}
	return &Vector{items: v.items[:len(v.items):len(v.items)], claim: seqMark}
}

// newSeqView returns a sequence function's result holding items, which it
// takes ownership of.
func newSeqView(items []Value) *Vector {
	if len(items) == 0 {
		return emptySeqView
	}
	return &Vector{items: items[:len(items):len(items)], claim: seqMark}
}

// frontList returns v as the list that conj and into prepend to: a list as
// it is, a seq view as a Cons of its elements (conj onto a Clojure seq makes
// a Cons).
func (v *Vector) frontList() *Vector {
	if v.IsSeqView() {
		if len(v.items) == 0 {
			return emptyList
		}
		return NewList(v.items[:len(v.items):len(v.items)]).asCons()
	}
	return v
}

// growsAtFront reports whether conj and into put new elements in front of
// v: a list or a seq view.
func (v *Vector) growsAtFront() bool { return v.IsList() || v.IsSeqView() }

// newEntry returns the map entry [k v].
func newEntry(k, v Value) *Vector {
	return &Vector{items: []Value{k, v}, claim: entryMark}
}

// kindOf returns v's kind.
func (v *Vector) kindOf() vectorKind {
	if v.claim == nil {
		return plainKind
	}
	return v.claim.kind
}

// IsCons reports whether v is a list made by cons (Clojure's Cons): it
// behaves as a list but list? is false.
func (v *Vector) IsCons() bool { return v.kindOf() == consKind }

// IsEntry reports whether v is a map entry: a vector of a key and its
// value, from a map's seq (map-entry? is true).
func (v *Vector) IsEntry() bool { return v.kindOf() == entryKind }

// IsQueue reports whether v is a queue (clojure.lang.PersistentQueue):
// conj adds at the end, peek and pop work at the front, it prints
// #queue [1 2] and is = to the vector and the list of the same elements.
func (v *Vector) IsQueue() bool { return v.kindOf() == queueKind }

// isVectorType reports whether v is a vector for calling and get by
// index: not a list and not a queue (a map entry is a vector, as in
// Clojure; a seq view is one too, which Clojure would refuse or answer nil).
func (v *Vector) isVectorType() bool { return !v.IsList() && !v.IsQueue() }

// isVectorPred reports whether v is a vector for vector?, associative?,
// indexed? and reversible?: a vector type that is not a seq view.
func (v *Vector) isVectorPred() bool { return v.isVectorType() && !v.IsSeqView() }

// popQueue returns the queue without its first element, sharing the array
// (it still appends in place): O(1).
func (v *Vector) popQueue() *Vector {
	if len(v.items) <= 1 {
		if len(v.items) == 1 && v.claim != queueMark {
			return &Vector{items: v.items[1:], claim: v.claim}
		}
		return emptyQueue
	}
	return &Vector{items: v.items[1:], claim: v.claim}
}

// withItems returns a vector or list of v's kind (a list, a Cons, a map
// entry, a queue) holding items, which it takes ownership of.
func (v *Vector) withItems(items []Value) *Vector {
	switch {
	case v.IsCons():
		return NewList(items).asCons()
	case v.IsList():
		return NewList(items)
	case v.IsEntry() && len(items) == 2:
		return newEntry(items[0], items[1])
	case v.IsQueue():
		return queueOf(items)
	case v.IsSeqView():
		return NewVector(items).asSeqView()
	}
	return NewVector(items)
}

// queueOf returns a queue of items, which it takes ownership of.
func queueOf(items []Value) *Vector {
	if len(items) == 0 {
		return emptyQueue
	}
	c := &vectorClaim{capacity: cap(items), kind: queueKind}
	c.used.Store(int64(len(items)))
	return &Vector{items: items, claim: c}
}

// asCons returns the list l as a Cons (what cons returns), sharing its
// array and its claim to prepend in place.
func (l *Vector) asCons() *Vector {
	if l.IsCons() {
		return l
	}
	return &Vector{items: l.items, claim: &vectorClaim{list: true, kind: consKind, base: l.claim.root()}}
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

// listOf returns a list of the arguments.
func listOf(items ...Value) *Vector { return NewList(append([]Value(nil), items...)) }

// IsList reports whether v is a list rather than a vector. Lists print as
// (1 2 3), grow at the front, and are = to the vectors of the same
// elements; ToGo and JSON make them arrays.
func (v *Vector) IsList() bool { return v.claim != nil && v.claim.list }

// asVector returns a list's elements as a vector (sharing them), and a
// vector as it is.
func (v *Vector) asVector() *Vector {
	if !v.IsList() && v.kindOf() == plainKind {
		return v
	}
	return NewVector(v.items[:len(v.items):len(v.items)])
}

// asList returns a vector's elements as a list (sharing them), and a list
// as it is.
func (v *Vector) asList() *Vector {
	if v.IsList() && !v.IsCons() {
		return v
	}
	return NewList(v.items[:len(v.items):len(v.items)])
}

// empty returns the empty vector or list, of v's kind.
func (v *Vector) empty() *Vector {
	if v.growsAtFront() {
		return emptyList
	}
	if v.IsQueue() {
		return emptyQueue
	}
	return emptyVector
}

// Prepend returns a list with x before the elements of v (a list or a
// vector).
//
// A Cons stays a Cons (conj onto a Cons is a Cons in Clojure too).
func (v *Vector) Prepend(x Value) *Vector {
	n := len(v.items)
	if v.claim != nil && v.claim.list {
		if c := v.claim.root(); c.front != nil {
			if off := cap(c.front) - cap(v.items); off > 0 && c.used.CompareAndSwap(int64(off), int64(off-1)) {
				c.front[off-1] = x
				return &Vector{items: c.front[off-1 : off+n], claim: v.claim}
			}
		}
	}
	front := make([]Value, max(2*n, 4))
	start := len(front) - n - 1
	front[start] = x
	copy(front[start+1:], v.items)
	c := &vectorClaim{list: true, front: front}
	if v.IsCons() {
		c.kind = consKind
	}
	c.used.Store(int64(start))
	return &Vector{items: front[start:], claim: c}
}

// prependsInPlace reports whether Prepend can prepend without copying.
func (v *Vector) prependsInPlace() bool {
	if v.claim == nil || !v.claim.list {
		return false
	}
	c := v.claim.root()
	if c.front == nil {
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

// vectorOf returns a vector of the arguments.
func vectorOf(items ...Value) *Vector { return NewVector(append([]Value(nil), items...)) }

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
	if v.IsQueue() {
		c.kind = queueKind // a queue stays a queue; a map entry becomes a vector
	}
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
		var e *Error
		if errors.As(err, &e) && e.Kind == MemoryExceeded && v.Len() >= 64 {
			// The usual cause: a table filled by index in a loop.
			return nil, errorf(MemoryExceeded, "%s; each assoc on a vector copies it (%d elements here): a reduce whose function reads the table only with get, nth, count or (table i) and returns (assoc table i x) updates it in place, as does assoc! on a (transient table); or keep the table in a map", strings.TrimSuffix(e.Message, "."), v.Len())
		}
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
	if from == 0 && to == len(v.items) && (v.IsList() || v.kindOf() == plainKind) {
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
	// must not (their "free" slot is an element of another vector). A
	// slice of a map entry or a queue is a vector.
	if to == len(v.items) && v.kindOf() == plainKind {
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
	if l.IsCons() {
		c.kind = consKind
	}
	c.used.Store(int64(start))
	return &Vector{items: front[start:], claim: c}, nil
}
