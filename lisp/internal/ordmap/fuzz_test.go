package ordmap

import "testing"

// FuzzOps interprets the input as a sequence of two-byte operations on a
// persistent tree and (at most) one live builder, and compares every result
// with the model. Run with: go test -fuzz FuzzOps ./lisp/internal/ordmap/
func FuzzOps(f *testing.F) {
	f.Add([]byte{0, 1, 0, 2, 0, 3, 1, 2, 7, 0})
	f.Add([]byte{5, 200, 5, 100, 6, 50, 7, 3})
	f.Add([]byte{2, 10, 2, 20, 3, 10, 4, 0, 7, 1})
	f.Add([]byte{0x25, 255, 0x45, 255, 0xa6, 120, 4, 0, 0x26, 255, 7, 9})
	f.Add([]byte{0xfd, 255, 0x0d, 255, 2, 5, 0xe6, 255, 4, 1, 1, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		var (
			tr    Tree[int, int]
			m     = newModel[int, int](icmp)
			b     *Builder[int, int]
			bm    *model[int, int]
			bFrom Tree[int, int]
			bSrc  *model[int, int]
			snaps []snapshot[int]
			val   int
		)
		startBuilder := func() {
			if b == nil {
				b, bm = NewBuilder(tr), m.clone()
				bFrom, bSrc = tr, m.clone()
			}
		}
		for i := 0; i+1 < len(data); i += 2 {
			op, arg := data[i], int(data[i+1])
			hi := int(op >> 3) // 0..31
			key := arg + 256*(hi&3)
			val++
			switch op & 7 {
			case 0:
				tr = tr.Set(key, val, icmp)
				m.set(key, val)
			case 1:
				_, present := m.m[key]
				nt := tr.Delete(key, icmp)
				if !present && !nt.Same(tr) {
					t.Fatalf("Delete(%d) of absent key changed the tree", key)
				}
				tr = nt
				m.del(key)
			case 2:
				startBuilder()
				b.Set(key, val, icmp)
				bm.set(key, val)
			case 3:
				startBuilder()
				b.Delete(key, icmp)
				bm.del(key)
			case 4:
				if b == nil {
					snaps = append(snaps, snapshot[int]{tr, m.clone()})
					break
				}
				tr, m = b.Tree(), bm
				if err := same(bFrom, bSrc); err != nil {
					t.Fatalf("builder modified its source: %v", err)
				}
				b, bm = nil, nil
			case 5, 6: // ascending/descending run of Set (5) or Delete (6)
				start := 64 * (hi & 15)
				desc := hi&16 != 0
				for j := range arg {
					k := start + j
					if desc {
						k = start + arg - j
					}
					switch {
					case op&7 == 5 && b != nil:
						b.Set(k, val, icmp)
						bm.set(k, val)
					case op&7 == 5:
						tr = tr.Set(k, val, icmp)
						m.set(k, val)
					case b != nil:
						b.Delete(k, icmp)
						bm.del(k)
					default:
						tr = tr.Delete(k, icmp)
						m.del(k)
					}
				}
			case 7:
				g, ok := tr.Get(key, icmp)
				if mv, mok := m.m[key]; ok != mok || g != mv {
					t.Fatalf("Get(%d) = %d %v, model %d %v", key, g, ok, mv, mok)
				}
				if n := tr.Len(); n > 0 {
					k, v := tr.At(arg % n)
					if want := m.keys[arg%n]; k != want || v != m.m[want] {
						t.Fatalf("At(%d) = %d %d, want key %d", arg%n, k, v, want)
					}
				}
				if b != nil {
					g, ok := b.Get(key, icmp)
					if mv, mok := bm.m[key]; ok != mok || g != mv || b.Len() != len(bm.m) {
						t.Fatalf("Builder.Get(%d) = %d %v, model %d %v", key, g, ok, mv, mok)
					}
				}
			}
			if err := tr.check(icmp); err != nil {
				t.Fatalf("op %d: %v", i/2, err)
			}
			if b != nil {
				if err := b.t.check(icmp); err != nil {
					t.Fatalf("op %d (builder): %v", i/2, err)
				}
			}
		}
		if err := same(tr, m); err != nil {
			t.Fatal(err)
		}
		if b != nil {
			if err := same(b.Tree(), bm); err != nil {
				t.Fatalf("builder: %v", err)
			}
			if err := same(bFrom, bSrc); err != nil {
				t.Fatalf("builder modified its source: %v", err)
			}
		}
		for i, s := range snaps {
			if err := same(s.t, s.m); err != nil {
				t.Fatalf("snapshot %d changed: %v", i, err)
			}
		}
	})
}
