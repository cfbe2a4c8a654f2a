package lisp

import "github.com/ptc-go/ptc/lisp/internal/analyze"

// Transient accumulators.
//
// (reduce (fn [acc x] (assoc acc (:id x) x)) {} rows) would copy a few map
// nodes per step. When the compiler can prove that a function uses its first
// parameter linearly — the parameter is only returned, or passed as the
// first argument of assoc, dissoc, update, conj or merge whose result is
// returned — nothing but reduce can see the accumulator between steps, so
// reduce hands the function a transient that these builtins update in
// place, and freezes it into an ordinary map or set at the end. The values
// never escape: printing, comparing or storing them is impossible by
// construction, and the builtins that accept them treat them as maps/sets.
// The reads a vector table allows (vectorReads) hand out an element, a row
// frozen first, or, for (get-in table []), a copy of the whole: never the
// transient itself, which could otherwise be stored inside itself.

// from is the collection the transient started from: a map of sorted-map
// (a set of sorted-set) freezes into one again.
type transientMap struct {
	b    *MapBuilder
	from *Map
	// kinds is what is known of the keys (Map.kinds), kept by set.
	kinds keyKinds
}

// set sets k to v; every write of a key goes through it, to keep kinds.
func (t *transientMap) set(k, v Value) {
	t.kinds = t.kinds.with(k)
	t.b.Set(k, v)
}

type transientSet struct {
	b    *setBuilder
	from *Set
}

// transientVector is a vector accumulator updated in place: it shares the
// vector it started from until its first write, which copies it once
// (charged); assoc, update and conj then write in place.
type transientVector struct {
	items []Value
	from  *Vector
	owned bool
}

// own copies the shared elements before the first write, with room for
// extra more.
func (t *transientVector) own(th *thread, extra int) error {
	if t.owned {
		return nil
	}
	if err := th.copying(len(t.items) + extra); err != nil {
		return err
	}
	items := make([]Value, len(t.items), len(t.items)+max(extra, len(t.items)/4, 4))
	copy(items, t.items)
	t.items, t.owned = items, true
	return nil
}

// set is (assoc t i x), i at most the count (then x is appended).
func (t *transientVector) set(th *thread, i int, x Value) error {
	if err := t.own(th, 1); err != nil {
		return err
	}
	if i == len(t.items) {
		return t.push(th, x)
	}
	t.items[i] = x
	return nil
}

// push appends x; a growth of the array is charged as conj's copy is.
func (t *transientVector) push(th *thread, x Value) error {
	if err := t.own(th, 1); err != nil {
		return err
	}
	if len(t.items) == cap(t.items) {
		if err := th.copying(len(t.items)); err != nil {
			return err
		}
	}
	t.items = append(t.items, x)
	return nil
}

// row is element i for a read, which may keep it: a row filled in place
// (a table of tables updated by assoc-in or update-in) is frozen first,
// and the table holds the frozen row from then on (its next update copies
// it).
func (t *transientVector) row(i int) Value {
	v := t.items[i]
	if r, ok := v.(*transientVector); ok {
		f := r.freeze()
		if t.owned {
			t.items[i] = f
		}
		return f
	}
	return v
}

// view is the elements as a vector for a read that does not keep it.
func (t *transientVector) view() *Vector {
	for i := range t.items {
		t.row(i)
	}
	n := len(t.items)
	return &Vector{items: t.items[:n:n]}
}

// snapshot is a copy of the table as it is now, for a read that keeps the
// whole of it: the transient goes on being written in place, the copy
// does not change.
func (t *transientVector) snapshot(th *thread) (*Vector, error) {
	v := t.view()
	if err := th.copying(v.Len()); err != nil {
		return nil, err
	}
	return NewVector(append([]Value(nil), v.items...)), nil
}

// freeze ends the transient: its vector, which owns its elements, rows
// filled in place frozen too.
func (t *transientVector) freeze() *Vector {
	if !t.owned {
		// Never written, maybe popped: the vector it started from, or the
		// part of it left.
		if len(t.items) == t.from.Len() {
			return t.from
		}
		return t.from.Slice(0, len(t.items))
	}
	if len(t.items) == 0 {
		return emptyVector
	}
	for i := range t.items {
		t.row(i)
	}
	return &Vector{items: t.items[:len(t.items):len(t.items)]}
}

