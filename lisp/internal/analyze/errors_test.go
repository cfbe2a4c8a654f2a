package analyze

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/ptc-go/ptc/lisp/syntax"
)

// TestErrors checks the kind, the position and the important words of the
// message of each analysis error. The reader of these messages is an LLM:
// they must name the offending thing and say what to write instead.
func TestErrors(t *testing.T) {
	tests := []struct {
		src, kind, pos string
		words          []string
	}{
		// if, when, cond
		{`(if)`, "invalid_arity", "1:1", []string{"if", "(if test then else?)", "0"}},
		{`(if 1)`, "invalid_arity", "1:1", []string{"if", "1 argument"}},
		{`(if 1 2 3 4)`, "invalid_arity", "1:1", []string{"4 argument"}},
		{`(if-not 1)`, "invalid_arity", "1:1", []string{"if-not"}},
		{`(when)`, "invalid_arity", "1:1", []string{"when", "test"}},
		{`(when-not)`, "invalid_arity", "1:1", []string{"when-not"}},
		{`(cond 1)`, "invalid_cond_form", "1:1", []string{"pairs", "odd", ":else"}},
		{`(if-let [x 1])`, "invalid_arity", "1:1", []string{"if-let", "[name value]"}},
		{`(if-let [x 1] 2 3 4)`, "invalid_arity", "1:1", []string{"if-let"}},
		{`(when-let)`, "invalid_arity", "1:1", []string{"when-let", "body"}},
		{`(when-let x 1)`, "invalid_form", "1:1", []string{"when-let", "vector"}},
		{`(when-let [x 1 y 2] x)`, "invalid_form", "1:11", []string{"exactly one binding"}},
		{`(when-some [x] x)`, "invalid_form", "1:12", []string{"even number"}},
		// let, loop, fn
		{`(let)`, "invalid_arity", "1:1", []string{"let", "bindings"}},
		{`(let x 1)`, "invalid_form", "1:1", []string{"let", "vector", "(let [x 1] ...)"}},
		{`(let [x] x)`, "invalid_form", "1:6", []string{"even number", "1"}},
		{`(loop)`, "invalid_arity", "1:1", []string{"loop"}},
		{`(loop x)`, "invalid_form", "1:1", []string{"loop", "vector"}},
		{`(fn)`, "invalid_form", "1:1", []string{"parameter vector"}},
		{`(fn "x")`, "invalid_form", "1:5", []string{"parameter vector"}},
		{`(fn ([x] 1) [y])`, "invalid_form", "1:13", []string{"one list per arity"}},
		{`(fn ("x" 1))`, "invalid_form", "1:5", []string{"parameter vector"}},
		{`(fn ([x] 1) ([y] 2))`, "invalid_form", "1:14", []string{"two arities", "1 parameter"}},
		{`(fn ([& x] 1) ([& y] 2))`, "invalid_form", "1:16", []string{"only one variadic"}},
		{`(fn ([x y z] 1) ([x & y] 2))`, "invalid_form", "1:1", []string{"fixed arity", "variadic"}},
		{`(fn [x &] x)`, "invalid_form", "1:8", []string{"&", "exactly one parameter"}},
		{`(fn [& a b] a)`, "invalid_form", "1:6", []string{"&", "exactly one parameter"}},
		{`(fn [a/b] b)`, "invalid_form", "1:6", []string{"qualified", "a/b"}},
		{`(fn [x & a/b] x)`, "invalid_form", "1:10", []string{"qualified", "a/b"}},
		{`(fn [1] 1)`, "invalid_form", "1:6", []string{"cannot bind", "1"}},
		// def, defn, declare
		{`(def)`, "invalid_form", "1:1", []string{"def", "name"}},
		{`(defonce x)`, "invalid_form", "1:1", []string{"(defonce x value)", "0"}},
		{`(def x 1 2)`, "invalid_form", "1:1", []string{"(def x value)", "2"}},
		{`(def a/b 1)`, "invalid_form", "1:6", []string{"plain name", "a/b"}},
		{`(def "x" 1)`, "invalid_form", "1:6", []string{"plain name"}},
		{`(defn when [x] x)`, "cannot_shadow_builtin", "1:7", []string{"when", "special form", "my-when"}},
		{`(defn return [x] x)`, "cannot_shadow_builtin", "1:7", []string{"return", "ends the program", "return-value"}},
		{`(def fail 1)`, "cannot_shadow_builtin", "1:6", []string{"fail", "ends the mission", "fail-with"}},
		{`(defn call [x] x)`, "cannot_shadow_builtin", "1:7", []string{"call", "calls a tool", "call-with"}},
		{`(declare where)`, "cannot_shadow_builtin", "1:10", []string{"cannot declare where", "special form"}},
		{`(def *1 1)`, "cannot_shadow_builtin", "1:6", []string{"*1", "reserved"}},
		{`(defn f)`, "invalid_form", "1:1", []string{"defn f", "parameter vector"}},
		{`(defn f "doc")`, "invalid_form", "1:9", []string{"parameter vector"}},
		{`(declare 1)`, "invalid_form", "1:10", []string{"declare", "names"}},
		// quote, var
		{"`~@xs", "invalid_form", "1:2", []string{"~@ splices into"}},
		{"~x", "invalid_form", "1:1", []string{"outside a syntax-quote"}},
		{"(macroexpand x)", "invalid_form", "1:14", []string{"quoted form"}},
		{"(defmacro when [x] x)", "invalid_form", "1:11", []string{"cannot redefine when"}},
		{"(defmacro m)", "invalid_arity", "1:1", []string{"defmacro expects"}},
		{`(quote)`, "invalid_arity", "1:1", []string{"quote", "one form"}},
		{`(quote 1 2)`, "invalid_arity", "1:1", []string{"quote", "2"}},
		{`(var)`, "invalid_arity", "1:1", []string{"var", "one name"}},
		{`(var 1)`, "invalid_form", "1:1", []string{"#'", "name"}},
		{`#'str/nope`, "invalid_form", "1:1", []string{"#'", "name"}},
		// threading
		{`(->)`, "invalid_thread_form", "1:1", []string{"->", "value to thread"}},
		{`(->>)`, "invalid_thread_form", "1:1", []string{"->>"}},
		{`(some->)`, "invalid_thread_form", "1:1", []string{"some->"}},
		{`(cond-> 1 true)`, "invalid_thread_form", "1:1", []string{"cond->", "pairs"}},
		{`(cond->>)`, "invalid_thread_form", "1:1", []string{"cond->>"}},
		{`(as-> 1)`, "invalid_thread_form", "1:1", []string{"as->", "name"}},
		{`(as-> 1 :x (inc :x))`, "invalid_thread_form", "1:9", []string{"as->", "name"}},
		// iteration
		{`(for)`, "invalid_arity", "1:1", []string{"for", "(for [x coll] body...)"}},
		{`(doseq x)`, "invalid_arity", "1:1", []string{"doseq", "binding vector"}},
		{`(for [x] x)`, "invalid_arity", "1:1", []string{"for", "binding vector"}},
		{`(for [x [1]])`, "invalid_arity", "1:1", []string{"for", "body"}},
		{`(for [x 5] x)`, "invalid_arity", "1:9", []string{"cannot iterate", "5", "collection"}},
		{`(doseq [x :k] x)`, "invalid_arity", "1:11", []string{"cannot iterate", ":k"}},
		{`(for [:when true x [1]] x)`, "invalid_form", "1:7", []string{"start with a name", ":when"}},
		{`(for [x [1] :foo 1] x)`, "invalid_form", "1:13", []string{":let", ":when", ":while", ":foo"}},
		{`(for [x [1] :let x] x)`, "invalid_form", "1:13", []string{":let", "vector"}},
		{`(dotimes)`, "invalid_arity", "1:1", []string{"dotimes", "(dotimes [i n] body...)"}},
		{`(dotimes [i])`, "invalid_arity", "1:1", []string{"dotimes"}},
		{`(dotimes [1 2] 3)`, "invalid_form", "1:11", []string{"dotimes", "name"}},
		{`(letfn)`, "invalid_arity", "1:1", []string{"letfn"}},
		{`(letfn x 1)`, "invalid_form", "1:1", []string{"letfn", "vector"}},
		{`(letfn [x] 1)`, "invalid_form", "1:9", []string{"(name [params] body...)"}},
		{`(letfn [(f)] 1)`, "invalid_form", "1:9", []string{"(name [params] body...)"}},
		{`(letfn [("f" [])] 1)`, "invalid_form", "1:9", []string{"start with a name"}},
		{`(letfn [(f "x")] 1)`, "invalid_form", "1:12", []string{"parameter vector"}},
		// case, condp
		{`(case)`, "invalid_arity", "1:1", []string{"case"}},
		{`(condp =)`, "invalid_arity", "1:1", []string{"condp"}},
		// where
		{`(where)`, "invalid_where_form", "1:1", []string{"where", "(where :field op value)", "0"}},
		{`(where :a =)`, "invalid_where_form", "1:1", []string{"2 argument"}},
		{`(where 1 = 2)`, "invalid_where_form", "1:8", []string{"field keyword", "1"}},
		{`(where [:a 1] = 2)`, "invalid_where_form", "1:12", []string{"keywords or strings", "1"}},
		{`(where :a foo 2)`, "invalid_where_operator", "1:11", []string{"operator", "foo", "not=", "includes"}},
		{`(where :a "=" 2)`, "invalid_where_operator", "1:11", []string{"operator"}},
		{`(where :a str/= 2)`, "invalid_where_operator", "1:11", []string{"operator"}},
		// return, fail, call, memory
		{`(return)`, "invalid_arity", "1:1", []string{"return", "exactly one"}},
		{`(fail 1 2)`, "invalid_arity", "1:1", []string{"fail", "2"}},
		{`(call)`, "invalid_arity", "1:1", []string{"call", `(call "tool-name" args...)`}},
		{`(call foo 1)`, "invalid_form", "1:7", []string{"string", `(call "foo" args...)`}},
		{`(call "return")`, "invalid_arity", "1:1", []string{`(call "return" value)`, "0"}},
		{`(call "fail" 1 2)`, "invalid_arity", "1:1", []string{`(call "fail" value)`, "2"}},
		{`(memory/put 1)`, "invalid_arity", "1:1", []string{"memory/put", "1 argument"}},
		{`(memory/get)`, "invalid_arity", "1:1", []string{"memory/get", "0 argument"}},
		{`(memory/foo 1)`, "invalid_form", "1:1", []string{"memory/foo", "not a function", "(memory/get key)"}},
		{`(data/x 1)`, "invalid_form", "1:1", []string{"data/x", "not a tool", "tool/name"}},
		{`(assert)`, "invalid_arity", "1:1", []string{"assert"}},
		{`(assert 1 2 3)`, "invalid_arity", "1:1", []string{"assert", "3"}},
		// names
		{`tool/foo`, "invalid_form", "1:1", []string{"tool/foo", "call it", "(tool/foo {...})"}},
		{`&`, "invalid_form", "1:1", []string{"&", "parameter"}},
		{`.foo`, "invalid_form", "1:1", []string{".foo", "called"}},
		{`(.toUpperCase "a")`, "invalid_form", "1:1", []string{"Java interop", ".toUpperCase", "builtin"}},
		{`(String. "a")`, "invalid_form", "1:1", []string{"Java interop", "String."}},
		{`(. "a" foo)`, "invalid_form", "1:1", []string{"Java interop"}},
		{`(new String)`, "invalid_form", "1:1", []string{"Java interop"}},
		{`(str/nope 1)`, "unbound_var", "1:2", []string{"str/nope", "not available"}},
		{`(foo/bar 1)`, "unbound_var", "1:2", []string{"unknown namespace foo/", "foo/bar", "ctx/name", "tool/name"}},
		{`foo/bar`, "unbound_var", "1:1", []string{"unknown namespace foo/"}},
		// special forms used as values
		{`(map if [1])`, "invalid_form", "1:6", []string{"if", "special form", "not a function", "#(if ...)"}},
		{`(map -> [1])`, "invalid_form", "1:6", []string{"->", "special form"}},
		{`(map where [1])`, "invalid_form", "1:6", []string{"where", "special form"}},
		{`(filter and [1])`, "invalid_form", "1:9", []string{"and", "special form"}},
		// placeholders
		{`%`, "invalid_placeholder", "1:1", []string{"placeholder %", "#(...)"}},
		{`(map (fn [x] %1) [1])`, "invalid_placeholder", "1:14", []string{"placeholder %1", "#(...)"}},
		{`(inc %&)`, "invalid_placeholder", "1:6", []string{"%&"}},
		{`#(+ % #(inc %))`, "invalid_form", "1:7", []string{"nested #()", "(fn [x] ...)"}},
		{`#(vector [#(inc %)])`, "invalid_form", "1:11", []string{"nested #()"}},
		{`#(vector {:a #(inc %)})`, "invalid_form", "1:14", []string{"nested #()"}},
		{`#(vector #{#(inc %)})`, "invalid_form", "1:12", []string{"nested #()"}},
		{`#(vector '(#(inc %)))`, "invalid_form", "1:12", []string{"nested #()"}},
		// destructuring
		{`(let [{:or 1} {}] 1)`, "invalid_form", "1:12", []string{":or", "map of defaults"}},
		{`(let [{:or {:a 1}} {}] 1)`, "invalid_form", "1:13", []string{":or", "bound names", ":a"}},
		{`(let [{:as 1} {}] 1)`, "invalid_form", "1:12", []string{":as", "name"}},
		{`(let [{:keys x} {}] 1)`, "invalid_form", "1:14", []string{":keys", "vector of names"}},
		{`(let [{:strs "x"} {}] 1)`, "invalid_form", "1:14", []string{":strs", "vector of names"}},
		{`(let [{:keys [1]} {}] 1)`, "invalid_form", "1:15", []string{":keys", "names", "1"}},
		{`(let [{a [1]} {}] a)`, "invalid_form", "1:10", []string{"keywords, strings or other literals", "{the-name :name}"}},
		{`(let [a/b 1] b)`, "invalid_form", "1:7", []string{"qualified", "a/b", "plain name"}},
		{`(let [& 1] 1)`, "invalid_form", "1:7", []string{"&"}},
		{`(let [[a & r b] [1]] a)`, "invalid_form", "1:14", []string{"only :as", "&"}},
		{`(let [[a &] [1]] a)`, "invalid_form", "1:10", []string{"&", "followed by a name"}},
		{`(let [[a & r & s] [1]] a)`, "invalid_form", "1:14", []string{"only one &"}},
		{`(let [[a :as] [1]] a)`, "invalid_form", "1:10", []string{":as", "one name"}},
		{`(let [[a :as 1] [1]] a)`, "invalid_form", "1:14", []string{":as", "name"}},
		{`(let [[a :b] [1]] a)`, "invalid_form", "1:10", []string{"cannot bind", ":b"}},
		{`(let [1 2] 3)`, "invalid_form", "1:7", []string{"cannot bind to 1", "[a b]", "{:keys [a b]}"}},
		{`(let ["s" 2] 3)`, "invalid_form", "1:7", []string{"cannot bind"}},
	}
	for _, tt := range tests {
		t.Run(tt.src, func(t *testing.T) {
			errs := analyzeErrs(t, tt.src, testConfig())
			e := errs[0]
			if e.Kind != tt.kind {
				t.Errorf("kind %s, want %s (%s)", e.Kind, tt.kind, e.Msg)
			}
			if got := e.Pos.String(); got != tt.pos {
				t.Errorf("position %s, want %s (%s)", got, tt.pos, e.Msg)
			}
			for _, w := range tt.words {
				if !strings.Contains(e.Msg, w) {
					t.Errorf("message %q lacks %q", e.Msg, w)
				}
			}
			if got, want := e.Error(), tt.pos+": "+e.Msg; got != want {
				t.Errorf("Error() = %q, want %q", got, want)
			}
		})
	}
}

