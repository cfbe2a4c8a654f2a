package lisp

import (
	"os"
	"regexp"
	"testing"
)

// TestSmallIntsTable checks the generated table of boxed integers against
// the bounds boxInt uses, and the generator's copy of those bounds.
func TestSmallIntsTable(t *testing.T) {
	for i, v := range smallInts {
		if want := int64(i) + minSmallInt; v != Value(want) {
			t.Fatalf("smallInts[%d] = %v, want %d (go generate ./lisp/)", i, v, want)
		}
	}
	for _, i := range []int64{minSmallInt - 1, minSmallInt, -1, 0, 255, 256, maxSmallInt, maxSmallInt + 1} {
		if got := boxInt(i); got != Value(i) {
			t.Errorf("boxInt(%d) = %v", i, got)
		}
	}
	gen, err := os.ReadFile("gen_smallints.go")
	if err != nil {
		t.Fatal(err)
	}
	bounds := regexp.MustCompile(`minSmallInt = (-?\d+)\s+maxSmallInt = (-?\d+)`).FindSubmatch(gen)
	if bounds == nil || string(bounds[1]) != "-1024" || string(bounds[2]) != "16383" || minSmallInt != -1024 || maxSmallInt != 16383 {
		t.Errorf("gen_smallints.go and value.go disagree on the bounds of the table: update both and go generate ./lisp/")
	}
}

// TestBoxIntDoesNotAllocate checks that boxing an integer of the table,
// above the 255 Go boxes without allocating, allocates nothing.
func TestBoxIntDoesNotAllocate(t *testing.T) {
	var sink Value
	if n := testing.AllocsPerRun(100, func() { sink = boxInt(12345) }); n != 0 {
		t.Errorf("boxInt(12345) allocates %v times", n)
	}
	_ = sink
}
