package agent

import (
	fwall "github.com/ptc-go/ptc/agent/internal/firewall"
	"github.com/ptc-go/ptc/lisp"
)

// Veil is what the readers of a Step may not see: what its mission's
// firewall hides, and its callers'. It is the seam through which printers
// of Steps kept outside this package (package agent/trace) hide what the
// firewall hides; Step.Redaction and Step.Scrub are a Step's own Veil's.
// The zero Veil hides the "_" entries of maps and nothing else.
type Veil struct{ v veil }

// Veil returns what s hides from its readers (the zero Veil for a nil s).
func (s *Step) Veil() Veil { return Veil{s.veil()} }

// NewVeil returns a Veil over a firewall of its own, which hides the "_"
// entries of maps, and learn, which adds to what it hides the firewalled
// parts of a value as a mission's firewall adds a tool's result: what
// sits under the value's "_" keys, at any depth, and copies of its text.
// It is for a host that runs programs with tools outside a mission (ptc
// eval and ptc repl with MCP tools) and shows people what they return: it
// calls learn with each tool's result. learn is safe for concurrent use;
// what it adds hides later texts, not the Redaction taken before it
// (whose Value hides whole strings learned since, and whose Text does
// not scrub their copies: scrub the printed text again).
func NewVeil() (v Veil, learn func(lisp.Value)) {
	fw := fwall.New(nil, nil)
	return Veil{veil{fw}}, fw.AddToolResult
}

// With returns a Veil that hides what v or outer hides: a nested agent's
// Step shown inside its caller's hides what the caller hides too.
func (v Veil) With(outer Veil) Veil { return Veil{v.v.With(outer.v)} }

// Redaction is the redaction that prints values for v's readers:
// firewalled values and "_" entries as the placeholder Firewalled, copies
// of firewalled text scrubbed from strings and keys.
func (v Veil) Redaction() *lisp.Redaction { return v.v.Redaction() }

// Scrub replaces each run of text holding firewalled text by Firewalled.
func (v Veil) Scrub(text string) string { return v.v.Scrub(text) }

// ScrubAll scrubs each text (nil for none).
func (v Veil) ScrubAll(texts []string) []string { return v.v.ScrubAll(texts) }

// ScrubLines scrubs lines of output as a whole (a firewalled text may span
// lines) when that keeps the lines apart, each line on its own otherwise.
func (v Veil) ScrubLines(lines []string) []string { return v.v.ScrubLines(lines) }

// Format prints x for v's readers: with v's Redaction, the printed text
// scrubbed as a whole.
func (v Veil) Format(x lisp.Value, opts lisp.PrintOptions) string { return v.v.Format(x, opts) }

// Export writes what v hides of a Step whose value is ret, for a raw
// trace ("ptc-firewall/1", docs/trace-format.md): the firewalled texts of
// v's firewalls and their callers', and the places in ret of the
// collections they hide. It is nil when v hides nothing.
func (v Veil) Export(ret lisp.Value) []byte { return fwall.MarshalVeil(v.v, ret) }

// RestoreVeil makes s, a Step read back from a trace, and the Steps of the
// agents it called hide what the original hid, so that they print as it
// did. In a redacted trace, hidden values are the placeholder Firewalled,
// which every Step then hides, so that it prints as it was written. In a
// raw one, exported is what Veil.Export wrote (nil: nothing is hidden):
// every Step hides its texts, and s the collections of its value it names.
func (s *Step) RestoreVeil(redacted bool, exported []byte) error {
	if s == nil {
		return nil
	}
	if redacted {
		setFirewall(s, fwall.HidingWhole(Firewalled), 0)
		return nil
	}
	texts, err := fwall.Unmarshal(exported, nil)
	if err != nil {
		return err
	}
	setFirewall(s, texts, 0)
	if len(exported) == 0 {
		return nil
	}
	if s.fw, err = fwall.Unmarshal(exported, s.Return); err != nil {
		return err
	}
	return nil
}

// setFirewall gives s and the Steps nested in its tool calls fw.
func setFirewall(s *Step, fw *firewall, depth int) {
	if s == nil || depth > maxTraceDepth {
		return
	}
	s.fw = fw
	for i := range s.Trace {
		for j := range s.Trace[i].ToolCalls {
			setFirewall(s.Trace[i].ToolCalls[j].Child, fw, depth+1)
		}
	}
}

// maxTraceDepth bounds the nesting of values (as lisp.ToJSON does) and of
// agents in a moved Step.
const maxTraceDepth = 10_000 // lisp.ReadOptions.MaxDepth's default
