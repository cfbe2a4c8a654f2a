package lisp

import (
	"fmt"
	"iter"
	"slices"
	"sync/atomic"

	"github.com/ptc-go/ptc/lisp/internal/ordmap"
)

// Map is an immutable map. Keys are kept in the canonical order of
// compareKeys (numbers, then keywords and other atoms, ..., then strings), so
// equal maps iterate and print alike at every size. Lookups, Assoc and Dissoc
// are O(log n) and share structure with the original map.
//
// Keys are compared strictly: 1 and 1.0, :a and "a" are different keys.
// Lookup adds the flexible keyword/string fallback that PTC-Lisp uses
// for reads such as (:name m) and ctx/name.
type Map struct {
	t ordmap.Tree[Value, Value]
	// A record (see record.go) has a shape and its values instead of a
	// tree: rec is nil for a tree map.
	// A map of sorted-map-by (sorted_by.go) is a tree map whose vals
	// holds one element, its *sortedBy: the comparator and the entries in
	// its order; t still holds them in the canonical order, for lookups and
	// equality. A map of sorted-map holds naturalOrder there: it is in the
	// canonical order, and only type, class and sorted? tell it from an
	// ordinary map. Records alone use vals otherwise, so Map stays seven
	// words: maps are the values programs allocate most.
	rec  *recordShape
	vals []Value
	// kinds says whether a tree map may hold keyword keys and string keys,
	// when it is known (a record's is its shape's): the flexible key
	// checks of assoc and of lookups skip the spelling a map cannot hold.
	// It fits in the allocation's size class (64 bytes) for free.
	kinds keyKinds
}

// keyKinds records which spellings of names a map's keys may use.
// Without kindsKnown nothing is known, and every spelling is looked for;
// the bits only ever over-state (dissoc leaves them set).
type keyKinds uint8

const (
	kindsKnown keyKinds = 1 << iota
	kindsKeyword
	kindsString
)

// kindOf is the kind bit of a key: keyword, string, or none.
func kindOf(k Value) keyKinds {
	switch k.(type) {
	case Keyword:
		return kindsKeyword
	case string:
		return kindsString
	}
	return 0
}

// flexible reports whether k is a keyword or a string whose other
// spelling a map of these kinds may hold: only then is it looked for.
func (c keyKinds) flexible(k Value) bool {
	switch k.(type) {
	case Keyword:
		return c&(kindsKnown|kindsString) != kindsKnown
	case string:
		return c&(kindsKnown|kindsKeyword) != kindsKnown
	}
	return false
}

// keyKinds returns what is known of m's keys.
func (m *Map) keyKinds() keyKinds {
	if m.rec != nil {
		return m.rec.kinds
	}
	return m.kinds
}

// with returns c with k's kind added (c stays unknown when it was).
func (c keyKinds) with(k Value) keyKinds { return c | kindOf(k) }

// sorted returns the comparator and order of a map of sorted-map-by, nil
// for any other map.
func (m *Map) sorted() *sortedBy {
	if m.rec == nil && m.vals != nil {
		if by, ok := m.vals[0].(*sortedBy); ok && by != naturalOrder {
			return by
		}
	}
	return nil
}

// recordType returns the defrecord type of a record's map (protocols.go),
// nil for any other map.
func (m *Map) recordType() *recordType {
	if m.rec == nil && m.vals != nil {
		rt, _ := m.vals[0].(*recordType)
		return rt
	}
	return nil
}

// naturalOrder marks a map of sorted-map or a set of sorted-set (in the
// by of a sorted-by collection's place): Clojure's PersistentTreeMap and
// TreeSet of compare, which is the canonical order here. assoc, dissoc,
// conj, disj, into, merge, empty and clojure.walk keep the mark, as they
// keep Clojure's type; it is never a comparator (sorted returns nil).
var naturalOrder = &sortedBy{}

// naturalVals is the vals of a map of sorted-map (never modified).
var naturalVals = []Value{naturalOrder}

// isSortedMap reports whether m is a map of sorted-map.
func (m *Map) isSortedMap() bool {
	return m.rec == nil && m.vals != nil && m.vals[0] == Value(naturalOrder)
}

