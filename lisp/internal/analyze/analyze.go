package analyze

import (
	"cmp"
	"fmt"
	"slices"
	"time"
	"unsafe"

	"github.com/ptc-go/ptc/lisp/syntax"
)

// Config tells the analyzer about its surroundings. The zero value is usable
// (no builtins: every free symbol is a user-namespace name).
type Config struct {
	// IsBuiltin reports whether the runtime provides a builtin function or
	// constant under the canonical name (for example "map",
	// "clojure.string/join", "Math/sqrt", "Double/NaN"). Its answer for a
	// name must not change during an analysis, which remembers it.
	IsBuiltin func(name string) bool
	// Hint, when set, returns a one-line explanation for a symbol that is
	// neither local nor builtin and has a PTC-Lisp alternative (for example
	// "atom" or "swap!"). Such symbols are reported as errors at analysis time
	// instead of being treated as user-namespace names.
	Hint func(name string) string
	// Shadowed, when set, reports whether the user namespace (of earlier
	// runs) holds a value under a builtin name: the name then means the
	// user's value, as in Clojure, where a def replaces a core function.
	Shadowed func(name string) bool
	// Decimal makes the value of a BigDecimal literal (1.50M) from its
	// text; nil, or false, makes the literal an invalid_form.
	Decimal func(text string) (any, bool)
	// Inst makes the value of an #inst literal from the instant it names;
	// nil leaves the time.Time as the value.
	Inst func(t time.Time) any
	// MaxDepth bounds the nesting of forms the analyzer descends into; 0 means 512.
	MaxDepth int
	// MaxErrors stops analysis after that many errors; 0 means 10.
	MaxErrors int
	// Macros, when set, runs the macros the program defines with
	// defmacro; without it defmacro is an error.
	Macros MacroHost
	// Buffers, when set, supplies the memory of the nodes, recycled
	// from earlier analyses: the Program is valid until its Reset.
	Buffers *Buffers
}

// Error is an analysis error: a form that is not valid PTC-Lisp.
type Error struct {
	Pos  syntax.Pos
	Kind string // invalid_form, invalid_arity, unbound_var, arity_mismatch, ...
	Msg  string
}

func (e *Error) Error() string { return e.Pos.String() + ": " + e.Msg }

// ErrorList is the list of errors of one analysis.
type ErrorList []*Error

func (l ErrorList) Error() string {
	switch len(l) {
	case 0:
		return "no errors"
	case 1:
		return l[0].Error()
	}
	return fmt.Sprintf("%s (and %d more errors)", l[0].Error(), len(l)-1)
}

// Unwrap returns the errors for errors.Is/As.
func (l ErrorList) Unwrap() []error {
	errs := make([]error, len(l))
	for i, e := range l {
		errs[i] = e
	}
	return errs
}

// bailout unwinds the analysis when the error budget is spent.
type bailout struct{}

// analyzer holds the state of one analysis.
type analyzer struct {
	nodeSlabs
	cfg         Config
	lines       syntax.Lines // of the source: nodes keep only offsets
	errs        ErrorList
	hinted      ErrorList // uses of names with a hint, reported only with other errors
	fn          *fnScope
	depth       int
	gensymN     int
	globals     map[string]bool
	uses        []GlobalUse
	defs        []string
	defSet      map[string]bool
	fieldSet    map[string]bool // the fields of the program's records
	builtinSeen [32]builtinAnswer
	// epoch counts the changes to what a name that is not a local may
	// mean (a def, a defmacro, a macro expansion, a :refer): a builtin
	// answer with plain == epoch is still what its name means.
	epoch uint32
	// aliases and refers are the namespace aliases (w -> clojure.walk)
	// and referred names (postwalk -> clojure.walk/postwalk) of the
	// program's require and ns forms.
	aliases, refers map[string]string
	// referAll lists the namespaces of :refer :all: their builtins are
	// reachable by bare name, after clojure.core's.
	referAll []string
	// shadow holds the builtin names this program defines, from the point
	// of their def on (a use before the def is still the builtin, as in
	// Clojure, which compiles one form at a time).
	shadow map[string]bool
	// macros names the macros the program has defined so far, and
	// expansions counts the calls expanded.
	macros     map[string]bool
	expansions int
}

// fnScope is the scope of one function arity (or of the top level).
type fnScope struct {
	parent *fnScope
	locals []local
	// heads[b] is 1 + the index of the innermost local whose fingerprint
	// falls in bucket b (0: none), and locals[i].chain the same for the
	// local bound before locals[i] in its bucket: a lookup visits only the
	// locals of its bucket, even in a let of a hundred bindings. occ has
	// bit b set when heads[b] is not 0.
	heads    [32]int32
	occ      uint32
	next     int // next free slot
	max      int // frame size
	captures []Capture
	capIdx   map[string]int
	self     string      // name of a named fn, reachable as Self
	recur    recurTarget // the zero value: none
	// outer has bit b set when a name of bucket b was bound in the
	// enclosing functions when this one began (they cannot change while
	// its body is analyzed), selfBit the bucket of self: a name whose
	// bucket is empty here and in both is not lexically bound, which most
	// lookups (of builtins) learn at once.
	outer, selfBit uint32
}

