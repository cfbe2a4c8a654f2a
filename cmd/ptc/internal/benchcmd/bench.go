package benchcmd

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strconv"
	"time"

	"github.com/ptc-go/ptc/cmd/ptc/internal/base"
	"github.com/ptc-go/ptc/cmd/ptc/internal/load"
	"github.com/ptc-go/ptc/lisp"
)

// Run runs ptc bench with args (the arguments after "bench") and
// returns its exit status.
func Run(args []string, stdout, stderr io.Writer) int {
	fs := base.NewFlagSet("bench", stderr, "[-c CONTEXT] [-n RUNS] [--json] (-e SOURCE | FILE)")
	ctxPath := fs.String("c", "", "context file: JSON or EDN map, loaded once before timing")
	var expr base.OptionalString
	fs.Var(&expr, "e", "program `source` to time (instead of FILE)")
	runs := fs.Int("n", 200, "number of timed runs")
	asJSON := fs.Bool("json", false, `print one JSON line {"median_ns","p90_ns","allocs_per_run","bytes_per_run"}`)
	// The same limits as ptc eval: a run over a 1M-row context needs more
	// than the default 1 s, and timing a program under its real limits is
	// the point.
	limits := base.LimitFlags(fs)
	pos, err := base.ParseFlags(fs, args)
	if err != nil {
		return base.FlagError(fs, err, stdout)
	}
	switch {
	case *runs < 1:
		return base.UsageError(fs, "-n must be 1 or more, not %d", *runs)
	case len(pos) > 1:
		return base.UsageError(fs, "takes one FILE, got %d arguments", len(pos))
	case len(pos) == 1 && expr.Given:
		return base.UsageError(fs, "-e and FILE do not go together")
	case len(pos) == 0 && !expr.Given:
		return base.UsageError(fs, "missing the program: -e SOURCE or FILE")
	}
	src, label := expr.Value, "-e "+strconv.Quote(base.ClipText(expr.Value, 40))
	if !expr.Given {
		b, err := base.ReadBounded(pos[0], base.KindProgram)
		if err != nil {
			fmt.Fprintf(stderr, "ptc bench: %v\n", err)
			return base.ExitUsage
		}
		src, label = string(b), pos[0]
	}
	ctxVal, err := load.ReadContext(*ctxPath)
	if err != nil {
		fmt.Fprintf(stderr, "ptc bench: %v\n", err)
		return base.ExitUsage
	}
	opts := lisp.Options{Input: ctxVal, Limits: *limits}
	bg := context.Background()
	// One untimed run checks the program and warms caches.
	res, err := lisp.Run(bg, src, opts)
	if err != nil {
		base.PrintError(stderr, err)
		return base.ExitFail
	}
	_ = res
	// From source text, as an agent turn without a compile cache runs it.
	whole, err := measure(*runs, func() error { _, err := lisp.Run(bg, src, opts); return err })
	if err != nil {
		base.PrintError(stderr, err)
		return base.ExitFail
	}
	// The two parts apart: compiling, and running the compiled program, as
	// a turn whose program the compile cache has runs it.
	var prog *lisp.Program
	compiled, _ := measure(*runs, func() (err error) { prog, err = lisp.Compile(src); return err })
	ran, err := measure(*runs, func() error { _, err := prog.Run(bg, opts); return err })
	if err != nil {
		base.PrintError(stderr, err)
		return base.ExitFail
	}
	if *asJSON {
		line, _ := json.Marshal(map[string]any{
			"median_ns":         whole.median.Nanoseconds(),
			"p90_ns":            whole.p90.Nanoseconds(),
			"allocs_per_run":    whole.allocs,
			"bytes_per_run":     whole.bytes,
			"compile_median_ns": compiled.median.Nanoseconds(),
			"compile_allocs":    compiled.allocs,
			"compile_bytes":     compiled.bytes,
			"run_median_ns":     ran.median.Nanoseconds(),
			"run_allocs":        ran.allocs,
			"run_bytes":         ran.bytes,
		})
		fmt.Fprintln(stdout, string(line))
		return base.ExitOK
	}
	fmt.Fprintf(stdout, "%s: %d runs, median %v, p90 %v, %d allocs/run, %d bytes/run\n",
		label, *runs, ThreeDigits(whole.median), ThreeDigits(whole.p90), whole.allocs, whole.bytes)
	fmt.Fprintf(stdout, "  compile %v (%d allocs, %d bytes) + run %v (%d allocs, %d bytes): a cached program costs the run alone\n",
		ThreeDigits(compiled.median), compiled.allocs, compiled.bytes, ThreeDigits(ran.median), ran.allocs, ran.bytes)
	return base.ExitOK
}

// timing is what measure found: the median and 90th percentile of the
// runs' times, and the allocations per run.
type timing struct {
	median, p90   time.Duration
	allocs, bytes int64
}

// measure runs f n times, timing each run.
func measure(n int, f func() error) (timing, error) {
	times := make([]time.Duration, n)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i := range times {
		start := time.Now()
		if err := f(); err != nil {
			return timing{}, err
		}
		times[i] = time.Since(start)
	}
	runtime.ReadMemStats(&after)
	slices.Sort(times)
	per := func(d uint64) int64 { return int64((float64(d) + float64(n)/2) / float64(n)) }
	return timing{median: times[n/2], p90: times[min(n-1, n*9/10)],
		allocs: per(after.Mallocs - before.Mallocs), bytes: per(after.TotalAlloc - before.TotalAlloc)}, nil
}

// ThreeDigits rounds d to three significant digits: 3.94ms, 4.25µs.
func ThreeDigits(d time.Duration) time.Duration {
	unit := time.Duration(1)
	for d >= 1000*unit {
		unit *= 10
	}
	return d.Round(unit)
}
