package lisp

import (
	"io"
	"regexp/syntax"
	"unicode/utf8"
)

// Regex matching that stays cancellable.
//
// Go's regexp is linear-time (no catastrophic backtracking), but a long
// input still takes time: tens of milliseconds per megabyte. Inputs up to
// largeRegexInput are matched directly. Larger ones are fed to the engine
// through a rune reader that checks the run's deadline and context as it
// goes, so a cancelled run stops promptly even inside a regex. The reader
// restarts the engine at each match position, which is exact only for
// patterns whose matches do not look at the text before them (no ^, \A,
// \b, \B): those patterns are limited to maxContextRegexInput instead.

const (
	largeRegexInput       = 256 << 10
	maxContextRegexInput  = 4 << 20
	regexCheckEveryNRunes = 1 << 14
)

// analyzePattern reports whether a pattern has assertions about the text
// before a position (begin-of-text or -line, word boundaries), and whether
// it can match the empty string.
func analyzePattern(pattern string) (contextual, nullable bool) {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return true, true
	}
	var walk func(*syntax.Regexp) bool
	walk = func(r *syntax.Regexp) bool {
		switch r.Op {
		case syntax.OpBeginLine, syntax.OpBeginText, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
			return true
		}
		for _, s := range r.Sub {
			if walk(s) {
				return true
			}
		}
		return false
	}
	return walk(re), canBeEmpty(re)
}

// canBeEmpty reports whether r can match the empty string (assertions are
// assumed to hold somewhere).
func canBeEmpty(r *syntax.Regexp) bool {
	switch r.Op {
	case syntax.OpNoMatch, syntax.OpCharClass, syntax.OpAnyCharNotNL, syntax.OpAnyChar:
		return false
	case syntax.OpLiteral:
		return len(r.Rune) == 0
	case syntax.OpStar, syntax.OpQuest:
		return true
	case syntax.OpCapture, syntax.OpPlus:
		return canBeEmpty(r.Sub[0])
	case syntax.OpRepeat:
		return r.Min == 0 || canBeEmpty(r.Sub[0])
	case syntax.OpConcat:
		for _, s := range r.Sub {
			if !canBeEmpty(s) {
				return false
			}
		}
		return true
	case syntax.OpAlternate:
		for _, s := range r.Sub {
			if canBeEmpty(s) {
				return true
			}
		}
		return false
	}
	return true // empty match and the assertions: ^ $ \A \z \b \B
}

// cancellableReader reads runes of s from pos, checking the thread's
// limits every few thousand runes; when they are breached it reports EOF
// and records the error.
type cancellableReader struct {
	th    *thread
	s     string
	pos   int
	count int
	err   error
}

func (r *cancellableReader) ReadRune() (rune, int, error) {
	if r.pos >= len(r.s) {
		return 0, 0, io.EOF
	}
	r.count++
	if r.count%regexCheckEveryNRunes == 0 {
		if err := r.th.ticks(regexCheckEveryNRunes); err != nil {
			r.err = err
			return 0, 0, io.EOF
		}
	}
	c, n := rune(r.s[r.pos]), 1
	if c >= utf8.RuneSelf {
		c, n = utf8.DecodeRuneInString(r.s[r.pos:])
	}
	r.pos += n
	return c, n, nil
}

// findAll returns up to n (n < 0: all) match index slices of re in s, in
// the order Java's Matcher.find finds them, which re-seq, replace and
// split follow: after a match the search resumes at its end, or one
// character further after an empty match. Go's FindAll differs in one
// point, dropping an empty match right after a non-empty one: #"a*" finds
// "" "aaa" "" in "baaa" in Java, and "" "aaa" in Go. Only patterns that can
// match the empty string are affected; the others keep Go's iteration.
//
// Java steps over an empty match by one UTF-16 unit, so it also finds empty
// matches between the two halves of a character outside the Basic
// Multilingual Plane (an emoji); strings here are UTF-8 and the step is one
// code point, so those are not found: (re-seq #"x*" "😀") is ["" ""], not
// ["" "" ""].
func (th *thread) findAll(re *Regex, s string, n int) ([][]int, error) {
	if re.nullable {
		return th.findAllJava(re, s, n)
	}
	if len(s) <= largeRegexInput {
		return re.re.FindAllStringSubmatchIndex(s, n), nil
	}
	if re.contextual {
		if len(s) > maxContextRegexInput {
			return nil, regexInputError(re, len(s))
		}
		return re.re.FindAllStringSubmatchIndex(s, n), th.ticks(len(s))
	}
	// Non-empty matches only: each search resumes where the last match ended.
	var out [][]int
	for pos := 0; pos < len(s) && (n < 0 || len(out) < n); {
		m, err := th.findAt(re, s, pos)
		if err != nil || m == nil {
			return out, err
		}
		out = append(out, m)
		pos = m[1]
	}
	return out, nil
}

