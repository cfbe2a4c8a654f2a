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

// transientOps are the builtins that update a transient in place.
var transientOps = map[string]bool{
	"assoc": true, "dissoc": true, "update": true, "conj": true, "merge": true,
}

// linearAccumulator reports whether an arity uses parameter 0 linearly.
func linearAccumulator(a *analyze.Arity) bool {
	if len(a.Params) < 1 {
		return false
	}
	p, ok := a.Params[0].(*analyze.BindSlot)
	if !ok {
		return false
	}
	return linearIn(a.Body, p.Slot, true)
}

// linearIn reports whether slot is used in e only in linear positions.
func linearIn(e analyze.Expr, slot int, tail bool) bool {
	switch e := e.(type) {
	case *analyze.Local:
		return int(e.Slot) != slot || tail
	case *analyze.Call:
		if b, ok := e.Fn.(*analyze.Builtin); ok && transientOps[b.Name] && len(e.Args) > 0 {
			if l, ok := e.Args[0].(*analyze.Local); ok && int(l.Slot) == slot {
				return tail && usesNone(e.Args[1:], slot)
			}
		}
		return usesNone(e.Args, slot) && !uses(e.Fn, slot)
	case *analyze.If:
		return !uses(e.Test, slot) && linearIn(e.Then, slot, tail) && linearIn(e.Else, slot, tail)
	case *analyze.Do:
		for i, x := range e.Body {
			if i < len(e.Body)-1 && uses(x, slot) {
				return false
			}
		}
		return linearIn(e.Body[len(e.Body)-1], slot, tail)
	case *analyze.Let:
		for _, b := range e.Bindings {
			if uses(b.Init, slot) || bindsSlot(b.Pattern, slot) {
				return false
			}
		}
		return linearIn(e.Body, slot, tail)
	}
	return !uses(e, slot)
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
