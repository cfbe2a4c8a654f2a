package lisp

import (
	"slices"
	"sync"
	"sync/atomic"
)

// Mutable state: atoms, volatiles and transients, as Clojure has them.
//
// The three are one type, Cell, whose current contents is an immutable
// cellState swapped as a whole with compare-and-swap. Every write makes a
// new state with the version after the one it replaces, so a writer that
// lost a race finds out by the state pointer it loaded, never by comparing
// values (NaN is not equal to itself, and equality of large values is
// work). swap! is Clojure's retry loop: it calls the function on the state
// it loaded and installs the result only if nothing was written meanwhile,
// else it calls the function again, so under pmap a counter loses no
// update and the function may run more than once, as in Clojure. Each
// call of the function is evaluation like any other, counted in steps, so
// a swap! that can never win (its function swaps the same atom) runs into
// the step limit.
//
// A cell lives as long as the values that hold it: in a def it is carried
// to the runs that get the namespace (an agent's next turn). Runs are
// transactional (a run that fails with an error leaves the namespace as it
// was), so a run journals the state each older cell had before its first
// write to it, and a failed run puts those states back. The journal knows
// the cells a run made (they are unreachable once it fails) by their mark.
//
// Cells compare, hash and sort by identity, through an id in creation
// order: the namespace counts the cells its runs made, so ids go on from
// run to run and sets or maps of cells print in the same order every time.
//
// A cell can hold itself ((reset! a a), or (reset! a [b]) (reset! b [a])):
// the only way a PTC-Lisp value can be cyclic. Every walk that looks inside
// cells (the printer, ToGo, ToJSON, the agent's size estimate and firewall)
// keeps the cells on its path and stops at one it meets again.

// cellKind says what a Cell is.
type cellKind uint8

const (
	atomCell cellKind = iota
	volatileCell
	transientCell
	// arrayCell is a Java array and builderCell a StringBuilder
	// (arrays.go, builder.go): their state holds contents a run changes in
	// place (see mutate).
	arrayCell
	builderCell
	// delayCell, futureCell and promiseCell are Clojure's delays, futures
	// and promises (refs.go).
	delayCell
	futureCell
	promiseCell
	// utilCell is a java.util collection (javacoll.go): contents a run
	// changes in place, as an array's.
	utilCell
	// refCell is a ref, written by transactions (stm.go).
	refCell
	// agentCell is an agent, written by its actions (agents.go).
	agentCell
)

// isRef reports whether k is a delay, a future or a promise.
func (k cellKind) isRef() bool { return k >= delayCell && k <= promiseCell }

// Cell is a mutable reference: an atom, a volatile or a transient
// collection. It is the one value of PTC-Lisp that changes; its identity is
// its equality (= is identical?), and it is safe for concurrent use.
// Deref returns what it holds now.
type Cell struct {
	kind cellKind
	// arrayMap: a transient made from a map of at most arrayMapEntries
	// entries, Clojure's TransientArrayMap (see assocArrayMap).
	arrayMap bool
	// id orders and hashes cells (see above); ids of cells made outside a
	// run (Read) are 0, and cells of equal ids order by address.
	id int64
	// validator, for an atom made with :validator, checks every new value.
	validator Value
	// made is the mark of the run that made the cell (nil: outside a run).
	made  *runMark
	state atomic.Pointer[cellState]
	// journaled is the mark of the last run that journaled the cell.
	journaled atomic.Pointer[runMark]
	// mu serializes the writes of a transient vector with its reads while
	// the vector is changed in place (see inPlaceVector).
	mu sync.Mutex
	// agent is an agent's queue and error state (agents.go).
	agent *agentBox
}

// cellState is the contents of a cell at one version. It is never changed
// once stored: a write stores a new one.
type cellState struct {
	val     Value
	version uint64
	writer  *runMark // the run that wrote it (nil: made outside a run)
	dead    bool     // a transient after persistent!
	// owned: val is a transient's vector that the cell alone holds, which
	// writer changes in place under the cell's mu (state_vector.go).
	owned bool
	// watches are an atom's add-watch functions, carried from state to
	// state (so a failed run's add-watch is undone with its writes).
	watches []watch
}

// watch is one (add-watch a key f).
type watch struct{ key, fn Value }

// runMark identifies a run to the cells it writes. It is apart from the
// run's state so that a cell kept in a namespace holds nothing of the run.
type runMark struct{ _ byte }

