package base

import (
	"bytes"
	"strings"
	"testing"
)

// TestParseFlags checks flags mixed with positional arguments.
func TestParseFlags(t *testing.T) {
	tests := []parseFlagsCase{
		{[]string{"a"}, []string{"a"}, false, ""},
		{[]string{"--json", "a"}, []string{"a"}, true, ""},
		{[]string{"a", "--json", "-c", "x"}, []string{"a"}, true, "x"},
		{[]string{"a", "b", "-c=y"}, []string{"a", "b"}, false, "y"},
		{[]string{"-c", "x", "--", "-json"}, []string{"-json"}, false, "x"},
		{nil, nil, false, ""},
	}
	checkParseFlags(t, tests)
}

// TestParseFlagsDoubleDash: everything after "--" is positional, also when
// "--" comes after a positional argument.
func TestParseFlagsDoubleDash(t *testing.T) {
	checkParseFlags(t, []parseFlagsCase{
		{[]string{"a", "--", "b", "--json"}, []string{"a", "b", "--json"}, false, ""},
		{[]string{"--", "a", "-c", "x"}, []string{"a", "-c", "x"}, false, ""},
	})
}

type parseFlagsCase struct {
	args []string
	pos  []string
	json bool
	c    string
}

func checkParseFlags(t *testing.T, tests []parseFlagsCase) {
	t.Helper()
	for _, tt := range tests {
		var errOut bytes.Buffer
		fs := NewFlagSet("t", &errOut, "")
		j := fs.Bool("json", false, "")
		c := fs.String("c", "", "")
		pos, err := ParseFlags(fs, tt.args)
		if err != nil {
			t.Errorf("parseFlags(%q): %v", tt.args, err)
			continue
		}
		if strings.Join(pos, "|") != strings.Join(tt.pos, "|") || *j != tt.json || *c != tt.c {
			t.Errorf("parseFlags(%q) = %q json=%v c=%q; want %q json=%v c=%q", tt.args, pos, *j, *c, tt.pos, tt.json, tt.c)
		}
	}
}
