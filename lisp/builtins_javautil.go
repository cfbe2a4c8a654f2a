package lisp

// registerJavaUtilStatics adds the java.util statics models call beside
// the collections of javacoll.go: comparators (Collections/reverseOrder,
// Comparator/naturalOrder), the small immutable collections of
// Collections, Objects' null-safe helpers, Arrays' fill, equals and copies,
// Pattern/quote and UUID/fromString. Each returns a value of the language
// (a comparator is a function, a list a vector) with Java's result.
func registerJavaUtilStatics(t *builtinTable) {
	registerBinarySearch(t)
	compare := func(th *thread, a []Value) (Value, error) { return t.names["compare"].(*Builtin).fn(th, a) }
	reversed := &Builtin{Name: "Collections/reverseOrder", MinArgs: 2, MaxArgs: 2, fn: func(th *thread, a []Value) (Value, error) {
		return compare(th, []Value{a[1], a[0]})
	}}
	t.add("Collections/reverseOrder", 0, 1, func(th *thread, a []Value) (Value, error) {
		if len(a) == 0 {
			return reversed, nil
		}
		cmp := a[0]
		if !isCallable(cmp) {
			return nil, argError("Collections/reverseOrder", 0, "a comparator function", cmp)
		}
		return &Builtin{Name: "Collections/reverseOrder", MinArgs: 2, MaxArgs: 2, fn: func(th *thread, a []Value) (Value, error) {
			return th.call(cmp, []Value{a[1], a[0]})
		}}, nil
	}, "Comparator/reverseOrder")
	t.add("Comparator/naturalOrder", 0, 0, func(*thread, []Value) (Value, error) { return t.names["compare"], nil })

	t.add("Collections/nCopies", 2, 2, func(th *thread, a []Value) (Value, error) {
		n, err := intArg("Collections/nCopies", a, 0)
		if err != nil {
			return nil, err
		}
		if n < 0 {
			return nil, errorf(InvalidArgument, "List length = %d", n)
		}
		return t.names["repeat"].(*Builtin).fn(th, []Value{n, a[1]})
	})
	t.add("Collections/emptyList", 0, 0, func(*thread, []Value) (Value, error) { return emptyVector, nil })
	t.add("Collections/emptyMap", 0, 0, func(*thread, []Value) (Value, error) { return emptyMap, nil })
	t.add("Collections/emptySet", 0, 0, func(*thread, []Value) (Value, error) { return NewSet(), nil })
	t.add("Collections/singletonList", 1, 1, func(_ *thread, a []Value) (Value, error) { return NewVector([]Value{a[0]}), nil })
	t.add("Collections/singleton", 1, 1, func(_ *thread, a []Value) (Value, error) { return NewSet(a[0]), nil })
	t.add("Collections/singletonMap", 2, 2, func(_ *thread, a []Value) (Value, error) { return NewMap(a[0], a[1]), nil })
	// The unmodifiable views: the values here never change anyway.
	t.add("Collections/unmodifiableList", 1, 1, func(_ *thread, a []Value) (Value, error) { return a[0], nil },
		"Collections/unmodifiableSet", "Collections/unmodifiableMap", "Collections/unmodifiableCollection",
		"Collections/unmodifiableSortedMap", "Collections/unmodifiableSortedSet")

	// java.util.Objects.
	t.add("Objects/equals", 2, 2, func(th *thread, a []Value) (Value, error) {
		return strictEqual(th, a[0], a[1]), nil // Object.equals: (Objects/equals 1 1.0) is false
	})
	t.add("Objects/isNull", 1, 1, func(_ *thread, a []Value) (Value, error) { return a[0] == nil, nil })
	t.add("Objects/nonNull", 1, 1, func(_ *thread, a []Value) (Value, error) { return a[0] != nil, nil })
	t.add("Objects/requireNonNull", 1, 2, func(_ *thread, a []Value) (Value, error) {
		if a[0] != nil {
			return a[0], nil
		}
		msg := ""
		if len(a) == 2 {
			msg, _ = a[1].(string)
		}
		return nil, classError(TypeError, classNullPointer, "%s", msg)
	})
	t.add("Objects/requireNonNullElse", 2, 2, func(_ *thread, a []Value) (Value, error) {
		if a[0] != nil {
			return a[0], nil
		}
		if a[1] == nil {
			return nil, classError(TypeError, classNullPointer, "defaultObj")
		}
		return a[1], nil
	})
	t.add("Objects/toString", 1, 2, func(th *thread, a []Value) (Value, error) {
		if a[0] == nil {
			if len(a) == 2 {
				return a[1], nil
			}
			return "null", nil
		}
		s, err := th.render(a[0], false)
		if err != nil {
			return nil, err
		}
		return s, th.chargeString(len(s))
	})

	// java.util.Arrays: fill, equals, copies.
	arrayOf := func(fn string, a []Value, i int) (*Cell, error) {
		if c, ok := a[i].(*Cell); ok && c.kind == arrayCell {
			return c, nil
		}
		return nil, argError(fn, i, "a Java array", a[i])
	}
	t.add("Arrays/fill", 2, 4, func(th *thread, a []Value) (Value, error) {
		c, err := arrayOf("Arrays/fill", a, 0)
		if err != nil {
			return nil, err
		}
		n := int64(c.load().val.(*arrayData).length())
		from, to, v := int64(0), n, a[len(a)-1]
		switch len(a) {
		case 3:
			return nil, errorf(ArityError, "Arrays/fill takes an array and a value, or an array, a start, an end and a value")
		case 4:
			if from, err = intArg("Arrays/fill", a, 1); err != nil {
				return nil, err
			}
			if to, err = intArg("Arrays/fill", a, 2); err != nil {
				return nil, err
			}
			if from < 0 || to > n || from > to {
				return nil, classError(InvalidArgument, classArrayIndex, "Array index out of range: fromIndex %d, toIndex %d, length %d", from, to, n)
			}
		}
		aset := t.names["aset"].(*Builtin)
		for i := from; i < to; i++ { // aset checks the value against the array's kind
			if _, err := th.call(aset, []Value{c, i, v}); err != nil {
				return nil, err
			}
		}
		return nil, nil
	})
	t.add("Arrays/equals", 2, 2, func(th *thread, a []Value) (Value, error) {
		if a[0] == nil || a[1] == nil {
			return a[0] == nil && a[1] == nil, nil
		}
		x, err := arrayOf("Arrays/equals", a, 0)
		if err != nil {
			return nil, err
		}
		y, err := arrayOf("Arrays/equals", a, 1)
		if err != nil {
			return nil, err
		}
		xs, ys := x.load().val.(*arrayData).snapshot(), y.load().val.(*arrayData).snapshot()
		if len(xs) != len(ys) {
			return false, nil
		}
		if err := th.ticks(len(xs)); err != nil {
			return nil, err
		}
		for i := range xs {
			if !strictEqual(th, xs[i], ys[i]) {
				return false, nil
			}
		}
		return true, nil
	})
	t.add("Arrays/copyOfRange", 3, 3, func(th *thread, a []Value) (Value, error) {
		c, err := arrayOf("Arrays/copyOfRange", a, 0)
		if err != nil {
			return nil, err
		}
		from, err := intArg("Arrays/copyOfRange", a, 1)
		if err != nil {
			return nil, err
		}
		to, err := intArg("Arrays/copyOfRange", a, 2)
		if err != nil {
			return nil, err
		}
		return th.copyArray("Arrays/copyOfRange", c, from, to)
	})
	t.add("Arrays/copyOf", 2, 2, func(th *thread, a []Value) (Value, error) {
		c, err := arrayOf("Arrays/copyOf", a, 0)
		if err != nil {
			return nil, err
		}
		n, err := intArg("Arrays/copyOf", a, 1)
		if err != nil {
			return nil, err
		}
		if n < 0 {
			return nil, classError(InvalidArgument, classNegativeArraySize, "%d", n)
		}
		return th.copyArray("Arrays/copyOf", c, 0, n)
	})

	t.add("Pattern/quote", 1, 1, func(th *thread, a []Value) (Value, error) {
		s, err := stringArg("Pattern/quote", a, 0)
		if err != nil {
			return nil, err
		}
		return `\Q` + s + `\E`, th.chargeString(len(s) + 4)
	})
	t.add("UUID/fromString", 1, 1, func(_ *thread, a []Value) (Value, error) {
		s, err := stringArg("UUID/fromString", a, 0)
		if err != nil {
			return nil, err
		}
		u := parseUUID(s)
		if u == nil {
			return nil, errorf(InvalidArgument, "Invalid UUID string: %s", quoteShort(s))
		}
		return u, nil // a UUID is its canonical text here, as parse-uuid gives it
	})
}

