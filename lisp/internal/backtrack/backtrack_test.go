package backtrack

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
)

func unlimited(int) error { return nil }

func find(t *testing.T, pat, s string) []int {
	t.Helper()
	re, err := Compile(pat)
	if err != nil {
		t.Fatalf("Compile(%q): %v", pat, err)
	}
	m, err := re.Find(s, 0, false, unlimited)
	if err != nil {
		t.Fatalf("Find(%q, %q): %v", pat, s, err)
	}
	return m
}

// Patterns Go's regexp also has: the same leftmost-first matches and
// groups, for every start.
func TestAgreesWithGoRegexp(t *testing.T) {
	patterns := []string{
		`a+`, `a*`, `a*?`, `(a|ab)(c|bcd)(d*)`, `(a+)(b+)?`, `x*`, `\d+(\.\d+)?`, `^\w+`, `\w+$`,
		`(?i)hello`, `(?m)^\w+$`, `(?s)a.b`, `a.b`, `[^a-c]+`, `\bcat\b`, `\Bat`, `(?:ab)+`, `(ab){2,3}`,
		`(a|b)*c`, `(?P<year>\d{4})-(?P<month>\d\d)`, `[[:alpha:]]+`, `\p{Lu}\p{Ll}+`, `é+`, `(?i)É`,
		`a{2}`, `a{2,}?`, `(|a)+`, `(a?)*?b`, `\s+`, `[a-c]{0,2}?c`, `\Qa.b\E`,
	}
	inputs := []string{"", "a", "aaa", "abcd", "abcbcd", "cat concat cats", "3.14 and 42", "Hello hello HELLO",
		"line one\nline two", "a\nb axb", "2024-03 1999-12", "Été été ÉTÉ", "baaa", "xyz aab", "aaab", "aa ab abab c"}
	for _, pat := range patterns {
		want := regexp.MustCompile(pat)
		got, err := Compile(pat)
		if err != nil {
			t.Fatalf("Compile(%q): %v", pat, err)
		}
		if got.NumSubexp() != want.NumSubexp() {
			t.Errorf("%q: %d groups, want %d", pat, got.NumSubexp(), want.NumSubexp())
		}
		for _, s := range inputs {
			w := want.FindStringSubmatchIndex(s)
			g, err := got.Find(s, 0, false, unlimited)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(g, w) {
				t.Errorf("%q in %q: %v, want %v", pat, s, g, w)
			}
		}
	}
}

// Java's constructs, with the answers Java gives.
func TestJavaConstructs(t *testing.T) {
	for _, c := range []struct {
		pat, s string
		want   []int
	}{
		{`^(?=.*[A-Z])(?=.*\d).{8,}$`, "Passw0rdX", []int{0, 9}},
		{`^(?=.*[A-Z])(?=.*\d).{8,}$`, "password1", nil},
		{`(?<=[a-z])(?=[A-Z])`, "camelCase", []int{5, 5}},
		{`\d+(?=px)`, "w 12em 30px", []int{7, 9}},
		{`\d+(?!px)`, "30px", []int{0, 1}},
		{`(?<=\$)\d+`, "cost $42", []int{6, 8}},
		{`(?<!\$)\b\d+`, "$5 or 7", []int{6, 7}},
		{`\b(\w+)\s+\1\b`, "the the cat", []int{0, 7, 0, 3}},
		{`(.)\1\1`, "abbbc", []int{1, 4, 1, 2}},
		{`(?i)(a)\1`, "aA", []int{0, 2, 0, 1}},
		{`(?<w>\w)\k<w>`, "xyzzy", []int{2, 4, 2, 3}},
		{`a*+a`, "aaaa", nil},
		{`(?>a|ab)c`, "abc", nil},
		{`(?>ab|a)c`, "abc", []int{0, 3}},
		{`\B(?=(\d{3})+(?!\d))`, "1234567", []int{1, 1, 4, 7}},
		{`(a)|\1b`, "b", nil},
		{`(?<=ab|c)d`, "abd cd", []int{2, 3}},
		// An iteration that matches empty ends the loop after it is
		// taken, as Java's (Go's regexp reports the last non-empty one).
		{`(a*)*b`, "aaab", []int{0, 4, 3, 3}},
		{`(a*)+`, "aaa", []int{0, 3, 3, 3}},
		{`(a*)*b`, "baaa", []int{0, 1, 0, 0}},
	} {
		if got := find(t, c.pat, c.s); !slices.Equal(got, c.want) {
			t.Errorf("%q in %q: %v, want %v", c.pat, c.s, got, c.want)
		}
	}
}

func TestFindFromAndWhole(t *testing.T) {
	re, _ := Compile(`(?<=a)b`)
	if m, _ := re.Find("abab", 2, false, unlimited); !slices.Equal(m, []int{3, 4}) {
		t.Errorf("from 2: %v", m)
	}
	if m, _ := re.Find("ab", 1, true, unlimited); !slices.Equal(m, []int{1, 2}) {
		t.Errorf("whole from 1 (the a before is context): %v", m)
	}
	re, _ = Compile(`a(?=b)`)
	if m, _ := re.Find("ab", 0, true, unlimited); m != nil {
		t.Errorf("whole: a lookahead does not consume: %v", m)
	}
}

func TestCompileErrors(t *testing.T) {
	for _, c := range []struct{ pat, want string }{
		{`(?<=a+)b`, "bounded length"},
		{`(a`, "missing )"},
		{`a)`, "unmatched )"},
		{`\2(a)`, "no group 2"},
		{`\k<x>`, "does not exist"},
		{`a{5,2}`, "invalid repetition"},
		{`a{200000}`, "above"},
		{`[a`, "missing ]"},
		{strings.Repeat("(", 2000) + strings.Repeat(")", 2000), "1000 deep"},
	} {
		_, err := Compile(c.pat)
		var se *SyntaxError
		if !errors.As(err, &se) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Compile(%q) = %v, want an error with %q", c.pat, err, c.want)
		}
	}
}

// A catastrophic pattern stops when its budget says so: the steps are
// reported, and the budget's error is the search's.
func TestBudgetStopsCatastrophicBacktracking(t *testing.T) {
	re, _ := Compile(`(a+)+b`)
	stop := fmt.Errorf("step limit")
	steps := 0
	_, err := re.Find(strings.Repeat("a", 40), 0, false, func(n int) error {
		steps += n
		if steps > 100_000 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) {
		t.Fatalf("err = %v, want the budget's", err)
	}
	if steps < 100_000 || steps > 100_000+2*budgetStep {
		t.Errorf("stopped after %d steps", steps)
	}
}

func TestDepthBound(t *testing.T) {
	re, _ := Compile(`(?:a|b)*c`)
	_, err := re.Find(strings.Repeat("a", 50_000), 0, false, unlimited)
	if !errors.Is(err, ErrTooDeep) {
		t.Fatalf("err = %v, want ErrTooDeep", err)
	}
	// A repetition of one character does not nest: any length.
	re, _ = Compile(`(?<=x)a*c`)
	if m, err := re.Find("x"+strings.Repeat("a", 200_000)+"c", 0, false, unlimited); err != nil || m == nil {
		t.Fatalf("m = %v, err = %v", m, err)
	}
}
