package analyze

// slab hands out nodes from chunks: a program has thousands of small nodes,
// and one allocation per chunk is much cheaper than one each. Chunks start
// small (short programs are the common case) and double up to 64.
type slab[T any] struct {
	free []T
	next int
}

func (s *slab[T]) new(v T) *T {
	if len(s.free) == 0 {
		s.next = min(max(2*s.next, 4), 64)
		s.free = make([]T, s.next)
	}
	p := &s.free[0]
	*p = v
	s.free = s.free[1:]
	return p
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
	exprs      []Expr
	nexprs     int
}

// exprSlice returns a slice of n expressions carved from a shared buffer
// (capacity n, so appends never clobber a neighbour).
func (s *nodeSlabs) exprSlice(n int) []Expr {
	if n > 64 {
		return make([]Expr, n)
	}
	if len(s.exprs) < n {
		s.nexprs = min(max(2*s.nexprs, 16), 256)
		s.exprs = make([]Expr, max(s.nexprs, n))
	}
	out := s.exprs[:n:n]
	s.exprs = s.exprs[n:]
	return out
}
