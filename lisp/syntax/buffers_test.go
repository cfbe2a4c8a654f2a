package syntax

import (
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
