package lisp

import (
	"sync/atomic"

	"github.com/ptc-go/ptc/lisp/internal/ordmap"
)

// Records.
//
// The rows of a JSON array (and of a tool's []map or []struct result) are
// maps with the same keys. Instead of a tree per row, such a map is a
// record: a pointer to a shape, the keys shared by every row in canonical
// order, and its own slice of values in that order. A record is a *Map
// like any other: it prints, compares, hashes and iterates exactly as the
// tree map of the same entries would (every Map method handles both forms),
// and any change of its keys (assoc of a new key, dissoc, a builder) turns
// it into a tree. What records buy:
//
//   - memory: a row holds its values only (the keys are in the shape), about
//     half of a tree's leaf;
//   - lookups: a prepared key (flexKey) remembers the slot it found in the
//     last shape it saw, so (:amount row) over rows of one shape is a pointer
//     comparison and an index, with no key comparison at all.

// recordShape is the keys shared by records, in canonical order, distinct.
// Shapes are immutable once built and shared by concurrent runs.
type recordShape struct {
	keys []Value
	// kinds says whether keys has keywords, strings (always known).
	kinds keyKinds
	// slots[i] is the answer "slot i of this shape" that a flexKey caches,
	// and slots[len(keys)] the answer "absent from this shape": preallocated,
	// so that caching an answer never allocates.
	slots []recordSlot
}

// recordSlot is a flexKey's cached answer for one shape.
type recordSlot struct {
	shape *recordShape
	slot  int // -1: the key is not in the shape
}

// maxRecordKeys bounds the maps made records: lookups in a shape's keys
// scan them linearly on a cache miss.
const maxRecordKeys = 64

// newRecordShape returns the shape of keys (sorted by compareKeys, distinct,
// at most maxRecordKeys); the slice is kept.
func newRecordShape(keys []Value) *recordShape {
	s := &recordShape{keys: keys, slots: make([]recordSlot, len(keys)+1), kinds: kindsKnown}
	for _, k := range keys {
		s.kinds |= kindOf(k)
	}
	for i := range s.slots {
		s.slots[i] = recordSlot{shape: s, slot: i}
	}
	s.slots[len(keys)].slot = -1
	return s
}

// index returns the slot of exactly k, or -1.
func (s *recordShape) index(k Value) int {
	lo, hi := 0, len(s.keys)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if compareKeys(s.keys[mid], k) < 0 {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo < len(s.keys) && compareKeys(s.keys[lo], k) == 0 {
		return lo
	}
	return -1
}

// indexNamed returns the slot of the keyword or string spelled name,
// preferring the keyword when keyword is set and the string otherwise, or
// -1 (the flexible lookup of Map.Lookup).
func (s *recordShape) indexNamed(name string, keyword bool) int {
	fallback := -1
	for i, key := range s.keys {
		switch x := key.(type) {
		case string:
			// Keywords sort before strings: a string match is final for
			// either spelling, no keyword follows it.
			if x == name {
				if keyword && fallback >= 0 {
					return fallback
				}
				return i
			}
		case Keyword:
			if string(x) == name {
				if keyword {
					return i
				}
				fallback = i
			}
		}
	}
	return fallback
}

// slotFor finds the slot of the prepared key k in s, or -1, and remembers
// the answer in k for the next record of the same shape (lookupFlex checks
// it first).
func (s *recordShape) slotFor(k *flexKey) int {
	var i int
	if k.alt == nil {
		i = s.index(k.primary)
	} else {
		i = s.indexNamed(k.name, k.keyword)
	}
	if i < 0 {
		k.shape.Store(&s.slots[len(s.keys)])
	} else {
		k.shape.Store(&s.slots[i])
	}
	return i
}

// tree returns the entries of record m as a tree (a copy).
func (m *Map) tree() ordmap.Tree[Value, Value] {
	if m.rec == nil {
		return m.t
	}
	return ordmap.FromSorted(m.rec.keys, m.vals)
}

// mapIter iterates over a map's entries in canonical order, either form.
type mapIter struct {
	it   ordmap.Iterator[Value, Value]
	keys []Value
	vals []Value
	i    int
}

func (m *Map) iter() mapIter {
	if m.rec != nil {
		return mapIter{keys: m.rec.keys, vals: m.vals}
	}
	return mapIter{it: m.t.Iter()}
}

// Next returns the next entry; ok is false at the end.
func (it *mapIter) Next() (k, v Value, ok bool) {
	if it.keys == nil {
		return it.it.Next()
	}
	if it.i >= len(it.vals) {
		return nil, nil, false
	}
	i := it.i
	it.i++
	return it.keys[i], it.vals[i], true
}

// same reports whether m and o are known to hold the same entries without
// comparing them: the same map, or structure they share.
func (m *Map) same(o *Map) bool {
	if m == o {
		return true
	}
	if m.rec != nil || o.rec != nil {
		return m.rec == o.rec && len(m.vals) > 0 && len(m.vals) == len(o.vals) && &m.vals[0] == &o.vals[0]
	}
	return m.t.Same(o.t)
}

// shapeCache makes records of the maps a conversion builds: maps with the
// same keys share one shape. It lives for one conversion (one tool result,
// one context), so shapes never outlive the values that use them.
type shapeCache struct {
	last   *recordShape
	shapes map[string]*recordShape // by the keys' names, for maps of string keys
	buf    []byte
}

// record returns the record of keys and vals (sorted by compareKeys,
// distinct) when keys are all strings and a shape of them exists or may be
// made; nil otherwise. vals is kept; keys is copied when a new shape is made.
func (c *shapeCache) record(keys, vals []Value) *Map {
	if len(keys) == 0 || len(keys) > maxRecordKeys {
		return nil
	}
	if s := c.last; s != nil && sameKeys(s.keys, keys) {
		return &Map{rec: s, vals: vals}
	}
	c.buf = c.buf[:0]
	for _, k := range keys {
		name, ok := k.(string)
		if !ok {
			return nil
		}
		// The length first, so that names with separators in them cannot
		// make two key lists collide.
		c.buf = appendUvarint(c.buf, uint64(len(name)))
		c.buf = append(c.buf, name...)
	}
	s, seen := c.shapes[string(c.buf)]
	if s == nil {
		// A shape is made for the second map of the same keys: a lone map
		// is cheaper as a tree.
		if c.shapes == nil {
			c.shapes = map[string]*recordShape{}
		}
		if !seen {
			if len(c.shapes) < maxShapesPerConversion {
				c.shapes[string(c.buf)] = nil
			}
			return nil
		}
		s = newRecordShape(append([]Value(nil), keys...))
		c.shapes[string(c.buf)] = s
	}
	c.last = s
	return &Map{rec: s, vals: vals}
}

// maxShapesPerConversion bounds the shapes one conversion makes: data
// whose maps all differ gains nothing from shapes.
const maxShapesPerConversion = 256

// sameKeys reports whether a and b hold the same string keys.
func sameKeys(a, b []Value) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, ok1 := a[i].(string)
		y, ok2 := b[i].(string)
		if !ok1 || !ok2 || x != y {
			return false
		}
	}
	return true
}

func appendUvarint(b []byte, x uint64) []byte {
	for x >= 0x80 {
		b = append(b, byte(x)|0x80)
		x >>= 7
	}
	return append(b, byte(x))
}

// flexShape is the part of a flexKey that caches its slot in the last
// record shape it met.
type flexShape = atomic.Pointer[recordSlot]
