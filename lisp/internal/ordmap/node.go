package ordmap

// width is the maximum number of entries in a leaf and of children in an
// internal node. Chosen by benchmark (see doc.go): 16 and 32 are close; 16
// copies less per persistent update, which wins with interface keys and
// values, as the interpreter has.
const width = 16

// The allocators below have size classes up to 64.
const _ = uint(64 - width)

// token is a transient's ownership token. A node whose owner is the token of
// a live Builder belongs to that builder and may be mutated in place. The
// struct must not be zero-sized: distinct tokens need distinct addresses.
type token struct {
	alive bool
}

// Entry is one key and its value, as a leaf holds them (Leaf gives a
// small tree's entries to callers that scan them inline).
type Entry[K, V any] struct {
	Key K
	Val V
}

type child[K, V any] struct {
	key K           // smallest key in the subtree
	n   *node[K, V] // the subtree
	cnt int         // number of entries in the subtree
}

// node is a leaf (kids == nil, ents holds the entries in key order) or an
// internal node (ents == nil, kids holds the children in key order). The
// backing arrays are allocated in the same heap object as the node header
// (see allocLeaf / allocInner). A node is never empty.
type node[K, V any] struct {
	owner *token
	ents  []Entry[K, V]
	kids  []child[K, V]
}

// editable reports whether n may be mutated in place by the transient that
// owns owner (persistent operations pass owner == nil).
func (n *node[K, V]) editable(owner *token) bool {
	return owner != nil && n.owner == owner
}

func (n *node[K, V]) firstKey() K {
	if n.kids == nil {
		return n.ents[0].Key
	}
	return n.kids[0].key
}

// size is the number of entries below n: O(1) for leaves, O(width) for
// internal nodes (used only on splits).
func (n *node[K, V]) size() int {
	if n.kids == nil {
		return len(n.ents)
	}
	s := 0
	for i := range n.kids {
		s += n.kids[i].cnt
	}
	return s
}

// capFor picks the capacity for a node that will hold length elements.
// Persistent nodes get what they need (rounded up to a size class by
// allocLeaf/allocInner); a transient's nodes get room to grow in place.
func capFor(length int, owner *token) int {
	if owner != nil {
		return min(width, max(4, 2*length))
	}
	return length
}

// allocLeaf returns a leaf with len(ents) == length and room for at least
// capacity entries, header and entries in one allocation. The capacity is
// rounded up to a size class (1, 2, 3, 4, 6, 8, 12, ...: at most 1.5 times
// the request), which keeps persistent nodes, allocated at their exact
// length, nearly tight.
func allocLeaf[K, V any](owner *token, length, capacity int) *node[K, V] {
	var n *node[K, V]
	switch {
	case capacity <= 1:
		a := new(struct {
			n node[K, V]
			e [1]Entry[K, V]
		})
		a.n.ents = a.e[:length]
		n = &a.n
	case capacity <= 2:
		a := new(struct {
			n node[K, V]
			e [2]Entry[K, V]
		})
		a.n.ents = a.e[:length]
		n = &a.n
	case capacity <= 3:
		a := new(struct {
			n node[K, V]
			e [3]Entry[K, V]
		})
		a.n.ents = a.e[:length]
		n = &a.n
	case capacity <= 4:
		a := new(struct {
			n node[K, V]
			e [4]Entry[K, V]
		})
		a.n.ents = a.e[:length]
		n = &a.n
	case capacity <= 6:
		a := new(struct {
			n node[K, V]
			e [6]Entry[K, V]
		})
		a.n.ents = a.e[:length]
		n = &a.n
	case capacity <= 8:
		a := new(struct {
			n node[K, V]
			e [8]Entry[K, V]
		})
		a.n.ents = a.e[:length]
		n = &a.n
	case capacity <= 12:
		a := new(struct {
			n node[K, V]
			e [12]Entry[K, V]
		})
		a.n.ents = a.e[:length]
		n = &a.n
	case capacity <= 16:
		a := new(struct {
			n node[K, V]
			e [16]Entry[K, V]
		})
		a.n.ents = a.e[:length]
		n = &a.n
	case capacity <= 24:
		a := new(struct {
			n node[K, V]
			e [24]Entry[K, V]
		})
		a.n.ents = a.e[:length]
		n = &a.n
	case capacity <= 32:
		a := new(struct {
			n node[K, V]
			e [32]Entry[K, V]
		})
		a.n.ents = a.e[:length]
		n = &a.n
	case capacity <= 48:
		a := new(struct {
			n node[K, V]
			e [48]Entry[K, V]
		})
		a.n.ents = a.e[:length]
		n = &a.n
	default:
		a := new(struct {
			n node[K, V]
			e [64]Entry[K, V]
		})
		a.n.ents = a.e[:length]
		n = &a.n
	}
	n.owner = owner
	return n
}

