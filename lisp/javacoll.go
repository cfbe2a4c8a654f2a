package lisp

import (
	"errors"
	"strings"
	"sync"
)

// The java.util collections models write on their first try: ArrayList,
// LinkedList, ArrayDeque and Stack (lists), HashMap, LinkedHashMap, TreeMap
// and ConcurrentHashMap (maps), HashSet, LinkedHashSet and TreeSet (sets),
// made by their constructors ((java.util.ArrayList.), (ArrayList. coll),
// (new HashMap)) and changed by their methods (.add, .put, .remove, .push,
// .pop, .poll ...).
//
// A collection is a Cell of kind utilCell (state.go), mutable as an array
// is (arrays.go): a run changes its own copy in place (mutate), and a run
// that fails puts back the contents it found. A list keeps its elements in
// two slices, the front one reversed, so that adding and removing at either
// end is O(1) (a queue for a breadth-first walk, a stack); a map or a set
// holds a persistent map or set that each change replaces, so the copy a
// run makes before its first change costs nothing.
//
// Clojure's functions read them as Clojure reads a java.util collection:
// seq, count, nth, first, map, reduce, into, vec, apply and destructuring
// walk a list or a set (a copy as of now); get, get-in, keywords, contains?,
// find, select-keys, keys, vals and reduce-kv read a map; = compares the
// contents with Clojure's collections. conj and assoc fail, as in Clojure:
// they are not persistent. A collection prints as what it holds, [1 2],
// {"a" 1}, #{1}, as Clojure's pr prints a List, Map or Set, and str gives
// Java's toString, "[1, a]" or "{a=1}". Printed exactly (for Read), it is
// #array-list[[1 2]], #hash-map[{"a" 1}] and so on by class. JSON and Go
// see what it holds.
//
// Maps and sets iterate in the canonical order of every map and set
// (docs/deviations.md row 98), not in Java's hash order; a LinkedHashMap
// and a LinkedHashSet keep the order of insertion beside what they hold
// (order), for seq, keys, vals, reduce-kv, printing and their methods.

// utilClass is the class of a java.util collection.
type utilClass uint8

const (
	utilArrayList utilClass = iota
	utilLinkedList
	utilArrayDeque
	utilStack
	utilHashMap
	utilLinkedHashMap
	utilTreeMap
	utilConcurrentHashMap
	utilHashSet
	utilLinkedHashSet
	utilTreeSet
	utilPriorityQueue
	utilClasses // their number
)

// utilClassInfo names each class: Java's name and the tag of its exact
// printed form.
var utilClassInfo = [utilClasses]struct{ name, tag string }{
	utilArrayList:         {"java.util.ArrayList", "array-list"},
	utilLinkedList:        {"java.util.LinkedList", "linked-list"},
	utilArrayDeque:        {"java.util.ArrayDeque", "array-deque"},
	utilStack:             {"java.util.Stack", "stack"},
	utilHashMap:           {"java.util.HashMap", "hash-map"},
	utilLinkedHashMap:     {"java.util.LinkedHashMap", "linked-hash-map"},
	utilTreeMap:           {"java.util.TreeMap", "tree-map"},
	utilConcurrentHashMap: {"java.util.concurrent.ConcurrentHashMap", "concurrent-hash-map"},
	utilHashSet:           {"java.util.HashSet", "hash-set"},
	utilLinkedHashSet:     {"java.util.LinkedHashSet", "linked-hash-set"},
	utilTreeSet:           {"java.util.TreeSet", "tree-set"},
	utilPriorityQueue:     {"java.util.PriorityQueue", "priority-queue"},
}

func (k utilClass) isList() bool { return k <= utilStack }
func (k utilClass) isMap() bool  { return k >= utilHashMap && k <= utilConcurrentHashMap }
func (k utilClass) isSet() bool  { return k >= utilHashSet && k <= utilTreeSet }

// isQueue reports a PriorityQueue: its elements, in back, are a binary
// heap in Java's order (javacoll_pq.go).
func (k utilClass) isQueue() bool { return k == utilPriorityQueue }

// indexed reports whether the class is a java.util.List (an ArrayDeque is
// not: it has no get or set, and its remove takes an element).
func (k utilClass) indexed() bool { return k.isList() && k != utilArrayDeque }

// utilData is the contents of a java.util collection.
type utilData struct {
	sync.Mutex
	class utilClass
	// A list's elements: front reversed, then back.
	front, back []Value
	// A map's *Map or a set's *Set.
	coll Value
	// order is a LinkedHashMap's keys or a LinkedHashSet's elements in the
	// order they were added (nil for the other classes).
	order []Value
	// mods counts the changes, so that a change decided outside the lock
	// (after comparing elements, see utilFind) sees whether the list moved.
	mods uint64
	// cmp is a PriorityQueue's comparator (nil: the natural order).
	cmp Value
}

func (d *utilData) clone() cellData {
	return &utilData{class: d.class, coll: d.coll, order: append([]Value(nil), d.order...), mods: d.mods, cmp: d.cmp,
		front: append([]Value(nil), d.front...), back: append([]Value(nil), d.back...)}
}

func (d *utilData) slots() int { return len(d.front) + len(d.back) + len(d.order) + 2 }

// linked reports whether the collection keeps the order of insertion.
func (k utilClass) linked() bool { return k == utilLinkedHashMap || k == utilLinkedHashSet }

// put sets k to v in a map; the old value, and whether k was there.
func (d *utilData) put(k, v Value) (Value, bool) {
	m := d.coll.(*Map)
	old, had := m.getExact(k)
	d.coll = m.Assoc(k, v)
	if !had && d.class.linked() {
		d.order = append(d.order, k)
	}
	return old, had
}

// add puts x in a set; whether it was not there.
func (d *utilData) add(x Value) bool {
	s := d.coll.(*Set)
	if s.Has(x) {
		return false
	}
	d.coll = s.Conj(x)
	if d.class.linked() {
		d.order = append(d.order, x)
	}
	return true
}

// remove takes k out of a map (its old value) or a set; whether it was
// there. The caller charges the walk of a linked collection's order.
func (d *utilData) remove(k Value) (Value, bool) {
	var old Value
	switch c := d.coll.(type) {
	case *Map:
		v, had := c.getExact(k)
		if !had {
			return nil, false
		}
		old, d.coll = v, c.Dissoc(k)
	case *Set:
		if !c.Has(k) {
			return nil, false
		}
		d.coll = c.Disj(k)
	}
	if d.class.linked() {
		d.keepOrdered()
	}
	return old, true
}

