package analyze

import "unsafe"

// MaxBuffered is the most memory a Buffers keeps between analyses: an
// analysis that needed more (of a hostile text) leaves the excess to the
// garbage collector rather than pinning it.
const MaxBuffered = 512 << 10

// Buffers keeps the chunks that analyses carve their nodes from, so that a
// caller analyzing one program after another (a cache of compiled
// programs) reuses them instead of allocating new ones. The Program an
// analysis returns lives in these chunks: it is valid until Reset, and
// whatever is built from it must not keep a pointer to a node or to a
// slice of its nodes. A Buffers serves one analysis at a time. The zero
// Buffers is ready to use.
type Buffers struct {
	starter    *starter
	consts     pool[Const]
	keywords   pool[Keyword]
	locals     pool[Local]
	captured   pool[Captured]
	builtins   pool[Builtin]
	globalRefs pool[Global]
	calls      pool[Call]
	ifs        pool[If]
	vectors    pool[VectorLit]
	maps       pool[MapLit]
	lets       pool[Let]
	dos        pool[Do]
	bindSlots  pool[BindSlot]
	loops      pool[Loop]
	recurs     pool[Recur]
	exprBuf    pool[Expr]
	bindings   pool[Binding]
	patterns   pool[Pattern]
}

// Reset recycles the chunks of every analysis since the last Reset: the
// Programs those analyses returned must not be used any more. The chunks
// are cleared (so that they pin nothing) and kept up to MaxBuffered bytes.
func (b *Buffers) Reset() {
	held := 0
	if b.starter != nil {
		*b.starter = starter{}
		held += int(unsafe.Sizeof(starter{}))
	}
	b.exprBuf.reset(&held)
	b.consts.reset(&held)
	b.calls.reset(&held)
	b.locals.reset(&held)
	b.keywords.reset(&held)
	b.builtins.reset(&held)
	b.ifs.reset(&held)
	b.lets.reset(&held)
	b.dos.reset(&held)
	b.bindings.reset(&held)
	b.patterns.reset(&held)
	b.bindSlots.reset(&held)
	b.captured.reset(&held)
	b.globalRefs.reset(&held)
	b.vectors.reset(&held)
	b.maps.reset(&held)
	b.loops.reset(&held)
	b.recurs.reset(&held)
}

// use makes the analyzer's slabs take their chunks from b.
func (a *analyzer) use(b *Buffers) {
	a.consts.pool, a.keywords.pool, a.locals.pool, a.captured.pool = &b.consts, &b.keywords, &b.locals, &b.captured
	a.builtins.pool, a.globalRefs.pool, a.calls.pool, a.ifs.pool = &b.builtins, &b.globalRefs, &b.calls, &b.ifs
	a.vectors.pool, a.maps.pool, a.lets.pool, a.dos.pool = &b.vectors, &b.maps, &b.lets, &b.dos
	a.bindSlots.pool, a.loops.pool, a.recurs.pool = &b.bindSlots, &b.loops, &b.recurs
	a.exprBuf.pool, a.bindings.pool, a.patterns.pool = &b.exprBuf, &b.bindings, &b.patterns
}

// pool holds chunks of one element type: free ones, and those handed out
// since the last reset.
type pool[T any] struct {
	free, used [][]T
}

// get returns a chunk of at least n elements (a free one that is large
// enough, or a new one of n).
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
