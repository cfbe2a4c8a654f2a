package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ptc-go/ptc/cmd/ptc/internal/base"
	"github.com/ptc-go/ptc/cmd/ptc/internal/clitest"
	"github.com/ptc-go/ptc/cmd/ptc/internal/load"
	"github.com/ptc-go/ptc/llm/llmtest"
	"github.com/ptc-go/ptc/llm/provider"
)

// TestTimeoutHelpDefault: the --timeout help of the commands whose
// programs run as an agent's turns gives the agent's default (5s), not
// the interpreter's (1s), which eval keeps.
func TestTimeoutHelpDefault(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "-h"}, "(default 5s; -1: none)"},
		{[]string{"mcp", "serve", "-h"}, "(default 5s; -1: none)"},
		{[]string{"eval", "-h"}, "(default 1s; -1: none)"},
	} {
		_, help, _ := ptc(t, "", tc.args...) // -h prints the help on stdout
		i := strings.Index(help, "-timeout")
		if i < 0 {
			t.Fatalf("%v: no -timeout in\n%s", tc.args, help)
		}
		line := help[i:]
		if j := strings.Index(line, "\n  -"); j > 0 {
			line = line[:j]
		}
		if !strings.Contains(line, tc.want) {
			t.Errorf("%v: --timeout help %q, want %q", tc.args, line, tc.want)
		}
	}
}

// TestModelsJSONFields: every object of ptc models --json has every
// field docs/cli.md lists, with its type, false and empty ones included.
func TestModelsJSONFields(t *testing.T) {
	env := testEnv(nil, nil)
	env.Getenv = func(string) string { return "" } // no key set: key_set "" and ready false somewhere
	code, out, _ := ptcIn(t, env, "models", "--json")
	var rows []map[string]any
	if err := json.Unmarshal([]byte(out), &rows); code != base.ExitOK || err != nil || len(rows) == 0 {
		t.Fatalf("exit %d, %v: %s", code, err, out)
	}
	kinds := map[string]string{"provider": "string", "example": "string", "adapter": "string", "key_env": "array",
		"key_set": "string", "url_env": "string", "url": "string", "local": "bool", "ready": "bool"}
	for _, r := range rows {
		if len(r) != len(kinds) {
			t.Errorf("%v: %d fields, want %d", r["provider"], len(r), len(kinds))
		}
		for k, kind := range kinds {
			var ok bool
			switch v := r[k]; kind {
			case "string":
				_, ok = v.(string)
			case "bool":
				_, ok = v.(bool)
			case "array":
				_, ok = v.([]any)
			}
			if !ok {
				t.Errorf("%v: %s is %#v, want a %s", r["provider"], k, r[k], kind)
			}
		}
	}
}

