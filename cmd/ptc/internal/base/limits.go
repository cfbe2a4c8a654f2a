package base

import (
	"flag"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/ptc-go/ptc/agent/agentfile"
	"github.com/ptc-go/ptc/lisp"
)

// LimitFlags registers the sandbox limits on fs. Zero values keep the
// library's defaults; negative values disable a limit.
func LimitFlags(fs *flag.FlagSet) *lisp.Limits {
	var l lisp.Limits
	fs.Var((*durationFlag)(&l.Timeout), "timeout", "wall-clock limit per run, as 500ms or 2s (default 1s; -1: none)")
	fs.Var((*sizeFlag)(&l.MaxMemory), "max-memory", "bytes of data a program may build, cumulatively, as 64MiB or 500KB (default 64MiB; -1: none)")
	fs.Int64Var(&l.MaxSteps, "max-steps", 0, "evaluation steps (default 500,000,000; -1: none)")
	fs.IntVar(&l.MaxDepth, "max-depth", 0, "nested function calls (default 5,000)")
	fs.IntVar(&l.MaxLoopIterations, "max-loop", 0, "iterations of one loop/recur (default 1,000,000; -1: none)")
	fs.Var((*intSizeFlag)(&l.MaxOutputBytes), "max-output", "println bytes, as 64KiB (default 64KiB; -1: none)")
	fs.IntVar(&l.MaxToolCalls, "max-tool-calls", 0, "tool calls per run (default 1,000; -1: none)")
	fs.IntVar(&l.MaxParallel, "max-parallel", 0, "goroutines evaluating a program at once, for pmap and pcalls (default 16)")
	return &l
}

// durationFlag is a Go duration (500ms, 2s, 1m) or a bare number: 0 for
// the default and a negative one for no limit.
type durationFlag time.Duration

func (d *durationFlag) String() string {
	if d == nil || *d == 0 {
		return ""
	}
	return time.Duration(*d).String()
}

func (d *durationFlag) Set(s string) error {
	v, err := agentfile.ParseDuration(s)
	if err != nil {
		return err
	}
	*d = durationFlag(v) // 0: the default; negative: none
	return nil
}

// sizeFlag is a byte count with an optional unit: KB, MB, GB (powers of
// 1000) or KiB, MiB, GiB (powers of 1024); a negative number for no limit.
type sizeFlag int64

func (z *sizeFlag) String() string {
	if z == nil || *z == 0 {
		return ""
	}
	return strconv.FormatInt(int64(*z), 10)
}

func (z *sizeFlag) Set(s string) error {
	n, err := parseSize(s)
	if err != nil {
		return err
	}
	*z = sizeFlag(n)
	return nil
}

// intSizeFlag is a sizeFlag for an int limit.
type intSizeFlag int

func (z *intSizeFlag) String() string {
	if z == nil || *z == 0 {
		return ""
	}
	return strconv.Itoa(int(*z))
}

func (z *intSizeFlag) Set(s string) error {
	n, err := parseSize(s)
	if err != nil {
		return err
	}
	if n > math.MaxInt32 {
		return fmt.Errorf("%s is too large", s)
	}
	*z = intSizeFlag(n)
	return nil
}

// parseSize reads 1048576, 64MiB, 64MB, 1.5GiB or -1, as agent files
// write sizes.
func parseSize(s string) (int64, error) { return agentfile.ParseSize(s) }
