package lisp

import (
	"math"
	"math/big"
)

// valueSet is a hash set of values with strict key equality (compareKeys),
// used where a sorted structure would cost O(log n) comparisons per element:
// distinct, frequencies, group-by.
type valueSet struct {
	scalar    map[any]struct{}
	composite map[uint64][]Value
	th        *thread // when set, hashing counts as its steps
}

// What the hash structures cost the memory budget: a valueSet element (its
// key in a Go map), and a valueMap entry (its key and value slots and its
// index entry).
const (
	valueSetSlots = 2
	valueMapSlots = 4
)

func newValueSet(th *thread, n int) *valueSet {
	return &valueSet{scalar: make(map[any]struct{}, n), th: th}
}

// hashOf hashes v, counting the work as steps of th when there is one.
func hashOf(th *thread, v Value) uint64 {
	if th != nil {
		return th.hash(v)
	}
	return hash(v)
}

// scalarKey returns the Go map key of a scalar value (NaN normalized so that
// it finds itself), and whether v is a scalar.
func scalarKey(v Value) (any, bool) {
	switch x := v.(type) {
	case nil, bool, int64, string, Keyword:
		return v, true
	case *big.Int:
		if x.IsInt64() {
			return x.Int64(), true // 1N is the key 1, as Clojure's
		}
	case *Decimal:
		// By value: 0.3M and 0.30M are one key, as = says.
		return decimalKey{x.stripTrailingZeros().String()}, true
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
	h := hashOf(s.th, v)
	for _, x := range s.composite[h] {
		if compareKeys(x, v) == 0 {
			return false
		}
	}
	s.composite[h] = append(s.composite[h], v)
	return true
}

// valueMap is a hash map from values (strict keys) to T. Strings, keywords
// and integers, the usual grouping keys, get maps of their own type: hashing
// a string directly is several times cheaper than hashing an interface.
type valueMap[T any] struct {
	strs  map[string]int32
	kws   map[Keyword]int32
	ints  map[int64]int32
	other map[any]int32
	comp  map[uint64][]int32
	keys  []Value
	vals  []T
	th    *thread // when set, hashing counts as its steps
}

func newValueMap[T any](th *thread, n int) *valueMap[T] {
	return &valueMap[T]{th: th}
}

// index returns the slot of k, adding it if absent.
func (m *valueMap[T]) index(k Value) int32 {
	switch x := k.(type) {
	case string:
		return indexIn(m, &m.strs, x, k)
	case Keyword:
		return indexIn(m, &m.kws, x, k)
	case int64:
		return indexIn(m, &m.ints, x, k)
	case *big.Int:
		if x.IsInt64() {
			return indexIn(m, &m.ints, x.Int64(), k) // 1N is the key 1, as Clojure's
		}
	}
	if sk, ok := scalarKey(k); ok {
		if m.other == nil {
			m.other = map[any]int32{}
		}
		if i, ok := m.other[sk]; ok {
			return i
		}
		i := m.add(k)
		m.other[sk] = i
		return i
	}
	if m.comp == nil {
		m.comp = map[uint64][]int32{}
	}
	h := hashOf(m.th, k)
	for _, i := range m.comp[h] {
		if compareKeys(m.keys[i], k) == 0 {
			return i
		}
	}
	i := m.add(k)
	m.comp[h] = append(m.comp[h], i)
	return i
}

// indexIn is index for a key of one Go type: its slot in the map by that
// type (made on first use), x being how the map spells k.
func indexIn[K comparable, T any](m *valueMap[T], by *map[K]int32, x K, k Value) int32 {
	if *by == nil {
		*by = map[K]int32{}
	}
	if i, ok := (*by)[x]; ok {
		return i
	}
	i := m.add(k)
	(*by)[x] = i
	return i
}

func (m *valueMap[T]) add(k Value) int32 {
	m.keys = append(m.keys, k)
	var zero T
	m.vals = append(m.vals, zero)
	return int32(len(m.keys) - 1)
}

// ref returns a pointer to the value under k, adding a zero value if absent.
func (m *valueMap[T]) ref(k Value) *T { return &m.vals[m.index(k)] }

// toMap builds a map, converting each value with f.
func (m *valueMap[T]) toMap(f func(*T) Value) *Map {
	vals := make([]Value, len(m.vals))
	for i := range m.vals {
		vals[i] = f(&m.vals[i])
	}
	return mapFromEntries(m.keys, vals)
}

// decimalKey is the Go map key of a BigDecimal: its value without
// trailing zeros, as text (0.3M and 0.30M are one key).
type decimalKey struct{ text string }
