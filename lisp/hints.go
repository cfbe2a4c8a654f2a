package lisp

// unsupportedHint explains, in one line an LLM can act on, how to do in
// PTC-Lisp what a Clojure name it does not support would do. It returns ""
// for names it knows nothing about.
func unsupportedHint(name string) string {
	if h, ok := hints[name]; ok {
		return name + " is not available in PTC-Lisp: " + h
	}
	return ""
}

const (
	hintSetVar   = "vars are not assigned: def the name again, or keep changing state in an atom, (def a (atom 0)) (reset! a 1)"
	hintNoIO     = "programs have no file, network or environment access; data comes from ctx/ and from tools"
	hintParallel = "use pmap or pcalls for parallel work"
	hintClause   = "catch and finally are clauses of try: (try body... (catch Exception e handler...) (finally cleanup...))"
	hintNoTypes  = "there are no new types or interfaces: use maps and functions, defrecord with defprotocol, or defmulti"
	hintRandom   = "programs are deterministic; there is no randomness"

	hintDynamic    = "only binding binds dynamic vars, (binding [*depth* 1] body...); or pass values as arguments, or use let"
	hintNamespaces = "there is one namespace: def names at the top level and use them by name; builtins need no require"
	hintMeta       = "values carry no metadata; keep extra information in a map"
	hintClasses    = "values are never converted to another class; test them with instance? or predicates such as map?, string?, number?, and convert with int, double, str, vec"
	hintHost       = "there are no host objects; use the builtin functions"
	hintRatios     = "there are no ratios: / always returns a float"
	hintCode       = "programs cannot build and run code; write the code directly"
	hintTap        = "use println to show a value"
)

var hints = map[string]string{
	".stream":         "use Clojure's sequence functions on the collection itself: (->> coll (filter p) (map f))",
	"set!":            hintSetVar,
	"with-redefs":     hintDynamic,
	"eval":            hintCode,
	"load-string":     hintCode,
	"macroexpand-all": "use macroexpand on a quoted call of a macro, (macroexpand '(m x))",
	"slurp":           hintNoIO, "spit": hintNoIO, "file-seq": hintNoIO, "line-seq": hintNoIO,
	"System/getenv": hintNoIO, "System/exit": hintNoIO, "sh": hintNoIO, "print-method": hintNoIO,
	"pvalues": hintParallel, "thread": hintParallel, "locking": hintParallel,
	"catch": hintClause, "finally": hintClause,
	"deftype": hintNoTypes, "proxy": hintNoTypes,
	"gen-class": hintNoTypes,
	"rand":      hintRandom, "rand-int": hintRandom, "Math/random": hintRandom, "clojure.math/random": hintRandom,
	"UUID/randomUUID": "programs are deterministic; there are no random UUIDs: derive an id from the data (str, hash), or parse one with (parse-uuid s)", "rand-nth": hintRandom, "shuffle": hintRandom,
	"random-uuid": hintRandom, "random-sample": hintRandom,

	// The rest of clojure.core that programs might write (docs/clojure-core.md).
	"alter-var-root": hintSetVar, "var-set": hintSetVar,
	"with-local-vars": hintSetVar,
	"bound-fn":        hintDynamic, "bound-fn*": hintDynamic, "with-bindings": hintDynamic, "with-bindings*": hintDynamic,
	"with-redefs-fn": hintDynamic, "get-thread-bindings": hintDynamic, "push-thread-bindings": hintDynamic,
	"pop-thread-bindings": hintDynamic, "thread-bound?": hintDynamic,
	"in-ns": hintNamespaces, "create-ns": hintNamespaces, "the-ns": hintNamespaces, "find-ns": hintNamespaces,
	"all-ns": hintNamespaces, "remove-ns": hintNamespaces, "ns-name": hintNamespaces, "ns-publics": hintNamespaces,
	"ns-interns": hintNamespaces, "ns-map": hintNamespaces, "ns-aliases": hintNamespaces, "ns-imports": hintNamespaces,
	"ns-refers": hintNamespaces, "ns-resolve": hintNamespaces, "ns-unalias": hintNamespaces, "ns-unmap": hintNamespaces,
	"refer-clojure": hintNamespaces, "requiring-resolve": hintNamespaces,
	"intern": hintNamespaces, "find-var": hintNamespaces, "load-file": hintCode,
	"load-reader": hintCode, "read+string": "use read-string, which reads the first form of a string as data",
	"meta": hintMeta, "with-meta": hintMeta, "vary-meta": hintMeta, "alter-meta!": hintMeta, "reset-meta!": hintMeta,
	"cast":      hintClasses,
	"bean":      hintHost,
	"defstruct": hintNoTypes, "struct": hintNoTypes, "struct-map": hintNoTypes, "create-struct": hintNoTypes,
	"definterface": hintNoTypes, "definline": hintNoTypes,
	"extend": hintNoTypes, "gen-interface": hintNoTypes,

	"numerator": hintRatios, "denominator": hintRatios, "rationalize": hintRatios,
	"vector-of":    "use vector or vec (there are no primitive vectors)",
	"find-keyword": "use (keyword s)",
	"read-line":    hintNoIO, "with-open": hintNoIO, "with-in-str": hintNoIO,
	"tap>": hintTap, "add-tap": hintTap, "remove-tap": hintTap,
	"uuid?": "there is no UUID type: UUIDs are strings, and (parse-uuid s) returns the canonical string or nil",
}
