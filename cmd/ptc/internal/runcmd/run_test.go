package runcmd

import (
	"context"
	"strings"
	"testing"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/cmd/ptc/internal/clitest"
	"github.com/ptc-go/ptc/llm"
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

// TestRecorderErrors: a failed call is recorded with its message, class
// and status, as the replay gives it back.
func TestRecorderErrors(t *testing.T) {
	fail := &llm.Error{Class: llm.RateLimit, Status: 429, Message: "slow down"}
	r := &Recorder{Run: context.Background(), Inner: func(context.Context, llm.Request) (llm.Response, error) {
		return llm.Response{}, fail
	}}
	_, err := r.Call(context.Background(), llm.Request{Turn: 1, Messages: []llm.Message{{Role: llm.User, Content: "go"}}})
	if err != fail {
		t.Fatalf("error %v", err)
	}
	c := r.Calls[0]
	if c.Reply.Error != "slow down" || c.Reply.Class != llm.RateLimit || c.Status != 429 || c.Interrupted {
		t.Errorf("recorded %+v", c)
	}
	rp := &Replayer{Rec: &Transcript{Calls: r.Calls}, Stop: func() {}}
	_, err = rp.Call(context.Background(), llm.Request{Turn: 1, Messages: []llm.Message{{Role: llm.User, Content: "go"}}})
	if err == nil || err.Error() != fail.Error() {
		t.Errorf("replayed error %v, want %v", err, fail)
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
