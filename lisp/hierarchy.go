package lisp

// Hierarchies: make-hierarchy, derive, underive, isa?, parents, ancestors
// and descendants, as Clojure has them, and the multimethods that dispatch
// through them.
//
// A hierarchy is Clojure's map {:parents {tag #{parent}} :ancestors {...}
// :descendants {...}}, and the functions that take one are pure. The
// global hierarchy (derive and underive without one, isa? and the
// multimethods without :hierarchy) belongs to the namespace, as the cells'
// count does: a run starts from its namespace's, and the namespace it
// leaves holds what it derived; a run that fails leaves it as it was, as
// its defs. Hosts that rebuild a namespace from its vars alone (a durable
// engine's memory) start with an empty one.

var (
	kwParents     = Keyword("parents")
	kwAncestors   = Keyword("ancestors")
	kwDescendants = Keyword("descendants")
)

// emptyHierarchy is (make-hierarchy).
var emptyHierarchy = NewMap(kwParents, emptyMap, kwDescendants, emptyMap, kwAncestors, emptyMap)

// globalHierarchy returns the run's global hierarchy.
func (r *runState) globalHierarchy() *Map {
	if h := r.hierarchy.Load(); h != nil {
		return h
	}
	if h := r.globals.base.globalHierarchy(); h != nil {
		return h
	}
	return emptyHierarchy
}

// globalHierarchy returns the namespace's global hierarchy, nil when no
// run derived anything.
func (ns *Namespace) globalHierarchy() *Map {
	if ns == nil {
		return nil
	}
	return ns.hierarchy
}

// withHierarchy returns ns holding the global hierarchy h.
func (ns *Namespace) withHierarchy(h *Map) *Namespace {
	if h == nil || ns.globalHierarchy() == h {
		return ns
	}
	out := Namespace{}
	if ns != nil {
		out = *ns
	}
	out.hierarchy = h
	return &out
}

// hierarchyArg returns argument i as a hierarchy.
func hierarchyArg(fn string, a []Value, i int) (*Map, error) {
	if h, ok := a[i].(*Map); ok {
		if _, ok := h.getExact(kwParents); ok {
			return h, nil
		}
	}
	return nil, argError(fn, i, "a hierarchy (from make-hierarchy)", a[i])
}

// relation returns the set the hierarchy h's relation rel (:parents,
// :ancestors, :descendants) gives tag, or nil.
func relation(h *Map, rel Keyword, tag Value) *Set {
	m, _ := h.getExact(rel)
	rm, ok := m.(*Map)
	if !ok {
		return nil
	}
	v, _ := rm.getExact(tag)
	s, _ := v.(*Set)
	return s
}

// withRelation returns h with tag's set of the relation rel replaced by s
// (removed when s is empty).
func withRelation(h *Map, rel Keyword, tag Value, s *Set) *Map {
	m, _ := h.getExact(rel)
	rm, ok := m.(*Map)
	if !ok {
		rm = emptyMap
	}
	if s == nil || s.Len() == 0 {
		rm = rm.Dissoc(tag)
	} else {
		rm = rm.Assoc(tag, s)
	}
	return h.Assoc(rel, rm)
}

func setOrEmpty(s *Set) *Set {
	if s == nil {
		return emptySet
	}
	return s
}

