package firewall

import (
	"math/big"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/ptc-go/ptc/lisp"
)

// Placeholder is what a reader sees in place of a firewalled value.
const Placeholder = "<Firewalled>"

// MinScrub is the length from which firewalled strings are scrubbed from
// text: shorter ones ("ok", "42", a name) would cut ordinary words.
const MinScrub = 8

// minScrub is MinScrub, short for the package's own code.
const minScrub = MinScrub

// Firewall keeps firewalled data out of everything an LLM is sent: see
// the package documentation for what it hides and how. A Firewall is safe
// for concurrent use; its zero value is not usable (New).
type Firewall struct {
	base *Set // the context's: shared, read-only (see NewSet)
	// up is the firewall of the mission that called this one as a tool:
	// what a caller hides, the LLMs of the agents it calls must not see
	// either (a program can pass ctx/_secret to a child as an argument).
	up  *Firewall
	mu  sync.RWMutex
	own Set // tool results, memory and values of this mission
	// ownIndex indexes own's texts; rebuilt when own gains texts.
	ownIndex *textIndex
	dirty    bool
	// derived says own.members is not empty (read without the lock on
	// every element printed).
	derived atomic.Bool
	// hasScalars says own.scalars is not empty (read without the lock on
	// every scalar printed).
	hasScalars atomic.Bool
}

// Set is a set of firewalled collections and texts: the firewalled parts
// of a mission's context (NewSet), shared read-only by the firewalls of
// the missions that run on it.
type Set struct {
	// colls are firewalled collections and cells (*lisp.Vector, *lisp.Map,
	// *lisp.Set, *lisp.Cell): a firewalled cell hides whatever it holds,
	// now and after a program changes it.
	colls map[any]struct{}
	// strs are the firewalled strings of minScrub bytes or more, hidden
	// whole when printed and scrubbed from text.
	strs map[string]struct{}
	// texts are the printed forms of firewalled scalars (numbers,
	// keywords) of minScrub bytes or more, scrubbed from text.
	texts map[string]struct{}
	// members are elements hidden by their place: what a program computed
	// from firewalled values (Derive).
	members map[member]struct{}
	// scalars are scalars hidden wherever they print, by value: a value
	// a program computed whole from firewalled data (HideScalar).
	scalars map[lisp.Value]struct{}
	// labelled says the set saw a value under a "_" key or name, of any
	// size (Labelled).
	labelled bool
	// Collections walked unfirewalled.
	seenMaps map[*lisp.Map]struct{}
	seenVecs map[*lisp.Vector]struct{}
	seenSets map[*lisp.Set]struct{}
	// Cells walked in the current walk (then forgotten: a cell changes).
	seenCells map[cellVisit]struct{}
	// index is the scrubbing index of a context's set, built once.
	index *textIndex
}

// New returns a firewall over a context's set (nil for none) below the
// firewall of the mission that called this one (nil for none).
func New(base *Set, up *Firewall) *Firewall {
	if base == nil {
		base = &Set{}
	}
	return &Firewall{base: base, up: up, dirty: true}
}

// HidingWhole returns a firewall that hides the given strings where they
// are whole values (they print as Placeholder), and scrubs nothing from
// text: what a trace read back hides, where the writer printed the
// placeholder.
func HidingWhole(strs ...string) *Firewall {
	set := &Set{strs: map[string]struct{}{}}
	for _, s := range strs {
		set.strs[s] = struct{}{}
	}
	return &Firewall{base: set}
}

// NewSet returns the firewalled parts of a context: the values under "_"
// keys, and the scrubbing index of their texts. The work is linear in
// the size of ctx (shared structure is walked once); a host caches the
// set of a context it runs many missions on.
func NewSet(ctx lisp.Value) *Set {
	set := &Set{}
	set.walk(ctx, false, 0)
	set.seenMaps, set.seenVecs, set.seenSets, set.seenCells = nil, nil, nil, nil
	set.index = newTextIndex(maxWindows, set.strs, set.texts)
	return set
}

