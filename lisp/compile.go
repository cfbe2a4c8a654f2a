package lisp

import (
	"fmt"
	"hash/maphash"
	"math"
	"math/bits"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/ptc-go/ptc/lisp/internal/analyze"
	"github.com/ptc-go/ptc/lisp/internal/ordmap"
)

// compiler lowers the analyzed tree into evalFn closures.
type compiler struct {
	// macros runs the macros the program defines while it is analyzed.
	macros macroHost
	src    string
	errs   []*Error
	funcs  *Funcs // host functions (nil: none)
	// lines turns the offsets the compiled code holds into the positions
	// of its errors; made on first use.
	lines *srcPositions
	// uncachedCalls counts the calls of builtins looked up before
	// seenCalls is made (see callInfo).
	uncachedCalls uint8
	// Reads of the same slot, capture or constant share one closure, and
	// so do the (:k x) of the same key and slot (see keywordOfLocal).
	kwReads  kwReads
	locals   []evalFn
	captures []evalFn
	consts   map[any]evalFn
	// keywords interns the program's keywords, made on the first one.
	keywords *kwTable
	// seenCalls caches lookupCallInfo by a hash of the name (see callInfo).
	seenCalls *[callBuckets]callBucket
	flexKeys  map[Value]*flexKey
	// Flat constant literals, pooled (see poolConst) by their hash;
	// poolSlab is the chunk the entries are carved from.
	pool     []*poolEntry // open-addressed by hash, at most half full
	poolN    int
	poolSlab []poolEntry
	seed     maphash.Seed // of the pool's hash, made when first needed
	seeded   bool
	// fnSlab and stepSlab are the chunks exprs and bindSteps carve from.
	fnSlab   []evalFn
	stepSlab []bindStep
	argSlab  []callArg
	// stepScratch holds the steps of the bindings being compiled (see
	// flatBindings), nested runs above outer ones.
	stepScratch []bindStep
	// lits holds the chunks literalKeys carves from, made on first use.
	lits *literalSlabs
	// arity is the function arity being compiled (target of a fn recur).
	arity *arityCode
	// constSlots counts the value slots of the constant collections built
	// from literals, which the program holds for every run.
	constSlots int64
	// regexes holds the program's regex literals, compiled once, and
	// regexWeight their total weight (see regexWeight).
	regexes     map[string]*Regex
	regexWeight int
	// What the program reads of earlier runs (see Program.Dependencies).
	memReads, memPuts     []string
	history, computedKeys bool
	// Unboxed loop variables (see fastpath.go): intSlots[s] is set while
	// slot s of the function being compiled holds an *intCell;
	// loopRecurs lists the recurs of each loop walked so far (noSpec: a
	// walk failed); loopSpecs holds the loops being compiled with
	// unboxed variables, for their recurs; cellReads caches boxed reads.
	intSlots   []bool
	loopRecurs map[*analyze.Loop][]*analyze.Recur
	noSpec     bool
	loopSpecs  map[*analyze.Loop]*loopSpec
	cellReads  []evalFn
	// calls is set when the program calls functions of its own (or loops):
	// it may need a deeper value stack than straight-line code (see compile).
	calls bool
	// tableUpdates are the updates of loop tables filled in place (see
	// transient.go, loopTables): each call's table, by slot.
	tableUpdates map[analyze.Expr]int
	tableExits   map[analyze.Expr]int
	// lazyRanges are the ranges whose consumer may stop early (see
	// markLazyRange): they are built as lazy sequences.
	lazyRanges   map[*analyze.Call]bool
	tableScratch struct {
		updates, exits []tableUse
	}
}

// maxProgramRegexWeight bounds the total weight of a program's regex
// literals, which are compiled with the program, before any limit of a
// run applies: about 50 ms of compilation.
const maxProgramRegexWeight = 2_000_000

// regexLiteral compiles a regex literal (#"..." or (re-pattern "...")) once,
// with the program: a literal in a loop is not compiled at every turn.
func (c *compiler) regexLiteral(pat string, pos posT) evalFn {
	if re, ok := c.regexes[pat]; ok {
		return constant(re)
	}
	re, err := compileRegex(pat)
	if err != nil {
		e := err.(*Error)
		return c.errorf(pos, e.Kind, "%s", e.Message)
	}
	c.regexWeight += re.weight
	if c.regexWeight > maxProgramRegexWeight {
		return c.errorf(pos, InvalidArgument, "the program's regexes are too large to compile (their repetitions and character classes expand past %d units): use fewer or simpler patterns", maxProgramRegexWeight)
	}
	if c.regexes == nil {
		c.regexes = map[string]*Regex{}
	}
	c.regexes[pat] = re
	return constant(re)
}

// internalPanicsCrash makes internal panics crash instead of becoming
// InternalError results; the package's tests set it, so that bugs surface.
var internalPanicsCrash = false

// pos returns the position of the byte offset off of the source.
func (c *compiler) pos(off int32) posT {
	if c.lines == nil {
		c.lines = &srcPositions{src: c.src}
	}
	return posT{off: off, lines: c.lines}
}

func (c *compiler) errorf(pos posT, kind Kind, format string, args ...any) evalFn {
	c.errs = append(c.errs, &Error{Kind: kind, Pos: pos.resolve(), Message: fmt.Sprintf(format, args...), src: c.src})
	return constant(nil)
}

func constant(v Value) evalFn {
	return func(*frame) (Value, error) { return v, nil }
}

// Closures of the commonest constants, made once (read-only after init):
// most programs need no other scalar constant closure.
var (
	constNil   = constant(nil)
	constTrue  = constant(true)
	constFalse = constant(false)
	// constIntBlocks hold the closures of the ints minConstInt to
	// maxConstInt, a block of constIntBlock made the first time a program
	// needs one of them: making all 1,088 at start-up was a quarter of the
	// allocations of the package's initialisation, for the few a program
	// uses. (Two compilers that need a new block at once may both make
	// it; one keeps its block, the other's closures are as good.)
	constIntBlocks [(maxConstInt - minConstInt + 1) / constIntBlock]atomic.Pointer[[constIntBlock]evalFn]
)

const (
	minConstInt   = -64
	maxConstInt   = 1023
	constIntBlock = 64 // divides maxConstInt - minConstInt + 1
)

// sharedConst returns the closure of v made once for all programs, or nil
// (an int whose block of constIntBlocks is not made yet: nil too, and
// unmadeConst then makes it).
func sharedConst(v Value) evalFn {
	switch x := v.(type) {
	case nil:
		return constNil
	case bool:
		if x {
			return constTrue
		}
		return constFalse
	case int64:
		if i := uint64(x - minConstInt); i <= maxConstInt-minConstInt {
			if b := constIntBlocks[i/constIntBlock].Load(); b != nil {
				return b[i%constIntBlock]
			}
			// Its block is not made yet: unmadeConst makes it
			// (sharedConst stays small enough to be inlined).
		}
	}
	return nil
}

// unmadeConst returns the shared closure of v when sharedConst has none
// because its block is not made yet (it makes the block), or nil: so the
// code compiled for a constant does not depend on what the process
// compiled before.
func unmadeConst(v Value) evalFn {
	if x, ok := v.(int64); ok {
		if i := uint64(x - minConstInt); i <= maxConstInt-minConstInt {
			return constIntBlock0(i)
		}
	}
	return nil
}

// constIntBlock0 makes the block of constIntBlocks that holds the closure
// of the ith int, and returns that closure.
func constIntBlock0(i uint64) evalFn {
	var fns [constIntBlock]evalFn
	first := int64(i/constIntBlock*constIntBlock) + minConstInt
	for j := range fns {
		fns[j] = constant(boxInt(first + int64(j)))
	}
	p := &constIntBlocks[i/constIntBlock]
	p.CompareAndSwap(nil, &fns)
	return p.Load()[i%constIntBlock]
}

