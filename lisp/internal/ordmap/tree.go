package ordmap

import "iter"

// Tree is a persistent ordered map from K to V. The zero value is an empty
// tree, ready to use. A Tree is a small value (root, tail and count); all
// operations that "modify" it return a new Tree and leave the receiver
// unchanged, sharing every node not on the modified path.
//
// The rightmost leaf (the tail) is held outside the B+tree under root, as
// Clojure's vectors do, so that the most common way of building a map,
// inserting keys in ascending order, copies one leaf per insert instead of a
// root-to-leaf path; a full tail moves into the tree once every width
// appends. A map of up to width entries is just a tail.
type Tree[K, V any] struct {
	root  *node[K, V] // B+tree of the entries before the tail; may be nil
	tail  *node[K, V] // nil or a non-empty leaf; its keys follow root's
	count int         // entries in root and tail
}

// Len returns the number of entries. O(1).
func (t Tree[K, V]) Len() int { return t.count }

// Get returns the value stored under k. O(log n).
func (t Tree[K, V]) Get(k K, cmp func(a, b K) int) (V, bool) {
	if tl := t.tail; tl != nil && (t.root == nil || cmp(k, tl.ents[0].Key) >= 0) {
		if i, ok := searchLeaf(tl.ents, k, cmp); ok {
			return tl.ents[i].Val, true
		}
		var zero V
		return zero, false
	}
	return get(t.root, k, cmp)
}

// GetEntry returns the key stored under k (the one cmp reports equal to
// k, which Set keeps) and its value. O(log n).
func (t Tree[K, V]) GetEntry(k K, cmp func(a, b K) int) (K, V, bool) {
	n := t.root
	if tl := t.tail; tl != nil && (t.root == nil || cmp(k, tl.ents[0].Key) >= 0) {
		n = tl
	}
	if n != nil {
		for n.kids != nil {
			n = n.kids[searchInner(n.kids, k, cmp)].n
		}
		if i, ok := searchLeaf(n.ents, k, cmp); ok {
			return n.ents[i].Key, n.ents[i].Val, true
		}
	}
	var zk K
	var zv V
	return zk, zv, false
}

// Set returns a tree in which k maps to v. If k is already present (cmp
// reports equal) its value is replaced and the stored key is kept. t is
// unchanged. O(log n): only the root-to-leaf path is copied (only the tail
// when appending after the largest key).
func (t Tree[K, V]) Set(k K, v V, cmp func(a, b K) int) Tree[K, V] {
	t.set(k, v, cmp, nil)
	return t
}

// Delete returns a tree without k. If k is absent it returns t itself (so
// t.Same(result)). O(log n).
func (t Tree[K, V]) Delete(k K, cmp func(a, b K) int) Tree[K, V] {
	u := t
	if !u.delete(k, cmp, nil) {
		return t
	}
	return u
}

func (t *Tree[K, V]) tailLen() int {
	if t.tail == nil {
		return 0
	}
	return len(t.tail.ents)
}

// set is Set and Builder.Set: it updates t's fields, mutating in place the
// nodes owned by owner (none if owner is nil).
func (t *Tree[K, V]) set(k K, v V, cmp func(a, b K) int, owner *token) {
	tl := t.tail
	switch {
	case tl != nil:
		if t.root == nil || cmp(k, tl.ents[0].Key) >= 0 {
			t.setTail(k, v, cmp, owner)
			return
		}
	case t.root == nil || cmp(k, maxKey(t.root)) > 0:
		l := allocLeaf[K, V](owner, 1, capFor(1, owner))
		l.ents[0] = Entry[K, V]{k, v}
		t.tail = l
		t.count++
		return
	}
	tn := t.tailLen()
	var rc int
	t.root, rc = setRoot(t.root, t.count-tn, k, v, cmp, owner)
	t.count = rc + tn
}

