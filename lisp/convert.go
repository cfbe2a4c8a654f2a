package lisp

import (
	"bytes"
	"encoding"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"reflect"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ptc-go/ptc/internal/gostruct"
)

// FromGo converts host data into a Value:
//
//	nil, bool, string                 as is
//	every integer type                int64 (uint64 above MaxInt64 is an error)
//	float32, float64                  float64
//	json.Number                       int64 when integral, else float64
//	time.Time                         string, RFC 3339 with nanoseconds
//	[]T, [N]T                         *Vector ([]byte: a base64 string, as encoding/json)
//	map[K]V                           *Map; string keys stay strings, integer keys int64
//	struct                            *Map keyed by the encoding/json field names
//	                                  (json tags honoured: "-", omitempty, embedded structs)
//	pointer, interface                the value they point to (nil pointer: nil)
//	encoding.TextMarshaler            its text
//	json.Marshaler                    its JSON, parsed with Read (JSON)
//	Value types (Keyword, *Vector...)  as is
//
// Strings keys stay strings: programs read them with keywords anyway, (:name m)
// finds "name". Channels, functions and complex numbers are errors, as are
// pointer cycles and nesting deeper than 10,000 levels.
func FromGo(x any) (Value, error) {
	// PTC values pass through without setting up a conversion.
	switch v := x.(type) {
	case nil, bool, int64, float64, string, Keyword, Symbol, Class:
		return x, nil
	case *Map:
		if v != nil {
			return v, nil
		}
	case *Vector:
		if v != nil {
			return v, nil
		}
	case *Set:
		if v != nil {
			return v, nil
		}
	}
	c := converter{seen: map[uintptr]bool{}, fields: map[reflect.Type][]gostruct.Field{}}
	return c.from(reflect.ValueOf(x), 0)
}

const maxConvertDepth = 10000

type converter struct {
	seen   map[uintptr]bool
	fields map[reflect.Type][]gostruct.Field // field layouts, computed once per type per conversion
	shapes shapeCache                        // maps with the same keys become records of one shape
}

// mapOf builds the map of unsorted entries (the last duplicate wins): a
// record when maps with the same string keys came before it.
func (c *converter) mapOf(keys, vals []Value) *Map {
	sk, sv := sortEntries(keys, vals, true)
	if m := c.shapes.record(sk, sv); m != nil {
		return m
	}
	return mapFromSorted(sk, sv)
}

var (
	timeType          = reflect.TypeFor[time.Time]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
	jsonMarshalerType = reflect.TypeFor[json.Marshaler]()
)

