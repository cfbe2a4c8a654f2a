package analyze

import (
	"reflect"
	"strings"
	"testing"

	"github.com/ptc-go/ptc/lisp/syntax"
)

// TestSlots checks frame slot allocation: parameters first, the rest
// parameter right after them, then pattern and let slots, reused after a
// block ends.
func TestSlots(t *testing.T) {
	tests := []struct {
		name, src, want string
		numSlots        int
	}{
		{"parameters in 0..n-1, rest in n", `(fn [a b & r] [a b r])`,
			`(fn ([a@0 b@1 & r@2] n=3 [a@0 b@1 r@2]))`, 0},
		{"destructured parameters bind after the argument slots", `(fn [[a b] c & {:keys [d]}] [a b c d])`,
			`(fn ([[a@3 b@4] c@1 & {:d=d@5}] n=6 [a@3 b@4 c@1 d@5]))`, 0},
		{"let slots reused after the let", `(do (let [a 1] a) (let [b 2] b))`,
			`(do (let [a@0 1] a@0) (let [b@0 2] b@0))`, 1},
		{"nested lets", `(let [x 1] (let [y 2] y) (let [z 3] z) x)`,
			`(let [x@0 1] (do (let [y@1 2] y@1) (let [z@1 3] z@1) x@0))`, 2},
		{"frame of an arity counts its lets, not the top level", `(let [a 1 b 2] (fn [c] (let [d 1 e 2 f 3] d)))`,
			`(let [a@0 1 b@1 2] (fn ([c@0] n=4 (let [d@1 1 e@2 2 f@3 3] d@1))))`, 2},
		{"each arity has its own frame", `(fn ([x] (let [y 1] y)) ([x y z] z))`,
			`(fn ([x@0] n=2 (let [y@1 1] y@1)) ([x@0 y@1 z@2] n=3 z@2))`, 0},
		{"a loop after a loop reuses slots", `(fn [x] (loop [i 0] i) (recur 1))`,
			`(fn ([x@0] n=2 (do (loop [i@1 0] i@1) (recur->fn 1))))`, 0},
		{"shadowing takes a new slot", `(let [x 1 x (inc x)] x)`, `(let [x@0 1 x@1 (inc x@0)] x@1)`, 2},
		{"for clauses", `(for [x [1] y [x]] [x y])`, `(for [x@0 [1] y@1 [x@0]] [x@0 y@1])`, 2},
		{"dotimes count is evaluated outside", `(let [n 2] (dotimes [i n] i))`, `(let [n@0 2] (dotimes [@1 n@0] i@1))`, 2},
		{"no slots", `(+ 1 2)`, `(+ 1 2)`, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := mustAnalyze(t, tt.src)
			if got := dump(p.Body); got != tt.want {
				t.Errorf("Analyze(%q)\n got: %s\nwant: %s", tt.src, got, tt.want)
			}
			if p.NumSlots != tt.numSlots {
				t.Errorf("Analyze(%q): NumSlots %d, want %d", tt.src, p.NumSlots, tt.numSlots)
			}
		})
	}
}

