package agent

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

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
//   - text (values once printed, output, error messages, the memory report,
//     the mission prompt) is scrubbed: every run of bytes that contains a
//     fragment of minScrub bytes or more of a firewalled text is replaced by
//     <Firewalled>. The firewalled texts are the firewalled strings and the
//     printed forms of firewalled numbers and keywords, each also in its
//     escaped forms (as PTC-Lisp, Go and JSON print strings), so that
//     copies a program made with str, subs or format, and the echoes that
//     error messages cut and escape, are caught wherever they are cut.
//
// What a program computes from firewalled data (a count, a sum, a hash, a
// transformation) is its own value and is not hidden, nor are fragments
// shorter than minScrub bytes.
type firewall struct {
	base *fwSet // the context's: shared, read-only (see Agent.contextFirewall)
	// up is the firewall of the mission that called this one as a tool:
	// what a caller hides, the LLMs of the agents it calls must not see
	// either (a program can pass ctx/_secret to a child as an argument).
	up  *firewall
	mu  sync.RWMutex
	own fwSet // tool results, memory and values of this mission
	// ownIndex indexes own's texts; rebuilt when own gains texts.
	ownIndex *textIndex
	dirty    bool
}

// fwSet is a set of firewalled collections and texts.
type fwSet struct {
	colls map[any]struct{} // *lisp.Vector, *lisp.Map, *lisp.Set
	// strs are the firewalled strings of minScrub bytes or more, hidden
	// whole when printed and scrubbed from text.
	strs map[string]struct{}
	// texts are the printed forms of firewalled scalars (numbers,
	// keywords) of minScrub bytes or more, scrubbed from text.
	texts map[string]struct{}
	// Collections walked unfirewalled.
	seenMaps map[*lisp.Map]struct{}
	seenVecs map[*lisp.Vector]struct{}
	seenSets map[*lisp.Set]struct{}
	// index is the scrubbing index of a context's set, built once.
	index *textIndex
}

func newFirewall(a *Agent, ctx *lisp.Map, up *firewall) *firewall {
	return &firewall{base: a.contextFirewall(ctx), up: up, dirty: true}
}

// absorb adds what a child mission's firewall hides to fw: the child's
// result comes back to this mission, and its LLM must not see what the
// child's (and its own children's) tools and context firewalled, wherever
// the child's program copied it.
func (fw *firewall) absorb(child *firewall) {
	if child == nil {
		return
	}
	child.mu.RLock()
	sets := []*fwSet{child.base, &child.own}
	fw.mu.Lock()
	n := len(fw.own.strs) + len(fw.own.texts)
	for _, set := range sets {
		for c := range set.colls {
			if fw.own.colls == nil {
				fw.own.colls = map[any]struct{}{}
			}
			fw.own.colls[c] = struct{}{}
		}
		for t := range set.strs {
			if fw.own.strs == nil {
				fw.own.strs = map[string]struct{}{}
			}
			fw.own.strs[t] = struct{}{}
		}
		for t := range set.texts {
			if fw.own.texts == nil {
				fw.own.texts = map[string]struct{}{}
			}
			fw.own.texts[t] = struct{}{}
		}
	}
	if len(fw.own.strs)+len(fw.own.texts) != n {
		fw.dirty = true
	}
	fw.mu.Unlock()
	child.mu.RUnlock()
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
	set.index = newTextIndex(maxWindows, set.strs, set.texts)
	a.fwMu.Lock()
	if a.fwCache == nil || len(a.fwCache) >= 16 {
		a.fwCache = map[*lisp.Map]*fwSet{}
	}
	a.fwCache[ctx] = set
	a.fwMu.Unlock()
	return set
}

