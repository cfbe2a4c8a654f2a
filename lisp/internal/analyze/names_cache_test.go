package analyze

import (
	"fmt"
	"testing"
)

// TestBuiltinAnswerCache checks the memory of names found to be plain
// builtins (builtinAnswer.plain): a def of the name, a :refer, or a local
// of the name changes what the next use means, as it did before the
// answer was remembered.
func TestBuiltinAnswerCache(t *testing.T) {
	checkDumps(t, []dumpCase{
		// Used as a builtin, then defined: from the def on, the user's value.
		{"def after use", `(inc 1) (inc 2) (def inc 5) (+ inc 1)`,
			"(do (inc 1) (inc 2) (def inc 5) (+ $inc 1))"},
		{"local after use", `(count [1]) (let [count 2] count) (count [2])`,
			"(do (count [1]) (let [count@0 2] count@0) (count [2]))"},
		{"head then value", `(map inc [1]) (inc (first [inc]))`,
			"(do (map inc [1]) (inc (first [inc])))"},
	})
}

// TestCallHeadCache checks the call heads that list resolves from the
// memory of plain builtins without symbol: a local, a capture or the
// self of a named fn of the head's name, made after the head was first
// seen, is what the head means from then on, also when its bucket holds
// other locals.
func TestCallHeadCache(t *testing.T) {
	checkDumps(t, []dumpCase{
		{"param of the head's name", `(inc 1) ((fn [inc] (inc 2)) first)`,
			"(do (inc 1) ((fn ([inc@0] n=1 (inc@0 2))) first))"},
		{"capture of the head's name", `(inc 1) (let [inc dec] (fn [] (inc 2)))`,
			"(do (inc 1) (let [inc@0 dec] (fn caps=[inc<-L0] ([] n=0 (^inc#0 2)))))"},
		{"named fn of the head's name", `(inc 1) (fn inc [x] (inc x))`,
			"(do (inc 1) (fn inc ([x@0] n=1 (self:inc x@0))))"},
		{"local in the bucket, not the name", `(inc 1) (let [a 1 b 2 c 3 d 4 e 5 f 6 g 7 h 8 i 9 j 10] (inc j))`,
			"(do (inc 1) (let [a@0 1 b@1 2 c@2 3 d@3 4 e@4 5 f@5 6 g@6 7 h@7 8 i@8 9 j@9 10] (inc j@9)))"},
		{"after the local's scope", `(inc 1) (let [inc 2] inc) (inc 3)`,
			"(do (inc 1) (let [inc@0 2] inc@0) (inc 3))"},
		{"bound again after the scope", `(inc 1) (let [inc 2] inc) (map inc [3]) (inc 4) (let [inc dec] (inc 5))`,
			"(do (inc 1) (let [inc@0 2] inc@0) (map inc [3]) (inc 4) (let [inc@0 dec] (inc@0 5)))"},
		{"loop binding of the head's name", `(inc 1) (loop [inc dec n 2] (inc n))`,
			"(do (inc 1) (loop [inc@0 dec n@1 2] (inc@0 n@1)))"},
		{"destructured name of the head's name", `(inc 1) (let [{:keys [inc]} {:inc dec}] (inc 2))`,
			"(do (inc 1) (let [{:inc=inc@0} {:inc dec}] (inc@0 2)))"},
		{"defined after use", `(inc 1) (def inc dec) (inc 2)`,
			"(do (inc 1) (def inc dec) ($inc 2))"},
	})
}

// TestSharedNodes checks the nodes that are the syntax tree's own
// (keywordOf, builtinOf): their offsets and names are those of the
// source's keywords and symbols.
func TestSharedNodes(t *testing.T) {
	src := `(inc (:a {:b :c})) (map inc [:d])`
	p := mustAnalyze(t, src)
	var got []string
	var walk func(e Expr)
	walk = func(e Expr) {
		switch e := e.(type) {
		case *Keyword:
			got = append(got, fmt.Sprintf(":%s@%d", e.Name, e.Offset()))
		case *Builtin:
			got = append(got, fmt.Sprintf("%s@%d", e.Name, e.Offset()))
		case *Do:
			for _, x := range e.Body {
				walk(x)
			}
		case *Call:
			walk(e.Fn)
			for _, x := range e.Args {
				walk(x)
			}
		case *MapLit:
			for i := range e.Keys {
				walk(e.Keys[i])
				walk(e.Vals[i])
			}
		case *VectorLit:
			for _, x := range e.Items {
				walk(x)
			}
		}
	}
	walk(p.Body)
	want := "[inc@1 :a@6 :b@10 :c@13 map@20 inc@24 :d@29]"
	if s := fmt.Sprint(got); s != want {
		t.Errorf("got %s, want %s", s, want)
	}
}

