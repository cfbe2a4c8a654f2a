package lisp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/ptc-go/ptc/internal/testenv"
)

// oracleParseJSON is Read (JSON) as it was before jsonDecoder, reading
// tokens with a json.Decoder: the oracle of the differential tests. One
// change: the Offset of a syntax error inside a string, number or literal
// is made absolute. The Decoder counts only the bytes of the strings,
// numbers and literals it read, not those between tokens, so its Offset for
// such errors was not a position in the text; the oracle reports what the
// Decoder would with every byte counted (see oracleParser.token).
func oracleParseJSON(data []byte) (Value, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	p := oracleParser{dec: dec, data: data, keys: map[string]Value{}, ints: map[int64]Value{}}
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("json: extra data after the value")
	}
	return v, nil
}

type oracleParser struct {
	dec     *json.Decoder
	data    []byte
	keys    map[string]Value
	ints    map[int64]Value
	scanned int64 // bytes the Decoder's scanner counted so far
}

const oracleMaxInterned = 10000

func (p *oracleParser) integer(i int64) Value { return intern(p.ints, i) }

func (p *oracleParser) key(s string) Value { return intern(p.keys, s) }

// intern returns the Value of k boxed once, for the first
// oracleMaxInterned keys of m.
func intern[K comparable](m map[K]Value, k K) Value {
	if v, ok := m[k]; ok {
		return v
	}
	var v Value = k
	if len(m) < oracleMaxInterned {
		m[k] = v
	}
	return v
}

// token is dec.Token with absolute offsets for the scanner's errors.
func (p *oracleParser) token() (json.Token, error) {
	// Where a string, number or literal would start: past white space and
	// the one comma or colon that Token skips.
	i := int(p.dec.InputOffset())
	skip := func() {
		for i < len(p.data) && strings.IndexByte(" \t\r\n", p.data[i]) >= 0 {
			i++
		}
	}
	skip()
	if i < len(p.data) && (p.data[i] == ',' || p.data[i] == ':') {
		i++
		skip()
	}
	tok, err := p.dec.Token()
	if err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) && !isTokenError(se.Error(), p.data[p.dec.InputOffset()]) {
			se.Offset = int64(i) + se.Offset - p.scanned
		}
		return nil, err
	}
	if _, ok := tok.(json.Delim); !ok {
		p.scanned += p.dec.InputOffset() - int64(i)
	}
	return tok, nil
}

// isTokenError tells the Decoder's errors about the byte c between tokens
// (whose Offset it reports right) from its scanner's.
func isTokenError(msg string, c byte) bool {
	for _, ctx := range []string{" after array element", " looking for beginning of object key string",
		" after object key", " after object key:value pair"} {
		if strings.HasSuffix(msg, ctx) {
			return true
		}
	}
	if strings.HasSuffix(msg, " looking for beginning of value") {
		return strings.IndexByte("]}:,", c) >= 0
	}
	return !strings.Contains(msg, "' ") // "invalid character 'x'", after {
}

func (p *oracleParser) value(depth int) (Value, error) {
	dec := p.dec
	if depth > maxConvertDepth {
		return nil, fmt.Errorf("json nested deeper than %d levels", maxConvertDepth)
	}
	tok, err := p.token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '[':
			var items []Value
			for dec.More() {
				v, err := p.value(depth + 1)
				if err != nil {
					return nil, err
				}
				items = append(items, v)
			}
			if _, err := p.token(); err != nil {
				return nil, err
			}
			return NewVector(items), nil
		case '{':
			var keys, vals []Value
			sorted := true
			for dec.More() {
				kt, err := p.token()
				if err != nil {
					return nil, err
				}
				ks, _ := kt.(string)
				v, err := p.value(depth + 1)
				if err != nil {
					return nil, err
				}
				if n := len(keys); n > 0 && ks <= keys[n-1].(string) {
					sorted = false
				}
				keys = append(keys, p.key(ks))
				vals = append(vals, v)
			}
			if _, err := p.token(); err != nil {
				return nil, err
			}
			if sorted {
				return mapFromSorted(keys, vals), nil
			}
			return mapFromEntries(keys, vals), nil
		}
	case json.Number:
		v, err := numberFromString(string(t))
		if i, ok := v.(int64); ok {
			return p.integer(i), nil
		}
		return v, err
	case string:
		if len(t) <= 32 {
			return p.key(t), nil
		}
		return t, nil
	case bool:
		return t, nil
	case nil:
		return nil, nil
	}
	return nil, fmt.Errorf("json: unexpected token %v", tok)
}

