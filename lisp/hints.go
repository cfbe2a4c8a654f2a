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
)

var hints = map[string]string{
	"atom": hintMutable, "swap!": hintMutable, "reset!": hintMutable, "deref": hintMutable,
	"ref": hintMutable, "dosync": hintMutable, "alter": hintMutable, "commute": hintMutable,
	"agent": hintMutable, "send": hintMutable, "send-off": hintMutable, "volatile!": hintMutable,
	"vswap!": hintMutable, "vreset!": hintMutable, "set!": hintMutable, "transient": hintMutable,
	"persistent!": hintMutable, "conj!": hintMutable, "assoc!": hintMutable, "add-watch": hintMutable,
	"binding":     "there are no dynamic vars; pass values as arguments or use let",
	"with-redefs": "there are no dynamic vars; pass values as arguments or use let",
	"while":       "write the loop with loop/recur, or iterate a collection with doseq/reduce",
	"eval":        "programs cannot build and run code; write the code directly",
	"load-string": "programs cannot build and run code; write the code directly",
	"read-string": "programs cannot read code; parse numbers with parse-long/parse-double",
	"macroexpand": "there are no macros",
	"slurp":       hintNoIO, "spit": hintNoIO, "file-seq": hintNoIO, "line-seq": hintNoIO,
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
	"lazy-seq": "build sequences with range, iterate, repeat or map, and take a finite part",
	"delay":    "compute the value directly with let",
	"force":    "compute the value directly with let",
	"new":      "there are no host objects; use the builtin functions",
	".":        "there are no host objects; use the builtin functions",
	"..":       "there are no host objects; use the builtin functions",
	"doto":     "there are no host objects; use the builtin functions",
	// Java methods LLMs reach for, and their PTC-Lisp spelling.
	".toUpperCase": "use (clojure.string/upper-case s)",
	".toLowerCase": "use (clojure.string/lower-case s)",
	".trim":        "use (clojure.string/trim s)",
	".length":      "use (count s)",
	".size":        "use (count coll)",
	".contains":    "use (clojure.string/includes? s sub) for strings, (contains? coll x) for collections",
	".indexOf":     "use (clojure.string/index-of s sub)",
	".startsWith":  "use (clojure.string/starts-with? s prefix)",
	".endsWith":    "use (clojure.string/ends-with? s suffix)",
	".substring":   "use (subs s start end)",
	".split":       "use (clojure.string/split s #\"regex\")",
	".replace":     "use (clojure.string/replace s match replacement)",
	".equals":      "use (= a b)",
	".get":         "use (get coll k)",
	".isEmpty":     "use (empty? coll)",
	".toString":    "use (str x)",
	".format":      "use (format fmt args...)",
}
