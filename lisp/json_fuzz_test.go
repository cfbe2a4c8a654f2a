package lisp

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzParseJSON checks Read (JSON) against the Decoder-based parser it
// replaced (oracleParseJSON): the same value, or the same error at the same
// offset; and that it accepts what encoding/json accepts.
func FuzzParseJSON(f *testing.F) {
	for _, s := range []string{
		``, ` `, `null`, `true`, `false`, `0`, `-0`, `-0.0`, `1.0`, `1e3`, `1E-3`, `-1.5e+10`, `01`, `-`, `1.`, `.5`,
		`9223372036854775807`, `9223372036854775808`, `-9223372036854775808`, `-9223372036854775809`,
		`12345678901234567890`, `1e400`, `-1e400`, `1e-400`, `4.9e-324`, `0.30000000000000004`, `123456789012345.678`,
		`""`, `"a"`, `"\u00e9"`, `"\ud83d\ude00"`, `"\ud83d"`, `"\ude00\ud83d"`, `"\ud83d\u0041"`, `"\ud83d\u12"`,
		`"\\\"\/\b\f\n\r\t"`, "\"\xff\xfe\"", "\"\xed\xa0\x80\"", "\"a\x01\"", `"\q"`, `"\u12g4"`, `"abc`,
		`[]`, `{}`, `[1,2,3]`, `[1,]`, `[,1]`, `[1 2]`, `[01]`, `[1}`, `{]`, `{1:2}`, `{"a" 1}`, `{"a":1,}`,
		`{"a":1 "b":2}`, `{"a":1]`, `{"a":1,"a":2}`, `{"b":1,"a":2}`, `[{"id":1,"s":"open"},{"id":2,"s":"closed"}]`,
		`{"b": 1, "a": [true, null, 2.50, -0, 1e3, 12345678901234567890]}`, `1 2`, `{} x`, `[1]]`, `  [ 1 , { "k" : "v" } ]  `,
		`[tru]`, `[nul`, `fals`, `[true,false,null]`, "[1,\n2,\r\n\t3]", "\ufeff[]", `{"a":{"b":{"c":[[[]]]}}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		compareWithOracle(t, data)
		// encoding/json's scanner limits nesting differently (it refuses
		// a 10,001st level even when empty).
		if bytes.Count(data, []byte("["))+bytes.Count(data, []byte("{")) < 9000 {
			_, err := parseJSON(data)
			if valid := json.Valid(data); valid != (err == nil) {
				t.Fatalf("parseJSON(%q): %v, but json.Valid says %t", data, err, valid)
			}
		}
	})
}
