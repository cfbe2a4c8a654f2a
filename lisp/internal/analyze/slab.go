package analyze

import "github.com/ptc-go/ptc/lisp/internal/chunk"

// slab hands out nodes from chunks: a program has thousands of small nodes,
// and one allocation per chunk is much cheaper than one each (fewer objects
// for the allocator and the garbage collector). Chunks start small (short
// programs are the common case); the next one holds what the rest of the
// source will need at the density seen so far (see meter), at most
// maxChunk elements and at most meterGrowth times as many as were handed
// out before, which bounds the unused tail of the last chunk.
type slab[T any] struct {
	buf  []T
	n    int // buf[:n] is handed out
	pool *chunk.Pool[T]
	m    *meter
	done int // the elements of the chunks before buf
}

// meter tells how far the analysis is in its source: the offset of the
// last list or literal it entered, and the source's length. Nodes are
// made in source order, so the nodes of a kind made so far, per byte
// passed, foretell those of the rest of the source; a source with a part
// unlike its start (a literal of data) only makes chunks grow by
// meterGrowth at a time, up to maxChunk.
type meter struct{ at, size int32 }

// next is the size of the chunk after one of last elements, used
// elements having been handed out in all, for n more now; least and
// most bound it.
func (m *meter) next(last, used, n, least, most int) int {
	if m == nil || m.at <= 0 || m.at >= m.size {
		return max(min(max(2*last, least), most), n)
	}
	// used/at nodes per byte, for the size-at bytes to come, an eighth
	// more for the variation of the density, and the n asked for now.
	est := int(int64(used)*int64(m.size-m.at)/int64(m.at)) + used/8 + n
	return max(min(est, max(meterGrowth*used, least), most), least, n)
}

// meterGrowth bounds a metered chunk by the elements handed out before
// it. The offset is small while the first chunks are used up, and its
// estimate then uncertain; a bound of 2 (doubling) made a kind of node
// of a 17 kB source take 5 to 7 chunks where its estimate needed 3, and
// each allocation costs more than its zeroing (Analyze w6: 62 allocations
// of 170 kB, with 8: 45 of 174 kB, 10k instructions less). The unused
// tail stays under maxChunk elements of each kind.
const meterGrowth = 8

const (
	maxChunk = 256
	maxArena = 1024
)

func (s *slab[T]) new(v T) *T {
	p := s.take()
	if p == nil {
		p = s.grow()
	}
	*p = v
	return p
}

// take hands out the next element of the current chunk, nil when it is
// used up (then grow). It is small enough to be inlined, where new, a
// generic method with a call in it, is not: the hottest nodes are made
// with take at their call sites. The element is zero (a chunk is new, or
// cleared when a Buffers took it back), so that those sites set only the
// fields they need, one by one: assigning a composite literal builds it
// in a temporary first, cleared and then copied.
//
// The compare is unsigned and of a copy of buf (which the store to s.n
// cannot change): it proves n in range, so the element is taken without
// a bounds check of its own.
func (s *slab[T]) take() *T {
	if buf, n := s.buf, uint(s.n); n < uint(len(buf)) {
		s.n = int(n) + 1
		return &buf[n]
	}
	return nil
}

// grow starts the next chunk and hands out its first element.
func (s *slab[T]) grow() *T {
	s.done += len(s.buf)
	size := s.m.next(len(s.buf), s.done, 1, 4, maxChunk)
	if s.pool != nil {
		s.buf = s.pool.Get(size, size)
	} else {
		s.buf = make([]T, size)
	}
	s.n = 1
	return &s.buf[0]
}

// arena carves slices from shared chunks, the same way; its elements are
// small (an interface, a binding), so its chunks may be longer.
type arena[T any] struct {
	buf  []T
	n    int
	pool *chunk.Pool[T]
	m    *meter
	done int // the elements of the chunks before buf
}

// slice returns a slice of n zero elements with capacity n, so that an
// append to it never clobbers a neighbour.
func (s *arena[T]) slice(n int) []T {
	if out, ok := s.take(n); ok {
		return out
	}
	return s.grow(n)
}

// take is slice when the current chunk has room (ok), small enough to be
// inlined at the hottest call sites.
// The compares are unsigned, as slab.take's: fewer checks in the slicing.
func (s *arena[T]) take(n int) (out []T, ok bool) {
	if buf, i, m := s.buf, uint(s.n), uint(s.n)+uint(n); uint(n) <= maxArena/4 && m <= uint(len(buf)) {
		out, s.n = buf[i:m:m], int(m)
		return out, true
	}
	return nil, false
}

// grow is slice when the current chunk has no room.
func (s *arena[T]) grow(n int) []T {
	if n > maxArena/4 {
		return make([]T, n)
	}
	if len(s.buf)-s.n < n {
		s.done += s.n
		size := s.m.next(len(s.buf), s.done, n, 16, maxArena)
		if s.pool != nil {
			s.buf, s.n = s.pool.Get(size, size), 0
		} else {
			s.buf, s.n = make([]T, size), 0
		}
	}
	out := s.buf[s.n : s.n+n : s.n+n]
	s.n += n
	return out
}