// allocInner is allocLeaf for internal nodes.
func allocInner[K, V any](owner *token, length, capacity int) *node[K, V] {
	var n *node[K, V]
	switch {
	case capacity <= 2:
		a := new(struct {
			n node[K, V]
			c [2]child[K, V]
		})
		a.n.kids = a.c[:length]
		n = &a.n
	case capacity <= 3:
		a := new(struct {
			n node[K, V]
			c [3]child[K, V]
		})
		a.n.kids = a.c[:length]
		n = &a.n
	case capacity <= 4:
		a := new(struct {
			n node[K, V]
			c [4]child[K, V]
		})
		a.n.kids = a.c[:length]
		n = &a.n
	case capacity <= 6:
		a := new(struct {
			n node[K, V]
			c [6]child[K, V]
		})
		a.n.kids = a.c[:length]
		n = &a.n
	case capacity <= 8:
		a := new(struct {
			n node[K, V]
			c [8]child[K, V]
		})
		a.n.kids = a.c[:length]
		n = &a.n
	case capacity <= 12:
		a := new(struct {
			n node[K, V]
			c [12]child[K, V]
		})
		a.n.kids = a.c[:length]
		n = &a.n
	case capacity <= 16:
		a := new(struct {
			n node[K, V]
			c [16]child[K, V]
		})
		a.n.kids = a.c[:length]
		n = &a.n
	case capacity <= 24:
		a := new(struct {
			n node[K, V]
			c [24]child[K, V]
		})
		a.n.kids = a.c[:length]
		n = &a.n
	case capacity <= 32:
		a := new(struct {
			n node[K, V]
			c [32]child[K, V]
		})
		a.n.kids = a.c[:length]
		n = &a.n
	case capacity <= 48:
		a := new(struct {
			n node[K, V]
			c [48]child[K, V]
		})
		a.n.kids = a.c[:length]
		n = &a.n
	default:
		a := new(struct {
			n node[K, V]
			c [64]child[K, V]
		})
		a.n.kids = a.c[:length]
		n = &a.n
	}
	n.owner = owner
	return n
}

// writable returns n itself if owner may edit it in place, else a copy owned
// by owner (with the same elements).
func (n *node[K, V]) writable(owner *token) *node[K, V] {
	if n.editable(owner) {
		return n
	}
	if n.kids == nil {
		m := allocLeaf[K, V](owner, len(n.ents), capFor(len(n.ents), owner))
		copy(m.ents, n.ents)
		return m
	}
	m := allocInner[K, V](owner, len(n.kids), capFor(len(n.kids), owner))
	copy(m.kids, n.kids)
	return m
}

// searchLeaf returns the index of the first entry whose key is >= k, and
// whether that key equals k.
func searchLeaf[K, V any](ents []Entry[K, V], k K, cmp func(a, b K) int) (int, bool) {
	lo, hi := 0, len(ents)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		c := cmp(ents[m].Key, k)
		if c < 0 {
			lo = m + 1
		} else if c > 0 {
			hi = m
		} else {
			return m, true
		}
	}
	return lo, false
}

