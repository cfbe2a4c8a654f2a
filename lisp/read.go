package lisp

import (
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/ptc-go/ptc/lisp/syntax"
)

// ReadFormat is the syntax Read reads.
type ReadFormat int

const (
	// ReadPrinted reads the printed form of a value (Print's output).
	ReadPrinted ReadFormat = iota
	// ReadEDN reads one data literal in PTC-Lisp/EDN syntax, #inst "…"
	// (a date-time) and #uuid "…" (its text) included.
	ReadEDN
	// ReadJSON reads JSON text.
	ReadJSON
)

// ReadOptions configure Read. The zero value reads the printed form, up to
// 10,000 levels of nesting, any length, and no placeholder.
type ReadOptions struct {
	// Format is the syntax of the text (zero: ReadPrinted).
	Format ReadFormat
	// Placeholder, when not "", is a bare token that reads as the string
	// Placeholder (Redaction.Placeholder), so a redacted form reads back.
	Placeholder string
	// MaxDepth bounds the nesting of collections (0: 10,000), the top value
	// at depth 0; deeper is an error. ReadEDN and ReadJSON keep 10,000.
	MaxDepth int
	// MaxBytes, when positive, bounds the length of the text.
	MaxBytes int
}

// Read reads one value from src in the syntax opts.Format names. It never
// panics, its work is linear in the text's length, and it refuses nesting
// deeper than opts.MaxDepth and text longer than opts.MaxBytes (an *Error
// of kind DepthExceeded or MemoryExceeded).
//
// ReadPrinted is the inverse of the printer, for the stores that keep
// values as text (traces, durable engines): Print with Exact set writes the
// form it reads back whole. It reads data literals and the printed forms
// of functions, vars, regexes, instants, dates, exceptions (#error {...},
// without a stack trace), cells and host objects: a function reads back as
// a value that prints as it did and cannot be called, a host object
// (#object[host]) as a value that prints #object[host] again, a queue
// (#queue [1 2]) as a queue, an atom, volatile or transient (#atom[1]) as
// a new cell holding the value (a cell printed twice reads as two cells),
// an array (#long-array[1 2]) or a StringBuilder (#string-builder["ab"]) as
// a new one, a delay, future or promise (#delay[1]) as a new one holding
// the value (#promise[...], not delivered, as a new promise; #delay[...],
// whose body had not run, as a delay whose deref throws: code does not
// print). Lazy sequences and transducers (#seq[...], #transducer[...]),
// cut forms ("...", as a cell that holds itself prints) and regexes whose
// source holds a quote not escaped by a backslash (made by re-pattern) do
// not read. Its errors are *Error values of kind ParseError, DepthExceeded
// or MemoryExceeded.
//
// ReadEDN reads one literal value written in PTC-Lisp/EDN syntax: nil,
// booleans, numbers (including ##Inf, ##-Inf, ##NaN), strings, characters,
// keywords, and vectors, lists, maps and sets of those. Symbols and code
// are errors (*Error of kind ParseError, with the line and column).
// Contexts written as EDN and expected values of test vectors are read
// with it.
//
// ReadJSON decodes JSON: objects become maps with string keys, arrays
// vectors, integers int64 (floats when they have a fraction or exponent, or
// do not fit 64 bits), and null nil. It accepts exactly the JSON that
// encoding/json accepts and decodes strings as it does. Its errors are
// io.EOF when the text ends between tokens (or holds none),
// io.ErrUnexpectedEOF when it ends inside a string, number or literal, a
// *json.SyntaxError (with encoding/json's message and the offending byte's
// Offset) for a syntax error, and errors of their own for text after the
// value and for nesting deeper than 10,000 levels.
func Read(src string, opts ReadOptions) (Value, error) {
	if opts.MaxBytes > 0 && len(src) > opts.MaxBytes {
		return nil, errorf(MemoryExceeded, "a text of %d bytes, over the bound of %d", len(src), opts.MaxBytes)
	}
	switch opts.Format {
	case ReadPrinted:
		return readPrinted(src, opts)
	case ReadEDN:
		return readData(src)
	case ReadJSON:
		return parseJSON([]byte(src))
	}
	return nil, errorf(InvalidArgument, "unknown ReadFormat %d", int(opts.Format))
}

