package runcmd

import (
	"strings"
	"testing"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/cmd/ptc/internal/clitest"
)

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

func TestLoadTranscriptErrors(t *testing.T) {
	dir := t.TempDir()
	tests := []struct{ name, text, want string }{
		{"cut", "{\"format\": \"ptc-run-transcript\",\n \"version\": ", ":2:13 (byte 45): parse_error: unexpected end of JSON input"},
		{"other format", `{"format": "x", "version": 1}`, `not a transcript of ptc run (format "x"`},
		{"newer", `{"format": "ptc-run-transcript", "version": 9}`, "transcript version 9, newer than this ptc reads (1)"},
		{"unknown field", `{"format": "ptc-run-transcript", "version": 1, "extra": 1}`, `not a transcript: json: unknown field "extra"`},
	}
	for _, tt := range tests {
		path := clitest.WriteFile(t, dir, "t.json", tt.text)
		_, err := LoadTranscript(path)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want %q", tt.name, err, tt.want)
		}
	}
}
