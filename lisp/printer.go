package lisp

import (
	"context"
	"errors"
	"math"
	"math/big"
	"math/bits"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ptc-go/ptc/internal/textutil"
)

// PrintOptions choose the printed form of a value. The zero value prints
// as pr-str does, up to the size bound (64 MiB), nesting shown to depth 100.
type PrintOptions struct {
	// Display prints as str and println do: a string raw, nil as "".
	Display bool
	// Exact prints the form Read reads back whole (for stores that keep
	// values as text); the options below, Redact too, are then ignored.
	Exact bool
	// MaxItems is the number of elements shown per collection (0: all).
	// A cut collection ends with "..." and a count of the hidden elements.
	MaxItems int
	// MaxChars bounds the whole output in characters (0: no bound). A cut
	// output ends with "...".
	MaxChars int
	// FloatPrecision, when positive, rounds floats to that many decimals.
	FloatPrecision int
	// MaxDepth bounds the nesting shown (0: 100); deeper collections print as "...".
	MaxDepth int
	// Redact, when set, hides values (see Redaction).
	Redact *Redaction
}

// maxPrintBytes bounds every printed form: Print cuts its output there
// (ending it with "..."), and the printing builtins fail before. A program
// can build in a few steps a value that shares its parts ([v v], doubled
// sixty times) and whose printed form would fill any memory; printing
// stops when the text reaches the bound, so its work is bounded too.
const maxPrintBytes = 64 << 20

// Print returns the printed form of v as opts choose. With the zero
// PrintOptions it is Clojure's pr-str: strings quoted and escaped, maps and
// sets in canonical order. Every form is cut at 64 MiB (ending with "..."),
// so printing any value does bounded work; PrintContext bounds its time too.
func Print(v Value, opts PrintOptions) string {
	s, _ := formatValue(context.Background(), v, opts)
	return s
}

// PrintContext is Print bounded by ctx too: when ctx ends before the
// printed form is complete, printing stops (it looks every 64 KiB of
// output) and the error is a *Error of kind Timeout or Cancelled. A host
// that prints a value a program built gives it the time it gives the
// program: a few steps build a value whose printed form takes seconds to
// reach the size bound.
func PrintContext(ctx context.Context, v Value, opts PrintOptions) (string, error) {
	return formatValue(ctx, v, opts)
}

// printString is Print with the zero PrintOptions.
func printString(v Value) string { return Print(v, PrintOptions{}) }

// displayString is Print with Display set.
func displayString(v Value) string { return Print(v, PrintOptions{Display: true}) }

func formatValue(ctx context.Context, v Value, opts PrintOptions) (string, error) {
	exact := opts.Exact
	if exact {
		opts = PrintOptions{MaxDepth: maxReadDepth + 1} // MaxDepth counts the top level
	}
	if opts.Display && opts.MaxChars == 0 {
		switch v := v.(type) {
		case string:
			return v, nil
		case nil:
			return "", nil
		}
	}
	p := printer{opts: opts, limit: maxPrintBytes, exact: exact}
	if p.opts.MaxDepth <= 0 {
		p.opts.MaxDepth = defaultPrintDepth
	}
	if ctx.Done() != nil { // a context that can end
		if err := ctx.Err(); err != nil {
			return "", printContextError(err)
		}
		p.poll, p.nextPoll = ctx.Err, pollBytes
	}
	if opts.Display {
		p.display(v)
	} else {
		p.value(v, 0)
	}
	if p.err != nil {
		return "", printContextError(p.err)
	}
	return p.result(opts), nil
}

func printContextError(err error) *Error {
	if errors.Is(err, context.DeadlineExceeded) {
		return &Error{Kind: Timeout, Message: "printing the value took longer than the time it was given: print a part of it", Err: err}
	}
	return &Error{Kind: Cancelled, Message: "printing the value was cancelled", Err: err}
}