// readPrinted is Read of the printed form.
func readPrinted(src string, opts ReadOptions) (Value, error) {
	if opts.MaxDepth <= 0 {
		opts.MaxDepth = maxReadDepth
	}
	r := valueReader{src: src, opts: opts}
	r.space()
	v, err := r.value(0)
	if err != nil {
		return nil, err
	}
	r.space()
	if r.off != len(r.src) {
		return nil, r.errorf("unexpected %q", r.src[r.off:min(len(r.src), r.off+10)])
	}
	return v, nil
}

// maxReadDepth is Read's default bound on nesting, the one ToJSON and
// FromGo keep too.
const maxReadDepth = maxConvertDepth

// hostObject is what #object[host] reads as: a value of a type the
// printer does not know, so that it prints #object[host] again.
type hostObject struct{}

type valueReader struct {
	src  string
	off  int
	opts ReadOptions
	// inError counts the #error forms being read: there, a bare class
	// name is the :type of an exception.
	inError int
}

func (r *valueReader) errorf(format string, a ...any) *Error {
	e := errorf(ParseError, format, a...)
	e.Message = "offset " + strconv.Itoa(r.off) + ": " + e.Message
	return e
}

func (r *valueReader) space() {
	for r.off < len(r.src) {
		switch r.src[r.off] {
		case ' ', ',', '\n', '\t', '\r':
			r.off++
		default:
			return
		}
	}
}

func (r *valueReader) has(prefix string) bool { return strings.HasPrefix(r.src[r.off:], prefix) }

// token reads up to white space or a delimiter.
func (r *valueReader) token() string {
	start := r.off
	for r.off < len(r.src) && strings.IndexByte(" ,\n\t\r[]{}()\"", r.src[r.off]) < 0 {
		r.off++
	}
	return r.src[start:r.off]
}

