package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/cmd/ptc/internal/base"
)

func TestModels(t *testing.T) {
	env := testEnv(nil, nil)
	vars := map[string]string{"GOOGLE_API_KEY": "secret-g", "OLLAMA_HOST": "gpu:11434", "PTC_MODEL": "ollama:llama3"}
	env.Getenv = func(k string) string { return vars[k] }

	code, out, errOut := ptcIn(t, env, "models")
	if code != base.ExitOK || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	for _, want := range []string{
		"✓ GOOGLE_API_KEY",         // the second of gemini's variables
		"✗ set ANTHROPIC_API_KEY",  // missing, and how to fix it
		"gpu:11434 ($OLLAMA_HOST)", // the environment moves the server
		"PTC_MODEL (the default --model of ptc run): ollama:llama3",
		"openai-compatible:URL#MODEL",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "secret-g") {
		t.Errorf("a key's value was printed:\n%s", out)
	}

	code, out, _ = ptcIn(t, env, "models", "--json")
	var rows []modelsRow
	if err := json.Unmarshal([]byte(out), &rows); code != base.ExitOK || err != nil {
		t.Fatalf("exit %d, %v: %s", code, err, out)
	}
	ready := map[string]bool{}
	for _, r := range rows {
		ready[r.Provider] = r.Ready
	}
	for name, want := range map[string]bool{"gemini": true, "ollama": true, "openai-compatible": true, "openai": false, "anthropic": false} {
		if got, ok := ready[name]; !ok || got != want {
			t.Errorf("%s ready = %v (listed %v), want %v", name, got, ok, want)
		}
	}
	if code, _, errOut := ptcIn(t, env, "models", "extra"); code != base.ExitUsage || !strings.Contains(errOut, "(ptc models -h for help)") {
		t.Errorf("extra argument: exit %d, stderr %q", code, errOut)
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
		got := failHint(&agent.Fail{Reason: "llm_error", Details: map[string]any{"class": tc.class}})
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("%s: hint %q, want %q", tc.class, got, tc.want)
		}
	}
	if got := failHint(&agent.Fail{Reason: "timeout", Details: map[string]any{"class": "network"}}); got != "" {
		t.Errorf("a non-LLM failure got the hint %q", got)
	}
}
