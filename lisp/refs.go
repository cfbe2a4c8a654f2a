package lisp

import (
	"maps"
	"sync"

	"github.com/ptc-go/ptc/lisp/internal/analyze"
)

// Delays, futures and promises: Clojure's other references, as cells
// (state.go) of their own kinds, so that they are journaled, printed,
// copied and walked as atoms are.
//
// A delay holds its body, a function of no arguments, until the first
// deref (or force) runs it; the value, or the exception it threw, is then
// what the delay holds, and every later deref gives the value or throws
// the exception again, as Clojure's Delay does. One thread runs the body;
// others that deref the delay meanwhile (pmap branches) wait for it,
// bounded by the run's time limit.
//
// A future runs its body at once, in the thread that makes it: the value
// is there when the future is made, and deref gives it (or throws an
// ExecutionException whose cause is the body's exception, as Clojure's
// deref of a failed future does). Running the body in place keeps the
// run deterministic and every limit where it is; parallel work is pmap's
// and pcalls' (docs/deviations.md).
//
// A promise is delivered once; deref of one not delivered yet is an error
// (nothing else could deliver it while the thread waits: a wait would last
// for ever), unless a timeout value is given, (deref p ms v).

// pendingDelay is what a delay holds before its body has run.
type pendingDelay struct {
	body Value
	mu   sync.Mutex
	// owner is the thread running the body (nil: none); done is closed
	// when it has finished, whatever the outcome.
	owner *thread
	done  chan struct{}
}

// failedRef is what a delay or a future holds when its body threw: the
// exception, thrown again by every deref.
type failedRef struct{ exc *Exception }

// pendingPromise is what a promise holds before it is delivered.
type pendingPromise struct{}

// refPending is the state of every undelivered promise.
var refPending = &pendingPromise{}

// refValue is what a reference holds for the walks that look inside cells
// (the printer, ToGo, the firewall): its value, the exception of a failed
// body, nil while pending.
func refValue(v Value) Value {
	switch x := v.(type) {
	case *pendingDelay, *pendingPromise:
		return nil
	case *failedRef:
		return x.exc
	}
	return v
}

// refPendingNow reports whether a delay or a promise has no value yet.
func refPendingNow(c *Cell) bool {
	switch c.load().val.(type) {
	case *pendingDelay, *pendingPromise:
		return true
	}
	return false
}

// refFailed reports whether a delay's or a future's body threw.
func refFailed(c *Cell) bool { _, ok := c.load().val.(*failedRef); return ok }

// refResult is what the body of a delay or a future left: its value, or,
// for an exception a try could catch, a failedRef; an error no try
// catches (a limit, a cancellation) is returned as it is.
func (th *thread) refResult(v Value, err error) (Value, error) {
	if err == nil {
		return v, nil
	}
	exc, cerr := th.caughtException(err)
	if cerr != nil {
		return nil, cerr
	}
	if exc == nil {
		return nil, err
	}
	return &failedRef{exc: exc}, nil
}

// force is deref of a delay: its value, running its body first if no
// thread has.
func (th *thread) force(c *Cell) (Value, error) {
	for {
		s := c.load()
		p, pending := s.val.(*pendingDelay)
		if !pending {
			return th.realized(c, s.val)
		}
		p.mu.Lock()
		if q, still := c.load().val.(*pendingDelay); !still || q != p {
			// Another thread ran the body and stored its outcome between
			// the load above and the lock (it stores before it lets go of
			// the body): read the outcome, do not run the body again.
			p.mu.Unlock()
			continue
		}
		if p.owner == nil {
			p.owner, p.done = th, make(chan struct{})
			p.mu.Unlock()
			return th.runDelay(c, s, p)
		}
		owner, done := p.owner, p.done
		p.mu.Unlock()
		if owner == th {
			return nil, classError(InvalidArgument, classStackOverflow,
				"the body of a delay derefs the delay itself: it would never end")
		}
		// Another thread (a pmap branch) runs the body: wait for it, or
		// for the end of the run's time.
		ctx := th.run.toolContext()
		select {
		case <-done:
		case <-ctx.Done():
			return nil, th.run.contextError(ctx.Err())
		}
	}
}

