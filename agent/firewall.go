package agent

import (
	fwall "github.com/ptc-go/ptc/internal/firewall"
	"github.com/ptc-go/ptc/lisp"
)

// The firewall itself (what is hidden, how text is scrubbed, its JSON
// form) lives in internal/firewall; this file is the agent's side
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

// shadowContext is a context as a shadow run sees it: its firewalled
// values replaced by surrogates of one variant (nil ctx when that cannot
// be done), and the firewalled parts of that.
type shadowContext struct {
	ctx *lisp.Map
	set *fwSet
}

// shadowContext returns the shadow context of ctx for a variant, computed
// once per context value and agent as contextFirewall's set is: its walk,
// and the set's, are linear in the context's size.
func (a *Agent) shadowContext(ctx *lisp.Map, variant int) shadowContext {
	a.fwMu.Lock()
	entry, ok := a.shadowCache[ctx]
	a.fwMu.Unlock()
	if ok {
		return entry[variant]
	}
	entry = new([fwall.Variants]shadowContext)
	for v := range fwall.Variants {
		if c, ok := fwall.Surrogate(ctx, v); ok {
			entry[v].ctx, _ = c.(*lisp.Map)
		}
		entry[v].set = fwall.NewSet(entry[v].ctx)
	}
	a.fwMu.Lock()
	if a.shadowCache == nil || len(a.shadowCache) >= 16 {
		a.shadowCache = map[*lisp.Map]*[fwall.Variants]shadowContext{}
	}
	a.shadowCache[ctx] = entry
	a.fwMu.Unlock()
	return entry[variant]
}

// veil is what a Step's readers may not see (fwall.Veil).
type veil = fwall.Veil

// veil returns the firewalls that hide the Step's values: its own, which
// is chained to its callers' (nil when it has none).
func (s *Step) veil() veil {
	if s == nil || s.fw == nil {
		return nil
	}
	return veil{s.fw}
}