// constant returns a closure yielding v, shared for equal scalars.
func (c *compiler) constant(v Value) evalFn {
	if f := sharedConst(v); f != nil {
		return f
	}
	if f := unmadeConst(v); f != nil {
		return f
	}
	key, ok := scalarKey(v)
	if f, isFloat := v.(float64); isFloat {
		key = math.Float64bits(f) // keep -0.0 apart from 0.0
	}
	if d, isDec := v.(*Decimal); isDec {
		key = decimalConstKey{d.String()} // keep 1.5M apart from 1.50M
	}
	if !ok {
		return constant(v)
	}
	if f, ok := c.consts[key]; ok {
		return f
	}
	if c.consts == nil {
		c.consts = map[any]evalFn{}
	}
	f := constant(v)
	c.consts[key] = f
	return f
}

// isConst reports, without building anything, whether e is a constant.
func isConst(e analyze.Expr) bool {
	switch e := e.(type) {
	case *analyze.Const, *analyze.Keyword, *analyze.SymbolLit:
		return true
	case *analyze.VectorLit:
		for _, it := range e.Items {
			if !isConst(it) {
				return false
			}
		}
		return true
	case *analyze.SetLit:
		for _, it := range e.Items {
			if !isConst(it) {
				return false
			}
		}
		return true
	case *analyze.MapLit:
		for i := range e.Keys {
			if !isConst(e.Keys[i]) || !isConst(e.Vals[i]) {
				return false
			}
		}
		return true
	}
	return false
}

// constValue returns the value of a constant expression, if it is one.
func constValue(e analyze.Expr) (Value, bool) { return (*compiler)(nil).constValue(e) }

// constValue builds a constant; a non-nil compiler shares boxed keywords
// and pools flat literals (see lit).
func (c *compiler) constValue(e analyze.Expr) (Value, bool) {
	if c == nil {
		if !isConst(e) {
			return nil, false
		}
		return plainConst(e), true
	}
	v, _, ok := c.lit(e)
	return v, ok
}

// plainConst builds a constant (isConst holds) without a compiler: no
// pooling, no shared keywords.
func plainConst(e analyze.Expr) Value {
	switch e := e.(type) {
	case *analyze.Const:
		return e.Value
	case *analyze.Keyword:
		return Keyword(e.Name)
	case *analyze.SymbolLit:
		return Symbol{Ns: e.Ns, Name: e.Name}
	case *analyze.VectorLit:
		v := newConstVector(len(e.Items))
		for i, it := range e.Items {
			v.items[i] = plainConst(it)
		}
		if e.List {
			return v.asList()
		}
		return v
	case *analyze.SetLit:
		items := make([]Value, len(e.Items))
		for i, it := range e.Items {
			items[i] = plainConst(it)
		}
		return NewSet(items...)
	case *analyze.MapLit:
		keys := make([]Value, len(e.Keys))
		vals := make([]Value, len(e.Keys))
		for i := range e.Keys {
			keys[i] = plainConst(e.Keys[i])
			vals[i] = plainConst(e.Vals[i])
		}
		return mapFromLiteral(keys, vals)
	}
	return nil
}

// Pooled constants.
//
// Equal flat literals (of scalars and keywords only, such as the path of
// a get-in) are built once per program and shared: the program holds one
// value and one closure for them. Sharing an immutable value is invisible
// to programs (identical? compares values); each occurrence still counts
// its slots in the program's size, as when each was built.

// poolEntry is a pooled literal: its kind, the analyzer's nodes of the
// first literal pooled (keys and values for a map), which later ones are
// compared with before anything of theirs is built, and its value.
type poolEntry struct {
	kind        byte
	h           uint64
	items, vals []analyze.Expr
	v           Value
	fn          evalFn // made on first use as an expression
}

// maxPooledItems bounds the literals pooled (hashing and comparing them is
// linear in their size, once per occurrence).
const maxPooledItems = 16

// maxPoolProbe bounds the slots of the pool's index one lookup visits
// (entries are compared item by item only when their hashes are equal).
// The pool's hash is not keyed: literals written to collide, as a hostile
// program's can be, are built apart past the bound, never pooled. Honest
// literals probe one or two slots.
const maxPoolProbe = 32

// lit returns the value of e when it is a constant. A literal is walked
// once: a flat one (scalars and keywords only) is checked and hashed from
// its nodes in one pass and looked up in the pool before anything is
// built (see flatLit); any other checks that its direct items are
// literals before it builds anything, and builds its items (a nested
// collection checks its own). pe is the pool entry of a pooled literal.
func (c *compiler) lit(e analyze.Expr) (v Value, pe *poolEntry, ok bool) {
	switch e := e.(type) {
	case *analyze.Const:
		return e.Value, nil, true
	case *analyze.Keyword:
		return c.keyword(e.Name), nil, true
	case *analyze.SymbolLit:
		return Symbol{Ns: e.Ns, Name: e.Name}, nil, true
	case *analyze.VectorLit:
		if e.List {
			return c.collLit('l', e.Items, nil)
		}
		return c.collLit('v', e.Items, nil)
	case *analyze.SetLit:
		return c.collLit('s', e.Items, nil)
	case *analyze.MapLit:
		return c.collLit('m', e.Keys, e.Vals)
	}
	return nil, nil, false
}

// literalItems reports whether every item is a literal (a nested
// collection may still hold a non-constant: it finds out when it is
// built).
func literalItems(items []analyze.Expr) bool {
	for _, it := range items {
		switch it.(type) {
		case *analyze.Keyword, *analyze.Const, *analyze.SymbolLit, *analyze.VectorLit, *analyze.SetLit, *analyze.MapLit:
		default:
			return false
		}
	}
	return true
}

// isLiteral reports whether e is a literal node.
func isLiteral(e analyze.Expr) bool {
	switch e.(type) {
	case *analyze.Keyword, *analyze.Const, *analyze.SymbolLit, *analyze.VectorLit, *analyze.SetLit, *analyze.MapLit:
		return true
	}
	return false
}

// collLit builds a collection literal of kind 'v', 'l', 's' or 'm' (keys
// in items, values in vals) when it is a constant. When an item turns out
// not to be constant, nothing built is kept but interned keywords and
// pooled flat items, which the compilation of the items as code then
// finds; the size counted is taken back.
func (c *compiler) collLit(kind byte, items, vals []analyze.Expr) (Value, *poolEntry, bool) {
	n := len(items)
	if n > 0 && n <= maxPooledItems {
		switch h, flat := c.flatHash(kind, items, vals); flat {
		case isFlat:
			return c.flatLit(kind, h, items, vals)
		case notLiteral:
			return nil, nil, false
		}
	}
	if !literalItems(items) || !literalItems(vals) {
		return nil, nil, false
	}
	saved := c.constSlots
	c.constSlots += int64(n + len(vals))
	// The items as built: on the stack for the sizes of most literals.
	var keyBuf, valBuf [8]Value
	var keys, vs []Value
	if n > len(keyBuf) {
		keys, vs = make([]Value, n), make([]Value, len(vals))
	} else {
		keys, vs = keyBuf[:n], valBuf[:len(vals)]
	}
	for i, it := range items {
		if k, ok := it.(*analyze.Keyword); ok { // most keys: no detour through lit
			keys[i] = c.keyword(k.Name)
			continue
		}
		v, _, ok := c.lit(it)
		if !ok {
			c.constSlots = saved
			return nil, nil, false
		}
		keys[i] = v
	}
	for i, it := range vals {
		// Most values are scalars: no detour through lit either.
		if x, ok := it.(*analyze.Const); ok {
			vs[i] = x.Value
			continue
		}
		v, _, ok := c.lit(it)
		if !ok {
			c.constSlots = saved
			return nil, nil, false
		}
		vs[i] = v
	}
	return c.buildLit(kind, keys, vs), nil, true
}

// buildLit makes the literal of kind whose items are built; a map's
// entries are sorted in place.
func (c *compiler) buildLit(kind byte, keys, vs []Value) Value {
	if c.lits == nil {
		c.lits = new(literalSlabs)
	}
	switch kind {
	case 'v', 'l':
		vec := c.constVector(len(keys))
		copy(vec.items, keys)
		if kind == 'l' {
			return vec.asList()
		}
		return vec
	case 's':
		return NewSet(keys...)
	}
	return c.constMap(keys, vs)
}

