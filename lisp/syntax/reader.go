package syntax

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ptc-go/ptc/lisp/internal/chunk"
)

// Config holds the reader's limits. The zero Config uses the defaults.
type Config struct {
	MaxDepth  int // maximum nesting of collections, quote, #' and #_; 0 means 512
	MaxErrors int // stop after this many errors; 0 means 10
	// Buffers, when set, supplies the memory of the nodes, recycled
	// from earlier reads: the nodes are valid until its Reset.
	Buffers *Buffers
}

// Read reads all forms in src with the default Config.
func Read(src string) ([]Node, error) { return Config{}.Read(src) }

// Read reads all forms in src. On error it returns the forms it could read
// (best effort, possibly partial) and an ErrorList; otherwise the error is nil.
// Read never panics, and its time and Go stack use are bounded by the input
// size and c.MaxDepth respectively.
func (c Config) Read(src string) ([]Node, error) { return c.read(src, false) }

// read is Read; slowOnly (for tests) leaves fast out, so that step and the
// recursive functions read everything: fast must read the same.
func (c Config) read(src string, slowOnly bool) ([]Node, error) {
	if len(src) > MaxSource {
		return nil, ErrorList{{Pos: Pos{Line: 1, Col: 1}, Msg: "program text larger than 1 GiB"}}
	}
	// Fields set one by one: a composite literal of this large struct
	// would be built aside, then copied.
	var r reader
	r.src = src
	r.slowOnly = slowOnly
	r.line, r.colBase = 1, -1
	r.maxDepth, r.maxErrors = c.MaxDepth, c.MaxErrors
	if r.maxDepth <= 0 {
		r.maxDepth = 512
	}
	if r.maxErrors <= 0 {
		r.maxErrors = 10
	}
	if c.Buffers != nil {
		c.Buffers.use(&r)
	}
	// The first frame is the top level: its items are the forms.
	r.nframes = 1
	r.plan()
	if strings.HasPrefix(src, "#!") {
		r.skipComment()
	}
	for !r.stop {
		n, found := r.readNext()
		if n != nil {
			r.add(n)
		}
		if found {
			continue
		}
		if r.off >= len(src) {
			break
		}
		// A stray closer between top-level forms: LLMs often add one more
		// ')' than needed, and nothing is gained by rejecting the program.
		r.off++
	}
	forms := r.frames[0].items()
	if len(r.errs) > 0 {
		return forms, r.errs
	}
	return forms, nil
}

// plan takes the census of the start of the source and sizes the slabs'
// first chunks from it, and the first runs of items of each depth, carved
// from the items arena's first chunk: a small program needs one []Node
// allocation in all.
func (r *reader) plan() {
	var c census
	c.take(r.src)
	r.nils.want, r.bools.want, r.ints.want, r.floats.want = c.nils, c.bools, c.ints, c.floats
	r.strs.want, r.keywords.want, r.symbols.want = c.strs, c.keywords, c.symbols
	r.lists.want, r.vectors.want, r.maps.want = c.lists, c.vectors, c.maps
	if c.forms == 0 {
		return
	}
	var buf []Node
	if r.bufs != nil {
		buf = r.bufs.items.Get(c.forms, c.forms)
	} else if c.forms <= 4 && c.symbols <= 2 && c.ints <= 2 && c.lists <= 1 && c.keywords <= 1 {
		// A one-liner such as (+ 1 2): its nodes and items in one allocation.
		t := new(tinyRead)
		buf = t.items[:c.forms]
		r.symbols.buf, r.symbols.want = t.symbols[:c.symbols], 0
		r.ints.buf, r.ints.want = t.ints[:c.ints], 0
		r.lists.buf, r.lists.want = t.lists[:c.lists], 0
		r.keywords.buf, r.keywords.want = t.keywords[:c.keywords], 0
	} else {
		buf = make([]Node, c.forms)
	}
	at := 0
	for d := 0; at < c.forms && d < len(c.depths); d++ {
		n := c.depths[d]
		r.frames[d].buf = buf[at : at+n : at+n]
		at += n
	}
	r.items.buf, r.items.at, r.items.used = buf, at, at
	// The first chunks now, not at the first node of each kind: fast
	// takes nodes only from a chunk there is (next), and would leave the
	// first of each kind to the slow paths.
	r.nils.first()
	r.bools.first()
	r.ints.first()
	r.floats.first()
	r.strs.first()
	r.keywords.first()
	r.symbols.first()
	r.lists.first()
	r.vectors.first()
	r.maps.first()
}

// tinyRead holds the nodes of the shortest programs, so that reading one
// costs a single allocation.
type tinyRead struct {
	items    [4]Node
	symbols  [2]Symbol
	ints     [2]Int
	lists    [1]List
	keywords [1]Keyword
}

// halt stops reading, and drops the census's plans for the rest of the
// source, which will not be read.
func (r *reader) halt() {
	r.stop = true
	r.nils.want, r.bools.want, r.ints.want, r.floats.want = 0, 0, 0, 0
	r.strs.want, r.keywords.want, r.symbols.want = 0, 0, 0
	r.lists.want, r.vectors.want, r.maps.want = 0, 0, 0
}

// Character classes of bytes. The order matters: classes up to clSpecial
// continue a token.
const (
	clTok     = iota // part of a token, and can start a symbol, number or keyword
	clSpecial        // part of a token, but starts ' \ or # forms
	clSpace          // white space other than LF (comma included)
	clNewline        // LF
	clComment        // ;
	clDelim          // ends a token: ( ) [ ] { } " ` ~ ^ @
	clCtrl           // control character: an error outside strings and comments
	clHigh           // a byte of a non-ASCII character: decode to classify
)

