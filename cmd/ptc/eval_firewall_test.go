package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ptc-go/ptc/cmd/ptc/internal/base"
	"github.com/ptc-go/ptc/cmd/ptc/internal/clitest"
	"github.com/ptc-go/ptc/cmd/ptc/internal/load"
)

// evalSecret is what the test server's environment holds, which its env
// tool returns in a field the configuration firewalls; s3cr3t is what
// its secret tool returns in another.
const (
	evalSecret      = "tok-9f8e7d6c5b4a3210"
	evalShortSecret = "s3cr3t"
	evalNote        = "note-0123456789abcdef"
)

// firewalledMCPConfig writes an MCP configuration naming the test
// upstream as server "up", whose "env" and "secret" tools' results have
// fields the configuration firewalls.
func firewalledMCPConfig(t *testing.T) string {
	t.Helper()
	bin, err := upstreamBinary()
	if err != nil {
		t.Fatalf("building the test upstream: %v", err)
	}
	b, _ := json.Marshal(bin)
	text := `{"mcpServers": {"up": {"command": ` + string(b) + `, "env": {"EVAL_TOKEN": "` + evalSecret + `"},
		"firewall": {"env": ["/value"], "secret": ["/items/*/token"]}}}}`
	path := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestEvalMCPKeepsTheFirewall: what an MCP configuration firewalls, and
// the "_" fields of a tool's result, print as <Firewalled> in everything
// ptc eval --mcp prints, as in ptc run: the value, println output, --json
// (println output on stderr then), errors; copies of their text too.
// --unredacted shows them.
func TestEvalMCPKeepsTheFirewall(t *testing.T) {
	cfg := firewalledMCPConfig(t)
	dir := t.TempDir()
	ctxPath := clitest.WriteFile(t, dir, "ctx.json", `{"_key": "ctx-key-0123456789", "user": "ann"}`)
	const env = `(def r (tool/up.env {:name "EVAL_TOKEN"}))`
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout []string // what it must hold
		stderr []string
	}{
		{"the value", []string{"-e", env, "-e", "r"}, 0, []string{`"_value" <Firewalled>`, `"cwd"`}, nil},
		{"a field's value", []string{"-e", env, "-e", "(:_value r)"}, 0, []string{"<Firewalled>\n"}, nil},
		{"a copy", []string{"-e", env, "-e", `(str "token=" (:_value r))`}, 0, []string{"<Firewalled>"}, nil},
		{"one program", []string{"-e", `(let [r (tool/up.env {:name "EVAL_TOKEN"})] (println "got" (str "t=" (:_value r))) (println r) (:_value r))`},
			0, []string{"got t=<Firewalled>\n", `{_value <Firewalled>, cwd `, "\n<Firewalled>\n"}, nil},
		{"println", []string{"-e", env, "-e", `(println r) (println (:_value r)) (println (subs (:_value r) 2))`}, 0,
			[]string{`{_value <Firewalled>, cwd `, "}\n<Firewalled>\n<Firewalled>\nnil\n"}, nil},
		{"--json", []string{"--json", "-e", env, "-e", `(println (:_value r)) r`}, 0,
			[]string{`"_value":"<Firewalled>"`}, []string{"<Firewalled>\n"}},
		{"--json, a copy", []string{"--json", "-e", env, "-e", `{:t (str "t=" (:_value r))}`}, 0,
			[]string{`{"t":"t=<Firewalled>"}`}, nil},
		{"an error", []string{"-e", env, "-e", `(+ 1 (:_value r))`}, 1, nil, []string{"type_error", "<Firewalled>"}},
		{"fail", []string{"-e", env, "-e", `(fail {:why (str "t=" (:_value r))})`}, 1, nil, []string{"fail: ", "<Firewalled>"}},
		{"a field the configuration firewalls", []string{"-e", `(tool/up.secret {})`}, 0, []string{`"_token" <Firewalled>`}, nil},
		{"a result's own _ field", []string{"-e", `(tool/up.echo {:text "hi" :_note "` + evalNote + `"})`}, 0,
			[]string{`"_note" <Firewalled>`}, nil},
		{"the context", []string{"-c", ctxPath, "-e", `(println ctx/_key) {:_key ctx/_key :copy (str "k=" ctx/_key) :user ctx/user}`}, 0,
			[]string{"<Firewalled>\n", `:_key <Firewalled>`, `:copy "k=<Firewalled>"`, `:user "ann"`}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := ptcIn(t, testEnv(nil, nil), append([]string{"eval", "--mcp", cfg}, tt.args...)...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tt.code, out, errOut)
			}
			containsAll(t, "stdout", out, tt.stdout...)
			containsAll(t, "stderr", errOut, tt.stderr...)
			for _, s := range []string{evalSecret, evalSecret[2:10], evalShortSecret, evalNote, "ctx-key-0123456789"} {
				if strings.Contains(out, s) || strings.Contains(errOut, s) {
					t.Errorf("%q shows\nstdout: %s\nstderr: %s", s, out, errOut)
				}
			}
		})
	}

	// --unredacted: as it is, in each output.
	for _, tt := range []struct {
		name string
		args []string
	}{
		{"the value", []string{"-e", env, "-e", "r"}},
		{"println", []string{"-e", env, "-e", `(println (str "t=" (:_value r))) 1`}},
		{"--json", []string{"--json", "-e", env, "-e", "r"}},
		{"--json println", []string{"--json", "-e", env, "-e", `(println (:_value r)) 1`}},
	} {
		t.Run("--unredacted/"+tt.name, func(t *testing.T) {
			code, out, errOut := ptcIn(t, testEnv(nil, nil), append([]string{"eval", "--mcp", cfg, "--unredacted"}, tt.args...)...)
			if code != 0 || !strings.Contains(out+errOut, evalSecret) || strings.Contains(out+errOut, "<Firewalled>") {
				t.Errorf("exit %d: the value does not show as it is\nstdout: %s\nstderr: %s", code, out, errOut)
			}
		})
	}

	// Without --mcp, the program and its data are the user's own.
	code, out, errOut := ptcIn(t, testEnv(nil, nil), "eval", "-c", ctxPath, "-e", "ctx/_key")
	if code != 0 || out != "\"ctx-key-0123456789\"\n" {
		t.Errorf("without --mcp: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

// TestReplMCPKeepsTheFirewall: ptc repl --mcp shows what the servers
// firewall as <Firewalled> in values, println output, errors, :defs and
// :doc; --unredacted shows them.
func TestReplMCPKeepsTheFirewall(t *testing.T) {
	cfg := firewalledMCPConfig(t)
	input := strings.Join([]string{
		`(def r (tool/up.env {:name "EVAL_TOKEN"}))`,
		`r`,
		`(:_value r)`,
		`(def copy (str "t=" (:_value r)))`,
		`copy`,
		`(println r) (println (:_value r)) (println copy)`,
		`(let [s (tool/up.secret {})] (println s) s)`,
		`(+ 1 (:_value r))`,
		`*1`,
		`:defs`,
		`:doc copy`,
	}, "\n") + "\n"
	run := func(args ...string) (string, string) {
		var out, errOut bytes.Buffer
		if code := dispatch(testEnv(nil, nil), append([]string{"repl", "--mcp", cfg}, args...), strings.NewReader(input), &out, &errOut); code != base.ExitOK {
			t.Fatalf("exit %d: %s", code, errOut.String())
		}
		return out.String(), errOut.String()
	}
	out, errOut := run()
	containsAll(t, "stdout", out, `"_value" <Firewalled>`, "\n<Firewalled>\n", `"_token" <Firewalled>`, `_token <Firewalled>`,
		`"t=<Firewalled>"`, "\nt=<Firewalled>\n", `r = {"_value" <Firewalled>, "cwd" `, `copy = "t=<Firewalled>"`,
		`copy is defined in this session: "t=<Firewalled>"`)
	containsAll(t, "stderr", errOut, "type_error", "<Firewalled>")
	for _, s := range []string{evalSecret, evalSecret[2:10], evalShortSecret} {
		if strings.Contains(out, s) || strings.Contains(errOut, s) {
			t.Errorf("%q shows\nstdout: %s\nstderr: %s", s, out, errOut)
		}
	}

	out, errOut = run("--unredacted")
	containsAll(t, "--unredacted stdout", out, `"_value" "`+evalSecret+`"`, "t="+evalSecret, `"_token" "`+evalShortSecret+`"`,
		`copy = "t=`+evalSecret)
	containsAll(t, "--unredacted stderr", errOut, evalSecret)

	// Through the line editor, as a terminal shows it.
	h := newReplHarness(strings.NewReader(`(def r (tool/up.env {:name "EVAL_TOKEN"}))`+kEnter+"r"+kEnter+
		`(println (str "t=" (:_value r)))`+kEnter+":defs"+kEnter), 80)
	h.session.View = load.NewEvalView(true)
	mt, status := load.OpenMCPTools(context.Background(), testEnv(nil, nil), "repl", cfg, h.session.View, io.Discard)
	if mt == nil {
		t.Fatalf("openMCPTools: exit %d", status)
	}
	defer mt.Close()
	h.session.Tools = mt.Caller
	if code := h.run(); code != base.ExitOK {
		t.Fatalf("the editor: exit %d", code)
	}
	containsAll(t, "the editor's stdout", h.out(), `"_value" <Firewalled>`, "t=<Firewalled>\n", `r = {"_value" <Firewalled>`)
	if screen := h.screen.text(); strings.Contains(screen, evalSecret) || strings.Contains(screen, evalSecret[2:10]) ||
		!strings.Contains(screen, "<Firewalled>") {
		t.Errorf("the screen shows the secret, or no placeholder:\n%s", screen)
	}
}
