package lisp

import (
	"sort"
	"strings"
)

// unboundMessage explains an unknown name: underscores where Clojure uses
// hyphens, the closest known names, or the PTC-Lisp replacement.
func unboundMessage(name string, ns *Namespace) string {
	if h := unsupportedHint(name); h != "" {
		return h
	}
	msg := "undefined name " + name
	candidates := builtinNames()
	candidates = append(candidates, ns.Names()...)
	if strings.Contains(name, "_") {
		hy := strings.ReplaceAll(name, "_", "-")
		if _, ok := builtins[hy]; ok {
			return msg + ": PTC-Lisp names use hyphens, not underscores (try " + hy + ")"
		}
	}
	if s := closest(name, candidates); s != "" {
		return msg + "; did you mean " + s + "?"
	}
	return msg + ": define it with (def " + name + " ...) first, or read context data with ctx/" + name
}

// closest returns the candidate nearest to name, when one is close enough:
// at most a third of the name differs (so "g" suggests nothing, while
// "fitler" suggests "filter").
func closest(name string, candidates []string) string {
	best, bestD := "", min(3, len(name)/3+1)
	if bestD >= len(name) {
		bestD = len(name) - 1
	}
	sort.Strings(candidates)
	for _, c := range candidates {
		if c == name {
			continue
		}
		d := editDistance(name, c, bestD)
		if d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance, giving up above limit.
func editDistance(a, b string, limit int) int {
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
		if rowMin >= limit {
			return limit
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
