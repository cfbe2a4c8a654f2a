package lisp

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// smallKeyPool holds keys that collide in every way small maps meet: a
// keyword and the string of the same name, numbers of both kinds, nil.
var smallKeyPool = []Value{
	Keyword("a"), "a", Keyword("b"), "b", Keyword("ok"), "ok", Keyword("total"), "total",
	Keyword("ns/a"), int64(1), float64(1), int64(-3), nil, true, Keyword(""), "",
	Keyword("id"), Keyword("name"), Keyword("price"), Keyword("qty"), Keyword("tags"),
}

// assocModel is Assoc's general path, pair by pair: the tree's Set, and
// for flexible keys existingKey against the map so far.
func assocModel(m *Map, kvs []Value, flexible bool) *Map {
	for i := 0; i+1 < len(kvs); i += 2 {
		k := kvs[i]
		if flexible {
			k = existingKey(m, k)
		}
		m = &Map{t: m.t.Set(k, kvs[i+1], compareKeys), vals: m.orderVals(), kinds: m.kinds.with(k)}
	}
	return m
}

// sameMap reports how a and b differ: entries (keys of the same type and
// order, the same values), kinds and order marks.
func sameMap(a, b *Map) error {
	if a.Len() != b.Len() {
		return fmt.Errorf("%d entries, want %d", a.Len(), b.Len())
	}
	for i := range a.Len() {
		ka, va := a.EntryAt(i)
		kb, vb := b.EntryAt(i)
		if fmt.Sprintf("%T", ka) != fmt.Sprintf("%T", kb) || compareKeys(ka, kb) != 0 || va != vb {
			return fmt.Errorf("entry %d: %#v %#v, want %#v %#v", i, ka, va, kb, vb)
		}
	}
	if a.kinds != b.kinds {
		return fmt.Errorf("kinds %b, want %b", a.kinds, b.kinds)
	}
	if a.isSortedMap() != b.isSortedMap() || a.recordType() != b.recordType() {
		return fmt.Errorf("order mark or record type differs")
	}
	return nil
}

// assocSmall, the one-block Assoc of small maps, makes the map that the
// general path makes pair by pair, flexible or not, at every size up to
// and past its limit.
func TestAssocSmall(t *testing.T) {
	r := rand.New(rand.NewPCG(47, 6))
	for iter := range 20000 {
		var m *Map
		switch iter % 4 {
		case 0: // a literal's map: kinds known
			m = emptyMap
		case 1: // a builder's: kinds unknown
			m = emptyMapBuilder().Map()
		case 2:
			m = emptySortedMap
		default:
			m = &Map{kinds: kindsKnown}
		}
		for range r.IntN(20) {
			m = assocModel(m, []Value{smallKeyPool[r.IntN(len(smallKeyPool))], int64(r.IntN(100))}, r.IntN(2) == 0)
		}
		if iter%7 == 0 { // and more distinct keys, up to two leaves
			for i := range r.IntN(24) {
				m = assocModel(m, []Value{int64(100 + i), int64(i)}, false)
			}
		}
		kvs := make([]Value, 0, 16)
		for range 1 + r.IntN(8) {
			kvs = append(kvs, smallKeyPool[r.IntN(len(smallKeyPool))], int64(r.IntN(100)))
		}
		flexible := r.IntN(3) != 0
		want := assocModel(m, kvs, flexible)
		got := m.assocSmall(kvs, flexible)
		if got == nil {
			if _, small := m.t.Leaf(); small && m.Len()+len(kvs)/2 <= maxSmallAssoc {
				t.Fatalf("assocSmall declined a map of %d entries and %d pairs", m.Len(), len(kvs)/2)
			}
			continue
		}
		if err := sameMap(got, want); err != nil {
			t.Fatalf("assoc %s %v (flexible %v): %v", printString(m), kvs, flexible, err)
		}
		if !mapsEqualForTest(got, want) {
			t.Fatalf("assoc %s %v: not equal to the general path's", printString(m), kvs)
		}
		// Assoc (one pair) agrees too.
		one := m.Assoc(kvs[0], kvs[1])
		if err := sameMap(one, assocModel(m, kvs[:2], false)); err != nil {
			t.Fatalf("Assoc %s %v: %v", printString(m), kvs[:2], err)
		}
	}
}

func mapsEqualForTest(a, b *Map) bool { return equal(a, b) && hash(a) == hash(b) }

// Get on a small map, scanned inline, finds what the exact lookups of
// both spellings find, in the order of preference: the key as given, then
// its other spelling; with and without a position hint.
func TestLookupNamedSmall(t *testing.T) {
	r := rand.New(rand.NewPCG(6, 47))
	for range 5000 {
		m := emptyMap
		for range r.IntN(24) {
			m = m.Assoc(smallKeyPool[r.IntN(len(smallKeyPool))], int64(r.IntN(100)))
		}
		for _, k := range smallKeyPool {
			want, wantOK := m.getExact(k)
			if !wantOK {
				switch x := k.(type) {
				case Keyword:
					want, wantOK = m.getExact(string(x))
				case string:
					want, wantOK = m.getExact(Keyword(x))
				}
			}
			got, ok := m.Get(k)
			if ok != wantOK || got != want {
				t.Fatalf("Get(%#v) in %s = %v %v, want %v %v", k, printString(m), got, ok, want, wantOK)
			}
			fk := newFlexKey(k)
			fk.hint.Store(int32(r.IntN(20))) // anywhere, then where it was found
			for range 2 {
				got, ok = m.lookupFlex(fk)
				if ok != wantOK || got != want {
					t.Fatalf("lookupFlex(%#v) in %s = %v %v, want %v %v", k, printString(m), got, ok, want, wantOK)
				}
			}
		}
	}
}

// compareKeys orders keywords by their text and strings as strings.Compare
// does, its first-byte shortcut included.
func TestCompareKeysText(t *testing.T) {
	texts := []string{"", "a", "b", "ab", "ba", "abc", "total", "tags", "t", "é", "e", "\x00", "\xff", "Z", "z", "ns/a", "ns"}
	for _, x := range texts {
		for _, y := range texts {
			want := strings.Compare(x, y)
			if got := compareKeys(x, y); got != want {
				t.Errorf("compareKeys(%q, %q) = %d, want %d", x, y, got, want)
			}
			if got := compareKeys(Keyword(x), Keyword(y)); got != want {
				t.Errorf("compareKeys(:%s, :%s) = %d, want %d", x, y, got, want)
			}
		}
	}
}
