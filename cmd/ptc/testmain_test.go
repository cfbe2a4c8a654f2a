package main

import (
	"fmt"
	"os"
	"testing"
)

// builtDir holds what the tests build once per test binary (ptcBinary,
// upstreamBinary). TestMain sets it before any test runs and removes it
// after the last: each build is tens of megabytes, and a directory left
// behind by every run fills a CI machine's disk.
var builtDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "ptc-cmd-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "cmd/ptc tests:", err)
		os.Exit(1)
	}
	builtDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