type local struct {
	name  string
	slot  int32
	fp    uint32 // the name's fingerprint, compared first
	chain int32  // see fnScope.heads
}

// fingerprint packs a name's length, its first two bytes and its last:
// names with different fingerprints differ, so comparing fingerprints
// first makes a scan of the locals cheap. The first two bytes are next to
// each other (one load) and need no division to find; the last tells
// apart the names of a family (item-0, item-1). A name of up to 3 bytes
// is all in its fingerprint.
func fingerprint(name string) uint32 {
	if len(name) < 2 {
		if len(name) == 0 {
			return 0
		}
		return 1<<24 | uint32(name[0])<<16 | uint32(name[0])
	}
	return uint32(len(name))<<24 | uint32(name[0])<<16 | uint32(name[1])<<8 | uint32(name[len(name)-1])
}

// newFnScope opens the scope of a function nested in the current one.
func (a *analyzer) newFnScope(self string) *fnScope {
	p := a.fn
	f := &fnScope{parent: p, self: self, outer: p.outer | p.selfBit | p.occ}
	if self != "" {
		fp := fingerprint(self)
		f.selfBit = 1 << bucket(fp)
		a.unplain(fp) // self is a local of the function
	}
	return f
}

// mayBeLocal is false when a name is certainly not lexically bound.
func (f *fnScope) mayBeLocal(fp uint32) bool {
	return (f.occ|f.outer|f.selfBit)&(1<<bucket(fp)) != 0
}

// recurTarget is what a recur in tail position rebinds.
type recurTarget struct {
	loop  *Loop // nil: the function arity
	arity int   // number of values recur must pass
	kind  string
	// blockedBy names the form (for, doseq, dotimes) whose body cannot
	// recur, when the target is a barrier rather than a loop.
	blockedBy string
}

func (t *recurTarget) none() bool { return t.kind == "" && t.blockedBy == "" }

// Analyze checks and lowers the forms of a program, read from src (the
// positions of the nodes and errors are computed from it).
func Analyze(src string, forms []syntax.Node, cfg Config) (prog *Program, err error) {
	if cfg.MaxDepth <= 0 {
		cfg.MaxDepth = 512
	}
	if cfg.MaxErrors <= 0 {
		cfg.MaxErrors = 10
	}
	// Maps are made on first use: most programs are short.
	a := &analyzer{cfg: cfg, lines: syntax.LinesOf(src), epoch: 1}
	a.fn, prog = a.start(len(src), cfg.Buffers)
	if cfg.Macros != nil {
		a.macros = cfg.Macros.Known() // a macro's own code may call the macros above it
	}
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(bailout); !ok {
				panic(r)
			}
			prog, err = nil, a.finishErrors()
		}
	}()
	// Collect top-level defs first so that forward references between
	// top-level defn forms resolve (late binding, as in the reference).
	for _, f := range forms {
		a.predeclare(f)
	}
	body := a.exprSlice(len(forms))
	for i, f := range forms {
		body[i] = a.expr(f, false)
	}
	if len(a.errs) > 0 {
		return nil, a.finishErrors()
	}
	var pos int32 // an empty program is at 1:1
	if len(forms) > 0 {
		pos = a.pos(forms[0])
	}
	var top Expr
	switch len(body) {
	case 0:
		top = a.consts.new(Const{At: At{pos}})
	case 1:
		top = body[0]
	default:
		top = a.dos.new(Do{At: At{pos}, Body: body})
	}
	*prog = Program{Body: top, NumSlots: a.fn.max, Globals: a.uses, Defs: a.defs}
	return prog, nil
}

// pos returns the offset where n starts.
func (a *analyzer) pos(n syntax.Node) int32 { return n.Bounds().Start }

// predeclare records the name of a top-level (def name ...) or (defn name ...).
func (a *analyzer) predeclare(n syntax.Node) {
	l, ok := n.(*syntax.List)
	if !ok || len(l.Items) < 2 {
		return
	}
	head, ok := l.Items[0].(*syntax.Symbol)
	if !ok || head.Ns != "" {
		return
	}
	switch head.Name {
	case "def", "defn", "defn-", "defonce", "declare":
		for _, it := range l.Items[1:] {
			if s, ok := it.(*syntax.Symbol); ok && s.Ns == "" && !a.isBuiltin(s.Name) && !isSpecialName(s.Name) {
				a.addDef(s.Name)
			}
			if head.Name != "declare" {
				break
			}
		}
	case "defrecord":
		if s, ok := l.Items[1].(*syntax.Symbol); ok && s.Ns == "" {
			a.addDef(s.Name)
			a.addDef("->" + s.Name)
			a.addDef("map->" + s.Name)
		}
	case "defprotocol":
		if s, ok := l.Items[1].(*syntax.Symbol); ok && s.Ns == "" {
			a.addDef(s.Name)
		}
		for _, it := range l.Items[2:] {
			if m, ok := it.(*syntax.List); ok && len(m.Items) > 0 {
				if s, ok := m.Items[0].(*syntax.Symbol); ok && s.Ns == "" && !isSpecialName(s.Name) {
					a.addDef(s.Name)
				}
			}
		}
	case "do":
		for _, it := range l.Items[1:] {
			a.predeclare(it)
		}
	case "require":
		for _, it := range l.Items[1:] {
			a.requireSpec(it)
		}
	case "ns":
		// (ns name (:require [clojure.walk :as w] ...) ...)
		for _, it := range l.Items[2:] {
			if c, ok := it.(*syntax.List); ok && len(c.Items) > 0 {
				if k, ok := c.Items[0].(*syntax.Keyword); ok && k.Name == "require" {
					for _, spec := range c.Items[1:] {
						a.requireSpec(spec)
					}
				}
			}
		}
	}
}