func (c *converter) from(rv reflect.Value, depth int) (Value, error) {
	if depth > maxConvertDepth {
		return nil, fmt.Errorf("data nested deeper than %d levels", maxConvertDepth)
	}
	if !rv.IsValid() {
		return nil, nil
	}
	// Fast paths: values that already are PTC-Lisp values.
	if rv.Kind() != reflect.Pointer || rv.Type().Elem().Kind() == reflect.Struct {
		if rv.CanInterface() {
			switch v := rv.Interface().(type) {
			case nil, bool, int64, float64, string, Keyword:
				return v, nil
			case Instant, Date, Symbol, Class:
				return v, nil
			case *Vector, *Map, *Set, *Closure, *Builtin, *Var, *Regex, *Seq, *Cell:
				if reflect.ValueOf(v).IsNil() {
					return nil, nil
				}
				return v, nil
			case *big.Int:
				if v == nil {
					return nil, nil
				}
				return new(big.Int).Set(v), nil // a BigInt; the copy is ours
			case *Decimal:
				if v == nil {
					return nil, nil
				}
				if v.unscaled == nil { // the zero Decimal: 0
					return decimalOfInt(0), nil
				}
				return v, nil // never changed
			case json.Number:
				return numberFromString(string(v))
			case time.Time:
				return v.Format(time.RFC3339Nano), nil
			}
		}
	}
	t := rv.Type()
	switch rv.Kind() {
	case reflect.Pointer:
		if rv.IsNil() {
			return nil, nil
		}
		if rv.CanInterface() && (t.Implements(jsonMarshalerType) || t.Implements(textMarshalerType)) {
			return c.marshaled(rv)
		}
		p := rv.Pointer()
		if c.seen[p] {
			return nil, fmt.Errorf("cyclic data at %s", t)
		}
		c.seen[p] = true
		defer delete(c.seen, p)
		return c.from(rv.Elem(), depth+1)
	case reflect.Interface:
		if rv.IsNil() {
			return nil, nil
		}
		return c.from(rv.Elem(), depth+1)
	}
	if t != timeType && rv.CanInterface() && (t.Implements(jsonMarshalerType) || t.Implements(textMarshalerType)) {
		return c.marshaled(rv)
	}
	switch rv.Kind() {
	case reflect.Bool:
		return rv.Bool(), nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return rv.Int(), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		u := rv.Uint()
		if u > math.MaxInt64 {
			return nil, fmt.Errorf("integer %d does not fit 64-bit signed integers", u)
		}
		return int64(u), nil
	case reflect.Float32, reflect.Float64:
		return rv.Float(), nil
	case reflect.String:
		return rv.String(), nil
	case reflect.Slice:
		if rv.IsNil() {
			return nil, nil
		}
		if t.Elem().Kind() == reflect.Uint8 {
			b, _ := json.Marshal(rv.Bytes())
			var s string
			_ = json.Unmarshal(b, &s)
			return s, nil
		}
		return c.sequence(rv, depth)
	case reflect.Array:
		return c.sequence(rv, depth)
	case reflect.Map:
		if rv.IsNil() {
			return nil, nil
		}
		if rv.Len() > 0 {
			p := rv.Pointer()
			if c.seen[p] {
				return nil, fmt.Errorf("cyclic data at %s", t)
			}
			c.seen[p] = true
			defer delete(c.seen, p)
		}
		keys := make([]Value, 0, rv.Len())
		vals := make([]Value, 0, rv.Len())
		it := rv.MapRange()
		for it.Next() {
			k, err := c.mapKey(it.Key())
			if err != nil {
				return nil, err
			}
			v, err := c.from(it.Value(), depth+1)
			if err != nil {
				return nil, err
			}
			keys = append(keys, k)
			vals = append(vals, v)
		}
		return c.mapOf(keys, vals), nil
	case reflect.Struct:
		return c.structValue(rv, depth)
	}
	return nil, fmt.Errorf("cannot convert a Go %s into a PTC-Lisp value", t)
}

func (c *converter) sequence(rv reflect.Value, depth int) (Value, error) {
	n := rv.Len()
	items := make([]Value, n)
	for i := 0; i < n; i++ {
		v, err := c.from(rv.Index(i), depth+1)
		if err != nil {
			return nil, err
		}
		items[i] = v
	}
	return NewVector(items), nil
}

func (c *converter) mapKey(k reflect.Value) (Value, error) {
	switch k.Kind() {
	case reflect.String:
		if kw, ok := k.Interface().(Keyword); ok {
			return kw, nil
		}
		return k.String(), nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return c.from(k, 0)
	case reflect.Bool, reflect.Float32, reflect.Float64:
		return c.from(k, 0)
	}
	if k.Type().Implements(textMarshalerType) {
		b, err := k.Interface().(encoding.TextMarshaler).MarshalText()
		if err != nil {
			return nil, err
		}
		return string(b), nil
	}
	return c.from(k, 0)
}

func (c *converter) marshaled(rv reflect.Value) (Value, error) {
	if m, ok := rv.Interface().(json.Marshaler); ok {
		b, err := m.MarshalJSON()
		if err != nil {
			return nil, err
		}
		return parseJSON(b)
	}
	b, err := rv.Interface().(encoding.TextMarshaler).MarshalText()
	if err != nil {
		return nil, err
	}
	return string(b), nil
}

