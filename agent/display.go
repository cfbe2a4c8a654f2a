package agent

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/ptc-go/ptc/lisp"
)

// What a mission leaves behind for readers outside the firewall (a
// person, a log, a trace file, a client) goes through one scrubber, the
// veil of the Steps it shows: values print with Redaction (firewalled
// values and "_" entries as the placeholder, copies of firewalled text
// scrubbed from every string and key), and texts are scrubbed as the
// LLM's are. docs/agents.md, "The guarantee", lists the sinks; the test
// of cmd/ptc firewall_sinks_test.go runs every leak channel through each.

// veil hides what any of its firewalls hides: a Step's, and, for a Step
// shown inside another (a nested agent in its caller's trace, the steps
// of a pipeline), its readers' too.
type veil []*firewall

// veil returns the firewalls that hide the Step's values: its own, which
// is chained to its callers' (nil when it has none).
func (s *Step) veil() veil {
	if s == nil || s.fw == nil {
		return nil
	}
	return veil{s.fw}
}

// with returns v with fw's firewall added (v itself when fw adds none).
func (v veil) with(w veil) veil {
	out := v
	for _, fw := range w {
		if fw == nil || slicesContains(out, fw) {
			continue
		}
		if len(out) == len(v) {
			out = append(veil(nil), v...)
		}
		out = append(out, fw)
	}
	return out
}

func slicesContains(v veil, fw *firewall) bool {
	for _, x := range v {
		if x == fw {
			return true
		}
	}
	return false
}

// indexes returns the scrubbing indexes of every firewall of v and of
// their callers, each once.
func (v veil) indexes() []*textIndex {
	var out []*textIndex
	seen := map[*firewall]bool{}
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

func (v veil) hides(x lisp.Value) bool {
	for _, fw := range v {
		if fw.hides(x) {
			return true
		}
	}
	return false
}

// redaction is the display redaction of v: what the firewalls hide, the
// "_" entries, and copies of firewalled text scrubbed from every string
// and key (a number or keyword whose printed form holds one hidden
// whole).
func (v veil) redaction() *lisp.Redaction {
	r := &lisp.Redaction{Placeholder: Firewalled, Key: isFirewalledKey}
	if len(v) == 0 {
		return r
	}
	r.Value = v.hides
	if indexes := v.indexes(); len(indexes) > 0 {
		r.Text = func(s string) string { return scrubText(s, indexes...) }
	}
	return r
}

// scrub replaces every run of text holding a fragment of minScrub bytes
// or more of a firewalled text of v by Firewalled.
func (v veil) scrub(text string) string {
	if len(v) == 0 || len(text) < minScrub {
		return text
	}
	return scrubText(text, v.indexes()...)
}

// scrubAll scrubs each text (nil for none).
func (v veil) scrubAll(texts []string) []string {
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

// format prints x for a reader: with the display redaction, and the text
// scrubbed as a whole, as LLM-bound text is (an escaped form of a
// fragment is caught in the printed text even where the string itself
// held a shorter one).
func (v veil) format(x lisp.Value, opts lisp.PrintOptions) string {
	opts.Redact = v.redaction()
	return v.scrub(lisp.FormatValue(x, opts))
}

// fail returns a copy of f for a reader: its texts scrubbed, its Details
// redacted (Go data with firewalled parts as Firewalled).
func (v veil) fail(f *Fail) *Fail {
	if f == nil {
		return nil
	}
	budget := maxDetailNodes
	return v.failData(f, 0, &budget)
}

// maxDetailNodes bounds the work of redacting a Fail's Details: a program
// may fail with a large value.
const maxDetailNodes = 100000

func (v veil) failData(f *Fail, depth int, budget *int) *Fail {
	c := *f
	c.Reason, c.Message, c.Op = v.scrub(f.Reason), v.scrub(f.Message), v.scrub(f.Op)
	if f.Details != nil {
		c.Details = v.dataMap(f.Details, depth, budget)
	}
	return &c
}

func (v veil) dataMap(m map[string]any, depth int, budget *int) map[string]any {
	out := make(map[string]any, len(m))
	for k, x := range m {
		sk := v.scrub(k)
		if isFirewalledKey(k) {
			out[sk] = Firewalled
			continue
		}
		out[sk] = v.data(x, depth+1, budget)
	}
	return out
}

// data returns a redacted copy of Go data (Fail.Details: what lisp.ToGo
// makes, Fails, and whatever a host put there).
func (v veil) data(x any, depth int, budget *int) any {
	if *budget--; *budget < 0 || depth > 100 {
		return Firewalled // beyond the bound: hidden rather than shown unchecked
	}
	switch x := x.(type) {
	case nil, bool:
		return x
	case string:
		if len(x) >= minScrub && v.hides(x) {
			return Firewalled
		}
		return v.scrub(x)
	case map[string]any:
		return v.dataMap(x, depth, budget)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = v.data(e, depth+1, budget)
		}
		return out
	case *Fail:
		if x == nil {
			return x
		}
		return v.failData(x, depth+1, budget)
	case *lisp.Map, *lisp.Vector, *lisp.Set:
		if v.hides(x) {
			return Firewalled
		}
		g, err := lisp.ToGo(x)
		if err != nil {
			return Firewalled
		}
		return v.data(g, depth+1, budget)
	case int64, int, int32, uint64, float64, json.Number, lisp.Keyword, time.Time:
		for _, s := range []string{fmt.Sprint(x), lisp.PrintString(x)} {
			if v.scrub(s) != s {
				return Firewalled
			}
		}
		return x
	}
	// Anything else is shown by its printed form, scrubbed.
	return v.scrub(fmt.Sprint(x))
}

// scrubLines scrubs lines of output: as one text (a firewalled text may
// span lines) when that keeps the lines apart, each on its own otherwise.
func (v veil) scrubLines(lines []string) []string {
	if len(lines) == 0 {
		return nil
	}
	joined := strings.Join(lines, "\n")
	if out := strings.Split(v.scrub(joined), "\n"); len(out) == len(lines) && strings.Count(joined, "\n")+1 == len(lines) {
		return out
	}
	return v.scrubAll(lines)
}
