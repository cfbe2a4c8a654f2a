package firewall

import (
	"encoding/json"
	"fmt"
	"math/big"
	"slices"
	"strconv"

	"github.com/ptc-go/ptc/lisp"
)

// A Step's firewall hides some of its value by identity (a collection
// copied out of a tool's "_" field, under a public key) and some by
// content (firewalled texts, scrubbed wherever they are copied). A Step
// moved between processes (a raw trace, an engine's journal: Hooks) loses
// the identities; its firewall travels as firewallJSON, the hidden
// collections named by their place in the value.

// Format names the version of the JSON form.
const Format = "ptc-firewall/1"

// firewallJSON is a moved firewall: the firewalled texts, and the
// paths of the value's firewalled collections. A path's steps are "#i" (a
// vector's item i), "k" and a map key's printed form, "s" and a set
// member's printed form, or "@" (what a cell holds); the empty path is the
// value itself. Members are the paths of elements hidden by their place
// (what a program computed from firewalled values: Derive), each ending
// with the element's step.
type firewallJSON struct {
	Format  string     `json:"format"`
	Strings []string   `json:"strings,omitempty"`
	Texts   []string   `json:"texts,omitempty"`
	Hidden  [][]string `json:"hidden,omitempty"`
	Members [][]string `json:"members,omitempty"`
	// Scalars are the exact printed forms of the scalars hidden by value
	// (HideScalar).
	Scalars []string `json:"scalars,omitempty"`
}

// maxExportVisits bounds the walk of a value for its firewalled
// collections: past it, the whole value is taken for hidden (a value that
// large, or that shared, is shown to no LLM whole anyway).
const maxExportVisits = 1 << 20

// maxReadDepth is the nesting lisp.Read reads by default (10,000, the doc of
// lisp.ReadOptions.MaxDepth).
const maxReadDepth = 10_000

// MarshalVeil writes what the firewalls of v and their callers hide of a
// Step whose value is ret: all their texts, and the places of the
// collections of ret they hide (nil when v has no firewall). A raw trace
// carries it (trace.Marshal), so that the Step read back hides what the
// original hides. The other values of the Step (its turns' values, its
// tool calls' arguments) have no places in it: the scalars they hide by
// place or in a hidden collection are hidden by value once read back.
func MarshalVeil(v Veil, ret lisp.Value, others ...lisp.Value) []byte {
	if len(v) == 0 {
		return nil
	}
	strs, texts, scalars := map[string]struct{}{}, map[string]struct{}{}, map[string]struct{}{}
	seen := map[*Firewall]bool{}
	for _, fw := range v {
		for f := fw; f != nil && !seen[f]; f = f.up {
			seen[f] = true
			f.texts(strs, texts)
			f.scalarTexts(scalars)
		}
	}
	budget := maxExportVisits
	for _, o := range others {
		hiddenScalars(v.Hides, v.memberHook(), o, &budget, func(x lisp.Value) {
			scalars[lisp.Print(x, lisp.PrintOptions{Exact: true})] = struct{}{}
		})
	}
	return encodeFirewall(strs, texts, scalars, hiddenPaths(v.Hides, v.memberHook(), ret))
}

// HiddenScalars calls visit with each scalar of v that fw hides by its
// place or inside a collection it hides, in bounded work (past it, the
// rest of v is not walked).
func (fw *Firewall) HiddenScalars(v lisp.Value, visit func(lisp.Value)) {
	budget := maxExportVisits
	hiddenScalars(fw.Hides, fw.memberHook(), v, &budget, visit)
}

