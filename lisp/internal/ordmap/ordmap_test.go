package ordmap

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
)

var icmp = cmp.Compare[int]

func TestZeroValue(t *testing.T) {
	var tr Tree[int, string]
	if tr.Len() != 0 {
		t.Fatal("zero tree not empty")
	}
	if _, ok := tr.Get(1, icmp); ok {
		t.Fatal("Get on empty tree")
	}
	if _, _, ok := tr.Min(); ok {
		t.Fatal("Min on empty tree")
	}
	if _, _, ok := tr.Max(); ok {
		t.Fatal("Max on empty tree")
	}
	for range tr.All() {
		t.Fatal("All on empty tree yielded")
	}
	it := tr.Iter()
	if _, _, ok := it.Next(); ok {
		t.Fatal("Iter on empty tree yielded")
	}
	var zit Iterator[int, string]
	if _, _, ok := zit.Next(); ok {
		t.Fatal("zero Iterator yielded")
	}
	if d := tr.Delete(1, icmp); !d.Same(tr) {
		t.Fatal("Delete on empty tree changed it")
	}
	var b Builder[int, string]
	b.Set(2, "two", icmp)
	b.Set(1, "one", icmp)
	got := b.Tree()
	if got.Len() != 2 {
		t.Fatalf("zero Builder produced %d entries", got.Len())
	}
	if k, v := got.At(0); k != 1 || v != "one" {
		t.Fatalf("At(0) = %v %v", k, v)
	}
}

func TestAtPanics(t *testing.T) {
	tr := FromSorted([]int{1, 2, 3}, []int{1, 2, 3})
	for _, i := range []int{-1, 3, 100} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("At(%d) did not panic", i)
				}
			}()
			tr.At(i)
		}()
	}
}

func TestSetKeepsKeyAndReplacesValue(t *testing.T) {
	// Keys equal under a case-insensitive comparator: the first stored key stays.
	ci := func(a, b string) int { return strings.Compare(strings.ToLower(a), strings.ToLower(b)) }
	var tr Tree[string, int]
	tr = tr.Set("Key", 1, ci)
	tr2 := tr.Set("KEY", 2, ci)
	if k, v := tr2.At(0); k != "Key" || v != 2 || tr2.Len() != 1 {
		t.Fatalf("got %q %d len %d", k, v, tr2.Len())
	}
	if _, v := tr.At(0); v != 1 {
		t.Fatal("old version changed")
	}
}

// TestGetEntry finds the stored key of a key the comparator calls equal,
// in the tail and in the root of a tree of many leaves.
func TestGetEntry(t *testing.T) {
	ci := func(a, b string) int { return strings.Compare(strings.ToLower(a), strings.ToLower(b)) }
	var tr Tree[string, int]
	for i := range 500 {
		tr = tr.Set(fmt.Sprintf("Key%04d", i), i, ci)
	}
	for _, i := range []int{0, 1, 250, 498, 499} {
		k, v, ok := tr.GetEntry(fmt.Sprintf("KEY%04d", i), ci)
		if !ok || k != fmt.Sprintf("Key%04d", i) || v != i {
			t.Errorf("GetEntry %d = %q %d %v", i, k, v, ok)
		}
	}
	if _, _, ok := tr.GetEntry("nope", ci); ok {
		t.Error("GetEntry found an absent key")
	}
	var empty Tree[string, int]
	if _, _, ok := empty.GetEntry("x", ci); ok {
		t.Error("GetEntry on an empty tree")
	}
}

// TestAppendModeFullLeaves checks that ascending inserts, persistent or
// transient, leave every leaf but the last full.
func TestAppendModeFullLeaves(t *testing.T) {
	const n = 10*width*width + 7
	var tr Tree[int, int]
	b := NewBuilder(Tree[int, int]{})
	for i := range n {
		tr = tr.Set(i, i, icmp)
		b.Set(i, i, icmp)
	}
	bt := b.Tree()
	for name, x := range map[string]Tree[int, int]{"persistent": tr, "builder": bt} {
		if err := x.check(icmp); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		sizes := x.leafSizes()
		for i, s := range sizes[:len(sizes)-1] {
			if s != width {
				t.Fatalf("%s: leaf %d has %d entries", name, i, s)
			}
		}
		if want := (n + width - 1) / width; len(sizes) != want {
			t.Fatalf("%s: %d leaves, want %d", name, len(sizes), want)
		}
		if !x.fullInner() {
			t.Fatalf("%s: internal nodes not full", name)
		}
	}
}

