package syntax

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// checkFastSlow reads src with fast and without it (step and the recursive
// functions reading everything), and fails unless both give the same
// forms, spans and errors.
func checkFastSlow(t testing.TB, src string, c Config) {
	t.Helper()
	fastForms, fastErr := c.read(src, false)
	c.Buffers = nil // the slow read's nodes must not share chunks with the fast one's
	slowForms, slowErr := c.read(src, true)
	if dumpSpans(fastForms) != dumpSpans(slowForms) || !reflect.DeepEqual(fastErr, slowErr) {
		t.Fatalf("%.60q (%+v): fast read\n%s\n%v\nslow read\n%s\n%v", src, c,
			dumpSpans(fastForms), errStrings(fastErr), dumpSpans(slowForms), errStrings(slowErr))
	}
}

// dumpSpans is dumpAll followed by the spans of all nodes (not
// reflect.DeepEqual of the nodes, for which a NaN differs from itself).
func dumpSpans(forms []Node) string {
	var b strings.Builder
	b.WriteString(dumpAll(forms))
	for _, f := range forms {
		walk(f, func(n Node) { fmt.Fprintf(&b, " %v", n.Bounds()) })
	}
	return b.String()
}

// fastCases are sources for the paths of fast that can fall back to the
// slow path, or hand over to it: tokens that end the input, closers of
// each kind (matching, mismatched, of sets and short fns), odd maps, and
// the depth limit reached in fast, in step, and in both by turns.
var fastCases = []string{
	"a", "(a", "(a)", "(a) b", "[a b] :k", "{:a 1} 42", "(x) 1.5", "(x) nil", "(x) true", "(x) false",
	"(x) a/b", "(x) +", "(x) -1", "(x) :", "(x) \"s\"", "(x) \"s", "(x) é", "(x) aé",
	"(a]", "[a)", "{a)", "(a}", "#{a}", "#{a)", "#(a)", "#(a]", "((a) [b] {c d})", "{:a}", "{:a 1 :b}", "{:a (b}",
	"(a))", "(a)]", "())", "[])", "{})", "(#{(a)})", "(#(a [b]))", "(a '(b [c]) `(d) #_(e) f)",
	"(1 (2 (3 (4 (5 (6 (7 (8 (9 (10 (11 (12 (13 (14 (15 (16 (17 (18 x))))))))))))))))))",
	"((((((((((((((((((((x))))))))))))))))))) y",
	"('('('('(x)))))", "(a '(b '(c '(d))))", "(#_ (a (b)) c)", "[#{[#{[x]}]}]",
	"(a\n  (b\n    (c d)\n    e)\n  f)", "(defn f [x]\n  (let [y (* x 2)]\n    {:x x :y y}))",
	// Numbers at the limits of fast's integers and decimals.
	"(x 0 7 0.5 00.5 007 0755 1. 1.2.3 .5 1.5e3 9.x 1/2 123456789012345678 1234567890123456789)",
	"[12345678901234.5 123456789012345.6 1.234567890123456 9999999999999999 99999999999999.99 0.0]",
}

func TestFastMatchesSlow(t *testing.T) {
	srcs := append(append([]string{}, fastCases...), fuzzSeeds...)
	srcs = append(srcs, corpus(t)...)
	// Enough items to use up the first chunks of the slabs and runs:
	// fast leaves an item it has no room for to the slow path.
	var b strings.Builder
	for i := range 3000 {
		b.WriteString("(f [a :k 1 2.5 \"s\" nil true] {:x (g)} #{h})\n")
		if i%7 == 0 {
			b.WriteString(strings.Repeat("(", 20) + "x" + strings.Repeat(")", 20))
		}
	}
	srcs = append(srcs, b.String())
	for _, src := range srcs {
		checkFastSlow(t, src, Config{})
	}
	for _, src := range fastCases {
		for depth := 1; depth <= 20; depth++ {
			checkFastSlow(t, src, Config{MaxDepth: depth})
		}
		checkFastSlow(t, src, Config{MaxErrors: 1})
		checkFastSlow(t, src, Config{Buffers: new(Buffers)})
	}
}

// TestFastDepth: fast keeps no count of the depth while it reads, but
// works it out when it returns; the limit holds across its collections,
// the quotes and discards of the slow path, and the collections the slow
// path opens.
func TestFastDepth(t *testing.T) {
	for _, tc := range []struct {
		src   string
		depth int
		want  string // the error, "" for none
	}{
		{"((()))", 3, ""},
		{"(((())))", 3, "1:4: nesting too deep (more than 3 levels)"},
		{"'((()))", 3, "1:4: nesting too deep (more than 3 levels)"},
		{"('(()))", 3, "1:4: nesting too deep (more than 3 levels)"},
		{"('(x) ((y)))", 3, ""},
		{"('(x) (((y))))", 3, "1:9: nesting too deep (more than 3 levels)"},
		{"(#_(a) ((b)))", 3, ""},
		{"(#{(a)} ((b)))", 3, ""},
		{"(#{(a)} (((b))))", 3, "1:11: nesting too deep (more than 3 levels)"},
	} {
		_, err := Config{MaxDepth: tc.depth}.Read(tc.src)
		got := errStrings(err)
		if tc.want == "" && len(got) > 0 || tc.want != "" && (len(got) != 1 || got[0] != tc.want) {
			t.Errorf("%q (MaxDepth %d): got %q, want %q", tc.src, tc.depth, got, tc.want)
		}
	}
}

// TestSlabRoomTake: take hands out the elements of the chunk in turn, as
// long as room says there is one.
func TestSlabRoomTake(t *testing.T) {
	var s slab[Symbol]
	if s.room() {
		t.Fatal("room in an empty slab")
	}
	s.buf = make([]Symbol, 2)
	for i := range 2 {
		if !s.room() {
			t.Fatalf("no room for element %d of 2", i)
		}
		if p := s.take(); p != &s.buf[i] {
			t.Fatalf("take %d: got %p, want element %d (%p)", i, p, i, &s.buf[i])
		}
	}
	if s.room() {
		t.Fatal("room after the chunk is used up")
	}
}

// TestCloserBits: fast derives the kind a closer closes from its bits.
func TestCloserBits(t *testing.T) {
	for _, c := range []byte(")]}") {
		kind := c>>5 - 1
		if kind > kMap || collKinds[kind].close != c {
			t.Errorf("%q: kind %d, which %q closes", c, kind, collKinds[min(kind, kMap)].close)
		}
	}
}