// isTransientAcc reports a transient accumulator.
func isTransientAcc(v Value) bool {
	switch v.(type) {
	case *transientMap, *transientSet, *transientVector:
		return true
	}
	return false
}

// reduceInit readies the initial value of a reduce that a linear function
// called as its update, (reduce g acc xs): the caller's transient stays one
// for a g that uses it as the caller may (a map or a set only without
// reads), and is frozen for any other g, which may keep or read it (the
// caller's transient is not used again: the reduce's value replaces it).
func reduceInit(acc Value, mode accMode) Value {
	switch acc.(type) {
	case *transientMap, *transientSet:
		if mode == accLinear {
			return acc
		}
	case *transientVector:
		if mode != accShared {
			return acc
		}
	}
	return freezeTransient(acc)
}

// reduceResult is the value of a reduce: frozen, unless it is the
// transient the reduce was handed, which goes back to the linear caller
// that freezes it at its end.
func reduceResult(acc, given Value) Value {
	if given != nil && acc == given {
		return acc
	}
	return freezeTransient(acc)
}

// transientOps are the builtins that update a transient in place.
var transientOps = map[string]bool{
	"assoc": true, "dissoc": true, "update": true, "conj": true, "merge": true, "assoc-in": true, "update-in": true,
	"pop": true,
}

// accMode is how a reducing function uses its accumulator (parameter 0),
// which decides what reduce may hand it in place of the value.
type accMode uint8

const (
	// accShared: the function may keep or show the accumulator; it stays
	// persistent.
	accShared accMode = iota
	// accLinear: it is only updated (and returned); a map or a set is
	// handed over as a transient.
	accLinear
	// accLinearReads: it is also read, by get, nth, count, contains?,
	// peek or a call as a function, before it is updated; a vector is
	// handed over as a transient (a table a dynamic program fills in:
	// (assoc dp i (+ (get dp (dec i)) x))), maps and sets stay persistent.
	accLinearReads
)

// vectorReads are the builtins that read a transient vector accumulator
// without keeping it: they return an element, a count or a boolean.
var vectorReads = map[string]bool{"get": true, "nth": true, "count": true, "contains?": true, "peek": true, "get-in": true}

// linearAccumulator reports how an arity uses parameter 0.
func linearAccumulator(a *analyze.Arity) accMode {
	if len(a.Params) < 1 {
		return accShared
	}
	p, ok := a.Params[0].(*analyze.BindSlot)
	if !ok {
		return accShared
	}
	// Most functions update no parameter: a look at the tails first. Then
	// reads allowed: what fails it fails without them too.
	if !isUpdateOf(a.Body, p.Slot) || !(linearity{slot: p.Slot, reads: true}).in(a.Body, true) {
		return accShared
	}
	if (linearity{slot: p.Slot}).in(a.Body, true) {
		return accLinear
	}
	return accLinearReads
}

// linearity checks the uses of one slot; with reads, the reads of
// vectorReads count as no use, wherever an update cannot have happened
// before them.
type linearity struct {
	slot  int
	reads bool
	// loop, for a loop's binding k: the recurs of loop are tail
	// positions for argument k, and updates collects the update calls.
	loop    *analyze.Loop
	k       int
	updates *[]tableUse
	// exits collects the loop's tail expressions that use the table
	// otherwise: they see it frozen (freezingSlot).
	exits *[]tableUse
}

// tableUse is an update or an exit of a loop's table, and the slot that
// holds the table there (a let may rename it).
type tableUse struct {
	e    analyze.Expr
	slot int
}

// quietOrExit is quiet, or, for a loop's tail expression, an exit that
// sees the table frozen.
func (l linearity) quietOrExit(e analyze.Expr, tail bool) bool {
	if l.quiet(e) {
		return true
	}
	if tail && l.exits != nil {
		*l.exits = append(*l.exits, tableUse{e, l.slot})
		return true
	}
	return false
}