var byteClass = func() (t [256]uint8) {
	for i := range t {
		switch {
		case i >= utf8.RuneSelf:
			t[i] = clHigh
		case i == '\n':
			t[i] = clNewline
		case i == ';':
			t[i] = clComment
		case i == '\'' || i == '\\' || i == '#':
			t[i] = clSpecial
		case i == ' ' || i == '\t' || i == '\r' || i == ',':
			t[i] = clSpace
		case i < 0x20 || i == 0x7f:
			t[i] = clCtrl
		case strings.IndexByte("()[]{}\"`~^@", byte(i)) >= 0:
			t[i] = clDelim
		}
	}
	return t
}()

// Collection kinds, indexing collKinds.
const (
	kList = iota
	kVector
	kMap
	kSet
	kShortFn
)

var collKinds = [...]struct {
	open  string
	close byte
}{
	kList:    {"(", ')'},
	kVector:  {"[", ']'},
	kMap:     {"{", '}'},
	kSet:     {"#{", '}'},
	kShortFn: {"#(", ')'},
}

// suspect is where a literal that looks like it swallowed code opened,
// and the line that looks like code.
type suspect struct {
	start Pos
	line  int32
}

// reader is the state of one Read. Forms are read by recursive descent;
// depth counts open collections, quotes and discards, and is checked before
// each one, which bounds the recursion.
type reader struct {
	src string
	off int // next byte to read

	// Position tracking: newlines are consumed only by run's white space
	// and by string and regex literals (all call newline), and pos is only
	// asked for offsets on the current line. Between colFrom and nextHigh
	// there is no non-ASCII byte (nextHigh is the first one after colFrom
	// where posSlow looked for it, or where fast, which reads only ASCII
	// bytes, stopped), so there is one byte per column, and the column of
	// off is off-colBase.
	line             int
	colFrom, colBase int
	nextHigh         int

	// suspect is the first string or regex literal that spans lines and
	// whose later lines start like code: where a missing quote most likely
	// is when a literal is never closed. swallowed is set once a literal
	// has run to the end of input, so the collections it swallowed the
	// closers of are not reported as unclosed too.
	suspect   suspect
	swallowed bool

	maxDepth, maxErrors int
	depth               int
	errs                ErrorList
	stop                bool // too deep or too many errors: unwind without reading

	// The open collections (see run), innermost last, after the top
	// level: the first ones in frames (a slice of the reader itself would
	// make it escape), any others in deep. The slots past nframes keep the
	// runs of items of their depths.
	frames     [16]frame
	nframes    int
	base       int         // fast's base
	frameLimit int         // fast opens a collection only while nframes is below it
	slowOnly   bool        // fast reads nothing (see read)
	tokenBits  *[256]uint8 // &tokenBits, for fastLoop (see there)
	cursor     cursor      // for the positions of openers (start)
	opened     []Pos       // where the collections at each index of the stack opened, once start worked it out
	deep       []frame
	items      arena[Node]
	bufs       *Buffers // nil: chunks are allocated

	// Nodes come from per-type slabs: one allocation per chunk instead of
	// one per node.
	nils     slab[Nil]
	bools    slab[Bool]
	ints     slab[Int]
	floats   slab[Float]
	strs     slab[String]
	keywords slab[Keyword]
	symbols  slab[Symbol]
	lists    slab[List]
	vectors  slab[Vector]
	maps     slab[Map]
}

// slab hands out pointers into chunks, so that nodes cost one allocation
// per chunk rather than one each. The first chunk holds what the census
// counted; later ones what the rest of the input is expected to need at
// the density seen so far (so the unused tail of the last chunk is small),
// up to maxChunk elements.
type slab[T any] struct {
	buf  []T
	i    int
	past int // elements in earlier chunks
	want int // elements the census expects that no chunk holds yet
	pool *chunk.Pool[T]
}

// maxChunk bounds the chunks sized by expect, and so the elements an
// input that changes character can leave unused.
const maxChunk = 1024

// alloc is small enough to inline; grow gets the next chunk.
func (s *slab[T]) alloc(r *reader) *T {
	if i := s.i; uint(i) < uint(len(s.buf)) {
		s.i = i + 1
		return &s.buf[i]
	}
	return s.grow(r)
}

// first gets the chunk the census planned, if any.
func (s *slab[T]) first() {
	if s.want > 0 {
		s.firstChunk()
	}
}

func (s *slab[T]) firstChunk() {
	if n := s.want; n > 0 {
		s.want = 0
		if s.pool != nil {
			s.buf = s.pool.Get(n, n)
		} else {
			s.buf = make([]T, n)
		}
	}
}

func (s *slab[T]) grow(r *reader) *T {
	s.past += len(s.buf)
	size := s.want
	s.want = 0
	if size == 0 {
		size = min(expect(s.past, r.off, len(r.src)-r.off)+4, maxChunk)
	}
	if s.pool != nil {
		s.buf = s.pool.Get(1, size)
	} else {
		s.buf = make([]T, size)
	}
	s.i = 1
	return &s.buf[0]
}

// expect estimates how many more elements the left bytes of input will
// need if used elements were needed for the done bytes read so far.
func expect(used, done, left int) int {
	return int(min(int64(used)*int64(left)/int64(max(done, 1)), int64(left)))
}