// orderVals is the vals a map made from m by assoc or dissoc carries:
// sorted-map's mark, or nil.
func (m *Map) orderVals() []Value {
	if m.isSortedMap() {
		return naturalVals
	}
	if m.recordType() != nil {
		return m.vals // a record's type: assoc keeps it
	}
	return nil
}

// inOrderOf returns r, a map or set built from from, with the mark of
// sorted-map or sorted-set when from has it.
func inOrderOf(from Value, r Value) Value {
	switch f := from.(type) {
	case *Map:
		if m, ok := r.(*Map); ok && f != nil && f.isSortedMap() && m.vals == nil {
			return &Map{t: m.tree(), vals: naturalVals}
		}
		if m, ok := r.(*Map); ok && f != nil && m.rec == nil && m.vals == nil {
			if rt := f.recordType(); rt != nil && rt.holdsFields(m) {
				return &Map{t: m.t, vals: f.vals, kinds: m.kinds}
			}
		}
	case *Set:
		if s, ok := r.(*Set); ok && f != nil && f.by == naturalOrder && s.by == nil {
			return &Set{t: s.t, by: naturalOrder}
		}
	}
	return r
}

// emptySortedMap and emptySortedSet are (sorted-map) and (sorted-set).
var (
	emptySortedMap = &Map{vals: naturalVals}
	emptySortedSet = &Set{by: naturalOrder}
)

// sortedMap makes a map of sorted-map-by from its canonical tree and its
// comparator and order.
func sortedMap(t ordmap.Tree[Value, Value], by *sortedBy) *Map {
	return &Map{t: t, vals: []Value{by}}
}

var emptyMap = &Map{kinds: kindsKnown}

// NewMap returns a map of the key/value pairs kvs (k1, v1, k2, v2, ...).
// When a key repeats, the last pair wins. NewMap panics if kvs has an odd
// number of values, as strings.NewReplacer does: a key without a value is
// a bug in the caller's Go code, never a map to build without it.
func NewMap(kvs ...Value) *Map {
	if len(kvs)%2 == 1 {
		panic(fmt.Sprintf("lisp.NewMap: odd number of arguments (%d): the key %s has no value", len(kvs), printString(kvs[len(kvs)-1])))
	}
	b := emptyMapBuilder()
	for i := 0; i+1 < len(kvs); i += 2 {
		b.Set(kvs[i], kvs[i+1])
	}
	return b.Map()
}

// Len returns the number of entries.
func (m *Map) Len() int {
	if m.rec != nil {
		return len(m.vals)
	}
	return m.t.Len()
}

// getExact returns the value under exactly the key k.
func (m *Map) getExact(k Value) (Value, bool) {
	if m.rec != nil {
		if i := m.rec.index(k); i >= 0 {
			return m.vals[i], true
		}
		return nil, false
	}
	return m.t.Get(k, compareKeys)
}

// Get returns the value under k, falling back from a keyword to the string
// of the same name and back, as (:name m) finds "name" keys: Get("city")
// finds :city, and Get(Keyword("city")) finds "city".
func (m *Map) Get(k Value) (Value, bool) {
	switch x := k.(type) {
	case Keyword:
		return m.getNamed(string(x), true, k)
	case string:
		return m.getNamed(x, false, k)
	}
	return m.getExact(k)
}

// getNamed is lookupNamed without a hint, k being the key spelled name:
// the scan of a small map with few arguments to keep (get and get-in come
// here for every key).
func (m *Map) getNamed(name string, keyword bool, k Value) (Value, bool) {
	if m.rec == nil {
		if ents, small := m.t.Leaf(); small {
			if i := scanNamed(ents, name, keyword); i >= 0 {
				return ents[i].Val, true
			}
			return nil, false
		}
	}
	return m.lookupNamed(name, keyword, k, nil, nil)
}

