package lisp_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ptc-go/ptc/internal/testenv"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/lisp/difftest"
)

// outcome describes everything a program gives: its compile error, or the
// value, status, error (kind, message, position, further errors), steps,
// tool calls, output, notes and defs of a run.
func outcome(p *lisp.Program, err error) string {
	var sb strings.Builder
	describe := func(err error) {
		var le *lisp.Error
		if !errors.As(err, &le) {
			fmt.Fprintf(&sb, "error %v", err)
			return
		}
		fmt.Fprintf(&sb, "error %s %q at %+v op %q", le.Kind, le.Message, le.Pos, le.Op)
		for _, m := range le.More {
			fmt.Fprintf(&sb, "; more %s %q at %+v", m.Kind, m.Message, m.Pos)
		}
	}
	if err != nil {
		sb.WriteString("compile: ")
		describe(err)
		return sb.String()
	}
	tools := lisp.Tools{"echo": func(_ context.Context, args *lisp.Map) (any, error) { return args, nil }}
	res, err := p.Run(context.Background(), lisp.Options{Tools: tools,
		Limits: lisp.Limits{Timeout: 5 * time.Minute, MaxSteps: 200_000, MaxMemory: 1 << 20, MaxParallel: 1}})
	if err != nil {
		describe(err)
	} else {
		v := lisp.Print(res.Value, lisp.PrintOptions{})
		fmt.Fprintf(&sb, "value %.300s status %v", v, res.Status)
	}
	fmt.Fprintf(&sb, " steps %d tools %d out %q notes %q defined %q", res.Steps, res.ToolCalls, res.Output, res.Notes, res.Defined)
	return sb.String()
}

// TestCacheWorkspaceRetention checks that a program compiled through a
// Cache keeps nothing of the reader's and the analyzer's memory, which the
// Cache recycles for its next misses: every program of the conformance
// vectors, the hostile suite, the language tests and the differential
// corpus is compiled through one Cache (goroutines compiling at once, so
// that workspaces are also made, reused and dropped concurrently), and only
// then run; each must give what it gives compiled alone.
func TestCacheWorkspaceRetention(t *testing.T) {
	srcs := fuzzSeeds(t)
	es, err := difftest.Corpus()
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range es {
		srcs = append(srcs, e.Src)
	}
	switch {
	case testing.Short():
		srcs = srcs[:min(len(srcs), 1000)]
	case !testenv.Long():
		// Every other program keeps every kind of form and error in the
		// mix; the long run takes them all.
		half := srcs[:0:0]
		for i := 0; i < len(srcs); i += 2 {
			half = append(half, srcs[i])
		}
		srcs = half
	}
	want := make([]string, len(srcs))
	for i, src := range srcs {
		want[i] = outcome(lisp.Compile(src))
	}

	c := &lisp.Cache{MaxPrograms: len(srcs) + 1, MaxBytes: 1 << 40}
	progs := make([]*lisp.Program, len(srcs))
	errs := make([]error, len(srcs))
	const workers = 4
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := w; i < len(srcs); i += workers {
				progs[i], _, errs[i] = c.Compile(context.Background(), srcs[i])
			}
		})
	}
	wg.Wait()
	if s := c.Stats(); s.Misses < int64(len(srcs))/2 {
		t.Fatalf("only %d misses for %d texts: the workspaces were hardly reused", s.Misses, len(srcs))
	}
	bad := 0
	for i, src := range srcs {
		if got := outcome(progs[i], errs[i]); got != want[i] {
			bad++
			if bad <= 5 {
				t.Errorf("%.200q\ncompiled alone: %s\nthrough the cache: %s", src, want[i], got)
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d programs differ", bad, len(srcs))
	}
}

// FuzzCacheReuse compiles a through a Cache, then b through the same Cache
// (reusing a's workspace), and checks that a gives what it gives compiled
// alone.
func FuzzCacheReuse(f *testing.F) {
	seeds := fuzzSeeds(f)
	for i, s := range seeds {
		f.Add(s, seeds[(i*7+3)%len(seeds)])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		if len(a) > 4<<10 || len(b) > 64<<10 {
			return
		}
		want := outcome(lisp.Compile(a))
		c := new(lisp.Cache)
		p, _, err := c.Compile(context.Background(), a)
		c.Compile(context.Background(), b)
		c.Compile(context.Background(), b+" ")
		if got := outcome(p, err); got != want {
			t.Fatalf("%q after %q\ncompiled alone: %s\nthrough the cache: %s", a, b, want, got)
		}
	})
}
