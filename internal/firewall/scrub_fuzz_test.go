package firewall

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzScrub checks the scrubber on arbitrary texts and secrets: it never
// panics, keeps valid UTF-8 valid, and leaves no window of minScrub bytes
// of a secret in its output. (Secrets are kept free of the placeholder's
// characters, so that a window found in the output cannot be one that the
// placeholder itself completes.)
func FuzzScrub(f *testing.F) {
	f.Add("the token is tok-3f9a1c7e, again tok-3f9a", "tok-3f9a1c7e", "sk-live-0123456789")
	f.Add("pass\\\"word\\\\with quotes", "pass\"word\\with", "")
	f.Add("ünïcödé-sëcrët in ünïcödé-sëc text", "ünïcödé-sëcrët", "x")
	f.Add(strings.Repeat("ab", 40), "abababababab", "babababa")
	f.Fuzz(func(t *testing.T, text, s1, s2 string) {
		// Long generated inputs exercise nothing short ones do not, and
		// their escaped forms' windows make one run take seconds: the
		// fuzzer would stall on them.
		if len(text) > 1<<14 || len(s1) > 1<<10 || len(s2) > 1<<10 {
			t.Skip()
		}
		clean := func(s string) string {
			return strings.Map(func(r rune) rune {
				if strings.ContainsRune(Placeholder, r) {
					return 'z'
				}
				return r
			}, s)
		}
		s1, s2 = clean(s1), clean(s2)
		set := map[string]struct{}{}
		for _, s := range []string{s1, s2} {
			if len(s) >= minScrub {
				set[s] = struct{}{}
			}
		}
		idx := newTextIndex(maxWindows, set)
		out := scrubText(text, idx)
		if utf8.ValidString(text) && !utf8.ValidString(out) {
			t.Fatalf("valid UTF-8 in, invalid out: %q -> %q", text, out)
		}
		// The secrets' windows, then one pass over the output's: linear,
		// so that long generated inputs keep the fuzzer going.
		windows := map[string]string{}
		for s := range set {
			for _, form := range textForms(s) {
				for i := 0; i+minScrub <= len(form); i++ {
					windows[form[i:i+minScrub]] = s
				}
			}
		}
		for i := 0; i+minScrub <= len(out); i++ {
			if s, ok := windows[out[i:i+minScrub]]; ok {
				t.Fatalf("window %q of %q left in %q (from %q)", out[i:i+minScrub], s, out, text)
			}
		}
	})
}

// The index caps its windows: texts beyond the budget are still found
// whole, their fragments are not.
func TestTextIndexBudget(t *testing.T) {
	long := strings.Repeat("0123456789", 5) // 43 windows
	idx := newTextIndex(10, map[string]struct{}{long: {}})
	if got := scrubText("x"+long+"y", idx); got != "x"+Placeholder+"y" {
		t.Errorf("whole text: %q", got)
	}
	if got := scrubText("x"+long[:20]+"y", idx); got != "x"+long[:20]+"y" {
		t.Errorf("a fragment past the budget was scrubbed: %q", got)
	}
	idx = newTextIndex(maxWindows, map[string]struct{}{long: {}})
	if got := scrubText("x"+long[3:20]+"y", idx); got != "x"+Placeholder+"y" {
		t.Errorf("fragment: %q", got)
	}
}
