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

// contextual reports whether a pattern has assertions about the text before
// a position (begin-of-text or -line, word boundaries).
func contextual(pattern string) bool {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return true
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
	return walk(re)
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

// findAll returns up to n (n < 0: all) match index slices of re in s, like
// FindAllStringSubmatchIndex.
func (th *thread) findAll(re *Regex, s string, n int) ([][]int, error) {
	if len(s) <= largeRegexInput {
		return re.re.FindAllStringSubmatchIndex(s, n), nil
	}
	if re.contextual {
		if len(s) > maxContextRegexInput {
			return nil, regexInputError(re, len(s))
		}
		return re.re.FindAllStringSubmatchIndex(s, n), th.ticks(len(s))
	}
	var out [][]int
	pos, prevEnd := 0, -1
	for pos <= len(s) && (n < 0 || len(out) < n) {
		r := &cancellableReader{th: th, s: s, pos: pos}
		m := re.re.FindReaderSubmatchIndex(r)
		if r.err != nil {
			return nil, r.err
		}
		if m == nil {
			break
		}
		for i := range m {
			if m[i] >= 0 {
				m[i] += pos
			}
		}
		if m[0] == m[1] && m[0] == prevEnd {
			// An empty match right after the previous match is skipped,
			// as FindAll does: move on by one character.
			if pos >= len(s) {
				break
			}
			_, w := utf8.DecodeRuneInString(s[pos:])
			pos += w
			continue
		}
		out = append(out, m)
		prevEnd = m[1]
		if m[1] > pos {
			pos = m[1]
		} else {
			if pos >= len(s) {
				break
			}
			_, w := utf8.DecodeRuneInString(s[pos:])
			pos += w
		}
	}
	return out, nil
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
