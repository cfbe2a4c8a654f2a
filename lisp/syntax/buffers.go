package syntax

import "unsafe"

// MaxBuffered is the most memory a Buffers keeps between reads: a text
// that needed more (a hostile one) leaves the excess to the garbage
// collector rather than pinning it.
const MaxBuffered = 512 << 10

// Buffers keeps the chunks that reads carve their nodes from, so that a
// caller reading one text after another (a cache of compiled programs)
// reuses them instead of allocating new ones. The nodes a read returns
// live in these chunks: they are valid until Reset, and whatever is built
// from them must not keep a pointer to a node or to a slice of Items. A
// Buffers serves one read at a time. The zero Buffers is ready to use.
type Buffers struct {
	items    pool[Node]
	nils     pool[Nil]
	bools    pool[Bool]
	ints     pool[Int]
	floats   pool[Float]
	strs     pool[String]
	keywords pool[Keyword]
	symbols  pool[Symbol]
	lists    pool[List]
	vectors  pool[Vector]
	maps     pool[Map]
}

// Reset recycles the chunks of every read since the last Reset: the nodes
// those reads returned must not be used any more. The chunks are cleared
// (so that they pin no source text) and kept up to MaxBuffered bytes.
func (b *Buffers) Reset() {
	held := 0
	// The chunks of the last use first, in every pool (no loop over an
	// array of interfaces: it would escape).
	b.items.keepUsed(&held)
	b.symbols.keepUsed(&held)
	b.keywords.keepUsed(&held)
	b.lists.keepUsed(&held)
	b.vectors.keepUsed(&held)
	b.maps.keepUsed(&held)
	b.strs.keepUsed(&held)
	b.ints.keepUsed(&held)
	b.floats.keepUsed(&held)
	b.bools.keepUsed(&held)
	b.nils.keepUsed(&held)
	b.items.keepFree(&held)
	b.symbols.keepFree(&held)
	b.keywords.keepFree(&held)
	b.lists.keepFree(&held)
	b.vectors.keepFree(&held)
	b.maps.keepFree(&held)
	b.strs.keepFree(&held)
	b.ints.keepFree(&held)
	b.floats.keepFree(&held)
	b.bools.keepFree(&held)
	b.nils.keepFree(&held)
}

// use makes r take its chunks from b.
func (b *Buffers) use(r *reader) {
	r.bufs = b
	r.nils.pool, r.bools.pool, r.ints.pool, r.floats.pool = &b.nils, &b.bools, &b.ints, &b.floats
	r.strs.pool, r.keywords.pool, r.symbols.pool = &b.strs, &b.keywords, &b.symbols
	r.lists.pool, r.vectors.pool, r.maps.pool = &b.lists, &b.vectors, &b.maps
	r.items.pool = &b.items
}

// pool holds chunks of one element type: free ones, and those handed out
// since the last reset.
type pool[T any] struct {
	free, used [][]T
}

// get returns the smallest free chunk of at least least elements, or
// else a new one of size (at least least).
func (p *pool[T]) get(least, size int) []T {
	best := -1
	for i, c := range p.free {
		if len(c) >= least && (best < 0 || len(c) < len(p.free[best])) {
			best = i
		}
	}
	if best < 0 {
		c := make([]T, max(least, size))
		p.used = append(p.used, c)
		return c
	}
	c := p.free[best]
	last := len(p.free) - 1
	p.free[best] = p.free[last]
	p.free[last] = nil
	p.free = p.free[:last]
	p.used = append(p.used, c)
	return c
}

// keepUsed clears the chunks handed out since the last reset and keeps
// those that fit within MaxBuffered (the bytes held, counted in *held
// across pools); keepFree then adds the free chunks that still fit, and
// makes all of them free. The chunks of the last use go first: they are
// those the next one most likely needs.
func (p *pool[T]) keepUsed(held *int) {
	var zero T
	size := int(unsafe.Sizeof(zero))
	n := 0
	for _, c := range p.used {
		if *held+len(c)*size <= MaxBuffered {
			*held += len(c) * size
			clear(c)
			p.used[n] = c
			n++
		}
	}
	clear(p.used[n:])
	p.used = p.used[:n]
}

func (p *pool[T]) keepFree(held *int) {
	var zero T
	size := int(unsafe.Sizeof(zero))
	for _, c := range p.free {
		if *held+len(c)*size <= MaxBuffered {
			*held += len(c) * size
			p.used = append(p.used, c)
		}
	}
	clear(p.free)
	p.free, p.used = p.used, p.free[:0]
}
