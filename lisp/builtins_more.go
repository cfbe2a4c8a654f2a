package lisp

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// registerMore adds the rest of clojure.core, clojure.string and
// clojure.set that data programs use (docs/clojure-core.md lists every
// name and what PTC-Lisp does with it).
func registerMore(t builtinTable) {
	registerMoreNumbers(t)
	registerMoreSequences(t)
	registerMoreFunctions(t)
	registerMoreStrings(t)
	registerMoreSets(t)
}

// ---- numbers ------------------------------------------------------------------

func registerMoreNumbers(t builtinTable) {
	// The auto-promoting operators: integers stay 64-bit, so they are the
	// plain ones (overflow is still an error, never a wrap-around).
	t.alias("+", "+'")
	t.alias("-", "-'")
	t.alias("*", "*'")
	t.alias("inc", "inc'")
	t.alias("dec", "dec'")

	bitFold := func(name string, op func(x, y int64) int64) {
		t.add(name, 2, -1, func(_ *thread, a []Value) (Value, error) {
			acc, err := bitArg(name, a, 0)
			if err != nil {
				return nil, err
			}
			for i := 1; i < len(a); i++ {
				y, err := bitArg(name, a, i)
				if err != nil {
					return nil, err
				}
				acc = op(acc, y)
			}
			return acc, nil
		})
	}
	bitFold("bit-and", func(x, y int64) int64 { return x & y })
	bitFold("bit-or", func(x, y int64) int64 { return x | y })
	bitFold("bit-xor", func(x, y int64) int64 { return x ^ y })
	bitFold("bit-and-not", func(x, y int64) int64 { return x &^ y })
	t.add("bit-not", 1, 1, func(_ *thread, a []Value) (Value, error) {
		x, err := bitArg("bit-not", a, 0)
		return ^x, err
	})
	// Shifts and bit indexes use the low 6 bits of n, as Java does:
	// (bit-shift-left 1 64) is 1.
	bitN := func(name string, op func(x int64, n uint) Value) {
		t.add(name, 2, 2, func(_ *thread, a []Value) (Value, error) {
			x, err := bitArg(name, a, 0)
			if err != nil {
				return nil, err
			}
			n, err := bitArg(name, a, 1)
			if err != nil {
				return nil, err
			}
			return op(x, uint(n&63)), nil
		})
	}
	bitN("bit-shift-left", func(x int64, n uint) Value { return x << n })
	bitN("bit-shift-right", func(x int64, n uint) Value { return x >> n })
	bitN("unsigned-bit-shift-right", func(x int64, n uint) Value { return int64(uint64(x) >> n) })
	bitN("bit-test", func(x int64, n uint) Value { return x>>n&1 == 1 })
	bitN("bit-set", func(x int64, n uint) Value { return x | 1<<n })
	bitN("bit-clear", func(x int64, n uint) Value { return x &^ (1 << n) })
	bitN("bit-flip", func(x int64, n uint) Value { return x ^ 1<<n })

	t.add("hash", 1, 1, func(th *thread, a []Value) (Value, error) {
		h := th.hash(a[0])
		return int64(int32(uint32(h) ^ uint32(h>>32))), nil
	})
}

// bitArg reads an integer operand of a bit operation: floats are an error,
// as in Clojure.
func bitArg(fn string, a []Value, i int) (int64, error) {
	if x, ok := a[i].(int64); ok {
		return x, nil
	}
	return 0, argError(fn, i, "an integer", a[i])
}

// ---- sequences ----------------------------------------------------------------