// fullInner reports whether every internal node except those on the right
// edge has width children.
func (t Tree[K, V]) fullInner() bool {
	var walk func(n *node[K, V], edge bool) bool
	walk = func(n *node[K, V], edge bool) bool {
		if n.kids == nil {
			return true
		}
		if !edge && len(n.kids) != width {
			return false
		}
		for i := range n.kids {
			if !walk(n.kids[i].n, edge && i == len(n.kids)-1) {
				return false
			}
		}
		return true
	}
	return t.root == nil || walk(t.root, true)
}

func TestFromSorted(t *testing.T) {
	for n := 0; n <= 2000; n++ {
		keys := make([]int, n)
		vals := make([]string, n)
		for i := range n {
			keys[i] = 3 * i
			vals[i] = fmt.Sprint(i)
		}
		tr := FromSorted(keys, vals)
		if err := tr.check(icmp); err != nil {
			t.Fatalf("n=%d: %v", n, err)
		}
		if tr.Len() != n {
			t.Fatalf("n=%d: Len %d", n, tr.Len())
		}
		if n%97 == 0 || n < 70 {
			i := 0
			for k, v := range tr.All() {
				if k != keys[i] || v != vals[i] {
					t.Fatalf("n=%d: entry %d = %v %v", n, i, k, v)
				}
				i++
			}
			for i := range n {
				if k, v := tr.At(i); k != keys[i] || v != vals[i] {
					t.Fatalf("n=%d: At(%d) = %v %v", n, i, k, v)
				}
				if v, ok := tr.Get(keys[i], icmp); !ok || v != vals[i] {
					t.Fatalf("n=%d: Get(%d) = %v %v", n, keys[i], v, ok)
				}
				if _, ok := tr.Get(keys[i]+1, icmp); ok {
					t.Fatalf("n=%d: Get(%d) found absent key", n, keys[i]+1)
				}
			}
		}
		if n > 0 {
			sizes := tr.leafSizes()
			for _, s := range sizes[:len(sizes)-1] {
				if s != width {
					t.Fatalf("n=%d: leaf not full: %v", n, sizes)
				}
			}
		}
		// The result is an ordinary persistent tree.
		if n%250 == 0 && n > 0 {
			m := newModel[int, string](icmp)
			for i := range n {
				m.set(keys[i], vals[i])
			}
			u := tr.Set(1, "x", icmp).Delete(0, icmp)
			m.set(1, "x")
			m.del(0)
			if err := same(u, m); err != nil {
				t.Fatalf("n=%d: after Set/Delete: %v", n, err)
			}
			if tr.Len() != n {
				t.Fatal("FromSorted tree changed")
			}
		}
	}
}

func TestFromSortedLengthMismatch(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("no panic")
		}
	}()
	FromSorted([]int{1, 2}, []int{1})
}

func TestBuilderDoesNotModifySource(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	src := Tree[int, int]{}
	m := newModel[int, int](icmp)
	for range 5000 {
		k := r.IntN(20000)
		src = src.Set(k, k, icmp)
		m.set(k, k)
	}
	for round := range 20 {
		b := NewBuilder(src)
		for range 1000 {
			k := r.IntN(20000)
			if r.IntN(2) == 0 {
				b.Set(k, -k, icmp)
			} else {
				b.Delete(k, icmp)
			}
		}
		out := b.Tree()
		if err := out.check(icmp); err != nil {
			t.Fatal(err)
		}
		if err := same(src, m); err != nil {
			t.Fatalf("round %d: source modified: %v", round, err)
		}
		// Building on the frozen result must not modify it either.
		snap := newModel[int, int](icmp)
		for k, v := range out.All() {
			snap.set(k, v)
		}
		b2 := NewBuilder(out)
		for range 500 {
			k := r.IntN(20000)
			b2.Set(k, 7, icmp)
			b2.Delete(r.IntN(20000), icmp)
		}
		b2.Tree()
		if err := same(out, snap); err != nil {
			t.Fatalf("round %d: frozen builder result modified: %v", round, err)
		}
		// Persistent ops on a builder's result copy as usual.
		out2 := out.Set(-1, -1, icmp)
		if _, ok := out.Get(-1, icmp); ok || out2.Len() != out.Len()+1 {
			t.Fatal("persistent Set on builder result modified it")
		}
	}
}

