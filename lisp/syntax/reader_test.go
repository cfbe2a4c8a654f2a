package syntax

import (
	"errors"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

func TestReadForms(t *testing.T) {
	tests := []struct {
		src, want string
	}{
		// Literals.
		{"nil true false", "nil true false"},
		{"nilly truex false? nil/x", "sym:nilly sym:truex sym:false? sym:nil|x"},

		// Integers.
		{"0 7 007 -5 +5 -0", "int:0 int:7 int:7 int:-5 int:5 int:0"},
		{"9223372036854775807 -9223372036854775808", "int:9223372036854775807 int:-9223372036854775808"},
		{"0x1F 0X1f -0x10 +0x10 0x1FN", "int:31 int:31 int:-16 int:16 bigint:31"},
		{"9223372036854775807 9223372036854775808 -9223372036854775809 0xFFFFFFFFFFFFFFFF", "int:9223372036854775807 bigint:9223372036854775808 bigint:-9223372036854775809 bigint:18446744073709551615"},
		{"2r1000000000000000000000000000000000000000000000000000000000000000 99999999999999999999", "bigint:9223372036854775808 bigint:99999999999999999999"},
		{"2r1010 -2r101 +8r17 36rZZ 16rff 2R11", "int:10 int:-5 int:15 int:1295 int:255 int:3"}, // radix, as Clojure
		{"-2r1000000000000000000000000000000000000000000000000000000000000000", "int:-9223372036854775808"},
		{"0x7FFFFFFFFFFFFFFF -0x8000000000000000", "int:9223372036854775807 int:-9223372036854775808"},
		{"42N -42N", "bigint:42 bigint:-42"},

		// Floats.
		{"1.5 -1.5 +1.5 007.5", "float:1.5 float:-1.5 float:1.5 float:7.5"},
		{"1e3 1E3 1e+3 1e-3 -2e2", "float:1000 float:1000 float:1000 float:0.001 float:-200"},
		{"1.5e-3 1.5E3 5. 5.e1 -0.0", "float:0.0015 float:1500 float:5 float:50 float:-0"},
		{"1.0M 5M 5.M 1e2M -2.50M +3M", "decimal:1.0 decimal:5 decimal:5. decimal:1e2 decimal:-2.50 decimal:3"},
		{"1.7976931348623157e308 4.9e-324 1e-400", "float:1.7976931348623157e+308 float:5e-324 float:0"},
		{"##Inf ##-Inf ##NaN", "float:+Inf float:-Inf float:NaN"},
		// Ratios denote the float that / gives (Clojure reads a Ratio; 4/2 is 2 there).
		{"1/2 -3/4 +1/8 4/2 0/5", "float:0.5 float:-0.75 float:0.125 float:2 float:0"},

		// Strings.
		{`"" "abc" "a\"b" "a\\b"`, `str:"" str:"abc" str:"a\"b" str:"a\\b"`},
		{`"\n\t\r\b\f"`, `str:"\n\t\r\b\f"`},
		{`"\u03bb\u03BB" "\u0000"`, `str:"λλ" str:"\x00"`},
		{`"\uD83D\uDE00"`, `str:"😀"`},
		{`"λ日本😀" "tab	raw"`, `str:"λ日本😀" str:"tab\traw"`},
		{"\"nul\x00inside\"", `str:"nul\x00inside"`},
		{`"(not [a] {form}) ; #_ @x"`, `str:"(not [a] {form}) ; #_ @x"`},
		{"\"a,b\n1,2\n\" \"x\r\ny\" \"\n\"", `str:"a,b\n1,2\n" str:"x\r\ny" str:"\n"`}, // as Clojure: line breaks kept
		{"\"λ\n\\u00e9\\n\n(a)\"", `str:"λ\né\n\n(a)"`},
		{"#\"a\nb\\\"\"", `re:"a\nb\\\""`},

		// Characters.
		{`\a \Z \5 \λ`, `char:"a" char:"Z" char:"5" char:"λ"`},
		{`\( \) \[ \] \{ \} \" \; \, \\ \' \# \@ \^ \~ \` + "`", `char:"(" char:")" char:"[" char:"]" char:"{" char:"}" char:"\"" char:";" char:"," char:"\\" char:"'" char:"#" char:"@" char:"^" char:"~" char:"` + "`" + `"`},
		{`\newline \space \tab \return \backspace \formfeed`, `char:"\n" char:" " char:"\t" char:"\r" char:"\b" char:"\f"`},
		{`\o101 \o7 \o007 \o377 \o`, `char:"A" char:"\a" char:"\a" char:"ÿ" char:"o"`},
		{`\u0041 \u03bb \u03BB \u0000 \n \u \t`, `char:"A" char:"λ" char:"λ" char:"\x00" char:"n" char:"u" char:"t"`},
		{"\\e\u0301 \\\u00e9", "char:\"e\u0301\" char:\"\u00e9\""}, // combining acute; precomposed
		{"\\🏳️‍🌈", `char:"🏳️\u200d🌈"`},                             // 4 code points, one grapheme
		{"\\👍🏽 \\🇫🇷 \\❤️", `char:"👍🏽" char:"🇫🇷" char:"❤️"`},        // modifier, flag, VS16
		{`(= c \))`, `(sym:= sym:c char:")")`},
		{`(str \a"b")`, `(sym:str char:"a" str:"b")`},

		// Keywords.
		{":a :foo/bar :a.b/c.d :1 :? :-> :nil :a:b :/", "kw:a kw:foo/bar kw:a.b/c.d kw:1 kw:? kw:-> kw:nil kw:a:b kw:/"},

		// Symbols.
		{"+ - * < > = ?x !x _ % %1 %& & . .. .foo x' a#b a:b", "sym:+ sym:- sym:* sym:< sym:> sym:= sym:?x sym:!x sym:_ sym:% sym:%1 sym:%& sym:& sym:. sym:.. sym:.foo sym:x' sym:a#b sym:a:b"},
		{"λ café *1 ->> <= not= a->b +x -x -. +.", "sym:λ sym:café sym:*1 sym:->> sym:<= sym:not= sym:a->b sym:+x sym:-x sym:-. sym:+."},
		{"str/join clojure.string/upper-case ctx/orders Math/PI", "sym:str|join sym:clojure.string|upper-case sym:ctx|orders sym:Math|PI"},
		{"/ /x // clojure.core// a/b/c -/x", "sym:/ sym:/x sym:// sym:clojure.core|/ sym:a|b/c sym:-|x"},

		// Collections.
		{"() [] {} #{} #()", "() [] {} #{} #()"},
		{"`(a ~b ~@c ~ @d x# `e)", "`(sym:a ~sym:b ~@sym:c ~@sym:d sym:x# `sym:e)"},
		{"(+ 1 2)", "(sym:+ int:1 int:2)"},
		{`{:a 1 "b" [2 3]}`, `{kw:a int:1 str:"b" [int:2 int:3]}`},
		{"#{1 1 :a}", "#{int:1 int:1 kw:a}"},
		{"#(+ % %2)", "#(sym:+ sym:% sym:%2)"},
		{"(a)(b)[c]{:d e}", "(sym:a) (sym:b) [sym:c] {kw:d sym:e}"},
		{`[1"a"2]`, `[int:1 str:"a" int:2]`},

		// Quote, deref, var quote, regex.
		{"'x '(1 2) ' x ''x", "'sym:x '(int:1 int:2) 'sym:x ''sym:x"},
		{"@a @(f) @ a @@a (swap! a inc)@a a@b", "@sym:a @(sym:f) @sym:a @@sym:a (sym:swap! sym:a sym:inc) @sym:a sym:a @sym:b"},
		{"#(+ @%) '@x [@a]", "#(sym:+ @sym:%) '@sym:x [@sym:a]"},
		{"#'foo #'str/join #' foo", "#'sym:foo #'sym:str|join #'sym:foo"},
		{`#"\d+" #"a\"b" #"" #"\\" #"[a-z]*\.txt"`, `re:"\\d+" re:"a\\\"b" re:"" re:"\\\\" re:"[a-z]*\\.txt"`},
		{`#"é\é"`, `re:"é\\é"`},
		// Tagged literals: #inst as Clojure's reader takes it (to the
		// millisecond, in UTC), #uuid as its canonical text.
		{`#inst "2024" #inst "2024-03-15" #inst "2024-03-15T10:30" #inst"2024-03-15T10:30:05.1234Z"`,
			`inst:2024-01-01T00:00:00.000Z inst:2024-03-15T00:00:00.000Z inst:2024-03-15T10:30:00.000Z inst:2024-03-15T10:30:05.123Z`},
		{`#inst "2024-03-15T00:30:00.250+02:00" #inst "2024-12-31T23:00:00-01:30" #inst "2024-02-29"`,
			`inst:2024-03-14T22:30:00.250Z inst:2025-01-01T00:30:00.000Z inst:2024-02-29T00:00:00.000Z`},
		{`#uuid "123E4567-E89B-12D3-A456-426614174000" [#uuid "1-2-3-4-5"]`,
			`uuid:123e4567-e89b-12d3-a456-426614174000 [uuid:00000001-0002-0003-0004-000000000005]`},

		// Metadata is checked and dropped.
		{"(defn ^:private f ^long [^String s ^{:tag long} n] s)", "(sym:defn sym:f [sym:s sym:n] sym:s)"},
		{"^:a ^{:b 1} ^\"T\" [1] ^Long/MAX x ^:a #{1} ^:a #(f) ^:a {} ^:a (f)", "[int:1] sym:x #{int:1} #(sym:f) {} (sym:f)"},
		{"^ :a [1] ^:a #_ 1 [2]", "[int:1] [int:2]"},

		// Discard.
		{"#_ 1 2", "int:2"},
		{"[1 #_ 2 3]", "[int:1 int:3]"},
		{"#_ #_ 1 2 3", "int:3"},
		{"{:a #_ :b 1}", "{kw:a int:1}"},
		{"'#_ x y", "'sym:y"},
		{"#_(a (b [c])) d", "sym:d"},

		// White space, comments, stray closers.
		{"1,2,,3", "int:1 int:2 int:3"},
		{"1\u00a02\u20033\u30004\u2028" + "5", "int:1 int:2 int:3 int:4 int:5"},
		{"; comment\n1 ; another\n;last", "int:1"},
		{"1;comment\n2", "int:1 int:2"},
		{"; \xff\x00 anything goes\n1", "int:1"},
		{"#!/usr/bin/env ptc\n(+ 1 2)", "(sym:+ int:1 int:2)"},
		{"#!/usr/bin/env ptc", ""},
		{"(+ 1 2))", "(sym:+ int:1 int:2)"},
		{") ] } 1 )) ]", "int:1"},
		{"(a\r\n b)\r\n", "(sym:a sym:b)"},
		{"", ""},
		{"  \n\t ,; x", ""},
	}
	for _, tt := range tests {
		forms, err := Read(tt.src)
		if err != nil {
			t.Errorf("Read(%q): unexpected error %v", tt.src, err)
			continue
		}
		if got := dumpAll(forms); got != tt.want {
			t.Errorf("Read(%q)\n got %s\nwant %s", tt.src, got, tt.want)
		}
		checkSpans(t, tt.src, forms)
	}
}

func TestReadErrors(t *testing.T) {
	const deref = "@ (deref) must be followed by a form, as in @counter"
	const ctrl = "unexpected control character U+0001"
	const noQuote = "no closing '\"' before the end of the program"
	tests := []struct {
		src  string
		want []string
	}{
		// Delimiters.
		{"(", []string{"1:2: unclosed '(' opened at 1:1"}},
		{"[1 (2 {3", []string{
			"1:9: unclosed '{' opened at 1:7",
			"1:9: unclosed '(' opened at 1:4",
			"1:9: unclosed '[' opened at 1:1",
		}},
		{"#{1 #(2\n", []string{"2:1: unclosed '#(' opened at 1:5", "2:1: unclosed '#{' opened at 1:1"}},
		{"(let [x 1) x)", []string{"1:10: mismatched ')': expected ']' to close '[' opened at 1:6"}},
		{"[1 2)", []string{"1:5: mismatched ')': expected ']' to close '[' opened at 1:1"}},
		{"{:a 1]", []string{"1:6: mismatched ']': expected '}' to close '{' opened at 1:1"}},
		{"#{1)", []string{"1:4: mismatched ')': expected '}' to close '#{' opened at 1:1"}},
		{"#(+ %]", []string{"1:6: mismatched ']': expected ')' to close '#(' opened at 1:1"}},
		{"(defn f [x]\n  (+ x 1)", []string{"2:10: unclosed '(' opened at 1:1"}},

		// Maps.
		{"{:a 1 :b}", []string{"1:1: map literal has an odd number of forms (3); every key needs a value"}},
		{"[{:a}]", []string{"1:2: map literal has an odd number of forms (1); every key needs a value"}},
		{"{:a .5}", []string{"1:5: invalid number '.5': write 0.5"}}, // no cascade into "odd"

		// Discard and quotes.
		{"#_", []string{"1:1: #_ must be followed by a form"}},
		{"(1 #_)", []string{"1:4: #_ must be followed by a form"}},
		{"[#_ ; c\n]", []string{"1:2: #_ must be followed by a form"}},
		{"#_ #_ 1", []string{"1:1: #_ must be followed by a form"}},
		{"'", []string{"1:1: quote (') must be followed by a form"}},
		{"(')", []string{"1:2: quote (') must be followed by a form"}},
		{"#'1", []string{"1:1: #' must be followed by a symbol, as in #'my-fn"}},
		{"#':k", []string{"1:1: #' must be followed by a symbol, as in #'my-fn"}},
		{"(#')", []string{"1:2: #' must be followed by a symbol, as in #'my-fn"}},
		{"#'x/", []string{"1:3: invalid symbol 'x/'"}},

		// Unsupported reader syntax.
		{`#inst "2020-13-01"`, []string{`1:1: #inst "2020-13-01" is not an instant: the month is 01 to 12 (write "2024-01-02" or "2024-01-02T03:04:05Z")`}},
		{`#inst "2023-02-29"`, []string{`1:1: #inst "2023-02-29" is not an instant: there is no such day in that month (write "2024-01-02" or "2024-01-02T03:04:05Z")`}},
		{`#inst "2020-01-01 10:00"`, []string{`1:1: #inst "2020-01-01 10:00" is not an instant: unexpected text after the date (write "2024-01-02" or "2024-01-02T03:04:05Z")`}},
		{`#inst "20"`, []string{`1:1: #inst "20" is not an instant: it starts with a four-digit year (write "2024-01-02" or "2024-01-02T03:04:05Z")`}},
		{`#inst "2020-01-01T10:00+2"`, []string{`1:1: #inst "2020-01-01T10:00+2" is not an instant: an offset is Z or ±hh:mm (write "2024-01-02" or "2024-01-02T03:04:05Z")`}},
		{`#inst 5`, []string{`1:1: #inst must be followed by a string, as in #inst "2024-01-02T03:04:05Z"`}},
		{`(#inst)`, []string{`1:2: #inst must be followed by a string, as in #inst "2024-01-02T03:04:05Z"`}},
		{`#uuid "x"`, []string{`1:1: #uuid "x" is not a UUID: write five groups of hex digits, as in 123e4567-e89b-12d3-a456-426614174000`}},
		{`#foo "x"`, []string{"1:1: unsupported reader syntax '#foo'"}},
		{"#:a{:b 1}", []string{"1:1: unsupported reader syntax '#:a'"}},
		{"#?(:clj 1)", []string{"1:1: unsupported reader syntax '#?'"}},
		{"#[1]", []string{"1:1: unsupported reader syntax '#['"}},
		{"# x", []string{"1:1: unsupported reader syntax '#'"}},
		{"#", []string{"1:1: unsupported reader syntax '#'"}},
		{"##foo ##", []string{"1:1: unsupported reader syntax '##foo'", "1:7: unsupported reader syntax '##'"}},
		{"1 #!x", []string{"1:3: unsupported reader syntax '#!x'"}},
		{"@", []string{"1:1: " + deref}},
		{"(swap! a inc) @)", []string{"1:15: " + deref}},
		{"@@@", []string{"1:3: " + deref}},
		{"`", []string{"1:1: syntax-quote (`) must be followed by a form"}},
		{"(a ~)", []string{"1:4: unquote (~) must be followed by a form"}},
		{"[~@]", []string{"1:2: unquote-splicing (~@) must be followed by a form"}},
		{"^1 x", []string{"1:1: metadata (^) must be a symbol, keyword, string or map, as in ^:private or ^String"}},
		{"^\\a x [^[] y]", []string{"1:1: metadata (^) must be a symbol, keyword, string or map, as in ^:private or ^String", "1:8: metadata (^) must be a symbol, keyword, string or map, as in ^:private or ^String"}},
		{"^:a 1 ^:b :c ^:d \"s\"", []string{"1:1: metadata (^) can only be applied to a symbol or a collection", "1:7: metadata (^) can only be applied to a symbol or a collection", "1:14: metadata (^) can only be applied to a symbol or a collection"}},
		{"[1 ^:a]", []string{"1:4: metadata (^) must be followed by the form it applies to, as in ^:private name"}},
		{"^", []string{"1:1: metadata (^) must be followed by the form it applies to, as in ^:private name"}},
		{"^@x y", []string{"1:1: metadata (^) must be a symbol, keyword, string or map, as in ^:private or ^String"}},

		// Keywords and symbols.
		{"::str/foo", []string{"1:1: auto-resolved keywords (::str/foo) are not supported: write :str/foo"}},
		{"::", []string{"1:1: auto-resolved keywords (::) are not supported: write :name"}},
		{":::foo ::", []string{
			"1:1: auto-resolved keywords (:::foo) are not supported: write :foo",
			"1:8: auto-resolved keywords (::) are not supported: write :name",
		}},
		{"(:a :)", []string{"1:5: keyword ':' has no name: write :name"}},
		{"x/", []string{"1:1: invalid symbol 'x/'"}},
		{"ns/a ns/", []string{"1:6: invalid symbol 'ns/'"}},

		// Numbers.
		{"1/0 -0/0", []string{"1:1: ratio literal 1/0 divides by zero", "1:5: ratio literal -0/0 divides by zero"}},
		{"1/-2 1.5/2 1N/2 1/2N 0x10/2 +/2", []string{
			"1:1: invalid number '1/-2'", "1:6: invalid number '1.5/2'", "1:12: invalid number '1N/2'",
			"1:17: invalid number '1/2N'", "1:22: invalid number '0x10/2'",
		}},
		{"2r 0r1 37r1 2r102 2r1N 2r-1 16r_f 1r0", []string{
			"1:1: invalid number '2r'", "1:4: invalid number '0r1': the radix must be 2 to 36",
			"1:8: invalid number '37r1': the radix must be 2 to 36", "1:13: invalid number '2r102'",
			"1:19: invalid number '2r1N'", "1:24: invalid number '2r-1'", "1:29: invalid number '16r_f'",
			"1:35: invalid number '1r0': the radix must be 2 to 36",
		}},
		{".5", []string{"1:1: invalid number '.5': write 0.5"}},
		{"-.5 +.5e3", []string{"1:1: invalid number '-.5': write -0.5", "1:5: invalid number '+.5e3': write +0.5e3"}},
		{".5x", []string{"1:1: invalid number '.5x'"}},
		{"1abc", []string{"1:1: invalid number '1abc'"}},
		{"0x 0xG 0x1.5", []string{"1:1: invalid number '0x'", "1:4: invalid number '0xG'", "1:8: invalid number '0x1.5'"}},
		{"1e 1e+ 1.2.3 1.5N 1/x 1N2 12ab34", []string{
			"1:1: invalid number '1e'", "1:4: invalid number '1e+'", "1:8: invalid number '1.2.3'",
			"1:14: invalid number '1.5N'", "1:19: invalid number '1/x'", "1:23: invalid number '1N2'",
			"1:27: invalid number '12ab34'",
		}},
		{"1e999 -1e999", []string{"1:1: float literal 1e999 is out of range (64-bit)", "1:7: float literal -1e999 is out of range (64-bit)"}},
		{"1" + strings.Repeat("0", 100) + "x", []string{"1:1: invalid number '1000000000000000000000000000000000000000...'"}},
		{"1" + strings.Repeat("é", 30), []string{"1:1: invalid number '1" + strings.Repeat("é", 30) + "'"}},

		// Strings.
		{`"abc`, []string{"1:1: unterminated string: " + noQuote}},
		{`(str "a\qb")`, []string{`1:8: unsupported escape '\q' in string`}},
		{`"\0" "\'" "\/" "\é"`, []string{
			`1:2: unsupported escape '\0' in string`, `1:7: unsupported escape '\'' in string`,
			`1:12: unsupported escape '\/' in string`, `1:17: unsupported escape '\é' in string`,
		}},
		{`"\u12" "\u12G4" "\uD800" "\uDC00\uD800"`, []string{
			`1:2: invalid escape '\u12' in string: \u needs exactly 4 hex digits`,
			`1:9: invalid escape '\u12' in string: \u needs exactly 4 hex digits`,
			`1:18: invalid escape '\uD800' in string: unpaired surrogate`,
			`1:27: invalid escape '\uDC00' in string: unpaired surrogate`,
			`1:33: invalid escape '\uD800' in string: unpaired surrogate`,
		}},
		// A string may span lines; one that runs to the end of input is
		// reported where it opened, without the collections it swallowed,
		// and a line inside it that looks like code points to the culprit.
		{"(println \"hello)\n(+ 1 2)", []string{"1:10: unterminated string: it runs into line 2, which looks like code; its closing '\"' is probably missing on line 1"}},
		{"(let [a \"x\n  b 2]\n  ;; sum\n  (+ a b))", []string{"1:9: unterminated string: it runs into line 3, which looks like code; its closing '\"' is probably missing on line 1"}},
		{"(def a \"x)\n(def b \"y\")\n(println b)", []string{"1:8: unterminated string: the string opened here runs into line 2, which looks like code, so its closing '\"' is probably missing on line 1 (the program ends inside the string opened at 2:10)"}},
		{"(def t \"a\n(b) c\")\n[(str \"x)]", []string{"1:8: unterminated string: the string opened here runs into line 2, which looks like code, so its closing '\"' is probably missing on line 1 (the program ends inside the string opened at 3:7)"}},
		{"(def csv \"a,b\n1,2\n( 3)\n[x]", []string{"1:10: unterminated string: " + noQuote}},
		{"\"a\r\nb", []string{"1:1: unterminated string: " + noQuote}},
		{"\"λ\\\n\"", []string{`1:3: unsupported escape '\' before a line break in string: a string may span lines, so drop the '\'`}},
		{"\"a\nb\\q\" \"\n\n\\u12\"", []string{`2:2: unsupported escape '\q' in string`, `4:1: invalid escape '\u12' in string: \u needs exactly 4 hex digits`}},
		{"\"a\xffb\" \"\xc3\"", []string{"1:3: invalid UTF-8 byte 0xff", "1:8: invalid UTF-8 byte 0xc3"}},
		{`"a\`, []string{"1:1: unterminated string: " + noQuote}},

		// Regexes.
		{`#"abc`, []string{"1:1: unterminated regex: " + noQuote}},
		{`#"a\"`, []string{"1:1: unterminated regex: " + noQuote}},
		{"#\"a\n", []string{"1:1: unterminated regex: " + noQuote}},
		{"(re-find #\"a\n(+ 1 2)", []string{"1:10: unterminated regex: it runs into line 2, which looks like code; its closing '\"' is probably missing on line 1"}},
		{"#\"\xff\"", []string{"1:3: invalid UTF-8 byte 0xff"}},

		// Characters.
		{`\`, []string{`1:1: character literal '\' is missing its character: write \a, \space or \newline`}},
		{"(\\ )", []string{`1:2: character literal cannot be white space: write \space, \tab or \newline`}},
		{"\\\n", []string{`1:1: character literal cannot be white space: write \space, \tab or \newline`}},
		{`\abc \newlinex \u00 \u00E9x \Space`, []string{
			`1:1: unsupported character literal '\abc'`, `1:6: unsupported character literal '\newlinex'`,
			`1:16: unsupported character literal '\u00'`, `1:21: unsupported character literal '\u00E9x'`,
			`1:29: unsupported character literal '\Space'`,
		}},
		{`\o400 \o1234 \o8`, []string{`1:1: unsupported character literal '\o400': an octal character is at most \o377`, `1:7: unsupported character literal '\o1234'`, `1:14: unsupported character literal '\o8'`}},
		{`\uzzzz`, []string{`1:1: unsupported character literal '\uzzzz'`}},
		{`\uD800`, []string{`1:1: unsupported character literal '\uD800': surrogate code points are not characters`}},
		{`\(abc`, []string{`1:1: unsupported character literal '\(abc'`}},
		{`[\a\b]`, []string{`1:2: unsupported character literal '\a\b'`}},
		{"\\\xff", []string{"1:2: invalid UTF-8 byte 0xff"}},
		{"\\\x01", []string{"1:2: unexpected control character U+0001"}},
		{"\\ab\u0301", []string{"1:1: unsupported character literal '\\ab\u0301'"}},

		// Control characters and invalid UTF-8.
		{"\x00", []string{"1:1: unexpected control character U+0000"}},
		{"(a\x01b)", []string{"1:3: unexpected control character U+0001"}},
		{"1 \x7f \u0080 \f", []string{
			"1:3: unexpected control character U+007F", "1:5: unexpected control character U+0080",
			"1:7: unexpected control character U+000C",
		}},
		{"\xff", []string{"1:1: invalid UTF-8 byte 0xff"}},
		{"(a \xfe)", []string{"1:4: invalid UTF-8 byte 0xfe"}},
		{"ab\xc3", []string{"1:3: invalid UTF-8 byte 0xc3"}},

		// Positions across lines, CRLF and non-ASCII columns.
		{"(+ 1\n   \x01x)", []string{"2:4: " + ctrl}},
		{"(a\r\n  \x01b)", []string{"2:3: " + ctrl}},
		{"λλλ \x01x", []string{"1:5: " + ctrl}},
		{"\"日本語\" 😀 \t\x01x", []string{"1:10: " + ctrl}},
		{"(+ 1\n   @)", []string{"2:4: " + deref}},

		// Error limit.
		{strings.Repeat("\x01", 20), func() []string {
			var w []string
			for i := 1; i <= 10; i++ {
				w = append(w, "1:"+strconv.Itoa(i)+": "+ctrl)
			}
			return w
		}()},
	}
	for _, tt := range tests {
		_, err := Read(tt.src)
		got := errStrings(err)
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Read(%q) errors\n got %q\nwant %q", tt.src, got, tt.want)
		}
	}
}

func TestErrorFields(t *testing.T) {
	_, err := Read("(a\n [b )")
	var el ErrorList
	if !errors.As(err, &el) || len(el) != 2 {
		t.Fatalf("got %v", err)
	}
	want := []Error{
		{Pos: Pos{7, 2, 5}, Msg: "mismatched ')': expected ']' to close '[' opened at 2:2", Opened: Pos{4, 2, 2}},
		{Pos: Pos{8, 2, 6}, Msg: "unclosed '(' opened at 1:1", Opened: Pos{0, 1, 1}},
	}
	for i, e := range el {
		if *e != want[i] {
			t.Errorf("error %d: got %+v, want %+v", i, *e, want[i])
		}
	}
	if got, want := err.Error(), "2:5: mismatched ')': expected ']' to close '[' opened at 2:2 (and 1 more error)"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	var e *Error
	if !errors.As(err, &e) || e != el[0] {
		t.Errorf("errors.As(*Error) = %v", e)
	}

	_, err = Read("\x01 \x01 \x01")
	if got, want := err.Error(), "1:1: "+strings.SplitN(errStrings(err)[0], ": ", 2)[1]+" (and 2 more errors)"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	_, err = Read("(")
	if got, want := err.Error(), "1:2: unclosed '(' opened at 1:1"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if got := (ErrorList{}).Error(); got != "no errors" {
		t.Errorf("empty ErrorList: %q", got)
	}
	if got := (&Error{Msg: "m"}).Error(); got != "m" {
		t.Errorf("Error without position: %q", got)
	}

	// Read returns a nil error, not a typed nil ErrorList.
	if _, err := Read("(ok)"); err != nil {
		t.Errorf("got %#v", err)
	}
}

func TestPartialResults(t *testing.T) {
	tests := []struct{ src, forms string }{
		{"(+ 1 2) (foo", "(sym:+ int:1 int:2) (sym:foo)"},
		{"(let [x 1) x)", "(sym:let [sym:x int:1] sym:x)"},
		{"[1 .5 2]", "[int:1 int:2]"},
		{"(println \"hello)\n(+ 1 2)", "(sym:println)"},
		{"{:a 1 :b}", "{kw:a int:1 kw:b}"},
		{"\x01x y", "sym:x sym:y"},
		{"#foo \"2020\"", `str:"2020"`},
	}
	for _, tt := range tests {
		forms, err := Read(tt.src)
		if err == nil {
			t.Errorf("Read(%q): no error", tt.src)
		}
		if got := dumpAll(forms); got != tt.forms {
			t.Errorf("Read(%q) forms\n got %s\nwant %s", tt.src, got, tt.forms)
		}
	}
}

func TestDepth(t *testing.T) {
	ok := func(src string, c Config) {
		t.Helper()
		if _, err := c.Read(src); err != nil {
			t.Errorf("%.20q...: %v", src, err)
		}
	}
	tooDeep := func(src string, c Config, want string) {
		t.Helper()
		_, err := c.Read(src)
		if got := errStrings(err); len(got) != 1 || got[0] != want {
			t.Errorf("%.20q...: got %q, want [%q]", src, got, want)
		}
	}
	nest := func(open, close string, n int) string {
		return strings.Repeat(open, n) + strings.Repeat(close, n)
	}
	ok(nest("(", ")", 512), Config{})
	ok(nest("[", "]", 512), Config{})
	ok(strings.Repeat("'", 512)+"x", Config{})
	ok(strings.Repeat("#_", 256)+strings.Repeat("x ", 257), Config{})
	tooDeep(nest("(", ")", 513), Config{}, "1:513: nesting too deep (more than 512 levels)")
	tooDeep(strings.Repeat("'", 513)+"x", Config{}, "1:513: nesting too deep (more than 512 levels)")
	tooDeep(strings.Repeat("'(", 257), Config{}, "1:513: nesting too deep (more than 512 levels)")
	tooDeep(strings.Repeat("#_", 513)+"x", Config{}, "1:1025: nesting too deep (more than 512 levels)")
	tooDeep(strings.Repeat("#'", 513)+"x", Config{}, "1:1025: nesting too deep (more than 512 levels)")
	tooDeep(strings.Repeat("#{", 1000), Config{}, "1:1025: nesting too deep (more than 512 levels)")

	ok("[[1]]", Config{MaxDepth: 2})
	tooDeep("[[[1]]]", Config{MaxDepth: 2}, "1:3: nesting too deep (more than 2 levels)")
	ok(nest("(", ")", 2000), Config{MaxDepth: 5000})

	// Partial result on hitting the limit.
	forms, _ := Config{MaxDepth: 2}.Read("(a (b (c)))")
	if got := dumpAll(forms); got != "(sym:a (sym:b))" {
		t.Errorf("partial result %s", got)
	}
}

func TestMaxErrors(t *testing.T) {
	_, err := Config{MaxErrors: 3}.Read("\x01 \x01 \x01 \x01 \x01")
	if n := len(errStrings(err)); n != 3 {
		t.Errorf("got %d errors, want 3", n)
	}
	_, err = Config{MaxErrors: 100}.Read(strings.Repeat("\x01", 50))
	if n := len(errStrings(err)); n != 50 {
		t.Errorf("got %d errors, want 50", n)
	}
}

func TestPositions(t *testing.T) {
	src := "(defn f [x]\n" +
		"  {:a \"λ\" :b \\c}\n" +
		"  #{1 2.5} 'q #'v #\"re\" #(+ % 1))"
	want := []string{
		"(sym:defn 1:1-3:34",
		"sym:defn 1:2-1:6",
		"sym:f 1:7-1:8",
		"[sym:x] 1:9-1:12",
		"sym:x 1:10-1:11",
		`{kw:a 2:3-2:17`,
		"kw:a 2:4-2:6",
		`str:"λ" 2:7-2:10`,
		"kw:b 2:11-2:13",
		`char:"c" 2:14-2:16`,
		"#{int:1 3:3-3:11",
		"int:1 3:5-3:6",
		"float:2.5 3:7-3:10",
		"'sym:q 3:12-3:14",
		"sym:q 3:13-3:14",
		"#'sym:v 3:15-3:18",
		"sym:v 3:17-3:18",
		`re:"re" 3:19-3:24`,
		"#(sym:+ 3:25-3:33",
		"sym:+ 3:27-3:28",
		"sym:% 3:29-3:30",
		"int:1 3:31-3:32",
	}
	checkPositions(t, src, want)

	// CRLF line endings: the CR is an ordinary column, the LF ends the line.
	checkPositions(t, "(a\r\n b)\r\n:c\r\n", []string{
		"(sym:a 1:1-2:4",
		"sym:a 1:2-1:3",
		"sym:b 2:2-2:3",
		"kw:c 3:1-3:3",
	})

	// Strings and regexes spanning lines: what follows keeps its line and
	// column, also after non-ASCII text on either line.
	checkPositions(t, "(str \"a\nλb\" x\n  #\"é\n\" \"\n\n\" y)", []string{
		"(sym:str 1:1-6:5",
		"sym:str 1:2-1:5",
		`str:"a\nλb" 1:6-2:4`,
		"sym:x 2:5-2:6",
		`re:"é\n" 3:3-4:2`,
		`str:"\n\n" 4:3-6:2`,
		"sym:y 6:3-6:4",
	})

	// Columns count code points.
	checkPositions(t, "[\"日本\" é 😀 \\🏳️‍🌈 x]", []string{
		`[str:"日本" 1:1-1:19`,
		`str:"日本" 1:2-1:6`,
		"sym:é 1:7-1:8",
		"sym:😀 1:9-1:10",
		`char:"🏳️\u200d🌈" 1:11-1:16`,
		"sym:x 1:17-1:18",
	})
}

func checkPositions(t *testing.T, src string, want []string) {
	t.Helper()
	forms, err := Read(src)
	if err != nil {
		t.Fatalf("Read(%q): %v", src, err)
	}
	var got []string
	lines := LinesOf(src)
	for _, f := range forms {
		walk(f, func(n Node) {
			d := dump(n)
			if i := strings.IndexByte(d[1:], ' '); i >= 0 && strings.ContainsAny(d[:1], "([{#") {
				d = d[:i+1]
			}
			got = append(got, d+" "+lines.Pos(n.Bounds().Start).String()+"-"+lines.Pos(n.Bounds().Stop).String())
		})
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("positions of %q:\n got %q\nwant %q", src, got, want)
	}
	checkSpans(t, src, forms)
}

func TestHostileInputs(t *testing.T) {
	const n = 1_000_000
	cases := map[string]string{
		"parens":    strings.Repeat("(", n),
		"mixed":     strings.Repeat("([{#{#(", n/7),
		"quotes":    strings.Repeat("'", n),
		"discards":  strings.Repeat("#_", n),
		"varquotes": strings.Repeat("#'", n),
	}
	for name, src := range cases {
		forms, err := Read(src)
		got := errStrings(err)
		if len(got) != 1 || !strings.Contains(got[0], "nesting too deep (more than 512 levels)") {
			t.Errorf("%s: got %q", name, got)
		}
		_ = forms
	}

	// Closers only: all skipped.
	if forms, err := Read(strings.Repeat(")]}", n)); err != nil || len(forms) != 0 {
		t.Errorf("closers: %v %v", forms, err)
	}

	// A 10 MB string literal, terminated and not.
	big := strings.Repeat("abcdefghi\\n", 1<<20)
	forms, err := Read(`"` + big + `"`)
	if err != nil || len(forms) != 1 || len(forms[0].(*String).Value) != 10<<20 {
		t.Errorf("big string: %d forms, %v", len(forms), err)
	}
	_, err = Read(`"` + big)
	if got := errStrings(err); len(got) != 1 || got[0] != "1:1: unterminated string: no closing '\"' before the end of the program" {
		t.Errorf("big unterminated string: %q", got)
	}

	// Long runs of tokens, errors and comments.
	for _, src := range []string{
		strings.Repeat("a", 10<<20),
		strings.Repeat("1a ", 1<<20),
		strings.Repeat("\\", 1<<20),
		strings.Repeat("#", 1<<20),
		strings.Repeat(";\n", 1<<20),
		strings.Repeat("\xff", 1<<20),
		strings.Repeat("x ", 1<<20),
		"[" + strings.Repeat("#_", 1<<20),
	} {
		Read(src)
	}

	// Random bytes, and random mixes of syntax characters.
	rng := uint64(1)
	next := func() uint64 { rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17; return rng }
	alphabet := []string{"(", ")", "[", "]", "{", "}", "#", "#{", "#(", "#_", "'", "\"", "\\", ";", "\n", " ", "a", "1", ":", "/", "@", "^", "é", "\xff", "\x00", ".", "-", "e", "u", "\u0301"}
	for i := 0; i < 2000; i++ {
		var b strings.Builder
		size := int(next() % 200)
		for j := 0; j < size; j++ {
			if i%2 == 0 {
				b.WriteByte(byte(next()))
			} else {
				b.WriteString(alphabet[next()%uint64(len(alphabet))])
			}
		}
		src := b.String()
		forms, err := Read(src)
		if err == nil {
			checkRoundTrip(t, src, forms)
		}
	}
	var b strings.Builder
	for b.Len() < 1<<20 {
		b.WriteByte(byte(next()))
	}
	Read(b.String())
}

// The positions of errors, and of the collections they name, are right
// after non-ASCII text read in any way (in tokens, strings, comments,
// characters) on the same line or before it, and cost linear time even
// when every one of many collections on one long line is in error.
func TestOpenedPositions(t *testing.T) {
	srcs := []string{
		"é (a [b", "(é [x} {:a}", "\\é (\"λ\" [1)", "; é\n  (a [b)", "(x ;é\n {1})", "\"é\n\" (a [b",
		"[\"a\nλ\" {:k] é)", "(λ (µ (ν [ξ))", "#{é [1)", "'é (a]", "(a \"\\u00e9\" [b)", "\u00a0(a [b)",
		"(a #_é [b)", "(é\n(b\n[c}", "{:a 1 :b} é {:c}",
	}
	for _, src := range srcs {
		_, err := Read(src)
		el, ok := err.(ErrorList)
		if !ok || len(el) == 0 {
			t.Errorf("Read(%q): %v, want errors", src, err)
			continue
		}
		for _, e := range el {
			if got := posAt(src, int(e.Pos.Offset)); got != e.Pos {
				t.Errorf("Read(%q): error %q at %+v, but that offset is %+v", src, e.Msg, e.Pos, got)
			}
			if e.Opened.IsValid() {
				if got := posAt(src, int(e.Opened.Offset)); got != e.Opened {
					t.Errorf("Read(%q): error %q names %+v, but that offset is %+v", src, e.Msg, e.Opened, got)
				}
			}
		}
	}
	// Errors that name collections opened long before, between errors
	// naming ones opened just before, over lines with non-ASCII text, at
	// depths past the first frames.
	for _, src := range []string{
		strings.Repeat("(é\n", 40) + strings.Repeat("[λ]\n(] ]", 30),
		strings.Repeat("( é ", 1000) + strings.Repeat("(] ] {\n:a} ", 500),
		"(a\n" + strings.Repeat("[", 20) + "é\n" + strings.Repeat("]", 10) + "}" + strings.Repeat("{(", 10),
	} {
		_, err := Config{MaxErrors: 1 << 30, MaxDepth: 1 << 20}.Read(src)
		el, _ := err.(ErrorList)
		lines := LinesOf(src)
		named := 0
		for _, e := range el {
			if e.Opened.IsValid() {
				named++
				if got := lines.Pos(e.Opened.Offset); got != e.Opened {
					t.Fatalf("error %q names %+v, but that offset is %+v", e.Msg, e.Opened, got)
				}
			}
		}
		if named < 20 {
			t.Errorf("%d errors naming where a collection opened, want at least 20: %v", named, err)
		}
	}
	long := "é" + strings.Repeat("[1)", 1<<16) + strings.Repeat("{1}", 1<<16)
	_, err := Config{MaxErrors: 1 << 30}.Read(long)
	if el, ok := err.(ErrorList); !ok || len(el) != 1<<17 || el[1<<16-1].Opened.Col != 3<<16-1 || el[len(el)-1].Pos.Col != 3<<17-1 {
		t.Errorf("a long line of errors: %d errors", len(el))
	}
}

// TestLines checks Lines.Pos against positions counted from scratch, for
// every offset in and out of order, with few lines (kept inline) and many.
func TestLines(t *testing.T) {
	for _, src := range []string{"", "(+ 1 2)", "(a\nb)\n", "a\nλé\n\nx😀y\n", strings.Repeat("(f \"é\")\n", 9) + "z"} {
		lines := LinesOf(src)
		check := func(off int) {
			if got, want := lines.Pos(int32(off)), posAt(src, off); got != want {
				t.Fatalf("%q: Pos(%d) = %+v, want %+v", src, off, got, want)
			}
		}
		for off := 0; off <= len(src); off++ {
			check(off)
		}
		for off := len(src); off >= 0; off -= 3 {
			check(off)
		}
	}
}

// TestAutoResolvedKeyword: ::name is the keyword :user/name, as Clojure
// reads it in the user namespace, where a program runs.
func TestAutoResolvedKeyword(t *testing.T) {
	forms, err := Read("[::none ::a-b?]")
	if err != nil {
		t.Fatal(err)
	}
	items := forms[0].(*Vector).Items
	for i, want := range []string{"user/none", "user/a-b?"} {
		if k, ok := items[i].(*Keyword); !ok || k.Name != want {
			t.Errorf("item %d = %#v, want the keyword %s", i, items[i], want)
		}
	}
}