// markCopies firewalls the collections of cp that are copies of firewalled
// collections of orig: coercing arguments to a signature and rounding
// floats copy the collections they change, and a copy must stay hidden as
// its original was. The two values have the same shape; identical parts
// are skipped, and each copied collection is visited once.
func (fw *firewall) markCopies(orig, cp lisp.Value) {
	if fw == nil || fw.empty() {
		return
	}
	seen := map[any]struct{}{}
	var walk func(o, c lisp.Value, depth int)
	walk = func(o, c lisp.Value, depth int) {
		switch c.(type) {
		case *lisp.Map, *lisp.Vector, *lisp.Set:
		default:
			return
		}
		if depth > 10000 || sameCollection(o, c) {
			return
		}
		if _, ok := seen[c]; ok {
			return
		}
		seen[c] = struct{}{}
		if fw.hides(o) {
			fw.mu.Lock()
			if fw.own.colls == nil {
				fw.own.colls = map[any]struct{}{}
			}
			fw.own.colls[c] = struct{}{}
			fw.mu.Unlock()
			// and on: its parts are firewalled too, copies included
		}
		switch cx := c.(type) {
		case *lisp.Map:
			om, ok := o.(*lisp.Map)
			if !ok {
				return
			}
			for i, n := 0, cx.Len(); i < n; i++ {
				k, e := cx.EntryAt(i)
				if oe, ok := om.Lookup(k); ok {
					walk(oe, e, depth+1)
				}
			}
		case *lisp.Vector:
			ov, ok := o.(*lisp.Vector)
			if !ok || ov.Len() != cx.Len() {
				return
			}
			items, oitems := cx.Items(), ov.Items()
			for i := range items {
				walk(oitems[i], items[i], depth+1)
			}
		}
	}
	walk(orig, cp, 0)
}

// sameCollection reports whether a and b are the same collection object.
func sameCollection(a, b lisp.Value) bool {
	switch x := a.(type) {
	case *lisp.Map:
		y, ok := b.(*lisp.Map)
		return ok && x == y
	case *lisp.Vector:
		y, ok := b.(*lisp.Vector)
		return ok && x == y
	case *lisp.Set:
		y, ok := b.(*lisp.Set)
		return ok && x == y
	}
	return false
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
	case *lisp.Map, *lisp.Vector, *lisp.Set:
	default:
		if !under {
			return // a scalar is firewalled only under a "_" name or key
		}
	}
	fw.mu.Lock()
	defer fw.mu.Unlock()
	n := len(fw.own.strs) + len(fw.own.texts)
	fw.own.walk(v, under, 0)
	if len(fw.own.strs)+len(fw.own.texts) != n {
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
		if under {
			set.addScalar(x)
		}
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
	} else if walkOnce(v) && set.visited(v) {
		// Shared structure could make the walk exponential: see walkOnce.
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

// addScalar records the printed forms of a firewalled number or keyword:
// a program can copy them into text as it can copy strings.
func (set *fwSet) addScalar(v lisp.Value) {
	var forms []string
	switch x := v.(type) {
	case int64, float64:
		forms = []string{lisp.PrintString(x)}
	case lisp.Keyword:
		forms = []string{string(x), lisp.PrintString(x)}
	}
	for _, f := range forms {
		if len(f) >= minScrub {
			if set.texts == nil {
				set.texts = map[string]struct{}{}
			}
			set.texts[f] = struct{}{}
		}
	}
}

// walkOnce reports whether a walk should visit the collection v once only,
// however often it occurs in a value: when it holds collections (shared
// structure could make a walk of every path exponential) or is large
// (walking it again for each reference could be quadratic). Small
// collections of scalars, the rows of a table, are cheap to walk again and
// not worth recording.
func walkOnce(v lisp.Value) bool {
	switch x := v.(type) {
	case *lisp.Vector:
		if x.Len() > smallCollection {
			return true
		}
	case *lisp.Map:
		if x.Len() > smallCollection {
			return true
		}
	case *lisp.Set:
		if x.Len() > smallCollection {
			return true
		}
	}
	return hasCollections(v)
}

const smallCollection = 64

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
	for ; fw != nil; fw = fw.up {
		fw.mu.RLock()
		empty := len(fw.base.colls) == 0 && len(fw.base.strs) == 0 && len(fw.base.texts) == 0 &&
			len(fw.own.colls) == 0 && len(fw.own.strs) == 0 && len(fw.own.texts) == 0
		fw.mu.RUnlock()
		if !empty {
			return false
		}
	}
	return true
}

