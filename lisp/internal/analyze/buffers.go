package analyze

import (
	"unsafe"

	"github.com/ptc-go/ptc/lisp/internal/chunk"
)

// MaxBuffered is the most memory a Buffers keeps between analyses: an
// analysis that needed more (of a hostile text) leaves the excess to the
// garbage collector rather than pinning it.
const MaxBuffered = 512 << 10

// Buffers keeps the chunks that analyses carve their nodes from, so that a
// caller analyzing one program after another (a cache of compiled
// programs) reuses them instead of allocating new ones. The Program an
// analysis returns lives in these chunks: it is valid until Reset (and
// while the forms it was analyzed from are: its keywords are theirs), and
// whatever is built from it must not keep a pointer to a node or to a
// slice of its nodes. A Buffers serves one analysis at a time. The zero
// Buffers is ready to use.
type Buffers struct {
	starter    *starter
	consts     chunk.Pool[Const]
	locals     chunk.Pool[Local]
	captured   chunk.Pool[Captured]
	builtins   chunk.Pool[Builtin]
	globalRefs chunk.Pool[Global]
	calls      chunk.Pool[Call]
	ifs        chunk.Pool[If]
	vectors    chunk.Pool[VectorLit]
	maps       chunk.Pool[MapLit]
	lets       chunk.Pool[Let]
	dos        chunk.Pool[Do]
	bindSlots  chunk.Pool[BindSlot]
	loops      chunk.Pool[Loop]
	recurs     chunk.Pool[Recur]
	exprBuf    chunk.Pool[Expr]
	bindings   chunk.Pool[Binding]
	patterns   chunk.Pool[Pattern]
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
	b.exprBuf.KeepUsed(&held, MaxBuffered)
	b.consts.KeepUsed(&held, MaxBuffered)
	b.calls.KeepUsed(&held, MaxBuffered)
	b.locals.KeepUsed(&held, MaxBuffered)
	b.builtins.KeepUsed(&held, MaxBuffered)
	b.ifs.KeepUsed(&held, MaxBuffered)
	b.lets.KeepUsed(&held, MaxBuffered)
	b.dos.KeepUsed(&held, MaxBuffered)
	b.bindings.KeepUsed(&held, MaxBuffered)
	b.patterns.KeepUsed(&held, MaxBuffered)
	b.bindSlots.KeepUsed(&held, MaxBuffered)
	b.captured.KeepUsed(&held, MaxBuffered)
	b.globalRefs.KeepUsed(&held, MaxBuffered)
	b.vectors.KeepUsed(&held, MaxBuffered)
	b.maps.KeepUsed(&held, MaxBuffered)
	b.loops.KeepUsed(&held, MaxBuffered)
	b.recurs.KeepUsed(&held, MaxBuffered)
	b.exprBuf.KeepFree(&held, MaxBuffered)
	b.consts.KeepFree(&held, MaxBuffered)
	b.calls.KeepFree(&held, MaxBuffered)
	b.locals.KeepFree(&held, MaxBuffered)
	b.builtins.KeepFree(&held, MaxBuffered)
	b.ifs.KeepFree(&held, MaxBuffered)
	b.lets.KeepFree(&held, MaxBuffered)
	b.dos.KeepFree(&held, MaxBuffered)
	b.bindings.KeepFree(&held, MaxBuffered)
	b.patterns.KeepFree(&held, MaxBuffered)
	b.bindSlots.KeepFree(&held, MaxBuffered)
	b.captured.KeepFree(&held, MaxBuffered)
	b.globalRefs.KeepFree(&held, MaxBuffered)
	b.vectors.KeepFree(&held, MaxBuffered)
	b.maps.KeepFree(&held, MaxBuffered)
	b.loops.KeepFree(&held, MaxBuffered)
	b.recurs.KeepFree(&held, MaxBuffered)
}

// use makes the analyzer's slabs take their chunks from b.
func (a *analyzer) use(b *Buffers) {
	a.consts.pool, a.locals.pool, a.captured.pool = &b.consts, &b.locals, &b.captured
	a.builtins.pool, a.globalRefs.pool, a.calls.pool, a.ifs.pool = &b.builtins, &b.globalRefs, &b.calls, &b.ifs
	a.vectors.pool, a.maps.pool, a.lets.pool, a.dos.pool = &b.vectors, &b.maps, &b.lets, &b.dos
	a.bindSlots.pool, a.loops.pool, a.recurs.pool = &b.bindSlots, &b.loops, &b.recurs
	a.exprBuf.pool, a.bindings.pool, a.patterns.pool = &b.exprBuf, &b.bindings, &b.patterns
}