// hiddenScalars is HiddenScalars over the hooks of a firewall or a veil;
// budget counts the values visited.
func hiddenScalars(hides func(lisp.Value) bool, member func(coll, key lisp.Value) bool, v lisp.Value, budget *int, visit func(lisp.Value)) {
	seen := map[any]bool{}
	var walk func(x lisp.Value, hidden bool, depth int)
	walk = func(x lisp.Value, hidden bool, depth int) {
		*budget--
		if *budget < 0 || depth > maxReadDepth {
			return
		}
		if !isCollection(x) {
			if hidden && hideableScalar(x) {
				visit(x)
			}
			return
		}
		hidden = hidden || hides(x)
		key := [2]any{x, hidden}
		if seen[key] {
			return // shared structure is walked once
		}
		seen[key] = true
		switch c := x.(type) {
		case *lisp.Map:
			for i, n := 0, c.Len(); i < n; i++ {
				k, e := c.EntryAt(i)
				if hidden {
					walk(k, true, depth+1) // a hidden map's keys too
				}
				// Under a "_" key, a value is hidden by its key wherever it
				// is read back: not by its value.
				if !hidden && HiddenKey(k) {
					continue
				}
				walk(e, hidden || member != nil && member(c, k), depth+1)
			}
		case *lisp.Vector:
			for i, e := range c.Items() {
				walk(e, hidden || member != nil && member(c, int64(i)), depth+1)
			}
		case *lisp.Set:
			for e := range c.All() {
				walk(e, hidden, depth+1)
			}
		case *lisp.Cell:
			walk(c.Deref(), hidden, depth+1)
		}
	}
	walk(v, false, 0)
}

// scalarTexts adds the exact printed forms of the scalars fw hides by
// value (not its callers') to out.
func (fw *Firewall) scalarTexts(out map[string]struct{}) {
	fw.mu.RLock()
	defer fw.mu.RUnlock()
	for x := range fw.own.scalars {
		out[lisp.Print(x, lisp.PrintOptions{Exact: true})] = struct{}{}
	}
}

// texts adds the firewall's own firewalled strings and texts (not its
// callers') to strs and texts.
func (fw *Firewall) texts(strs, texts map[string]struct{}) {
	fw.mu.RLock()
	defer fw.mu.RUnlock()
	for _, set := range []*Set{fw.base, &fw.own} {
		for t := range set.strs {
			strs[t] = struct{}{}
		}
		for t := range set.texts {
			texts[t] = struct{}{}
		}
	}
}

func encodeFirewall(strs, texts, scalars map[string]struct{}, hidden places) []byte {
	data, err := json.Marshal(firewallJSON{Format: Format, Strings: sortedKeys(strs), Texts: sortedKeys(texts),
		Hidden: hidden.colls, Members: hidden.members, Scalars: sortedKeys(scalars)})
	if err != nil { // strings and slices of strings always marshal
		panic(err)
	}
	return data
}

// Marshal writes what fw hides of v. Without chain, fw's own
// firewalled texts (what a child brings back to its caller, as Absorb
// takes them); with chain, what fw and its callers hide of the texts of v
// (what a mission sends a child as arguments): its strings they hide
// whole, and the runs of its texts they scrub, found with their indexes
// (work in the size of v, not of the firewall).
func Marshal(fw *Firewall, v lisp.Value, chain bool) []byte {
	strs, texts, scalars := map[string]struct{}{}, map[string]struct{}{}, map[string]struct{}{}
	var hidden places
	if fw != nil {
		for f := fw; f != nil; f = f.up {
			f.scalarTexts(scalars)
			if !chain {
				break
			}
		}
		if chain {
			indexes := fw.indexes()
			eachText(v, func(t string, isString bool) {
				if isString && fw.Hides(t) {
					strs[t] = struct{}{}
					return
				}
				for _, run := range firewalledRuns(t, indexes) {
					texts[run] = struct{}{}
				}
			})
		} else {
			fw.texts(strs, texts)
		}
		if !fw.Empty() {
			hidden = hiddenPaths(fw.Hides, fw.memberHook(), v)
		}
	}
	return encodeFirewall(strs, texts, scalars, hidden)
}

func sortedKeys(set map[string]struct{}) []string {
	if len(set) == 0 {
		return nil
	}
	out := make([]string, 0, len(set))
	for t := range set {
		out = append(out, t)
	}
	slices.Sort(out)
	return out
}

// places are the paths of a value's hidden collections and elements.
type places struct {
	colls, members [][]string
}

