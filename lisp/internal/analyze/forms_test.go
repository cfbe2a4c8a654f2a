package analyze

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ptc-go/ptc/lisp/syntax"
)

// TestAnalyzeForms checks the tree produced for every special form and macro.
// The notation of the expected trees is described in dump_test.go.
func TestAnalyzeForms(t *testing.T) {
	tests := []dumpCase{
		// literals
		{"scalars", `[1 2.5 "s" :k true false nil]`, `[1 2.5 "s" :k true false nil]`},
		{"map literal", `{:a 1 "b" [2]}`, `{:a 1 "b" [2]}`},
		{"set literal", `#{1 2}`, `#{1 2}`},
		{"empty program", ``, `nil`},

		// if and friends
		{"if", `(if 1 2 3)`, `(if 1 2 3)`},
		{"if without else", `(if 1 2)`, `(if 1 2 nil)`},
		{"if-not swaps the branches", `(if-not 1 2 3)`, `(if 1 3 2)`},
		{"if-not without else", `(if-not 1 2)`, `(if 1 nil 2)`},
		{"when", `(when 1 2 3)`, `(if 1 (do 2 3) nil)`},
		{"when with empty body", `(when 1)`, `(if 1 nil nil)`},
		{"when-not", `(when-not 1 2)`, `(if 1 nil 2)`},
		{"cond with :else", `(cond (= 1 2) :a (< 1 2) :b :else :c)`, `(if (= 1 2) :a (if (< 1 2) :b :c))`},
		{"cond without default", `(cond (= 1 2) :a)`, `(if (= 1 2) :a nil)`},
		{"cond stops at the first constant truthy test", `(cond false 1 nil 2 :else 3 true 4)`, `(if false 1 (if nil 2 3))`},
		{"empty cond", `(cond)`, `nil`},
		{"if-let", `(if-let [x (first [1])] x 0)`, `(let [@0 (first [1])] (if @0 (let [x@1 @0] x@1) 0))`},
		{"if-let else does not see the name", `(if-let [x 1] x x)`, `(let [@0 1] (if @0 (let [x@1 @0] x@1) $x))`},
		{"when-let", `(when-let [x 1] x)`, `(let [@0 1] (if @0 (let [x@1 @0] x@1) nil))`},
		{"if-some tests some?", `(if-some [x nil] 1 2)`, `(let [@0 nil] (if (some? @0) (let [x@1 @0] 1) 2))`},
		{"when-some with a pattern", `(when-some [[a b] [1 2]] a b)`,
			`(let [@0 [1 2]] (if (some? @0) (let [[a@1 b@2] @0] (do a@1 b@2)) nil))`},

		// let, do, loop, fn
		{"let", `(let [x 1 y (inc x)] (+ x y))`, `(let [x@0 1 y@1 (inc x@0)] (+ x@0 y@1))`},
		{"let*", `(let* [x 1] x)`, `(let [x@0 1] x@0)`},
		{"let with body of several forms", `(let [x 1] x 2)`, `(let [x@0 1] (do x@0 2))`},
		{"let with empty body", `(let [x 1])`, `(let [x@0 1] nil)`},
		{"do", `(do 1 2)`, `(do 1 2)`},
		{"do of one form", `(do 1)`, `1`},
		{"empty do", `(do)`, `nil`},
		{"loop/recur", `(loop [i 0 acc []] (if (< i 3) (recur (inc i) (conj acc i)) acc))`,
			`(loop [i@0 0 acc@1 []] (if (< i@0 3) (recur->loop (inc i@0) (conj acc@1 i@0)) acc@1))`},
		{"fn", `(fn [a b] (+ a b))`, `(fn ([a@0 b@1] n=2 (+ a@0 b@1)))`},
		{"fn*", `(fn* [a] a)`, `(fn ([a@0] n=1 a@0))`},
		{"fn with empty body", `(fn [])`, `(fn ([] n=0 nil))`},
		{"variadic fn", `(fn [a b & r] (+ a b))`, `(fn ([a@0 b@1 & r@2] n=3 (+ a@0 b@1)))`},
		{"only a rest parameter", `(fn [& r] r)`, `(fn ([& r@0] n=1 r@0))`},
		{"named fn", `(fn f [x] (f x))`, `(fn f ([x@0] n=1 (self:f x@0)))`},
		{"multi-arity fn", `(fn ([x] x) ([x y] y) ([x y & z] z))`,
			`(fn ([x@0] n=1 x@0) ([x@0 y@1] n=2 y@1) ([x@0 y@1 & z@2] n=3 z@2))`},
		{"fixed arity as long as the variadic one", `(fn ([x] 1) ([x & y] 2))`, `(fn ([x@0] n=1 1) ([x@0 & y@1] n=2 2))`},
		{"named multi-arity fn", `(fn f ([] (f 1)) ([x] x))`, `(fn f ([] n=0 (self:f 1)) ([x@0] n=1 x@0))`},

		// def and defn
		{"defn", `(defn add [x y] (+ x y))`, `(def add (fn add ([x@0 y@1] n=2 (+ x@0 y@1))))`},
		{"defn with docstring and attribute map", `(defn add "doc" {:a 1} [x y] (+ x y))`,
			`(def add (fn add ([x@0 y@1] n=2 (+ x@0 y@1))))`},
		{"defn with docstring only", `(defn add "doc" [x] x)`, `(def add (fn add ([x@0] n=1 x@0)))`},
		{"defn returning a string", `(defn s [x] "doc")`, `(def s (fn s ([x@0] n=1 "doc")))`},
		{"multi-arity defn", `(defn m "doc" ([x] (m x 1)) ([x y] (+ x y)))`,
			`(def m (fn m ([x@0] n=1 ($m x@0 1)) ([x@0 y@1] n=2 (+ x@0 y@1))))`},
		{"defn-", `(defn- g [] 1)`, `(def g (fn g ([] n=0 1)))`},
		{"def", `(def x 1)`, `(def x 1)`},
		{"def with docstring", `(def x "doc" 1)`, `(def x 1)`},
		{"def of a string", `(def x "doc")`, `(def x "doc")`},
		{"defonce", `(defonce y 2)`, `(defonce y 2)`},
		{"def of fn names the fn", `(def f (fn [x] (f x)))`, `(def f (fn f ([x@0] n=1 ($f x@0))))`},
		{"def of named fn keeps its name", `(def f (fn g [x] (g x)))`, `(def f (fn g ([x@0] n=1 (self:g x@0))))`},
		{"defonce of fn", `(defonce z (fn [] 1))`, `(defonce z (fn z ([] n=0 1)))`},
		{"declare", `(declare h)`, `nil`},

		// quote and var
		{"quoted list is a list", `'(1 2 (3 4))`, `'(1 2 '(3 4))`},
		{"quoted symbol is a symbol", `['x 'a/b (quote y)]`, `['x 'a/b 'y]`},
		{"case tests are symbols", `(case 1 x 2)`, `(case 1 ('x) 2)`},
		{"quote form", `(quote [1 "a"])`, `[1 "a"]`},
		{"quoted map", `'{:a [1 "x"]}`, `{:a [1 "x"]}`},
		{"quoted set", `'#{1 :a}`, `#{1 :a}`},
		{"quoted scalars", `['nil ':k '"s" (quote 5)]`, `[nil :k "s" 5]`},
		{"var quote", `(def foo 1) #'foo`, `(do (def foo 1) #'foo)`},
		{"var form", `(var foo)`, `#'foo`},

		// and, or
		{"empty and is true", `(and)`, `true`},
		{"empty or is nil", `(or)`, `nil`},
		{"and", `(and 1 2)`, `(and 1 2)`},
		{"or", `(or 1 nil)`, `(or 1 nil)`},

		// threading
		{"-> with every kind of step", `(-> 1 inc (+ 2) :k #(+ % 1) (fn [x] x))`,
			`((fn ([x@0] n=1 x@0)) ((fn ([%1@0] n=1 (+ %@0 1))) (:k (+ (inc 1) 2))))`},
		{"-> of only a value", `(-> 1)`, `1`},
		{"->>", `(->> [1] (map inc) (filter even?))`, `(filter even? (map inc [1]))`},
		{"->> with fn* step", `(->> 1 (fn* [x] x))`, `((fn ([x@0] n=1 x@0)) 1)`},
		{"some->", `(some-> {:a 1} :a inc)`,
			`(let [G@0 {:a 1}] (if (nil? @0) nil (let [G@1 (:a G@0)] (if (nil? @1) nil (inc G@1)))))`},
		{"some->>", `(some->> [1] (map inc))`, `(let [G@0 [1]] (if (nil? @0) nil (map inc G@0)))`},
		{"some-> of only a value", `(some-> 1)`, `1`},
		{"cond->", `(cond-> 1 true inc false (+ 2))`,
			`(let [G@0 1 G@1 (if true (inc G@0) G@0) G@2 (if false (+ G@1 2) G@1)] G@2)`},
		{"cond->>", `(cond->> [1] true (map inc))`, `(let [G@0 [1] G@1 (if true (map inc G@0) G@0)] G@1)`},
		{"as->", `(as-> 1 x (inc x) (+ x x))`, `(let [x@0 1 x@1 (inc x@0) x@2 (+ x@1 x@1)] x@2)`},

		// iteration
		{"for with :let :when :while", `(for [x [1 2] :let [y (inc x)] :when (even? y) :while (< y 10) z [3]] [x y z])`,
			`(for [x@0 [1 2] :let [y@1 (inc x@0)] :when (even? y@1) :while (< y@1 10) z@2 [3]] [x@0 y@1 z@2])`},
		{"doseq", `(doseq [x [1 2]] (println x))`, `(doseq [x@0 [1 2]] (println x@0))`},
		{"doseq with modifiers", `(doseq [[k v] {:a 1} :when v :let [w (inc v)]] (println k w))`,
			`(doseq [[k@0 v@1] {:a 1} :when v@1 :let [w@2 (inc v@1)]] (println k@0 w@2))`},
		{"dotimes", `(dotimes [i 3] (println i))`, `(dotimes [@0 3] (println i@0))`},
		{"letfn", `(letfn [(f [x] (g x)) (g [y] (f y))] (f 1))`,
			`(letfn [@0 (fn f caps=[g<-L1] ([x@0] n=1 (^g#0 x@0))) @1 (fn g caps=[f<-L0] ([y@0] n=1 (^f#0 y@0)))] (f@0 1))`},

		// case, condp
		{"case with alternatives and default", `(case 1 1 :one (2 3) :two-three "s" :s :default)`,
			`(case 1 (1) :one (2 3) :two-three ("s") :s :default :default)`},
		{"case without default", `(case 1 1 :one)`, `(case 1 (1) :one)`},
		{"case with collection constants", `(case 1 [1 2] :v #{1} :s {:a 1} :m nil :n)`,
			`(case 1 ([1 2]) :v (#{1}) :s ({:a 1}) :m (nil) :n)`},
		{"condp", `(condp = 1 1 :a 2 :b :c)`, `(let [@0 = @1 1] (if (@0 1 @1) :a (if (@0 2 @1) :b :c)))`},
		{"condp without default raises", `(condp = 1 1 :a)`,
			`(let [@0 = @1 1] (if (@0 1 @1) :a (raise invalid_argument "condp: no clause matches" @1)))`},

		// where and predicate combinators
		{"where", `(where :a = 1)`, `(where [:a] = 1)`},
		{"where with a path", `(where [:a "b"] > 1)`, `(where [:a "b"] > 1)`},
		{"where with a string field", `(where "a" < 1)`, `(where ["a"] < 1)`},
		{"where truthy field", `(where :a)`, `(where [:a])`},
		{"where operators", `[(where :a not= 1) (where :a >= 1) (where :a <= 1) (where :a in [1]) (where :a includes 1)]`,
			`[(where [:a] not= 1) (where [:a] >= 1) (where [:a] <= 1) (where [:a] in [1]) (where [:a] includes 1)]`},
		{"where operator aliases", `[(where :a == 1) (where :a != 1) (where :a contains 1)]`,
			`[(where [:a] = 1) (where [:a] not= 1) (where [:a] includes 1)]`},
		{"all-of any-of none-of", `[(all-of (where :a) (where :b)) (any-of) (none-of (where :c))]`,
			`[(all-of (where [:a]) (where [:b])) (any-of) (none-of (where [:c]))]`},

		// return, fail, tools, context, memory, history
		{"return", `(return 1)`, `(return 1)`},
		{"fail", `(fail {:a 1})`, `(fail {:a 1})`},
		{"call with a string name", `(call "foo" 1)`, `(tool "foo" 1)`},
		{"call with a keyword name", `(call :bar 2)`, `(tool "bar" 2)`},
		{"call without arguments", `(call "ping")`, `(tool "ping")`},
		{"call return", `(call "return" 3)`, `(return 3)`},
		{"call fail", `(call "fail" 4)`, `(fail 4)`},
		{"call :return", `(call :return 5)`, `(return 5)`},
		{"call with a local name", `(let [n "x"] (call n 1))`, `(let [n@0 "x"] (tool* n@0 1))`},
		{"call with a computed name", `(call (str "a" "b") 1)`, `(tool* (str "a" "b") 1)`},
		{"call with a def'd name", `(def n "x") (call n)`, `(do (def n "x") (tool* $n))`},
		{"tool/x", `(tool/foo {:a 1})`, `(tool "foo" {:a 1})`},
		{"ctx/x call", `(ctx/bar 1 2)`, `(tool "bar" 1 2)`},
		{"ctx/x and data/x", `[ctx/x data/y]`, `[ctx/x ctx/y]`},
		{"memory/put", `(let [x 1] (memory/put :k x))`, `(let [x@0 1] (memory/put :k x@0))`},
		{"memory/get", `(memory/get :a)`, `(memory/get :a)`},
		{"memory/x", `memory/a`, `(memory/get :a)`},
		{"history", `[*1 *2 *3]`, `[*1 *2 *3]`},
		{"history shadowed by a local", `(let [*1 5] *1)`, `(let [*1@0 5] *1@0)`},

		// ignored forms, assert, regex
		{"ns require comment import use refer are nil", `(ns foo) (require 'x) (comment 1 2) (import x) (use x) (refer x) 5`,
			`(do nil nil nil nil nil nil 5)`},
		{"assert", `(assert (= 1 1))`, `(if (= 1 1) nil (raise assertion_error "Assert failed: (= 1 1)"))`},
		{"assert with message", `(assert false "msg")`, `(if false nil (raise assertion_error "Assert failed: " str "msg" "\nfalse"))`},
		{"regex literal", `#"a+b"`, `(re-pattern "a+b")`},

		// short fns
		{"#() with gaps", `#(+ %1 %3)`, `(fn ([%1@0 %2@1 %3@2] n=3 (+ %1@0 %3@2)))`},
		{"#() with rest", `#(identity %&)`, `(fn ([& %&@0] n=1 (identity %&@0)))`},
		{"#() with % and rest", `#(+ % %&)`, `(fn ([%1@0 & %&@1] n=2 (+ %@0 %&@1)))`},
		{"empty #()", `#()`, `(fn ([] n=0 nil))`},
		{"#() capturing", `(let [y 1] #(+ % y))`, `(let [y@0 1] (fn caps=[y<-L0] ([%1@0] n=1 (+ %@0 ^y#0))))`},

		// namespaces
		{"str/ alias", `(str/join "," [1])`, `(clojure.string/join "," [1])`},
		{"canonical namespace", `(clojure.string/join "," [1])`, `(clojure.string/join "," [1])`},
		{"s/ and string/ aliases", `[s/join string/upper-case]`, `[clojure.string/join clojure.string/upper-case]`},
		{"clojure.core/ and core/", `[clojure.core/map core/map]`, `[map map]`},
		{"clojure.core/ falls back to a core builtin", `clojure.core/join`, `join`},
		{"set/ alias", `(set/union #{1} #{2})`, `(clojure.set/union #{1} #{2})`},
		{"Math", `[Math/sqrt java.lang.Math/sqrt StrictMath/sqrt]`, `[Math/sqrt Math/sqrt Math/sqrt]`},

		// locals shadowing special forms
		{"a local can shadow a macro", `(let [when (fn [x] x)] (when 1))`,
			`(let [when@0 (fn ([x@0] n=1 x@0))] (when@0 1))`},
		{"a local cannot shadow a core special form", `(let [if (fn [x] x)] (if 1 2 3))`,
			`(let [if@0 (fn ([x@0] n=1 x@0))] (if 1 2 3))`},
		{"unknown names are globals", `(foo 1)`, `($foo 1)`},
		{"unknown call head", `((fn [x] x) 1)`, `((fn ([x@0] n=1 x@0)) 1)`},
	}
	checkDumps(t, tests)
}

