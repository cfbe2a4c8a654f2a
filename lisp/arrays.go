package lisp

import (
	"math"
	"strings"
	"sync"
)

// Java arrays, as models use them: to-array, into-array, int-array and the
// other constructors, make-array, aget, aset, alength, aclone, amap and
// areduce (the last two are rewritten by the analyzer into loops of aget
// and aset).
//
// An array is a Cell of kind arrayCell (state.go): it is mutable, equal
// only to itself, ordered and hashed by creation, and a run that fails puts
// back the arrays it changed, as it does atoms. Its state holds an
// arrayData, the element type and the elements, which aset changes in
// place under the data's lock; the first write of a run to an array it
// did not make copies the elements first (mutate), so that the older state
// stays whole for the rollback.
//
// An array is seqable like a vector (seq, count, nth, get, first, map,
// reduce, vec, into, apply, destructuring ...), each use a copy of the
// elements at that moment. It prints as the constructor's name of its kind
// and its elements, #long-array[1 2 3] or #object-array["a" nil] (Clojure
// prints #object["[J" 0x1b2c "[J@1b2c"], with an address that differs from
// run to run), reads back with Read as a new array, and converts to
// JSON and Go as the list of its elements.
//
// The element type is a JVM descriptor: "J" long, "I" int, "S" short,
// "B" byte, "D" double, "F" float, "Z" boolean, "C" char, "Lname;" a class,
// "[J" (and so on) an array. Integers are int64 and floats float64 whatever
// the array's kind; a primitive array holds only values of its kind (an int
// array, values in Java's int range), a String[] only strings and nils.

// arrayData is the contents of an array.
type arrayData struct {
	sync.Mutex
	elem  string
	items []Value
}

// snapshot returns a copy of the elements.
func (d *arrayData) snapshot() []Value {
	d.Lock()
	defer d.Unlock()
	return append([]Value(nil), d.items...)
}

func (d *arrayData) length() int {
	d.Lock()
	defer d.Unlock()
	return len(d.items)
}

func (d *arrayData) clone() cellData {
	return &arrayData{elem: d.elem, items: append([]Value(nil), d.items...)}
}

func (d *arrayData) slots() int { return len(d.items) + 2 }

// cellData is the contents of an array or a StringBuilder: changed in
// place, under its lock, by the run that owns the state holding it.
type cellData interface {
	Lock()
	Unlock()
	clone() cellData // an unlocked copy
	slots() int      // what a copy costs
}

// mutate runs f on the contents of c that this run may change in place:
// those of the state the run wrote (or made c with), else a copy that it
// installs as a new state, journaled like any write to a cell, so that a
// run that fails puts back the contents it found. f runs under the
// contents' lock.
func (th *thread) mutate(c *Cell, f func(d cellData) error) error {
	cr := th.run.cells()
	for {
		s := c.load()
		d, ok := s.val.(cellData)
		if !ok {
			return errorf(InvalidArgument, "%s has no contents to change", TypeName(c))
		}
		d.Lock()
		if c.state.Load() != s {
			d.Unlock()
			continue
		}
		if s.writer == cr.mark {
			err := f(d)
			d.Unlock()
			return err
		}
		if err := th.copying(d.slots()); err != nil {
			d.Unlock()
			return err
		}
		nd := d.clone()
		if err := f(nd); err != nil {
			d.Unlock()
			return err
		}
		ok, err := th.casCell(c, s, nd, false)
		d.Unlock()
		if err != nil || ok {
			return err
		}
	}
}

// newArray makes an array of elem holding items (which it takes), charged.
func (th *thread) newArray(elem string, items []Value) (*Cell, error) {
	if err := th.charge(int64(len(items))); err != nil {
		return nil, err
	}
	return th.newCell(arrayCell, &arrayData{elem: elem, items: items}, nil)
}

// arrayTag is the name an array of elem prints with: the constructor of its
// kind (long-array ...), object-array for the arrays of a class.
func arrayTag(elem string) string {
	if p := primitiveName(elem); p != "" {
		return p + "-array"
	}
	return "object-array"
}

// arrayTags are the printed tags, the descriptor each reads back as.
var arrayTags = map[string]string{
	"long-array": "J", "int-array": "I", "short-array": "S", "byte-array": "B", "double-array": "D",
	"float-array": "F", "boolean-array": "Z", "char-array": "C", "object-array": objectDesc,
}

