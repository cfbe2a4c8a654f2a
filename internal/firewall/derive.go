package firewall

import (
	"math/big"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ptc-go/ptc/lisp"
)

// member names one element of one collection: the value under a map's key
// or at a vector's index (an int64).
type member struct {
	coll any
	key  any
}

// maxDeriveVisits bounds the work of one Derive: beyond it, what is left
// to compare is hidden whole (fail closed).
const maxDeriveVisits = 4 << 20

// Derive hides in fw the parts of the real run's value r that differ from
// the shadow run's value s (see Surrogate): an element of a collection by
// its place (the collection's identity and the key or index), a
// collection whose shape differs whole. It reports whether r itself is a
// scalar that differs: the caller hides it where it shows it. The work is
// linear in the size of the values (shared structure is compared once)
// and bounded.
func (fw *Firewall) Derive(r, s lisp.Value) (differs bool) {
	d := &deriver{fw: fw, budget: maxDeriveVisits}
	differs = d.diff(r, s, 0)
	d.commit()
	return differs
}

type deriver struct {
	fw      *Firewall
	budget  int
	seen    map[[2]any]bool // pairs of collections compared: whether r differs as a scalar would
	members []member
	wholes  []any
	// strs and texts are the differing strings, and the printed forms of
	// the differing numbers and keywords, of MinScrub bytes or more: they
	// are scrubbed wherever they are copied (and travel with a moved
	// firewall, which loses places that a value read back elsewhere no
	// longer has).
	strs, texts []string
}

// diff compares r with s, recording what to hide; it reports whether r is
// a scalar (or an exception) that differs, for its container to hide.
func (d *deriver) diff(r, s lisp.Value, depth int) bool {
	d.budget--
	if same(r, s) {
		return false
	}
	if d.budget < 0 || depth > maxWalk {
		return d.hide(r)
	}
	switch rx := r.(type) {
	case *lisp.Map, *lisp.Vector, *lisp.Set, *lisp.Cell:
		if WalkOnce(r) {
			key := [2]any{r, s}
			if out, ok := d.seen[key]; ok {
				return out
			}
			if d.seen == nil {
				d.seen = map[[2]any]bool{}
			}
			d.seen[key] = false
		}
		return d.coll(rx, s, depth)
	case *lisp.Exception:
		sx, ok := s.(*lisp.Exception)
		if ok && rx.Message() == sx.Message() && lisp.Equal(rx.Data(), sx.Data()) {
			return false
		}
		d.scalar(rx.Message())
		return true
	}
	if lisp.Equal(r, s) && sameType(r, s) {
		return false
	}
	d.scalar(r)
	return true
}

// scalar records the text of a differing scalar of MinScrub bytes or more.
func (d *deriver) scalar(r lisp.Value) {
	switch x := r.(type) {
	case string:
		if len(x) >= minScrub {
			d.strs = append(d.strs, x)
		}
	case int64, float64, lisp.Keyword:
		if t := lisp.Print(x, lisp.PrintOptions{}); len(t) >= minScrub {
			d.texts = append(d.texts, t)
		}
	case *big.Int: // its digits, as str writes them (pr adds an N)
		if t := x.String(); len(t) >= minScrub {
			d.texts = append(d.texts, t)
		}
	case *lisp.Decimal: // as str writes it (pr adds an M)
		if t := x.String(); len(t) >= minScrub {
			d.texts = append(d.texts, t)
		}
	}
}

// coll compares the collection r with s.
func (d *deriver) coll(r, s lisp.Value, depth int) bool {
	switch rx := r.(type) {
	case *lisp.Map:
		sx, ok := s.(*lisp.Map)
		if !ok || sx.Len() != rx.Len() {
			return d.hide(r)
		}
		if rx.Len() > 16 {
			return d.bigMap(rx, sx, depth)
		}
		for i, n := 0, rx.Len(); i < n; i++ {
			k, e := rx.EntryAt(i)
			se, ok := sx.Get(k)
			if !ok {
				return d.hide(r)
			}
			if d.diff(e, se, depth+1) {
				if !keyLike(k) {
					return d.hide(r)
				}
				d.members = append(d.members, member{r, k})
			}
		}
	case *lisp.Vector:
		sx, ok := s.(*lisp.Vector)
		if !ok || sx.Len() != rx.Len() {
			return d.hide(r)
		}
		ritems, sitems := rx.Items(), sx.Items()
		for i := range ritems {
			if d.diff(ritems[i], sitems[i], depth+1) {
				d.members = append(d.members, member{r, int64(i)})
			}
		}
	case *lisp.Set:
		if !lisp.Equal(r, s) {
			return d.hide(r)
		}
	case *lisp.Cell:
		sx, ok := s.(*lisp.Cell)
		if !ok || rx.Kind() != sx.Kind() {
			return d.hide(r)
		}
		// What differs in what the cell holds is hidden by its place, as
		// in any value; a scalar it holds by hiding the cell whole, with
		// whatever it holds later.
		if d.diff(rx.Deref(), sx.Deref(), depth+1) {
			return d.hide(r)
		}
	}
	return false
}

