package lisp

import (
	"strconv"
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
	target := kwHash("k") & 0xFFF
	for i := 0; len(names) < want; i++ {
		if name := "c" + strconv.Itoa(i); kwHash(name)&0xFFF == target {
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