// setTail inserts into the tail (k is not below its first key, or the root
// is empty).
func (t *Tree[K, V]) setTail(k K, v V, cmp func(a, b K) int, owner *token) {
	tl := t.tail
	ents := tl.ents
	// Maps are mostly built in key order (ids, dates, a sorted source): a
	// key past the tail's last is an append, found with one comparison.
	var i int
	var found bool
	if n := len(ents); n > 0 && cmp(ents[n-1].Key, k) < 0 {
		i = n
	} else {
		i, found = searchLeaf(ents, k, cmp)
	}
	if found {
		m := tl.writable(owner)
		m.ents[i].Val = v
		t.tail = m
		return
	}
	e := Entry[K, V]{k, v}
	t.count++
	if len(ents) < width {
		if tl.editable(owner) && len(ents) < cap(ents) {
			tl.ents = ents[:len(ents)+1]
			insertAt(tl.ents, ents, i, e)
			return
		}
		m := allocLeaf[K, V](owner, len(ents)+1, capFor(len(ents)+1, owner))
		insertAt(m.ents, ents, i, e)
		t.tail = m
		return
	}
	rc := t.count - 1 - len(ents) // entries under root
	if i == len(ents) {
		// Append: the full tail moves into the tree, k starts a new one.
		t.root = pushLeaf(t.root, rc, tl, owner)
		l := allocLeaf[K, V](owner, 1, rightCap(owner))
		l.ents[0] = e
		t.tail = l
		return
	}
	// Split the full tail: its left half moves into the tree.
	h := (width + 1) / 2
	var left *node[K, V]
	if tl.editable(owner) {
		left = tl
	} else {
		left = allocLeaf[K, V](owner, h, capFor(h, owner))
	}
	right := allocLeaf[K, V](owner, width+1-h, capFor(width+1-h, owner))
	splitInsert(left.ents[:h], right.ents, ents, i, e)
	if left == tl {
		clear(ents[h:])
		left.ents = ents[:h]
	}
	t.root = pushLeaf(t.root, rc, left, owner)
	t.tail = right
}

// pushLeaf appends leaf l after all the count entries of root and returns
// the new root.
func pushLeaf[K, V any](root *node[K, V], count int, l *node[K, V], owner *token) *node[K, V] {
	if root == nil {
		return l
	}
	nn, right := appendLeaf(root, l, len(l.ents), owner)
	if right != nil {
		nn = newRoot(nn, right, count+len(l.ents), owner)
	}
	return nn
}

func maxKey[K, V any](n *node[K, V]) K {
	for n.kids != nil {
		n = n.kids[len(n.kids)-1].n
	}
	return n.ents[len(n.ents)-1].Key
}

// delete is Delete and Builder.Delete; it reports whether k was present.
func (t *Tree[K, V]) delete(k K, cmp func(a, b K) int, owner *token) bool {
	if tl := t.tail; tl != nil && (t.root == nil || cmp(k, tl.ents[0].Key) >= 0) {
		ents := tl.ents
		i, found := searchLeaf(ents, k, cmp)
		if !found {
			return false
		}
		t.count--
		switch {
		case len(ents) == 1:
			t.tail = nil
		case tl.editable(owner):
			copy(ents[i:], ents[i+1:])
			ents[len(ents)-1] = Entry[K, V]{}
			tl.ents = ents[:len(ents)-1]
		default:
			m := allocLeaf[K, V](owner, len(ents)-1, capFor(len(ents)-1, owner))
			copy(m.ents, ents[:i])
			copy(m.ents[i:], ents[i+1:])
			t.tail = m
		}
		return true
	}
	if t.root == nil {
		return false
	}
	root, found := removeRoot(t.root, k, cmp, owner)
	if !found {
		return false
	}
	t.root = root
	t.count--
	return true
}