// flatHash tells whether the literal of kind whose nodes are items (and
// vals) is flat, made of scalars and keywords only, and hashes it from
// its nodes in the same pass: no keyword is looked up and nothing built
// until the pool has been searched. An item that is no literal at all
// (a call, a local) ends the walk: the collection is no constant, and
// collLit need not look at its items again. A map's values are walked
// first: they are where a literal that is not flat usually shows it. A
// keyword and a string are hashed by the word of their text (kwWord,
// spelled out: called, it would cost as much as the rest), apart by a
// tag; a collision costs a comparison or a literal left unpooled
// (maxPoolProbe), never a wrong answer.
func (c *compiler) flatHash(kind byte, items, vals []analyze.Expr) (uint64, flatness) {
	h := uint64(kind)<<32 | uint64(len(items))
	nv := len(vals)
	for i := range nv + len(items) {
		var it analyze.Expr
		if i < nv {
			it = vals[i]
		} else {
			it = items[i-nv]
		}
		// Assertions rather than type switches: each is one comparison.
		var s string
		var hv uint64
		if k, ok := it.(*analyze.Keyword); ok {
			s, hv = k.Name, 0x9e3779b97f4a7c15
		} else if x, ok := it.(*analyze.Const); ok {
			if v, ok := x.Value.(int64); ok {
				hv = uint64(v)*0xff51afd7ed558ccd ^ 4
			} else if v, ok := x.Value.(string); ok && len(v) <= 64 {
				s, hv = v, 0xc4ceb9fe1a85ec53
			} else if hv, ok = c.scalarHash(x.Value); !ok { // a long string's keyed
				return 0, notFlat
			}
		} else if isLiteral(it) {
			return 0, notFlat
		} else {
			return 0, notLiteral
		}
		switch n := len(s); {
		case n > 8:
			hv ^= kwWordLong(s)
		case n >= 4:
			hv ^= uint64(load4(s)) | uint64(load4(s[n-4:]))<<32 ^ uint64(n)
		case n > 0:
			hv ^= uint64(s[0]) | uint64(s[n/2])<<8 | uint64(s[n-1])<<16 | uint64(n)<<24
		}
		h = bits.RotateLeft64((h^hv)*hashPrime, 29)
	}
	// Mixed once, for the index's bits (h>>32).
	h = (h ^ h>>31) * 0xbf58476d1ce4e5b9
	return h ^ h>>29, isFlat
}

// flatness is what flatHash finds of a literal's items.
type flatness int8

const (
	notFlat    flatness = iota // literals, not all scalars and keywords
	isFlat                     // scalars and keywords only
	notLiteral                 // an item is no literal: the collection is no constant
)

// flatLit is collLit of a flat literal (flatHash) of hash h: an equal
// literal already pooled is found by its nodes, with nothing built; a new
// one is built and pooled.
func (c *compiler) flatLit(kind byte, h uint64, items, vals []analyze.Expr) (Value, *poolEntry, bool) {
	n := len(items)
	c.constSlots += int64(n + len(vals))
	if c.pool == nil {
		c.pool = make([]*poolEntry, 32)
	}
	mask := len(c.pool) - 1
	i := int(h>>32) & mask
	slot := -1 // where in the pool's index a new literal goes
	for range maxPoolProbe {
		pe := c.pool[i]
		if pe == nil {
			slot = i
			break
		}
		if pe.h == h && pe.kind == kind && sameItems(pe.items, pe.vals, items, vals) {
			return pe.v, pe, true
		}
		i = (i + 1) & mask
	}
	// Scalars and keywords only: nothing can fail.
	var keyBuf, valBuf [8]Value
	var keys, vs []Value
	if n > len(keyBuf) {
		keys, vs = make([]Value, n), make([]Value, len(vals))
	} else {
		keys, vs = keyBuf[:n], valBuf[:len(vals)]
	}
	for i, it := range items {
		if k, ok := it.(*analyze.Keyword); ok {
			keys[i] = c.keyword(k.Name)
		} else {
			keys[i] = it.(*analyze.Const).Value
		}
	}
	for i, it := range vals {
		if k, ok := it.(*analyze.Keyword); ok {
			vs[i] = c.keyword(k.Name)
		} else {
			vs[i] = it.(*analyze.Const).Value
		}
	}
	v := c.buildLit(kind, keys, vs)
	if slot < 0 { // colliding literals: this one is built apart, not pooled
		return v, nil, true
	}
	return v, c.poolAdd(slot, h, kind, items, vals, v), true
}

// sameItems reports whether the nodes of two flat literals (of one kind)
// are of equal items: keys a and b, and values av and bv for maps, an
// entry's key and value in one turn of one loop.
func sameItems(a, av, b, bv []analyze.Expr) bool {
	if len(a) != len(b) || len(av) != len(bv) {
		return false
	}
	for i, x := range a {
		if kx, ok := x.(*analyze.Keyword); ok { // sameNode, inlined
			ky, ok := b[i].(*analyze.Keyword)
			if !ok || len(kx.Name) != len(ky.Name) {
				return false
			}
			// A name of 4 to 8 bytes compared by two words, without a
			// call of the runtime's memequal.
			if p, q := kx.Name, ky.Name; len(p) >= 4 && len(p) <= 8 {
				if load4(p) != load4(q) || load4(p[len(p)-4:]) != load4(q[len(q)-4:]) {
					return false
				}
			} else if p != q {
				return false
			}
		} else if !sameConst(x, b[i]) {
			return false
		}
		if av != nil && !sameNode(av[i], bv[i]) {
			return false
		}
	}
	return true
}

// sameNode compares two items of flat literals exactly; keywords, the
// commonest, here, small enough to be inlined.
func sameNode(x, y analyze.Expr) bool {
	if kx, ok := x.(*analyze.Keyword); ok {
		ky, ok := y.(*analyze.Keyword)
		return ok && kx.Name == ky.Name
	}
	return sameConst(x, y)
}

// sameConst compares two scalar constants exactly (see sameScalar); a is
// one, b may be a keyword.
func sameConst(a, b analyze.Expr) bool {
	x, ok := a.(*analyze.Const)
	y, ok2 := b.(*analyze.Const)
	return ok && ok2 && sameScalar(x.Value, y.Value)
}

// sameScalar compares two scalar constants exactly: type and value,
// floats by their bits (0.0 and -0.0 differ).
func sameScalar(a, b Value) bool {
	switch x := a.(type) {
	case int64:
		y, ok := b.(int64)
		return ok && x == y
	case float64:
		y, ok := b.(float64)
		return ok && math.Float64bits(x) == math.Float64bits(y)
	case string:
		y, ok := b.(string)
		return ok && x == y
	}
	return a == b
}

// poolAdd pools a new literal of hash h at slot of the pool's index.
func (c *compiler) poolAdd(slot int, h uint64, kind byte, items, vals []analyze.Expr, v Value) *poolEntry {
	if len(c.poolSlab) == cap(c.poolSlab) {
		c.poolSlab = make([]poolEntry, 0, min(max(2*cap(c.poolSlab), 4), slabSize))
	}
	c.poolSlab = append(c.poolSlab, poolEntry{kind: kind, h: h, items: items, vals: vals, v: v})
	pe := &c.poolSlab[len(c.poolSlab)-1]
	c.pool[slot] = pe
	if c.poolN++; 2*c.poolN > len(c.pool) {
		// Double the index. An entry that would probe too far is left
		// out: its literal keeps its value, and a later equal one is
		// built apart.
		old := c.pool
		c.pool = make([]*poolEntry, 2*len(old))
		c.poolN = 0
		mask := len(c.pool) - 1
		for _, e := range old {
			if e == nil {
				continue
			}
			i := int(e.h>>32) & mask
			for p := 0; p < maxPoolProbe; p++ {
				if c.pool[i] == nil {
					c.pool[i] = e
					c.poolN++
					break
				}
				i = (i + 1) & mask
			}
		}
	}
	return pe
}

