// Package evalcmd implements ptc eval: it evaluates a PTC-Lisp program
// (a file, -e SOURCE or stdin) with an optional context and MCP tools,
// and prints its value as EDN or JSON. docs/cli.md describes the command.
package evalcmd
