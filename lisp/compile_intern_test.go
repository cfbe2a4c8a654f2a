package lisp

import (
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// TestKeywordTable: each name has one entry, found again by every lookup,
// across the index's growth.
func TestKeywordTable(t *testing.T) {
	var tab kwTable
	seen := map[string]*kwEntry{}
	for round := 0; round < 2; round++ {
		for i := range 3000 {
			name := "k" + strconv.Itoa(i)
			e := tab.entry(name)
			if e.name != name || e.v != Keyword(name) {
				t.Fatalf("entry(%q) = %q, %v", name, e.name, e.v)
			}
			if old, ok := seen[name]; ok && old != e {
				t.Fatalf("entry(%q) made a second entry", name)
			}
			seen[name] = e
		}
	}
	if tab.flood != nil {
		t.Errorf("3,000 ordinary names moved the table into a map")
	}
}

// TestKeywordTableFlood: names made to collide in the unkeyed hash (as a
// hostile program's can be) move the table into a Go map after a bounded
// probe, and every name keeps its one entry.
func TestKeywordTableFlood(t *testing.T) {
	const want = 200
	var names []string
	// The index is probed from the top bits of kwSlot: names equal in
	// the top 12 collide in every index of up to 4,096 slots.
	slot := func(name string) uint64 { return kwSlot(kwWord(name), len(name)) >> 52 }
	target := slot("k")
	for i := 0; len(names) < want; i++ {
		if name := "c" + strconv.Itoa(i); slot(name) == target {
			names = append(names, name)
		}
	}
	var tab kwTable
	entries := map[string]*kwEntry{}
	for _, name := range names {
		entries[name] = tab.entry(name)
	}
	if tab.flood == nil {
		t.Fatalf("%d colliding names stayed in the open-addressed index", want)
	}
	for _, name := range names {
		if e := tab.entry(name); e != entries[name] || e.name != name {
			t.Fatalf("entry(%q) changed after the move into the map", name)
		}
	}
}

// TestKeywordWord: the word entry computes of a name (kwWord spelled
// out) is kwWord's, whose hash the pool and callInfo use; names of one
// length that differ get different words up to 8 bytes.
func TestKeywordWord(t *testing.T) {
	var tab kwTable
	const letters = "abcdefghijklmnopqrstuvwxyz0123"
	seen := map[[2]uint64]string{}
	for n := 0; n <= len(letters); n++ {
		for _, name := range []string{letters[:n], letters[len(letters)-n:], strings.Repeat("x", n)} {
			e := tab.entry(name)
			if e.w != kwWord(name) || e.h != kwHash(name) {
				t.Fatalf("entry(%q): word %#x hash %#x, kwWord %#x kwHash %#x", name, e.w, e.h, kwWord(name), kwHash(name))
			}
			key := [2]uint64{uint64(n), e.w}
			if other, ok := seen[key]; ok && other != name && n <= 8 {
				t.Fatalf("%q and %q have one word", name, other)
			}
			seen[key] = name
		}
	}
}

// TestKeywordTableSwap: names that share their first slot, fewer than a
// flood, are found whatever the order of the lookups, though each found
// past its first slot swaps into it.
func TestKeywordTableSwap(t *testing.T) {
	slot := func(name string) uint64 { return kwSlot(kwWord(name), len(name)) >> 52 }
	target := slot("k")
	var names []string
	for i := 0; len(names) < 20; i++ {
		if name := "s" + strconv.Itoa(i); slot(name) == target {
			names = append(names, name)
		}
	}
	var tab kwTable
	entries := map[string]*kwEntry{}
	for _, name := range names {
		entries[name] = tab.entry(name)
	}
	for round := range 50 {
		for j := range names {
			name := names[(j*7+round*3)%len(names)]
			if e := tab.entry(name); e != entries[name] || e.name != name {
				t.Fatalf("round %d: entry(%q) = %q, a new entry or another's", round, name, e.name)
			}
		}
	}
	if tab.flood != nil || tab.n != len(names) {
		t.Errorf("flood %v, %d entries, want the index and %d", tab.flood != nil, tab.n, len(names))
	}
}

// TestKeywordTableSharedSlot: two names that share their first slot,
// looked up in turn, are each found (the entries made once, the index
// neither grown nor flooded) and stop trading the slot: it changes hands
// a few times (skips), not at every lookup.
func TestKeywordTableSharedSlot(t *testing.T) {
	slot := func(name string) uint64 { return kwSlot(kwWord(name), len(name)) >> 60 }
	target := slot("k")
	var names []string
	for i := 0; len(names) < 2; i++ {
		if name := "s" + strconv.Itoa(i); slot(name) == target {
			names = append(names, name)
		}
	}
	var tab kwTable
	a, b := tab.entry(names[0]), tab.entry(names[1])
	size := len(tab.index)
	if size != 16 {
		t.Fatalf("index of %d slots, want the first 16", size)
	}
	home := kwSlot(a.w, len(a.name)) >> (tab.shift & 63)
	if home != kwSlot(b.w, len(b.name))>>(tab.shift&63) {
		t.Fatalf("%q and %q do not share a first slot", a.name, b.name)
	}
	changes := 0
	holder := tab.index[home]
	for i := range 1000 {
		name, want := names[i%2], a
		if i%2 == 1 {
			want = b
		}
		if e := tab.entry(name); e != want {
			t.Fatalf("lookup %d: entry(%q) = %q, another entry", i, name, e.name)
		}
		if tab.index[home] != holder {
			holder = tab.index[home]
			changes++
		}
	}
	if changes > 10 {
		t.Errorf("the shared slot changed hands %d times in 1,000 lookups", changes)
	}
	if len(tab.index) != size || tab.flood != nil || tab.n != 2 {
		t.Errorf("index of %d slots (flood %v, %d entries), want %d and 2", len(tab.index), tab.flood != nil, tab.n, size)
	}
	// A name met more often than the other takes the slot and keeps it.
	for i := range 300 {
		name := names[0]
		if i%4 == 3 {
			name = names[1]
		}
		tab.entry(name)
	}
	if tab.index[home] != a {
		t.Errorf("the slot is %q's, not the commoner %q's", tab.index[home].name, a.name)
	}
}

// TestKeywordAt: the keyword boxed in place (keywordAt) is the keyword of
// the entry's name, as Keyword(name) boxed the ordinary way: equal, of
// the same dynamic type, hashed and printed alike, and it stays so after
// more entries, chunks and collections (the entry's chunk is kept alive
// by the value alone).
func TestKeywordAt(t *testing.T) {
	var vals []Value
	var names []string
	{
		var tab kwTable
		for i := range 500 {
			name := "kw" + strconv.Itoa(i) + strings.Repeat("x", i%13)
			names = append(names, name)
			vals = append(vals, tab.entry(name).v)
		}
	}
	runtime.GC()
	for i, v := range vals {
		want := Value(Keyword(names[i]))
		k, ok := v.(Keyword)
		if !ok || string(k) != names[i] || v != want || !Equal(v, want) || hash(v) != hash(want) {
			t.Fatalf("entry %d: %#v, want %#v", i, v, want)
		}
		if got := printString(v); got != ":"+names[i] {
			t.Fatalf("entry %d prints %s", i, got)
		}
	}
	// An entry carved from a chunk with room costs no allocation: the
	// keyword is not boxed apart.
	tab := &kwTable{slab: make([]kwEntry, 0, 4)}
	if n := testing.AllocsPerRun(10, func() {
		tab.slab = tab.slab[:0]
		tab.newEntry("abcdefghijk", kwWord("abcdefghijk"))
	}); n != 0 {
		t.Errorf("%.0f allocations for a keyword's entry, want 0", n)
	}
}
