package mcp_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/mcp"
)

// syncBuffer is a bytes.Buffer safe for a process's writes and a test's reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// TestStdio runs the upstream as a subprocess (built once, with go build,
// into the test's temporary directory) and connects with Command.
func TestStdio(t *testing.T) {
	bin := buildUpstream(t)
	ctx := context.Background()

	t.Run("calls", func(t *testing.T) {
		dir := t.TempDir()
		cctx, cancel := context.WithCancel(ctx)
		ts, err := mcp.Connect(cctx, mcp.Server{
			Name:    "up",
			Command: []string{bin, "-tools", "12"},
			Env:     map[string]string{"UPSTREAM_TEST_VAR": "from-env"},
			Dir:     dir,
		})
		if err != nil {
			t.Fatal(err)
		}
		defer ts.Close()
		cancel() // the process outlives Connect's context
		if n := len(ts.Infos()); n != 11+12 {
			t.Errorf("%d tools, want 23", n)
		}
		v, err := call(t, ts, "up.add", map[string]any{"a": 20, "b": 22})
		if err != nil || lisp.Print(v, lisp.PrintOptions{}) != `{"sum" 42}` {
			t.Errorf("add: %v %v", v, err)
		}
		v, err = call(t, ts, "up.env", map[string]any{"name": "UPSTREAM_TEST_VAR"})
		if err != nil {
			t.Fatal(err)
		}
		m := v.(*lisp.Map)
		val, _ := m.Get(lisp.Keyword("value"))
		cwd, _ := m.Get(lisp.Keyword("cwd"))
		realDir, _ := filepath.EvalSymlinks(dir)
		if val != "from-env" || (cwd != dir && cwd != realDir) {
			t.Errorf("env %s, want value from-env and cwd %s", lisp.Print(v, lisp.PrintOptions{}), dir)
		}
		if _, err := call(t, ts, "up.fail", nil); err == nil || err.Error() != "boom: bad input" {
			t.Errorf("fail: %v", err)
		}
	})

	t.Run("crash", func(t *testing.T) {
		var stderr syncBuffer
		ts, err := mcp.Connect(ctx, mcp.Server{Name: "up", Command: []string{bin}, Stderr: &stderr})
		if err != nil {
			t.Fatal(err)
		}
		defer ts.Close()
		_, err = call(t, ts, "up.crash", nil)
		t.Logf("crash: %v", err)
		me := asError(t, err, mcp.KindClosed)
		if me.Server != "up" || me.Tool != "crash" || !strings.HasPrefix(err.Error(), "mcp server up: connection closed") {
			t.Errorf("error %q", err)
		}
		// The host lives on; later calls fail with the same kind of error.
		for range 3 {
			_, err = call(t, ts, "up.add", map[string]any{"a": 1, "b": 2})
			t.Logf("later: %v", err)
			asError(t, err, mcp.KindClosed)
			if !strings.HasPrefix(err.Error(), "mcp server up: connection closed") {
				t.Errorf("error %q", err)
			}
		}
		if err := ts.Close(); err != nil {
			t.Errorf("Close after a crash: %v", err)
		}
	})

	t.Run("cancel", func(t *testing.T) {
		ts, err := mcp.Connect(ctx, mcp.Server{Name: "up", Command: []string{bin}})
		if err != nil {
			t.Fatal(err)
		}
		defer ts.Close()
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		_, err = callCtx(cctx, t, ts, "up.slow", nil)
		if !errors.Is(err, context.Canceled) {
			t.Errorf("error %v", err)
		}
		if _, err := call(t, ts, "up.add", map[string]any{"a": 1, "b": 2}); err != nil {
			t.Errorf("after a cancelled call: %v", err)
		}
	})

	// A reply over the frame limit closes the connection; the next call
	// starts the process again.
	t.Run("oversize", func(t *testing.T) {
		state := filepath.Join(t.TempDir(), "sent")
		var warnings []string
		var mu sync.Mutex
		ts, err := mcp.Connect(ctx, mcp.Server{Name: "up", Command: []string{bin, "-hostile", "oversize-once", "-state", state},
			Warn: func(msg string) {
				mu.Lock()
				defer mu.Unlock()
				warnings = append(warnings, msg)
			}})
		if err != nil {
			t.Fatal(err)
		}
		defer ts.Close()
		_, err = call(t, ts, "up.big", nil)
		asError(t, err, mcp.KindTooLarge)
		v, err := call(t, ts, "up.big", nil)
		if err != nil || v != "small" {
			t.Fatalf("after the large reply: %v, %v", v, err)
		}
		mu.Lock()
		defer mu.Unlock()
		if len(warnings) != 1 || !strings.Contains(warnings[0], "mcp server up: reconnected (its process restarted)") {
			t.Errorf("warnings %q", warnings)
		}
	})

	t.Run("missing command", func(t *testing.T) {
		_, err := mcp.Connect(ctx, mcp.Server{Name: "nope", Command: []string{filepath.Join(t.TempDir(), "absent")}})
		me := asError(t, err, mcp.KindConnect)
		if me.Server != "nope" || !errors.Is(err, os.ErrNotExist) {
			t.Errorf("error %v", err)
		}
	})
}

// buildUpstream builds the test MCP server (mcp/internal/upstream) and
// returns its path; -short skips the test.
func buildUpstream(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds a binary")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	bin := filepath.Join(t.TempDir(), "upstream")
	build := exec.Command(goTool, "build", "-o", bin, "github.com/ptc-go/ptc/mcp/internal/upstream/cmd/upstream")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}