// findAllJava is findAll for patterns that can match the empty string.
func (th *thread) findAllJava(re *Regex, s string, n int) ([][]int, error) {
	if re.contextual && len(s) > largeRegexInput {
		if len(s) > maxContextRegexInput {
			return nil, regexInputError(re, len(s))
		}
		// Searched directly, not through the cancellable reader.
		if err := th.ticks(len(s)); err != nil {
			return nil, err
		}
	}
	var out [][]int
	for pos := 0; pos <= len(s) && (n < 0 || len(out) < n); {
		m, err := th.findAt(re, s, pos)
		if err != nil || m == nil {
			return out, err
		}
		// A match per character is possible: count and charge them.
		if err := th.tick(); err != nil {
			return nil, err
		}
		if err := th.charge(int64(len(m) / 2)); err != nil {
			return nil, err
		}
		out = append(out, m)
		switch {
		case m[1] > m[0]:
			pos = m[1]
		case m[1] >= len(s):
			return out, nil
		default:
			_, w := utf8.DecodeRuneInString(s[m[1]:])
			pos = m[1] + w
		}
	}
	return out, nil
}

// findAt returns the leftmost match of re in s that starts at pos or
// later, with the text before pos as its context (Java's find from pos).
// Go's regexp cannot start a search at an offset, so it searches s[pos:]:
// exact unless the pattern looks at the text before a position (^, \b).
// Such a pattern, when it can match the empty string (the only case that
// needs a search from an arbitrary position), has a resume form that
// consumes the character before pos as context and then searches.
// Large inputs are read through the cancellable reader.
func (th *thread) findAt(re *Regex, s string, pos int) ([]int, error) {
	r, off, skip := re.re, pos, 0
	if pos > 0 && re.contextual {
		if re.resume == nil {
			return nil, errorf(InternalError, "regex %q: no resumable form", re.Source)
		}
		_, w := utf8.DecodeLastRuneInString(s[:pos])
		r, off, skip = re.resume, pos-w, 2
	}
	var m []int
	if len(s) <= largeRegexInput || re.contextual {
		m = r.FindStringSubmatchIndex(s[off:])
	} else {
		rd := &cancellableReader{th: th, s: s, pos: off}
		m = r.FindReaderSubmatchIndex(rd)
		if rd.err != nil {
			return nil, rd.err
		}
	}
	if m == nil {
		return nil, nil
	}
	m = m[skip:]
	for i := range m {
		if m[i] >= 0 {
			m[i] += off
		}
	}
	return m, nil
}

// findFirst returns the first match of re (or of its anchored form) in s.
func (th *thread) findFirst(re *Regex, s string, anchored bool) ([]int, error) {
	r := re.re
	if anchored {
		r = re.anchored
	}
	if len(s) <= largeRegexInput {
		return r.FindStringSubmatchIndex(s), nil
	}
	if len(s) > maxContextRegexInput && (re.contextual || anchored) {
		// The anchored form starts with ^: it is contextual too, but it only
		// ever runs from position 0, where the reader is exact.
		if !anchored {
			return nil, regexInputError(re, len(s))
		}
	}
	rd := &cancellableReader{th: th, s: s}
	m := r.FindReaderSubmatchIndex(rd)
	if rd.err != nil {
		return nil, rd.err
	}
	return m, nil
}

func regexInputError(re *Regex, n int) *Error {
	return errorf(InvalidArgument,
		"regex %q with ^ or word boundaries over %d MB of text: split the text first (for example with split-lines), at most %d MB",
		re.Source, n>>20, maxContextRegexInput>>20)
}
