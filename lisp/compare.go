package lisp

import (
	"cmp"
	"math"
	"math/big"
	"reflect"
	"strings"
)

// Type classes of the total order, lowest first. The order follows the
// reference implementation: numbers < keywords and other atoms < functions <
// maps and sets < vectors < strings; then the remaining kinds.
const (
	rankNumber = iota
	rankAtom
	rankFn
	rankMap
	rankVector
	rankString
	rankVar
	rankRegex
	rankSeq
	rankTime
	rankCell
	rankHost
)

func rank(v Value) int {
	switch v.(type) {
	case int64, float64, *big.Int, *Decimal:
		return rankNumber
	case nil, bool, Keyword, Symbol, Class:
		return rankAtom
	case *Closure, *Builtin:
		return rankFn
	case *Map, *Set:
		return rankMap
	case *Vector:
		return rankVector
	case string:
		return rankString
	case *Var:
		return rankVar
	case *Regex:
		return rankRegex
	case *Seq:
		return rankSeq
	case Instant, Date:
		return rankTime
	case *Cell:
		return rankCell
	}
	return rankHost
}

// compareKeys is the strict total order on values used for map keys and
// set elements: values that compare equal are interchangeable. Numbers
// order by value with ±Inf at the ends and NaN after +Inf; an integer
// sorts just before the float of the same value (so 1 and 1.0 stay
// distinct keys). It has fast paths for common keys.
func compareKeys(a, b Value) int {
	// Fast paths for the common key types.
	switch x := a.(type) {
	case Keyword:
		if y, ok := b.(Keyword); ok {
			// By their text: the canonical order of maps and sets, cheaper
			// than Clojure's order of namespaces (compareKeywords), which
			// sort and compare use. The first bytes decide inline when
			// they differ, as the names of most keys of a map do; the
			// runtime's comparison is for the rest.
			if len(x) > 0 && len(y) > 0 && x[0] != y[0] {
				return cmp.Compare(x[0], y[0])
			}
			return strings.Compare(string(x), string(y))
		}
	case string:
		if y, ok := b.(string); ok {
			if len(x) > 0 && len(y) > 0 && x[0] != y[0] {
				return cmp.Compare(x[0], y[0])
			}
			return strings.Compare(x, y)
		}
	case int64:
		if y, ok := b.(int64); ok {
			return cmp.Compare(x, y)
		}
	}
	var w walk
	return compareValues(a, b, true, 0, &w)
}

// compareKeywords orders keywords as Clojure does: those without a
// namespace first, then by namespace and name. Their texts decide alone
// unless one has a namespace.
func compareKeywords(x, y Keyword) int {
	c := strings.Compare(string(x), string(y))
	if c == 0 || (strings.IndexByte(string(x), '/') <= 0 && strings.IndexByte(string(y), '/') <= 0) {
		return c
	}
	nsx, namex := splitKeyword(x)
	nsy, namey := splitKeyword(y)
	return cmp.Compare(compareNamed(nsx, namex, nsy, namey), 0)
}

// compare implements Compare.
func compare(a, b Value) int { return compareIn(nil, a, b) }

// compareIn is compare, counting its work as steps of th when th is set.
func compareIn(th *thread, a, b Value) int {
	switch x := a.(type) {
	case int64:
		if y, ok := b.(int64); ok {
			return cmp.Compare(x, y)
		}
	case string:
		if y, ok := b.(string); ok {
			return strings.Compare(x, y)
		}
	}
	w := walk{th: th}
	c := compareValues(a, b, false, 0, &w)
	w.done()
	return c
}