// copyArray is Arrays.copyOfRange: a new array of the same kind holding
// the elements from index from to to, padded with the kind's zero past the
// end.
func (th *thread) copyArray(fn string, c *Cell, from, to int64) (Value, error) {
	d := c.load().val.(*arrayData)
	xs := d.snapshot()
	if from < 0 || from > int64(len(xs)) {
		return nil, classError(InvalidArgument, classArrayIndex, "%s: from %d, length %d", fn, from, len(xs))
	}
	if from > to {
		return nil, errorf(InvalidArgument, "%d > %d", from, to)
	}
	if err := th.charge(to - from); err != nil {
		return nil, err
	}
	out := make([]Value, to-from)
	zero := zeroOf(d.elem)
	for i := range out {
		if j := from + int64(i); j < int64(len(xs)) {
			out[i] = xs[j]
		} else {
			out[i] = zero // past the end: the kind's zero, as Java pads
		}
	}
	return th.newCell(arrayCell, &arrayData{elem: d.elem, items: out}, nil)
}

// registerBinarySearch adds Arrays/binarySearch and
// Collections/binarySearch: Java's search of a sorted array or list, the
// index of key if found (which of equal keys is Java's midpoint walk),
// else -(insertion point) - 1.
func registerBinarySearch(t *builtinTable) {
	search := func(th *thread, xs []Value, lo, hi int, key Value, cmp func(a, b Value) int) (Value, error) {
		return guarded(func() (Value, error) {
			for lo <= hi {
				if err := th.tick(); err != nil {
					return nil, err
				}
				mid := int(uint(lo+hi) >> 1)
				switch c := cmp(xs[mid], key); {
				case c < 0:
					lo = mid + 1
				case c > 0:
					hi = mid - 1
				default:
					return int64(mid), nil
				}
			}
			return int64(-(lo + 1)), nil
		})
	}
	t.add("Arrays/binarySearch", 2, 4, func(th *thread, a []Value) (Value, error) {
		xs, err := th.items(a[0], "Arrays/binarySearch")
		if err != nil {
			return nil, err
		}
		lo, hi, key := 0, len(xs)-1, a[len(a)-1]
		switch len(a) {
		case 3:
			return nil, errorf(ArityError, "Arrays/binarySearch takes (a key) or (a from to key)")
		case 4:
			from, to, err := arrayRange("Arrays/binarySearch", a, len(xs))
			if err != nil {
				return nil, err
			}
			lo, hi = from, to-1
		}
		return search(th, xs, lo, hi, key, Compare)
	})
	t.add("Collections/binarySearch", 2, 3, func(th *thread, a []Value) (Value, error) {
		xs, err := th.items(a[0], "Collections/binarySearch")
		if err != nil {
			return nil, err
		}
		cmp := Compare
		if len(a) == 3 && a[2] != nil {
			cmp = th.comparatorFn(a[2])
		}
		return search(th, xs, 0, len(xs)-1, a[1], cmp)
	})
}

// arrayRange reads arguments 1 and 2 as the range [from, to) of an array
// of n elements, as Java's Arrays methods take one.
func arrayRange(fn string, a []Value, n int) (from, to int, err error) {
	f, err := intArg(fn, a, 1)
	if err != nil {
		return 0, 0, err
	}
	t, err := intArg(fn, a, 2)
	if err != nil {
		return 0, 0, err
	}
	if f < 0 || t > int64(n) || f > t {
		return 0, 0, classError(InvalidArgument, classArrayIndex, "%s: the range [%d, %d) is not within the array of %d elements", fn, f, t, n)
	}
	return int(f), int(t), nil
}
