package lisp_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/ptc-go/ptc/lisp"
)

// untimed is a ToolCaller whose "agent" tool is untimed: it sleeps longer
// than the program's whole timeout, honouring its context.
type untimed struct {
	sleep       time.Duration
	sawDeadline chan bool
}

func (u untimed) CallTool(ctx context.Context, name string, args *lisp.Map) (any, error) {
	if u.sawDeadline != nil {
		_, has := ctx.Deadline()
		u.sawDeadline <- has
	}
	select {
	case <-time.After(u.sleep):
		return int64(1), nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (u untimed) Untimed(name string) bool { return name == "agent" }

func TestUntimedToolsStopTheClock(t *testing.T) {
	// The program's own work is tiny: 300 ms leave a busy machine plenty
	// of room, and each wait is longer than that.
	opts := lisp.Options{Tools: untimed{sleep: 400 * time.Millisecond}, Limits: lisp.Limits{Timeout: 300 * time.Millisecond}}
	// Three sequential waits, each over the program's timeout, and two in
	// parallel: the clock stands still meanwhile.
	res, err := lisp.Run(context.Background(), `(+ (tool/agent {}) (tool/agent {}) (tool/agent {}) (reduce + (pmap (fn [_] (tool/agent {})) [1 2])))`, opts)
	if err != nil {
		t.Fatalf("the program's clock ran while it waited: %v", err)
	}
	if res.Value != int64(5) {
		t.Errorf("value %v", res.Value)
	}
	// A timed tool with the same sleep times out.
	_, err = lisp.Run(context.Background(), `(tool/other {})`, opts)
	var le *lisp.Error
	if !errors.As(err, &le) || le.Kind != lisp.Timeout {
		t.Errorf("timed tool: %v", err)
	}
	// The program's own work still counts: a loop after the waits times out.
	opts.Limits.MaxLoopIterations = -1
	opts.Limits.MaxSteps = -1
	_, err = lisp.Run(context.Background(), `(tool/agent {}) (loop [i 0] (recur (inc i)))`, opts)
	if !errors.As(err, &le) || le.Kind != lisp.Timeout {
		t.Errorf("work after an untimed call: %v", err)
	}
	// The caller's deadline bounds untimed tools too.
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Millisecond)
	defer cancel()
	opts = lisp.Options{Tools: untimed{sleep: 10 * time.Second}, Limits: lisp.Limits{Timeout: time.Second}}
	_, err = lisp.Run(ctx, `(tool/agent {})`, opts)
	if !errors.As(err, &le) || le.Kind != lisp.Timeout || le.Message != "the caller's deadline passed" {
		t.Errorf("caller's deadline: %v", err)
	}
}

// A timed tool that runs while an untimed call holds the clock still is
// not cut at the program's deadline either.
func TestTimedToolDuringPause(t *testing.T) {
	tools := lisp.Tools{
		"child": func(ctx context.Context, args *lisp.Map) (any, error) {
			ms, _ := args.Get(lisp.Keyword("ms"))
			select {
			case <-time.After(time.Duration(ms.(int64)) * time.Millisecond):
				return int64(7), nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		},
		"fast": func(ctx context.Context, args *lisp.Map) (any, error) {
			select {
			case <-time.After(600 * time.Millisecond):
				return int64(1), nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		},
	}
	// Branch 0 holds the clock still for 3 s; branch 1's timed call (600
	// ms, twice the timeout) ends well within them, even on a busy machine.
	opts := lisp.Options{Tools: untimedNames{tools, "child"}, Limits: lisp.Limits{Timeout: 300 * time.Millisecond}}
	res, err := lisp.Run(context.Background(),
		`(pmap (fn [k] (if (= k 0) (tool/child {:ms 3000}) (do (tool/child {:ms 200}) (tool/fast {})))) [0 1])`, opts)
	if err != nil {
		t.Fatal(err)
	}
	if got := lisp.Print(res.Value, lisp.PrintOptions{}); got != "[7 1]" {
		t.Errorf("value %s", got)
	}
}

type untimedNames struct {
	lisp.Tools
	name string
}

func (u untimedNames) Untimed(name string) bool { return name == u.name }