func compareValues(a, b Value, strict bool, depth int, w *walk) int {
	ra, rb := rank(a), rank(b)
	if ra != rb {
		return cmp.Compare(ra, rb)
	}
	switch ra {
	case rankNumber:
		return compareNumbers(a, b, strict)
	case rankAtom:
		// Keywords and symbols as Clojure orders them: those without a
		// namespace first, then by namespace, then by name.
		if x, ok := a.(Keyword); ok {
			if y, ok := b.(Keyword); ok {
				return compareKeywords(x, y)
			}
		}
		if x, ok := a.(Symbol); ok {
			if y, ok := b.(Symbol); ok {
				return cmp.Compare(compareNamed(x.Ns, x.Name, y.Ns, y.Name), 0)
			}
		}
		ta, tb := atomText(a), atomText(b)
		if c := strings.Compare(ta, tb); c != 0 {
			return c
		}
		return cmp.Compare(atomKind(a), atomKind(b))
	case rankString:
		return strings.Compare(a.(string), b.(string))
	case rankVector:
		checkDepth(depth)
		x, y := a.(*Vector).items, b.(*Vector).items
		if a == b {
			return 0
		}
		w.visit(len(x))
		for i := 0; i < len(x) && i < len(y); i++ {
			if c := compareValues(x[i], y[i], strict, depth+1, w); c != 0 {
				return c
			}
		}
		return cmp.Compare(len(x), len(y))
	case rankMap:
		checkDepth(depth)
		if a == b {
			return 0
		}
		w.visit(countOf(a))
		return compareMapsAndSets(a, b, strict, depth+1, w)
	case rankVar:
		return strings.Compare(a.(*Var).Name, b.(*Var).Name)
	case rankRegex:
		if c := strings.Compare(a.(*Regex).Source, b.(*Regex).Source); c != 0 || !strict {
			return c
		}
	case rankTime:
		return compareTimes(a, b)
	case rankFn:
		// By what they print first, so that equal texts order alike in
		// every run (a map keyed by functions prints the same, and reads
		// back as it printed); identity orders functions that print alike.
		if c := strings.Compare(fnText(a), fnText(b)); c != 0 {
			return c
		}
	case rankCell:
		// Identity, in creation order (deterministic), then by address
		// for cells of equal ids (made outside a run, or by runs of
		// different namespaces).
		if c := cmp.Compare(a.(*Cell).id, b.(*Cell).id); c != 0 {
			return c
		}
	}
	// Functions, sequences and host values: identity order.
	return cmp.Compare(identity(a), identity(b))
}

// fnText is what the printer writes inside #fn[...] (or #transducer[...])
// for a function.
func fnText(v Value) string {
	switch f := v.(type) {
	case *Builtin:
		if f.xf != nil {
			names := make([]string, len(f.xf.stages))
			for i, st := range f.xf.stages {
				names[i] = st.name
			}
			return "\xff" + strings.Join(names, " ") // transducers after the functions
		}
		return f.Name
	case *Closure:
		return f.describeParams()
	}
	return ""
}

func identity(v Value) uintptr {
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Pointer, reflect.Func, reflect.Map, reflect.Slice, reflect.Chan, reflect.UnsafePointer:
		return rv.Pointer()
	}
	return 0
}

func atomText(v Value) string {
	switch v := v.(type) {
	case nil:
		return "nil"
	case bool:
		if v {
			return "true"
		}
		return "false"
	case Keyword:
		return string(v)
	case Symbol:
		return v.String()
	case Class:
		return v.Name
	}
	return ""
}

func atomKind(v Value) int {
	switch v.(type) {
	case Keyword:
		return 0
	case nil:
		return 1
	case Symbol:
		return 3
	case Class:
		return 4
	}
	return 2
}