func (r *valueReader) value(depth int) (Value, error) {
	if depth > r.opts.MaxDepth {
		return nil, errorf(DepthExceeded, "offset %d: a printed form nested deeper than %d", r.off, r.opts.MaxDepth)
	}
	if r.off >= len(r.src) {
		return nil, r.errorf("unexpected end")
	}
	switch c := r.src[r.off]; {
	case c == '"':
		return r.str()
	case c == '[':
		r.off++
		items, err := r.items(']', depth)
		return NewVector(items), err
	case c == '(':
		r.off++
		items, err := r.items(')', depth)
		return NewList(items), err
	case c == '{':
		r.off++
		items, err := r.items('}', depth)
		if err != nil {
			return nil, err
		}
		if len(items)%2 != 0 {
			return nil, r.errorf("a map with an odd number of forms")
		}
		b := NewMapBuilder(nil)
		for i := 0; i < len(items); i += 2 {
			b.Set(items[i], items[i+1])
		}
		return b.Map(), nil
	case c == ':':
		r.off++
		name := r.token()
		if name == "" {
			return nil, r.errorf("a keyword without a name")
		}
		return Keyword(name), nil
	case r.has("#{"):
		r.off += 2
		items, err := r.items('}', depth)
		return NewSet(items...), err
	case r.has("#queue ["):
		r.off += len("#queue [")
		items, err := r.items(']', depth)
		return queueOf(items), err
	case r.has("#fn["):
		r.off += 4
		inner, err := r.bracketed()
		return &Builtin{Name: inner, MaxArgs: -1}, err
	case r.has("#'"):
		r.off += 2
		name := r.token()
		if name == "" {
			return nil, r.errorf("#' without a name")
		}
		return &Var{Name: name}, nil
	case r.has(`#"`):
		r.off += 2
		start := r.off
		for r.off < len(r.src) && r.src[r.off] != '"' {
			if r.src[r.off] == '\\' {
				r.off++
			}
			r.off++
		}
		if r.off >= len(r.src) {
			return nil, r.errorf("unterminated regex")
		}
		r.off++
		return &Regex{Source: r.src[start : r.off-1]}, nil
	case r.has("#inst "):
		r.off += len("#inst ")
		s, err := r.str()
		if err != nil {
			return nil, err
		}
		tm, perr := syntax.ParseInst(s)
		if perr != nil {
			return nil, r.errorf("bad #inst %q", s)
		}
		return Instant{T: tm}, nil
	case r.has("#uuid "):
		r.off += len("#uuid ")
		s, err := r.str()
		if err != nil {
			return nil, err
		}
		u, ok := syntax.CanonicalUUID(s)
		if !ok {
			return nil, r.errorf("bad #uuid %q", s)
		}
		return u, nil // a UUID is its text
	case r.has("#date-time "):
		r.off += len("#date-time ")
		s, err := r.str()
		if err != nil {
			return nil, err
		}
		tm, ok := parseLocalDateTime(s)
		if !ok {
			return nil, r.errorf("bad #date-time %q", s)
		}
		return tm, nil
	case r.has("#zoned-date-time "), r.has("#offset-date-time "):
		offsetDT := r.has("#offset-date-time ")
		r.off += strings.IndexByte(r.src[r.off:], ' ') + 1
		s, err := r.str()
		if err != nil {
			return nil, err
		}
		tm, perr := parseZoned("read", s, offsetDT, nil)
		if perr != nil {
			return nil, r.errorf("bad date-time with a zone %q", s)
		}
		return tm, nil
	case r.has("#date "):
		r.off += len("#date ")
		s, err := r.str()
		if err != nil {
			return nil, err
		}
		tm, perr := time.Parse("2006-01-02", s)
		if perr != nil {
			return nil, r.errorf("bad #date %q", s)
		}
		return Date{Y: tm.Year(), M: int(tm.Month()), D: tm.Day()}, nil
	case r.has("#error {"):
		// An exception (printer.exception): its class names read as
		// strings inside, and the map's :via rebuilds it.
		r.off += len("#error ")
		r.inError++
		m, err := r.value(depth)
		r.inError--
		if err != nil {
			return nil, err
		}
		mv, _ := m.(*Map)
		x, ok := (*Exception)(nil), mv != nil
		if ok {
			x, ok = readException(mv)
		}
		if !ok {
			return nil, r.errorf("a malformed #error")
		}
		return x, nil
	case r.has("#object[host]"):
		r.off += len("#object[host]")
		return hostObject{}, nil
	case r.has("#atom["), r.has("#volatile["), r.has("#ref["), r.has("#agent["), r.has("#transient["), r.has("#delay["), r.has("#future["), r.has("#promise["):
		return r.cell(depth)
	case r.has("#string-builder["):
		r.off += len("#string-builder[")
		items, err := r.items(']', depth)
		if err != nil {
			return nil, err
		}
		s, ok := "", len(items) == 1
		if ok {
			s, ok = items[0].(string)
		}
		if !ok {
			return nil, r.errorf("a string-builder holds a string")
		}
		return newCellOutside(builderCell, &builderData{buf: []byte(s)}), nil
	case c == '#' && r.utilTag() >= 0:
		// A java.util collection printed exactly: #array-list[[1 2]].
		k := utilClass(r.utilTag())
		r.off += len(utilClassInfo[k].tag) + 2
		items, err := r.items(']', depth)
		if err != nil {
			return nil, err
		}
		if len(items) != 1 {
			return nil, r.errorf("#%s holds one collection, got %d values", utilClassInfo[k].tag, len(items))
		}
		d := &utilData{class: k}
		switch x := items[0].(type) {
		case *Vector:
			switch {
			case k.isList():
				d.back = append([]Value(nil), x.items...)
			case k.isQueue():
				// Its heap, in the natural order: a comparator is a
				// function, which text cannot hold (as sorted-map-by's).
				d.back = append([]Value(nil), x.items...)
				heapify(d.back, Compare)
			case k == utilLinkedHashSet:
				d.coll = emptySet
				for _, e := range x.items {
					d.add(e)
				}
			case k == utilLinkedHashMap:
				// Its entries in their order.
				d.coll = emptyMap
				for _, e := range x.items {
					kv, ok := e.(*Vector)
					if !ok || kv.Len() != 2 {
						return nil, r.errorf("#%s holds a map or a vector of [key value] entries", utilClassInfo[k].tag)
					}
					d.put(kv.At(0), kv.At(1))
				}
			default:
				return nil, r.errorf("#%s holds a %s", utilClassInfo[k].tag, utilShape(k))
			}
		case *Map:
			if !k.isMap() {
				return nil, r.errorf("#%s holds a %s", utilClassInfo[k].tag, utilShape(k))
			}
			d.coll = x
			if k.linked() {
				d.order = x.Keys()
			}
		case *Set:
			if !k.isSet() {
				return nil, r.errorf("#%s holds a %s", utilClassInfo[k].tag, utilShape(k))
			}
			d.coll = x
			if k.linked() {
				d.order = x.Items()
			}
		default:
			return nil, r.errorf("#%s holds a %s", utilClassInfo[k].tag, utilShape(k))
		}
		return newCellOutside(utilCell, d), nil
	case c == '#' && strings.Contains(r.src[r.off:min(len(r.src), r.off+16)], "-array["):
		// An array: #long-array[1 2 3], a new array of its kind.
		tag := r.src[r.off+1 : r.off+strings.IndexByte(r.src[r.off:], '[')]
		elem, ok := arrayTags[tag]
		if !ok {
			return nil, r.errorf("unknown array kind #%s", tag)
		}
		r.off += len(tag) + 2
		items, err := r.items(']', depth)
		if err != nil {
			return nil, err
		}
		for i, x := range items {
			v, err := storeValue(tag, elem, x)
			if err != nil {
				return nil, r.errorf("#%s cannot hold %s", tag, brief(x))
			}
			items[i] = v
		}
		return newCellOutside(arrayCell, &arrayData{elem: elem, items: items}), nil
	case r.opts.Placeholder != "" && r.has(r.opts.Placeholder):
		r.off += len(r.opts.Placeholder)
		return r.opts.Placeholder, nil
	}
	tok := r.token()
	switch tok {
	case "":
		return nil, r.errorf("unexpected %q", r.src[r.off:r.off+1])
	case "nil":
		return nil, nil
	case "true":
		return true, nil
	case "false":
		return false, nil
	case "##Inf":
		return math.Inf(1), nil
	case "##-Inf":
		return math.Inf(-1), nil
	case "##NaN":
		return math.NaN(), nil
	}
	if strings.ContainsAny(tok, ".eE") {
		if f, err := strconv.ParseFloat(tok, 64); err == nil {
			return f, nil
		}
	} else if i, err := strconv.ParseInt(tok, 10, 64); err == nil {
		return i, nil
	}
	if r.inError > 0 && lookupClass(tok) != nil {
		return tok, nil // the :type of an exception
	}
	// A bare name: the class it names (java.lang.Long prints so), else a
	// symbol. Not a number (1x), a tag (#foo), the printer's cut marker
	// (...) or a placeholder of redaction (<Firewalled>), which reads only
	// where ReadOptions name it.
	if symbolStart(tok) && !strings.Contains(tok, "...") {
		if c, ok := classNamed(tok); ok {
			return c, nil
		}
		return parseSymbol(tok), nil
	}
	return nil, r.errorf("unreadable %.40q", tok)
}

