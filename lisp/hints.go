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
	hintMutable  = "there is no mutable state; accumulate with reduce or loop/recur, and keep values across turns with def"
	hintNoIO     = "programs have no file, network or environment access; data comes from ctx/ and from tools"
	hintParallel = "use pmap or pcalls for parallel work"
	hintErrors   = "errors end the program and are reported back to you; check values with if/nil?/some? first, or stop with (fail {:reason :x :message \"...\"})"
	hintNoTypes  = "there are no types or macros; use maps and functions"
	hintRandom   = "programs are deterministic; there is no randomness"

	hintDynamic      = "there are no dynamic vars; pass values as arguments or use let"
	hintNamespaces   = "there is one namespace: def names at the top level and use them by name; builtins need no require"
	hintMeta         = "values carry no metadata; keep extra information in a map"
	hintClasses      = "there are no classes; test values with predicates such as map?, vector?, string?, number?, keyword?, nil?, fn?"
	hintHost         = "there are no host objects; use the builtin functions"
	hintArrays       = "there are no Java arrays; use vectors (vec, into, nth, assoc, count)"
	hintNumbers      = "numbers are 64-bit integers and floats; convert with int, long or double"
	hintRatios       = "there are no ratios: / always returns a float"
	hintSorted       = "maps and sets always iterate in sorted (canonical) order, those of sorted-map-by and sorted-set-by in their comparator's; there is no test for it"
	hintSymbols      = "there are no symbols; use keywords or strings"
	hintRegexMatcher = "use re-find, re-matches or re-seq: they return the match, or [match group1 ...] when the pattern has groups"
	hintCode         = "programs cannot build and run code; write the code directly"
	hintHierarchy    = "there are no hierarchies or multimethods; dispatch with case, cond or a map of functions"
	hintTap          = "use println to show a value"
)

