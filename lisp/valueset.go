package lisp

import "math"

// valueSet is a hash set of values with strict key equality (CompareKeys),
// used where a sorted structure would cost O(log n) comparisons per element:
// distinct, frequencies, group-by.
type valueSet struct {
	scalar    map[any]struct{}
	composite map[uint64][]Value
}

func newValueSet(n int) *valueSet {
	return &valueSet{scalar: make(map[any]struct{}, n)}
}

// scalarKey returns the Go map key of a scalar value (NaN normalized so that
// it finds itself), and whether v is a scalar.
func scalarKey(v Value) (any, bool) {
	switch x := v.(type) {
	case nil, bool, int64, string, Keyword:
		return v, true
	case float64:
		if math.IsNaN(x) {
			return nanKey{}, true
		}
		return v, true
	}
	return nil, false
}

type nanKey struct{}

// add adds v and reports whether it was new.
func (s *valueSet) add(v Value) bool {
	if k, ok := scalarKey(v); ok {
		if _, dup := s.scalar[k]; dup {
			return false
		}
		s.scalar[k] = struct{}{}
		return true
	}
	if s.composite == nil {
		s.composite = map[uint64][]Value{}
	}
	h := Hash(v)
	for _, x := range s.composite[h] {
		if CompareKeys(x, v) == 0 {
			return false
		}
	}
	s.composite[h] = append(s.composite[h], v)
	return true
}

// valueMap is a hash map from values (strict keys) to T.
type valueMap[T any] struct {
	index map[any]int
	comp  map[uint64][]int
	keys  []Value
	vals  []T
}

func newValueMap[T any](n int) *valueMap[T] {
	return &valueMap[T]{index: make(map[any]int, n)}
}

// ref returns a pointer to the value under k, adding a zero value if absent.
func (m *valueMap[T]) ref(k Value) *T {
	if sk, ok := scalarKey(k); ok {
		if i, ok := m.index[sk]; ok {
			return &m.vals[i]
		}
		m.index[sk] = len(m.keys)
	} else {
		if m.comp == nil {
			m.comp = map[uint64][]int{}
		}
		h := Hash(k)
		for _, i := range m.comp[h] {
			if CompareKeys(m.keys[i], k) == 0 {
				return &m.vals[i]
			}
		}
		m.comp[h] = append(m.comp[h], len(m.keys))
	}
	m.keys = append(m.keys, k)
	var zero T
	m.vals = append(m.vals, zero)
	return &m.vals[len(m.vals)-1]
}

// toMap builds a map, converting each value with f.
func (m *valueMap[T]) toMap(f func(*T) Value) *Map {
	vals := make([]Value, len(m.vals))
	for i := range m.vals {
		vals[i] = f(&m.vals[i])
	}
	return mapFromEntries(m.keys, vals)
}
