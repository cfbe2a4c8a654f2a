//go:build ptc_noanthropic

package provider

import (
	"github.com/ptc-go/ptc/llm"
)

// openAnthropic: the binary was built without the Anthropic adapter.
func openAnthropic(c adapterConfig) (llm.Func, error) {
	return nil, errLeftOut("anthropic", "ptc_noanthropic")
}