func registerMoreSequences(t builtinTable) {
	t.add("doall", 1, 2, func(th *thread, a []Value) (Value, error) { return realizeAll(th, "doall", a, true) })
	t.add("dorun", 1, 2, func(th *thread, a []Value) (Value, error) { return realizeAll(th, "dorun", a, false) })
	t.add("run!", 2, 2, func(th *thread, a []Value) (Value, error) {
		f, err := fnArg("run!", a, 0)
		if err != nil {
			return nil, err
		}
		if s, ok := a[1].(*Seq); ok {
			return nil, infiniteError(s, "run!")
		}
		err = th.each(a[1], "run!", func(x Value) (bool, error) {
			v, err := th.call1(f, x)
			if _, stop := v.(*reduced); stop {
				return false, err
			}
			return err == nil, err
		})
		return nil, err
	})
	t.add("repeatedly", 1, 2, func(th *thread, a []Value) (Value, error) {
		f, err := fnArg("repeatedly", a, len(a)-1)
		if err != nil {
			return nil, err
		}
		limit, counted := int64(math.MaxInt64), len(a) == 2
		if counted {
			if limit, err = intArg("repeatedly", a, 0); err != nil {
				return nil, err
			}
		}
		// Without a count, or with more than could ever be built: lazy.
		if limit > math.MaxInt32 {
			return &Seq{name: "repeatedly", gen: func(th *thread, yield func(Value) (bool, error)) error {
				for i := int64(0); !counted || i < limit; i++ {
					v, err := th.call(f, nil)
					if err != nil {
						return err
					}
					if ok, err := yield(v); err != nil || !ok {
						return err
					}
				}
				return nil
			}}, nil
		}
		n := limit
		if n <= 0 {
			return emptyVector, nil
		}
		if err := th.charge(n); err != nil {
			return nil, err
		}
		out := make([]Value, n)
		for i := range out {
			if err := th.tick(); err != nil {
				return nil, err
			}
			if out[i], err = th.call(f, nil); err != nil {
				return nil, err
			}
		}
		return NewVector(out), nil
	})
	t.add("replicate", 2, 2, t["repeat"].(*Builtin).fn)
	t.add("tree-seq", 3, 3, treeSeq)
	t.add("rseq", 1, 1, func(th *thread, a []Value) (Value, error) {
		v, ok := a[0].(*Vector)
		if !ok {
			return rseqSorted(th, a[0])
		}
		if v.Len() == 0 {
			return nil, nil
		}
		if err := th.charge(int64(v.Len())); err != nil {
			return nil, err
		}
		if err := th.ticks(v.Len()); err != nil {
			return nil, err
		}
		out := make([]Value, v.Len())
		for i, x := range v.items {
			out[len(out)-1-i] = x
		}
		return NewVector(out), nil
	})
	t.add("list*", 1, -1, func(th *thread, a []Value) (Value, error) {
		last := a[len(a)-1]
		if s, ok := last.(*Seq); ok {
			return nil, infiniteError(s, "list*")
		}
		xs, err := th.items(last, "list*")
		if err != nil {
			return nil, err
		}
		n := len(a) - 1 + len(xs)
		if n == 0 {
			return nil, nil
		}
		if err := th.charge(int64(n)); err != nil {
			return nil, err
		}
		out := make([]Value, 0, n)
		return NewVector(append(append(out, a[:len(a)-1]...), xs...)), nil
	})
	t.add("bounded-count", 2, 2, func(th *thread, a []Value) (Value, error) {
		n, err := intArg("bounded-count", a, 0)
		if err != nil {
			return nil, err
		}
		switch c := a[1].(type) {
		case *Seq:
			return max(n, 0), nil
		case string:
			// Strings are not counted collections: count up to n characters.
			k := int64(0)
			for i := 0; i < len(c) && k < n; k++ {
				i += graphemeLen(c[i:])
			}
			return k, th.ticks(int(k))
		}
		k, err := countOf1(th, "bounded-count", a[1])
		return int64(k), err
	})

	// clojure.core/replace: (replace smap coll). The 3-argument call stays
	// clojure.string/replace under the unqualified name.
	t.add("replace", 2, 3, func(th *thread, a []Value) (Value, error) {
		if len(a) == 3 {
			return strReplace(th, a, -1)
		}
		return coreReplace(th, a[0], a[1])
	})

	t.add("iteration", 1, -1, iteration)
	t.add("unreduced", 1, 1, func(_ *thread, a []Value) (Value, error) {
		if r, ok := a[0].(*reduced); ok {
			return r.value, nil
		}
		return a[0], nil
	})
	t.add("ensure-reduced", 1, 1, func(_ *thread, a []Value) (Value, error) {
		if _, ok := a[0].(*reduced); ok {
			return a[0], nil
		}
		return &reduced{value: a[0]}, nil
	})
	isVector := func(_ *thread, a []Value) (Value, error) { _, ok := a[0].(*Vector); return ok, nil }
	t.add("indexed?", 1, 1, isVector)
	// Every map and set is sorted (in the canonical order), as Clojure's
	// sorted-map and sorted-set, which are reversible.
	t.add("reversible?", 1, 1, func(_ *thread, a []Value) (Value, error) {
		switch a[0].(type) {
		case *Vector, *Map, *Set:
			return true, nil
		}
		return false, nil
	})
	t.add("subseq", 3, 5, func(th *thread, a []Value) (Value, error) { return subseq(th, "subseq", a, false) })
	t.add("rsubseq", 3, 5, func(th *thread, a []Value) (Value, error) { return subseq(th, "rsubseq", a, true) })
}