// compareNumbers orders int64 and float64 values exactly (no rounding of
// large integers through float64).
func compareNumbers(a, b Value, strict bool) int {
	switch x := a.(type) {
	case int64:
		switch y := b.(type) {
		case int64:
			return cmp.Compare(x, y)
		case float64:
			if c := compareIntFloat(x, y); c != 0 || !strict {
				return c
			}
			return -1
		}
	case float64:
		switch y := b.(type) {
		case int64:
			if c := -compareIntFloat(y, x); c != 0 || !strict {
				return c
			}
			return 1
		case float64:
			return compareFloats(x, y)
		}
	}
	// A BigInt on either side (bigint.go): off the paths of longs and doubles.
	if x, ok := a.(*big.Int); ok {
		c := compareBig(x, b)
		if _, isF := b.(float64); isF && c == 0 && strict {
			return -1 // an integer before the float of its value, as a long
		}
		return c
	}
	if y, ok := b.(*big.Int); ok {
		return -compareNumbers(y, a, strict)
	}
	// A BigDecimal on either side (decimal.go).
	if x, ok := a.(*Decimal); ok {
		return compareDecimal(x, b, strict)
	}
	if y, ok := b.(*Decimal); ok {
		return -compareDecimal(y, a, strict)
	}
	return 0
}

// compareDecimal orders a BigDecimal against a number: exactly against an
// integer or a BigDecimal, as the double it is nearest against a float.
// strict (sorted collections, sets) orders equal values of different
// kinds: the integer, then the BigDecimal, then the float.
func compareDecimal(x *Decimal, b Value, strict bool) int {
	if f, ok := b.(float64); ok {
		if c := compareFloats(x.Float64(), f); c != 0 || !strict {
			return c
		}
		return -1
	}
	y, ok := decimalOf(b)
	if !ok {
		return 0
	}
	if c := x.cmp(y); c != 0 || !strict {
		return c
	}
	if _, isDec := b.(*Decimal); isDec {
		return 0
	}
	return 1
}

// compareFloats is a total order: -Inf < ... < +Inf < NaN, -0.0 == 0.0.
func compareFloats(x, y float64) int {
	xn, yn := math.IsNaN(x), math.IsNaN(y)
	switch {
	case xn && yn:
		return 0
	case xn:
		return 1
	case yn:
		return -1
	}
	return cmp.Compare(x, y)
}

func compareIntFloat(i int64, f float64) int {
	if math.IsNaN(f) {
		return -1
	}
	if f < -9.223372036854775808e18 {
		return 1
	}
	if f >= 9.223372036854775808e18 {
		return -1
	}
	t := math.Trunc(f)
	if c := cmp.Compare(i, int64(t)); c != 0 {
		return c
	}
	// Same integer part: the fraction decides.
	return cmp.Compare(0, f-t)
}

func compareMapsAndSets(a, b Value, strict bool, depth int, w *walk) int {
	la, lb := countOf(a), countOf(b)
	if la != lb {
		return cmp.Compare(la, lb)
	}
	ma, aIsMap := a.(*Map)
	mb, bIsMap := b.(*Map)
	if aIsMap != bIsMap {
		if aIsMap {
			return -1
		}
		return 1
	}
	if aIsMap {
		ia, ib := ma.iter(), mb.iter()
		for {
			ka, va, ok := ia.Next()
			if !ok {
				return 0
			}
			kb, vb, _ := ib.Next()
			if c := compareValues(ka, kb, strict, depth, w); c != 0 {
				return c
			}
			if c := compareValues(va, vb, strict, depth, w); c != 0 {
				return c
			}
		}
	}
	ia, ib := a.(*Set).t.Iter(), b.(*Set).t.Iter()
	for {
		ka, _, ok := ia.Next()
		if !ok {
			return 0
		}
		kb, _, _ := ib.Next()
		if c := compareValues(ka, kb, strict, depth, w); c != 0 {
			return c
		}
	}
}

func countOf(v Value) int {
	switch v := v.(type) {
	case *Map:
		return v.Len()
	case *Set:
		return v.Len()
	}
	return 0
}

// equal implements Equal.
func equal(a, b Value) bool {
	var w walk
	return equalAt(a, b, 0, &w)
}

