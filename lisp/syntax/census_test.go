package syntax

import (
	"strings"
	"testing"
)

// countNodes counts the nodes of forms by kind, as census does.
func countNodes(forms []Node) census {
	var c census
	var walk func(n Node, d int)
	walk = func(n Node, d int) {
		c.forms++
		c.depths[min(d, censusDepths-1)]++ // a quote's form counts at its depth, as the census counts it
		var items []Node
		switch n := n.(type) {
		case *Nil:
			c.nils++
		case *Bool:
			c.bools++
		case *Int:
			c.ints++
		case *Float:
			c.floats++
		case *String:
			c.strs++
		case *Keyword:
			c.keywords++
		case *Symbol:
			c.symbols++
		case *List:
			c.lists++
			items = n.Items
		case *Vector:
			c.vectors++
			items = n.Items
		case *Map:
			c.maps++
			items = n.Items
		case *Set:
			items = n.Items
		case *ShortFn:
			items = n.Items
		case *Quote:
			walk(n.Form, d)
		case *Deref:
			walk(n.Form, d)
		case *SyntaxQuote:
			walk(n.Form, d)
		case *Unquote:
			walk(n.Form, d)
		case *UnquoteSplicing:
			walk(n.Form, d)
		case *VarQuote:
			walk(n.Sym, d)
		case *Inst, *UUID:
			c.strs++ // the string literal the reader read from its slab, then checked
		}
		for _, it := range items {
			walk(it, d+1)
		}
	}
	for _, f := range forms {
		walk(f, 0)
	}
	return c
}

// The census must count exactly the nodes Read makes from a program without
// errors, or small programs would cost more allocations than one per kind.
func TestCensusExact(t *testing.T) {
	progs := append([]string{
		"(+ 1 2)", `(str "a\"b" \( \space) ; (not read)`, "[1 2.5 1/2 1e3 5M 0x1F 0xEE -3 +4 nil true false]",
		"{:a #{1 2} :b #(inc %) :c '(x y)}", "#'str/join #\"a\\\"b\" ##Inf ##-Inf ##NaN x",
		"^:private ^String sym", "#!/usr/bin/env ptc\n(f x)", "'''x", "\\a\\b", "(λ café)",
	}, corpus(t)...)
	checked := 0
	for _, src := range progs {
		forms, err := Read(src)
		if err != nil || len(src) > censusWindow || strings.ContainsAny(src, "^_") || strings.HasPrefix(src, "#!") {
			// Read drops metadata and #_ discards, which the census counts
			// as they are read all the same; it skips a #! line.
			continue
		}
		var got census
		got.take(src)
		if want := countNodes(forms); got != want {
			t.Errorf("census of %q = %+v, Read made %+v", src, got, want)
		}
		checked++
	}
	// The repository's corpus alone holds thousands of programs that read
	// without error (corpus fails the test when it cannot be read).
	if checked < 1000 {
		t.Fatalf("only %d programs checked", checked)
	}
	t.Logf("%d programs checked", checked)
}

// A small program costs one allocation per kind of node, one for all its
// Items and top-level forms (the runs of items of each depth); a one-liner
// a single one.
func TestReadSmallAllocs(t *testing.T) {
	tests := []struct {
		src    string
		allocs float64
	}{
		{"(+ 1 2)", 1},                    // tinyRead
		{"(get m :k)", 1},                 // tinyRead
		{"(+ 1 2 3)", 4},                  // []Node, List, Symbol, Int
		{"(let [x 1 y 2.5] [x y :k])", 7}, // + Vector, Float, Keyword
		{"", 0},
	}
	for _, tt := range tests {
		if got := testing.AllocsPerRun(100, func() { Read(tt.src) }); got != tt.allocs {
			t.Errorf("Read(%q): %v allocations, want %v", tt.src, got, tt.allocs)
		}
	}
}