// arena hands out slices carved from shared chunks, sized like slab's,
// capped (three-index slices) so that appending to one never overwrites
// another. The free part of the current chunk is buf[at:] (an index
// rather than a slice, which costs fewer writes per carving).
type arena[T any] struct {
	buf  []T
	at   int
	used int
	pool *chunk.Pool[T]
}

// carve returns n elements, where done bytes of input needed those
// carved so far and left bytes remain.
func (a *arena[T]) carve(n, done, left int) []T {
	a.used += n
	if n > len(a.buf)-a.at {
		size := min(expect(a.used, done, left)+16, 4*maxChunk)
		if n > size/2 {
			return make([]T, n)
		}
		if a.pool != nil {
			a.buf = a.pool.Get(n, size)
		} else {
			a.buf = make([]T, size)
		}
		a.at = 0
	}
	s := a.buf[a.at : a.at+n : a.at+n]
	a.at += n
	return s
}

// pos returns the position of offset off, which must be on the current
// line.
func (r *reader) pos(off int) Pos {
	if r.colFrom <= off && off <= r.nextHigh {
		return Pos{int32(off), int32(r.line), int32(off - r.colBase)}
	}
	return r.posSlow(off)
}

func (r *reader) posSlow(off int) Pos {
	var col int
	if off >= r.colFrom {
		col = r.colFrom - r.colBase + utf8.RuneCountInString(r.src[r.colFrom:off])
	} else { // not expected: recount from the start of the line
		col = 1 + utf8.RuneCountInString(r.src[strings.LastIndexByte(r.src[:off], '\n')+1:off])
	}
	r.colFrom, r.colBase = off, off-col
	r.nextHigh = off + indexNonASCII(r.src[off:])
	return Pos{Offset: int32(off), Line: int32(r.line), Col: int32(col)}
}

// indexNonASCII returns the index of the first byte of s >= 0x80, or len(s).
func indexNonASCII(s string) int {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		t := s[i : i+8] // eight bytes at a time: the loads merge into one
		w := uint64(t[0]) | uint64(t[1])<<8 | uint64(t[2])<<16 | uint64(t[3])<<24 |
			uint64(t[4])<<32 | uint64(t[5])<<40 | uint64(t[6])<<48 | uint64(t[7])<<56
		if w&0x8080808080808080 != 0 {
			break
		}
	}
	for ; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return i
		}
	}
	return i
}

func (r *reader) errorAt(p, opened Pos, format string, args ...any) {
	if r.stop {
		return
	}
	r.errs = append(r.errs, &Error{Pos: p, Msg: fmt.Sprintf(format, args...), Opened: opened})
	if len(r.errs) >= r.maxErrors {
		r.halt()
	}
}

func (r *reader) errorf(p Pos, format string, args ...any) {
	r.errorAt(p, Pos{}, format, args...)
}

// enter checks the nesting limit before a nested read at p; on success the
// caller must decrement r.depth when done.
func (r *reader) enter(p Pos) bool {
	if r.depth >= r.maxDepth {
		r.tooDeep(p)
		return false
	}
	r.depth++
	return true
}

func (r *reader) tooDeep(p Pos) {
	r.errorf(p, "nesting too deep (more than %d levels)", r.maxDepth)
	r.halt()
}

// newline starts a new line at off, just after a LF.
func (r *reader) newline(off int) {
	r.line++
	r.colFrom, r.colBase = off, off-1
	r.nextHigh = max(r.nextHigh, off)
}

// skipComment skips to the end of the line, leaving the newline; anything
// goes inside a comment.
func (r *reader) skipComment() {
	if i := strings.IndexByte(r.src[r.off:], '\n'); i >= 0 {
		r.off += i
	} else {
		r.off = len(r.src)
	}
}

// readForm reads the form starting at r.off, which is not white space, a
// comment, a closer or the end of input. It always consumes at least one
// byte. It returns nil after reporting an error.
func (r *reader) readForm() Node {
	s := r.src
	start := r.off
	b := s[start]
	switch b {
	case '(':
		return r.readColl(kList)
	case '[':
		return r.readColl(kVector)
	case '{':
		return r.readColl(kMap)
	case '"':
		return r.readString()
	case '\'':
		return r.readQuote()
	case '\\':
		return r.readChar()
	case '#':
		return r.readDispatch()
	case '@':
		return r.readDeref()
	case '`', '~':
		return r.readSyntaxQuote()
	case '^':
		return r.readMeta()
	}
	if b < utf8.RuneSelf {
		if byteClass[b] == clCtrl {
			r.errorf(r.pos(start), "unexpected control character U+%04X", b)
			r.off++
			return nil
		}
	} else {
		c, size := utf8.DecodeRuneInString(s[start:])
		switch {
		case c == utf8.RuneError && size == 1:
			r.errorf(r.pos(start), "invalid UTF-8 byte 0x%02x", b)
			r.off++
			return nil
		case unicode.IsControl(c):
			r.errorf(r.pos(start), "unexpected control character U+%04X", c)
			r.off += size
			return nil
		}
	}
	return r.readTokenSlow() // a non-ASCII character: run reads the ASCII tokens
}

// tokenEnd returns the end of the token that continues at i.
func (r *reader) tokenEnd(i int) int {
	s := r.src
	for i < len(s) {
		switch byteClass[s[i]] {
		case clTok, clSpecial:
			i++
		case clHigh:
			c, size := utf8.DecodeRuneInString(s[i:])
			if c == utf8.RuneError && size == 1 || unicode.IsSpace(c) || unicode.IsControl(c) {
				return i
			}
			i += size
		default:
			return i
		}
	}
	return i
}