// keepOrdered drops from the order what the map or set no longer holds.
func (d *utilData) keepOrdered() {
	kept := d.order[:0]
	for _, x := range d.order {
		held := false
		switch c := d.coll.(type) {
		case *Map:
			_, held = c.getExact(x)
		case *Set:
			held = c.Has(x)
		}
		if held {
			kept = append(kept, x)
		}
	}
	clear(d.order[len(kept):])
	d.order = kept
}

// clearAll empties the collection.
func (d *utilData) clearAll() {
	d.front, d.back, d.order = nil, nil, nil
	switch d.coll.(type) {
	case *Map:
		d.coll = emptyMap
	case *Set:
		d.coll = emptySet
	}
}

// ordered is what seq gives of a map or a set: a map's [key value]
// entries, a set's elements, in the order of insertion for a linked one
// (nil for the others: their order is the canonical one).
func (d *utilData) ordered() []Value {
	if d.order == nil {
		return nil
	}
	out := make([]Value, len(d.order))
	for i, k := range d.order {
		if m, ok := d.coll.(*Map); ok {
			v, _ := m.getExact(k)
			out[i] = newEntry(k, v)
		} else {
			out[i] = k
		}
	}
	return out
}

func (d *utilData) size() int {
	switch c := d.coll.(type) {
	case *Map:
		return c.Len()
	case *Set:
		return c.Len()
	}
	return len(d.front) + len(d.back)
}

func (d *utilData) at(i int) Value {
	if i < len(d.front) {
		return d.front[len(d.front)-1-i]
	}
	return d.back[i-len(d.front)]
}

func (d *utilData) setAt(i int, x Value) {
	if i < len(d.front) {
		d.front[len(d.front)-1-i] = x
		return
	}
	d.back[i-len(d.front)] = x
}

// items returns a copy of a list's elements in order.
func (d *utilData) items() []Value {
	out := make([]Value, 0, len(d.front)+len(d.back))
	for i := len(d.front) - 1; i >= 0; i-- {
		out = append(out, d.front[i])
	}
	return append(out, d.back...)
}

// flatten moves a list's elements into back, for the changes in the
// middle (insert, remove at an index).
func (d *utilData) flatten() {
	if len(d.front) > 0 {
		d.back, d.front = d.items(), nil
	}
}

func (d *utilData) pushFront(x Value) { d.front = append(d.front, x) }
func (d *utilData) pushBack(x Value)  { d.back = append(d.back, x) }

func (d *utilData) popFront() (Value, bool) {
	if n := len(d.front); n > 0 {
		x := d.front[n-1]
		d.front[n-1] = nil
		d.front = d.front[:n-1]
		return x, true
	}
	if len(d.back) > 0 {
		x := d.back[0]
		d.back[0] = nil
		d.back = d.back[1:]
		return x, true
	}
	return nil, false
}

func (d *utilData) popBack() (Value, bool) {
	if n := len(d.back); n > 0 {
		x := d.back[n-1]
		d.back[n-1] = nil
		d.back = d.back[:n-1]
		return x, true
	}
	if len(d.front) > 0 {
		x := d.front[0]
		d.front[0] = nil
		d.front = d.front[1:]
		return x, true
	}
	return nil, false
}

func (d *utilData) first() (Value, bool) {
	if d.size() == 0 {
		return nil, false
	}
	return d.at(0), true
}

func (d *utilData) last() (Value, bool) {
	n := d.size()
	if n == 0 {
		return nil, false
	}
	return d.at(n - 1), true
}

// value is what the collection holds now, as a Clojure value: a list's
// elements as a vector (a copy), a map's map, a set's set.
func (d *utilData) value() Value {
	if d.class.isList() || d.class.isQueue() {
		return NewVector(d.items())
	}
	return d.coll
}

// utilArg returns v as a java.util collection, or nil.
func utilArg(v Value) *Cell {
	if c, ok := v.(*Cell); ok && c.kind == utilCell {
		return c
	}
	return nil
}

// utilRead runs f on the collection's contents under their lock.
func utilRead[T any](c *Cell, f func(d *utilData) T) T {
	d := c.load().val.(*utilData)
	d.Lock()
	defer d.Unlock()
	return f(d)
}

// utilValue is what c holds now (see utilData.value).
func utilValue(c *Cell) Value { return utilRead(c, (*utilData).value) }

// utilItems is what the sequence functions see of c: a list's or a set's
// elements, a map's [key value] entries.
func (th *thread) utilItems(c *Cell, op string) ([]Value, error) {
	if xs := utilRead(c, (*utilData).ordered); xs != nil {
		return xs, th.charge(3 * int64(len(xs)))
	}
	v := utilValue(c)
	if vec, ok := v.(*Vector); ok {
		return vec.items, th.charge(int64(vec.Len()))
	}
	return th.items(v, op)
}

// changeUtil runs f on the contents this run may change (mutate).
func (th *thread) changeUtil(c *Cell, f func(d *utilData) error) error {
	return th.mutate(c, func(cd cellData) error {
		d := cd.(*utilData)
		d.mods++
		return f(d)
	})
}

// utilFind returns the index of the first (last, when last) element of
// list c equal to x, or -1, and the list's change count when it looked.
// It compares outside the list's lock: comparing may read other java.util
// collections, or this one (a list that holds itself), and a lock held
// while it does so would never be released.
func (th *thread) utilFind(c *Cell, x Value, last bool) (int, uint64, error) {
	var items []Value
	var mods uint64
	utilRead(c, func(d *utilData) bool {
		items, mods = d.items(), d.mods
		return true
	})
	if err := th.charge(int64(len(items))); err != nil {
		return 0, 0, err
	}
	if err := th.ticks(len(items)); err != nil {
		return 0, 0, err
	}
	for j := range items {
		i := j
		if last {
			i = len(items) - 1 - j
		}
		if th.equal(items[i], x) {
			return i, mods, nil
		}
	}
	return -1, mods, nil
}

