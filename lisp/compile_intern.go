package lisp

// kwTable interns the keywords of one program: each name is boxed once,
// and its closure and flexKey made once, however often it is written.
// A compile looks a keyword up for nearly every keyword it meets (W6, a
// 200-line program, over 1,700 times), so the table is an open-addressed
// array with a short inline hash of the name rather than a Go map, whose
// general hash and probing cost several times more for names this short.
// The hash is not keyed: a program written to make its keywords collide
// (a hostile one can) would make every lookup walk them all, so a probe
// longer than maxKeywordProbe moves the table into a Go map, whose seeded
// hash no text can aim at.
type kwTable struct {
	index []*kwEntry // a power of two long, at most half full; nil: empty
	n     int
	slab  []kwEntry // the entries are carved from chunks: pointers stay valid
	first [8]*kwEntry
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
}

// kwHash is FNV-1a of the name.
func kwHash(name string) uint {
	h := uint64(14695981039346656037)
	for i := 0; i < len(name); i++ {
		h ^= uint64(name[i])
		h *= 1099511628211
	}
	return uint(h ^ h>>29)
}

// entry returns the entry of name, making it (the keyword boxed) on the
// first use.
func (t *kwTable) entry(name string) *kwEntry {
	if t.flood != nil {
		if e, ok := t.flood[name]; ok {
			return e
		}
		e := t.newEntry(name)
		t.flood[name] = e
		return e
	}
	if t.index == nil {
		t.index = t.first[:] // the first keywords need no allocation of their own
	}
	h := kwHash(name)
	mask := uint(len(t.index) - 1)
	i := h & mask
	probes := 0
	for e := t.index[i]; e != nil; e = t.index[i] {
		if e.name == name {
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
			return t.entry(name)
		}
		i = (i + 1) & mask
	}
	if 2*(t.n+1) > len(t.index) {
		t.grow()
		mask = uint(len(t.index) - 1)
		for i = h & mask; t.index[i] != nil; i = (i + 1) & mask {
		}
	}
	e := t.newEntry(name)
	t.index[i] = e
	t.n++
	return e
}

// newEntry carves the entry of a new keyword, boxed once.
func (t *kwTable) newEntry(name string) *kwEntry {
	if len(t.slab) == cap(t.slab) {
		t.slab = make([]kwEntry, 0, slabCap(cap(t.slab)))
	}
	t.slab = append(t.slab, kwEntry{name: name, v: Keyword(name)})
	return &t.slab[len(t.slab)-1]
}

// grow doubles the index and places the entries again.
func (t *kwTable) grow() {
	old := t.index
	t.index = make([]*kwEntry, 2*len(old))
	mask := uint(len(t.index) - 1)
	for _, e := range old {
		if e == nil {
			continue
		}
		i := kwHash(e.name) & mask
		for t.index[i] != nil {
			i = (i + 1) & mask
		}
		t.index[i] = e
	}
}

// seenCall remembers the callInfo of one builtin name.
type seenCall struct {
	name string
	info callInfo
	ok   bool
}

// callInfo returns the callInfo of the builtin name. A program calls the
// same few builtins over and over: past its first calls (a one-liner makes
// no cache), the last answer for each of 64 buckets of the name's hash is
// kept, and the table of every builtin consulted on a miss.
func (c *compiler) callInfo(name string) (callInfo, bool) {
	if c.seenCalls == nil {
		if c.uncachedCalls < 8 {
			c.uncachedCalls++
			info, ok := callInfos[name]
			return info, ok
		}
		c.seenCalls = new([64]seenCall)
	}
	e := &c.seenCalls[kwHash(name)&63]
	if e.name != name { // the zero entry's "" is no builtin's name
		info, ok := callInfos[name]
		*e = seenCall{name: name, info: info, ok: ok}
	}
	return e.info, e.ok
}