// TestArityCallingConvention checks, over many parameter lists, that fixed
// parameters that are plain names sit in slots 0..n-1, a plain rest name in
// slot n, and that every other name a pattern binds is beyond n and below
// NumSlots.
func TestArityCallingConvention(t *testing.T) {
	srcs := []string{
		`(fn [a] a)`, `(fn [a b c] a)`, `(fn [& r] r)`, `(fn [a & r] r)`,
		`(fn [[a b] c] a)`, `(fn [a {:keys [b c]} & [d e]] a)`, `(fn [{x :x} & r] (let [y 1] y))`,
		`(fn [[a [b [c]]] d & {:strs [e] :as m}] e)`,
	}
	for _, src := range srcs {
		ar := mustAnalyze(t, src).Body.(*Fn).Arities[0]
		n := len(ar.Params)
		for i, p := range ar.Params {
			if s, ok := p.(*BindSlot); ok && s.Slot != i {
				t.Errorf("%s: parameter %d in slot %d", src, i, s.Slot)
			}
		}
		if s, ok := ar.Rest.(*BindSlot); ok && s.Slot != n {
			t.Errorf("%s: rest parameter in slot %d, want %d", src, s.Slot, n)
		}
		var inner []Pattern
		for _, p := range ar.Params {
			if _, ok := p.(*BindSlot); !ok {
				inner = append(inner, p)
			}
		}
		if _, ok := ar.Rest.(*BindSlot); !ok && ar.Rest != nil {
			inner = append(inner, ar.Rest)
		}
		first := n // the first slot after the argument slots
		if ar.Rest != nil {
			first++
		}
		for _, p := range inner {
			for _, slot := range patternSlots(p) {
				if slot < first || slot >= ar.NumSlots {
					t.Errorf("%s: pattern %s binds slot %d, want in [%d, %d)", src, dumpPattern(p), slot, first, ar.NumSlots)
				}
			}
		}
	}
}

func patternSlots(p Pattern) []int {
	switch p := p.(type) {
	case *BindSlot:
		return []int{p.Slot}
	case *BindVector:
		var out []int
		for _, it := range p.Items {
			out = append(out, patternSlots(it)...)
		}
		if p.Rest != nil {
			out = append(out, patternSlots(p.Rest)...)
		}
		if p.As >= 0 {
			out = append(out, int(p.As))
		}
		return out
	case *BindMap:
		var out []int
		for _, k := range p.Keys {
			out = append(out, patternSlots(k.Pattern)...)
		}
		if p.As >= 0 {
			out = append(out, int(p.As))
		}
		return out
	}
	return nil
}

// TestCaptures checks what closures capture and from where.
func TestCaptures(t *testing.T) {
	tests := []dumpCase{
		{"local of the parent, recorded once", `(let [a 1 b 2] (fn [] (+ b a b)))`,
			`(let [a@0 1 b@1 2] (fn caps=[b<-L1 a<-L0] ([] n=0 (+ ^b#0 ^a#1 ^b#0))))`},
		{"parameter of the parent", `(fn [x] (fn [] (+ x x x)))`,
			`(fn ([x@0] n=1 (fn caps=[x<-L0] ([] n=0 (+ ^x#0 ^x#0 ^x#0)))))`},
		{"capture of a capture through two levels", `(fn [x] (fn [] (fn [] x)))`,
			`(fn ([x@0] n=1 (fn caps=[x<-L0] ([] n=0 (fn caps=[x<-C0] ([] n=0 ^x#0))))))`},
		{"named fn refers to itself", `(fn f [x] (f x))`, `(fn f ([x@0] n=1 (self:f x@0)))`},
		{"nested fn captures the outer named fn", `(fn f [x] (fn [] (f x)))`,
			`(fn f ([x@0] n=1 (fn caps=[f<-S x<-L0] ([] n=0 (^f#0 ^x#1)))))`},
		{"self and a capture of a capture", `(let [a 1] (fn f [] (fn g [] (f a))))`,
			`(let [a@0 1] (fn f caps=[a<-L0] ([] n=0 (fn g caps=[f<-S a<-C0] ([] n=0 (^f#0 ^a#1))))))`},
		{"a parameter shadows the fn name", `(fn f [f] f)`, `(fn f ([f@0] n=1 f@0))`},
		{"a let shadows the fn name", `(fn f [] (let [f 1] f))`, `(fn f ([] n=1 (let [f@0 1] f@0)))`},
		{"captures shared by the arities", `(fn [x] (fn ([] x) ([a] (+ a x))))`,
			`(fn ([x@0] n=1 (fn caps=[x<-L0] ([] n=0 ^x#0) ([a@0] n=1 (+ a@0 ^x#0)))))`},
		{"an arity parameter shadows a capture", `(let [x 1] (fn ([] x) ([x] x)))`,
			`(let [x@0 1] (fn caps=[x<-L0] ([] n=0 ^x#0) ([x@0] n=1 x@0)))`},
		{"capture of a reused let slot", `(fn [x] (let [y 1] (fn [] y)) (let [z 2] (fn [] z)))`,
			`(fn ([x@0] n=2 (do (let [y@1 1] (fn caps=[y<-L1] ([] n=0 ^y#0))) (let [z@1 2] (fn caps=[z<-L1] ([] n=0 ^z#0))))))`},
		{"a local of the closure is not captured", `(let [x 1] (fn [] (let [x 2] x)))`,
			`(let [x@0 1] (fn ([] n=1 (let [x@0 2] x@0))))`},
		{"captured before, then shadowed", `(let [x 1] (fn [] [x (let [x 2] x) x]))`,
			`(let [x@0 1] (fn caps=[x<-L0] ([] n=1 [^x#0 (let [x@0 2] x@0) ^x#0])))`},
		{"#() inside fn captures", `(fn [y] #(+ % y))`, `(fn ([y@0] n=1 (fn caps=[y<-L0] ([%1@0] n=1 (+ %@0 ^y#0)))))`},
		{"fn inside #() captures the placeholder", `#(map (fn [x] (+ x %)) [1])`,
			`(fn ([%1@0] n=1 (map (fn caps=[%<-L0] ([x@0] n=1 (+ x@0 ^%#0))) [1])))`},
		{"globals and builtins are not captured", `(fn [] (fn [] (inc foo)))`, `(fn ([] n=0 (fn ([] n=0 (inc $foo)))))`},
	}
	checkDumps(t, tests)
}