// errListMoved says that a list changed between utilFind and the change
// it decided: the method looks again.
var errListMoved = errors.New("the list changed meanwhile")

// newUtil makes a collection of class k holding what from gives: the
// elements of a collection for a list or a set, the entries of a map for a
// map; nil or a capacity (an integer) makes an empty one.
func (th *thread) newUtil(k utilClass, ctor string, from Value) (*Cell, error) {
	if k == utilTreeMap || k == utilTreeSet {
		// (TreeMap. comparator), or a sorted map or set that has one
		// (Java's TreeMap(SortedMap) keeps its comparator).
		switch x := from.(type) {
		case *Closure, *Builtin, *Var:
			return th.newCell(utilCell, newTreeBy(k, x), nil)
		case *Map:
			if by := x.sorted(); by != nil && k == utilTreeMap {
				d := newTreeBy(k, by.fn)
				d.coll = x
				return th.newCell(utilCell, d, nil)
			}
		case *Set:
			if by := x.sorted(); by != nil && k == utilTreeSet {
				d := newTreeBy(k, by.fn)
				d.coll = x
				return th.newCell(utilCell, d, nil)
			}
		}
	}
	d := &utilData{class: k}
	switch {
	case k.isMap():
		d.coll = emptyMap
	case k.isSet():
		d.coll = emptySet
	}
	switch x := from.(type) {
	case nil:
	case int64:
		if x < 0 {
			return nil, classError(InvalidArgument, classIllegalArgument, "%s: Illegal initial capacity: %d", ctor, x)
		}
	default:
		if k.isMap() {
			m, err := th.utilMapArg(ctor, from)
			if err != nil {
				return nil, err
			}
			if err := th.charge(3 * int64(m.Len())); err != nil {
				return nil, err
			}
			d.coll = m
			if k.linked() {
				d.order = m.Keys()
			}
			break
		}
		xs, err := th.utilSource(ctor, from)
		if err != nil {
			return nil, err
		}
		if k.isSet() {
			if err := th.charge(3 * int64(len(xs))); err != nil {
				return nil, err
			}
			for _, x := range xs {
				d.add(x)
			}
			break
		}
		if err := th.charge(int64(len(xs))); err != nil {
			return nil, err
		}
		d.back = append([]Value(nil), xs...)
	}
	return th.newCell(utilCell, d, nil)
}

// utilSource is the elements of a collection argument (a Clojure
// collection, a string's characters, an array, another java.util one).
func (th *thread) utilSource(fn string, v Value) ([]Value, error) {
	if c := utilArg(v); c != nil {
		return th.utilItems(c, fn)
	}
	return th.items(v, fn)
}

// utilMapArg is a map argument: a Clojure map, a java.util map or nil.
func (th *thread) utilMapArg(fn string, v Value) (*Map, error) {
	switch x := v.(type) {
	case nil:
		return emptyMap, nil
	case *Map:
		return x, nil
	case *Cell:
		if x.kind == utilCell {
			if m, ok := utilValue(x).(*Map); ok {
				return m, nil
			}
		}
	}
	return nil, argError(fn, 1, "a map", v)
}

// utilString is Java's toString of a collection: "[1, a, null]" for a
// list or a set, "{a=1, b=[1 2]}" for a map; elements as str shows them,
// but nil as null.
func (p *printer) utilString(c *Cell, depth int) {
	if !p.enterCell(c, depth, "(this Collection)") {
		return
	}
	defer delete(p.inCells, c)
	elem := func(x Value) {
		switch x := x.(type) {
		case nil:
			p.sb.WriteString("null")
		case string:
			raw := p.raw // unquoted, and hidden when the redaction says so
			p.raw = true
			p.value(x, depth+1)
			p.raw = raw
		case *Cell:
			if x.kind == utilCell {
				p.utilString(x, depth+1)
				return
			}
			p.value(x, depth+1)
		default:
			p.value(x, depth+1)
		}
	}
	v, ordered := utilValue(c), utilRead(c, (*utilData).ordered)
	switch v := v.(type) {
	case *Map:
		p.sb.WriteByte('{')
		i := 0
		entry := func(k, x Value) bool {
			if p.cut(i, v.Len(), ", ") {
				return false
			}
			if i > 0 {
				p.sb.WriteString(", ")
			}
			elem(k)
			p.sb.WriteByte('=')
			elem(x)
			i++
			return true
		}
		if ordered != nil {
			for _, e := range ordered {
				if !entry(e.(*Vector).At(0), e.(*Vector).At(1)) {
					break
				}
			}
		} else {
			for k, x := range v.All() {
				if !entry(k, x) {
					break
				}
			}
		}
		p.sb.WriteByte('}')
	case *Set:
		xs := ordered
		if xs == nil {
			xs = v.Items()
		}
		p.sb.WriteByte('[')
		for i, x := range xs {
			if p.cut(i, len(xs), ", ") {
				break
			}
			if i > 0 {
				p.sb.WriteString(", ")
			}
			elem(x)
		}
		p.sb.WriteByte(']')
	case *Vector:
		p.sb.WriteByte('[')
		for i, x := range v.items {
			if p.cut(i, len(v.items), ", ") {
				break
			}
			if i > 0 {
				p.sb.WriteString(", ")
			}
			elem(x)
		}
		p.sb.WriteByte(']')
	}
}

// utilEqual compares a java.util collection with another value as
// Clojure does: by contents, a list with a vector or a list, a map with a
// map, a set with a set.
func utilEqual(a, b Value, depth int, w *walk) bool {
	if c := utilArg(a); c != nil && c == utilArg(b) {
		return true // itself, as Clojure's = answers first (a list may hold itself)
	}
	av, bv := a, b
	if c := utilArg(a); c != nil {
		av = utilValue(c)
	}
	if c := utilArg(b); c != nil {
		bv = utilValue(c)
	}
	if av == a && bv == b {
		return a == b
	}
	return equalAt(av, bv, depth, w)
}