// hiddenPaths returns the paths of v's collections that hides reports (not
// those inside them, hidden with them; not those under "_" keys, hidden by
// their key), and of the elements member (nil for none) reports.
func hiddenPaths(hides func(lisp.Value) bool, member func(coll, key lisp.Value) bool, v lisp.Value) places {
	var paths, members [][]string
	visits := 0
	inCells := map[*lisp.Cell]bool{} // the cells around x: a cell may hold itself
	var walk func(x lisp.Value, path []string) bool
	walk = func(x lisp.Value, path []string) bool {
		switch x.(type) {
		case *lisp.Map, *lisp.Vector, *lisp.Set, *lisp.Cell:
		default:
			return true
		}
		visits++
		if visits > maxExportVisits || len(path) > maxReadDepth {
			return false
		}
		if hides(x) {
			// The paths' steps are bounded too: hidden collections deep
			// down a long spine would make them quadratic.
			visits += len(path)
			paths = append(paths, slices.Clone(path))
			return visits <= maxExportVisits
		}
		switch c := x.(type) {
		case *lisp.Map:
			for i, n := 0, c.Len(); i < n; i++ {
				k, e := c.EntryAt(i)
				if HiddenKey(k) {
					continue
				}
				if isCollection(k) && hides(k) {
					// A hidden key: the map is shown with it hidden, and
					// hidden whole once moved.
					visits += len(path)
					paths = append(paths, slices.Clone(path))
					return visits <= maxExportVisits
				}
				step := "k" + lisp.Print(k, lisp.PrintOptions{Exact: true})
				if member != nil && member(c, k) {
					visits += len(path)
					members = append(members, append(slices.Clone(path), step))
					continue
				}
				if !walk(e, append(path, step)) {
					return false
				}
			}
		case *lisp.Vector:
			for i, e := range c.Items() {
				step := "#" + strconv.Itoa(i)
				if member != nil && member(c, int64(i)) {
					visits += len(path)
					members = append(members, append(slices.Clone(path), step))
					continue
				}
				if !walk(e, append(path, step)) {
					return false
				}
			}
		case *lisp.Set:
			for e := range c.All() {
				if !walk(e, append(path, "s"+lisp.Print(e, lisp.PrintOptions{Exact: true}))) {
					return false
				}
			}
		case *lisp.Cell:
			if inCells[c] {
				return true // its contents are on the path already
			}
			inCells[c] = true
			ok := walk(c.Deref(), append(path, "@"))
			delete(inCells, c)
			return ok
		}
		return true
	}
	if !walk(v, nil) {
		return places{colls: [][]string{{}}} // too large to walk: hidden whole
	}
	return places{colls: paths, members: members}
}

// Unmarshal reads Marshal's (or MarshalVeil's) data as a firewall over
// v. A place v no longer has hides the innermost collection on the way
// to it: a moved firewall errs on the side of hiding.
func Unmarshal(data []byte, v lisp.Value) (*Firewall, error) {
	fw := New(nil, nil)
	if len(data) == 0 {
		return fw, nil
	}
	var in firewallJSON
	if err := json.Unmarshal(data, &in); err != nil {
		return nil, fmt.Errorf("the firewall: %w", err)
	}
	if in.Format != Format {
		return nil, fmt.Errorf("the firewall: format %q, want %q", in.Format, Format)
	}
	for _, t := range in.Strings {
		if fw.own.strs == nil {
			fw.own.strs = map[string]struct{}{}
		}
		fw.own.strs[t] = struct{}{}
	}
	for _, t := range in.Texts {
		if fw.own.texts == nil {
			fw.own.texts = map[string]struct{}{}
		}
		fw.own.texts[t] = struct{}{}
	}
	for _, p := range in.Hidden {
		if x := follow(v, p); x != nil {
			fw.own.walk(x, true, 0)
		}
	}
	for _, p := range in.Members {
		fw.hideMemberAt(v, p)
	}
	for _, t := range in.Scalars {
		if x, err := lisp.Read(t, lisp.ReadOptions{}); err == nil && hideableScalar(x) {
			fw.own.addScalarWhole(x)
			fw.hasScalars.Store(true)
		}
	}
	fw.own.seenMaps, fw.own.seenVecs, fw.own.seenSets, fw.own.seenCells = nil, nil, nil, nil
	return fw, nil
}

// follow returns the collection at path in v, or the innermost collection
// on the way when v no longer has the whole path (nil when v is not a
// collection).
func follow(v lisp.Value, path []string) lisp.Value {
	x, _ := followPath(v, path)
	return x
}

