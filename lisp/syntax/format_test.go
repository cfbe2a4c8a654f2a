package syntax

import (
	"strings"
	"testing"
)

func TestFormat(t *testing.T) {
	tests := []struct{ src, want string }{
		{"(+ 1 2)", "(+ 1 2)"},
		{"[1,2,,3]  {:a 1,\n :b 2}", "[1 2 3] {:a 1 :b 2}"},
		{"(  f\n\t x )", "(f x)"},
		{"007 0x1F 42N +5 -9223372036854775808", "7 31 42N 5 -9223372036854775808"},
		{"1e3 5. 1.5e-3 0.001 0.0001 1234567.0 1e7 12345678.9", "1000.0 5.0 0.0015 0.001 1.0e-4 1234567.0 1.0e7 1.23456789e7"},
		{"1.5e-7 1e21 -1e-10 -0.0 0.0 1.0M 4.9e-324 1.7976931348623157e308", "1.5e-7 1.0e21 -1.0e-10 -0.0 0.0 1.0M 5.0e-324 1.7976931348623157e308"},
		{"##Inf ##-Inf ##NaN", "##Inf ##-Inf ##NaN"},
		{`"a\"b\\c\n\t\r\b\f"`, `"a\"b\\c\n\t\r\b\f"`},
		{`"\u0000\u001f\u007f\u0085" "\u03bb" "\uD83D\uDE00" "λ"`, `"\u0000\u001F\u007F\u0085" "λ" "😀" "λ"`},
		{`\a \newline \space \tab \return \backspace \formfeed`, `\a \newline \space \tab \return \backspace \formfeed`},
		{`\u0000 \u001f \u007F \u00A0 \u2028 \u0041 \u0301 \, \( \" \\ \; \u`, "\\u0000 \\u001F \\u007F \\u00A0 \\u2028 \\A \\\u0301 \\, \\( \\\" \\\\ \\; \\u"},
		{"\\e\u0301 \\🏳️‍🌈", "\\e\u0301 \\🏳️‍🌈"},
		{":foo/bar str/join clojure.core// / :a.b", ":foo/bar str/join clojure.core// / :a.b"},
		{`'x #'str/join #"\d+" #"a\"b" ' y`, `'x #'str/join #"\d+" #"a\"b" 'y`},
		{"#{1 2} #(+ % 1) () [] {}", "#{1 2} #(+ % 1) () [] {}"},
		{"#_ 1 2 [#_ x]", "2 []"},
	}
	for _, tt := range tests {
		forms, err := Read(tt.src)
		if err != nil {
			t.Errorf("Read(%q): %v", tt.src, err)
			continue
		}
		if got := formatAll(forms); got != tt.want {
			t.Errorf("Format(Read(%q))\n got %s\nwant %s", tt.src, got, tt.want)
		}
		checkRoundTrip(t, tt.src, forms)
	}
}

func TestFormatHandMade(t *testing.T) {
	tests := []struct {
		n    Node
		want string
	}{
		{nil, "<nil>"},
		{(*List)(nil), "<nil>"},
		{(*Symbol)(nil), "<nil>"},
		{&Quote{}, "'<nil>"},
		{&VarQuote{}, "#'<nil>"},
		{&List{Items: []Node{nil, &Nil{}}}, "(<nil> nil)"},
		{&String{Value: "ab", Char: true}, `"ab"`},
		{&String{Value: "", Char: true}, `""`},
		{&String{Value: "a\xffb"}, `"a\uFFFDb"`},
		{&Regex{Pattern: "a\"b\nc\\"}, "#\"a\\\"b\nc\\\\\""}, // line breaks kept: a regex may span lines
		{&Regex{Pattern: "a\r\\\nb"}, "#\"a\r\\\nb\""},
		{&Symbol{Ns: "a", Name: "b"}, "a/b"},
		{&Map{Items: []Node{&Keyword{Name: "k"}}}, "{:k}"},
	}
	for _, tt := range tests {
		if got := Format(tt.n); got != tt.want {
			t.Errorf("Format(%#v) = %s, want %s", tt.n, got, tt.want)
		}
	}
}

// checkRoundTrip checks that forms, read without error from src, format to
// text that reads back to the same structure and formats the same again.
func checkRoundTrip(t testing.TB, src string, forms []Node) {
	t.Helper()
	text := formatAll(forms)
	again, err := Read(text)
	if err != nil {
		t.Fatalf("Read(%q) ok, but Read(Format) = %v\nformatted: %q", src, err, text)
	}
	if dumpAll(again) != dumpAll(forms) {
		t.Fatalf("round trip of %q changed structure:\n got %s\nwant %s", src, dumpAll(again), dumpAll(forms))
	}
	if text2 := formatAll(again); text2 != text {
		t.Fatalf("round trip of %q changed Format: %q then %q", src, text, text2)
	}
}