// result is the printed text, cut as opts say.
func (p *printer) result(opts PrintOptions) string {
	s := p.sb.String()
	if p.overflow {
		return textutil.TruncateBytes(s, maxPrintBytes) + "..."
	}
	if opts.MaxChars > 0 && utf8.RuneCountInString(s) > opts.MaxChars {
		s = textutil.TruncateRunes(s, opts.MaxChars) + "..."
	}
	return s
}

// brief prints v for an error message: at most a short line.
func brief(v Value) string {
	return Print(v, PrintOptions{MaxItems: 10, MaxChars: 80, MaxDepth: 4})
}

// display prints v as str and println show it: a string raw, nil empty,
// an instant or a date as its text, an exception as its message and data;
// everything else as value prints it.
func (p *printer) display(v Value) {
	switch v := v.(type) {
	case string:
		p.sb.WriteString(v)
		return
	case nil:
		return
	case Instant:
		p.sb.WriteString(v.rfc3339())
		return
	case Date:
		p.sb.WriteString(v.iso())
		return
	case *Exception:
		if v != nil {
			p.exceptionText(v, 0)
			return
		}
	}
	p.value(v, 0)
}

const defaultPrintDepth = 100

type printer struct {
	sb   textBuf
	opts PrintOptions
	// limit, when positive, aborts printing past that many bytes (set by
	// the interpreter: shared structure can make a printed form exponential).
	limit    int
	overflow bool
	// raw prints strings without quotes at every level, as Clojure's print
	// and println do: (println [1 "a"]) shows [1 a].
	raw bool
	// exact is PrintOptions.Exact: a java.util collection prints with its
	// class, #array-list[[1 2]], rather than as what it holds.
	exact bool
	// clojureCut: the program bound *print-length* or *print-level*
	// (setPrinterVars), so opts.MaxItems is the length plus one and
	// opts.MaxDepth the level, marked as Clojure marks them: "..."
	// without a count, "#" for a collection too deep.
	clojureCut bool
	// poll, when set, is called after every pollBytes of output, so that a
	// long print honours cancellation and the deadline; its error stops
	// printing and is kept in err.
	poll     func() error
	nextPoll int
	err      error
	// chars counts the characters of the first counted bytes of the
	// output, for full.
	chars, counted int
	// inCells are the cells being printed, around the current value: a
	// cell met again inside itself prints cut, so a cell that holds itself
	// prints in a few bytes.
	inCells map[*Cell]struct{}
	// th, inside a run, realizes the lazy sequences that may end
	// (lazy-seq) to print their elements.
	th *thread
}

// setPrinterVars applies the *print-length* and *print-level* a program
// bound (the printer keeps its size: it is allocated for every print).
func (p *printer) setPrinterVars(th *thread) {
	length, level := th.printerVars()
	if length > 0 {
		p.opts.MaxItems, p.clojureCut = length, true
	}
	if level > 0 {
		p.opts.MaxDepth, p.clojureCut = min(level-1, p.opts.MaxDepth), true
	}
}

const pollBytes = 64 << 10

// full reports whether the output already exceeds MaxChars, so that printing
// a huge collection stops early instead of rendering it all. A byte is at
// most a character, so below MaxChars bytes nothing is counted; past it the
// characters written since the last look are, so that a bound of many
// megabytes stops printing there, not at four times as many bytes.
func (p *printer) full() bool {
	if p.opts.MaxChars <= 0 || p.sb.Len() <= p.opts.MaxChars {
		return false
	}
	p.chars += p.sb.charsFrom(p.counted)
	p.counted = p.sb.Len()
	return p.chars > p.opts.MaxChars
}

