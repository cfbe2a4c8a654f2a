package ordmap

import (
	"math/rand/v2"
	"strconv"
	"testing"
)

// reportPer reports the time per element for benchmarks whose op handles
// perOp elements.
func reportPer(b *testing.B, perOp int, unit string) {
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(perOp), "ns/"+unit)
}

// BenchmarkSetAscending builds a 10,000-entry map by persistent Sets of
// ascending keys: the (reduce assoc) pattern.
func BenchmarkSetAscending(b *testing.B) {
	const n = 10_000
	b.ReportAllocs()
	for b.Loop() {
		var t Tree[int, int]
		for i := range n {
			t = t.Set(i, i, icmp)
		}
		if t.Len() != n {
			b.Fatal(t.Len())
		}
	}
	reportPer(b, n, "insert")
}

// BenchmarkSetAscendingAny is BenchmarkSetAscending with interface keys and
// values, as the interpreter stores them.
func BenchmarkSetAscendingAny(b *testing.B) {
	const n = 10_000
	keys := make([]any, n)
	for i := range keys {
		keys[i] = i
	}
	acmp := anyCmp
	b.ReportAllocs()
	for b.Loop() {
		var t Tree[any, any]
		for _, k := range keys {
			t = t.Set(k, k, acmp)
		}
	}
	reportPer(b, n, "insert")
}

func BenchmarkBuilderSetAscending(b *testing.B) {
	const n = 10_000
	b.ReportAllocs()
	for b.Loop() {
		bb := NewBuilder(Tree[int, int]{})
		for i := range n {
			bb.Set(i, i, icmp)
		}
		if bb.Tree().Len() != n {
			b.Fatal()
		}
	}
	reportPer(b, n, "insert")
}

func BenchmarkSetRandom(b *testing.B) {
	const n = 10_000
	perm := rand.New(rand.NewPCG(1, 1)).Perm(n)
	b.ReportAllocs()
	for b.Loop() {
		var t Tree[int, int]
		for _, k := range perm {
			t = t.Set(k, k, icmp)
		}
	}
	reportPer(b, n, "insert")
}

func BenchmarkBuilderSetRandom(b *testing.B) {
	const n = 10_000
	perm := rand.New(rand.NewPCG(1, 1)).Perm(n)
	b.ReportAllocs()
	for b.Loop() {
		bb := NewBuilder(Tree[int, int]{})
		for _, k := range perm {
			bb.Set(k, k, icmp)
		}
		bb.Tree()
	}
	reportPer(b, n, "insert")
}

func sortedTree(n int) Tree[int, int] {
	keys := make([]int, n)
	for i := range keys {
		keys[i] = 2 * i
	}
	return FromSorted(keys, keys)
}

func BenchmarkGet(b *testing.B) {
	for _, n := range []int{10, 1_000, 100_000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			t := sortedTree(n)
			probe := rand.New(rand.NewPCG(2, 2)).Perm(n)
			for i := range probe {
				probe[i] *= 2
			}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if _, ok := t.Get(probe[i], icmp); !ok {
					b.Fatal("missing")
				}
				i++
				if i == n {
					i = 0
				}
			}
		})
	}
}

func BenchmarkGetString(b *testing.B) {
	for _, n := range []int{10, 1_000, 100_000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			var t Tree[string, int]
			keys := make([]string, n)
			for i := range keys {
				keys[i] = "key" + strconv.Itoa(i)
				t = t.Set(keys[i], i, strCmp)
			}
			rand.New(rand.NewPCG(2, 2)).Shuffle(n, func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if _, ok := t.Get(keys[i], strCmp); !ok {
					b.Fatal("missing")
				}
				i++
				if i == n {
					i = 0
				}
			}
		})
	}
}

func strCmp(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func BenchmarkIterate(b *testing.B) {
	const n = 10_000
	t := sortedTree(n)
	b.Run("All", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			s := 0
			for k := range t.All() {
				s += k
			}
			if s == 0 {
				b.Fatal()
			}
		}
		reportPer(b, n, "entry")
	})
	b.Run("Iter", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			s := 0
			it := t.Iter()
			for k, _, ok := it.Next(); ok; k, _, ok = it.Next() {
				s += k
			}
			if s == 0 {
				b.Fatal()
			}
		}
		reportPer(b, n, "entry")
	})
	b.Run("At", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			s := 0
			for i := range n {
				k, _ := t.At(i)
				s += k
			}
			if s == 0 {
				b.Fatal()
			}
		}
		reportPer(b, n, "entry")
	})
}

func BenchmarkFromSorted(b *testing.B) {
	const n = 10_000
	keys := make([]int, n)
	for i := range keys {
		keys[i] = i
	}
	b.ReportAllocs()
	for b.Loop() {
		FromSorted(keys, keys)
	}
	reportPer(b, n, "entry")
}

func BenchmarkDeleteRandom(b *testing.B) {
	const n = 10_000
	t := sortedTree(n)
	perm := rand.New(rand.NewPCG(3, 3)).Perm(n)
	b.ReportAllocs()
	for b.Loop() {
		u := t
		for _, i := range perm {
			u = u.Delete(2*i, icmp)
		}
		if u.Len() != 0 {
			b.Fatal(u.Len())
		}
	}
	reportPer(b, n, "delete")
}

// BenchmarkSmallMaps builds many 4-entry maps, the most common map size in
// programs.
func BenchmarkSmallMaps(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		var t Tree[int, int]
		for i := range 4 {
			t = t.Set(i, i, icmp)
		}
	}
}

// anyCmp compares interface keys holding ints, roughly as the interpreter's
// comparator does for its values.
func anyCmp(x, y any) int {
	a, ok1 := x.(int)
	b, ok2 := y.(int)
	if !ok1 || !ok2 {
		panic("not ints")
	}
	return icmp(a, b)
}

func BenchmarkSetRandomAny(b *testing.B) {
	const n = 10_000
	perm := rand.New(rand.NewPCG(1, 1)).Perm(n)
	keys := make([]any, n)
	for i, k := range perm {
		keys[i] = k
	}
	b.ReportAllocs()
	for b.Loop() {
		var t Tree[any, any]
		for _, k := range keys {
			t = t.Set(k, k, anyCmp)
		}
	}
	reportPer(b, n, "insert")
}

func BenchmarkGetAny(b *testing.B) {
	for _, n := range []int{10, 1_000, 100_000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			keys := make([]any, n)
			for i := range keys {
				keys[i] = 2 * i
			}
			t := FromSorted(keys, keys)
			probe := rand.New(rand.NewPCG(2, 2)).Perm(n)
			pk := make([]any, n)
			for i, p := range probe {
				pk[i] = 2 * p
			}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if _, ok := t.Get(pk[i], anyCmp); !ok {
					b.Fatal("missing")
				}
				i++
				if i == n {
					i = 0
				}
			}
		})
	}
}