// At returns the i-th entry in key order (0-based). O(log n). It panics if i
// is out of range.
func (t Tree[K, V]) At(i int) (K, V) {
	if i < 0 || i >= t.count {
		panic("ordmap: Tree.At index out of range")
	}
	if rc := t.count - t.tailLen(); i >= rc {
		e := &t.tail.ents[i-rc]
		return e.Key, e.Val
	}
	n := t.root
	for n.kids != nil {
		kids := n.kids
		j := 0
		for i >= kids[j].cnt {
			i -= kids[j].cnt
			j++
		}
		n = kids[j].n
	}
	e := &n.ents[i]
	return e.Key, e.Val
}

// Min returns the entry with the smallest key. O(log n).
func (t Tree[K, V]) Min() (K, V, bool) {
	n := t.root
	if n == nil {
		n = t.tail
	}
	if n == nil {
		var k K
		var v V
		return k, v, false
	}
	for n.kids != nil {
		n = n.kids[0].n
	}
	e := &n.ents[0]
	return e.Key, e.Val, true
}

// Max returns the entry with the largest key. O(log n).
func (t Tree[K, V]) Max() (K, V, bool) {
	n := t.tail
	if n == nil {
		n = t.root
	}
	if n == nil {
		var k K
		var v V
		return k, v, false
	}
	for n.kids != nil {
		n = n.kids[len(n.kids)-1].n
	}
	e := &n.ents[len(n.ents)-1]
	return e.Key, e.Val, true
}

// All iterates over the entries in ascending key order.
func (t Tree[K, V]) All() iter.Seq2[K, V] {
	return func(yield func(K, V) bool) {
		if t.root != nil && !t.root.each(yield) {
			return
		}
		if t.tail != nil {
			t.tail.each(yield)
		}
	}
}

// Backward iterates over the entries in descending key order.
func (t Tree[K, V]) Backward() iter.Seq2[K, V] {
	return func(yield func(K, V) bool) {
		if t.tail != nil && !t.tail.eachBackward(yield) {
			return
		}
		if t.root != nil {
			t.root.eachBackward(yield)
		}
	}
}

func (n *node[K, V]) each(yield func(K, V) bool) bool {
	if n.kids == nil {
		for i := range n.ents {
			e := &n.ents[i]
			if !yield(e.Key, e.Val) {
				return false
			}
		}
		return true
	}
	for i := range n.kids {
		if !n.kids[i].n.each(yield) {
			return false
		}
	}
	return true
}

func (n *node[K, V]) eachBackward(yield func(K, V) bool) bool {
	if n.kids == nil {
		for i := len(n.ents) - 1; i >= 0; i-- {
			e := &n.ents[i]
			if !yield(e.Key, e.Val) {
				return false
			}
		}
		return true
	}
	for i := len(n.kids) - 1; i >= 0; i-- {
		if !n.kids[i].n.eachBackward(yield) {
			return false
		}
	}
	return true
}

// Same reports whether t and u are the same version (same nodes), which
// implies equal contents. Two empty trees are the same. O(1).
func (t Tree[K, V]) Same(u Tree[K, V]) bool { return t.root == u.root && t.tail == u.tail }

// FromSorted builds a tree from entries whose keys are strictly increasing
// (the caller guarantees it; it is not checked). Leaves and internal nodes
// are filled completely except possibly the last one on each level (the
// last leaf becomes the tail). O(n).
// It panics if len(keys) != len(vals).
func FromSorted[K, V any](keys []K, vals []V) Tree[K, V] {
	if len(keys) != len(vals) {
		panic("ordmap: FromSorted: len(keys) != len(vals)")
	}
	n := len(keys)
	if n == 0 {
		return Tree[K, V]{}
	}
	level := make([]child[K, V], 0, (n+width-1)/width)
	for lo := 0; lo < n; lo += width {
		hi := min(lo+width, n)
		l := allocLeaf[K, V](nil, hi-lo, hi-lo)
		for i := lo; i < hi; i++ {
			l.ents[i-lo] = Entry[K, V]{keys[i], vals[i]}
		}
		level = append(level, child[K, V]{key: keys[lo], n: l, cnt: hi - lo})
	}
	t := Tree[K, V]{tail: level[len(level)-1].n, count: n}
	level = level[:len(level)-1]
	for len(level) > 1 {
		next := level[:0] // safe: writes lag behind reads
		for lo := 0; lo < len(level); lo += width {
			hi := min(lo+width, len(level))
			in := allocInner[K, V](nil, hi-lo, hi-lo)
			cnt := 0
			for i := lo; i < hi; i++ {
				in.kids[i-lo] = level[i]
				cnt += level[i].cnt
			}
			next = append(next, child[K, V]{key: level[lo].key, n: in, cnt: cnt})
		}
		level = next
	}
	if len(level) == 1 {
		t.root = level[0].n
	}
	return t
}

