package lisp

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ptc-go/ptc/lisp/internal/analyze"
	"github.com/ptc-go/ptc/lisp/syntax"
)

// someFn calls the function made by (some-fn ps...) with args as Clojure
// does: each predicate on the first three arguments, then on the rest
// (argument by argument for up to three predicates). With nothing truthy
// the result is the last predicate's value when Clojure's code ends with
// an or (up to three predicates and three arguments: usually false), else
// nil (its code ends with some).
func someFn(th *thread, ps, args []Value) (Value, error) {
	var last Value
	try := func(p, x Value) (bool, error) {
		v, err := th.call1(p, x)
		last = v
		return truthy(v), err
	}
	head := args[:min(len(args), 3)]
	for _, p := range ps {
		for _, x := range head {
			if ok, err := try(p, x); err != nil || ok {
				return last, err
			}
		}
	}
	if len(ps) > 3 || len(args) > 3 {
		last = nil
	}
	rest := args[len(head):]
	if len(ps) <= 3 {
		for _, x := range rest {
			for _, p := range ps {
				if ok, err := try(p, x); err != nil || ok {
					return last, err
				}
			}
		}
	} else {
		for _, p := range ps {
			for _, x := range rest {
				if ok, err := try(p, x); err != nil || ok {
					return last, err
				}
			}
		}
	}
	if len(ps) > 3 || len(args) > 3 {
		return nil, nil
	}
	return last, nil
}

// maxMemoEntries bounds the cache of one memoized function: beyond it, new
// results are computed but not kept.
const maxMemoEntries = 10_000

// memoCache is the cache of a function made by memoize: argument vectors
// (compared as map keys: 1 and 1.0 differ) to results, for one run. pmap
// branches share it, so it is guarded by a mutex, which is never held while
// the function runs (it may call itself). A function defined in an earlier
// run starts with an empty cache in a new one.
type memoCache struct {
	f       Value
	mu      sync.Mutex
	run     *runState
	results *Map
}

func (c *memoCache) lookup(run *runState, key Value) (v Value, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	defer bounded(func() { v, ok = nil, false }) // arguments too large to compare are not cached
	if c.run != run || c.results == nil {
		return nil, false
	}
	return c.results.getExact(key)
}

func (c *memoCache) store(run *runState, key, v Value) {
	c.mu.Lock()
	defer c.mu.Unlock()
	defer bounded(func() {})
	if c.run != run || c.results == nil {
		c.run, c.results = run, emptyMap
	}
	if c.results.Len() < maxMemoEntries {
		c.results = c.results.Assoc(key, v)
	}
}

func (c *memoCache) call(th *thread, args []Value) (Value, error) {
	key := NewVector(slices.Clone(args))
	if v, ok := c.lookup(th.run, key); ok {
		return v, nil
	}
	v, err := th.call(c.f, args)
	if err != nil {
		return nil, err
	}
	// An entry holds the key's arguments and the result (already charged).
	if err := th.charge(int64(len(args)) + 2); err != nil {
		return nil, err
	}
	c.store(th.run, key, v)
	return v, nil
}