func (r *reader) readQuote() Node {
	start := r.pos(r.off)
	r.off++
	if !r.enter(start) {
		return nil
	}
	n, found := r.readNext()
	r.depth--
	if !found {
		r.errorf(start, "quote (') must be followed by a form")
	}
	if n == nil {
		return nil
	}
	return &Quote{Span{start.Offset, n.Bounds().Stop}, n}
}

// readSyntaxQuote reads `form, ~form or ~@form: the parts of a macro's
// template, which the analyzer expands.
func (r *reader) readSyntaxQuote() Node {
	start := r.pos(r.off)
	kind, what := 0, "syntax-quote (`)"
	if r.src[r.off] == '~' {
		kind, what = 1, "unquote (~)"
		if r.off+1 < len(r.src) && r.src[r.off+1] == '@' {
			r.off++ // ~@ is one unquote-splicing, not also a deref
			kind, what = 2, "unquote-splicing (~@)"
		}
	}
	r.off++
	if !r.enter(start) {
		return nil
	}
	n, found := r.readNext()
	r.depth--
	if !found {
		r.errorf(start, "%s must be followed by a form", what)
	}
	if n == nil {
		return nil
	}
	sp := Span{start.Offset, n.Bounds().Stop}
	switch kind {
	case 0:
		return &SyntaxQuote{sp, n}
	case 1:
		return &Unquote{sp, n}
	}
	return &UnquoteSplicing{sp, n}
}

// readDeref reads @form, which means (clojure.core/deref form) as in
// Clojure (the analyzer makes it that call).
func (r *reader) readDeref() Node {
	start := r.pos(r.off)
	r.off++
	if !r.enter(start) {
		return nil
	}
	n, found := r.readNext()
	r.depth--
	if !found {
		r.errorf(start, "@ (deref) must be followed by a form, as in @counter")
	}
	if n == nil {
		return nil
	}
	return &Deref{Span{start.Offset, n.Bounds().Stop}, n}
}

// readMeta reads ^meta form. Metadata (^:private, type hints such as
// ^String, ^{:doc "..."}) means nothing here, so, once checked as Clojure
// checks it, it is dropped and the form read as if written alone.
func (r *reader) readMeta() Node {
	start := r.pos(r.off)
	r.off++
	if !r.enter(start) {
		return nil
	}
	meta, found := r.readNext()
	ok := true
	switch m := meta.(type) {
	case *Symbol, *Keyword, *Map:
	case *String:
		ok = !m.Char
	case nil: // not found, or an error in it has been reported
	default:
		ok = false
	}
	if found && !ok {
		r.errorf(start, "metadata (^) must be a symbol, keyword, string or map, as in ^:private or ^String")
	}
	n, found2 := r.readNext()
	r.depth--
	switch {
	case !found || !found2:
		r.errorf(start, "metadata (^) must be followed by the form it applies to, as in ^:private name")
		return nil
	case !ok || meta == nil:
		return nil
	}
	switch n.(type) {
	case *Symbol, *List, *Vector, *Map, *Set, *ShortFn, nil:
		return n
	}
	r.errorf(start, "metadata (^) can only be applied to a symbol or a collection")
	return nil
}

// readDispatch reads a form starting with '#' other than #_.
func (r *reader) readDispatch() Node {
	s := r.src
	start := r.pos(r.off)
	var next byte
	if r.off+1 < len(s) {
		next = s[r.off+1]
	}
	switch next {
	case '{':
		return r.readColl(kSet)
	case '(':
		return r.readColl(kShortFn)
	case '"':
		return r.readRegex()
	case '\'':
		r.off += 2
		if !r.enter(start) {
			return nil
		}
		n, found := r.readNext()
		r.depth--
		if sym, ok := n.(*Symbol); ok {
			return &VarQuote{Span{start.Offset, sym.Stop}, sym}
		}
		if n != nil || !found {
			r.errorf(start, "#' must be followed by a symbol, as in #'my-fn")
		}
		return nil
	case '#':
		end := r.tokenEnd(r.off + 2)
		tok := s[r.off:end]
		r.off = end
		var v float64
		switch tok {
		case "##Inf":
			v = math.Inf(1)
		case "##-Inf":
			v = math.Inf(-1)
		case "##NaN":
			v = math.NaN()
		default:
			r.errorf(start, "unsupported reader syntax '%s'", clip(tok))
			return nil
		}
		n := r.floats.alloc(r)
		n.Span, n.Value = Span{start.Offset, int32(end)}, v
		return n
	}
	// Tagged literals (#inst, #uuid), namespaced maps (#:a{}), reader
	// conditionals (#?) and the like: name the construct, then skip just its
	// tag so that what follows is still read and checked.
	end := r.tokenEnd(r.off + 1)
	tok := s[r.off:end]
	if tok == "#inst" || tok == "#uuid" {
		return r.readTagged(start, tok, end)
	}
	if end == r.off+1 && next > ' ' && next < utf8.RuneSelf && byteClass[next] == clDelim {
		tok = s[r.off : r.off+2] // name the character, but leave it to be read
	}
	r.errorf(start, "unsupported reader syntax '%s'", clip(tok))
	r.off = end
	return nil
}

