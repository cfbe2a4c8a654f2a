package backtrack

import (
	"errors"
	"fmt"
	"regexp/syntax"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Regexp is a compiled pattern. It is immutable and safe for concurrent
// use; each Find keeps its own state.
type Regexp struct {
	root  *node
	ncap  int            // capturing groups, not counting the whole match
	names map[string]int // named groups
}

// Errors a Find returns besides the budget's own.
var (
	// ErrTooDeep is a match that nests repetitions of groups deeper than
	// maxDepth: Java's StackOverflowError.
	ErrTooDeep = errors.New("the regex repeats a group more than 10,000 times in one match (Java: StackOverflowError); match a simpler pattern or a shorter text")
)

// SyntaxError is a pattern Compile refuses.
type SyntaxError struct{ Msg string }

func (e *SyntaxError) Error() string { return e.Msg }

const (
	maxDepth   = 10_000 // nested iterations of a group within one attempt
	budgetStep = 256    // steps between calls of the budget
	maxRepeat  = 100_000
)

type op uint8

const (
	opEmpty     op = iota
	opLiteral      // runes, in sequence (fold: case-insensitive)
	opClass        // one rune within ranges
	opAny          // any rune
	opAnyNotNL     // any rune but \n
	opBeginText    // \A, ^ without (?m)
	opEndText      // \z, $ without (?m)
	opBeginLine    // ^ with (?m)
	opEndLine      // $ with (?m)
	opWordBoundary
	opNoWordBoundary
	opConcat
	opAlternate
	opRepeat
	opCapture
	opLookahead
	opLookbehind
	opBackref
	opAtomic
)

type node struct {
	op       op
	runes    []rune // opLiteral; opClass: sorted [lo, hi] pairs
	fold     bool   // opLiteral, opBackref: case-insensitive
	subs     []*node
	min, max int  // opRepeat (max -1: unbounded); opLookbehind: rune lengths
	lazy     bool // opRepeat
	atomic   bool // opRepeat: possessive
	negate   bool // opLookahead, opLookbehind
	index    int  // opCapture, opBackref: group number
	simple   bool // opRepeat whose sub matches exactly one rune
}

// Compile parses a pattern in Go's RE2 syntax extended with Java's
// lookahead (?= (?!, lookbehind (?<= (?<!, atomic groups (?>, possessive
// quantifiers (*+ ++ ?+ {n,m}+) and backreferences (\1, \k<name>).
func Compile(pat string) (*Regexp, error) {
	p := &parser{src: pat, names: map[string]int{}}
	root := p.alternate(flags{})
	if p.err == nil && p.pos < len(p.src) {
		p.fail("unmatched )")
	}
	if p.err != nil {
		return nil, p.err
	}
	for _, ref := range p.refs {
		if ref > p.ncap {
			return nil, &SyntaxError{Msg: fmt.Sprintf("no group %d for the backreference \\%d", ref, ref)}
		}
	}
	return &Regexp{root: root, ncap: p.ncap, names: p.names}, nil
}

// NumSubexp is the number of capturing groups.
func (re *Regexp) NumSubexp() int { return re.ncap }

// SubexpIndex is the number of the group named name, or -1.
func (re *Regexp) SubexpIndex(name string) int {
	if i, ok := re.names[name]; ok {
		return i
	}
	return -1
}

// Find returns the leftmost match of re in s starting at from or later
// (the text before from is context for lookbehind and assertions), as the
// index pairs of the match and its groups (-1 for a group that did not
// take part), or nil. With whole, the match must span s[from:]. budget is
// called with the steps taken every few hundred steps; its error stops
// the search and is returned.
func (re *Regexp) Find(s string, from int, whole bool, budget func(steps int) error) ([]int, error) {
	m := &machine{s: s, caps: make([]int, 2*re.ncap+2), budget: budget}
	for start := from; start <= len(s); {
		for i := range m.caps {
			m.caps[i] = -1
		}
		end := -1
		if m.match(re.root, start, func(e int) bool {
			if whole && e != len(s) {
				return false
			}
			end = e
			return true
		}) {
			m.caps[0], m.caps[1] = start, end
			return m.caps, nil
		}
		if m.err != nil {
			return nil, m.err
		}
		if whole || start == len(s) {
			break
		}
		_, w := utf8.DecodeRuneInString(s[start:])
		start += w
	}
	if m.err == nil && m.steps > 0 {
		m.err = budget(m.steps)
	}
	return nil, m.err
}

type machine struct {
	s      string
	caps   []int
	steps  int
	budget func(int) error
	err    error
	depth  int
}

// step counts one step; false once a limit stopped the search.
func (m *machine) step() bool {
	if m.err != nil {
		return false
	}
	m.steps++
	if m.steps >= budgetStep {
		m.err, m.steps = m.budget(m.steps), 0
		return m.err == nil
	}
	return true
}

func (m *machine) match(n *node, i int, k func(int) bool) bool {
	if !m.step() {
		return false
	}
	s := m.s
	switch n.op {
	case opEmpty:
		return k(i)
	case opLiteral:
		j := i
		for _, r := range n.runes {
			if j >= len(s) {
				return false
			}
			c, w := utf8.DecodeRuneInString(s[j:])
			if c != r && !(n.fold && foldEqual(c, r)) {
				return false
			}
			j += w
		}
		return k(j)
	case opClass, opAny, opAnyNotNL:
		if j, ok := m.one(n, i); ok {
			return k(j)
		}
		return false
	case opBeginText:
		return i == 0 && k(i)
	case opEndText:
		return i == len(s) && k(i)
	case opBeginLine:
		return (i == 0 || s[i-1] == '\n') && k(i)
	case opEndLine:
		return (i == len(s) || s[i] == '\n') && k(i)
	case opWordBoundary:
		return isWordBoundary(s, i) && k(i)
	case opNoWordBoundary:
		return !isWordBoundary(s, i) && k(i)
	case opConcat:
		return m.concat(n.subs, i, k)
	case opAlternate:
		for _, sub := range n.subs {
			if m.match(sub, i, k) {
				return true
			}
			if m.err != nil {
				return false
			}
		}
		return false
	case opCapture:
		at := 2 * n.index
		old0, old1 := m.caps[at], m.caps[at+1]
		if m.match(n.subs[0], i, func(j int) bool {
			p0, p1 := m.caps[at], m.caps[at+1]
			m.caps[at], m.caps[at+1] = i, j
			if k(j) {
				return true
			}
			m.caps[at], m.caps[at+1] = p0, p1
			return false
		}) {
			return true
		}
		m.caps[at], m.caps[at+1] = old0, old1
		return false
	case opRepeat:
		if n.simple {
			return m.repeatSimple(n, i, k)
		}
		if n.atomic {
			return m.atomic(&node{op: opRepeat, subs: n.subs, min: n.min, max: n.max}, i, k)
		}
		return m.repeat(n, 0, i, k)
	case opAtomic:
		return m.atomic(n.subs[0], i, k)
	case opLookahead:
		return m.around(n, i, k, func() bool { return m.match(n.subs[0], i, func(int) bool { return true }) })
	case opLookbehind:
		return m.around(n, i, k, func() bool { return m.behind(n, i) })
	case opBackref:
		b0, b1 := m.caps[2*n.index], m.caps[2*n.index+1]
		if b0 < 0 {
			return false // Java: a group that took no part matches nothing
		}
		ref := s[b0:b1]
		if !n.fold {
			return strings.HasPrefix(s[i:], ref) && k(i+len(ref))
		}
		j := i
		for _, r := range ref {
			if j >= len(s) {
				return false
			}
			c, w := utf8.DecodeRuneInString(s[j:])
			if c != r && !foldEqual(c, r) {
				return false
			}
			j += w
		}
		return k(j)
	}
	return false
}

func (m *machine) concat(subs []*node, i int, k func(int) bool) bool {
	if len(subs) == 0 {
		return k(i)
	}
	if len(subs) == 1 {
		return m.match(subs[0], i, k)
	}
	return m.match(subs[0], i, func(j int) bool { return m.concat(subs[1:], j, k) })
}

// one matches a single-rune node at i: the position after it.
func (m *machine) one(n *node, i int) (int, bool) {
	s := m.s
	if i >= len(s) {
		return 0, false
	}
	c, w := rune(s[i]), 1
	if c >= utf8.RuneSelf {
		c, w = utf8.DecodeRuneInString(s[i:])
	}
	switch n.op {
	case opAny:
		return i + w, true
	case opAnyNotNL:
		return i + w, c != '\n'
	case opLiteral:
		r := n.runes[0]
		return i + w, c == r || n.fold && foldEqual(c, r)
	case opClass:
		return i + w, inRanges(n.runes, c)
	}
	return 0, false
}

// repeatSimple repeats a node of one rune: greedy, it takes as many as it
// can and gives them back one by one; lazy, it takes one more at a time;
// possessive, it keeps all it took.
func (m *machine) repeatSimple(n *node, i int, k func(int) bool) bool {
	sub := n.subs[0]
	count, j := 0, i
	for ; count < n.min; count++ {
		next, ok := m.one(sub, j)
		if !ok {
			return false
		}
		j = next
	}
	if n.lazy {
		for {
			if k(j) {
				return true
			}
			if m.err != nil || (n.max >= 0 && count >= n.max) || !m.step() {
				return false
			}
			next, ok := m.one(sub, j)
			if !ok {
				return false
			}
			j, count = next, count+1
		}
	}
	start := j
	for n.max < 0 || count < n.max {
		next, ok := m.one(sub, j)
		if !ok {
			break
		}
		if count&63 == 0 && !m.step() {
			return false
		}
		j, count = next, count+1
	}
	if n.atomic {
		return k(j)
	}
	for {
		if k(j) {
			return true
		}
		if m.err != nil || j == start || !m.step() {
			return false
		}
		_, w := utf8.DecodeLastRuneInString(m.s[:j])
		j -= w
	}
}

// repeat matches the count-th and later iterations of a repetition.
func (m *machine) repeat(n *node, count, i int, k func(int) bool) bool {
	m.depth++
	defer func() { m.depth-- }()
	if m.depth > maxDepth {
		if m.err == nil {
			m.err = ErrTooDeep
		}
		return false
	}
	more := func() bool {
		if n.max >= 0 && count >= n.max {
			return false
		}
		return m.match(n.subs[0], i, func(j int) bool {
			if j == i {
				return k(j) // an empty iteration ends the loop, as in Java
			}
			return m.repeat(n, count+1, j, k)
		})
	}
	if n.lazy {
		if count >= n.min && k(i) {
			return true
		}
		return m.err == nil && more()
	}
	if more() {
		return true
	}
	return m.err == nil && count >= n.min && k(i)
}

// around is a lookaround at i: test tells whether its pattern matches
// there; the groups a positive one sets stay for k, a negative one's go.
func (m *machine) around(n *node, i int, k func(int) bool, test func() bool) bool {
	saved := append([]int(nil), m.caps...)
	found := test()
	if m.err != nil {
		return false
	}
	if found != n.negate {
		if n.negate {
			copy(m.caps, saved)
		}
		if k(i) {
			return true
		}
	}
	copy(m.caps, saved)
	return false
}

// atomic matches sub once, as it first matches, never backtracking into it.
func (m *machine) atomic(sub *node, i int, k func(int) bool) bool {
	saved := append([]int(nil), m.caps...)
	end := -1
	if !m.match(sub, i, func(j int) bool { end = j; return true }) {
		return false
	}
	if k(end) {
		return true
	}
	copy(m.caps, saved)
	return false
}

// behind tries the lookbehind's pattern ending at i, starting from its
// shortest length back to its longest, as Java does.
func (m *machine) behind(n *node, i int) bool {
	j := i
	for r := 0; r < n.min; r++ {
		if j == 0 {
			return false
		}
		_, w := utf8.DecodeLastRuneInString(m.s[:j])
		j -= w
	}
	for r := n.min; ; r++ {
		if m.match(n.subs[0], j, func(e int) bool { return e == i }) {
			return true
		}
		if m.err != nil || j == 0 || (n.max >= 0 && r >= n.max) {
			return false
		}
		_, w := utf8.DecodeLastRuneInString(m.s[:j])
		j -= w
	}
}

func isWordBoundary(s string, i int) bool {
	before := i > 0 && isWordByte(s[i-1])
	after := i < len(s) && isWordByte(s[i])
	return before != after
}

// isWordByte is RE2's (and Java's default) \w: ASCII letters, digits, _.
func isWordByte(b byte) bool {
	return b == '_' || '0' <= b && b <= '9' || 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z'
}

func foldEqual(a, b rune) bool {
	for f := unicode.SimpleFold(a); f != a; f = unicode.SimpleFold(f) {
		if f == b {
			return true
		}
	}
	return false
}

func inRanges(ranges []rune, c rune) bool {
	// ranges are sorted, disjoint [lo, hi] pairs.
	n := len(ranges) / 2
	i := sort.Search(n, func(i int) bool { return ranges[2*i+1] >= c })
	return i < n && ranges[2*i] <= c
}

// The parser.

type flags struct{ fold, multiline, dotNL bool }

type parser struct {
	src   string
	pos   int
	ncap  int
	names map[string]int
	refs  []int
	err   error
	depth int
}

func (p *parser) fail(format string, args ...any) *node {
	if p.err == nil {
		p.err = &SyntaxError{Msg: fmt.Sprintf(format, args...)}
	}
	p.pos = len(p.src)
	return &node{op: opEmpty}
}

func (p *parser) alternate(f flags) *node {
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > 1000 {
		return p.fail("the regex nests groups more than 1000 deep")
	}
	var alts []*node
	for {
		alts = append(alts, p.concat(&f))
		if p.pos < len(p.src) && p.src[p.pos] == '|' {
			p.pos++
			continue
		}
		break
	}
	if len(alts) == 1 {
		return alts[0]
	}
	return &node{op: opAlternate, subs: alts}
}

func (p *parser) concat(f *flags) *node {
	var items []*node
	for p.pos < len(p.src) && p.err == nil {
		c := p.src[p.pos]
		if c == '|' || c == ')' {
			break
		}
		atom := p.atom(f)
		if atom == nil {
			// A flag group matches nothing; a quantifier after it
			// applies to what came before, as in Go's parser.
			if n := len(items); n > 0 {
				items[n-1] = p.quantified(items[n-1])
			}
			continue
		}
		items = append(items, p.quantified(atom))
	}
	// Literal runs join into one node.
	var out []*node
	for _, it := range items {
		if last := len(out) - 1; last >= 0 && it.op == opLiteral && out[last].op == opLiteral && it.fold == out[last].fold {
			out[last] = &node{op: opLiteral, fold: it.fold, runes: append(append([]rune(nil), out[last].runes...), it.runes...)}
			continue
		}
		out = append(out, it)
	}
	switch len(out) {
	case 0:
		return &node{op: opEmpty}
	case 1:
		return out[0]
	}
	return &node{op: opConcat, subs: out}
}

func (p *parser) quantified(atom *node) *node {
	for p.pos < len(p.src) {
		min, max := 0, 0
		switch p.src[p.pos] {
		case '*':
			min, max = 0, -1
			p.pos++
		case '+':
			min, max = 1, -1
			p.pos++
		case '?':
			min, max = 0, 1
			p.pos++
		case '{':
			lo, hi, end, ok := parseBraces(p.src[p.pos:])
			if !ok {
				return atom // a literal {, as RE2 reads it
			}
			if lo > maxRepeat || hi > maxRepeat {
				p.fail("a repetition count above %d", maxRepeat)
				return atom
			}
			if hi >= 0 && hi < lo {
				p.fail("invalid repetition {%d,%d}", lo, hi)
				return atom
			}
			min, max = lo, hi
			p.pos += end
		default:
			return atom
		}
		rep := &node{op: opRepeat, subs: []*node{atom}, min: min, max: max}
		if p.pos < len(p.src) {
			switch p.src[p.pos] {
			case '?':
				rep.lazy = true
				p.pos++
			case '+':
				rep.atomic = true
				p.pos++
			}
		}
		switch atom.op {
		case opClass, opAny, opAnyNotNL:
			rep.simple = true
		case opLiteral:
			rep.simple = len(atom.runes) == 1
		}
		atom = rep
	}
	return atom
}

// parseBraces reads {n}, {n,} or {n,m} at the start of s: the bounds (-1:
// none), the length read, and whether it is one.
func parseBraces(s string) (lo, hi, n int, ok bool) {
	end := strings.IndexByte(s, '}')
	if end < 0 {
		return 0, 0, 0, false
	}
	body := s[1:end]
	a, b, comma := strings.Cut(body, ",")
	if len(a) > 1 && a[0] == '0' || len(b) > 1 && b[0] == '0' {
		return 0, 0, 0, false // Go's parser reads {02} as text
	}
	lo, err := strconv.Atoi(a)
	if err != nil || a == "" || a[0] == '+' || a[0] == '-' {
		return 0, 0, 0, false
	}
	hi = lo
	if comma {
		hi = -1
		if b != "" {
			if hi, err = strconv.Atoi(b); err != nil || b[0] == '+' || b[0] == '-' {
				return 0, 0, 0, false
			}
		}
	}
	return lo, hi, end + 1, true
}

// atom parses one atom; nil for a flag group (?i) that changes f.
func (p *parser) atom(f *flags) *node {
	s := p.src
	c := s[p.pos]
	switch c {
	case '(':
		return p.group(f)
	case '[':
		end := classEnd(s, p.pos)
		if end < 0 {
			return p.fail("missing ] in a character class")
		}
		text := s[p.pos:end]
		p.pos = end
		return p.viaSyntax(text, *f)
	case '.':
		p.pos++
		if f.dotNL {
			return &node{op: opAny}
		}
		return &node{op: opAnyNotNL}
	case '^':
		p.pos++
		if f.multiline {
			return &node{op: opBeginLine}
		}
		return &node{op: opBeginText}
	case '$':
		p.pos++
		if f.multiline {
			return &node{op: opEndLine}
		}
		return &node{op: opEndText}
	case '*', '+', '?':
		return p.fail("missing argument to repetition operator %c", c)
	case '\\':
		return p.escape(f)
	}
	r, w := utf8.DecodeRuneInString(s[p.pos:])
	p.pos += w
	return &node{op: opLiteral, runes: []rune{r}, fold: f.fold}
}

// classEnd returns the index after the ] closing the class at s[i].
func classEnd(s string, i int) int {
	j := i + 1
	if j < len(s) && s[j] == '^' {
		j++
	}
	if j < len(s) && s[j] == ']' {
		j++ // a ] first is a literal
	}
	for j < len(s) {
		switch {
		case s[j] == '\\':
			j += 2
		case strings.HasPrefix(s[j:], "[:"):
			if k := strings.Index(s[j+2:], ":]"); k >= 0 {
				j += k + 4
			} else {
				j++
			}
		case s[j] == ']':
			return j + 1
		default:
			j++
		}
	}
	return -1
}

func (p *parser) escape(f *flags) *node {
	s := p.src
	if p.pos+1 >= len(s) {
		return p.fail("trailing backslash at end of expression")
	}
	c := s[p.pos+1]
	switch {
	case c >= '1' && c <= '9':
		// Java: \1 to \9 always, a further digit while that many groups
		// exist by then.
		n := int(c - '0')
		p.pos += 2
		for p.pos < len(s) && s[p.pos] >= '0' && s[p.pos] <= '9' {
			next := n*10 + int(s[p.pos]-'0')
			if next > p.ncap {
				break
			}
			n = next
			p.pos++
		}
		p.refs = append(p.refs, n)
		return &node{op: opBackref, index: n, fold: f.fold}
	case c == 'k' && p.pos+2 < len(s) && s[p.pos+2] == '<':
		end := strings.IndexByte(s[p.pos+3:], '>')
		if end < 0 {
			return p.fail("a named backreference without its closing >")
		}
		name := s[p.pos+3 : p.pos+3+end]
		idx, ok := p.names[name]
		if !ok {
			return p.fail("named capturing group <%s> does not exist", name)
		}
		p.pos += 3 + end + 1
		return &node{op: opBackref, index: idx, fold: f.fold}
	case c == '0':
		// An octal escape, \0 to \0377, as RE2 reads it.
		end := p.pos + 2
		for end < len(s) && end < p.pos+4 && s[end] >= '0' && s[end] <= '7' {
			end++
		}
		text := s[p.pos:end]
		p.pos = end
		return p.viaSyntax(text, *f)
	case c == 'A' || c == 'z' || c == 'b' || c == 'B':
		p.pos += 2
		return &node{op: map[byte]op{'A': opBeginText, 'z': opEndText, 'b': opWordBoundary, 'B': opNoWordBoundary}[c]}
	case c == 'Q':
		end := strings.Index(s[p.pos+2:], `\E`)
		text := s[p.pos+2:]
		if end >= 0 {
			text = text[:end]
			p.pos += 2 + end + 2
		} else {
			p.pos = len(s)
		}
		if text == "" {
			return &node{op: opEmpty}
		}
		var runes []rune
		for _, r := range text {
			runes = append(runes, r)
		}
		return &node{op: opLiteral, runes: runes, fold: f.fold}
	case c == 'p' || c == 'P' || c == 'x':
		end := p.pos + 2
		if end < len(s) && s[end] == '{' {
			k := strings.IndexByte(s[end:], '}')
			if k < 0 {
				return p.fail("missing } in %s", s[p.pos:])
			}
			end += k + 1
		} else if c == 'x' {
			end = min(len(s), end+2)
		} else {
			end = min(len(s), end+1)
		}
		text := s[p.pos:end]
		p.pos = end
		return p.viaSyntax(text, *f)
	}
	p.pos += 2
	return p.viaSyntax(s[p.pos-2:p.pos], *f)
}

// viaSyntax reads a class or an escape with Go's parser, so that classes
// mean here what they mean to RE2.
func (p *parser) viaSyntax(text string, f flags) *node {
	fl := syntax.Perl
	if f.fold {
		fl |= syntax.FoldCase
	}
	if f.dotNL {
		fl |= syntax.DotNL
	}
	re, err := syntax.Parse(text, fl)
	if err != nil {
		return p.fail("%s", strings.TrimPrefix(err.Error(), "error parsing regexp: "))
	}
	switch re.Op {
	case syntax.OpCharClass:
		return &node{op: opClass, runes: re.Rune}
	case syntax.OpLiteral:
		return &node{op: opLiteral, runes: re.Rune, fold: re.Flags&syntax.FoldCase != 0}
	case syntax.OpAnyChar:
		return &node{op: opAny}
	case syntax.OpAnyCharNotNL:
		return &node{op: opAnyNotNL}
	case syntax.OpEmptyMatch:
		return &node{op: opEmpty}
	case syntax.OpNoMatch:
		return &node{op: opClass}
	}
	return p.fail("unsupported escape %s", text)
}

func (p *parser) group(f *flags) *node {
	s := p.src
	p.pos++ // (
	inner := *f
	var build func(*node) *node
	switch {
	case strings.HasPrefix(s[p.pos:], "?="), strings.HasPrefix(s[p.pos:], "?!"):
		negate := s[p.pos+1] == '!'
		p.pos += 2
		build = func(sub *node) *node { return &node{op: opLookahead, subs: []*node{sub}, negate: negate} }
	case strings.HasPrefix(s[p.pos:], "?<="), strings.HasPrefix(s[p.pos:], "?<!"):
		negate := s[p.pos+2] == '!'
		p.pos += 3
		build = func(sub *node) *node {
			lo, hi := runeLengths(sub)
			if hi < 0 {
				return p.fail("a lookbehind must have a bounded length (Java: no obvious maximum length): write {0,n} for * or +")
			}
			return &node{op: opLookbehind, subs: []*node{sub}, negate: negate, min: lo, max: hi}
		}
	case strings.HasPrefix(s[p.pos:], "?>"):
		p.pos += 2
		build = func(sub *node) *node { return &node{op: opAtomic, subs: []*node{sub}} }
	case strings.HasPrefix(s[p.pos:], "?P<"), strings.HasPrefix(s[p.pos:], "?<"):
		start := p.pos + 2
		if s[p.pos+1] == 'P' {
			start++
		}
		end := strings.IndexByte(s[start:], '>')
		if end <= 0 {
			return p.fail("invalid named group")
		}
		name := s[start : start+end]
		if _, dup := p.names[name]; dup {
			return p.fail("duplicate group name %s", name)
		}
		p.ncap++
		idx := p.ncap
		p.names[name] = idx
		p.pos = start + end + 1
		build = func(sub *node) *node { return &node{op: opCapture, subs: []*node{sub}, index: idx} }
	case strings.HasPrefix(s[p.pos:], "?"):
		// Flags: (?i) for the rest of the group, (?i:...) for a group.
		j := p.pos + 1
		on := true
		for ; j < len(s) && s[j] != ')' && s[j] != ':'; j++ {
			switch s[j] {
			case '-':
				on = false
			case 'i':
				inner.fold = on
			case 'm':
				inner.multiline = on
			case 's':
				inner.dotNL = on
			case 'U':
			default:
				return p.fail("invalid or unsupported group flag %q", s[j])
			}
		}
		if j >= len(s) {
			return p.fail("missing )")
		}
		p.pos = j + 1
		if s[j] == ')' {
			*f = inner
			return nil
		}
		build = func(sub *node) *node { return sub }
	default:
		p.ncap++
		idx := p.ncap
		build = func(sub *node) *node { return &node{op: opCapture, subs: []*node{sub}, index: idx} }
	}
	sub := p.alternate(inner)
	if p.err != nil {
		return sub
	}
	if p.pos >= len(s) || s[p.pos] != ')' {
		return p.fail("missing )")
	}
	p.pos++
	return build(sub)
}

// runeLengths returns the fewest and most runes n can match (-1: no most).
func runeLengths(n *node) (lo, hi int) {
	switch n.op {
	case opLiteral:
		return len(n.runes), len(n.runes)
	case opClass, opAny, opAnyNotNL:
		return 1, 1
	case opConcat:
		for _, s := range n.subs {
			l, h := runeLengths(s)
			lo += l
			if hi >= 0 {
				if h < 0 {
					hi = -1
				} else {
					hi += h
				}
			}
		}
		return lo, hi
	case opAlternate:
		lo = -1
		for _, s := range n.subs {
			l, h := runeLengths(s)
			if lo < 0 || l < lo {
				lo = l
			}
			if hi >= 0 && (h < 0 || h > hi) {
				hi = h
			}
		}
		return max(lo, 0), hi
	case opRepeat:
		l, h := runeLengths(n.subs[0])
		lo = l * n.min
		switch {
		case n.max < 0 || h < 0:
			hi = -1
		default:
			hi = h * n.max
		}
		return lo, hi
	case opCapture, opAtomic:
		return runeLengths(n.subs[0])
	case opBackref:
		return 0, -1
	}
	return 0, 0 // the empty match and the assertions
}