// TestErrorPositionsMultiLine checks line:col positions on later lines.
func TestErrorPositionsMultiLine(t *testing.T) {
	src := "(defn f [x]\n  (let [y (inc x)]\n    (str/nope y)))\n\n   (g/h 1)"
	errs := analyzeErrs(t, src, testConfig())
	var got []string
	for _, e := range errs {
		got = append(got, e.Pos.String())
	}
	if want := "3:6 5:5"; strings.Join(got, " ") != want {
		t.Errorf("positions %v, want %s", got, want)
	}
	if errs[0].Pos.Offset != int32(strings.Index(src, "str/nope")) {
		t.Errorf("offset %d, want %d", errs[0].Pos.Offset, strings.Index(src, "str/nope"))
	}
}

// TestSeveralErrors checks that independent errors are all reported, in
// source order, and that no program comes with them.
func TestSeveralErrors(t *testing.T) {
	src := "(foo/a 1)\n(let [x] x)\n(def y ~(x))\n(fn [x] (recur))"
	errs := analyzeErrs(t, src, testConfig())
	want := []struct{ kind, pos string }{
		{"unbound_var", "1:2"}, {"invalid_form", "2:6"}, {"invalid_form", "3:8"}, {"arity_mismatch", "4:9"},
	}
	if len(errs) != len(want) {
		t.Fatalf("%d errors, want %d: %v", len(errs), len(want), errs)
	}
	for i, w := range want {
		if errs[i].Kind != w.kind || errs[i].Pos.String() != w.pos {
			t.Errorf("error %d: %s at %s, want %s at %s", i, errs[i].Kind, errs[i].Pos, w.kind, w.pos)
		}
	}
	if msg := errs.Error(); !strings.HasPrefix(msg, errs[0].Error()) || !strings.HasSuffix(msg, "(and 3 more errors)") {
		t.Errorf("ErrorList.Error() = %q", msg)
	}
	// errors.As reaches each *Error through Unwrap.
	var e *Error
	if !errors.As(error(errs), &e) || e != errs[0] {
		t.Errorf("errors.As did not find the first error")
	}
	if got := len(errs.Unwrap()); got != 4 {
		t.Errorf("Unwrap gives %d errors, want 4", got)
	}
	// Errors in several forms of one expression.
	errs = analyzeErrs(t, `(let [a (foo/x) b (bar/y)] [a b (baz/z)])`, testConfig())
	if len(errs) != 3 {
		t.Errorf("%d errors, want 3: %v", len(errs), errs)
	}
}

