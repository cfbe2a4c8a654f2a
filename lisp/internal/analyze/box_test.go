package analyze

import (
	"math"
	"testing"
)

// TestBoxedConstants checks that constants boxed in the analysis's own
// chunks are the values and types any(v) would be, in a literal (made by
// fill) and alone (made by expr), and that they stay so after their
// Buffers served other analyses: a compiled program keeps its constants.
func TestBoxedConstants(t *testing.T) {
	want := []any{int64(0), int64(255), int64(256), int64(-1), int64(math.MaxInt64), int64(math.MinInt64),
		0.0, 1.5, -2.25, math.Inf(1), "", "s", "a longer string", true, false, nil}
	items := `0 255 256 -1 9223372036854775807 -9223372036854775808 0.0 1.5 -2.25 ##Inf "" "s" "a longer string" true false nil`
	alone := mustAnalyze(t, items).Body.(*Do).Body
	var b Buffers
	cfg := testConfig()
	cfg.Buffers = &b
	var kept []any
	for i := range 3 {
		src := "[" + items + "]"
		p, err := Analyze(src, read(t, src), cfg)
		if err != nil {
			t.Fatal(err)
		}
		for j, e := range p.Body.(*VectorLit).Items {
			if got := e.(*Const).Value; got != want[j] {
				t.Errorf("round %d: item %d is %#v, want %#v", i, j, got, want[j])
			}
			kept = append(kept, e.(*Const).Value)
		}
		b.Reset()
	}
	for j, e := range alone {
		if got := e.(*Const).Value; got != want[j] {
			t.Errorf("item %d alone is %#v, want %#v", j, got, want[j])
		}
	}
	for i, v := range kept {
		if w := want[i%len(want)]; v != w {
			t.Errorf("kept constant %d is %#v after later analyses, want %#v", i, v, w)
		}
	}
}

// TestSmallInts checks the table of boxed small ints boxInt hands out:
// entry i is the int64 i, and boxInt of any of them is that value.
func TestSmallInts(t *testing.T) {
	a := &analyzer{}
	for i := range smallInts {
		if v, ok := smallInts[i].(int64); !ok || v != int64(i) {
			t.Fatalf("smallInts[%d] = %#v, want int64(%d)", i, smallInts[i], i)
		}
		if got := a.boxInt(int64(i)); got != any(int64(i)) {
			t.Fatalf("boxInt(%d) = %#v", i, got)
		}
	}
	for _, v := range []int64{-1, 256, 1 << 40, -1 << 63} {
		if got := a.boxInt(v); got != any(v) {
			t.Errorf("boxInt(%d) = %#v", v, got)
		}
	}
}
