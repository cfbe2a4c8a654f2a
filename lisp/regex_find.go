package lisp

import (
	"io"
	"regexp/syntax"
	"unicode/utf8"
)

// Regex matching that stays within the run's limits.
//
// Go's regexp is linear-time (no catastrophic backtracking), but a long
// input still takes time: tens of milliseconds per megabyte. Inputs up to
// largeRegexInput are matched directly. Larger ones are fed to the engine
// through a rune reader that counts steps as it goes, so a run stops
// promptly at its deadline or cancellation even inside a regex. Go's
// regexp cannot start a search at an offset with the text before it as
// context, so a pattern that looks at that text (^, \b, \B) searches from
// a later position with its resume form, which consumes the preceding
// character as context (see findAt). Every match found counts a step, and
// the callers charge what they build per match before building it.

const (
	largeRegexInput       = 256 << 10
	regexCheckEveryNRunes = 1 << 14
)

// patternTraits reports whether a parsed pattern has assertions about the
// text before a position (begin-of-text or -line, word boundaries), and
// whether it can match the empty string.
func patternTraits(re *syntax.Regexp) (contextual, nullable bool) {
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

// cancellableReader reads runes of s from pos, counting a step per rune
// read (checked every few thousand runes); when a limit is breached it
// reports EOF and records the error.
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

// eachMatch calls f with the index slice of each match of re in s, up to
// n matches (n < 0: all), in the order Java's Matcher.find finds them,
// which re-seq, replace and split follow: after a match the search resumes
// at its end, or one character further after an empty match. Go's FindAll
// differs in one point, dropping an empty match right after a non-empty
// one: #"a*" finds "" "aaa" "" in "baaa" in Java, and "" "aaa" in Go; so
// FindAll serves only small inputs and patterns that cannot match the
// empty string. Each match counts a step.
//
// Java steps over an empty match by one UTF-16 unit, so it also finds empty
// matches between the two halves of a character outside the Basic
// Multilingual Plane (an emoji); strings here are UTF-8 and the step is one
// code point, so those are not found: (re-seq #"x*" "😀") is ["" ""], not
// ["" "" ""].
func (th *thread) eachMatch(re *Regex, s string, n int, f func(m []int) error) error {
	if len(s) <= largeRegexInput && !re.nullable && !re.trimEnd && re.bt == nil {
		// At most one match per byte of a small input: a bounded list.
		for _, m := range re.re.FindAllStringSubmatchIndex(s, n) {
			if err := th.tick(); err != nil {
				return err
			}
			if err := f(m); err != nil {
				return err
			}
		}
		return nil
	}
	for pos, count := 0, 0; pos <= len(s) && (n < 0 || count < n); count++ {
		m, err := th.findAt(re, s, pos)
		if err != nil || m == nil {
			return err
		}
		if err := th.tick(); err != nil {
			return err
		}
		if err := f(m); err != nil {
			return err
		}
		switch {
		case m[1] > m[0]:
			pos = m[1]
		case m[1] >= len(s):
			return nil
		default:
			_, w := utf8.DecodeRuneInString(s[m[1]:])
			pos = m[1] + w
		}
	}
	return nil
}

// findAt returns the leftmost match of re in s that starts at pos or
// later, with the text before pos as its context (Java's find from pos).
// Go's regexp cannot start a search at an offset, so it searches s[pos:]:
// exact unless the pattern looks at the text before a position (^, \b).
// Such a pattern has a resume form that consumes the character before pos
// as context and then searches. Large inputs are read through the
// step-counting reader.
func (th *thread) findAt(re *Regex, s string, pos int) ([]int, error) {
	if re.bt != nil {
		m, err := th.backtrackFind(re, s, pos, false)
		return re.trimMatch(m), err
	}
	r, off, skip := re.re, pos, 0
	if pos > 0 && re.contextual {
		_, w := utf8.DecodeLastRuneInString(s[:pos])
		r, off, skip = re.resumeRe(), pos-w, 2
	}
	var m []int
	if len(s)-off <= largeRegexInput {
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
	return re.trimMatch(m), nil
}

// trimMatch drops the final line terminator a pattern ending with Java's $
// matched as its last group (see compileRegex): the match ends before it,
// as Java's does, and the group is not the program's.
func (re *Regex) trimMatch(m []int) []int {
	if !re.trimEnd || m == nil {
		return m
	}
	if t := m[len(m)-2]; t >= 0 {
		m[1] = t
	}
	return m[:len(m)-2]
}

// findFirst returns the first match of re (or of its anchored form) in s.
// From the start of the text, the step-counting reader is exact for every
// pattern.
func (th *thread) findFirst(re *Regex, s string, anchored bool) ([]int, error) {
	var m []int
	if re.bt != nil {
		var err error
		if m, err = th.backtrackFind(re, s, 0, anchored); err != nil {
			return nil, err
		}
		return re.trimMatch(m), nil
	}
	r := re.re
	if anchored {
		r = re.anchoredRe()
	}
	if len(s) <= largeRegexInput {
		m = r.FindStringSubmatchIndex(s)
	} else {
		rd := &cancellableReader{th: th, s: s}
		m = r.FindReaderSubmatchIndex(rd)
		if rd.err != nil {
			return nil, rd.err
		}
	}
	m = re.trimMatch(m)
	if anchored && m != nil && m[1] != len(s) {
		return nil, nil // Java's matches(): $ before a final terminator leaves it unmatched
	}
	return m, nil
}
