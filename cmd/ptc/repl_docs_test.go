package main

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/ptc-go/ptc/lisp"
)

// TestReplDocsExamples runs every example of repl_docs.md and checks the
// value and the output it states.
func TestReplDocsExamples(t *testing.T) {
	entries := replDocList()
	if len(entries) < 100 {
		t.Fatalf("%d doc entries, want at least 100", len(entries))
	}
	for _, e := range entries {
		if e.usage == "" || e.desc == "" || len(e.examples) == 0 {
			t.Errorf("%s: usage %q, description %q, %d examples", e.name, e.usage, e.desc, len(e.examples))
		}
		var ns *lisp.Namespace
		for _, ex := range e.examples {
			res, err := lisp.Run(context.Background(), ex.src, lisp.Options{Namespace: ns})
			if err != nil {
				t.Errorf("%s: %s: %v", e.name, ex.src, err)
				continue
			}
			ns = res.Namespace
			if got := lisp.FormatValue(res.Value, lisp.PrintOptions{}); got != ex.want {
				t.Errorf("%s: %s\n got %s\nwant %s", e.name, ex.src, got, ex.want)
			}
			if !slices.Equal(res.Output, ex.output) && !(len(res.Output) == 0 && len(ex.output) == 0) {
				t.Errorf("%s: %s: output %q, want %q", e.name, ex.src, res.Output, ex.output)
			}
		}
	}
}

// TestReplDocsCoverBuiltins: the documented names are builtins or special
// forms, and the most used builtins are documented.
func TestReplDocsCoverBuiltins(t *testing.T) {
	known := map[string]bool{}
	for _, n := range append(lisp.BuiltinNames(), replSpecialForms...) {
		known[n] = true
	}
	for _, e := range replDocList() {
		if !known[e.name] {
			t.Errorf("%s is documented but is neither a builtin nor a special form", e.name)
		}
	}
	for _, n := range strings.Fields(`map filter reduce first rest count get assoc dissoc update merge keys vals
		conj into sort sort-by group-by frequencies str join split let defn fn if cond when -> ->>`) {
		if replLookupDoc(n) == nil {
			t.Errorf("%s has no doc entry", n)
		}
	}
}