// Entry is Get that also returns the key as the map holds it: the string
// "city" when Entry(Keyword("city")) finds it under its string spelling.
// Code that writes the value back (a coercion, an update) uses that key,
// so that the map does not gain a second spelling of the same name.
func (m *Map) Entry(k Value) (key, val Value, ok bool) {
	if v, ok := m.getExact(k); ok {
		return k, v, true
	}
	alt, ok := otherSpelling(k)
	if !ok {
		return nil, nil, false
	}
	if v, ok := m.getExact(alt); ok {
		return alt, v, true
	}
	return nil, nil, false
}

// flexKey is a key prepared for flexible lookups: both spellings boxed once,
// so that hot lookups such as (:name row) do not allocate, plus a hint: the
// position where the key was found last time. Records from one source (the
// rows of a JSON array) share their key order, so the hint usually finds the
// key with a single comparison. A flexKey lives in compiled code shared by
// concurrent runs, hence the atomic hint; use it through a pointer.
type flexKey struct {
	primary, alt Value
	name         string // the name, for keyword and string keys
	keyword      bool   // primary is the keyword
	hint         atomic.Int32
	shape        flexShape // the slot in the last record shape met
}

func newFlexKey(k Value) *flexKey {
	switch x := k.(type) {
	case Keyword:
		return &flexKey{primary: k, alt: string(x), name: string(x), keyword: true}
	case string:
		return &flexKey{primary: k, alt: Keyword(x), name: x}
	}
	return &flexKey{primary: k}
}

// lookupFlex is Lookup with a prepared key. Small maps (records, the common
// case) are scanned once for both spellings with plain string equality,
// after checking the hinted position.
func (m *Map) lookupFlex(k *flexKey) (Value, bool) {
	if m.rec != nil {
		// The slot cached for this shape, inline; slotFor finds it otherwise.
		i := -1
		if c := k.shape.Load(); c != nil && c.shape == m.rec {
			i = c.slot
		} else {
			i = m.rec.slotFor(k)
		}
		if i >= 0 {
			return m.vals[i], true
		}
		return nil, false
	}
	if k.alt == nil {
		return m.t.Get(k.primary, compareKeys)
	}
	return m.lookupNamed(k.name, k.keyword, k.primary, k.alt, &k.hint)
}

// lookupNamed finds the keyword or string spelled name, preferring the
// spelling of primary. Small maps are scanned without boxing anything (after
// checking the hinted position, when there is a hint); larger ones are
// searched for primary, then for alt (both boxed on demand when nil).
func (m *Map) lookupNamed(name string, keyword bool, primary, alt Value, hint *atomic.Int32) (Value, bool) {
	if m.rec != nil {
		if i := m.rec.indexNamed(name, keyword); i >= 0 {
			return m.vals[i], true
		}
		return nil, false
	}
	ents, small := m.t.Leaf()
	if !small {
		return m.lookupNamedLarge(name, keyword, primary, alt)
	}
	if hint == nil {
		if i := scanNamed(ents, name, keyword); i >= 0 {
			return ents[i].Val, true
		}
		return nil, false
	}
	h := int(hint.Load())
	if uint(h) < uint(len(ents)) {
		switch x := ents[h].Key.(type) {
		case string:
			// Keys sort keywords before strings: with a string first,
			// there is no keyword spelling to prefer.
			if x == name && (!keyword || isString(ents[0].Key)) {
				return ents[h].Val, true
			}
		case Keyword:
			if keyword && string(x) == name {
				return ents[h].Val, true
			}
		}
	}
	i := scanNamed(ents, name, keyword)
	if i < 0 {
		return nil, false
	}
	if int32(i) != hint.Load() {
		hint.Store(int32(i))
	}
	return ents[i].Val, true
}

// scanNamed returns the index among a small map's entries of the keyword
// or string spelled name, preferring the spelling keyword says, or -1: one
// pass, inline (a callback per key cost a closure call each). Keys are
// sorted with every keyword before every string, so a string match is
// final for either spelling (no keyword follows it); a keyword match is
// final for a keyword, and the first one is the fallback for a string.
func scanNamed(ents []ordmap.Entry[Value, Value], name string, keyword bool) int {
	at := -1
	for i := range ents {
		switch x := ents[i].Key.(type) {
		case Keyword:
			if string(x) == name {
				if keyword {
					return i
				}
				if at < 0 {
					at = i
				}
			}
		case string:
			if x == name {
				return i
			}
		}
	}
	return at
}