// cellRun is what a run keeps about cells: its mark, how many cells it
// made, and the journal of the older cells it wrote. It is made at the
// run's first cell operation, so that runs without cells pay nothing.
type cellRun struct {
	mark    *runMark
	made    atomic.Int64
	mu      sync.Mutex
	journal []journalEntry
}

type journalEntry struct {
	cell *Cell
	old  *cellState
}

// What the memory budget is charged for a cell, and for a state kept
// beside the current one (a watch list, a transient's own vector). A
// write is not charged: the state it replaces is garbage at once, and
// what is put in was charged where it was built, so a counter swapped
// millions of times in a loop holds no more than one swapped once.
const (
	cellSlots      = 4
	cellStateSlots = 3
)

// Kind returns "atom", "volatile" or "transient"; for a Java array the
// constructor's name of its kind ("long-array", "object-array" ...), for a
// StringBuilder "string-builder".
func (c *Cell) Kind() string {
	switch c.kind {
	case volatileCell:
		return "volatile"
	case refCell:
		return "ref"
	case agentCell:
		return "agent"
	case transientCell:
		return "transient"
	case arrayCell:
		if d, ok := c.load().val.(*arrayData); ok {
			return arrayTag(d.elem)
		}
		return "object-array"
	case builderCell:
		return "string-builder"
	case delayCell:
		return "delay"
	case futureCell:
		return "future"
	case promiseCell:
		return "promise"
	case utilCell:
		return utilClassInfo[c.load().val.(*utilData).class].tag
	}
	return "atom"
}

// Deref returns the value the cell holds now: an atom's or a volatile's
// value, a transient's collection, a copy of an array's elements as a
// vector, a StringBuilder's text; a delay's, a future's or a promise's
// value, the exception its body threw, or nil while it has none (Deref
// never runs a delay's body).
func (c *Cell) Deref() Value {
	s := c.load()
	if c.kind == transientCell {
		return c.snapshotTransient(s)
	}
	v := s.val
	switch d := v.(type) {
	case *arrayData:
		return NewVector(d.snapshot())
	case *builderData:
		return d.text()
	case *utilData:
		return utilValue(c)
	}
	if c.kind.isRef() {
		return refValue(v)
	}
	return v
}

// Pending reports whether the cell is a delay whose body has not run or a
// promise not delivered: it has no value yet (Deref gives nil).
func (c *Cell) Pending() bool { return c.kind.isRef() && refPendingNow(c) }

// Version counts the writes of the cell: it changes whenever the cell does.
func (c *Cell) Version() uint64 { return c.load().version }

func (c *Cell) load() *cellState {
	if s := c.state.Load(); s != nil {
		return s
	}
	// A zero Cell, made by a Go caller, is an atom holding nil: its
	// state is stored, so that writes can compare-and-swap it.
	c.state.CompareAndSwap(nil, &cellState{})
	return c.state.Load()
}

// newCellOutside makes a cell outside any run (Read).
func newCellOutside(kind cellKind, v Value) *Cell {
	c := &Cell{kind: kind}
	if kind == agentCell {
		c.agent = &agentBox{}
	}
	c.state.Store(&cellState{val: v})
	return c
}

// cells returns the run's cell bookkeeping, making it at the first use
// (goroutines that race to make it agree on the first one stored).
func (r *runState) cells() *cellRun {
	if cr := r.cellRun.Load(); cr != nil {
		return cr
	}
	r.cellRun.CompareAndSwap(nil, &cellRun{mark: &runMark{}})
	return r.cellRun.Load()
}

// cellBase is how many cells the runs of the run's namespace made before
// it: where its cell ids start.
func (r *runState) cellBase() int64 { return r.globals.base.cellCount() }

// newCell makes a cell holding v, charged to the memory budget.
func (th *thread) newCell(kind cellKind, v, validator Value) (*Cell, error) {
	if err := th.charge(cellSlots); err != nil {
		return nil, err
	}
	cr := th.run.cells()
	c := &Cell{kind: kind, id: th.run.cellBase() + cr.made.Add(1), validator: validator, made: cr.mark}
	if kind == agentCell {
		c.agent = &agentBox{}
	}
	c.state.Store(&cellState{val: v, writer: cr.mark})
	return c, nil
}

