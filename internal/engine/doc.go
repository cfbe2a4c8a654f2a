// Package engine is the seam between package agent and a durable
// execution engine: the hooks through which an engine records a mission's
// LLM calls and tool calls and answers them again when the mission runs
// once more from its start (Hooks), where a mission runs in a mission
// tree (Position), and what an engine calls on an agent to run a tool
// call elsewhere (Host, from agent.Agent.Engine).
//
// The package is internal: package temporal is its one engine, and the
// contract (the firewall's moved form, the journal's needs, the clock)
// still changes with it. Making it public would freeze that contract
// before a second engine (Restate, DBOS, a job queue) exists to test it
// against; none is planned. When one is, the package can move to
// agent/engine without changing its types (docs/architecture.md).
//
// Package agent imports this package, so its types cannot name agent's:
// ToolResult.Step and Usage and Host.NestedTool's agent hold an
// *agent.Step, an agent.Usage and an *agent.Agent.
package engine
