// Package mcpcmd implements ptc mcp: ptc mcp tools lists the tools of
// the MCP servers a configuration names; ptc mcp serve serves a code-mode
// tool and the agents of a configuration over MCP, on stdio or
// streamable HTTP. docs/cli.md describes the command.
package mcpcmd