var hints = map[string]string{
	"atom": hintMutable, "swap!": hintMutable, "reset!": hintMutable, "deref": hintMutable,
	"ref": hintMutable, "dosync": hintMutable, "alter": hintMutable, "commute": hintMutable,
	"agent": hintMutable, "send": hintMutable, "send-off": hintMutable, "volatile!": hintMutable,
	"vswap!": hintMutable, "vreset!": hintMutable, "set!": hintMutable, "transient": hintMutable,
	"persistent!": hintMutable, "conj!": hintMutable, "assoc!": hintMutable, "add-watch": hintMutable,
	"binding":     hintDynamic,
	"with-redefs": hintDynamic,
	"while":       "write the loop with loop/recur, or iterate a collection with doseq/reduce",
	"eval":        hintCode,
	"load-string": hintCode,
	"read-string": "programs cannot read code; parse numbers with parse-long/parse-double",
	"macroexpand": "there are no macros", "macroexpand-all": "there are no macros",
	"slurp": hintNoIO, "spit": hintNoIO, "file-seq": hintNoIO, "line-seq": hintNoIO,
	"System/getenv": hintNoIO, "System/exit": hintNoIO, "sh": hintNoIO, "print-method": hintNoIO,
	"future": hintParallel, "future-call": hintParallel, "promise": hintParallel, "deliver": hintParallel,
	"pvalues": hintParallel, "thread": hintParallel, "locking": hintParallel,
	"try": hintErrors, "catch": hintErrors, "finally": hintErrors, "throw": hintErrors,
	"ex-info": hintErrors, "ex-message": hintErrors, "ex-data": hintErrors,
	"defrecord": hintNoTypes, "deftype": hintNoTypes, "defprotocol": hintNoTypes, "defmulti": hintNoTypes,
	"defmethod": hintNoTypes, "reify": hintNoTypes, "proxy": hintNoTypes, "defmacro": hintNoTypes,
	"gen-class": hintNoTypes, "extend-type": hintNoTypes, "extend-protocol": hintNoTypes,
	"rand": hintRandom, "rand-int": hintRandom, "rand-nth": hintRandom, "shuffle": hintRandom,
	"random-uuid": hintRandom, "random-sample": hintRandom,
	"delay": "compute the value directly with let",
	"force": "compute the value directly with let",
	"new":   hintHost,
	"doto":  hintHost,

	// The rest of clojure.core that programs might write (docs/clojure-core.md).
	"swap-vals!": hintMutable, "reset-vals!": hintMutable, "compare-and-set!": hintMutable,
	"ref-set": hintMutable, "alter-var-root": hintMutable, "var-set": hintMutable,
	"with-local-vars": hintMutable, "set-validator!": hintMutable, "remove-watch": hintMutable,
	"volatile?": hintMutable, "dissoc!": hintMutable, "disj!": hintMutable, "pop!": hintMutable,
	"await": hintMutable, "await-for": hintMutable, "send-via": hintMutable, "restart-agent": hintMutable,
	"agent-error": hintMutable,
	"future?":     hintParallel, "future-done?": hintParallel, "future-cancel": hintParallel,
	"future-cancelled?": hintParallel,
	"delay?":            "compute the value directly with let",
	"bound-fn":          hintDynamic, "bound-fn*": hintDynamic, "with-bindings": hintDynamic, "with-bindings*": hintDynamic,
	"with-redefs-fn": hintDynamic, "get-thread-bindings": hintDynamic, "push-thread-bindings": hintDynamic,
	"pop-thread-bindings": hintDynamic, "thread-bound?": hintDynamic, "bound?": hintDynamic,
	"in-ns": hintNamespaces, "create-ns": hintNamespaces, "the-ns": hintNamespaces, "find-ns": hintNamespaces,
	"all-ns": hintNamespaces, "remove-ns": hintNamespaces, "ns-name": hintNamespaces, "ns-publics": hintNamespaces,
	"ns-interns": hintNamespaces, "ns-map": hintNamespaces, "ns-aliases": hintNamespaces, "ns-imports": hintNamespaces,
	"ns-refers": hintNamespaces, "ns-resolve": hintNamespaces, "ns-unalias": hintNamespaces, "ns-unmap": hintNamespaces,
	"refer-clojure": hintNamespaces, "requiring-resolve": hintNamespaces, "resolve": hintNamespaces,
	"intern": hintNamespaces, "find-var": hintNamespaces, "var-get": hintNamespaces, "load-file": hintCode,
	"load-reader": hintCode, "macroexpand-1": "there are no macros", "read+string": "programs cannot read code; parse numbers with parse-long/parse-double",
	"meta": hintMeta, "with-meta": hintMeta, "vary-meta": hintMeta, "alter-meta!": hintMeta, "reset-meta!": hintMeta,
	"type": hintClasses, "class": hintClasses, "instance?": hintClasses, "cast": hintClasses,
	"bean": hintHost, "memfn": hintHost,
	"defstruct": hintNoTypes, "struct": hintNoTypes, "struct-map": hintNoTypes, "create-struct": hintNoTypes,
	"definterface": hintNoTypes, "definline": hintNoTypes, "satisfies?": hintNoTypes, "extends?": hintNoTypes,
	"extend": hintNoTypes, "record?": hintNoTypes, "gen-interface": hintNoTypes,
	"isa?": hintHierarchy, "derive": hintHierarchy, "underive": hintHierarchy, "make-hierarchy": hintHierarchy,
	"get-method": hintHierarchy, "remove-method": hintHierarchy, "prefer-method": hintHierarchy,
	"into-array": hintArrays, "to-array": hintArrays, "to-array-2d": hintArrays, "make-array": hintArrays,
	"aget": hintArrays, "aset": hintArrays, "alength": hintArrays, "aclone": hintArrays, "amap": hintArrays,
	"areduce": hintArrays, "int-array": hintArrays, "long-array": hintArrays, "double-array": hintArrays,
	"object-array": hintArrays, "boolean-array": hintArrays, "byte-array": hintArrays, "char-array": hintArrays,
	"float-array": hintArrays, "short-array": hintArrays,
	"bigint": hintNumbers, "bigdec": hintNumbers, "biginteger": hintNumbers, "byte": hintNumbers,
	"short": hintNumbers, "with-precision": hintNumbers,
	"numerator": hintRatios, "denominator": hintRatios, "rationalize": hintRatios,
	"sorted?":   hintSorted,
	"vector-of": "use vector or vec (there are no primitive vectors)",
	"symbol":    hintSymbols, "gensym": hintSymbols, "find-keyword": "use (keyword s)",
	"re-matcher": hintRegexMatcher, "re-groups": hintRegexMatcher,
	"read-line": hintNoIO, "with-open": hintNoIO, "with-in-str": hintNoIO,
	"ex-cause": hintErrors,
	"tap>":     hintTap, "add-tap": hintTap, "remove-tap": hintTap,
	"uuid?":        "there is no UUID type: UUIDs are strings, and (parse-uuid s) returns the canonical string or nil",
	"time":         "there is no (time ...): evaluate the expression directly; (System/currentTimeMillis) gives the clock",
	"with-out-str": "output cannot be captured as a string; build the string with str, format or clojure.string/join",
	"when-first":   "use (when-let [x (first coll)] ...), or (when (seq coll) ...) when x may be nil or false",

	// Java methods LLMs reach for, and their PTC-Lisp spelling.
	".get":           "use (get coll k)",
	"StringBuilder.": "strings are immutable: build the string with str, apply str, format or clojure.string/join",
	".append":        "strings are immutable: build the string with str, apply str, format or clojure.string/join",
	".format":        "use (format fmt args...)",
}
