// Package replcmd implements ptc repl: a read-eval-print loop over
// PTC-Lisp with a line editor on a terminal (history, completion, bracket
// matching, :doc and the other : commands) and plain line input
// otherwise. docs/cli.md describes the command.
package replcmd