func registerUtil(t *builtinTable) {
	for k := utilClass(0); k < utilClasses; k++ {
		if k.isQueue() {
			continue // its constructor takes a comparator too (javacoll_pq.go)
		}
		name := utilClassInfo[k].name
		simple := name[strings.LastIndexByte(name, '.')+1:]
		t.add(simple+".", 0, 1, func(th *thread, a []Value) (Value, error) {
			var from Value
			if len(a) == 1 {
				if k == utilStack {
					return nil, errorf(ArityError, "Stack. takes no arguments")
				}
				from = a[0]
			}
			return th.newUtil(k, simple+".", from)
		}, name+".")
	}

	// method registers (or extends) the method name for the collections
	// accepted by ok: f runs when the target is one of them, the builtin
	// registered before (if any) otherwise, so the methods of one name
	// for several classes (.poll of a deque, of a PriorityQueue) chain.
	// min and max count the target.
	method := func(name string, min, max int, ok func(utilClass) bool, f func(th *thread, c *Cell, k utilClass, a []Value) (Value, error)) {
		arity := &Builtin{Name: name, MinArgs: min, MaxArgs: max}
		ours := func(th *thread, a []Value) (Value, error) {
			c := utilArg(a[0])
			k := utilRead(c, func(d *utilData) utilClass { return d.class })
			if !ok(k) {
				return nil, errorf(TypeError, "%s is not a method of %s", name, utilClassInfo[k].name)
			}
			if len(a) < min || (max >= 0 && len(a) > max) {
				return nil, arity.arityError(len(a))
			}
			if (k == utilTreeMap || k == utilTreeSet) && treeBy(c) {
				return th.treeByMethod(name, c, k, a, func() (Value, error) { return f(th, c, k, a) })
			}
			return f(th, c, k, a)
		}
		if _, exists := t.names[name]; !exists {
			t.add(name, min, max, func(th *thread, a []Value) (Value, error) {
				if utilArg(a[0]) == nil {
					if a[0] == nil {
						return nil, classError(TypeError, classNullPointer, "%s of nil (a NullPointerException in Java)", name)
					}
					return nil, argError(name, 0, "a java.util collection (ArrayList., HashMap., HashSet. ...)", a[0])
				}
				return ours(th, a)
			})
			return
		}
		t.wrap(name, func(old *Builtin) *Builtin {
			b := *old
			fn := old.fn
			b.MinArgs = minArgs(old.MinArgs, min)
			if old.MaxArgs >= 0 && (max < 0 || max > old.MaxArgs) {
				b.MaxArgs = max
			}
			b.fn = func(th *thread, a []Value) (Value, error) {
				if c := utilArg(a[0]); c != nil && ok(utilRead(c, func(d *utilData) utilClass { return d.class })) {
					return ours(th, a)
				}
				if err := old.checkArity(len(a)); err != nil {
					return nil, err
				}
				return fn(th, a)
			}
			return &b
		})
	}
	any := func(utilClass) bool { return true }
	lists := utilClass.isList
	maps := utilClass.isMap
	sets := utilClass.isSet
	notMaps := func(k utilClass) bool { return !k.isMap() }
	deques := func(k utilClass) bool { return k == utilLinkedList || k == utilArrayDeque }
	// index checks an index read before the collection's lock is taken:
	// the error of an argument that is not an integer describes it, and
	// describing a java.util collection takes its lock (the list itself, as
	// an index, would wait for ever on its own lock).
	index := func(x int64, n int) (int, error) {
		if x < 0 || x >= int64(n) {
			return 0, classError(InvalidArgument, classIndexOutOfBound, "Index %d out of bounds for length %d", x, n)
		}
		return int(x), nil
	}
	noElement := func(name string) error {
		return classError(InvalidArgument, classNoSuchElement, "%s of an empty collection (NoSuchElementException)", name)
	}
	emptyStack := func(name string) error {
		return classError(InvalidArgument, classEmptyStack, "%s of an empty Stack (EmptyStackException)", name)
	}
	// change runs f on c's contents; f returns the method's value.
	change := func(th *thread, c *Cell, f func(d *utilData) (Value, error)) (Value, error) {
		var out Value
		err := th.changeUtil(c, func(d *utilData) error {
			var err error
			out, err = f(d)
			return err
		})
		return out, err
	}
	read := func(c *Cell, f func(d *utilData) (Value, error)) (Value, error) {
		d := c.load().val.(*utilData)
		d.Lock()
		defer d.Unlock()
		return f(d)
	}

	method(".add", 2, 3, notMaps, func(th *thread, c *Cell, k utilClass, a []Value) (Value, error) {
		if err := th.charge(2); err != nil {
			return nil, err
		}
		if len(a) == 3 { // (.add list i x): insert at i
			if !k.indexed() {
				return nil, errorf(ArityError, ".add of %s takes one element", utilClassInfo[k].name)
			}
			i, err := intArg(".add", a, 1) // outside the lock: see index
			if err != nil {
				return nil, err
			}
			return change(th, c, func(d *utilData) (Value, error) {
				n := d.size()
				if i < 0 || i > int64(n) {
					return nil, classError(InvalidArgument, classIndexOutOfBound, "Index: %d, Size: %d", i, n)
				}
				if err := th.ticks(n); err != nil {
					return nil, err
				}
				d.flatten()
				d.back = append(d.back, nil)
				copy(d.back[i+1:], d.back[i:])
				d.back[i] = a[2]
				return nil, nil
			})
		}
		return change(th, c, func(d *utilData) (Value, error) {
			if k.isSet() {
				return d.add(a[1]), nil
			}
			d.pushBack(a[1])
			return true, nil
		})
	})
	method(".addAll", 2, 2, notMaps, func(th *thread, c *Cell, k utilClass, a []Value) (Value, error) {
		xs, err := th.utilSource(".addAll", a[1])
		if err != nil {
			return nil, err
		}
		if err := th.charge(2 * int64(len(xs))); err != nil {
			return nil, err
		}
		return change(th, c, func(d *utilData) (Value, error) {
			if k.isSet() {
				changed := false
				for _, x := range xs {
					changed = d.add(x) || changed
				}
				return changed, nil
			}
			d.back = append(d.back, xs...)
			return len(xs) > 0, nil
		})
	})
	method(".get", 2, 2, func(k utilClass) bool { return k.indexed() || k.isMap() }, func(th *thread, c *Cell, k utilClass, a []Value) (Value, error) {
		var x int64
		if !k.isMap() {
			var err error
			if x, err = intArg(".get", a, 1); err != nil { // outside the lock: see index
				return nil, err
			}
		}
		return read(c, func(d *utilData) (Value, error) {
			if m, ok := d.coll.(*Map); ok {
				v, _ := m.getExact(a[1])
				return v, nil
			}
			i, err := index(x, d.size())
			if err != nil {
				return nil, err
			}
			return d.at(i), nil
		})
	})
	method(".set", 3, 3, utilClass.indexed, func(th *thread, c *Cell, k utilClass, a []Value) (Value, error) {
		x, err := intArg(".set", a, 1) // outside the lock: see index
		if err != nil {
			return nil, err
		}
		return change(th, c, func(d *utilData) (Value, error) {
			i, err := index(x, d.size())
			if err != nil {
				return nil, err
			}
			old := d.at(i)
			d.setAt(i, a[2])
			return old, nil
		})
	})
	method(".remove", 1, 2, any, func(th *thread, c *Cell, k utilClass, a []Value) (Value, error) {
		if len(a) == 1 { // (.remove deque): its first element
			if !deques(k) {
				return nil, errorf(ArityError, ".remove of %s takes what to remove", utilClassInfo[k].name)
			}
			return change(th, c, func(d *utilData) (Value, error) {
				if x, ok := d.popFront(); ok {
					return x, nil
				}
				return nil, noElement(".remove")
			})
		}
		out, err := change(th, c, func(d *utilData) (Value, error) {
			if !k.isList() {
				if k.linked() {
					if err := th.ticks(len(d.order)); err != nil {
						return nil, err
					}
				}
				old, had := d.remove(a[1])
				if k.isSet() {
					return had, nil
				}
				return old, nil
			}
			n := d.size()
			if err := th.ticks(n); err != nil {
				return nil, err
			}
			if x, isIndex := a[1].(int64); isIndex && k.indexed() {
				// (.remove list i) removes at the index, as Clojure calls
				// List.remove(int) with an integer.
				i, err := index(x, n)
				if err != nil {
					return nil, err
				}
				d.flatten()
				old := d.back[i]
				d.back = append(d.back[:i], d.back[i+1:]...)
				return old, nil
			}
			return nil, errRemoveByElement
		})
		if !errors.Is(err, errRemoveByElement) {
			return out, err
		}
		// By element: found outside the lock, removed if the list has not
		// changed since (else looked for again).
		for {
			i, mods, err := th.utilFind(c, a[1], false)
			if err != nil || i < 0 {
				return false, err
			}
			err = th.changeUtil(c, func(d *utilData) error {
				if d.mods != mods+1 { // +1: this change's own count
					return errListMoved
				}
				d.flatten()
				d.back = append(d.back[:i], d.back[i+1:]...)
				return nil
			})
			if !errors.Is(err, errListMoved) {
				return true, err
			}
		}
	})
	method(".clear", 1, 1, any, func(th *thread, c *Cell, k utilClass, a []Value) (Value, error) {
		return change(th, c, func(d *utilData) (Value, error) {
			d.clearAll()
			return nil, nil
		})
	})
	method(".size", 1, 1, any, func(th *thread, c *Cell, k utilClass, a []Value) (Value, error) {
		return int64(utilRead(c, (*utilData).size)), nil
	})
	method(".isEmpty", 1, 1, any, func(th *thread, c *Cell, k utilClass, a []Value) (Value, error) {
		return utilRead(c, (*utilData).size) == 0, nil
	})
	method(".empty", 1, 1, func(k utilClass) bool { return k == utilStack }, func(th *thread, c *Cell, k utilClass, a []Value) (Value, error) {
		return utilRead(c, (*utilData).size) == 0, nil
	})
	method(".contains", 2, 2, notMaps, func(th *thread, c *Cell, k utilClass, a []Value) (Value, error) {
		if k.isSet() {
			return read(c, func(d *utilData) (Value, error) { return d.coll.(*Set).Has(a[1]), nil })
		}
		i, _, err := th.utilFind(c, a[1], false)
		return i >= 0, err
	})
	for _, name := range []string{".indexOf", ".lastIndexOf"} {
		method(name, 2, 2, utilClass.indexed, func(th *thread, c *Cell, k utilClass, a []Value) (Value, error) {
			i, _, err := th.utilFind(c, a[1], name == ".lastIndexOf")
			return int64(i), err
		})
	}
	// The deque and stack methods. A Stack's top is its end (push appends);
	// a LinkedList's and an ArrayDeque's is their front.
	method(".push", 2, 2, lists, func(th *thread, c *Cell, k utilClass, a []Value) (Value, error) {
		if err := th.charge(2); err != nil {
			return nil, err
		}
		return change(th, c, func(d *utilData) (Value, error) {
			if k == utilStack {
				d.pushBack(a[1])
				return a[1], nil
			}
			d.pushFront(a[1])
			return nil, nil
		})
	})
	method(".pop", 1, 1, lists, func(th *thread, c *Cell, k utilClass, a []Value) (Value, error) {
		return change(th, c, func(d *utilData) (Value, error) {
			if k == utilStack {
				if x, ok := d.popBack(); ok {
					return x, nil
				}
				return nil, emptyStack(".pop")
			}
			if x, ok := d.popFront(); ok {
				return x, nil
			}
			return nil, noElement(".pop")
		})
	})
	method(".peek", 1, 1, lists, func(th *thread, c *Cell, k utilClass, a []Value) (Value, error) {
		return read(c, func(d *utilData) (Value, error) {
			if k == utilStack {
				if x, ok := d.last(); ok {
					return x, nil
				}
				return nil, emptyStack(".peek")
			}
			x, _ := d.first()
			return x, nil
		})
	})
	for _, m := range []struct {
		name  string
		front bool
		value Value // what an add returns: nil (void) or true (offer)
	}{{".addFirst", true, nil}, {".offerFirst", true, true}, {".addLast", false, nil}, {".offerLast", false, true}, {".offer", false, true}} {
		method(m.name, 2, 2, lists, func(th *thread, c *Cell, k utilClass, a []Value) (Value, error) {
			if err := th.charge(2); err != nil {
				return nil, err
			}
			return change(th, c, func(d *utilData) (Value, error) {
				if m.front {
					d.pushFront(a[1])
				} else {
					d.pushBack(a[1])
				}
				return m.value, nil
			})
		})
	}
	for _, m := range []struct {
		name   string
		front  bool
		remove bool // take it out
		fail   bool // an empty collection is an error (else nil)
	}{
		{".poll", true, true, false}, {".pollFirst", true, true, false}, {".pollLast", false, true, false},
		{".removeFirst", true, true, true}, {".removeLast", false, true, true},
		{".peekFirst", true, false, false}, {".peekLast", false, false, false},
		{".getFirst", true, false, true}, {".getLast", false, false, true},
	} {
		method(m.name, 1, 1, lists, func(th *thread, c *Cell, k utilClass, a []Value) (Value, error) {
			f := func(d *utilData) (Value, error) {
				var x Value
				var ok bool
				switch {
				case m.remove && m.front:
					x, ok = d.popFront()
				case m.remove:
					x, ok = d.popBack()
				case m.front:
					x, ok = d.first()
				default:
					x, ok = d.last()
				}
				if !ok && m.fail {
					return nil, noElement(m.name)
				}
				return x, nil
			}
			if m.remove {
				return change(th, c, f)
			}
			return read(c, f)
		})
	}
	// The sorted ends: a TreeMap's keys, a TreeSet's elements (any map's or
	// set's here: they iterate in order).
	for _, m := range []struct {
		name  string
		last  bool
		class func(utilClass) bool
	}{{".firstKey", false, maps}, {".lastKey", true, maps}, {".first", false, sets}, {".last", true, sets}} {
		method(m.name, 1, 1, m.class, func(th *thread, c *Cell, k utilClass, a []Value) (Value, error) {
			return read(c, func(d *utilData) (Value, error) {
				var xs []Value
				switch coll := d.coll.(type) {
				case *Map:
					if coll.Len() > 0 {
						xs = []Value{coll.Keys()[0], coll.Keys()[coll.Len()-1]}
					}
				case *Set:
					if coll.Len() > 0 {
						xs = []Value{coll.At(0), coll.At(coll.Len() - 1)}
					}
				}
				if xs == nil {
					return nil, noElement(m.name)
				}
				if m.last {
					return xs[1], nil
				}
				return xs[0], nil
			})
		})
	}
	for _, name := range []string{".removeAll", ".retainAll"} {
		method(name, 2, 2, notMaps, func(th *thread, c *Cell, k utilClass, a []Value) (Value, error) {
			xs, err := th.utilSource(name, a[1])
			if err != nil {
				return nil, err
			}
			if err := th.charge(2 * int64(len(xs))); err != nil {
				return nil, err
			}
			other := NewSet(xs...)
			return change(th, c, func(d *utilData) (Value, error) {
				n := d.size()
				if err := th.ticks(n); err != nil {
					return nil, err
				}
				keep := func(x Value) bool { return other.Has(x) == (name == ".retainAll") }
				if s, ok := d.coll.(*Set); ok {
					out := s
					for x := range s.All() {
						if !keep(x) {
							out = out.Disj(x)
						}
					}
					d.coll = out
					if k.linked() {
						d.keepOrdered()
					}
					return out.Len() != n, nil
				}
				var kept []Value
				for _, x := range d.items() {
					if keep(x) {
						kept = append(kept, x)
					}
				}
				d.front, d.back = nil, kept
				return len(kept) != n, nil
			})
		})
	}
	method(".put", 3, 3, maps, func(th *thread, c *Cell, k utilClass, a []Value) (Value, error) {
		if err := th.charge(3); err != nil {
			return nil, err
		}
		return change(th, c, func(d *utilData) (Value, error) {
			old, _ := d.put(a[1], a[2])
			return old, nil
		})
	})
	method(".putIfAbsent", 3, 3, maps, func(th *thread, c *Cell, k utilClass, a []Value) (Value, error) {
		if err := th.charge(3); err != nil {
			return nil, err
		}
		return change(th, c, func(d *utilData) (Value, error) {
			if old, ok := d.coll.(*Map).getExact(a[1]); ok && old != nil {
				return old, nil
			}
			d.put(a[1], a[2])
			return nil, nil
		})
	})
	method(".putAll", 2, 2, maps, func(th *thread, c *Cell, k utilClass, a []Value) (Value, error) {
		from, err := th.utilMapArg(".putAll", a[1])
		if err != nil {
			return nil, err
		}
		if err := th.charge(3 * int64(from.Len())); err != nil {
			return nil, err
		}
		return change(th, c, func(d *utilData) (Value, error) {
			for key, v := range from.All() {
				d.put(key, v)
			}
			return nil, nil
		})
	})
	// The reads of a map that Clojure's maps answer too: on what the
	// collection holds now.
	for _, m := range []struct {
		name     string
		min, max int
	}{{".getOrDefault", 3, 3}, {".containsKey", 2, 2}, {".containsValue", 2, 2}, {".keySet", 1, 1}, {".values", 1, 1}, {".entrySet", 1, 1}} {
		method(m.name, m.min, m.max, maps, func(th *thread, c *Cell, k utilClass, a []Value) (Value, error) {
			if xs := utilRead(c, (*utilData).ordered); xs != nil && (m.name == ".values" || m.name == ".entrySet" || m.name == ".keySet") {
				// A LinkedHashMap's, in their order.
				if err := th.charge(3 * int64(len(xs))); err != nil {
					return nil, err
				}
				if m.name == ".keySet" {
					// A set that walks in the map's order: a LinkedHashSet
					// of the keys (Java's is a view; this is a copy).
					d := &utilData{class: utilLinkedHashSet, coll: emptySet}
					for _, e := range xs {
						d.add(e.(*Vector).At(0))
					}
					return th.newCell(utilCell, d, nil)
				}
				if m.name == ".values" {
					for i, e := range xs {
						xs[i] = e.(*Vector).At(1)
					}
				}
				return NewVector(xs).asSeqView(), nil
			}
			args := append([]Value{utilValue(c)}, a[1:]...)
			return th.call(t.names[m.name], args) // at call time: the table is whole
		})
	}
	method(".sort", 2, 2, utilClass.indexed, func(th *thread, c *Cell, k utilClass, a []Value) (Value, error) {
		return nil, th.sortUtil(t.names["sort"].(*Builtin), c, ".sort", a[1])
	})
	method(".subList", 3, 3, utilClass.indexed, func(th *thread, c *Cell, k utilClass, a []Value) (Value, error) {
		from, err := intArg(".subList", a, 1) // outside the lock: see index
		if err != nil {
			return nil, err
		}
		to, err := intArg(".subList", a, 2)
		if err != nil {
			return nil, err
		}
		return read(c, func(d *utilData) (Value, error) {
			n := d.size()
			if from < 0 || to > int64(n) || from > to {
				return nil, classError(InvalidArgument, classIndexOutOfBound, "fromIndex %d, toIndex %d, size %d", from, to, n)
			}
			if err := th.charge(to - from); err != nil {
				return nil, err
			}
			return NewVector(d.items()[from:to]), nil
		})
	})
	method(".toArray", 1, 1, notMaps, func(th *thread, c *Cell, k utilClass, a []Value) (Value, error) {
		xs, err := th.utilItems(c, ".toArray")
		if err != nil {
			return nil, err
		}
		return th.newArray("Ljava.lang.Object;", append([]Value(nil), xs...))
	})
	// Clojure's vectors, lists and sets are java.util collections too:
	// (.subList v 1 3) is (subvec v 1 3), .toArray an array of their items.
	t.wrap(".subList", func(old *Builtin) *Builtin {
		b := *old
		b.fn = func(th *thread, a []Value) (Value, error) {
			if v, ok := a[0].(*Vector); ok && !v.IsList() && !v.IsSeqView() {
				from, err := intArg(".subList", a, 1)
				if err != nil {
					return nil, err
				}
				to, err := intArg(".subList", a, 2)
				if err != nil {
					return nil, err
				}
				if from < 0 || to > int64(v.Len()) || from > to {
					return nil, classError(InvalidArgument, classIndexOutOfBound, "fromIndex %d, toIndex %d, size %d", from, to, v.Len())
				}
				return v.Slice(int(from), int(to)), nil
			}
			return old.fn(th, a)
		}
		return &b
	})
	t.wrap(".toArray", func(old *Builtin) *Builtin {
		b := *old
		b.fn = func(th *thread, a []Value) (Value, error) {
			switch a[0].(type) {
			case *Vector, *Set, *Seq:
				xs, err := th.items(a[0], ".toArray")
				if err != nil {
					return nil, err
				}
				return th.newArray("Ljava.lang.Object;", append([]Value(nil), xs...))
			}
			return old.fn(th, a)
		}
		return &b
	})

	// Clojure's reads of a map or a set (and nth of a list) see what a
	// java.util collection holds now.
	for _, w := range []struct {
		name string
		arg  int // the collection's position; -1: every argument
	}{{"contains?", 0}, {"find", 0}, {"select-keys", 0}, {"reduce-kv", 2}, {"merge", -1}, {"nth", 0}, {"keys", 0}, {"vals", 0}} {
		t.wrap(w.name, func(old *Builtin) *Builtin {
			b := *old
			fn := old.fn
			b.fn = func(th *thread, a []Value) (Value, error) {
				if w.arg >= 0 && (len(a) <= w.arg || utilArg(a[w.arg]) == nil) {
					return fn(th, a)
				}
				if w.name == "nth" {
					if v, ok := utilNth(utilArg(a[0]), a); ok {
						return v, nil
					}
				}
				if xs := utilOrderedArg(w.name == "reduce-kv", a, w.arg); xs != nil {
					// A LinkedHashMap's entries in their order.
					acc := a[1]
					if err := th.ticks(len(xs)); err != nil {
						return nil, err
					}
					for _, e := range xs {
						kv := e.(*Vector)
						var err error
						if acc, err = th.call3(a[0], acc, kv.At(0), kv.At(1)); err != nil {
							return nil, err
						}
						if r, ok := acc.(*reduced); ok {
							return r.value, nil
						}
					}
					return acc, nil
				}
				var args []Value
				var err error
				for i, x := range a {
					if c := utilArg(x); c != nil && (w.arg < 0 || i == w.arg) {
						if args == nil {
							args = append([]Value(nil), a...)
						}
						if xs := utilRead(c, (*utilData).ordered); xs != nil && (w.name == "keys" || w.name == "vals") {
							// A linked map's entries, in their order.
							args[i], err = NewVector(xs), th.charge(3*int64(len(xs)))
						} else {
							args[i], err = th.utilHeld(c)
						}
						if err != nil {
							return nil, err
						}
					}
				}
				if args == nil {
					return fn(th, a)
				}
				return fn(th, args)
			}
			return &b
		})
	}

	// java.util.Collections' changes of a list in place.
	t.add("Collections/sort", 1, 2, func(th *thread, a []Value) (Value, error) {
		c := utilArg(a[0])
		if c == nil || !utilRead(c, func(d *utilData) bool { return d.class.indexed() }) {
			return nil, argError("Collections/sort", 0, "a java.util list (ArrayList. ...)", a[0])
		}
		var cmp Value
		if len(a) == 2 {
			cmp = a[1]
		}
		return nil, th.sortUtil(t.names["sort"].(*Builtin), c, "Collections/sort", cmp)
	}, "java.util.Collections/sort")
	t.add("Collections/reverse", 1, 1, func(th *thread, a []Value) (Value, error) {
		c := utilArg(a[0])
		if c == nil || !utilRead(c, func(d *utilData) bool { return d.class.isList() }) {
			return nil, argError("Collections/reverse", 0, "a java.util list (ArrayList. ...)", a[0])
		}
		return nil, th.changeUtil(c, func(d *utilData) error {
			if err := th.ticks(d.size()); err != nil {
				return err
			}
			d.front, d.back = d.back, d.front // reversed front, then back, swap roles
			return nil
		})
	}, "java.util.Collections/reverse")
	listArg := func(fn string, v Value) (*Cell, error) {
		c := utilArg(v)
		if c == nil || !utilRead(c, func(d *utilData) bool { return d.class.indexed() }) {
			return nil, argError(fn, 0, "a java.util list (ArrayList. ...)", v)
		}
		return c, nil
	}
	t.add("Collections/swap", 3, 3, func(th *thread, a []Value) (Value, error) {
		c, err := listArg("Collections/swap", a[0])
		if err != nil {
			return nil, err
		}
		i, err := intArg("Collections/swap", a, 1)
		if err != nil {
			return nil, err
		}
		j, err := intArg("Collections/swap", a, 2)
		if err != nil {
			return nil, err
		}
		return nil, th.changeUtil(c, func(d *utilData) error {
			n := d.size()
			for _, x := range [2]int64{i, j} {
				if _, err := index(x, n); err != nil {
					return err
				}
			}
			x, y := d.at(int(i)), d.at(int(j))
			d.setAt(int(i), y)
			d.setAt(int(j), x)
			return nil
		})
	}, "java.util.Collections/swap")
	t.add("Collections/fill", 2, 2, func(th *thread, a []Value) (Value, error) {
		c, err := listArg("Collections/fill", a[0])
		if err != nil {
			return nil, err
		}
		return nil, th.changeUtil(c, func(d *utilData) error {
			if err := th.ticks(d.size()); err != nil {
				return err
			}
			for i := range d.front {
				d.front[i] = a[1]
			}
			for i := range d.back {
				d.back[i] = a[1]
			}
			return nil
		})
	}, "java.util.Collections/fill")
	t.add("Collections/rotate", 2, 2, func(th *thread, a []Value) (Value, error) {
		c, err := listArg("Collections/rotate", a[0])
		if err != nil {
			return nil, err
		}
		dist, err := intArg("Collections/rotate", a, 1)
		if err != nil {
			return nil, err
		}
		return nil, th.changeUtil(c, func(d *utilData) error {
			n := d.size()
			if err := th.ticks(n); err != nil {
				return err
			}
			if n == 0 {
				return nil
			}
			// The element at i moves to (i + distance) mod size.
			xs := d.items()
			shift := int(((dist % int64(n)) + int64(n)) % int64(n))
			d.front, d.back = nil, append(append(make([]Value, 0, n), xs[n-shift:]...), xs[:n-shift]...)
			return nil
		})
	}, "java.util.Collections/rotate")
	t.add("Collections/addAll", 2, -1, func(th *thread, a []Value) (Value, error) {
		c := utilArg(a[0])
		if c == nil || utilRead(c, func(d *utilData) bool { return d.class.isMap() }) {
			return nil, argError("Collections/addAll", 0, "a java.util list or set (ArrayList., HashSet. ...)", a[0])
		}
		// Java's takes the elements as varargs: an array in Clojure,
		// (to-array [1 2]); the elements written one by one are taken too.
		xs := a[1:]
		if len(a) == 2 {
			if arr, ok := a[1].(*Cell); ok && arr.kind == arrayCell {
				var err error
				if xs, err = th.items(arr, "Collections/addAll"); err != nil {
					return nil, err
				}
			}
		}
		return th.call(t.names[".addAll"].(*Builtin), []Value{a[0], NewVector(xs)})
	}, "java.util.Collections/addAll")
	t.add("Collections/disjoint", 2, 2, func(th *thread, a []Value) (Value, error) {
		var sides [2][]Value
		for i := range sides {
			xs, err := th.utilSource("Collections/disjoint", a[i])
			if err != nil {
				return nil, err
			}
			sides[i] = xs
		}
		if err := th.charge(int64(len(sides[0]) + len(sides[1]))); err != nil {
			return nil, err
		}
		seen := NewSet(sides[0]...)
		for _, x := range sides[1] {
			if seen.Has(x) {
				return false, nil
			}
		}
		return true, nil
	}, "java.util.Collections/disjoint")
	registerNavigation(t, method, read, change)
	registerFunctional(t, method, change)
	registerPriorityQueue(t, method)
}

