package analyze

import "github.com/ptc-go/ptc/lisp/internal/chunk"

// slab hands out nodes from chunks: a program has thousands of small nodes,
// and one allocation per chunk is much cheaper than one each (fewer objects
// for the allocator and the garbage collector). Chunks start small (short
// programs are the common case) and double up to maxChunk elements, which
// bounds the unused tail of the last chunk.
type slab[T any] struct {
	buf  []T
	n    int // buf[:n] is handed out
	pool *chunk.Pool[T]
}

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
// with take at their call sites.
func (s *slab[T]) take() *T {
	if n := s.n; n < len(s.buf) {
		s.n = n + 1
		return &s.buf[n]
	}
	return nil
}

// grow starts the next chunk and hands out its first element.
func (s *slab[T]) grow() *T {
	size := min(max(2*len(s.buf), 4), maxChunk)
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
func (s *arena[T]) take(n int) (out []T, ok bool) {
	if m := s.n + n; m <= len(s.buf) && n <= maxArena/4 {
		out, s.n = s.buf[s.n:m:m], m
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
		size := max(min(max(2*len(s.buf), 16), maxArena), n)
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
	keywords   slab[Keyword]
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
}

// exprSlice returns a slice of n expressions carved from a shared buffer.
func (s *nodeSlabs) exprSlice(n int) []Expr { return s.exprBuf.slice(n) }

// starter holds what every analysis needs, in one allocation: the top
// scope, the program, and the first chunks of the most frequent nodes,
// enough for a one-line program with a loop or a let.
type starter struct {
	top      fnScope
	prog     Program
	locals   [4]local
	consts   [4]Const
	calls    [3]Call
	builtins [3]Builtin
	keywords [2]Keyword
	refs     [6]Local
	ifs      [1]If
	exprs    [8]Expr
	// for a loop
	loops     [1]Loop
	recurs    [1]Recur
	bindSlots [2]BindSlot
	bindings  [2]Binding
	patterns  [2]Pattern
}

// tinyStarter is the starter of a program of at most tinySource bytes,
// a call or two on constants such as (+ 1 2): 632 bytes instead of 1,472.
type tinyStarter struct {
	top      fnScope
	prog     Program
	consts   [3]Const
	calls    [1]Call
	builtins [2]Builtin
	exprs    [4]Expr
}

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
		a.consts.init(st.consts[:])
		a.calls.init(st.calls[:])
		a.builtins.init(st.builtins[:])
		a.exprBuf.init(st.exprs[:])
		return &st.top, &st.prog
	default:
		st = new(starter)
	}
	st.top.locals = st.locals[:0]
	a.consts.init(st.consts[:])
	a.calls.init(st.calls[:])
	a.builtins.init(st.builtins[:])
	a.keywords.init(st.keywords[:])
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
