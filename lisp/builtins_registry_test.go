package lisp

import "testing"

// TestBuiltinsRegisteredOnce: a second registration of a name is refused,
// whichever way it comes (add, an alias, a constant), so no builtin depends
// on the order of the register functions; wrap is the one way to extend a
// registered builtin, and it keeps its aliases as they were.
func TestBuiltinsRegisteredOnce(t *testing.T) {
	id := func(_ *thread, a []Value) (Value, error) { return a[0], nil }
	tests := []struct {
		name string
		dup  func(t builtinTable)
	}{
		{"add twice", func(t builtinTable) { t.add("f", 1, 1, id) }},
		{"add over an alias", func(t builtinTable) { t.add("g", 1, 1, id) }},
		{"alias over a name", func(t builtinTable) { t.alias("g", "f") }},
		{"constant over a name", func(t builtinTable) { t.set("f", int64(1)) }},
		{"alias of nothing", func(t builtinTable) { t.alias("nope", "h") }},
		{"wrap of nothing", func(t builtinTable) { t.wrap("nope", func(b *Builtin) *Builtin { return b }) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tab := builtinTable{}
			tab.add("f", 1, 1, id, "g")
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", tt.name)
				}
			}()
			tt.dup(tab)
		})
	}

	tab := builtinTable{}
	orig := tab.add("f", 1, 1, id, "g")
	tab.wrap("f", func(b *Builtin) *Builtin { c := *b; c.MinArgs = 0; return &c })
	if tab["f"].(*Builtin).MinArgs != 0 || tab["g"] != Value(orig) {
		t.Errorf("wrap: f %+v, g %+v", tab["f"], tab["g"])
	}
	// The real table builds (it panics on a duplicate) and the names that
	// were registered twice are there once, with all their arities.
	full := newBuiltinTable()
	for name, want := range map[string][2]int{"into": {0, 3}, "sequence": {1, -1}, "replace": {1, 3}} {
		b, ok := full[name].(*Builtin)
		if !ok || b.MinArgs != want[0] || b.MaxArgs != want[1] {
			t.Errorf("%s: %+v, want arities %v", name, full[name], want)
		}
	}
}