func (p *printer) value(v Value, depth int) {
	if p.limit > 0 && p.sb.Len() > p.limit {
		p.overflow = true
		return
	}
	if p.poll != nil && p.sb.Len() >= p.nextPoll {
		p.nextPoll = p.sb.Len() + pollBytes
		if p.err = p.poll(); p.err != nil {
			p.limit, p.overflow = 1, true // stop at the next value
			return
		}
	}
	if p.opts.Redact != nil && p.opts.Redact.hidesValue(v) {
		p.sb.WriteString(p.opts.Redact.Placeholder)
		return
	}
	if isNilPointer(v) {
		p.sb.WriteString("nil")
		return
	}
	switch v := v.(type) {
	case nil:
		p.sb.WriteString("nil")
	case bool:
		p.sb.WriteString(strconv.FormatBool(v))
	case int64:
		p.sb.WriteString(strconv.FormatInt(v, 10))
	case *big.Int:
		p.sb.WriteString(v.String())
		p.sb.WriteByte('N') // a BigInt, as pr and print write it (str: the digits)
	case *Decimal:
		p.sb.WriteString(v.String())
		p.sb.WriteByte('M') // a BigDecimal, as pr and print write it (str: no M)
	case float64:
		p.float(v)
	case string:
		v = p.opts.Redact.text(v)
		if p.raw {
			p.sb.WriteString(v)
		} else {
			writeQuoted(&p.sb, v)
		}
	case Keyword:
		p.sb.WriteByte(':')
		p.sb.WriteString(string(v))
	case Symbol:
		if v.Ns != "" {
			p.sb.WriteString(v.Ns)
			p.sb.WriteByte('/')
		}
		p.sb.WriteString(v.Name)
	case Class:
		p.sb.WriteString(v.Name)
	case *Vector:
		switch {
		case v.IsList():
			p.seq("(", ")", v.items, v, depth)
		case v.IsQueue():
			// Clojure prints #object[clojure.lang.PersistentQueue 0x…],
			// with an address; this is ClojureScript's form, which
			// Read reads back.
			p.seq("#queue [", "]", v.items, v, depth)
		default:
			p.seq("[", "]", v.items, v, depth)
		}
	case *Set:
		if p.tooDeep(depth, "#{...}") {
			return
		}
		p.sb.WriteString("#{")
		i := 0
		for x := range v.All() {
			if p.cut(i, v.Len(), " ") {
				break
			}
			if i > 0 {
				p.sb.WriteByte(' ')
			}
			p.value(x, depth+1)
			i++
		}
		p.sb.WriteByte('}')
	case *Map:
		if p.tooDeep(depth, "{...}") {
			return
		}
		p.sb.WriteByte('{')
		i := 0
		for k, x := range v.All() {
			if p.cut(i, v.Len(), ", ") {
				break
			}
			if i > 0 {
				p.sb.WriteString(", ")
			}
			p.value(k, depth+1)
			p.sb.WriteByte(' ')
			if p.opts.Redact.hidesEntry(v, k) {
				p.sb.WriteString(p.opts.Redact.Placeholder)
			} else {
				p.value(x, depth+1)
			}
			i++
		}
		p.sb.WriteByte('}')
	case *Closure:
		p.sb.WriteString("#fn[")
		p.sb.WriteString(v.describeParams())
		p.sb.WriteByte(']')
	case *Builtin:
		if v.xf != nil {
			p.sb.WriteString("#transducer[")
			for i, st := range v.xf.stages {
				if i > 0 {
					p.sb.WriteByte(' ')
				}
				p.sb.WriteString(st.name)
			}
			p.sb.WriteByte(']')
			return
		}
		p.sb.WriteString("#fn[")
		p.sb.WriteString(v.Name)
		p.sb.WriteByte(']')
	case *Var:
		p.sb.WriteString("#'")
		p.sb.WriteString(v.Name)
	case *Regex:
		p.sb.WriteString("#\"")
		p.sb.WriteString(v.Source)
		p.sb.WriteByte('"')
	case *Seq:
		p.lazySeq(v, depth)
	case Instant:
		if v.zone != nil {
			p.sb.WriteString(map[bool]string{false: "#zoned-date-time \"", true: "#offset-date-time \""}[v.offsetDT])
			p.sb.WriteString(v.zonedText())
		} else if v.local {
			p.sb.WriteString("#date-time \"")
			p.sb.WriteString(v.rfc3339())
		} else {
			p.sb.WriteString("#inst \"")
			p.sb.WriteString(v.printed())
		}
		p.sb.WriteByte('"')
	case Date:
		p.sb.WriteString("#date \"")
		p.sb.WriteString(v.iso())
		p.sb.WriteByte('"')
	case *Exception:
		p.exception(v, depth)
	case *Cell:
		p.cell(v, depth)
	default:
		p.sb.WriteString("#object[host]")
	}
}