// TestEnvironmentTable: docs/cli.md's environment table lists every
// variable the CLI and the provider adapters read: the getenv("NAME")
// calls in their sources, the token variable of ptc mcp serve, and each
// provider's key and address variables.
func TestEnvironmentTable(t *testing.T) {
	doc, err := os.ReadFile("../../docs/cli.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(doc)
	start := strings.Index(text, "\n## Environment\n")
	if start < 0 {
		t.Fatal("docs/cli.md has no Environment section")
	}
	listed := map[string]bool{}
	for _, line := range strings.Split(text[start:], "\n")[2:] { // after the heading
		if strings.HasPrefix(line, "## ") {
			break
		}
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		first := strings.SplitN(line[1:], "|", 2)[0]
		for _, m := range regexp.MustCompile("`([A-Z][A-Z0-9_]*)`").FindAllStringSubmatch(first, -1) {
			listed[m[1]] = true
		}
	}
	read := map[string]string{load.MCPTokenEnv: "mcpTokenEnv"}
	getenv := regexp.MustCompile(`[Gg]etenv\("([A-Z][A-Z0-9_]*)"\)`)
	for _, pattern := range []string{"*.go", "internal/*/*.go", "../../llm/*/*.go"} {
		files, err := filepath.Glob(pattern)
		if err != nil || len(files) == 0 {
			t.Fatalf("%s: %v, %d files", pattern, err, len(files))
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range getenv.FindAllStringSubmatch(string(src), -1) {
				read[m[1]] = f
			}
		}
	}
	for _, p := range provider.Providers() {
		for _, k := range append(append([]string(nil), p.KeyEnv...), p.URLEnv) {
			if k != "" {
				read[k] = "provider " + p.Name
			}
		}
	}
	for _, want := range []string{"OPENAI_BASE_URL", "GEMINI_BASE_URL", "OLLAMA_HOST", "PTC_MODEL"} {
		if read[want] == "" {
			t.Errorf("the scan missed %s: the test is broken", want)
		}
	}
	for k, where := range read {
		if !listed[k] {
			t.Errorf("%s (read by %s) is not in docs/cli.md's environment table", k, where)
		}
	}
}

// TestProgressTimesWithinTotal: the progress's turn times and the total
// are measured from the mission's start alike: no turn's time exceeds
// the total, and the last turn's is the total (a replay showed 4ms for
// its last turn and 706µs in all: the turns counted ptc's setup).
func TestProgressTimesWithinTotal(t *testing.T) {
	for _, args := range [][]string{
		{"run", "--replay", ordersTranscript},
		{"run", ordersAgent, "--model", "m"},
	} {
		env := testEnv(llmtest.NewScript(ordersReplies()...).Func(), nil)
		code, _, errOut := ptcIn(t, env, args...)
		if code != base.ExitOK {
			t.Fatalf("%v: exit %d\n%s", args, code, errOut)
		}
		turnRe := regexp.MustCompile(`(?m)^  [\d,]+ tokens so far \(.*\) · (\S+)$`)
		totalRe := regexp.MustCompile(`(?m)^returned after .*, (\S+)$`)
		turns, total := turnRe.FindAllStringSubmatch(errOut, -1), totalRe.FindStringSubmatch(errOut)
		if len(turns) < 2 || total == nil {
			t.Fatalf("%v: no turn times or no total in\n%s", args, errOut)
		}
		all, err := time.ParseDuration(total[1])
		if err != nil {
			t.Fatal(err)
		}
		for i, m := range turns {
			d, err := time.ParseDuration(m[1])
			if err != nil {
				t.Fatal(err)
			}
			if d > all {
				t.Errorf("%v: turn %d at %s, after the total %s", args, i+1, d, all)
			}
		}
		if last := turns[len(turns)-1][1]; last != total[1] {
			t.Errorf("%v: the last turn at %s, the total %s:\n%s", args, last, total[1], errOut)
		}
	}
}

// TestFirewalledPrintsAlike: ptc trace print shows firewalled values as
// the live progress and the value did: a string computed from a firewalled
// value (a copy, a fragment) is the bare placeholder in both (live quoted
// a copy once, the trace read it back bare).
func TestFirewalledPrintsAlike(t *testing.T) {
	dir := t.TempDir()
	ag := clitest.WriteFile(t, dir, "a.md", "---\nmax-turns: 3\n---\nReturn it.\n")
	tr := filepath.Join(dir, "t.json")
	env := testEnv(llmtest.NewScript(
		llmtest.Code(`(def _tok "s3cr3t-token-value") {:_b _tok}`),
		llmtest.Code(`(return [(str "key:" _tok) (subs _tok 0 12) {:x _tok}])`)).Func(), nil)
	code, out, live := ptcIn(t, env, "run", ag, "--model", "m", "--trace", tr)
	if code != base.ExitOK {
		t.Fatalf("exit %d\n%s", code, live)
	}
	want := `[<Firewalled> <Firewalled> {:x <Firewalled>}]` // the first two computed from _tok
	if out != want+"\n" || !strings.Contains(live, "✓ returned "+want) {
		t.Errorf("live: value %q, progress\n%s", out, live)
	}
	_, printed, errOut := ptcIn(t, testEnv(nil, nil), "trace", "print", tr)
	if !strings.Contains(printed, "Returned: "+want) || !strings.Contains(printed, "Result: "+want) {
		t.Errorf("trace print, want %s:\n%s%s", want, printed, errOut)
	}
	if strings.Contains(out+printed, "s3cr3t") {
		t.Errorf("the secret was printed")
	}
}
