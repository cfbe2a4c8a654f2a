package lisp

import (
	"testing"
)

// TestNestedBindingsStayFlat: however deep bindings nest (a recursive
// function that binds at every level), a global lookup passes at most one
// frame of bound values before the program's own environment, so a
// lookup's work does not grow with the nesting (it is not counted in
// steps).
func TestNestedBindingsStayFlat(t *testing.T) {
	run := &runState{limits: Limits{}.Effective()}
	g := &globalEnv{base: NewNamespace(map[string]Value{"x": int64(0)})}
	th := newThread(run, g)
	bind := builtins[" binding"].(*Builtin)
	depth := 0
	var body *Builtin
	body = &Builtin{Name: "body", MinArgs: 0, MaxArgs: 0, fn: func(th *thread, _ []Value) (Value, error) {
		frames := 0
		for e := th.globals; e != nil; e = e.parent {
			frames++
		}
		if frames > 2 {
			t.Fatalf("at depth %d the environment chain has %d frames", depth, frames)
		}
		if v, _ := th.globals.lookup("x"); v != int64(depth) {
			t.Fatalf("at depth %d x is %v", depth, v)
		}
		if depth == 50 {
			return nil, nil
		}
		depth++
		return bind.fn(th, []Value{NewVector([]Value{"x"}), NewVector([]Value{int64(depth)}), body})
	}}
	if _, err := bind.fn(th, []Value{NewVector([]Value{"x"}), NewVector([]Value{int64(0)}), body}); err != nil {
		t.Fatal(err)
	}
	if th.globals != g {
		t.Errorf("the bindings were not undone: %+v", th.globals)
	}
}
