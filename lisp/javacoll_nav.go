package lisp

import "slices"

// The navigation methods of TreeMap and TreeSet (NavigableMap and
// NavigableSet), as models write them for intervals and schedules:
// .floorKey, .ceilingKey, .higherKey, .lowerKey and their entries, the
// first and last entries, .pollFirstEntry and .pollLastEntry, .headMap,
// .tailMap and .subMap; for a set .floor, .ceiling, .higher, .lower,
// .pollFirst, .pollLast, .headSet, .tailSet and .subSet; the descending
// views. A java.util map or set is in the canonical order (deviation 98),
// which for keys of one kind (numbers, strings) is Java's natural order,
// so every one of them has these methods. A head, tail or sub map or set
// is a new TreeMap or TreeSet (Java's is a view), a descending one a
// LinkedHashMap or LinkedHashSet in the reverse order.

// utilMethod is the signature of registerUtil's method helper.
type utilMethod = func(name string, min, max int, ok func(utilClass) bool, f func(th *thread, c *Cell, k utilClass, a []Value) (Value, error))

// navKeys is a sorted map's or set's keys as an indexed sequence.
type navKeys struct {
	n   int
	key func(i int) Value
}

func navOf(coll Value) navKeys {
	switch c := coll.(type) {
	case *Map:
		return navKeys{c.Len(), func(i int) Value { k, _ := c.EntryAt(i); return k }}
	case *Set:
		return navKeys{c.Len(), c.At}
	}
	return navKeys{}
}

