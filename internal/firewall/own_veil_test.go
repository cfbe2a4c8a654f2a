package firewall

import (
	"strings"
	"testing"

	"github.com/ptc-go/ptc/lisp"
)

// TestOwnVeil: a Veil over a firewall of its own (ptc eval's and ptc
// repl's view of MCP tools' results) hides the "_" entries of maps from the
// start, and, once learn has seen a value, its firewalled texts wherever
// they are copied; a Veil that has learnt nothing scrubs nothing.
func TestOwnVeil(t *testing.T) {
	const secret = "tok-0123456789abcdef"
	fw := New(nil, nil)
	v, learn := Veil{fw}, fw.AddToolResult
	res := mustFromGo(t, map[string]any{"_token": secret, "id": 1})
	copied := "token=" + secret
	if got := v.Scrub(copied); got != copied {
		t.Errorf("scrubbed before it learnt anything: %q", got)
	}
	if got := v.Format(res, lisp.PrintOptions{}); strings.Contains(got, secret) || !strings.Contains(got, `"_token" <Firewalled>`) {
		t.Errorf("a _ entry before learning: %s", got)
	}
	learn(res)
	if got := v.Scrub(copied); got != "token="+Placeholder {
		t.Errorf("a copy after learning: %q", got)
	}
	if got := v.Format(lisp.NewVector([]lisp.Value{secret, copied}), lisp.PrintOptions{}); got != `[<Firewalled> "token=<Firewalled>"]` {
		t.Errorf("the string and a copy: %s", got)
	}
	if got, _ := lisp.ToJSON(mustFromGo(t, map[string]any{"t": secret}), v.Redaction()); string(got) != `{"t":"<Firewalled>"}` {
		t.Errorf("JSON: %s", got)
	}
}

// mustFromGo converts test data that converts (lisp.FromGo), failing the
// test otherwise.
func mustFromGo(tb testing.TB, x any) lisp.Value {
	tb.Helper()
	v, err := lisp.FromGo(x)
	if err != nil {
		tb.Fatal(err)
	}
	return v
}
