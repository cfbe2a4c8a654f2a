package main

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ptc-go/ptc/cmd/ptc/internal/clitest"
	"github.com/ptc-go/ptc/cmd/ptc/internal/load"
)

// TestTopLevelUsageNamesRun: the usage lists run and version too.
func TestTopLevelUsageNamesRun(t *testing.T) {
	_, out, _ := ptc(t, "", "help")
	for _, c := range []string{"ptc run AGENT_FILE", "--record FILE | --replay FILE", "ptc version", "ptc bench [-c CONTEXT] [-n RUNS] [--json] (-e SOURCE | FILE)"} {
		if !strings.Contains(out, c) {
			t.Errorf("usage lacks %q:\n%s", c, out)
		}
	}
}

// TestContextErrorPosition: a context file cut in the middle or malformed
// is reported with line:column and the byte offset, by every command that
// loads one, on one line that does not quote the file's line (a context
// file may be anything an agent file names).
func TestContextErrorPosition(t *testing.T) {
	dir := t.TempDir()
	cut := clitest.WriteFile(t, dir, "cut.json", "{\"items\": [1, 2,\n  3")
	stray := clitest.WriteFile(t, dir, "stray.json", "{\"a\": 1,\n \"b\": 2,\n}")
	extra := clitest.WriteFile(t, dir, "extra.json", "{\"a\": 1} {")
	ednCut := clitest.WriteFile(t, dir, "cut.edn", "{:items [1 2\n :name \"x")
	ednBad := clitest.WriteFile(t, dir, "bad.edn", "{:a 1\n :b (foo)}")
	prog := clitest.WriteFile(t, dir, "p.ptc", "1")
	tests := []struct {
		file  string
		words []string
	}{
		{cut, []string{cut + ":2:4 (byte 20): parse_error: unexpected end of JSON input\n"}},
		{stray, []string{stray + ":3:1 (byte 18): parse_error: invalid character '}' looking for beginning of object key string\n"}},
		{extra, []string{extra + ":1:10 (byte 9): parse_error: invalid character '{' after top-level value"}},
		{ednCut, []string{ednCut + ":2:8 (byte 20): parse_error: unterminated string"}},
		{ednBad, []string{ednBad + ":2:6 (byte 11): parse_error: not a data literal: foo"}},
	}
	for _, tt := range tests {
		for _, cmd := range [][]string{{"eval", "-c", tt.file, "-e", "1"}, {"bench", "-n", "1", "-c", tt.file, prog}} {
			code, out, errOut := ptc(t, "", cmd...)
			if code != 2 || out != "" {
				t.Errorf("%v: exit %d, stdout %q", cmd, code, out)
			}
			containsAll(t, strings.Join(cmd[:1], " ")+" stderr", errOut, tt.words...)
			if strings.Count(errOut, "\n") != 1 {
				t.Errorf("%v: stderr has more than the error's line: %q", cmd, errOut)
			}
		}
	}
}

func TestBenchExpression(t *testing.T) {
	dir := t.TempDir()
	ctx := clitest.WriteFile(t, dir, "ctx.json", `{"items": [1, 2, 3]}`)
	prog := clitest.WriteFile(t, dir, "p.ptc", "1")
	code, out, errOut := ptc(t, "", "bench", "-n", "3", "-e", "(reduce + (range 10))")
	re := `^-e "\(reduce \+ \(range 10\)\)": 3 runs, median \S+s, p90 \S+s, \d+ allocs/run, \d+ bytes/run\n` +
		`  compile \S+s \(\d+ allocs, \d+ bytes\) \+ run \S+s \(\d+ allocs, \d+ bytes\): a cached program costs the run alone\n$`
	if code != 0 || errOut != "" || !regexp.MustCompile(re).MatchString(out) {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	code, out, _ = ptc(t, "", "bench", "-n", "2", "--json", "-c", ctx, "-e", "(count ctx/items)")
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &m); code != 0 || err != nil || m["median_ns"] == nil || m["compile_median_ns"] == nil || m["run_median_ns"] == nil {
		t.Errorf("--json: exit %d, stdout %q", code, out)
	}
	if code, _, errOut := ptc(t, "", "bench", "-n", "1", "--timeout", "-1", "--max-steps", "-1", "-e", "(reduce + (range 100000))"); code != 0 {
		t.Errorf("limits lifted: exit %d, %s", code, errOut)
	}
	code, out, _ = ptc(t, "", "bench", "-n", "2", "-e", strings.Repeat("(inc ", 20)+"1"+strings.Repeat(")", 20))
	if code != 0 || !strings.HasPrefix(out, `-e "(inc (inc (inc (inc (inc (inc (inc (inc …": 2 runs`) {
		t.Errorf("long -e: exit %d, stdout %q", code, out)
	}
	errs := []struct {
		args  []string
		code  int
		words []string
	}{
		{[]string{"-n", "2", "-e", `(+ 1 "a")`}, 1, []string{"type_error"}},
		// The limits of ptc eval hold, and can be raised or lowered.
		{[]string{"-n", "2", "--max-steps", "100", "-e", "(reduce + (range 100000))"}, 1, []string{"step_limit_exceeded"}},
		{[]string{"-n", "2", "-e", "1", prog}, 2, []string{"ptc bench: -e and FILE do not go together (ptc bench -h for help)"}},
		{[]string{"-n", "2", "-e", "1", "-c", filepath.Join(dir, "none.json")}, 2, []string{"none.json"}},
	}
	for _, tt := range errs {
		code, out, errOut := ptc(t, "", append([]string{"bench"}, tt.args...)...)
		if code != tt.code || out != "" {
			t.Errorf("%v: exit %d, stdout %q", tt.args, code, out)
		}
		containsAll(t, "stderr", errOut, tt.words...)
	}
}

// TestExampleAgent checks that the example agent file and its context
// read, and that the agent runs with a scripted model.
func TestExampleAgent(t *testing.T) {
	path := filepath.Join("..", "..", "examples", "agents", "digest.md")
	af, _, err := load.ReadAgentFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := af.NewAgent(af.Config); err != nil {
		t.Fatal(err)
	}
	ctx, err := af.LoadContext()
	if err != nil || ctx.Len() != 2 {
		t.Fatalf("context: %v", err)
	}
}
