package syntax

import (
	"math/bits"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The reader reads collections with an explicit stack of open ones (run)
// rather than by recursion: reading an item of a collection then costs no
// call, and fast's loop keeps its offset in a register (a call would spill
// it). Forms that are rare in programs (quotes, dispatch forms, strings
// with escapes, non-ASCII text, errors) are still read by the recursive
// functions of reader.go, which call run for the forms inside them.

// frame is a collection being read, and the items of the collections
// read at its depth: each depth has its own run of items (buf, a part
// of the items arena), in which a collection's items are written once,
// where they stay when it closes, and the next collection at that depth
// continues after them. Frames are never cleared, so a frame slot keeps
// its depth's run from one collection to the next. The first frame is the
// top level, whose items are the forms Read returns.
type frame struct {
	// The offset where it opened. Its line and column are worked out
	// only for an error that names them (see start).
	open int32
	mark int32 // its first item in buf
	kind uint8
	lost bool // an item was lost to an error: the count of a map's items means nothing
	// The run of items of this depth: items up to top are taken, past
	// the items of the depth's earlier runs.
	top  int32
	past int32
	buf  []Node
}

// Lead classes of bytes: what the byte at the start of an item begins.
const (
	ldSymbol  = iota // a symbol, unless with a '/' after its first byte (plainStart)
	ldWord           // the same, or nil, true or false (n, t, f)
	ldSign           // + or -: a symbol or a number
	ldColon          // a keyword
	ldDigit          // a number
	ldOther          // what readForm reads: quotes, \, @, ^, `, ~, control characters
	ldToken          // another token byte ('.'): readTokenSlow
	ldOpen           // ( [ {
	ldClose          // ) ] }
	ldString         // "
	ldHash           // #: #_ or readDispatch
	ldBlank          // white space other than LF, comma included
	ldNewline        // LF
	ldComment        // ;
	ldHigh           // a byte of a non-ASCII character: white space, or readForm's
)

var leadClass = func() (t [256]uint8) {
	for i, c := range byteClass {
		switch {
		case i == 'n' || i == 't' || i == 'f':
			t[i] = ldWord
		case c == clTok && plainStart[i]:
			t[i] = ldSymbol
		case i == '+' || i == '-':
			t[i] = ldSign
		case i == ':':
			t[i] = ldColon
		case c == clTok && isDigit(byte(i)):
			t[i] = ldDigit
		case c == clTok:
			t[i] = ldToken
		case i == '(' || i == '[' || i == '{':
			t[i] = ldOpen
		case i == ')' || i == ']' || i == '}':
			t[i] = ldClose
		case i == '"':
			t[i] = ldString
		case i == '#':
			t[i] = ldHash
		case c == clSpace:
			t[i] = ldBlank
		case c == clNewline:
			t[i] = ldNewline
		case c == clComment:
			t[i] = ldComment
		case c == clHigh:
			t[i] = ldHigh
		default:
			t[i] = ldOther
		}
	}
	return t
}()

// openKind is the collection kind an opener of ldOpen begins.
var openKind = [256]uint8{'(': kList, '[': kVector, '{': kMap}

// What run found where an item could start.
const (
	stItem   = iota // an item (nil if it was in error)
	stEnd           // a closer or the end of input
	stStop          // nothing: reading has stopped
	stOpened        // nothing yet: a collection has opened
)

// add adds n to the items of the innermost open collection.
func (r *reader) add(n Node) {
	f := r.top()
	if int(f.top) == len(f.buf) {
		r.grow(f)
	}
	f.buf[f.top] = n
	f.top++
}

// grow gives the items of f's depth a new run, at least twice as long as
// the items of f so far, which it moves there: a collection's items are
// moved a bounded number of times per element on average.
func (r *reader) grow(f *frame) {
	items := f.buf[f.mark:f.top]
	f.past += f.top - int32(len(items))
	left := len(r.src) - r.off
	// As many as the rest of the input should need at the density of
	// this depth so far, but no more than it has had (an estimate from
	// few bytes is rough, and each depth's last run has a tail unused).
	used := int(f.past) + len(items)
	size := min(expect(used, r.off, left)+8, max(used, 16), maxChunk)
	least := 2*len(items) + 4
	size = max(size, least)
	if free := len(r.items.buf) - r.items.at; free >= least {
		size = min(size, free) // rather than leave the chunk's tail unused
	}
	buf := r.items.carve(size, r.off, left)
	copy(buf, items)
	f.buf, f.mark, f.top = buf, 0, int32(len(items))
}

// push opens a collection of the given kind at start.
func (r *reader) push(start Pos, kind uint8) {
	var f *frame
	if n := r.nframes; n < len(r.frames) {
		f = &r.frames[n]
	} else {
		if k := n - len(r.frames); k == len(r.deep) {
			r.deep = append(r.deep, frame{})
		}
		f = &r.deep[n-len(r.frames)]
	}
	f.open, f.mark, f.kind, f.lost = start.Offset, f.top, kind, false
	r.nframes++
}

// items returns the items of f, nil if there are none.
func (f *frame) items() []Node {
	if f.top == f.mark {
		return nil
	}
	return f.buf[f.mark:f.top:f.top]
}

// top is the innermost open collection.
func (r *reader) top() *frame {
	return r.frame(r.nframes - 1)
}

// frame is the open collection at index i of the stack.
func (r *reader) frame(i int) *frame {
	if i < len(r.frames) {
		return &r.frames[i]
	}
	return &r.deep[i-len(r.frames)]
}

// start returns where the open collection at index top of the stack,
// the innermost, opened, for an error. Openers note only their offset:
// one store in fast's loop rather than a line and a column worked out
// for every one. A cursor that only moves forward works out positions
// here, noting those of every open collection it passes on the way (in
// opened, by index in the stack), so that the errors of a read, however
// many, cost time linear in its source.
func (r *reader) start(top int) Pos {
	for len(r.opened) <= top {
		r.opened = append(r.opened, Pos{})
	}
	// The collections without a position are the innermost ones, all
	// opened after the cursor's offset: were one opened before, the
	// cursor would have passed it while it was open.
	i := top
	for i > 1 && !r.noted(i-1) {
		i--
	}
	for ; i <= top; i++ {
		if !r.noted(i) {
			r.opened[i] = r.cursor.advance(r.src, int(r.frame(i).open))
		}
	}
	return r.opened[top]
}

// noted reports whether opened[i] is where the open collection at index
// i of the stack opened (its offset, as every opener's, is its own).
func (r *reader) noted(i int) bool {
	p := r.opened[i]
	return p.Line > 0 && p.Offset == r.frame(i).open
}

// cursor is a position in the source, moved forward by advance.
type cursor struct {
	off, line, col int // 0, 0, 0: the start of the source
}

// advance moves c forward to offset off, the start of an opener (an
// ASCII byte, so that its column counts the runes of the line before it
// however they are split), and returns its position.
func (c *cursor) advance(src string, off int) Pos {
	if c.line == 0 {
		c.line, c.col = 1, 1
	}
	seg := src[c.off:off]
	if k := strings.LastIndexByte(seg, '\n'); k >= 0 {
		c.line += strings.Count(seg, "\n")
		c.col = 1 + utf8.RuneCountInString(seg[k+1:])
	} else {
		c.col += utf8.RuneCountInString(seg)
	}
	c.off = off
	return Pos{Offset: int32(off), Line: int32(c.line), Col: int32(c.col)}
}

// readNext skips white space, comments and #_ discards, then reads a form.
// found is false when it stops at a closer or at the end of input without
// consuming a form; when found is true, n is nil if the form was in error
// (the error has been reported).
func (r *reader) readNext() (n Node, found bool) {
	return r.run(r.nframes)
}

// readColl reads the collection of the given kind that opens at r.off.
func (r *reader) readColl(kind int) Node {
	start := r.pos(r.off)
	r.off += len(collKinds[kind].open)
	if !r.enter(start) {
		return nil
	}
	r.push(start, uint8(kind))
	n, _ := r.run(r.nframes - 1)
	return n
}

// run reads items, and the collections they open, until it has one at the
// level of base open collections (the first base frames belong to its
// callers): what readNext returns. The items of an open collection are
// added to its depth's run of items (see frame), where they stay: its
// Items when it closes.
//
// fast reads the common forms; run reads what it leaves, and keeps the
// state in r, which keeps it simple.
func (r *reader) run(base int) (Node, bool) {
	for {
		var n Node
		st := stItem
		if r.stop {
			st = stStop
		} else if n = r.fast(base); n == nil {
			if n, st = r.step(); st == stOpened {
				continue
			}
		}
		// Deliver what was found to the innermost open collection, closing
		// collections as long as that makes an item.
		for {
			if r.nframes == base {
				return n, st != stEnd
			}
			if st == stItem {
				if n != nil {
					r.add(n)
				} else {
					r.top().lost = true
				}
				break
			}
			n, st = r.close(st), stItem
		}
	}
}

// room reports whether the chunk has an element left for take: fast
// tests it before it writes anything, and falls back to the slow path
// (whose alloc gets a new chunk) when it is false. A pair rather than one
// call returning nil: the test is then one branch, with no nil check of
// the pointer after it, and take's index needs no bounds check (the
// compiler sees the test room made).
func (s *slab[T]) room() bool {
	return uint(s.i) < uint(len(s.buf))
}

// take hands out the next element of the chunk: only after room. It
// takes the address before it stores the index: a store first would have
// the compiler load the chunk again, and check the index again.
func (s *slab[T]) take() *T {
	i := s.i
	p := &s.buf[i]
	s.i = i + 1
	return p
}

// step reads what run finds at r.off after white space: an item (nil if
// in error), or a closer or the end of input (stEnd), and opens the
// collections it meets on the way.
func (r *reader) step() (Node, int) {
	for {
		s, off := r.src, r.off
		if off >= len(s) {
			return nil, stEnd
		}
		c := s[off]
		switch leadClass[c] {
		case ldBlank:
			r.off++
			continue
		case ldNewline:
			r.off++
			r.newline(r.off)
			continue
		case ldComment:
			r.skipComment()
			continue
		case ldHigh:
			if c, size := utf8.DecodeRuneInString(s[off:]); unicode.IsSpace(c) {
				r.off += size
				continue
			}
		case ldSymbol, ldWord, ldSign, ldColon, ldDigit, ldToken:
			return r.readTokenSlow(), stItem
		case ldOpen:
			start := r.pos(off)
			r.off++
			if !r.enter(start) {
				return nil, stItem
			}
			r.push(start, openKind[c])
			return nil, stOpened
		case ldClose:
			return nil, stEnd
		case ldString:
			return r.readString(), stItem
		case ldHash:
			if off+1 < len(s) && s[off+1] == '_' {
				// A discard: read the next form and drop it.
				p := r.pos(off)
				r.off += 2
				if !r.enter(p) {
					return nil, stItem
				}
				_, found := r.readNext()
				r.depth--
				if !found {
					r.errorf(p, "#_ must be followed by a form")
					return nil, stItem
				}
				if r.stop {
					return nil, stItem // as the recursive reader gave
				}
				continue
			}
		}
		return r.readForm(), stItem
	}
}

// fast reads white space, the common tokens (symbols, nil, true, false,
// keywords, small integers, decimals), plain strings, and collections of
// them, exactly as step, readTokenSlow, readString and close would, but
// without a call, so that its state stays in registers. It stops where it
// meets anything else, leaving it to step (after skipping white space),
// and returns nil; or when a collection closes at the level of base open
// collections, and returns it. It reads an item at that level only if it
// opens a collection: nothing else needs checking whether there is a
// collection to add an item to.
func (r *reader) fast(base int) Node {
	if r.slowOnly {
		return nil
	}
	// fastLoop opens and closes collections only, so depth moves with
	// nframes: it is worked out here, after, rather than kept up to date
	// in the loop (where it would cost an add, and a register or a load
	// and a store, per collection). The loop opens a collection while
	// nframes is below frameLimit, which stands for both the depth limit
	// and the frames in r.frames.
	d := r.depth - r.nframes
	r.frameLimit = min(len(r.frames), r.maxDepth-d)
	r.tokenBits = &tokenBits
	n := r.fastLoop(base)
	r.depth = r.nframes + d
	return n
}

// fastLoop is fast but for the depth.
func (r *reader) fastLoop(base int) Node {
	s := r.src
	off := r.off
	if r.nframes == base && (off >= len(s) || leadClass[s[off]] != ldOpen) || r.nframes > len(r.frames) {
		return nil
	}
	// (In r, base costs no register, nor reloads after the paths that
	// would need the register.)
	r.base = base
	// fast reads ASCII bytes only, so the column of an offset it reaches
	// on the current line is off-colBase if that holds where it starts
	// (see pos), and pos answers at once where it stops: if step read
	// bytes since, check them.
	if off > r.nextHigh && r.colFrom <= r.nextHigh && indexNonASCII(s[r.nextHigh:off]) == off-r.nextHigh {
		r.nextHigh = off
	}
	if off < r.colFrom || off > r.nextHigh {
		r.pos(off) // for its side effect: now colBase holds at off
	}
	// f is the innermost open collection, whose items the loop adds to
	// (with room in its run, else run's add grows it).
	f := &r.frames[r.nframes-1]
scan:
	for uint(off) < uint(len(s)) {
		c := s[off]
		ld := leadClass[c]
		if ld == ldBlank {
			off++
			continue
		}
		if ld <= ldDigit {
			top := int(f.top)
			if uint(top) >= uint(len(f.buf)) {
				break // no room for the item: run's add grows the run
			}
			// Where the item goes, taken now: after the stores of a node,
			// the compiler would load f.buf again and check top again.
			dst := &f.buf[top]
			end := off + 1
			// The table through a pointer loaded from r, not its address:
			// the compiler gives an address a register anew in each turn
			// of the loop, but keeps a loaded pointer in one; sliced, for
			// one nil check here rather than one per byte.
			tokBits := r.tokenBits[:]
			// tb notes the bytes of the token other than plain ones (tbTok
			// alone): a '/' (a non-ASCII character leaves the token to
			// the slow path); most tokens have none.
			var tb uint8
			for {
				if end >= len(s) {
					// A token that ends the input: the slow path reads
					// it. Leaving the loop only where a byte ends the
					// token tells the compiler that off < end < len(s),
					// which spares the checks of tok below.
					break scan
				}
				if b := tokBits[s[end]]; b != tbTok {
					if b == 0 {
						break
					}
					if b&tbHigh != 0 {
						break scan // a non-ASCII character in the token
					}
					tb |= b
				}
				end++
			}
			// Never true, but the test tells the compiler that the length
			// of tok is positive: slicing s then needs no mask (for an
			// empty slice's pointer), which costs more than the test.
			if end-off <= 0 {
				break
			}
			tok := s[off:end]
			sp := Span{int32(off), int32(end)}
		tokens:
			switch ld {
			case ldSign:
				if len(tok) > 1 && (isDigit(tok[1]) || tok[1] == '.') {
					break // a number, or an error
				}
				fallthrough
			case ldSymbol, ldWord:
				if tb&tbSlash != 0 {
					// Split at the first '/' after the first byte, if
					// text follows it.
					i := 1
					for tok[i] != '/' {
						i++
					}
					if tok[0] == '/' || i == len(tok)-1 {
						break
					}
					if !r.symbols.room() {
						break
					}
					p := r.symbols.take()
					p.Span, p.Ns, p.Name = sp, tok[:i], tok[i+1:]
					*dst = p
					f.top++
					off = end
					continue
				} else if ld == ldWord && len(tok) <= 5 {
					switch tok {
					case "nil":
						if !r.nils.room() {
							break tokens
						}
						p := r.nils.take()
						p.Span = sp
						*dst = p
						f.top++
						off = end
						continue
					case "true", "false":
						if !r.bools.room() {
							break tokens
						}
						p := r.bools.take()
						p.Span, p.Value = sp, tok == "true"
						*dst = p
						f.top++
						off = end
						continue
					}
				}
				if !r.symbols.room() {
					break
				}
				p := r.symbols.take()
				// Ns is "" already: slabs hand out zeroed elements.
				p.Span, p.Name = sp, tok
				*dst = p
				f.top++
				off = end
				// A space after a symbol or a keyword, the commonest
				// case, is skipped here rather than in a turn of the
				// loop. (s[end] is in range: see the scan.)
				if s[off] == ' ' {
					off++
				}
				continue
			case ldColon:
				if len(tok) < 2 || tok[1] == ':' {
					break
				}
				if !r.keywords.room() {
					break
				}
				p := r.keywords.take()
				p.Span, p.Name = sp, tok[1:]
				*dst = p
				f.top++
				off = end
				if s[off] == ' ' { // as after a symbol
					off++
				}
				continue
			case ldDigit:
				// An integer, or a decimal (digits, a '.' and digits) with
				// few enough digits that a float64 holds their value
				// exactly: as strconv.ParseFloat would, the quotient is then
				// correctly rounded. The decimal in the same loop, without
				// the call it was, which kept the loop's state on the stack
				// for every number.
				var v int64
				i := 0
				for ; i < len(tok); i++ {
					d := tok[i] - '0'
					if d > 9 {
						break // not an integer: a decimal or the slow path's
					}
					v = v*10 + int64(d)
				}
				if i == len(tok) {
					if len(tok) > 18 || c == '0' && len(tok) > 1 {
						break // 0755 is octal, a long one may overflow: the slow path
					}
					if !r.ints.room() {
						break
					}
					p := r.ints.take()
					p.Span, p.Value = sp, v
					*dst = p
					f.top++
					off = end
					continue
				}
				if tok[i] != '.' || len(tok) > 16 {
					break
				}
				j := i + 1
				for ; j < len(tok); j++ {
					d := tok[j] - '0'
					if d > 9 {
						break
					}
					v = v*10 + int64(d)
				}
				if j != len(tok) || j == i+1 { // a second '.', or none after
					break
				}
				if !r.floats.room() {
					break
				}
				p := r.floats.take()
				p.Span, p.Value = sp, float64(v)/pow10[j-1-i]
				*dst = p
				f.top++
				off = end
				continue
			}
			break // the slow path
		}
		switch ld {
		case ldNewline:
			off++
			r.newline(off)
			// The indentation, without the switch, eight spaces at a time
			// (the loads merge into one).
			for off+8 <= len(s) {
				t := s[off : off+8]
				w := uint64(t[0]) | uint64(t[1])<<8 | uint64(t[2])<<16 | uint64(t[3])<<24 |
					uint64(t[4])<<32 | uint64(t[5])<<40 | uint64(t[6])<<48 | uint64(t[7])<<56
				if w ^= 0x2020202020202020; w != 0 {
					off += bits.TrailingZeros64(w) >> 3 // the first byte not a space
					goto indented
				}
				off += 8
			}
			for off < len(s) && s[off] == ' ' {
				off++
			}
		indented:
			continue
		case ldOpen:
			nf := r.nframes
			if nf >= r.frameLimit {
				break // too deep: step reports it; or the frames in r.deep
			}
			f = &r.frames[nf]
			f.open = int32(off)
			f.mark = f.top
			// ( [ { are 0x28 0x5b 0x7b: their kinds (kList, kVector,
			// kMap) follow from their bits, without a table
			// (whose address would take a register through the loop).
			f.kind, f.lost = c>>5-1, false
			r.nframes = nf + 1
			off++
			continue
		case ldString:
			// A string without escapes, line breaks or other control or
			// non-ASCII characters; readString reads the others.
			top := int(f.top)
			if uint(top) >= uint(len(f.buf)) {
				break
			}
			dst := &f.buf[top] // as for a token
			end := off + 1
			for end < len(s) && plainString[s[end]] {
				end++
			}
			if end >= len(s) || s[end] != '"' {
				break
			}
			if !r.strs.room() {
				break
			}
			p := r.strs.take()
			p.Span, p.Value = Span{int32(off), int32(end + 1)}, s[off+1:end]
			*dst = p
			f.top++
			off = end + 1
			continue
		case ldClose:
			// The closer of f: ) ] } are 0x29 0x5d 0x7d, whose kinds
			// follow from their bits as the openers' do. No closer gives
			// the kind of a set or a short fn, which close closes; nor
			// does fast meet one with f the top level, or any collection
			// below base (it reads at base's level only from an opener,
			// and returns when that collection closes).
			k := c>>5 - 1
			if k != f.kind {
				break
			}
			mark, top := int(f.mark), int(f.top)
			if k == kMap && (top-mark)%2 != 0 {
				break // an error
			}
			nf := r.nframes - 1 // f's index
			var pf *frame       // the collection f closes into, if not the one to return
			if nf != r.base {
				pf = &r.frames[nf-1]
				if int(pf.top) >= len(pf.buf) {
					break // no room for the item
				}
			}
			var items []Node
			if top-mark > 0 { // (then the slice needs no check of mark, nor a mask)
				items = f.buf[mark:top:top]
			}
			sp := Span{f.open, int32(off + 1)}
			var n Node
			switch k {
			case kList:
				if !r.lists.room() {
					break scan
				}
				p := r.lists.take()
				p.Span, p.Items = sp, items
				n = p
			case kVector:
				if !r.vectors.room() {
					break scan
				}
				p := r.vectors.take()
				p.Span, p.Items = sp, items
				n = p
			default:
				if !r.maps.room() {
					break scan
				}
				p := r.maps.take()
				p.Span, p.Items = sp, items
				n = p
			}
			r.nframes = nf
			off++
			if pf == nil {
				r.off = off
				r.nextHigh = max(r.nextHigh, off)
				return n
			}
			f = pf
			f.buf[f.top] = n
			f.top++
			continue
		}
		break
	}
	r.off = off
	r.nextHigh = max(r.nextHigh, off)
	return nil
}

// pow10 holds the powers of ten a float64 holds exactly.
var pow10 = [...]float64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15}