// casCell installs val in c if c still holds old, and reports whether it
// did. The first write of this run to a cell it did not make is journaled.
func (th *thread) casCell(c *Cell, old *cellState, val Value, dead bool) (bool, error) {
	cr := th.run.cells()
	if !c.state.CompareAndSwap(old, &cellState{val: val, version: old.version + 1, writer: cr.mark, dead: dead, watches: old.watches}) {
		return false, nil
	}
	return true, th.journal(c, old, cr)
}

// setCell installs val in c whatever it holds (a volatile's write).
func (th *thread) setCell(c *Cell, val Value) error {
	cr := th.run.cells()
	for {
		old := c.load()
		if c.state.CompareAndSwap(old, &cellState{val: val, version: old.version + 1, writer: cr.mark, watches: old.watches}) {
			return th.journal(c, old, cr)
		}
	}
}

// journal records old, the state c had before this run first wrote it,
// unless the run made c or old is a state this run wrote (several of its
// goroutines may write the cell; the state none of them wrote is the one
// to restore).
func (th *thread) journal(c *Cell, old *cellState, cr *cellRun) error {
	if c.made == cr.mark || old.writer == cr.mark || c.journaled.Load() == cr.mark {
		return nil
	}
	if err := th.charge(2); err != nil {
		return err
	}
	cr.mu.Lock()
	if c.journaled.Load() != cr.mark {
		c.journaled.Store(cr.mark)
		cr.journal = append(cr.journal, journalEntry{c, old})
	}
	cr.mu.Unlock()
	return nil
}

// rollbackCells puts back the states the cells a failed run wrote had
// before it, so that the namespace is as it was. A cell written since by
// another run (runs that share cells of one namespace at once) keeps that
// run's value: only a cell whose last write is this run's is restored.
func (r *runState) rollbackCells() {
	cr := r.cellRun.Load()
	if cr == nil {
		return
	}
	cr.mu.Lock()
	defer cr.mu.Unlock()
	for _, e := range cr.journal {
		cur := e.cell.state.Load()
		if cur.writer == cr.mark {
			e.cell.state.CompareAndSwap(cur, &cellState{val: e.old.val, version: cur.version + 1, writer: e.old.writer, dead: e.old.dead, owned: e.old.owned, watches: e.old.watches})
		}
	}
}

// cellCount is how many cells the runs of the namespace made, this one's
// included: where the next run's ids start.
func (r *runState) cellCount() int64 {
	if cr := r.cellRun.Load(); cr != nil {
		return r.cellBase() + cr.made.Load()
	}
	return r.cellBase()
}

// validatorKey marks, first among an atom's watches, the validator
// set-validator! gave it: carried from state to state as the watches are,
// so a failed run's set-validator! is undone with its writes.
type validatorKey struct{}

// validatorOf is an atom's validator in state s: set-validator!'s, else
// the one it was made with (nil: none).
func (c *Cell) validatorOf(s *cellState) Value {
	if len(s.watches) > 0 {
		if _, set := s.watches[0].key.(validatorKey); set {
			return s.watches[0].fn
		}
	}
	return c.validator
}

// userWatches are the add-watch watches of a list, without the validator.
func userWatches(ws []watch) []watch {
	if len(ws) > 0 {
		if _, set := ws[0].key.(validatorKey); set {
			return ws[1:]
		}
	}
	return ws
}

// validate runs an atom's validator on a value it is about to hold.
func (th *thread) validate(c *Cell, v Value) error {
	validator := c.validatorOf(c.load())
	if validator == nil {
		return nil
	}
	ok, err := th.call1(validator, v)
	if err != nil {
		return err
	}
	if !truthy(ok) {
		return classError(InvalidArgument, classIllegalState, "invalid reference state: the validator rejected %s", brief(v))
	}
	return nil
}

// swapCell is swap!: f of the current value and extra, installed unless
// the cell changed meanwhile (then f runs again). It returns the values
// before and after.
func (th *thread) swapCell(c *Cell, f Value, extra []Value) (old, val Value, err error) {
	args := make([]Value, 1+len(extra))
	for {
		s := c.load()
		args[0] = s.val
		copy(args[1:], extra) // th.call may use args as scratch
		v, err := th.call(f, args)
		if err != nil {
			return nil, nil, err
		}
		if err := th.validate(c, v); err != nil {
			return nil, nil, err
		}
		ok, err := th.casAtom(c, s, v)
		if err != nil || ok {
			return s.val, v, err
		}
		if err := th.tick(); err != nil { // another goroutine won: try again
			return nil, nil, err
		}
	}
}