func TestErrorListError(t *testing.T) {
	one := &Error{Pos: syntax.Pos{Line: 2, Col: 3}, Kind: "invalid_form", Msg: "bad"}
	two := &Error{Pos: syntax.Pos{Line: 4, Col: 1}, Kind: "invalid_form", Msg: "worse"}
	tests := []struct {
		l    ErrorList
		want string
	}{
		{nil, "no errors"},
		{ErrorList{one}, "2:3: bad"},
		{ErrorList{one, two}, "2:3: bad (and 1 more errors)"},
	}
	for _, tt := range tests {
		if got := tt.l.Error(); got != tt.want {
			t.Errorf("ErrorList.Error() = %q, want %q", got, tt.want)
		}
	}
}

// TestMaxErrors checks that analysis stops after Config.MaxErrors errors.
func TestMaxErrors(t *testing.T) {
	src := strings.Repeat("(foo/a) ", 20)
	tests := []struct{ max, want int }{{0, 10}, {1, 1}, {3, 3}, {20, 20}, {100, 20}}
	for _, tt := range tests {
		cfg := testConfig()
		cfg.MaxErrors = tt.max
		errs := analyzeErrs(t, src, cfg)
		if len(errs) != tt.want {
			t.Errorf("MaxErrors %d: %d errors, want %d", tt.max, len(errs), tt.want)
		}
		for i, e := range errs {
			if want := fmt.Sprintf("1:%d", 2+8*i); e.Pos.String() != want {
				t.Errorf("MaxErrors %d: error %d at %s, want %s", tt.max, i, e.Pos, want)
				break
			}
		}
	}
}

