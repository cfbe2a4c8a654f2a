//go:build ptc_nogemini

package provider

import (
	"context"

	"github.com/ptc-go/ptc/llm"
)

// openGemini: the binary was built without the Gemini adapter.
func openGemini(_ context.Context, c adapterConfig) (llm.Func, error) {
	return nil, errLeftOut("gemini", "ptc_nogemini")
}