// resetCell is reset!: v installed whatever the cell holds.
func (th *thread) resetCell(c *Cell, v Value) (old Value, err error) {
	if err := th.validate(c, v); err != nil {
		return nil, err
	}
	for {
		s := c.load()
		ok, err := th.casAtom(c, s, v)
		if err != nil || ok {
			return s.val, err
		}
	}
}

// casAtom is casCell for a write of an atom: when it is done, the atom's
// watches are called.
func (th *thread) casAtom(c *Cell, old *cellState, v Value) (bool, error) {
	ok, err := th.casCell(c, old, v, false)
	if err == nil && ok {
		err = th.notifyWatches(c, old, v)
	}
	return ok, err
}

// withoutWatch is ws without the watch of key.
func withoutWatch(ws []watch, key Value) []watch {
	out := make([]watch, 0, len(ws)+1)
	for _, w := range ws {
		if _, isValidator := w.key.(validatorKey); isValidator || !Equal(w.key, key) {
			out = append(out, w)
		}
	}
	return out
}

// notifyWatches calls the watches of the state a write replaced, in the
// order of their keys, with (key atom old new), as Clojure does after the
// write.
func (th *thread) notifyWatches(c *Cell, old *cellState, v Value) error {
	for _, w := range userWatches(old.watches) {
		if _, err := th.call(w.fn, []Value{w.key, c, old.val, v}); err != nil {
			return err
		}
	}
	return nil
}

// setWatches replaces an atom's watches with f of them, as a write of
// the atom (journaled, so a failed run's change is undone). The new list
// is a copy: its size is charged, in memory and in steps, so that adding
// watches one by one costs what it does.
func (th *thread) setWatches(c *Cell, f func([]watch) []watch) error {
	n := len(c.load().watches) + 1
	if err := th.charge(cellStateSlots + 2*int64(n)); err != nil {
		return err
	}
	if err := th.ticks(n); err != nil {
		return err
	}
	cr := th.run.cells()
	if c.kind == refCell {
		// A ref's commit holds its lock while it installs new states:
		// a change of its watches waits, so that the commit's write wins.
		c.mu.Lock()
		defer c.mu.Unlock()
	}
	for {
		old := c.load()
		if c.state.CompareAndSwap(old, &cellState{val: old.val, version: old.version + 1, writer: cr.mark, dead: old.dead, watches: f(old.watches)}) {
			return th.journal(c, old, cr)
		}
	}
}

// identicalValues is identical?: the same object, or equal atoms (numbers,
// strings, keywords, nil and booleans are values here, not boxes).
func identicalValues(a, b Value) bool {
	return compareKeys(a, b) == 0 && rank(a) != rankFn || a == b
}

// ---- builtins -----------------------------------------------------------------

// cellArg returns argument i as a cell of the given kind.
// watchedArg is argument i of fn as an atom or a ref: what validators and
// watches apply to.
func watchedArg(fn string, args []Value, i int) (*Cell, error) {
	if c, ok := args[i].(*Cell); ok && (c.kind == atomCell || c.kind == refCell || c.kind == agentCell) {
		return c, nil
	}
	return nil, argError(fn, i, "an atom, a ref or an agent", args[i])
}

// cellOptions reads the options after the first argument of atom or ref,
// (atom x :validator f :meta m), and returns the validator; extra names
// options taken and ignored (ref's :min-history and :max-history).
func cellOptions(fn string, a []Value, extra ...string) (Value, error) {
	if len(a)%2 == 0 {
		return nil, errorf(ArityError, "%s expects a value then options (:validator f, :meta m), got an odd number of option keys and values", fn)
	}
	var validator Value
	for i := 1; i < len(a); i += 2 {
		switch k, _ := a[i].(Keyword); {
		case k == "validator":
			if a[i+1] != nil {
				f, err := fnArg(fn, a, i+1)
				if err != nil {
					return nil, err
				}
				validator = f
			}
		case k == "meta": // values carry no metadata: dropped, as ^{...} is
		case k != "" && slices.Contains(extra, string(k)):
		default:
			return nil, errorf(InvalidArgument, "%s takes the options :validator and :meta, got %s", fn, brief(a[i]))
		}
	}
	return validator, nil
}

func cellArg(fn string, args []Value, i int, kind cellKind) (*Cell, error) {
	if c, ok := args[i].(*Cell); ok && c.kind == kind {
		return c, nil
	}
	want := "an atom"
	switch kind {
	case volatileCell:
		want = "a volatile"
	case transientCell:
		want = "a transient"
	case promiseCell:
		want = "a promise"
	}
	return nil, argError(fn, i, want, args[i])
}

