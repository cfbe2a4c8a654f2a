// Package conformcmd implements ptc conform: it runs conformance vectors
// (JSON Lines) through the interpreter and prints each failure, then
// "N passed, M failed".
package conformcmd
