package lisp

import (
	"math/bits"
	"unsafe"

	"github.com/ptc-go/ptc/lisp/internal/ordmap"
)

// kwTable interns the keywords of one program: each name is boxed once,
// and its closure and flexKey made once, however often it is written.
// A compile looks a keyword up for nearly every keyword it meets (W6, a
// 200-line program, over 1,200 times), so the table is an open-addressed
// array indexed by a one-multiply hash of the name's word (kwSlot) rather
// than a Go map, whose general hash and probing cost several times more
// for names this short; a lookup that finds its name in the first slot it
// probes is a few instructions past kwWord. The index is kept at most a
// quarter full: a few names sharing a first slot cost more than the room.
// The hash is not keyed: a program written to make its keywords collide
// (a hostile one can) would make every lookup walk them all, so a probe
// longer than maxKeywordProbe moves the table into a Go map, whose seeded
// hash no text can aim at.
type kwTable struct {
	index []*kwEntry // a power of two long, at most a quarter full; nil: empty, or flood
	shift uint       // 64 - log2(len(index)): kwSlot's top bits index
	n     int
	slab  []kwEntry // the entries are carved from chunks: pointers stay valid
	first [16]*kwEntry
	flood map[string]*kwEntry // non-nil: the entries, after a long probe
}

// maxKeywordProbe bounds the slots one lookup of the open-addressed index
// compares; honest names probe one or two.
const maxKeywordProbe = 32

// literalSlabs are the chunks the keys of map literals and their places
// are carved from (see literalKeys).
type literalSlabs struct {
	keys  []Value
	slots []int
	// The constant vectors and maps the literals make, and the leaves of
	// the maps (see constVector and constMapFromSorted): one allocation
	// for many literals, all held as long as the program is.
	vecs  []Vector
	maps  []Map
	leaf1 []ordmap.Leaf1[Value, Value]
	leaf2 []ordmap.Leaf2[Value, Value]
	leaf3 []ordmap.Leaf3[Value, Value]
	leaf4 []ordmap.Leaf4[Value, Value]
	leaf6 []ordmap.Leaf6[Value, Value]
	leaf8 []ordmap.Leaf8[Value, Value]
}

// kwWord is the word a name is compared and hashed by: a name of at most
// 8 bytes packed into it, one to one for names of one length (two names
// of up to 8 bytes are equal when their lengths and words are); of a
// longer name, its 8-byte chunks mixed. It reads whole words rather than
// bytes: most names are short, and a byte loop costs several times more.
func kwWord(s string) uint64 {
	n := len(s)
	switch {
	case n > 8:
		return kwWordLong(s)
	case n >= 4:
		return uint64(load4(s)) | uint64(load4(s[n-4:]))<<32
	case n > 0:
		return uint64(s[0]) | uint64(s[n/2])<<8 | uint64(s[n-1])<<16
	}
	return 0
}

// kwWordLong is kwWord of a name longer than 8 bytes.
func kwWordLong(s string) uint64 {
	n := len(s)
	w := uint64(n)
	for i := 0; i+8 < n; i += 8 {
		w = bits.RotateLeft64((w^load8(s[i:]))*0x9e3779b97f4a7c15, 27)
	}
	return w ^ load8(s[n-8:])
}

