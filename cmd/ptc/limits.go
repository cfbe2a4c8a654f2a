package main

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/ptc-go/ptc/lisp"
)

// limitFlags registers the sandbox limits on fs. Zero values keep the
// library's defaults; negative values disable a limit.
func limitFlags(fs *flag.FlagSet) *lisp.Limits {
	var l lisp.Limits
	fs.Var((*durationFlag)(&l.Timeout), "timeout", "wall-clock limit per run, as 500ms or 2s (default 1s; -1: none)")
	fs.Var((*sizeFlag)(&l.MaxMemory), "max-memory", "bytes of data a program may build, cumulatively, as 64MiB or 500KB (default 64MiB; -1: none)")
	fs.Int64Var(&l.MaxSteps, "max-steps", 0, "evaluation steps (default 50,000,000; -1: none)")
	fs.IntVar(&l.MaxDepth, "max-depth", 0, "nested function calls (default 5,000)")
	fs.IntVar(&l.MaxLoopIterations, "max-loop", 0, "iterations of one loop/recur (default 100,000; -1: none)")
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
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		if n > 0 {
			return fmt.Errorf("%s has no unit: write %sms or %ss", s, s, s)
		}
		*d = durationFlag(n) // 0: the default; negative: none
		return nil
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return errors.New("not a duration: write 500ms, 2s or 1m (-1: no limit)")
	}
	*d = durationFlag(v)
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

var sizeUnits = []struct {
	suffix string
	scale  int64
}{
	{"kib", 1 << 10}, {"mib", 1 << 20}, {"gib", 1 << 30},
	{"kb", 1e3}, {"mb", 1e6}, {"gb", 1e9},
	{"k", 1 << 10}, {"m", 1 << 20}, {"g", 1 << 30},
	{"b", 1},
}

// parseSize reads 1048576, 64MiB, 64MB, 1.5GiB or -1.
func parseSize(s string) (int64, error) {
	text := strings.ToLower(strings.TrimSpace(s))
	scale := int64(1)
	for _, u := range sizeUnits {
		if strings.HasSuffix(text, u.suffix) {
			text, scale = strings.TrimSpace(strings.TrimSuffix(text, u.suffix)), u.scale
			break
		}
	}
	if n, err := strconv.ParseInt(text, 10, 64); err == nil {
		if n < 0 {
			return -1, nil
		}
		if n > math.MaxInt64/scale {
			return 0, fmt.Errorf("%s is too large", s)
		}
		return n * scale, nil
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil || f < 0 || math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, errors.New("not a size: write 64MiB, 500KB or a number of bytes (-1: no limit)")
	}
	if f*float64(scale) >= math.MaxInt64 {
		return 0, fmt.Errorf("%s is too large", s)
	}
	return int64(f * float64(scale)), nil
}