// requireSpec reads one libspec of require or ns, [clojure.walk :as w
// :refer [postwalk]] (quoted or not), and makes its alias and referred
// names mean the builtins of that namespace in the whole program. require
// loads nothing: every namespace PTC-Lisp knows is always there; a spec of
// another namespace is ignored here and its names are reported where they
// are used.
func (a *analyzer) requireSpec(n syntax.Node) {
	if q, ok := n.(*syntax.Quote); ok {
		n = q.Form
	}
	if l, ok := n.(*syntax.List); ok && len(l.Items) == 2 {
		if s, ok := l.Items[0].(*syntax.Symbol); ok && s.Ns == "" && s.Name == "quote" {
			n = l.Items[1]
		}
	}
	v, ok := n.(*syntax.Vector)
	if !ok || len(v.Items) < 3 {
		return
	}
	lib, ok := v.Items[0].(*syntax.Symbol)
	if !ok || lib.Ns != "" {
		return
	}
	canon, known := CanonicalNamespace(lib.Name)
	if !known {
		return
	}
	for i := 1; i+1 < len(v.Items); i += 2 {
		opt, ok := v.Items[i].(*syntax.Keyword)
		if !ok {
			return
		}
		switch opt.Name {
		case "as", "as-alias":
			if alias, ok := v.Items[i+1].(*syntax.Symbol); ok && alias.Ns == "" {
				if a.aliases == nil {
					a.aliases = map[string]string{}
				}
				a.aliases[alias.Name] = canon
			}
		case "refer":
			if k, ok := v.Items[i+1].(*syntax.Keyword); ok && k.Name == "all" && canon != "" {
				a.referAll = append(a.referAll, canon)
				continue
			}
			names, ok := v.Items[i+1].(*syntax.Vector)
			if !ok || canon == "" {
				continue
			}
			for _, it := range names.Items {
				if s, ok := it.(*syntax.Symbol); ok && s.Ns == "" && a.isBuiltin(canon+"/"+s.Name) {
					if a.refers == nil {
						a.refers = map[string]string{}
					}
					a.refers[s.Name] = canon + "/" + s.Name
					a.newEpoch()
				}
			}
		}
	}
}

// canonicalNamespace is CanonicalNamespace with the aliases the program
// declares with require or ns.
func (a *analyzer) canonicalNamespace(ns string) (string, bool) {
	if c, ok := a.aliases[ns]; ok {
		return c, true
	}
	return CanonicalNamespace(ns)
}

func (a *analyzer) addDef(name string) {
	if !a.defSet[name] {
		if a.defSet == nil {
			a.defSet = map[string]bool{}
		}
		a.defSet[name] = true
		a.newEpoch()
		a.defs = append(a.defs, name)
	}
}

// errorf records an error and returns a placeholder expression so that
// analysis can go on and report further, independent errors.
func (a *analyzer) errorf(pos int32, kind, format string, args ...any) Expr {
	a.errs = append(a.errs, &Error{Pos: a.lines.Pos(pos), Kind: kind, Msg: fmt.Sprintf(format, args...)})
	if len(a.errs) >= a.cfg.MaxErrors {
		panic(bailout{})
	}
	return &Const{At: At{pos}}
}

// finishErrors merges the hints for unsupported names into the errors, in
// source order: when a program does not analyze, a hint such as "there is
// no try" usually explains the other errors.
func (a *analyzer) finishErrors() ErrorList {
	if len(a.hinted) == 0 {
		return a.errs
	}
	errs := append(a.hinted, a.errs...)
	slices.SortStableFunc(errs, func(x, y *Error) int { return cmp.Compare(x.Pos.Offset, y.Pos.Offset) })
	return errs[:min(len(errs), a.cfg.MaxErrors)]
}

func (a *analyzer) isBuiltin(name string) bool { return a.isBuiltinFP(name, fingerprint(name)) }

// isBuiltinFP is isBuiltin for a name whose fingerprint is known.
func (a *analyzer) isBuiltinFP(name string, fp uint32) bool {
	if a.cfg.IsBuiltin == nil {
		return false
	}
	// A program names the same few builtins over and over: remember the
	// last answer for each fingerprint bucket.
	e := &a.builtinSeen[seenIndex(fp)]
	if e.known && e.fp == fp && len(e.name) == len(name) && (len(name) <= 3 || e.name == name) {
		return e.builtin
	}
	*e = builtinAnswer{name: name, fp: fp, known: true, builtin: a.cfg.IsBuiltin(name)}
	return e.builtin
}