// compareWithOracle fails t when Read (JSON) and the oracle disagree on data:
// on the value (equal, and printed alike), or on the error (same message;
// same Offset for syntax errors; the same io.EOF or io.ErrUnexpectedEOF).
func compareWithOracle(t *testing.T, data []byte) {
	t.Helper()
	got, err := parseJSON(data)
	want, werr := oracleParseJSON(data)
	show := func() string {
		if len(data) > 200 {
			return fmt.Sprintf("%q... (%d bytes)", data[:200], len(data))
		}
		return fmt.Sprintf("%q", data)
	}
	switch {
	case err == nil && werr == nil:
		if !Equal(got, want) {
			t.Fatalf("parseJSON(%s) = %s, the oracle %s", show(), trimmed(got), trimmed(want))
		}
		if g, w := printString(got), printString(want); g != w {
			t.Fatalf("parseJSON(%s) prints %s, the oracle's %s", show(), g, w)
		}
	case err == nil || werr == nil:
		t.Fatalf("parseJSON(%s) = %s, %v; the oracle %s, %v", show(), trimmed(got), err, trimmed(want), werr)
	default:
		if err.Error() != werr.Error() {
			t.Fatalf("parseJSON(%s) fails with %q, the oracle with %q", show(), err, werr)
		}
		if (err == io.EOF) != (werr == io.EOF) || (err == io.ErrUnexpectedEOF) != (werr == io.ErrUnexpectedEOF) {
			t.Fatalf("parseJSON(%s): error %#v, the oracle's %#v", show(), err, werr)
		}
		var se, wse *json.SyntaxError
		if errors.As(err, &se) != errors.As(werr, &wse) {
			t.Fatalf("parseJSON(%s): error %T, the oracle's %T", show(), err, werr)
		}
		if se != nil && se.Offset != wse.Offset {
			t.Fatalf("parseJSON(%s): %q at offset %d, the oracle at %d", show(), err, se.Offset, wse.Offset)
		}
	}
}

func trimmed(v Value) string {
	s := printString(v)
	if len(s) > 300 {
		return s[:300] + "..."
	}
	return s
}

