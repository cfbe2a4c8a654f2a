// Command ptc runs PTC-Lisp programs from the command line.
//
//	ptc eval [-c CONTEXT.json|.edn] [--json] (-e SOURCE | FILE)
//	    Evaluate a program and print its value (EDN, or JSON with --json).
//	    println output goes to stdout first; errors go to stderr with their
//	    position and a source snippet. Exit status 1 for a program error or
//	    (fail ...), 2 for bad usage.
//	ptc repl [-c CONTEXT]
//	    Read-eval-print loop: defs persist between inputs, *1 *2 *3 hold the
//	    last values, multi-line forms are read until they are complete.
//	ptc conform FILE.jsonl
//	    Run conformance vectors; print each failure and end with
//	    "N passed, M failed".
//	ptc bench [-c CONTEXT] [-n RUNS] [--json] FILE
//	    Time FILE from source text to result, as an agent turn runs it, and
//	    print the median and p90 per run and the allocations per run.
//
// The command only parses flags and wires the library together; the
// interpreter is package github.com/ptc-go/ptc/lisp.
package main