const hashPrime = 0x100000001b3

// scalarHash hashes a scalar constant (nil, a boolean, an integer, a
// float or a string); ok is false for any other value.
func (c *compiler) scalarHash(v Value) (h uint64, ok bool) {
	switch v := v.(type) {
	case nil:
		return 1, true
	case bool:
		if v {
			return 2, true
		}
		return 3, true
	case int64:
		return uint64(v)*0xff51afd7ed558ccd ^ 4, true
	case float64:
		return math.Float64bits(v)*0xc4ceb9fe1a85ec53 ^ 5, true
	case string:
		if len(v) <= 64 {
			return uint64(kwHash(v)), true
		}
		if !c.seeded {
			c.seed, c.seeded = maphash.MakeSeed(), true
		}
		return maphash.String(c.seed, v), true
	}
	return 0, false
}

// kwEntry is what the program shares of a keyword: its boxed value, the
// closure yielding it and its flexKey (made when first needed).
type kwEntry struct {
	name string
	w    uint64 // kwWord(name)
	h    uint   // kwHash(name)
	// skips counts the lookups that found the entry past its first slot
	// (see find).
	skips uint32
	v     Value
	fn    evalFn
	fk    *flexKey
}

// keywordEntry returns the entry of the keyword name, boxing it once per
// name and program.
func (c *compiler) keywordEntry(name string) *kwEntry {
	if c.keywords == nil {
		c.keywords = new(kwTable)
	}
	return c.keywords.entry(name)
}

// keyword returns the keyword name boxed.
func (c *compiler) keyword(name string) Value { return c.keywordEntry(name).v }

// keywordConst returns the closure yielding the keyword name.
func (c *compiler) keywordConst(name string) evalFn {
	k := c.keywordEntry(name)
	if k.fn == nil {
		k.fn = constant(k.v)
	}
	return k.fn
}

// maxInsertionSort bounds the literals whose entries constMap sorts in
// place; larger ones go through mapFromLiteral's sort.
const maxInsertionSort = 16

// constMap is mapFromLiteral for entries it may reorder: small literals
// are sorted in place by insertion, a later duplicate of a key dropped
// where it is met (so that the first wins, as in mapFromLiteral), instead
// of through index and entry copies. The map copies the entries.
func constMap(keys, vals []Value) *Map { return (*compiler)(nil).constMap(keys, vals) }

// constMap is constMap; a non-nil compiler carves small maps from its
// slabs (see constMapFromSorted).
func (c *compiler) constMap(keys, vals []Value) *Map {
	n := len(keys)
	if n > maxInsertionSort {
		return mapFromLiteral(keys, vals)
	}
	out := 0
	kinds := kindsKnown
	for i := 0; i < n; i++ {
		k, v := keys[i], vals[i]
		j, dup := out, false
		for ; j > 0; j-- {
			if d := compareLitKeys(keys[j-1], k); d <= 0 {
				dup = d == 0
				break
			}
		}
		if dup {
			continue // a later duplicate: the first one stays
		}
		if j != i { // (j == i: the entry is in place, as with keys written in order)
			for m := out; m > j; m-- {
				keys[m], vals[m] = keys[m-1], vals[m-1]
			}
			keys[j], vals[j] = k, v
		}
		kinds |= kindOf(k)
		out++
	}
	var m *Map
	if c != nil {
		m = c.constMapFromSorted(keys[:out], vals[:out])
	} else {
		m = constMapFromSorted(keys[:out], vals[:out])
	}
	if m != emptyMap {
		m.kinds = kinds
	}
	return m
}

// compareLitKeys is compareKeys, cheaper for the keywords of most
// literals' keys, which their first bytes order (that case first, apart
// from the rest). Only its sign is meaningful.
func compareLitKeys(a, b Value) int {
	if x, ok := a.(Keyword); ok {
		if y, ok := b.(Keyword); ok && len(x) > 0 && len(y) > 0 && x[0] != y[0] {
			return int(x[0]) - int(y[0])
		}
	}
	return compareLitKeysSlow(a, b)
}

// compareLitKeysSlow is compareLitKeys past its inlined case.
func compareLitKeysSlow(a, b Value) int {
	if x, ok := a.(Keyword); ok {
		if y, ok := b.(Keyword); ok {
			return strings.Compare(string(x), string(y))
		}
	}
	return compareKeys(a, b)
}

// constMapFromSorted is mapFromSorted for the small constant maps of most
// literals: the map and its one leaf in one allocation. Its callers set the
// map's kinds (mapFromSorted, for the larger ones, sets them itself).
func constMapFromSorted(keys, vals []Value) *Map {
	switch n := len(keys); {
	case n == 0:
		return emptyMap
	case n == 1:
		return leafMap(keys, vals, (*ordmap.Leaf1[Value, Value]).Tree)
	case n == 2:
		return leafMap(keys, vals, (*ordmap.Leaf2[Value, Value]).Tree)
	case n == 3:
		return leafMap(keys, vals, (*ordmap.Leaf3[Value, Value]).Tree)
	case n == 4:
		return leafMap(keys, vals, (*ordmap.Leaf4[Value, Value]).Tree)
	case n <= 6:
		return leafMap(keys, vals, (*ordmap.Leaf6[Value, Value]).Tree)
	case n <= 8:
		return leafMap(keys, vals, (*ordmap.Leaf8[Value, Value]).Tree)
	}
	return mapFromSorted(keys, vals)
}

// constMapFromSorted is constMapFromSorted for the constants of the
// program, carved from the compiler's slabs (c.lits is made). (The leaves'
// Tree methods are called directly: through a function value, the keys and
// values would escape, and so would the callers' buffers on the stack.)
func (c *compiler) constMapFromSorted(keys, vals []Value) *Map {
	n := len(keys)
	if n == 0 || n > 8 {
		return constMapFromSorted(keys, vals)
	}
	s := c.lits
	m := &carveSmall(&s.maps)[0]
	switch {
	case n == 1:
		m.t = (&carveSmall(&s.leaf1)[0]).Tree(keys, vals)
	case n == 2:
		m.t = (&carveSmall(&s.leaf2)[0]).Tree(keys, vals)
	case n == 3:
		m.t = (&carveSmall(&s.leaf3)[0]).Tree(keys, vals)
	case n == 4:
		m.t = (&carveSmall(&s.leaf4)[0]).Tree(keys, vals)
	case n <= 6:
		m.t = (&carveSmall(&s.leaf6)[0]).Tree(keys, vals)
	default:
		m.t = (&carveSmall(&s.leaf8)[0]).Tree(keys, vals)
	}
	return m
}

// carveSmall carves one element from a slab of the literals, whose
// chunks start smaller than carve's: a program holds few of each.
func carveSmall[T any](slab *[]T) []T {
	if len(*slab) == cap(*slab) {
		*slab = make([]T, 0, min(max(2*cap(*slab), 2), slabSize))
	}
	l := len(*slab)
	*slab = (*slab)[:l+1]
	return (*slab)[l : l+1 : l+1]
}

// constVector returns a constant vector of n nil items for a literal,
// carved from the compiler's slabs (c.lits is made) for the small sizes
// of most literals.
func (c *compiler) constVector(n int) *Vector {
	if n == 0 || n > maxPooledItems {
		return newConstVector(n)
	}
	v := &carveSmall(&c.lits.vecs)[0]
	v.items = carve(&c.lits.keys, n)
	return v
}

// leafMap allocates a map and its leaf block L together.
func leafMap[L any](keys, vals []Value, tree func(*L, []Value, []Value) ordmap.Tree[Value, Value]) *Map {
	b := new(struct {
		m Map
		l L
	})
	b.m.t = tree(&b.l, keys, vals)
	return &b.m
}

