package replcmd

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestIncomplete checks the REPL's test for input that ends inside a form.
func TestIncomplete(t *testing.T) {
	tests := []struct {
		src  string
		want bool
	}{
		{"(+ 1\n", true},
		{"(let [a 1]\n", true},
		{"{:a [1\n", true},
		{"(+ 1 2)\n", false},
		{"1\n", false},
		{"\n", false},
		{"(let [x 1)\n", false}, // a mismatched closer is an error now, not later
		{"(foo))\n", false},
		{"(+ 1 #{)\n", false},
	}
	for _, tt := range tests {
		if got := Incomplete(tt.src); got != tt.want {
			t.Errorf("incomplete(%q) = %v, want %v", tt.src, got, tt.want)
		}
	}
}

func TestReplHistoryPath(t *testing.T) {
	t.Setenv("PTC_HISTORY", "off")
	if p := HistoryPath(""); p != "" {
		t.Errorf("PTC_HISTORY=off: %q", p)
	}
	if p := HistoryPath("/tmp/h"); p != "/tmp/h" {
		t.Errorf("flag: %q", p)
	}
	t.Setenv("PTC_HISTORY", "")
	if p := HistoryPath(""); p != "" && !strings.HasSuffix(p, filepath.Join("ptc", "history")) {
		t.Errorf("default: %q", p)
	}
	if p := HistoryPath("off"); p != "" {
		t.Errorf("--history off: %q", p)
	}
}

func TestReplIndent(t *testing.T) {
	tests := []struct {
		src  string
		want int
	}{
		{"", 0},
		{"(+ 1 2)", 0},
		{"(let [a 1", 6},
		{"(let [a 1]", 2},
		{"(defn f [x]\n  {:a x", 3},
		{"(str \"(\"", 2},
		{"(str \\(", 2},
		{"(+ 1 ; [", 2},
	}
	for _, tt := range tests {
		if got := Indent([]rune(tt.src)); got != tt.want {
			t.Errorf("replIndent(%q) = %d, want %d", tt.src, got, tt.want)
		}
	}
}

func TestReplMatchingBracket(t *testing.T) {
	src := []rune(`(a [b "]" c] d)`)
	tests := []struct{ pos, want int }{
		{0, 14},  // under the opening paren
		{15, 0},  // just after the closing one
		{12, 3},  // just after ]
		{8, -1},  // the ] in a string is no bracket
		{5, -1},  // nowhere near a bracket
		{3, 11},  // under [
		{14, 0},  // under ): the one before the cursor is not a closer, the one under it is
		{11, 3},  // under ]
		{16, -1}, // past the end
	}
	for _, tt := range tests {
		if got := MatchingBracket(src, tt.pos); got != tt.want {
			t.Errorf("replMatchingBracket at %d = %d, want %d", tt.pos, got, tt.want)
		}
	}
}