// transientOf checks that a transient's collection is of a kind fn takes.
func transientOf(fn, want string, coll Value, kinds ...func(Value) bool) error {
	for _, k := range kinds {
		if k(coll) {
			return nil
		}
	}
	return errorf(TypeError, "%s expects a transient %s as argument 1, got a transient %s", fn, want, TypeName(coll))
}

func isVectorValue(v Value) bool { _, ok := v.(*Vector); return ok }
func isMapValue(v Value) bool    { _, ok := v.(*Map); return ok }
func isSetValue(v Value) bool    { _, ok := v.(*Set); return ok }

// liveTransient returns argument i as a transient's state: an error for
// anything else, and for a transient persistent! has ended.
func liveTransient(fn string, args []Value, i int) (*Cell, *cellState, error) {
	c, err := cellArg(fn, args, i, transientCell)
	if err != nil {
		return nil, nil, err
	}
	s := c.load()
	if s.dead {
		return nil, nil, usedAfterPersistent(fn)
	}
	return c, s, nil
}

func usedAfterPersistent(fn string) *Error {
	return errorf(InvalidArgument, "%s: transient used after persistent! call: persistent! ends a transient; keep using the collection it returned, or make a new transient", fn)
}

// updateTransient applies op, a persistent collection operation, to the
// collection of the transient args[0] and stores the result in it, retrying
// if another goroutine changed the transient meanwhile. It returns the
// transient, as Clojure's bang functions do.
func (th *thread) updateTransient(fn string, args []Value, op func(coll Value) (Value, error)) (Value, error) {
	for {
		c, s, err := liveTransient(fn, args, 0)
		if err != nil {
			return nil, err
		}
		v, err := op(s.val)
		if err != nil {
			return nil, err
		}
		ok, err := th.casCell(c, s, v, false)
		if err != nil {
			return nil, err
		}
		if ok {
			return c, nil
		}
	}
}

// arrayMapEntries is how many entries a transient of a small map holds:
// Clojure's TransientArrayMap, made by transient from a map of at most 8
// entries (an array map), has room for 8.
const arrayMapEntries = 8

// assocArrayMap is assoc! of the key/value pairs kvs onto c, a transient
// made from a small map, as Clojure's TransientArrayMap does it: in place
// while the map has room (8 entries), then, at the pair that would make a
// ninth entry, onto a new transient (a TransientHashMap there) holding
// the map with that pair and the pairs after it, which is returned; c
// keeps its 8 entries. A program that ignores what assoc! returns ("bashes
// in place") so gets Clojure's result: its map stops at 8 entries.
func (th *thread) assocArrayMap(fn string, c *Cell, kvs []Value, assoc *Builtin) (Value, error) {
	for {
		_, s, err := liveTransient(fn, []Value{c}, 0)
		if err != nil {
			return nil, err
		}
		if err := transientOf(fn, "vector or map", s.val, isVectorValue, isMapValue); err != nil {
			return nil, err
		}
		cur := s.val
		var moved Value
		for j := 0; j+1 < len(kvs); j += 2 {
			next, err := assoc.fn(th, []Value{cur, kvs[j], kvs[j+1]})
			if err != nil {
				return nil, err
			}
			if m, ok := next.(*Map); ok && m.Len() > arrayMapEntries {
				if j+2 < len(kvs) {
					if next, err = assoc.fn(th, append([]Value{next}, kvs[j+2:]...)); err != nil {
						return nil, err
					}
				}
				moved = next
				break
			}
			cur = next
		}
		ok, err := th.casCell(c, s, cur, false)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue // another goroutine changed the transient: again
		}
		if moved != nil {
			return th.newCell(transientCell, moved, nil)
		}
		return c, nil
	}
}

// withColl calls the builtin fn with a transient's collection in place of
// the transient, args[0].
func withColl(fn builtinFn, th *thread, coll Value, args []Value) (Value, error) {
	buf := make([]Value, len(args))
	buf[0] = coll
	copy(buf[1:], args[1:])
	return fn(th, buf)
}