func TestParseJSONNumbers(t *testing.T) {
	ints := []string{"0", "-0", "1", "-1", "7", "255", "256", "-256", "42", "123456789012345678",
		"-123456789012345678", "999999999999999999", "1000000000000000000", "1234567890123456789",
		"9223372036854775807", "-9223372036854775807", "-9223372036854775808"}
	for _, s := range ints {
		v, err := parseJSON([]byte(s))
		want, _ := strconv.ParseInt(s, 10, 64)
		if err != nil || v != Value(want) {
			t.Errorf("parseJSON(%s) = %#v, %v; want int64 %d", s, v, err, want)
		}
	}
	floats := []string{"1.0", "-1.0", "0.0", "-0.0", "-0e0", "0e500", "-0.0e-999", "1e3", "1E3", "1e+3", "1e-3",
		"2.50", "0.1", "0.30000000000000004", "3.141592653589793", "-2.5e-7", "123456.789e3",
		"9223372036854775808", "-9223372036854775809", "12345678901234567890", "99999999999999999999999",
		"1e22", "1e23", "9007199254740993.0", "9007199254740992.0", "4.9e-324", "2.2250738585072014e-308",
		"1.7976931348623157e308", "1e400", "-1e400", "1e-400", "0.000000000000000000000000000001",
		"100000000000000000000000000000000000000.5", "1.00000000000000000000000000000000000001",
		"123456789012345.6", "1234567890123456.7", "0.1e-22", "1e-22", "1e-23", "5e-324", "1e99999999999999999999",
		"179769313486231580793728971405303415079934132710037826936173778980444968292764750946649017977587207096330286416692887910946555547851940402630657488671505820681908902000708383676273854845817711531764475730270069855571366959622842914819860834936475292719074168444365510704342711559699508093042880177904174497791.9999999999999999999999999999999999999999999999999999999999999999999999",
	}
	// Exponents that cancel many leading zeros.
	zeros := "0." + strings.Repeat("0", 10005) + "1e"
	floats = append(floats, zeros+"100050", zeros+"10006", zeros+"10007", zeros+"-100050", zeros+"99999999999999999999")
	for _, s := range floats {
		v, err := parseJSON([]byte(s))
		want, werr := strconv.ParseFloat(s, 64)
		if werr != nil && !errors.Is(werr, strconv.ErrRange) {
			t.Fatalf("bad test number %s", s)
		}
		f, ok := v.(float64)
		if err != nil || !ok || f != want || math.Signbit(f) != math.Signbit(want) {
			t.Errorf("parseJSON(%s) = %#v, %v; want float64 %v", s, v, err, want)
		}
		compareWithOracle(t, []byte(s))
		compareWithOracle(t, []byte("["+s+","+s+"]"))
	}
	for _, s := range append(ints, "01", "-01", "00", "-", "--1", "+1", ".5", "1.", "1.e5", "1e", "1e+", "1e-x", "1ex",
		"0x10", "1_000", "-a", "1.5.3", "[1.5.3]", "[01]", "[-]", "[1.]", "[1e]", "{\"a\":-}", "[1e5x]", "Infinity", "NaN", "-Infinity") {
		compareWithOracle(t, []byte(s))
		compareWithOracle(t, []byte(" ["+s+"] "))
		compareWithOracle(t, []byte(`{"k": `+s+`}`))
	}
}

func TestParseJSONStrings(t *testing.T) {
	cases := []string{
		`""`, `"plain"`, `"λé😀"`, `"\u00e9"`, `"\u00E9\u00e9"`, `"\ud83d\ude00"`, `"\uD83D\uDE00"`,
		`"\ud83d"`, `"\ude00"`, `"\ud83dx"`, `"\ud83d\u0041"`, `"\ud83d\ud83d\ude00"`, `"\ude00\ud83d"`,
		`"\ud83d\n"`, `"\ud800\udc00\udbff\udfff"`, `"\u0000"`, `"\uffff\ufffe\ufffd"`,
		`"\\\"\/\b\f\n\r\t"`, "\"\xff\"", "\"a\xc3\"", "\"\xed\xa0\x80\"", "\"\xef\xbf\xbd\"", "\"\xf4\x90\x80\x80\"",
		"\"\xc0\xaf\"", "\"\xe2\x82\"", "\"\x7f\"", "\"a\xffb\\n\xfe\"", `"` + strings.Repeat("x", 32) + `"`,
		`"` + strings.Repeat("y", 33) + `"`, `"` + strings.Repeat(`\u00e9`, 20) + `"`,
		`"` + strings.Repeat("long string with an escape\\n ", 5000) + `"`,
	}
	for _, s := range cases {
		v, err := parseJSON([]byte(s))
		var want string
		if werr := json.Unmarshal([]byte(s), &want); werr != nil {
			t.Fatalf("bad test string %s: %v", s, werr)
		}
		if err != nil || v != Value(want) {
			t.Errorf("parseJSON(%q) = %q, %v; want %q", s, v, err, want)
		}
		compareWithOracle(t, []byte(s))
		compareWithOracle(t, []byte(`{`+s+`:`+s+`, "x": [`+s+`]}`))
	}
	bad := []string{`"`, `"abc`, `"\`, `"\u`, `"\u12`, `"\u12g4"`, `"\ud83d\u12"`, `"\ud83d\u12g4"`, `"\ud83d\`,
		`"\x"`, `"\'"`, "\"a\x01\"", "\"\t\"", "\"\n\"", "\"\x1f\"", `"\uD83D\uDE0`, "\"\xff\x00\"", `"abc\"`,
		`{"a\x":1}`, "{\"a\x01\":1}", `{"a`, `["a`, `["a\u00e9`, `"\ud83d\ude00`, `["\ud83d\ude0G"]`}
	for _, s := range bad {
		if _, err := parseJSON([]byte(s)); err == nil {
			t.Errorf("parseJSON(%q) should fail", s)
		}
		compareWithOracle(t, []byte(s))
		compareWithOracle(t, []byte("[1, "+s))
		compareWithOracle(t, []byte(`{"k": `+s))
	}
}

