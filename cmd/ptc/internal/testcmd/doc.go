// Package testcmd implements ptc test: it runs the test cases of agent
// files (or of the bundled suite) on each model through package eval,
// prints pass@1, pass^N, turns, tokens, cost and latency, and records
// and replays the model replies and MCP tools of the runs (Command).
// docs/cli.md describes the command.
package testcmd
