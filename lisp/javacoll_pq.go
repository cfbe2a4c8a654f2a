package lisp

import "errors"

// java.util.PriorityQueue, as models write it for Dijkstra and top-k:
// (PriorityQueue.), (PriorityQueue. comparator), (PriorityQueue. n
// comparator), (PriorityQueue. coll); .add/.offer, .poll, .peek,
// .remove, .element, and the methods every java.util collection has. Its
// elements are a binary heap kept as Java keeps it (the same sift up and
// down, heapify for a collection), so seq, vec and printing show them in
// Java's iteration order, and polling gives Java's order among equals.
//
// A comparator is a program's function, and a function may do anything,
// this queue included: it is never called under the queue's lock. An
// insertion or a removal reads the elements it compares one at a time and
// makes its change once it knows where everything goes, provided the
// queue has not changed meanwhile (else it starts again, and a
// comparator that changes the queue it orders is a
// ConcurrentModificationException). The natural order, compare, calls
// nothing and runs under the lock.

// heapify orders h as Java's PriorityQueue(Collection) does.
func heapify(h []Value, cmp func(a, b Value) int) {
	for i := len(h)/2 - 1; i >= 0; i-- {
		siftDownIn(h, i, h[i], cmp)
	}
}

// siftDownIn puts x at k or below, as PriorityQueue.siftDown.
func siftDownIn(h []Value, k int, x Value, cmp func(a, b Value) int) {
	n := len(h)
	for half := n / 2; k < half; {
		child := 2*k + 1
		c := h[child]
		if right := child + 1; right < n && cmp(c, h[right]) > 0 {
			child, c = right, h[right]
		}
		if cmp(x, c) <= 0 {
			break
		}
		h[k], k = c, child
	}
	h[k] = x
}

// siftUpIn puts x at k or above, as PriorityQueue.siftUp.
func siftUpIn(h []Value, k int, x Value, cmp func(a, b Value) int) {
	for k > 0 {
		p := (k - 1) / 2
		e := h[p]
		if cmp(x, e) >= 0 {
			break
		}
		h[k], k = e, p
	}
	h[k] = x
}

// errQueueChanged is the ConcurrentModificationException of a comparator
// that changes the queue it orders.
func errQueueChanged(fn string) error {
	return classError(InvalidArgument, classConcurrentModification, "%s: the PriorityQueue changed while its comparator ran", fn)
}

// pqLookups bounds how often an operation starts again because the queue
// changed while it compared.
const pqLookups = 16

// pqState is the heap's size and change count, and its comparator.
func pqState(c *Cell) (n int, mods uint64, cmp Value) {
	utilRead(c, func(d *utilData) bool {
		n, mods, cmp = len(d.back), d.mods, d.cmp
		return true
	})
	return
}

// pqElem reads element i if the heap is still at change count mods.
func pqElem(c *Cell, i int, mods uint64) (Value, bool) {
	var x Value
	ok := utilRead(c, func(d *utilData) bool {
		if d.mods != mods || i >= len(d.back) {
			return false
		}
		x = d.back[i]
		return true
	})
	return x, ok
}

// pqCompare is the queue's order: its comparator, or compare.
func (th *thread) pqCompare(cmp Value) func(a, b Value) int {
	if cmp == nil {
		return Compare
	}
	return th.comparatorFn(cmp)
}

// pqOffer adds x.
func (th *thread) pqOffer(fn string, c *Cell, x Value) error {
	if err := th.charge(2); err != nil {
		return err
	}
	for range pqLookups {
		n, mods, cmpFn := pqState(c)
		if err := th.ticks(1 + bitsLen(n)); err != nil {
			return err
		}
		if cmpFn == nil {
			return th.changeUtil(c, func(d *utilData) error {
				d.back = append(d.back, nil)
				siftUpIn(d.back, len(d.back)-1, x, Compare)
				return nil
			})
		}
		// Where x goes: the parents it passes, compared outside the lock.
		cmp := th.pqCompare(cmpFn)
		var path []int
		moved := false
		_, err := guarded(func() (Value, error) {
			for k := n; k > 0; {
				p := (k - 1) / 2
				e, same := pqElem(c, p, mods)
				if !same {
					moved = true
					return nil, nil
				}
				if cmp(x, e) >= 0 {
					break
				}
				path = append(path, p)
				k = p
			}
			return nil, nil
		})
		if err != nil {
			return err
		}
		if moved {
			continue
		}
		err = th.changeUtil(c, func(d *utilData) error {
			if d.mods != mods+1 || len(d.back) != n {
				return errListMoved
			}
			d.back = append(d.back, nil)
			k := n
			for _, p := range path {
				d.back[k], k = d.back[p], p
			}
			d.back[k] = x
			return nil
		})
		if !errors.Is(err, errListMoved) {
			return err
		}
	}
	return errQueueChanged(fn)
}

