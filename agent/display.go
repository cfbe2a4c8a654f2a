package agent

import (
	fwall "github.com/ptc-go/ptc/internal/firewall"
)

// redactedFail returns a copy of f for a reader: its texts scrubbed, its Details
// redacted (Go data with firewalled parts as Firewalled).
func redactedFail(v veil, f *Fail) *Fail {
	if f == nil {
		return nil
	}
	// A copy: the redactor keeps its Veil, and v, built on the stack of
	// every event, must not escape for the rare event with a Fail.
	r := &fwall.DataRedactor{Veil: append(veil(nil), v...), Budget: maxDetailNodes, Other: redactFail}
	return failData(r, f, 0)
}

// maxDetailNodes bounds the work of redacting a Fail's Details: a program
// may fail with a large value.
const maxDetailNodes = 100000

// redactFail redacts the Fails that Details hold.
func redactFail(r *fwall.DataRedactor, x any, depth int) (any, bool) {
	f, ok := x.(*Fail)
	if !ok {
		return nil, false
	}
	if f == nil {
		return f, true
	}
	return failData(r, f, depth+1), true
}

func failData(r *fwall.DataRedactor, f *Fail, depth int) *Fail {
	c := *f
	c.Reason, c.Message, c.Op = Reason(r.Veil.Scrub(string(f.Reason))), r.Veil.Scrub(f.Message), r.Veil.Scrub(f.Op)
	if f.Details != nil {
		c.Details = r.Map(f.Details, depth)
	}
	return &c
}
