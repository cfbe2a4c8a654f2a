package base

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ptc-go/ptc/cmd/ptc/internal/clitest"
)

// TestTermEscape: what termEscape escapes, how, and that JSON reads the
// escapes back as the text.
func TestTermEscape(t *testing.T) {
	tests := []struct{ in, line, multi string }{
		{"plain text, → ✓ 日本", "plain text, → ✓ 日本", "plain text, → ✓ 日本"},
		{"a\nb\tc", `a\u000ab\u0009c`, "a\nb\tc"},
		{"\x1b]0;t\x07", `\u001b]0;t\u0007`, `\u001b]0;t\u0007`},
		{"\r\x7f\u0085\u202e\u2066\u200b\u2028\ufeff", `\u000d\u007f\u0085\u202e\u2066\u200b\u2028\ufeff`, `\u000d\u007f\u0085\u202e\u2066\u200b\u2028\ufeff`},
		{"\U000E0041", `\udb40\udc41`, `\udb40\udc41`},
		{"\xff€\xe2\x82", `\xff€\xe2\x82`, `\xff€\xe2\x82`},
	}
	for _, tt := range tests {
		if got := TermLine(tt.in); got != tt.line {
			t.Errorf("termLine(%q) = %q, want %q", tt.in, got, tt.line)
		}
		if got := TermSafe(tt.in); got != tt.multi {
			t.Errorf("termSafe(%q) = %q, want %q", tt.in, got, tt.multi)
		}
	}
	for _, h := range clitest.HostileTexts() {
		clitest.CheckTermSafe(t, "termLine", TermLine(h))
		if !utf8.ValidString(h) {
			continue
		}
		b, _ := json.Marshal(h)
		var back string
		if err := json.Unmarshal([]byte(TermSafe(string(b))), &back); err != nil || back != h {
			t.Errorf("JSON of %q escaped: %v, read back %q", h, err, back)
		}
	}
}

// TestTermWriterSplitRunes: a rune cut between two writes passes whole.
func TestTermWriterSplitRunes(t *testing.T) {
	var sb strings.Builder
	w := NewTermWriter(&sb)
	text := "a→b\u202ec日"
	for i := range len(text) {
		w.Write([]byte{text[i]})
	}
	w.Write([]byte("\xe2"))
	w.Flush()
	if got, want := sb.String(), `a→b\u202ec日\xe2`; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
