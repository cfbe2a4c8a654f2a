package firewall

import (
	"context"
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
	return lisp.Print(v, lisp.PrintOptions{Redact: Veil{fw}.Redaction()})
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

// cellValue runs src with ctx/rows bound to rows: a value holding cells.
func cellValue(t *testing.T, src string, rows lisp.Value) lisp.Value {
	t.Helper()
	res, err := lisp.Run(context.Background(), src, lisp.Options{Input: lisp.NewMap(lisp.Keyword("rows"), rows)})
	if err != nil {
		t.Fatal(err)
	}
	return res.Value
}

// Cells are walked into: a firewalled collection held by an atom is found
// at its place ("@" steps) and hidden there once moved, onto the same
// value or onto the value read back from its printed form (new cells);
// an atom that holds itself does not make the walks endless.
func TestExportCells(t *testing.T) {
	orig, rows := rowsFirewall()
	for _, src := range []string{
		`(atom {:n 1 :rows ctx/rows})`,
		`(let [a (atom nil)] (reset! a [a {:rows ctx/rows} a]) a)`,
		`(let [a (atom nil) b (atom a)] (reset! a [b (volatile! ctx/rows)]) [a b])`,
	} {
		ret := cellValue(t, src, rows)
		want := redacted(ret, orig)
		if !strings.Contains(want, Placeholder) || strings.Contains(want, "rowA") {
			t.Fatalf("%s: the original firewall shows %s", src, want)
		}
		data := Marshal(orig, ret, false)
		if !strings.Contains(string(data), `"@"`) {
			t.Errorf("%s: no path into a cell: %s", src, data)
		}
		same, err := Unmarshal(data, ret)
		if err != nil {
			t.Fatal(err)
		}
		if got := redacted(ret, same); got != want {
			t.Errorf("%s: moved onto the same value: %s, want %s", src, got, want)
		}
		back, err := lisp.Read(lisp.Print(ret, lisp.PrintOptions{Exact: true}), lisp.ReadOptions{})
		if err != nil {
			continue // a cycle is cut in print: nothing reads back
		}
		moved, err := Unmarshal(data, back)
		if err != nil {
			t.Fatal(err)
		}
		if got := redacted(back, moved); got != want {
			t.Errorf("%s: moved onto the value read back: %s, want %s", src, got, want)
		}
	}
}

// A "_" var's atom is firewalled as a whole: what it holds is hidden, also
// once the program puts something else in it, and its texts are scrubbed;
// recording a value that holds itself ends.
func TestFirewalledCells(t *testing.T) {
	res, err := lisp.Run(context.Background(), `(def _box (atom nil)) (reset! _box [_box {:s "the-hidden-text-1"}]) (def pub (atom [_box]))`, lisp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	fw := New(nil, nil)
	fw.AddMemory(res.Namespace)
	box, _ := res.Namespace.Get("_box")
	pub, _ := res.Namespace.Get("pub")
	fw.Add(pub, false)
	if got := redacted(pub, fw); got != "#atom[["+Placeholder+"]]" {
		t.Errorf("pub prints %s", got)
	}
	if got := fw.Scrub("x the-hidden-text-1 y"); strings.Contains(got, "hidden-text") {
		t.Errorf("scrubbed %q", got)
	}
	// A later turn changes the atom: the next AddMemory records its new text.
	res, err = lisp.Run(context.Background(), `(reset! _box "the-hidden-text-2")`, lisp.Options{Namespace: res.Namespace})
	if err != nil {
		t.Fatal(err)
	}
	fw.AddMemory(res.Namespace)
	if got := fw.Scrub("x the-hidden-text-2 y"); strings.Contains(got, "hidden-text") {
		t.Errorf("scrubbed %q", got)
	}
	if got := redacted(box, fw); got != Placeholder {
		t.Errorf("_box prints %s", got)
	}
}
