package agent

import (
	"context"
	"strings"
	"testing"

	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm/llmtest"
)

// exportMission runs a mission whose program returns, under public keys,
// collections a tool firewalled (rows of short strings: only their
// identity hides them) and returns its Step.
func exportMission(t *testing.T, program string) *Step {
	t.Helper()
	vault := Func(func(context.Context, *lisp.Map) (any, error) {
		return map[string]any{"_rows": []any{[]any{"rowA", "rowB"}}}, nil
	})
	a := MustNew(Config{Prompt: "p", Tools: map[string]Tool{"vault": vault}})
	step, err := a.Run(context.Background(), Options{LLM: llmtest.NewScript(llmtest.Code(program)).Func()})
	if err != nil {
		t.Fatal(err)
	}
	return step
}

func redacted(v lisp.Value, fw *firewall) string {
	return lisp.FormatValue(v, lisp.PrintOptions{Redact: veil{fw}.redaction()})
}

// A moved firewall hides its collections at their places; a place the
// value no longer has hides the innermost collection on the way to it:
// the firewall errs on the side of hiding.
func TestFirewallExportFailsClosed(t *testing.T) {
	orig := exportMission(t, `(let [r (tool/vault {})] (return {:rows (:_rows r) :n 1}))`)
	data := marshalFirewall(orig.fw, orig.Return, false)
	same, err := unmarshalFirewall(data, orig.Return)
	if err != nil {
		t.Fatal(err)
	}
	if got := redacted(orig.Return, same); got != "{:n 1, :rows <Firewalled>}" {
		t.Errorf("moved onto the same value: %s", got)
	}
	changed := lisp.NewMap(lisp.Keyword("rows"), lisp.NewVector([]lisp.Value{"x"}), lisp.Keyword("other"), int64(1))
	fw, err := unmarshalFirewall(data, changed)
	if err != nil {
		t.Fatal(err)
	}
	if got := redacted(changed, fw); got != "{:other 1, :rows <Firewalled>}" {
		t.Errorf("moved onto a changed value: %s", got)
	}
	if _, err := unmarshalFirewall([]byte(`{"format":"other"}`), changed); err == nil {
		t.Error("a firewall of another format was read")
	}
}

// A value too large to walk for its firewalled collections (shared
// structure makes one of 2^25 paths) is hidden whole once moved.
func TestFirewallExportBounded(t *testing.T) {
	orig := exportMission(t, `(let [r (tool/vault {})] (return (reduce (fn [acc _] [acc acc]) [(:_rows r)] (range 25))))`)
	data := marshalFirewall(orig.fw, orig.Return, false)
	if !strings.Contains(string(data), `"hidden":[[]]`) {
		t.Fatalf("firewall %.200s", data)
	}
	fw, err := unmarshalFirewall(data, orig.Return)
	if err != nil {
		t.Fatal(err)
	}
	if got := redacted(orig.Return, fw); got != Firewalled {
		t.Errorf("redacted %.100s", got)
	}
}