// newConstVector returns a vector of n nil items allocated with its items
// in one block for the small sizes of most literals.
func newConstVector(n int) *Vector {
	switch {
	case n == 0:
		return emptyVector
	case n <= 1:
		return blockVector(n, func(a *[1]Value) []Value { return a[:] })
	case n <= 2:
		return blockVector(n, func(a *[2]Value) []Value { return a[:] })
	case n <= 3:
		return blockVector(n, func(a *[3]Value) []Value { return a[:] })
	case n <= 4:
		return blockVector(n, func(a *[4]Value) []Value { return a[:] })
	case n <= 6:
		return blockVector(n, func(a *[6]Value) []Value { return a[:] })
	case n <= 8:
		return blockVector(n, func(a *[8]Value) []Value { return a[:] })
	}
	return &Vector{items: make([]Value, n)}
}

// blockVector allocates a vector and its items, an array A, together.
func blockVector[A any](n int, items func(*A) []Value) *Vector {
	b := new(struct {
		v Vector
		a A
	})
	b.v.items = items(&b.a)[:n:n]
	return &b.v
}

// slabSize is the number of elements of the chunks the compiler carves
// small slices of compiled code from: one allocation for many nodes, held
// by the program as the nodes are.
const slabSize = 128

// slabCap is the size of the chunk after one of size prev: small programs
// get small chunks.
func slabCap(prev int) int { return min(max(2*prev, 8), slabSize) }

// fnSlice carves n closures' room from the compiler's slab (nil for 0).
func (c *compiler) fnSlice(n int) []evalFn {
	if n == 0 {
		return nil
	}
	return carve(&c.fnSlab, n)
}

// carve cuts n elements (n > 0) from the chunk *slab, starting a new
// chunk when it has no room: one allocation for many small slices that
// live as long as the program.
func carve[T any](slab *[]T, n int) []T {
	if cap(*slab)-len(*slab) < n {
		*slab = make([]T, 0, max(n, slabCap(cap(*slab))))
	}
	l := len(*slab)
	*slab = (*slab)[:l+n]
	return (*slab)[l : l+n : l+n]
}

func (c *compiler) exprs(es []analyze.Expr) []evalFn {
	out := c.fnSlice(len(es))
	for i, e := range es {
		out[i] = c.expr(e)
	}
	return out
}

// mapEntries compiles the entries of a map literal, keys and values
// alternating, in the order exprs would compile all the keys and then all
// the values (the order errors are reported in).
// literalKeys returns the keys of a map literal whose keys are distinct
// constants (as most are: {:name (:name x) :total t}), in canonical
// order, with each entry's place in that order.
func (c *compiler) literalKeys(exprs []analyze.Expr) (keys []Value, slots []int, ok bool) {
	n := len(exprs)
	if n == 0 {
		return nil, nil, false
	}
	if n > maxInsertionSort {
		return c.manyLiteralKeys(exprs)
	}
	// The keys as written, on the stack, sorted by insertion as they
	// come: order holds their indices in key order.
	var written [maxInsertionSort]Value
	var order [maxInsertionSort]uint8
	for i, e := range exprs {
		var k Value
		if kw, isKw := e.(*analyze.Keyword); isKw {
			k = c.keyword(kw.Name) // most keys: no detour through lit
		} else if k, ok = c.constValue(e); !ok {
			return nil, nil, false
		}
		written[i] = k
		j := i
		for ; j > 0; j-- {
			d := compareLitKeys(written[order[j-1]], k)
			if d == 0 {
				return nil, nil, false // a duplicate: the first one wins, as mapFromLiteral decides
			}
			if d < 0 {
				break
			}
			order[j] = order[j-1]
		}
		order[j] = uint8(i)
	}
	if c.lits == nil {
		c.lits = new(literalSlabs)
	}
	keys, slots = carve(&c.lits.keys, n), carve(&c.lits.slots, n)
	for at, i := range order[:n] {
		keys[at] = written[i]
		slots[i] = at
	}
	return keys, slots, true
}

// manyLiteralKeys is literalKeys for more than maxInsertionSort keys.
func (c *compiler) manyLiteralKeys(exprs []analyze.Expr) (keys []Value, slots []int, ok bool) {
	n := len(exprs)
	written, order := make([]Value, n), make([]int, n)
	for i, e := range exprs {
		k, ok := c.constValue(e)
		if !ok {
			return nil, nil, false
		}
		written[i], order[i] = k, i
	}
	slices.SortFunc(order, func(a, b int) int { return compareKeys(written[a], written[b]) })
	for at := 1; at < n; at++ {
		if compareKeys(written[order[at-1]], written[order[at]]) == 0 {
			return nil, nil, false // a duplicate: the first one wins, as mapFromLiteral decides
		}
	}
	if c.lits == nil {
		c.lits = new(literalSlabs)
	}
	keys, slots = carve(&c.lits.keys, n), carve(&c.lits.slots, n)
	for at, i := range order {
		keys[at] = written[i]
		slots[i] = at
	}
	return keys, slots, true
}

// shapedMapLit builds a map literal of constant keys (literalKeys): its
// values are evaluated in the order written and put in their key's place,
// and the map made from the sorted entries at once, with no lookups for
// duplicates and no insertions one by one.
func (c *compiler) shapedMapLit(pos posT, keys []Value, slots []int, valExprs []analyze.Expr) evalFn {
	fns, vals := c.argList(valExprs)
	kinds := kindsOfKeys(keys)
	n := len(keys)
	if fns != nil {
		return func(fr *frame) (Value, error) {
			if err := fr.th.charge(int64(2*n) + 2); err != nil {
				return nil, at(err, pos)
			}
			buf, mark := fr.th.stack.alloc(n)
			for i, f := range fns {
				v, err := f(fr)
				if err != nil {
					fr.th.stack.release(buf, mark)
					return nil, err
				}
				buf[slots[i]] = v
			}
			m := constMapFromSorted(keys, buf) // copies the entries
			fr.th.stack.release(buf, mark)
			m.kinds = kinds
			return m, nil
		}
	}
	return func(fr *frame) (Value, error) {
		if err := fr.th.charge(int64(2*n) + 2); err != nil {
			return nil, at(err, pos)
		}
		buf, mark := fr.th.stack.alloc(n)
		for i := range vals {
			a := &vals[i]
			v := a.v
			if a.fn != nil {
				var err error
				if v, err = a.fn(fr); err != nil {
					fr.th.stack.release(buf, mark)
					return nil, err
				}
			}
			buf[slots[i]] = v
		}
		m := constMapFromSorted(keys, buf) // copies the entries
		fr.th.stack.release(buf, mark)
		m.kinds = kinds
		return m, nil
	}
}

func (c *compiler) mapEntries(keys, vals []analyze.Expr) []evalFn {
	out := c.fnSlice(2 * len(keys))
	for i, e := range keys {
		out[2*i] = c.expr(e)
	}
	for i, e := range vals {
		out[2*i+1] = c.expr(e)
	}
	return out
}

// constLit returns the closure of the collection literal e when it is a
// constant, shared by the equal literals of the pool, or nil.
func (c *compiler) constLit(e analyze.Expr) evalFn {
	v, pe, ok := c.lit(e)
	if !ok {
		return nil
	}
	if pe == nil {
		return constant(v)
	}
	return pe.closure()
}

// closure returns the closure yielding the pooled literal, made once.
func (pe *poolEntry) closure() evalFn {
	if pe.fn == nil {
		pe.fn = constant(pe.v)
	}
	return pe.fn
}

// local compiles a read of the local of slot.
func (c *compiler) local(s int32) evalFn {
	slot := int(s)
	if c.isIntSlot(slot) {
		return c.cellRead(slot)
	}
	if slot < len(localReads) {
		return localReads[slot]
	}
	for len(c.locals) <= slot {
		c.locals = append(c.locals, nil)
	}
	if c.locals[slot] == nil {
		c.locals[slot] = func(fr *frame) (Value, error) { return fr.slots[slot], nil }
	}
	return c.locals[slot]
}

