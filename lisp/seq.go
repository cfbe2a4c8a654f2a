package lisp

import (
	"unicode"
	"unicode/utf8"
)

// Seq is a lazy sequence. Most are infinite, from (range), (iterate f x),
// (repeat x) or (cycle coll) (or too long to ever build, such as
// (repeat Long/MAX_VALUE x)), and map, filter, remove, keep... over one:
// only a finite prefix of those can ever be realized: take, take-while,
// first, nth and friends pull what they need, and any attempt to realize
// the whole sequence is an error that names the fix. The others come from
// lazy-seq (seq_lazy.go) and may end: they are finite, and realizing all of
// one is tried under the run's limits.
type Seq struct {
	name string
	// gen yields the elements in order until yield returns false or an error.
	gen func(th *thread, yield func(Value) (bool, error)) error
	// finite: the sequence may end (it comes from lazy-seq), so realizing
	// all of it is not an error in itself.
	finite bool
	// cell, when set, makes the sequence a memoized lazy or cons cell
	// (seq_lazy.go); gen then walks the chain.
	cell *seqCell
	// skip, when set, returns the sequence without its first n elements
	// without walking them: (cycle xs) and (range) start further on, so
	// that a loop over [x & xs] of one costs a step per element.
	skip func(n int) *Seq
}

// Name returns the function that made the sequence ("range", "iterate", ...).
func (s *Seq) Name() string { return s.name }

// realize returns the first n elements (n < 0: all, which is an error for an
// infinite sequence).
func (th *thread) realize(s *Seq, n int, op string) ([]Value, error) {
	if n < 0 {
		if !s.finite {
			return nil, infiniteError(s, op)
		}
		// All of a sequence that may end: a step and a slot per element,
		// so that one that does not end stops at a limit.
		var out []Value
		err := s.gen(th, func(v Value) (bool, error) {
			if err := th.tick(); err != nil {
				return false, err
			}
			if err := th.charge(1); err != nil {
				return false, err
			}
			out = append(out, v)
			return true, nil
		})
		return out, err
	}
	out := make([]Value, 0, min(n, 1024))
	if n == 0 {
		return out, nil
	}
	err := s.gen(th, func(v Value) (bool, error) {
		out = append(out, v)
		if err := th.tick(); err != nil {
			return false, err
		}
		return len(out) < n, nil
	})
	return out, err
}

// nthSeq returns element i of s (ok false when s has fewer elements),
// walking the sequence without keeping the elements before it: (nth
// (iterate f x) 100000000) takes steps, not memory.
func (th *thread) nthSeq(s *Seq, i int) (v Value, ok bool, err error) {
	j := 0
	err = s.gen(th, func(x Value) (bool, error) {
		if err := th.tick(); err != nil {
			return false, err
		}
		if j == i {
			v, ok = x, true
			return false, nil
		}
		j++
		return true, nil
	})
	if err != nil {
		return nil, false, err
	}
	return v, ok, nil
}

func infiniteError(s *Seq, op string) *Error {
	return errorf(InvalidArgument,
		"%s cannot use the whole infinite sequence from (%s ...): take a finite part first, e.g. (take 10 ...)", op, s.name)
}

// graphemes splits s into user-perceived characters: a base code point with
// the combining marks, variation selectors, emoji modifiers and zero-width
// joiner sequences that follow it, and regional-indicator pairs (flags).
func graphemes(s string) []Value {
	out := make([]Value, 0, len(s))
	for i := 0; i < len(s); {
		n := graphemeLen(s[i:])
		out = append(out, s[i:i+n])
		i += n
	}
	return out
}

// graphemeLen returns the byte length of the first grapheme of s (s != "").
func graphemeLen(s string) int {
	c := s[0]
	if c < utf8.RuneSelf {
		if c == '\r' && len(s) > 1 && s[1] == '\n' {
			return 2
		}
		if len(s) == 1 || s[1] < utf8.RuneSelf {
			return 1 // ASCII fast path: the next byte starts a new character
		}
	}
	r, n := utf8.DecodeRuneInString(s)
	i := n
	if isRegionalIndicator(r) {
		if r2, n2 := utf8.DecodeRuneInString(s[i:]); i < len(s) && isRegionalIndicator(r2) {
			return i + n2
		}
		return i
	}
	for i < len(s) {
		r2, n2 := utf8.DecodeRuneInString(s[i:])
		switch {
		case isExtend(r2):
			i += n2
		case r2 == 0x200D: // zero-width joiner: glue the next code point
			i += n2
			if i < len(s) {
				_, n3 := utf8.DecodeRuneInString(s[i:])
				i += n3
			}
		default:
			return i
		}
	}
	return i
}

func isRegionalIndicator(r rune) bool { return r >= 0x1F1E6 && r <= 0x1F1FF }

func isExtend(r rune) bool {
	if r < 0x300 {
		return false
	}
	return unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Me, r) || unicode.Is(unicode.Mc, r) ||
		(r >= 0xFE00 && r <= 0xFE0F) || (r >= 0x1F3FB && r <= 0x1F3FF) || (r >= 0xE0020 && r <= 0xE007F)
}

// graphemeCount counts the characters of s.
func graphemeCount(s string) int {
	n := 0
	for i := 0; i < len(s); {
		i += graphemeLen(s[i:])
		n++
	}
	return n
}

// lazily is a sequence function (map, filter, ...) over an infinite
// sequence: a lazy sequence running the function's transducer stage as far
// as the consumer pulls (take, first, nth, some...), as in Clojure. Every
// element taken from s counts a step, so a filter that never passes ends
// at the step limit.
func lazily(st *xfStage, s *Seq) *Seq {
	return lazyTransduce(&transducer{stages: []*xfStage{st}}, s)
}