// readTagged reads #inst "…" or #uuid "…" (tag), whose tag ends at end:
// the string that follows, checked now, as Clojure's reader checks it.
func (r *reader) readTagged(start Pos, tag string, end int) Node {
	r.off = end
	if !r.enter(start) {
		return nil
	}
	n, found := r.readNext()
	r.depth--
	str, ok := n.(*String)
	if !ok {
		if n != nil || !found {
			r.errorf(start, "%s must be followed by a string, as in %s", tag, map[string]string{
				"#inst": `#inst "2024-01-02T03:04:05Z"`, "#uuid": `#uuid "123e4567-e89b-12d3-a456-426614174000"`}[tag])
		}
		return nil
	}
	sp := Span{start.Offset, str.Stop}
	if tag == "#uuid" {
		v, ok := CanonicalUUID(str.Value)
		if !ok {
			r.errorf(start, "#uuid %q is not a UUID: write five groups of hex digits, as in 123e4567-e89b-12d3-a456-426614174000", clip(str.Value))
			return nil
		}
		return &UUID{Span: sp, Value: v}
	}
	t, err := ParseInst(str.Value)
	if err != nil {
		r.errorf(start, "%s", err.Error())
		return nil
	}
	return &Inst{Span: sp, Text: str.Value, Time: t}
}

func isDigit(b byte) bool { return '0' <= b && b <= '9' }

func isOctal(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '7' {
			return false
		}
	}
	return true
}

func isHex(b byte) bool {
	return '0' <= b && b <= '9' || 'a' <= b && b <= 'f' || 'A' <= b && b <= 'F'
}

// Bits of tokenBits.
const (
	tbTok   = 1 << iota // a byte that continues a token; alone, an ASCII byte other than '/'
	tbSlash             // '/'
	tbHigh              // a byte of a non-ASCII character: run's fast path leaves the token to readTokenSlow
)

// tokenBits classifies the bytes that continue a token, for run's fast
// path; 0 ends it. A non-ASCII byte continues it, as the fast path sees
// it, which then leaves the token to readTokenSlow.
var tokenBits = func() (t [256]uint8) {
	for i, c := range byteClass {
		if i >= utf8.RuneSelf {
			t[i] = tbHigh
			continue
		}
		if c > clSpecial {
			continue
		}
		t[i] = tbTok
		if i == '/' {
			t[i] |= tbSlash
		}
	}
	return t
}()

// plainStart tells the ASCII bytes that start a token that is a symbol
// unless it is nil, true or false, or has a '/' after its first byte.
var plainStart = func() (t [256]bool) {
	for i, c := range byteClass {
		t[i] = c == clTok && i < utf8.RuneSelf && !isDigit(byte(i)) && !strings.ContainsRune(":+-.", rune(i))
	}
	return t
}()

// readTokenSlow reads any token at r.off.
func (r *reader) readTokenSlow() Node {
	s := r.src
	startOff := r.off
	end := startOff + 1 // readForm only calls us at a token character
	for end < len(s) && byteClass[s[end]] <= clSpecial {
		end++
	}
	if end < len(s) && s[end] >= utf8.RuneSelf || s[startOff] >= utf8.RuneSelf {
		end = r.tokenEnd(startOff)
	}
	tok := s[startOff:end]
	r.off = end
	sp := Span{int32(startOff), int32(end)}

	c := tok[0]
	var c1 byte
	if len(tok) > 1 {
		c1 = tok[1]
	}
	switch {
	case c == ':':
		switch {
		case len(tok) == 1:
			r.errorf(r.pos(startOff), "keyword ':' has no name: write :name")
			return nil
		case c1 == ':':
			// ::name is Clojure's keyword of the current namespace, which
			// for a program is always user: :user/name. ::alias/name needs
			// an alias table the reader does not have.
			if name := tok[2:]; name != "" && !strings.ContainsAny(name, ":/") {
				n := r.keywords.alloc(r)
				n.Span, n.Name = sp, "user/"+name
				return n
			}
			fix := ":" + strings.TrimLeft(tok, ":")
			if fix == ":" {
				fix = ":name"
			}
			r.errorf(r.pos(startOff), "auto-resolved keywords (%s) are not supported: write %s", clip(tok), clip(fix))
			return nil
		}
		n := r.keywords.alloc(r)
		n.Span, n.Name = sp, tok[1:]
		return n
	case isDigit(c) || (c == '+' || c == '-') && isDigit(c1):
		return r.number(tok, sp)
	case c == '.' && isDigit(c1) || (c == '+' || c == '-') && c1 == '.' && len(tok) > 2 && isDigit(tok[2]):
		// .5 reads as a symbol in Clojure; here it is surely a number typo.
		fixed := "0" + tok
		if c != '.' {
			fixed = tok[:1] + "0" + tok[1:]
		}
		if _, ok := parseNumber(fixed); ok == "" {
			r.errorf(r.pos(startOff), "invalid number '%s': write %s", clip(tok), clip(fixed))
		} else {
			r.errorf(r.pos(startOff), "invalid number '%s'", clip(tok))
		}
		return nil
	}
	switch tok {
	case "nil":
		n := r.nils.alloc(r)
		n.Span = sp
		return n
	case "true", "false":
		n := r.bools.alloc(r)
		n.Span, n.Value = sp, tok == "true"
		return n
	}
	n := r.symbols.alloc(r)
	n.Span = sp
	// Split at the first '/' that has text on both sides. Symbols are
	// short: a plain loop beats strings.IndexByte's call.
	for i := 1; i < len(tok) && c != '/'; i++ {
		if tok[i] == '/' {
			if i == len(tok)-1 {
				r.errorf(r.pos(startOff), "invalid symbol '%s'", clip(tok))
				return nil
			}
			n.Ns, n.Name = tok[:i], tok[i+1:]
			return n
		}
	}
	n.Name = tok
	return n
}

