package ordmap

// inlineDepth is the number of internal levels an Iterator tracks without
// allocating: enough for billions of entries. Deeper trees still work (the
// path spills to the heap).
const inlineDepth = 8

type frame[K, V any] struct {
	n *node[K, V] // internal node
	i int         // index of the next child to visit
}

// Iterator is a cursor over a tree in ascending key order, for hot loops
// where a range-over-func closure is unwanted. Obtain one with Tree.Iter;
// the zero Iterator is exhausted.
type Iterator[K, V any] struct {
	ents   []Entry[K, V] // rest of the current leaf
	tail   []Entry[K, V] // the tree's tail, visited after the root
	depth  int           // number of frames in use
	inline [inlineDepth]frame[K, V]
	spill  []frame[K, V] // frames beyond inlineDepth
}

// Iter returns a cursor positioned before the smallest entry. O(log n).
func (t Tree[K, V]) Iter() Iterator[K, V] {
	var it Iterator[K, V]
	if t.tail != nil {
		it.tail = t.tail.ents
	}
	if t.root != nil {
		it.descend(t.root)
	}
	return it
}

func (it *Iterator[K, V]) frame(d int) *frame[K, V] {
	if d < inlineDepth {
		return &it.inline[d]
	}
	d -= inlineDepth
	for d >= len(it.spill) {
		it.spill = append(it.spill, frame[K, V]{})
	}
	return &it.spill[d]
}

// descend pushes the leftmost path from n and makes its leaf current.
func (it *Iterator[K, V]) descend(n *node[K, V]) {
	for n.kids != nil {
		*it.frame(it.depth) = frame[K, V]{n, 1}
		it.depth++
		n = n.kids[0].n
	}
	it.ents = n.ents
}

// Next returns the next entry in ascending key order, or ok == false when
// the iteration is over.
func (it *Iterator[K, V]) Next() (k K, v V, ok bool) {
	if len(it.ents) == 0 && !it.advance() {
		return k, v, false
	}
	e := &it.ents[0]
	it.ents = it.ents[1:]
	return e.Key, e.Val, true
}

// advance moves to the next leaf; false when there is none.
func (it *Iterator[K, V]) advance() bool {
	for it.depth > 0 {
		f := it.frame(it.depth - 1)
		if f.i < len(f.n.kids) {
			c := f.n.kids[f.i].n
			f.i++
			it.descend(c)
			return true
		}
		f.n = nil
		it.depth--
	}
	if it.tail != nil {
		it.ents, it.tail = it.tail, nil
		return true
	}
	return false
}
