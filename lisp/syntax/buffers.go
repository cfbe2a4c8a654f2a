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
	b.items.reset(&held)
	b.symbols.reset(&held)
	b.keywords.reset(&held)
	b.lists.reset(&held)
	b.vectors.reset(&held)
	b.maps.reset(&held)
	b.strs.reset(&held)
	b.ints.reset(&held)
	b.floats.reset(&held)
	b.bools.reset(&held)
	b.nils.reset(&held)
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

// get returns a chunk of at least n elements (all of a free chunk that is
// large enough, or a new one of n).
func (p *pool[T]) get(n int) []T {
	for i, c := range p.free {
		if len(c) >= n {
			last := len(p.free) - 1
			p.free[i] = p.free[last]
			p.free[last] = nil
			p.free = p.free[:last]
			p.used = append(p.used, c)
			return c
		}
	}
	c := make([]T, n)
	p.used = append(p.used, c)
	return c
}

// reset clears the chunks handed out and makes them free, as long as the
// bytes held (counted in *held, across pools) stay within MaxBuffered.
func (p *pool[T]) reset(held *int) {
	var zero T
	size := int(unsafe.Sizeof(zero))
	n := 0
	for _, c := range p.free {
		if *held+len(c)*size <= MaxBuffered {
			*held += len(c) * size
			p.free[n] = c
			n++
		}
	}
	clear(p.free[n:])
	p.free = p.free[:n]
	for _, c := range p.used {
		if *held+len(c)*size <= MaxBuffered {
			*held += len(c) * size
			clear(c)
			p.free = append(p.free, c)
		}
	}
	clear(p.used)
	p.used = p.used[:0]
}
