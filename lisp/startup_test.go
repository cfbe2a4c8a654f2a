package lisp_test

import (
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"testing"
)

// TestPackageInitIsCheap checks what importing the package costs a process
// at start-up, as the Go runtime counts it (GODEBUG=inittrace=1: the
// allocations of each package's initialisation, the same on every
// machine). Every ptc command and every program that embeds the
// interpreter pays it once. It was 23,948 allocations and 1.2 MB when the
// boxed small integers were built by a loop and the class tables eagerly;
// docs/cli.md quotes the start-up this buys.
func TestPackageInitIsCheap(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the test binary again")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	m := regexp.MustCompile(`init github\.com/ptc-go/ptc/lisp @.*?, (\d+) bytes, (\d+) allocs`).FindSubmatch(out)
	if m == nil {
		t.Skipf("the runtime printed no init trace for the package:\n%s", out)
	}
	bytes, _ := strconv.Atoi(string(m[1]))
	allocs, _ := strconv.Atoi(string(m[2]))
	t.Logf("package lisp initialises with %d allocations, %d bytes", allocs, bytes)
	if allocs > 3000 || bytes > 448<<10 {
		t.Errorf("package lisp initialises with %d allocations and %d bytes; at most 3,000 and 448 KiB expected: build tables as constants (smallints_table.go), in chunks (builtinTable.add) or on first use (sync.OnceValue, constIntBlocks)", allocs, bytes)
	}
}