// TestCaptureStructs checks the Capture values themselves (not only their dump).
func TestCaptureStructs(t *testing.T) {
	p := mustAnalyze(t, `(fn f [x] (let [y 1] (fn [] (fn [] [f x y x]))))`)
	outer := p.Body.(*Fn)
	mid := outer.Arities[0].Body.(*Let).Body.(*Fn)
	inner := mid.Arities[0].Body.(*Fn)
	wantMid := []Capture{{Name: "f", From: FromSelf}, {Name: "x", From: FromLocal, Index: 0}, {Name: "y", From: FromLocal, Index: 1}}
	if !reflect.DeepEqual(mid.Captures, wantMid) {
		t.Errorf("middle captures %+v, want %+v", mid.Captures, wantMid)
	}
	wantInner := []Capture{{Name: "f", From: FromCaptured, Index: 0}, {Name: "x", From: FromCaptured, Index: 1}, {Name: "y", From: FromCaptured, Index: 2}}
	if !reflect.DeepEqual(inner.Captures, wantInner) {
		t.Errorf("inner captures %+v, want %+v", inner.Captures, wantInner)
	}
	if len(outer.Captures) != 0 {
		t.Errorf("outer fn captures %+v, want none", outer.Captures)
	}
}

// TestRecur checks where recur is allowed and what it targets.
func TestRecur(t *testing.T) {
	ok := []dumpCase{
		{"through when let cond do and or",
			`(loop [x 1] (when x (let [y 1] (cond (= y 1) (recur 2) :else (do 1 (and 1 (or 2 (recur 3))))))))`,
			`(loop [x@0 1] (if x@0 (let [y@1 1] (if (= y@1 1) (recur->loop 2) (do 1 (and 1 (or 2 (recur->loop 3)))))) nil))`},
		{"through if-let and when-let", `(loop [x 1] (if-let [y x] (recur y) (when-let [z x] (recur z))))`,
			`(loop [x@0 1] (let [@1 x@0] (if @1 (let [y@2 @1] (recur->loop y@2)) (let [@2 x@0] (if @2 (let [z@3 @2] (recur->loop z@3)) nil)))))`},
		{"through if-not and when-not", `(loop [x 1] (if-not x (recur 1) (when-not x (recur 2))))`,
			`(loop [x@0 1] (if x@0 (if x@0 nil (recur->loop 2)) (recur->loop 1)))`},
		{"through case", `(loop [x 1] (case x 1 (recur 2) (recur 3)))`,
			`(loop [x@0 1] (case x@0 (1) (recur->loop 2) :default (recur->loop 3)))`},
		{"through condp", `(loop [x 1] (condp = x 1 (recur 2) (recur 3)))`,
			`(loop [x@0 1] (let [@1 = @2 x@0] (if (@1 1 @2) (recur->loop 2) (recur->loop 3))))`},
		{"through letfn", `(loop [x 1] (letfn [(f [] 1)] (recur 2)))`,
			`(loop [x@0 1] (letfn [@1 (fn f ([] n=0 1))] (recur->loop 2)))`},
		{"through ->", `(loop [x 1] (-> x (recur)))`, `(loop [x@0 1] (recur->loop x@0))`},
		{"fn arity", `(fn [x & r] (recur 1 2))`, `(fn ([x@0 & r@1] n=2 (recur->fn 1 2)))`},
		{"each arity its own count", `(fn ([x] (recur 1)) ([x y] (recur 1 2)))`,
			`(fn ([x@0] n=1 (recur->fn 1)) ([x@0 y@1] n=2 (recur->fn 1 2)))`},
		{"#()", `#(recur %)`, `(fn ([%1@0] n=1 (recur->fn %@0)))`},
		{"innermost is a fn inside a loop", `(loop [i 0] (fn [] (recur)))`, `(loop [i@0 0] (fn ([] n=0 (recur->fn))))`},
		{"innermost is a loop inside a fn", `(fn [a b] (loop [i 0] (recur 1)))`, `(fn ([a@0 b@1] n=3 (loop [i@2 0] (recur->loop 1))))`},
		{"the fn again after a loop", `(fn [x] (loop [i 0] i) (recur 1))`, `(fn ([x@0] n=2 (do (loop [i@1 0] i@1) (recur->fn 1))))`},
		{"a loop inside a for body", `(for [x [1]] (loop [i x] (recur i)))`, `(for [x@0 [1]] (loop [i@1 x@0] (recur->loop i@1)))`},
		{"a fn inside a doseq body", `(doseq [x [1]] (fn [y] (recur y)))`, `(doseq [x@0 [1]] (fn ([y@0] n=1 (recur->fn y@0))))`},
		{"destructuring loop binding", `(loop [[a b] [1 2]] (recur [b a]))`, `(loop [[a@0 b@1] [1 2]] (recur->loop [b@1 a@0]))`},
	}
	checkDumps(t, ok)

	bad := []struct {
		name, src, kind, pos string
		words                []string
	}{
		{"in an argument", `(loop [i 0] (inc (recur 1)))`, "invalid_form", "1:18", []string{"recur", "tail position"}},
		{"in an if test", `(loop [x 1] (if (recur 1) 1 2))`, "invalid_form", "1:17", []string{"tail position"}},
		{"not last in do", `(loop [x 1] (do (recur 1) 2))`, "invalid_form", "1:17", []string{"tail position"}},
		{"not last in and", `(loop [x 1] (and (recur 1) 2))`, "invalid_form", "1:18", []string{"tail position"}},
		{"in a vector", `(loop [x 1] [(recur 1)])`, "invalid_form", "1:14", []string{"tail position"}},
		{"in a let init", `(loop [x 1] (let [y (recur 1)] y))`, "invalid_form", "1:21", []string{"tail position"}},
		{"in a loop init", `(loop [x 1] (loop [y (recur 1)] y))`, "invalid_form", "1:22", []string{"tail position"}},
		{"in some->", `(loop [x 1] (some-> x (recur)))`, "invalid_form", "1:23", []string{"tail position"}},
		{"in a case test expression", `(loop [x 1] (case (recur 1) 1 2))`, "invalid_form", "1:19", []string{"tail position"}},
		{"in a where value", `(loop [x 1] (where :a = (recur 1)))`, "invalid_form", "1:25", []string{"tail position"}},
		{"outside loop and fn", `(recur 1)`, "invalid_form", "1:1", []string{"recur", "loop", "fn"}},
		{"after its loop", `(do (loop [i 0] i) (recur 1))`, "invalid_form", "1:20", []string{"recur", "loop"}},
		{"in a for body", `(fn [x] (for [y [1]] (recur y)))`, "invalid_form", "1:22", []string{"recur"}},
		{"in a doseq body", `(fn [x] (doseq [y [1]] (recur y)))`, "invalid_form", "1:24", []string{"recur"}},
		{"in a dotimes body", `(loop [x 1] (dotimes [y 1] (recur y)))`, "invalid_form", "1:28", []string{"recur"}},
		{"loop arity", `(loop [i 0] (recur 1 2))`, "arity_mismatch", "1:13", []string{"1", "2", "loop"}},
		{"fn arity", `(fn [x] (recur))`, "arity_mismatch", "1:9", []string{"1", "0", "function"}},
		{"variadic fn arity counts the rest once", `(fn [x & r] (recur 1 2 3))`, "arity_mismatch", "1:13", []string{"2", "3"}},
		{"innermost fn arity", `(loop [i 0] (fn [a] (recur)))`, "arity_mismatch", "1:21", []string{"function"}},
		{"innermost loop arity", `(fn [a] (loop [i 0] (recur 1 2)))`, "arity_mismatch", "1:21", []string{"loop"}},
		{"#() arity", `#(recur % %2 3)`, "arity_mismatch", "1:1", []string{"2", "3"}},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			errs := analyzeErrs(t, tt.src, testConfig())
			e := errs[0]
			if e.Kind != tt.kind || e.Pos.String() != tt.pos {
				t.Errorf("Analyze(%q): %s at %s (%s), want %s at %s", tt.src, e.Kind, e.Pos, e.Msg, tt.kind, tt.pos)
			}
			for _, w := range tt.words {
				if !strings.Contains(e.Msg, w) {
					t.Errorf("Analyze(%q): message %q lacks %q", tt.src, e.Msg, w)
				}
			}
		})
	}
}

