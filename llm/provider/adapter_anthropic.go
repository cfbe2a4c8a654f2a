//go:build !ptc_noanthropic

package provider

import (
	"github.com/ptc-go/ptc/llm"
	"github.com/ptc-go/ptc/llm/anthropic"
)

func openAnthropic(c adapterConfig) (llm.Func, error) {
	return anthropic.New(anthropic.Config{Model: c.model, APIKey: c.key, BaseURL: c.url, HTTPClient: c.client})
}