// TestMaxDepth checks that deep nesting is an error, never a crash, and
// that the limit is Config.MaxDepth (512 by default).
func TestMaxDepth(t *testing.T) {
	deepReader := syntax.Config{MaxDepth: 1 << 20}
	nested := func(open, close string, n int, inner string) string {
		return strings.Repeat(open, n) + inner + strings.Repeat(close, n)
	}
	tests := []struct {
		name     string
		src      string
		maxDepth int
		wantErr  bool
	}{
		{"2000 nested do", nested("(do ", ")", 2000, "1"), 0, true},
		{"100000 nested do", nested("(do ", ")", 100000, "1"), 0, true},
		{"511 nested do: within the default", nested("(do ", ")", 511, "1"), 0, false},
		{"512 nested do: beyond the default", nested("(do ", ")", 512, "1"), 0, true},
		{"2000 nested vectors", nested("[", "]", 2000, "1"), 0, true},
		{"2000 nested fns", nested("(fn [] ", ")", 2000, "1"), 0, true},
		{"2000 nested lets", nested("(let [a ", " ] a)", 2000, "1"), 0, true},
		{"2000 nested patterns", "(let [" + nested("[", "]", 2000, "a") + " 1] a)", 0, true},
		{"custom limit reached", `(do (do (do 1)))`, 3, true},
		{"custom limit respected", `(do (do 1))`, 3, false},
		{"custom limit in a pattern", `(let [[[[a]]] 1] a)`, 3, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			forms, err := deepReader.Read(tt.src)
			if err != nil {
				t.Fatalf("read: %v", err)
			}
			cfg := testConfig()
			cfg.MaxDepth = tt.maxDepth
			p, err := Analyze(tt.src, forms, cfg)
			if !tt.wantErr {
				if err != nil {
					t.Fatalf("unexpected error %v", err)
				}
				return
			}
			if err == nil || p != nil {
				t.Fatalf("got program %v and error %v, want only an error", p != nil, err)
			}
			errs := err.(ErrorList)
			if len(errs) != 1 {
				t.Errorf("%d errors, want 1: %v", len(errs), errs)
			}
			if errs[0].Kind != "invalid_form" || !strings.Contains(errs[0].Msg, "too deep") {
				t.Errorf("error %s: %s", errs[0].Kind, errs[0].Msg)
			}
		})
	}
	// The message states the limit.
	cfg := testConfig()
	cfg.MaxDepth = 3
	errs := analyzeErrs(t, `(do (do (do 1)))`, cfg)
	if !strings.Contains(errs[0].Msg, "3") || errs[0].Pos.String() != "1:13" {
		t.Errorf("got %s %q", errs[0].Pos, errs[0].Msg)
	}
	// Errors found before the depth error are kept.
	src := "(foo/x) " + nested("(do ", ")", 600, "1")
	forms, err := deepReader.Read(src)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Analyze(src, forms, testConfig())
	errs, _ = err.(ErrorList)
	if len(errs) != 2 || errs[0].Kind != "unbound_var" || !strings.Contains(errs[1].Msg, "too deep") {
		t.Errorf("got %v", errs)
	}
}