// quiet reports whether e leaves the slot alone: no use, or only reads.
func (l linearity) quiet(e analyze.Expr) bool {
	if l.reads {
		return readsOnly(e, l.slot)
	}
	return !uses(e, l.slot)
}

func (l linearity) allQuiet(es []analyze.Expr) bool {
	for _, e := range es {
		if !l.quiet(e) {
			return false
		}
	}
	return true
}

// in reports whether the slot is used in e only in linear positions: the
// value itself in tail position, or the first argument of an update
// (transientOps) or of reduced there, the other arguments evaluated
// before the update.
func (l linearity) in(e analyze.Expr, tail bool) bool {
	slot := l.slot
	switch e := e.(type) {
	case *analyze.Local:
		return int(e.Slot) != slot || tail
	case *analyze.Call:
		if b, ok := e.Fn.(*analyze.Builtin); ok && len(e.Args) > 0 {
			if transientOps[b.Name] {
				if x, ok := e.Args[0].(*analyze.Local); ok && int(x.Slot) == slot {
					l.update(e)
					return tail && l.allQuiet(e.Args[1:])
				}
				if inner, ok := e.Args[0].(*analyze.Call); ok && tail && isUpdateOf(inner, slot) {
					// (-> acc (update :n inc) (assoc :last x)): an update of
					// an update; the arguments after the inner one see the
					// accumulator updated, so they may not read it.
					l.update(e)
					return l.in(inner, true) && usesNone(e.Args[1:], slot)
				}
			}
			if b.Name == "reduced" && len(e.Args) == 1 {
				return l.in(e.Args[0], tail)
			}
			if b.Name == "reduce" && len(e.Args) == 3 {
				// (reduce g acc xs): reduce updates the accumulator
				// through g, which it hands the transient only when g
				// uses it linearly too (reduceInit).
				if x, ok := e.Args[1].(*analyze.Local); ok && int(x.Slot) == slot {
					l.update(e)
					return tail && l.quiet(e.Args[0]) && l.quiet(e.Args[2])
				}
			}
		}
		return l.quietOrExit(e, tail)
	case *analyze.Recur:
		if l.loop == nil || e.Loop != l.loop {
			break
		}
		// The arguments are evaluated in order, then bound: those after
		// the table's see it updated.
		for i, a := range e.Args {
			switch {
			case i < l.k && !l.quiet(a), i == l.k && !l.in(a, true), i > l.k && uses(a, slot):
				return false
			}
		}
		return true
	case *analyze.Loop:
		if tail && l.handsOver(e) {
			// (loop [j 0 s table] ... (recur (inc j) (assoc s j x)) ... s):
			// an inner loop that takes the table over and fills it.
			l.update(e)
			return true
		}
	case *analyze.If:
		return l.quiet(e.Test) && l.in(e.Then, tail) && l.in(e.Else, tail)
	case *analyze.Do:
		if !l.allQuiet(e.Body[:len(e.Body)-1]) {
			return false
		}
		return l.in(e.Body[len(e.Body)-1], tail)
	case *analyze.Let:
		for i, b := range e.Bindings {
			if p, ok := b.Pattern.(*analyze.BindSlot); ok && tail && isUpdateOf(b.Init, slot) {
				// (let [stack (pop stack)] ... (recur (conj stack x))): the
				// update goes on under a new name, the old one unused.
				if !l.in(b.Init, true) {
					return false
				}
				rest := &analyze.Let{At: e.At, Bindings: e.Bindings[i+1:], Body: e.Body}
				if p.Slot != slot && uses(rest, slot) { // a shadowing name may reuse the slot
					return false
				}
				renamed := l
				renamed.slot = p.Slot
				return renamed.in(rest, tail)
			}
			if !l.quiet(b.Init) || bindsSlot(b.Pattern, slot) {
				return false
			}
		}
		return l.in(e.Body, tail)
	}
	return l.quietOrExit(e, tail)
}

func (l linearity) update(e analyze.Expr) {
	if l.updates != nil {
		*l.updates = append(*l.updates, tableUse{e, l.slot})
	}
}

