package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ptc-go/ptc/cmd/ptc/internal/base"
	"github.com/ptc-go/ptc/cmd/ptc/internal/modelscmd"
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
	var rows []modelscmd.Row
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