// pqPoll takes the head out: nil (and false) when the queue is empty.
func (th *thread) pqPoll(fn string, c *Cell) (Value, bool, error) {
	for range pqLookups {
		n, mods, cmpFn := pqState(c)
		if n == 0 {
			return nil, false, nil
		}
		if err := th.ticks(1 + 2*bitsLen(n)); err != nil {
			return nil, false, err
		}
		var head Value
		if cmpFn == nil {
			err := th.changeUtil(c, func(d *utilData) error {
				m := len(d.back) - 1
				if m < 0 {
					return errListMoved
				}
				head = d.back[0]
				x := d.back[m]
				d.back[m] = nil
				d.back = d.back[:m]
				if m > 0 {
					siftDownIn(d.back, 0, x, Compare)
				}
				return nil
			})
			if errors.Is(err, errListMoved) {
				return nil, false, nil
			}
			return head, err == nil, err
		}
		// The children the last element passes on its way down from the
		// top, compared outside the lock.
		cmp := th.pqCompare(cmpFn)
		m := n - 1
		x, same := pqElem(c, m, mods)
		if !same {
			continue
		}
		var path []int
		moved := false
		_, err := guarded(func() (Value, error) {
			for k, half := 0, m/2; k < half; {
				child := 2*k + 1
				ch, ok1 := pqElem(c, child, mods)
				right := child + 1
				if right < m {
					r, ok2 := pqElem(c, right, mods)
					if !ok1 || !ok2 {
						moved = true
						return nil, nil
					}
					if cmp(ch, r) > 0 {
						child, ch = right, r
					}
				} else if !ok1 {
					moved = true
					return nil, nil
				}
				if cmp(x, ch) <= 0 {
					break
				}
				path = append(path, child)
				k = child
			}
			return nil, nil
		})
		if err != nil {
			return nil, false, err
		}
		if moved {
			continue
		}
		err = th.changeUtil(c, func(d *utilData) error {
			if d.mods != mods+1 || len(d.back) != n {
				return errListMoved
			}
			head = d.back[0]
			d.back[m] = nil
			d.back = d.back[:m]
			if m > 0 {
				k := 0
				for _, ch := range path {
					d.back[k], k = d.back[ch], ch
				}
				d.back[k] = x
			}
			return nil
		})
		if !errors.Is(err, errListMoved) {
			return head, err == nil, err
		}
	}
	return nil, false, errQueueChanged(fn)
}

// pqRemove takes out the first element equal to x: whether there was one.
// Rare, it works on a copy of the heap and puts the copy back.
func (th *thread) pqRemove(fn string, c *Cell, x Value) (bool, error) {
	for range pqLookups {
		i, mods, err := th.utilFind(c, x, false)
		if err != nil || i < 0 {
			return false, err
		}
		var heap []Value
		var cmpFn Value
		utilRead(c, func(d *utilData) bool {
			heap, cmpFn = append([]Value(nil), d.back...), d.cmp
			return true
		})
		if err := th.charge(int64(len(heap))); err != nil {
			return false, err
		}
		if i >= len(heap) {
			continue
		}
		cmp := th.pqCompare(cmpFn)
		_, err = guarded(func() (Value, error) {
			s := len(heap) - 1
			if s != i {
				moved := heap[s]
				heap = heap[:s]
				siftDownIn(heap, i, moved, cmp)
				if heap[i] == moved {
					siftUpIn(heap, i, moved, cmp)
				}
			} else {
				heap = heap[:s]
			}
			return nil, nil
		})
		if err != nil {
			return false, err
		}
		err = th.changeUtil(c, func(d *utilData) error {
			if d.mods != mods+1 {
				return errListMoved
			}
			d.back = heap
			return nil
		})
		if !errors.Is(err, errListMoved) {
			return err == nil, err
		}
	}
	return false, errQueueChanged(fn)
}

func bitsLen(n int) int {
	b := 0
	for ; n > 0; n >>= 1 {
		b++
	}
	return b
}

