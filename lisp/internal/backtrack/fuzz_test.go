package backtrack

import (
	"regexp"
	"regexp/syntax"
	"slices"
	"testing"
)

// FuzzAgreesWithGoRegexp: on the patterns both engines read, the
// backtracking matcher finds what Go's regexp finds (leftmost-first),
// except where Java and Go differ on purpose: a repeated group that can
// match empty.
func FuzzAgreesWithGoRegexp(f *testing.F) {
	for _, seed := range []struct{ pat, s string }{
		{`a+b`, "aab"}, {`(a|ab)(c|bcd)`, "abcd"}, {`(?i)x[a-c]*?y`, "XbCy"}, {`^\w+\s`, "hi there"},
		{`(?m)^b$`, "a\nb\nc"}, {`\bfoo\b`, "a foo."}, {`(x{2,3})+?`, "xxxxxxx"}, {`[^\d\s]+`, "12 ab 3"},
	} {
		f.Add(seed.pat, seed.s)
	}
	f.Fuzz(func(t *testing.T, pat, s string) {
		if len(pat) > 40 || len(s) > 64 {
			return
		}
		parsed, err := syntax.Parse(pat, syntax.Perl)
		if err != nil || repeatsEmptyGroup(parsed) || backrefLike.MatchString(pat) {
			return // \12 is an octal escape to Go, a backreference to Java
		}
		want, err := regexp.Compile(pat)
		if err != nil {
			return
		}
		got, err := Compile(pat)
		if err != nil {
			t.Fatalf("Compile(%q): %v", pat, err)
		}
		steps := 0
		m, err := got.Find(s, 0, false, func(n int) error { steps += n; return nil })
		if err != nil {
			if err == ErrTooDeep {
				return
			}
			t.Fatal(err)
		}
		if w := want.FindStringSubmatchIndex(s); !slices.Equal(m, w) {
			t.Errorf("%q in %q: %v, want %v", pat, s, m, w)
		}
	})
}

var backrefLike = regexp.MustCompile(`\\[1-9]`)

func repeatsEmptyGroup(r *syntax.Regexp) bool {
	switch r.Op {
	case syntax.OpStar, syntax.OpPlus, syntax.OpRepeat:
		if hasGroup(r.Sub[0]) && nullable(r.Sub[0]) {
			return true
		}
	}
	for _, sub := range r.Sub {
		if repeatsEmptyGroup(sub) {
			return true
		}
	}
	return false
}

func hasGroup(r *syntax.Regexp) bool {
	if r.Op == syntax.OpCapture {
		return true
	}
	return slices.ContainsFunc(r.Sub, hasGroup)
}

func nullable(r *syntax.Regexp) bool {
	re, err := regexp.Compile(`^(?:` + r.String() + `)`)
	return err == nil && re.MatchString("")
}