// Leaf serves lookups that are cheaper as one linear pass than as a
// binary search: when the whole tree is a single leaf (at most 16 entries),
// it returns its entries in key order (none for the empty tree) and small;
// small is false, and ents nil, when the tree is larger. The entries belong
// to the tree: the caller must not modify them. Callers scan them inline,
// with no call per key, which a callback (and its closure) would cost.
func (t Tree[K, V]) Leaf() (ents []Entry[K, V], small bool) {
	if t.root != nil {
		return nil, false
	}
	if t.tail == nil {
		return nil, true
	}
	return t.tail.ents, true
}

// SmallAt returns entry i of a tree that is a single leaf; ok is false when
// the tree is larger or i is out of range. It lets a caller check a
// remembered position before scanning.
func (t Tree[K, V]) SmallAt(i int) (k K, v V, ok bool) {
	if t.root != nil || t.tail == nil || uint(i) >= uint(len(t.tail.ents)) {
		return k, v, false
	}
	e := &t.tail.ents[i]
	return e.Key, e.Val, true
}

// Leaf blocks hold the one leaf of a small tree, so that a caller can
// allocate the tree together with what holds it (the interpreter's constant
// maps: one allocation for the map and its entries). Tree fills the block
// with the sorted, distinct keys and vals (at most the block's size) and
// returns the tree FromSorted would build of them.
type (
	Leaf1[K, V any] struct {
		n node[K, V]
		e [1]Entry[K, V]
	}
	Leaf2[K, V any] struct {
		n node[K, V]
		e [2]Entry[K, V]
	}
	Leaf3[K, V any] struct {
		n node[K, V]
		e [3]Entry[K, V]
	}
	Leaf4[K, V any] struct {
		n node[K, V]
		e [4]Entry[K, V]
	}
	Leaf6[K, V any] struct {
		n node[K, V]
		e [6]Entry[K, V]
	}
	Leaf8[K, V any] struct {
		n node[K, V]
		e [8]Entry[K, V]
	}
	Leaf10[K, V any] struct {
		n node[K, V]
		e [10]Entry[K, V]
	}
	Leaf12[K, V any] struct {
		n node[K, V]
		e [12]Entry[K, V]
	}
	Leaf16[K, V any] struct {
		n node[K, V]
		e [16]Entry[K, V]
	}
)

func (l *Leaf1[K, V]) Tree(keys []K, vals []V) Tree[K, V]  { return fillLeaf(&l.n, l.e[:], keys, vals) }
func (l *Leaf2[K, V]) Tree(keys []K, vals []V) Tree[K, V]  { return fillLeaf(&l.n, l.e[:], keys, vals) }
func (l *Leaf3[K, V]) Tree(keys []K, vals []V) Tree[K, V]  { return fillLeaf(&l.n, l.e[:], keys, vals) }
func (l *Leaf4[K, V]) Tree(keys []K, vals []V) Tree[K, V]  { return fillLeaf(&l.n, l.e[:], keys, vals) }
func (l *Leaf6[K, V]) Tree(keys []K, vals []V) Tree[K, V]  { return fillLeaf(&l.n, l.e[:], keys, vals) }
func (l *Leaf8[K, V]) Tree(keys []K, vals []V) Tree[K, V]  { return fillLeaf(&l.n, l.e[:], keys, vals) }
func (l *Leaf10[K, V]) Tree(keys []K, vals []V) Tree[K, V] { return fillLeaf(&l.n, l.e[:], keys, vals) }
func (l *Leaf12[K, V]) Tree(keys []K, vals []V) Tree[K, V] { return fillLeaf(&l.n, l.e[:], keys, vals) }
func (l *Leaf16[K, V]) Tree(keys []K, vals []V) Tree[K, V] { return fillLeaf(&l.n, l.e[:], keys, vals) }