// realizeAll is doall (keep: returns the collection) and dorun (returns
// nil). Values are already realized; only an infinite sequence is an error,
// unless a count bounds it.
func realizeAll(th *thread, fn string, a []Value, keep bool) (Value, error) {
	coll := a[len(a)-1]
	if len(a) == 2 {
		if _, err := intArg(fn, a, 0); err != nil {
			return nil, err
		}
	}
	switch c := coll.(type) {
	case *Seq:
		if len(a) == 1 {
			return nil, infiniteError(c, fn)
		}
	case nil, *Vector, *Map, *Set, string:
	default:
		return nil, argError(fn, len(a)-1, "a collection", coll)
	}
	if keep {
		return coll, nil
	}
	return nil, nil
}

// treeSeq is (tree-seq branch? children root): the nodes of a tree in
// depth-first pre-order, walked with an explicit stack.
func treeSeq(th *thread, a []Value) (Value, error) {
	branch, children := a[0], a[1]
	if !isCallable(branch) {
		return nil, argError("tree-seq", 0, "a predicate function", branch)
	}
	if !isCallable(children) {
		return nil, argError("tree-seq", 1, "a function", children)
	}
	var out []Value
	stack := [][]Value{{a[2]}}
	charged := 0
	for len(stack) > 0 {
		top := len(stack) - 1
		if len(stack[top]) == 0 {
			stack = stack[:top]
			continue
		}
		node := stack[top][0]
		stack[top] = stack[top][1:]
		out = append(out, node)
		if err := th.tick(); err != nil {
			return nil, err
		}
		if len(out)-charged >= 1024 {
			if err := th.charge(int64(len(out) - charged)); err != nil {
				return nil, err
			}
			charged = len(out)
		}
		ok, err := th.test(branch, node)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		kids, err := th.call1(children, node)
		if err != nil {
			return nil, err
		}
		if s, isSeq := kids.(*Seq); isSeq {
			return nil, infiniteError(s, "tree-seq")
		}
		xs, err := th.items(kids, "tree-seq")
		if err != nil {
			return nil, err
		}
		if len(xs) > 0 {
			if len(stack) >= maxDataDepth {
				return nil, errorf(DepthExceeded, "tree-seq: tree nested deeper than %d levels", maxDataDepth)
			}
			stack = append(stack, xs)
		}
	}
	return NewVector(out), th.charge(int64(len(out) - charged))
}

// coreReplace is clojure.core/replace: the elements of coll that are keys
// of smap (a map, or a vector indexed by position) replaced by their values.
// replaceLookup returns the replacement of x in smap (a map, or a vector
// indexed by integers), as clojure.core/replace looks it up.
func replaceLookup(smap Value) (func(x Value) (Value, bool), error) {
	switch m := smap.(type) {
	case nil:
		return func(Value) (Value, bool) { return nil, false }, nil
	case *Map:
		if m.Len() == 0 {
			return func(Value) (Value, bool) { return nil, false }, nil
		}
		return m.Get, nil
	case *Vector:
		return func(x Value) (Value, bool) {
			if i, ok := x.(int64); ok && i >= 0 && i < int64(m.Len()) {
				return m.items[i], true
			}
			return nil, false
		}, nil
	}
	return nil, argError("replace", 0, "a map of replacements", smap)
}

func coreReplace(th *thread, smap, coll Value) (Value, error) {
	lookup, err := replaceLookup(smap)
	if err != nil {
		return nil, err
	}
	if s, ok := coll.(*Seq); ok {
		return &Seq{name: s.name, gen: func(th *thread, yield func(Value) (bool, error)) error {
			return s.gen(th, func(x Value) (bool, error) {
				if v, ok := lookup(x); ok {
					x = v
				}
				return yield(x)
			})
		}}, nil
	}
	xs, err := th.items(coll, "replace")
	if err != nil {
		return nil, err
	}
	// Share the input when nothing is replaced; copy on the first hit.
	var out []Value
	for i, x := range xs {
		if v, ok := lookup(x); ok {
			if out == nil {
				if _, isVec := coll.(*Vector); isVec {
					// Copied here (the items of other inputs are fresh and
					// already charged).
					if err := th.charge(int64(len(xs))); err != nil {
						return nil, err
					}
				}
				out = ownedItems(coll, xs)
			}
			out[i] = v
		}
	}
	if out == nil {
		return seqResult(coll, xs), nil
	}
	return NewVector(out), nil
}

