package agent

import (
	fwall "github.com/ptc-go/ptc/agent/internal/firewall"
	"github.com/ptc-go/ptc/lisp"
)

// The firewall itself (what is hidden, how text is scrubbed, its JSON
// form) lives in agent/internal/firewall; this file is the agent's side
// of it: a mission's firewall over its agent's cache of context sets, and
// the names the rest of the package, the trace formats included, use.
// (The package is imported as fwall: firewall names the type here.)

// Firewalled is what the LLM sees in place of a firewalled value.
const Firewalled = fwall.Placeholder

type (
	firewall = fwall.Firewall
	fwSet    = fwall.Set
)

func newFirewall(a *Agent, ctx *lisp.Map, up *firewall) *firewall {
	return fwall.New(a.contextFirewall(ctx), up)
}

// contextFirewall returns the firewalled parts of a context, computed once
// per context value and agent: hosts convert a large context once and run
// many missions on it.
func (a *Agent) contextFirewall(ctx *lisp.Map) *fwSet {
	a.fwMu.Lock()
	set, ok := a.fwCache[ctx]
	a.fwMu.Unlock()
	if ok {
		return set
	}
	set = fwall.NewSet(ctx)
	a.fwMu.Lock()
	if a.fwCache == nil || len(a.fwCache) >= 16 {
		a.fwCache = map[*lisp.Map]*fwSet{}
	}
	a.fwCache[ctx] = set
	a.fwMu.Unlock()
	return set
}

// hidingFirewall is the firewall of a Step read back from a trace: it
// hides the strings that are the placeholder the writer printed.
func hidingFirewall(strs ...string) *firewall { return fwall.HidingWhole(strs...) }

// isFirewalledKey reports whether a map key names a firewalled field.
func isFirewalledKey(k lisp.Value) bool { return fwall.HiddenKey(k) }

// walkOnce reports whether a walk should visit the collection v once only
// (see fwall.WalkOnce).
func walkOnce(v lisp.Value) bool { return fwall.WalkOnce(v) }

// veil hides what any of its firewalls hides (fwall.Veil): a Step's, and,
// for a Step shown inside another, its readers' too.
type veil []*firewall

// veil returns the firewalls that hide the Step's values: its own, which
// is chained to its callers' (nil when it has none).
func (s *Step) veil() veil {
	if s == nil || s.fw == nil {
		return nil
	}
	return veil{s.fw}
}

func (v veil) with(w veil) veil { return veil(fwall.Veil(v).With(fwall.Veil(w))) }

func (v veil) redaction() *lisp.Redaction { return fwall.Veil(v).Redaction() }

func (v veil) scrub(text string) string { return fwall.Veil(v).Scrub(text) }

func (v veil) scrubAll(texts []string) []string { return fwall.Veil(v).ScrubAll(texts) }

func (v veil) scrubLines(lines []string) []string { return fwall.Veil(v).ScrubLines(lines) }

func (v veil) format(x lisp.Value, opts lisp.PrintOptions) string {
	return fwall.Veil(v).Format(x, opts)
}

// marshalVeil writes what the firewalls of v and their callers hide of a
// Step whose value is ret (fwall.MarshalVeil): a raw trace carries it.
func marshalVeil(v veil, ret lisp.Value) []byte { return fwall.MarshalVeil(fwall.Veil(v), ret) }

// marshalFirewall writes what fw hides of v (fwall.Marshal).
func marshalFirewall(fw *firewall, v lisp.Value, chain bool) []byte {
	return fwall.Marshal(fw, v, chain)
}

// unmarshalFirewall reads marshalFirewall's data as a firewall over v.
func unmarshalFirewall(data []byte, v lisp.Value) (*firewall, error) {
	return fwall.Unmarshal(data, v)
}