func (c *converter) structValue(rv reflect.Value, depth int) (Value, error) {
	fields, ok := c.fields[rv.Type()]
	if !ok {
		fields = gostruct.Fields(rv.Type())
		c.fields[rv.Type()] = fields
	}
	keys := make([]Value, 0, len(fields))
	vals := make([]Value, 0, len(fields))
	for _, f := range fields {
		fv, ok := fieldByIndex(rv, f.Index)
		if !ok {
			continue
		}
		if f.OmitEmpty && isEmptyValue(fv) {
			continue
		}
		v, err := c.from(fv, depth+1)
		if err != nil {
			return nil, fmt.Errorf("field %s: %w", f.Name, err)
		}
		if f.AsString {
			v = displayString(v)
		}
		keys = append(keys, f.Name)
		vals = append(vals, v)
	}
	return c.mapOf(keys, vals), nil
}

func fieldByIndex(v reflect.Value, index []int) (reflect.Value, bool) {
	for i, x := range index {
		if i > 0 && v.Kind() == reflect.Pointer {
			if v.IsNil() {
				return reflect.Value{}, false
			}
			v = v.Elem()
		}
		v = v.Field(x)
	}
	return v, true
}

func isEmptyValue(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Interface, reflect.Pointer:
		return v.IsZero()
	}
	return false
}

// ToGo converts a value into plain Go data: nil, bool, int64, *big.Int (a
// BigInt, copied), float64, string, []any and map[string]any. Keywords become their names (without
// the colon), sets become slices in canonical order, map keys become strings
// (keywords by name, other keys in printed form), an exception becomes a
// map of its "type" (Java class), "message", "data" and "cause", atoms,
// volatiles and transients what they hold now, and functions, vars, regexes
// and lazy sequences their printed form. A cell that holds itself (through
// any values) has no such form: an error of kind InvalidArgument.
//
// Conversion builds at most maxConvertValues values: shared structure lets
// a program build data whose expansion is exponential ([v v] doubled forty
// times), and the host must not pay for that. A larger value is an error
// of kind MemoryExceeded, and one nested deeper than 10,000 levels an error
// of kind DepthExceeded; the conversion never returns a partial value.
func ToGo(v Value) (any, error) {
	c := exporter{budget: maxConvertValues}
	out := c.toGo(v, 0)
	return out, c.err
}

// maxConvertValues bounds the values one ToGo or ToJSON call produces,
// counting shared parts as many times as they appear.
const maxConvertValues = 4_000_000

// exporter is the state of one ToGo or ToJSON call.
type exporter struct {
	budget int // values still allowed
	err    error
	redact *Redaction // ToJSON's
	// inCells are the cells being converted, around the current value.
	inCells map[*Cell]struct{}
}

// enterCell starts converting what c holds, and reports false (with the
// error) when c is already being converted: it holds itself.
func (c *exporter) enterCell(cell *Cell) bool {
	if _, cyclic := c.inCells[cell]; cyclic {
		c.err = errorf(InvalidArgument, "%s holds itself (through the values in it): it has no plain data form; convert what it holds without the cycle", cell.Kind())
		return false
	}
	if c.inCells == nil {
		c.inCells = map[*Cell]struct{}{}
	}
	c.inCells[cell] = struct{}{}
	return true
}

// spend counts one value and reports whether conversion may go on.
func (c *exporter) spend(depth int) bool {
	if c.err != nil {
		return false
	}
	if depth > maxConvertDepth {
		c.err = &Error{Kind: DepthExceeded, Message: fmt.Sprintf("data nested deeper than %d levels", maxConvertDepth)}
		return false
	}
	if c.budget--; c.budget < 0 {
		c.err = &Error{Kind: MemoryExceeded, Message: fmt.Sprintf(
			"the value has more than %d elements once its shared parts are expanded: convert a part of it", maxConvertValues)}
		return false
	}
	return true
}