// number builds the node for a token that starts like a number.
func (r *reader) number(tok string, sp Span) Node {
	num, msg := parseNumber(tok)
	switch {
	case msg != "":
		r.errorf(r.pos(int(sp.Start)), "%s", msg)
		return nil
	case num.isFloat:
		n := r.floats.alloc(r)
		n.Span, n.Value = sp, num.f
		return n
	case num.big != nil:
		return &BigInt{Span: sp, Value: num.big}
	case num.dec != "":
		return &Decimal{Span: sp, Text: num.dec}
	}
	n := r.ints.alloc(r)
	n.Span, n.Value = sp, num.i
	return n
}

type number struct {
	i       int64
	f       float64
	isFloat bool
	big     *big.Int // an N literal, or an integer past 64 bits
	dec     string   // an M literal's text (1.50, -2, 1e3)
}

// bigNumber is the BigInt of digits in base, or ok false.
func bigNumber(digits string, base int) (number, bool) {
	b, ok := new(big.Int).SetString(digits, base)
	return number{big: b}, ok
}

// parseNumber parses a token in Clojure number syntax, or returns an error
// message.
func parseNumber(tok string) (num number, msg string) {
	i := 0
	if tok[0] == '+' || tok[0] == '-' {
		i++
	}
	invalid := func() string { return "invalid number '" + clip(tok) + "'" }
	outOfRange := func() string { return "integer literal " + clip(tok) + " is out of range (64-bit)" }
	if i+1 < len(tok) && tok[i] == '0' && (tok[i+1] == 'x' || tok[i+1] == 'X') {
		digits := strings.TrimSuffix(tok[i+2:], "N")
		if digits == "" {
			return num, invalid()
		}
		for k := 0; k < len(digits); k++ {
			if !isHex(digits[k]) {
				return num, invalid()
			}
		}
		x, err := strconv.ParseInt(tok[:i]+digits, 16, 64)
		if err != nil || strings.HasSuffix(tok, "N") {
			if n, ok := bigNumber(tok[:i]+digits, 16); ok {
				return n, ""
			}
			return num, outOfRange()
		}
		return number{i: x}, ""
	}
	j := i
	for j < len(tok) && isDigit(tok[j]) {
		j++
	}
	if j == len(tok) || j == len(tok)-1 && tok[j] == 'N' {
		base := 10
		if tok[i] == '0' && j-i > 1 {
			// A leading zero makes an octal literal, as in Clojure (and
			// Java): 0755 is 493, and 08 is no number.
			base = 8
			for k := i + 1; k < j; k++ {
				if tok[k] > '7' {
					return num, "invalid number '" + clip(tok) + "': a leading 0 makes an octal literal (digits 0-7); write " + strings.TrimLeft(tok[i:j], "0") + " for the decimal"
				}
			}
		}
		x, err := strconv.ParseInt(tok[:j], base, 64)
		if err != nil || j < len(tok) { // past 64 bits, or 1N: Clojure's BigInt
			if n, ok := bigNumber(tok[:j], base); ok {
				return n, ""
			}
			return num, outOfRange()
		}
		return number{i: x}, ""
	}
	if tok[j] == '/' {
		k := j + 1
		for k < len(tok) && isDigit(tok[k]) {
			k++
		}
		if k < len(tok) || k == j+1 || j == i {
			return num, invalid()
		}
		// A ratio denotes the float that / gives: / never makes ratios here.
		n, _ := strconv.ParseFloat(tok[:j], 64)
		d, _ := strconv.ParseFloat(tok[j+1:], 64)
		if d == 0 {
			return num, "ratio literal " + clip(tok) + " divides by zero"
		}
		return number{f: n / d, isFloat: true}, ""
	}
	if (tok[j] == 'r' || tok[j] == 'R') && j > i {
		return parseRadix(tok, i, j)
	}
	if tok[j] == '.' {
		j++
		for j < len(tok) && isDigit(tok[j]) {
			j++
		}
	}
	if j < len(tok) && (tok[j] == 'e' || tok[j] == 'E') {
		j++
		if j < len(tok) && (tok[j] == '+' || tok[j] == '-') {
			j++
		}
		k := j
		for j < len(tok) && isDigit(tok[j]) {
			j++
		}
		if j == k {
			return num, invalid()
		}
	}
	text := tok[:j]
	if j == len(tok)-1 && tok[j] == 'M' {
		// A BigDecimal: its text, which the runtime reads exactly.
		return number{dec: strings.TrimPrefix(text, "+")}, ""
	}
	if j != len(tok) {
		return num, invalid()
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil {
		return num, "float literal " + clip(tok) + " is out of range (64-bit)"
	}
	return number{f: f, isFloat: true}, ""
}

// parseRadix parses a radix integer such as 2r1010 or -16rFF, whose base
// ends at tok[j] == 'r'.
func parseRadix(tok string, i, j int) (number, string) {
	base, err := strconv.Atoi(tok[i:j])
	if err != nil || base < 2 || base > 36 {
		return number{}, "invalid number '" + clip(tok) + "': the radix must be 2 to 36"
	}
	digits := tok[j+1:]
	if digits == "" || digits[0] == '+' || digits[0] == '-' || strings.IndexByte(digits, '_') >= 0 {
		return number{}, "invalid number '" + clip(tok) + "'"
	}
	x, err := strconv.ParseInt(tok[:i]+digits, base, 64)
	if err != nil {
		if errors.Is(err, strconv.ErrRange) { // past 64 bits: a BigInt, as in Clojure
			if n, ok := bigNumber(tok[:i]+digits, base); ok {
				return n, ""
			}
		}
		return number{}, "invalid number '" + clip(tok) + "'"
	}
	return number{i: x}, ""
}

// readString reads a string literal. As in Clojure it may span lines, and
// keeps its line breaks.
func (r *reader) readString() Node {
	s := r.src
	startOff := r.off
	// Where the literal opens, computed once needed (while the reader is
	// still on its line): a string on one line without errors needs none.
	var start Pos
	nerrs := len(r.errs)
	escaped := false
	i := startOff + 1
	for i < len(s) {
		b := s[i]
		if b >= 0x20 && b < utf8.RuneSelf && b != '"' && b != '\\' {
			i++
			continue
		}
		switch {
		case b == '"':
			r.off = i + 1
			if len(r.errs) != nerrs || r.stop {
				return nil
			}
			v := s[startOff+1 : i]
			if escaped {
				v = unescape(v)
			}
			n := r.strs.alloc(r)
			n.Span, n.Value = Span{int32(startOff), int32(r.off)}, v
			return n
		case b == '\n':
			if !start.IsValid() {
				start = r.pos(startOff)
			}
			i++
			r.literalLine(start, i)
		case b == '\\':
			escaped = true
			i = r.checkEscape(i)
		case b < utf8.RuneSelf:
			i++ // other control characters (CR, tab...) are allowed in strings
		default:
			c, size := utf8.DecodeRuneInString(s[i:])
			if c == utf8.RuneError && size == 1 {
				r.errorf(r.pos(i), "invalid UTF-8 byte 0x%02x", b)
			}
			i += size
		}
	}
	if !start.IsValid() {
		start = r.pos(startOff)
	}
	r.unterminated(start, "string")
	return nil
}

// literalLine starts a new line at off, inside the string or regex literal
// opened at start, and notes the literal as the likely culprit should the
// program end inside a literal: a line inside it that starts like code (an
// open paren and not a blank, or ";;") more likely belongs outside it.
func (r *reader) literalLine(start Pos, off int) {
	r.newline(off)
	if r.suspect.start.IsValid() {
		return
	}
	s := r.src
	j := off
	for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
		j++
	}
	if j+1 < len(s) && (s[j] == '(' && byteClass[s[j+1]] <= clSpecial || s[j] == ';' && s[j+1] == ';') {
		r.suspect = suspect{start, int32(r.line)}
	}
}

