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

// view is the elements as a vector for a read that does not keep it.
func (t *transientVector) view() *Vector {
	n := len(t.items)
	return &Vector{items: t.items[:n:n]}
}

// freeze ends the transient: its vector, which owns its elements.
func (t *transientVector) freeze() *Vector {
	if !t.owned {
		return t.from
	}
	if len(t.items) == 0 {
		return emptyVector
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
	"assoc": true, "dissoc": true, "update": true, "conj": true, "merge": true,
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
var vectorReads = map[string]bool{"get": true, "nth": true, "count": true, "contains?": true, "peek": true}

// linearAccumulator reports how an arity uses parameter 0.
func linearAccumulator(a *analyze.Arity) accMode {
	if len(a.Params) < 1 {
		return accShared
	}
	p, ok := a.Params[0].(*analyze.BindSlot)
	if !ok {
		return accShared
	}
	if (linearity{slot: p.Slot}).in(a.Body, true) {
		return accLinear
	}
	if (linearity{slot: p.Slot, reads: true}).in(a.Body, true) {
		return accLinearReads
	}
	return accShared
}

// linearity checks the uses of one slot; with reads, the reads of
// vectorReads count as no use, wherever an update cannot have happened
// before them.
type linearity struct {
	slot  int
	reads bool
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
					return tail && l.allQuiet(e.Args[1:])
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
					return tail && l.quiet(e.Args[0]) && l.quiet(e.Args[2])
				}
			}
		}
		return l.allQuiet(e.Args) && l.quiet(e.Fn)
	case *analyze.If:
		return l.quiet(e.Test) && l.in(e.Then, tail) && l.in(e.Else, tail)
	case *analyze.Do:
		if !l.allQuiet(e.Body[:len(e.Body)-1]) {
			return false
		}
		return l.in(e.Body[len(e.Body)-1], tail)
	case *analyze.Let:
		for _, b := range e.Bindings {
			if !l.quiet(b.Init) || bindsSlot(b.Pattern, slot) {
				return false
			}
		}
		return l.in(e.Body, tail)
	}
	return l.quiet(e)
}

// readsOnly reports whether e uses slot only as the collection of a read
// (vectorReads, or a call of the value as a function), which returns
// something else than the collection.
func readsOnly(e analyze.Expr, slot int) bool {
	switch e := e.(type) {
	case *analyze.Local:
		return int(e.Slot) != slot
	case *analyze.Call:
		if x, ok := e.Fn.(*analyze.Local); ok && int(x.Slot) == slot {
			return allReadsOnly(e.Args, slot)
		}
		if b, ok := e.Fn.(*analyze.Builtin); ok && vectorReads[b.Name] && len(e.Args) > 0 {
			if x, ok := e.Args[0].(*analyze.Local); ok && int(x.Slot) == slot {
				return allReadsOnly(e.Args[1:], slot)
			}
		}
		return readsOnly(e.Fn, slot) && allReadsOnly(e.Args, slot)
	case *analyze.If:
		return readsOnly(e.Test, slot) && readsOnly(e.Then, slot) && readsOnly(e.Else, slot)
	case *analyze.Do:
		return allReadsOnly(e.Body, slot)
	case *analyze.And:
		return allReadsOnly(e.Exprs, slot)
	case *analyze.Or:
		return allReadsOnly(e.Exprs, slot)
	case *analyze.VectorLit:
		return allReadsOnly(e.Items, slot)
	case *analyze.Let:
		for _, b := range e.Bindings {
			if !readsOnly(b.Init, slot) || bindsSlot(b.Pattern, slot) {
				return false
			}
		}
		return readsOnly(e.Body, slot)
	}
	return !uses(e, slot)
}

func allReadsOnly(es []analyze.Expr, slot int) bool {
	for _, e := range es {
		if !readsOnly(e, slot) {
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
func uses(e analyze.Expr, slot int) bool {
	switch e := e.(type) {
	case nil:
		return false
	case *analyze.Local:
		return int(e.Slot) == slot
	case *analyze.Const, *analyze.Keyword, *analyze.SymbolLit, *analyze.Builtin, *analyze.Global, *analyze.CtxRef,
		*analyze.VarRef, *analyze.HistoryRef, *analyze.Captured, *analyze.Self:
		return false
	case *analyze.VectorLit:
		return !usesNone(e.Items, slot)
	case *analyze.SetLit:
		return !usesNone(e.Items, slot)
	case *analyze.MapLit:
		return !usesNone(e.Keys, slot) || !usesNone(e.Vals, slot)
	case *analyze.Call:
		return uses(e.Fn, slot) || !usesNone(e.Args, slot)
	case *analyze.If:
		return uses(e.Test, slot) || uses(e.Then, slot) || uses(e.Else, slot)
	case *analyze.Do:
		return !usesNone(e.Body, slot)
	case *analyze.And:
		return !usesNone(e.Exprs, slot)
	case *analyze.Or:
		return !usesNone(e.Exprs, slot)
	case *analyze.Let:
		for _, b := range e.Bindings {
			if uses(b.Init, slot) || bindsSlot(b.Pattern, slot) {
				return true
			}
		}
		return uses(e.Body, slot)
	case *analyze.Fn:
		for _, c := range e.Captures {
			if c.From == analyze.FromLocal && c.Index == slot {
				return true
			}
		}
		return false
	case *analyze.ToolCall:
		return uses(e.NameExpr, slot) || !usesNone(e.Args, slot)
	case *analyze.MemoryGet:
		return uses(e.Key, slot)
	}
	return true
}
