package lisp

import (
	"errors"
	"runtime"
	"strings"

	"github.com/ptc-go/ptc/lisp/internal/ordmap"
)

// TreeMap and TreeSet made with a comparator, (java.util.TreeMap. >) or
// (java.util.TreeSet. (comparator f)): what they hold is a sorted-map-by
// map or a sorted-set-by set (sorted_by.go), so seq, printing, first,
// keys and every Clojure function see them in the comparator's order, and
// keys the comparator calls equal are one key, as in Java.
//
// The comparator is the program's function, and may do anything, this
// collection included: it is never called under the collection's lock.
// A method reads the persistent map or set under the lock, works on it
// outside (calling the comparator), and installs its result under the
// lock if nobody changed the collection meanwhile, else starts again (a
// comparator that changes the collection it orders is a
// ConcurrentModificationException), as the PriorityQueue does
// (javacoll_pq.go). The methods written here are the ones a comparator
// changes; the others that only read what the collection holds (size,
// isEmpty, forEach, toArray ...) are the ordinary ones, and the rest (a
// head or tail view, merge, compute ...) say they are not supported with
// a comparator, rather than answer in another order.

// errTreeChanged: the collection changed while a method compared outside
// its lock.
var errTreeChanged = errors.New("the TreeMap or TreeSet changed while its comparator ran")

// treeRetries bounds how often a change starts again because the tree
// changed while its comparator ran. Each new start means another change
// landed, so the branches as a whole progress; but one comparator call is
// slow (it runs the program's fn), and sixteen branches putting into one
// map can make a put lose many races in a row on a busy machine. A
// comparator that changes its own map fails every time, after these many
// tries (a few hundred comparator calls), with a clear error.
const treeRetries = 1024

// treeByReads are the methods that read a comparator tree as any map or
// set: they call no comparator.
var treeByReads = map[string]bool{
	".size": true, ".isEmpty": true, ".forEach": true, ".toArray": true, ".containsValue": true, ".empty": true,
}

// newTreeBy is a TreeMap or TreeSet ordered by the comparator f.
func newTreeBy(k utilClass, f Value) *utilData {
	d := &utilData{class: k, cmp: f}
	if k == utilTreeMap {
		d.coll = sortedMap(ordmap.Tree[Value, Value]{}, newSortedBy(f))
	} else {
		d.coll = &Set{by: newSortedBy(f)}
	}
	return d
}

// treeBy reports whether c is a TreeMap or TreeSet with a comparator.
func treeBy(c *Cell) bool {
	return utilRead(c, func(d *utilData) bool { return d.cmp != nil && (d.class == utilTreeMap || d.class == utilTreeSet) })
}

// treeSnapshot is what a comparator tree holds now, and its change count.
func treeSnapshot(c *Cell) (Value, uint64) {
	var coll Value
	var mods uint64
	utilRead(c, func(d *utilData) bool {
		coll, mods = d.coll, d.mods
		return true
	})
	return coll, mods
}

// treeUpdate runs f on what the tree holds, outside its lock, and installs
// the collection f returns (when it is another one) if the tree has not
// changed since; f's second result is the method's value.
func (th *thread) treeUpdate(name string, c *Cell, f func(coll Value) (Value, Value, error)) (Value, error) {
	for range treeRetries {
		coll, mods := treeSnapshot(c)
		next, out, err := f(coll)
		if err != nil || next == coll {
			return out, err
		}
		err = th.mutate(c, func(cd cellData) error {
			d := cd.(*utilData)
			if d.mods != mods {
				return errTreeChanged
			}
			d.mods++
			d.coll = next
			return nil
		})
		if err != errTreeChanged {
			return out, err
		}
		if err := th.tick(); err != nil {
			return nil, err
		}
		runtime.Gosched() // let the branch that changed the tree go on
	}
	return nil, classError(InvalidArgument, classConcurrentModification, "%s: %s", name, errTreeChanged)
}

// treeLookup finds the stored key the comparator calls equal to k, and
// its value in a map.
func (th *thread) treeLookup(coll, k Value) (key, val Value, found bool, err error) {
	key, found, err = th.sortedKey(coll, k)
	if err != nil || !found {
		return nil, nil, false, err
	}
	if m, ok := coll.(*Map); ok {
		val, _ = m.getExact(key)
	}
	return key, val, true, nil
}