// isNilPointer reports whether v is a nil pointer of a value type, which a
// Go caller can put in a collection or call String on: it prints as nil.
func isNilPointer(v Value) bool {
	switch v := v.(type) {
	case *Vector:
		return v == nil
	case *Map:
		return v == nil
	case *Set:
		return v == nil
	case *Closure:
		return v == nil
	case *Builtin:
		return v == nil
	case *Var:
		return v == nil
	case *Regex:
		return v == nil
	case *Seq:
		return v == nil
	case *Exception, *Cell:
		return v == nil
	}
	return false
}

// tooDeep writes the mark of a collection not shown at depth and reports
// whether it is one: cut past MaxDepth, or "#" where the program bound
// *print-level* (clojureCut).
func (p *printer) tooDeep(depth int, cut string) bool {
	if depth >= p.opts.MaxDepth {
		if p.clojureCut {
			p.sb.WriteByte('#')
		} else {
			p.sb.WriteString(cut)
		}
		return true
	}
	return false
}

// cut writes the truncation marker before element i when MaxItems (or the
// character budget) says to stop, and reports whether to stop.
func (p *printer) cut(i, n int, sep string) bool {
	if p.clojureCut && p.opts.MaxItems > 0 && i >= p.opts.MaxItems-1 {
		if i > 0 {
			p.sb.WriteString(sep)
		}
		p.sb.WriteString("...") // Clojure's mark, without a count
		return true
	}
	if (p.opts.MaxItems > 0 && i >= p.opts.MaxItems) || (i > 0 && p.full()) {
		if i > 0 {
			p.sb.WriteString(sep)
		}
		p.sb.WriteString("...")
		if n > i {
			p.sb.WriteString(" (")
			p.sb.WriteString(strconv.Itoa(n - i))
			p.sb.WriteString(" more)")
		}
		return true
	}
	return false
}

// seq prints items between open and close; owner, when not nil, is the
// vector that holds them, whose hidden elements print as the placeholder.
func (p *printer) seq(open, close string, items []Value, owner *Vector, depth int) {
	if p.tooDeep(depth, open+"..."+close) {
		return
	}
	p.sb.WriteString(open)
	for i, x := range items {
		if p.cut(i, len(items), " ") {
			break
		}
		if i > 0 {
			p.sb.WriteByte(' ')
		}
		if owner != nil && p.opts.Redact.hidesElement(owner, i) {
			p.sb.WriteString(p.opts.Redact.Placeholder)
			continue
		}
		p.value(x, depth+1)
	}
	p.sb.WriteString(close)
}

