//go:build ptc_noopenai || ptc_noanthropic || ptc_nogemini

package provider

import (
	"fmt"

	"github.com/ptc-go/ptc/llm"
)

// errLeftOut is the error of an adapter the binary was built without.
func errLeftOut(adapter, tag string) error {
	return &llm.Error{Class: llm.ClassConfig, Reason: "adapter_not_built", Message: fmt.Sprintf(
		"this binary was built without the %s adapter (build tag %s): rebuild without the tag to use it", adapter, tag)}
}
