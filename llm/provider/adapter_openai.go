//go:build !ptc_noopenai

package provider

import (
	"github.com/ptc-go/ptc/llm"
	"github.com/ptc-go/ptc/llm/openai"
)

func openOpenAI(c adapterConfig) (llm.Func, error) {
	return openai.New(openai.Config{Model: c.model, APIKey: c.key, BaseURL: c.url, HTTPClient: c.client,
		Provider: semconvName(c.provider)})
}

// semconvName is the gen_ai.provider.name of an OpenAI-compatible
// provider: the reference's name (the GenAI conventions' own spelling for
// those they list, "openai" and "groq"), and "openai" for a server of
// unknown make, which the conventions advise for the OpenAI API.
func semconvName(provider string) string {
	if provider == "openai-compatible" {
		return openai.ProviderName
	}
	return provider
}