// iteration is Clojure 1.11's (iteration step :somef :vf :kf :initk),
// realized eagerly: the values (vf ret) of the successive (step k) calls
// while (somef ret) holds, following the keys (kf ret) until one is nil.
// It is the idiom for paging through a tool's results.
func iteration(th *thread, a []Value) (Value, error) {
	step, err := fnArg("iteration", a, 0)
	if err != nil {
		return nil, err
	}
	opts := a[1:]
	if len(opts)%2 != 0 {
		return nil, errorf(ArityError, "iteration takes a step function then options as pairs (:somef f :vf f :kf f :initk k), got an odd number of option arguments")
	}
	var somef, vf, kf, initk Value
	for i := 0; i < len(opts); i += 2 {
		k, v := opts[i], opts[i+1]
		switch k {
		case Keyword("somef"):
			somef = v
		case Keyword("vf"):
			vf = v
		case Keyword("kf"):
			kf = v
		case Keyword("initk"):
			initk = v
			continue
		default:
			return nil, errorf(InvalidArgument, "iteration: unknown option %s (the options are :somef :vf :kf :initk)", brief(k))
		}
		if !isCallable(v) {
			return nil, argError("iteration", i+2, "a function", v)
		}
	}
	var out []Value
	ret, err := th.call1(step, initk)
	for err == nil {
		if err = th.tick(); err != nil {
			break
		}
		if somef != nil {
			var more Value
			if more, err = th.call1(somef, ret); err != nil {
				break
			}
			if !Truthy(more) {
				break
			}
		} else if ret == nil {
			break
		}
		v := ret
		if vf != nil {
			if v, err = th.call1(vf, ret); err != nil {
				break
			}
		}
		out = append(out, v)
		if len(out)%1024 == 0 {
			if err = th.charge(1024); err != nil {
				break
			}
		}
		k := ret
		if kf != nil {
			if k, err = th.call1(kf, ret); err != nil {
				break
			}
		}
		if k == nil {
			break
		}
		ret, err = th.call1(step, k)
	}
	if err != nil {
		return nil, err
	}
	return NewVector(out), th.charge(int64(len(out) % 1024))
}

// ---- functions, predicates, output --------------------------------------------

