package firewall

import (
	"slices"
	"strings"

	"github.com/ptc-go/ptc/lisp"
)

// What a mission leaves behind for readers outside the firewall (a
// person, a log, a trace file, a client) goes through one scrubber, the
// veil of the Steps it shows: values print with Redaction (firewalled
// values and "_" entries as the placeholder, copies of firewalled text
// scrubbed from every string and key), and texts are scrubbed as the
// LLM's are. docs/agents.md, "The guarantee", lists the sinks; the test
// of cmd/ptc firewall_sinks_test.go runs every leak channel through each.

// Veil hides what any of its firewalls hides: a Step's, and, for a Step
// shown inside another (a nested agent in its caller's trace, the steps
// of a pipeline), its readers' too.
type Veil []*Firewall

// With returns v with w's firewalls added (v itself when w adds none).
func (v Veil) With(w Veil) Veil {
	out := v
	for _, fw := range w {
		if fw == nil || slices.Contains(out, fw) {
			continue
		}
		if len(out) == len(v) {
			out = append(Veil(nil), v...)
		}
		out = append(out, fw)
	}
	return out
}

// indexes returns the scrubbing indexes of every firewall of v and of
// their callers, each once.
func (v Veil) indexes() []*textIndex {
	var out []*textIndex
	seen := map[*Firewall]bool{}
	for _, fw := range v {
		for f := fw; f != nil; f = f.up {
			if seen[f] {
				break
			}
			seen[f] = true
			for _, idx := range []*textIndex{f.base.index, f.ownIndexNow()} {
				if !idx.empty() {
					out = append(out, idx)
				}
			}
		}
	}
	return out
}

// Hides reports whether any firewall of v hides x.
func (v Veil) Hides(x lisp.Value) bool {
	for _, fw := range v {
		if fw.Hides(x) {
			return true
		}
	}
	return false
}

// HidesMember reports whether any firewall of v hides the element of coll
// under key.
func (v Veil) HidesMember(coll, key lisp.Value) bool {
	for _, fw := range v {
		if fw.HidesMember(coll, key) {
			return true
		}
	}
	return false
}

// memberHook is the Member hook of v's redaction (nil for none).
func (v Veil) memberHook() func(coll, key lisp.Value) bool {
	if !v.hasMembers() {
		return nil
	}
	return v.HidesMember
}

func (v Veil) hasMembers() bool {
	for _, fw := range v {
		if fw.hasMembers() {
			return true
		}
	}
	return false
}

// Redaction is the display redaction of v: what the firewalls hide, the
// "_" entries, and copies of firewalled text scrubbed from every string
// and key (a number or keyword whose printed form holds one hidden
// whole).
func (v Veil) Redaction() *lisp.Redaction {
	r := &lisp.Redaction{Placeholder: Placeholder, Key: HiddenKey}
	if len(v) == 0 {
		return r
	}
	r.Value = v.Hides
	if v.hasMembers() {
		r.Member = v.HidesMember
	}
	if indexes := v.indexes(); len(indexes) > 0 {
		r.Text = func(s string) string { return scrubText(s, indexes...) }
		// A string that is all firewalled text shows as the placeholder,
		// bare, as a firewalled value does: quoted, it read back from a
		// trace as the placeholder and printed otherwise than live.
		r.Value = func(x lisp.Value) bool {
			if s, ok := x.(string); ok && len(s) >= minScrub && scrubText(s, indexes...) == Placeholder {
				return true
			}
			return v.Hides(x)
		}
	}
	return r
}

// Scrub replaces every run of text holding a fragment of MinScrub bytes
// or more of a firewalled text of v by Placeholder.
func (v Veil) Scrub(text string) string {
	if len(v) == 0 || len(text) < minScrub {
		return text
	}
	return scrubText(text, v.indexes()...)
}

// ScrubAll scrubs each text (nil for none).
func (v Veil) ScrubAll(texts []string) []string {
	if len(texts) == 0 {
		return nil
	}
	out := make([]string, len(texts))
	if len(v) == 0 {
		copy(out, texts)
		return out
	}
	indexes := v.indexes()
	for i, t := range texts {
		out[i] = scrubText(t, indexes...)
	}
	return out
}

// Format prints x for a reader: with the display redaction, and the text
// scrubbed as a whole, as LLM-bound text is (an escaped form of a
// fragment is caught in the printed text even where the string itself
// held a shorter one).
func (v Veil) Format(x lisp.Value, opts lisp.PrintOptions) string {
	opts.Redact = v.Redaction()
	return v.Scrub(lisp.Print(x, opts))
}

// ScrubLines scrubs lines of output: as one text (a firewalled text may
// span lines) when that keeps the lines apart, each on its own otherwise.
func (v Veil) ScrubLines(lines []string) []string {
	if len(lines) == 0 {
		return nil
	}
	joined := strings.Join(lines, "\n")
	if out := strings.Split(v.Scrub(joined), "\n"); len(out) == len(lines) && strings.Count(joined, "\n")+1 == len(lines) {
		return out
	}
	return v.ScrubAll(lines)
}
