package agent

import (
	fwall "github.com/ptc-go/ptc/internal/firewall"
)

// Veil is what the Step's readers may not see: what its mission's
// firewall hides, and its callers'. It is the seam through which package
// agent/trace prints Steps and carries their firewall; its type is
// internal (Redaction and Scrub are the Step's own, for everyone). The
// Veil of a nil Step hides the "_" entries of maps and nothing else.
func (s *Step) Veil() fwall.Veil { return s.veil() }

// RestoreVeil makes s, a Step read back from a trace, and the Steps of the
// agents it called hide what the original hid, so that they print as it
// did. In a redacted trace, hidden values are the placeholder Firewalled,
// which every Step then hides, so that it prints as it was written. In a
// raw one, exported is what the trace's writer exported of the Step's Veil (nil: nothing is hidden):
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