// cell prints #atom[value], #volatile[value] or #transient[coll]: what the
// cell holds, as Clojure's #object[clojure.lang.Atom 0x1b2c {:val 1}]
// shows it, without the address that differs from run to run.
//
// A Java array prints its elements in the brackets, #long-array[1 2 3],
// and a StringBuilder its text, #string-builder["ab"]. A delay, a future
// or a promise prints its value, #delay[1]; #delay[...] has none yet, and
// #future[:failed #error {...}] is the exception its body threw.
func (p *printer) cell(c *Cell, depth int) {
	if c.kind == utilCell && !p.exact {
		// As Clojure's pr prints a java.util List, Map or Set: what it
		// holds.
		if !p.enterCell(c, depth, "(this Collection)") {
			return
		}
		p.utilValue(c, depth)
		delete(p.inCells, c)
		return
	}
	p.sb.WriteByte('#')
	p.sb.WriteString(c.Kind())
	if !p.enterCell(c, depth, "[...]") {
		return
	}
	defer delete(p.inCells, c)
	if c.kind == utilCell {
		// #linked-hash-map[[[:b 2] [:a 1]]]: a linked collection's order
		// is kept as the vector of its entries or elements.
		if xs, isMap, ok := utilOrdered(c); ok {
			if isMap {
				entries := make([]Value, 0, len(xs)/2)
				for i := 0; i+1 < len(xs); i += 2 {
					entries = append(entries, NewVector([]Value{xs[i], xs[i+1]}))
				}
				xs = entries
			}
			p.sb.WriteByte('[')
			p.seq("[", "]", xs, nil, depth+1)
			p.sb.WriteByte(']')
			return
		}
	}
	switch {
	case c.kind == arrayCell:
		p.seq("[", "]", c.Deref().(*Vector).items, nil, depth)
	case c.kind.isRef() && refPendingNow(c):
		// A delay or a promise without a value yet: nothing to show (a
		// delay's body is code). Read makes it a pending promise, or a
		// delay that throws.
		p.sb.WriteString("[...]")
	case c.kind.isRef() && refFailed(c):
		// The exception its body threw, marked, so that it reads back as
		// thrown rather than as a value that is an exception.
		p.sb.WriteString("[:failed ")
		p.value(c.Deref(), depth+1)
		p.sb.WriteByte(']')
	default:
		p.sb.WriteByte('[')
		p.value(c.Deref(), depth+1)
		p.sb.WriteByte(']')
	}
}

func (p *printer) lazySeq(s *Seq, depth int) {
	if !s.finite && p.clojureCut && p.opts.MaxItems > 0 && p.th != nil && p.err == nil {
		// *print-length* shows the start of an infinite sequence, as
		// Clojure's printer takes no more than it prints.
		if p.tooDeep(depth, "(...)") {
			return
		}
		xs, err := p.th.realize(s, p.opts.MaxItems, "printing")
		if err != nil {
			p.err = err
			return
		}
		p.seq("(", ")", xs, nil, depth)
		return
	}
	if s.finite && p.th != nil && p.err == nil {
		// As Clojure prints a lazy sequence: its elements in parentheses.
		xs, err := p.th.realize(s, -1, "printing")
		if err != nil {
			p.err = err
			return
		}
		p.seq("(", ")", xs, nil, depth)
		return
	}
	p.sb.WriteString("#seq[")
	p.sb.WriteString(s.name)
	p.sb.WriteByte(']')
}

func (p *printer) float(f float64) {
	if p.opts.FloatPrecision > 0 && !math.IsInf(f, 0) && !math.IsNaN(f) {
		r := roundFloat(f, p.opts.FloatPrecision)
		p.sb.WriteString(formatFloat(r))
		return
	}
	p.sb.WriteString(formatFloat(f))
}

// roundFloat rounds f to n decimals, halves away from zero, as the
// reference's Float.round: the binary value is rounded, so 1.005 (really
// 1.00499999999999989...) gives 1.0 and 0.125 (exact) gives 0.13.
func roundFloat(f float64, n int) float64 {
	if n > 15 || math.IsInf(f, 0) || math.IsNaN(f) {
		return f
	}
	// FormatFloat rounds the exact binary value correctly, but breaks exact
	// ties to even: a tie has exactly n+1 decimals, printed exactly, and is
	// rounded half up on its digits instead.
	var s string
	if isDecimalTie(f, n) {
		d := fixedDecimal(strconv.FormatFloat(math.Abs(f), 'f', n+1, 64))
		s = d.fixed(n)
		if f < 0 {
			s = "-" + s
		}
	} else {
		s = strconv.FormatFloat(f, 'f', n, 64)
	}
	r, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return f
	}
	return r
}