// load8 and load4 read the first 8 and 4 bytes of s, little-endian (the
// compiler merges the byte loads into one).
func load8(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

func load4(s string) uint32 {
	_ = s[3]
	return uint32(s[0]) | uint32(s[1])<<8 | uint32(s[2])<<16 | uint32(s[3])<<24
}

// kwMix hashes a name's word and length.
func kwMix(w uint64, n int) uint {
	h := (w ^ uint64(n)*0x9e3779b97f4a7c15) * 0xff51afd7ed558ccd
	h = (h ^ h>>32) * 0xc4ceb9fe1a85ec53
	return uint(h ^ h>>29)
}

// kwHash hashes a name.
func kwHash(name string) uint { return kwMix(kwWord(name), len(name)) }

// kwSlot is the hash the index is probed by, whose top bits pick the
// first slot (Fibonacci hashing): one multiply, where kwMix, which the
// pool needs of each keyword, takes three and is computed once per name.
func kwSlot(w uint64, n int) uint64 { return (w ^ uint64(n)) * 0x9e3779b97f4a7c15 }

// sameName reports whether e is the entry of name, whose word is w.
func (e *kwEntry) sameName(name string, w uint64) bool {
	return e.w == w && len(e.name) == len(name) && (len(name) <= 8 || e.name == name)
}

// entry returns the entry of name, making it (the keyword boxed) on the
// first use. The first slot probed for a name of at most 8 bytes, most
// names, is tried here; a longer name is entryLong's, whose call to
// kwWordLong would otherwise make every lookup save its registers. The
// rest of the probe, the insertion and the flood are find's.
func (t *kwTable) entry(name string) *kwEntry {
	// kwWord, spelled out: called, it would cost as much again as the
	// lookup (TestKeywordWord checks the two agree).
	var w uint64
	switch n := len(name); {
	case n > 8:
		return t.entryLong(name)
	case n >= 4:
		w = uint64(load4(name)) | uint64(load4(name[n-4:]))<<32
	case n > 0:
		w = uint64(name[0]) | uint64(name[n/2])<<8 | uint64(name[n-1])<<16
	}
	// An empty or flooded table has no index: i is out of range.
	if i := kwSlot(w, len(name)) >> (t.shift & 63); i < uint64(len(t.index)) {
		if e := t.index[i]; e != nil && e.w == w && len(e.name) == len(name) {
			return e
		}
	}
	return t.find(name, w)
}

// entryLong is entry of a name longer than 8 bytes.
func (t *kwTable) entryLong(name string) *kwEntry {
	w := kwWordLong(name)
	if i := kwSlot(w, len(name)) >> (t.shift & 63); i < uint64(len(t.index)) {
		if e := t.index[i]; e != nil && e.sameName(name, w) {
			return e
		}
	}
	return t.find(name, w)
}

// find is entry past the first slot.
func (t *kwTable) find(name string, w uint64) *kwEntry {
	if t.flood != nil {
		if e, ok := t.flood[name]; ok {
			return e
		}
		e := t.newEntry(name, w)
		t.flood[name] = e
		return e
	}
	if t.index == nil {
		t.index = t.first[:] // the first keywords need no allocation of their own
		t.shift = 64 - uint(bits.TrailingZeros(uint(len(t.index))))
	}
	mask := uint64(len(t.index) - 1)
	home := kwSlot(w, len(name)) >> (t.shift & 63)
	i := home
	probes := 0
	for e := t.index[i]; e != nil; e = t.index[i] {
		if e.sameName(name, w) {
			// Found past its first slot: it takes the slot, which entry
			// tries inline, from the entry there, which takes its place
			// (and stays found: the slots from its own first to here are
			// all taken), once it has been found past it more than
			// twice as often as that one: a name written often is met
			// at its first slot, and two names met in turn do not trade
			// the slot at every lookup.
			e.skips++
			if o := t.index[home]; e.skips > 2*o.skips {
				t.index[home], t.index[i] = e, o
			}
			return e
		}
		if probes++; probes > maxKeywordProbe {
			t.flood = make(map[string]*kwEntry, t.n+1)
			for _, e := range t.index {
				if e != nil {
					t.flood[e.name] = e
				}
			}
			t.index = nil
			return t.find(name, w)
		}
		i = (i + 1) & mask
	}
	if 4*(t.n+1) > len(t.index) {
		t.grow()
		mask = uint64(len(t.index) - 1)
		for i = kwSlot(w, len(name)) >> (t.shift & 63); t.index[i] != nil; i = (i + 1) & mask {
		}
	}
	e := t.newEntry(name, w)
	t.index[i] = e
	t.n++
	return e
}

// newEntry carves the entry of a new keyword, boxed in place (keywordAt).
func (t *kwTable) newEntry(name string, w uint64) *kwEntry {
	if len(t.slab) == cap(t.slab) {
		t.slab = make([]kwEntry, 0, slabCap(cap(t.slab)))
	}
	t.slab = append(t.slab, kwEntry{name: name, w: w, h: kwMix(w, len(name))})
	e := &t.slab[len(t.slab)-1]
	e.v = keywordAt(&e.name)
	return e
}

// keywordAt is Keyword(*p) boxed without an allocation: the Value points
// at *p, the name of a keyword's entry. Boxed the ordinary way, each
// keyword of a program would cost an allocation of its own, as many as
// the program has keywords (W6: a dozen of its 800); the entries are
// carved from chunks, which the program's keywords then hold. Go cannot
// say this safely: converting a string to an interface copies it. The
// entry's name is never written after, so the boxed keyword is as
// immutable as any (TestKeywordAt checks the value is the keyword).
func keywordAt(p *string) Value {
	v := Value(Keyword("")) // the empty string boxes without an allocation
	(*eface)(unsafe.Pointer(&v)).data = unsafe.Pointer(p)
	return v
}

// eface is the layout of a Value: its type and a pointer to its value.
type eface struct {
	typ, data unsafe.Pointer
}

// The layouts keywordAt relies on: x-y is out of the array's range, or a
// constant overflow, unless x == y, so a change fails the build.
var (
	_ = [1]struct{}{}[unsafe.Sizeof(Value(nil))-unsafe.Sizeof(eface{})]
	_ = [1]struct{}{}[unsafe.Sizeof(Keyword(""))-unsafe.Sizeof("")]
)

// grow doubles the index and places the entries again.
func (t *kwTable) grow() {
	old := t.index
	t.index = make([]*kwEntry, 2*len(old))
	t.shift--
	mask := uint64(len(t.index) - 1)
	for _, e := range old {
		if e == nil {
			continue
		}
		i := kwSlot(e.w, len(e.name)) >> (t.shift & 63)
		for t.index[i] != nil {
			i = (i + 1) & mask
		}
		t.index[i] = e
	}
}

// callBucket remembers the callInfo of one builtin name.
type callBucket struct {
	name string
	info callInfo
	ok   bool
}

// callBuckets is the number of buckets of c.seenCalls.
const callBuckets = 64

// callSlot is the bucket of a builtin name (not empty): its length and
// its first and last bytes, which tell apart the few builtins a program
// calls, mixed by one multiplication, cheaper than the keywords' hash.
func callSlot(name string) uint {
	h := uint32(len(name))<<16 | uint32(name[0])<<8 | uint32(name[len(name)-1])
	return uint(h*0x9e3779b9) >> 26 // the top 6 bits: callBuckets places
}

// callInfo returns the callInfo of the builtin name. A program calls the
// same few builtins over and over: past its first calls (a one-liner makes
// no cache), the last answer for each of 64 buckets of the name is kept,
// and the table of every builtin consulted on a miss. (The hit is small
// enough to be inlined.)
func (c *compiler) callInfo(name string) (callInfo, bool) {
	if t := c.seenCalls; t != nil && len(name) > 0 {
		if e := &t[callSlot(name)]; e.name == name {
			return e.info, e.ok
		}
	}
	return c.callInfoMiss(name)
}

// callInfoMiss is callInfo past its cache.
func (c *compiler) callInfoMiss(name string) (callInfo, bool) {
	info, ok := lookupCallInfo(name)
	if len(name) == 0 {
		return info, ok
	}
	if c.seenCalls == nil {
		if c.uncachedCalls < 8 {
			c.uncachedCalls++
			return info, ok
		}
		c.seenCalls = new([callBuckets]callBucket)
	}
	c.seenCalls[callSlot(name)] = callBucket{name: name, info: info, ok: ok}
	return info, ok
}