// handsOver reports whether loop takes the table over: one binding's
// initial value is the table itself, the others leave it alone, the body
// never names the old slot, and the loop uses its binding linearly, so
// that whatever it ends with (the table filled, or another value) is the
// table's next value. The sieve's inner loop, and the inner loop of a
// dynamic program over two indices:
//
//	(recur (inc i) (if (sieve i) (loop [j (* i i) s sieve] (if (< j n) (recur (+ j i) (assoc s j false)) s)) sieve))
func (l linearity) handsOver(loop *analyze.Loop) bool {
	at := -1
	for k, b := range loop.Bindings {
		if x, ok := b.Init.(*analyze.Local); ok && int(x.Slot) == l.slot && at < 0 {
			at = k
			continue
		}
		if !l.quiet(b.Init) || bindsSlot(b.Pattern, l.slot) {
			return false
		}
	}
	if at < 0 || at >= len(loop.Targets) || uses(loop.Body, l.slot) {
		return false
	}
	p, ok := loop.Bindings[at].Pattern.(*analyze.BindSlot)
	if t, same := loop.Targets[at].(*analyze.BindSlot); !ok || !same || t.Slot != p.Slot {
		return false
	}
	// No exits recorded: an exit that uses the table otherwise than as
	// its value fails the check, and the table stays persistent.
	return linearity{slot: p.Slot, reads: l.reads, loop: loop, k: at}.in(loop.Body, true)
}

// markLoopTables finds the bindings of loop e that hold a table filled in
// place: a binding read only as an accumulator is (vectorReads) before it
// is updated, updated only where its value goes to recur or leaves the
// loop, and passed to recur at its own place. It records their updates
// for the compiler and returns their slots.
//
//	(loop [i 0 dp (vec (repeat n 0))]
//	  (if (< i n) (recur (inc i) (assoc dp i (+ (get dp (dec i) 0) i))) dp))
//
// Just before such an update runs, a vector in its slot becomes a
// transient (updatingInPlace): the first write copies the vector once,
// later ones write in place; the loop's value is frozen as it leaves
// (freezingTables).
func (c *compiler) markLoopTables(e *analyze.Loop) []int {
	var slots []int
	for k, b := range e.Bindings {
		p, ok := b.Pattern.(*analyze.BindSlot)
		if !ok || k >= len(e.Targets) {
			continue
		}
		if t, ok := e.Targets[k].(*analyze.BindSlot); !ok || t.Slot != p.Slot {
			continue
		}
		if !updatedAtRecur(e.Body, e, k, p.Slot) {
			continue // the usual loop: no walk of the whole body
		}
		// The compiler's scratch lists: most loops have no table, and
		// lists of their own would be allocated for each binding.
		updates, exits := &c.tableScratch.updates, &c.tableScratch.exits
		*updates, *exits = (*updates)[:0], (*exits)[:0]
		l := linearity{slot: p.Slot, reads: true, loop: e, k: k, updates: updates, exits: exits}
		if !l.in(e.Body, true) || len(*updates) == 0 {
			// Each table on its own: an argument of recur after a table's
			// update may not read it, whatever else it updates.
			continue
		}
		if c.tableUpdates == nil {
			c.tableUpdates, c.tableExits = map[analyze.Expr]int{}, map[analyze.Expr]int{}
		}
		for _, u := range *updates {
			c.tableUpdates[u.e] = u.slot
		}
		for _, x := range *exits {
			c.tableExits[x.e] = x.slot
		}
		slots = append(slots, p.Slot)
	}
	return slots
}

// updatedAtRecur reports whether a recur of loop, found through the tails
// of body, passes an update of slot at place k: a quick test before the
// whole analysis.
func updatedAtRecur(body analyze.Expr, loop *analyze.Loop, k, slot int) bool {
	switch x := body.(type) {
	case *analyze.If:
		return updatedAtRecur(x.Then, loop, k, slot) || updatedAtRecur(x.Else, loop, k, slot)
	case *analyze.Let:
		for _, b := range x.Bindings {
			if p, ok := b.Pattern.(*analyze.BindSlot); ok && isUpdateOf(b.Init, slot) {
				slot = p.Slot // renamed (linearity.in)
			}
		}
		return updatedAtRecur(x.Body, loop, k, slot)
	case *analyze.Do:
		return updatedAtRecur(x.Body[len(x.Body)-1], loop, k, slot)
	case *analyze.Recur:
		return x.Loop == loop && k < len(x.Args) && isUpdateOf(x.Args[k], slot)
	}
	return false
}