const objectDesc = "Ljava.lang.Object;"

// primitiveName is the Java name of a primitive descriptor, "" for others.
func primitiveName(desc string) string {
	switch desc {
	case "J":
		return "long"
	case "I":
		return "int"
	case "S":
		return "short"
	case "B":
		return "byte"
	case "D":
		return "double"
	case "F":
		return "float"
	case "Z":
		return "boolean"
	case "C":
		return "char"
	}
	return ""
}

// classDesc is the descriptor of the elements of class c: a primitive
// (Long/TYPE is long), an array class, or a class.
func classDesc(c Class) string {
	switch c.Name {
	case "long":
		return "J"
	case "int":
		return "I"
	case "short":
		return "S"
	case "byte":
		return "B"
	case "double":
		return "D"
	case "float":
		return "F"
	case "boolean":
		return "Z"
	case "char":
		return "C"
	}
	if strings.HasPrefix(c.Name, "[") {
		return c.Name
	}
	return "L" + c.Name + ";"
}

// arrayClassName is the class name of an array of elem: [J, [Ljava.lang.String;.
func arrayClassName(elem string) string { return "[" + elem }

// javaSimpleName is Class.getSimpleName of an array class: long[], String[][].
func javaSimpleName(name string) string {
	dims := 0
	for dims < len(name) && name[dims] == '[' {
		dims++
	}
	elem := name[dims:]
	if p := primitiveName(elem); p != "" {
		elem = p
	} else {
		elem = strings.TrimSuffix(strings.TrimPrefix(elem, "L"), ";")
		elem = elem[strings.LastIndexByte(elem, '.')+1:]
	}
	return elem + strings.Repeat("[]", dims)
}

// zeroOf is the value a new array of elem holds.
func zeroOf(elem string) Value {
	switch elem {
	case "J", "I", "S", "B":
		return int64(0)
	case "D", "F":
		return 0.0
	case "Z":
		return false
	case "C":
		return "\x00"
	}
	return nil
}

// storeValue checks (and converts) x for an element of an array of elem,
// as aset does: a primitive array takes its kind (an integer into a
// double array becomes a float), a class's array its instances and nil.
func storeValue(fn string, elem string, x Value) (Value, error) {
	switch elem {
	case "J", "I", "S", "B":
		n, ok := x.(int64)
		if !ok {
			return nil, arrayStoreError(fn, elem, x)
		}
		return checkIntRange(fn, elem, n)
	case "D", "F":
		f, ok := toFloat(x)
		if !ok {
			return nil, arrayStoreError(fn, elem, x)
		}
		return f, nil
	case "Z":
		if _, ok := x.(bool); !ok {
			return nil, arrayStoreError(fn, elem, x)
		}
		return x, nil
	case "C":
		if _, err := charArg(fn, []Value{x}, 0); err != nil || !isString(x) {
			return nil, arrayStoreError(fn, elem, x)
		}
		return x, nil
	case objectDesc:
		return x, nil
	}
	if x == nil || elemAccepts(elem, x) {
		return x, nil
	}
	return nil, classError(TypeError, classArrayStore, "%s: %s cannot go in an array of %s (ArrayStoreException)", fn, describe(x), elemName(elem))
}

// elemAccepts reports whether x is an instance of the reference type elem.
func elemAccepts(elem string, x Value) bool {
	if strings.HasPrefix(elem, "[") {
		c, ok := x.(*Cell)
		if !ok || c.kind != arrayCell {
			return false
		}
		d := c.load().val.(*arrayData)
		return "["+d.elem == elem || (elem == "["+objectDesc && !isPrimitiveDesc(d.elem))
	}
	name := strings.TrimSuffix(strings.TrimPrefix(elem, "L"), ";")
	// Numbers are longs and doubles here: (int 3) is a Long, so an array
	// of Integer (Short, Byte, Float) takes the numbers of that kind's
	// range, as Clojure's of the boxes int, short, byte and float make.
	switch i, isInt := x.(int64); name {
	case "java.lang.Integer":
		return isInt && i == int64(int32(i))
	case "java.lang.Short":
		return isInt && i == int64(int16(i))
	case "java.lang.Byte":
		return isInt && i == int64(int8(i))
	case "java.lang.Float":
		_, isFloat := x.(float64)
		return isFloat
	}
	return instanceOf(Class{Name: name}, x)
}