// nodeSlabs holds the slabs of the most frequent node kinds.
type nodeSlabs struct {
	consts     slab[Const]
	locals     slab[Local]
	captured   slab[Captured]
	builtins   slab[Builtin]
	globalRefs slab[Global]
	calls      slab[Call]
	ifs        slab[If]
	vectors    slab[VectorLit]
	maps       slab[MapLit]
	lets       slab[Let]
	dos        slab[Do]
	bindSlots  slab[BindSlot]
	loops      slab[Loop]
	recurs     slab[Recur]
	exprBuf    arena[Expr]
	bindings   arena[Binding]
	patterns   arena[Pattern]
	// boxes holds the values of constants: never from a Buffers.
	boxes boxes
	// meter is where list tells the meter how far it is: the starter's.
	meter *meter
}

// meteredSource is the shortest source whose chunks the meter sizes: a
// shorter one fits in the starter and a chunk or two of each kind.
const meteredSource = 512

// useMeter has the chunks of a source of size bytes sized by m.
func (s *nodeSlabs) useMeter(m *meter, size int) {
	m.size = int32(min(size, 1<<30))
	s.consts.m, s.locals.m, s.captured.m, s.builtins.m, s.globalRefs.m = m, m, m, m, m
	s.calls.m, s.ifs.m, s.vectors.m, s.maps.m, s.lets.m, s.dos.m = m, m, m, m, m, m
	s.bindSlots.m, s.loops.m, s.recurs.m = m, m, m
	s.boxes.words.m, s.boxes.strs.m = m, m
	s.exprBuf.m, s.bindings.m, s.patterns.m = m, m, m
}

// exprSlice returns a slice of n expressions carved from a shared buffer.
func (s *nodeSlabs) exprSlice(n int) []Expr { return s.exprBuf.slice(n) }

// starter holds what every analysis needs, in one allocation: the top
// scope, the program, and the first chunks of the most frequent nodes,
// enough for a one-line program with a loop or a let.
type starter struct {
	top    fnScope
	prog   Program
	locals [4]local
	consts [4]Const
	calls  [3]Call
	refs   [6]Local
	ifs    [1]If
	exprs  [8]Expr
	// for a loop
	loops     [1]Loop
	recurs    [1]Recur
	bindSlots [2]BindSlot
	bindings  [2]Binding
	patterns  [2]Pattern
	meter     meter
}

// tinyStarter is the starter of a program of at most tinySource bytes,
// a call or two on constants such as (+ 1 2): 552 bytes instead of 1,320.
type tinyStarter struct {
	top    fnScope
	prog   Program
	consts [3]Const
	calls  [1]Call
	exprs  [4]Expr
	meter  meter // unused: the source is too short
}

// maxTopLocals is the most locals the top scope of a metered source
// starts with room for; more grow the slice by doubling.
const maxTopLocals = 64

// tinySource is the longest source that gets a tinyStarter.
const tinySource = 16

// start allocates the starter, sized by the length of the source, and
// hands its chunks to the slabs.
func (a *analyzer) start(size int, b *Buffers) (*fnScope, *Program) {
	var st *starter
	switch {
	case b != nil:
		if b.starter == nil {
			b.starter = new(starter)
		}
		st = b.starter
		a.use(b)
	case size <= tinySource:
		st := new(tinyStarter)
		a.meter = &st.meter
		a.consts.init(st.consts[:])
		a.calls.init(st.calls[:])
		a.exprBuf.init(st.exprs[:])
		return &st.top, &st.prog
	default:
		st = new(starter)
	}
	st.top.locals = st.locals[:0]
	a.meter = &st.meter
	if size >= meteredSource {
		a.useMeter(&st.meter, size)
		// The locals of the top scope, which grew from the starter's
		// 4 by doubling, four allocations and copies for a long let:
		// room for a local per 32 bytes, up to 64 (2 kB), at once.
		st.top.locals = make([]local, 0, min(size/32, maxTopLocals))
	}
	a.consts.init(st.consts[:])
	a.calls.init(st.calls[:])
	a.locals.init(st.refs[:])
	a.exprBuf.init(st.exprs[:])
	a.ifs.init(st.ifs[:])
	a.loops.init(st.loops[:])
	a.recurs.init(st.recurs[:])
	a.bindSlots.init(st.bindSlots[:])
	a.bindings.init(st.bindings[:])
	a.patterns.init(st.patterns[:])
	return &st.top, &st.prog
}

// init makes buf the first chunk.
func (s *slab[T]) init(buf []T) { s.buf, s.n = buf, 0 }

// init makes buf the first chunk.
func (s *arena[T]) init(buf []T) { s.buf, s.n = buf, 0 }