func (c *compiler) expr(e analyze.Expr) evalFn {
	if len(c.tableExits) > 0 {
		if slot, ok := c.tableExits[e]; ok {
			delete(c.tableExits, e)
			return freezingSlot(slot, c.expr(e))
		}
	}
	// A form computes its line and column only if its code can report an
	// error (most nodes are locals, constants and calls, which do their own).
	switch e := e.(type) {
	case *analyze.Keyword:
		return c.keywordConst(e.Name)
	case *analyze.Const:
		return c.constant(e.Value)
	case *analyze.SymbolLit:
		return c.constant(Symbol{Ns: e.Ns, Name: e.Name})
	case *analyze.VectorLit, *analyze.SetLit, *analyze.MapLit:
		if f := c.constLit(e); f != nil {
			return f
		}
		return c.collExpr(e)
	case *analyze.Local:
		return c.local(e.Slot)
	case *analyze.Captured:
		idx := int(e.Index)
		for len(c.captures) <= idx {
			c.captures = append(c.captures, nil)
		}
		if c.captures[idx] == nil {
			c.captures[idx] = func(fr *frame) (Value, error) { return fr.captured[idx], nil }
		}
		return c.captures[idx]
	case *analyze.Self:
		return func(fr *frame) (Value, error) { return fr.self, nil }
	case *analyze.Builtin:
		if b, ok := c.funcs.lookup(e.Name); ok {
			return constant(b)
		}
		v, ok := builtins[e.Name]
		if !ok {
			return c.errorf(c.pos(e.Off), UnboundVar, "unknown builtin %s", e.Name)
		}
		return constant(v)
	case *analyze.Global:
		pos := c.pos(e.Off)
		name := e.Name
		msg := "undefined variable " + name + " (its def has not run)"
		if isBuiltinName(name) {
			// (def first (first xs)): from its def on, the name is the
			// program's own, as in Clojure.
			msg = "undefined variable " + name + ": from its def on, " + name + " names the program's value, not the builtin, and that def has not run yet (the builtin is clojure.core/" + name + ")"
		}
		return func(fr *frame) (Value, error) {
			v, ok := fr.th.globals.lookup(name)
			if !ok && !isPrinterVar(name) { // the printer's vars are nil unless bound
				return nil, &Error{Kind: UnboundVar, Pos: pos.resolve(), Message: msg}
			}
			return v, nil
		}
	case *analyze.VarRef:
		v := &Var{Name: e.Name}
		return constant(v)
	case *analyze.CtxRef:
		fk := c.keywordKey(e.Name)
		return func(fr *frame) (Value, error) {
			v, _ := fr.th.run.context.lookupFlex(fk)
			return v, nil
		}
	case *analyze.MemoryGet:
		pos := c.pos(e.Off)
		c.noteMemoryKey(e.Key, &c.memReads, true)
		key := c.expr(e.Key)
		return func(fr *frame) (Value, error) {
			k, err := key(fr)
			if err != nil {
				return nil, err
			}
			name, err := varName(k)
			if err != nil {
				return nil, at(err, pos)
			}
			v, _ := fr.th.globals.lookup(name)
			return v, nil
		}
	case *analyze.MemoryPut:
		pos := c.pos(e.Off)
		c.noteMemoryKey(e.Key, &c.memPuts, false)
		key, val := c.expr(e.Key), c.expr(e.Value)
		return func(fr *frame) (Value, error) {
			k, err := key(fr)
			if err != nil {
				return nil, err
			}
			name, err := varName(k)
			if err != nil {
				return nil, at(err, pos)
			}
			// A builtin name may be stored under, as def may redefine it;
			// the names the language needs keep their meaning.
			if msg := analyze.ReservedName(name); msg != "" {
				return nil, &Error{Kind: CannotShadowBuiltin, Pos: pos.resolve(), Message: "cannot store under " + name + ": " + msg}
			}
			v, err := val(fr)
			if err != nil {
				return nil, err
			}
			fr.th.globals.define(name, v)
			return v, nil
		}
	case *analyze.HistoryRef:
		c.history = true
		n := e.N
		return func(fr *frame) (Value, error) {
			if h := fr.th.run.history; n <= len(h) {
				return h[n-1], nil
			}
			return nil, nil
		}
	case *analyze.If:
		return c.ifExpr(e)
	case *analyze.Do:
		body := c.exprs(e.Body)
		last := body[len(body)-1]
		init := body[:len(body)-1]
		return func(fr *frame) (Value, error) {
			for _, f := range init {
				if _, err := f(fr); err != nil {
					return nil, err
				}
			}
			return last(fr)
		}
	case *analyze.And:
		es := c.exprs(e.Exprs)
		return func(fr *frame) (Value, error) {
			var v Value = true
			for _, f := range es {
				var err error
				if v, err = f(fr); err != nil {
					return nil, err
				}
				if v == nil || v == false {
					return v, nil
				}
			}
			return v, nil
		}
	case *analyze.Or:
		es := c.exprs(e.Exprs)
		return func(fr *frame) (Value, error) {
			var v Value
			for _, f := range es {
				var err error
				if v, err = f(fr); err != nil {
					return nil, err
				}
				if v != nil && v != false {
					return v, nil
				}
			}
			return v, nil
		}
	case *analyze.Let:
		// A let whose body is a let is one run of bindings (see flatBindings).
		start := len(c.stepScratch)
		c.flatBindings(e.Bindings)
		inner := c.flatLets(e.Body)
		steps := c.popSteps(start)
		body := c.expr(inner)
		return func(fr *frame) (Value, error) {
			if err := runBindings(fr, steps); err != nil {
				return nil, err
			}
			return body(fr)
		}
	case *analyze.Loop:
		if slot, ok := c.tableUpdates[e]; ok {
			// An inner loop that takes an outer loop's table over: its
			// value, the table it filled, goes back to the outer loop
			// unfrozen (linearity.handsOver).
			c.markLoopTables(e)
			return updatingInPlace(slot, c.loop(e))
		}
		if slots := c.markLoopTables(e); len(slots) > 0 {
			return freezingTables(c.loop(e))
		}
		return c.loop(e)
	case *analyze.Recur:
		return c.recur(e)
	case *analyze.Fn:
		return c.fn(e)
	case *analyze.Def:
		name, once := e.Name, e.Once
		val := c.expr(e.Value)
		v := &Var{Name: name}
		return func(fr *frame) (Value, error) {
			if once {
				if _, ok := fr.th.globals.lookup(name); ok {
					return v, nil
				}
			}
			x, err := val(fr)
			if err != nil {
				return nil, err
			}
			fr.th.globals.define(name, x)
			return v, nil
		}
	case *analyze.Call:
		if c.tableUpdates != nil {
			if slot, ok := c.tableUpdates[e]; ok {
				return updatingInPlace(slot, c.call(e))
			}
		}
		if c.lazyRanges != nil && c.lazyRanges[e] {
			return c.lazyRange(e)
		}
		return c.call(e)
	case *analyze.ToolCall:
		return c.toolCall(e)
	case *analyze.Return, *analyze.Fail:
		pos := c.pos(e.Offset())
		var val evalFn
		failed := false
		if r, ok := e.(*analyze.Return); ok {
			val = c.expr(r.Value)
		} else {
			val = c.expr(e.(*analyze.Fail).Value)
			failed = true
		}
		return func(fr *frame) (Value, error) {
			v, err := val(fr)
			if err != nil {
				return nil, err
			}
			if fr.th.branch != "" {
				return nil, &Error{Kind: Kind(fr.th.branch + "_error"), Pos: pos.resolve(),
					Message: "return and fail cannot be used inside " + fr.th.branch + ": return the value from the function and finish after " + fr.th.branch}
			}
			return nil, &exit{value: v, failed: failed}
		}
	case *analyze.Where:
		return c.where(e)
	case *analyze.Combine:
		return c.combine(e)
	case *analyze.Case:
		return c.caseExpr(e)
	case *analyze.For:
		return c.forExpr(e)
	case *analyze.Dotimes:
		return c.dotimes(e)
	case *analyze.LetFn:
		return c.letfn(e)
	case *analyze.Try:
		return c.tryExpr(e)
	case *analyze.Throw:
		pos := c.pos(e.Offset())
		val := c.expr(e.Value)
		return func(fr *frame) (Value, error) {
			v, err := val(fr)
			if err != nil {
				return nil, err
			}
			return nil, at(throwValue(v), pos)
		}
	case *analyze.Raise:
		pos := c.pos(e.Offset())
		kind, msg, display, suffix := Kind(e.Kind), e.Msg, e.Display, e.Suffix
		var val evalFn
		if e.Value != nil {
			val = c.expr(e.Value)
		}
		return func(fr *frame) (Value, error) {
			m := msg
			if val != nil {
				v, err := val(fr)
				if err != nil {
					return nil, err
				}
				if display {
					m += Print(v, PrintOptions{Display: true, MaxItems: 10, MaxChars: 2000}) + suffix
				} else {
					m += " " + Print(v, PrintOptions{MaxItems: 10, MaxChars: 200}) + suffix
				}
			}
			return nil, &Error{Kind: kind, Pos: pos.resolve(), Message: m}
		}
	}
	return c.errorf(c.pos(e.Offset()), InternalError, "cannot compile %T", e)
}

