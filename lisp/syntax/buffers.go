package syntax

import "github.com/ptc-go/ptc/lisp/internal/chunk"

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
	items    chunk.Pool[Node]
	nils     chunk.Pool[Nil]
	bools    chunk.Pool[Bool]
	ints     chunk.Pool[Int]
	floats   chunk.Pool[Float]
	strs     chunk.Pool[String]
	keywords chunk.Pool[Keyword]
	symbols  chunk.Pool[Symbol]
	lists    chunk.Pool[List]
	vectors  chunk.Pool[Vector]
	maps     chunk.Pool[Map]
}

// Reset recycles the chunks of every read since the last Reset: the nodes
// those reads returned must not be used any more. The chunks are cleared
// (so that they pin no source text) and kept up to MaxBuffered bytes.
func (b *Buffers) Reset() {
	held := 0
	// The chunks of the last use first, in every pool (no loop over an
	// array of interfaces: it would escape).
	b.items.KeepUsed(&held, MaxBuffered)
	b.symbols.KeepUsed(&held, MaxBuffered)
	b.keywords.KeepUsed(&held, MaxBuffered)
	b.lists.KeepUsed(&held, MaxBuffered)
	b.vectors.KeepUsed(&held, MaxBuffered)
	b.maps.KeepUsed(&held, MaxBuffered)
	b.strs.KeepUsed(&held, MaxBuffered)
	b.ints.KeepUsed(&held, MaxBuffered)
	b.floats.KeepUsed(&held, MaxBuffered)
	b.bools.KeepUsed(&held, MaxBuffered)
	b.nils.KeepUsed(&held, MaxBuffered)
	b.items.KeepFree(&held, MaxBuffered)
	b.symbols.KeepFree(&held, MaxBuffered)
	b.keywords.KeepFree(&held, MaxBuffered)
	b.lists.KeepFree(&held, MaxBuffered)
	b.vectors.KeepFree(&held, MaxBuffered)
	b.maps.KeepFree(&held, MaxBuffered)
	b.strs.KeepFree(&held, MaxBuffered)
	b.ints.KeepFree(&held, MaxBuffered)
	b.floats.KeepFree(&held, MaxBuffered)
	b.bools.KeepFree(&held, MaxBuffered)
	b.nils.KeepFree(&held, MaxBuffered)
}

// use makes r take its chunks from b.
func (b *Buffers) use(r *reader) {
	r.bufs = b
	r.nils.pool, r.bools.pool, r.ints.pool, r.floats.pool = &b.nils, &b.bools, &b.ints, &b.floats
	r.strs.pool, r.keywords.pool, r.symbols.pool = &b.strs, &b.keywords, &b.symbols
	r.lists.pool, r.vectors.pool, r.maps.pool = &b.lists, &b.vectors, &b.maps
	r.items.pool = &b.items
}
