package main

import (
	"strings"
	"testing"

	"github.com/ptc-go/ptc/cmd/ptc/internal/clitest"
	"github.com/ptc-go/ptc/llm/llmtest"
)

// ptc run prints the mission's warnings (the input's coercions) on stderr,
// one line each, after the value; --json has them in "warnings".
func TestRunPrintsWarnings(t *testing.T) {
	dir := t.TempDir()
	agentPath := clitest.WriteFile(t, dir, "a.md", "---\nsignature: (n :int) -> :int\nmax-turns: 1\n---\nDouble {{n}}.")
	s := llmtest.NewScript(llmtest.Code(`(* 2 ctx/n)`), llmtest.Code(`(* 2 ctx/n)`))
	code, out, errOut := ptcIn(t, testEnv(s.Func(), nil), "run", "-q", agentPath, "--model", "m", "--set", `n="3"`)
	if code != 0 || out != "6\n" {
		t.Fatalf("exit %d, stdout %q, stderr %s", code, out, errOut)
	}
	if !strings.Contains(errOut, "warning: input: n") {
		t.Errorf("stderr lacks the coercion warning:\n%s", errOut)
	}
	code, out, _ = ptcIn(t, testEnv(s.Func(), nil), "run", "--json", agentPath, "--model", "m", "--set", `n="3"`)
	if code != 0 || !strings.Contains(out, `"warnings":["input: n`) {
		t.Errorf("--json: exit %d, %s", code, out)
	}
}