// isDecimalTie reports whether f lies exactly halfway between two numbers
// of n decimals: f = m·2^e with m odd and e = -(n+1).
func isDecimalTie(f float64, n int) bool {
	frac, exp := math.Frexp(math.Abs(f))
	m := uint64(frac * (1 << 53)) // exact: f = m·2^(exp-53)
	if m == 0 {
		return false
	}
	tz := bits.TrailingZeros64(m)
	return exp-53+tz == -(n + 1)
}

// textBuf collects printed text in chunks, so that a long text is never
// copied to make room (append's growth copies a large buffer many times,
// and each copy of a long one is an uninterruptible pause); String joins
// the chunks once.
type textBuf struct {
	full []string // complete chunks
	n    int      // their total length
	cur  strings.Builder
}

const textChunk = 1 << 20

func (b *textBuf) WriteString(s string) (int, error) {
	if b.cur.Len() > 0 && b.cur.Len()+len(s) > textChunk {
		b.full = append(b.full, b.cur.String())
		b.n += b.cur.Len()
		b.cur = strings.Builder{}
	}
	return b.cur.WriteString(s)
}

func (b *textBuf) WriteByte(c byte) error {
	if b.cur.Len() >= textChunk {
		_, _ = b.WriteString(string(c))
		return nil
	}
	return b.cur.WriteByte(c)
}

func (b *textBuf) Len() int { return b.n + b.cur.Len() }

// charsFrom counts the characters of the text from byte off on. Writes
// are whole strings, so off never splits a character.
func (b *textBuf) charsFrom(off int) int {
	n, base := 0, 0
	for _, c := range b.full {
		if off < base+len(c) {
			n += utf8.RuneCountInString(c[max(off-base, 0):])
		}
		base += len(c)
	}
	if cur := b.cur.String(); off < base+len(cur) {
		n += utf8.RuneCountInString(cur[max(off-base, 0):])
	}
	return n
}

func (b *textBuf) String() string {
	if len(b.full) == 0 {
		return b.cur.String()
	}
	var sb strings.Builder
	sb.Grow(b.Len())
	for _, c := range b.full {
		sb.WriteString(c)
	}
	sb.WriteString(b.cur.String())
	return sb.String()
}

// writeQuoted writes s as a string literal that the reader reads back.
func writeQuoted(sb *textBuf, s string) {
	sb.WriteByte('"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		var esc string
		switch c {
		case '"':
			esc = `\"`
		case '\\':
			esc = `\\`
		case '\n':
			esc = `\n`
		case '\t':
			esc = `\t`
		case '\r':
			esc = `\r`
		case '\b':
			esc = `\b`
		case '\f':
			esc = `\f`
		default:
			if c < 0x20 || c == 0x7f {
				esc = `\u00` + string("0123456789abcdef"[c>>4]) + string("0123456789abcdef"[c&15])
			} else {
				continue
			}
		}
		sb.WriteString(s[start:i])
		sb.WriteString(esc)
		start = i + 1
	}
	sb.WriteString(s[start:])
	sb.WriteByte('"')
}

// truncateRunes serves format's precision (%.3s).
func truncateRunes(s string, n int) string { return textutil.TruncateRunes(s, n) }

// render prints v for a program (str, pr-str, println, format...) within
// the run's memory budget: printed selects pr-str's form, otherwise str's.
// The text is charged to the budget; a form too large for it is an error.
func (th *thread) render(v Value, printed bool) (string, error) {
	return th.renderWith(v, printed, false)
}

// renderPrint prints v as print and print-str do: strings unquoted at every
// level, nil as "nil".
func (th *thread) renderPrint(v Value) (string, error) {
	if s, ok := v.(string); ok {
		return s, nil
	}
	return th.renderWith(v, false, true)
}

