package agent

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/ptc-go/ptc/lisp"
)

// What a mission leaves behind for readers outside the firewall goes
// through the veil of the Steps it shows (agent/internal/firewall.Veil);
// a Fail's Details are Go data, redacted here.

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