// TestNodeTypes checks the Go type of the node each form becomes.
func TestNodeTypes(t *testing.T) {
	tests := []struct {
		src  string
		want Expr
	}{
		{`nil`, &Const{}}, {`42`, &Const{}}, {`"s"`, &Const{}}, {`:k`, &Keyword{}},
		{`[1]`, &VectorLit{}}, {`{:a 1}`, &MapLit{}}, {`#{1}`, &SetLit{}},
		{`(if 1 2)`, &If{}}, {`(if-not 1 2)`, &If{}}, {`(when 1 2)`, &If{}}, {`(when-not 1 2)`, &If{}},
		{`(cond (inc 1) 2)`, &If{}}, {`(cond :else 2)`, &Const{}},
		{`(if-let [x 1] x)`, &Let{}}, {`(when-let [x 1] x)`, &Let{}}, {`(if-some [x 1] x)`, &Let{}}, {`(when-some [x 1] x)`, &Let{}},
		{`(let [x 1] x)`, &Let{}}, {`(do 1 2)`, &Do{}}, {`(loop [x 1] x)`, &Loop{}},
		{`(fn [x] x)`, &Fn{}}, {`#(inc %)`, &Fn{}}, {`(defn f [x] x)`, &Def{}}, {`(def x 1)`, &Def{}}, {`(defonce x 1)`, &Def{}},
		{`'(1 2)`, &VectorLit{}}, {`'{:a 1}`, &MapLit{}}, {`'#{1}`, &SetLit{}}, {`#'x`, &VarRef{}}, {`(var x)`, &VarRef{}},
		{`(and)`, &Const{}}, {`(or)`, &Const{}}, {`(and 1)`, &And{}}, {`(or 1)`, &Or{}},
		{`(-> 1 inc)`, &Call{}}, {`(->> 1 inc)`, &Call{}}, {`(some-> 1 inc)`, &Let{}}, {`(some->> 1 inc)`, &Let{}},
		{`(cond-> 1 true inc)`, &Let{}}, {`(cond->> 1 true inc)`, &Let{}}, {`(as-> 1 x (inc x))`, &Let{}},
		{`(for [x [1]] x)`, &For{}}, {`(doseq [x [1]] x)`, &For{}}, {`(dotimes [i 1] i)`, &Dotimes{}},
		{`(letfn [(f [] 1)] (f))`, &LetFn{}}, {`(case 1 1 2)`, &Case{}}, {`(condp = 1 1 2)`, &Let{}},
		{`(where :a)`, &Where{}}, {`(all-of)`, &Combine{}}, {`(any-of)`, &Combine{}}, {`(none-of)`, &Combine{}},
		{`(return 1)`, &Return{}}, {`(fail 1)`, &Fail{}}, {`(call "t")`, &ToolCall{}}, {`(call "return" 1)`, &Return{}},
		{`(call "fail" 1)`, &Fail{}}, {`(tool/t)`, &ToolCall{}}, {`(ctx/t)`, &ToolCall{}}, {`ctx/x`, &CtxRef{}}, {`data/x`, &CtxRef{}},
		{`(memory/put :a 1)`, &MemoryPut{}}, {`(memory/get :a)`, &MemoryGet{}}, {`memory/a`, &MemoryGet{}},
		{`*1`, &HistoryRef{}}, {`(ns x)`, &Const{}}, {`(comment x)`, &Const{}}, {`(require 'x)`, &Const{}},
		{`(assert true)`, &If{}}, {`#"a"`, &Call{}}, {`map`, &Builtin{}}, {`str/join`, &Builtin{}}, {`foo`, &Global{}},
		{`(inc 1)`, &Call{}},
	}
	for _, tt := range tests {
		p := mustAnalyze(t, tt.src)
		if got, want := fmt.Sprintf("%T", p.Body), fmt.Sprintf("%T", tt.want); got != want {
			t.Errorf("Analyze(%q): body is %s, want %s (%s)", tt.src, got, want, dump(p.Body))
		}
	}
}

