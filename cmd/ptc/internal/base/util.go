package base

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/ptc-go/ptc/internal/hostio"
	"github.com/ptc-go/ptc/internal/textutil"
	"github.com/ptc-go/ptc/lisp"
)

// OnInterrupt calls f on the first SIGINT; the next one ends the process
// as usual. stop ends the watch.
func OnInterrupt(f func()) (stop func()) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt)
	done := make(chan struct{})
	go func() {
		select {
		case <-ch:
			signal.Stop(ch)
			f()
		case <-done:
		}
	}()
	return func() {
		signal.Stop(ch)
		close(done)
	}
}

// OverrideLimits sets the limits given as flags (non-zero) over the agent
// file's.
func OverrideLimits(dst *lisp.Limits, flags lisp.Limits) {
	override(&dst.Timeout, flags.Timeout)
	override(&dst.MaxSteps, flags.MaxSteps)
	override(&dst.MaxDepth, flags.MaxDepth)
	override(&dst.MaxLoopIterations, flags.MaxLoopIterations)
	override(&dst.MaxOutputBytes, flags.MaxOutputBytes)
	override(&dst.MaxToolCalls, flags.MaxToolCalls)
	override(&dst.MaxMemory, flags.MaxMemory)
	override(&dst.MaxParallel, flags.MaxParallel)
}

// override sets *dst to v when v is given (not the zero value).
func override[T comparable](dst *T, v T) {
	var zero T
	if v != zero {
		*dst = v
	}
}

// MergeContext lays over on base, a key replacing both its spellings
// (internal/hostio, which the workbench shares).
func MergeContext(base, over *lisp.Map) *lisp.Map { return hostio.MergeContext(base, over) }

func FirstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// SyncWriter serializes writes: the mission's goroutine, the interrupt
// handler and the command write to stderr.
type SyncWriter struct {
	mu sync.Mutex
	W  io.Writer
}

func (s *SyncWriter) Printf(format string, args ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fmt.Fprintf(s.W, format, args...)
}

func (s *SyncWriter) Write(b []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.W.Write(b)
}

// OneLine is the first line of s, cut to n characters, with a mark when
// something was left out (textutil.FirstLine).
func OneLine(s string, n int) string { return textutil.FirstLine(s, n) }

func Plural(n int, word string) string { return textutil.Plural(n, word) }

// RoundElapsed rounds a duration for display: 850ms, 2.4s, 1m12s.
func RoundElapsed(d time.Duration) time.Duration {
	switch {
	case d >= time.Minute:
		return d.Round(time.Second)
	case d >= time.Second:
		return d.Round(100 * time.Millisecond)
	case d >= time.Millisecond:
		return d.Round(time.Millisecond)
	}
	return d.Round(time.Microsecond)
}

// SignalContext is env's context, cancelled by SIGINT or SIGTERM when the
// process's own environment runs the command.
func SignalContext(env *Env) (context.Context, context.CancelFunc) {
	if !env.Interrupts {
		return context.WithCancel(env.Ctx)
	}
	return signal.NotifyContext(env.Ctx, os.Interrupt, syscall.SIGTERM)
}

func FirstLineOf(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return strings.TrimSpace(s[:i])
	}
	return s
}
