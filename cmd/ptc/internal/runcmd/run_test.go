package runcmd

import (
	"strings"
	"testing"

	"github.com/ptc-go/ptc/agent"
)

func TestLineDiff(t *testing.T) {
	got := LineDiff("a\nb\nc\nd\ne", "a\nb\nX\nd\ne")
	want := "  … (1 same line)\n  b\n- c\n+ X\n  d\n  … (1 same line)\n(first difference: line 3, column 1)"
	if got != want {
		t.Errorf("lineDiff:\n%s\nwant:\n%s", got, want)
	}
	if got := LineDiff("", "new"); got != "+ new" {
		t.Errorf("lineDiff from nothing: %q", got)
	}
}

func TestErrorSummary(t *testing.T) {
	for _, tt := range []struct{ text, want string }{
		{"1:1: type_error: bad\n(+ 1 \"a\")\n^", "1:1: type_error: bad"},
		{"Your (return ...) value does not match the signature, so the mission goes on.\n- count: expected :int, got \"two\"\nFix it.",
			`(return ...) rejected: the value does not match the signature: count: expected :int, got "two"`},
		{"Your (return ...) value does not match the signature.", "(return ...) rejected: the value does not match the signature"},
	} {
		if got := ErrorSummary(tt.text); got != tt.want {
			t.Errorf("errorSummary(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}

func TestFailHint(t *testing.T) {
	for _, tc := range []struct {
		class, want string
	}{
		{"network", "is the server running"},
		{"auth", "refused the API key"},
		{"context_length", "outgrew the model's context"},
		{"server_error", ""},
	} {
		got := FailHint(&agent.Fail{Reason: "llm_error", Details: map[string]any{"class": tc.class}})
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("%s: hint %q, want %q", tc.class, got, tc.want)
		}
	}
	if got := FailHint(&agent.Fail{Reason: "timeout", Details: map[string]any{"class": "network"}}); got != "" {
		t.Errorf("a non-LLM failure got the hint %q", got)
	}
}
