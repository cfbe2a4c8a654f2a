package lisp_test

import (
	"context"
	"slices"
	"testing"

	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/lisp/internal/analyze"
)

// TestDocs runs every example of the documentation table and checks the
// value and the output it states; every entry has calling forms, a text
// and an example, and names a builtin or a special form.
func TestDocs(t *testing.T) {
	docs := lisp.Docs()
	builtin := map[string]bool{}
	for _, n := range lisp.BuiltinNames() {
		builtin[n] = true
	}
	for _, d := range docs {
		if !builtin[d.Name] && !analyze.IsSpecialForm(d.Name) {
			t.Errorf("%s is documented but is neither a builtin nor a special form", d.Name)
		}
		if len(d.Usage) == 0 || d.Text == "" || len(d.Examples) == 0 {
			t.Errorf("%s: usage %q, text %q, %d examples", d.Name, d.Usage, d.Text, len(d.Examples))
		}
		var ns *lisp.Namespace
		for _, ex := range d.Examples {
			res, err := lisp.Run(context.Background(), ex.Program, lisp.Options{Namespace: ns})
			if err != nil {
				t.Errorf("%s: %s: %v", d.Name, ex.Program, err)
				continue
			}
			ns = res.Namespace
			if got := lisp.Print(res.Value, lisp.PrintOptions{}); got != ex.Result {
				t.Errorf("%s: %s\n got %s\nwant %s", d.Name, ex.Program, got, ex.Result)
			}
			if !slices.Equal(res.Output, ex.Output) && !(len(res.Output) == 0 && len(ex.Output) == 0) {
				t.Errorf("%s: %s: output %q, want %q", d.Name, ex.Program, res.Output, ex.Output)
			}
		}
	}
}

// TestDocsCoverBuiltins: every builtin, alias and constant has a doc entry
// (its own or, for an alias, the one of the builtin it names).
func TestDocsCoverBuiltins(t *testing.T) {
	for _, n := range lisp.BuiltinNames() {
		if _, ok := lisp.LookupDoc(n); !ok {
			t.Errorf("%s has no doc entry", n)
		}
	}
	for _, tt := range []struct{ name, entry string }{
		{"str/join", "clojure.string/join"},
		{"join", "clojure.string/join"},
		{"clojure.core/map", "map"},
		{"string/trim", "clojure.string/trim"},
		{"defn", "defn"},
	} {
		if d, ok := lisp.LookupDoc(tt.name); !ok || d.Name != tt.entry {
			t.Errorf("LookupDoc(%q) = %q, %v; want the entry %q", tt.name, d.Name, ok, tt.entry)
		}
	}
	if d, _ := lisp.LookupDoc("map"); d.MinArgs != 1 || d.MaxArgs != -1 || d.Special {
		t.Errorf("map: arities %d..%d, special %v", d.MinArgs, d.MaxArgs, d.Special)
	}
	if d, _ := lisp.LookupDoc("let"); !d.Special {
		t.Errorf("let is not marked special")
	}
	if d, _ := lisp.LookupDoc("Math/abs"); d.Name != "abs" || !slices.Contains(d.Aliases, "Math/abs") {
		t.Errorf("Math/abs: entry %q, aliases %q", d.Name, d.Aliases)
	}
	// Each builtin name is the name or an alias of exactly one entry.
	var names []string
	for _, d := range lisp.Docs() {
		if !d.Special {
			names = append(names, d.Name)
		}
		names = append(names, d.Aliases...)
	}
	slices.Sort(names)
	if want := lisp.BuiltinNames(); !slices.Equal(names, want) {
		t.Errorf("the entries' names and aliases are %d names, the builtins %d", len(names), len(want))
	}
}
