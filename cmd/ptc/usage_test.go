package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ptc-go/ptc/cmd/ptc/internal/base"
	"github.com/ptc-go/ptc/cmd/ptc/internal/clitest"
)

// ptcBinary builds ptc once per test binary: usage errors are checked as a
// user meets them, through the built command.
var ptcBinary = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp(builtDir, "ptc-bin-")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "ptc")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		return "", &buildError{out: string(out), err: err}
	}
	return bin, nil
})

// runBinary runs the built ptc with args in dir; stdin nil is /dev/null
// (a character device, which ptc eval takes for a terminal).
func runBinary(t *testing.T, dir string, stdin []byte, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	return runBuilt(t, dir, stdin, os.Environ(), args...)
}

// runBuilt runs the built ptc with args in dir (the test's own when ""),
// the environment env with PTC_MODEL and PTC_HISTORY cleared.
func runBuilt(t *testing.T, dir string, stdin []byte, env []string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	bin, err := ptcBinary()
	if err != nil {
		t.Fatalf("building ptc: %v", err)
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = append(env, "PTC_MODEL=", "PTC_HISTORY=off")
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err = cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatalf("running ptc: %v", err)
	}
	return code, out.String(), errOut.String()
}

// TestUsageErrors: every command's usage error is one line on stderr,
// "ptc CMD: what is wrong (ptc CMD -h for help)", exit 2, nothing on
// stdout and no help.
func TestUsageErrors(t *testing.T) {
	dir := t.TempDir()
	clitest.WriteFile(t, dir, "agent.md", "---\nsignature: \"-> :int\"\n---\nReturn 1.\n")
	clitest.WriteFile(t, dir, "prog.ptc", "(+ 1 2)")
	tests := []struct {
		args []string
		line string
	}{
		{nil, `ptc: missing COMMAND (ptc -h for help)`},
		{[]string{"frob"}, `ptc: unknown command "frob" (ptc -h for help)`},
		{[]string{"eval"}, `ptc eval: missing the program: -e SOURCE, FILE, or - for standard input (ptc eval -h for help)`},
		{[]string{"eval", "-e", "1", "prog.ptc"}, `ptc eval: -e and FILE do not go together (ptc eval -h for help)`},
		{[]string{"eval", "prog.ptc", "prog.ptc"}, `ptc eval: takes one FILE, got 2 arguments (ptc eval -h for help)`},
		{[]string{"eval", "--bogus", "-e", "1"}, `ptc eval: flag provided but not defined: -bogus (ptc eval -h for help)`},
		{[]string{"eval", "-e"}, `ptc eval: flag needs an argument: -e (ptc eval -h for help)`},
		{[]string{"repl", "x"}, `ptc repl: unexpected argument "x" (ptc repl -h for help)`},
		{[]string{"run"}, `ptc run: missing AGENT_FILE (or --replay FILE) (ptc run -h for help)`},
		{[]string{"run", "--trace", "agent.md"}, `ptc run: missing AGENT_FILE: --trace took "agent.md" as its FILE (flags with a value take the next argument) (ptc run -h for help)`},
		{[]string{"run", "agent.md", "agent.md"}, `ptc run: takes one AGENT_FILE, got 2 arguments (ptc run -h for help)`},
		{[]string{"run", "agent.md", "--record", "r.json", "--replay", "r.json"}, `ptc run: --record and --replay do not go together: a replay calls no model (ptc run -h for help)`},
		{[]string{"run", "--timeout"}, `ptc run: flag needs an argument: -timeout (ptc run -h for help)`},
		{[]string{"trace"}, `ptc trace: missing the subcommand: print or view (ptc trace -h for help)`},
		{[]string{"trace", "frob"}, `ptc trace: unknown subcommand "frob": print or view (ptc trace -h for help)`},
		{[]string{"trace", "print"}, `ptc trace print: missing FILE (ptc trace print -h for help)`},
		{[]string{"trace", "view", "a", "b"}, `ptc trace view: takes one FILE, got 2 arguments (ptc trace view -h for help)`},
		{[]string{"dev", "a", "b"}, `ptc dev: takes one DIR, got 2 arguments (ptc dev -h for help)`},
		{[]string{"conform"}, `ptc conform: missing FILE.jsonl (ptc conform -h for help)`},
		{[]string{"bench"}, `ptc bench: missing the program: -e SOURCE or FILE (ptc bench -h for help)`},
		{[]string{"bench", "-n", "0", "-e", "1"}, `ptc bench: -n must be 1 or more, not 0 (ptc bench -h for help)`},
		{[]string{"models", "extra"}, `ptc models: unexpected argument "extra" (ptc models -h for help)`},
		{[]string{"mcp"}, `ptc mcp: missing the subcommand: tools or serve (ptc mcp -h for help)`},
		{[]string{"mcp", "frob"}, `ptc mcp: unknown subcommand "frob": tools or serve (ptc mcp -h for help)`},
		{[]string{"mcp", "tools"}, `ptc mcp tools: missing --config FILE (ptc mcp tools -h for help)`},
		{[]string{"mcp", "serve"}, `ptc mcp serve: missing --config FILE (ptc mcp serve -h for help)`},
		{[]string{"version", "--bad"}, `ptc version: flag provided but not defined: -bad (ptc version -h for help)`},
	}
	for _, tt := range tests {
		t.Run(strings.Join(append([]string{"ptc"}, tt.args...), " "), func(t *testing.T) {
			t.Parallel()
			code, out, errOut := runBinary(t, dir, nil, tt.args...)
			if code != base.ExitUsage {
				t.Errorf("exit %d, want %d", code, base.ExitUsage)
			}
			if out != "" {
				t.Errorf("stdout %q, want empty", out)
			}
			if errOut != tt.line+"\n" {
				t.Errorf("stderr:\n%s\nwant the one line:\n%s", errOut, tt.line)
			}
		})
	}
}

