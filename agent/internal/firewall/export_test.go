package firewall

import (
	"strings"
	"testing"

	"github.com/ptc-go/ptc/lisp"
)

// rowsFirewall returns a firewall that a tool's result {"_rows" [rows]}
// fed, and those rows: a collection of short strings, which only its
// identity hides.
func rowsFirewall() (*Firewall, *lisp.Vector) {
	rows := lisp.NewVector([]lisp.Value{lisp.NewVector([]lisp.Value{"rowA", "rowB"})})
	fw := New(nil, nil)
	fw.AddToolResult(lisp.NewMap(lisp.Keyword("_rows"), rows))
	return fw, rows
}

func redacted(v lisp.Value, fw *Firewall) string {
	return lisp.FormatValue(v, lisp.PrintOptions{Redact: Veil{fw}.Redaction()})
}

// A moved firewall hides its collections at their places; a place the
// value no longer has hides the innermost collection on the way to it:
// the firewall errs on the side of hiding.
func TestExportFailsClosed(t *testing.T) {
	orig, rows := rowsFirewall()
	ret := lisp.NewMap(lisp.Keyword("rows"), rows, lisp.Keyword("n"), int64(1))
	if got := redacted(ret, orig); got != "{:n 1, :rows <Firewalled>}" {
		t.Fatalf("the original firewall shows %s", got)
	}
	data := Marshal(orig, ret, false)
	same, err := Unmarshal(data, ret)
	if err != nil {
		t.Fatal(err)
	}
	if got := redacted(ret, same); got != "{:n 1, :rows <Firewalled>}" {
		t.Errorf("moved onto the same value: %s", got)
	}
	changed := lisp.NewMap(lisp.Keyword("rows"), lisp.NewVector([]lisp.Value{"x"}), lisp.Keyword("other"), int64(1))
	fw, err := Unmarshal(data, changed)
	if err != nil {
		t.Fatal(err)
	}
	if got := redacted(changed, fw); got != "{:other 1, :rows <Firewalled>}" {
		t.Errorf("moved onto a changed value: %s", got)
	}
	// The place now holds a string: the map on the way is hidden.
	gone := lisp.NewMap(lisp.Keyword("rows"), "now a string", lisp.Keyword("other"), int64(1))
	if fw, err = Unmarshal(data, gone); err != nil {
		t.Fatal(err)
	}
	if got := redacted(gone, fw); got != Placeholder {
		t.Errorf("moved onto a value without the place: %s", got)
	}
	if _, err := Unmarshal([]byte(`{"format":"other"}`), changed); err == nil {
		t.Error("a firewall of another format was read")
	}
}

// A value too large to walk for its firewalled collections (shared
// structure makes one of 2^25 paths) is hidden whole once moved.
func TestExportBounded(t *testing.T) {
	orig, rows := rowsFirewall()
	var ret lisp.Value = lisp.NewVector([]lisp.Value{rows})
	for range 25 {
		ret = lisp.NewVector([]lisp.Value{ret, ret})
	}
	data := Marshal(orig, ret, false)
	if !strings.Contains(string(data), `"hidden":[[]]`) {
		t.Fatalf("firewall %.200s", data)
	}
	fw, err := Unmarshal(data, ret)
	if err != nil {
		t.Fatal(err)
	}
	if got := redacted(ret, fw); got != Placeholder {
		t.Errorf("redacted %.100s", got)
	}
}