// search is the first index whose key is >= x (or > x when strict), in
// the order cmp gives.
func (nk navKeys) search(x Value, strict bool, cmp func(a, b Value) int) int {
	lo, hi := 0, nk.n
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		c := cmp(nk.key(mid), x)
		if c < 0 || strict && c == 0 {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}

// navIndex is the index a navigation method names for x, or -1, in the
// order cmp gives (compareKeys: the canonical order of every map and set).
func (nk navKeys) navIndex(how string, x Value, cmp func(a, b Value) int) int {
	i := -1
	switch how {
	case "ceiling":
		i = nk.search(x, false, cmp)
	case "higher":
		i = nk.search(x, true, cmp)
	case "floor":
		i = nk.search(x, true, cmp) - 1
	case "lower":
		i = nk.search(x, false, cmp) - 1
	}
	if i < 0 || i >= nk.n {
		return -1
	}
	return i
}

func registerNavigation(t *builtinTable, method utilMethod, read func(c *Cell, f func(d *utilData) (Value, error)) (Value, error),
	change func(th *thread, c *Cell, f func(d *utilData) (Value, error)) (Value, error)) {
	maps, sets := utilClass.isMap, utilClass.isSet
	for _, how := range []string{"floor", "ceiling", "higher", "lower"} {
		// x outside the lock: comparing reads no collection's lock, but
		// keys and entries are read under it.
		method("."+how+"Key", 2, 2, maps, func(th *thread, c *Cell, _ utilClass, a []Value) (Value, error) {
			return read(c, func(d *utilData) (Value, error) {
				nk := navOf(d.coll)
				if i := nk.navIndex(how, a[1], compareKeys); i >= 0 {
					return nk.key(i), nil
				}
				return nil, nil
			})
		})
		method("."+how+"Entry", 2, 2, maps, func(th *thread, c *Cell, _ utilClass, a []Value) (Value, error) {
			return read(c, func(d *utilData) (Value, error) {
				m := d.coll.(*Map)
				if i := navOf(m).navIndex(how, a[1], compareKeys); i >= 0 {
					return newEntry(m.EntryAt(i)), nil
				}
				return nil, nil
			})
		})
		method("."+how, 2, 2, sets, func(th *thread, c *Cell, _ utilClass, a []Value) (Value, error) {
			return read(c, func(d *utilData) (Value, error) {
				nk := navOf(d.coll)
				if i := nk.navIndex(how, a[1], compareKeys); i >= 0 {
					return nk.key(i), nil
				}
				return nil, nil
			})
		})
	}
	for _, end := range []struct {
		name string
		last bool
		poll bool
	}{{".firstEntry", false, false}, {".lastEntry", true, false}, {".pollFirstEntry", false, true}, {".pollLastEntry", true, true}} {
		method(end.name, 1, 1, maps, func(th *thread, c *Cell, _ utilClass, a []Value) (Value, error) {
			f := func(d *utilData) (Value, error) {
				m := d.coll.(*Map)
				if m.Len() == 0 {
					return nil, nil
				}
				i := 0
				if end.last {
					i = m.Len() - 1
				}
				k, v := m.EntryAt(i)
				if end.poll {
					d.remove(k)
				}
				return newEntry(k, v), nil
			}
			if end.poll {
				return change(th, c, f)
			}
			return read(c, f)
		})
	}
	for _, end := range []struct {
		name string
		last bool
	}{{".pollFirst", false}, {".pollLast", true}} {
		// A deque's .pollFirst and .pollLast stay what they were (method
		// chains to them).
		method(end.name, 1, 1, sets, func(th *thread, c *Cell, _ utilClass, a []Value) (Value, error) {
			return change(th, c, func(d *utilData) (Value, error) {
				s := d.coll.(*Set)
				if s.Len() == 0 {
					return nil, nil
				}
				x := s.At(0)
				if end.last {
					x = s.At(s.Len() - 1)
				}
				d.remove(x)
				return x, nil
			})
		})
	}
	// Ranges: (.headMap m to) keys < to, (.headMap m to true) <= to;
	// (.tailMap m from) keys >= from, (.tailMap m from false) > from;
	// (.subMap m from to) from <= k < to, (.subMap m from fi to ti).
	rangeOf := func(fn string, a []Value) (lo, hi Value, loSet, hiSet, loIn, hiIn bool, err error) {
		flag := func(i int) (bool, error) {
			b, ok := a[i].(bool)
			if !ok {
				return false, argError(fn, i, "a boolean (inclusive)", a[i])
			}
			return b, nil
		}
		switch {
		case fn == ".headMap" || fn == ".headSet":
			hi, hiSet = a[1], true
			if len(a) == 3 {
				hiIn, err = flag(2)
			}
		case fn == ".tailMap" || fn == ".tailSet":
			lo, loSet, loIn = a[1], true, true
			if len(a) == 3 {
				loIn, err = flag(2)
			}
		default: // subMap, subSet
			if len(a) == 3 {
				lo, hi, loSet, hiSet, loIn = a[1], a[2], true, true, true
			} else if len(a) == 5 {
				lo, hi, loSet, hiSet = a[1], a[3], true, true
				if loIn, err = flag(2); err == nil {
					hiIn, err = flag(4)
				}
			} else {
				err = errorf(ArityError, "%s takes (from to) or (from inclusive to inclusive)", fn)
			}
		}
		return
	}
	for _, r := range []struct {
		name  string
		isMap bool
		max   int
	}{{".headMap", true, 3}, {".tailMap", true, 3}, {".subMap", true, 5}, {".headSet", false, 3}, {".tailSet", false, 3}, {".subSet", false, 5}} {
		class := sets
		if r.isMap {
			class = maps
		}
		method(r.name, 2, r.max, class, func(th *thread, c *Cell, _ utilClass, a []Value) (Value, error) {
			lo, hi, loSet, hiSet, loIn, hiIn, err := rangeOf(r.name, a)
			if err != nil {
				return nil, err
			}
			if loSet && hiSet && compareKeys(lo, hi) > 0 {
				return nil, classError(InvalidArgument, classIllegalArgument, "%s: fromKey > toKey", r.name)
			}
			part, err := read(c, func(d *utilData) (Value, error) {
				nk := navOf(d.coll)
				from, to := 0, nk.n
				if loSet {
					from = nk.search(lo, !loIn, compareKeys)
				}
				if hiSet {
					to = nk.search(hi, hiIn, compareKeys)
				}
				if from > to {
					to = from
				}
				if err := th.ticks(to - from); err != nil {
					return nil, err
				}
				switch coll := d.coll.(type) {
				case *Map:
					b := NewMapBuilder(nil)
					for i := from; i < to; i++ {
						b.Set(coll.EntryAt(i))
					}
					return b.Map(), nil
				case *Set:
					xs := make([]Value, 0, to-from)
					for i := from; i < to; i++ {
						xs = append(xs, coll.At(i))
					}
					return NewSet(xs...), nil
				}
				return nil, nil
			})
			if err != nil {
				return nil, err
			}
			k := utilTreeSet
			if r.isMap {
				k = utilTreeMap
			}
			return th.newUtil(k, r.name, part)
		})
	}
	for _, r := range []struct {
		name  string
		isMap bool
	}{{".descendingMap", true}, {".descendingSet", false}, {".descendingKeySet", true}} {
		class := sets
		if r.isMap {
			class = maps
		}
		method(r.name, 1, 1, class, func(th *thread, c *Cell, _ utilClass, a []Value) (Value, error) {
			items, err := th.utilItems(c, r.name)
			if err != nil {
				return nil, err
			}
			items = slices.Clone(items)
			slices.Reverse(items)
			d := &utilData{class: utilLinkedHashSet, coll: emptySet}
			switch {
			case r.name == ".descendingMap":
				d.class, d.coll = utilLinkedHashMap, emptyMap
				for _, e := range items {
					kv := e.(*Vector)
					d.put(kv.At(0), kv.At(1))
				}
			case r.name == ".descendingKeySet":
				for _, e := range items {
					d.add(e.(*Vector).At(0))
				}
			default:
				for _, x := range items {
					d.add(x)
				}
			}
			if err := th.charge(3 * int64(len(items))); err != nil {
				return nil, err
			}
			return th.newCell(utilCell, d, nil)
		})
	}
}