func equalAt(a, b Value, depth int, w *walk) bool {
	switch x := a.(type) {
	case nil:
		return b == nil
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case int64:
		switch y := b.(type) {
		case int64:
			return x == y
		case float64:
			return compareIntFloat(x, y) == 0
		case *big.Int:
			return y.IsInt64() && y.Int64() == x
		}
		return false
	case float64:
		switch y := b.(type) {
		case float64:
			return x == y
		case int64:
			return compareIntFloat(y, x) == 0
		case *big.Int:
			return !math.IsNaN(x) && compareBig(y, x) == 0
		}
		return false
	case *big.Int:
		switch y := b.(type) {
		case int64, *big.Int:
			return compareBig(x, y) == 0
		case float64:
			return !math.IsNaN(y) && compareBig(x, y) == 0
		}
		return false
	case *Decimal:
		// As Clojure's =: a BigDecimal equals a BigDecimal of its value
		// (0.3M and 0.30M), never a long or a double (== compares those).
		y, ok := b.(*Decimal)
		return ok && x.cmp(y) == 0
	case string:
		y, ok := b.(string)
		return ok && x == y
	case Keyword:
		y, ok := b.(Keyword)
		return ok && x == y
	case *Vector:
		switch y := b.(type) {
		case *Vector:
			if len(x.items) != len(y.items) {
				return false
			}
			if x == y {
				return true
			}
			checkDepth(depth)
			w.visit(len(x.items))
			for i := range x.items {
				if !equalAt(x.items[i], y.items[i], depth+1, w) {
					return false
				}
			}
			return true
		case *Seq:
			return equalSeqIn(x, y, depth, w)
		case *Cell:
			return y.kind == utilCell && utilEqual(x, y, depth, w)
		}
		return false
	case *Map:
		y, ok := b.(*Map)
		if !ok {
			c, isCell := b.(*Cell)
			return isCell && c.kind == utilCell && utilEqual(x, c, depth, w)
		}
		if x.Len() != y.Len() {
			return false
		}
		if x.same(y) {
			return true
		}
		checkDepth(depth)
		w.visit(x.Len())
		ix, iy := x.iter(), y.iter()
		for {
			kx, vx, ok := ix.Next()
			if !ok {
				return true
			}
			ky, vy, _ := iy.Next()
			if compareValues(kx, ky, true, depth+1, w) != 0 || !equalAt(vx, vy, depth+1, w) {
				return false
			}
		}
	case *Set:
		y, ok := b.(*Set)
		if !ok {
			c, isCell := b.(*Cell)
			return isCell && c.kind == utilCell && utilEqual(x, c, depth, w)
		}
		if x.Len() != y.Len() {
			return false
		}
		checkDepth(depth)
		w.visit(x.Len())
		ix, iy := x.t.Iter(), y.t.Iter()
		for {
			kx, _, ok := ix.Next()
			if !ok {
				return true
			}
			ky, _, _ := iy.Next()
			if compareValues(kx, ky, true, depth+1, w) != 0 {
				return false
			}
		}
	case *Var:
		y, ok := b.(*Var)
		return ok && x.Name == y.Name
	case *Seq:
		return equalSeqIn(x, b, depth, w)
	case Instant:
		y, ok := b.(Instant)
		return ok && x.T.Equal(y.T) && x.local == y.local && sameZone(x, y)
	case *Cell:
		if x.kind == utilCell {
			return utilEqual(x, b, depth, w)
		}
	}
	return a == b
}

// equalSeqIn compares a lazy sequence with a value: the same sequence,
// or, inside a run, a sequence that may end (lazy-seq) realized and
// compared element by element with a vector or another one, as Clojure's
// (= (lazy-seq [1 2]) [1 2]). An infinite sequence equals only itself.
func equalSeqIn(a, b Value, depth int, w *walk) bool {
	if a == b {
		return true
	}
	if w.th == nil {
		return false
	}
	realized := func(v Value) (Value, bool) {
		switch x := v.(type) {
		case *Vector:
			return x, true
		case *Seq:
			if !x.finite {
				return nil, false
			}
			xs, err := w.th.realize(x, -1, "=")
			if err != nil {
				panic(stopped{err})
			}
			return NewVector(xs), true
		}
		return nil, false
	}
	x, ok := realized(a)
	if !ok {
		return false
	}
	y, ok := realized(b)
	return ok && equalAt(x, y, depth, w)
}