// cell reads #atom[v], #volatile[v] or #transient[coll] as a new cell
// holding v (each occurrence its own cell: the printed form does not say
// which were one); #delay[v], #future[v] and #promise[v] as one realized
// with v, and #future[:failed #error {...}] as one whose body threw;
// #promise[...] as a promise not delivered, #delay[...] as a delay whose
// deref throws (its body, code, was not printed). The contents count as a level of nesting, as the
// printer counts it.
func (r *valueReader) cell(depth int) (Value, error) {
	kind := atomCell
	switch {
	case r.has("#volatile["):
		kind = volatileCell
	case r.has("#ref["):
		kind = refCell
	case r.has("#agent["):
		kind = agentCell
	case r.has("#transient["):
		kind = transientCell
	case r.has("#delay["):
		kind = delayCell
	case r.has("#future["):
		kind = futureCell
	case r.has("#promise["):
		kind = promiseCell
	}
	r.off += strings.IndexByte(r.src[r.off:], '[') + 1
	if kind == delayCell || kind == promiseCell {
		if r.has("...]") {
			// One that had no value when it was printed: a promise that
			// can still be delivered; a delay whose body is lost (code
			// does not print), which throws when dereferenced.
			r.off += len("...]")
			if kind == promiseCell {
				return newCellOutside(kind, refPending), nil
			}
			return newCellOutside(kind, &failedRef{exc: &Exception{class: classIllegalState,
				message: "this delay had not run when it was recorded, and its body is not part of the record"}}), nil
		}
	}
	items, err := r.items(']', depth)
	if err != nil {
		return nil, err
	}
	if kind.isRef() && len(items) == 2 && items[0] == Keyword("failed") && kind != promiseCell {
		if x, ok := items[1].(*Exception); ok {
			return newCellOutside(kind, &failedRef{exc: x}), nil
		}
	}
	if len(items) != 1 {
		return nil, r.errorf("a cell holds one value, got %d", len(items))
	}
	if kind == transientCell {
		switch items[0].(type) {
		case *Vector, *Map, *Set:
		default:
			return nil, r.errorf("a transient holds a vector, map or set, got %s", TypeName(items[0]))
		}
	}
	return newCellOutside(kind, items[0]), nil
}