// Room returns the block's entries for the caller to fill, in key order
// with distinct keys, before Take makes the tree of the first n of them:
// the other way to fill a block, for a caller that has entries (a small
// map's, with changes) rather than keys and values.
func (l *Leaf1[K, V]) Room() []Entry[K, V]  { return l.e[:] }
func (l *Leaf2[K, V]) Room() []Entry[K, V]  { return l.e[:] }
func (l *Leaf3[K, V]) Room() []Entry[K, V]  { return l.e[:] }
func (l *Leaf4[K, V]) Room() []Entry[K, V]  { return l.e[:] }
func (l *Leaf6[K, V]) Room() []Entry[K, V]  { return l.e[:] }
func (l *Leaf8[K, V]) Room() []Entry[K, V]  { return l.e[:] }
func (l *Leaf10[K, V]) Room() []Entry[K, V] { return l.e[:] }
func (l *Leaf12[K, V]) Room() []Entry[K, V] { return l.e[:] }
func (l *Leaf16[K, V]) Room() []Entry[K, V] { return l.e[:] }

// Take returns the tree of the block's first n entries (1 <= n <= the
// block's size), which Room gave the caller to fill.
func (l *Leaf1[K, V]) Take(n int) Tree[K, V]  { return takeLeaf(&l.n, l.e[:], n) }
func (l *Leaf2[K, V]) Take(n int) Tree[K, V]  { return takeLeaf(&l.n, l.e[:], n) }
func (l *Leaf3[K, V]) Take(n int) Tree[K, V]  { return takeLeaf(&l.n, l.e[:], n) }
func (l *Leaf4[K, V]) Take(n int) Tree[K, V]  { return takeLeaf(&l.n, l.e[:], n) }
func (l *Leaf6[K, V]) Take(n int) Tree[K, V]  { return takeLeaf(&l.n, l.e[:], n) }
func (l *Leaf8[K, V]) Take(n int) Tree[K, V]  { return takeLeaf(&l.n, l.e[:], n) }
func (l *Leaf10[K, V]) Take(n int) Tree[K, V] { return takeLeaf(&l.n, l.e[:], n) }
func (l *Leaf12[K, V]) Take(n int) Tree[K, V] { return takeLeaf(&l.n, l.e[:], n) }
func (l *Leaf16[K, V]) Take(n int) Tree[K, V] { return takeLeaf(&l.n, l.e[:], n) }

// takeLeaf makes n, with room ents, the single leaf of its first count
// entries.
func takeLeaf[K, V any](n *node[K, V], ents []Entry[K, V], count int) Tree[K, V] {
	if count <= 0 || count > len(ents) {
		panic("ordmap: Leaf.Take: wrong number of entries")
	}
	n.ents = ents[:count]
	return Tree[K, V]{tail: n, count: count}
}

// fillLeaf makes n, with room ents, the single leaf FromSorted makes of a
// tree of 1 to len(ents) entries.
func fillLeaf[K, V any](n *node[K, V], ents []Entry[K, V], keys []K, vals []V) Tree[K, V] {
	if len(keys) != len(vals) || len(keys) == 0 || len(keys) > len(ents) {
		panic("ordmap: Leaf.Tree: wrong number of entries")
	}
	n.ents = ents[:len(keys)]
	for i := range keys {
		n.ents[i] = Entry[K, V]{keys[i], vals[i]}
	}
	return Tree[K, V]{tail: n, count: len(keys)}
}
