// Package benchcmd implements ptc bench: it times a program from source
// text to result, as an agent turn runs it, and prints the median and p90
// per run and the allocations per run.
package benchcmd
