package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strconv"
	"time"

	"github.com/ptc-go/ptc/lisp"
)

func cmdBench(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("bench", stderr, "[-c CONTEXT] [-n RUNS] [--json] (-e SOURCE | FILE)")
	ctxPath := fs.String("c", "", "context file: JSON or EDN map, loaded once before timing")
	var expr optionalString
	fs.Var(&expr, "e", "program `source` to time (instead of FILE)")
	runs := fs.Int("n", 200, "number of timed runs")
	asJSON := fs.Bool("json", false, `print one JSON line {"median_ns","p90_ns","allocs_per_run","bytes_per_run"}`)
	// The same limits as ptc eval: a run over a 1M-row context needs more
	// than the default 1 s, and timing a program under its real limits is
	// the point.
	limits := limitFlags(fs)
	pos, err := parseFlags(fs, args)
	if err != nil {
		return flagError(fs, err, stdout)
	}
	switch {
	case *runs < 1:
		return usageError(fs, "-n must be 1 or more, not %d", *runs)
	case len(pos) > 1:
		return usageError(fs, "takes one FILE, got %d arguments", len(pos))
	case len(pos) == 1 && expr.set:
		return usageError(fs, "-e and FILE do not go together")
	case len(pos) == 0 && !expr.set:
		return usageError(fs, "missing the program: -e SOURCE or FILE")
	}
	src, label := expr.value, "-e "+strconv.Quote(clipText(expr.value, 40))
	if !expr.set {
		b, err := readBounded(pos[0], kindProgram)
		if err != nil {
			fmt.Fprintf(stderr, "ptc bench: %v\n", err)
			return exitUsage
		}
		src, label = string(b), pos[0]
	}
	ctxVal, err := loadContext(*ctxPath)
	if err != nil {
		fmt.Fprintf(stderr, "ptc bench: %v\n", err)
		return exitUsage
	}
	opts := lisp.Options{Context: ctxVal, Limits: *limits}
	bg := context.Background()
	// One untimed run checks the program and warms caches.
	res, err := lisp.Run(bg, src, opts)
	if err != nil {
		printError(stderr, err)
		return exitFail
	}
	_ = res
	times := make([]time.Duration, *runs)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i := range times {
		// Each run is a fresh run from source text, as an agent turn is.
		start := time.Now()
		if _, err := lisp.Run(bg, src, opts); err != nil {
			printError(stderr, err)
			return exitFail
		}
		times[i] = time.Since(start)
	}
	runtime.ReadMemStats(&after)
	slices.Sort(times)
	median := times[len(times)/2]
	p90 := times[min(len(times)-1, len(times)*9/10)]
	allocs := float64(after.Mallocs-before.Mallocs) / float64(*runs)
	bytes := float64(after.TotalAlloc-before.TotalAlloc) / float64(*runs)
	if *asJSON {
		line, _ := json.Marshal(map[string]any{
			"median_ns":      median.Nanoseconds(),
			"p90_ns":         p90.Nanoseconds(),
			"allocs_per_run": int64(allocs + 0.5),
			"bytes_per_run":  int64(bytes + 0.5),
		})
		fmt.Fprintln(stdout, string(line))
		return exitOK
	}
	fmt.Fprintf(stdout, "%s: %d runs, median %v, p90 %v, %.0f allocs/run, %.0f bytes/run\n",
		label, *runs, median, p90, allocs, bytes)
	return exitOK
}