func registerFunctions(t *builtinTable) {
	t.add("identity", 1, 1, func(th *thread, a []Value) (Value, error) { return a[0], nil })
	t.add("constantly", 1, 1, func(th *thread, a []Value) (Value, error) {
		x := a[0]
		return &Builtin{Name: "constantly", MinArgs: 0, MaxArgs: -1, fn: func(*thread, []Value) (Value, error) { return x, nil }}, nil
	})
	t.add("complement", 1, 1, func(th *thread, a []Value) (Value, error) {
		f, err := fnArg("complement", a, 0)
		if err != nil {
			return nil, err
		}
		return &Builtin{Name: "complement", MinArgs: 0, MaxArgs: -1, fn: func(th *thread, args []Value) (Value, error) {
			v, err := th.call(f, args)
			return !truthy(v), err
		}}, nil
	})
	t.add("comp", 0, -1, func(th *thread, a []Value) (Value, error) {
		for i := range a {
			if _, err := fnArg("comp", a, i); err != nil {
				return nil, err
			}
		}
		fs := slices.Clone(a)
		if len(fs) == 0 {
			return t.names["identity"], nil
		}
		if xf, ok := composeTransducers(fs); ok {
			// Transducers compose into one that runs their stages left to right.
			return xf, nil
		}
		return &Builtin{Name: "comp", MinArgs: 0, MaxArgs: -1, fn: func(th *thread, args []Value) (Value, error) {
			v, err := th.call(fs[len(fs)-1], args)
			for i := len(fs) - 2; i >= 0 && err == nil; i-- {
				v, err = th.call1(fs[i], v)
			}
			return v, err
		}}, nil
	})
	t.add("partial", 1, -1, func(th *thread, a []Value) (Value, error) {
		f, err := fnArg("partial", a, 0)
		if err != nil {
			return nil, err
		}
		bound := slices.Clone(a[1:])
		return &Builtin{Name: "partial", MinArgs: 0, MaxArgs: -1, fn: func(th *thread, args []Value) (Value, error) {
			all := make([]Value, 0, len(bound)+len(args))
			return th.call(f, append(append(all, bound...), args...))
		}}, nil
	})
	t.add("juxt", 0, -1, func(th *thread, a []Value) (Value, error) {
		for i := range a {
			if _, err := fnArg("juxt", a, i); err != nil {
				return nil, err
			}
		}
		fs := slices.Clone(a)
		return &Builtin{Name: "juxt", MinArgs: 0, MaxArgs: -1, fn: func(th *thread, args []Value) (Value, error) {
			out := make([]Value, len(fs))
			for i, f := range fs {
				var err error
				if out[i], err = th.call(f, args); err != nil {
					return nil, err
				}
			}
			return th.vector(out)
		}}, nil
	})
	t.add("fnil", 2, 4, func(th *thread, a []Value) (Value, error) {
		f, err := fnArg("fnil", a, 0)
		if err != nil {
			return nil, err
		}
		defaults := slices.Clone(a[1:])
		return &Builtin{Name: "fnil", MinArgs: 0, MaxArgs: -1, fn: func(th *thread, args []Value) (Value, error) {
			patched := slices.Clone(args)
			for i, d := range defaults {
				if i < len(patched) && patched[i] == nil {
					patched[i] = d
				}
			}
			return th.call(f, patched)
		}}, nil
	})
	t.add("every-pred", 1, -1, func(th *thread, a []Value) (Value, error) {
		ps := slices.Clone(a)
		return &Builtin{Name: "every-pred", MinArgs: 0, MaxArgs: -1, fn: func(th *thread, args []Value) (Value, error) {
			for _, p := range ps {
				for _, x := range args {
					ok, err := th.test(p, x)
					if err != nil || !ok {
						return false, err
					}
				}
			}
			return true, nil
		}}, nil
	})
	t.add("some-fn", 1, -1, func(th *thread, a []Value) (Value, error) {
		ps := slices.Clone(a)
		return &Builtin{Name: "some-fn", MinArgs: 0, MaxArgs: -1, fn: func(th *thread, args []Value) (Value, error) {
			return someFn(th, ps, args)
		}}, nil
	})
	t.add("memoize", 1, 1, func(th *thread, a []Value) (Value, error) {
		f, err := fnArg("memoize", a, 0)
		if err != nil {
			return nil, err
		}
		c := &memoCache{f: f}
		return &Builtin{Name: "memoize", MinArgs: 0, MaxArgs: -1, fn: c.call}, nil
	})
	t.add("apply", 2, -1, func(th *thread, a []Value) (Value, error) {
		f := a[0]
		if !isCallable(f) {
			return nil, argError("apply", 0, "a function", f)
		}
		last := a[len(a)-1]
		switch c := last.(type) {
		case *Vector, *Set, *Map, nil, *Seq, string: // a string spreads its characters
		case *Cell: // a Java array, a StringBuilder's characters
			if k := c.kind; k != arrayCell && k != builderCell && k != utilCell {
				return nil, classError(TypeError, classIllegalArgument, "apply expects a collection as its last argument, got %s", describe(last))
			}
		default:
			return nil, classError(TypeError, classIllegalArgument, "apply expects a collection as its last argument, got %s", describe(last))
		}
		xs, err := th.items(last, "apply")
		if err != nil {
			return nil, err
		}
		n := len(a) - 2 + len(xs)
		if err := th.charge(int64(n)); err != nil { // the argument list
			return nil, err
		}
		args := make([]Value, 0, n)
		args = append(append(args, a[1:len(a)-1]...), xs...)
		return th.call(f, args)
	})
	t.add("reduced", 1, 1, func(th *thread, a []Value) (Value, error) { return &reduced{value: a[0]}, nil })
	t.add("not", 1, 1, func(th *thread, a []Value) (Value, error) { return !truthy(a[0]), nil })
	t.add("boolean", 1, 1, func(th *thread, a []Value) (Value, error) { return truthy(a[0]), nil })
	t.add("identical?", 2, 2, func(th *thread, a []Value) (Value, error) {
		return identicalValues(a[0], a[1]), nil
	})

	pred := func(name string, f func(Value) bool) {
		t.add(name, 1, 1, func(th *thread, a []Value) (Value, error) { return f(a[0]), nil })
	}
	pred("nil?", func(v Value) bool { return v == nil })
	pred("some?", func(v Value) bool { return v != nil })
	pred("true?", func(v Value) bool { return v == true })
	pred("false?", func(v Value) bool { return v == false })
	pred("boolean?", func(v Value) bool { _, ok := v.(bool); return ok })
	pred("string?", func(v Value) bool { _, ok := v.(string); return ok })
	pred("keyword?", func(v Value) bool { _, ok := v.(Keyword); return ok })
	pred("char?", func(v Value) bool { s, ok := v.(string); return ok && s != "" && graphemeLen(s) == len(s) })
	pred("vector?", func(v Value) bool { x, ok := v.(*Vector); return ok && x.isVectorPred() })
	pred("map?", func(v Value) bool { _, ok := v.(*Map); return ok })
	pred("set?", func(v Value) bool { _, ok := v.(*Set); return ok })
	// list? is Clojure's IPersistentList: a list, not a Cons, and a queue.
	pred("list?", func(v Value) bool {
		x, ok := v.(*Vector)
		return ok && (x.IsList() && !x.IsCons() || x.IsQueue())
	})
	pred("seq?", func(v Value) bool {
		if x, ok := v.(*Vector); ok {
			return x.IsList() || x.IsSeqView()
		}
		_, ok := v.(*Seq)
		return ok
	})
	pred("coll?", func(v Value) bool {
		switch v.(type) {
		case *Vector, *Map, *Set, *Seq:
			return true
		}
		return false
	})
	pred("sequential?", func(v Value) bool {
		switch v.(type) {
		case *Vector, *Seq:
			return true
		}
		return false
	})
	pred("associative?", func(v Value) bool {
		switch v := v.(type) {
		case *Vector:
			return v.isVectorPred()
		case *Map:
			return true
		}
		return false
	})
	pred("counted?", func(v Value) bool {
		switch v.(type) {
		case *Vector, *Map, *Set:
			return true
		}
		return false
	})
	pred("seqable?", func(v Value) bool {
		switch v := v.(type) {
		case nil, string, *Vector, *Map, *Set, *Seq:
			return true
		case *Cell:
			return v.kind == arrayCell || v.kind == builderCell || v.kind == utilCell
		}
		return false
	})
	pred("fn?", func(v Value) bool {
		switch v := v.(type) {
		case *Closure:
			return true
		case *Builtin:
			return v.multi == nil // a multimethod is not a Fn, as in Clojure
		}
		return false
	})
	pred("ifn?", isCallable)
	pred("regex?", func(v Value) bool { _, ok := v.(*Regex); return ok })
	pred("var?", func(v Value) bool { _, ok := v.(*Var); return ok })
	// (var-get #'x) is @#'x; (bound? #'x) holds for every var a def made,
	// since there are no unbound vars here.
	t.add("var-get", 1, 1, func(th *thread, a []Value) (Value, error) {
		v, ok := a[0].(*Var)
		if !ok {
			return nil, argError("var-get", 0, "a var, #'name", a[0])
		}
		x, ok := th.globals.lookup(v.Name)
		if !ok {
			return nil, errorf(UnboundVar, "var #'%s is not defined", v.Name)
		}
		return x, nil
	})
	t.add("bound?", 1, -1, func(th *thread, a []Value) (Value, error) {
		for i, x := range a {
			v, ok := x.(*Var)
			if !ok {
				return nil, argError("bound?", i, "a var, #'name", x)
			}
			if _, ok := th.globals.lookup(v.Name); !ok {
				return false, nil
			}
		}
		return true, nil
	})
	// (resolve 'sym): what a name means, for a program that picks a
	// function by name at run time ((resolve (symbol op)) in a
	// calculator): a def'd name's var, a builtin itself (as #'inc is),
	// nil for anything else. Only names a program could write resolve.
	t.add("resolve", 1, 1, func(th *thread, a []Value) (Value, error) {
		s, ok := a[0].(Symbol)
		if !ok {
			return nil, argError("resolve", 0, "a symbol", a[0])
		}
		if s.Ns == "" {
			if _, ok := th.globals.lookup(s.Name); ok {
				return &Var{Name: s.Name}, nil
			}
		}
		name := s.Name
		switch s.Ns {
		case "", "clojure.core", "core":
		case "str", "string", "s", "clojure.string":
			name = "clojure.string/" + s.Name
		case "set", "clojure.set":
			name = "clojure.set/" + s.Name
		case "walk", "w", "clojure.walk":
			name = "clojure.walk/" + s.Name
		default:
			name = s.Ns + "/" + s.Name
		}
		if b, ok := t.names[name].(*Builtin); ok && !strings.HasPrefix(name, " ") && !analyze.IsSpecialForm(s.Name) {
			return b, nil
		}
		return nil, nil
	})
	pred("reduced?", func(v Value) bool { _, ok := v.(*reduced); return ok })
	pred("map-entry?", func(v Value) bool { e, ok := v.(*Vector); return ok && e.IsEntry() })
	pred("any?", func(Value) bool { return true })

	t.add("println", 0, -1, func(th *thread, a []Value) (Value, error) { return nil, th.print(a, true) })
	t.add("print", 0, -1, func(th *thread, a []Value) (Value, error) { return nil, th.print(a, false) })
	t.add("prn", 0, -1, func(th *thread, a []Value) (Value, error) { return nil, th.printValues(a, true, true) })
	t.add("pr", 0, -1, func(th *thread, a []Value) (Value, error) { return nil, th.printValues(a, true, false) })
	// What (with-out-str body...) calls with (fn [] body...): the body's
	// output, pmap branches' included, becomes the string it returns
	// rather than the run's output. It is printed as println prints, so a
	// firewalled value shows as its placeholder (docs/deviations.md); the
	// text costs memory, not the output limit. On an error the captured
	// output is dropped, as Clojure's binding of *out* drops it.
	t.set(analyze.WithOutStrFn, &Builtin{Name: "with-out-str", MinArgs: 1, MaxArgs: 1, fn: func(th *thread, a []Value) (Value, error) {
		out, partial, openLine := th.out, th.partial, th.open
		th.out, th.partial, th.open = nil, false, nil
		th.capturing++
		_, err := th.call(a[0], nil)
		th.capturing--
		open := th.partial
		th.closeLine()
		lines := th.out
		th.out, th.partial, th.open = out, partial, openLine
		n := 0
		for _, l := range lines {
			n += len(l) + 1
		}
		if err != nil {
			return nil, err
		}
		var sb strings.Builder
		sb.Grow(n)
		for i, l := range lines {
			sb.WriteString(l)
			if i < len(lines)-1 || !open {
				sb.WriteByte('\n')
			}
		}
		return sb.String(), nil
	}})
	// What (time expr) calls with (fn [] expr): Clojure's macro, which
	// prints (as prn does) how long expr took, then returns its value; an
	// error prints nothing.
	t.set(analyze.TimeFn, &Builtin{Name: "time", MinArgs: 1, MaxArgs: 1, fn: func(th *thread, a []Value) (Value, error) {
		start := time.Now()
		v, err := th.call(a[0], nil)
		if err != nil {
			return nil, err
		}
		ms := float64(time.Since(start).Nanoseconds()) / 1e6
		return v, th.printValues([]Value{"Elapsed time: " + formatFloat(ms) + " msecs"}, true, true)
	}})
	t.add("newline", 0, 0, func(th *thread, _ []Value) (Value, error) { return nil, th.printLine("", true) })

	t.add("pmap", 2, -1, func(th *thread, a []Value) (Value, error) {
		f := a[0]
		if !isCallable(f) {
			return nil, argError("pmap", 0, "a function", f)
		}
		colls, n, err := th.multiItems("pmap", a[1:])
		if err != nil {
			return nil, err
		}
		item := func(i int) string { // named in a failing branch's error
			if len(colls) == 1 {
				return briefItem(colls[0][i])
			}
			args := make([]Value, len(colls))
			for j, c := range colls {
				args[j] = c[i]
			}
			return briefItem(NewVector(args))
		}
		return th.parallel("pmap", n, item, func(bt *thread, i int) (Value, error) {
			args := make([]Value, len(colls))
			for j, c := range colls {
				args[j] = c[i]
			}
			return bt.call(f, args)
		})
	})
	t.add("pcalls", 0, -1, func(th *thread, a []Value) (Value, error) {
		for i, f := range a {
			if !isCallable(f) {
				return nil, argError("pcalls", i, "a function", f)
			}
			if c, ok := f.(*Closure); ok && c.proto.arityFor(0) == nil {
				return nil, errorf(pcallsError, "pcalls needs functions of no arguments, got %s", brief(f))
			}
		}
		fs := slices.Clone(a)
		return th.parallel("pcalls", len(fs), nil, func(bt *thread, i int) (Value, error) { return bt.call(fs[i], nil) })
	})

	t.add("trampoline", 1, -1, func(th *thread, a []Value) (Value, error) {
		f, err := fnArg("trampoline", a, 0)
		if err != nil {
			return nil, err
		}
		v, err := th.call(f, a[1:])
		for err == nil {
			switch v.(type) {
			case *Closure, *Builtin:
			default:
				return v, nil
			}
			if err = th.tick(); err != nil {
				break
			}
			v, err = th.call(v, nil)
		}
		return nil, err
	})
	t.add("comparator", 1, 1, func(_ *thread, a []Value) (Value, error) {
		pred, err := fnArg("comparator", a, 0)
		if err != nil {
			return nil, err
		}
		return &Builtin{Name: "comparator", MinArgs: 2, MaxArgs: 2, fn: func(th *thread, args []Value) (Value, error) {
			v, err := th.call2(pred, args[0], args[1])
			if err != nil || truthy(v) {
				return int64(-1), err
			}
			if v, err = th.call2(pred, args[1], args[0]); err != nil || truthy(v) {
				return int64(1), err
			}
			return int64(0), nil
		}}, nil
	})

	kwPred := func(name string, f func(k Keyword) bool) {
		t.add(name, 1, 1, func(_ *thread, a []Value) (Value, error) {
			k, ok := a[0].(Keyword)
			return ok && f(k), nil
		})
	}
	kwPred("simple-keyword?", func(k Keyword) bool { return !qualifiedKeyword(k) })
	kwPred("qualified-keyword?", qualifiedKeyword)

	t.add("printf", 1, -1, func(th *thread, a []Value) (Value, error) {
		f, err := stringArg("printf", a, 0)
		if err != nil {
			return nil, err
		}
		args := a[1:]
		if r := th.run.redact; r != nil {
			// Hidden arguments print as the placeholder, whatever the
			// conversion; collections are redacted inside by render.
			args = slices.Clone(args)
			for i, x := range args {
				if r.hidesValue(x) {
					args[i] = r.Placeholder
				}
			}
			th.printing = true
			defer func() { th.printing = false }()
		}
		s, err := th.formatJava(f, args)
		if err != nil {
			return nil, err
		}
		// Like print: no newline of its own; the newlines of the format end lines.
		lines := strings.Split(s.(string), "\n")
		for i, line := range lines {
			if i == len(lines)-1 {
				if line != "" {
					return nil, th.printLine(line, false)
				}
				break
			}
			if err := th.printLine(line, true); err != nil {
				return nil, err
			}
		}
		return nil, nil
	})
	// Output is collected, not streamed: there is nothing to flush.
	t.add("flush", 0, 0, func(*thread, []Value) (Value, error) { return nil, nil })

	t.add("parse-uuid", 1, 1, func(_ *thread, a []Value) (Value, error) {
		s, err := stringArg("parse-uuid", a, 0)
		if err != nil {
			return nil, err
		}
		return parseUUID(s), nil
	})
}