// runDelay runs a delay's body in this thread and stores what it left.
func (th *thread) runDelay(c *Cell, s *cellState, p *pendingDelay) (Value, error) {
	release := func() {
		p.mu.Lock()
		close(p.done)
		p.owner, p.done = nil, nil
		p.mu.Unlock()
	}
	v, err := th.refResult(th.call(p.body, nil))
	if err != nil {
		release() // the run ends: the delay stays pending for another run
		return nil, err
	}
	if _, err := th.casCell(c, s, v, false); err != nil {
		release()
		return nil, err
	}
	release()
	return th.realized(c, v)
}

// realized is the deref of a delay's or a future's outcome.
func (th *thread) realized(c *Cell, v Value) (Value, error) {
	f, failed := v.(*failedRef)
	if !failed {
		return v, nil
	}
	if c.kind == delayCell {
		return nil, throwValue(f.exc)
	}
	// A future's exception comes wrapped, as Java's Future.get wraps it;
	// its message is the cause's text, as str gives it (charged).
	if err := th.charge(4); err != nil {
		return nil, err
	}
	msg, err := th.render(f.exc, false)
	if err != nil {
		return nil, err
	}
	return nil, throwValue(&Exception{class: classExecution, message: msg, cause: f.exc})
}

// derefPromise is deref of a promise: its value, or, not delivered yet,
// timeout (when given) or an error.
func derefPromise(c *Cell, timeout Value, withTimeout bool) (Value, error) {
	v := c.load().val
	if _, pending := v.(*pendingPromise); !pending {
		return v, nil
	}
	if withTimeout {
		return timeout, nil
	}
	return nil, classError(InvalidArgument, classIllegalState,
		"deref of a promise that was never delivered: it would wait for ever; deliver it first, (deliver p v), or give a timeout value, (deref p 100 :none)")
}

