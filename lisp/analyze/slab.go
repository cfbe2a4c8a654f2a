package analyze

// slab hands out nodes from chunks: a program has thousands of small nodes,
// and one allocation per chunk is much cheaper than one each (fewer objects
// for the allocator and the garbage collector). Chunks start small (short
// programs are the common case) and double up to maxChunk elements, which
// bounds the unused tail of the last chunk.
type slab[T any] struct {
	free []T
	next int
}

const maxChunk = 64

func (s *slab[T]) new(v T) *T {
	if len(s.free) == 0 {
		s.next = min(max(2*s.next, 4), maxChunk)
		s.free = make([]T, s.next)
	}
	p := &s.free[0]
	*p = v
	s.free = s.free[1:]
	return p
}

// arena carves slices from shared chunks, the same way.
type arena[T any] struct {
	free []T
	next int
}

// slice returns a slice of n zero elements with capacity n, so that an
// append to it never clobbers a neighbour.
func (s *arena[T]) slice(n int) []T {
	if n > maxChunk/4 {
		return make([]T, n)
	}
	if len(s.free) < n {
		s.next = min(max(2*s.next, 16), maxChunk)
		s.free = make([]T, max(s.next, n))
	}
	out := s.free[:n:n]
	s.free = s.free[n:]
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
	exprs      arena[Expr]
	bindings   arena[Binding]
}

// exprSlice returns a slice of n expressions carved from a shared buffer.
func (s *nodeSlabs) exprSlice(n int) []Expr { return s.exprs.slice(n) }
