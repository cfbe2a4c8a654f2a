package lisp

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"unicode/utf16"
	"unicode/utf8"
)

// jsonDecoder is Read (JSON)'s decoder: a recursive descent over the bytes,
// producing values directly. It accepts and rejects exactly what
// encoding/json does and decodes strings as it does (escapes, surrogate
// pairs, invalid UTF-8 and lone surrogates replaced by U+FFFD). Its errors
// are those Read (JSON) returned when it read tokens with a json.Decoder:
// io.EOF when the text ends between tokens (or is empty),
// io.ErrUnexpectedEOF when it ends inside a string, number or literal, and
// otherwise a *json.SyntaxError with the Decoder's message (see syntaxError).
//
// Object keys, short strings and integers are interned: the many records of
// a JSON array share one boxed copy of each key and of each repeated value
// ("open", 42), which keeps a large context compact and its lookups
// cache-friendly. Arrays and objects collect their elements on stacks shared
// by all levels, so that a value's only allocations are its own.
type jsonDecoder struct {
	data []byte
	pos  int

	items []Value     // elements of the arrays being read, innermost last
	ents  []jsonEntry // entries of the objects being read, innermost last
	keys  []Value     // scratch for a map's sorted keys
	vals  []Value     // and values
	perm  []int32     // and the order of its entries

	shapes [16]*jsonShape // the last object's keys at each depth, from the second one on
	seen   uint16         // depths < 16 where an object was read (bits)

	// The first space of the stacks, enough for small documents.
	itemsBuf [8]Value
	entsBuf  [8]jsonEntry
	keysBuf  [8]Value
	valsBuf  [8]Value
	permBuf  [8]int32
	buf      []byte // scratch for unescaping strings

	slabs recordSlabs // where records are carved from (record_slab.go)

	strs    []jsonInternedString // intern table of keys and short strings, direct-mapped
	ints    []jsonInternedInt    // intern table of integers, direct-mapped
	strMask uint32
	intMask uint64
}

type jsonEntry struct {
	name string // the key
	key  Value  // the key, boxed (interned)
	val  Value
}

type jsonInternedString struct {
	s string
	v Value
}

type jsonInternedInt struct {
	i int64
	v Value
}

// maxInternedString is the longest string value that is interned (keys are
// interned whatever their length).
const maxInternedString = 32

// parseJSON is Read (JSON). Small documents, which tool results bring by the
// thousand, are decoded with recycled decoders.
func parseJSON(data []byte) (Value, error) {
	if len(data) > maxPooledJSON {
		var d jsonDecoder
		d.reset(data)
		return d.decode()
	}
	d := jsonDecoders.Get().(*jsonDecoder)
	d.reset(data)
	v, err := d.decode()
	d.release()
	jsonDecoders.Put(d)
	return v, err
}

// maxPooledJSON is the largest input decoded with a recycled decoder.
const maxPooledJSON = 64 << 10

var jsonDecoders = sync.Pool{New: func() any { return new(jsonDecoder) }}

// reset prepares d, new or released, to decode data.
func (d *jsonDecoder) reset(data []byte) {
	d.data, d.pos = data, 0
	// Intern tables in proportion to the input, so that decoding a small
	// tool result does not pay for tables made for megabytes.
	n := 16
	for n < 8192 && n*32 < len(data) {
		n *= 2
	}
	if len(d.strs) != n {
		d.strs = make([]jsonInternedString, n)
		d.ints = make([]jsonInternedInt, n/2)
		d.strMask, d.intMask = uint32(n-1), uint64(n/2-1)
	}
	d.items, d.ents = d.itemsBuf[:0], d.entsBuf[:0]
	d.keys, d.vals, d.perm = d.keysBuf[:0], d.valsBuf[:0], d.permBuf[:0]
}

// release drops what d refers to, for it to be recycled.
func (d *jsonDecoder) release() {
	d.data = nil
	clear(d.strs)
	clear(d.ints)
	clear(d.shapes[:])
	d.seen = 0
	clear(d.itemsBuf[:])
	clear(d.entsBuf[:])
	clear(d.keysBuf[:])
	clear(d.valsBuf[:])
	d.items, d.ents, d.keys, d.vals, d.perm = nil, nil, nil, nil, nil
	d.slabs = recordSlabs{}
	if cap(d.buf) > maxPooledJSON {
		d.buf = nil
	}
}