type builtinAnswer struct {
	name           string
	fp             uint32 // compared first (see lookup)
	known, builtin bool
	// plain is the epoch in which the name, not a local, was found to be
	// just the builtin (symbol), and not the name of a form either (list):
	// 0 when not found so. With specialForm set, it is the epoch in which
	// the name was found to be a special form at the head of a list
	// (special), not a local. Never past epoch maxEpoch (an entry stays 24
	// bytes: the cache is cleared with every analyzer). A local of a
	// name with the entry's fingerprint, bound since, sets it back to 0
	// (analyzer.bind, newFnScope): no local can have the name of an entry
	// plain in the current epoch, which a list then need not look for.
	plain uint16
}

// specialForm marks a builtinAnswer.plain that remembers a special form.
const specialForm = 1 << 15

// maxEpoch is the last epoch whose answers are remembered: plain holds
// it below specialForm. noEpoch follows it; no plain equals noEpoch,
// nor noEpoch|specialForm.
const (
	maxEpoch = specialForm - 1
	noEpoch  = 1 << 31
)

// newEpoch starts the next epoch: what a name that is not a local means
// may have changed.
func (a *analyzer) newEpoch() {
	if a.epoch < maxEpoch {
		a.epoch++
	} else {
		a.epoch = noEpoch
	}
}

// seenIndex is the entry of builtinSeen for a fingerprint: its bucket.
func seenIndex(fp uint32) uint64 { return uint64(bucket(fp)) }

// isShadowed reports whether the builtin name means a user value here: the
// namespace of earlier runs defines it, or this program did, above.
func (a *analyzer) isShadowed(name string) bool {
	return (len(a.shadow) > 0 && a.shadow[name]) || (a.cfg.Shadowed != nil && a.cfg.Shadowed(name))
}

// ---- scopes -------------------------------------------------------------

// declare binds name to a fresh slot in the current function scope.
func (a *analyzer) declare(name string) int {
	f := a.fn
	slot := f.next
	f.next++
	if f.next > f.max {
		f.max = f.next
	}
	a.bind(f, name, slot)
	return slot
}

// bind makes name a local of f in slot: every binding goes through here
// (or bindFP), which keeps builtinAnswer.plain true to its word.
func (a *analyzer) bind(f *fnScope, name string, slot int) {
	a.bindFP(f, name, fingerprint(name), slot)
}

// bindFP is bind for a name whose fingerprint is known. A builtin of its
// name found plain is not any more: the local may be what it means now.
func (a *analyzer) bindFP(f *fnScope, name string, fp uint32, slot int) {
	b := bucket(fp) // also the entry of builtinSeen (seenIndex)
	f.locals = append(f.locals, local{name: name, slot: int32(slot), fp: fp, chain: f.heads[b]})
	f.heads[b] = int32(len(f.locals))
	f.occ |= 1 << b
	if e := &a.builtinSeen[b]; e.fp == fp {
		e.plain = 0
	}
}

// unplain forgets that the name of fingerprint fp is a plain builtin: a
// local of its name may be bound now.
func (a *analyzer) unplain(fp uint32) {
	if e := &a.builtinSeen[seenIndex(fp)]; e.fp == fp {
		e.plain = 0
	}
}

func bucket(fp uint32) uint32 { return uint32((uint64(fp) * 0x9E3779B97F4A7C15) >> 59) }

// truncate unbinds the locals bound after the first n.
func (f *fnScope) truncate(n int) {
	for i := len(f.locals) - 1; i >= n; i-- {
		b := bucket(f.locals[i].fp)
		f.heads[b] = f.locals[i].chain
		if f.heads[b] == 0 {
			f.occ &^= 1 << b
		}
	}
	f.locals = f.locals[:n]
}

// lookup returns the slot of the innermost local of f named name.
//
// The chain ends at index -1, which as an unsigned index is past the end
// of the locals: one compare ends the walk and checks the bounds.
func (f *fnScope) lookup(name string, fp uint32) (int, bool) {
	locals := f.locals
	for i := uint(f.heads[bucket(fp)] - 1); i < uint(len(locals)); {
		l := &locals[i]
		// Names of up to 3 bytes are equal when their fingerprints are
		// (it holds all their bytes) and their lengths.
		if l.fp == fp && len(l.name) == len(name) && (len(name) <= 3 || l.name == name) {
			return int(l.slot), true
		}
		i = uint(l.chain - 1)
	}
	return 0, false
}

// temp reserves an anonymous slot.
func (a *analyzer) temp() int { return a.declare(" temp") }

// mark and release delimit a block scope: slots are reused after the block,
// which is safe because closures copy what they capture.
type scopeMark struct{ locals, next int }

func (a *analyzer) mark() scopeMark { return scopeMark{len(a.fn.locals), a.fn.next} }
func (a *analyzer) release(m scopeMark) {
	a.fn.truncate(m.locals)
	a.fn.next = m.next
}

// resolveLocal finds name among the lexical bindings of the current function
// and its enclosing functions, creating captures as needed.
func (a *analyzer) resolveLocal(name string, pos int32) (Expr, bool) {
	return a.resolveLocalFP(name, fingerprint(name), pos)
}