// lookupNamedLarge is lookupNamed on a map larger than a leaf: searched for
// primary, then for alt (both boxed on demand when nil).
func (m *Map) lookupNamedLarge(name string, keyword bool, primary, alt Value) (Value, bool) {
	if primary == nil {
		if keyword {
			primary = Keyword(name)
		} else {
			primary = name
		}
	}
	if v, ok := m.t.Get(primary, compareKeys); ok {
		return v, true
	}
	if alt == nil {
		if keyword {
			alt = name
		} else {
			alt = Keyword(name)
		}
	}
	return m.t.Get(alt, compareKeys)
}

// Assoc returns a map with k set to v.
func (m *Map) Assoc(k, v Value) *Map {
	if m.rec != nil {
		// The same keys keep the shape; a new key makes a tree.
		if i := m.rec.index(k); i >= 0 {
			vals := append([]Value(nil), m.vals...)
			vals[i] = v
			return &Map{rec: m.rec, vals: vals}
		}
		return &Map{t: m.tree().Set(k, v, compareKeys), kinds: m.rec.kinds.with(k)}
	}
	kv := [2]Value{k, v}
	if r := m.assocSmall(kv[:], false); r != nil {
		return r
	}
	return &Map{t: m.t.Set(k, v, compareKeys), vals: m.orderVals(), kinds: m.kinds.with(k)}
}

// maxSmallAssoc bounds the entries of a map that assocSmall makes: one
// leaf, in the largest leaf block.
const maxSmallAssoc = 16

// assocSmall is Assoc of the pairs kvs (k1 v1 k2 v2 ...) in turn, for a tree
// map (not a record) that is a single leaf, when the result fits in one
// leaf: the new map and its leaf are one allocation (Assoc's tree would
// make a map and a leaf per pair). flexible has each key name the entry of
// its other spelling when the map holds that one and not the key itself,
// as assocKey's existingKey does, against the entries set so far. It
// returns nil when m is larger or the result would be, for the general path.
func (m *Map) assocSmall(kvs []Value, flexible bool) *Map {
	ents, small := m.t.Leaf()
	if !small || len(ents)+len(kvs)/2 > maxSmallAssoc || m.rec != nil {
		return nil
	}
	// The entries are built on the stack, then copied into a block of
	// their exact size (a key already there adds none).
	var buf [maxSmallAssoc]ordmap.Entry[Value, Value]
	n := copy(buf[:], ents)
	kinds := m.kinds
	for i := 0; i+1 < len(kvs); i += 2 {
		k := kvs[i]
		if flexible && kinds.flexible(k) {
			k = existingEntryKey(buf[:n], k)
		}
		kinds = kinds.with(k)
		// ordmap's Set, on the stack: a key already there keeps its
		// stored form and takes the value; a new one is put in its place
		// (after the last, the common case, with one comparison).
		j := n
		if n > 0 && compareKeys(buf[n-1].Key, k) >= 0 {
			var found bool
			if j, found = searchEntries(buf[:n], k); found {
				buf[j].Val = kvs[i+1]
				continue
			}
			for h := n; h > j; h-- {
				buf[h] = buf[h-1]
			}
		}
		buf[j] = ordmap.Entry[Value, Value]{Key: k, Val: kvs[i+1]}
		n++
	}
	r := smallLeafMap(buf[:n])
	r.vals, r.kinds = m.orderVals(), kinds
	return r
}

// otherSpelling returns the other spelling of a keyword or string key
// (:a for "a", "a" for :a), which flexible lookups also try; false for any
// other key.
func otherSpelling(k Value) (Value, bool) {
	switch x := k.(type) {
	case Keyword:
		return string(x), true
	case string:
		return Keyword(x), true
	}
	return nil, false
}

