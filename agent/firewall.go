package agent

import (
	"strings"
	"sync"

	"github.com/ptc-go/ptc/lisp"
)

// Firewalled is what the LLM sees in place of a firewalled value.
const Firewalled = "<Firewalled>"

// minScrub is the length from which firewalled strings are scrubbed from
// text: shorter ones ("ok", "42", a name) would cut ordinary words.
const minScrub = 8

// firewall keeps firewalled data out of everything an LLM is sent.
//
// A value is firewalled when it sits under a key that starts with "_" in
// the context, in a tool's result or in a map a program built, or is the
// value of a memory var whose name starts with "_". Two mechanisms apply
// to every LLM-bound text:
//
//   - printing (turn values, println output, validation feedback) shows a
//     firewalled value, any collection inside one, a firewalled string of
//     minScrub bytes or more, and the value of every "_" map entry as
//     <Firewalled>;
//   - text (output lines, error messages) is scrubbed of every firewalled
//     string of minScrub bytes or more, which catches strings a program
//     copied out with str, format or string functions.
//
// What a program computes from firewalled data (a count, a sum, a short
// field) is its own value and is not hidden.
type firewall struct {
	base *fwSet // the context's: shared, read-only (see Agent.contextFirewall)
	mu   sync.RWMutex
	own  fwSet // tool results, memory and values of this mission
	// index holds the strings of base and own by their first 8 bytes,
	// longest first; rebuilt when own gains strings.
	index map[uint64][]string
	dirty bool
}

// fwSet is a set of firewalled collections and strings.
type fwSet struct {
	colls map[any]struct{}    // *lisp.Vector, *lisp.Map, *lisp.Set
	strs  map[string]struct{} // len >= minScrub
	// Collections walked unfirewalled.
	seenMaps map[*lisp.Map]struct{}
	seenVecs map[*lisp.Vector]struct{}
	seenSets map[*lisp.Set]struct{}
}

func newFirewall(a *Agent, ctx *lisp.Map) *firewall {
	return &firewall{base: a.contextFirewall(ctx), dirty: true}
}

// contextFirewall returns the firewalled parts of a context, computed once
// per context value and agent: hosts convert a large context once and run
// many missions on it.
func (a *Agent) contextFirewall(ctx *lisp.Map) *fwSet {
	a.fwMu.Lock()
	set, ok := a.fwCache[ctx]
	a.fwMu.Unlock()
	if ok {
		return set
	}
	set = &fwSet{}
	set.walk(ctx, false, 0)
	set.seenMaps, set.seenVecs, set.seenSets = nil, nil, nil
	a.fwMu.Lock()
	if a.fwCache == nil || len(a.fwCache) >= 16 {
		a.fwCache = map[*lisp.Map]*fwSet{}
	}
	a.fwCache[ctx] = set
	a.fwMu.Unlock()
	return set
}

// addToolResult records the firewalled parts of a tool's result.
func (fw *firewall) addToolResult(v lisp.Value) { fw.add(v, false) }

// addMemory records the values of "_" vars.
func (fw *firewall) addMemory(ns *lisp.Namespace) {
	for _, name := range ns.Names() {
		if strings.HasPrefix(name, "_") {
			v, _ := ns.Get(name)
			fw.add(v, true)
		}
	}
}

// add walks v; under says v itself is firewalled.
func (fw *firewall) add(v lisp.Value, under bool) {
	switch v.(type) {
	case *lisp.Map, *lisp.Vector, *lisp.Set, string:
	default:
		return
	}
	fw.mu.Lock()
	defer fw.mu.Unlock()
	n := len(fw.own.strs)
	fw.own.walk(v, under, 0)
	if len(fw.own.strs) != n {
		fw.dirty = true
	}
}

// walk records the firewalled parts of v; under says v is firewalled.
func (set *fwSet) walk(v lisp.Value, under bool, depth int) {
	if depth > 10000 {
		return
	}
	switch x := v.(type) {
	case string:
		if under && len(x) >= minScrub {
			if set.strs == nil {
				set.strs = map[string]struct{}{}
			}
			set.strs[x] = struct{}{}
		}
		return
	case *lisp.Map, *lisp.Vector, *lisp.Set:
	default:
		return
	}
	if under {
		if set.colls == nil {
			set.colls = map[any]struct{}{}
		}
		if _, ok := set.colls[v]; ok {
			return // walked already, as firewalled
		}
		set.colls[v] = struct{}{}
	} else if hasCollections(v) && set.visited(v) {
		// Shared structure could make the walk exponential: a collection
		// of collections is walked once. Collections of scalars (the rows
		// of a table) are cheap to walk again and are not recorded.
		return
	}
	switch x := v.(type) {
	case *lisp.Map:
		// Indexing is faster than the iterator for the small maps that
		// rows are (they are one leaf).
		for i, n := 0, x.Len(); i < n; i++ {
			k, e := x.EntryAt(i)
			set.walk(e, under || isFirewalledKey(k), depth+1)
		}
	case *lisp.Vector:
		for _, e := range x.Items() {
			set.walk(e, under, depth+1)
		}
	case *lisp.Set:
		for e := range x.All() {
			set.walk(e, under, depth+1)
		}
	}
}