// TestMaxDepthQuotedData: quoted data is nesting the analyzer descends into
// too, so it must respect MaxDepth as well.
func TestMaxDepthQuotedData(t *testing.T) {

	cfg := testConfig()
	cfg.MaxDepth = 10
	p, err := analyzeSrc(t, "'"+strings.Repeat("[", 50)+strings.Repeat("]", 50), cfg)
	if err == nil {
		t.Errorf("50 levels of quoted vectors with MaxDepth 10: no error (body %T)", p.Body)
	}
}

// TestHints checks that Config.Hint explains names PTC-Lisp does not have.
func TestHints(t *testing.T) {
	cfg := testConfig()
	cfg.Hint = func(name string) string {
		switch name {
		case "atom", "swap!", "str/format", "format", ".getTime", "Thread.":
			return name + " is not available: HINT"
		}
		return ""
	}
	tests := []struct {
		src, kind, pos, msg string
	}{
		// Unqualified names with a hint are globals (an earlier run may
		// have defined them); their hints join the errors of a program
		// that fails to analyze, in source order.
		{`(atom 1 (if))`, "unbound_var", "1:2", "atom is not available: HINT"},
		{`(swap! a inc) (let [x])`, "unbound_var", "1:2", "swap! is not available: HINT"},
		{`[(let) atom]`, "invalid_arity", "1:2", ""},
		{`(str/format "%d" 1)`, "unbound_var", "1:2", "str/format is not available: HINT"},
		{`(clojure.string/format "%d" 1)`, "unbound_var", "1:2", "format is not available: HINT"},
		{`(.getTime x)`, "invalid_form", "1:1", ".getTime is not available: HINT"},
		{`(Thread. 1)`, "invalid_form", "1:1", "Thread. is not available: HINT"},
	}
	for _, tt := range tests {
		errs := analyzeErrs(t, tt.src, cfg)
		if e := errs[0]; e.Kind != tt.kind || e.Pos.String() != tt.pos || (tt.msg != "" && e.Msg != tt.msg) {
			t.Errorf("Analyze(%q): %s at %s %q, want %s at %s %q", tt.src, e.Kind, e.Pos, e.Msg, tt.kind, tt.pos, tt.msg)
		}
	}
	if errs := analyzeErrs(t, `[(let) atom]`, cfg); len(errs) != 2 || errs[1].Msg != "atom is not available: HINT" {
		t.Errorf("[(let) atom]: %v, want the let error then the hint", errs)
	}
	// Alone, a hinted name is a global: the runtime reports the hint when
	// the namespace does not define it.
	if p, err := analyzeSrc(t, `(atom 1)`, cfg); err != nil || globalsString(`(atom 1)`, p.Globals) != "atom@1:2" {
		t.Errorf("(atom 1) with a hint: %v %v", p, err)
	}
	// A name without a hint is a global.
	p, err := analyzeSrc(t, `plain-name`, cfg)
	if err != nil || globalsString(`plain-name`, p.Globals) != "plain-name@1:1" {
		t.Errorf("plain-name: %v %v", p, err)
	}
	// Without a Hint function an unknown name is a global, not an error.
	p = mustAnalyze(t, `(atom 1)`)
	if got := dump(p.Body); got != "($atom 1)" {
		t.Errorf("without Hint: %s", got)
	}
	// An unknown namespace is not looked up in the hints.
	errs := analyzeErrs(t, `(foo/atom 1)`, cfg)
	if !strings.Contains(errs[0].Msg, "unknown namespace foo/") {
		t.Errorf("got %q", errs[0].Msg)
	}
}

