package main

import (
	"flag"

	"github.com/ptc-go/ptc/lisp"
)

// limitFlags registers the sandbox limits on fs. Zero values keep the
// library's defaults; negative values disable a limit.
func limitFlags(fs *flag.FlagSet) *lisp.Limits {
	var l lisp.Limits
	fs.DurationVar(&l.Timeout, "timeout", 0, "wall-clock limit per run (default 1s; negative: none)")
	fs.Int64Var(&l.MaxMemory, "max-memory", 0, "bytes of data a program may build, cumulatively (default 64 MiB)")
	fs.Int64Var(&l.MaxSteps, "max-steps", 0, "evaluation steps (default 50,000,000)")
	fs.IntVar(&l.MaxDepth, "max-depth", 0, "nested function calls (default 5,000)")
	fs.IntVar(&l.MaxLoopIterations, "max-loop", 0, "iterations of one loop/recur (default 100,000)")
	fs.IntVar(&l.MaxOutputBytes, "max-output", 0, "println bytes (default 64 KiB)")
	fs.IntVar(&l.MaxToolCalls, "max-tool-calls", 0, "tool calls per run (default 1,000)")
	return &l
}