// isUpdateOf reports whether e, through its tails, updates slot.
func isUpdateOf(e analyze.Expr, slot int) bool {
	switch x := e.(type) {
	case *analyze.If:
		return isUpdateOf(x.Then, slot) || isUpdateOf(x.Else, slot)
	case *analyze.Let:
		return isUpdateOf(x.Body, slot)
	case *analyze.Do:
		return isUpdateOf(x.Body[len(x.Body)-1], slot)
	case *analyze.Loop:
		for _, b := range x.Bindings { // a loop that may take the table over (linearity.handsOver)
			if l, ok := b.Init.(*analyze.Local); ok && int(l.Slot) == slot {
				return true
			}
		}
		return false
	case *analyze.Call:
		b, ok := x.Fn.(*analyze.Builtin)
		if !ok || len(x.Args) == 0 {
			return false
		}
		if b.Name == "reduced" {
			return isUpdateOf(x.Args[0], slot)
		}
		at := 0
		if len(x.Args) == 3 && b.Name == "reduce" {
			at = 1
		}
		switch a := x.Args[at].(type) {
		case *analyze.Local:
			if int(a.Slot) != slot {
				return false
			}
		case *analyze.Call:
			if at != 0 || !isUpdateOf(a, slot) {
				return false
			}
		default:
			return false
		}
		switch b.Name {
		case "reduce", "assoc", "dissoc", "update", "conj", "merge", "assoc-in", "update-in", "pop": // transientOps, without a map's hashing
			return true
		}
		return false
	}
	return false
}

// updatingInPlace runs an update of a loop table (markLoopTables), with a
// vector in the table's slot made a transient first.
func updatingInPlace(slot int, update evalFn) evalFn {
	return func(fr *frame) (Value, error) {
		if v, ok := fr.slots[slot].(*Vector); ok && !v.IsList() && v.kindOf() == plainKind {
			fr.slots[slot] = &transientVector{items: v.items, from: v}
		}
		return update(fr)
	}
}

// freezingSlot runs an exit of a loop that fills a table in place
// (markLoopTables) with the table frozen first: the exit may keep it, or
// hand it to any function.
func freezingSlot(slot int, exit evalFn) evalFn {
	return func(fr *frame) (Value, error) {
		if t, ok := fr.slots[slot].(*transientVector); ok {
			fr.slots[slot] = t.freeze()
		}
		return exit(fr)
	}
}

// freezingTables freezes a loop's value when it is a table it filled in
// place.
func freezingTables(loop evalFn) evalFn {
	return func(fr *frame) (Value, error) {
		v, err := loop(fr)
		if t, ok := v.(*transientVector); ok {
			return t.freeze(), err
		}
		return v, err
	}
}

// readsOnly reports whether e uses slot only as the collection of a read
// (vectorReads, or a call of the value as a function), which returns
// something else than the collection, possibly inside a function literal,
// a for or a loop whose work is done at once (reader).
func readsOnly(e analyze.Expr, slot int) bool {
	return reader{slot: slot, capture: -1}.ok(e, false)
}

// eagerConsumers are builtins that are done with their arguments when they
// return: they call a function they are given there and then, and walk a
// sequence to its end (or as far as they need), keeping only its elements.
var eagerConsumers = map[string]bool{
	"reduce": true, "reduce-kv": true, "apply": true, "some": true, "every?": true, "not-any?": true,
	"not-every?": true, "count": true, "first": true, "second": true, "last": true, "nth": true,
	"mapv": true, "filterv": true, "into": true, "vec": true, "set": true, "frequencies": true,
	"group-by": true, "sort": true, "sort-by": true, "run!": true, "max-key": true, "min-key": true,
	"doall": true, "dorun": true, "empty?": true, "clojure.string/join": true,
}