// collExpr compiles a collection literal that is not a constant.
func (c *compiler) collExpr(e analyze.Expr) evalFn {
	switch e := e.(type) {
	case *analyze.VectorLit:
		pos := c.pos(e.Off)
		items := c.exprs(e.Items)
		return func(fr *frame) (Value, error) {
			if err := fr.th.charge(int64(len(items)) + 2); err != nil {
				return nil, at(err, pos)
			}
			out := make([]Value, len(items))
			for i, f := range items {
				v, err := f(fr)
				if err != nil {
					return nil, err
				}
				out[i] = v
			}
			if e.List {
				return NewList(out), nil
			}
			return NewVector(out), nil
		}
	case *analyze.SetLit:
		pos := c.pos(e.Off)
		items := c.exprs(e.Items)
		return func(fr *frame) (Value, error) {
			if err := fr.th.charge(2*int64(len(items)) + 2); err != nil {
				return nil, at(err, pos)
			}
			b := newSetBuilder(nil)
			for _, f := range items {
				v, err := f(fr)
				if err != nil {
					return nil, err
				}
				b.Add(v)
			}
			return b.Set(), nil
		}
	case *analyze.MapLit:
		pos := c.pos(e.Off)
		if keys, slots, ok := c.literalKeys(e.Keys); ok {
			return c.shapedMapLit(pos, keys, slots, e.Vals)
		}
		// Keys and values alternate in one slice: one slice header less in
		// the closure and one carve from the slab.
		kv := c.mapEntries(e.Keys, e.Vals)
		return func(fr *frame) (Value, error) {
			if err := fr.th.charge(int64(len(kv)) + 2); err != nil {
				return nil, at(err, pos)
			}
			b := emptyMapBuilder()
			kinds := kindsKnown
			for i := 0; i+1 < len(kv); i += 2 {
				k, err := kv[i](fr)
				if err != nil {
					return nil, err
				}
				v, err := kv[i+1](fr)
				if err != nil {
					return nil, err
				}
				if _, dup := b.Get(k); !dup {
					b.Set(k, v)
					kinds |= kindOf(k)
				}
			}
			m := b.Map()
			if m != emptyMap {
				m.kinds = kinds // a map of its own, fresh from the builder
			}
			return m, nil
		}
	}
	return nil
}

// varName turns a memory key into a var name.
func varName(k Value) (string, error) {
	switch k := k.(type) {
	case Keyword:
		return string(k), nil
	case string:
		return k, nil
	}
	return "", errorf(TypeError, "memory keys are keywords or strings, got %s", describe(k))
}

func (c *compiler) ifExpr(e *analyze.If) evalFn {
	if t := c.test(e.Test); t != nil {
		then, els := c.expr(e.Then), c.expr(e.Else)
		return func(fr *frame) (Value, error) {
			ok, err := t(fr)
			if err != nil {
				return nil, err
			}
			if ok {
				return then(fr)
			}
			return els(fr)
		}
	}
	test, then, els := c.expr(e.Test), c.expr(e.Then), c.expr(e.Else)
	return func(fr *frame) (Value, error) {
		v, err := test(fr)
		if err != nil {
			return nil, err
		}
		if v != nil && v != false {
			return then(fr)
		}
		return els(fr)
	}
}

// bindFn binds a value to a compiled pattern.
type bindFn func(fr *frame, v Value) error

// bindStep is one compiled let-style binding.
type bindStep struct {
	init evalFn // nil: the value is v, a constant
	v    Value
	slot int // >= 0: plain name
	bind bindFn
}

// bindSteps compiles let-style bindings.
func (c *compiler) bindSteps(bs []analyze.Binding) []bindStep {
	start := len(c.stepScratch)
	c.flatBindings(bs)
	return c.popSteps(start)
}

// flatBindings compiles let-style bindings onto c.stepScratch. A binding
// whose value is a let, (let [b (let [x 1 y 2] (+ x y))] ...), takes the
// steps of that let's bindings, then its own with the let's body as its
// value: the bindings run in the same order, into the same slots (each
// let has slots of its own in the frame), with no closure for the inner
// let and no call of it. A nested let of a let's value is flattened too,
// as deep as the analyzer let the program nest.
func (c *compiler) flatBindings(bs []analyze.Binding) {
	for _, b := range bs {
		st := bindStep{slot: -1}
		init := b.Init
		if _, ok := init.(*analyze.Let); ok { // (most inits are no let: no call of flatLets)
			init = c.flatLets(init)
		}
		st.init, st.v = c.argValue(init)
		if s, ok := b.Pattern.(*analyze.BindSlot); ok {
			st.slot = s.Slot
		} else {
			st.bind = c.pattern(b.Pattern)
		}
		c.stepScratch = append(c.stepScratch, st)
	}
}

// flatLets pushes the steps of the bindings of e while e is a let, and
// returns the first expression that is not one (the innermost body).
func (c *compiler) flatLets(e analyze.Expr) analyze.Expr {
	for {
		l, ok := e.(*analyze.Let)
		if !ok || noFastPaths {
			return e
		}
		if len(c.tableExits) > 0 {
			if _, ok := c.tableExits[e]; ok {
				return e // compiled as its own closure (see expr)
			}
		}
		c.flatBindings(l.Bindings)
		e = l.Body
	}
}

// popSteps moves the steps pushed on c.stepScratch since start into a
// slice carved from the slab.
func (c *compiler) popSteps(start int) []bindStep {
	pushed := c.stepScratch[start:]
	var steps []bindStep
	if len(pushed) > 0 {
		steps = carve(&c.stepSlab, len(pushed))
		copy(steps, pushed)
		clear(pushed)
	}
	c.stepScratch = c.stepScratch[:start]
	return steps
}

// runBindings evaluates and binds steps in order.
func runBindings(fr *frame, steps []bindStep) error {
	for i := range steps {
		st := &steps[i]
		v := st.v
		if st.init != nil {
			var err error
			if v, err = st.init(fr); err != nil {
				return err
			}
		}
		if st.slot >= 0 {
			fr.slots[st.slot] = v
		} else if err := st.bind(fr, v); err != nil {
			return err
		}
	}
	return nil
}

// bindings compiles let-style bindings into one function.
func (c *compiler) bindings(bs []analyze.Binding) func(fr *frame) error {
	steps := c.bindSteps(bs)
	return func(fr *frame) error { return runBindings(fr, steps) }
}