// hash implements Hash.
func hash(v Value) uint64 {
	var w walk
	return hashAt(v, 0, &w)
}

func hashAt(v Value, depth int, w *walk) uint64 {
	const (
		offset = 14695981039346656037
		prime  = 1099511628211
	)
	mix := func(h, x uint64) uint64 {
		h ^= x
		h *= prime
		h ^= h >> 29
		return h
	}
	str := func(h uint64, s string) uint64 {
		for i := 0; i < len(s); i++ {
			h ^= uint64(s[i])
			h *= prime
		}
		return h
	}
	switch x := v.(type) {
	case nil:
		return 1
	case bool:
		if x {
			return 3
		}
		return 2
	case int64:
		return mix(offset^0x11, uint64(x))
	case *big.Int:
		return hashBig(x, mix, offset)
	case *Decimal:
		return hashDecimal(x, mix, offset)
	case float64:
		if math.IsNaN(x) {
			return 0x7ff8
		}
		if x == 0 {
			x = 0 // -0.0 and 0.0 are the same key
		}
		return mix(offset^0x22, math.Float64bits(x))
	case string:
		return str(offset^0x33, x)
	case Keyword:
		return str(offset^0x44, string(x))
	case Symbol:
		return str(str(offset^0xdd, x.Ns), x.Name)
	case Class:
		return str(offset^0xee, x.Name)
	case *Vector:
		checkDepth(depth)
		w.visit(len(x.items))
		h := uint64(offset ^ 0x55)
		for _, it := range x.items {
			h = mix(h, hashAt(it, depth+1, w))
		}
		return h
	case *Map:
		checkDepth(depth)
		w.visit(x.Len())
		h := uint64(offset ^ 0x66)
		for k, val := range x.All() {
			h = mix(mix(h, hashAt(k, depth+1, w)), hashAt(val, depth+1, w))
		}
		return h
	case *Set:
		checkDepth(depth)
		w.visit(x.Len())
		h := uint64(offset ^ 0x77)
		for k := range x.All() {
			h = mix(h, hashAt(k, depth+1, w))
		}
		return h
	case *Var:
		return str(offset^0x88, x.Name)
	case *Regex:
		return str(offset^0x99, x.Source)
	case Instant:
		return mix(offset^0xbb, uint64(x.T.UnixNano()))
	case Date:
		return mix(offset^0xcc, uint64(x.Y*10000+x.M*100+x.D))
	case *Cell:
		return mix(offset^0xdd, uint64(x.id)) // identity, deterministically
	}
	return mix(offset^0xaa, uint64(identity(v)))
}

// compareTimes orders instants by time, dates by day, and dates before instants.
func compareTimes(a, b Value) int {
	switch x := a.(type) {
	case Instant:
		if y, ok := b.(Instant); ok {
			return compareInstants(x, y)
		}
		return 1
	case Date:
		if y, ok := b.(Date); ok {
			return cmp.Compare(x.Y*10000+x.M*100+x.D, y.Y*10000+y.M*100+y.D)
		}
		return -1
	}
	return 0
}

// Exported entry points. They recurse into nested collections within
// bounds: data nested deeper than maxDataDepth levels, or a comparison that
// would visit more than maxWork elements (shared structure makes that
// possible with little data), stops early. Inside a run that is an error
// of the program; here each function says what it returns instead, and
// none of them panics.