func TestBuilderUseAfterTreePanics(t *testing.T) {
	uses := map[string]func(b *Builder[int, int]){
		"Set":    func(b *Builder[int, int]) { b.Set(1, 1, icmp) },
		"Delete": func(b *Builder[int, int]) { b.Delete(1, icmp) },
		"Get":    func(b *Builder[int, int]) { b.Get(1, icmp) },
		"Len":    func(b *Builder[int, int]) { b.Len() },
		"Tree":   func(b *Builder[int, int]) { b.Tree() },
	}
	for name, use := range uses {
		b := NewBuilder(FromSorted([]int{1, 2}, []int{1, 2}))
		b.Set(3, 3, icmp)
		tr := b.Tree()
		func() {
			defer func() {
				r := recover()
				if r == nil {
					t.Errorf("%s after Tree did not panic", name)
				} else if !strings.Contains(fmt.Sprint(r), "after Tree") {
					t.Errorf("%s: unclear panic message %q", name, r)
				}
			}()
			use(b)
		}()
		if tr.Len() != 3 {
			t.Errorf("%s: frozen tree changed", name)
		}
	}
}

// TestDeepTree grows trees to four levels and shrinks them again, checking
// invariants along the way (the model tests stay at three levels).
func TestDeepTree(t *testing.T) {
	n := 150_000
	if testing.Short() || raceEnabled {
		n = 40_000
	}
	r := rand.New(rand.NewPCG(3, 4))
	perm := r.Perm(n)
	var tr Tree[int, int]
	b := NewBuilder(tr)
	for i, k := range perm {
		if i%2 == 0 {
			tr = tr.Set(k, k, icmp)
		} else {
			b.Set(k, k, icmp)
		}
	}
	bt := b.Tree()
	if err := tr.check(icmp); err != nil {
		t.Fatal(err)
	}
	if err := bt.check(icmp); err != nil {
		t.Fatal(err)
	}
	if tr.height() < 3 || bt.height() < 3 {
		t.Fatalf("heights %d %d", tr.height(), bt.height())
	}
	full := bt
	for i, k := range perm {
		if i%2 == 0 {
			full = full.Set(k, k, icmp)
		}
	}
	if full.Len() != n {
		t.Fatalf("Len %d", full.Len())
	}
	t.Logf("n=%d height %d", n, full.height())
	// Delete all but a few keys, alternating persistent and transient runs.
	cur := full
	for i, k := range r.Perm(n)[:n-10] {
		if (i/1000)%2 == 0 {
			cur = cur.Delete(k, icmp)
		} else {
			b := NewBuilder(cur)
			b.Delete(k, icmp)
			cur = b.Tree()
		}
		if i%5000 == 0 {
			if err := cur.check(icmp); err != nil {
				t.Fatalf("after %d deletions: %v", i, err)
			}
		}
		if i == n-n/20 {
			// Merging keeps a shrunken tree from keeping its old shape.
			if leaves := len(cur.leafSizes()); leaves > cur.Len()/2 {
				t.Fatalf("%d entries in %d leaves", cur.Len(), leaves)
			}
			t.Logf("%d entries: %d leaves, height %d", cur.Len(), len(cur.leafSizes()), cur.height())
		}
	}
	if err := cur.check(icmp); err != nil {
		t.Fatal(err)
	}
	if cur.Len() != 10 {
		t.Fatalf("Len %d", cur.Len())
	}
	if err := full.check(icmp); err != nil || full.Len() != n {
		t.Fatalf("original changed: %v", err)
	}
	t.Logf("after deletions: height %d", cur.height())
}

