package main

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// vtScreen is a small terminal emulator for the tests: enough of VT100 to
// check what the line editor draws (cursor moves, line wrap, clearing).
type vtScreen struct {
	width    int
	lines    [][]rune
	row, col int
	wrap     bool // the cursor is past the last column (pending wrap)
	pend     []byte
}

func newVTScreen(width int) *vtScreen { return &vtScreen{width: width} }

func (v *vtScreen) Write(p []byte) (int, error) {
	data := append(v.pend, p...)
	v.pend = nil
	for i := 0; i < len(data); {
		b := data[i]
		switch {
		case b == 0x1b:
			n, ok := v.escape(data[i:])
			if !ok {
				v.pend = append([]byte(nil), data[i:]...)
				return len(p), nil
			}
			i += n
			continue
		case b == '\r':
			v.col, v.wrap = 0, false
		case b == '\n':
			v.row++
			v.wrap = false
		case b < 0x20:
		default:
			if !utf8.FullRune(data[i:]) {
				v.pend = append([]byte(nil), data[i:]...)
				return len(p), nil
			}
			r, size := utf8.DecodeRune(data[i:])
			v.put(r)
			i += size
			continue
		}
		i++
	}
	return len(p), nil
}

func (v *vtScreen) line(r int) []rune {
	for len(v.lines) <= r {
		v.lines = append(v.lines, nil)
	}
	return v.lines[r]
}

func (v *vtScreen) put(r rune) {
	if v.wrap {
		v.row, v.col, v.wrap = v.row+1, 0, false
	}
	l := v.line(v.row)
	for len(l) <= v.col {
		l = append(l, ' ')
	}
	l[v.col] = r
	v.lines[v.row] = l
	if v.col == v.width-1 {
		v.wrap = true
	} else {
		v.col++
	}
}

// escape interprets one escape sequence at the start of s and returns its
// length; ok is false when s ends inside it.
func (v *vtScreen) escape(s []byte) (int, bool) {
	if len(s) < 2 {
		return 0, false
	}
	if s[1] != '[' {
		return 2, true
	}
	i := 2
	for i < len(s) && (s[i] < 0x40 || s[i] > 0x7e) {
		i++
	}
	if i == len(s) {
		return 0, false
	}
	params, final := string(s[2:i]), s[i]
	n := 1
	if p, err := strconv.Atoi(params); err == nil {
		n = p
	}
	switch final {
	case 'A':
		v.row = max(0, v.row-n)
	case 'B':
		v.row += n
	case 'C':
		v.col = min(v.width-1, v.col+n)
	case 'D':
		v.col = max(0, v.col-n)
	case 'H':
		v.row, v.col = 0, 0
	case 'J':
		if params == "2" {
			v.lines = nil
			break
		}
		l := v.line(v.row)
		if v.col < len(l) {
			v.lines[v.row] = l[:v.col]
		}
		if v.row+1 < len(v.lines) {
			v.lines = v.lines[:v.row+1]
		}
	case 'K':
		l := v.line(v.row)
		if v.col < len(l) {
			v.lines[v.row] = l[:v.col]
		}
	}
	v.wrap = false
	return i + 1, true
}

// text returns the screen's lines without trailing blanks.
func (v *vtScreen) text() string {
	var lines []string
	for _, l := range v.lines {
		lines = append(lines, strings.TrimRight(string(l), " "))
	}
	return strings.TrimRight(strings.Join(lines, "\n"), "\n")
}
