package lisp

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Case mapping as Java's String.toUpperCase and toLowerCase (which
// clojure.string/upper-case, lower-case and capitalize call) do it, in the
// root locale: Go's per-rune mapping plus the full mappings of Unicode's
// SpecialCasing.txt that Java applies unconditionally (ß → SS, the ligatures
// ﬁ → FI, ŉ, ǰ, ΐ, the Greek iota-subscript forms ...), İ → i̇, and the
// final-sigma rule of lower-casing (ΟΔΟΣ → οδος).

// javaUpper upper-cases s as Java's String.toUpperCase.
func javaUpper(s string) string {
	if out, ok := asciiCase(s, 'a', 'z'); ok {
		return out
	}
	var sb strings.Builder
	sb.Grow(len(s) + 8)
	for _, r := range s {
		if r >= 0xDF && r <= 0xFB17 {
			if full, ok := specialUpper[r]; ok {
				sb.WriteString(full)
				continue
			}
		}
		sb.WriteRune(unicode.ToUpper(r))
	}
	return sb.String()
}

// javaLower lower-cases s as Java's String.toLowerCase.
func javaLower(s string) string {
	if out, ok := asciiCase(s, 'A', 'Z'); ok {
		return out
	}
	var sb strings.Builder
	sb.Grow(len(s) + 8)
	for i, r := range s {
		switch r {
		case 'İ': // U+0130: i with a combining dot above, keeping the dot
			sb.WriteString("i\u0307")
			continue
		case 'Σ':
			if finalSigma(s, i) {
				sb.WriteRune('ς')
				continue
			}
		}
		sb.WriteRune(unicode.ToLower(r))
	}
	return sb.String()
}

// javaCapitalize is clojure.string/capitalize: the first character
// upper-cased, the rest lower-cased. Java takes the first UTF-16 unit, so
// a first character outside the Basic Multilingual Plane stays as it is.
func javaCapitalize(s string) string {
	if s == "" {
		return s
	}
	r, n := utf8.DecodeRuneInString(s)
	first := s[:n]
	if r <= 0xFFFF {
		first = javaUpper(first)
	}
	return first + javaLower(s[n:])
}

// asciiCase flips the case of the letters from..to of an ASCII string in
// one pass (s itself when there are none); ok is false when s is not ASCII.
func asciiCase(s string, from, to byte) (string, bool) {
	first := -1
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf {
			return "", false
		}
		if first < 0 && c >= from && c <= to {
			first = i
		}
	}
	if first < 0 {
		return s, true
	}
	var sb strings.Builder
	sb.Grow(len(s))
	sb.WriteString(s[:first])
	for i := first; i < len(s); i++ {
		c := s[i]
		if c >= from && c <= to {
			c ^= 0x20
		}
		sb.WriteByte(c)
	}
	return sb.String(), true
}

// finalSigma applies Unicode's Final_Sigma condition to the Σ at byte i: a
// cased letter before it and none after it, skipping case-ignorable
// characters on both sides.
func finalSigma(s string, i int) bool {
	before := false
	for j := i; j > 0; {
		r, n := utf8.DecodeLastRuneInString(s[:j])
		j -= n
		if caseIgnorable(r) {
			continue
		}
		before = isCased(r)
		break
	}
	if !before {
		return false
	}
	for j := i + len("Σ"); j < len(s); {
		r, n := utf8.DecodeRuneInString(s[j:])
		j += n
		if caseIgnorable(r) {
			continue
		}
		return !isCased(r)
	}
	return true
}

func isCased(r rune) bool {
	return unicode.IsUpper(r) || unicode.IsLower(r) || unicode.IsTitle(r) ||
		unicode.Is(unicode.Other_Lowercase, r) || unicode.Is(unicode.Other_Uppercase, r)
}

func caseIgnorable(r rune) bool {
	switch r {
	case '\'', '.', ':', '^', '`', 0xB7, 0x2018, 0x2019, 0x2024, 0x2027:
		return true
	}
	return r >= utf8.RuneSelf && unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf, unicode.Lm, unicode.Sk)
}

