package conformcmd

import (
	"testing"
)

func TestIndent(t *testing.T) {
	tests := []struct{ in, want string }{
		{"(+ 1 2)", "(+ 1 2)"},
		{"a\nb", "a\n            b"},
		{"a\nb\n", "a\n            b"},
		{"a\n\nb", "a\n            \n            b"},
	}
	for _, tt := range tests {
		if got := Indent(tt.in); got != tt.want {
			t.Errorf("indent(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
