package syntax

import (
	"reflect"
	"testing"
	"unicode/utf8"
)

// readToken's fast path must read every token exactly as readTokenSlow
// does: the same node, span, errors and end offset.
func TestReadTokenFastPath(t *testing.T) {
	tokens := []string{
		"a", "ab", "a-b?", "*x*", "->", "+", "-", "+a", "-a", "+1", "-1", "+.5", "-.5", ".5", ".a", "+-",
		":", "::", "::a", ":a", ":a/b", ":1", "a/b", "/", "a/", "/a", "/a/b", "//", "a//", "clojure.core//", "a/b/c",
		"nil", "nilly", "true", "false", "truex", "nil?", "0", "007", "42", "42N", "1a", "1.5", "1e3", "0x1F",
		"123456789012345678", "1234567890123456789", "9223372036854775807", "9999999999999999999", "99999999999999999999",
		"a'b", "x#", "a\\b", "λ", "aλ", "café", "a\u00a0b", "%", "%1", "&", "a.b",
	}
	var srcs []string
	for _, tok := range tokens {
		srcs = append(srcs, tok, "("+tok+")", "x\n "+tok+" y", "é "+tok, tok+"é")
	}
	srcs = append(srcs, corpus(t)...)
	srcs = append(srcs, fuzzSeeds...)
	checked := 0
	for _, src := range srcs {
		checked += checkTokenPaths(t, src)
	}
	if checked < 300 {
		t.Fatalf("only %d tokens checked", checked)
	}
}

// checkTokenPaths reads every token of src that starts at a token boundary
// with the fast and the slow path, each from the state Read would be in
// there, and fails if they differ. It returns the number of tokens checked.
func checkTokenPaths(t *testing.T, src string) int {
	t.Helper()
	// nextHigh[p] is the offset of the first non-ASCII byte at or after p.
	nextHigh := make([]int, len(src)+1)
	nextHigh[len(src)] = len(src)
	for p := len(src) - 1; p >= 0; p-- {
		nextHigh[p] = nextHigh[p+1]
		if src[p] >= utf8.RuneSelf {
			nextHigh[p] = p
		}
	}
	at := func(off, line, ls int) *reader {
		return &reader{src: src, off: off, line: line, colFrom: ls, colBase: ls - 1, nextHigh: nextHigh[ls], maxDepth: 512, maxErrors: 10}
	}
	checked := 0
	line, ls := 1, 0
	for i := 0; i < len(src); i++ {
		if src[i] == '\n' {
			line, ls = line+1, i+1
		}
		if byteClass[src[i]] != clTok || i > 0 && byteClass[src[i-1]] <= clSpecial {
			continue
		}
		fast, slow := at(i, line, ls), at(i, line, ls)
		nf, ns := fast.readToken(), slow.readTokenSlow()
		if !reflect.DeepEqual(nf, ns) || !reflect.DeepEqual(fast.errs, slow.errs) || fast.off != slow.off {
			t.Fatalf("token at %d of %q: fast path read %#v (errors %v, end %d), slow path %#v (errors %v, end %d)",
				i, src, nf, fast.errs, fast.off, ns, slow.errs, slow.off)
		}
		checked++
	}
	return checked
}

// readToken reads the token at r.off as Read does: with run, whose fast
// path reads the common tokens.
func (r *reader) readToken() Node {
	n, _ := r.run(0)
	return n
}

// TestOpenBits: fast derives the kind of ( [ { from their bits.
func TestOpenBits(t *testing.T) {
	for _, c := range []byte("([{") {
		if kind := c>>5 - 1; kind != openKind[c] {
			t.Errorf("%q: kind %d, want %d", c, kind, openKind[c])
		}
	}
}