// hasCollections reports whether a collection holds collections.
func hasCollections(v lisp.Value) bool {
	switch x := v.(type) {
	case *lisp.Map:
		for i, n := 0, x.Len(); i < n; i++ {
			if _, e := x.EntryAt(i); isCollection(e) {
				return true
			}
		}
	case *lisp.Vector:
		for _, e := range x.Items() {
			if isCollection(e) {
				return true
			}
		}
	case *lisp.Set:
		for e := range x.All() {
			if isCollection(e) {
				return true
			}
		}
	}
	return false
}

// visited records v as walked and reports whether it was already. Typed
// pointer sets hash faster than interface keys.
func (set *fwSet) visited(v lisp.Value) bool {
	switch x := v.(type) {
	case *lisp.Map:
		if _, ok := set.seenMaps[x]; ok {
			return true
		}
		if set.seenMaps == nil {
			set.seenMaps = map[*lisp.Map]struct{}{}
		}
		set.seenMaps[x] = struct{}{}
	case *lisp.Vector:
		if _, ok := set.seenVecs[x]; ok {
			return true
		}
		if set.seenVecs == nil {
			set.seenVecs = map[*lisp.Vector]struct{}{}
		}
		set.seenVecs[x] = struct{}{}
	case *lisp.Set:
		if _, ok := set.seenSets[x]; ok {
			return true
		}
		if set.seenSets == nil {
			set.seenSets = map[*lisp.Set]struct{}{}
		}
		set.seenSets[x] = struct{}{}
	}
	return false
}

// isFirewalledKey reports whether a map key names a firewalled field.
func isFirewalledKey(k lisp.Value) bool {
	switch k := k.(type) {
	case lisp.Keyword:
		return strings.HasPrefix(string(k), "_")
	case string:
		return strings.HasPrefix(k, "_")
	}
	return false
}

// empty reports whether nothing is firewalled (so nothing needs hiding
// but "_" map entries).
func (fw *firewall) empty() bool {
	fw.mu.RLock()
	defer fw.mu.RUnlock()
	return len(fw.base.colls) == 0 && len(fw.base.strs) == 0 && len(fw.own.colls) == 0 && len(fw.own.strs) == 0
}

// redaction is the printer hook of the firewall.
func (fw *firewall) redaction() *lisp.Redaction {
	return &lisp.Redaction{
		Placeholder: Firewalled,
		Key:         isFirewalledKey,
		Value:       fw.hides,
	}
}

// hides reports whether v prints as <Firewalled>.
func (fw *firewall) hides(v lisp.Value) bool {
	switch x := v.(type) {
	case *lisp.Map, *lisp.Vector, *lisp.Set:
		if _, ok := fw.base.colls[v]; ok {
			return true
		}
		fw.mu.RLock()
		_, ok := fw.own.colls[v]
		fw.mu.RUnlock()
		return ok
	case string:
		if len(x) < minScrub {
			return false
		}
		if _, ok := fw.base.strs[x]; ok {
			return true
		}
		fw.mu.RLock()
		_, ok := fw.own.strs[x]
		fw.mu.RUnlock()
		return ok
	}
	return false
}

// scrub replaces the firewalled strings in text by <Firewalled>.
func (fw *firewall) scrub(text string) string {
	if len(text) < minScrub {
		return text
	}
	fw.mu.Lock()
	if fw.dirty {
		fw.reindex()
	}
	index := fw.index
	fw.mu.Unlock()
	if len(index) == 0 {
		return text
	}
	var sb strings.Builder
	last := 0
	for i := 0; i+minScrub <= len(text); {
		hit := ""
		for _, s := range index[key8(text[i:])] {
			if strings.HasPrefix(text[i:], s) {
				hit = s // candidates are sorted longest first
				break
			}
		}
		if hit == "" {
			i++
			continue
		}
		sb.WriteString(text[last:i])
		sb.WriteString(Firewalled)
		i += len(hit)
		last = i
	}
	if last == 0 {
		return text
	}
	sb.WriteString(text[last:])
	return sb.String()
}

func (fw *firewall) scrubLines(lines []string) []string {
	if len(lines) == 0 {
		return lines
	}
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = fw.scrub(l)
	}
	return out
}

// reindex rebuilds the prefix index of the strings (fw.mu held).
func (fw *firewall) reindex() {
	fw.index = make(map[uint64][]string, len(fw.base.strs)+len(fw.own.strs))
	for _, strs := range []map[string]struct{}{fw.base.strs, fw.own.strs} {
		for s := range strs {
			k := key8(s)
			fw.index[k] = append(fw.index[k], s)
		}
	}
	for k, list := range fw.index {
		if len(list) > 1 {
			sortLongestFirst(list)
			fw.index[k] = list
		}
	}
	fw.dirty = false
}

// key8 packs the first 8 bytes of s (len(s) >= 8).
func key8(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

func sortLongestFirst(list []string) {
	for i := 1; i < len(list); i++ {
		for j := i; j > 0 && (len(list[j]) > len(list[j-1]) || (len(list[j]) == len(list[j-1]) && list[j] < list[j-1])); j-- {
			list[j], list[j-1] = list[j-1], list[j]
		}
	}
}