// bigMap compares two large maps of one size by walking both in their
// order (maps keep one order for one set of keys), where looking each key
// up would cost a search per entry.
func (d *deriver) bigMap(rx, sx *lisp.Map, depth int) bool {
	skeys := make([]lisp.Value, 0, sx.Len())
	svals := make([]lisp.Value, 0, sx.Len())
	for k, v := range sx.All() {
		skeys, svals = append(skeys, k), append(svals, v)
	}
	i := 0
	var members []member
	for k, e := range rx.All() {
		if i >= len(skeys) || !same(k, skeys[i]) && !lisp.Equal(k, skeys[i]) {
			return d.hide(rx)
		}
		if d.diff(e, svals[i], depth+1) {
			if !keyLike(k) {
				return d.hide(rx)
			}
			members = append(members, member{rx, k})
		}
		i++
	}
	d.members = append(d.members, members...)
	return false
}

// hide records r to be hidden whole: a collection by identity; a scalar
// is reported to the caller.
func (d *deriver) hide(r lisp.Value) bool {
	if isCollection(r) {
		d.wholes = append(d.wholes, r)
		return false
	}
	return true
}

// sameType reports whether two equal scalars are of one type: 1 and 1.0
// are equal in a comparison but print apart.
func sameType(a, b lisp.Value) bool {
	switch a.(type) {
	case int64:
		_, ok := b.(int64)
		return ok
	case float64:
		_, ok := b.(float64)
		return ok
	case *big.Int:
		_, ok := b.(*big.Int)
		return ok
	case *lisp.Decimal:
		_, ok := b.(*lisp.Decimal)
		return ok
	}
	return true
}

// commit adds what the walk found to the firewall.
func (d *deriver) commit() {
	if len(d.members) == 0 && len(d.wholes) == 0 && len(d.strs) == 0 && len(d.texts) == 0 {
		return
	}
	fw := d.fw
	fw.mu.Lock()
	defer fw.mu.Unlock()
	for _, t := range d.strs {
		if fw.own.strs == nil {
			fw.own.strs = map[string]struct{}{}
		}
		fw.own.strs[t] = struct{}{}
		fw.dirty = true
	}
	for _, t := range d.texts {
		if fw.own.texts == nil {
			fw.own.texts = map[string]struct{}{}
		}
		fw.own.texts[t] = struct{}{}
		fw.dirty = true
	}
	for _, c := range d.wholes {
		if fw.own.colls == nil {
			fw.own.colls = map[any]struct{}{}
		}
		fw.own.colls[c] = struct{}{}
	}
	for _, m := range d.members {
		if fw.own.members == nil {
			fw.own.members = map[member]struct{}{}
		}
		fw.own.members[m] = struct{}{}
	}
	fw.derived.Store(true)
}

// Shadow returns the firewall of a shadow run whose context's firewalled
// parts are base: it hides what fw's callers hide, as fw does, so that
// the shadow run prints as the real one wherever the firewalled values
// themselves are concerned.
func (fw *Firewall) Shadow(base *Set) *Firewall { return New(base, fw.up) }

// HidesMember reports whether fw or one of its callers hides the element
// of coll under key (a map's key, a vector's index as an int64).
func (fw *Firewall) HidesMember(coll, key lisp.Value) bool {
	if !keyLike(key) {
		return false
	}
	m := member{coll, key}
	for ; fw != nil; fw = fw.up {
		if !fw.derived.Load() {
			continue
		}
		fw.mu.RLock()
		_, ok := fw.own.members[m]
		fw.mu.RUnlock()
		if ok {
			return true
		}
	}
	return false
}

// CallerHidesByPlace reports whether the missions that called fw's hide
// elements by their place: what they computed from firewalled data and
// passed down as arguments.
func (fw *Firewall) CallerHidesByPlace() bool { return fw.up.hasMembers() }

// hasMembers reports whether fw or one of its callers hides elements by
// their place.
func (fw *Firewall) hasMembers() bool {
	for ; fw != nil; fw = fw.up {
		if fw.derived.Load() {
			return true
		}
	}
	return false
}