func isPrimitiveDesc(desc string) bool { return primitiveName(desc) != "" }

// elemName names an element type for a message: long, String, long[].
func elemName(elem string) string {
	return strings.TrimSuffix(javaSimpleName("["+elem), "[]")
}

func arrayStoreError(fn, elem string, x Value) *Error {
	return classError(TypeError, classIllegalArgument, "%s: a %s array takes %s, got %s", fn, primitiveName(elem), primitiveWant(elem), describe(x))
}

func primitiveWant(elem string) string {
	switch elem {
	case "D", "F":
		return "numbers"
	case "Z":
		return "booleans"
	case "C":
		return "characters"
	}
	return "integers"
}

// checkIntRange checks an integer for an int, short or byte array, as
// Java's checked narrowing does (aset): out of range is an
// ArithmeticException.
func checkIntRange(fn, elem string, n int64) (Value, error) {
	lo, hi := int64(math.MinInt64), int64(math.MaxInt64)
	switch elem {
	case "I":
		lo, hi = math.MinInt32, math.MaxInt32
	case "S":
		lo, hi = math.MinInt16, math.MaxInt16
	case "B":
		lo, hi = math.MinInt8, math.MaxInt8
	}
	if n < lo || n > hi {
		return nil, classError(ArithmeticError, classArithmetic, "%s: %d is out of the range of a %s (integer overflow)", fn, n, primitiveName(elem))
	}
	return n, nil
}

// constructValue converts x for an element of a new primitive array, as
// Clojure's int-array, double-array ... do: a number's intValue (truncated,
// wrapped to the width as Java narrows), doubleValue; a boolean or a
// character as it is.
func constructValue(fn, elem string, x Value) (Value, error) {
	switch elem {
	case "J", "I", "S", "B":
		var n int64
		switch v := x.(type) {
		case int64:
			n = v
		case float64:
			r, err := toInteger(fn, v, math.Trunc)
			if err != nil {
				return nil, err
			}
			n = r.(int64)
		default:
			return nil, classError(TypeError, classClassCast, "%s: %s is not a number (ClassCastException)", fn, describe(x))
		}
		switch elem {
		case "I":
			n = int64(int32(n))
		case "S":
			n = int64(int16(n))
		case "B":
			n = int64(int8(n))
		}
		return n, nil
	case "D", "F":
		f, ok := toFloat(x)
		if !ok {
			return nil, classError(TypeError, classClassCast, "%s: %s is not a number (ClassCastException)", fn, describe(x))
		}
		return f, nil
	}
	v, err := storeValue(fn, elem, x)
	if err != nil {
		if e, ok := err.(*Error); ok && (elem == "Z" || elem == "C") {
			e.Class = classClassCast.name
		}
	}
	return v, err
}

// arrayArg returns argument i as an array and its contents.
func arrayArg(fn string, a []Value, i int) (*Cell, *arrayData, error) {
	if c, ok := a[i].(*Cell); ok && c.kind == arrayCell {
		return c, c.load().val.(*arrayData), nil
	}
	return nil, nil, argError(fn, i, "an array (make one with to-array, into-array, int-array, make-array ...)", a[i])
}

// readableLen is the length of what aget and alength read: an array, or a
// vector, since the methods that return arrays in Java (.split,
// .toCharArray) return vectors here.
func readableLen(fn string, a []Value, i int) (int, error) {
	switch x := a[i].(type) {
	case *Vector:
		return x.Len(), nil
	case *Cell:
		if x.kind == arrayCell {
			return x.load().val.(*arrayData).length(), nil
		}
	}
	return 0, argError(fn, i, "an array", a[i])
}

// readAt is aget's one step: element idx of an array or a vector.
func readAt(fn string, coll Value, idx Value, argi int) (Value, error) {
	i, err := intArg(fn, []Value{idx}, 0)
	if err != nil {
		return nil, argError(fn, argi, "an integer index", idx)
	}
	switch x := coll.(type) {
	case *Vector:
		if i < 0 || i >= int64(x.Len()) {
			return nil, indexError(i, x.Len())
		}
		return x.At(int(i)), nil
	case *Cell:
		if x.kind == arrayCell {
			d := x.load().val.(*arrayData)
			d.Lock()
			defer d.Unlock()
			if i < 0 || i >= int64(len(d.items)) {
				return nil, indexError(i, len(d.items))
			}
			return d.items[i], nil
		}
	}
	return nil, argError(fn, 0, "an array", coll)
}

