package lisp

import (
	"math"
	"math/big"
	"sort"
	"strings"
)

// builtinFn is the Go signature of a builtin. args is only valid during the
// call (it lives on the evaluator's stack): copy it to keep it.
type builtinFn = func(th *thread, args []Value) (Value, error)

// builtinTable is the table of builtins while the package is initialised:
// names maps canonical names ("map", "clojure.string/join", "Math/sqrt") to
// builtin functions and constants; it is never modified afterwards.
type builtinTable struct {
	names map[string]Value
	// slab holds the Builtins add has yet to hand out: they are made a
	// chunk at a time rather than one allocation each (a thousand of
	// them at start-up).
	slab []Builtin
	// aliases lists each registration of a Builtin under a name other
	// than its own (registerSeqViews finds every name of a builtin from
	// them, without a walk of the whole table; flagCalls, which flagged
	// builtins have other names).
	aliases []aliasOf
	// walkAll makes registerSeqViews find the names of a builtin by a
	// walk of the table instead (TestSeqViewNames compares the two).
	walkAll bool
}

// aliasOf is a registration of b under name, not b.Name.
type aliasOf struct {
	b    *Builtin
	name string
}

// builtinChunk is how many Builtins one chunk of the slab holds.
const builtinChunk = 256

// builtinCount is about how many names the table holds (1392 when last
// counted): a hint for its size, right or not.
const builtinCount = 1536

// builtins is the table of every builtin of the language.
var builtins = newBuiltinTable()

// newBuiltinTable registers the builtins topic by topic, one file each:
// numbers (builtins_num.go), sequences (builtins_seq.go), maps and
// clojure.set (builtins_map.go), strings (builtins_str.go), functions and
// output (builtins_fn.go), time and dates (builtins_time.go,
// builtins_date.go), exceptions (exceptions.go), types, classes and symbols
// (types.go), the java.lang methods and statics (builtins_java.go),
// clojure.walk (builtins_walk.go), lazy-seq's runtime (seq_lazy.go),
// sorted-map-by and sorted-set-by (sorted_by.go), the transducer arities
// (transducers.go), which extend sequence functions with wrap, and atoms,
// volatiles and transients (state.go), which extend count, get, nth and
// contains? to transients the same way; Java arrays and StringBuilders
// (arrays.go, builder.go), which extend the String methods; BigDecimal and
// BigInteger on the numbers there are (builtins_bignum.go). Each
// name is registered once (set refuses a second time), so the order only
// matters where a topic reads a builtin registered before it.
func newBuiltinTable() map[string]Value {
	return buildBuiltinTable(&builtinTable{names: make(map[string]Value, builtinCount)}) // sized: no rehash at start-up
}

// buildBuiltinTable registers every builtin in t and returns its names.
func buildBuiltinTable(t *builtinTable) map[string]Value {
	registerNumbers(t)
	registerMath(t)
	registerRead(t)
	registerJSON(t)
	registerPprint(t)
	registerCLFormat(t)
	registerMulti(t)
	registerProtocols(t)
	registerHierarchy(t)
	registerSequences(t)
	registerMaps(t)
	registerStrings(t)
	registerFunctions(t)
	registerTime(t)
	registerRefs(t)
	registerDateTimes(t)
	registerDateFormats(t)
	registerDecimalFormat(t) // after registerDateFormats: it extends .format and .parse
	registerDates(t)
	registerJavaTime(t)
	registerYearMonth(t) // after the date methods it extends to year-months
	registerLocalTime(t) // after the date-time methods it extends to times of day
	registerExceptions(t)
	registerJava(t)
	registerWalk(t)
	registerZip(t)
	registerEncoding(t)
	registerData(t)
	registerLazy(t)
	registerSortedBy(t)
	registerTransducers(t)
	registerState(t)
	registerSTM(t)
	registerAgents(t)
	registerZones(t)
	registerArrays(t)
	registerBuilder(t)
	registerUtil(t)
	registerBignum(t)     // after registerUtil: it extends .add to numbers
	registerBigInteger(t) // after registerBignum and registerJava: it extends their methods to BigInts
	registerTypes(t)
	registerClojureMath(t)
	registerSeqViews(t)
	flagCalls(t)
	return t.names
}

// add registers fn under name and its aliases. max < 0 means variadic.
func (t *builtinTable) add(name string, min, max int, fn builtinFn, aliases ...string) *Builtin {
	if len(t.slab) == 0 {
		t.slab = make([]Builtin, builtinChunk)
	}
	b := &t.slab[0]
	t.slab = t.slab[1:]
	*b = Builtin{Name: name, MinArgs: min, MaxArgs: max, fn: fn}
	t.set(name, b)
	for _, a := range aliases {
		t.set(a, b)
	}
	return b
}

// alias registers existing builtins under more names.
func (t *builtinTable) alias(name string, aliases ...string) {
	v, ok := t.names[name]
	if !ok {
		panic("lisp: alias of the unregistered builtin " + name)
	}
	for _, a := range aliases {
		t.set(a, v)
	}
}

// set registers v under name, once: a second registration of a name would
// silently depend on the order of the register functions, so it is a
// programming error, found when the package is initialised (and by
// TestBuiltinsRegisteredOnce).
func (t *builtinTable) set(name string, v Value) {
	n := len(t.names)
	t.names[name] = v // a new name grows the table: one lookup, not two
	if len(t.names) == n {
		panic("lisp: builtin " + name + " registered twice")
	}
	t.noteAlias(name, v)
}

