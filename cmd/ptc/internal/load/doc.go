// Package load reads what ptc commands run from: agent files with the
// command line's defaults for real models (AgentFile), context files
// (ReadContext), MCP configurations and the connection to their servers
// (MCPConfig, ConnectMCP), and the MCP tools of ptc eval and ptc repl with
// the view that hides what the firewall keeps (OpenMCPTools, EvalView).
//
// Files are read through base.ReadBounded, within the bounds docs/cli.md
// lists; the formats are parsed by the public packages
// github.com/ptc-go/ptc/agent/agentfile and github.com/ptc-go/ptc/mcp.
package load