// TestHintWithLocalsAndDefs: a hinted name that the program binds is used as
// a name, not reported.
func TestHintWithLocalsAndDefs(t *testing.T) {
	cfg := testConfig()
	cfg.Hint = func(name string) string {
		if name == "atom" {
			return "HINT"
		}
		return ""
	}
	tests := []struct{ src, want string }{
		{`(let [atom 1] atom)`, `(let [atom@0 1] atom@0)`},
		{`(def atom 1) atom`, `(do (def atom 1) $atom)`},
		{`(fn [atom] atom)`, `(fn ([atom@0] n=1 atom@0))`},
	}
	for _, tt := range tests {
		p, err := analyzeSrc(t, tt.src, cfg)
		if err != nil {
			t.Errorf("Analyze(%q): %v", tt.src, err)
			continue
		}
		if got := dump(p.Body); got != tt.want {
			t.Errorf("Analyze(%q) = %s, want %s", tt.src, got, tt.want)
		}
	}
}

// TestInteropBuiltin checks that a host method the runtime provides is called
// as a builtin.
func TestInteropBuiltin(t *testing.T) {
	cfg := Config{IsBuiltin: func(name string) bool { return name == ".toUpperCase" || name == "java.util.Date." }}
	p, err := analyzeSrc(t, `[(.toUpperCase "a") (java.util.Date. 1)]`, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := dump(p.Body), `[(.toUpperCase "a") (java.util.Date. 1)]`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	call := p.Body.(*VectorLit).Items[0].(*Call)
	if _, ok := call.Fn.(*Builtin); !ok {
		t.Errorf("callee is %T, want *Builtin", call.Fn)
	}
}

// TestZeroConfig: the zero Config is usable; every free name is a global.
func TestZeroConfig(t *testing.T) {
	p, err := analyzeSrc(t, `(map inc [1])`, Config{})
	if err != nil {
		t.Fatal(err)
	}
	if got := dump(p.Body); got != `($map $inc [1])` {
		t.Errorf("got %s", got)
	}
	if got := globalsString(`(map inc [1])`, p.Globals); got != "map@1:2 inc@1:6" {
		t.Errorf("Globals %s", got)
	}
	// Forms the analyzer generates still refer to builtins by name.
	p, err = analyzeSrc(t, `(when-some [x 1] x) #"a"`, Config{})
	if err != nil {
		t.Fatal(err)
	}
	if got := dump(p.Body); !strings.Contains(got, "(some? @0)") || !strings.Contains(got, `(re-pattern "a")`) {
		t.Errorf("got %s", got)
	}
}

// TestMaxDepthMessages pins the message of each depth guard: it names what
// is too deep and the limit.
func TestMaxDepthMessages(t *testing.T) {
	for _, tt := range []struct{ src, msg string }{
		{`(do (do (do 1)))`, "program nesting too deep (more than 3 levels)"},
		{`'[[[[1]]]]`, "quoted data nested too deep (more than 3 levels)"},
	} {
		forms, err := syntax.Config{}.Read(tt.src)
		if err != nil {
			t.Fatalf("read %s: %v", tt.src, err)
		}
		cfg := testConfig()
		cfg.MaxDepth = 3
		_, err = Analyze(tt.src, forms, cfg)
		var errs ErrorList
		if !errors.As(err, &errs) || len(errs) != 1 || errs[0].Msg != tt.msg {
			t.Errorf("%s: %v, want one error %q", tt.src, err, tt.msg)
		}
	}
}
