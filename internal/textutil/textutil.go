package textutil

import (
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Plural writes a count with its word: "1 turn", "0 turns", "12,345 turns".
// The plural adds an s.
func Plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return Thousands(n) + " " + word + "s"
}

// Thousands writes n with commas between groups of three digits: 12,345.
func Thousands(n int) string {
	s := strconv.Itoa(n)
	sign := ""
	if n < 0 {
		sign, s = "-", s[1:]
	}
	if len(s) <= 3 {
		return sign + s
	}
	var sb strings.Builder
	sb.WriteString(sign)
	first := len(s) % 3
	if first == 0 {
		first = 3
	}
	sb.WriteString(s[:first])
	for i := first; i < len(s); i += 3 {
		sb.WriteByte(',')
		sb.WriteString(s[i : i+3])
	}
	return sb.String()
}

// OneLine folds s onto one line: every run of white space, line breaks
// among them, becomes one space, and none is left at either end.
func OneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// FirstLine is the first line of s (white space at its ends trimmed), cut
// to n characters as Clip cuts, with " …" when lines that are not blank
// follow it.
func FirstLine(s string, n int) string {
	s = strings.TrimSpace(s)
	first, rest, more := strings.Cut(s, "\n")
	first = strings.TrimRight(first, " \r")
	if c := Clip(first, n); c != first {
		return c
	}
	if more && strings.TrimSpace(rest) != "" {
		return first + " …"
	}
	return first
}

// TruncateBytes cuts s to at most n bytes, at a character boundary (so the
// cut may keep a few bytes less). No mark is added; a negative n keeps
// nothing.
func TruncateBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	n = max(n, 0)
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// TruncateRunes cuts s to at most n characters (runes). No mark is added.
// A negative n is no limit: s is returned whole.
func TruncateRunes(s string, n int) string {
	i := 0
	for j := range s {
		if i == n {
			return s[:j]
		}
		i++
	}
	return s
}

// Clip cuts s to at most n characters and marks the cut with "…" (so a
// clipped text has n+1 characters).
func Clip(s string, n int) string {
	if t := TruncateRunes(s, n); len(t) < len(s) {
		return t + "…"
	}
	return s
}

// ClipBytes cuts s to at most n bytes, at a character boundary, and marks
// the cut with "…".
func ClipBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return TruncateBytes(s, n) + "…"
}

// EditDistance is the Levenshtein distance between a and b, counted in
// bytes, giving up at limit: a distance of limit or more is returned as
// limit, after work proportional to len(a)*len(b) at most.
func EditDistance(a, b string, limit int) int { return distance([]byte(a), []byte(b), limit) }

// EditDistanceRunes is EditDistance counted in characters (runes).
func EditDistanceRunes(a, b string, limit int) int { return distance([]rune(a), []rune(b), limit) }

func distance[E comparable](a, b []E, limit int) int {
	if abs(len(a)-len(b)) >= limit {
		return limit
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			rowMin = min(rowMin, cur[j])
		}
		// A row's minimum never decreases down the table: once it reaches
		// limit, so has the distance.
		if rowMin >= limit {
			return limit
		}
		prev, cur = cur, prev
	}
	return min(prev[len(b)], limit)
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// Bytes renders a byte count for messages: 64 MB, 512 KB, 300 bytes, with
// one decimal at most (63.996 MB prints as 64 MB, 1.25 KB as 1.3 KB).
// Megabytes and kilobytes are binary (1 MB is 1,048,576 bytes), as the
// limits that these messages report are set.
func Bytes(n int64) string {
	switch {
	case n >= 1<<20:
		return roundedSize(float64(n)/(1<<20)) + " MB"
	case n >= 1<<10:
		return roundedSize(float64(n)/(1<<10)) + " KB"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}

func roundedSize(f float64) string {
	return strconv.FormatFloat(math.Round(f*10)/10, 'f', -1, 64)
}

// Closest returns the candidate nearest to name, when one is close enough:
// at most a third of the name differs (so "g" suggests nothing, while
// "fitler" suggests "filter"). It sorts candidates.
func Closest(name string, candidates []string) string {
	best, bestD := "", min(3, len(name)/3+1)
	if bestD >= len(name) {
		bestD = len(name) - 1
	}
	sort.Strings(candidates)
	for _, c := range candidates {
		if c == name {
			continue
		}
		d := EditDistance(name, c, bestD)
		if d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// UnknownToolMessage is the message of a call of a tool that does not
// exist, naming the available ones (sorted in place) and the closest match:
// lisp.Tools and the agents' tool caller report it alike.
func UnknownToolMessage(name string, available []string) string {
	if len(available) == 0 {
		return "unknown tool " + name + ": no tools are available in this run"
	}
	sort.Strings(available)
	msg := "unknown tool " + name + "; available tools: " + strings.Join(available, ", ")
	if s := Closest(name, available); s != "" {
		msg += "; did you mean " + s + "?"
	}
	return msg
}
