//go:build ptc_noopenai

package provider

import (
	"github.com/ptc-go/ptc/llm"
)

// openOpenAI: the binary was built without the OpenAI adapter.
func openOpenAI(c adapterConfig) (llm.Func, error) {
	return nil, errLeftOut("openai", "ptc_noopenai")
}
