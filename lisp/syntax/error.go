package syntax

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Error is one syntax error.
type Error struct {
	Pos Pos    // where the problem is
	Msg string // what is wrong, phrased so an LLM can fix it
	// Opened is where the opening delimiter was, for unclosed and mismatched
	// delimiters; the zero Pos otherwise.
	Opened Pos
}

// Error returns "<pos>: <msg>", e.g. "3:14: unclosed '(' opened at 1:1".
func (e *Error) Error() string {
	if !e.Pos.IsValid() {
		return e.Msg
	}
	return e.Pos.String() + ": " + e.Msg
}

// ErrorList is the error Read returns: every error found, in source order
// (never empty when returned as an error).
type ErrorList []*Error

// Error returns the first error, plus a count of the others.
func (l ErrorList) Error() string {
	switch len(l) {
	case 0:
		return "no errors"
	case 1:
		return l[0].Error()
	case 2:
		return l[0].Error() + " (and 1 more error)"
	}
	return l[0].Error() + " (and " + strconv.Itoa(len(l)-1) + " more errors)"
}

// Unwrap exposes the individual errors to errors.Is and errors.As.
func (l ErrorList) Unwrap() []error {
	errs := make([]error, len(l))
	for i, e := range l {
		errs[i] = e
	}
	return errs
}

// Snippet returns the line of src containing pos and, below it, a caret '^'
// under pos's column, for showing an error in context:
//
//	(let [x 1) x)
//	         ^
//
// Tabs are kept (and copied into the caret line so the caret stays aligned).
// Lines longer than width code points are cut to about width code points
// around the column, with "..." marking each cut; width <= 0 never cuts.
// Invalid UTF-8 and control characters are shown as U+FFFD. A position at
// the very end of input after a final newline is shown at the end of the
// last line, where a reader of the snippet expects "end of input" to be.
// Snippet returns "" if pos.Offset is not within src.
func Snippet(src string, pos Pos, width int) string {
	off := int(pos.Offset)
	if off < 0 || off > len(src) {
		return ""
	}
	start := strings.LastIndexByte(src[:off], '\n') + 1
	if off == len(src) && start == off && start > 0 {
		// End of input on an empty last line: point just past the previous line.
		off--
		start = strings.LastIndexByte(src[:off], '\n') + 1
	}
	end := len(src)
	if i := strings.IndexByte(src[off:], '\n'); i >= 0 {
		end = off + i
	}
	line := []rune(strings.TrimSuffix(src[start:end], "\r"))
	col := utf8.RuneCountInString(src[start:off])
	if col > len(line) {
		col = len(line) // pointing at a trailing CR
	}
	for i, c := range line {
		if c != '\t' && unicode.IsControl(c) {
			line[i] = utf8.RuneError
		}
	}

	lo, hi := 0, len(line)
	if width > 0 && len(line) > width {
		lo = max(col-width/2, 0)
		hi = lo + width
		if hi > len(line) {
			hi = len(line)
			lo = max(hi-width, 0)
		}
	}
	var b strings.Builder
	var caret strings.Builder
	if lo > 0 {
		b.WriteString("...")
		caret.WriteString("   ")
	}
	b.WriteString(string(line[lo:hi]))
	if hi < len(line) {
		b.WriteString("...")
	}
	for _, c := range line[lo:min(col, hi)] {
		switch {
		case c == '\t':
			caret.WriteByte('\t')
		case unicode.In(c, unicode.Mn, unicode.Me) || c == 0x200D:
			// Zero width: combines with the previous character.
		default:
			caret.WriteByte(' ')
		}
	}
	caret.WriteByte('^')
	b.WriteByte('\n')
	b.WriteString(caret.String())
	return b.String()
}
