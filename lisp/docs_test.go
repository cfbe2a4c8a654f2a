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
	.getTime <= > >= Date. Double/MAX_VALUE Double/MIN_VALUE Double/NEGATIVE_INFINITY Double/NaN
	Double/POSITIVE_INFINITY Double/parseDouble Double/valueOf LocalDate/parse Long/MAX_VALUE
	Long/MIN_VALUE Long/parseLong Long/valueOf Math/E Math/PI Math/atan Math/cbrt Math/ceil Math/cos
	Math/exp Math/floor Math/log Math/log10 Math/max Math/min Math/rint Math/round Math/signum Math/sin
	Math/tan NaN? System/currentTimeMillis any? associative? bit-and bit-and-not bit-clear bit-flip
	bit-not bit-or bit-set bit-shift-left bit-shift-right bit-test bit-xor boolean boolean?
	bounded-count cat cbrt char char? clojure.set/difference clojure.set/index clojure.set/intersection
	clojure.set/join clojure.set/map-invert clojure.set/project clojure.set/rename
	clojure.set/rename-keys clojure.set/select clojure.set/subset? clojure.set/superset?
	clojure.set/union clojure.string/escape clojure.string/last-index-of
	clojure.string/re-quote-replacement clojure.string/replace clojure.string/replace-first
	clojure.string/reverse clojure.string/trim-newline clojure.string/triml clojure.string/trimr coll?
	comparator completing counted? cycle decimal? difference disj distinct? doall dorun double?
	drop-last eduction empty ensure-reduced every-pred exp false? ffirst float? flush fn? fnext
	halt-when hash hash-set ident? identical? ifn? indexed? infinite? inst-ms inst? int? integer?
	intersection iteration java.util.Date. keep-indexed key keyword? last-index-of list* list? log log10
	map-entry? max-key min-by namespace nat-int? neg-int? neg? newline nfirst nnext not-any? not-every?
	nthnext nthrest num odd? parse-boolean parse-uuid pcalls pop pos-int? pos? pr print print-str printf
	println-str prn-str qualified-ident? qualified-keyword? qualified-symbol? ratio? rational?
	re-pattern reduced? reductions regex? repeatedly replace-first replicate reversible? rseq rsubseq
	run! seq? seqable? sequence sequential? set? simple-ident? simple-keyword? simple-symbol? some-fn
	sorted-set split-with subseq subset? subvec superset? symbol? take-nth trampoline trim-newline triml
	trimr true? trunc unreduced unsigned-bit-shift-right update-keys val var? zip
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
