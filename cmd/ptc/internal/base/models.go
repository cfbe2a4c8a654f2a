package base

import (
	"context"

	"github.com/ptc-go/ptc/llm"
	"github.com/ptc-go/ptc/llm/provider"
)

// OpenModel returns the model a --model reference names
// ("openai:gpt-4.1-mini", "anthropic:claude-sonnet-4-5",
// "ollama:qwen2.5-coder:7b", "openai-compatible:URL#model"), its key read
// from the environment (see docs/models.md).
func OpenModel(ctx context.Context, ref string) (llm.Func, error) {
	return provider.Open(ctx, ref, provider.Options{})
}
