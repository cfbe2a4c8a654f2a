package base

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ptc-go/ptc/agent/agentfile"
	"github.com/ptc-go/ptc/cmd/ptc/internal/clitest"
)

// TestReadBounded: a file over its kind's bound is an error that says so
// (a file of exactly the bound reads), and a device is refused without
// being read.
func TestReadBounded(t *testing.T) {
	dir := t.TempDir()
	kind := FileKind{Name: "a test file", Limit: 1000}
	exact := clitest.WriteFile(t, dir, "exact", strings.Repeat("x", 1000))
	over := clitest.WriteFile(t, dir, "over", strings.Repeat("x", 1001))
	if b, err := ReadBounded(exact, kind); err != nil || len(b) != 1000 {
		t.Errorf("a file of the bound: %d bytes, %v", len(b), err)
	}
	_, err := ReadBounded(over, kind)
	var pe *os.PathError
	if !errors.Is(err, ErrTooLarge) || !errors.As(err, &pe) || err.Error() != "read "+over+": larger than 1000 bytes, the bound of a test file" {
		t.Errorf("a file over the bound: %v", err)
	}
	if _, err := ReadBounded(filepath.Join(dir, "none"), kind); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing file: %v", err)
	}
	if _, err := ReadBounded(dir, kind); !errors.Is(err, ErrNotRegular) {
		t.Errorf("a directory: %v", err)
	}
	if agentfile.FormatSize(KindAgentFile.Limit) != "1 MiB" || agentfile.FormatSize(KindContext.Limit) != "256 MiB" {
		t.Errorf("the bounds as docs/cli.md states them: %s, %s", agentfile.FormatSize(KindAgentFile.Limit), agentfile.FormatSize(KindContext.Limit))
	}
}