// derive is Clojure's (derive h tag parent).
func (th *thread) derive(h *Map, tag, parent Value) (*Map, error) {
	if th.equal(tag, parent) {
		return nil, classError(AssertionError, classAssertionError, "Assert failed: (not= tag parent)")
	}
	if _, ok := tag.(*Map); ok {
		return nil, argError("derive", 1, "a keyword, symbol or class", tag)
	}
	if setOrEmpty(relation(h, kwParents, tag)).Has(parent) {
		return h, nil
	}
	if setOrEmpty(relation(h, kwAncestors, tag)).Has(parent) {
		return nil, errorf(Thrown, "%s already has %s as ancestor", th.javaText(tag), th.javaText(parent))
	}
	if setOrEmpty(relation(h, kwAncestors, parent)).Has(tag) {
		return nil, errorf(Thrown, "Cyclic derivation: %s has %s as ancestor", th.javaText(parent), th.javaText(tag))
	}
	// Every tag at or below tag gains parent and its ancestors; every tag
	// at or above parent gains tag and its descendants.
	spread := func(out *Map, rel Keyword, from Value, through Keyword, add Value) (*Map, error) {
		gained := setOrEmpty(relation(h, rel, add)).Conj(add)
		targets := setOrEmpty(relation(h, through, from)).Conj(from)
		// Each target's set gains each tag: a step and a set entry each.
		work := targets.Len() * gained.Len()
		if err := th.ticks(4 * work); err != nil {
			return nil, err
		}
		if err := th.charge(int64(3 * work)); err != nil { // a set entry: about three values
			return nil, err
		}
		m, _ := out.getExact(rel)
		rm, ok := m.(*Map)
		if !ok {
			rm = emptyMap
		}
		for k := range targets.All() {
			s := setOrEmpty(relation(h, rel, k))
			for g := range gained.All() {
				s = s.Conj(g)
			}
			rm = rm.Assoc(k, s)
		}
		return out.Assoc(rel, rm), nil
	}
	out := withRelation(h, kwParents, tag, setOrEmpty(relation(h, kwParents, tag)).Conj(parent))
	out, err := spread(out, kwAncestors, tag, kwDescendants, parent)
	if err != nil {
		return nil, err
	}
	out, err = spread(out, kwDescendants, parent, kwAncestors, tag)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// underive is Clojure's (underive h tag parent): the hierarchy derived
// again from every other parent relation.
func (th *thread) underive(h *Map, tag, parent Value) (*Map, error) {
	if !setOrEmpty(relation(h, kwParents, tag)).Has(parent) {
		return h, nil
	}
	m, _ := h.getExact(kwParents)
	parents, _ := m.(*Map)
	out := emptyHierarchy
	var err error
	for t, ps := range parents.All() {
		s, _ := ps.(*Set)
		for p := range setOrEmpty(s).All() {
			if th.equal(t, tag) && th.equal(p, parent) {
				continue
			}
			if out, err = th.derive(out, t, p); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// isaIn is Clojure's (isa? h child parent).
func (th *thread) isaIn(h *Map, child, parent Value) bool {
	if th.equal(child, parent) {
		return true
	}
	if p, ok := parent.(Class); ok {
		if c, ok := child.(Class); ok && classIsa(c, p) {
			return true
		}
	}
	if setOrEmpty(relation(h, kwAncestors, child)).Has(parent) {
		return true
	}
	if c, ok := child.(Class); ok {
		// A class isa? what its superclasses and interfaces derive from.
		for _, s := range classSupers(c) {
			if setOrEmpty(relation(h, kwAncestors, s)).Has(parent) {
				return true
			}
		}
	}
	if p, ok := parent.(*Vector); ok {
		c, ok := child.(*Vector)
		if !ok || c.IsList() || p.IsList() || c.Len() != p.Len() {
			return false
		}
		for i := range c.Len() {
			if !th.isaIn(h, c.At(i), p.At(i)) {
				return false
			}
		}
		return true
	}
	return false
}

// classSupers returns the classes and interfaces c is also an instance
// of, java.lang.Object last.
func classSupers(c Class) []Value {
	var out []Value
	if isRecordClass(c) {
		c = Class{Name: "clojure.lang.PersistentArrayMap"}
		out = append(out, Class{Name: "clojure.lang.IRecord"}, c)
	}
	if info := classIndex()[c.Name]; info != nil {
		for _, name := range info.supers {
			out = append(out, Class{Name: name})
		}
	}
	if c.Name != "java.lang.Object" {
		out = append(out, Class{Name: "java.lang.Object"})
	}
	return out
}

// hierarchyAndTag reads the arguments of parents, ancestors and
// descendants: ([tag]) of the global hierarchy, or ([h tag]).
func (th *thread) hierarchyAndTag(fn string, a []Value) (*Map, Value, error) {
	if len(a) == 1 {
		return th.run.globalHierarchy(), a[0], nil
	}
	h, err := hierarchyArg(fn, a, 0)
	return h, a[1], err
}

// nilIfEmpty is a relation's set as Clojure answers it: nil when empty.
func nilIfEmpty(s *Set) Value {
	if s == nil || s.Len() == 0 {
		return nil
	}
	return s
}

func registerHierarchy(t *builtinTable) {
	t.add("make-hierarchy", 0, 0, func(*thread, []Value) (Value, error) { return emptyHierarchy, nil })
	// derive and underive change the global hierarchy with two arguments
	// (nil, as Clojure's) and return a new one given a hierarchy.
	change := func(fn string, op func(th *thread, h *Map, tag, parent Value) (*Map, error)) func(*thread, []Value) (Value, error) {
		return func(th *thread, a []Value) (Value, error) {
			if len(a) == 3 {
				h, err := hierarchyArg(fn, a, 0)
				if err != nil {
					return nil, err
				}
				return op(th, h, a[1], a[2])
			}
			for {
				cur := th.run.hierarchy.Load()
				out, err := op(th, th.run.globalHierarchy(), a[0], a[1])
				if err != nil {
					return nil, err
				}
				if th.run.hierarchy.CompareAndSwap(cur, out) {
					return nil, nil
				}
			}
		}
	}
	t.add("derive", 2, 3, change("derive", (*thread).derive))
	t.add("underive", 2, 3, change("underive", (*thread).underive))
	t.add("isa?", 2, 3, func(th *thread, a []Value) (Value, error) {
		if len(a) == 3 {
			h, err := hierarchyArg("isa?", a, 0)
			if err != nil {
				return nil, err
			}
			return th.isaIn(h, a[1], a[2]), nil
		}
		return th.isaIn(th.run.globalHierarchy(), a[0], a[1]), nil
	})
	t.add("parents", 1, 2, func(th *thread, a []Value) (Value, error) {
		h, tag, err := th.hierarchyAndTag("parents", a)
		if err != nil {
			return nil, err
		}
		return nilIfEmpty(relation(h, kwParents, tag)), nil
	})
	t.add("ancestors", 1, 2, func(th *thread, a []Value) (Value, error) {
		h, tag, err := th.hierarchyAndTag("ancestors", a)
		if err != nil {
			return nil, err
		}
		s := relation(h, kwAncestors, tag)
		if c, ok := tag.(Class); ok {
			// A class's ancestors are its supers and what they derive from.
			for _, sup := range classSupers(c) {
				s = setOrEmpty(s).Conj(sup)
				for x := range setOrEmpty(relation(h, kwAncestors, sup)).All() {
					s = s.Conj(x)
				}
			}
		}
		return nilIfEmpty(s), nil
	})
	t.add("descendants", 1, 2, func(th *thread, a []Value) (Value, error) {
		h, tag, err := th.hierarchyAndTag("descendants", a)
		if err != nil {
			return nil, err
		}
		if _, ok := tag.(Class); ok {
			return nil, classError(InvalidArgument, classUnsupported, "Can't get descendants of classes")
		}
		return nilIfEmpty(relation(h, kwDescendants, tag)), nil
	})
}
