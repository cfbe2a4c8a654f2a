package lisp

import (
	"context"
	"errors"
	"testing"
	"time"
)

// A macro's expansion stays within the caller's bounds: Run's time limit
// and context, and the context given to Cache.Compile. What stops it is
// the caller's kind of error, not a fault of the macro.
func TestMacrosStopWithTheCaller(t *testing.T) {
	// The host function cancels the context from inside the macro, which
	// then works until its own budget ends (far longer than a check of
	// the context takes).
	heavy := "(defmacro m [] (stop!) (dotimes [i 100000] (dotimes [j 1000] (inc j))) 1) (m)"
	cancelling := func() (context.Context, *Funcs) {
		ctx, cancel := context.WithCancel(context.Background())
		t.Cleanup(cancel)
		funcs, err := NewFuncs(map[string]any{"stop!": func() bool { cancel(); return true }})
		if err != nil {
			t.Fatal(err)
		}
		return ctx, funcs
	}

	t.Run("Run's context", func(t *testing.T) {
		ctx, funcs := cancelling()
		res, err := Run(ctx, heavy, Options{Funcs: funcs})
		assertKind(t, err, Cancelled)
		if res == nil {
			t.Fatal("Run returned a nil Result")
		}
	})
	t.Run("Run's time limit", func(t *testing.T) {
		// A nanosecond has passed before the first macro runs.
		_, err := Run(context.Background(), "(defmacro m [] 1) (m)", Options{Limits: Limits{Timeout: time.Nanosecond}})
		assertKind(t, err, Timeout)
	})
	t.Run("Cache.Compile's context", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, _, err := new(Cache).Compile(ctx, "(defmacro m [] 1) (m)")
		assertKind(t, err, Cancelled)
		// Nothing of the stopped compilation is kept: with a live context
		// the same text compiles.
		c := new(Cache)
		c.Compile(ctx, "(defmacro m [] 1) (m)")
		if _, cached, err := c.Compile(context.Background(), "(defmacro m [] 1) (m)"); err != nil || cached {
			t.Fatalf("after a stopped compilation: cached %v, err %v; want a new compilation", cached, err)
		}
	})
	t.Run("Cache.Compile's deadline", func(t *testing.T) {
		ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
		defer cancel()
		_, _, err := new(Cache).Compile(ctx, "(defmacro m [] 1) (m)")
		assertKind(t, err, Timeout)
	})
	t.Run("a macro's own budget is its fault", func(t *testing.T) {
		// No time limit of the run: whether the machine is fast or slow,
		// the macro meets its own budget (steps, or at worst its time).
		_, err := Run(context.Background(), "(defmacro m [] (dotimes [i 100000] (dotimes [j 1000] (inc j)))) (m)", Options{Limits: Limits{Timeout: -1}})
		assertKind(t, err, InvalidForm)
	})
	t.Run("a program without macros ignores the context while compiling", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if _, _, err := new(Cache).Compile(ctx, "(+ 1 2)"); err != nil {
			t.Fatalf("Compile: %v", err)
		}
	})
}

// A goroutine that waits for another's compilation of the same text
// stops waiting when its context ends.
func TestCacheWaitEndsWithTheContext(t *testing.T) {
	c := new(Cache)
	first, cancelFirst := context.WithCancel(context.Background())
	defer cancelFirst()
	src := "(defmacro m [] (dotimes [i 100000] (dotimes [j 1000] (inc j))) 1) (m)"
	done := make(chan error, 1)
	go func() {
		_, _, err := c.Compile(first, src)
		done <- err
	}()
	for { // until the first compilation is under way
		select {
		case err := <-done:
			// Its macro ran out of its budget before this goroutine looked
			// (a busy machine): the cache holds no failed compilation, so
			// there is nothing to wait for; polling on would never end.
			t.Skipf("the first compilation ended (%v) before the second asked: nothing to wait for", err)
		default:
		}
		c.mu.Lock()
		e := c.entries[src]
		c.mu.Unlock()
		if e != nil {
			break
		}
		time.Sleep(time.Millisecond)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, _, err := c.Compile(ctx, src)
	cancelFirst()
	firstErr := <-done
	if e := new(Error); errors.As(firstErr, &e) && e.Kind == InvalidForm {
		t.Skip("the first compilation ended before the second asked (a very fast machine): nothing to wait for")
	}
	assertKind(t, err, Cancelled)
	assertKind(t, firstErr, Cancelled)
}

func assertKind(t *testing.T, err error, want Kind) {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("err = %v (%T), want a *lisp.Error of kind %s", err, err, want)
	}
	if e.Kind != want {
		t.Fatalf("kind %s (%s), want %s", e.Kind, e.Message, want)
	}
}

// A nil context is read as context.Background, not a reason to panic.
func TestNilContextRuns(t *testing.T) {
	//lint:ignore SA1012 a nil context is what is tested
	res, err := Run(nil, "(+ 1 2)", Options{})
	if err != nil || res.Value != int64(3) {
		t.Fatalf("Run(nil, ...) = %v, %v", res.Value, err)
	}
	p, err := Compile("(* 2 3)")
	if err != nil {
		t.Fatal(err)
	}
	//lint:ignore SA1012 a nil context is what is tested
	res, err = p.Run(nil, Options{})
	if err != nil || res.Value != int64(6) {
		t.Fatalf("Program.Run(nil, ...) = %v, %v", res.Value, err)
	}
	//lint:ignore SA1012 a nil context is what is tested
	if _, _, err := new(Cache).Compile(nil, "(+ 1 2)"); err != nil {
		t.Fatalf("Cache.Compile(nil, ...): %v", err)
	}
}