// print writes println/print output: strings raw, other values printed.
func (th *thread) print(a []Value, newline bool) error { return th.printValues(a, false, newline) }

// printValues writes one line of output: the values in pr-str's form when
// printed (pr, prn), else in print's (strings unquoted at every level);
// bounded by the output limit.
func (th *thread) printValues(a []Value, printed, newline bool) error {
	parts := make([]string, len(a))
	left := int64(th.run.limits.MaxOutputBytes) - th.run.outBytes.Load()
	if th.capturing > 0 {
		left = maxPrintBytes // with-out-str: bounded by memory
	}
	for i, x := range a {
		if s, ok := x.(string); ok && !printed && !th.run.redact.hidesValue(s) {
			parts[i] = s
		} else {
			// th realizes the lazy sequences printed, as str's printer does.
			p := printer{opts: PrintOptions{MaxDepth: defaultPrintDepth, Redact: th.run.redact}, limit: int(max(left, 1)), raw: !printed, nextPoll: pollBytes, th: th}
			if th.globals.bound {
				p.setPrinterVars(th)
			}
			p.poll = func() error { return th.ticks(pollBytes / 64) }
			p.value(x, 0)
			if p.err != nil {
				return p.err
			}
			if p.overflow {
				return th.run.outputError()
			}
			parts[i] = p.sb.String()
		}
		left -= int64(len(parts[i]) + 1)
		if left < 0 {
			return th.run.outputError()
		}
	}
	return th.printLine(strings.Join(parts, " "), newline)
}