// indexError is Java's ArrayIndexOutOfBoundsException.
func indexError(i int64, n int) *Error {
	return classError(InvalidArgument, classArrayIndex, "Index %d out of bounds for length %d", i, n)
}

// arrayItems is the elements of an array for the sequence functions,
// charged: a copy, as of now.
func (th *thread) arrayItems(c *Cell) ([]Value, error) {
	d := c.load().val.(*arrayData)
	n := d.length()
	if err := th.charge(int64(n)); err != nil {
		return nil, err
	}
	return d.snapshot(), th.ticks(n)
}

func registerArrays(t *builtinTable) {
	// Primitive classes: (make-array Long/TYPE n), (into-array Integer/TYPE xs).
	for ns, name := range map[string]string{"Long": "long", "Integer": "int", "Short": "short", "Byte": "byte",
		"Double": "double", "Float": "float", "Boolean": "boolean", "Character": "char"} {
		t.set(ns+"/TYPE", Class{Name: name})
	}

	t.add("to-array", 1, 1, func(th *thread, a []Value) (Value, error) {
		xs, err := th.items(a[0], "to-array")
		if err != nil {
			return nil, err
		}
		return th.newArray(objectDesc, append([]Value(nil), xs...))
	})
	t.add("object-array", 1, 1, func(th *thread, a []Value) (Value, error) {
		if n, ok := arraySize(a[0]); ok {
			return th.filledArray("object-array", objectDesc, n, nil)
		}
		xs, err := th.items(a[0], "object-array")
		if err != nil {
			return nil, err
		}
		return th.newArray(objectDesc, append([]Value(nil), xs...))
	})
	for _, k := range []struct{ name, elem string }{
		{"long-array", "J"}, {"int-array", "I"}, {"short-array", "S"}, {"byte-array", "B"},
		{"double-array", "D"}, {"float-array", "F"}, {"boolean-array", "Z"}, {"char-array", "C"},
	} {
		t.add(k.name, 1, 2, func(th *thread, a []Value) (Value, error) { return th.primitiveArray(k.name, k.elem, a) })
	}
	t.add("into-array", 1, 2, func(th *thread, a []Value) (Value, error) {
		coll := a[len(a)-1]
		xs, err := th.items(coll, "into-array")
		if err != nil {
			return nil, err
		}
		var elem string
		if len(a) == 2 {
			c, ok := a[0].(Class)
			if !ok {
				return nil, argError("into-array", 0, "a class such as String or Long/TYPE", a[0])
			}
			elem = classDesc(c)
		} else {
			// The class of the first element, as Clojure's (into-array xs).
			elem = objectDesc
			if len(xs) > 0 {
				if c, ok := classOf(xs[0]); ok {
					elem = classDesc(c)
				}
			}
		}
		out := make([]Value, len(xs))
		for i, x := range xs {
			if isPrimitiveDesc(elem) {
				// Clojure stores with reflection: the value must be of the
				// primitive's kind (an integer widens to a double).
				v, err := storeValue("into-array", elem, x)
				if err != nil {
					return nil, classError(TypeError, classIllegalArgument, "into-array: argument type mismatch: %s in an array of %s", describe(x), primitiveName(elem))
				}
				out[i] = v
				continue
			}
			if x != nil && elem != objectDesc && !elemAccepts(elem, x) {
				return nil, classError(TypeError, classIllegalArgument, "into-array: array element type mismatch: %s in an array of %s", describe(x), elemName(elem))
			}
			out[i] = x
		}
		return th.newArray(elem, out)
	})
	t.add("make-array", 2, -1, func(th *thread, a []Value) (Value, error) {
		c, ok := a[0].(Class)
		if !ok {
			return nil, argError("make-array", 0, "a class such as Long/TYPE, Double/TYPE or String", a[0])
		}
		dims := make([]int64, len(a)-1)
		total := int64(1)
		for i := range dims {
			n, err := intArg("make-array", a, i+1)
			if err != nil {
				return nil, err
			}
			if n < 0 {
				return nil, classError(InvalidArgument, classNegativeArraySize, "make-array: %d (NegativeArraySizeException)", n)
			}
			dims[i] = n
			if n > 0 && total > maxCharge/n {
				total = maxCharge
			} else {
				total *= max(n, 1)
			}
		}
		// All the arrays are charged before any is made: a huge size is
		// refused by the memory limit, not allocated.
		if err := th.charge(total + int64(len(dims))); err != nil {
			return nil, err
		}
		return th.makeArray(classDesc(c), dims)
	})
	t.add("to-array-2d", 1, 1, func(th *thread, a []Value) (Value, error) {
		rows, err := th.items(a[0], "to-array-2d")
		if err != nil {
			return nil, err
		}
		out := make([]Value, len(rows))
		for i, r := range rows {
			xs, err := th.items(r, "to-array-2d")
			if err != nil {
				return nil, err
			}
			if out[i], err = th.newArray(objectDesc, append([]Value(nil), xs...)); err != nil {
				return nil, err
			}
		}
		return th.newArray("["+objectDesc, out)
	})

	t.add("alength", 1, 1, func(_ *thread, a []Value) (Value, error) {
		n, err := readableLen("alength", a, 0)
		return int64(n), err
	})
	t.add("aget", 2, -1, func(th *thread, a []Value) (Value, error) {
		// (aget a i j ...) reads a[i][j]...
		v := a[0]
		if _, err := readableLen("aget", a, 0); err != nil {
			return nil, err
		}
		for k, idx := range a[1:] {
			x, err := readAt("aget", v, idx, k+1)
			if err != nil {
				return nil, err
			}
			v = x
		}
		return v, nil
	})
	aset := func(name, prim string) builtinFn {
		return func(th *thread, a []Value) (Value, error) {
			// (aset a i v) and (aset a i j ... v): the last index of the
			// innermost array.
			target := a[0]
			for k, idx := range a[1 : len(a)-2] {
				x, err := readAt(name, target, idx, k+1)
				if err != nil {
					return nil, err
				}
				target = x
			}
			c, d, err := arrayArg(name, []Value{target}, 0)
			if err != nil {
				if v, ok := target.(*Vector); ok && !v.IsList() {
					return nil, errorf(TypeError, "%s expects an array, got a vector: vectors do not change (.split and .toCharArray return vectors here); make an array with (into-array v) or (to-array v), or use assoc", name)
				}
				return nil, err
			}
			i, err := intArg(name, a, len(a)-2)
			if err != nil {
				return nil, err
			}
			val := a[len(a)-1]
			if prim != "" {
				// aset-int and friends convert as Java's casts do.
				if val, err = constructValue(name, prim, val); err != nil {
					return nil, err
				}
				if prim != d.elem && !(isPrimitiveDesc(prim) && d.elem == objectDesc) {
					return nil, classError(TypeError, classIllegalArgument, "%s: argument type mismatch: the array is a %s", name, c.Kind())
				}
			}
			stored, err := storeValue(name, d.elem, val)
			if err != nil {
				return nil, err
			}
			if err := th.tick(); err != nil {
				return nil, err
			}
			err = th.mutate(c, func(cd cellData) error {
				items := cd.(*arrayData).items
				if i < 0 || i >= int64(len(items)) {
					return indexError(i, len(items))
				}
				items[i] = stored
				return nil
			})
			return val, err
		}
	}
	t.add("aset", 3, -1, aset("aset", ""))
	for _, k := range []struct{ name, elem string }{
		{"aset-long", "J"}, {"aset-int", "I"}, {"aset-short", "S"}, {"aset-byte", "B"},
		{"aset-double", "D"}, {"aset-float", "F"}, {"aset-boolean", "Z"}, {"aset-char", "C"},
	} {
		t.add(k.name, 3, -1, aset(k.name, k.elem))
	}
	// nth and get read an element in place; out of range, and contains?,
	// they see the array as the vector of its elements.
	for _, name := range []string{"nth", "get", "contains?"} {
		t.wrap(name, func(old *Builtin) *Builtin {
			b := *old
			fn := old.fn
			b.fn = func(th *thread, a []Value) (Value, error) {
				c, ok := a[0].(*Cell)
				if ok && c.kind == builderCell && name == "nth" {
					// A StringBuilder is a CharSequence: nth reads its text.
					s := builderText(c)
					if err := th.chargeString(len(s)); err != nil {
						return nil, err
					}
					return withColl(fn, th, s, a)
				}
				if !ok || c.kind != arrayCell {
					return fn(th, a)
				}
				if i, ok := a[1].(int64); ok && name != "contains?" {
					d := c.load().val.(*arrayData)
					d.Lock()
					if i >= 0 && i < int64(len(d.items)) {
						v := d.items[i]
						d.Unlock()
						return v, nil
					}
					d.Unlock()
				}
				xs, err := th.arrayItems(c)
				if err != nil {
					return nil, err
				}
				return withColl(fn, th, NewVector(xs), a)
			}
			return &b
		})
	}
	// Clojure's sort and sort-by sort an array of objects in place (their
	// docstrings warn of it), and return the sorted sequence.
	for _, name := range []string{"sort", "sort-by"} {
		t.wrap(name, func(old *Builtin) *Builtin {
			b := *old
			fn := old.fn
			b.fn = func(th *thread, a []Value) (Value, error) {
				out, err := fn(th, a)
				c, ok := a[len(a)-1].(*Cell)
				if err != nil || !ok || c.kind != arrayCell || isPrimitiveDesc(c.load().val.(*arrayData).elem) {
					return out, err
				}
				sorted, _ := out.(*Vector)
				return out, th.mutate(c, func(cd cellData) error {
					d := cd.(*arrayData)
					if sorted != nil && sorted.Len() == len(d.items) {
						copy(d.items, sorted.items)
					}
					return nil
				})
			}
			return &b
		})
	}
	// String.format(fmt, Object... args): an array of objects given alone
	// is the arguments, as Java passes varargs ((format fmt arr), Clojure's
	// function, formats the array itself). String.format(Locale, fmt,
	// args) formats as the default (English) locale does.
	t.wrap("String/format", func(old *Builtin) *Builtin {
		b := *old
		b.Name = "String/format"
		fn := old.fn
		b.fn = func(th *thread, a []Value) (Value, error) {
			if _, fmtNext := a[min(1, len(a)-1)].(string); len(a) >= 2 && fmtNext && isLocale(a[0]) {
				a = a[1:]
			}
			if len(a) == 2 {
				if c, ok := a[1].(*Cell); ok && c.kind == arrayCell && !isPrimitiveDesc(c.load().val.(*arrayData).elem) {
					xs, err := th.arrayItems(c)
					if err != nil {
						return nil, err
					}
					return fn(th, append([]Value{a[0]}, xs...))
				}
			}
			return fn(th, a)
		}
		return &b
	})
	t.add("System/arraycopy", 5, 5, systemArraycopy)
	t.add("aclone", 1, 1, func(th *thread, a []Value) (Value, error) {
		if v, ok := a[0].(*Vector); ok {
			return v, nil // a vector read as an array (aget) is its own copy
		}
		_, d, err := arrayArg("aclone", a, 0)
		if err != nil {
			return nil, err
		}
		xs := d.snapshot()
		if err := th.copying(len(xs)); err != nil {
			return nil, err
		}
		return th.newCell(arrayCell, &arrayData{elem: d.elem, items: xs}, nil)
	})
}

