package syntax

import (
	"strings"
	"testing"
)

var fuzzSeeds = []string{
	"", "(+ 1 2)", "(+ 1 2))", "(let [x 1) x)", "{:a 1 :b}", "#{1 #(2", "[1 (2 {3",
	"#_", "#_ #_ 1 2 3", "'#_ x y", "#'str/join", "#' x", `#"\d+\"x"`, `#"a\`,
	`"a\"b\\c\n\t\u03bb\uD83D\uDE00"`, "\"unterminated\n(+ 1 2)", `"\q\u12"`,
	`\a \newline \u03BB \( \) \, \; \" \\ \abc \`, "\\e\u0301 \\🏳️‍🌈 \\👍🏽 \\🇫🇷",
	"nil true false nilly", "0 007 -5 +5 0x1F -0x8000000000000000 42N 9223372036854775807 99999999999999999999",
	"1e3 5. 1.5e-3 5M 1.0M ##Inf ##-Inf ##NaN -0.0 1e999 1e-400", "1/2 .5 -.5 1abc 0x 1e+",
	":a :foo/bar ::foo : :/", "str/join / clojure.core// x/ /x a/b/c",
	"@x `a ~b ~@c ^:m x #inst \"2020\" #:a{:b 1} #?(:clj 1) #[ # ##x",
	"#!/usr/bin/env ptc\n(+ 1 2)", "; comment\n1 ; c\n", "(a\r\n b)\r\n", "λ café 日本 😀",
	"\x00 \x7f \u0080 \xff \xc3 \f", "1\u00a02\u2028" + "3", strings.Repeat("(", 600), strings.Repeat("'", 600) + "x",
}

func FuzzRead(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	for _, p := range corpus(f) {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, src string) {
		checkFastSlow(t, src, Config{})
		forms, err := Read(src)
		if err != nil {
			el, ok := err.(ErrorList)
			if !ok || len(el) == 0 || len(el) > 10 {
				t.Fatalf("bad error %#v", err)
			}
			for _, e := range el {
				if !e.Pos.IsValid() || e.Pos.Offset < 0 || int(e.Pos.Offset) > len(src) || e.Msg == "" {
					t.Fatalf("bad error %+v", e)
				}
				if got := posAt(src, int(e.Pos.Offset)); got != e.Pos {
					t.Fatalf("error %q at %+v, but that offset is %+v", e.Msg, e.Pos, got)
				}
				if e.Opened.IsValid() {
					if got := posAt(src, int(e.Opened.Offset)); got != e.Opened {
						t.Fatalf("error %q names %+v, but that offset is %+v", e.Msg, e.Opened, got)
					}
				}
				Snippet(src, e.Pos, 40)
			}
			for _, n := range forms {
				Format(n) // partial results must be printable too
			}
			return
		}
		checkRoundTrip(t, src, forms)
		checkSpans(t, src, forms)
	})
}