func registerState(t *builtinTable) {
	t.add("atom", 1, -1, func(th *thread, a []Value) (Value, error) {
		validator, err := cellOptions("atom", a)
		if err != nil {
			return nil, err
		}
		c, err := th.newCell(atomCell, a[0], validator)
		if err != nil {
			return nil, err
		}
		if err := th.validate(c, a[0]); err != nil {
			return nil, err
		}
		return c, nil
	})
	t.add("deref", 1, 3, func(th *thread, a []Value) (Value, error) {
		if len(a) == 2 {
			return nil, errorf(ArityError, "deref takes a reference, or a future or promise with a timeout in milliseconds and a value, (deref p 100 :none); got 2 arguments")
		}
		if len(a) == 3 {
			if _, err := intArg("deref", a, 1); err != nil {
				return nil, err
			}
			if c, ok := a[0].(*Cell); !ok || (c.kind != futureCell && c.kind != promiseCell) {
				return nil, argError("deref", 0, "a future or a promise (a timeout applies to nothing else)", a[0])
			}
		}
		switch x := a[0].(type) {
		case *Cell:
			if x.kind == atomCell || x.kind == volatileCell {
				return x.load().val, nil
			}
			if x.kind == refCell {
				return th.derefRefCell(x)
			}
			if x.kind == agentCell {
				return x.load().val, nil
			}
			if v, ok, err := th.derefRef(x, a); ok {
				return v, err
			}
		case *Var:
			v, ok := th.globals.lookup(x.Name)
			if !ok {
				return nil, errorf(UnboundVar, "var #'%s is not defined", x.Name)
			}
			return v, nil
		case *reduced:
			return x.value, nil
		}
		return nil, argError("deref", 0, "an atom, a ref, an agent, a volatile, a var, a delay, a future or a promise", a[0])
	})
	t.add("swap!", 2, -1, func(th *thread, a []Value) (Value, error) {
		c, err := cellArg("swap!", a, 0, atomCell)
		if err != nil {
			return nil, err
		}
		f, err := fnArg("swap!", a, 1)
		if err != nil {
			return nil, err
		}
		_, v, err := th.swapCell(c, f, a[2:])
		return v, err
	})
	t.add("swap-vals!", 2, -1, func(th *thread, a []Value) (Value, error) {
		c, err := cellArg("swap-vals!", a, 0, atomCell)
		if err != nil {
			return nil, err
		}
		f, err := fnArg("swap-vals!", a, 1)
		if err != nil {
			return nil, err
		}
		old, v, err := th.swapCell(c, f, a[2:])
		if err != nil {
			return nil, err
		}
		return th.vector([]Value{old, v})
	})
	t.add("reset!", 2, 2, func(th *thread, a []Value) (Value, error) {
		c, err := cellArg("reset!", a, 0, atomCell)
		if err != nil {
			return nil, err
		}
		_, err = th.resetCell(c, a[1])
		return a[1], err
	})
	t.add("reset-vals!", 2, 2, func(th *thread, a []Value) (Value, error) {
		c, err := cellArg("reset-vals!", a, 0, atomCell)
		if err != nil {
			return nil, err
		}
		old, err := th.resetCell(c, a[1])
		if err != nil {
			return nil, err
		}
		return th.vector([]Value{old, a[1]})
	})
	t.add("compare-and-set!", 3, 3, func(th *thread, a []Value) (Value, error) {
		c, err := cellArg("compare-and-set!", a, 0, atomCell)
		if err != nil {
			return nil, err
		}
		for {
			s := c.load()
			if !identicalValues(s.val, a[1]) {
				return false, nil
			}
			if err := th.validate(c, a[2]); err != nil {
				return nil, err
			}
			ok, err := th.casAtom(c, s, a[2])
			if err != nil || ok {
				return ok, err
			}
		}
	})
	t.add("add-watch", 3, 3, func(th *thread, a []Value) (Value, error) {
		c, err := watchedArg("add-watch", a, 0)
		if err != nil {
			return nil, err
		}
		f, err := fnArg("add-watch", a, 2)
		if err != nil {
			return nil, err
		}
		return c, th.setWatches(c, func(ws []watch) []watch {
			// Kept in the order of their keys, as a map of them iterates
			// (Clojure keeps them in a map); a key added again replaces
			// its watch.
			out := append(withoutWatch(ws, a[1]), watch{a[1], f})
			users := userWatches(out)
			slices.SortStableFunc(users, func(x, y watch) int { return compareKeys(x.key, y.key) })
			return out
		})
	})
	// (set-validator! a f): f checks the atom's every new value from now
	// on, and its current one at once; nil removes it.
	t.add("set-validator!", 2, 2, func(th *thread, a []Value) (Value, error) {
		c, err := watchedArg("set-validator!", a, 0)
		if err != nil {
			return nil, err
		}
		if a[1] != nil {
			if _, err := fnArg("set-validator!", a, 1); err != nil {
				return nil, err
			}
			ok, err := th.call1(a[1], c.load().val)
			if err != nil {
				return nil, err
			}
			if !truthy(ok) {
				return nil, classError(InvalidArgument, classIllegalState, "invalid reference state: the new validator rejects the value %s", brief(c.load().val))
			}
		}
		return nil, th.setWatches(c, func(ws []watch) []watch {
			return append([]watch{{validatorKey{}, a[1]}}, userWatches(ws)...)
		})
	})
	t.add("get-validator", 1, 1, func(th *thread, a []Value) (Value, error) {
		c, err := watchedArg("get-validator", a, 0)
		if err != nil {
			return nil, err
		}
		return c.validatorOf(c.load()), nil
	})
	t.add("remove-watch", 2, 2, func(th *thread, a []Value) (Value, error) {
		c, err := watchedArg("remove-watch", a, 0)
		if err != nil {
			return nil, err
		}
		return c, th.setWatches(c, func(ws []watch) []watch { return withoutWatch(ws, a[1]) })
	})

	t.add("volatile!", 1, 1, func(th *thread, a []Value) (Value, error) {
		return th.newCell(volatileCell, a[0], nil)
	})
	t.add("volatile?", 1, 1, func(th *thread, a []Value) (Value, error) {
		c, ok := a[0].(*Cell)
		return ok && c.kind == volatileCell, nil
	})
	// vswap! and vreset! are not atomic, as in Clojure: a volatile is for
	// state one goroutine owns (use an atom under pmap).
	t.add("vswap!", 2, -1, func(th *thread, a []Value) (Value, error) {
		c, err := cellArg("vswap!", a, 0, volatileCell)
		if err != nil {
			return nil, err
		}
		f, err := fnArg("vswap!", a, 1)
		if err != nil {
			return nil, err
		}
		args := make([]Value, len(a)-1)
		args[0] = c.load().val
		copy(args[1:], a[2:])
		v, err := th.call(f, args)
		if err != nil {
			return nil, err
		}
		return v, th.setCell(c, v)
	})
	t.add("vreset!", 2, 2, func(th *thread, a []Value) (Value, error) {
		c, err := cellArg("vreset!", a, 0, volatileCell)
		if err != nil {
			return nil, err
		}
		return a[1], th.setCell(c, a[1])
	})

	t.add("transient", 1, 1, func(th *thread, a []Value) (Value, error) {
		switch coll := a[0].(type) {
		case *Map:
			c, err := th.newCell(transientCell, coll, nil)
			if err == nil && coll.Len() <= arrayMapEntries && coll.sorted() == nil {
				c.arrayMap = true
			}
			return c, err
		case *Vector, *Set:
			return th.newCell(transientCell, a[0], nil)
		}
		return nil, argError("transient", 0, "a vector, map or set", a[0])
	})
	t.add("persistent!", 1, 1, func(th *thread, a []Value) (Value, error) {
		for {
			c, s, err := liveTransient("persistent!", a, 0)
			if err != nil {
				return nil, err
			}
			if _, vec := transientVectorOf(s); vec {
				// A vector may be changing in place: end it under the
				// mutex, so that no write follows the value returned.
				return th.endTransientVector(c)
			}
			ok, err := th.casCell(c, s, s.val, true)
			if err != nil {
				return nil, err
			}
			if ok {
				return s.val, nil
			}
		}
	})
	conj, assoc, dissoc, disj, pop := t.names["conj"].(*Builtin), t.names["assoc"].(*Builtin), t.names["dissoc"].(*Builtin), t.names["disj"].(*Builtin), t.names["pop"].(*Builtin)
	t.add("conj!", 0, 2, func(th *thread, a []Value) (Value, error) {
		switch len(a) {
		case 0:
			return th.newCell(transientCell, emptyVector, nil)
		case 1:
			return a[0], nil // as Clojure: the collection, unchecked
		}
		if c, ok := a[0].(*Cell); ok && c.arrayMap {
			// Onto a small map: an entry, or each entry of a map, is an
			// assoc! (which may move on to a new transient).
			switch x := a[1].(type) {
			case *Vector:
				if x.Len() == 2 {
					return th.assocArrayMap("conj!", c, x.items, assoc)
				}
			case *Map:
				kvs := make([]Value, 0, 2*x.Len())
				if err := th.charge(int64(cap(kvs))); err != nil {
					return nil, err
				}
				for k, v := range x.All() {
					kvs = append(kvs, k, v)
				}
				return th.assocArrayMap("conj!", c, kvs, assoc)
			}
		}
		if c, ok := a[0].(*Cell); ok && c.kind == transientCell {
			if done, err := th.inPlaceVector("conj!", c, func(v *Vector) error { return th.appendOwned(v, a[1]) }); done {
				return c, err
			}
		}
		return th.updateTransient("conj!", a, func(coll Value) (Value, error) { return withColl(conj.fn, th, coll, a) })
	})
	t.add("assoc!", 3, -1, func(th *thread, a []Value) (Value, error) {
		if len(a)%2 == 0 {
			return nil, errorf(ArityError, "assoc! expects a transient then key value pairs, got an odd number of keys and values")
		}
		if c, ok := a[0].(*Cell); ok && c.arrayMap {
			return th.assocArrayMap("assoc!", c, a[1:], assoc)
		}
		if c, ok := a[0].(*Cell); ok && c.kind == transientCell {
			done, err := th.inPlaceVector("assoc!", c, func(v *Vector) error { return th.assocOwned(v, a[1:], assoc) })
			if done {
				return c, err
			}
		}
		return th.updateTransient("assoc!", a, func(coll Value) (Value, error) {
			if err := transientOf("assoc!", "vector or map", coll, isVectorValue, isMapValue); err != nil {
				return nil, err
			}
			return withColl(assoc.fn, th, coll, a)
		})
	})
	t.add("dissoc!", 2, -1, func(th *thread, a []Value) (Value, error) {
		return th.updateTransient("dissoc!", a, func(coll Value) (Value, error) {
			if err := transientOf("dissoc!", "map", coll, isMapValue); err != nil {
				return nil, err
			}
			return withColl(dissoc.fn, th, coll, a)
		})
	})
	t.add("disj!", 1, -1, func(th *thread, a []Value) (Value, error) {
		if len(a) == 1 {
			return a[0], nil // as Clojure: the set, unchecked
		}
		return th.updateTransient("disj!", a, func(coll Value) (Value, error) {
			if err := transientOf("disj!", "set", coll, isSetValue); err != nil {
				return nil, err
			}
			return withColl(disj.fn, th, coll, a)
		})
	})
	t.add("pop!", 1, 1, func(th *thread, a []Value) (Value, error) {
		if c, ok := a[0].(*Cell); ok && c.kind == transientCell {
			done, err := th.inPlaceVector("pop!", c, func(v *Vector) error {
				n := len(v.items)
				if n == 0 {
					return classError(InvalidArgument, classIllegalState, "pop!: cannot pop an empty transient vector")
				}
				v.items[n-1] = nil // the popped element is garbage
				v.items = v.items[:n-1]
				return nil
			})
			if done {
				return c, err
			}
		}
		return th.updateTransient("pop!", a, func(coll Value) (Value, error) {
			if err := transientOf("pop!", "vector", coll, isVectorValue); err != nil {
				return nil, err
			}
			if coll.(*Vector).Len() == 0 {
				return nil, classError(InvalidArgument, classIllegalState, "pop!: cannot pop an empty transient vector")
			}
			return withColl(pop.fn, th, coll, a)
		})
	})

	// The reads Clojure allows on a transient: count, get, nth, contains?
	// see its collection (and fail once persistent! has ended it).
	for _, name := range []string{"count", "get", "nth", "contains?"} {
		t.wrap(name, func(old *Builtin) *Builtin {
			b := *old
			fn := old.fn
			b.fn = func(th *thread, a []Value) (Value, error) {
				if c, ok := a[0].(*Cell); ok && c.kind == transientCell {
					s := c.load()
					if s.dead {
						return nil, usedAfterPersistent(name)
					}
					return readTransient(name, c, s, func(coll Value) (Value, error) { return withColl(fn, th, coll, a) })
				}
				return fn(th, a)
			}
			return &b
		})
	}
}

// callTransient calls a transient as its collection is called: a vector
// with an index, a map with a key, a set with an element.
func (th *thread) callTransient(c *Cell, args []Value) (Value, error) {
	s := c.load()
	if s.dead {
		return nil, usedAfterPersistent("a transient called as a function")
	}
	return readTransient("a transient called as a function", c, s, func(coll Value) (Value, error) { return th.call(coll, args) })
}
