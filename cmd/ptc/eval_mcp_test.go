package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/ptc-go/ptc/cmd/ptc/internal/base"
)

// TestEvalMCP: ptc eval --mcp calls an MCP server's tool as an agent
// would, (tool/server.tool {...}), and prints its result.
func TestEvalMCP(t *testing.T) {
	cfg := mcpConfigFile(t, "")
	tests := []struct {
		name     string
		args     []string
		code     int
		stdout   string
		errWords []string
	}{
		{"a call", []string{"-e", "(tool/up.add {:a 2 :b 40})"}, 0, "{\"sum\" 42}\n", []string{"connecting to up"}},
		{"calls across -e", []string{"-e", "(def r (tool/up.add {:a 1 :b 2}))", "-e", "(:sum r)"}, 0, "#'r\n3\n", nil},
		{"--json", []string{"--json", "-e", "(tool/up.add {:a 2 :b 3})"}, 0, `{"sum":5}` + "\n", nil},
		{"an unknown tool", []string{"-e", "(tool/up.nope {})"}, 1, "", []string{"up.nope"}},
		{"no --mcp, no tools", nil, 1, "", []string{"up.add"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"eval", "--mcp", cfg}, tt.args...)
			if tt.args == nil {
				args = []string{"eval", "-e", "(tool/up.add {:a 1 :b 2})"}
			}
			code, out, errOut := ptcIn(t, testEnv(nil, nil), args...)
			if code != tt.code || out != tt.stdout {
				t.Errorf("exit %d, stdout %q; want %d, %q (stderr %q)", code, out, tt.code, tt.stdout, errOut)
			}
			containsAll(t, "stderr", errOut, tt.errWords...)
		})
	}
	if code, _, errOut := ptcIn(t, testEnv(nil, nil), "eval", "--mcp", "nope.json", "-e", "1"); code != base.ExitUsage ||
		!strings.Contains(errOut, "ptc eval: no MCP configuration file nope.json") {
		t.Errorf("missing configuration: exit %d, stderr %q", code, errOut)
	}
}

// TestReplMCP: ptc repl --mcp lists the servers' tools with :tools and
// calls them.
func TestReplMCP(t *testing.T) {
	cfg := mcpConfigFile(t, "")
	var out, errOut bytes.Buffer
	code := dispatch(testEnv(nil, nil), []string{"repl", "--mcp", cfg}, strings.NewReader(":tools\n(tool/up.add {:a 20 :b 22})\n"), &out, &errOut)
	if code != base.ExitOK {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	containsAll(t, "stdout", out.String(),
		"tool/up.add (a :int, b :int) -> {sum :int}\n  Adds two integers.\n",
		"tool/up.tool_002 ",
		"{\"sum\" 42}\n")

	out.Reset()
	dispatch(testEnv(nil, nil), []string{"repl"}, strings.NewReader(":tools\n"), &out, &errOut)
	if got := out.String(); got != "no tools: start the REPL with --mcp FILE to call the tools of MCP servers\n" {
		t.Errorf(":tools without --mcp: %q", got)
	}
}
