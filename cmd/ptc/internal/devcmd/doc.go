// Package devcmd implements ptc dev: it serves the workbench (package
// workbench) over a folder of agent files, which it lists, reads with the
// command line's defaults, gives their MCP servers' tools (started per
// run), lets the page edit and save, and for which it names the command
// that replays a run. docs/dev.md describes the command.
package devcmd