// plainString tells the bytes that fast reads in a string as they are.
var plainString = func() (t [256]bool) {
	for i := range t {
		t[i] = i >= 0x20 && i < utf8.RuneSelf && i != '"' && i != '\\'
	}
	return t
}()

// close closes the innermost collection at r.off, where reading stopped or
// run met a closer or the end of input (st), and returns its node, whose
// Items are the items added to it in its depth's run.
func (r *reader) close(st int) Node {
	top := r.nframes - 1
	f := *r.frame(top)
	r.nframes--
	k := &collKinds[f.kind]
	s, o := r.src, r.off
	closed := false
	if st == stEnd {
		if o >= len(s) {
			if !r.swallowed {
				start := r.start(top)
				r.errorAt(r.pos(o), start, "unclosed '%s' opened at %s", k.open, start)
			}
		} else {
			if c := s[o]; c != k.close {
				// Most likely the innermost collection is missing its closer,
				// so let this one stand for it rather than cascade.
				start := r.start(top)
				r.errorAt(r.pos(o), start, "mismatched '%c': expected '%c' to close '%s' opened at %s", c, k.close, k.open, start)
			} else {
				closed = true
			}
			o++
		}
	}
	r.depth--
	r.off = o
	items := f.items()
	sp := Span{f.open, int32(o)}
	switch f.kind {
	case kList:
		n := r.lists.alloc(r)
		n.Span, n.Items = sp, items
		return n
	case kVector:
		n := r.vectors.alloc(r)
		n.Span, n.Items = sp, items
		return n
	case kMap:
		// An item lost to an error would make the count meaningless.
		if closed && !f.lost && len(items)%2 != 0 {
			r.errorf(r.start(top), "map literal has an odd number of forms (%d); every key needs a value", len(items))
		}
		n := r.maps.alloc(r)
		n.Span, n.Items = sp, items
		return n
	case kSet:
		return &Set{sp, items}
	default:
		return &ShortFn{sp, items}
	}
}
