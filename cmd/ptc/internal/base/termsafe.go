package base

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/ptc-go/ptc/internal/textutil"
)

// What ptc prints comes in good part from others: the programs a model
// wrote and their output, tools' names, descriptions and results, MCP
// servers' messages, the texts of trace and transcript files, agent files.
// A terminal obeys control sequences in that text (ESC [2J clears the
// screen, OSC 52 writes the clipboard, OSC 8 makes a link that shows
// another address), and bidirectional overrides make text read otherwise
// than it is. So the commands that print such text (ptc run, ptc trace,
// ptc mcp, ptc conform) write their stdout and stderr through TermWriter,
// and fields that must stay on one line (a tool's name) go through
// TermLine: both escape the runes termUnsafe names, with one function,
// termEscape.
//
// The escape is \u00XX (\uXXXX, a surrogate pair beyond U+FFFF), which
// means the same character inside a JSON string and a PTC-Lisp string:
// the --json outputs stay valid JSON with the same values, and a printed
// value reads back. A byte that is not UTF-8 is \xXX (encoding/json
// never writes one).

// termUnsafe reports whether r must not reach a terminal as it is: the C0
// controls (ESC, BEL, CR, BS...; the caller decides for \n and \t), DEL,
// the C1 controls (U+0080–U+009F, CSI and OSC among them), every format
// character (Unicode category Cf: the bidirectional embeddings, overrides
// and isolates U+202A–U+202E and U+2066–U+2069, the marks U+200E, U+200F
// and U+061C, the zero-width U+200B–U+200D, U+2060 and U+FEFF, the soft
// hyphen, the invisible tags U+E0000–U+E007F...), the line and paragraph
// separators U+2028 and U+2029, and the noncharacters U+FFFE and U+FFFF.
func termUnsafe(r rune) bool {
	switch {
	case r < 0x20 || r == 0x7f:
		return true
	case r < 0xa0:
		return r >= 0x80
	case r < 0x300:
		return r == 0xad // soft hyphen: the one Cf below U+0300
	}
	return r == 0x2028 || r == 0x2029 || r == 0xfffe || r == 0xffff || unicode.Is(unicode.Cf, r)
}

// termEscape returns s with every termUnsafe rune, and every byte that is
// not UTF-8, escaped; \n and \t are kept when multiline (and escaped
// otherwise). Text with nothing to escape comes back as it is.
func termEscape(s string, multiline bool) string {
	i := 0
	for i < len(s) {
		c := s[i]
		if c >= 0x20 && c < 0x7f || multiline && (c == '\n' || c == '\t') {
			i++
			continue
		}
		if c >= utf8.RuneSelf {
			r, n := utf8.DecodeRuneInString(s[i:])
			if r != utf8.RuneError && !termUnsafe(r) {
				i += n
				continue
			}
		}
		break
	}
	if i == len(s) {
		return s
	}
	var sb strings.Builder
	sb.Grow(len(s) + 16)
	sb.WriteString(s[:i])
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c < 0x7f || multiline && (c == '\n' || c == '\t') {
				sb.WriteByte(c)
			} else {
				fmt.Fprintf(&sb, `\u%04x`, c)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&sb, `\x%02x`, c)
		case !termUnsafe(r):
			sb.WriteString(s[i : i+n])
		case r > 0xffff:
			r1, r2 := utf16Pair(r)
			fmt.Fprintf(&sb, `\u%04x\u%04x`, r1, r2)
		default:
			fmt.Fprintf(&sb, `\u%04x`, r)
		}
		i += n
	}
	return sb.String()
}

func utf16Pair(r rune) (rune, rune) {
	r -= 0x10000
	return 0xd800 + (r>>10)&0x3ff, 0xdc00 + r&0x3ff
}

// TermSafe is s fit for a terminal, lines and tabs kept.
func TermSafe(s string) string { return termEscape(s, true) }

// TermLine is s fit for a terminal on one line: a newline is escaped too.
func TermLine(s string) string { return termEscape(s, false) }

// TermWriter writes to w what is written to it through TermSafe. A rune
// split between two writes is held until the next one (Flush writes what
// is held at the end).
type TermWriter struct {
	mu      sync.Mutex
	w       io.Writer
	pending []byte // the start of a rune cut by the end of a write
}

// NewTermWriter returns w behind a TermWriter (w itself if it is one).
func NewTermWriter(w io.Writer) *TermWriter {
	if tw, ok := w.(*TermWriter); ok {
		return tw
	}
	return &TermWriter{w: w}
}

func (t *TermWriter) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	buf := p
	if len(t.pending) > 0 {
		buf = append(t.pending, p...)
		t.pending = nil
	}
	// Hold back the start of a rune that the write cut.
	if cut := incompleteTail(buf); cut > 0 {
		t.pending = append([]byte(nil), buf[len(buf)-cut:]...)
		buf = buf[:len(buf)-cut]
	}
	if _, err := io.WriteString(t.w, TermSafe(string(buf))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush writes, escaped, the bytes held back as the start of a rune.
func (t *TermWriter) Flush() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.pending) == 0 {
		return nil
	}
	_, err := io.WriteString(t.w, TermSafe(string(t.pending)))
	t.pending = nil
	return err
}

// incompleteTail is the number of bytes at the end of b that start a
// UTF-8 sequence which b cuts (0 when none).
func incompleteTail(b []byte) int {
	for n := 1; n <= utf8.UTFMax-1 && n <= len(b); n++ {
		c := b[len(b)-n]
		if c < utf8.RuneSelf {
			return 0
		}
		if utf8.RuneStart(c) {
			if !utf8.FullRune(b[len(b)-n:]) {
				return n
			}
			return 0
		}
	}
	return 0
}

// TermWrapped runs f with stdout and stderr behind termWriters: the
// commands that print others' text run so.
func TermWrapped(stdout, stderr io.Writer, f func(stdout, stderr io.Writer) int) int {
	o, e := NewTermWriter(stdout), NewTermWriter(stderr)
	code := f(o, e)
	o.Flush()
	e.Flush()
	return code
}

// QuoteShort quotes a piece of a file for an error message: at most 40
// characters of it, Go-quoted (so escaped for a terminal).
func QuoteShort(s string) string {
	return fmt.Sprintf("%q", ClipText(s, 40))
}

// ClipMessage bounds an error message that may quote a file (a parser's
// message naming a token): at most n characters, on one line, safe.
func ClipMessage(s string, n int) string {
	return TermLine(ClipText(s, n))
}

// ClipText cuts s to n characters, marking the cut.
func ClipText(s string, n int) string { return textutil.Clip(s, n) }