// printLine appends output. print without a newline continues the last
// line. The output limit is shared by all the threads of the run.
func (th *thread) printLine(s string, newline bool) error {
	if th.capturing == 0 && th.run.outBytes.Add(int64(len(s)+1)) > int64(th.run.limits.MaxOutputBytes) {
		return th.run.outputError()
	}
	// The lines are kept until the run ends: memory like any other, also
	// when the output is not limited (a line's header, and its share of the
	// growing list).
	if err := th.chargeString(len(s) + 2*valueSize); err != nil {
		return err
	}
	if newline && !th.partial {
		th.out = append(th.out, s) // a whole line: no copy
		return nil
	}
	// The open line grows in a buffer: a loop of prints costs the bytes
	// it prints, not the line's length again for each.
	if !th.partial {
		th.open = th.open[:0]
	}
	th.open = append(th.open, s...)
	th.partial = true
	if newline {
		th.closeLine()
	}
	return nil
}

// closeLine adds the open line, if any, to the thread's output lines.
func (th *thread) closeLine() {
	if th.partial {
		th.out = append(th.out, string(th.open))
		th.open, th.partial = th.open[:0], false
	}
}

func (r *runState) outputError() *Error {
	return errorf(OutputExceeded, "println output exceeded %d bytes: print less (summaries, counts, a few samples)", r.limits.MaxOutputBytes)
}