// TestRecurInForMessage checks that the message for a recur in a for/doseq
// body says why it is rejected.
func TestRecurInForMessage(t *testing.T) {

	for _, src := range []string{`(fn [x] (for [y [1]] (recur y)))`, `(fn [x] (doseq [y [1]] (recur y)))`, `(loop [x 1] (dotimes [y 1] (recur y)))`} {
		e := analyzeErrs(t, src, testConfig())[0]
		if strings.Contains(e.Msg, "must be inside loop or fn") {
			t.Errorf("Analyze(%q): misleading message %q", src, e.Msg)
		}
		if !strings.Contains(e.Msg, "for") && !strings.Contains(e.Msg, "doseq") && !strings.Contains(e.Msg, "dotimes") {
			t.Errorf("Analyze(%q): message %q does not name the form", src, e.Msg)
		}
	}
}

// TestDestructuring checks the patterns produced by let bindings.
func TestDestructuring(t *testing.T) {
	tests := []dumpCase{
		{"vector with rest and :as", `(let [[a b & r :as all] [1]] [a b r all])`,
			`(let [[a@0 b@1 & r@2 :as @3] [1]] [a@0 b@1 r@2 all@3])`},
		{"vector with :as only", `(let [[a :as v] [1]] v)`, `(let [[a@0 :as @1] [1]] v@1)`},
		{"vector with only a rest", `(let [[& r] [1]] r)`, `(let [[& r@0] [1]] r@0)`},
		{"nested vectors", `(let [[a [b [c]]] x] c)`, `(let [[a@0 [b@1 [c@2]]] $x] c@2)`},
		{"rest destructured as a map", `(let [[a & {:keys [k]}] v] k)`, `(let [[a@0 & {:k=k@1}] $v] k@1)`},
		{"map :keys :strs :or :as", `(let [{:keys [a b] :strs [c] :or {b 5} :as m} {}] [a b c m])`,
			`(let [{:a=a@1 :b=b@2|5 "c"=c@3 :as @0} {}] [a@1 b@2 c@3 m@0])`},
		{"map :keys with keywords and strings", `(let [{:keys [:a "b"]} {}] [a b])`, `(let [{:a=a@0 :b=b@1} {}] [a@0 b@1])`},
		{"map :keys with a qualified keyword", `(let [{:keys [:c/d]} {}] d)`, `(let [{:c/d=d@0} {}] d@0)`},
		{"map renames and nested patterns", `(let [{x :a y "b" [p q] :pt {:keys [z]} :in :or {x 1 p 2}} {}] [x y p q z])`,
			`(let [{:a=x@0|1 "b"=y@1 :pt=[p@2 q@3] :in={:z=z@4}} {}] [x@0 y@1 p@2 q@3 z@4])`},
		{"map :as only", `(let [{:as m} {}] m)`, `(let [{:as @0} {}] m@0)`},
		{"defaults see the enclosing scope", `(let [a 5 {:keys [b] :or {b a}} {}] b)`,
			`(let [a@0 5 {:b=b@1|a@0} {}] b@1)`},
		{"vector inside a map inside a vector", `(let [[{[a] :v}] x] a)`, `(let [[{:v=[a@0]}] $x] a@0)`},
		{"fn parameters", `(fn [{:keys [a]} [b]] [a b])`, `(fn ([{:a=a@2} [b@3]] n=4 [a@2 b@3]))`},
		{"loop binding", `(loop [[a & r] [1 2]] a)`, `(loop [[a@0 & r@1] [1 2]] a@0)`},
		{"for binding", `(for [[k v] {:a 1}] k)`, `(for [[k@0 v@1] {:a 1}] k@0)`},
		{"if-let binding", `(if-let [{:keys [a]} {}] a)`, `(let [@0 {}] (if @0 (let [{:a=a@1} @0] a@1) nil))`},
	}
	checkDumps(t, tests)
}