// sortUtil sorts a list in place by cmp (nil: the natural order), as
// List.sort and Collections/sort do.
func (th *thread) sortUtil(sort *Builtin, c *Cell, fn string, cmp Value) error {
	items, err := th.utilItems(c, fn)
	if err != nil {
		return err
	}
	args := []Value{NewVector(items)}
	if cmp != nil {
		args = []Value{cmp, args[0]}
	}
	sorted, err := th.call(sort, args)
	if err != nil {
		return err
	}
	xs, err := th.items(sorted, fn)
	if err != nil {
		return err
	}
	return th.changeUtil(c, func(d *utilData) error {
		d.front, d.back = nil, append([]Value(nil), xs...)
		return nil
	})
}

func minArgs(a, b int) int {
	if a < b {
		return a
	}
	return b
}

// utilHeld is what c holds now, a list's elements copied and charged.
func (th *thread) utilHeld(c *Cell) (Value, error) {
	v := utilValue(c)
	if vec, ok := v.(*Vector); ok {
		return v, th.charge(int64(vec.Len()))
	}
	return v, nil
}

// utilNth is nth of a list with an index in range, read in place; ok is
// false for anything else (nth of the collection's copy answers it).
func utilNth(c *Cell, a []Value) (v Value, ok bool) {
	i, isInt := a[1].(int64)
	if !isInt || i < 0 {
		return nil, false
	}
	d := c.load().val.(*utilData)
	d.Lock()
	defer d.Unlock()
	if !d.class.isList() || i >= int64(d.size()) {
		return nil, false
	}
	return d.at(int(i)), true
}

// utilPrinted is what a collection prints as: what it holds, or for a
// linked one (whose order no map or set keeps) its entries or elements in
// order, as the form to print in braces: ok is false for the others.
func utilOrdered(c *Cell) (xs []Value, isMap, ok bool) {
	d := c.load().val.(*utilData)
	d.Lock()
	defer d.Unlock()
	if d.order == nil {
		return nil, false, false
	}
	_, isMap = d.coll.(*Map)
	out := make([]Value, 0, 2*len(d.order))
	for _, k := range d.order {
		out = append(out, k)
		if isMap {
			v, _ := d.coll.(*Map).getExact(k)
			out = append(out, v)
		}
	}
	return out, isMap, true
}

// utilOrderedArg is the entries of argument i in their order when want
// and it is a linked collection; nil otherwise.
func utilOrderedArg(want bool, a []Value, i int) []Value {
	if !want || i < 0 || i >= len(a) {
		return nil
	}
	if c := utilArg(a[i]); c != nil {
		return utilRead(c, (*utilData).ordered)
	}
	return nil
}

// errRemoveByElement tells .remove that its argument is an element of a
// list, to look for outside the list's lock.
var errRemoveByElement = errors.New("remove by element")
