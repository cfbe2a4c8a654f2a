package main

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ptc-go/ptc/cmd/ptc/internal/base"
	"github.com/ptc-go/ptc/cmd/ptc/internal/clitest"
	"github.com/ptc-go/ptc/internal/transcript"
	"github.com/ptc-go/ptc/llm"
	"github.com/ptc-go/ptc/llm/llmtest"
)

// TestEvalErrorsCarryKind: every failure of ptc eval prints one form,
// "[where: ]kind: message" (where: the program's line:col, or the file),
// so that a caller reading stderr can tell them apart; the program's own
// output comes first.
func TestEvalErrorsCarryKind(t *testing.T) {
	dir := t.TempDir()
	arrayCtx := clitest.WriteFile(t, dir, "array.json", `[1, 2]`)
	badCtx := clitest.WriteFile(t, dir, "bad.json", `{"items": `)
	badEDN := clitest.WriteFile(t, dir, "bad.edn", `{:a`)
	shared := `(nth (iterate (fn [v] [v v]) 1) 60)`
	tests := []struct {
		name string
		args []string
		code int
		// line is the pattern of stderr's first line, kind included.
		line string
	}{
		{"runtime error", []string{"-e", `(+ 1 "a")`}, 1, `^1:1: type_error: \+ expects a number`},
		{"parse error", []string{"-e", `(let [x 1`}, 1, `^\d+:\d+: parse_error: unclosed`},
		{"memory", []string{"--max-memory", "1MiB", "-e", `(count (vec (range 100000)))`}, 1, `^(\d+:\d+: )?memory_exceeded: `},
		{"a value too large to print", []string{"--max-memory", "1MB", "-e", shared}, 1,
			`^memory_exceeded: the value prints to more than 1000000 bytes \(the memory limit\)`},
		{"a value too large for JSON", []string{"--json", "-e", shared}, 1, `^memory_exceeded: the value has more than`},
		{"a fail value too large to print", []string{"--max-memory", "1MB", "-e", "(fail " + shared + ")"}, 1,
			`^memory_exceeded: the value prints to more than`},
		{"fail", []string{"-e", `(fail :nope)`}, 1, `^fail: :nope$`},
		{"output first", []string{"--json", "-e", `(println "out") (+ 1 nil)`}, 1, `^out$`},
		{"missing file", []string{filepath.Join(dir, "nope.ptc")}, 2,
			`^ptc eval: \S+nope\.ptc: io_error: open \S+nope\.ptc: no such file or directory$`},
		{"missing context", []string{"-c", filepath.Join(dir, "nope.json"), "-e", "1"}, 2,
			`^ptc eval: context \S+nope\.json: io_error: open `},
		{"context not a map", []string{"-c", arrayCtx, "-e", "1"}, 2,
			`^ptc eval: context \S+array\.json: type_error: must be a map \(a JSON object\), got vector$`},
		{"context bad JSON", []string{"-c", badCtx, "-e", "1"}, 2,
			`^ptc eval: context \S+bad\.json:1:11 \(byte 10\): parse_error: unexpected end of JSON input$`},
		{"context bad EDN", []string{"-c", badEDN, "-e", "1"}, 2, `^ptc eval: context \S+bad\.edn:\d+:\d+ \(byte \d+\): parse_error: `},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, errOut := ptc(t, "", append([]string{"eval"}, tt.args...)...)
			if code != tt.code {
				t.Errorf("exit %d, want %d (stderr %q)", code, tt.code, errOut)
			}
			first, _, _ := strings.Cut(errOut, "\n")
			if !regexp.MustCompile(tt.line).MatchString(first) {
				t.Errorf("stderr's first line %q does not match %q", first, tt.line)
			}
		})
	}
}