// decode reads the one value of the text.
func (d *jsonDecoder) decode() (Value, error) {
	v, err := d.value(0)
	if err != nil {
		return nil, err
	}
	if d.skipSpace() {
		return nil, errors.New("json: extra data after the value")
	}
	return v, nil
}

// isJSONSpace reports the bytes that JSON allows between tokens.
func isJSONSpace(c byte) bool { return c == ' ' || c == '\n' || c == '\r' || c == '\t' }

// skipSpace moves past white space and reports whether a byte follows.
func (d *jsonDecoder) skipSpace() bool {
	data, i := d.data, d.pos
	for i < len(data) {
		c := data[i]
		if c > ' ' || !isJSONSpace(c) {
			d.pos = i
			return true
		}
		i++
	}
	d.pos = i
	return false
}

// The grammatical positions of the json.Decoder's token errors, which
// decide their messages.
const (
	jsonAtValue       = iota // where a value must start
	jsonAfterElement         // after an array element
	jsonAtObjectStart        // just after {
	jsonAtKey                // after a comma in an object
	jsonAfterKey             // after a key, before the colon
	jsonAfterEntry           // after an object's key:value pair
)

// syntaxError returns the *json.SyntaxError that the json.Decoder reports
// for an error at byte off. Its message cannot be set from outside
// encoding/json, so a Decoder produces it from text, the smallest text that
// puts it in the same state before the same bytes; Offset is then set to
// the position. Errors end the decoding, so this runs at most once.
func syntaxError(text string, off int) error {
	dec := json.NewDecoder(strings.NewReader(text))
	for {
		_, err := dec.Token()
		if err == nil {
			continue
		}
		var se *json.SyntaxError
		if errors.As(err, &se) {
			se.Offset = int64(off)
			return se
		}
		// Not reached: every text built for an error is invalid JSON.
		return fmt.Errorf("json: invalid JSON at byte %d", off)
	}
}

// tokenError is the error for the unexpected byte at d.pos, between tokens,
// where the position at says what may come. Its Offset is the byte's, as
// the Decoder's.
func (d *jsonDecoder) tokenError(at int) error {
	c := string(d.data[d.pos : d.pos+1])
	var text string
	switch at {
	case jsonAtValue:
		text = "[0," + c
	case jsonAfterElement:
		text = "[0 " + c
	case jsonAtObjectStart:
		text = "{" + c
	case jsonAtKey:
		text = `{"":0,` + c
	case jsonAfterKey:
		text = `{"" ` + c
	case jsonAfterEntry:
		text = `{"":0 ` + c
	}
	return syntaxError(text, d.pos)
}

// scanError is the error for byte i of the string, number or literal that
// starts at start. Its Offset counts the bytes up to and including it, as
// encoding/json's scanner does (the json.Decoder miscounted these: it left
// out the bytes between tokens).
func (d *jsonDecoder) scanError(start, i int) error {
	return syntaxError(string(d.data[start:i+1]), i+1)
}

var errJSONDepth = fmt.Errorf("json nested deeper than %d levels", maxConvertDepth)

// value reads the value that starts at the next token.
func (d *jsonDecoder) value(depth int) (Value, error) {
	if !d.skipSpace() {
		return nil, io.EOF
	}
	switch c := d.data[d.pos]; c {
	case '{':
		return d.object(depth)
	case '[':
		return d.array(depth)
	case '"':
		return d.stringValue()
	case ']', '}', ':', ',':
		return nil, d.tokenError(jsonAtValue)
	case 't':
		return d.literal("true", true)
	case 'f':
		return d.literal("false", false)
	case 'n':
		return d.literal("null", nil)
	default:
		if c == '-' || c >= '0' && c <= '9' {
			return d.number()
		}
		return nil, d.scanError(d.pos, d.pos)
	}
}

func (d *jsonDecoder) literal(word string, v Value) (Value, error) {
	start := d.pos
	for i := 1; i < len(word); i++ {
		j := start + i
		if j >= len(d.data) {
			return nil, io.ErrUnexpectedEOF
		}
		if d.data[j] != word[i] {
			return nil, d.scanError(start, j)
		}
	}
	d.pos = start + len(word)
	return v, nil
}

