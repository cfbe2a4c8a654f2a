package lisp

import "reflect"

// Records decoded from a large document are carved out of slabs: the rows
// of an array lie one after the other in memory, in the order a program
// walks them, and a million rows cost thousands of allocations, not
// millions. Each record's Map and its values share one cell, so that
// reading a field of a row touches neighbouring cache lines only: a walk
// that jumps between rows (the members of one group-by group) pays one
// cache miss per row, not two.

// recordCell is a record with its values beside it; A is an array of
// Values, one cell type per capacity class.
type recordCell[A any] struct {
	m Map
	v A
}

// recordSlabs holds the partly used slab of each capacity class.
type recordSlabs struct {
	c1  []recordCell[[1]Value]
	c2  []recordCell[[2]Value]
	c3  []recordCell[[3]Value]
	c4  []recordCell[[4]Value]
	c5  []recordCell[[5]Value]
	c6  []recordCell[[6]Value]
	c8  []recordCell[[8]Value]
	c10 []recordCell[[10]Value]
	c12 []recordCell[[12]Value]
	c16 []recordCell[[16]Value]
	// Records of more values: Maps and values in slabs of their own.
	maps []Map
	vals []Value
}

// slabBytes is the size of a slab: an allocation size class, less the
// 8-byte header the runtime adds to larger objects that hold pointers. A
// few rows kept from a large document pin at most that much of it.
const slabBytes = 8192 - 8

var mapSize = int(reflect.TypeFor[Map]().Size())

// cellsPerSlab returns how many cells of n values go in a slab for a
// document of docLen bytes: small documents (tool results) get small
// slabs.
func cellsPerSlab(n, docLen int) int {
	full := slabBytes / (mapSize + 16*n)
	return max(1, min(full, docLen/64))
}

// take returns the next cell of *slab, starting a slab of size cells when
// it is used up.
func take[A any](slab *[]recordCell[A], size int) *recordCell[A] {
	if len(*slab) == 0 {
		*slab = make([]recordCell[A], size)
	}
	c := &(*slab)[0]
	*slab = (*slab)[1:]
	return c
}

// record returns a new record of shape s (n = len(s.keys) > 0 values) and
// its values to fill in, for a document of docLen bytes.
func (r *recordSlabs) record(s *recordShape, docLen int) (*Map, []Value) {
	n := len(s.keys)
	if n == 0 {
		return emptyMap, nil
	}
	size := cellsPerSlab(n, docLen)
	var m *Map
	var vals []Value
	switch {
	case n == 1:
		c := take(&r.c1, size)
		m, vals = &c.m, c.v[:]
	case n == 2:
		c := take(&r.c2, size)
		m, vals = &c.m, c.v[:]
	case n == 3:
		c := take(&r.c3, size)
		m, vals = &c.m, c.v[:]
	case n == 4:
		c := take(&r.c4, size)
		m, vals = &c.m, c.v[:]
	case n == 5:
		c := take(&r.c5, size)
		m, vals = &c.m, c.v[:]
	case n == 6:
		c := take(&r.c6, size)
		m, vals = &c.m, c.v[:]
	case n <= 8:
		c := take(&r.c8, size)
		m, vals = &c.m, c.v[:n:n]
	case n <= 10:
		c := take(&r.c10, size)
		m, vals = &c.m, c.v[:n:n]
	case n <= 12:
		c := take(&r.c12, size)
		m, vals = &c.m, c.v[:n:n]
	case n <= 16:
		c := take(&r.c16, size)
		m, vals = &c.m, c.v[:n:n]
	default:
		if len(r.maps) == 0 {
			r.maps = make([]Map, max(1, min(slabBytes/mapSize, docLen/64)))
		}
		m, r.maps = &r.maps[0], r.maps[1:]
		if len(r.vals) < n {
			r.vals = make([]Value, max(n, min(slabBytes/16, docLen/8)))
		}
		vals, r.vals = r.vals[:n:n], r.vals[n:]
	}
	m.rec, m.vals = s, vals
	return m, vals
}