func (c *compiler) loop(e *analyze.Loop) evalFn {
	c.calls = true
	if spec := c.planLoop(e); spec != nil {
		return c.intLoop(e, spec)
	}
	binds := c.bindings(e.Bindings)
	body := c.expr(e.Body)
	// The closure keeps the position, not e: a Cache recycles the memory
	// of the analyzed tree once the program is compiled.
	pos := c.pos(e.Off)
	return func(fr *frame) (Value, error) {
		if err := binds(fr); err != nil {
			return nil, err
		}
		th := fr.th
		limit := th.run.limits.MaxLoopIterations
		for n := 0; ; n++ {
			v, err := body(fr)
			if err != nil {
				return nil, err
			}
			if v != recurMarker {
				return v, nil
			}
			if n >= limit {
				return nil, at(loopLimitError(limit), pos)
			}
			if err := th.tick(); err != nil {
				return nil, at(err, pos)
			}
		}
	}
}

func (c *compiler) recur(e *analyze.Recur) evalFn {
	if e.Loop != nil {
		if spec := c.loopSpecs[e.Loop]; spec != nil {
			return c.intRecur(e, spec)
		}
	}
	args := c.exprs(e.Args)
	n := len(args)
	if e.Loop != nil {
		// Rebind the loop's patterns.
		slots := make([]int, n)
		binds := make([]bindFn, n)
		for i, p := range e.Loop.Targets {
			slots[i] = -1
			if s, ok := p.(*analyze.BindSlot); ok {
				slots[i] = s.Slot
			} else {
				binds[i] = c.pattern(p)
			}
		}
		if n == 1 && slots[0] >= 0 {
			a, s := args[0], slots[0]
			return func(fr *frame) (Value, error) {
				v, err := a(fr)
				if err != nil {
					return nil, err
				}
				fr.slots[s] = v
				return recurMarker, nil
			}
		}
		return func(fr *frame) (Value, error) {
			tmp, mark := fr.th.stack.alloc(n)
			for i, a := range args {
				v, err := a(fr)
				if err != nil {
					fr.th.stack.release(tmp, mark)
					return nil, err
				}
				tmp[i] = v
			}
			for i := range tmp {
				if slots[i] >= 0 {
					fr.slots[slots[i]] = tmp[i]
				} else if err := binds[i](fr, tmp[i]); err != nil {
					fr.th.stack.release(tmp, mark)
					return nil, err
				}
			}
			fr.th.stack.release(tmp, mark)
			return recurMarker, nil
		}
	}
	// Function recur: new arguments land in slots 0..n-1; runArity
	// destructures them again.
	return func(fr *frame) (Value, error) {
		tmp, mark := fr.th.stack.alloc(n)
		for i, a := range args {
			v, err := a(fr)
			if err != nil {
				fr.th.stack.release(tmp, mark)
				return nil, err
			}
			tmp[i] = v
		}
		copy(fr.slots, tmp)
		fr.th.stack.release(tmp, mark)
		return recurMarker, nil
	}
}

func (c *compiler) fn(e *analyze.Fn) evalFn {
	c.calls = true
	proto := &fnProto{name: e.Name}
	var params []string
	// The function runs in a frame of its own: no slot of it is unboxed
	// until a loop of its own says so.
	outerInts := c.intSlots
	c.intSlots = nil
	for _, a := range e.Arities {
		ar := &arityCode{nparams: len(a.Params), variadic: a.Rest != nil, nslots: max(a.NumSlots, 1),
			linearAcc: linearAccumulator(a)}
		ar.binds = make([]bindFn, len(a.Params)+1)
		hasBind := false
		for i, p := range a.Params {
			if _, ok := p.(*analyze.BindSlot); !ok {
				ar.binds[i] = c.pattern(p)
				hasBind = true
			}
		}
		if a.Rest != nil {
			if _, ok := a.Rest.(*analyze.BindSlot); !ok {
				ar.binds[len(a.Params)] = c.pattern(a.Rest)
				hasBind = true
			}
		}
		if !hasBind {
			ar.binds = nil
		}
		saved := c.arity
		c.arity = ar
		ar.body = c.expr(a.Body)
		c.arity = saved
		if ar.variadic {
			proto.variadic = ar
		} else {
			for len(proto.fixed) <= ar.nparams {
				proto.fixed = append(proto.fixed, nil)
			}
			proto.fixed[ar.nparams] = ar
		}
		params = append(params, paramList(a))
	}
	proto.params = strings.Join(params, " ")
	c.intSlots = outerInts
	caps := e.Captures
	if len(caps) == 0 {
		return constant(&Closure{proto: proto})
	}
	return func(fr *frame) (Value, error) {
		if err := fr.th.charge(int64(len(caps)) + 3); err != nil {
			return nil, err
		}
		captured := make([]Value, len(caps))
		for i, cp := range caps {
			switch cp.From {
			case analyze.FromLocal:
				v := fr.slots[cp.Index]
				if c, ok := v.(*intCell); ok {
					v = c.value() // an unboxed loop variable is captured boxed
				}
				captured[i] = v
			case analyze.FromCaptured:
				captured[i] = fr.captured[cp.Index]
			case analyze.FromSelf:
				captured[i] = fr.self
			}
		}
		return &Closure{proto: proto, captured: captured}, nil
	}
}

func paramList(a *analyze.Arity) string {
	var names []string
	for _, p := range a.Params {
		names = append(names, patternName(p))
	}
	if a.Rest != nil {
		names = append(names, "&", patternName(a.Rest))
	}
	return "[" + strings.Join(names, " ") + "]"
}

func patternName(p analyze.Pattern) string {
	if s, ok := p.(*analyze.BindSlot); ok && s.Name != "" {
		return s.Name
	}
	return "_"
}

func (c *compiler) letfn(e *analyze.LetFn) evalFn {
	c.calls = true
	fns := make([]evalFn, len(e.Fns))
	for i, f := range e.Fns {
		fns[i] = c.fn(f)
	}
	slots := e.Slots
	body := c.expr(e.Body)
	// Only the captures of the fns are kept, not the fns' analyzed trees,
	// whose memory a Cache recycles (the captures are not in it).
	specs := make([][]analyze.Capture, len(e.Fns))
	for i, f := range e.Fns {
		specs[i] = f.Captures
	}
	return func(fr *frame) (Value, error) {
		for i, f := range fns {
			v, err := f(fr)
			if err != nil {
				return nil, err
			}
			fr.slots[slots[i]] = v
		}
		// The closures were created before their siblings existed: fill in
		// the captures that refer to the letfn slots.
		for i, spec := range specs {
			cl, ok := fr.slots[slots[i]].(*Closure)
			if !ok || len(cl.captured) == 0 {
				continue
			}
			for j, cp := range spec {
				if cp.From == analyze.FromLocal {
					for _, s := range slots {
						if s == cp.Index {
							cl.captured[j] = fr.slots[s]
						}
					}
				}
			}
		}
		return body(fr)
	}
}

// flexKey returns the prepared lookup key for k, one per key and program:
// the call sites reading the same field share its position hint.
func (c *compiler) flexKey(k Value) *flexKey {
	if kw, ok := k.(Keyword); ok {
		return c.keywordKey(string(kw))
	}
	if fk, ok := c.flexKeys[k]; ok {
		return fk
	}
	if c.flexKeys == nil {
		c.flexKeys = map[Value]*flexKey{}
	}
	fk := newFlexKey(k)
	c.flexKeys[k] = fk
	return fk
}

// keywordKey is flexKey of the keyword name, without boxing it first.
func (c *compiler) keywordKey(name string) *flexKey {
	k := c.keywordEntry(name)
	if k.fk == nil {
		k.fk = newFlexKey(k.v)
	}
	return k.fk
}

// noteMemoryKey records a memory key written as a literal; a read under a
// computed key makes the program's dependencies unknowable.
func (c *compiler) noteMemoryKey(key analyze.Expr, names *[]string, read bool) {
	switch k := key.(type) {
	case *analyze.Keyword:
		*names = append(*names, k.Name)
		return
	case *analyze.Const:
		if s, ok := k.Value.(string); ok {
			*names = append(*names, s)
			return
		}
	}
	if read {
		c.computedKeys = true
	}
}