// ownEmpty reports whether the mission itself firewalls nothing (its
// callers aside).
func (fw *firewall) ownEmpty() bool {
	fw.mu.RLock()
	defer fw.mu.RUnlock()
	return len(fw.base.colls) == 0 && len(fw.base.strs) == 0 && len(fw.base.texts) == 0 &&
		len(fw.own.colls) == 0 && len(fw.own.strs) == 0 && len(fw.own.texts) == 0
}

// redaction is the printer hook of the firewall.
func (fw *firewall) redaction() *lisp.Redaction {
	return &lisp.Redaction{
		Placeholder: Firewalled,
		Key:         isFirewalledKey,
		Value:       fw.hides,
	}
}

// hides reports whether v prints as <Firewalled>: this mission or one of
// its callers firewalls it.
func (fw *firewall) hides(v lisp.Value) bool {
	for ; fw != nil; fw = fw.up {
		if fw.hidesOwn(v) {
			return true
		}
	}
	return false
}

func (fw *firewall) hidesOwn(v lisp.Value) bool {
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

// scrub replaces every run of text that holds a fragment of minScrub bytes
// or more of a firewalled text by <Firewalled>.
func (fw *firewall) scrub(text string) string {
	if len(text) < minScrub {
		return text
	}
	return scrubText(text, fw.indexes()...)
}

// indexes returns the scrubbing indexes of the mission and of its callers.
func (fw *firewall) indexes() []*textIndex {
	var indexes []*textIndex
	for ; fw != nil; fw = fw.up {
		indexes = append(indexes, fw.base.index, fw.ownIndexNow())
	}
	return indexes
}

// ownIndexNow returns the index of the mission's own firewalled texts,
// rebuilt when they changed.
func (fw *firewall) ownIndexNow() *textIndex {
	fw.mu.Lock()
	defer fw.mu.Unlock()
	if fw.dirty {
		budget := maxWindows - fw.base.index.windowCount()
		fw.ownIndex = newTextIndex(budget, fw.own.strs, fw.own.texts)
		fw.dirty = false
	}
	return fw.ownIndex
}

// maxWindows bounds the fragments a mission's firewall indexes (8 bytes
// each): 1M windows, 8 MiB, cover firewalled text of about 1 MB (an agent
// caches the index of a few recent contexts). Beyond, whole firewalled
// texts are still scrubbed, and their fragments are not.
const maxWindows = 1 << 20

// textIndex finds firewalled texts, and their fragments, in text.
type textIndex struct {
	// windows holds every minScrub-byte window of the texts (and of their
	// escaped forms), packed into a uint64 and sorted.
	windows []uint64
	// whole holds the texts by their first minScrub bytes, longest first,
	// for the texts whose windows did not fit the budget.
	whole map[uint64][]string
}

// newTextIndex indexes the texts of the sets, with at most budget windows.
func newTextIndex(budget int, sets ...map[string]struct{}) *textIndex {
	idx := &textIndex{}
	for _, set := range sets {
		for t := range set {
			for _, form := range textForms(t) {
				if n := len(form) - minScrub + 1; len(idx.windows)+n <= budget {
					for i := 0; i < n; i++ {
						idx.windows = append(idx.windows, key8(form[i:]))
					}
					continue
				}
				if idx.whole == nil {
					idx.whole = map[uint64][]string{}
				}
				k := key8(form)
				idx.whole[k] = append(idx.whole[k], form)
			}
		}
	}
	slices.Sort(idx.windows)
	idx.windows = slices.Compact(idx.windows)
	for k, list := range idx.whole {
		sortLongestFirst(list)
		idx.whole[k] = list
	}
	return idx
}

func (idx *textIndex) windowCount() int {
	if idx == nil {
		return 0
	}
	return len(idx.windows)
}

func (idx *textIndex) empty() bool {
	return idx == nil || (len(idx.windows) == 0 && len(idx.whole) == 0)
}

// match returns how many bytes from the start of s (len(s) >= minScrub)
// are firewalled text: minScrub for a window, the length of a whole text,
// 0 for none.
func (idx *textIndex) match(s string, k uint64) int {
	if idx.empty() {
		return 0
	}
	n := 0
	if _, ok := slices.BinarySearch(idx.windows, k); ok {
		n = minScrub
	}
	for _, t := range idx.whole[k] {
		if len(t) > n && strings.HasPrefix(s, t) {
			n = len(t)
			break // longest first
		}
	}
	return n
}

// textForms returns t and its escaped forms: as PTC-Lisp prints it in a
// string literal, as Go's %q does and as JSON does, once or twice over (a
// string that holds a printed secret, (str [s]), is escaped again when it
// is shown).
func textForms(t string) []string {
	escapers := []func(string) string{
		func(s string) string { return unquote(lisp.PrintString(s)) },
		func(s string) string { return unquote(strconv.Quote(s)) },
		func(s string) string { b, _ := json.Marshal(s); return unquote(string(b)) },
	}
	forms := []string{t}
	for _, e1 := range escapers {
		once := e1(t)
		if once == t {
			continue // nothing to escape: neither at the second level
		}
		for _, f := range append([]string{once}, escapers[0](once), escapers[1](once), escapers[2](once)) {
			if !slices.Contains(forms, f) {
				forms = append(forms, f)
			}
		}
	}
	return forms
}

func unquote(quoted string) string {
	if len(quoted) >= 2 {
		return quoted[1 : len(quoted)-1]
	}
	return quoted
}

// scrubText replaces the firewalled runs of text found by the indexes
// (see eachRun) by <Firewalled>.
func scrubText(text string, indexes ...*textIndex) string {
	var sb strings.Builder
	done := 0 // text[:done] is written or replaced
	eachRun(text, indexes, func(start, end int) {
		sb.WriteString(text[done:start])
		sb.WriteString(Firewalled)
		done = end
	})
	if done == 0 && sb.Len() == 0 {
		return text
	}
	sb.WriteString(text[done:])
	return sb.String()
}

// eachRun calls f with each run of text that holds a fragment of a
// firewalled text found by the indexes, in order: overlapping and adjacent
// matches form one run, text[start:end], widened to character boundaries.
func eachRun(text string, indexes []*textIndex, f func(start, end int)) {
	live := false
	for _, idx := range indexes {
		live = live || !idx.empty()
	}
	if !live || len(text) < minScrub {
		return
	}
	// runeEnd moves an offset forward to a character boundary.
	runeEnd := func(e int) int {
		for e < len(text) && !utf8.RuneStart(text[e]) {
			e++
		}
		return e
	}
	prev := 0    // the end of the previous run
	start := 0   // the start of the current run
	runEnd := -1 // the end of the current run; -1: none yet
	for i := 0; i+minScrub <= len(text); i++ {
		k := key8(text[i:])
		n := 0
		for _, idx := range indexes {
			n = max(n, idx.match(text[i:], k))
		}
		if n == 0 {
			continue
		}
		if runEnd >= 0 && i <= runeEnd(runEnd) {
			runEnd = max(runEnd, i+n)
			continue
		}
		if runEnd >= 0 {
			prev = runeEnd(runEnd)
			f(start, prev)
		}
		start = i
		for start > prev && !utf8.RuneStart(text[start]) {
			start--
		}
		runEnd = i + n
	}
	if runEnd >= 0 {
		f(start, runeEnd(runEnd))
	}
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