// resolveLocalFP is resolveLocal for a name whose fingerprint is known.
func (a *analyzer) resolveLocalFP(name string, fp uint32, pos int32) (Expr, bool) {
	if !a.fn.mayBeLocal(fp) {
		return nil, false
	}
	return a.resolveIn(a.fn, name, fp, pos)
}

func (a *analyzer) resolveIn(f *fnScope, name string, fp uint32, pos int32) (Expr, bool) {
	if slot, ok := f.lookup(name, fp); ok {
		return a.locals.new(Local{At: At{pos}, Name: name, Slot: int32(slot)}), true
	}
	return a.resolveOuter(f, name, fp, pos)
}

// resolveOuter is resolveIn for a name that is not a local of f.
func (a *analyzer) resolveOuter(f *fnScope, name string, fp uint32, pos int32) (Expr, bool) {
	if f.self != "" && f.self == name {
		return &Self{At: At{pos}, Name: name}, true
	}
	if len(f.capIdx) > 0 { // a lookup in a nil map is still a call
		if idx, ok := f.capIdx[name]; ok {
			return a.captured.new(Captured{At: At{pos}, Name: name, Index: int32(idx)}), true
		}
	}
	if f.parent == nil {
		return nil, false
	}
	outer, ok := a.resolveIn(f.parent, name, fp, pos)
	if !ok {
		return nil, false
	}
	c := Capture{Name: name}
	switch o := outer.(type) {
	case *Local:
		c.From, c.Index = FromLocal, int(o.Slot)
	case *Captured:
		c.From, c.Index = FromCaptured, int(o.Index)
	case *Self:
		c.From = FromSelf
	}
	idx := len(f.captures)
	f.captures = append(f.captures, c)
	if f.capIdx == nil {
		f.capIdx = map[string]int{}
	}
	f.capIdx[name] = idx
	return a.captured.new(Captured{At: At{pos}, Name: name, Index: int32(idx)}), true
}

// isLocal reports whether name is lexically bound (without creating captures).
func (a *analyzer) isLocal(name string) bool { return a.isLocalFP(name, fingerprint(name)) }

// isLocalFP is isLocal for a name whose fingerprint is known.
func (a *analyzer) isLocalFP(name string, fp uint32) bool {
	if !a.fn.mayBeLocal(fp) {
		return false
	}
	for f := a.fn; f != nil; f = f.parent {
		if _, ok := f.lookup(name, fp); ok {
			return true
		}
		if f.self == name {
			return true
		}
	}
	return false
}

// ---- expressions --------------------------------------------------------

// expr analyzes one form. tail reports whether the form is in tail position
// of the innermost loop or function (where recur is allowed).
//
// A form is one level deeper than its parent. A leaf (a constant, a
// keyword, a symbol) has no children: it checks the limit without moving
// a.depth, which only forms with children raise while they analyze them.
func (a *analyzer) expr(n syntax.Node, tail bool) Expr {
	// No defer: the depth only matters on the way down, and a bailout
	// abandons the whole analysis.
	if a.depth >= a.cfg.MaxDepth {
		a.tooDeep(n, "program nesting too deep")
	}
	// The constant cases set off and val, made into a Const below (as
	// fill does).
	var off int32
	var val any
	switch n := n.(type) {
	case *syntax.Symbol:
		return a.symbol(n)
	case *syntax.Keyword:
		return keywordOf(n)
	case *syntax.List:
		a.depth++
		e := a.list(n, tail)
		a.depth--
		return e
	case *syntax.Vector:
		return a.vector(n)
	case *syntax.Map:
		return a.mapLit(n)
	case *syntax.Int:
		off, val = n.Start, a.boxInt(n.Value)
	case *syntax.String:
		off, val = n.Start, a.boxString(n.Value)
	case *syntax.Nil:
		off = n.Start
	case *syntax.Bool:
		off, val = n.Start, n.Value
	case *syntax.Float:
		off, val = n.Start, a.boxFloat(n.Value)
	case *syntax.BigInt:
		return a.consts.new(Const{At: At{a.pos(n)}, Value: n.Value})
	case *syntax.Decimal:
		if a.cfg.Decimal != nil {
			if v, ok := a.cfg.Decimal(n.Text); ok {
				return a.consts.new(Const{At: At{a.pos(n)}, Value: v})
			}
		}
		return a.errorf(a.pos(n), "invalid_form", "invalid number '%sM': not a decimal this runtime can hold", n.Text)
	case *syntax.Set:
		a.depth++
		e := &SetLit{At: At{a.pos(n)}, Items: a.exprs(n.Items)}
		a.depth--
		return e
	case *syntax.ShortFn:
		a.depth++
		e := a.shortFn(n)
		a.depth--
		return e
	case *syntax.Quote:
		a.depth++
		e := a.quote(n.Form, a.pos(n))
		a.depth--
		return e
	case *syntax.Deref:
		// @x is (clojure.core/deref x): the builtin, whatever deref names here.
		a.depth++
		e := &Call{At: At{a.pos(n)}, Fn: a.builtinRef("deref", a.pos(n)), Args: []Expr{a.expr(n.Form, false)}}
		a.depth--
		return e
	case *syntax.VarQuote:
		return a.varRef(n.Sym, a.pos(n))
	case *syntax.SyntaxQuote:
		a.descend(n, "syntax-quote nested too deep")
		e := a.expr(a.syntaxQuote(n), false)
		a.depth--
		return e
	case *syntax.Unquote:
		return a.errorf(a.pos(n), "invalid_form", "unquote (~) outside a syntax-quote: ~x belongs inside a template such as `(f ~x)")
	case *syntax.UnquoteSplicing:
		return a.errorf(a.pos(n), "invalid_form", "unquote-splicing (~@) outside a syntax-quote: ~@xs belongs inside a template such as `(f ~@xs)")
	case *syntax.Regex:
		return &Call{At: At{a.pos(n)}, Fn: a.builtinRef("re-pattern", a.pos(n)),
			Args: []Expr{&Const{At: At{a.pos(n)}, Value: n.Pattern}}}
	case *syntax.Inst:
		var v any = n.Time
		if a.cfg.Inst != nil {
			v = a.cfg.Inst(n.Time)
		}
		return a.consts.new(Const{At: At{a.pos(n)}, Value: v})
	case *syntax.UUID:
		return a.consts.new(Const{At: At{a.pos(n)}, Value: n.Value}) // a UUID is its text
	default:
		return a.errorf(a.pos(n), "invalid_form", "unsupported form %s", syntax.Format(n))
	}
	p := a.consts.take()
	if p == nil {
		p = a.consts.grow()
	}
	p.Off, p.Value = off, val
	return p
}

