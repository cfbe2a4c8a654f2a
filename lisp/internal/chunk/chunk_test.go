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
