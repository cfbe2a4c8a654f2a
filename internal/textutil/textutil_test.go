package textutil

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestPlural(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want string
	}{
		{0, "0 turns"}, {1, "1 turn"}, {2, "2 turns"}, {999, "999 turns"},
		{1000, "1,000 turns"}, {12345, "12,345 turns"}, {-1, "-1 turns"},
	} {
		if got := Plural(tc.n, "turn"); got != tc.want {
			t.Errorf("Plural(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
}

func TestThousands(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want string
	}{
		{0, "0"}, {7, "7"}, {999, "999"}, {1000, "1,000"}, {12345, "12,345"},
		{100000, "100,000"}, {1234567, "1,234,567"}, {-999, "-999"}, {-1234, "-1,234"},
		{-123456, "-123,456"}, {-9223372036854775808, "-9,223,372,036,854,775,808"},
	} {
		if got := Thousands(tc.n); got != tc.want {
			t.Errorf("Thousands(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
}

func TestOneLine(t *testing.T) {
	for in, want := range map[string]string{
		"":                      "",
		"  one  ":               "one",
		"a\nb\r\n\tc":           "a b c",
		"already one line":      "already one line",
		"\u00a0wide\u2003space": "wide space",
	} {
		if got := OneLine(in); got != want {
			t.Errorf("OneLine(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestFirstLine(t *testing.T) {
	tests := []struct {
		in   string
		n    int
		want string
	}{
		{"", 10, ""},
		{"  one  ", 10, "one"},
		{"first\nsecond", 10, "first …"},
		{"first\r\n  \n", 10, "first"},
		{"a long first line\nmore", 6, Clip("a long first line", 6)},
	}
	for _, tt := range tests {
		if got := FirstLine(tt.in, tt.n); got != tt.want {
			t.Errorf("FirstLine(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
		}
	}
}

func TestTruncate(t *testing.T) {
	for _, tc := range []struct {
		s     string
		n     int
		bytes string // TruncateBytes
		runes string // TruncateRunes
		clip  string // Clip
	}{
		{"hello", 10, "hello", "hello", "hello"},
		{"hello", 5, "hello", "hello", "hello"},
		{"hello", 3, "hel", "hel", "hel…"},
		{"hello", 0, "", "", "…"},
		{"hello", -1, "", "hello", "hello"},
		{"héllo", 2, "h", "hé", "hé…"}, // é is two bytes: a byte cut backs off to the boundary
		{"héllo", 3, "hé", "hél", "hél…"},
		{"日本語", 4, "日", "日本語", "日本語"},
		{"日本語", 2, "", "日本", "日本…"},
		{"", 3, "", "", ""},
	} {
		if got := TruncateBytes(tc.s, tc.n); got != tc.bytes {
			t.Errorf("TruncateBytes(%q, %d) = %q, want %q", tc.s, tc.n, got, tc.bytes)
		}
		if got := TruncateRunes(tc.s, tc.n); got != tc.runes {
			t.Errorf("TruncateRunes(%q, %d) = %q, want %q", tc.s, tc.n, got, tc.runes)
		}
		if got := Clip(tc.s, tc.n); got != tc.clip {
			t.Errorf("Clip(%q, %d) = %q, want %q", tc.s, tc.n, got, tc.clip)
		}
	}
}

// TestTruncateBytesKeepsUTF8 checks every cut of a mixed text: never more
// than n bytes, never a broken character, never more than 3 bytes short.
func TestTruncateBytesKeepsUTF8(t *testing.T) {
	s := "aé日𝄞b"
	for n := 0; n <= len(s)+1; n++ {
		got := TruncateBytes(s, n)
		if len(got) > n || !utf8.ValidString(got) || !strings.HasPrefix(s, got) || min(n, len(s))-len(got) > 3 {
			t.Errorf("TruncateBytes(%q, %d) = %q", s, n, got)
		}
	}
}

func TestEditDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b  string
		limit int
		want  int
	}{
		{"filter", "filter", 3, 0},
		{"fitler", "filter", 3, 2},
		{"fliter", "filter", 3, 2},
		{"map", "mapv", 3, 1},
		{"kitten", "sitting", 10, 3},
		{"", "abc", 10, 3},
		{"abc", "", 10, 3},
		{"kitten", "sitting", 3, 3}, // at the limit: the limit
		{"abcdef", "uvwxyz", 3, 3},  // far beyond it: the limit
		{"a", "abcdefgh", 3, 3},     // lengths alone say so
		{"x", "y", 0, 0},
		{"x", "y", -1, -1},
	} {
		if got := EditDistance(tc.a, tc.b, tc.limit); got != tc.want {
			t.Errorf("EditDistance(%q, %q, %d) = %d, want %d", tc.a, tc.b, tc.limit, got, tc.want)
		}
	}
}

// TestEditDistanceGivesUp checks that a long pair far apart gives up
// early: the limit bounds the answer, and lengths far apart cost nothing.
func TestEditDistanceGivesUp(t *testing.T) {
	long := strings.Repeat("a", 1<<20)
	if got := EditDistance("a", long, 3); got != 3 {
		t.Errorf("got %d, want 3", got)
	}
	if got := EditDistance(strings.Repeat("x", 2000), strings.Repeat("y", 2000), 3); got != 3 {
		t.Errorf("got %d, want 3", got)
	}
}

func TestClipBytes(t *testing.T) {
	for _, tc := range []struct {
		s    string
		n    int
		want string
	}{
		{"hello", 5, "hello"}, {"hello", 4, "hell…"}, {"héllo", 2, "h…"}, {"héllo", 3, "hé…"}, {"", 0, ""}, {"a", 0, "…"},
	} {
		if got := ClipBytes(tc.s, tc.n); got != tc.want {
			t.Errorf("ClipBytes(%q, %d) = %q, want %q", tc.s, tc.n, got, tc.want)
		}
	}
}

// TestEditDistanceUnits: bytes and characters differ only past ASCII.
func TestEditDistanceUnits(t *testing.T) {
	for _, tc := range []struct {
		a, b         string
		bytes, runes int
	}{
		{"map", "mop", 1, 1},
		{"é", "e", 2, 1},
		{"日本", "日本語", 3, 1},
		{"über", "uber", 2, 1},
	} {
		if got := EditDistance(tc.a, tc.b, 10); got != tc.bytes {
			t.Errorf("EditDistance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.bytes)
		}
		if got := EditDistanceRunes(tc.a, tc.b, 10); got != tc.runes {
			t.Errorf("EditDistanceRunes(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.runes)
		}
	}
}
