package firewall

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/ptc-go/ptc/lisp"
)

type custom struct{ s string }

// A redacted copy of Go data shows nothing a Veil hides, and hides what
// it cannot check in its bound.
func TestDataRedactor(t *testing.T) {
	rows := lisp.NewVector([]lisp.Value{"a"})
	v := Veil{New(NewSet(lisp.NewMap(kw("_s"), secret, kw("_rows"), rows, kw("_n"), int64(123456789))), nil)}
	other := func(r *DataRedactor, x any, depth int) (any, bool) {
		if c, ok := x.(custom); ok {
			return r.Map(map[string]any{"s": c.s}, depth), true
		}
		return nil, false
	}
	for _, tc := range []struct {
		name   string
		in     any
		budget int
		want   any
	}{
		{"scalars", []any{nil, true, "open", 1.5}, 10, []any{nil, true, "open", 1.5}},
		{"a hidden string", []any{secret, "x " + secret + " y"}, 10, []any{Placeholder, "x " + Placeholder + " y"}},
		{"keys", map[string]any{"_k": "open", "k " + secret: "v"}, 10, map[string]any{"_k": Placeholder, "k " + Placeholder: "v"}},
		{"a hidden number", []any{int64(123456789), int64(12)}, 10, []any{Placeholder, int64(12)}},
		{"lisp values", []any{rows, lisp.NewVector([]lisp.Value{"b"})}, 10, []any{Placeholder, []any{"b"}}},
		{"the budget", []any{"a", "b", "c"}, 3, []any{"a", "b", Placeholder}},
		{"other types", []any{custom{secret}, fmt.Errorf("e %s", secret)}, 10,
			[]any{map[string]any{"s": Placeholder}, "e " + Placeholder}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &DataRedactor{Veil: v, Budget: tc.budget, Other: other}
			if got := r.Data(tc.in, 0); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %#v, want %#v", got, tc.want)
			}
		})
	}
	deep := any("leaf")
	for range 120 {
		deep = []any{deep}
	}
	got := (&DataRedactor{Veil: v, Budget: 1000}).Data(deep, 0)
	for i := 0; i < 101; i++ {
		got = got.([]any)[0]
	}
	if got != Placeholder {
		t.Errorf("beyond the depth bound: %#v", got)
	}
}