func (c *exporter) toGo(v Value, depth int) any {
	if !c.spend(depth) {
		return nil
	}
	switch v := v.(type) {
	case nil, bool, int64, float64, string:
		return v
	case *big.Int:
		return new(big.Int).Set(v) // the caller's to change
	case *Decimal:
		return json.Number(v.String()) // its exact digits
	case Keyword:
		return string(v)
	case Symbol:
		return v.String()
	case Class:
		return v.Name
	case Instant:
		if v.zone != nil {
			return v.instant()
		}
		return v.T
	case Date:
		return v.iso()
	case *Vector:
		out := make([]any, len(v.items))
		for i, x := range v.items {
			if out[i] = c.toGo(x, depth+1); c.err != nil {
				return nil
			}
		}
		return out
	case *Set:
		out := make([]any, 0, v.Len())
		for x := range v.All() {
			if out = append(out, c.toGo(x, depth+1)); c.err != nil {
				return nil
			}
		}
		return out
	case *Map:
		out := make(map[string]any, v.Len())
		for k, x := range v.All() {
			ks := c.keyString(k)
			if out[ks] = c.toGo(x, depth+1); c.err != nil {
				return nil
			}
		}
		return out
	case *Exception:
		if v == nil {
			return nil
		}
		return c.toGo(v.asMap(), depth)
	case *Cell:
		if !c.enterCell(v) {
			return nil
		}
		out := c.toGo(v.Deref(), depth+1)
		delete(c.inCells, v)
		return out
	}
	return c.printed(v)
}

// printed is the printed form of v, counted in the budget by its bytes.
func (c *exporter) printed(v Value) string {
	p := printer{opts: PrintOptions{MaxDepth: defaultPrintDepth}, limit: max(c.budget, 1)}
	p.value(v, 0)
	if c.budget -= p.sb.Len(); p.overflow || c.budget < 0 {
		c.spend(0) // records the error
		return ""
	}
	return p.sb.String()
}

// keyString renders a map key as a JSON object key.
func (c *exporter) keyString(k Value) string {
	switch k := k.(type) {
	case string:
		return k
	case Keyword:
		return string(k)
	case nil:
		return ""
	}
	return c.printed(k)
}

