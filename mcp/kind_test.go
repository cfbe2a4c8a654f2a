package mcp_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/ptc-go/ptc/mcp"
)

// TestKindsAreErrors: every Kind constant is a typed Kind, an error value
// errors.Is finds in a wrapped *Error of that kind and in no other (an
// untyped string constant would not compile in this list).
func TestKindsAreErrors(t *testing.T) {
	kinds := []error{mcp.KindConfig, mcp.KindConnect, mcp.KindList, mcp.KindTool, mcp.KindClosed,
		mcp.KindTimeout, mcp.KindCancelled, mcp.KindProtocol, mcp.KindArguments, mcp.KindResult,
		mcp.KindLimit, mcp.KindPin, mcp.KindTooLarge, mcp.KindOutput}
	seen := map[string]bool{}
	for _, k := range kinds {
		kind := k.(mcp.Kind)
		if seen[k.Error()] {
			t.Errorf("two kinds are %q", k.Error())
		}
		seen[k.Error()] = true
		err := fmt.Errorf("wrapped: %w", &mcp.Error{Server: "s", Kind: kind, Message: "m"})
		if !errors.Is(err, k) {
			t.Errorf("errors.Is does not find %s", k)
		}
		for _, other := range kinds {
			if other != k && errors.Is(err, other) {
				t.Errorf("an error of kind %s is also %s", k, other)
			}
		}
	}
}
