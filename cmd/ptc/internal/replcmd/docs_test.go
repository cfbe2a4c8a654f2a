package replcmd

import (
	"strings"
	"testing"

	"github.com/ptc-go/ptc/lisp"
)

// TestReplDocsCoverBuiltins: :doc finds the entries of lisp's documentation
// table (whose examples lisp's TestDocs runs) for the most used names,
// also spelled with a namespace, and the names the REPL completes as
// special forms are special forms or builtins.
func TestReplDocsCoverBuiltins(t *testing.T) {
	for _, n := range strings.Fields(`map filter reduce first rest count get assoc dissoc update merge keys vals
		conj into sort sort-by group-by frequencies str join split let defn fn if cond when -> ->> str/join`) {
		if !replDocumented(n) {
			t.Errorf("%s has no doc entry", n)
		}
	}
	builtin := map[string]bool{}
	for _, n := range replBuiltinNames() {
		builtin[n] = true
	}
	for _, d := range lisp.Docs() {
		if !builtin[d.Name] && !d.Special {
			t.Errorf("%s is documented but is neither a builtin nor a special form", d.Name)
		}
	}
}
