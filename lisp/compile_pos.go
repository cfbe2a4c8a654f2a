package lisp

import (
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/ptc-go/ptc/lisp/syntax"
)

// srcLines turns the byte offsets of the analyzed nodes into positions,
// exactly as syntax.Lines does, for the errors of compiled code (see
// srcPositions), which may ask in any order. syntax.Lines answers at once
// only on the line of its last answer and scans a line again for
// non-ASCII bytes each time it comes back to it; here a table of the line
// at every 64th offset finds any line in a step or two, and each line is
// scanned once.
type srcLines struct {
	src    string
	starts []int32 // starts[i]: the offset where the 0-based line i starts
	blocks []int32 // blocks[b]: the line holding offset b<<linesBlockShift
	ascii  []uint8 // per line: 0 not known yet, lineASCII or lineNonASCII
	// A one-line source (most are) has no tables, and takes no
	// allocation: line0 is its ASCII flag.
	line0 uint8
	built bool
	// A source of a few lines (W1's "(+ 1 2)" and its newline) keeps its
	// tables here, small of them, with no allocation and no block index.
	// (Slices of these arrays are made where they are used, never kept in
	// the struct: a pointer into itself would move every compiler to the
	// heap.)
	small       int
	smallStarts [smallLines]int32
	smallASCII  [smallLines]uint8
	// The last line asked for, when it is ASCII: its start and end
	// offsets (lo < hi) and its number; a position on it needs no lookup.
	lo, hi, line1 int32
}

const linesBlockShift = 6

// smallLines is the most lines kept in srcLines itself.
const smallLines = 8

const (
	lineASCII = 1 + iota
	lineNonASCII
)

// build makes the tables of the lines of src.
func (l *srcLines) build(src string) {
	l.src, l.built = src, true
	n := strings.Count(src, "\n")
	if n == 0 {
		return
	}
	var starts []int32
	if n < smallLines {
		l.small = n + 1
		starts = l.smallStarts[:n+1]
	} else {
		nb := len(src)>>linesBlockShift + 1
		buf := make([]int32, n+1+nb)
		l.starts, l.blocks, l.ascii = buf[:n+1:n+1], buf[n+1:], make([]uint8, n+1)
		starts = l.starts
	}
	for i, k := 0, 1; k <= n; k++ {
		i += strings.IndexByte(src[i:], '\n') + 1
		starts[k] = int32(i)
	}
	line := 0
	for b := range l.blocks {
		off := int32(b << linesBlockShift)
		for line < n && l.starts[line+1] <= off {
			line++
		}
		l.blocks[b] = int32(line)
	}
}

// pos returns the position of the byte offset off (off >= 0).
func (l *srcLines) pos(off int32) syntax.Pos {
	if l.lo <= off && off < l.hi {
		return syntax.Pos{Offset: off, Line: l.line1, Col: off - l.lo + 1}
	}
	line, last, start, flag := 0, 0, int32(0), &l.line0
	starts, ascii := l.starts, l.ascii
	if l.small > 0 {
		starts, ascii = l.smallStarts[:l.small], l.smallASCII[:l.small]
	}
	if starts != nil {
		last = len(starts) - 1
		if len(l.blocks) > 0 {
			b := min(int(off>>linesBlockShift), len(l.blocks)-1) // past the end: on the last line
			line = int(l.blocks[b])
		}
		for line < last && starts[line+1] <= off {
			line++
		}
		start, flag = starts[line], &ascii[line]
	}
	stop := int32(len(l.src))
	if line < last {
		stop = starts[line+1]
	}
	if *flag == 0 {
		*flag = lineNonASCII
		if isASCII(l.src[start:stop]) {
			*flag = lineASCII
		}
	}
	end := min(off, int32(len(l.src)))
	col := end - start
	if *flag == lineASCII {
		if line == last {
			stop++ // the end of input is on the last line
		}
		l.lo, l.hi, l.line1 = start, stop, int32(line+1)
	} else {
		col = int32(utf8.RuneCountInString(l.src[start:end]))
	}
	return syntax.Pos{Offset: off, Line: int32(line + 1), Col: col + 1}
}

// isASCII reports whether s holds no byte of 0x80 or above, reading it
// four words at a time.
func isASCII(s string) bool {
	for len(s) >= 32 {
		if (load8(s)|load8(s[8:])|load8(s[16:])|load8(s[24:]))&0x8080808080808080 != 0 {
			return false
		}
		s = s[32:]
	}
	for len(s) >= 8 {
		if load8(s)&0x8080808080808080 != 0 {
			return false
		}
		s = s[8:]
	}
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// srcPositions turns the offsets that compiled code holds (posT) into the
// positions of its errors. It does so only when an error needs one: the
// table of lines is made on the first, so that a program that fails
// nowhere, as most do, costs none of it.
type srcPositions struct {
	src string
	// mu guards the rest: compiled code may fail in several runs at once.
	mu    sync.Mutex
	lines srcLines
	// seen holds the positions given already: a column on a non-ASCII line
	// counts the runes before it, and a program may fail at the same place
	// again and again (a caught error in a loop). It holds at most one
	// entry per position the program has.
	seen map[int32]syntax.Pos
}

// pos returns the position of the byte offset off (off >= 0).
func (s *srcPositions) pos(off int32) syntax.Pos {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p, ok := s.seen[off]; ok {
		return p
	}
	if !s.lines.built {
		s.lines.build(s.src)
	}
	p := s.lines.pos(off)
	if s.seen == nil {
		s.seen = make(map[int32]syntax.Pos)
	}
	s.seen[off] = p
	return p
}
