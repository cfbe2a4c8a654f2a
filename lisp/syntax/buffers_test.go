package syntax

import (
	"math/rand"
	"reflect"
	"strings"
	"testing"
)

// held is what b keeps between reads, in bytes.
func (b *Buffers) held() (n int) {
	n += b.items.Held() + b.nils.Held() + b.bools.Held() + b.ints.Held() + b.floats.Held()
	n += b.strs.Held() + b.keywords.Held() + b.symbols.Held() + b.lists.Held() + b.vectors.Held() + b.maps.Held()
	return n
}

// TestBuffersReuse checks that a read with Buffers gives the forms a read
// without gives, that a second read reuses the memory of the first, and
// that what Buffers keeps is cleared and bounded by MaxBuffered whatever
// the text read.
func TestBuffersReuse(t *testing.T) {
	small := strings.Repeat(`(defn f [x] {:a [1 2.5 "s" nil true] :b #{x}}) `, 20)
	huge := strings.Repeat(`(f :k sym "str" [1 2] {:a 1}) `, 256<<10/30) // 256 KiB of tokens
	cases := []struct {
		name string
		src  string
	}{{"small", small}, {"huge", huge}, {"small after huge", small}}
	var b Buffers
	for _, tc := range cases {
		want, wantErr := Read(tc.src)
		got, gotErr := Config{Buffers: &b}.Read(tc.src)
		if (wantErr == nil) != (gotErr == nil) || len(got) != len(want) {
			t.Fatalf("%s: %d forms, err %v; without Buffers %d forms, err %v", tc.name, len(got), gotErr, len(want), wantErr)
		}
		for i := range want {
			if Format(got[i]) != Format(want[i]) || got[i].Bounds() != want[i].Bounds() {
				t.Fatalf("%s: form %d is %s, want %s", tc.name, i, Format(got[i]), Format(want[i]))
			}
		}
		b.Reset()
		if h := b.held(); h > MaxBuffered || h == 0 {
			t.Fatalf("%s: Buffers keeps %d bytes, want 1 to %d", tc.name, h, MaxBuffered)
		}
		for _, c := range b.symbols.Free() {
			for i := range c {
				if c[i] != (Symbol{}) {
					t.Fatalf("%s: a kept symbol is not cleared: %+v", tc.name, c[i])
				}
			}
		}
	}
	before := b.held()
	allocs := testing.AllocsPerRun(10, func() {
		Config{Buffers: &b}.Read(small)
		b.Reset()
	})
	plain := testing.AllocsPerRun(10, func() { Read(small) })
	if allocs >= plain || b.held() != before {
		t.Fatalf("a read with warm Buffers allocates %v times (without: %v), keeps %d bytes (before: %d)", allocs, plain, b.held(), before)
	}
}

// TestRunsOfItems: the items of collections are written in place, in a
// run of items per depth that grows (and moves an open collection's items)
// when it fills. On programs nested deeper than the frames held in the
// reader itself, with collections long enough to fill runs many times,
// every collection's Items must be its own (no two share an element, and
// none has room past its length that an append would write into another's),
// the forms must print back as the text they were read from, and reading
// with Buffers must give the same forms. (The differential check against
// the reader that copied items from a scratch stack was run outside the
// repository, on the corpus and on mutated texts.)
func TestRunsOfItems(t *testing.T) {
	rng := rand.New(rand.NewSource(47))
	var gen func(b *strings.Builder, d int)
	gen = func(b *strings.Builder, d int) {
		if d > 40 || rng.Intn(4) == 0 || b.Len() > 20000 {
			b.WriteString([]string{"x", "1", ":k", "nil", `"s"`, "a/b", "2.5"}[rng.Intn(7)])
			return
		}
		open := []string{"(", "[", "{", "#{", "'("}[rng.Intn(5)]
		n := rng.Intn(5)
		if rng.Intn(30) == 0 {
			n = rng.Intn(2000)
		}
		if open == "{" {
			n &^= 1
		}
		b.WriteString(open)
		for i := 0; i < n; i++ {
			if i > 0 {
				b.WriteByte(' ')
			}
			gen(b, d+1)
		}
		b.WriteString(map[string]string{"(": ")", "[": "]", "{": "}", "#{": "}", "'(": ")"}[open])
	}
	var bufs Buffers
	for i := 0; i < 100; i++ {
		var b strings.Builder
		for k := rng.Intn(4); k >= 0; k-- {
			gen(&b, 0)
			b.WriteByte('\n')
		}
		src := b.String()
		forms, err := Read(src)
		if err != nil {
			t.Fatalf("%.200q: %v", src, err)
		}
		seen := map[*Node]bool{}
		var walk func(items []Node)
		walk = func(items []Node) {
			if cap(items) != len(items) {
				t.Fatalf("%.200q: Items of %d with room for %d", src, len(items), cap(items))
			}
			for j := range items {
				if seen[&items[j]] {
					t.Fatalf("%.200q: an element of Items shared by two collections", src)
				}
				seen[&items[j]] = true
				switch n := items[j].(type) {
				case *List:
					walk(n.Items)
				case *Vector:
					walk(n.Items)
				case *Map:
					walk(n.Items)
				case *Set:
					walk(n.Items)
				case *Quote:
					if l, ok := n.Form.(*List); ok {
						walk(l.Items)
					}
				}
			}
		}
		walk(forms)
		checkRoundTrip(t, src, forms)
		again, err := Config{Buffers: &bufs}.Read(src)
		if err != nil || !reflect.DeepEqual(forms, again) {
			t.Fatalf("%.200q: with Buffers the forms differ (%v)", src, err)
		}
		bufs.Reset()
	}
}
