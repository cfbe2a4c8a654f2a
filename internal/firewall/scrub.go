package firewall

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ptc-go/ptc/lisp"
)

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
		func(s string) string { return unquote(lisp.Print(s, lisp.PrintOptions{})) },
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
// (see eachRun) by Placeholder.
func scrubText(text string, indexes ...*textIndex) string {
	var sb strings.Builder
	done := 0 // text[:done] is written or replaced
	eachRun(text, indexes, func(start, end int) {
		sb.WriteString(text[done:start])
		sb.WriteString(Placeholder)
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