func TestParseJSONErrors(t *testing.T) {
	tests := []struct {
		in     string
		msg    string
		offset int64 // of a *json.SyntaxError; -1 for other errors
	}{
		{``, "EOF", -1},
		{`   `, "EOF", -1},
		{`[1`, "EOF", -1},
		{`[1,`, "EOF", -1},
		{`{"a"`, "EOF", -1},
		{`{"a":`, "EOF", -1},
		{`{"a":1,`, "EOF", -1},
		{`"abc`, "unexpected EOF", -1},
		{`nul`, "unexpected EOF", -1},
		{`-`, "unexpected EOF", -1},
		{`[1.`, "unexpected EOF", -1},
		{`1 2`, "json: extra data after the value", -1},
		{`{} x`, "json: extra data after the value", -1},
		{`[1]]`, "json: extra data after the value", -1},
		{`[1,]`, "invalid character ']' looking for beginning of value", 3},
		{`]`, "invalid character ']' looking for beginning of value", 0},
		{`{"a" 1}`, "invalid character '1' after object key", 5},
		{`{"a":1 "b":2}`, "invalid character '\"' after object key:value pair", 7},
		{`{"a":1,}`, "invalid character '}' looking for beginning of object key string", 7},
		{`{"a":1]`, "invalid character ']' after object key:value pair", 6},
		{`{]`, "invalid character ']'", 1},
		{`{1:2}`, "invalid character '1'", 1},
		{`[1 2]`, "invalid character '2' after array element", 3},
		{`[1}`, "invalid character '}' after array element", 2},
		{`[}`, "invalid character '}' looking for beginning of value", 1},
		{`[01]`, "invalid character '1' after array element", 2},
		{`x`, "invalid character 'x' looking for beginning of value", 1},
		{`[1, x]`, "invalid character 'x' looking for beginning of value", 5},
		{`[true, "a", tru]`, "invalid character ']' in literal true (expecting 'e')", 16},
		{"[\"ok\", \"a\tb\"]", "invalid character '\\t' in string literal", 10},
		{`{"k": "\q"}`, "invalid character 'q' in string escape code", 9},
		{`{"k": [-x]}`, "invalid character 'x' in numeric literal", 9},
		{`  [1.x]`, "invalid character 'x' after decimal point in numeric literal", 6},
		{`[1e+]`, "invalid character ']' in exponent of numeric literal", 5},
		{`["\u12x4"]`, "invalid character 'x' in \\u hexadecimal character escape", 7},
	}
	for _, tc := range tests {
		_, err := parseJSON([]byte(tc.in))
		if err == nil {
			t.Errorf("parseJSON(%q) should fail with %q", tc.in, tc.msg)
			continue
		}
		var se *json.SyntaxError
		isSyntax := errors.As(err, &se)
		switch {
		case err.Error() != tc.msg:
			t.Errorf("parseJSON(%q): %q, want %q", tc.in, err, tc.msg)
		case isSyntax != (tc.offset >= 0):
			t.Errorf("parseJSON(%q): %#v: a *json.SyntaxError: %t, want %t", tc.in, err, isSyntax, tc.offset >= 0)
		case isSyntax && se.Offset != tc.offset:
			t.Errorf("parseJSON(%q): %q at offset %d, want %d", tc.in, err, se.Offset, tc.offset)
		}
		switch tc.msg {
		case "EOF":
			if err != io.EOF {
				t.Errorf("parseJSON(%q): %#v, want io.EOF", tc.in, err)
			}
		case "unexpected EOF":
			if err != io.ErrUnexpectedEOF {
				t.Errorf("parseJSON(%q): %#v, want io.ErrUnexpectedEOF", tc.in, err)
			}
		}
		compareWithOracle(t, []byte(tc.in))
	}
}

