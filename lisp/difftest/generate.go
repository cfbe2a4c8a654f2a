package difftest

import "strings"

// The generated part of the corpus: templates (a function applied to
// arguments drawn from pools of labelled values) expanded in a fixed order.
// An entry's id is "clj:" + the function (qualified names shortened:
// clojure.string/join -> string.join, Math/abs -> Math.abs, / -> div) + "/" +
// the labels of its arguments.

// arg is one value of a pool: its label (part of the id) and its source.
type arg struct{ label, src string }

type generator struct {
	out  []Entry
	seen map[string]bool
}

func (g *generator) add(id, src string) {
	id = "clj:" + id
	if g.seen[id] {
		panic("difftest: duplicate generated id " + id)
	}
	g.seen[id] = true
	g.out = append(g.out, Entry{ID: id, Src: src})
}

// idName shortens a function name for use in an id.
func idName(f string) string {
	switch {
	case f == "/":
		return "div"
	case strings.HasPrefix(f, "clojure.string/"):
		return "string." + strings.TrimPrefix(f, "clojure.string/")
	case strings.HasPrefix(f, "clojure.set/"):
		return "set." + strings.TrimPrefix(f, "clojure.set/")
	}
	return strings.ReplaceAll(f, "/", ".")
}

// apply generates (f x) for every f and every x of pool.
func (g *generator) apply(fns []string, pool []arg) {
	for _, f := range fns {
		for _, a := range pool {
			g.add(idName(f)+"/"+a.label, "("+f+" "+a.src+")")
		}
	}
}

// template generates one program per value of pool, replacing $ in tmpl
// with the value; the id is name/label.
func (g *generator) template(name, tmpl string, pool []arg) {
	for _, a := range pool {
		g.add(name+"/"+a.label, strings.ReplaceAll(tmpl, "$", a.src))
	}
}

// template2 replaces $1 and $2 with values of two pools (all combinations);
// the id is name/label1-label2.
func (g *generator) template2(name, tmpl string, p1, p2 []arg) {
	for _, a := range p1 {
		for _, b := range p2 {
			src := strings.ReplaceAll(strings.ReplaceAll(tmpl, "$1", a.src), "$2", b.src)
			g.add(name+"/"+a.label+"-"+b.label, src)
		}
	}
}

// cases adds literal programs: pairs of label and source, under name.
func (g *generator) cases(name string, pairs ...string) {
	if len(pairs)%2 != 0 {
		panic("difftest: odd cases for " + name)
	}
	for i := 0; i < len(pairs); i += 2 {
		g.add(name+"/"+pairs[i], pairs[i+1])
	}
}