// searchInner returns the index of the child whose subtree may contain k:
// the last child whose smallest key is <= k, or 0 if k is below them all.
func searchInner[K, V any](kids []child[K, V], k K, cmp func(a, b K) int) int {
	lo, hi := 1, len(kids)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if cmp(kids[m].key, k) <= 0 {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo - 1
}

// insertAt returns s[:i] ++ [x] ++ s[i:], written into dst (len(dst) ==
// len(s)+1). dst may alias s (same backing array, in-place insert).
func insertAt[T any](dst, s []T, i int, x T) {
	copy(dst[i+1:], s[i:])
	dst[i] = x
	copy(dst[:i], s[:i])
}

// splitInsert distributes the virtual sequence src[:i] ++ [x] ++ src[i:]
// over left (its first len(left) elements) and right (the rest). left may
// alias src (in-place split of an owned node); right must not.
func splitInsert[T any](left, right, src []T, i int, x T) {
	h := len(left)
	if i < h {
		copy(right, src[h-1:])
		copy(left[i+1:], src[i:h-1])
		left[i] = x
		copy(left[:i], src[:i])
	} else {
		copy(right, src[h:i])
		right[i-h] = x
		copy(right[i-h+1:], src[i:])
		copy(left, src[:h])
	}
}

// insert puts (k, v) into the subtree n. It returns the node that replaces n
// (n itself if edited in place or unchanged), a new right sibling if n had to
// split (nil otherwise), and whether a new entry was added (false: an existing
// key's value was replaced). rightmost says n is on the right edge of the
// whole tree, which selects the append-friendly split.
func insert[K, V any](n *node[K, V], k K, v V, cmp func(a, b K) int, owner *token, rightmost bool) (*node[K, V], *node[K, V], bool) {
	if n.kids == nil {
		return insertLeaf(n, k, v, cmp, owner, rightmost)
	}
	kids := n.kids
	j := searchInner(kids, k, cmp)
	c := kids[j]
	last := j == len(kids)-1
	cn, cr, grew := insert(c.n, k, v, cmp, owner, rightmost && last)
	if cr == nil {
		if !grew && cn == c.n {
			return n, nil, false // value replaced in place in an owned leaf
		}
		m := n.writable(owner)
		m.kids[j] = child[K, V]{key: cn.firstKey(), n: cn, cnt: c.cnt + b2i(grew)}
		return m, nil, grew
	}
	// The child split (so an entry was added): kids[j] becomes cn and cr
	// is inserted after it.
	rc := cr.size()
	lc := child[K, V]{key: cn.firstKey(), n: cn, cnt: c.cnt + 1 - rc}
	rcc := child[K, V]{key: cr.firstKey(), n: cr, cnt: rc}
	same := cn == c.n && lc.cnt == c.cnt // left half is the old child, untouched
	if len(kids) < width {
		var m *node[K, V]
		if n.editable(owner) && len(kids) < cap(kids) {
			m = n
			m.kids = kids[:len(kids)+1]
		} else {
			m = allocInner[K, V](owner, len(kids)+1, capFor(len(kids)+1, owner))
		}
		insertAt(m.kids, kids, j+1, rcc)
		if !same {
			m.kids[j] = lc
		}
		return m, nil, true
	}
	if rightmost && last {
		// Append at the right edge: keep this node full, start a new one.
		r := allocInner[K, V](owner, 1, rightCap(owner))
		r.kids[0] = rcc
		m := n
		if !same {
			m = n.writable(owner)
			m.kids[j] = lc
		}
		return m, r, true
	}
	h := (width + 1) / 2
	var left *node[K, V]
	if n.editable(owner) {
		left = n
	} else {
		left = allocInner[K, V](owner, h, capFor(h, owner))
	}
	right := allocInner[K, V](owner, width+1-h, capFor(width+1-h, owner))
	splitInsert(left.kids[:h], right.kids, kids, j+1, rcc)
	if left == n {
		clear(kids[h:])
		left.kids = kids[:h]
	}
	if j < h {
		left.kids[j] = lc
	} else {
		right.kids[j-h] = lc
	}
	return left, right, true
}

func rightCap(owner *token) int {
	if owner != nil {
		return width
	}
	return 1
}

func insertLeaf[K, V any](n *node[K, V], k K, v V, cmp func(a, b K) int, owner *token, rightmost bool) (*node[K, V], *node[K, V], bool) {
	ents := n.ents
	i, found := searchLeaf(ents, k, cmp)
	if found {
		m := n.writable(owner)
		m.ents[i].Val = v
		return m, nil, false
	}
	e := Entry[K, V]{k, v}
	if len(ents) < width {
		var m *node[K, V]
		if n.editable(owner) && len(ents) < cap(ents) {
			m = n
			m.ents = ents[:len(ents)+1]
		} else {
			m = allocLeaf[K, V](owner, len(ents)+1, capFor(len(ents)+1, owner))
		}
		insertAt(m.ents, ents, i, e)
		return m, nil, true
	}
	if rightmost && i == len(ents) {
		// Append at the right edge: n stays full (and shared), the new
		// entry starts a new rightmost leaf.
		r := allocLeaf[K, V](owner, 1, rightCap(owner))
		r.ents[0] = e
		return n, r, true
	}
	h := (width + 1) / 2
	var left *node[K, V]
	if n.editable(owner) {
		left = n
	} else {
		left = allocLeaf[K, V](owner, h, capFor(h, owner))
	}
	right := allocLeaf[K, V](owner, width+1-h, capFor(width+1-h, owner))
	splitInsert(left.ents[:h], right.ents, ents, i, e)
	if left == n {
		clear(ents[h:])
		left.ents = ents[:h]
	}
	return left, right, true
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// remove deletes k from the subtree n. It returns the node that replaces n
// (nil if it became empty; n itself if k is absent or n was edited in place)
// and whether k was found.
func remove[K, V any](n *node[K, V], k K, cmp func(a, b K) int, owner *token) (*node[K, V], bool) {
	if n.kids == nil {
		ents := n.ents
		i, found := searchLeaf(ents, k, cmp)
		if !found {
			return n, false
		}
		if len(ents) == 1 {
			return nil, true
		}
		if n.editable(owner) {
			copy(ents[i:], ents[i+1:])
			ents[len(ents)-1] = Entry[K, V]{}
			n.ents = ents[:len(ents)-1]
			return n, true
		}
		m := allocLeaf[K, V](owner, len(ents)-1, capFor(len(ents)-1, owner))
		copy(m.ents, ents[:i])
		copy(m.ents[i:], ents[i+1:])
		return m, true
	}
	kids := n.kids
	j := searchInner(kids, k, cmp)
	c := kids[j]
	cn, found := remove(c.n, k, cmp, owner)
	if !found {
		return n, false
	}
	if cn != nil {
		m := n.writable(owner)
		m.kids[j] = child[K, V]{key: cn.firstKey(), n: cn, cnt: c.cnt - 1}
		if cn.width() < mergeBelow && len(m.kids) > 1 {
			m.mergeKid(j, owner)
		}
		return m, true
	}
	if len(kids) == 1 {
		return nil, true
	}
	if n.editable(owner) {
		copy(kids[j:], kids[j+1:])
		kids[len(kids)-1] = child[K, V]{}
		n.kids = kids[:len(kids)-1]
		return n, true
	}
	m := allocInner[K, V](owner, len(kids)-1, capFor(len(kids)-1, owner))
	copy(m.kids, kids[:j])
	copy(m.kids[j:], kids[j+1:])
	return m, true
}

// width returns the number of elements (entries or children) of n.
func (n *node[K, V]) width() int {
	if n.kids == nil {
		return len(n.ents)
	}
	return len(n.kids)
}

// Delete merges a node that has shrunk below mergeBelow elements with a
// neighbour if together they have at most mergeMax, so that maps that shrink
// do not keep sparse nodes (and height) from their past.
const (
	mergeBelow = width / 4
	mergeMax   = width * 3 / 4
)

// mergeKid merges the small child j of n (which the caller may modify in
// place) with its left or right neighbour if they fit together in mergeMax.
func (n *node[K, V]) mergeKid(j int, owner *token) {
	kids := n.kids
	w := kids[j].n.width()
	a := -1
	if j > 0 && kids[j-1].n.width()+w <= mergeMax {
		a = j - 1
	} else if j+1 < len(kids) && kids[j+1].n.width()+w <= mergeMax {
		a = j
	}
	if a < 0 {
		return
	}
	l, r := kids[a].n, kids[a+1].n
	var m *node[K, V]
	if l.kids == nil {
		m = allocLeaf[K, V](owner, len(l.ents)+len(r.ents), capFor(len(l.ents)+len(r.ents), owner))
		copy(m.ents, l.ents)
		copy(m.ents[len(l.ents):], r.ents)
	} else {
		m = allocInner[K, V](owner, len(l.kids)+len(r.kids), capFor(len(l.kids)+len(r.kids), owner))
		copy(m.kids, l.kids)
		copy(m.kids[len(l.kids):], r.kids)
	}
	kids[a] = child[K, V]{key: kids[a].key, n: m, cnt: kids[a].cnt + kids[a+1].cnt}
	copy(kids[a+1:], kids[a+2:])
	kids[len(kids)-1] = child[K, V]{}
	n.kids = kids[:len(kids)-1]
}

// setRoot applies insert at the root and grows the tree by one level if the
// root split. count is the number of entries under root before the
// operation; the new count is returned.
func setRoot[K, V any](root *node[K, V], count int, k K, v V, cmp func(a, b K) int, owner *token) (*node[K, V], int) {
	nn, right, grew := insert(root, k, v, cmp, owner, true)
	if grew {
		count++
	}
	if right != nil {
		nn = newRoot(nn, right, count, owner)
	}
	return nn, count
}

// newRoot makes the root holding left and right, which hold count entries
// together.
func newRoot[K, V any](left, right *node[K, V], count int, owner *token) *node[K, V] {
	rc := right.size()
	r := allocInner[K, V](owner, 2, capFor(2, owner))
	r.kids[0] = child[K, V]{key: left.firstKey(), n: left, cnt: count - rc}
	r.kids[1] = child[K, V]{key: right.firstKey(), n: right, cnt: rc}
	return r
}

// appendLeaf adds the leaf l (add entries, all greater than every key in
// n) as the new rightmost leaf of the subtree n. Like insert it returns the
// replacement for n and a new right sibling if n had to split; nodes on the
// right edge split in append mode (the left part stays full, the right part
// holds just the new path).
func appendLeaf[K, V any](n, l *node[K, V], add int, owner *token) (*node[K, V], *node[K, V]) {
	if n.kids == nil {
		return n, l
	}
	kids := n.kids
	j := len(kids) - 1
	c := kids[j]
	cn, cr := appendLeaf(c.n, l, add, owner)
	if cr == nil {
		m := n.writable(owner)
		m.kids[j] = child[K, V]{key: c.key, n: cn, cnt: c.cnt + add}
		return m, nil
	}
	rcc := child[K, V]{key: cr.firstKey(), n: cr, cnt: add}
	if len(kids) < width {
		var m *node[K, V]
		if n.editable(owner) && len(kids) < cap(kids) {
			m = n
			m.kids = kids[:len(kids)+1]
		} else {
			m = allocInner[K, V](owner, len(kids)+1, capFor(len(kids)+1, owner))
			copy(m.kids, kids)
		}
		m.kids[j+1] = rcc
		if cn != c.n {
			m.kids[j].n = cn
		}
		return m, nil
	}
	r := allocInner[K, V](owner, 1, rightCap(owner))
	r.kids[0] = rcc
	m := n
	if cn != c.n {
		m = n.writable(owner)
		m.kids[j].n = cn
	}
	return m, r
}

// removeRoot applies remove at the root (holding count entries) and
// collapses single-child roots.
func removeRoot[K, V any](root *node[K, V], k K, cmp func(a, b K) int, owner *token) (*node[K, V], bool) {
	nn, found := remove(root, k, cmp, owner)
	if !found {
		return root, false
	}
	for nn != nil && nn.kids != nil && len(nn.kids) == 1 {
		nn = nn.kids[0].n
	}
	return nn, true
}

func get[K, V any](n *node[K, V], k K, cmp func(a, b K) int) (V, bool) {
	if n == nil {
		var zero V
		return zero, false
	}
	for n.kids != nil {
		n = n.kids[searchInner(n.kids, k, cmp)].n
	}
	if i, ok := searchLeaf(n.ents, k, cmp); ok {
		return n.ents[i].Val, true
	}
	var zero V
	return zero, false
}
