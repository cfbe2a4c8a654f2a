package lisp_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/lisp/analyze"
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
			if got := lisp.FormatValue(res.Value, lisp.PrintOptions{}); got != ex.Result {
				t.Errorf("%s: %s\n got %s\nwant %s", d.Name, ex.Program, got, ex.Result)
			}
			if !slices.Equal(res.Output, ex.Output) && !(len(res.Output) == 0 && len(ex.Output) == 0) {
				t.Errorf("%s: %s: output %q, want %q", d.Name, ex.Program, res.Output, ex.Output)
			}
		}
	}
}

// docsMissing are the builtins still without an entry. The list only
// shrinks: TestDocsCoverBuiltins fails for a name that is on it and has an
// entry, and for a builtin without one that is not on it.
var docsMissing = strings.Fields(`
	.getTime Date. Double/MAX_VALUE Double/MIN_VALUE Double/NEGATIVE_INFINITY Double/NaN
	Double/POSITIVE_INFINITY Double/valueOf LocalDate/parse Long/MIN_VALUE Long/valueOf Math/E Math/atan
	Math/cbrt Math/cos Math/exp Math/log Math/log10 Math/rint Math/round Math/signum Math/sin Math/tan
	NaN? System/currentTimeMillis associative? bit-and-not bit-clear bit-flip bit-not bit-set
	bounded-count cat cbrt char? clojure.set/index clojure.set/join clojure.set/rename
	clojure.string/escape clojure.string/re-quote-replacement completing counted? decimal? distinct?
	doall dorun eduction ensure-reduced exp flush halt-when hash ident? ifn? indexed? infinite? inst-ms
	inst? iteration java.util.Date. list? log log10 map-entry? min-by newline nfirst nnext nthnext
	parse-boolean parse-uuid pcalls pr print printf qualified-ident? qualified-keyword?
	qualified-symbol? ratio? rational? re-pattern regex? replicate reversible? rsubseq run! seq?
	seqable? sequential? simple-ident? simple-keyword? simple-symbol? subseq symbol? trunc unreduced
	unsigned-bit-shift-right update-keys var? zip
`)

// TestDocsCoverBuiltins: every builtin, alias and constant has a doc entry
// (its own or, for an alias, the one of the builtin it names).
func TestDocsCoverBuiltins(t *testing.T) {
	missing := map[string]bool{}
	for _, n := range docsMissing {
		missing[n] = true
	}
	for _, n := range lisp.BuiltinNames() {
		_, ok := lisp.LookupDoc(n)
		switch {
		case ok && missing[n]:
			t.Errorf("%s has a doc entry now: take it off docsMissing", n)
		case !ok && !missing[n]:
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
}
