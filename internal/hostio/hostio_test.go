package hostio_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ptc-go/ptc/internal/hostio"
	"github.com/ptc-go/ptc/lisp"
)

// TestWriteFileAtomic: the file holds the new data with its permissions,
// and a write that cannot happen leaves the old file and no temporary one.
func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "run.json")
	if err := hostio.WriteFileAtomic(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := hostio.WriteFileAtomic(path, []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	fi, _ := os.Stat(path)
	if string(b) != "new" || fi.Mode().Perm() != 0o644 {
		t.Fatalf("got %q %v", b, fi.Mode().Perm())
	}
	if err := hostio.WriteFileAtomic(filepath.Join(dir, "missing", "x.json"), []byte("x"), 0o644); err == nil {
		t.Fatal("writing into a missing folder succeeded")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("the folder holds %d entries, want the file alone", len(entries))
	}
}

// TestMergeContext: a key replaces both its spellings.
func TestMergeContext(t *testing.T) {
	base := lisp.NewMap(lisp.Keyword("a"), int64(1), "b", int64(2), lisp.Keyword("c"), int64(3))
	got := hostio.MergeContext(base, lisp.NewMap("a", int64(10), lisp.Keyword("b"), int64(20)))
	if s := lisp.Print(got, lisp.PrintOptions{}); s != `{:b 20, :c 3, "a" 10}` {
		t.Fatalf("got %s", s)
	}
	if hostio.MergeContext(base, nil) != base {
		t.Fatal("merging nothing should return base")
	}
}
