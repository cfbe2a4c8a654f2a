package firewall

import (
	"strings"
	"testing"

	"github.com/ptc-go/ptc/lisp"
)

const (
	secret = "sk-live-9f8e7d6c5b4a"
	short  = "pin-42" // shorter than MinScrub
)

func kw(s string) lisp.Keyword { return lisp.Keyword(s) }

func TestHiddenKey(t *testing.T) {
	for _, tc := range []struct {
		key  lisp.Value
		want bool
	}{
		{kw("_key"), true}, {"_key", true}, {kw("key"), false}, {"key", false},
		{kw("k_"), false}, {int64(1), false}, {lisp.NewVector([]lisp.Value{"_x"}), false},
		{lisp.Symbol{Name: "_key"}, true}, {lisp.Symbol{Name: "key"}, false},
	} {
		if got := HiddenKey(tc.key); got != tc.want {
			t.Errorf("HiddenKey(%s) = %v", lisp.Print(tc.key, lisp.PrintOptions{}), got)
		}
	}
}

// What a firewall hides, whole when printed and by its fragments in text.
func TestHidesAndScrubs(t *testing.T) {
	rows := lisp.NewVector([]lisp.Value{"a", "b"})
	ctx := lisp.NewMap(kw("_vault"), lisp.NewMap(kw("code"), secret, kw("rows"), rows),
		kw("_pin"), short, kw("_n"), int64(123456789), kw("_k"), kw("confidential"),
		kw("public"), "public-text-here")
	fw := New(NewSet(ctx), nil)
	hides := []struct {
		v    lisp.Value
		want bool
	}{
		{secret, true},
		{short, false}, // too short to hide by content
		{rows, true},   // by identity
		{lisp.NewVector([]lisp.Value{"a", "b"}), false}, // an equal collection is another
		{"public-text-here", false},
		{int64(123456789), false}, // scalars are scrubbed from text, not hidden
	}
	for _, tc := range hides {
		if got := fw.Hides(tc.v); got != tc.want {
			t.Errorf("Hides(%s) = %v", lisp.Print(tc.v, lisp.PrintOptions{}), got)
		}
	}
	scrubs := []struct{ in, want string }{
		{"the key is " + secret + "!", "the key is " + Placeholder + "!"},
		{"a fragment: " + secret[3:14] + ".", "a fragment: " + Placeholder + "."},
		{"the pin is " + short, "the pin is " + short},
		{"n=123456789;", "n=" + Placeholder + ";"},
		{"k=:confidential", "k=" + Placeholder},
		{`quoted "` + secret + `"`, `quoted "` + Placeholder + `"`},
		{"public-text-here", "public-text-here"},
		{"short", "short"},
	}
	for _, tc := range scrubs {
		if got := fw.Scrub(tc.in); got != tc.want {
			t.Errorf("Scrub(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	printed := lisp.Print(ctx, lisp.PrintOptions{Redact: fw.Redaction()})
	for _, leak := range []string{secret, short, `"a"`, "123456789", "confidential"} {
		if strings.Contains(printed, leak) {
			t.Errorf("the redacted context shows %q: %s", leak, printed)
		}
	}
	if !strings.Contains(printed, "public-text-here") {
		t.Errorf("the redacted context hides a public field: %s", printed)
	}
}

// A mission's firewall hides what its callers' hide, what the missions it
// called hid once absorbed, its "_" memory, and the copies coercion made
// of its hidden collections.
func TestFirewallSources(t *testing.T) {
	mem := lisp.NewVector([]lisp.Value{"memory-secret-1"})
	for _, tc := range []struct {
		name string
		fw   func() *Firewall
		v    lisp.Value
	}{
		{"caller", func() *Firewall {
			return New(nil, New(NewSet(lisp.NewMap(kw("_s"), secret)), nil))
		}, secret},
		{"absorbed child", func() *Firewall {
			child := New(nil, nil)
			child.AddToolResult(lisp.NewMap("_s", secret))
			fw := New(nil, nil)
			fw.Absorb(child)
			return fw
		}, secret},
		{"tool result", func() *Firewall {
			fw := New(nil, nil)
			fw.AddToolResult(lisp.NewMap(kw("deep"), lisp.NewMap(kw("_s"), secret)))
			return fw
		}, secret},
		{"memory", func() *Firewall {
			fw := New(nil, nil)
			fw.AddMemory(lisp.NewNamespace(map[string]lisp.Value{"_stash": mem, "open": "other-value-x"}))
			return fw
		}, "memory-secret-1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fw := tc.fw()
			if fw.Empty() || !fw.Hides(tc.v) || fw.Scrub("<"+lisp.Print(tc.v, lisp.PrintOptions{})+">") == "<"+lisp.Print(tc.v, lisp.PrintOptions{})+">" {
				t.Errorf("does not hide %s (empty %v)", lisp.Print(tc.v, lisp.PrintOptions{}), fw.Empty())
			}
		})
	}
	// A tool result without "_" keys adds nothing, and a caller's secrets
	// are not the mission's own.
	fw := New(nil, New(NewSet(lisp.NewMap(kw("_s"), secret)), nil))
	fw.AddToolResult(lisp.NewMap(kw("s"), "other-value-x"))
	if fw.Hides("other-value-x") || !fw.OwnEmpty() || fw.Empty() {
		t.Errorf("hides %v, own empty %v, empty %v", fw.Hides("other-value-x"), fw.OwnEmpty(), fw.Empty())
	}
	// The child's secrets reach its caller only when absorbed.
	child := New(nil, nil)
	child.AddToolResult(lisp.NewMap("_s", "child-secret-1"))
	parent := New(nil, nil)
	if parent.Hides("child-secret-1") {
		t.Error("the caller hides a child's secret it did not absorb")
	}
	// Copies: coercion rebuilt the hidden rows.
	rows := lisp.NewVector([]lisp.Value{lisp.NewVector([]lisp.Value{int64(1)})})
	fw = New(NewSet(lisp.NewMap(kw("_rows"), rows)), nil)
	orig := lisp.NewMap(kw("rows"), rows)
	cp := lisp.NewMap(kw("rows"), lisp.NewVector([]lisp.Value{lisp.NewVector([]lisp.Value{1.0})}))
	fw.MarkCopies(orig, cp)
	inner, _ := cp.Get(kw("rows"))
	if !fw.Hides(inner) || !fw.Hides(inner.(*lisp.Vector).Items()[0]) {
		t.Error("a copy of hidden rows is not hidden")
	}
}

// A Veil hides what any of its firewalls hides, scrubs keys and strings
// as it prints, and HidingWhole hides its strings without scrubbing text.
func TestVeil(t *testing.T) {
	a := New(NewSet(lisp.NewMap(kw("_a"), "secret-of-a-1")), nil)
	b := New(NewSet(lisp.NewMap(kw("_b"), "secret-of-b-2")), nil)
	v := Veil{a}.With(Veil{b, a, nil})
	if len(v) != 2 {
		t.Fatalf("With: %d firewalls", len(v))
	}
	if len(Veil{a}.With(Veil{a})) != 1 {
		t.Error("With added a firewall twice")
	}
	val := lisp.NewMap("key secret-of-a-1", "x secret-of-b-2 y", kw("_c"), "visible?")
	got := v.Format(val, lisp.PrintOptions{})
	if strings.Contains(got, "secret-of") || strings.Contains(got, "visible?") {
		t.Errorf("Format shows %s", got)
	}
	if got := v.ScrubLines([]string{"one secret-of-", "a-1 two"}); len(got) != 2 || strings.Contains(strings.Join(got, "\n"), "secret-of-a") {
		t.Errorf("ScrubLines: %q", got)
	}
	if got := (Veil{}).Scrub("secret-of-a-1"); got != "secret-of-a-1" {
		t.Errorf("an empty veil scrubbed: %q", got)
	}
	ph := HidingWhole(Placeholder)
	if !ph.Hides(Placeholder) || ph.Scrub("a "+Placeholder+Placeholder) != "a "+Placeholder+Placeholder {
		t.Errorf("HidingWhole: hides %v, scrubs to %q", ph.Hides(Placeholder), ph.Scrub("a "+Placeholder+Placeholder))
	}
}
