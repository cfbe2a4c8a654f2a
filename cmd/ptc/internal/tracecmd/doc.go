// Package tracecmd implements ptc trace: it prints a trace file (ptc run
// --trace) as text or writes it as a self-contained HTML page (the
// assets under traceview/, embedded), and writes and checks trace files
// for ptc run (WriteTraceFile, CheckTracePath). docs/cli.md describes the
// command.
package tracecmd
