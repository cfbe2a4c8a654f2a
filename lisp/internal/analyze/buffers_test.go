package analyze

import (
	"fmt"
	"strings"
	"testing"
	"unsafe"
)

// held is what b keeps between analyses, in bytes.
func (b *Buffers) held() int {
	n := 0
	if b.starter != nil {
		n += int(unsafe.Sizeof(starter{}))
	}
	n += b.consts.Held() + b.locals.Held() + b.captured.Held() + b.builtins.Held()
	n += b.globalRefs.Held() + b.calls.Held() + b.ifs.Held() + b.vectors.Held() + b.maps.Held()
	n += b.lets.Held() + b.dos.Held() + b.bindSlots.Held() + b.loops.Held() + b.recurs.Held()
	n += b.exprBuf.Held() + b.bindings.Held() + b.patterns.Held()
	return n
}

// TestBuffersReuse checks that an analysis with Buffers gives the tree an
// analysis without gives, that a warm Buffers saves allocations, and that
// what it keeps is cleared and bounded by MaxBuffered whatever the text.
func TestBuffersReuse(t *testing.T) {
	var wide strings.Builder
	wide.WriteString("(let [base {:id 0}")
	for i := range 40 {
		fmt.Fprintf(&wide, " b%d (loop [x {:id %d :tags [1 :k]} n 0] (if (< n 2) (recur (assoc x :n (count (:tags x))) (inc n)) (+ (:id x) (:id base))))", i, i)
	}
	wide.WriteString("] (+ b0 b39))")
	huge := strings.Repeat("(let [x {:a 1}] (if (< 1 2) (+ 1 (:a x)) [x x])) ", 256<<10/50)
	cases := []struct{ name, src string }{{"wide", wide.String()}, {"huge", huge}, {"wide after huge", wide.String()}}
	var b Buffers
	for _, tc := range cases {
		forms := read(t, tc.src)
		want, err := Analyze(tc.src, forms, testConfig())
		if err != nil {
			t.Fatal(err)
		}
		cfg := testConfig()
		cfg.Buffers = &b
		got, err := Analyze(tc.src, forms, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if dump(got.Body) != dump(want.Body) || got.NumSlots != want.NumSlots || got.Body.Offset() != want.Body.Offset() {
			t.Fatalf("%s: with Buffers %s, without %s", tc.name, dump(got.Body), dump(want.Body))
		}
		b.Reset()
		if h := b.held(); h > MaxBuffered || h == 0 {
			t.Fatalf("%s: Buffers keeps %d bytes, want 1 to %d", tc.name, h, MaxBuffered)
		}
		for _, c := range b.calls.Free() {
			for i := range c {
				if c[i].Fn != nil || c[i].Args != nil {
					t.Fatalf("%s: a kept call is not cleared: %+v", tc.name, c[i])
				}
			}
		}
	}
	src := wide.String()
	forms := read(t, src)
	cfg := testConfig()
	plain := testing.AllocsPerRun(10, func() { Analyze(src, forms, cfg) })
	cfg.Buffers = &b
	warm := testing.AllocsPerRun(10, func() {
		Analyze(src, forms, cfg)
		b.Reset()
	})
	if warm > plain*0.6 {
		t.Fatalf("an analysis with warm Buffers allocates %v times, without %v", warm, plain)
	}
}