func registerPriorityQueue(t *builtinTable, method utilMethod) {
	t.add("PriorityQueue.", 0, 2, func(th *thread, a []Value) (Value, error) {
		// (PriorityQueue.), (PriorityQueue. capacity), (PriorityQueue.
		// comparator), (PriorityQueue. capacity comparator),
		// (PriorityQueue. coll): a collection's elements, heapified.
		d := &utilData{class: utilPriorityQueue}
		var from Value
		switch len(a) {
		case 1:
			switch x := a[0].(type) {
			case int64:
				if x < 1 {
					return nil, classError(InvalidArgument, classIllegalArgument, "PriorityQueue.: initial capacity %d is below 1", x)
				}
			case nil:
				return nil, classError(TypeError, classNullPointer, "PriorityQueue. of nil")
			case *Closure, *Builtin, *Var:
				d.cmp = x
			default:
				from = x
			}
		case 2:
			if n, err := intArg("PriorityQueue.", a, 0); err != nil {
				return nil, err
			} else if n < 1 {
				return nil, classError(InvalidArgument, classIllegalArgument, "PriorityQueue.: initial capacity %d is below 1", n)
			}
			if a[1] != nil {
				if !isCallable(a[1]) {
					return nil, argError("PriorityQueue.", 1, "a comparator function", a[1])
				}
				d.cmp = a[1]
			}
		}
		if from != nil {
			if c := utilArg(from); c != nil && utilRead(c, func(d *utilData) bool { return d.class.isQueue() }) {
				// Another PriorityQueue: its elements and its order.
				utilRead(c, func(src *utilData) bool {
					d.back, d.cmp = append([]Value(nil), src.back...), src.cmp
					return true
				})
				if err := th.charge(int64(len(d.back))); err != nil {
					return nil, err
				}
				return th.newCell(utilCell, d, nil)
			}
			xs, err := th.utilSource("PriorityQueue.", from)
			if err != nil {
				return nil, err
			}
			if err := th.charge(int64(len(xs))); err != nil {
				return nil, err
			}
			if err := th.ticks(2 * len(xs)); err != nil {
				return nil, err
			}
			d.back = append([]Value(nil), xs...)
			heapify(d.back, Compare) // nobody else sees it yet
		}
		return th.newCell(utilCell, d, nil)
	}, "java.util.PriorityQueue.")

	// The queue's methods extend those of the same names (method chains
	// them): a PriorityQueue target takes these, anything else the method
	// registered before.
	queues := utilClass.isQueue
	extend := func(name string, min, max int, f func(th *thread, c *Cell, a []Value) (Value, error)) {
		method(name, min, max, queues, func(th *thread, c *Cell, _ utilClass, a []Value) (Value, error) { return f(th, c, a) })
	}
	for _, name := range []string{".add", ".offer"} {
		extend(name, 2, 2, func(th *thread, c *Cell, a []Value) (Value, error) {
			if a[1] == nil {
				return nil, classError(TypeError, classNullPointer, "%s of nil to a PriorityQueue (a NullPointerException in Java)", name)
			}
			return true, th.pqOffer(name, c, a[1])
		})
	}
	extend(".addAll", 2, 2, func(th *thread, c *Cell, a []Value) (Value, error) {
		xs, err := th.utilSource(".addAll", a[1])
		if err != nil {
			return nil, err
		}
		for _, x := range xs {
			if err := th.pqOffer(".addAll", c, x); err != nil {
				return nil, err
			}
		}
		return len(xs) > 0, nil
	})
	extend(".poll", 1, 1, func(th *thread, c *Cell, a []Value) (Value, error) {
		x, _, err := th.pqPoll(".poll", c)
		return x, err
	})
	extend(".remove", 1, 2, func(th *thread, c *Cell, a []Value) (Value, error) {
		if len(a) == 2 {
			return th.pqRemove(".remove", c, a[1])
		}
		x, ok, err := th.pqPoll(".remove", c)
		if err == nil && !ok {
			err = classError(InvalidArgument, classNoSuchElement, ".remove of an empty PriorityQueue (NoSuchElementException)")
		}
		return x, err
	})
	for _, name := range []string{".peek", ".element"} {
		extend(name, 1, 1, func(th *thread, c *Cell, a []Value) (Value, error) {
			x := utilRead(c, func(d *utilData) Value {
				if len(d.back) == 0 {
					return nil
				}
				return d.back[0]
			})
			if x == nil && name == ".element" {
				return nil, classError(InvalidArgument, classNoSuchElement, ".element of an empty PriorityQueue (NoSuchElementException)")
			}
			return x, nil
		})
	}
	extend(".comparator", 1, 1, func(th *thread, c *Cell, a []Value) (Value, error) {
		return utilRead(c, func(d *utilData) Value { return d.cmp }), nil
	})
	for _, name := range []string{".removeAll", ".retainAll", ".removeIf"} {
		extend(name, 2, 2, func(th *thread, c *Cell, a []Value) (Value, error) {
			return nil, errorf(InvalidArgument, "%s of a PriorityQueue is not supported: poll the elements into a vector and filter it", name)
		})
	}
}