// TestRunJSONFailuresCarryKind: with --json, stdout holds one JSON object
// however the run ends, before its mission or in it, and fail.reason is
// the failure's kind.
func TestRunJSONFailuresCarryKind(t *testing.T) {
	dir := t.TempDir()
	bad := clitest.WriteFile(t, dir, "bad.md", "---\nmax-turn: 2\n---\nP")
	badSig := clitest.WriteFile(t, dir, "sig.md", "---\nsignature: (n :nope) -> :int\n---\nP")
	cut := clitest.WriteFile(t, dir, "cut.json", "{\"orders\": [\n  {\"customer\": ")
	mcpFile := clitest.WriteFile(t, dir, "mcp.json", `{"mcpServers": {"gone": {"command": "`+filepath.Join(dir, "no-such-server")+`"}}}`)
	ok := func() llm.Func { return llmtest.NewScript(ordersReplies()...).Func() }
	tests := []struct {
		name   string
		model  llm.Func
		args   []string
		code   int
		reason string
	}{
		{"program fail", llmtest.NewScript(llmtest.Code(`(fail {:reason :nope :message "no"})`)).Func(),
			[]string{ordersAgent, "--model", "m"}, 1, "nope"},
		{"no return in time", llmtest.NewScript(llmtest.Code("1"), llmtest.Code("2"), llmtest.Code("3")).Func(),
			[]string{ordersAgent, "--model", "m"}, 1, "max_turns_exceeded"},
		{"the model fails", llmtest.NewScript(llmtest.Fail(&llm.Error{Class: llm.ClassAuth, Message: "bad key"})).Func(),
			[]string{ordersAgent, "--model", "m"}, 1, "llm_error"},
		{"two agent files", ok(), []string{ordersAgent, ordersAgent, "--model", "m"}, 2, "usage_error"},
		{"missing agent file", ok(), []string{filepath.Join(dir, "nope.md"), "--model", "m"}, 2, "io_error"},
		{"bad agent file", ok(), []string{bad, "--model", "m"}, 2, "usage_error"},
		{"bad signature", ok(), []string{badSig, "--model", "m"}, 2, "usage_error"},
		{"no model", ok(), []string{ordersAgent}, 2, "usage_error"},
		{"--record and --replay", ok(), []string{ordersAgent, "--record", "a", "--replay", "b"}, 2, "usage_error"},
		{"missing transcript", ok(), []string{"--replay", filepath.Join(dir, "none.json")}, 2, "io_error"},
		{"cut context", ok(), []string{ordersAgent, "--model", "m", "-c", cut}, 2, "parse_error"},
		{"missing context", ok(), []string{ordersAgent, "--model", "m", "-c", filepath.Join(dir, "none.json")}, 2, "io_error"},
		{"an MCP server that does not start", ok(), []string{ordersAgent, "--model", "m", "--mcp", mcpFile}, 1, "mcp_error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := ptcIn(t, testEnv(tt.model, nil), append([]string{"run", "--json", "-q"}, tt.args...)...)
			if code != tt.code {
				t.Errorf("exit %d, want %d (stderr:\n%s)", code, tt.code, errOut)
			}
			if strings.Count(out, "\n") != 1 {
				t.Fatalf("stdout is not one line of JSON: %q", out)
			}
			var o struct {
				OK   bool                    `json:"ok"`
				Fail *transcript.OutcomeFail `json:"fail"`
				Ret  json.RawMessage         `json:"return"`
			}
			if err := json.Unmarshal([]byte(out), &o); err != nil {
				t.Fatalf("stdout %q: %v", out, err)
			}
			if o.OK || o.Fail == nil || o.Fail.Reason != tt.reason || o.Fail.Message == "" || string(o.Ret) != "null" {
				t.Errorf("outcome %s, want fail.reason %q", out, tt.reason)
			}
		})
	}
}

// TestRunValueTooLargeCarriesKind: a returned value too large to print is
// reported with its kind.
func TestRunValueTooLargeCarriesKind(t *testing.T) {
	plain := clitest.WriteFile(t, t.TempDir(), "plain.md", "---\n---\nBuild it.")
	s := llmtest.NewScript(llmtest.Code(`(return (nth (iterate (fn [v] [v v]) 1) 60))`))
	code, out, errOut := ptcIn(t, testEnv(s.Func(), nil), "run", "-q", plain, "--model", "m", "--max-memory", "1MB")
	if code != base.ExitFail || out != "" || !strings.Contains(errOut, "ptc run: memory_exceeded: the value prints to more than") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}