func TestRoundTripCorpus(t *testing.T) {
	progs := corpus(t)
	read := 0
	for _, p := range progs {
		forms, err := Read(p)
		if err != nil {
			continue // error vectors: fine, they need not read
		}
		read++
		checkRoundTrip(t, p, forms)
		checkSpans(t, p, forms)
	}
	t.Logf("%d of %d programs read and round-tripped", read, len(progs))
	if read < len(progs)/2 {
		t.Errorf("only %d of %d programs read", read, len(progs))
	}
}

func TestSnippet(t *testing.T) {
	long := strings.Repeat("a", 50) + "@" + strings.Repeat("b", 50)
	tests := []struct {
		src   string
		off   int
		width int
		want  string
	}{
		{"(let [x 1) x)", 9, 80, "(let [x 1) x)\n         ^"},
		{"(let [x 1) x)", 0, 80, "(let [x 1) x)\n^"},
		{"(let [x 1) x)", 13, 80, "(let [x 1) x)\n             ^"},
		{"\t(foo\t@x)", 6, 80, "\t(foo\t@x)\n\t    \t^"},
		{"(a\n  (b @c))\n", 8, 80, "  (b @c))\n     ^"},
		{"(a\r\n @b)\r\n", 5, 80, " @b)\n ^"},
		{"\"abc\r\n", 4, 80, "\"abc\n    ^"},
		{"\"abc\r\n", 5, 80, "\"abc\n    ^"},
		{"(a\n (b\n", 7, 80, " (b\n   ^"},
		{"(a", 2, 80, "(a\n  ^"},
		{"", 0, 80, "\n^"},
		{"λλ @x", 5, 80, "λλ @x\n   ^"},
		{"e\u0301 @x", 4, 80, "e\u0301 @x\n  ^"},
		{"a\x00\xff @", 4, 80, "a\uFFFD\uFFFD @\n    ^"},
		{long, 50, 20, "..." + strings.Repeat("a", 10) + "@" + strings.Repeat("b", 9) + "...\n" + strings.Repeat(" ", 13) + "^"},
		{long, 2, 20, strings.Repeat("a", 20) + "...\n  ^"},
		{long, 100, 20, "..." + strings.Repeat("b", 20) + "\n" + strings.Repeat(" ", 22) + "^"},
		{long, 101, 20, "..." + strings.Repeat("b", 20) + "\n" + strings.Repeat(" ", 23) + "^"},
		{long, 50, 0, long + "\n" + strings.Repeat(" ", 50) + "^"},
		{"abc", -1, 80, ""},
		{"abc", 4, 80, ""},
	}
	for _, tt := range tests {
		if got := Snippet(tt.src, Pos{Offset: int32(tt.off)}, tt.width); got != tt.want {
			t.Errorf("Snippet(%q, %d, %d)\n got %q\nwant %q", tt.src, tt.off, tt.width, got, tt.want)
		}
	}

	// With an error from Read.
	src := "(defn f [x]\n  (let [y (inc x)\n    y))"
	_, err := Read(src)
	e := err.(ErrorList)[0]
	want := "    y))\n     ^"
	if got := Snippet(src, e.Pos, 80); got != want {
		t.Errorf("Snippet at %v: got %q, want %q (error %v)", e.Pos, got, want, e)
	}
}

func TestRoundTripTricky(t *testing.T) {
	for _, src := range []string{
		"\\,\u0301", "\\(\u0301", "\\\u0301\u0301", "\\\u200d", "\\u0085", "\\u2028", "\\u007f", "\\#", "\\'",
		"a/:b", "-/x", "'\\a", "#'a/b", "''x", "' #_ x y", "#'\t#_ a b",
		"1.0e-4 9999999.999999998 1.0e7 -0.0 4.9e-324 1.7976931348623157e308 0.1 1e22 123456789012345678",
		`"\u0000\u0085\u2028\u00a0\t" "\uD83D\uDE00\\\""`, `#"\\" #"\"" #"é\é\u0301" #"a\tb"`,
		":a:b :/ :a/ :1.5 :#x :'x", "a#b a'b a\\b a:b +a -a +. -. ..5 %1 &",
	} {
		forms, err := Read(src)
		if err != nil {
			t.Errorf("Read(%q): %v", src, err)
			continue
		}
		checkRoundTrip(t, src, forms)
		checkSpans(t, src, forms)
	}
}
