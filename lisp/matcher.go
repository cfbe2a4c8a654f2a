package lisp

import "unicode/utf8"

// java.util.regex.Matcher, as models loop over matches Java's way:
// (re-matcher re s), then (re-find m) or (.find m) with (.group m n),
// (re-groups m), (.start m), (.end m), (.groupCount m), (.matches m),
// (.reset m). A matcher is an atom holding its state, a map
// {:matcher re, :text s, :pos next-search, :match last-match}: atoms are
// the language's mutable cells, so a run that fails puts a matcher back
// as it puts back an atom, and the firewall and the printer see it as one
// (docs/deviations.md row 102).

var (
	kwMatcher = Keyword("matcher")
	kwText    = Keyword("text")
	kwPos     = Keyword("pos")
	kwMatch   = Keyword("match")
)

// matcherState is a matcher's state, read from its atom.
type matcherState struct {
	cell  *Cell
	re    *Regex
	text  string
	pos   int
	match []int // byte offsets of the last match and its groups; nil: none
	reset Value // reset!, which saveMatcher writes the state with
}

// matcherArg reads argument i as a matcher; ok is false when it is not one.
func matcherArg(t *builtinTable, a []Value, i int) (st matcherState, ok bool) {
	st.reset = t.names["reset!"]
	c, isCell := a[i].(*Cell)
	if !isCell || c.kind != atomCell {
		return st, false
	}
	m, isMap := c.load().val.(*Map)
	if !isMap {
		return st, false
	}
	re, isRe := m.Get(kwMatcher)
	if st.re, ok = re.(*Regex); !isRe || !ok {
		return st, false
	}
	text, _ := m.Get(kwText)
	pos, _ := m.Get(kwPos)
	match, _ := m.Get(kwMatch)
	st.cell, st.text = c, text.(string)
	p, _ := pos.(int64)
	st.pos = int(p)
	if v, isVec := match.(*Vector); isVec {
		st.match = make([]int, v.Len())
		for j := range st.match {
			n, _ := v.At(j).(int64)
			st.match[j] = int(n)
		}
	}
	return st, true
}

// save writes the state back into the matcher's atom, as reset! would.
func (th *thread) saveMatcher(st matcherState) error {
	var match Value
	if st.match != nil {
		xs := make([]Value, len(st.match))
		for i, n := range st.match {
			xs[i] = int64(n)
		}
		match = NewVector(xs)
	}
	_, err := th.call(st.reset, []Value{st.cell, matcherMap(st.re, st.text, st.pos, match)})
	return err
}

func matcherMap(re *Regex, text string, pos int, match Value) *Map {
	return NewMap(kwMatcher, re, kwText, text, kwPos, int64(pos), kwMatch, match)
}

// matcherFind is Matcher.find: the next match from the position after the
// last one (one character further after an empty match); after a failed
// find the next fails too, until a reset, as Java's does.
func (th *thread) matcherFind(st matcherState) (matcherState, bool, error) {
	if err := th.tick(); err != nil {
		return st, false, err
	}
	var m []int
	if st.pos <= len(st.text) {
		var err error
		if m, err = th.findAt(st.re, st.text, st.pos); err != nil {
			return st, false, err
		}
	}
	st.match = m
	switch {
	case m == nil:
		// Java's next find searches from the same place again, and fails.
	case m[1] > m[0] || m[1] >= len(st.text):
		st.pos = m[1]
		if m[1] == m[0] {
			st.pos = len(st.text) + 1 // past the end: no further match
		}
	default:
		_, w := utf8.DecodeRuneInString(st.text[m[1]:])
		st.pos = m[1] + w
	}
	return st, m != nil, th.saveMatcher(st)
}

func noMatch() *Error {
	return classError(InvalidArgument, classIllegalState, "No match found")
}

// group is the text of group g of the last match (nil when it did not
// take part).
func (st matcherState) group(fn string, g Value) (Value, error) {
	if st.match == nil {
		return nil, noMatch()
	}
	n := int64(0)
	switch x := g.(type) {
	case nil:
	case int64:
		n = x
	case string:
		i := st.re.groupIndex(x)
		if i < 0 {
			return nil, errorf(InvalidArgument, "No group with name <%s>", x)
		}
		n = int64(i)
	default:
		return nil, argError(fn, 1, "a group number or name", g)
	}
	if n < 0 || 2*n+1 >= int64(len(st.match)) {
		return nil, classError(InvalidArgument, classIndexOutOfBound, "No group %d", n)
	}
	if st.match[2*n] < 0 {
		return nil, nil
	}
	return st.text[st.match[2*n]:st.match[2*n+1]], nil
}

