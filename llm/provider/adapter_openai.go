//go:build !ptc_noopenai

package provider

import (
	"github.com/ptc-go/ptc/llm"
	"github.com/ptc-go/ptc/llm/openai"
)

func openOpenAI(c adapterConfig) (llm.Func, error) {
	return openai.New(openai.Config{Model: c.model, APIKey: c.key, BaseURL: c.url, HTTPClient: c.client})
}