// noteAlias records name among the aliases of v if v is a Builtin of
// another name.
func (t *builtinTable) noteAlias(name string, v Value) {
	if b, ok := v.(*Builtin); ok && b.Name != name {
		if t.aliases == nil {
			t.aliases = make([]aliasOf, 0, 256)
		}
		t.aliases = append(t.aliases, aliasOf{b, name})
	}
}

// wrap replaces the registered builtin name by what wrap makes of it (a
// copy: aliases keep the original). It is the one way to extend a builtin
// registered elsewhere, e.g. with its transducer arity.
func (t *builtinTable) wrap(name string, wrap func(old *Builtin) *Builtin) {
	old, ok := t.names[name].(*Builtin)
	if !ok {
		panic("lisp: wrap of the unregistered builtin " + name)
	}
	b := wrap(old)
	t.names[name] = b
	t.noteAlias(name, b)
}

// builtinNames lists the names for suggestions (unqualified ones only).
func builtinNames() []string {
	names := make([]string, 0, len(builtins))
	for n := range builtins {
		if (!strings.Contains(n, "/") || n == "/") && !strings.HasPrefix(n, " ") {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}

// ---- argument helpers -------------------------------------------------------

// argError reports a wrong argument: "+ expects a number as argument 2, got string "a"".
// A nil where a value was expected is a NullPointerException in Clojure.
func argError(fn string, i int, want string, got Value) *Error {
	e := errorf(TypeError, "%s expects %s as argument %d, got %s", fn, want, i+1, describe(got))
	if got == nil {
		e.Class = classNullPointer.name
	}
	return e
}

func intArg(fn string, args []Value, i int) (int64, error) {
	switch v := args[i].(type) {
	case int64:
		return v, nil
	case *big.Int:
		if v.IsInt64() {
			return v.Int64(), nil
		}
	case float64:
		if v == math.Trunc(v) && !math.IsInf(v, 0) && math.Abs(v) < 1<<53 {
			return int64(v), nil
		}
	case *Decimal:
		if r, ok := v.rat(); ok && r.IsInt() && r.Num().IsInt64() {
			return r.Num().Int64(), nil
		}
	}
	return 0, argError(fn, i, "an integer", args[i])
}

// countArg reads a count as Clojure's sequence functions do: they step it
// down by one while it is positive, so a fraction counts as the next whole
// number. `/` gives floats here where Clojure gives ratios, so
// (take (/ (count xs) 2) xs) takes what it takes in Clojure.
func countArg(fn string, args []Value, i int) (int64, error) {
	if v, ok := fraction(args[i]); ok {
		return int64(math.Ceil(v)), nil
	}
	return intArg(fn, args, i)
}

// indexArg reads an index as Clojure's nth, subs and repeat do: a fraction
// is truncated, so (nth xs (/ (count xs) 2)) is the middle element.
func indexArg(fn string, args []Value, i int) (int64, error) {
	if v, ok := fraction(args[i]); ok {
		return int64(v), nil
	}
	return intArg(fn, args, i)
}

// fraction reports a finite float that is not whole (and small enough that
// its whole part is exact).
func fraction(v Value) (float64, bool) {
	f, ok := v.(float64)
	return f, ok && f != math.Trunc(f) && math.Abs(f) < 1<<53
}

func numArg(fn string, args []Value, i int) (Value, error) {
	switch v := args[i].(type) {
	case int64, float64:
		return args[i], nil
	case *big.Int:
		// Builtins that compute on longs and doubles take a BigInt as the
		// long it is, or as the double nearest it.
		if v.IsInt64() {
			return v.Int64(), nil
		}
		return bigToFloat(v), nil
	case *Decimal:
		return v.Float64(), nil // as the double it is nearest
	}
	return nil, argError(fn, i, "a number", args[i])
}

func floatArg(fn string, args []Value, i int) (float64, error) {
	switch v := args[i].(type) {
	case int64:
		return float64(v), nil
	case *big.Int:
		return bigToFloat(v), nil
	case *Decimal:
		return v.Float64(), nil
	case float64:
		return v, nil
	}
	return 0, argError(fn, i, "a number", args[i])
}

func stringArg(fn string, args []Value, i int) (string, error) {
	if s, ok := args[i].(string); ok {
		return s, nil
	}
	return "", argError(fn, i, "a string", args[i])
}

func fnArg(fn string, args []Value, i int) (Value, error) {
	if isCallable(args[i]) {
		return args[i], nil
	}
	return nil, argError(fn, i, "a function", args[i])
}

// call1 calls f with one argument using the thread's stack for the buffer.
func (th *thread) call1(f, x Value) (Value, error) {
	if b, ok := f.(*Builtin); ok && b.MinArgs <= 1 && (b.MaxArgs < 0 || b.MaxArgs >= 1) {
		buf, mark := th.stack.alloc(1)
		buf[0] = x
		v, err := b.fn(th, buf)
		th.stack.release(buf, mark)
		return v, err
	}
	if k, ok := f.(Keyword); ok {
		if m, ok := x.(*Map); ok {
			// Pass f, the boxed keyword: re-boxing k would allocate.
			v, _ := m.lookupNamed(string(k), true, f, nil, nil)
			return v, nil
		}
	}
	buf, mark := th.stack.alloc(1)
	buf[0] = x
	v, err := th.call(f, buf)
	th.stack.release(buf, mark)
	return v, err
}

// call2 calls f with two arguments.
func (th *thread) call2(f, x, y Value) (Value, error) {
	buf, mark := th.stack.alloc(2)
	buf[0], buf[1] = x, y
	v, err := th.call(f, buf)
	th.stack.release(buf, mark)
	return v, err
}