// TestDestructuringQualifiedKeysSymbol: in Clojure {:keys [a/b]} binds b from
// the key :a/b, as {:keys [:a/b]} does.
func TestDestructuringQualifiedKeysSymbol(t *testing.T) {
	p := mustAnalyze(t, `(let [{:keys [a/b]} {}] b)`)
	if got, want := dump(p.Body), `(let [{:a/b=b@0} {}] b@0)`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

// TestDestructuringDeterministic: analyzing the same program twice must give
// the same tree, the same Globals and the same errors. :or defaults are kept
// in a map, which must not leak its random iteration order.
func TestDestructuringDeterministic(t *testing.T) {
	srcs := []string{
		`(let [x 1 y 2 z 3 w 4] (fn [{:keys [a b c d] :or {a x b y c z d w}}] [a b c d]))`,
		`(fn [{:keys [a b c d] :or {a foo b bar c baz d qux}}] [a b c d])`,
		`(let [{:keys [a b c d] :or {a (p/x) b (q/y) c (r/z) d (s/nope)}} {}] a)`,
	}
	for _, src := range srcs {
		first := ""
		for i := 0; i < 40; i++ {
			p, err := analyzeSrc(t, src, testConfig())
			var got string
			if err != nil {
				got = err.(ErrorList)[0].Error()
			} else {
				got = dump(p.Body) + " " + globalsString(src, p.Globals)
			}
			if i == 0 {
				first = got
			} else if got != first {
				t.Fatalf("Analyze(%q) differs between runs:\n%s\n%s", src, first, got)
			}
		}
	}
	// Globals follow the source order.
	p := mustAnalyze(t, srcs[1])
	if got, want := globalsString(srcs[1], p.Globals), "foo@1:30 bar@1:36 baz@1:42 qux@1:48"; got != want {
		t.Errorf("Globals %s, want %s", got, want)
	}
}

func globalsString(src string, gs []GlobalUse) string {
	lines := syntax.LinesOf(src)
	var parts []string
	for _, g := range gs {
		parts = append(parts, g.Name+"@"+lines.Pos(g.Off).String())
	}
	return strings.Join(parts, " ")
}

// TestProgramGlobalsDefs checks Program.Globals and Program.Defs.
func TestProgramGlobalsDefs(t *testing.T) {
	tests := []struct {
		name, src, globals string
		defs               []string
	}{
		{"forward references between defns", `(defn f [x] (g x)) (defn g [y] (f y)) (f 1) (g 2)`,
			"g@1:14 f@1:33", []string{"f", "g"}},
		{"defs in order", `(def a 1) (defonce b 2) (defn c [] 1) (defn- d [] 2) (declare e h)`,
			"", []string{"a", "b", "c", "d", "e", "h"}},
		{"a def listed once", `(def a 1) (def a 2) a a`, "a@1:21", []string{"a"}},
		{"def inside do is predeclared", `(do (def a 1)) a`, "a@1:16", []string{"a"}},
		{"def inside let", `(let [x 1] (def y x)) y`, "y@1:23", []string{"y"}},
		{"declare then use then define", `(declare h) (h 1) (defn h [x] x)`, "h@1:14", []string{"h"}},
		{"undefined names at their first use", "(foo (bar)\n foo)", "foo@1:2 bar@1:7", nil},
		{"builtins and locals are not globals", `(let [x 1] (map inc [x]))`, "", nil},
		{"var of an undefined name", `#'foo`, "foo@1:1", nil},
		{"var of a defined name", `(def foo 1) #'foo`, "", []string{"foo"}},
		{"a global inside a fn", `(fn [] (fn [] zz))`, "zz@1:15", nil},
		{"a later def of a name read earlier", `(defn f [] later) (def later 1)`, "later@1:12", []string{"f", "later"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := mustAnalyze(t, tt.src)
			if got := globalsString(tt.src, p.Globals); got != tt.globals {
				t.Errorf("Analyze(%q): Globals %q, want %q", tt.src, got, tt.globals)
			}
			if !reflect.DeepEqual(p.Defs, tt.defs) {
				t.Errorf("Analyze(%q): Defs %q, want %q", tt.src, p.Defs, tt.defs)
			}
		})
	}
}

// TestSourceOrder: Program.Globals records the position of the first use of
// a name, and errors come in source order, also inside case and condp.
func TestSourceOrder(t *testing.T) {

	globals := []struct{ src, want string }{
		{`(condp = 1 foo 1 foo 2)`, "foo@1:12"},
		{`(case 1 1 foo foo)`, "foo@1:11"},
	}
	for _, tt := range globals {
		p := mustAnalyze(t, tt.src)
		if got := globalsString(tt.src, p.Globals); got != tt.want {
			t.Errorf("Analyze(%q): Globals %s, want %s", tt.src, got, tt.want)
		}
	}
	for _, src := range []string{`(condp = 1 (a/x) 1 (b/y) 2)`, `(case 1 a 1 (foo/b))`} {
		errs := analyzeErrs(t, src, testConfig())
		for i := 1; i < len(errs); i++ {
			if errs[i].Pos.Offset < errs[i-1].Pos.Offset {
				t.Errorf("Analyze(%q): error at %s reported before the one at %s", src, errs[i-1].Pos, errs[i].Pos)
			}
		}
	}
}
