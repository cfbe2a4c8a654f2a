package analyze

import "testing"

// TestMapLiteralPairs checks mapLit's pair loop: keywords and other keys
// (made in place or by expr) and values of every kind (made by item) land
// in Keys and Vals in source order.
func TestMapLiteralPairs(t *testing.T) {
	checkDumps(t, []dumpCase{
		{"keyword keys", `(let [x 1] {:a x :b "s" :c [x 2] :d {:e nil} :f (inc x) :g true :h 1.5})`,
			`(let [x@0 1] {:a x@0 :b "s" :c [x@0 2] :d {:e nil} :f (inc x@0) :g true :h 1.5})`},
		{"other keys", `(let [k :z] {1 :one "two" 2 k 3 [4] #{5} nil inc})`,
			`(let [k@0 :z] {1 :one "two" 2 k@0 3 [4] #{5} nil inc})`},
		{"empty", `{}`, `{}`},
	})
}

// TestMapLiteralErrorOrder checks that the errors of a map's keys and
// values come in source order, a pair at a time.
func TestMapLiteralErrorOrder(t *testing.T) {
	errs := analyzeErrs(t, `{(foo/a) (foo/b) :k (foo/c) (foo/d) 1}`, testConfig())
	want := []string{"1:3", "1:11", "1:22", "1:30"}
	if len(errs) != len(want) {
		t.Fatalf("%d errors, want %d: %v", len(errs), len(want), errs)
	}
	for i, w := range want {
		if errs[i].Pos.String() != w {
			t.Errorf("error %d at %s, want %s", i, errs[i].Pos, w)
		}
	}
}
