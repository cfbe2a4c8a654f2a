//go:build unix

package mcp_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/ptc-go/ptc/mcp"
)

// TestStdioClose closes stdio servers that exit at the end of their
// stdin, that stay (server-everything does), and that also ignore
// SIGTERM. Close returns no error (the signal was ours), the process is
// gone, and a server that exits on its own is not signalled at all. The
// bound on Close is loose (the grace is 1 s a step, 3 s at worst); the
// SDK's default grace of 5 s a step took over 10 s for the deaf server.
func TestStdioClose(t *testing.T) {
	bin := buildUpstream(t)
	for _, tc := range []struct {
		name  string
		flags []string
		ended string // what the exit file says: eof, term, or "" (killed)
	}{
		{"exits on eof", nil, "eof"},
		{"stays after eof", []string{"-stay"}, "term"},
		{"ignores sigterm", []string{"-stay", "-deaf"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			exitFile, pidFile := filepath.Join(dir, "exit"), filepath.Join(dir, "pid")
			args := append([]string{bin, "-exitfile", exitFile, "-pidfile", pidFile}, tc.flags...)
			ts, err := mcp.Connect(context.Background(), mcp.Server{Name: "up", Command: args})
			if err != nil {
				t.Fatal(err)
			}
			raw, err := os.ReadFile(pidFile)
			if err != nil {
				t.Fatal(err)
			}
			pid, err := strconv.Atoi(string(raw))
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			if err := ts.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("Close took %s", d)
			}
			if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
				t.Errorf("the process %d is still there after Close: %v", pid, err)
			}
			ended, _ := os.ReadFile(exitFile)
			if string(ended) != tc.ended {
				t.Errorf("the server ended by %q, want %q", ended, tc.ended)
			}
		})
	}
}