func registerMoreFunctions(t builtinTable) {
	t.add("trampoline", 1, -1, func(th *thread, a []Value) (Value, error) {
		f, err := fnArg("trampoline", a, 0)
		if err != nil {
			return nil, err
		}
		v, err := th.call(f, a[1:])
		for err == nil {
			switch v.(type) {
			case *Closure, *Builtin:
			default:
				return v, nil
			}
			if err = th.tick(); err != nil {
				break
			}
			v, err = th.call(v, nil)
		}
		return nil, err
	})
	t.add("comparator", 1, 1, func(_ *thread, a []Value) (Value, error) {
		pred, err := fnArg("comparator", a, 0)
		if err != nil {
			return nil, err
		}
		return &Builtin{Name: "comparator", MinArgs: 2, MaxArgs: 2, fn: func(th *thread, args []Value) (Value, error) {
			v, err := th.call2(pred, args[0], args[1])
			if err != nil || Truthy(v) {
				return int64(-1), err
			}
			if v, err = th.call2(pred, args[1], args[0]); err != nil || Truthy(v) {
				return int64(1), err
			}
			return int64(0), nil
		}}, nil
	})

	kwPred := func(name string, f func(k Keyword) bool) {
		t.add(name, 1, 1, func(_ *thread, a []Value) (Value, error) {
			k, ok := a[0].(Keyword)
			return ok && f(k), nil
		})
	}
	kwPred("ident?", func(Keyword) bool { return true })
	kwPred("simple-ident?", func(k Keyword) bool { return !qualifiedKeyword(k) })
	kwPred("qualified-ident?", qualifiedKeyword)
	kwPred("simple-keyword?", func(k Keyword) bool { return !qualifiedKeyword(k) })
	kwPred("qualified-keyword?", qualifiedKeyword)
	// There are no symbols.
	t.add("simple-symbol?", 1, 1, func(*thread, []Value) (Value, error) { return false, nil })
	t.add("qualified-symbol?", 1, 1, func(*thread, []Value) (Value, error) { return false, nil })

	t.add("printf", 1, -1, func(th *thread, a []Value) (Value, error) {
		f, err := stringArg("printf", a, 0)
		if err != nil {
			return nil, err
		}
		args := a[1:]
		if r := th.run.redact; r != nil {
			// Hidden arguments print as the placeholder, whatever the
			// conversion; collections are redacted inside by render.
			args = slices.Clone(args)
			for i, x := range args {
				if r.hidesValue(x) {
					args[i] = r.Placeholder
				}
			}
			th.printing = true
			defer func() { th.printing = false }()
		}
		s, err := th.formatJava(f, args)
		if err != nil {
			return nil, err
		}
		// Like print: no newline of its own; the newlines of the format end lines.
		lines := strings.Split(s.(string), "\n")
		for i, line := range lines {
			if i == len(lines)-1 {
				if line != "" {
					return nil, th.printLine(line, false)
				}
				break
			}
			if err := th.printLine(line, true); err != nil {
				return nil, err
			}
		}
		return nil, nil
	})
	// Output is collected, not streamed: there is nothing to flush.
	t.add("flush", 0, 0, func(*thread, []Value) (Value, error) { return nil, nil })

	t.add("parse-uuid", 1, 1, func(_ *thread, a []Value) (Value, error) {
		s, err := stringArg("parse-uuid", a, 0)
		if err != nil {
			return nil, err
		}
		return parseUUID(s), nil
	})
}

// qualifiedKeyword reports whether k has a namespace, as (namespace k) sees it.
func qualifiedKeyword(k Keyword) bool {
	s := string(k)
	i := strings.LastIndexByte(s, '/')
	return i > 0 && i < len(s)-1
}

// parseUUID follows Java's UUID.fromString (five dash-separated hex fields,
// at most 36 characters) and returns the canonical lower-case string, or
// nil: there is no UUID type, UUIDs are strings.
func parseUUID(s string) Value {
	if len(s) > 36 {
		return nil
	}
	parts := strings.Split(s, "-")
	if len(parts) != 5 {
		return nil
	}
	var f [5]uint64
	for i, p := range parts {
		n, err := strconv.ParseInt(p, 16, 64)
		if err != nil {
			return nil
		}
		f[i] = uint64(n)
	}
	return fmt.Sprintf("%08x-%04x-%04x-%04x-%012x",
		f[0]&0xffffffff, f[1]&0xffff, f[2]&0xffff, f[3]&0xffff, f[4]&0xffffffffffff)
}

// ---- clojure.string -----------------------------------------------------------

