package replcmd

import (
	"slices"
	"sort"
	"strings"

	"github.com/ptc-go/ptc/lisp"
)

// replScanBrackets walks src as the reader does for brackets, skipping
// strings, regexes, comments and character literals (\( is not a bracket).
// It returns, for each closing bracket, the index of its opener (-1 when
// it closes nothing or the wrong kind), and the openers left unclosed.
func replScanBrackets(src []rune) (pairs map[int]int, open []int) {
	pairs = map[int]int{}
	for i := 0; i < len(src); i++ {
		switch c := src[i]; c {
		case '"':
			for i++; i < len(src) && src[i] != '"'; i++ {
				if src[i] == '\\' {
					i++
				}
			}
		case ';':
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case '\\':
			i++
		case '(', '[', '{':
			open = append(open, i)
		case ')', ']', '}':
			want := map[rune]rune{')': '(', ']': '[', '}': '{'}[c]
			if n := len(open); n > 0 && src[open[n-1]] == want {
				pairs[i] = open[n-1]
				open = open[:n-1]
			} else {
				pairs[i] = -1
			}
		}
	}
	return pairs, open
}

// Indent is the indentation of a new line after src: under the first
// item of the innermost open vector or map, two columns in from the
// innermost open list, and none at the top level.
func Indent(src []rune) int {
	_, open := replScanBrackets(src)
	if len(open) == 0 {
		return 0
	}
	o := open[len(open)-1]
	col := 0
	for i := o - 1; i >= 0 && src[i] != '\n'; i-- {
		col++
	}
	if src[o] == '(' {
		return col + 2
	}
	return col + 1
}

// MatchingBracket returns the index of the bracket matching the one under
// the cursor or just before it, or -1.
func MatchingBracket(buf []rune, pos int) int {
	pairs, _ := replScanBrackets(buf)
	at := func(i int) int {
		if i < 0 || i >= len(buf) {
			return -1
		}
		if o, ok := pairs[i]; ok {
			return o
		}
		for c, o := range pairs {
			if o == i {
				return c
			}
		}
		return -1
	}
	if m := at(pos - 1); m >= 0 && strings.ContainsRune(")]}", buf[pos-1]) {
		return m
	}
	return at(pos)
}

// replSpecialForms are the names the analyzer handles, which are not builtins
// but complete like them.
var replSpecialForms = []string{
	"->", "->>", "and", "as->", "assert", "call", "case", "cond", "cond->", "cond->>",
	"condp", "def", "defn", "defn-", "defonce", "do", "doseq", "dotimes", "fail", "fn",
	"for", "if", "if-let", "if-not", "if-some", "let", "letfn", "loop", "memory/get",
	"memory/put", "or", "quote", "recur", "return", "some->", "some->>", "var", "when",
	"when-first", "when-let", "when-not", "when-some", "where", "all-of", "any-of", "none-of",
}

// completer completes names: builtins, special forms, the session's defs,
// ctx/ keys and, first on the line, REPL commands.
func (s *Session) completer(buf []rune, pos int) (int, []string) {
	start := pos
	for start > 0 && !replDelimiter(buf[start-1]) {
		start--
	}
	word := string(buf[start:pos])
	if word == "" {
		return start, nil
	}
	var names []string
	if strings.HasPrefix(word, ":") && strings.TrimSpace(string(buf[:start])) == "" {
		for _, c := range replCommands() {
			names = append(names, c.name)
		}
	} else if alias, full, ok := replNamespaceAlias(word); ok {
		// str/tr completes from clojure.string/trim, keeping str/.
		for _, n := range replBuiltinNames() {
			switch {
			case full == "" && !strings.Contains(n, "/"):
				names = append(names, alias+n)
			case full != "" && strings.HasPrefix(n, full):
				names = append(names, alias+n[len(full):])
			}
		}
	} else {
		names = append(names, replBuiltinNames()...)
		names = append(names, replSpecialForms...)
		names = append(names, s.ns.Names()...)
		if s.CtxVal != nil {
			for k := range s.CtxVal.All() {
				switch k := k.(type) {
				case string:
					names = append(names, "ctx/"+k)
				case lisp.Keyword:
					names = append(names, "ctx/"+string(k))
				}
			}
		}
	}
	var cands []string
	for _, n := range names {
		if strings.HasPrefix(n, word) {
			cands = append(cands, n)
		}
	}
	sort.Strings(cands)
	return start, slices.Compact(cands)
}

// replNamespaceAlias recognizes a word starting with a namespace alias the
// analyzer accepts, and returns the alias and the prefix of the builtins'
// names it stands for ("" for clojure.core).
func replNamespaceAlias(word string) (alias, full string, ok bool) {
	for _, a := range [][2]string{
		{"str/", "clojure.string/"}, {"string/", "clojure.string/"}, {"s/", "clojure.string/"},
		{"set/", "clojure.set/"}, {"core/", ""}, {"clojure.core/", ""},
	} {
		if strings.HasPrefix(word, a[0]) {
			return a[0], a[1], true
		}
	}
	return "", "", false
}