func (d *jsonDecoder) array(depth int) (Value, error) {
	d.pos++ // [
	if !d.skipSpace() {
		return nil, io.EOF
	}
	switch d.data[d.pos] {
	case ']':
		d.pos++
		return emptyVector, nil
	case '}':
		return nil, d.tokenError(jsonAtValue)
	}
	if depth+1 > maxConvertDepth {
		return nil, errJSONDepth
	}
	base := len(d.items)
	// The elements of a long array move off the stack in chunks, so that
	// the stack stays small: growing it to the array's length would leave
	// several times the array's size in garbage (a 1M-row context: 80 MB).
	var chunks [][]Value
	for {
		v, err := d.value(depth + 1)
		if err != nil {
			return nil, err
		}
		d.items = append(d.items, v)
		if len(d.items)-base == jsonArrayChunk {
			chunks = append(chunks, slices.Clone(d.items[base:]))
			clear(d.items[base:])
			d.items = d.items[:base]
		}
		if !d.skipSpace() {
			return nil, io.EOF
		}
		c := d.data[d.pos]
		if c == ',' {
			d.pos++
			continue
		}
		if c == ']' {
			d.pos++
			break
		}
		return nil, d.tokenError(jsonAfterElement)
	}
	items := make([]Value, 0, len(chunks)*jsonArrayChunk+len(d.items)-base)
	for _, c := range chunks {
		items = append(items, c...)
	}
	items = append(items, d.items[base:]...)
	d.items = d.items[:base]
	return NewVector(items), nil
}

// jsonArrayChunk is the number of elements of an array kept on the stack.
const jsonArrayChunk = 4096

func (d *jsonDecoder) object(depth int) (Value, error) {
	d.pos++ // {
	if !d.skipSpace() {
		return nil, io.EOF
	}
	switch d.data[d.pos] {
	case '}':
		d.pos++
		return emptyMap, nil
	case '"':
	default:
		return nil, d.tokenError(jsonAtObjectStart)
	}
	// The object is expected to have the keys of the last one read at its
	// depth (the rows of an array share their keys): while it does, its
	// keys are matched rather than decoded and interned.
	var shape *jsonShape
	if depth < len(d.shapes) {
		shape = d.shapes[depth]
	}
	match := shape != nil && shape.valid
	base := len(d.ents)
	for n := 0; ; n++ {
		var name string
		var key Value
		if match && n < len(shape.perm) && d.keyIs(shape.keys[n]) {
			key = shape.keys[n]
			name = key.(string)
		} else {
			match = false
			var err error
			if name, key, err = d.key(); err != nil {
				return nil, err
			}
		}
		if depth+1 > maxConvertDepth {
			return nil, errJSONDepth
		}
		if !d.skipSpace() {
			return nil, io.EOF
		}
		if d.data[d.pos] != ':' {
			return nil, d.tokenError(jsonAfterKey)
		}
		d.pos++
		v, err := d.value(depth + 1)
		if err != nil {
			return nil, err
		}
		d.ents = append(d.ents, jsonEntry{name, key, v})
		if !d.skipSpace() {
			return nil, io.EOF
		}
		c := d.data[d.pos]
		if c == '}' {
			d.pos++
			if match && n+1 != len(shape.perm) {
				match = false
			}
			break
		}
		if c != ',' {
			return nil, d.tokenError(jsonAfterEntry)
		}
		d.pos++
		if !d.skipSpace() {
			return nil, io.EOF
		}
		if d.data[d.pos] != '"' {
			return nil, d.tokenError(jsonAtKey)
		}
	}
	ents := d.ents[base:]
	var m *Map
	if match {
		// An object of the remembered shape: a record of it (record.go).
		if shape.rec == nil {
			shape.rec = newRecordShape(slices.Clone(shape.keys[len(shape.perm):]))
		}
		var vals []Value
		m, vals = d.slabs.record(shape.rec, len(d.data))
		for j, i := range shape.perm {
			vals[j] = ents[i].val
		}
	} else {
		m = d.makeMap(ents, depth, shape)
	}
	d.ents = d.ents[:base]
	return m, nil
}

