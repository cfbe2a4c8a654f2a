package syntax

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// MaxSource is the largest source text Read accepts: offsets are 32-bit,
// which keeps every node small.
const MaxSource = 1 << 30

// Pos is a location in source text. Line and Col are 1-based; Col counts
// Unicode code points (an invalid UTF-8 byte counts as one); Offset is the
// 0-based byte offset.
type Pos struct {
	Offset, Line, Col int32
}

// String returns "line:col", e.g. "3:14".
func (p Pos) String() string {
	return strconv.Itoa(int(p.Line)) + ":" + strconv.Itoa(int(p.Col))
}

// IsValid reports whether p is a real position (the zero Pos is not).
func (p Pos) IsValid() bool { return p.Line > 0 }

// Span is the extent of a form as byte offsets into its source: Start is
// the offset of its first byte, Stop just past its last. Nodes keep only
// offsets (a line and column for every node would double the size of the
// small ones); Lines turns an offset into a Pos when one is needed.
type Span struct {
	Start, Stop int32
}

// Bounds returns the span of the form.
func (s Span) Bounds() Span { return s }

// Lines turns byte offsets into one source text into positions. The zero
// Lines is not usable: make one with LinesOf. Its table of line starts is
// built on first use, so a program whose positions are never asked for
// does not pay for it, and a one-line program never allocates.
type Lines struct {
	src string
	// The offsets of the starts of lines 2, 3, ...: in small when there
	// are few (no allocation), else in big.
	small [4]int32
	big   []int32
	n     int
	built bool
	// The current line: the line (0-based) of the last position asked
	// for, and its 1-based number. When it is all ASCII, lo and hi are
	// its start and end offsets, where Pos answers at once; else hi == lo.
	cur    int
	line1  int32
	lo, hi int32
	seen   bool
}

// LinesOf returns the Lines of src.
func LinesOf(src string) Lines { return Lines{src: src} }

// Pos returns the position of byte offset off of the source.
func (l *Lines) Pos(off int32) Pos {
	// Positions are mostly asked for in source order, on lines without
	// non-ASCII characters: the line of the last one answers at once.
	if l.lo <= off && off < l.hi {
		return Pos{Offset: off, Line: l.line1, Col: off - l.lo + 1}
	}
	return l.pos(off)
}

func (l *Lines) pos(off int32) Pos {
	if !l.built {
		l.build()
	}
	line := l.cur
	if !l.holds(line, off) {
		if line++; !l.holds(line, off) {
			// The number of line starts at or before off.
			lo, hi := 0, l.n
			for lo < hi {
				m := int(uint(lo+hi) >> 1)
				if l.start(m+1) <= off {
					lo = m + 1
				} else {
					hi = m
				}
			}
			line = lo
		}
	}
	start := l.start(line)
	if line != l.cur || !l.seen {
		// A new current line: note its extent and whether it is ASCII.
		end := int32(len(l.src)) + 1 // the end of input is on the last line
		if line < l.n {
			end = l.start(line + 1)
		}
		l.cur, l.seen, l.line1 = line, true, int32(line+1)
		text := l.src[start:min(int(end), len(l.src))]
		l.lo, l.hi = start, start // no fast path on a non-ASCII line
		if indexNonASCII(text) == len(text) {
			l.hi = end
		}
	}
	text := l.src[start:min(int(off), len(l.src))]
	col := len(text)
	if l.hi == l.lo {
		col = utf8.RuneCountInString(text)
	}
	return Pos{Offset: off, Line: int32(line + 1), Col: int32(col + 1)}
}

// holds reports whether off is on the 0-based line i.
func (l *Lines) holds(i int, off int32) bool {
	return i <= l.n && l.start(i) <= off && (i == l.n || off < l.start(i+1))
}

// start returns the offset where the 0-based line i starts.
func (l *Lines) start(i int) int32 {
	switch {
	case i == 0:
		return 0
	case l.big != nil:
		return l.big[i-1]
	}
	return l.small[i-1]
}

func (l *Lines) build() {
	l.built = true
	l.n = strings.Count(l.src, "\n")
	if l.n > len(l.small) {
		l.big = make([]int32, 0, l.n)
	}
	for i, k := 0, 0; ; k++ {
		j := strings.IndexByte(l.src[i:], '\n')
		if j < 0 {
			break
		}
		i += j + 1
		if l.big != nil {
			l.big = append(l.big, int32(i))
		} else {
			l.small[k] = int32(i)
		}
	}
}
