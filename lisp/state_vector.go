package lisp

// Transient vectors changed in place.
//
// A transient holds a persistent collection, and each write of a
// persistent transient would install a new one. For maps and sets that is
// cheap (their updates share structure), but a vector's assoc copies it,
// so a program that fills a table with assoc! (what transients are for)
// paid a copy a write: quadratic work, and a memory limit reached by a
// table of a few thousand entries. So a transient's vector is changed in
// place, as Clojure's TransientVector is, under the same rules as an
// array's contents (arrays.go, mutate): the first write of a run copies
// the vector into a new state that the cell alone holds (owned), and the
// run's later writes change that vector in place. The vector the transient
// was made from, and every state a run journaled for its rollback, are
// never changed.
//
// The cell's mutex serializes in-place writes with every read of the
// vector (count, get, nth, contains?, a call, persistent!, Deref), so that
// goroutines of a pmap sharing one transient see whole values, never a
// torn one. The mutex is taken only for vectors: no user code runs under
// it (a sorted map's comparator may write the transient it sorts).

// transientVectorOf returns the plain vector a transient holds in state s,
// if it is one (lists, queues and map entries keep the persistent path).
func transientVectorOf(s *cellState) (*Vector, bool) {
	v, ok := s.val.(*Vector)
	if !ok || v.IsList() || v.kindOf() != plainKind {
		return nil, false
	}
	return v, true
}

// inPlaceVector runs f, under c's mutex, on the vector of transient c that
// this run may change in place: the state's own vector when this run wrote
// it, else a copy installed as a new state (charged, and journaled as any
// write). It reports false, having run nothing, when c does not hold a
// plain vector.
func (th *thread) inPlaceVector(fn string, c *Cell, f func(v *Vector) error) (bool, error) {
	cr := th.run.cells()
	c.mu.Lock()
	defer c.mu.Unlock()
	for {
		s := c.load()
		if s.dead {
			return true, usedAfterPersistent(fn)
		}
		v, ok := transientVectorOf(s)
		if !ok {
			return false, nil
		}
		if s.owned && s.writer == cr.mark {
			return true, f(v)
		}
		if err := th.copying(v.Len()); err != nil {
			return true, err
		}
		if err := th.charge(cellStateSlots); err != nil {
			return true, err
		}
		own := &Vector{items: make([]Value, v.Len(), max(v.Len(), 8))}
		copy(own.items, v.items)
		if !c.state.CompareAndSwap(s, &cellState{val: own, version: s.version + 1, writer: cr.mark, owned: true}) {
			continue // a write that does not take the mutex (none today): load again
		}
		if err := th.journal(c, s, cr); err != nil {
			return true, err
		}
		return true, f(own)
	}
}

// appendOwned appends x to an owned vector, charging a new backing array
// when it grows (twice the elements, as Go's append does for large
// slices).
func (th *thread) appendOwned(v *Vector, x Value) error {
	if n := len(v.items); n == cap(v.items) {
		grown := max(8, 2*n)
		if err := th.copying(grown); err != nil {
			return err
		}
		items := make([]Value, n, grown)
		copy(items, v.items)
		v.items = items
	}
	v.items = append(v.items, x)
	return nil
}

// assocOwned is assoc! onto an owned vector: kvs are index/value pairs, an
// index at the end appends. The pairs apply in order, as in Clojure: one
// whose index is not an integer in range is assoc's error, the pairs
// before it applied.
func (th *thread) assocOwned(v *Vector, kvs []Value, assoc *Builtin) error {
	for j := 0; j+1 < len(kvs); j += 2 {
		i, ok := kvs[j].(int64)
		switch {
		case ok && i >= 0 && i < int64(len(v.items)):
			v.items[i] = kvs[j+1]
		case ok && i == int64(len(v.items)):
			if err := th.appendOwned(v, kvs[j+1]); err != nil {
				return err
			}
		default:
			if _, err := assoc.fn(th, []Value{v, kvs[j], kvs[j+1]}); err != nil {
				return err
			}
			return errorf(InvalidArgument, "assoc!: index %s is outside the vector of %d elements", printString(kvs[j]), len(v.items))
		}
	}
	return nil
}

// readTransient runs read on transient c's collection, under c's mutex
// when it is a vector that may be changing in place.
func readTransient(fn string, c *Cell, s *cellState, read func(coll Value) (Value, error)) (Value, error) {
	if _, ok := transientVectorOf(s); !ok {
		return read(s.val)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	s = c.load()
	if s.dead {
		return nil, usedAfterPersistent(fn)
	}
	return read(s.val)
}

// snapshotTransient returns what transient c holds now: a copy of an owned
// vector (made under the mutex), the collection itself otherwise.
func (c *Cell) snapshotTransient(s *cellState) Value {
	if !s.owned {
		return s.val
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.load().val.(*Vector)
	if !ok {
		return c.load().val
	}
	return &Vector{items: append([]Value(nil), v.items...)}
}

// endTransientVector is persistent! of a transient vector: the cell dies
// holding its vector, which no write changes after that.
func (th *thread) endTransientVector(c *Cell) (Value, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for {
		s := c.load()
		if s.dead {
			return nil, usedAfterPersistent("persistent!")
		}
		ok, err := th.casCell(c, s, s.val, true)
		if err != nil {
			return nil, err
		}
		if ok {
			return s.val, nil
		}
	}
}