// treeOrder is the tree's keys in the comparator's order, by index.
func treeOrder(coll Value) navKeys {
	switch c := coll.(type) {
	case *Map:
		by := c.sorted()
		return navKeys{by.ord.Len(), func(i int) Value { k, _ := by.ord.At(i); return k }}
	case *Set:
		by := c.sorted()
		return navKeys{by.set.Len(), func(i int) Value { k, _ := by.set.At(i); return k }}
	}
	return navKeys{}
}

// treeNav is the index of floor, ceiling, higher or lower of x in the
// comparator's order, or -1.
func (th *thread) treeNav(coll Value, how string, x Value) (int, error) {
	nk := treeOrder(coll)
	by := sortedOf(coll)
	return guarded(func() (int, error) {
		return nk.navIndex(how, x, th.comparatorFn(by.fn)), nil
	})
}

func sortedOf(coll Value) *sortedBy {
	switch c := coll.(type) {
	case *Map:
		return c.sorted()
	case *Set:
		return c.sorted()
	}
	return nil
}

// treeEntry is the [key value] entry of key in a map, or the element.
func treeEntry(coll, key Value) Value {
	if m, ok := coll.(*Map); ok {
		v, _ := m.getExact(key)
		return newEntry(key, v)
	}
	return key
}

// treeByMethod is method name of a comparator tree; plain is the method
// every map or set has, for the reads that call no comparator.
func (th *thread) treeByMethod(name string, c *Cell, k utilClass, a []Value, plain func() (Value, error)) (Value, error) {
	if treeByReads[name] {
		return plain()
	}
	isMap := k == utilTreeMap
	noElement := func() error {
		return classError(InvalidArgument, classNoSuchElement, "%s of an empty collection (NoSuchElementException)", name)
	}
	switch name {
	case ".put", ".putIfAbsent":
		return th.treeUpdate(name, c, func(coll Value) (Value, Value, error) {
			_, old, had, err := th.treeLookup(coll, a[1])
			if err != nil || had && name == ".putIfAbsent" && old != nil {
				return coll, old, err
			}
			m, err := th.sortedAssoc(coll.(*Map), a[1], a[2])
			return m, old, err
		})
	case ".putAll":
		src, err := th.utilMapArg(name, a[1])
		if err != nil {
			return nil, err
		}
		return th.treeUpdate(name, c, func(coll Value) (Value, Value, error) {
			m := coll.(*Map)
			for key, v := range src.All() {
				if m, err = th.sortedAssoc(m, key, v); err != nil {
					return nil, nil, err
				}
			}
			return m, nil, nil
		})
	case ".add":
		if len(a) != 2 {
			return nil, errorf(ArityError, ".add of a TreeSet takes one element")
		}
		return th.treeUpdate(name, c, func(coll Value) (Value, Value, error) {
			s, err := th.sortedConj(coll.(*Set), a[1])
			return s, s != coll, err
		})
	case ".addAll":
		xs, err := th.utilSource(name, a[1])
		if err != nil {
			return nil, err
		}
		return th.treeUpdate(name, c, func(coll Value) (Value, Value, error) {
			s := coll.(*Set)
			for _, x := range xs {
				if s, err = th.sortedConj(s, x); err != nil {
					return nil, nil, err
				}
			}
			return s, s != coll, nil
		})
	case ".remove":
		if len(a) != 2 {
			return nil, errorf(ArityError, "%s of a %s takes one key", name, utilClassInfo[k].name)
		}
		return th.treeUpdate(name, c, func(coll Value) (Value, Value, error) {
			_, old, had, err := th.treeLookup(coll, a[1])
			if err != nil || !had {
				if isMap {
					return coll, nil, err
				}
				return coll, false, err
			}
			if isMap {
				m, err := th.sortedDissoc(coll.(*Map), a[1])
				return m, old, err
			}
			s, err := th.sortedDisj(coll.(*Set), a[1])
			return s, true, err
		})
	case ".clear":
		return th.treeUpdate(name, c, func(coll Value) (Value, Value, error) {
			return emptySorted(coll), nil, nil
		})
	case ".get", ".containsKey", ".contains", ".getOrDefault":
		coll, _ := treeSnapshot(c)
		_, v, had, err := th.treeLookup(coll, a[1])
		switch {
		case err != nil:
			return nil, err
		case name == ".containsKey" || name == ".contains":
			return had, nil
		case name == ".getOrDefault" && !had:
			return a[2], nil
		}
		return v, nil
	case ".firstKey", ".lastKey", ".first", ".last", ".firstEntry", ".lastEntry":
		coll, _ := treeSnapshot(c)
		nk := treeOrder(coll)
		if nk.n == 0 {
			if name == ".firstEntry" || name == ".lastEntry" {
				return nil, nil
			}
			return nil, noElement()
		}
		i := 0
		if name == ".lastKey" || name == ".last" || name == ".lastEntry" {
			i = nk.n - 1
		}
		if name == ".firstEntry" || name == ".lastEntry" {
			return treeEntry(coll, nk.key(i)), nil
		}
		return nk.key(i), nil
	case ".pollFirstEntry", ".pollLastEntry", ".pollFirst", ".pollLast":
		return th.treeUpdate(name, c, func(coll Value) (Value, Value, error) {
			nk := treeOrder(coll)
			if nk.n == 0 {
				return coll, nil, nil
			}
			i := 0
			if name == ".pollLastEntry" || name == ".pollLast" {
				i = nk.n - 1
			}
			key := nk.key(i)
			if isMap {
				m, err := th.sortedDissoc(coll.(*Map), key)
				return m, treeEntry(coll, key), err
			}
			s, err := th.sortedDisj(coll.(*Set), key)
			return s, key, err
		})
	case ".floorKey", ".ceilingKey", ".higherKey", ".lowerKey", ".floor", ".ceiling", ".higher", ".lower",
		".floorEntry", ".ceilingEntry", ".higherEntry", ".lowerEntry":
		how := strings.TrimSuffix(name[1:], "Key")
		entry := strings.HasSuffix(how, "Entry")
		how = strings.TrimSuffix(how, "Entry")
		coll, _ := treeSnapshot(c)
		i, err := th.treeNav(coll, how, a[1])
		if err != nil || i < 0 {
			return nil, err
		}
		key := treeOrder(coll).key(i)
		if entry {
			return treeEntry(coll, key), nil
		}
		return key, nil
	case ".keySet", ".values", ".entrySet", ".descendingKeySet", ".descendingSet", ".descendingMap":
		coll, _ := treeSnapshot(c)
		nk := treeOrder(coll)
		if err := th.charge(3 * int64(nk.n)); err != nil {
			return nil, err
		}
		xs := make([]Value, nk.n)
		for i := range xs {
			j := i
			if strings.HasPrefix(name, ".descending") {
				j = nk.n - 1 - i
			}
			switch key := nk.key(j); name {
			case ".values":
				xs[i] = treeEntry(coll, key).(*Vector).At(1)
			case ".entrySet", ".descendingMap":
				xs[i] = treeEntry(coll, key)
			default:
				xs[i] = key
			}
		}
		switch name {
		case ".values", ".entrySet":
			return NewVector(xs).asSeqView(), nil
		case ".descendingMap":
			d := &utilData{class: utilLinkedHashMap, coll: emptyMap}
			for _, e := range xs {
				d.put(e.(*Vector).At(0), e.(*Vector).At(1))
			}
			return th.newCell(utilCell, d, nil)
		}
		// A set that walks in the tree's order: a LinkedHashSet of the
		// keys (Java's is a view; this is a copy).
		d := &utilData{class: utilLinkedHashSet, coll: emptySet}
		for _, x := range xs {
			d.add(x)
		}
		return th.newCell(utilCell, d, nil)
	}
	return nil, errorf(InvalidArgument, "%s of a %s made with a comparator is not supported: use the map or set functions (sorted-map-by, subseq, assoc, dissoc) on it", name, utilClassInfo[k].name)
}