// Compare is the total order used by sort, compare, min-by and friends.
// Numbers compare by value only ((compare 1 1.0) is 0), with ±Inf at the
// ends and NaN after +Inf. Values too large or deep to compare within the
// bounds are ordered by identity.
func Compare(a, b Value) (c int) {
	defer bounded(func() { c = cmpIdentity(a, b) })
	return compare(a, b)
}

// Equal is PTC-Lisp's =: structural equality where numbers compare by value
// across integers and floats ((= 1 1.0) is true, also inside collections),
// NaN is not equal to itself, keywords differ from strings, and map keys and
// set elements match strictly. Distinct values too large or deep to compare
// within the bounds are reported unequal.
func Equal(a, b Value) (eq bool) {
	defer bounded(func() { eq = false })
	return equal(a, b)
}

// bounded, deferred, turns the panic of a walk over its bounds into the
// fallback result; other panics go on.
func bounded(fallback func()) {
	switch r := recover(); r.(type) {
	case nil:
	case deepData, tooMuchWork:
		fallback()
	default:
		panic(r)
	}
}

func cmpIdentity(a, b Value) int {
	if c := cmp.Compare(rank(a), rank(b)); c != 0 {
		return c
	}
	return cmp.Compare(identity(a), identity(b))
}

// maxWork bounds the elements one comparison, equality test or hash may
// visit. Structure sharing lets a program build, in a few steps, data whose
// full traversal is exponential ([v v] doubled forty times); without a bound
// one (= a b) could run for hours inside a single builtin call.
const maxWork = 20_000_000

// walk is the work of one comparison, equality test or hash: the
// elements it visited. Inside a run the visits also count as steps of the
// thread (see thread.equal), so that a builtin that compares big values in
// a loop runs into the step and time limits as any other work does.
type walk struct {
	n      int
	th     *thread
	ticked int // visits already counted as steps
}

// walkTick is how many visits a walk counts as steps at a time.
const walkTick = 4096

// visit counts n elements.
func (w *walk) visit(n int) {
	w.n += n
	if w.n > maxWork {
		panic(tooMuchWork{})
	}
	if w.th != nil && w.n-w.ticked >= walkTick {
		w.tick()
	}
}

// tick counts the visits not counted yet as steps; a limit reached stops
// the walk (see stopped).
func (w *walk) tick() {
	if err := w.th.ticks(w.n - w.ticked); err != nil {
		panic(stopped{err})
	}
	w.ticked = w.n
}

// done counts what is left of a finished walk.
func (w *walk) done() {
	if w.th != nil && w.n > w.ticked {
		w.tick()
	}
}

// stopped is the panic value of a walk that reached a limit of its run;
// Run and the branches turn it back into the error.
type stopped struct{ err error }

// equal, hash and compare of a thread count their work as steps.
func (th *thread) equal(a, b Value) bool {
	w := walk{th: th}
	r := equalAt(a, b, 0, &w)
	w.done()
	return r
}

func (th *thread) hash(v Value) uint64 {
	w := walk{th: th}
	h := hashAt(v, 0, &w)
	w.done()
	return h
}

func (th *thread) compare(a, b Value) int { return compareIn(th, a, b) }

// tooMuchWork is the panic value of a walk over maxWork elements.
type tooMuchWork struct{}

func tooMuchWorkError() *Error {
	return errorf(StepLimitExceeded, "comparing or hashing data of more than %d elements in one operation: compare smaller pieces", maxWork)
}

// deepData is the panic value of checkDepth.
type deepData struct{}

// checkDepth bounds the Go recursion over nested data: a goroutine stack
// overflow is fatal and cannot be recovered, so walking data nested deeper
// than maxDataDepth panics with deepData instead, which Run recovers into a
// DepthExceeded error.
func checkDepth(depth int) {
	if depth >= maxDataDepth {
		panic(deepData{})
	}
}

func deepDataError() *Error {
	return errorf(DepthExceeded, "data nested deeper than %d levels: build flatter data (vectors of maps rather than nested wrappers)", maxDataDepth)
}
