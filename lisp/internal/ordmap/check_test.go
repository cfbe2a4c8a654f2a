package ordmap

import (
	"fmt"
	"maps"
	"slices"
)

// check verifies the structural invariants of t: keys strictly increasing,
// each internal node's key for a child equals the child's smallest key,
// subtree counts correct, node sizes within [1, width], no empty nodes, all
// leaves at the same depth, no single-child root, and Len correct.
func (t Tree[K, V]) check(cmp func(a, b K) int) error {
	c := checker[K, V]{cmp: cmp, leafDepth: -1}
	var hi *K
	tn := 0
	if t.tail != nil {
		if t.tail.kids != nil {
			return fmt.Errorf("tail is not a leaf")
		}
		if _, err := c.node(t.tail, 0, nil, nil); err != nil {
			return fmt.Errorf("tail: %w", err)
		}
		hi = &t.tail.ents[0].Key
		tn = len(t.tail.ents)
	}
	c.leafDepth = -1
	if t.root == nil {
		if t.count != tn {
			return fmt.Errorf("nil root, tail of %d, count %d", tn, t.count)
		}
		return nil
	}
	if t.root.kids != nil && len(t.root.kids) < 2 {
		return fmt.Errorf("internal root with %d children", len(t.root.kids))
	}
	n, err := c.node(t.root, 0, nil, hi)
	if err != nil {
		return err
	}
	if n+tn != t.count {
		return fmt.Errorf("tree holds %d+%d entries, count says %d", n, tn, t.count)
	}
	return nil
}

type checker[K, V any] struct {
	cmp       func(a, b K) int
	leafDepth int
}

// node checks the subtree n whose keys must lie in [lo, hi) (nil: unbounded)
// and returns its entry count.
func (c *checker[K, V]) node(n *node[K, V], depth int, lo, hi *K) (int, error) {
	if n == nil {
		return 0, fmt.Errorf("nil node at depth %d", depth)
	}
	if (n.ents == nil) == (n.kids == nil) {
		return 0, fmt.Errorf("node at depth %d: ents nil %v, kids nil %v", depth, n.ents == nil, n.kids == nil)
	}
	inRange := func(k K) error {
		if lo != nil && c.cmp(k, *lo) < 0 {
			return fmt.Errorf("key %v below lower bound %v", k, *lo)
		}
		if hi != nil && c.cmp(k, *hi) >= 0 {
			return fmt.Errorf("key %v not below upper bound %v", k, *hi)
		}
		return nil
	}
	if n.kids == nil {
		if len(n.ents) < 1 || len(n.ents) > width {
			return 0, fmt.Errorf("leaf with %d entries", len(n.ents))
		}
		if c.leafDepth == -1 {
			c.leafDepth = depth
		} else if c.leafDepth != depth {
			return 0, fmt.Errorf("leaves at depths %d and %d", c.leafDepth, depth)
		}
		for i := range n.ents {
			if err := inRange(n.ents[i].Key); err != nil {
				return 0, err
			}
			if i > 0 && c.cmp(n.ents[i-1].Key, n.ents[i].Key) >= 0 {
				return 0, fmt.Errorf("leaf keys out of order: %v then %v", n.ents[i-1].Key, n.ents[i].Key)
			}
		}
		return len(n.ents), nil
	}
	if len(n.kids) < 1 || len(n.kids) > width {
		return 0, fmt.Errorf("internal node with %d children", len(n.kids))
	}
	total := 0
	for i := range n.kids {
		kc := &n.kids[i]
		if err := inRange(kc.key); err != nil {
			return 0, err
		}
		if kc.n == nil {
			return 0, fmt.Errorf("nil child")
		}
		if c.cmp(kc.key, kc.n.firstKey()) != 0 {
			return 0, fmt.Errorf("child key %v != child's first key %v", kc.key, kc.n.firstKey())
		}
		chi := hi
		if i+1 < len(n.kids) {
			if c.cmp(kc.key, n.kids[i+1].key) >= 0 {
				return 0, fmt.Errorf("child keys out of order: %v then %v", kc.key, n.kids[i+1].key)
			}
			chi = &n.kids[i+1].key
		}
		cnt, err := c.node(kc.n, depth+1, &kc.key, chi)
		if err != nil {
			return 0, err
		}
		if cnt != kc.cnt {
			return 0, fmt.Errorf("child count %d, subtree holds %d", kc.cnt, cnt)
		}
		total += cnt
	}
	return total, nil
}