func registerMatcher(t *builtinTable) {
	t.add("re-matcher", 2, 2, func(th *thread, a []Value) (Value, error) {
		re, s, err := th.regexArgs("re-matcher", a)
		if err != nil {
			return nil, err
		}
		return th.call(t.names["atom"], []Value{matcherMap(re, s, 0, nil)})
	})
	t.add("re-groups", 1, 1, func(th *thread, a []Value) (Value, error) {
		st, ok := matcherArg(t, a, 0)
		if !ok {
			return nil, argError("re-groups", 0, "a matcher from re-matcher", a[0])
		}
		if st.match == nil {
			return nil, noMatch()
		}
		return matchValue(st.text, st.match), nil
	})
	t.add(".find", 1, 2, func(th *thread, a []Value) (Value, error) {
		st, ok := matcherArg(t, a, 0)
		if !ok {
			return nil, argError(".find", 0, "a matcher from re-matcher", a[0])
		}
		if len(a) == 2 { // find(start): reset, then search from start
			n, err := intArg(".find", a, 1)
			if err != nil {
				return nil, err
			}
			if n < 0 || n > int64(graphemeCount(st.text)) {
				return nil, classError(InvalidArgument, classIndexOutOfBound, "Illegal start index")
			}
			st.pos = charOffset(st.text, 0, n)
		}
		_, found, err := th.matcherFind(st)
		return found, err
	})
	group := func(name string, g func(st matcherState, n Value) (Value, error)) {
		t.add(name, 1, 2, func(_ *thread, a []Value) (Value, error) {
			st, ok := matcherArg(t, a, 0)
			if !ok {
				return nil, argError(name, 0, "a matcher from re-matcher", a[0])
			}
			var n Value
			if len(a) == 2 {
				n = a[1]
			}
			return g(st, n)
		})
	}
	group(".group", func(st matcherState, n Value) (Value, error) { return st.group(".group", n) })
	// .start and .end count characters, as subs does (docs/deviations.md row 43).
	for _, f := range []struct {
		name string
		end  int
	}{{".start", 0}, {".end", 1}} {
		group(f.name, func(st matcherState, n Value) (Value, error) {
			if _, err := st.group(f.name, n); err != nil {
				return nil, err
			}
			g, _ := n.(int64)
			if s, ok := n.(string); ok {
				g = int64(st.re.groupIndex(s))
			}
			off := st.match[2*g+int64(f.end)]
			if off < 0 {
				return int64(-1), nil
			}
			return int64(charsBefore(st.text, off)), nil
		})
	}
	t.add(".groupCount", 1, 1, func(_ *thread, a []Value) (Value, error) {
		st, ok := matcherArg(t, a, 0)
		if !ok {
			return nil, argError(".groupCount", 0, "a matcher from re-matcher", a[0])
		}
		return int64(st.re.groupCount()), nil
	})
	t.add(".reset", 1, 2, func(th *thread, a []Value) (Value, error) {
		st, ok := matcherArg(t, a, 0)
		if !ok {
			return nil, argError(".reset", 0, "a matcher from re-matcher", a[0])
		}
		if len(a) == 2 {
			s, err := stringArg(".reset", a, 1)
			if err != nil {
				return nil, err
			}
			st.text = s
		}
		st.pos, st.match = 0, nil
		return st.cell, th.saveMatcher(st)
	})
	// (re-find m) and (.matches m): a matcher's next match, its whole text;
	// with more arguments, the builtins they were.
	oneArg := func(name, want string, f func(th *thread, st matcherState) (Value, error)) {
		t.wrap(name, func(old *Builtin) *Builtin {
			b := *old
			b.MinArgs = 1
			b.fn = func(th *thread, a []Value) (Value, error) {
				if len(a) != 1 {
					return old.fn(th, a)
				}
				st, ok := matcherArg(t, a, 0)
				if !ok {
					return nil, argError(name, 0, want, a[0])
				}
				return f(th, st)
			}
			return &b
		})
	}
	oneArg("re-find", "a matcher from re-matcher (or give a pattern and a string)", func(th *thread, st matcherState) (Value, error) {
		st, found, err := th.matcherFind(st)
		if err != nil || !found {
			return nil, err
		}
		return matchValue(st.text, st.match), nil
	})
	oneArg(".matches", "a matcher from re-matcher (or a string and a pattern)", func(th *thread, st matcherState) (Value, error) {
		m, err := th.findFirst(st.re, st.text, true)
		if err != nil {
			return nil, err
		}
		st.match = m
		return m != nil, th.saveMatcher(st)
	})
}
