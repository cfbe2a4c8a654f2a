package ordmap

// Builder is a transient: a mutable view of a tree for building many changes
// cheaply. It owns the nodes it creates (they carry its token) and mutates
// them in place; any node it does not own (shared with persistent trees) is
// copied on first write, so NewBuilder is O(1) and only touched paths are
// copied. Tree freezes the builder and returns the result as a persistent
// tree; the builder must not be used after that (its methods panic).
//
// A Builder is not safe for concurrent use. The trees it starts from and the
// trees it returns may be read concurrently at any time: a builder never
// writes to a node it does not own.
//
// The zero Builder is an empty builder, ready to use.
type Builder[K, V any] struct {
	t   Tree[K, V]
	tok *token
}

// NewBuilder returns a builder starting from the contents of from. O(1);
// from is never modified.
func NewBuilder[K, V any](from Tree[K, V]) *Builder[K, V] {
	return &Builder[K, V]{t: from, tok: &token{alive: true}}
}

func (b *Builder[K, V]) owner() *token {
	if b.tok == nil {
		b.tok = &token{alive: true}
	} else if !b.tok.alive {
		panic("ordmap: Builder used after Tree() froze it")
	}
	return b.tok
}

// Set makes k map to v (replacing the value, keeping the stored key, if k is
// present). O(log n). Nodes the builder owns are changed in place: appending
// in key order allocates one new leaf per 16 entries and little else.
func (b *Builder[K, V]) Set(k K, v V, cmp func(a, b K) int) {
	b.t.set(k, v, cmp, b.owner())
}

// Delete removes k if present. O(log n).
func (b *Builder[K, V]) Delete(k K, cmp func(a, b K) int) {
	b.t.delete(k, cmp, b.owner())
}

// Get returns the value stored under k. O(log n).
func (b *Builder[K, V]) Get(k K, cmp func(a, b K) int) (V, bool) {
	b.owner()
	return b.t.Get(k, cmp)
}

// Len returns the number of entries. O(1).
func (b *Builder[K, V]) Len() int {
	b.owner()
	return b.t.count
}

// Tree freezes the builder and returns its contents as a persistent tree.
// O(1). Any later use of the builder panics.
func (b *Builder[K, V]) Tree() Tree[K, V] {
	b.owner().alive = false
	t := b.t
	b.t = Tree[K, V]{}
	return t
}