// parallel runs n branches. The calling goroutine works on them too, with
// as many more goroutines as the run's MaxParallel leaves free, so a
// program that forks recursively cannot multiply goroutines: once the
// budget is taken, branches run on the goroutines already working. Each
// branch gets its own thread: it continues the caller's call depth, its
// defs are discarded, its output is appended in branch order, and
// return/fail inside it are errors. The first failing branch (in index
// order) fails the whole call.
func (th *thread) parallel(name string, n int, item func(i int) string, branch func(bt *thread, i int) (Value, error)) (Value, error) {
	if n == 0 {
		return emptyVector, nil
	}
	// A fork is a checkpoint: a program that does little but fork must
	// still see cancellation and the deadline.
	if err := th.checkpoint(); err != nil {
		return nil, err
	}
	if err := th.charge(int64(n)); err != nil {
		return nil, err
	}
	results := make([]Value, n)
	errs := make([]error, n)
	outs := make([][]string, n)
	var next atomic.Int64
	var failed atomic.Bool
	work := func(bt *thread) {
		defer bt.release()
		for !failed.Load() {
			i := int(next.Add(1) - 1)
			if i >= n {
				break
			}
			bt.out, bt.partial = nil, false
			v, err := runBranch(bt, i, branch)
			bt.closeLine()
			results[i], errs[i], outs[i] = v, err, bt.out
			if err != nil {
				failed.Store(true)
			}
		}
	}
	bt, err := th.branchThread(name)
	if err != nil {
		return nil, err
	}
	extra := th.run.takeGoroutines(n - 1)
	var wg sync.WaitGroup
	for w := 0; w < extra; w++ {
		et, err := th.branchThread(name)
		if err != nil {
			th.run.goroutines.Add(int64(w - extra)) // give back the ones not started
			failed.Store(true)
			wg.Wait()
			bt.release()
			return nil, err
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer th.run.goroutines.Add(-1)
			work(et)
		}()
	}
	work(bt)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			if e, ok := err.(*Error); ok && e.Kind != Kind(name+"_error") && !isLimitKind(e.Kind) {
				// The branch's error, named: a catch around the pmap sees
				// its class, data and exception.
				w := *e
				where := fmt.Sprintf("branch %d", i)
				if item != nil {
					where = fmt.Sprintf("item %d (%s)", i, item(i))
				}
				w.Message, w.More = fmt.Sprintf("%s %s: %s", name, where, e.Message), nil
				return nil, &w
			}
			return nil, err
		}
	}
	// The branches counted their output against the run's limit already.
	for _, o := range outs {
		if len(o) > 0 {
			th.closeLine()
		}
		th.out = append(th.out, o...)
	}
	return NewVector(results), nil
}

