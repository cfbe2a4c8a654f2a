package analyze

// slab hands out nodes from chunks: a program has thousands of small nodes,
// and one allocation per 64 of them is much cheaper than one each.
type slab[T any] []T

func (s *slab[T]) new(v T) *T {
	if len(*s) == 0 {
		*s = make(slab[T], 64)
	}
	p := &(*s)[0]
	*p = v
	*s = (*s)[1:]
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
}

// exprSlice returns a slice of n expressions carved from a shared buffer
// (capacity n, so appends never clobber a neighbour).
func (s *nodeSlabs) exprSlice(n int) []Expr {
	if n > 64 {
		return make([]Expr, n)
	}
	if len(s.exprs) < n {
		s.exprs = make([]Expr, 256)
	}
	out := s.exprs[:n:n]
	s.exprs = s.exprs[n:]
	return out
}