// systemArraycopy is (System/arraycopy src srcPos dest destPos length):
// length elements of src from srcPos into dest from destPos, as Java's
// (the same array may be both: the copy is of the elements before it),
// each element stored as aset stores it.
func systemArraycopy(th *thread, a []Value) (Value, error) {
	const fn = "System/arraycopy"
	_, src, err := arrayArg(fn, a, 0)
	if err != nil {
		return nil, err
	}
	dst, dd, err := arrayArg(fn, a, 2)
	if err != nil {
		return nil, err
	}
	var pos [3]int64
	for j, i := range []int{1, 3, 4} {
		if pos[j], err = intArg(fn, a, i); err != nil {
			return nil, err
		}
	}
	from, to, n := pos[0], pos[1], pos[2]
	xs := src.snapshot()
	if n < 0 || from < 0 || to < 0 || from+n > int64(len(xs)) || to+n > int64(dd.length()) {
		return nil, classError(InvalidArgument, classArrayIndex,
			"%s: copying %d elements from index %d of an array of %d into index %d of an array of %d goes outside them",
			fn, n, from, len(xs), to, dd.length())
	}
	part := xs[from : from+n]
	for i, x := range part {
		v, err := storeValue(fn, dd.elem, x)
		if err != nil {
			return nil, err
		}
		part[i] = v
	}
	if err := th.copying(int(n)); err != nil {
		return nil, err
	}
	return nil, th.mutate(dst, func(cd cellData) error {
		d := cd.(*arrayData)
		if to+n <= int64(len(d.items)) {
			copy(d.items[to:], part)
		}
		return nil
	})
}