// briefItem prints an item of pmap for an error message: short, and with
// the values of _ fields left out, as an agent's firewall would hide them.
func briefItem(v Value) string {
	hide := func(k Value) bool {
		switch k := k.(type) {
		case Keyword:
			return strings.HasPrefix(string(k), "_")
		case string:
			return strings.HasPrefix(k, "_")
		}
		return false
	}
	return Print(v, PrintOptions{MaxItems: 5, MaxChars: 80, MaxDepth: 3,
		Redact: &Redaction{Placeholder: "<Firewalled>", Key: hide}})
}

// takeGoroutines reserves up to want goroutines for branches, within
// MaxParallel (which counts the run's main goroutine), and returns how many
// it got.
func (r *runState) takeGoroutines(want int) int {
	limit := int64(r.limits.MaxParallel) - 1
	for {
		cur := r.goroutines.Load()
		n := min(int64(want), limit-cur)
		if n <= 0 {
			return 0
		}
		if r.goroutines.CompareAndSwap(cur, cur+n) {
			return int(n)
		}
	}
}

func runBranch(bt *thread, i int, branch func(bt *thread, i int) (Value, error)) (v Value, err error) {
	defer func() {
		if r := recover(); r != nil {
			if _, deep := r.(deepData); deep {
				err = deepDataError()
				return
			}
			if _, big := r.(tooMuchWork); big {
				err = tooMuchWorkError()
				return
			}
			if st, ok := r.(stopped); ok {
				err = st.err
				return
			}
			err = &Error{Kind: InternalError, Message: fmt.Sprintf("internal error in branch: %v", r)}
		}
	}()
	return branch(bt, i)
}

func isLimitKind(k Kind) bool {
	switch k {
	case Timeout, Cancelled, StepLimitExceeded, MemoryExceeded, DepthExceeded, OutputExceeded, ToolLimitExceeded:
		return true
	}
	return false
}

// qualifiedKeyword reports whether k has a namespace, as (namespace k) sees it.
func qualifiedKeyword(k Keyword) bool {
	s := string(k)
	i := strings.LastIndexByte(s, '/')
	return i > 0 && i < len(s)-1
}

// parseUUID follows Java's UUID.fromString (five dash-separated hex fields,
// at most 36 characters) and returns the canonical lower-case string, or
// nil: there is no UUID type, UUIDs are strings.
func parseUUID(s string) Value {
	if u, ok := syntax.CanonicalUUID(s); ok {
		return u
	}
	return nil
}
