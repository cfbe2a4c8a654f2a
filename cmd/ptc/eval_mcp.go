package main

import (
	"context"
	"fmt"
	"io"

	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/mcp"
)

// mcpTools are the tools of an MCP configuration's servers, for ptc eval
// and ptc repl: a program calls them as an agent does,
// (tool/server.tool {...}), without a model.
type mcpTools struct {
	ts     *mcp.Toolset
	caller lisp.Tools
	infos  []mcp.ToolInfo
}

// openMCPTools reads the MCP configuration at path and connects to its
// servers. On failure it says why on stderr and returns nil with the exit
// status: exitUsage for a configuration that does not read, exitFail for
// a server that does not connect.
func openMCPTools(ctx context.Context, env *runEnv, cmd, path string, stderr io.Writer) (*mcpTools, int) {
	cfg, err := readMCPConfig(path, env.getenv)
	if err != nil {
		fmt.Fprintf(stderr, "ptc %s: %v\n", cmd, err)
		return nil, exitUsage
	}
	ts, err := connectMCP(ctx, cfg, stderr, false)
	if err != nil {
		fmt.Fprintf(stderr, "ptc %s: %v\n", cmd, err)
		return nil, exitFail
	}
	// Every tool callable by name: a person trying tools needs no search.
	tools := ts.Tools(mcp.ToolsOptions{MaxListed: -1})
	caller := make(lisp.Tools, len(tools))
	for name, t := range tools {
		caller[name] = lisp.ToolFunc(t.Func)
	}
	return &mcpTools{ts: ts, caller: caller, infos: ts.Infos()}, exitOK
}

// close ends the servers' sessions (and stops their commands).
func (m *mcpTools) close() { m.ts.Close() }