// lazyTransforms are sequence functions whose elements come from their
// arguments' calls and elements: in an eager consumer's argument they are
// consumed at once too.
var lazyTransforms = map[string]bool{
	"map": true, "filter": true, "remove": true, "keep": true, "keep-indexed": true,
	"map-indexed": true, "mapcat": true, "take-while": true, "drop-while": true, "take": true,
	"drop": true, "concat": true, "distinct": true, "range": true,
}

// reader checks that an accumulator is only read. The accumulator is the
// local slot, or, inside a function literal, its capture (the other is -1).
type reader struct{ slot, capture int }

func (r reader) isRef(e analyze.Expr) bool {
	switch x := e.(type) {
	case *analyze.Local:
		return r.slot >= 0 && int(x.Slot) == r.slot
	case *analyze.Captured:
		return r.capture >= 0 && int(x.Index) == r.capture
	}
	return false
}

func (r reader) all(es []analyze.Expr, eager bool) bool {
	for _, e := range es {
		if !r.ok(e, eager) {
			return false
		}
	}
	return true
}

// ok reports whether e only reads the accumulator; eager says that e's
// value is consumed at once (an argument of an eager consumer), so that a
// function literal or a for in it runs before anything updates the
// accumulator and keeps no hold on it.
func (r reader) ok(e analyze.Expr, eager bool) bool {
	switch e := e.(type) {
	case *analyze.Local, *analyze.Captured:
		return !r.isRef(e)
	case *analyze.Call:
		if r.isRef(e.Fn) {
			return r.all(e.Args, false)
		}
		if b, ok := e.Fn.(*analyze.Builtin); ok {
			if vectorReads[b.Name] && len(e.Args) > 0 && r.isRef(e.Args[0]) {
				return r.all(e.Args[1:], false)
			}
			return r.all(e.Args, eagerConsumers[b.Name] || (eager && lazyTransforms[b.Name]))
		}
		return r.ok(e.Fn, false) && r.all(e.Args, false)
	case *analyze.Fn:
		return r.fnOK(e, eager)
	case *analyze.For:
		if e.Collect && !eager {
			return !r.mayRead(e)
		}
		for _, c := range e.Clauses {
			if r.binds(c.Pattern) || !r.ok(c.Coll, true) {
				return false
			}
			for _, m := range c.Mods {
				if !r.ok(m.Test, false) || !r.bindingsOK(m.Bindings) {
					return false
				}
			}
		}
		return r.ok(e.Body, false)
	case *analyze.Dotimes:
		return (r.slot < 0 || e.Slot != r.slot) && r.ok(e.Count, false) && r.ok(e.Body, false)
	case *analyze.Loop:
		return r.bindingsOK(e.Bindings) && r.ok(e.Body, false)
	case *analyze.Recur:
		return r.all(e.Args, false)
	case *analyze.If:
		return r.ok(e.Test, false) && r.ok(e.Then, eager) && r.ok(e.Else, eager)
	case *analyze.Do:
		return r.all(e.Body[:len(e.Body)-1], false) && r.ok(e.Body[len(e.Body)-1], eager)
	case *analyze.And:
		return r.all(e.Exprs, false)
	case *analyze.Or:
		return r.all(e.Exprs, false)
	case *analyze.VectorLit:
		return r.all(e.Items, false)
	case *analyze.Let:
		return r.bindingsOK(e.Bindings) && r.ok(e.Body, eager)
	}
	return !r.mayRead(e)
}

func (r reader) bindingsOK(bs []analyze.Binding) bool {
	for _, b := range bs {
		if !r.ok(b.Init, false) || r.binds(b.Pattern) {
			return false
		}
	}
	return true
}

// binds reports whether p writes the accumulator's slot.
func (r reader) binds(p analyze.Pattern) bool {
	return r.slot >= 0 && bindsSlot(p, r.slot)
}