// arraySize reads a size as Clojure's array constructors do: a number's
// intValue (a float truncated).
func arraySize(v Value) (int64, bool) {
	switch n := v.(type) {
	case int64:
		return n, true
	case float64:
		if !math.IsNaN(n) && math.Abs(n) < 1<<62 {
			return int64(n), true
		}
	}
	return 0, false
}

// filledArray makes an array of n elements of elem, all v.
func (th *thread) filledArray(fn, elem string, n int64, v Value) (Value, error) {
	if n < 0 {
		return nil, classError(InvalidArgument, classNegativeArraySize, "%s: %d (NegativeArraySizeException)", fn, n)
	}
	if err := th.charge(n); err != nil {
		return nil, err
	}
	items := make([]Value, n)
	for i := range items {
		items[i] = v
	}
	return th.newCell(arrayCell, &arrayData{elem: elem, items: items}, nil)
}

// primitiveArray is (long-array size-or-seq) and (long-array size init-or-seq).
func (th *thread) primitiveArray(fn, elem string, a []Value) (Value, error) {
	size, sized := arraySize(a[0])
	if len(a) == 1 && !sized {
		xs, err := th.items(a[0], fn)
		if err != nil {
			return nil, err
		}
		out := make([]Value, len(xs))
		for i, x := range xs {
			if out[i], err = constructValue(fn, elem, x); err != nil {
				return nil, err
			}
		}
		return th.newArray(elem, out)
	}
	if !sized {
		return nil, argError(fn, 0, "a size", a[0])
	}
	if len(a) == 1 {
		return th.filledArray(fn, elem, size, zeroOf(elem))
	}
	// (long-array 3 7): every element the initial value, a number (a
	// boolean, a character for those arrays), as Clojure tells them apart.
	fill := isNumber(a[1])
	switch elem {
	case "Z":
		_, fill = a[1].(bool)
	case "C":
		s, ok := a[1].(string)
		fill = ok && s != "" && graphemeLen(s) == len(s)
	}
	if fill {
		v, err := constructValue(fn, elem, a[1])
		if err != nil {
			return nil, err
		}
		return th.filledArray(fn, elem, size, v)
	}
	// (long-array 5 [1 2]): the first elements from the sequence, then zeros.
	arr, err := th.filledArray(fn, elem, size, zeroOf(elem))
	if err != nil {
		return nil, err
	}
	items := arr.(*Cell).load().val.(*arrayData).items
	i := 0
	err = th.each(a[1], fn, func(x Value) (bool, error) {
		if i >= len(items) {
			return false, nil
		}
		v, err := constructValue(fn, elem, x)
		if err != nil {
			return false, err
		}
		items[i] = v
		i++
		return true, nil
	})
	return arr, err
}

// makeArray makes the nested arrays of make-array, already charged.
func (th *thread) makeArray(elem string, dims []int64) (Value, error) {
	if len(dims) == 1 {
		items := make([]Value, dims[0])
		z := zeroOf(elem)
		for i := range items {
			items[i] = z
		}
		return th.newCell(arrayCell, &arrayData{elem: elem, items: items}, nil)
	}
	inner := elem
	for range dims[1:] {
		inner = "[" + inner
	}
	items := make([]Value, dims[0])
	for i := range items {
		v, err := th.makeArray(elem, dims[1:])
		if err != nil {
			return nil, err
		}
		items[i] = v
	}
	return th.newCell(arrayCell, &arrayData{elem: inner, items: items}, nil)
}
