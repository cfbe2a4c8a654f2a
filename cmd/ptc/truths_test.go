package main

import (
	"strings"
	"testing"
)

// TestTimeoutHelpDefault: the --timeout help of the commands whose
// programs run as an agent's turns gives the agent's default (5s), not
// the interpreter's (1s), which eval keeps.
func TestTimeoutHelpDefault(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "-h"}, "(default 5s; -1: none)"},
		{[]string{"mcp", "serve", "-h"}, "(default 5s; -1: none)"},
		{[]string{"eval", "-h"}, "(default 1s; -1: none)"},
	} {
		_, _, errOut := ptc(t, "", tc.args...)
		i := strings.Index(errOut, "-timeout")
		if i < 0 {
			t.Fatalf("%v: no -timeout in\n%s", tc.args, errOut)
		}
		line := errOut[i:]
		if j := strings.Index(line, "\n  -"); j > 0 {
			line = line[:j]
		}
		if !strings.Contains(line, tc.want) {
			t.Errorf("%v: --timeout help %q, want %q", tc.args, line, tc.want)
		}
	}
}