func (r *valueReader) items(closer byte, depth int) ([]Value, error) {
	var items []Value
	for {
		r.space()
		if r.off >= len(r.src) {
			return nil, r.errorf("unexpected end: %q missing", closer)
		}
		if r.src[r.off] == closer {
			r.off++
			return items, nil
		}
		v, err := r.value(depth + 1)
		if err != nil {
			return nil, err
		}
		items = append(items, v)
	}
}

// bracketed reads up to the ] that closes an open [, skipping strings.
func (r *valueReader) bracketed() (string, error) {
	start, level := r.off, 1
	for r.off < len(r.src) {
		switch r.src[r.off] {
		case '"':
			if _, err := r.str(); err != nil {
				return "", err
			}
			continue
		case '[':
			level++
		case ']':
			if level--; level == 0 {
				r.off++
				return r.src[start : r.off-1], nil
			}
		}
		r.off++
	}
	return "", r.errorf("unterminated #fn[")
}

// str reads a string literal as the printer writes it (writeQuoted).
func (r *valueReader) str() (string, error) {
	if r.off >= len(r.src) || r.src[r.off] != '"' {
		return "", r.errorf("a string expected")
	}
	r.off++
	var sb strings.Builder
	for r.off < len(r.src) {
		c := r.src[r.off]
		switch c {
		case '"':
			r.off++
			return sb.String(), nil
		case '\\':
			if r.off+1 >= len(r.src) {
				return "", r.errorf("unterminated string")
			}
			e := r.src[r.off+1]
			r.off += 2
			switch e {
			case 'n':
				sb.WriteByte('\n')
			case 't':
				sb.WriteByte('\t')
			case 'r':
				sb.WriteByte('\r')
			case 'b':
				sb.WriteByte('\b')
			case 'f':
				sb.WriteByte('\f')
			case '"', '\\':
				sb.WriteByte(e)
			case 'u':
				if r.off+4 > len(r.src) {
					return "", r.errorf("bad \\u escape")
				}
				n, err := strconv.ParseUint(r.src[r.off:r.off+4], 16, 32)
				if err != nil {
					return "", r.errorf("bad \\u escape")
				}
				r.off += 4
				sb.WriteRune(rune(n))
			default:
				return "", r.errorf("bad escape \\%c", e)
			}
		default:
			sb.WriteByte(c)
			r.off++
		}
	}
	return "", r.errorf("unterminated string")
}

// symbolStart reports whether tok starts as a symbol the printer wrote
// does: a letter or one of Clojure's symbol characters, / alone ('/, the
// division function's name), and < unless the token is a <Placeholder>.
func symbolStart(tok string) bool {
	c := tok[0]
	switch {
	case c == '/':
		return tok == "/"
	case c == '<':
		return len(tok) <= 2 || tok[len(tok)-1] != '>'
	}
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || strings.IndexByte("*+!-_?=.&%>$", c) >= 0 || c >= 0x80
}

// utilTag is the class whose exact tag (#array-list[) starts at the
// reader's offset, or -1.
func (r *valueReader) utilTag() int {
	rest := r.src[r.off+1:]
	for k := utilClass(0); k < utilClasses; k++ {
		tag := utilClassInfo[k].tag
		if len(rest) > len(tag) && rest[len(tag)] == '[' && rest[:len(tag)] == tag {
			return int(k)
		}
	}
	return -1
}

// utilShape names what a collection of class k holds.
func utilShape(k utilClass) string {
	switch {
	case k.isMap():
		return "map"
	case k.isSet():
		return "set"
	}
	return "vector"
}
