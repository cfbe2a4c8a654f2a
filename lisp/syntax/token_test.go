package syntax

import "testing"

// The fast path must read every token exactly as the slow path does: the
// same nodes, spans and errors. The fast path reads inside collections
// only, so each token is read as an item of each kind of collection, in
// the middle and at the end of one, and at the end of the input.
func TestReadTokenFastPath(t *testing.T) {
	tokens := []string{
		"a", "ab", "a-b?", "*x*", "->", "+", "-", "+a", "-a", "+1", "-1", "+.5", "-.5", ".5", ".a", "+-",
		":", "::", "::a", ":a", ":a/b", ":1", "a/b", "/", "a/", "/a", "/a/b", "//", "a//", "clojure.core//", "a/b/c",
		"nil", "nilly", "true", "false", "truex", "nil?", "0", "007", "42", "42N", "1a", "1.5", "1e3", "0x1F",
		"123456789012345678", "1234567890123456789", "9223372036854775807", "9999999999999999999", "99999999999999999999",
		"a'b", "x#", "a\\b", "λ", "aλ", "café", "a\u00a0b", "%", "%1", "&", "a.b",
	}
	checked := 0
	for _, tok := range tokens {
		for _, src := range []string{
			"(" + tok + ")", "[" + tok + " x]", "{:k " + tok + "}", "#{" + tok + "}", "(f\n " + tok + " y)",
			"(é " + tok + ")", "(" + tok + "é)", "[" + tok, "(x " + tok + "\n",
		} {
			checkFastSlow(t, src, Config{})
			checked++
		}
	}
	if checked < 500 {
		t.Fatalf("only %d sources checked", checked)
	}
}

// TestOpenBits: fast derives the kind of ( [ { from their bits.
func TestOpenBits(t *testing.T) {
	for _, c := range []byte("([{") {
		if kind := c>>5 - 1; kind != openKind[c] {
			t.Errorf("%q: kind %d, want %d", c, kind, openKind[c])
		}
	}
}