// followPath is follow, and reports whether v has the whole path.
func followPath(v lisp.Value, path []string) (lisp.Value, bool) {
	var last lisp.Value
	for _, step := range path {
		if !isCollection(v) {
			return last, false
		}
		last = v
		next, ok := lisp.Value(nil), false
		switch c := v.(type) {
		case *lisp.Vector:
			if len(step) > 1 && step[0] == '#' {
				if i, err := strconv.Atoi(step[1:]); err == nil && i >= 0 && i < c.Len() {
					next, ok = c.Items()[i], true
				}
			}
		case *lisp.Map:
			if len(step) > 1 && step[0] == 'k' {
				if k, err := lisp.Read(step[1:], lisp.ReadOptions{Placeholder: Placeholder, MaxDepth: maxReadDepth}); err == nil {
					next, ok = c.Get(k)
				}
			}
		case *lisp.Set:
			if len(step) > 1 && step[0] == 's' {
				for e := range c.All() {
					if lisp.Print(e, lisp.PrintOptions{Exact: true}) == step[1:] {
						next, ok = e, true
						break
					}
				}
			}
		case *lisp.Cell:
			if step == "@" {
				next, ok = c.Deref(), true
			}
		}
		if !ok {
			return last, false
		}
		v = next
	}
	if !isCollection(v) {
		return last, false
	}
	return v, true
}

// eachText calls f with the texts of v: its strings (isString), keywords
// and numbers as they print, keys included (bounded as hiddenPaths is).
func eachText(v lisp.Value, f func(t string, isString bool)) {
	visits := 0
	cells := map[*lisp.Cell]bool{} // each once: a cell may hold itself
	var walk func(x lisp.Value, depth int)
	walk = func(x lisp.Value, depth int) {
		visits++
		if visits > maxExportVisits || depth > maxReadDepth {
			return
		}
		switch c := x.(type) {
		case string:
			if len(c) >= minScrub {
				f(c, true)
			}
		case lisp.Keyword:
			f(string(c), false)
			f(lisp.Print(c, lisp.PrintOptions{}), false)
		case int64, float64:
			f(lisp.Print(c, lisp.PrintOptions{}), false)
		case *big.Int:
			f(c.String(), false)
		case *lisp.Decimal:
			f(c.String(), false)
		case *lisp.Map:
			for i, n := 0, c.Len(); i < n; i++ {
				k, e := c.EntryAt(i)
				walk(k, depth+1)
				walk(e, depth+1)
			}
		case *lisp.Vector:
			for _, e := range c.Items() {
				walk(e, depth+1)
			}
		case *lisp.Set:
			for e := range c.All() {
				walk(e, depth+1)
			}
		case *lisp.Cell:
			if !cells[c] {
				cells[c] = true
				walk(c.Deref(), depth+1)
			}
		}
	}
	walk(v, 0)
}

// firewalledRuns returns the runs of text that scrubText would replace,
// as they are in text.
func firewalledRuns(text string, indexes []*textIndex) []string {
	var runs []string
	eachRun(text, indexes, func(start, end int) { runs = append(runs, text[start:end]) })
	return runs
}

// hideMemberAt hides the element at path in v: by its place when v still
// has the collection that holds it and the element, else the innermost
// collection on the way (whole).
func (fw *Firewall) hideMemberAt(v lisp.Value, path []string) {
	if len(path) == 0 {
		return
	}
	parent, last := path[:len(path)-1], path[len(path)-1]
	coll, whole := followPath(v, parent)
	if coll == nil {
		return
	}
	var key lisp.Value
	found := false
	switch c := coll.(type) {
	case *lisp.Vector:
		if len(last) > 1 && last[0] == '#' {
			if i, err := strconv.Atoi(last[1:]); err == nil && i >= 0 && i < c.Len() {
				key, found = int64(i), true
			}
		}
	case *lisp.Map:
		if len(last) > 1 && last[0] == 'k' {
			if k, err := lisp.Read(last[1:], lisp.ReadOptions{Placeholder: Placeholder, MaxDepth: maxReadDepth}); err == nil {
				if ek, _, ok := c.Entry(k); ok && keyLike(ek) {
					key, found = ek, true
				}
			}
		}
	}
	if !found || !whole {
		fw.own.walk(coll, true, 0)
		return
	}
	if fw.own.members == nil {
		fw.own.members = map[member]struct{}{}
	}
	fw.own.members[member{coll, key}] = struct{}{}
	fw.derived.Store(true)
}