func registerMoreStrings(t builtinTable) {
	t.add("clojure.string/re-quote-replacement", 1, 1, func(th *thread, a []Value) (Value, error) {
		s, err := stringArg("re-quote-replacement", a, 0)
		if err != nil {
			return nil, err
		}
		if !strings.ContainsAny(s, `\$`) {
			return s, nil
		}
		n := len(s) + strings.Count(s, `\`) + strings.Count(s, "$")
		if err := th.chargeString(n); err != nil {
			return nil, err
		}
		var sb strings.Builder
		sb.Grow(n)
		for i := 0; i < len(s); i++ {
			if s[i] == '\\' || s[i] == '$' {
				sb.WriteByte('\\')
			}
			sb.WriteByte(s[i])
		}
		return sb.String(), nil
	})
}

// ---- clojure.set --------------------------------------------------------------

func registerMoreSets(t builtinTable) {
	renameKeys := t["clojure.set/rename-keys"].(*Builtin).fn
	t.add("clojure.set/rename", 2, 2, func(th *thread, a []Value) (Value, error) {
		xs, err := relationItems(th, "rename", a[0])
		if err != nil {
			return nil, err
		}
		buf := []Value{nil, a[1]}
		b := NewSetBuilder(nil)
		for _, x := range xs {
			buf[0] = x
			m, err := renameKeys(th, buf)
			if err != nil {
				return nil, err
			}
			if err := th.charge(2); err != nil { // its place in the set
				return nil, err
			}
			b.Add(m)
		}
		return b.Set(), nil
	})
	t.add("clojure.set/join", 2, 3, setJoin)
}

// relationItems returns the maps of a relation (a set or sequence of maps).
func relationItems(th *thread, fn string, rel Value) ([]Value, error) {
	if s, ok := rel.(*Seq); ok {
		return nil, infiniteError(s, fn)
	}
	if _, ok := rel.(*Map); ok {
		return nil, errorf(TypeError, "%s expects a set of maps, got a single map", fn)
	}
	xs, err := th.items(rel, fn)
	if err != nil {
		return nil, err
	}
	for _, x := range xs {
		if _, ok := x.(*Map); !ok {
			return nil, errorf(TypeError, "%s expects a set of maps, got an element %s", fn, describe(x))
		}
	}
	return xs, nil
}

// setJoin is clojure.set/join: the natural join of two relations on their
// shared keys (those of their first maps), or the join on the key mapping
// km {xkey ykey}. The smaller relation is indexed; on a clash the values of
// the other one win, as in Clojure.
func setJoin(th *thread, a []Value) (Value, error) {
	xs, err := relationItems(th, "join", a[0])
	if err != nil {
		return nil, err
	}
	ys, err := relationItems(th, "join", a[1])
	if err != nil {
		return nil, err
	}
	// r is indexed on rKeys; each s element is looked up by its values under
	// sKeys, stored under the matching rKeys.
	var r, s, rKeys, sKeys []Value
	if len(a) == 2 {
		if len(xs) == 0 || len(ys) == 0 {
			return emptySet, nil
		}
		x0, y0 := xs[0].(*Map), ys[0].(*Map)
		for k := range x0.All() {
			if _, ok := y0.Get(k); ok {
				rKeys = append(rKeys, k)
			}
		}
		sKeys = rKeys
		r, s = xs, ys
		if len(xs) > len(ys) {
			r, s = ys, xs
		}
	} else {
		km, err := mapArg("join", a[2])
		if err != nil {
			return nil, err
		}
		r, s = xs, ys
		if len(xs) > len(ys) {
			r, s = ys, xs
		}
		if km != nil {
			for xk, yk := range km.All() {
				if len(xs) <= len(ys) {
					rKeys, sKeys = append(rKeys, xk), append(sKeys, yk)
				} else {
					rKeys, sKeys = append(rKeys, yk), append(sKeys, xk)
				}
			}
		}
	}
	project := func(m *Map, from []Value) *Map {
		b := emptyMapBuilder()
		for i, k := range from {
			if v, ok := m.Get(k); ok {
				b.Set(rKeys[i], v)
			}
		}
		return b.Map()
	}
	// The index: each r row projected on the join keys, and its place in
	// its group, charged before it is built; every row walks the keys.
	if err := th.charge(int64(len(r)) * (2*int64(len(rKeys)) + valueMapSlots)); err != nil {
		return nil, err
	}
	if err := th.ticks(len(r) * max(1, len(rKeys))); err != nil {
		return nil, err
	}
	idx := newValueMap[[]*Map](th, len(r))
	for _, x := range r {
		m := x.(*Map)
		g := idx.ref(project(m, rKeys))
		*g = append(*g, m)
	}
	out := NewSetBuilder(nil)
	for _, x := range s {
		m := x.(*Map)
		if err := th.ticks(1 + len(sKeys)); err != nil {
			return nil, err
		}
		n := len(idx.keys)
		group := *idx.ref(project(m, sKeys))
		if len(idx.keys) > n {
			// ref added the (empty) group of a key r does not have.
			if err := th.charge(valueMapSlots); err != nil {
				return nil, err
			}
		}
		for _, y := range group {
			// A join can be a cross product: account for every row it builds.
			if err := th.ticks(m.Len()); err != nil {
				return nil, err
			}
			if err := th.charge(int64(y.Len() + m.Len())); err != nil {
				return nil, err
			}
			b := newMapBuilder(treeOf(y))
			for k, v := range m.All() {
				b.Set(k, v)
			}
			out.Add(b.Map())
		}
	}
	return out.Set(), nil
}

// rseqSorted is rseq of a map (its [key value] entries) or a set: every map
// and set is sorted, so, as for Clojure's sorted collections, it walks them
// backwards. Empty gives nil.
func rseqSorted(th *thread, coll Value) (Value, error) {
	var out []Value
	switch c := coll.(type) {
	case *Map:
		if c.Len() == 0 {
			return nil, nil
		}
		if err := th.charge(entriesSlots(c.Len())); err != nil {
			return nil, err
		}
		out = mapEntries(c)
		slices.Reverse(out)
	case *Set:
		if c.Len() == 0 {
			return nil, nil
		}
		if err := th.charge(int64(c.Len())); err != nil {
			return nil, err
		}
		out = c.Items()
		slices.Reverse(out)
	default:
		return nil, argError("rseq", 0, "a vector, map or set (use (reverse coll) for other collections)", coll)
	}
	return NewVector(out), th.ticks(len(out))
}

// subseqBound is one test of subseq: (op element-key key).
type subseqBound struct {
	op  string
	key Value
}

func (b subseqBound) holds(k Value) bool {
	c := compareKeys(k, b.key)
	switch b.op {
	case "<":
		return c < 0
	case "<=":
		return c <= 0
	case ">":
		return c > 0
	}
	return c >= 0
}

// subseq is (subseq sc test key) and (subseq sc start-test start-key
// end-test end-key) over a map (compared by key) or a set, in the canonical
// order every map and set has; rsubseq gives the same elements backwards.
// The tests are <, <=, > and >=, as in Clojure.
func subseq(th *thread, fn string, a []Value, rev bool) (Value, error) {
	if len(a) == 4 {
		return nil, errorf(ArityError, "%s takes (%s coll test key) or (%s coll start-test start-key end-test end-key), got 4 arguments", fn, fn, fn)
	}
	var bounds []subseqBound
	for i := 1; i+1 < len(a); i += 2 {
		b, ok := a[i].(*Builtin)
		if !ok || (b.Name != "<" && b.Name != "<=" && b.Name != ">" && b.Name != ">=") {
			return nil, argError(fn, i, "one of < <= > >=", a[i])
		}
		bounds = append(bounds, subseqBound{b.Name, a[i+1]})
	}
	_, isMap := a[0].(*Map)
	switch a[0].(type) {
	case *Map, *Set, nil:
	default:
		return nil, argError(fn, 0, "a map or set (sorted collections)", a[0])
	}
	xs, err := th.items(a[0], fn)
	if err != nil {
		return nil, err
	}
	keyOf := func(x Value) Value {
		if isMap {
			return x.(*Vector).items[0]
		}
		return x
	}
	var out []Value
	for _, x := range xs {
		if all(bounds, keyOf(x)) {
			out = append(out, x)
		}
	}
	if len(out) > 0 {
		if rev {
			slices.Reverse(out)
		}
		return NewVector(out), nil
	}
	// Selecting nothing gives nil or an empty sequence, as Clojure's, by
	// where its search starts. From the key when the starting test points
	// away from the start (subseq: > >=; rsubseq: < <=): nil unless an
	// element lies on the key's side (only the two-test form can leave one
	// unselected). Otherwise from the start: the one-test form gives an
	// empty sequence, the two-test form nil for an empty collection.
	start := bounds[0]
	fromKey := start.op == ">" || start.op == ">="
	if rev {
		start = bounds[len(bounds)-1]
		fromKey = start.op == "<" || start.op == "<="
	}
	switch {
	case fromKey:
		side := subseqBound{">=", start.key}
		if rev {
			side.op = "<="
		}
		for _, x := range xs {
			if len(bounds) == 2 && side.holds(keyOf(x)) {
				return emptyVector, nil
			}
		}
		return nil, nil
	case len(bounds) == 2 && len(xs) == 0:
		return nil, nil
	}
	return emptyVector, nil
}

func all(bounds []subseqBound, k Value) bool {
	for _, b := range bounds {
		if !b.holds(k) {
			return false
		}
	}
	return true
}

// sequenceColl is (sequence coll): the collection as a sequence ((sequence
// xform coll), registered with the transducers, calls it too).
func sequenceColl(th *thread, coll Value) (Value, error) {
	switch c := coll.(type) {
	case *Seq, *Vector:
		return c, nil
	case nil:
		return emptyVector, nil
	}
	xs, err := th.items(coll, "sequence")
	if err != nil {
		return nil, err
	}
	return NewVector(xs), nil
}