// specialUpper holds the unconditional multi-character upper-case mappings
// of SpecialCasing.txt.
var specialUpper = map[rune]string{
	0x00DF: "\u0053\u0053", 0x0149: "\u02BC\u004E", 0x01F0: "\u004A\u030C", 0x0390: "\u0399\u0308\u0301",
	0x03B0: "\u03A5\u0308\u0301", 0x0587: "\u0535\u0552", 0x1E96: "\u0048\u0331", 0x1E97: "\u0054\u0308",
	0x1E98: "\u0057\u030A", 0x1E99: "\u0059\u030A", 0x1E9A: "\u0041\u02BE", 0x1F50: "\u03A5\u0313",
	0x1F52: "\u03A5\u0313\u0300", 0x1F54: "\u03A5\u0313\u0301", 0x1F56: "\u03A5\u0313\u0342", 0x1F80: "\u1F08\u0399",
	0x1F81: "\u1F09\u0399", 0x1F82: "\u1F0A\u0399", 0x1F83: "\u1F0B\u0399", 0x1F84: "\u1F0C\u0399",
	0x1F85: "\u1F0D\u0399", 0x1F86: "\u1F0E\u0399", 0x1F87: "\u1F0F\u0399", 0x1F88: "\u1F08\u0399",
	0x1F89: "\u1F09\u0399", 0x1F8A: "\u1F0A\u0399", 0x1F8B: "\u1F0B\u0399", 0x1F8C: "\u1F0C\u0399",
	0x1F8D: "\u1F0D\u0399", 0x1F8E: "\u1F0E\u0399", 0x1F8F: "\u1F0F\u0399", 0x1F90: "\u1F28\u0399",
	0x1F91: "\u1F29\u0399", 0x1F92: "\u1F2A\u0399", 0x1F93: "\u1F2B\u0399", 0x1F94: "\u1F2C\u0399",
	0x1F95: "\u1F2D\u0399", 0x1F96: "\u1F2E\u0399", 0x1F97: "\u1F2F\u0399", 0x1F98: "\u1F28\u0399",
	0x1F99: "\u1F29\u0399", 0x1F9A: "\u1F2A\u0399", 0x1F9B: "\u1F2B\u0399", 0x1F9C: "\u1F2C\u0399",
	0x1F9D: "\u1F2D\u0399", 0x1F9E: "\u1F2E\u0399", 0x1F9F: "\u1F2F\u0399", 0x1FA0: "\u1F68\u0399",
	0x1FA1: "\u1F69\u0399", 0x1FA2: "\u1F6A\u0399", 0x1FA3: "\u1F6B\u0399", 0x1FA4: "\u1F6C\u0399",
	0x1FA5: "\u1F6D\u0399", 0x1FA6: "\u1F6E\u0399", 0x1FA7: "\u1F6F\u0399", 0x1FA8: "\u1F68\u0399",
	0x1FA9: "\u1F69\u0399", 0x1FAA: "\u1F6A\u0399", 0x1FAB: "\u1F6B\u0399", 0x1FAC: "\u1F6C\u0399",
	0x1FAD: "\u1F6D\u0399", 0x1FAE: "\u1F6E\u0399", 0x1FAF: "\u1F6F\u0399", 0x1FB2: "\u1FBA\u0399",
	0x1FB3: "\u0391\u0399", 0x1FB4: "\u0386\u0399", 0x1FB6: "\u0391\u0342", 0x1FB7: "\u0391\u0342\u0399",
	0x1FBC: "\u0391\u0399", 0x1FC2: "\u1FCA\u0399", 0x1FC3: "\u0397\u0399", 0x1FC4: "\u0389\u0399",
	0x1FC6: "\u0397\u0342", 0x1FC7: "\u0397\u0342\u0399", 0x1FCC: "\u0397\u0399", 0x1FD2: "\u0399\u0308\u0300",
	0x1FD3: "\u0399\u0308\u0301", 0x1FD6: "\u0399\u0342", 0x1FD7: "\u0399\u0308\u0342", 0x1FE2: "\u03A5\u0308\u0300",
	0x1FE3: "\u03A5\u0308\u0301", 0x1FE4: "\u03A1\u0313", 0x1FE6: "\u03A5\u0342", 0x1FE7: "\u03A5\u0308\u0342",
	0x1FF2: "\u1FFA\u0399", 0x1FF3: "\u03A9\u0399", 0x1FF4: "\u038F\u0399", 0x1FF6: "\u03A9\u0342",
	0x1FF7: "\u03A9\u0342\u0399", 0x1FFC: "\u03A9\u0399", 0xFB00: "\u0046\u0046", 0xFB01: "\u0046\u0049",
	0xFB02: "\u0046\u004C", 0xFB03: "\u0046\u0046\u0049", 0xFB04: "\u0046\u0046\u004C", 0xFB05: "\u0053\u0054",
	0xFB06: "\u0053\u0054", 0xFB13: "\u0544\u0546", 0xFB14: "\u0544\u0535", 0xFB15: "\u0544\u053B",
	0xFB16: "\u054E\u0546", 0xFB17: "\u0544\u053D",
}
