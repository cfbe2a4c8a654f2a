package chunk

import "testing"

// TestPool: Get hands out the smallest free chunk that is large enough,
// else a new one; KeepUsed clears what was handed out and, with KeepFree,
// keeps chunks within the limit, the last use's first.
func TestPool(t *testing.T) {
	var p Pool[int64]
	a, b, c := p.Get(4, 4), p.Get(16, 16), p.Get(2, 8)
	if len(a) != 4 || len(b) != 16 || len(c) != 8 {
		t.Fatalf("new chunks of %d, %d, %d elements, want 4, 16, 8", len(a), len(b), len(c))
	}
	a[0], b[0], c[0] = 1, 2, 3
	held := 0
	p.KeepUsed(&held, 1<<20)
	p.KeepFree(&held, 1<<20)
	if held != (4+16+8)*8 || p.Held() != held {
		t.Fatalf("held %d (Held %d), want %d", held, p.Held(), (4+16+8)*8)
	}
	for _, ch := range p.Free() {
		if ch[0] != 0 {
			t.Fatalf("a kept chunk is not cleared: %v", ch)
		}
	}
	if got := p.Get(5, 5); len(got) != 8 {
		t.Errorf("Get(5) gave %d elements, want the free chunk of 8 (the smallest that fits)", len(got))
	}
	if got := p.Get(32, 32); len(got) != 32 {
		t.Errorf("Get(32) gave %d elements, want a new chunk of 32", len(got))
	}
	// A limit below what was used keeps only what fits.
	held = 0
	p.KeepUsed(&held, 40*8)
	p.KeepFree(&held, 40*8)
	if held > 40*8 || p.Held() != held {
		t.Errorf("held %d (Held %d) over the limit of %d", held, p.Held(), 40*8)
	}
}

// TestPoolUntouched: a pool nothing was taken from since the last reset
// keeps its chunks and counts them in held, as a used one does, and drops
// them when the other pools' chunks leave no room; Held always matches
// the free chunks.
func TestPoolUntouched(t *testing.T) {
	freeBytes := func(p *Pool[int64]) int {
		n := 0
		for _, c := range p.Free() {
			n += len(c) * 8
		}
		return n
	}
	var used, idle Pool[int64]
	idle.Get(16, 16)
	reset := func(limit int) int {
		held := 0
		used.KeepUsed(&held, limit)
		idle.KeepUsed(&held, limit)
		used.KeepFree(&held, limit)
		idle.KeepFree(&held, limit)
		for _, p := range []*Pool[int64]{&used, &idle} {
			if p.Held() != freeBytes(p) {
				t.Fatalf("Held %d, the free chunks hold %d", p.Held(), freeBytes(p))
			}
		}
		return held
	}
	if held := reset(1 << 20); held != 16*8 {
		t.Fatalf("held %d, want %d", held, 16*8)
	}
	for range 3 { // idle untouched: its chunk stays and still counts
		used.Get(8, 8)
		if held := reset(1 << 20); held != (8+16)*8 || idle.Held() != 16*8 {
			t.Fatalf("held %d (idle %d), want %d (%d)", held, idle.Held(), (8+16)*8, 16*8)
		}
	}
	// The used pool's chunks come first: the idle one no longer fits.
	used.Get(8, 8)
	used.Get(4, 4)
	if held := reset(20 * 8); held != 12*8 || idle.Held() != 0 {
		t.Fatalf("held %d (idle %d), want %d (0)", held, idle.Held(), 12*8)
	}
	if got := idle.Get(16, 16); len(got) != 16 {
		t.Fatalf("Get(16) gave %d elements", len(got))
	}
}
