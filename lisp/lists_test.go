package lisp_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/ptc-go/ptc/lisp"
)

// A stack built with conj prepends in place: 100,000 conj onto a growing
// list fit in a memory budget that copying the list each time would pass
// thousands of times over.
func TestListConjPrependsInPlace(t *testing.T) {
	limits := lisp.Limits{MaxMemory: 32 << 20, MaxLoopIterations: -1, Timeout: generous}
	for _, src := range []string{
		`(count (reduce conj '() (range 100000)))`,
		`(loop [l '() i 0] (if (< i 100000) (recur (conj l i) (inc i)) (count l)))`,
		`(loop [l () i 0] (if (< i 100000) (recur (cons i l) (inc i)) (count l)))`,
		`(count (into '() (range 100000)))`,
	} {
		res, err := lisp.Run(context.Background(), src, lisp.Options{Limits: limits})
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		if res.Value != int64(100000) {
			t.Errorf("%s = %v", src, res.Value)
		}
	}
}

// Lists share their arrays: conj onto the same list from many goroutines
// (pmap) gives each its own list, and the list itself never changes.
func TestListConjConcurrent(t *testing.T) {
	src := `(let [base (conj (into '() [3 2]) 1)
	              out (pmap (fn [i] (conj base i)) (range 200))]
	          [base (every? true? (map (fn [i l] (= l (list i 1 2 3))) (range 200) out))
	           (map count (take 3 out))])`
	res, err := lisp.Run(context.Background(), src, lisp.Options{Limits: lisp.Limits{Timeout: generous}})
	if err != nil {
		t.Fatal(err)
	}
	if got := lisp.Print(res.Value, lisp.PrintOptions{}); got != "[(1 2 3) true [4 4 4]]" {
		t.Errorf("got %s", got)
	}
}

// The host sees a list as a vector with IsList: JSON and ToGo make it an
// array, FromGo never makes one, Print (Exact) and Read keep it a list.
func TestListsAtTheHostBoundary(t *testing.T) {
	res, err := lisp.Run(context.Background(), `{:stack '(1 2) :vec [1 2] :sym 'a/b :class (type 1)}`, lisp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	m := res.Value.(*lisp.Map)
	stack, _ := m.Get(lisp.Keyword("stack"))
	if l, ok := stack.(*lisp.Vector); !ok || !l.IsList() || l.Len() != 2 {
		t.Fatalf("stack = %#v", stack)
	}
	js, err := lisp.ToJSON(res.Value, nil)
	if err != nil {
		t.Fatal(err)
	}
	if string(js) != `{"class":"java.lang.Long","stack":[1,2],"sym":"a/b","vec":[1,2]}` {
		t.Errorf("ToJSON = %s", js)
	}
	goVal, err := lisp.ToGo(res.Value)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := json.Marshal(goVal); string(b) != string(js) {
		t.Errorf("ToGo = %s", b)
	}
	back, err := lisp.FromGo(goVal)
	if err != nil {
		t.Fatal(err)
	}
	if s, _ := back.(*lisp.Map).Get("stack"); s.(*lisp.Vector).IsList() {
		t.Errorf("FromGo made a list")
	}
	text := lisp.Print(res.Value, lisp.PrintOptions{Exact: true})
	if text != `{:class java.lang.Long, :stack (1 2), :sym a/b, :vec [1 2]}` {
		t.Errorf("PrintExact = %s", text)
	}
	read, err := lisp.Read(text, lisp.ReadOptions{})
	if err != nil || !lisp.Equal(read, res.Value) || lisp.Print(read, lisp.PrintOptions{Exact: true}) != text {
		t.Errorf("ReadValue(%s) = %v, %v", text, read, err)
	}
	if l := lisp.ListOf(int64(1)); !l.IsList() || lisp.Print(l, lisp.PrintOptions{}) != "(1)" || lisp.Print(lisp.NewList(nil), lisp.PrintOptions{}) != "()" {
		t.Errorf("ListOf, NewList")
	}
	if lisp.Hash(lisp.ListOf(int64(1), "a")) != lisp.Hash(lisp.VectorOf(int64(1), "a")) || !lisp.Equal(lisp.ListOf(), lisp.VectorOf()) {
		t.Errorf("a list and a vector of the same items hash or compare differently")
	}
}