func registerRefs(t *builtinTable) {
	// What (binding [names values] body...) calls: the values bound to
	// the names in this thread (and the pmap branches it starts, whose
	// environments sit on top of it) while body runs.
	t.set(analyze.BindingFn, &Builtin{Name: "binding", MinArgs: 3, MaxArgs: 3, fn: func(th *thread, a []Value) (Value, error) {
		names, values := a[0].(*Vector).items, a[1].(*Vector).items
		for _, n := range names {
			if _, ok := th.globals.lookup(n.(string)); !ok && !isPrinterVar(n.(string)) {
				return nil, errorf(UnboundVar, "binding of %s, which no def has defined: (def ^:dynamic %s nil) first", n, n)
			}
		}
		// A binding inside a binding copies the outer one's values into
		// its own frame and sits on the environment below both: however
		// deep bindings nest (a recursive function that binds), a lookup
		// passes one frame of them.
		outer := th.globals
		below := outer
		var inherited map[string]Value
		if outer.bound {
			inherited, below = outer.defs, outer.parent
		}
		if err := th.charge(int64(2 * (len(names) + len(inherited)))); err != nil {
			return nil, err
		}
		if err := th.ticks(len(inherited)); err != nil {
			return nil, err
		}
		defs := make(map[string]Value, len(names)+len(inherited))
		maps.Copy(defs, inherited)
		for i, n := range names {
			defs[n.(string)] = values[i]
		}
		th.globals = &globalEnv{base: outer.base, parent: below, defs: defs, bound: true}
		v, err := th.call(a[2], nil)
		th.globals = outer
		return v, err
	}})
	// What (delay body...) and (future body...) call with (fn []
	// body...); the analyzer rewrites the macros into calls of these
	// names, which no program can spell.
	t.set(analyze.DelayFn, &Builtin{Name: "delay", MinArgs: 1, MaxArgs: 1, fn: func(th *thread, a []Value) (Value, error) {
		return th.newCell(delayCell, &pendingDelay{body: a[0]}, nil)
	}})
	future := func(th *thread, body Value) (Value, error) {
		// The body runs at once, on this thread, but outside its
		// transaction and its agent's action, as a future's thread would.
		tx, action, held := th.tx, th.action, th.held
		th.tx, th.action, th.held = nil, nil, nil
		v, err := th.refResult(th.call(body, nil))
		th.tx, th.action, th.held = tx, action, held
		if err != nil {
			return nil, err
		}
		return th.newCell(futureCell, v, nil)
	}
	t.set(analyze.FutureFn, &Builtin{Name: "future", MinArgs: 1, MaxArgs: 1, fn: func(th *thread, a []Value) (Value, error) {
		return future(th, a[0])
	}})
	t.add("future-call", 1, 1, func(th *thread, a []Value) (Value, error) {
		f, err := fnArg("future-call", a, 0)
		if err != nil {
			return nil, err
		}
		return future(th, f)
	})
	t.add("force", 1, 1, func(th *thread, a []Value) (Value, error) {
		if c, ok := a[0].(*Cell); ok && c.kind == delayCell {
			return th.force(c)
		}
		return a[0], nil
	})
	t.add("promise", 0, 0, func(th *thread, _ []Value) (Value, error) {
		return th.newCell(promiseCell, refPending, nil)
	})
	t.add("deliver", 2, 2, func(th *thread, a []Value) (Value, error) {
		c, err := cellArg("deliver", a, 0, promiseCell)
		if err != nil {
			return nil, err
		}
		for {
			s := c.load()
			if _, pending := s.val.(*pendingPromise); !pending {
				return nil, nil // delivered before: nothing changes, as in Clojure
			}
			ok, err := th.casCell(c, s, a[1], false)
			if err != nil {
				return nil, err
			}
			if ok {
				return c, nil
			}
		}
	})
	isKind := func(kind cellKind) func(Value) bool {
		return func(v Value) bool { c, ok := v.(*Cell); return ok && c.kind == kind }
	}
	for name, kind := range map[string]cellKind{"delay?": delayCell, "future?": futureCell} {
		is := isKind(kind)
		t.add(name, 1, 1, func(_ *thread, a []Value) (Value, error) { return is(a[0]), nil })
	}
	isFuture := isKind(futureCell)
	t.add("future-done?", 1, 1, func(_ *thread, a []Value) (Value, error) {
		if !isFuture(a[0]) {
			return nil, argError("future-done?", 0, "a future", a[0])
		}
		return true, nil // its body ran when it was made
	})
	t.add("future-cancel", 1, 1, func(_ *thread, a []Value) (Value, error) {
		if !isFuture(a[0]) {
			return nil, argError("future-cancel", 0, "a future", a[0])
		}
		return false, nil // done: too late to cancel, as Java answers
	})
	t.add("future-cancelled?", 1, 1, func(_ *thread, a []Value) (Value, error) {
		if !isFuture(a[0]) {
			return nil, argError("future-cancelled?", 0, "a future", a[0])
		}
		return false, nil
	})
}

// derefRef is deref of a delay, a future or a promise (ok false: c is
// another kind of cell).
func (th *thread) derefRef(c *Cell, a []Value) (v Value, ok bool, err error) {
	switch c.kind {
	case delayCell:
		v, err = th.force(c)
	case futureCell:
		v, err = th.realized(c, c.load().val)
	case promiseCell:
		var timeout Value
		if len(a) == 3 {
			timeout = a[2]
		}
		v, err = derefPromise(c, timeout, len(a) == 3)
	default:
		return nil, false, nil
	}
	return v, true, err
}

// refRealized is realized? of a delay, a future or a promise.
func refRealized(c *Cell) (bool, bool) {
	switch c.kind {
	case delayCell, promiseCell:
		return !refPendingNow(c), true
	case futureCell:
		return true, true
	}
	return false, false
}

// The printer's dynamic vars a program may bind, as Clojure's
// clojure.core/*print-length* and *print-level*: nil unless bound, they
// cut what pr, prn, str, println, format and pprint print of collections
// while the binding's body runs.
const (
	printLengthVar = "*print-length*"
	printLevelVar  = "*print-level*"
)

func isPrinterVar(name string) bool { return name == printLengthVar || name == printLevelVar }

// printerVars reads the bound *print-length* and *print-level*, each plus
// one (0: unbound, nil, or not a count).
func (th *thread) printerVars() (length, level int) {
	read := func(name string) int {
		v, _ := th.globals.lookup(name)
		if n, ok := v.(int64); ok && n >= 0 && n < 1<<30 {
			return int(n) + 1
		}
		return 0
	}
	return read(printLengthVar), read(printLevelVar)
}
