//go:build !ptc_nogemini

package provider

import (
	"context"

	"github.com/ptc-go/ptc/llm"
	"github.com/ptc-go/ptc/llm/gemini"
)

func openGemini(ctx context.Context, c adapterConfig) (llm.Func, error) {
	return gemini.New(ctx, gemini.Config{Model: c.model, APIKey: c.key, BaseURL: c.url, HTTPClient: c.client})
}