// TestRecurTargetIdentity checks that a recur points at its own loop node.
func TestRecurTargetIdentity(t *testing.T) {
	p := mustAnalyze(t, `(loop [i 0] (loop [j 0] (recur 1)))`)
	outer := p.Body.(*Loop)
	inner, ok := outer.Body.(*Loop)
	if !ok {
		t.Fatalf("inner loop is %T", outer.Body)
	}
	r, ok := inner.Body.(*Recur)
	if !ok {
		t.Fatalf("inner body is %T", inner.Body)
	}
	if r.Loop != inner {
		t.Errorf("recur targets %p, want the innermost loop %p (outer %p)", r.Loop, inner, outer)
	}
	if len(inner.Targets) != 1 || inner.Targets[0] != inner.Bindings[0].Pattern {
		t.Errorf("loop targets %v, want the binding patterns", inner.Targets)
	}

	p = mustAnalyze(t, `(fn [a b] (loop [i 0] (fn [] (recur))))`)
	fn := p.Body.(*Fn)
	lp := fn.Arities[0].Body.(*Loop)
	innerFn := lp.Body.(*Fn)
	if r := innerFn.Arities[0].Body.(*Recur); r.Loop != nil {
		t.Errorf("recur in a fn inside a loop targets the loop, want the fn")
	}
}