// keywordOf is the Keyword node of a keyword of the source: its
// syntax.Keyword itself, whose memory a Keyword shares the layout of
// (the offset, a 32-bit word, the name), so that the most frequent
// literal of a program costs neither a node nor a copy. Nothing changes a
// node once made, neither here nor in the syntax tree: the two views
// cannot disagree. The Program is then valid only as long as the forms
// it was analyzed from (see Buffers).
func keywordOf(n *syntax.Keyword) *Keyword { return (*Keyword)(unsafe.Pointer(n)) }

// The layouts keywordOf relies on, each checked on its own (a sum could
// cancel out): x-y is out of the array's range, or a constant overflow,
// unless x == y, so any change to either struct fails the build.
var (
	_ = [1]struct{}{}[unsafe.Sizeof(Keyword{})-unsafe.Sizeof(syntax.Keyword{})]
	_ = [1]struct{}{}[unsafe.Offsetof(Keyword{}.Name)-unsafe.Offsetof(syntax.Keyword{}.Name)]
	_ = [1]struct{}{}[unsafe.Offsetof(Keyword{}.At)-unsafe.Offsetof(syntax.Keyword{}.Span)]
	_ = [1]struct{}{}[unsafe.Offsetof(At{}.Off)-unsafe.Offsetof(syntax.Span{}.Start)]
	_ = [1]struct{}{}[unsafe.Sizeof(At{}.Off)-unsafe.Sizeof(syntax.Span{}.Start)]
	_ = [1]struct{}{}[unsafe.Sizeof(At{})-unsafe.Sizeof(syntax.Span{}.Start)]
)

// builtinOf is the Builtin node of a symbol without a namespace that
// names the builtin of its name: the syntax.Symbol itself, as keywordOf.
func builtinOf(s *syntax.Symbol) *Builtin { return (*Builtin)(unsafe.Pointer(s)) }

// The layouts builtinOf relies on (a Builtin is made of a Symbol whose
// Ns is empty), checked as keywordOf's.
var (
	_ = [1]struct{}{}[unsafe.Sizeof(Builtin{})-unsafe.Sizeof(syntax.Symbol{})]
	_ = [1]struct{}{}[unsafe.Offsetof(Builtin{}.Name)-unsafe.Offsetof(syntax.Symbol{}.Name)]
	_ = [1]struct{}{}[unsafe.Offsetof(Builtin{}.At)-unsafe.Offsetof(syntax.Symbol{}.Span)]
)

func (a *analyzer) exprs(ns []syntax.Node) []Expr { return a.fill(ns) }

