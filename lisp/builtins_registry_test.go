package lisp

import (
	"fmt"
	"reflect"
	"testing"
)

// TestBuiltinsRegisteredOnce: a second registration of a name is refused,
// whichever way it comes (add, an alias, a constant), so no builtin depends
// on the order of the register functions; wrap is the one way to extend a
// registered builtin, and it keeps its aliases as they were.
func TestBuiltinsRegisteredOnce(t *testing.T) {
	id := func(_ *thread, a []Value) (Value, error) { return a[0], nil }
	tests := []struct {
		name string
		dup  func(t *builtinTable)
	}{
		{"add twice", func(t *builtinTable) { t.add("f", 1, 1, id) }},
		{"add over an alias", func(t *builtinTable) { t.add("g", 1, 1, id) }},
		{"alias over a name", func(t *builtinTable) { t.alias("g", "f") }},
		{"constant over a name", func(t *builtinTable) { t.set("f", int64(1)) }},
		{"alias of nothing", func(t *builtinTable) { t.alias("nope", "h") }},
		{"wrap of nothing", func(t *builtinTable) { t.wrap("nope", func(b *Builtin) *Builtin { return b }) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tab := &builtinTable{names: map[string]Value{}}
			tab.add("f", 1, 1, id, "g")
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", tt.name)
				}
			}()
			tt.dup(tab)
		})
	}

	tab := &builtinTable{names: map[string]Value{}}
	orig := tab.add("f", 1, 1, id, "g")
	tab.wrap("f", func(b *Builtin) *Builtin { c := *b; c.MinArgs = 0; return &c })
	if tab.names["f"].(*Builtin).MinArgs != 0 || tab.names["g"] != Value(orig) {
		t.Errorf("wrap: f %+v, g %+v", tab.names["f"], tab.names["g"])
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

// add hands out Builtins a chunk at a time: past a chunk's end, each name
// still has a Builtin of its own, with its own name and arities.
func TestBuiltinSlab(t *testing.T) {
	tab := &builtinTable{names: map[string]Value{}}
	id := func(_ *thread, a []Value) (Value, error) { return a[0], nil }
	const n = 2*builtinChunk + 3
	seen := map[*Builtin]bool{}
	for i := range n {
		b := tab.add(fmt.Sprint("f", i), i, i+1, id)
		if seen[b] {
			t.Fatalf("add %d returned a Builtin handed out before", i)
		}
		seen[b] = true
	}
	for i := range n {
		b := tab.names[fmt.Sprint("f", i)].(*Builtin)
		if b.Name != fmt.Sprint("f", i) || b.MinArgs != i || b.MaxArgs != i+1 {
			t.Errorf("f%d: %+v", i, b)
		}
	}
}

// A name eachClassName gives twice has the same class both times, so the
// table holds the class whichever comes first; and every name of a class
// is in the table as that class.
func TestClassNamesAgree(t *testing.T) {
	seen := map[string]Class{}
	eachClassName(func(name string, c Class) {
		if old, ok := seen[name]; ok && old != c {
			t.Errorf("%s: %v, then %v", name, old, c)
		}
		seen[name] = c
		if got := builtins[name]; got != Value(c) {
			t.Errorf("builtins[%q] = %v, want %v", name, got, c)
		}
	})
	if len(seen) < 100 {
		t.Errorf("only %d class names", len(seen))
	}
}

// registerSeqViews finds the names of the builtins it marks from the
// aliases the table noted: the table it builds is the one a walk of every
// name builds, name for name (the same arities, the same function code,
// so the same marking), and the marked builtins are where they should be.
func TestSeqViewNames(t *testing.T) {
	noted := newBuiltinTable()
	walked := buildBuiltinTable(&builtinTable{names: map[string]Value{}, walkAll: true})
	if len(noted) != len(walked) {
		t.Fatalf("%d names noted, %d walked", len(noted), len(walked))
	}
	code := func(b *Builtin) uintptr { return reflect.ValueOf(b.fn).Pointer() }
	marked := 0
	markCode := code(noted["map"].(*Builtin))
	for name, w := range walked {
		n := noted[name]
		wb, wok := w.(*Builtin)
		nb, nok := n.(*Builtin)
		if wok != nok {
			t.Fatalf("%s: %T noted, %T walked", name, n, w)
		}
		if !wok {
			continue
		}
		if nb.Name != wb.Name || nb.MinArgs != wb.MinArgs || nb.MaxArgs != wb.MaxArgs || code(nb) != code(wb) {
			t.Errorf("%s: noted %s/%d/%d, walked %s/%d/%d (same code: %v)", name,
				nb.Name, nb.MinArgs, nb.MaxArgs, wb.Name, wb.MinArgs, wb.MaxArgs, code(nb) == code(wb))
		}
		if code(nb) == markCode {
			marked++
		}
	}
	if marked < len(seqResultBuiltins) {
		t.Errorf("%d names marked, want at least %d", marked, len(seqResultBuiltins))
	}

	// No builtin of the language has an alias when it is marked today: a
	// table where each has one, under add's aliases, a later alias or a
	// wrap of another name, has them marked too.
	id := func(_ *thread, a []Value) (Value, error) { return a[0], nil }
	for _, walkAll := range []bool{false, true} {
		tab := &builtinTable{names: map[string]Value{}, walkAll: walkAll}
		for i, name := range seqResultBuiltins {
			switch i % 3 {
			case 0:
				tab.add(name, 1, 1, id, name+"-a")
			case 1:
				tab.add(name, 1, 1, id)
				tab.alias(name, name+"-a")
			case 2:
				tab.add(name+"-a", 1, 1, id)
				tab.wrap(name+"-a", func(b *Builtin) *Builtin { c := *b; c.Name = name; return &c })
				tab.names[name] = tab.names[name+"-a"]
			}
		}
		for _, name := range seqGroupBuiltins {
			if tab.names[name] == nil {
				tab.add(name, 1, 1, id)
			}
		}
		registerSeqViews(tab)
		for _, name := range seqResultBuiltins {
			b, a := tab.names[name].(*Builtin), tab.names[name+"-a"].(*Builtin)
			if code(b) != markCode || a != b {
				t.Errorf("walkAll %v: %s and %s-a are not the same marked builtin", walkAll, name, name)
			}
		}
	}
}
