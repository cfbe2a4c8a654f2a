package ordmap

import (
	"cmp"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/ptc-go/ptc/internal/testenv"
)

type snapshot[K comparable] struct {
	t Tree[K, int]
	m *model[K, int]
}

// runModel drives a random sequence of operations on persistent trees and
// builders and compares everything with the model. keyFor maps a random
// integer in [0, space) to a key.
func runModel[K comparable](t *testing.T, seed uint64, steps, space int, keyFor func(int) K, kcmp func(a, b K) int) {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	tr := Tree[K, int]{}
	m := newModel[K, int](kcmp)
	var snaps []snapshot[K]
	val := 0
	randKey := func() K { return keyFor(r.IntN(space)) }
	fail := func(format string, args ...any) {
		t.Helper()
		t.Fatalf("seed %d step: "+format, append([]any{seed}, args...)...)
	}
	// pSet is the probability (in %) that a mutation is a Set; it drifts so
	// trees grow and shrink.
	pSet := 70
	maxLen, maxHeight := 0, 0
	for step := 0; step < steps; step++ {
		maxLen, maxHeight = max(maxLen, tr.Len()), max(maxHeight, tr.height())
		if step%200 == 0 {
			pSet = []int{90, 70, 50, 25, 10}[r.IntN(5)]
		}
		switch op := r.IntN(100); {
		case op < 40: // persistent Set or Delete
			k := randKey()
			if r.IntN(100) < pSet {
				val++
				before := tr
				tr = tr.Set(k, val, kcmp)
				m.set(k, val)
				if before.Same(tr) {
					fail("Set returned the same root")
				}
			} else {
				_, present := m.m[k]
				nt := tr.Delete(k, kcmp)
				if !present && !nt.Same(tr) {
					fail("Delete of absent key %v changed the root", k)
				}
				tr = nt
				m.del(k)
			}
			if err := tr.check(kcmp); err != nil {
				fail("after persistent op: %v", err)
			}
		case op < 50: // queries
			k := randKey()
			v, ok := tr.Get(k, kcmp)
			mv, mok := m.m[k]
			if ok != mok || v != mv {
				fail("Get(%v) = %v %v, model %v %v", k, v, ok, mv, mok)
			}
			if tr.Len() > 0 {
				keys := m.sortedKeys()
				i := r.IntN(len(keys))
				ak, av := tr.At(i)
				if ak != keys[i] || av != m.m[keys[i]] {
					fail("At(%d) = %v %v, want %v", i, ak, av, keys[i])
				}
			}
		case op < 60: // a builder session
			from, fromModel := tr, m.clone()
			b := NewBuilder(tr)
			bm := m.clone()
			n := r.IntN(300)
			for range n {
				k := randKey()
				switch x := r.IntN(100); {
				case x < pSet*8/10:
					val++
					b.Set(k, val, kcmp)
					bm.set(k, val)
				case x < 80:
					b.Delete(k, kcmp)
					bm.del(k)
				default:
					v, ok := b.Get(k, kcmp)
					mv, mok := bm.m[k]
					if ok != mok || v != mv {
						fail("Builder.Get(%v) = %v %v, model %v %v", k, v, ok, mv, mok)
					}
				}
				if b.Len() != len(bm.m) {
					fail("Builder.Len %d, model %d", b.Len(), len(bm.m))
				}
			}
			nt := b.Tree()
			if err := same(from, fromModel); err != nil {
				fail("builder modified its source: %v", err)
			}
			if err := same(nt, bm); err != nil {
				fail("builder result: %v", err)
			}
			tr, m = nt, bm
		case op < 65: // ascending or descending run (append mode)
			n := r.IntN(100)
			k0 := r.IntN(space)
			desc := r.IntN(4) == 0
			var b *Builder[K, int]
			if r.IntN(2) == 0 {
				b = NewBuilder(tr)
			}
			for i := range n {
				ki := k0 + i
				if desc {
					ki = k0 - i
				}
				k := keyFor(ki)
				val++
				if b != nil {
					b.Set(k, val, kcmp)
				} else {
					tr = tr.Set(k, val, kcmp)
				}
				m.set(k, val)
			}
			if b != nil {
				tr = b.Tree()
			}
			if err := tr.check(kcmp); err != nil {
				fail("after run: %v", err)
			}
		case op < 68: // snapshot for the persistence check
			snaps = append(snaps, snapshot[K]{tr, m.clone()})
		case op < 70: // full comparison
			if err := same(tr, m); err != nil {
				fail("%v", err)
			}
		default: // Min/Max and a partial iteration
			if err := tr.check(kcmp); err != nil {
				fail("%v", err)
			}
			keys := m.sortedKeys()
			stop := r.IntN(len(keys) + 1)
			i := 0
			for k := range tr.All() {
				if i == stop {
					break
				}
				if k != keys[i] {
					fail("All: entry %d is %v, want %v", i, k, keys[i])
				}
				i++
			}
			if i != stop {
				fail("early stop at %d, want %d", i, stop)
			}
		}
	}
	t.Logf("seed %d space %d: final len %d height %d, max len %d height %d", seed, space, tr.Len(), tr.height(), maxLen, maxHeight)
	if err := same(tr, m); err != nil {
		t.Fatalf("seed %d final: %v", seed, err)
	}
	for i, s := range snaps {
		if err := same(s.t, s.m); err != nil {
			t.Fatalf("seed %d snapshot %d changed: %v", seed, i, err)
		}
	}
}

func intKey(i int) int { return i }

// strKey spreads integers over strings whose order differs from numeric
// order and whose lengths vary.
func strKey(i int) string {
	s := strconv.Itoa(i)
	if i%3 == 0 {
		s = strings.Repeat("z", (i%7+7)%7) + s
	}
	return s
}

// modelRuns is how many random sequences each model test runs, and how
// many steps each takes. Every run of four seeds covers the four key
// spaces, from 40 keys to 30,000; the long run (PTC_LONG_TESTS) takes all
// the seeds at full length.
func modelRuns(full int) (seeds, steps int) {
	switch {
	case testenv.Long():
		return full, 3000
	case testing.Short():
		return 4, 1000
	case raceEnabled:
		return 4, 1500
	}
	return max(4, full/2), 3000
}

func TestModelInt(t *testing.T) {
	seeds, steps := modelRuns(16)
	for seed := range seeds {
		space := []int{40, 300, 3000, 30000}[seed%4]
		runModel(t, uint64(seed), steps, space, intKey, cmp.Compare[int])
	}
}

func TestModelString(t *testing.T) {
	seeds, steps := modelRuns(12)
	for seed := range seeds {
		space := []int{40, 300, 3000, 30000}[seed%4]
		runModel(t, uint64(1000+seed), steps, space, strKey, strings.Compare)
	}
}