// TestIteratorDeep exercises the iterator's spill path with a tree deeper
// than inlineDepth, built by hand.
func TestIteratorDeep(t *testing.T) {
	var tr Tree[int, int]
	for i := range 100 {
		tr = tr.Set(i, i, icmp)
	}
	// Wrap the root in single-child internal nodes (valid for iteration,
	// though a real tree never keeps a single-child root).
	for range inlineDepth + 3 {
		n := allocInner[int, int](nil, 1, 1)
		n.kids[0] = child[int, int]{key: tr.root.firstKey(), n: tr.root, cnt: tr.count}
		tr.root = n
	}
	it := tr.Iter()
	for i := range 100 {
		k, _, ok := it.Next()
		if !ok || k != i {
			t.Fatalf("entry %d: %v %v", i, k, ok)
		}
	}
	if _, _, ok := it.Next(); ok {
		t.Fatal("too many entries")
	}
}

// TestConcurrentReaders shares a tree between goroutines that read it while
// others derive new trees from it persistently and with builders. Run with
// -race: any write to a shared node is reported.
func TestConcurrentReaders(t *testing.T) {
	const n = 20000
	var base Tree[int, int]
	b := NewBuilder(base)
	for i := range n {
		b.Set(2*i, i, icmp)
	}
	base = b.Tree()
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for g := range 4 {
		wg.Add(1)
		go func() { // readers
			defer wg.Done()
			for round := range 5 {
				i := 0
				for k, v := range base.All() {
					if k != 2*i || v != i {
						errs <- fmt.Errorf("reader %d: entry %d = %d %d", g, i, k, v)
						return
					}
					i++
				}
				it := base.Iter()
				for j := 0; ; j++ {
					k, _, ok := it.Next()
					if !ok {
						break
					}
					if k != 2*j {
						errs <- fmt.Errorf("reader %d: Iter entry %d = %d", g, j, k)
						return
					}
				}
				for j := range 2000 {
					x := (j*7919 + round) % n
					if v, ok := base.Get(2*x, icmp); !ok || v != x {
						errs <- fmt.Errorf("reader %d: Get(%d) = %d %v", g, 2*x, v, ok)
						return
					}
					if k, _ := base.At(x); k != 2*x {
						errs <- fmt.Errorf("reader %d: At(%d) = %d", g, x, k)
						return
					}
				}
			}
		}()
		wg.Add(1)
		go func() { // writers deriving from the shared tree
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(g), 9))
			for range 5 {
				bb := NewBuilder(base)
				p := base
				for range 2000 {
					k := r.IntN(2 * n)
					switch r.IntN(4) {
					case 0:
						bb.Set(k, -1, icmp)
					case 1:
						bb.Delete(k, icmp)
					case 2:
						p = p.Set(k, -1, icmp)
					default:
						p = p.Delete(k, icmp)
					}
				}
				derived := bb.Tree()
				bb2 := NewBuilder(derived)
				bb2.Set(2*n+g, 0, icmp)
				_ = bb2.Tree()
				if err := derived.check(icmp); err != nil {
					errs <- err
					return
				}
				if err := p.check(icmp); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if err := base.check(icmp); err != nil || base.Len() != n {
		t.Fatalf("shared tree changed: %v", err)
	}
}

func TestLeaf(t *testing.T) {
	var tr Tree[int, string]
	for i := 0; i < 10; i++ {
		tr = tr.Set(i, fmt.Sprint(i), icmp)
	}
	ents, small := tr.Leaf()
	if !small || len(ents) != 10 {
		t.Fatalf("Leaf of 10 entries: %d entries, small %v", len(ents), small)
	}
	for i, e := range ents {
		if e.Key != i || e.Val != fmt.Sprint(i) {
			t.Errorf("entry %d = %v %q", i, e.Key, e.Val)
		}
	}
	if k, v, ok := tr.SmallAt(7); !ok || k != 7 || v != "7" {
		t.Errorf("SmallAt(7) = %v %q %v", k, v, ok)
	}
	if _, _, ok := tr.SmallAt(10); ok {
		t.Error("SmallAt past the end")
	}
	if ents, small = (Tree[int, string]{}).Leaf(); !small || ents != nil {
		t.Errorf("empty tree: %v %v", ents, small)
	}
	for i := 10; i < 100; i++ {
		tr = tr.Set(i, "", icmp)
	}
	if ents, small = tr.Leaf(); small || ents != nil {
		t.Error("a 100-entry tree is not small")
	}
	if _, _, ok := tr.SmallAt(0); ok {
		t.Error("SmallAt on a large tree")
	}
}

// roomTake returns a build that fills the block b through Room and Take
// (a new block per call, as the tests build a tree per block).
func roomTake[L any, P interface {
	*L
	Room() []Entry[int, string]
	Take(int) Tree[int, string]
}](_ P) func([]int, []string) Tree[int, string] {
	return func(keys []int, vals []string) Tree[int, string] {
		b := P(new(L))
		room := b.Room()
		for i := range keys {
			room[i] = Entry[int, string]{keys[i], vals[i]}
		}
		return b.Take(len(keys))
	}
}

// A leaf block builds the tree FromSorted builds, and the tree is an
// ordinary persistent one: changes of it leave the block's entries alone.
func TestLeafBlocks(t *testing.T) {
	type build func(keys []int, vals []string) Tree[int, string]
	for _, b := range []struct {
		size  int
		build build
	}{
		{1, func(k []int, v []string) Tree[int, string] { return new(Leaf1[int, string]).Tree(k, v) }},
		{2, func(k []int, v []string) Tree[int, string] { return new(Leaf2[int, string]).Tree(k, v) }},
		{3, func(k []int, v []string) Tree[int, string] { return new(Leaf3[int, string]).Tree(k, v) }},
		{4, func(k []int, v []string) Tree[int, string] { return new(Leaf4[int, string]).Tree(k, v) }},
		{6, func(k []int, v []string) Tree[int, string] { return new(Leaf6[int, string]).Tree(k, v) }},
		{8, func(k []int, v []string) Tree[int, string] { return new(Leaf8[int, string]).Tree(k, v) }},
		{10, func(k []int, v []string) Tree[int, string] { return new(Leaf10[int, string]).Tree(k, v) }},
		{12, func(k []int, v []string) Tree[int, string] { return new(Leaf12[int, string]).Tree(k, v) }},
		{16, func(k []int, v []string) Tree[int, string] { return new(Leaf16[int, string]).Tree(k, v) }},
		// Room and Take: the same tree, filled as entries.
		{1, roomTake(new(Leaf1[int, string]))},
		{2, roomTake(new(Leaf2[int, string]))},
		{3, roomTake(new(Leaf3[int, string]))},
		{4, roomTake(new(Leaf4[int, string]))},
		{6, roomTake(new(Leaf6[int, string]))},
		{8, roomTake(new(Leaf8[int, string]))},
		{10, roomTake(new(Leaf10[int, string]))},
		{12, roomTake(new(Leaf12[int, string]))},
		{16, roomTake(new(Leaf16[int, string]))},
	} {
		for n := 1; n <= b.size; n++ {
			keys := make([]int, n)
			vals := make([]string, n)
			for i := range n {
				keys[i], vals[i] = 3*i, fmt.Sprint(i)
			}
			tr := b.build(keys, vals)
			if err := tr.check(icmp); err != nil {
				t.Fatalf("size %d, n=%d: %v", b.size, n, err)
			}
			m := newModel[int, string](icmp)
			for i := range n {
				m.set(keys[i], vals[i])
			}
			if err := same(tr, m); err != nil {
				t.Fatalf("size %d, n=%d: %v", b.size, n, err)
			}
			u := tr.Set(1, "x", icmp).Set(0, "y", icmp).Delete(3*(n-1), icmp)
			if err := same(tr, m); err != nil {
				t.Fatalf("size %d, n=%d: the block changed with its copy: %v", b.size, n, err)
			}
			m.set(1, "x")
			m.set(0, "y")
			m.del(3 * (n - 1))
			if err := same(u, m); err != nil {
				t.Fatalf("size %d, n=%d: after Set/Delete: %v", b.size, n, err)
			}
		}
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("size %d: %d entries did not panic", b.size, b.size+1)
				}
			}()
			b.build(make([]int, b.size+1), make([]string, b.size+1))
		}()
	}
}