func (th *thread) renderWith(v Value, printed, raw bool) (string, error) {
	if !printed && !raw {
		switch x := v.(type) {
		case string:
			return x, nil // already charged when it was built
		case nil:
			return "", nil
		case Instant, Date:
			s := displayString(x)
			return s, th.chargeString(len(s))
		case float64, *Regex, Class:
			if s, ok := strAtom(x); ok {
				return s, th.chargeString(len(s))
			}
		case *big.Int: // Java's toString: no N
			s := x.String()
			return s, th.chargeString(len(s))
		case *Decimal: // Java's toString: no M
			s := x.String()
			return s, th.chargeString(len(s))
		case *Cell:
			if x.kind == builderCell { // Java's toString: the text
				s := builderText(x)
				return s, th.chargeString(len(s))
			}
		}
	}
	x, isException := v.(*Exception)
	isException = isException && !printed && !raw
	util := utilArg(v)
	limit := th.textBudget()
	p := printer{opts: PrintOptions{MaxDepth: defaultPrintDepth}, limit: limit, nextPoll: pollBytes, raw: raw, th: th}
	if th.globals.bound {
		p.setPrinterVars(th)
	}
	if th.printing {
		p.opts.Redact = th.run.redact
	}
	// A step per 64 bytes printed: printing is work like any other.
	p.poll = func() error { return th.ticks(pollBytes / 64) }
	if isException {
		p.exceptionText(x, 0) // str of an exception is Java's toString
	} else if util != nil && !printed {
		p.utilString(util, 0) // so is str of a java.util collection
	} else {
		p.value(v, 0)
	}
	if p.err != nil {
		return "", p.err
	}
	if p.overflow {
		return "", errorf(MemoryExceeded, "the printed form of %s is larger than %s: print a part of it (take, select-keys, count)", TypeName(v), textutil.Bytes(int64(limit)))
	}
	s := p.sb.String()
	return s, th.chargeString(len(s))
}

// textBudget is how many bytes of text the run may still build.
func (th *thread) textBudget() int {
	const ceiling = 256 << 20
	r := th.run
	if r.limits.MaxMemory <= 0 {
		return ceiling
	}
	left := r.limits.MaxMemory - r.mem.Load() - th.mem
	return int(max(1024, min(left, ceiling)))
}

// utilValue prints what a java.util collection holds: a linked one's
// entries or elements in their order, the others as the map, set or vector
// they hold.
func (p *printer) utilValue(c *Cell, depth int) {
	xs, isMap, ok := utilOrdered(c)
	if !ok {
		p.value(utilValue(c), depth)
		return
	}
	if !isMap {
		p.seq("#{", "}", xs, nil, depth)
		return
	}
	if p.tooDeep(depth, "{...}") {
		return
	}
	m, _ := utilValue(c).(*Map)
	p.sb.WriteByte('{')
	for i := 0; i+1 < len(xs); i += 2 {
		if p.cut(i/2, len(xs)/2, ", ") {
			break
		}
		if i > 0 {
			p.sb.WriteString(", ")
		}
		p.value(xs[i], depth+1)
		p.sb.WriteByte(' ')
		if m != nil && p.opts.Redact.hidesEntry(m, xs[i]) {
			p.sb.WriteString(p.opts.Redact.Placeholder)
		} else {
			p.value(xs[i+1], depth+1)
		}
	}
	p.sb.WriteByte('}')
}

// enterCell starts printing cell c: false, with cut written, when c is
// being printed around this point (a cell that holds itself) or the depth
// is reached; else c is marked until the caller deletes it from inCells.
func (p *printer) enterCell(c *Cell, depth int, cut string) bool {
	if _, cyclic := p.inCells[c]; cyclic {
		p.sb.WriteString(cut)
		return false
	}
	if p.tooDeep(depth, cut) {
		return false
	}
	if p.inCells == nil {
		p.inCells = map[*Cell]struct{}{}
	}
	p.inCells[c] = struct{}{}
	return true
}