// TestParseJSONOldOffsets pins the one difference from the Decoder-based
// Read (JSON): the Offset of an error inside a string, number or literal is
// its position in the text, where the Decoder counted only the bytes of the
// strings, numbers and literals before it.
func TestParseJSONOldOffsets(t *testing.T) {
	in := `{"a": [1, "b", tru]}`
	_, err := parseJSON([]byte(in))
	var se *json.SyntaxError
	if !errors.As(err, &se) || se.Offset != 19 {
		t.Fatalf("parseJSON(%q) = %#v, want a syntax error at offset 19", in, err)
	}
	dec := json.NewDecoder(strings.NewReader(in))
	for {
		if _, err = dec.Token(); err != nil {
			break
		}
	}
	if !errors.As(err, &se) || se.Offset != 11 || se.Error() != "invalid character ']' in literal true (expecting 'e')" {
		t.Fatalf("the Decoder's error: %#v", err)
	}
}

func TestParseJSONDepth(t *testing.T) {
	nest := func(n int, open, inner, close string) []byte {
		return []byte(strings.Repeat(open, n) + inner + strings.Repeat(close, n))
	}
	tests := []struct {
		data []byte
		ok   bool
	}{
		{nest(maxConvertDepth, "[", "1", "]"), true},
		{nest(maxConvertDepth+1, "[", "1", "]"), false},
		{nest(maxConvertDepth+1, "[", "", "]"), true},
		{nest(maxConvertDepth+2, "[", "", "]"), false},
		{nest(maxConvertDepth, `{"a":`, "1", "}"), true},
		{nest(maxConvertDepth+1, `{"a":`, "1", "}"), false},
		{nest(maxConvertDepth+1, `{"a":`, "{}", "}"), false},
		{nest(maxConvertDepth, `{"a":`, "{}", "}"), true},
		{nest(maxConvertDepth, `[{"a":`, "1", "}]"), false},
		{nest(maxConvertDepth/2, `[{"a":`, "1", "}]"), true},
		{nest(20000, "[", "", "]"), false},
	}
	for i, tc := range tests {
		_, err := parseJSON(tc.data)
		if (err == nil) != tc.ok {
			t.Errorf("case %d: ParseJSON: %v, want ok %t", i, err, tc.ok)
		}
		if !tc.ok && err != nil && err.Error() != "json nested deeper than 10000 levels" {
			t.Errorf("case %d: %v", i, err)
		}
		compareWithOracle(t, tc.data)
	}
	// The depth error comes where the Decoder-based parser found it: after
	// the key, before its colon; before a bad element; after a syntax
	// error in an earlier key.
	deep := strings.Repeat(`{"a":`, maxConvertDepth)
	for _, tail := range []string{`{"k" 1}`, `{"k":`, `{"k`, `{k`, `{}`, `{]`, `{`, `[x`, `[}`, `[]`, `[`, `[,`, `[ ]`, `{"\x":1}`} {
		compareWithOracle(t, []byte(deep+tail))
		compareWithOracle(t, []byte(strings.Repeat("[", maxConvertDepth)+tail))
	}
}