// fill analyzes the forms ns, none in tail position, into a slice of as
// many expressions, in order. Most items of a program (and nearly all of
// a literal's) are symbols, keywords and constants: they are analyzed
// here, in one type switch, without the round trip through expr (which
// they would pass only for the depth limit, checked here once). Lists,
// vectors and maps go straight to their own functions too.
func (a *analyzer) fill(ns []syntax.Node) []Expr {
	out, ok := a.exprBuf.take(len(ns))
	if !ok {
		out = a.exprBuf.grow(len(ns))
	}
	if a.depth >= a.cfg.MaxDepth && len(ns) > 0 {
		a.expr(ns[0], false) // the error
	}
	out = out[:len(ns)] // one bounds check for the loop
	// The constant cases set off and val, made into a Const below.
	var off int32
	var val any
	for j, n := range ns {
		switch n := n.(type) {
		case *syntax.Symbol:
			// symbol, written out: a local of this function made in
			// place, the rest by notHere and qualifiedSymbol.
			if n.Ns != "" {
				out[j] = a.qualifiedSymbol(n)
				continue
			}
			fp := fingerprint(n.Name)
			if f := a.fn; f.mayBeLocal(fp) {
				if slot, ok := f.lookup(n.Name, fp); ok {
					p := a.locals.take()
					if p == nil {
						p = a.locals.grow()
					}
					p.Off, p.Slot, p.Name = n.Start, int32(slot), n.Name
					out[j] = p
					continue
				}
			}
			out[j] = a.notHere(n, fp)
			continue
		case *syntax.Keyword:
			out[j] = keywordOf(n)
			continue
		case *syntax.Int:
			off, val = n.Start, a.boxInt(n.Value)
		case *syntax.String:
			off, val = n.Start, a.boxString(n.Value)
		case *syntax.Bool:
			off, val = n.Start, n.Value
		case *syntax.Nil:
			off, val = n.Start, nil
		case *syntax.Float:
			off, val = n.Start, a.boxFloat(n.Value)
		// Forms with children, as expr does them (the depth limit is
		// checked above).
		case *syntax.List:
			a.depth++
			out[j] = a.list(n, false)
			a.depth--
			continue
		case *syntax.Vector:
			// vector, written out: a call less for most vectors.
			a.depth++
			items := a.fill(n.Items)
			a.depth--
			p := a.vectors.take()
			if p == nil {
				p = a.vectors.grow()
			}
			p.Off, p.Items = n.Start, items
			out[j] = p
			continue
		case *syntax.Map:
			out[j] = a.mapLit(n)
			continue
		default:
			out[j] = a.expr(n, false)
			continue
		}
		p := a.consts.take()
		if p == nil {
			p = a.consts.grow()
		}
		p.Off, p.Value = off, val
		out[j] = p
	}
	return out
}

// item is fill for one form (the depth limit checked by the caller).
func (a *analyzer) item(n syntax.Node) Expr {
	var off int32
	var val any
	switch n := n.(type) {
	case *syntax.Symbol:
		return a.symbol(n)
	case *syntax.Keyword:
		return keywordOf(n)
	case *syntax.Int:
		off, val = n.Start, a.boxInt(n.Value)
	case *syntax.String:
		off, val = n.Start, a.boxString(n.Value)
	case *syntax.Bool:
		off, val = n.Start, n.Value
	case *syntax.Nil:
		off, val = n.Start, nil
	case *syntax.Float:
		off, val = n.Start, a.boxFloat(n.Value)
	case *syntax.List:
		a.depth++
		e := a.list(n, false)
		a.depth--
		return e
	case *syntax.Vector:
		return a.vector(n)
	case *syntax.Map:
		return a.mapLit(n)
	default:
		return a.expr(n, false)
	}
	p := a.consts.take()
	if p == nil {
		p = a.consts.grow()
	}
	p.Off, p.Value = off, val
	return p
}

// vector analyzes a vector literal.
func (a *analyzer) vector(n *syntax.Vector) Expr {
	a.depth++
	items := a.fill(n.Items)
	a.depth--
	p := a.vectors.take()
	if p == nil {
		p = a.vectors.grow()
	}
	p.Off, p.Items = n.Start, items // take hands out zeroed nodes: see slab.take
	return p
}

// mapLit analyzes a map literal: its keys and values share one slice,
// the keys first. A pair at a time: the key, nearly always a keyword, is
// made here, the value by item.
func (a *analyzer) mapLit(n *syntax.Map) Expr {
	a.depth++
	k := len(n.Items) / 2
	kv, ok := a.exprBuf.take(2 * k)
	if !ok {
		kv = a.exprBuf.grow(2 * k)
	}
	if a.depth >= a.cfg.MaxDepth && k > 0 {
		a.expr(n.Items[0], false) // the error
	}
	keys, vals := kv[:k:k], kv[k:2*k]
	items := n.Items[:2*k]
	for i := range keys {
		pair := items[2*i : 2*i+2] // one bounds check for the two
		if kw, ok := pair[0].(*syntax.Keyword); ok {
			keys[i] = keywordOf(kw)
		} else {
			keys[i] = a.expr(pair[0], false)
		}
		vals[i] = a.item(pair[1])
	}
	a.depth--
	p := a.maps.take()
	if p == nil {
		p = a.maps.grow()
	}
	p.Off, p.Keys, p.Vals = n.Start, keys, vals
	return p
}

func (a *analyzer) body(forms []syntax.Node, pos int32, tail bool) Expr {
	switch len(forms) {
	case 0:
		return a.consts.new(Const{At: At{pos}})
	case 1:
		return a.expr(forms[0], tail)
	}
	out := a.exprSlice(len(forms))
	for i, f := range forms {
		out[i] = a.expr(f, tail && i == len(forms)-1)
	}
	return a.dos.new(Do{At: At{pos}, Body: out})
}

func (a *analyzer) builtinRef(name string, pos int32) Expr {
	return a.builtins.new(Builtin{At: At{pos}, Name: name})
}

// descend enters one level deeper into n, and abandons the analysis with
// an error saying what when that passes MaxDepth.
func (a *analyzer) descend(n syntax.Node, what string) {
	a.depth++
	if a.depth > a.cfg.MaxDepth {
		a.tooDeep(n, what)
	}
}