// Absorb adds what a child mission's firewall hides to fw: the child's
// result comes back to this mission, and its LLM must not see what the
// child's (and its own children's) tools and context firewalled, wherever
// the child's program copied it.
func (fw *Firewall) Absorb(child *Firewall) {
	if child == nil {
		return
	}
	child.mu.RLock()
	sets := []*Set{child.base, &child.own}
	fw.mu.Lock()
	n := len(fw.own.strs) + len(fw.own.texts)
	for _, set := range sets {
		fw.own.labelled = fw.own.labelled || set.labelled
		for m := range set.members {
			if fw.own.members == nil {
				fw.own.members = map[member]struct{}{}
			}
			fw.own.members[m] = struct{}{}
			fw.derived.Store(true)
		}
		for c := range set.colls {
			if fw.own.colls == nil {
				fw.own.colls = map[any]struct{}{}
			}
			fw.own.colls[c] = struct{}{}
		}
		for x := range set.scalars {
			fw.own.addScalarWhole(x)
			fw.hasScalars.Store(true)
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

// MarkCopies firewalls the collections of cp that are copies of firewalled
// collections of orig: coercing arguments to a signature and rounding
// floats copy the collections they change, and a copy must stay hidden as
// its original was. The two values have the same shape; identical parts
// are skipped, and each copied collection is visited once.
func (fw *Firewall) MarkCopies(orig, cp lisp.Value) {
	if fw == nil || fw.Empty() {
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
		if fw.Hides(o) {
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
				if oe, ok := om.Get(k); ok {
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

// sameCollection reports whether a and b are the same collection object
// (interfaces holding pointers compare by type and pointer).
func sameCollection(a, b lisp.Value) bool { return isCollection(a) && a == b }

// AddToolResult records the firewalled parts of a tool's result (or of
// any value a mission gets or makes: what sits under its "_" keys).
func (fw *Firewall) AddToolResult(v lisp.Value) { fw.Add(v, false) }

// AddMemory records the values of the "_" vars of ns.
func (fw *Firewall) AddMemory(ns *lisp.Namespace) {
	for _, name := range ns.Names() {
		if strings.HasPrefix(name, "_") {
			v, _ := ns.Get(name)
			fw.Add(v, true)
		}
	}
}

// Add records the firewalled parts of v; under says v itself is
// firewalled (the value of a "_" var).
func (fw *Firewall) Add(v lisp.Value, under bool) {
	switch v.(type) {
	case *lisp.Map, *lisp.Vector, *lisp.Set, *lisp.Exception, *lisp.Cell:
	default:
		if !under {
			return // a scalar is firewalled only under a "_" name or key
		}
	}
	fw.mu.Lock()
	defer fw.mu.Unlock()
	n := len(fw.own.strs) + len(fw.own.texts)
	fw.own.walk(v, under, 0)
	fw.own.seenCells = nil // cells change: walk them again next time
	if len(fw.own.strs)+len(fw.own.texts) != n {
		fw.dirty = true
	}
}

// walk records the firewalled parts of v; under says v is firewalled.
func (set *Set) walk(v lisp.Value, under bool, depth int) {
	if depth > 10000 {
		return
	}
	switch x := v.(type) {
	case string:
		if under {
			set.labelled = true
		}
		if under && len(x) >= minScrub {
			if set.strs == nil {
				set.strs = map[string]struct{}{}
			}
			set.strs[x] = struct{}{}
		}
		return
	case *lisp.Map, *lisp.Vector, *lisp.Set, *lisp.Cell:
	case *lisp.Exception:
		// An exception holds data: its message and ex-data, and its
		// causes'. Under a "_" name all of it is firewalled; otherwise the
		// "_" entries of its data are, as in any map.
		for e, d := x, depth; e != nil && d <= 10000; e, d = e.Cause(), d+1 {
			set.walk(e.Message(), under, d+1)
			if data := e.Data(); data != nil {
				set.walk(data, under, d+1)
			}
		}
		return
	default:
		if under {
			set.labelled = true
			set.addScalar(x)
		}
		return
	}
	if c, ok := v.(*lisp.Cell); ok {
		// A cell changes, so it is walked again by every walk, but once
		// in each (it may hold itself); firewalled, it hides what it
		// will hold too.
		if under {
			set.labelled = true
			if set.colls == nil {
				set.colls = map[any]struct{}{}
			}
			set.colls[v] = struct{}{}
		}
		if seenBefore(&set.seenCells, cellVisit{c, under}) {
			return
		}
	} else if under {
		set.labelled = true
		if set.colls == nil {
			set.colls = map[any]struct{}{}
		}
		if _, ok := set.colls[v]; ok {
			return // walked already, as firewalled
		}
		set.colls[v] = struct{}{}
	} else if WalkOnce(v) && set.visited(v) {
		// Shared structure could make the walk exponential: see walkOnce.
		return
	}
	switch x := v.(type) {
	case *lisp.Map:
		// Indexing is faster than the iterator for the small maps that
		// rows are (they are one leaf).
		for i, n := 0, x.Len(); i < n; i++ {
			k, e := x.EntryAt(i)
			set.walk(e, under || HiddenKey(k), depth+1)
		}
	case *lisp.Vector:
		for _, e := range x.Items() {
			set.walk(e, under, depth+1)
		}
	case *lisp.Set:
		for e := range x.All() {
			set.walk(e, under, depth+1)
		}
	case *lisp.Cell:
		// What an atom holds: a firewalled value put in one stays hidden,
		// and "_" entries of a map in one are recorded as any map's.
		set.walk(x.Deref(), under, depth+1)
	}
}

// addScalar records the printed forms of a firewalled number or keyword:
// a program can copy them into text as it can copy strings.
func (set *Set) addScalar(v lisp.Value) {
	var forms []string
	switch x := v.(type) {
	case int64, float64:
		forms = []string{lisp.Print(x, lisp.PrintOptions{})}
	case *big.Int:
		forms = []string{x.String()} // pr's form adds an N to it
	case *lisp.Decimal:
		forms = []string{x.String()} // pr's form adds an M to it
	case lisp.Keyword:
		forms = []string{string(x), lisp.Print(x, lisp.PrintOptions{})}
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

// WalkOnce reports whether a walk should visit the collection v once only,
// however often it occurs in a value: when it holds collections (shared
// structure could make a walk of every path exponential) or is large
// (walking it again for each reference could be quadratic), and always for
// a cell (an atom can hold itself: a walk of every path would not end).
// Small collections of scalars, the rows of a table, are cheap to walk
// again and not worth recording.
func WalkOnce(v lisp.Value) bool {
	switch x := v.(type) {
	case *lisp.Cell:
		return true
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
func (set *Set) visited(v lisp.Value) bool {
	switch x := v.(type) {
	case *lisp.Map:
		return seenBefore(&set.seenMaps, x)
	case *lisp.Vector:
		return seenBefore(&set.seenVecs, x)
	case *lisp.Set:
		return seenBefore(&set.seenSets, x)
	}
	return false
}

// cellVisit is a cell met in a walk, firewalled (under) or not.
type cellVisit struct {
	c     *lisp.Cell
	under bool
}

// seenBefore adds k to *seen and reports whether it was there already.
func seenBefore[K comparable](seen *map[K]struct{}, k K) bool {
	if _, ok := (*seen)[k]; ok {
		return true
	}
	if *seen == nil {
		*seen = map[K]struct{}{}
	}
	(*seen)[k] = struct{}{}
	return false
}

// HiddenKey reports whether a map key names a firewalled field: a
// keyword or string that starts with "_".
func HiddenKey(k lisp.Value) bool {
	switch k := k.(type) {
	case lisp.Keyword:
		return strings.HasPrefix(string(k), "_")
	case string:
		return strings.HasPrefix(k, "_")
	case lisp.Symbol: // a key a program makes, {'_email v}: JSON writes it "_email"
		return strings.HasPrefix(k.String(), "_")
	}
	return false
}

// Empty reports whether nothing is firewalled, by fw or its callers (so
// nothing needs hiding but "_" map entries).
func (fw *Firewall) Empty() bool {
	for ; fw != nil; fw = fw.up {
		fw.mu.RLock()
		empty := len(fw.base.colls) == 0 && len(fw.base.strs) == 0 && len(fw.base.texts) == 0 &&
			len(fw.own.colls) == 0 && len(fw.own.strs) == 0 && len(fw.own.texts) == 0 && len(fw.own.members) == 0 && len(fw.own.scalars) == 0
		fw.mu.RUnlock()
		if !empty {
			return false
		}
	}
	return true
}

// OwnEmpty reports whether the mission itself firewalls nothing (its
// callers aside).
func (fw *Firewall) OwnEmpty() bool {
	fw.mu.RLock()
	defer fw.mu.RUnlock()
	return len(fw.base.colls) == 0 && len(fw.base.strs) == 0 && len(fw.base.texts) == 0 &&
		len(fw.own.colls) == 0 && len(fw.own.strs) == 0 && len(fw.own.texts) == 0 && len(fw.own.members) == 0 && len(fw.own.scalars) == 0
}

// Redaction is the printer hook of the firewall, for LLM-bound values:
// what fw and its callers hide, and the values of "_" entries, print as
// Placeholder.
func (fw *Firewall) Redaction() *lisp.Redaction {
	return &lisp.Redaction{
		Placeholder: Placeholder,
		Key:         HiddenKey,
		Member:      fw.memberHook(),
		Value: func(x lisp.Value) bool {
			// A string that is all firewalled text shows as the
			// placeholder, bare, as in a Veil's Redaction.
			if s, ok := x.(string); ok && len(s) >= minScrub && fw.Scrub(s) == Placeholder {
				return true
			}
			return fw.Hides(x)
		},
	}
}

// memberHook is the Redaction's Member: nil while nothing is hidden by its
// place, so that printing costs nothing more until then.
func (fw *Firewall) memberHook() func(coll, key lisp.Value) bool {
	if !fw.hasMembers() {
		return nil
	}
	return fw.HidesMember
}

// Hides reports whether v prints as Placeholder: this mission or one of
// its callers firewalls it (a collection by identity, a string of
// MinScrub bytes or more by content).
func (fw *Firewall) Hides(v lisp.Value) bool {
	for ; fw != nil; fw = fw.up {
		if fw.hidesOwn(v) {
			return true
		}
	}
	return false
}

func (fw *Firewall) hidesOwn(v lisp.Value) bool {
	switch x := v.(type) {
	case *lisp.Map, *lisp.Vector, *lisp.Set, *lisp.Cell:
		if _, ok := fw.base.colls[v]; ok {
			return true
		}
		fw.mu.RLock()
		_, ok := fw.own.colls[v]
		fw.mu.RUnlock()
		return ok
	case string:
		if len(x) >= minScrub {
			if _, ok := fw.base.strs[x]; ok {
				return true
			}
			fw.mu.RLock()
			_, ok := fw.own.strs[x]
			fw.mu.RUnlock()
			if ok {
				return true
			}
		}
	}
	if !fw.hasScalars.Load() || !hideableScalar(v) {
		return false
	}
	fw.mu.RLock()
	_, ok := fw.own.scalars[v]
	fw.mu.RUnlock()
	return ok
}

// HideScalar hides the scalar v wherever it prints from now on, by value,
// as the placeholder: a value that a program computed whole from
// firewalled data (a mission's return value) has no place to hide it by.
// Strings (characters among them), numbers, keywords, instants and dates
// are hidden; nil and booleans, values of two outcomes, are not (docs/agents.md, "Derived values").
func (fw *Firewall) HideScalar(v lisp.Value) {
	if !hideableScalar(v) {
		return
	}
	fw.mu.Lock()
	fw.own.addScalarWhole(v)
	fw.mu.Unlock()
	fw.hasScalars.Store(true)
}

// hideableScalar reports whether HideScalar hides v.
func hideableScalar(v lisp.Value) bool {
	switch v.(type) {
	case int64, float64, *big.Int, *lisp.Decimal, string, lisp.Keyword, lisp.Instant, lisp.Date:
		return true
	}
	return false
}

// addScalarWhole adds the scalar v to the set's hidden scalars.
func (set *Set) addScalarWhole(v lisp.Value) {
	if set.scalars == nil {
		set.scalars = map[lisp.Value]struct{}{}
	}
	set.scalars[v] = struct{}{}
}

// Scrub replaces every run of text that holds a fragment of MinScrub
// bytes or more of a text that fw or its callers firewall by Placeholder.
func (fw *Firewall) Scrub(text string) string {
	if len(text) < minScrub {
		return text
	}
	return scrubText(text, fw.indexes()...)
}

// indexes returns the scrubbing indexes of the mission and of its callers.
func (fw *Firewall) indexes() []*textIndex {
	var indexes []*textIndex
	for ; fw != nil; fw = fw.up {
		indexes = append(indexes, fw.base.index, fw.ownIndexNow())
	}
	return indexes
}

// ownIndexNow returns the index of the mission's own firewalled texts,
// rebuilt when they changed.
func (fw *Firewall) ownIndexNow() *textIndex {
	fw.mu.Lock()
	defer fw.mu.Unlock()
	if fw.dirty {
		budget := maxWindows - fw.base.index.windowCount()
		fw.ownIndex = newTextIndex(budget, fw.own.strs, fw.own.texts)
		fw.dirty = false
	}
	return fw.ownIndex
}

// isCollection reports whether v is a collection, or a cell (an atom, a
// volatile, a transient), which holds values as a collection does.
func isCollection(v lisp.Value) bool {
	switch v.(type) {
	case *lisp.Vector, *lisp.Map, *lisp.Set, *lisp.Cell:
		return true
	}
	return false
}