// existingEntryKey is existingKey over sorted entries: k when they hold
// it, else its other spelling when they hold that, else k.
func existingEntryKey(ents []ordmap.Entry[Value, Value], k Value) Value {
	alt, ok := otherSpelling(k)
	if !ok {
		return k
	}
	if _, found := searchEntries(ents, k); found {
		return k
	}
	if _, found := searchEntries(ents, alt); found {
		return alt
	}
	return k
}

// searchEntries returns the index of the first entry whose key is >= k,
// and whether that key equals k.
func searchEntries(ents []ordmap.Entry[Value, Value], k Value) (int, bool) {
	lo, hi := 0, len(ents)
	for lo < hi {
		h := int(uint(lo+hi) >> 1)
		c := compareKeys(ents[h].Key, k)
		if c < 0 {
			lo = h + 1
		} else if c > 0 {
			hi = h
		} else {
			return h, true
		}
	}
	return lo, false
}

// smallLeafMap returns a map of the sorted, distinct entries ents (1 to
// maxSmallAssoc of them), the map and its leaf in one allocation.
func smallLeafMap(ents []ordmap.Entry[Value, Value]) *Map {
	switch n := len(ents); {
	case n == 1:
		return blockMap[ordmap.Leaf1[Value, Value]](ents)
	case n == 2:
		return blockMap[ordmap.Leaf2[Value, Value]](ents)
	case n == 3:
		return blockMap[ordmap.Leaf3[Value, Value]](ents)
	case n == 4:
		return blockMap[ordmap.Leaf4[Value, Value]](ents)
	case n <= 6:
		return blockMap[ordmap.Leaf6[Value, Value]](ents)
	case n <= 8:
		return blockMap[ordmap.Leaf8[Value, Value]](ents)
	case n <= 10:
		return blockMap[ordmap.Leaf10[Value, Value]](ents)
	case n <= 12:
		return blockMap[ordmap.Leaf12[Value, Value]](ents)
	}
	return blockMap[ordmap.Leaf16[Value, Value]](ents)
}

// blockMap allocates a map and its leaf block L together, filled with ents.
func blockMap[L any, P interface {
	*L
	Room() []ordmap.Entry[Value, Value]
	Take(int) ordmap.Tree[Value, Value]
}](ents []ordmap.Entry[Value, Value]) *Map {
	b := new(struct {
		m Map
		l L
	})
	copy(P(&b.l).Room(), ents)
	b.m.t = P(&b.l).Take(len(ents))
	return &b.m
}

// Dissoc returns a map without k.
func (m *Map) Dissoc(k Value) *Map {
	if m.rec != nil {
		if m.rec.index(k) < 0 {
			return m
		}
		if len(m.vals) == 1 {
			return emptyMap
		}
		return &Map{t: m.tree().Delete(k, compareKeys), kinds: m.rec.kinds}
	}
	t := m.t.Delete(k, compareKeys)
	if t.Same(m.t) {
		return m
	}
	vals := m.orderVals()
	if rt := m.recordType(); rt != nil && rt.isField(k) {
		vals = nil // as Clojure's: without a field, a record is a plain map
	}
	return &Map{t: t, vals: vals, kinds: m.kinds}
}

// All iterates over the entries in canonical key order (a sorted-by map's
// in its comparator's order).
func (m *Map) All() iter.Seq2[Value, Value] {
	if m.rec != nil {
		keys, vals := m.rec.keys, m.vals
		return func(yield func(Value, Value) bool) {
			for i, v := range vals {
				if !yield(keys[i], v) {
					return
				}
			}
		}
	}
	t := m.t
	if by := m.sorted(); by != nil { // a sorted-by map (records returned above)
		t = by.ord
	}
	return t.All()
}

// Keys returns the keys in canonical order.
func (m *Map) Keys() []Value {
	if by := m.sorted(); by != nil {
		keys := make([]Value, 0, m.Len())
		for k := range by.ord.All() {
			keys = append(keys, k)
		}
		return keys
	}
	if m.rec != nil {
		return append([]Value(nil), m.rec.keys...)
	}
	keys := make([]Value, 0, m.Len())
	for k := range m.t.All() {
		keys = append(keys, k)
	}
	return keys
}

