package lisp_test

import (
	"slices"
	"testing"

	"github.com/ptc-go/ptc/lisp"
)

func TestDependencies(t *testing.T) {
	for _, tc := range []struct {
		src                   string
		vars                  []string
		history, computedKeys bool
	}{
		{`(+ 1 ctx/x)`, nil, false, false},
		{`(return (tool/f {:x ctx/x}))`, nil, false, false},
		{`(def n 1) (+ n 1)`, nil, false, false},
		{`(defn f [x] (* 2 x)) (f 3)`, nil, false, false},
		{`(+ n 1)`, []string{"n"}, false, false},
		{`memory/total`, []string{"total"}, false, false},
		{`(memory/get :total)`, []string{"total"}, false, false},
		{`(memory/get "total")`, []string{"total"}, false, false},
		{`(memory/put :total 1) memory/total`, nil, false, false},
		{`(memory/get (keyword ctx/k))`, nil, false, true},
		{`(memory/put (keyword ctx/k) 1)`, nil, false, false},
		{`(count *1)`, nil, true, false},
		{`(let [*1 5] *1)`, nil, false, false},
		{`[b a b memory/c]`, []string{"a", "b", "c"}, false, false},
	} {
		p, err := lisp.Compile(tc.src)
		if err != nil {
			t.Fatalf("%s: %v", tc.src, err)
		}
		d := p.Dependencies()
		if !slices.Equal(d.Vars, tc.vars) || d.History != tc.history || d.ComputedKeys != tc.computedKeys {
			t.Errorf("%s: %+v", tc.src, d)
		}
		if self := len(tc.vars) == 0 && !tc.history && !tc.computedKeys; d.SelfContained() != self {
			t.Errorf("%s: SelfContained %v", tc.src, d.SelfContained())
		}
	}
}