// jsonShape is the keys of an object, in their order in the text and in
// the map's order: objects with the same keys in the same order build
// their maps without sorting.
type jsonShape struct {
	valid bool    // whether keys and perm describe the last one
	keys  []Value // its keys (strings) in the text's order, then in key order
	perm  []int32 // its entries in key order
	// rec is the records' shape, made when a second object matches.
	rec *recordShape
}

// maxShapeKeys bounds the objects whose shape is remembered.
const maxShapeKeys = 64

// keyIs reports whether the key at d.pos is the string literal of key
// with no escapes, and if so moves past it. key holds no quote, backslash
// or control character.
func (d *jsonDecoder) keyIs(key Value) bool {
	name := key.(string)
	i := d.pos + 1
	end := i + len(name)
	if end >= len(d.data) || d.data[end] != '"' || string(d.data[i:end]) != name {
		return false
	}
	d.pos = end + 1
	return true
}

// makeMap builds the map of the entries, the last of duplicate keys
// winning, as encoding/json, and remembers their shape in shape (when not
// nil and the keys allow).
func (d *jsonDecoder) makeMap(ents []jsonEntry, depth int, shape *jsonShape) *Map {
	perm := d.perm[:0]
	for i := range ents {
		perm = append(perm, int32(i))
	}
	// A stable sort of the entries by key, so that the last of equal keys
	// is the last of its run: insertion sort, as objects are small.
	sorted := true
	for i := 1; i < len(ents); i++ {
		if ents[i].name <= ents[i-1].name {
			sorted = false
			break
		}
	}
	if !sorted {
		if len(ents) > maxShapeKeys {
			slices.SortStableFunc(perm, func(a, b int32) int { return strings.Compare(ents[a].name, ents[b].name) })
		} else {
			for i := 1; i < len(perm); i++ {
				p := perm[i]
				name := ents[p].name
				j := i
				for j > 0 && ents[perm[j-1]].name > name {
					perm[j] = perm[j-1]
					j--
				}
				perm[j] = p
			}
		}
	}
	keys, vals := d.keys[:0], d.vals[:0]
	dups := false
	for i, p := range perm {
		if i+1 < len(perm) && ents[perm[i+1]].name == ents[p].name {
			dups = true
			continue // a later duplicate wins
		}
		keys = append(keys, ents[p].key)
		vals = append(vals, ents[p].val)
	}
	m := mapFromSorted(keys, vals)
	d.keys, d.vals, d.perm = keys[:0], vals[:0], perm[:0]
	// Learn the shape from the second object at a depth: a first one
	// may be the only one.
	if shape == nil && depth < len(d.shapes) {
		if bit := uint16(1) << depth; d.seen&bit == 0 {
			d.seen |= bit
		} else {
			shape = new(jsonShape)
			d.shapes[depth] = shape
		}
	}
	if shape != nil {
		shape.valid = !dups && len(ents) <= maxShapeKeys && plainKeys(ents)
		shape.rec = nil
		if shape.valid {
			shape.keys = slices.Grow(shape.keys[:0], 2*len(ents))
			for _, e := range ents {
				shape.keys = append(shape.keys, e.key)
			}
			shape.keys = append(shape.keys, keys...)
			shape.perm = append(shape.perm[:0], perm...)
		}
	}
	return m
}

// plainKeys reports whether the keys are their own JSON text: no quote,
// backslash or control character (keys hold valid UTF-8).
func plainKeys(ents []jsonEntry) bool {
	for _, e := range ents {
		for i := 0; i < len(e.name); i++ {
			if c := e.name[i]; c < ' ' || c == '"' || c == '\\' {
				return false
			}
		}
	}
	return true
}

// key reads an object key (the next byte is its opening quote).
func (d *jsonDecoder) key() (string, Value, error) {
	raw, s, err := d.str()
	if err != nil {
		return "", nil, err
	}
	if raw != nil {
		v := d.intern(raw)
		return v.(string), v, nil
	}
	v := d.internString(s)
	return v.(string), v, nil
}

// stringValue reads a string value (the next byte is its opening quote).
func (d *jsonDecoder) stringValue() (Value, error) {
	raw, s, err := d.str()
	if err != nil {
		return nil, err
	}
	if raw != nil {
		if len(raw) <= maxInternedString {
			return d.intern(raw), nil
		}
		return string(raw), nil
	}
	if len(s) <= maxInternedString {
		return d.internString(s), nil
	}
	return s, nil
}

