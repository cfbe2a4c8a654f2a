//go:build ptc_noopenai && ptc_noanthropic && ptc_nogemini

package provider

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/ptc-go/ptc/llm"
)

// A binary built without an adapter says so when a reference needs it,
// instead of failing to build or calling another adapter
// (go test -tags ptc_noopenai,ptc_noanthropic,ptc_nogemini ./llm/provider/).
func TestAdaptersLeftOut(t *testing.T) {
	env := map[string]string{"OPENAI_API_KEY": "k", "ANTHROPIC_API_KEY": "k", "GEMINI_API_KEY": "k"}
	for _, ref := range []string{"openai:gpt-4.1-mini", "anthropic:claude-sonnet-4-5", "gemini:gemini-2.5-flash", "ollama:qwen3"} {
		_, err := Open(context.Background(), ref, Options{Getenv: func(k string) string { return env[k] }})
		var le *llm.Error
		if !errors.As(err, &le) || le.Class != llm.ClassConfig || le.Reason != "adapter_not_built" ||
			!strings.Contains(le.Message, "build tag ptc_no") {
			t.Errorf("%s: %v", ref, err)
		}
	}
}