// TestPositions checks the positions recorded on nodes.
func TestPositions(t *testing.T) {
	src := "(let [x 1]\n  (if x\n      (inc x)\n      :no))"
	lines := syntax.LinesOf(src)
	p := mustAnalyze(t, src)
	let := p.Body.(*Let)
	iff := let.Body.(*If)
	call := iff.Then.(*Call)
	checks := []struct {
		what string
		e    Expr
		want string
	}{
		{"let", let, "1:1"},
		{"binding init", let.Bindings[0].Init, "1:9"},
		{"if", iff, "2:3"},
		{"test", iff.Test, "2:7"},
		{"call", call, "3:7"},
		{"callee", call.Fn, "3:8"},
		{"arg", call.Args[0], "3:12"},
		{"else", iff.Else, "4:7"},
	}
	for _, c := range checks {
		if got := lines.Pos(c.e.Offset()).String(); got != c.want {
			t.Errorf("%s at %s, want %s", c.what, got, c.want)
		}
	}
	// A step of a threading macro keeps its own position.
	src = "(-> 1\n    (+ 2))"
	lines = syntax.LinesOf(src)
	p = mustAnalyze(t, src)
	if got := lines.Pos(p.Body.Offset()).String(); got != "2:5" {
		t.Errorf("threaded call at %s, want 2:5", got)
	}
}