func TestParseJSONObjects(t *testing.T) {
	var sb strings.Builder
	// Large objects, sorted and not, with duplicates: the stable sort and
	// the insertion sort, last duplicate winning.
	for _, n := range []int{2, 5, 16, 17, 64, 65, 200} {
		for _, order := range []string{"asc", "desc", "dup", "mixed"} {
			sb.Reset()
			sb.WriteByte('{')
			for i := range n {
				if i > 0 {
					sb.WriteByte(',')
				}
				k := i
				switch order {
				case "desc":
					k = n - i
				case "dup":
					k = i % 7
				case "mixed":
					k = (i * 31) % (n/2 + 1)
				}
				fmt.Fprintf(&sb, `"k%03d": %d`, k, i)
			}
			sb.WriteByte('}')
			compareWithOracle(t, []byte(sb.String()))
		}
	}
	for _, s := range []string{`{"a": 1, "b": 0, "a": 2}`, `{"a":1,"a":2,"a":3}`, `{"b":1,"a":2,"b":3,"a":4}`,
		`{"":1,"":2}`, `{"\u0061":1,"a":2}`, `{"a\u0000":1,"a":2}`, `{"é":1,"e":2,"z":3}`, `{"\xff":1,"\xfe":2}`,
		`[{"id":1,"name":"x"},{"name":"y","id":2},{"id":3,"name":"z","id":4}]`} {
		compareWithOracle(t, []byte(s))
	}
	// Rows that share their keys, and rows that nearly do: the shape of
	// the last object at each depth is matched and relearned.
	rows := []string{`{"id":1,"b":2}`, `{"id":1,"b":2}`, `{"id":1}`, `{"id":1,"b":2,"c":3}`, `{"b":2,"id":1}`,
		`{"\u0069d":1,"b":2}`, `{"idx":1,"b":2}`, `{"i":1,"b":2}`, `{"id":1,"b":2,"id":3}`, `{"id":1,"id":2}`,
		`{"id":{"id":1,"b":2},"b":[{"id":1,"b":2}]}`, `{"a\"b":1}`, `{"a\"b":1}`, `{"a\\":1,"b":2}`, `{"a\\":1,"b":2}`,
		`{"é":1,"b":2}`, `{"é":1,"b":2}`, "{\"\xff\":1}", "{\"\xff\":1}", `{"id" :1, "b" : 2 }`, `{}`, `{"id":1,"b":2}`}
	for i := range rows {
		for j := range rows {
			compareWithOracle(t, []byte("["+rows[i]+","+rows[j]+","+rows[i]+"]"))
			compareWithOracle(t, []byte(`{"x":[`+rows[i]+","+rows[j]+`], "y":`+rows[j]+"}"))
		}
	}
	for _, tail := range []string{`{"id"`, `{"id":`, `{"id":1`, `{"id":1,`, `{"id":1,"b"`, `{"id" 1}`, `{"id":1,"b":2,}`, `{"id":1 "b":2}`, `{"i`} {
		compareWithOracle(t, []byte(`[{"id":1,"b":2},`+tail))
	}
	var deep strings.Builder
	for range 40 {
		deep.WriteString(`{"k":1,"n":`)
	}
	deep.WriteString("null")
	deep.WriteString(strings.Repeat("}", 40))
	compareWithOracle(t, []byte("["+deep.String()+","+deep.String()+"]"))
}