// jsonPlain marks the bytes that a string literal may hold as they are
// (when they form valid UTF-8): not a quote, a backslash or a control
// character.
var jsonPlain = func() (t [256]bool) {
	for c := ' '; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// str reads a string literal. When its text needs no decoding, str
// returns it as raw (a view of the input); otherwise it returns it decoded
// as s.
func (d *jsonDecoder) str() (raw []byte, s string, err error) {
	data := d.data
	start := d.pos
	i := start + 1
	for i < len(data) && jsonPlain[data[i]] {
		i++
	}
	if i >= len(data) {
		return nil, "", io.ErrUnexpectedEOF
	}
	if data[i] != '"' {
		// A backslash or a control character.
		return d.strSlow(start)
	}
	d.pos = i + 1
	raw = data[start+1 : i]
	if !utf8.Valid(raw) {
		return nil, coerceUTF8(raw), nil
	}
	return raw, "", nil
}

// coerceUTF8 replaces each byte of invalid UTF-8 by U+FFFD.
func coerceUTF8(b []byte) string {
	var sb strings.Builder
	sb.Grow(len(b) + 8)
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		sb.WriteRune(r)
		b = b[size:]
	}
	return sb.String()
}

// strSlow reads a string literal that has escapes (or is invalid),
// decoding it as encoding/json does.
func (d *jsonDecoder) strSlow(start int) (raw []byte, s string, err error) {
	data := d.data
	b := d.buf[:0]
	i := start + 1
	for {
		if i >= len(data) {
			return nil, "", io.ErrUnexpectedEOF
		}
		c := data[i]
		switch {
		case c == '"':
			d.pos = i + 1
			d.buf = b
			return nil, string(b), nil
		case c == '\\':
			if i+1 >= len(data) {
				return nil, "", io.ErrUnexpectedEOF
			}
			switch e := data[i+1]; e {
			case '"', '\\', '/':
				b = append(b, e)
			case 'b':
				b = append(b, '\b')
			case 'f':
				b = append(b, '\f')
			case 'n':
				b = append(b, '\n')
			case 'r':
				b = append(b, '\r')
			case 't':
				b = append(b, '\t')
			case 'u':
				r, err := d.hex4(start, i)
				if err != nil {
					return nil, "", err
				}
				i += 6
				if utf16.IsSurrogate(r) {
					// A pair only with a \u escape right after it;
					// a lone surrogate decodes as U+FFFD.
					r2 := rune(-1)
					if i+1 < len(data) && data[i] == '\\' && data[i+1] == 'u' {
						if x, err := d.hex4(start, i); err == nil {
							r2 = x
						} else if err == io.ErrUnexpectedEOF {
							return nil, "", err
						}
						// An invalid escape is reported when read.
					}
					if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
						r = dec
						i += 6
					} else {
						r = utf8.RuneError
					}
				}
				b = utf8.AppendRune(b, r)
				continue
			default:
				return nil, "", d.scanError(start, i+1)
			}
			i += 2
		case c < ' ':
			return nil, "", d.scanError(start, i)
		case c < utf8.RuneSelf:
			b = append(b, c)
			i++
		default:
			r, size := utf8.DecodeRune(data[i:])
			b = utf8.AppendRune(b, r)
			i += size
		}
	}
}

// hex4 reads the four hex digits of the \u escape at i.
func (d *jsonDecoder) hex4(start, i int) (rune, error) {
	var r rune
	for j := i + 2; j < i+6; j++ {
		if j >= len(d.data) {
			return 0, io.ErrUnexpectedEOF
		}
		c := d.data[j]
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, d.scanError(start, j)
		}
		r = r*16 + rune(c)
	}
	return r, nil
}

// intern returns the boxed string of b, shared with earlier equal strings
// where the table allows.
func (d *jsonDecoder) intern(b []byte) Value {
	h := uint32(2166136261)
	for _, c := range b {
		h = (h ^ uint32(c)) * 16777619
	}
	e := &d.strs[h&d.strMask]
	if e.v != nil && e.s == string(b) {
		return e.v
	}
	s := string(b)
	e.s, e.v = s, s
	return e.v
}