// EntryAt returns the i-th entry in key order.
func (m *Map) EntryAt(i int) (Value, Value) {
	if by := m.sorted(); by != nil {
		return by.ord.At(i)
	}
	if m.rec != nil {
		return m.rec.keys[i], m.vals[i]
	}
	return m.t.At(i)
}

// MapBuilder builds a map by mutating it in place, then freezes it with Map.
// Building n entries costs O(n log n) with no per-entry copying.
type MapBuilder struct {
	b *ordmap.Builder[Value, Value]
}

// NewMapBuilder starts from m (nil for an empty map); m itself is not changed.
func NewMapBuilder(m *Map) *MapBuilder { return newMapBuilder(treeOf(m)) }

// newMapBuilder and emptyMapBuilder are NewMapBuilder for the interpreter's
// own hot paths: small enough to be inlined, which keeps their builders off
// the heap. A map a builder makes knows nothing of its keys' kinds (Set
// stays small enough to inline); a transient map keeps track of them.
func newMapBuilder(t ordmap.Tree[Value, Value]) *MapBuilder {
	return &MapBuilder{b: ordmap.NewBuilder(t)}
}

func emptyMapBuilder() *MapBuilder {
	return &MapBuilder{b: ordmap.NewBuilder(ordmap.Tree[Value, Value]{})}
}

// treeOf returns the entries of m (nil: none) as a tree.
func treeOf(m *Map) ordmap.Tree[Value, Value] {
	if m == nil {
		return ordmap.Tree[Value, Value]{}
	}
	return m.tree()
}

// Set sets k to v.
func (b *MapBuilder) Set(k, v Value) { b.b.Set(k, v, compareKeys) }

// Get returns the value under exactly k.
func (b *MapBuilder) Get(k Value) (Value, bool) { return b.b.Get(k, compareKeys) }

// Delete removes k.
func (b *MapBuilder) Delete(k Value) { b.b.Delete(k, compareKeys) }

// Len returns the number of entries so far.
func (b *MapBuilder) Len() int { return b.b.Len() }

// Map freezes the builder; it must not be used afterwards.
func (b *MapBuilder) Map() *Map {
	t := b.b.Tree()
	if t.Len() == 0 {
		return emptyMap
	}
	return &Map{t: t}
}

// mapFromSorted builds a map from entries sorted by compareKeys with
// distinct keys, in O(n).
func mapFromSorted(keys, vals []Value) *Map {
	if len(keys) == 0 {
		return emptyMap
	}
	return &Map{t: ordmap.FromSorted(keys, vals), kinds: kindsOfKeys(keys)}
}

// kindsOfKeys is the keyKinds of a map of these keys.
func kindsOfKeys(keys []Value) keyKinds {
	kinds := kindsKnown
	for _, k := range keys {
		kinds |= kindOf(k)
	}
	return kinds
}

// mapFromLiteral builds a map from the entries of a literal, where the first
// of duplicate keys wins (as in the reference implementation).
func mapFromLiteral(keys, vals []Value) *Map { return mapFromUnsorted(keys, vals, false) }

// mapFromEntries builds a map from unsorted entries (last duplicate wins).
func mapFromEntries(keys, vals []Value) *Map { return mapFromUnsorted(keys, vals, true) }

func mapFromUnsorted(keys, vals []Value, lastWins bool) *Map {
	// Literals often list their keys in order already.
	sorted := true
	for i := 1; i < len(keys) && sorted; i++ {
		sorted = compareKeys(keys[i-1], keys[i]) < 0
	}
	if sorted {
		return mapFromSorted(keys, vals)
	}
	return mapFromSorted(sortEntries(keys, vals, lastWins))
}

