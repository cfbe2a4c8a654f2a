//go:build unix

package main

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ptc-go/ptc/cmd/ptc/internal/base"
	"github.com/ptc-go/ptc/cmd/ptc/internal/clitest"
)

// endlessFIFO makes a FIFO in dir that a goroutine writes to without end
// (text, then a front matter line, again and again) until its reader
// closes it.
func endlessFIFO(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "fifo.md")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		defer f.Close()
		chunk := []byte("---\n" + strings.Repeat("description: endless\n", 200))
		for {
			if _, err := f.Write(chunk); err != nil {
				return // the reader closed it
			}
		}
	}()
	t.Cleanup(func() {
		for {
			select {
			case <-done:
				return
			default:
			}
			// A writer still waiting for a reader gets one, and then
			// EPIPE. The open does not block: a writer that ended just
			// before would leave a blocking open waiting forever.
			if f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
				f.Close()
			}
			select {
			case <-done:
				return
			case <-time.After(10 * time.Millisecond):
			}
		}
	})
	return path
}

// TestFIFOBounded: a FIFO written to without end, as an agent file, an MCP
// configuration or any file ptc reads, ends in an error at the file kind's
// bound.
func TestFIFOBounded(t *testing.T) {
	fifo := endlessFIFO(t, t.TempDir())
	_, err := base.ReadBounded(fifo, base.FileKind{Name: "a test file", Limit: 1 << 16})
	if !errors.Is(err, base.ErrTooLarge) || !strings.Contains(err.Error(), "larger than 64 KiB, the bound of a test file") {
		t.Errorf("readBounded: %v", err)
	}

	dir := t.TempDir()
	fifo = endlessFIFO(t, dir)
	code, _, errOut := ptcIn(t, testEnv(nil, nil), "run", fifo, "--model", "m")
	if code != base.ExitUsage || !strings.Contains(errOut, "ptc run: read "+fifo+": larger than 1 MiB, the bound of an agent file") {
		t.Errorf("ptc run FIFO: exit %d, %s", code, errOut)
	}

	dir = t.TempDir()
	fifo = endlessFIFO(t, dir)
	agentFile := clitest.WriteFile(t, dir, "a.md", "---\nmcp: fifo.md\n---\nP")
	code, _, errOut = ptcIn(t, testEnv(nil, nil), "run", agentFile, "--model", "m")
	if code != base.ExitUsage || !strings.Contains(errOut, "mcp: read "+fifo+": larger than 1 MiB, the bound of an MCP configuration") {
		t.Errorf("mcp: FIFO: exit %d, %s", code, errOut)
	}
}

// TestFIFORead: a pipe reads as a file (ptc eval -c <(jq ...)).
func TestFIFORead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ctx.json")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	go func() {
		if f, err := os.OpenFile(path, os.O_WRONLY, 0); err == nil {
			f.Write([]byte(`{"a": 41}`))
			f.Close()
		}
	}()
	code, out, errOut := ptcIn(t, testEnv(nil, nil), "eval", "-c", path, "-e", "(inc ctx/a)")
	if code != base.ExitOK || out != "42\n" {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

// TestTerminalEscapesServerStderr: what an MCP server that fails to start
// writes to its stderr is shown escaped, by ptc run, ptc mcp tools and
// ptc mcp serve.
func TestTerminalEscapesServerStderr(t *testing.T) {
	dir := t.TempDir()
	script := `printf '\033]52;c;cHduZWQ=\007\033[2J\302\233\342\200\256 dying\n' >&2; exit 3`
	b, _ := json.Marshal(script)
	cfg := clitest.WriteFile(t, dir, "mcp.json", `{"mcpServers": {"bad": {"command": "sh", "args": ["-c", `+string(b)+`]}}}`)
	for _, args := range [][]string{
		{"run", ordersAgent, "--model", "m", "--mcp", cfg},
		{"mcp", "tools", "--config", cfg},
		{"mcp", "serve", "--config", cfg},
	} {
		code, out, errOut := ptcIn(t, testEnv(nil, nil), args...)
		clitest.CheckTermSafe(t, args[0]+" stdout", out)
		clitest.CheckTermSafe(t, args[0]+" stderr", errOut)
		if code != base.ExitFail || !strings.Contains(errOut, `bad's stderr: \u001b]52;c;cHduZWQ=\u0007\u001b[2J\u009b\u202e dying`) {
			t.Errorf("%v: exit %d, stderr %q", args, code, errOut)
		}
	}
}
