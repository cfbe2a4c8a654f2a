package main

import (
	"context"
	"fmt"

	"github.com/ptc-go/ptc/llm"
)

// openModel returns the model a --model reference names
// ("openai:gpt-4.1-mini", "anthropic:claude-sonnet-4-5",
// "ollama:qwen2.5-coder:7b", "openai-compatible:URL#model"), its key read
// from the environment.
func openModel(ctx context.Context, ref string) (llm.Func, error) {
	_ = ctx
	return nil, fmt.Errorf("model %q: provider adapters are not wired in yet", ref)
}
