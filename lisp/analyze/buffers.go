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
	// The chunks of the last use first, in every pool (no loop over an
	// array of interfaces: it would escape).
	b.exprBuf.keepUsed(&held)
	b.consts.keepUsed(&held)
	b.calls.keepUsed(&held)
	b.locals.keepUsed(&held)
	b.keywords.keepUsed(&held)
	b.builtins.keepUsed(&held)
	b.ifs.keepUsed(&held)
	b.lets.keepUsed(&held)
	b.dos.keepUsed(&held)
	b.bindings.keepUsed(&held)
	b.patterns.keepUsed(&held)
	b.bindSlots.keepUsed(&held)
	b.captured.keepUsed(&held)
	b.globalRefs.keepUsed(&held)
	b.vectors.keepUsed(&held)
	b.maps.keepUsed(&held)
	b.loops.keepUsed(&held)
	b.recurs.keepUsed(&held)
	b.exprBuf.keepFree(&held)
	b.consts.keepFree(&held)
	b.calls.keepFree(&held)
	b.locals.keepFree(&held)
	b.keywords.keepFree(&held)
	b.builtins.keepFree(&held)
	b.ifs.keepFree(&held)
	b.lets.keepFree(&held)
	b.dos.keepFree(&held)
	b.bindings.keepFree(&held)
	b.patterns.keepFree(&held)
	b.bindSlots.keepFree(&held)
	b.captured.keepFree(&held)
	b.globalRefs.keepFree(&held)
	b.vectors.keepFree(&held)
	b.maps.keepFree(&held)
	b.loops.keepFree(&held)
	b.recurs.keepFree(&held)
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

// get returns the smallest free chunk of at least size elements, or else
// a new one of size. Chunks are asked for in the same sizes by every
// analysis (doubling up to the largest), so an analysis finds the chunks
// of the earlier ones.
func (p *pool[T]) get(size int) []T {
	best := -1
	for i, c := range p.free {
		if len(c) >= size && (best < 0 || len(c) < len(p.free[best])) {
			best = i
			if len(c) == size {
				break
			}
		}
	}
	if best < 0 {
		c := make([]T, size)
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