// unterminated reports a string or regex literal opened at start that runs
// to the end of input, naming the literal whose lines look like code, where
// the missing quote most likely is. The collections it swallowed the
// closers of are not reported as unclosed too.
func (r *reader) unterminated(start Pos, what string) {
	r.off = len(r.src)
	r.swallowed = true
	sus := r.suspect
	switch {
	case !sus.start.IsValid():
		r.errorf(start, "unterminated %s: no closing '\"' before the end of the program", what)
	case sus.start == start:
		r.errorf(start, "unterminated %s: it runs into line %d, which looks like code; its closing '\"' is probably missing on line %d",
			what, sus.line, start.Line)
	default:
		r.errorf(sus.start, "unterminated %s: the string opened here runs into line %d, which looks like code, so its closing '\"' is probably missing on line %d (the program ends inside the %s opened at %s)",
			what, sus.line, sus.start.Line, what, start)
	}
}

// checkEscape checks the escape sequence at s[i] == '\\', reporting any
// error, and returns the offset after it. A line break after the backslash
// is left for readString to count, the end of input for it to report.
func (r *reader) checkEscape(i int) int {
	s := r.src
	if i+1 >= len(s) {
		return i + 1
	}
	switch s[i+1] {
	case '\\', '"', 'n', 't', 'r', 'b', 'f':
		return i + 2
	case '\n', '\r':
		r.errorf(r.pos(i), `unsupported escape '\' before a line break in string: a string may span lines, so drop the '\'`)
		return i + 1
	case 'u':
		c, n := hex4(s[i+2:])
		if n < 4 {
			r.errorf(r.pos(i), `invalid escape '%s' in string: \u needs exactly 4 hex digits`, s[i:i+2+n])
			return i + 2 + n
		}
		if utf16IsHigh(c) {
			if c2, n2 := hex4(s[min(i+8, len(s)):]); n2 == 4 && s[i+6] == '\\' && s[i+7] == 'u' && utf16IsLow(c2) {
				return i + 12 // a surrogate pair, as JSON writes characters outside the BMP
			}
		}
		if utf16IsHigh(c) || utf16IsLow(c) {
			r.errorf(r.pos(i), "invalid escape '%s' in string: unpaired surrogate", s[i:i+6])
		}
		return i + 6
	}
	c, size := utf8.DecodeRuneInString(s[i+1:])
	if c == utf8.RuneError && size == 1 {
		return i + 1 // readString reports the invalid byte
	}
	r.errorf(r.pos(i), "unsupported escape '\\%c' in string", c)
	return i + 1 + size
}

// hex4 parses up to 4 hex digits at the start of s, returning the value and
// how many digits there were.
func hex4(s string) (rune, int) {
	var v rune
	n := 0
	for n < 4 && n < len(s) && isHex(s[n]) {
		d := rune(s[n])
		switch {
		case d >= 'a':
			d -= 'a' - 10
		case d >= 'A':
			d -= 'A' - 10
		default:
			d -= '0'
		}
		v = v<<4 | d
		n++
	}
	return v, n
}

func utf16IsHigh(c rune) bool { return 0xD800 <= c && c < 0xDC00 }
func utf16IsLow(c rune) bool  { return 0xDC00 <= c && c < 0xE000 }