// ToJSON encodes a value as JSON, with map keys in canonical order, for a
// reader who must not see what r hides: a hidden value, or the value of a
// hidden key, encodes as r.Placeholder (a JSON string), exactly where
// Print prints it; a nil r hides nothing. Non-finite floats (##Inf,
// ##-Inf, ##NaN) have no JSON form and encode as null; a cell encodes as
// what it holds (an error if it holds itself, as for ToGo). Like ToGo, it
// fails on values of more than 4,000,000 elements.
func ToJSON(v Value, r *Redaction) ([]byte, error) {
	var buf bytes.Buffer
	c := exporter{budget: maxConvertValues, redact: r}
	if err := c.writeJSON(&buf, v, 0); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func (c *exporter) placeholder(buf *bytes.Buffer) { writeJSONString(buf, c.redact.Placeholder) }

// writeJSONString writes s as a JSON string, as encoding/json does but
// without its HTML escaping (a "<" stays "<"): invalid UTF-8 becomes
// U+FFFD, control characters and U+2028/U+2029 are escaped.
func writeJSONString(buf *bytes.Buffer, s string) {
	const hex = "0123456789abcdef"
	buf.WriteByte('"')
	start := 0
	for i := 0; i < len(s); {
		b := s[i]
		if b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' {
				i++
				continue
			}
			buf.WriteString(s[start:i])
			switch b {
			case '"', '\\':
				buf.WriteByte('\\')
				buf.WriteByte(b)
			case '\n':
				buf.WriteString(`\n`)
			case '\r':
				buf.WriteString(`\r`)
			case '\t':
				buf.WriteString(`\t`)
			default:
				buf.WriteString(`\u00`)
				buf.WriteByte(hex[b>>4])
				buf.WriteByte(hex[b&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			buf.WriteString(s[start:i])
			buf.WriteString(`\ufffd`)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			buf.WriteString(s[start:i])
			buf.WriteString(`\u202`)
			buf.WriteByte(hex[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	buf.WriteString(s[start:])
	buf.WriteByte('"')
}

func (c *exporter) writeJSON(buf *bytes.Buffer, v Value, depth int) error {
	if !c.spend(depth) {
		return c.err
	}
	if c.redact.hidesValue(v) {
		c.placeholder(buf)
		return nil
	}
	switch v := v.(type) {
	case nil:
		buf.WriteString("null")
	case bool:
		buf.WriteString(strconv.FormatBool(v))
	case int64:
		buf.WriteString(strconv.FormatInt(v, 10))
	case *big.Int:
		buf.WriteString(v.String())
	case *Decimal:
		buf.WriteString(v.String())
	case float64:
		if math.IsInf(v, 0) || math.IsNaN(v) {
			buf.WriteString("null")
			return nil
		}
		b, _ := json.Marshal(v)
		buf.Write(b)
	case string:
		writeJSONString(buf, c.redact.text(v))
	case Keyword:
		writeJSONString(buf, string(v))
	case Symbol:
		writeJSONString(buf, v.String())
	case Class:
		writeJSONString(buf, v.Name)
	case Instant:
		if v.zone != nil {
			writeJSONString(buf, v.instant().Format(time.RFC3339Nano)) // with its offset, without the region
		} else if v.local {
			writeJSONString(buf, v.rfc3339()) // LocalDateTime's ISO form, no zone
		} else {
			writeJSONString(buf, v.T.Format(time.RFC3339Nano))
		}
	case Date:
		writeJSONString(buf, v.iso())
	case *Vector:
		buf.WriteByte('[')
		for i, x := range v.items {
			if i > 0 {
				buf.WriteByte(',')
			}
			if c.redact.hidesElement(v, i) {
				c.placeholder(buf)
				continue
			}
			if err := c.writeJSON(buf, x, depth+1); err != nil {
				return err
			}
		}
		buf.WriteByte(']')
	case *Set:
		buf.WriteByte('[')
		i := 0
		for x := range v.All() {
			if i > 0 {
				buf.WriteByte(',')
			}
			i++
			if err := c.writeJSON(buf, x, depth+1); err != nil {
				return err
			}
		}
		buf.WriteByte(']')
	case *Map:
		buf.WriteByte('{')
		i := 0
		for k, x := range v.All() {
			if i > 0 {
				buf.WriteByte(',')
			}
			i++
			ks := c.keyString(k)
			if c.err != nil {
				return c.err
			}
			if _, ok := k.(string); ok {
				ks = c.redact.text(ks)
			} else if k != nil && c.redact.hidesValue(k) {
				ks = c.redact.Placeholder
			}
			writeJSONString(buf, ks)
			buf.WriteByte(':')
			if c.redact.hidesEntry(v, k) {
				c.placeholder(buf)
				continue
			}
			if err := c.writeJSON(buf, x, depth+1); err != nil {
				return err
			}
		}
		buf.WriteByte('}')
	case *Exception:
		if v == nil {
			buf.WriteString("null")
			return nil
		}
		return c.writeJSON(buf, v.asMap(), depth)
	case *Cell:
		if !c.enterCell(v) {
			return c.err
		}
		err := c.writeJSON(buf, v.Deref(), depth+1)
		delete(c.inCells, v)
		return err
	default:
		p := c.printed(v)
		if c.err != nil {
			return c.err
		}
		writeJSONString(buf, p)
	}
	return nil
}

func numberFromString(s string) (Value, error) {
	if !strings.ContainsAny(s, ".eE") {
		if i, err := strconv.ParseInt(s, 10, 64); err == nil {
			return i, nil
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && !strings.Contains(err.Error(), "range") {
		return nil, fmt.Errorf("invalid number %q", s)
	}
	return f, nil
}
