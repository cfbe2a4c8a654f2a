package analyze

import "testing"

// TestFingerprintShortNames checks what lookup and the builtin cache rely
// on: two names of up to 3 bytes with the same length and fingerprint are
// the same name (every byte of them is in the fingerprint).
func TestFingerprintShortNames(t *testing.T) {
	alphabet := "ab-*?%1\x00\xff"
	var names []string
	for _, x := range alphabet {
		names = append(names, string(rune(x)))
	}
	bytes := []byte(alphabet)
	for _, x := range bytes {
		for _, y := range bytes {
			names = append(names, string([]byte{x, y}))
			for _, z := range bytes {
				names = append(names, string([]byte{x, y, z}))
			}
		}
	}
	seen := map[uint32]string{}
	for _, n := range names {
		fp := fingerprint(n)
		if other, ok := seen[fp]; ok && other != n {
			t.Errorf("fingerprint(%q) == fingerprint(%q) == %#x", n, other, fp)
		}
		seen[fp] = n
	}
}

// TestFingerprintTellsApart checks that names of one family, which differ
// only in their last byte or their first two, get different fingerprints,
// and that the empty name is 0.
func TestFingerprintTellsApart(t *testing.T) {
	if fingerprint("") != 0 {
		t.Errorf("fingerprint(\"\") = %#x, want 0", fingerprint(""))
	}
	pairs := [][2]string{
		{"item-0", "item-1"}, {"total", "totes"}, {"ab-cd", "ax-cd"}, {"a", "b"}, {"xs", "x"}, {"map", "mapv"},
	}
	for _, p := range pairs {
		if fingerprint(p[0]) == fingerprint(p[1]) {
			t.Errorf("fingerprint(%q) == fingerprint(%q)", p[0], p[1])
		}
	}
}