// unescape decodes the escapes of a string body that checkEscape accepted.
func unescape(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' {
			b.WriteByte(c)
			continue
		}
		i++
		switch s[i] {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'u':
			v, _ := hex4(s[i+1:])
			i += 4
			if utf16IsHigh(v) {
				lo, _ := hex4(s[i+3:])
				v = 0x10000 + (v-0xD800)<<10 + (lo - 0xDC00)
				i += 6
			}
			b.WriteRune(v)
		default: // '\\' and '"'
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

// readRegex reads #"...": the pattern is kept verbatim, a backslash only
// protecting the character after it (so \" does not end the literal). As in
// Clojure it may span lines.
func (r *reader) readRegex() Node {
	s := r.src
	start := r.pos(r.off)
	nerrs := len(r.errs)
	i := r.off + 2
	for i < len(s) {
		b := s[i]
		switch {
		case b == '"':
			r.off = i + 1
			if len(r.errs) != nerrs || r.stop {
				return nil
			}
			return &Regex{Span{start.Offset, int32(r.off)}, s[start.Offset+2 : i]}
		case b == '\n':
			i++
			r.literalLine(start, i)
		case b == '\\' && i+1 < len(s) && s[i+1] != '\n':
			i++
			if s[i] < utf8.RuneSelf {
				i++
			}
		case b < utf8.RuneSelf:
			i++
		default:
			c, size := utf8.DecodeRuneInString(s[i:])
			if c == utf8.RuneError && size == 1 {
				r.errorf(r.pos(i), "invalid UTF-8 byte 0x%02x", b)
			}
			i += size
		}
	}
	r.unterminated(start, "regex")
	return nil
}

var charNames = map[string]string{
	"newline":   "\n",
	"space":     " ",
	"tab":       "\t",
	"return":    "\r",
	"backspace": "\b",
	"formfeed":  "\f",
}

// readChar reads a character literal: the backslash, then one character
// even if it is a delimiter, then any further token characters, which must
// make a name, uXXXX, or one grapheme together with the first.
func (r *reader) readChar() Node {
	s := r.src
	startOff := r.off
	start := r.pos(startOff)
	i := startOff + 1
	if i >= len(s) {
		r.errorf(start, `character literal '\' is missing its character: write \a, \space or \newline`)
		r.off = i
		return nil
	}
	c, size := utf8.DecodeRuneInString(s[i:])
	switch {
	case c == utf8.RuneError && size == 1:
		r.errorf(r.pos(i), "invalid UTF-8 byte 0x%02x", s[i])
		r.off = i + 1
		return nil
	case c != ',' && unicode.IsSpace(c):
		r.errorf(start, `character literal cannot be white space: write \space, \tab or \newline`)
		r.off = i
		return nil
	case unicode.IsControl(c):
		r.errorf(r.pos(i), "unexpected control character U+%04X", c)
		r.off = i + size
		return nil
	}
	end := r.tokenEnd(i + size)
	text := s[i:end]
	r.off = end
	v, ok := charNames[text]
	switch {
	case ok:
	case len(text) >= 2 && len(text) <= 4 && text[0] == 'o' && isOctal(text[1:]):
		x, _ := strconv.ParseUint(text[1:], 8, 16)
		if x > 0377 {
			r.errorf(start, "unsupported character literal '\\%s': an octal character is at most \\o377", text)
			return nil
		}
		v = string(rune(x))
	case len(text) == 5 && text[0] == 'u':
		if x, n := hex4(text[1:]); n == 4 {
			if utf16IsHigh(x) || utf16IsLow(x) {
				r.errorf(start, "unsupported character literal '\\%s': surrogate code points are not characters", text)
				return nil
			}
			v = string(x)
			break
		}
		fallthrough
	default:
		if !oneGrapheme(text) {
			r.errorf(start, "unsupported character literal '\\%s'", clip(text))
			return nil
		}
		v = text
	}
	n := r.strs.alloc(r)
	n.Span, n.Value, n.Char = Span{start.Offset, int32(end)}, v, true
	return n
}

// oneGrapheme reports whether s is a single user-perceived character,
// approximating Unicode grapheme clusters: one base code point (or a pair of
// regional indicators, a flag) followed by combining marks, variation
// selectors, emoji modifiers and tags, and ZWJ-joined emoji.
func oneGrapheme(s string) bool {
	c, i := utf8.DecodeRuneInString(s)
	if c == utf8.RuneError && i <= 1 {
		return false
	}
	if isRegional(c) {
		if c2, n := utf8.DecodeRuneInString(s[i:]); isRegional(c2) {
			i += n
		}
	}
	for i < len(s) {
		c, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case c == 0x200D: // zero width joiner
			i += n
			if c2, n2 := utf8.DecodeRuneInString(s[i:]); n2 > 0 && unicode.Is(unicode.So, c2) {
				i += n2
			}
		case unicode.In(c, unicode.Mn, unicode.Me, unicode.Mc),
			0x1F3FB <= c && c <= 0x1F3FF, // emoji skin tone modifiers
			0xE0020 <= c && c <= 0xE007F: // tags (subdivision flags)
			i += n
		default:
			return false
		}
	}
	return true
}

func isRegional(c rune) bool { return 0x1F1E6 <= c && c <= 0x1F1FF }

// clip shortens text quoted in an error message.
func clip(s string) string {
	const limit = 40
	if len(s) <= limit {
		return s
	}
	n := 0
	for i := range s {
		if n == limit {
			return s[:i] + "..."
		}
		n++
	}
	return s
}