// Labelled reports whether a mission behind fw holds firewalled data: a
// value under a "_" key or name in its context, a tool's result or its
// memory, or one its callers firewall. Only then does a program need a
// shadow run.
func (fw *Firewall) Labelled() bool {
	for ; fw != nil; fw = fw.up {
		fw.mu.RLock()
		l := fw.base.labelled || fw.own.labelled
		fw.mu.RUnlock()
		if l {
			return true
		}
	}
	return false
}

// DeriveText returns the real run's text r with what differs from the
// shadow run's text s hidden: lines are matched (a longest common
// subsequence), a line the shadow run did not print the same is shown
// with its common start and end and Placeholder between, a line it did
// not print at all as Placeholder.
func DeriveText(r, s string) string {
	if r == s {
		return r
	}
	return strings.Join(DeriveLines(strings.Split(r, "\n"), strings.Split(s, "\n")), "\n")
}

// maxLineMatch bounds the table of the line matching; beyond it lines are
// paired in order.
const maxLineMatch = 1 << 20

// DeriveLines is DeriveText for lines of output.
func DeriveLines(r, s []string) []string {
	out := make([]string, len(r))
	pair := matchLines(r, s)
	for i, line := range r {
		j := pair[i]
		switch {
		case j < 0:
			out[i] = wholeLine(line)
		case r[i] == s[j]:
			out[i] = line
		default:
			out[i] = deriveLine(line, s[j])
		}
	}
	return out
}

// wholeLine hides a line the shadow run did not print.
func wholeLine(line string) string {
	if line == "" {
		return ""
	}
	return Placeholder
}

// matchLines pairs each line of r with one of s (-1: none): equal lines
// by a longest common subsequence, the lines between two matches in
// order, so that a line that changed is compared with its counterpart.
func matchLines(r, s []string) []int {
	pair := make([]int, len(r))
	for i := range pair {
		pair[i] = -1
	}
	n, m := len(r), len(s)
	if n*m > maxLineMatch || n == m {
		for i := range min(n, m) {
			pair[i] = i
		}
		return pair
	}
	// lcs[i][j]: the longest common subsequence of r[i:] and s[j:].
	lcs := make([][]int32, n+1)
	for i := range lcs {
		lcs[i] = make([]int32, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if r[i] == s[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	i, j := 0, 0
	gapR, gapS := 0, 0 // start of the unmatched run in each
	flush := func() {
		for k := 0; gapR+k < i && gapS+k < j; k++ {
			pair[gapR+k] = gapS + k
		}
	}
	for i < n && j < m {
		switch {
		case r[i] == s[j]:
			flush()
			pair[i] = j
			i, j = i+1, j+1
			gapR, gapS = i, j
		case lcs[i+1][j] >= lcs[i][j+1]:
			i++
		default:
			j++
		}
	}
	i, j = n, m
	flush()
	return pair
}

// deriveLine keeps the words the two lines start and end with alike, and
// hides what lies between.
func deriveLine(r, s string) string {
	rt, st := words(r), words(s)
	pre := 0
	for pre < len(rt) && pre < len(st) && rt[pre] == st[pre] {
		pre++
	}
	suf := 0
	for suf < len(rt)-pre && suf < len(st)-pre && rt[len(rt)-1-suf] == st[len(st)-1-suf] {
		suf++
	}
	var b strings.Builder
	for _, w := range rt[:pre] {
		b.WriteString(w)
	}
	b.WriteString(Placeholder)
	for _, w := range rt[len(rt)-suf:] {
		b.WriteString(w)
	}
	return b.String()
}

// words cuts a line into words (runs of letters, digits and . - _) and
// single other characters: a shared word is shown whole or not at all. A
// placeholder counts as letters: the text glued to a hidden value is part
// of it, as it would be to the value itself.
func words(s string) []string {
	var out []string
	for i := 0; i < len(s); {
		j := wordEnd(s, i)
		if j == i {
			_, size := utf8.DecodeRuneInString(s[i:])
			j = i + size
		}
		out = append(out, s[i:j])
		i = j
	}
	return out
}

// wordEnd returns the end of the word that starts at i (i: none).
func wordEnd(s string, i int) int {
	for i < len(s) {
		if strings.HasPrefix(s[i:], Placeholder) {
			i += len(Placeholder)
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if !wordRune(r) {
			break
		}
		i += size
	}
	return i
}

func wordRune(r rune) bool {
	return r == '_' || r == '.' || r == '-' || unicode.IsLetter(r) || unicode.IsDigit(r)
}