// TestHelpOnStdout: -h prints the command's help to stdout, exit 0.
func TestHelpOnStdout(t *testing.T) {
	tests := []struct {
		args  []string
		words []string
	}{
		{[]string{"-h"}, []string{"ptc eval", "ptc run AGENT_FILE", "ptc mcp tools"}},
		{[]string{"eval", "-h"}, []string{"usage: ptc eval", "-mcp FILE", "-e source"}},
		{[]string{"repl", "--help"}, []string{"usage: ptc repl", "-mcp FILE"}},
		{[]string{"run", "-h"}, []string{"usage: ptc run AGENT_FILE", "Tools: the tools of MCP servers", "PTC_MODEL", "-record FILE", "-max-memory"}},
		{[]string{"trace", "-h"}, []string{"usage: ptc trace"}},
		{[]string{"trace", "print", "-h"}, []string{"usage: ptc trace print", "-replies"}},
		{[]string{"trace", "view", "-h"}, []string{"usage: ptc trace view"}},
		{[]string{"dev", "-h"}, []string{"usage: ptc dev", "-addr", "-runs"}},
		{[]string{"conform", "-h"}, []string{"usage: ptc conform"}},
		{[]string{"bench", "-h"}, []string{"usage: ptc bench"}},
		{[]string{"models", "-h"}, []string{"usage: ptc models"}},
		{[]string{"mcp", "-h"}, []string{"ptc mcp tools"}},
		{[]string{"mcp", "tools", "-h"}, []string{"usage: ptc mcp tools", "-config"}},
		{[]string{"mcp", "serve", "-h"}, []string{"usage: ptc mcp serve", "-config"}},
		{[]string{"version", "-h"}, []string{"usage: ptc version"}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(append([]string{"ptc"}, tt.args...), " "), func(t *testing.T) {
			t.Parallel()
			code, out, errOut := runBinary(t, t.TempDir(), nil, tt.args...)
			if code != base.ExitOK || errOut != "" {
				t.Errorf("exit %d, stderr %q; want 0 and nothing", code, errOut)
			}
			containsAll(t, "stdout", out, tt.words...)
		})
	}
}

// TestEvalStdin: ptc eval - reads the program from standard input, and so
// does ptc eval with a pipe for standard input.
func TestEvalStdin(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{{"eval", "-"}, {"eval"}, {"eval", "--json", "-"}} {
		code, out, errOut := runBinary(t, dir, []byte(`(println "p") (+ 1 2)`), args...)
		wantOut, wantErr := "p\n3\n", ""
		if len(args) > 1 && args[1] == "--json" {
			wantOut, wantErr = "3\n", "p\n"
		}
		if code != base.ExitOK || out != wantOut || errOut != wantErr {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 0, %q, %q", args, code, out, errOut, wantOut, wantErr)
		}
	}
}