// Argument pools.
var (
	// numbers for unary numeric functions
	numPool = []arg{
		{"int", "7"}, {"zero", "0"}, {"neg", "-7"}, {"float", "2.5"}, {"neg-float", "-2.5"},
		{"zero-float", "0.0"}, {"max-long", "9223372036854775807"},
		{"min-long", "-9223372036854775808"}, {"large-float", "1.0E300"},
		{"nan", "Double/NaN"}, {"inf", "Double/POSITIVE_INFINITY"},
		{"neg-inf", "Double/NEGATIVE_INFINITY"}, {"nil", "nil"}, {"string", `"7"`},
		{"unicode", `"é"`}, {"keyword", ":a"}, {"vector", "[1]"},
	}
	numPoolSmall = []arg{
		{"int", "7"}, {"zero", "0"}, {"neg", "-7"}, {"float", "2.5"},
		{"max-long", "9223372036854775807"}, {"nan", "Double/NaN"},
		{"inf", "Double/POSITIVE_INFINITY"}, {"nil", "nil"}, {"string", `"7"`},
	}
	// argument pairs for binary numeric functions
	numPairs = []arg{
		{"pos-pos", "7 2"}, {"neg-pos", "-7 2"}, {"pos-neg", "7 -2"}, {"neg-neg", "-7 -2"},
		{"by-zero", "7 0"}, {"zero-zero", "0 0"}, {"float-int", "7.5 2"},
		{"neg-float-int", "-7.5 2"}, {"int-float", "7 2.0"}, {"one-one-float", "1 1.0"},
		{"max-long-one", "9223372036854775807 1"}, {"min-long-neg-one", "-9223372036854775808 -1"},
		{"large-floats", "1.0E300 1.0E300"}, {"nan-one", "Double/NaN 1"},
		{"inf-one", "Double/POSITIVE_INFINITY 1"}, {"nil-one", "nil 1"},
		{"string-one", `"a" 1`}, {"strings", `"a" "b"`}, {"keywords", ":a :b"},
	}
	// values of every type, for predicates
	anyPool = []arg{
		{"nil", "nil"}, {"false", "false"}, {"true", "true"}, {"int", "42"}, {"neg-float", "-1.5"},
		{"nan", "Double/NaN"}, {"empty-string", `""`}, {"unicode", `"é"`}, {"char", `\a`},
		{"keyword", ":k"}, {"ns-keyword", ":ns/k"}, {"empty-vector", "[]"}, {"vector", "[1 2]"},
		{"map", "{:a 1}"}, {"empty-map", "{}"}, {"set", "#{1}"}, {"list", "(list 1 2)"},
		{"range", "(range 3)"}, {"lazy", "(map inc [1 2])"}, {"builtin", "inc"},
		{"fn", "(fn [x] x)"}, {"map-entry", "(first (seq {:a 1}))"},
	}
	anyPoolSmall = []arg{
		{"nil", "nil"}, {"false", "false"}, {"int", "42"}, {"string", `"é"`}, {"keyword", ":k"},
		{"vector", "[1 2]"}, {"map", "{:a 1}"}, {"set", "#{1}"}, {"list", "(list 1 2)"},
		{"fn", "(fn [x] x)"},
	}
	// collections for unary sequence functions
	collPool = []arg{
		{"vector", "[3 1 2]"}, {"empty", "[]"}, {"nil", "nil"}, {"neg", "[-1 -5 3]"},
		{"floats", "[1.5 -0.5 2.0]"}, {"dups", "[1 1 2 2 1]"}, {"strings", `["b" "a" "é"]`},
		{"unicode-string", `"héllo"`}, {"empty-string", `""`}, {"nested", "[[1 2] [3 [4]] []]"},
		{"mixed", `[1 "a" :b nil]`}, {"map", "{:a 1 :b 2}"}, {"set", "#{7}"},
		{"list", "(list 3 1 2)"}, {"large", "(range 1000)"}, {"lazy", "(map inc [1 2 3])"},
		{"number", "42"}, {"keyword", ":a"},
	}
	// counts for take, drop...
	countPool = []arg{
		{"0", "0"}, {"2", "2"}, {"neg", "-1"}, {"10", "10"}, {"nil", "nil"},
		{"max-long", "9223372036854775807"},
	}
	countColls = []arg{
		{"vector", "[1 2 3 4 5]"}, {"empty", "[]"}, {"nil", "nil"}, {"unicode-string", `"héllo"`},
	}
	// numeric collections for higher-order functions
	hofColls = []arg{
		{"vector", "[1 2 3 4]"}, {"empty", "[]"}, {"nil", "nil"}, {"neg", "[-3 0 5 -2]"},
		{"large", "(range 100)"}, {"set", "#{3}"}, {"map", "{:a 1}"}, {"string", `"abc"`},
		{"with-nil", "[1 nil 3]"}, {"list", "(list 4 5)"}, {"floats", "[1.5 2.5]"},
	}
	// maps (and things used as maps)
	mapPool = []arg{
		{"kw", "{:a 1 :b 2}"}, {"empty", "{}"}, {"nil", "nil"}, {"str-keys", `{"a" 1 "b" 2}`},
		{"int-keys", "{1 :x 2 :y}"}, {"nested", "{:a {:b {:c 1}}}"}, {"vector", "[10 20 30]"},
		{"sorted", "(sorted-map :b 2 :a 1)"}, {"large", "(zipmap (range 20) (range 100 120))"},
		{"string", `"abc"`}, {"number", "42"},
	}
	setPool = []arg{
		{"ints", "#{1 2 3}"}, {"empty", "#{}"}, {"nil", "nil"}, {"strings", `#{"a" "é"}`},
		{"sorted", "(sorted-set 3 1 2)"}, {"vector", "[1 2 3]"},
	}
	setPairs = []arg{
		{"overlap", "#{1 2 3} #{2 3 4}"}, {"empty", "#{} #{1}"}, {"nil", "nil #{1}"},
		{"disjoint", `#{"a" "é"} #{:b}`}, {"equal", "#{1 2} #{2 1}"}, {"vectors", "[1 2] [2 3]"},
		{"mixed-num", "#{1 2} #{1.0}"},
	}
	strPool = []arg{
		{"ordinary", `"Hello World"`}, {"empty", `""`}, {"nil", "nil"}, {"spaces", `"  a b \t\n"`},
		{"unicode", `"héllo wörld"`}, {"emoji", `"a😀b"`}, {"upper", `"ÉCOLE ß"`},
		{"commas", `"a,b,,c,,"`}, {"lines", `"l1\nl2\r\nl3\n\n"`}, {"number", "42"},
		{"keyword", ":kw"},
	}
	parsePool = []arg{
		{"int", `"42"`}, {"neg", `"-17"`}, {"plus", `"+5"`}, {"float", `"3.14"`}, {"exp", `"1e5"`},
		{"space", `" 42"`}, {"empty", `""`}, {"nil", "nil"}, {"word", `"abc"`}, {"true", `"true"`},
		{"big", `"99999999999999999999"`}, {"inf", `"Infinity"`}, {"nan", `"NaN"`},
		{"hex", `"0x1F"`}, {"arabic-digits", `"١٢"`}, {"number", "42"},
	}
	printPool = []arg{
		{"nil", "nil"}, {"true", "true"}, {"int", "-12"}, {"float", "-1.5"}, {"large-float", "1.0E10"},
		{"small-float", "1.0E-5"}, {"hundred", "100.0"}, {"tenth", "0.1"}, {"nan", "Double/NaN"},
		{"inf", "Double/NEGATIVE_INFINITY"}, {"quote", `"a\"b\\c"`}, {"newline", `"a\nb\tc"`},
		{"unicode", `"é😀"`}, {"char", `\a`}, {"keyword", ":k"}, {"ns-keyword", ":a/b"},
		{"vector", `[1 "a" :b nil]`}, {"map", `{:a 1 "b" [2]}`}, {"set", "#{1}"},
		{"list", "(list 1 2)"}, {"lazy", "(map inc [1 2])"}, {"empty-lazy", "(filter odd? [2])"},
		{"nested", "{:a {:b [1 #{2}]}}"}, {"big-map", "(zipmap (range 10) (range 10))"},
		{"string-keys", `{"b" 1 "a" 2}`},
	}
)