// fnOK reports whether a function literal reads the accumulator only, and
// only when it runs at once (eager): each arity's body reads its capture
// of it, and no function inside captures it again.
func (r reader) fnOK(fn *analyze.Fn, eager bool) bool {
	k := -1
	for i, c := range fn.Captures {
		if r.capturedAs(c) {
			k = i
		}
	}
	if k < 0 {
		return true
	}
	if !eager || fn.Name != "" {
		// A named function can return itself, and so outlive the call.
		return false
	}
	inner := reader{slot: -1, capture: k}
	for _, a := range fn.Arities {
		if !inner.ok(a.Body, false) {
			return false
		}
	}
	return true
}

func usesNone(es []analyze.Expr, slot int) bool {
	for _, e := range es {
		if uses(e, slot) {
			return false
		}
	}
	return true
}

// bindsSlot reports whether a pattern writes slot (so later reads of the
// slot are not the parameter).
func bindsSlot(p analyze.Pattern, slot int) bool {
	switch p := p.(type) {
	case *analyze.BindSlot:
		return p.Slot == slot
	case *analyze.BindVector:
		for _, it := range p.Items {
			if bindsSlot(it, slot) {
				return true
			}
		}
		return int(p.As) == slot || (p.Rest != nil && bindsSlot(p.Rest, slot))
	case *analyze.BindMap:
		for _, k := range p.Keys {
			if bindsSlot(k.Pattern, slot) {
				return true
			}
		}
		return int(p.As) == slot
	}
	return true
}

// uses reports conservatively whether e may read slot: any node kind it does
// not know counts as a use.
func uses(e analyze.Expr, slot int) bool { return reader{slot: slot, capture: -1}.mayRead(e) }

// mayRead reports conservatively whether e may read the accumulator (the
// local slot, or the capture of a function body): any node kind it does not
// know counts as a use.
func (r reader) mayRead(e analyze.Expr) bool {
	switch e := e.(type) {
	case nil:
		return false
	case *analyze.Local, *analyze.Captured:
		return r.isRef(e)
	case *analyze.Const, *analyze.Keyword, *analyze.SymbolLit, *analyze.Builtin, *analyze.Global, *analyze.CtxRef,
		*analyze.VarRef, *analyze.HistoryRef, *analyze.Self:
		return false
	case *analyze.VectorLit:
		return r.anyReads(e.Items)
	case *analyze.SetLit:
		return r.anyReads(e.Items)
	case *analyze.MapLit:
		return r.anyReads(e.Keys) || r.anyReads(e.Vals)
	case *analyze.Call:
		return r.mayRead(e.Fn) || r.anyReads(e.Args)
	case *analyze.If:
		return r.mayRead(e.Test) || r.mayRead(e.Then) || r.mayRead(e.Else)
	case *analyze.Do:
		return r.anyReads(e.Body)
	case *analyze.And:
		return r.anyReads(e.Exprs)
	case *analyze.Or:
		return r.anyReads(e.Exprs)
	case *analyze.Let:
		return r.bindingsMayRead(e.Bindings, e.Body)
	case *analyze.Fn:
		for _, c := range e.Captures {
			if r.capturedAs(c) {
				return true
			}
		}
		return false
	case *analyze.Recur:
		return r.anyReads(e.Args)
	case *analyze.Loop:
		return r.bindingsMayRead(e.Bindings, e.Body)
	case *analyze.ToolCall:
		return r.mayRead(e.NameExpr) || r.anyReads(e.Args)
	case *analyze.MemoryGet:
		return r.mayRead(e.Key)
	}
	return true
}

// bindingsMayRead is mayRead of a let's or a loop's bindings and body; a
// binding that writes the slot counts as a use.
func (r reader) bindingsMayRead(bs []analyze.Binding, body analyze.Expr) bool {
	for _, b := range bs {
		if r.mayRead(b.Init) || r.binds(b.Pattern) {
			return true
		}
	}
	return r.mayRead(body)
}

// capturedAs reports whether a function literal's capture c is the
// accumulator.
func (r reader) capturedAs(c analyze.Capture) bool {
	return (r.slot >= 0 && c.From == analyze.FromLocal && c.Index == r.slot) ||
		(r.capture >= 0 && c.From == analyze.FromCaptured && c.Index == r.capture)
}

func (r reader) anyReads(es []analyze.Expr) bool {
	for _, e := range es {
		if r.mayRead(e) {
			return true
		}
	}
	return false
}
