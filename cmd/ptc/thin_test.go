package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// maxMainLines bounds package main: it keeps the flag wiring and the
// dispatch to the commands' packages under internal/ (docs/architecture.md,
// "The command line").
const maxMainLines = 3000

// TestMainStaysThin fails when the non-test Go files of package main grow
// past maxMainLines: a command's code belongs in its own package.
func TestMainStaysThin(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	total, counted := 0, 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		total += bytes.Count(b, []byte("\n"))
		counted++
	}
	if counted < 2 { // main.go and doc.go at least
		t.Fatalf("counted %d files: the test does not run in cmd/ptc", counted)
	}
	if total > maxMainLines {
		t.Errorf("package main has %d lines in %d files, more than %d: move a command's code to its package under internal/", total, counted, maxMainLines)
	}
}