func (a *analyzer) tooDeep(n syntax.Node, what string) {
	a.errorf(a.pos(n), "invalid_form", "%s (more than %d levels)", what, a.cfg.MaxDepth)
	panic(bailout{})
}

// quote turns a quoted literal into data: a quoted list is a list, a
// quoted symbol a symbol.
func (a *analyzer) quote(n syntax.Node, pos int32) Expr {
	a.descend(n, "quoted data nested too deep")
	e := a.quote1(n, pos)
	a.depth--
	return e
}

func (a *analyzer) quote1(n syntax.Node, pos int32) Expr {
	switch n := n.(type) {
	case *syntax.List:
		return &VectorLit{At: At{a.pos(n)}, Items: a.quoteItems(n.Items, pos), List: true}
	case *syntax.Vector:
		return &VectorLit{At: At{a.pos(n)}, Items: a.quoteItems(n.Items, pos)}
	case *syntax.Set:
		return &SetLit{At: At{a.pos(n)}, Items: a.quoteItems(n.Items, pos)}
	case *syntax.Map:
		items := a.quoteItems(n.Items, pos)
		m := &MapLit{At: At{a.pos(n)}}
		for i := 0; i+1 < len(items); i += 2 {
			m.Keys = append(m.Keys, items[i])
			m.Vals = append(m.Vals, items[i+1])
		}
		return m
	case *syntax.Symbol:
		return &SymbolLit{At: At{a.pos(n)}, Ns: n.Ns, Name: n.Name}
	case *syntax.Nil, *syntax.Bool, *syntax.Int, *syntax.BigInt, *syntax.Decimal, *syntax.Float, *syntax.String, *syntax.Keyword,
		*syntax.Inst, *syntax.UUID:
		return a.expr(n, false)
	case *syntax.Quote:
		// ''a is the list (quote a), as the reader reads 'a.
		return &VectorLit{At: At{a.pos(n)}, List: true, Items: []Expr{&SymbolLit{At: At{a.pos(n)}, Name: "quote"}, a.quote(n.Form, pos)}}
	case *syntax.Deref:
		return &VectorLit{At: At{a.pos(n)}, List: true, Items: []Expr{&SymbolLit{At: At{a.pos(n)}, Ns: "clojure.core", Name: "deref"}, a.quote(n.Form, pos)}}
	case *syntax.Unquote:
		return &VectorLit{At: At{a.pos(n)}, List: true, Items: []Expr{&SymbolLit{At: At{a.pos(n)}, Ns: "clojure.core", Name: "unquote"}, a.quote(n.Form, pos)}}
	case *syntax.UnquoteSplicing:
		return &VectorLit{At: At{a.pos(n)}, List: true, Items: []Expr{&SymbolLit{At: At{a.pos(n)}, Ns: "clojure.core", Name: "unquote-splicing"}, a.quote(n.Form, pos)}}
	case *syntax.SyntaxQuote:
		return a.quote(a.syntaxQuote(n), pos) // '`x is the form the template reads as
	case *syntax.ShortFn:
		return a.quote(ShortFnForm(n), pos)
	case *syntax.VarQuote:
		if n.Sym != nil {
			return &VectorLit{At: At{a.pos(n)}, List: true, Items: []Expr{&SymbolLit{At: At{a.pos(n)}, Name: "var"}, a.quote(n.Sym, pos)}}
		}
	}
	return a.errorf(a.pos(n), "invalid_form", "cannot quote %s: quote only literal data, e.g. '(1 2 3)", syntax.Format(n))
}

func (a *analyzer) quoteItems(items []syntax.Node, pos int32) []Expr {
	out := make([]Expr, len(items))
	for i, it := range items {
		out[i] = a.quote(it, pos)
	}
	return out
}

func symText(s *syntax.Symbol) string {
	if s.Ns != "" {
		return s.Ns + "/" + s.Name
	}
	return s.Name
}

func (a *analyzer) varRef(s *syntax.Symbol, pos int32) Expr {
	if s != nil && !a.defSet[s.Name] {
		// #'inc, #'clojure.core/map: a builtin's var is called as the
		// builtin is, so it stands for the builtin.
		if s.Ns == "" && a.isBuiltin(s.Name) && !isSpecialName(s.Name) && !a.isShadowed(s.Name) {
			return a.builtinRef(s.Name, pos)
		}
		if name, ok := a.qualified(s); ok && s.Ns != "" {
			return a.builtinRef(name, pos)
		}
	}
	if s == nil || s.Ns != "" {
		return a.errorf(pos, "invalid_form", "#' needs the name of a def'd var")
	}
	if !a.defSet[s.Name] {
		a.useGlobal(s.Name, pos)
	}
	return &VarRef{At: At{pos}, Name: s.Name}
}

func (a *analyzer) useGlobal(name string, pos int32) {
	if !a.globals[name] {
		if a.globals == nil {
			a.globals = map[string]bool{}
		}
		a.globals[name] = true
		a.uses = append(a.uses, GlobalUse{Name: name, Off: pos})
	}
}