// TestSpecialFormCache checks the call heads remembered as special forms
// (specialForm in builtinAnswer.plain): a local of the form's name, bound
// after the form was first seen, is what the head means from then on,
// unless the form is one of Clojure's special forms, which no local
// shadows; out of the local's scope the form is the form again.
func TestSpecialFormCache(t *testing.T) {
	checkDumps(t, []dumpCase{
		{"param of the form's name", `(when true 1) ((fn [when] (when 2)) inc)`,
			"(do (if true 1 nil) ((fn ([when@0] n=1 (when@0 2))) inc))"},
		{"let of the form's name, then the form again", `(when true 1) (let [when inc] (when 2)) (when false 3)`,
			"(do (if true 1 nil) (let [when@0 inc] (when@0 2)) (if false 3 nil))"},
		{"capture of the form's name", `(when true 1) (let [when inc] (fn [] (when 2)))`,
			"(do (if true 1 nil) (let [when@0 inc] (fn caps=[when<-L0] ([] n=0 (^when#0 2)))))"},
		{"core special form under a local", `(if true 1 2) (let [if inc] (if true 3 4))`,
			"(do (if true 1 2) (let [if@0 inc] (if true 3 4)))"},
		{"named fn of the form's name", `(when true 1) (fn when [x] (when x))`,
			"(do (if true 1 nil) (fn when ([x@0] n=1 (self:when x@0))))"},
	})
}

// TestNewEpochPastMax checks that the epoch, once past what plain holds,
// is noEpoch for good: no remembered answer (plain or special form)
// equals it, so none is used.
func TestNewEpochPastMax(t *testing.T) {
	a := &analyzer{epoch: maxEpoch - 1}
	a.newEpoch()
	if a.epoch != maxEpoch {
		t.Fatalf("epoch %d, want %d", a.epoch, maxEpoch)
	}
	for range 3 {
		a.newEpoch()
		if a.epoch != noEpoch {
			t.Fatalf("epoch %d, want noEpoch", a.epoch)
		}
	}
	for _, plain := range []uint32{0, 1, maxEpoch, specialForm, specialForm | maxEpoch, 1<<16 - 1} {
		if plain == a.epoch || plain == a.epoch|specialForm {
			t.Errorf("plain %#x matches noEpoch", plain)
		}
	}
}

// TestCallHeadSameFingerprint checks the compare of call heads of 4 to 8
// bytes with the remembered builtin of their fingerprint (two words, see
// list): a local whose name differs from the builtin's only inside
// (coxnt, count) is the local, whichever byte differs.
func TestCallHeadSameFingerprint(t *testing.T) {
	checkDumps(t, []dumpCase{
		{"third byte, 4 bytes", `(let [coxj inc] (conj [] 1) (coxj 2))`,
			"(let [coxj@0 inc] (do (conj [] 1) (coxj@0 2)))"},
		{"third byte, 5 bytes", `(let [coxnt inc] (count []) (coxnt 2))`,
			"(let [coxnt@0 inc] (do (count []) (coxnt@0 2)))"},
		{"fourth byte, 6 bytes", `(let [vecxor inc] (vector 1) (vecxor 2))`,
			"(let [vecxor@0 inc] (do (vector 1) (vecxor@0 2)))"},
		{"fourth byte, 7 bytes", `(let [prixtln inc] (println 1) (prixtln 2))`,
			"(let [prixtln@0 inc] (do (println 1) (prixtln@0 2)))"},
		{"fifth byte, 8 bytes", `(let [idenxity inc] (identity 1) (idenxity 2))`,
			"(let [idenxity@0 inc] (do (identity 1) (idenxity@0 2)))"},
		{"longer than 8 bytes", `(let [re-paxtern inc] (re-pattern "a") (re-paxtern 2))`,
			"(let [re-paxtern@0 inc] (do (re-pattern \"a\") (re-paxtern@0 2)))"},
		{"the same name again", `(count [1]) (count [2]) (identity 1) (identity 2)`,
			"(do (count [1]) (count [2]) (identity 1) (identity 2))"},
	})
}