// height is the number of levels under root (0 for an empty root, 1 for a
// single leaf).
func (t Tree[K, V]) height() int {
	h := 0
	for n := t.root; n != nil; {
		h++
		if n.kids == nil {
			break
		}
		n = n.kids[0].n
	}
	return h
}

// leafSizes returns the sizes of the leaves in order.
func (t Tree[K, V]) leafSizes() []int {
	var out []int
	var walk func(n *node[K, V])
	walk = func(n *node[K, V]) {
		if n.kids == nil {
			out = append(out, len(n.ents))
			return
		}
		for i := range n.kids {
			walk(n.kids[i].n)
		}
	}
	if t.root != nil {
		walk(t.root)
	}
	if t.tail != nil {
		out = append(out, len(t.tail.ents))
	}
	return out
}

// model is the reference implementation: a Go map plus a sorted key slice
// (kept sorted with slices.BinarySearchFunc and slices.Insert).
type model[K comparable, V any] struct {
	m    map[K]V
	cmp  func(a, b K) int
	keys []K
}

func newModel[K comparable, V any](cmp func(a, b K) int) *model[K, V] {
	return &model[K, V]{m: map[K]V{}, cmp: cmp}
}

func (m *model[K, V]) set(k K, v V) {
	if _, ok := m.m[k]; !ok {
		i, _ := slices.BinarySearchFunc(m.keys, k, m.cmp)
		m.keys = slices.Insert(m.keys, i, k)
	}
	m.m[k] = v
}

func (m *model[K, V]) del(k K) {
	if _, ok := m.m[k]; ok {
		i, _ := slices.BinarySearchFunc(m.keys, k, m.cmp)
		m.keys = slices.Delete(m.keys, i, i+1)
		delete(m.m, k)
	}
}

func (m *model[K, V]) clone() *model[K, V] {
	return &model[K, V]{m: maps.Clone(m.m), cmp: m.cmp, keys: slices.Clone(m.keys)}
}

func (m *model[K, V]) sortedKeys() []K { return m.keys }

// same compares t with m completely: Len, All, Backward, Iter, At, Min,
// Max, Get of every key, and the structural invariants.
func same[K comparable, V comparable](t Tree[K, V], m *model[K, V]) error {
	if err := t.check(m.cmp); err != nil {
		return fmt.Errorf("invariants: %w", err)
	}
	keys := m.sortedKeys()
	vals := make([]V, len(keys))
	for i, k := range keys {
		vals[i] = m.m[k]
	}
	if t.Len() != len(keys) {
		return fmt.Errorf("Len %d, model %d", t.Len(), len(keys))
	}
	i := 0
	for k, v := range t.All() {
		if i >= len(keys) || k != keys[i] || v != vals[i] {
			return fmt.Errorf("All: entry %d is (%v, %v)", i, k, v)
		}
		i++
	}
	if i != len(keys) {
		return fmt.Errorf("All yielded %d entries, want %d", i, len(keys))
	}
	i = len(keys)
	for k, v := range t.Backward() {
		i--
		if i < 0 || k != keys[i] || v != vals[i] {
			return fmt.Errorf("Backward: entry %d is (%v, %v)", i, k, v)
		}
	}
	if i != 0 {
		return fmt.Errorf("Backward stopped at %d", i)
	}
	it := t.Iter()
	for i := range keys {
		k, v, ok := it.Next()
		if !ok || k != keys[i] || v != vals[i] {
			return fmt.Errorf("Iter: entry %d is (%v, %v, %v)", i, k, v, ok)
		}
	}
	if _, _, ok := it.Next(); ok {
		return fmt.Errorf("Iter: too many entries")
	}
	for i, want := range keys {
		k, v := t.At(i)
		if k != want || v != vals[i] {
			return fmt.Errorf("At(%d) = (%v, %v), want %v", i, k, v, want)
		}
		if v, ok := t.Get(want, m.cmp); !ok || v != vals[i] {
			return fmt.Errorf("Get(%v) = %v, %v", want, v, ok)
		}
	}
	mk, mv, ok := t.Min()
	if ok != (len(keys) > 0) || ok && (mk != keys[0] || mv != vals[0]) {
		return fmt.Errorf("Min = %v %v %v", mk, mv, ok)
	}
	xk, xv, ok := t.Max()
	if ok != (len(keys) > 0) || ok && (xk != keys[len(keys)-1] || xv != vals[len(vals)-1]) {
		return fmt.Errorf("Max = %v %v %v", xk, xv, ok)
	}
	return nil
}