// Generated returns the generated part of the corpus.
func Generated() []Entry {
	g := &generator{seen: map[string]bool{}}

	// ---- numbers
	g.apply([]string{"inc", "dec", "abs", "-", "zero?", "pos?", "neg?", "even?", "odd?",
		"int", "long", "double", "float", "num", "Math/abs", "Math/floor", "Math/ceil",
		"Math/rint", "Math/round", "Math/sqrt"}, numPool)
	g.apply([]string{"NaN?", "infinite?", "nat-int?", "pos-int?", "neg-int?", "Math/cbrt",
		"Math/exp", "Math/log", "Math/log10", "Math/sin", "Math/cos", "Math/tan", "Math/atan",
		"Math/signum"}, numPoolSmall)
	g.apply([]string{"+", "-", "*", "/", "quot", "rem", "mod", "max", "min", "compare", "=",
		"==", "not=", "<", "<=", ">", ">=", "Math/pow", "Math/max", "Math/min"}, numPairs)
	g.cases("variadic",
		"plus-none", "(+)", "times-none", "(*)", "minus-none", "(-)", "div-none", "(/)",
		"plus-one", "(+ 5)", "times-one", "(* 5)", "div-one", "(/ 4)", "div-one-float", "(/ 0.5)",
		"div-zero", "(/ 0)", "plus-many", "(+ 1 2 3 4 5)", "times-mixed", "(* 1 2.0 3)",
		"minus-many", "(- 10 1 2 3)", "div-many", "(/ 100 2 5)", "max-one", "(max 1)",
		"max-none", "(max)", "min-many", "(min 3 -1 2)", "max-mixed", "(max 1 2.0)",
		"max-mixed-tie", "(max 2 2.0)", "min-nan-first", "(min Double/NaN 1)",
		"lt-chain", "(< 1 2 3)", "lt-chain-false", "(< 1 3 2)", "le-chain-eq", "(<= 1 1 2)",
		"gt-one", "(> 1)", "eq-one", "(= 1)", "eq-chain", "(= 1 1 1)", "eq-chain-false", "(= 1 1 2)",
		"not-eq-one", "(not= 1)", "numeq-chain", "(== 1 1.0 1)",
		"sum-range", "(apply + (range 100))", "factorial-20", "(apply * (range 1 21))",
		"factorial-21", "(apply * (range 1 22))", "plus-overflow", "(+ 9223372036854775807 1)",
		"minus-overflow", "(- -9223372036854775808 1)", "times-overflow", "(* 4611686018427387904 2)",
		"negate-min-long", "(- -9223372036854775808)", "inc-float-max", "(inc 1.0E308)",
		"times-float-overflow", "(* 1.0E308 10.0)", "float-precision", "(+ 0.1 0.2)",
		"inf-minus-inf", "(- Double/POSITIVE_INFINITY Double/POSITIVE_INFINITY)",
		"zero-times-inf", "(* 0 Double/POSITIVE_INFINITY)", "long-max-const", "Long/MAX_VALUE",
		"long-min-const", "Long/MIN_VALUE", "double-max-const", "Double/MAX_VALUE",
		"double-min-const", "Double/MIN_VALUE", "pi", "Math/PI", "e", "Math/E",
		"pi-floor", "(Math/floor Math/PI)", "e-log", "(Math/log Math/E)",
		"nan-eq", "(= Double/NaN Double/NaN)", "nan-numeq", "(== Double/NaN Double/NaN)",
		"quot-float", "(quot 7.5 2)", "rem-float-neg", "(rem -7.5 2)", "mod-float", "(mod 7.5 2)",
		"mod-float-neg", "(mod -7.5 2)", "mod-float-divisor", "(mod 7 2.5)",
		"compare-strings", `(compare "apple" "banana")`, "compare-keywords", "(compare :b :a)",
		"compare-nil", "(compare nil 1)", "compare-vectors", "(compare [1 2] [1 3])",
		"compare-vectors-len", "(compare [1 2 3] [1 3])", "compare-mixed", `(compare 1 "a")`,
		"compare-bools", "(compare false true)", "compare-int-float", "(compare 1 1.0)",
		"pow-neg-exp", "(Math/pow 2 -1)", "pow-zero-zero", "(Math/pow 0 0)",
		"pow-zero-neg", "(Math/pow 0 -1)", "pow-neg-half", "(Math/pow -8 0.5)",
		"round-half", "(Math/round 2.5)", "round-neg-half", "(Math/round -2.5)",
		"rint-half-even", "(Math/rint 2.5)", "round-big", "(Math/round 1.0E20)",
	)

	// ---- predicates and type tests
	g.apply([]string{"nil?", "some?", "boolean?", "string?", "keyword?", "number?", "integer?",
		"int?", "float?", "double?", "map?", "vector?", "set?", "coll?", "seq?", "list?", "fn?",
		"ifn?", "sequential?", "associative?", "char?", "boolean", "not"}, anyPool)
	g.apply([]string{"true?", "false?", "decimal?", "rational?", "ratio?", "counted?", "seqable?",
		"map-entry?", "any?", "identity", "symbol?", "var?", "reduced?"}, anyPoolSmall)

	// ---- unary sequence functions
	g.apply([]string{"first", "second", "last", "rest", "next", "butlast", "ffirst", "fnext",
		"nfirst", "nnext", "count", "empty?", "not-empty", "seq", "vec", "set", "distinct",
		"reverse", "sort", "flatten", "frequencies", "dedupe", "peek", "pop", "empty"}, collPool)
	g.template("distinct?", "(apply distinct? $)", collPool)
	g.template("sort-desc", "(sort > $)", collPool)

	// ---- counts
	for _, f := range []string{"take", "drop", "take-last", "drop-last", "split-at", "partition",
		"partition-all", "take-nth"} {
		g.template2(idName(f), "("+f+" $1 $2)", countPool, countColls)
	}
	g.template2("nthnext", "(nthnext $2 $1)", countPool, countColls)
	g.template2("nthrest", "(nthrest $2 $1)", countPool, countColls)
	g.template2("nth", "(nth $2 $1)", countPool, countColls)
	g.template2("nth-default", "(nth $2 $1 :none)", countPool, countColls)
	g.template2("repeat", "(repeat $1 $2)", countPool, []arg{{"x", ":x"}})
	g.template2("partition-step", "(partition 2 $1 $2)", []arg{{"1", "1"}, {"3", "3"}}, countColls)
	g.template2("partition-pad", "(partition 2 2 [:pad] $2)", []arg{{"2", "2"}}, countColls)
	g.template2("partition-all-step", "(partition-all 2 $1 $2)", []arg{{"1", "1"}, {"3", "3"}}, countColls)

	// ---- higher-order functions over numeric collections
	hofs := []struct{ name, tmpl string }{
		{"map", "(map inc $)"}, {"mapv", "(mapv inc $)"}, {"map-two", "(map + $ $)"},
		{"filter", "(filter odd? $)"}, {"filterv", "(filterv odd? $)"}, {"remove", "(remove odd? $)"},
		{"keep", "(keep #(when (odd? %) (* % %)) $)"}, {"some", "(some #(when (> % 2) %) $)"},
		{"every?", "(every? number? $)"}, {"not-any?", "(not-any? neg? $)"},
		{"not-every?", "(not-every? pos? $)"}, {"take-while", "(take-while #(< % 3) $)"},
		{"drop-while", "(drop-while #(< % 3) $)"}, {"partition-by", "(partition-by even? $)"},
		{"group-by", "(group-by odd? $)"}, {"sort-by", "(sort-by - $)"},
		{"mapcat", "(mapcat #(vector % %) $)"}, {"map-indexed", "(map-indexed vector $)"},
		{"keep-indexed", "(keep-indexed #(when (even? %1) %2) $)"}, {"reduce", "(reduce + $)"},
		{"reduce-init", "(reduce + 10 $)"}, {"reduce-max", "(reduce max $)"},
		{"reductions", "(reductions + $)"}, {"split-with", "(split-with #(< % 3) $)"},
		{"max-key", "(apply max-key - $)"}, {"min-key", "(apply min-key - $)"},
		{"interpose", "(interpose 0 $)"}, {"apply", "(apply + $)"}, {"apply-max", "(apply max $)"},
		{"into", "(into [] $)"}, {"concat", "(concat $ [9])"}, {"cons", "(cons 0 $)"},
		{"conj", "(conj $ 9)"}, {"count-filter", "(count (filter some? $))"},
		{"zipmap", "(zipmap $ (range))"}, {"interleave", "(interleave $ [:a :b :c])"},
		{"reduce-reduced", "(reduce #(if (> %2 2) (reduced %1) (+ %1 %2)) 0 $)"},
		{"for-when", "(for [x $ :when (odd? x)] (* x 10))"},
		{"some-fn", "((some-fn neg? zero?) (first $))"},
		{"every-pred", "(filter (every-pred number? odd?) $)"},
		{"complement", "(filter (complement odd?) $)"}, {"comp", "(map (comp str inc) $)"},
		{"partial", "(map (partial * 2) $)"}, {"juxt", "(map (juxt identity inc) $)"},
		{"fnil", "(map (fnil inc 0) $)"}, {"memoize", "(map (memoize inc) $)"},
		{"constantly", "(map (constantly :k) $)"}, {"pmap", "(pmap inc $)"},
	}
	for _, h := range hofs {
		g.template(h.name, h.tmpl, hofColls)
	}

	// ---- maps
	maps := []struct{ name, tmpl string }{
		{"get", "(get $ :a)"}, {"get-default", "(get $ :z :none)"}, {"get-int", "(get $ 1)"},
		{"contains?", "(contains? $ :a)"}, {"contains?-int", "(contains? $ 1)"},
		{"find", "(find $ :a)"}, {"find-int", "(find $ 1)"}, {"assoc", "(assoc $ :c 3)"},
		{"assoc-int", "(assoc $ 1 :new)"}, {"dissoc", "(dissoc $ :a)"},
		{"update", "(update $ :a (fnil inc 0))"}, {"update-int", "(update $ 1 str)"},
		{"get-in", "(get-in $ [:a :b])"}, {"get-in-default", "(get-in $ [:a :z] :none)"},
		{"assoc-in", "(assoc-in $ [:a :x] 9)"}, {"update-in", "(update-in $ [:q] (fnil inc 0))"},
		{"merge", "(merge $ {:z 26})"}, {"merge-nil", "(merge nil $)"},
		{"merge-with", "(merge-with + $ {:a 10})"}, {"select-keys", "(select-keys $ [:a :q 1])"},
		{"keys", "(keys $)"}, {"vals", "(vals $)"}, {"key", "(map key $)"}, {"val", "(map val $)"},
		{"reduce-kv", "(reduce-kv (fn [acc k v] (conj acc [k v])) [] $)"},
		{"update-keys", "(update-keys $ str)"}, {"update-vals", "(update-vals $ str)"},
		{"map-invert", "(clojure.set/map-invert $)"},
		{"rename-keys", "(clojure.set/rename-keys $ {:a :A})"}, {"count-map", "(count $)"},
		{"seq-map", "(seq $)"}, {"into-vector", "(into [] $)"}, {"into-map", "(into {} $)"},
		{"empty-map", "(empty $)"}, {"keyword-call", "(:a $)"}, {"keyword-call-default", "(:z $ :none)"},
		{"conj-entry", "(conj $ [:n 0])"}, {"sort-map", "(sort $)"}, {"assoc-many", "(assoc $ :x 1 :y 2)"},
	}
	for _, m := range maps {
		g.template(m.name, m.tmpl, mapPool)
	}

	// ---- sets
	for _, f := range []string{"clojure.set/union", "clojure.set/intersection",
		"clojure.set/difference", "clojure.set/subset?", "clojure.set/superset?"} {
		g.apply([]string{f}, setPairs)
		g.template(idName(f)+"-one", "("+f+" $)", setPool)
	}
	g.cases("set.union", "none", "(clojure.set/union)", "three", "(clojure.set/union #{1} #{2} #{3})")
	g.cases("set.intersection", "three", "(clojure.set/intersection #{1 2 3} #{2 3} #{3})")
	g.cases("set.difference", "three", "(clojure.set/difference #{1 2 3} #{2} #{3})")
	sets := []struct{ name, tmpl string }{
		{"disj", "(disj $ 2)"}, {"disj-many", "(disj $ 1 2 9)"}, {"conj-set", "(conj $ 9)"},
		{"contains?-set", "(contains? $ 2)"}, {"set-call", "(#{1 2} (first (seq $)))"},
		{"set.select", "(clojure.set/select odd? $)"}, {"sort-set", "(sort $)"},
		{"seq-set", "(seq $)"}, {"into-set", "(into #{} $)"}, {"count-set", "(count $)"},
		{"apply-hash-set", "(apply hash-set $)"}, {"apply-sorted-set", "(apply sorted-set $)"},
	}
	for _, s := range sets {
		g.template(s.name, s.tmpl, setPool)
	}

	// ---- strings
	strs := []struct{ name, tmpl string }{
		{"string.upper-case", "(clojure.string/upper-case $)"},
		{"string.lower-case", "(clojure.string/lower-case $)"},
		{"string.capitalize", "(clojure.string/capitalize $)"},
		{"string.trim", "(clojure.string/trim $)"}, {"string.triml", "(clojure.string/triml $)"},
		{"string.trimr", "(clojure.string/trimr $)"},
		{"string.trim-newline", "(clojure.string/trim-newline $)"},
		{"string.blank?", "(clojure.string/blank? $)"}, {"string.reverse", "(clojure.string/reverse $)"},
		{"string.split-lines", "(clojure.string/split-lines $)"},
		{"string.join", `(clojure.string/join "-" $)`}, {"string.join-one", `(clojure.string/join $)`},
		{"string.split", `(clojure.string/split $ #",")`},
		{"string.split-space", `(clojure.string/split $ #"\s+")`},
		{"string.split-limit", `(clojure.string/split $ #"," -1)`},
		{"string.replace", `(clojure.string/replace $ "o" "0")`},
		{"string.replace-regex", `(clojure.string/replace $ #"[aeiouö]" "_")`},
		{"string.replace-first", `(clojure.string/replace-first $ "l" "L")`},
		{"string.starts-with?", `(clojure.string/starts-with? $ "He")`},
		{"string.ends-with?", `(clojure.string/ends-with? $ "d")`},
		{"string.includes?", `(clojure.string/includes? $ "o")`},
		{"string.index-of", `(clojure.string/index-of $ "o")`},
		{"string.last-index-of", `(clojure.string/last-index-of $ "l")`},
		{"string.escape", `(clojure.string/escape $ {\o "0" \l "1"})`},
		{"subs", "(subs $ 1 3)"}, {"subs-from", "(subs $ 2)"}, {"count-string", "(count $)"},
		{"seq-string", "(seq $)"}, {"re-find", `(re-find #"[a-zé]+" $)`},
		{"re-find-groups", `(re-find #"(\w)(\w)?" $)`}, {"re-matches", `(re-matches #"\w+" $)`},
		{"re-seq", `(re-seq #"\w+" $)`}, {"str-suffix", `(str $ "!")`}, {"name", "(name $)"},
		{"keyword", "(keyword $)"}, {"vec-string", "(vec $)"}, {"frequencies-string", "(frequencies $)"},
	}
	for _, s := range strs {
		g.template(s.name, s.tmpl, strPool)
	}
	g.template("string.join-coll", `(clojure.string/join ", " $)`, collPool)
	g.apply([]string{"parse-long", "parse-double", "parse-boolean", "Long/parseLong",
		"Double/parseDouble", "Long/valueOf", "Double/valueOf"}, parsePool)

	// ---- printing
	g.apply([]string{"pr-str", "str", "print-str", "prn-str", "println-str"}, printPool)
	g.template("str-two", "(str $ $)", printPool)
	g.template("pr-str-two", "(pr-str $ $)", printPool)
	g.template("format-s", `(format "<%s>" $)`, printPool)

	// ---- constructors
	ctorArgs := []arg{
		{"none", ""}, {"one", " 1"}, {"pairs", " :a 1 :b 2"}, {"dup-keys", " :a 1 :a 2"},
		{"odd", " :a 1 :b"}, {"nil", " nil"}, {"unicode", ` "é" "ü" "é" "a"`},
	}
	for _, f := range []string{"vector", "list", "hash-map", "hash-set", "array-map", "sorted-map",
		"sorted-set"} {
		g.template(idName(f), "("+f+"$)", ctorArgs)
	}
	g.cases("range",
		"none-take", "(take 3 (range))", "end", "(range 5)", "zero", "(range 0)", "neg", "(range -3)",
		"start-end", "(range 2 6)", "empty-interval", "(range 6 2)", "step", "(range 0 10 3)",
		"neg-step", "(range 10 0 -3)", "zero-step-take", "(take 3 (range 0 10 0))",
		"float-step", "(range 0 1 0.25)", "float-end", "(range 2.5)", "float-start", "(range 0.5 3)",
		"wrong-sign-step", "(range 0 10 -1)", "nil", "(range nil)", "string", `(range "a")`,
		"count-large", "(count (range 100000))",
	)
	g.cases("iterate",
		"take", "(take 5 (iterate inc 0))", "double", "(take 5 (iterate #(* 2 %) 1))",
		"nth", "(nth (iterate inc 0) 10)", "first", "(first (iterate inc 5))",
	)
	g.cases("repeat",
		"take", "(take 3 (repeat :x))", "two-nils", "(repeat 2 nil)", "take-while",
		"(take-while keyword? (take 3 (repeat :x)))",
	)
	g.cases("cycle",
		"take", "(take 5 (cycle [1 2]))", "empty", "(take 5 (cycle []))", "nil", "(cycle nil)",
		"string", `(take 4 (cycle "ab"))`,
	)
	g.cases("subvec",
		"ordinary", "(subvec [1 2 3 4] 1 3)", "from", "(subvec [1 2 3] 1)", "empty", "(subvec [1 2 3] 3)",
		"out-of-range", "(subvec [1 2 3] 2 5)", "neg", "(subvec [1 2 3] -1)", "reversed", "(subvec [1 2 3] 2 1)",
		"list", "(subvec (list 1 2) 0)", "nil", "(subvec nil 0)",
	)
	g.cases("zipmap",
		"ordinary", "(zipmap [:a :b] [1 2])", "short-vals", "(zipmap [:a :b :c] [1])",
		"dup-keys", "(zipmap [:a :a] [1 2])", "nil-keys", "(zipmap nil [1])", "empty-both", "(zipmap [] [])",
		"string-keys", `(zipmap "ab" [1 2])`,
	)
	g.cases("interleave",
		"none", "(interleave)", "one", "(interleave [1 2])", "three", "(interleave [1 2] [:a :b] [\"x\" \"y\"])",
		"uneven", "(interleave [1 2 3] [:a])", "nil-first", "(interleave nil [1])",
	)
	g.cases("concat",
		"none", "(concat)", "strings", `(concat "ab" "c")`, "map-first", "(concat {:a 1} [2])",
		"nils", "(concat nil nil)", "many", "(concat [1] (list 2) #{3} nil [4])",
	)
	g.cases("into",
		"map-from-pairs", "(into {} [[:a 1] [:b 2]])", "map-from-map", "(into {:a 1} {:b 2})",
		"set-dups", "(into #{} [1 2 1])", "into-list", "(into (list 1) [2 3])", "nil-target", "(into nil [1 2])",
		"string-source", `(into [] "héllo")`, "bad-pair", "(into {} [[:a 1 2]])",
		"bad-elem", "(into {} [1 2])", "nil-source", "(into [1] nil)", "sorted", "(into (sorted-map) {:b 1 :a 2})",
		"xform", "(into [] (map inc) [1 2])",
	)
	g.cases("conj",
		"none", "(conj)", "nil-one", "(conj nil 1)", "many", "(conj [1] 2 3)", "set-many", "(conj #{1} 1 2)",
		"map-pair", "(conj {:a 1} [:b 2])", "map-map", "(conj {:a 1} {:b 2 :c 3})", "map-bad", "(conj {:a 1} [:b])",
		"list-prepends", "(conj (list 1 2) 0)", "only-coll", "(conj [1])", "string-elem", `(conj "ab" "c")`,
	)
	g.cases("cons",
		"onto-nil", "(cons 1 nil)", "onto-set", "(cons 0 #{1})", "onto-string", `(cons "x" "ab")`,
		"onto-map", "(cons 0 {:a 1})", "onto-number", "(cons 1 2)",
	)
	g.cases("peek",
		"list-three", "(peek (list 1 2 3))", "vector-three", "(peek [1 2 3])",
	)
	g.cases("key",
		"entry", "(key (first (seq {:a 1})))", "vector-pair", "(key [:a 1])", "val-entry", "(val (first (seq {:a 1})))",
		"val-vector", "(val [:a 1])",
	)
	g.cases("find",
		"vector-index", "(find [:a :b] 1)", "vector-missing", "(find [:a :b] 5)", "nil-map", "(find nil :a)",
	)
	g.cases("max-key",
		"strings", `(max-key count "a" "bbb" "cc")`, "tie", `(max-key count "ab" "cd")`,
		"one", "(max-key - 5)", "min-key-tie", `(min-key count "ab" "cd")`,
	)
	g.cases("replace",
		"vector", "(replace {1 :one 3 :three} [1 2 3])", "vector-indices", "(replace [:a :b :c] [0 2])",
		"list", "(replace {1 :one} (list 1 2))",
	)
	g.cases("interpose",
		"over-string", `(interpose "," "abc")`, "over-empty", "(interpose 0 [])", "sep-nil", "(interpose nil [1 2])",
	)
	g.cases("reduced",
		"value", "(reduced? (reduced 1))", "reduce", "(reduce (fn [a x] (if (= x 3) (reduced a) (+ a x))) [1 2 3 4])",
		"deref", "(reduced? 1)",
	)
	g.cases("format",
		"d", `(format "%d" 42)`, "d-neg", `(format "%5d|%-5d|%05d" -42 42 42)`, "f", `(format "%.2f" 3.14159)`,
		"f-int", `(format "%.2f" 3)`, "s-nil", `(format "%s" nil)`, "x", `(format "%x" 255)`,
		"e", `(format "%e" 12345.678)`, "percent", `(format "100%%")`, "missing-arg", `(format "%s %s" 1)`,
		"d-float", `(format "%d" 1.5)`, "s-vector", `(format "%s" [1 "a"])`, "s-map", `(format "%s" {:a 1})`,
		"unicode", `(format "%s-%s" "é" "😀")`, "string-format", `(String/format "%d-%s" 1 "a")`,
		"b", `(format "%b" nil)`, "c", `(format "%c" \a)`, "g", `(format "%g" 0.0001)`,
		"o", `(format "%o" 8)`, "plus", `(format "%+d" 5)`, "comma", `(format "%,d" 1234567)`,
	)
	g.cases("name",
		"ns-keyword", "(name :a/b)", "namespace", "(namespace :a/b)", "namespace-none", "(namespace :a)",
		"keyword-two", `(keyword "ns" "n")`, "keyword-nil", "(keyword nil)", "keyword-kw", "(keyword :a)",
		"keyword-number", "(keyword 1)", "keyword-empty", `(keyword "")`, "keyword-space", `(keyword "a b")`,
	)
	g.cases("char",
		"int", "(char 97)", "unicode", "(char 233)", "neg", "(char -1)", "string", `(char "a")`,
		"char", `(char \a)`, "large", "(char 128512)",
	)
	g.cases("empty",
		"list-one", "(empty (list 1))", "set-one", "(empty #{1})", "string-two", `(empty "ab")`, "number-one", "(empty 1)",
	)
	g.cases("identical?",
		"keywords", "(identical? :a :a)", "small-ints", "(identical? 1 1)", "nil", "(identical? nil nil)",
		"vectors", "(identical? [] [1])",
	)
	g.cases("hash-map",
		"nested", "(hash-map :a (hash-map :b 1))", "int-float-keys", "(count (hash-map 1 :a 1.0 :b))",
	)
	g.cases("set-literal",
		"int-float", "(count #{1 1.0})", "nested", "#{[1 2] #{3}}", "contains-float", "(contains? #{1} 1.0)",
	)
	g.cases("print-fns",
		"pr", "(pr 1 2)", "prn", `(prn "a")`, "print", `(print "a" :b)`, "println", `(println "x" [1])`,
		"newline", "(newline)",
	)
	g.cases("bit",
		"and", "(bit-and 12 10)", "or", "(bit-or 12 10)", "xor", "(bit-xor 12 10)",
		"and-not", "(bit-and-not 12 10)", "not", "(bit-not 7)", "not-neg", "(bit-not -1)",
		"and-many", "(bit-and 15 7 3)", "shift-left", "(bit-shift-left 1 10)",
		"shift-left-63", "(bit-shift-left 1 63)", "shift-left-64", "(bit-shift-left 1 64)",
		"shift-left-neg", "(bit-shift-left 1 -1)", "shift-right-neg", "(bit-shift-right -16 2)",
		"unsigned-shift", "(unsigned-bit-shift-right -1 60)", "set", "(bit-set 0 3)",
		"clear", "(bit-clear 15 0)", "flip", "(bit-flip 5 1)", "test", "(bit-test 5 2)",
		"test-false", "(bit-test 5 1)", "float", "(bit-and 1.5 1)", "nil", "(bit-or nil 1)",
		"max-long", "(bit-and 9223372036854775807 -1)",
	)
	g.cases("promoting",
		"plus", "(+' 1 2)", "plus-overflow", "(+' 9223372036854775807 1)", "minus-overflow",
		"(-' -9223372036854775808 1)", "times-overflow", "(*' 4611686018427387904 4)",
		"inc-overflow", "(inc' 9223372036854775807)", "dec-overflow", "(dec' -9223372036854775808)",
		"plus-float", "(+' 1.5 1)", "times-none", "(*')", "inc-nil", "(inc' nil)",
	)
	g.cases("lazy-fns",
		"doall", "(doall (map inc [1 2]))", "dorun", "(dorun (map inc [1 2]))", "doall-n", "(doall 1 (map inc [1 2 3]))",
		"sequence", "(sequence [1 2])", "sequence-nil", "(sequence nil)", "sequence-string", `(sequence "ab")`,
		"sequence-xform", "(sequence (map inc) [1 2])", "list*", "(list* 1 2 [3 4])", "list*-nil", "(list* nil)",
		"list*-one-nil", "(list* 1 nil)", "list*-empty", "(list* [])", "repeatedly", "(repeatedly 3 (constantly :x))",
		"repeatedly-take", "(take 2 (repeatedly (constantly 1)))", "repeatedly-neg", "(repeatedly -1 (constantly 1))",
		"replicate", "(replicate 3 :a)", "rseq", "(rseq [1 2 3])", "rseq-empty", "(rseq [])",
		"rseq-sorted-map", "(rseq (sorted-map :a 1 :b 2))", "rseq-list", "(rseq (list 1 2))",
		"run!", "(run! inc [1 2])", "run!-nil", "(run! inc nil)",
		"trampoline", "(trampoline (fn f [n] (if (pos? n) #(f (dec n)) :done)) 5)",
		"trampoline-args", "(trampoline + 1 2)",
		"tree-seq", "(tree-seq coll? seq [1 [2 [3]]])",
		"tree-seq-maps", "(map :v (tree-seq map? :children {:v 1 :children [{:v 2} {:v 3 :children [{:v 4}]}]}))",
		"bounded-count", "(bounded-count 2 [1 2 3])", "bounded-count-infinite", "(bounded-count 5 (range))",
		"bounded-count-nil", "(bounded-count 0 nil)", "ensure-reduced", "(reduced? (ensure-reduced 1))",
		"ensure-reduced-twice", "(unreduced (ensure-reduced (reduced 1)))", "unreduced", "(unreduced (reduced 1))",
		"unreduced-plain", "(unreduced 1)", "iteration",
		"(vec (iteration (fn [k] (when (< k 3) {:v k :next (inc k)})) :initk 0 :vf :v :kf :next))",
		"iteration-somef", "(into [] (iteration (fn [k] {:v k :more (< k 2)}) :initk 0 :vf :v :kf (comp inc :v) :somef :more))",
	)
	g.cases("kinds",
		"indexed-vector", "(indexed? [1])", "indexed-list", "(indexed? (list 1))", "indexed-string", `(indexed? "a")`,
		"reversible-vector", "(reversible? [1])", "reversible-sorted", "(reversible? (sorted-map))",
		"reversible-list", "(reversible? (list 1))", "reversible-map", "(reversible? {})",
	)
	g.apply([]string{"ident?", "qualified-ident?", "qualified-keyword?", "qualified-symbol?", "simple-ident?",
		"simple-keyword?", "simple-symbol?"}, []arg{{"keyword", ":a"}, {"ns-keyword", ":a/b"},
		{"string", `"a"`}, {"nil", "nil"}, {"int", "1"}})
	g.cases("comparator",
		"sort", "(sort (comparator >) [1 3 2])", "lt", "((comparator <) 1 2)", "gt", "((comparator <) 2 1)",
		"eq", "((comparator <) 1 1)", "sort-by", "(sort-by count (comparator >) [\"a\" \"ccc\" \"bb\"])",
	)
	g.cases("hash",
		"stable", "(= (hash [1 2]) (hash [1 2]))", "integer", `(integer? (hash "a"))`,
		"int-float", "(= (hash 1) (hash 1.0))", "map-order", "(= (hash {:a 1 :b 2}) (hash {:b 2 :a 1}))",
		"vector-list", "(= (hash [1 2]) (hash (list 1 2)))", "nil", "(integer? (hash nil))",
	)
	g.cases("io",
		"flush", "(flush)", "printf", `(printf "%d-%s" 1 "a")`, "printf-newline", `(printf "x%n")`,
	)
	g.cases("parse-uuid",
		"valid", `(str (parse-uuid "123e4567-e89b-12d3-a456-426614174000"))`, "invalid", `(parse-uuid "not")`,
		"upper", `(str (parse-uuid "123E4567-E89B-12D3-A456-426614174000"))`, "number", "(parse-uuid 5)",
		"equal", `(= (parse-uuid "123e4567-e89b-12d3-a456-426614174000") (parse-uuid "123e4567-e89b-12d3-a456-426614174000"))`,
	)
	g.cases("inst",
		"inst?-date", "(inst? (java.util.Date.))", "inst?-number", "(inst? 1)",
		"inst-ms-zero", "(inst-ms (java.util.Date. 0))", "inst-ms-day", "(inst-ms (java.util.Date. 86400000))",
		"inst-ms-millis", "(inst-ms (java.util.Date. 1700000000000))",
		"now-positive", "(pos? (System/currentTimeMillis))", "now-integer", "(integer? (System/currentTimeMillis))",
	)
	g.cases("set.join",
		"natural", "(clojure.set/join #{{:a 1 :b 2} {:a 2 :b 3}} #{{:a 1 :c 3}})",
		"keymap", "(clojure.set/join #{{:a 1}} #{{:x 1 :y 2}} {:a :x})", "empty", "(clojure.set/join #{} #{{:a 1}})",
		"no-common", "(count (clojure.set/join #{{:a 1}} #{{:b 2} {:b 3}}))",
	)
	g.cases("set.rename",
		"basic", "(clojure.set/rename #{{:a 1 :b 2}} {:a :x})", "empty", "(clojure.set/rename #{} {:a :x})",
	)
	g.cases("string.re-quote-replacement",
		"dollar", `(clojure.string/re-quote-replacement "$1\\")`,
		"in-replace", `(clojure.string/replace "abc" #"b" (clojure.string/re-quote-replacement "$1"))`,
		"plain", `(clojure.string/re-quote-replacement "abc")`,
	)
	g.cases("pcalls",
		"two", "(pcalls (fn [] 1) (fn [] 2))", "none", "(pcalls)", "with-args", "(pcalls (fn [x] x))",
	)
	return g.out
}