// internString is intern for a decoded string.
func (d *jsonDecoder) internString(s string) Value {
	h := uint32(2166136261)
	for i := 0; i < len(s); i++ {
		h = (h ^ uint32(s[i])) * 16777619
	}
	e := &d.strs[h&d.strMask]
	if e.v != nil && e.s == s {
		return e.v
	}
	e.s, e.v = s, s
	return e.v
}

func (d *jsonDecoder) internInt(i int64) Value {
	if uint64(i) < 256 {
		return i // boxed without allocating
	}
	u := uint64(i)
	e := &d.ints[(u^u>>17)*0x9E3779B97F4A7C15>>40&d.intMask]
	if e.v != nil && e.i == i {
		return e.v
	}
	e.i, e.v = i, i
	return e.v
}

// pow10 are the powers of ten that float64 holds exactly.
var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// number reads a number: an int64 when it has no fraction or exponent and
// fits, else a float64 (±Inf beyond the float range), as numberFromString.
func (d *jsonDecoder) number() (Value, error) {
	data := d.data
	start := d.pos
	i := start
	neg := false
	if data[i] == '-' {
		neg = true
		i++
		if i >= len(data) {
			return nil, io.ErrUnexpectedEOF
		}
	}
	// Integer part: 0, or a nonzero digit and more digits.
	var man uint64
	digits := 0 // significant digits in man
	c := data[i]
	switch {
	case c == '0':
		i++
	case '1' <= c && c <= '9':
		for i < len(data) && data[i] >= '0' && data[i] <= '9' {
			if digits < 19 {
				man = man*10 + uint64(data[i]-'0')
				digits++
			} else {
				digits = 100 // too many for the fast paths
			}
			i++
		}
	default:
		return nil, d.scanError(start, i)
	}
	isFloat := false
	frac := 0 // digits after the point
	if i < len(data) && data[i] == '.' {
		isFloat = true
		i++
		if i >= len(data) {
			return nil, io.ErrUnexpectedEOF
		}
		if data[i] < '0' || data[i] > '9' {
			return nil, d.scanError(start, i)
		}
		for i < len(data) && data[i] >= '0' && data[i] <= '9' {
			if man == 0 && data[i] == '0' {
				frac++ // leading zeros are not significant
			} else if digits < 19 {
				man = man*10 + uint64(data[i]-'0')
				digits++
				frac++
			} else {
				digits = 100
			}
			i++
		}
	}
	exp := 0
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		isFloat = true
		i++
		if i >= len(data) {
			return nil, io.ErrUnexpectedEOF
		}
		eneg := false
		if data[i] == '+' || data[i] == '-' {
			eneg = data[i] == '-'
			i++
			if i >= len(data) {
				return nil, io.ErrUnexpectedEOF
			}
		}
		if data[i] < '0' || data[i] > '9' {
			return nil, d.scanError(start, i)
		}
		for i < len(data) && data[i] >= '0' && data[i] <= '9' {
			if exp < 10000 {
				exp = exp*10 + int(data[i]-'0')
			} else {
				digits = 100 // an exponent for strconv
			}
			i++
		}
		if eneg {
			exp = -exp
		}
	}
	d.pos = i
	if !isFloat {
		if digits <= 18 {
			n := int64(man)
			if neg {
				n = -n
			}
			return d.internInt(n), nil
		}
		v, err := numberFromString(string(data[start:i]))
		if n, ok := v.(int64); ok {
			return d.internInt(n), nil
		}
		return v, err
	}
	// Exact when the digits and the power of ten are both exact in a
	// float64: one correctly rounded operation.
	if digits <= 15 && man < 1<<53 {
		e := exp - frac
		var f float64
		switch {
		case man == 0:
			f = 0
		case e == 0:
			f = float64(man)
		case e > 0 && e < len(pow10):
			f = float64(man) * pow10[e]
		case e < 0 && -e < len(pow10):
			f = float64(man) / pow10[-e]
		default:
			return d.parseFloat(start, i)
		}
		if neg {
			f = -f
		}
		return f, nil
	}
	return d.parseFloat(start, i)
}

// parseFloat is the general case: strconv's.
func (d *jsonDecoder) parseFloat(start, end int) (Value, error) {
	return numberFromString(string(d.data[start:end]))
}