func TestCanonicalNamespace(t *testing.T) {
	tests := []struct {
		ns, want string
		ok       bool
	}{
		{"clojure.core", "", true}, {"core", "", true},
		{"str", "clojure.string", true}, {"string", "clojure.string", true}, {"s", "clojure.string", true},
		{"clojure.string", "clojure.string", true},
		{"set", "clojure.set", true}, {"clojure.set", "clojure.set", true},
		{"walk", "clojure.walk", true},
		{"Math", "Math", true}, {"java.lang.Math", "Math", true},
		{"Integer", "Integer", true}, {"java.lang.Double", "Double", true},
		{"String", "String", true}, {"java.lang.Character", "Character", true},
		{"foo", "", false}, {"ctx", "", false}, {"tool", "", false},
	}
	for _, tt := range tests {
		got, ok := CanonicalNamespace(tt.ns)
		if got != tt.want || ok != tt.ok {
			t.Errorf("CanonicalNamespace(%q) = %q, %v; want %q, %v", tt.ns, got, ok, tt.want, tt.ok)
		}
	}
}

func TestIsSpecialForm(t *testing.T) {
	for _, name := range []string{"if", "let", "fn", "defn", "cond->", "where", "all-of", "return", "call", "ns", "letfn", "case"} {
		if !IsSpecialForm(name) {
			t.Errorf("IsSpecialForm(%q) = false", name)
		}
	}
	for _, name := range []string{"map", "juxt", "apply", "inc", "str", ""} {
		if IsSpecialForm(name) {
			t.Errorf("IsSpecialForm(%q) = true", name)
		}
	}
}

// TestCoreNamespaceSpecialForms: clojure.core/let and core/when are the
// special forms themselves.
func TestCoreNamespaceSpecialForms(t *testing.T) {
	for src, want := range map[string]string{
		`(clojure.core/let [x 1] x)`: `(let [x@0 1] x@0)`,
		`(core/when true 1)`:         `(if true 1 nil)`,
	} {
		if got := dump(mustAnalyze(t, src).Body); got != want {
			t.Errorf("Analyze(%q) = %s, want %s", src, got, want)
		}
	}
}

// Every reserved name's explanation says why and what to name the value
// instead: the model reads it and must not guess.
func TestReservedNameSaysWhatToDo(t *testing.T) {
	for _, name := range []string{"return", "fail", "call", "*1", "*2", "*3", "nil", "true", "false", "if", "let", "where"} {
		why := ReservedName(name)
		if !strings.Contains(why, "name yours something else, e.g. ") {
			t.Errorf("%s: %q", name, why)
		}
	}
	for _, name := range []string{"count", "name", "first", "x", "data", "ctx", "memory", "tool"} {
		if why := ReservedName(name); why != "" {
			t.Errorf("%s is reserved: %q", name, why)
		}
	}
}