// sortEntries returns the entries sorted by compareKeys, with one of each
// run of duplicate keys: the last when lastWins, else the first.
func sortEntries(keys, vals []Value, lastWins bool) ([]Value, []Value) {
	idx := make([]int, len(keys))
	for i := range idx {
		idx[i] = i
	}
	// Stable: among duplicates, source order decides which one wins.
	slices.SortStableFunc(idx, func(a, b int) int { return compareKeys(keys[a], keys[b]) })
	sk := make([]Value, 0, len(keys))
	sv := make([]Value, 0, len(keys))
	for _, i := range idx {
		if n := len(sk); n > 0 && compareKeys(sk[n-1], keys[i]) == 0 {
			if lastWins {
				sv[n-1] = vals[i]
			}
			continue
		}
		sk = append(sk, keys[i])
		sv = append(sv, vals[i])
	}
	return sk, sv
}

// Set is an immutable set, in canonical order, with strict membership
// (1 and 1.0 are different elements).
type Set struct {
	t ordmap.Tree[Value, struct{}]
	// by: as Map's, for a set of sorted-set-by; naturalOrder for a set of
	// sorted-set (use sorted for the comparator).
	by *sortedBy
}

// sorted returns the comparator and order of a set of sorted-set-by, nil
// for any other set.
func (s *Set) sorted() *sortedBy {
	if s.by == naturalOrder {
		return nil
	}
	return s.by
}

// natural returns sorted-set's mark for a set of sorted-set, else nil.
func (s *Set) natural() *sortedBy {
	if s.by == naturalOrder {
		return naturalOrder
	}
	return nil
}

var emptySet = &Set{}

// NewSet returns a set of items (duplicates dropped).
func NewSet(items ...Value) *Set {
	b := newSetBuilder(nil)
	for _, x := range items {
		b.Add(x)
	}
	return b.Set()
}

// Len returns the number of elements.
func (s *Set) Len() int { return s.t.Len() }

// Has reports whether x is an element.
func (s *Set) Has(x Value) bool {
	_, ok := s.t.Get(x, compareKeys)
	return ok
}

// Conj returns a set with x added.
func (s *Set) Conj(x Value) *Set {
	if s.Has(x) {
		return s
	}
	return &Set{t: s.t.Set(x, struct{}{}, compareKeys), by: s.natural()}
}

// Disj returns a set without x.
func (s *Set) Disj(x Value) *Set {
	t := s.t.Delete(x, compareKeys)
	if t.Same(s.t) {
		return s
	}
	return &Set{t: t, by: s.natural()}
}

// All iterates over the elements in canonical order.
func (s *Set) All() iter.Seq[Value] {
	t := s.t
	if by := s.sorted(); by != nil {
		t = by.set
	}
	return func(yield func(Value) bool) {
		for k := range t.All() {
			if !yield(k) {
				return
			}
		}
	}
}

// At returns the i-th element in canonical order (0 <= i < Len). O(log n).
func (s *Set) At(i int) Value {
	t := &s.t
	if by := s.sorted(); by != nil {
		t = &by.set
	}
	k, _ := t.At(i)
	return k
}

// Items returns the elements in canonical order.
func (s *Set) Items() []Value {
	out := make([]Value, 0, s.Len())
	for k := range s.All() {
		out = append(out, k)
	}
	return out
}

// setBuilder builds a set in place.
type setBuilder struct {
	b *ordmap.Builder[Value, struct{}]
}

// newSetBuilder starts from s (nil for an empty set); s is not changed.
func newSetBuilder(s *Set) *setBuilder {
	var t ordmap.Tree[Value, struct{}]
	if s != nil {
		t = s.t
	}
	return &setBuilder{b: ordmap.NewBuilder(t)}
}

// Add adds x.
func (b *setBuilder) Add(x Value) { b.b.Set(x, struct{}{}, compareKeys) }

// Has reports whether x was added.
func (b *setBuilder) Has(x Value) bool {
	_, ok := b.b.Get(x, compareKeys)
	return ok
}

// Delete removes x.
func (b *setBuilder) Delete(x Value) { b.b.Delete(x, compareKeys) }

// Len returns the number of elements so far.
func (b *setBuilder) Len() int { return b.b.Len() }

// Set freezes the builder; it must not be used afterwards.
func (b *setBuilder) Set() *Set {
	t := b.b.Tree()
	if t.Len() == 0 {
		return emptySet
	}
	return &Set{t: t}
}