func TestParseJSONBig(t *testing.T) {
	if testing.Short() {
		t.Skip("big inputs")
	}
	// 20,000 rows cross every array chunk many times over and the pooled
	// decoder's size; the long run reads the hundred thousand the test was
	// written with.
	n := testenv.Scale(20_000, 100_000)
	var sb strings.Builder
	sb.WriteString(`{"rows": [`)
	for i := range n {
		if i > 0 {
			sb.WriteString(",\n")
		}
		fmt.Fprintf(&sb, `{"id": %d, "name": "row %d \u00e9", "score": %d.%d, "tags": ["t%d", null, true], "big": %d, "s": "%s"}`,
			i, i, i%97, i%10, i%13, int64(i)*98765432123, strings.Repeat("ab", i%40))
	}
	fmt.Fprintf(&sb, `], "total": %d}`, n)
	data := []byte(sb.String())
	compareWithOracle(t, data)
	v, err := parseJSON(data)
	if err != nil {
		t.Fatal(err)
	}
	rows, _ := v.(*Map).getExact("rows")
	if got := rows.(*Vector).Len(); got != n {
		t.Fatalf("%d rows, want %d", got, n)
	}
	// Truncated anywhere, it fails as before.
	for _, cut := range []int{1, 10, 11, 12, 100, 1000, len(data) / 2, len(data) - 2, len(data) - 1} {
		compareWithOracle(t, data[:cut])
	}
}

// A syntax error in a long input is reported without re-reading the text.
func TestParseJSONErrorCost(t *testing.T) {
	data := []byte(`["` + strings.Repeat("x", 1<<20) + `", 1, x]`)
	_, err := parseJSON(data)
	var se *json.SyntaxError
	if !errors.As(err, &se) || se.Offset != int64(len(data)-1) {
		t.Fatalf("%v", err)
	}
	allocs := testing.AllocsPerRun(5, func() { _, _ = parseJSON(data) })
	if allocs > 100 {
		t.Errorf("%v allocations", allocs)
	}
}

// Decoders are recycled: concurrent and successive decodings, failed ones
// included, do not see each other's state.
func TestParseJSONRecycled(t *testing.T) {
	docs := []string{`[{"id":1,"s":"open"},{"id":2,"s":"closed"},{"id":3,"s":"open"}]`,
		`{"a":[{"x":1,"y":2},{"x":3,"y":4}],"b":{"x":5}}`, `[{"id":1,"s":"open"},{"id":2,`, `{"k":"\u00e9\ud83d"}`,
		`[{"s":1,"id":"x"},{"s":2,"id":"y"}]`, `[1,2,3,"a","b","a"]`, `{"id":1,"s":"open"}`}
	want := make([]string, len(docs))
	for i, doc := range docs {
		v, err := oracleParseJSON([]byte(doc))
		want[i] = fmt.Sprint(printString(v), err)
	}
	done := make(chan bool)
	for g := range 4 {
		go func() {
			defer func() { done <- true }()
			for i := range 200 {
				k := (i*7 + g) % len(docs)
				v, err := parseJSON([]byte(docs[k]))
				if got := fmt.Sprint(printString(v), err); got != want[k] {
					t.Errorf("parseJSON(%s) = %s, want %s", docs[k], got, want[k])
					return
				}
			}
		}()
	}
	for range 4 {
		<-done
	}
}

// Long arrays leave the stack in chunks (jsonArrayChunk): lengths around
// the chunk's, with nested arrays, decode as the oracle does.
func TestParseJSONArrayChunks(t *testing.T) {
	for _, n := range []int{jsonArrayChunk - 1, jsonArrayChunk, jsonArrayChunk + 1, 2 * jsonArrayChunk, 2*jsonArrayChunk + 3} {
		var sb strings.Builder
		sb.WriteString(`[[`)
		for i := range n {
			if i > 0 {
				sb.WriteString(",")
			}
			fmt.Fprintf(&sb, `[%d, [%d], {"a": [%d]}]`, i, -i, i%5)
		}
		sb.WriteString(`], [1, 2]]`)
		data := []byte(sb.String())
		compareWithOracle(t, data)
		v, err := parseJSON(data)
		if err != nil {
			t.Fatal(err)
		}
		inner := v.(*Vector).At(0).(*Vector)
		if inner.Len() != n {
			t.Fatalf("n=%d: %d elements", n, inner.Len())
		}
		if last := inner.At(n - 1).(*Vector).At(0); last != int64(n-1) {
			t.Errorf("n=%d: last element starts with %v", n, last)
		}
	}
}
