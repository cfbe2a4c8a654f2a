package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/cmd/ptc/internal/base"
	"github.com/ptc-go/ptc/cmd/ptc/internal/clitest"
	"github.com/ptc-go/ptc/cmd/ptc/internal/runcmd"
	"github.com/ptc-go/ptc/internal/transcript"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm/llmtest"
)

// The tests of the files and texts ptc gets from elsewhere (issue 22):
// error messages that quote no more of a file than a token, bounded reads,
// replays that start no process, and terminal-safe printing.

// secretEnviron is what /proc/self/environ holds: NUL-separated
// variables, a secret among them.
const secretEnviron = "SECRET_TOKEN=hunter2-do-not-print\x00HOME=/root\x00PATH=/usr/bin:/bin\x00"

// leakedSecret is the part of secretEnviron no message may show.
const leakedSecret = "hunter2"

// hostileFiles are contents of files from elsewhere: the environment, a
// binary with terminal escapes, a huge line.
func hostileFiles() map[string]string {
	var bin strings.Builder
	for i := range 256 {
		bin.WriteByte(byte(i))
	}
	return map[string]string{
		"environ":   secretEnviron,
		"binary":    "\x1b]52;c;" + leakedSecret + "\x07" + bin.String(),
		"huge line": `{"token": "` + leakedSecret + strings.Repeat("x", 4<<20) + `", "cut": [`,
		"escapes":   "\x1b[2J\x1b]0;" + leakedSecret + "\x07",
	}
}

// TestFileErrorsQuoteNoContent: an error in a file from elsewhere (a
// context file, an MCP configuration, a transcript, a trace, an agent
// file) says where and what, on one line, quoting no more than a token:
// not the secret in it, no control character, no long text. On main,
// context: /proc/self/environ printed the start of the environment.
func TestFileErrorsQuoteNoContent(t *testing.T) {
	for name, content := range hostileFiles() {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			file := clitest.WriteFile(t, dir, "data", content)
			edn := clitest.WriteFile(t, dir, "data.edn", content)
			agentCtx := clitest.WriteFile(t, dir, "ctx.md", "---\ncontext: data\n---\nP")
			agentEDN := clitest.WriteFile(t, dir, "edn.md", "---\ncontext: data.edn\n---\nP")
			agentMCP := clitest.WriteFile(t, dir, "mcp.md", "---\nmcp: data\n---\nP")
			frontMatter := clitest.WriteFile(t, dir, "fm.md", "---\n"+content+"\n---\nP")
			runs := [][]string{
				{"run", agentCtx, "--model", "m"},
				{"run", agentEDN, "--model", "m"},
				{"run", agentMCP, "--model", "m"},
				{"run", frontMatter, "--model", "m"},
				{"run", agentCtx, "--model", "m", "--json"},
				{"run", "--replay", file},
				{"run", "--replay", file, "--json"},
				{"run", agentCtx, "--model", "m", "--mcp", file},
				{"eval", "-c", file, "-e", "1"},
				{"eval", "-c", edn, "-e", "1"},
				{"trace", "print", file},
				{"trace", "view", file, "-o", filepath.Join(dir, "page.html")},
				{"mcp", "tools", "--config", file},
				{"mcp", "serve", "--config", file},
			}
			for _, args := range runs {
				code, out, errOut := ptcIn(t, testEnv(llmtest.NewScript().Func(), nil), args...)
				if code == base.ExitOK {
					t.Errorf("%v: exit 0", args)
				}
				for what, text := range map[string]string{"stdout": out, "stderr": errOut} {
					if strings.Contains(text, leakedSecret) {
						t.Errorf("%v: %s shows the file's content: %q", args, what, base.ClipText(text, 300))
					}
					if len(text) > 1000 {
						t.Errorf("%v: %s is %d bytes long: %q", args, what, len(text), base.ClipText(text, 300))
					}
					clitest.CheckTermSafe(t, strings.Join(args[:2], " ")+" "+what, text)
				}
				if strings.Count(errOut, "\n") > 1 && args[0] != "run" {
					t.Errorf("%v: the error takes more than a line: %q", args, errOut)
				}
			}
		})
	}
}

// TestFileErrorsSayWhere: the errors of TestFileErrorsQuoteNoContent
// still say where the problem is.
func TestFileErrorsSayWhere(t *testing.T) {
	dir := t.TempDir()
	env := clitest.WriteFile(t, dir, "environ", secretEnviron)
	agentFile := clitest.WriteFile(t, dir, "a.md", "---\ncontext: environ\n---\nP")
	_, _, errOut := ptcIn(t, testEnv(nil, nil), "run", agentFile, "--model", "m")
	want := "ptc run: context " + env + ":1:1 (byte 0): parse_error: invalid character 'S' looking for beginning of value\n"
	if errOut != want {
		t.Errorf("stderr %q, want %q", errOut, want)
	}
	_, _, errOut = ptcIn(t, testEnv(nil, nil), "mcp", "tools", "--config", env)
	if want := "ptc mcp tools: " + env + ": 1:1: invalid character 'S' looking for beginning of value\n"; errOut != want {
		t.Errorf("stderr %q, want %q", errOut, want)
	}
	// A form that is not data is quoted to its 40th character.
	edn := clitest.WriteFile(t, dir, "ctx.edn", "{:a\n  "+strings.Repeat("s", 40)+leakedSecret+"}")
	_, _, errOut = ptcIn(t, testEnv(nil, nil), "eval", "-c", edn, "-e", "1")
	if want := "ptc eval: context " + edn + ":2:3 (byte 6): parse_error: not a data literal: " + strings.Repeat("s", 40) + "…\n"; errOut != want {
		t.Errorf("stderr %q, want %q", errOut, want)
	}
}

// TestDevicesRefused: /dev/zero named as any file ptc reads (by the
// command line, an agent file's context: or mcp:) is an error at once,
// not a read without end. On main, context: /dev/zero read until the
// memory ran out.
func TestDevicesRefused(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no /dev/zero")
	}
	dir := t.TempDir()
	ctxAgent := clitest.WriteFile(t, dir, "ctx.md", "---\ncontext: /dev/zero\n---\nP")
	mcpAgent := clitest.WriteFile(t, dir, "mcp.md", "---\nmcp: /dev/zero\n---\nP")
	prog := clitest.WriteFile(t, dir, "p.ptc", "1")
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"run", "/dev/zero", "--model", "m"}, "ptc run: open /dev/zero: not a regular file or a pipe"},
		{[]string{"run", ctxAgent, "--model", "m"}, "ptc run: " + ctxAgent + ":2:10: context: /dev/zero: not a regular file or a pipe"},
		{[]string{"run", mcpAgent, "--model", "m"}, "ptc run: " + mcpAgent + ":2:6: mcp: open /dev/zero: not a regular file or a pipe"},
		{[]string{"run", ctxAgent, "--model", "m", "--json"}, `"reason":"io_error"`},
		{[]string{"run", mcpAgent, "--model", "m", "--mcp", "/dev/zero"}, "ptc run: open /dev/zero: not a regular file"},
		{[]string{"run", "--replay", "/dev/zero"}, "ptc run: open /dev/zero: not a regular file"},
		{[]string{"eval", "-c", "/dev/zero", "-e", "1"}, "ptc eval: context /dev/zero: io_error: open /dev/zero: not a regular file"},
		{[]string{"eval", "/dev/zero"}, "ptc eval: /dev/zero: io_error: open /dev/zero: not a regular file"},
		{[]string{"bench", "-c", "/dev/zero", prog}, "not a regular file"},
		{[]string{"trace", "print", "/dev/zero"}, "ptc trace print: open /dev/zero: not a regular file"},
		{[]string{"mcp", "tools", "--config", "/dev/zero"}, "ptc mcp tools: open /dev/zero: not a regular file"},
		{[]string{"conform", "/dev/zero"}, "ptc conform: open /dev/zero: not a regular file"},
	}
	for _, tt := range tests {
		code, out, errOut := ptcIn(t, testEnv(llmtest.NewScript().Func(), nil), tt.args...)
		if code != base.ExitUsage && code != base.ExitFail {
			t.Errorf("%v: exit %d", tt.args, code)
		}
		if !strings.Contains(errOut+out, tt.want) {
			t.Errorf("%v: output lacks %q:\nstdout %s\nstderr %s", tt.args, tt.want, out, errOut)
		}
	}
}

// TestAgentFileTooLarge: an agent file over 1 MiB, on disk or in a
// transcript, is refused.
func TestAgentFileTooLarge(t *testing.T) {
	dir := t.TempDir()
	big := "---\ndescription: d\n---\n" + strings.Repeat("Prompt. ", (1<<20)/8+1)
	path := clitest.WriteFile(t, dir, "big.md", big)
	_, _, errOut := ptcIn(t, testEnv(nil, nil), "run", path, "--model", "m")
	if !strings.Contains(errOut, "read "+path+": larger than 1 MiB, the bound of an agent file") {
		t.Errorf("stderr %q", errOut)
	}
	rec := editTranscript(t, copyTranscript(t, dir), "big.json", func(tr *transcript.Transcript) { tr.Agent.Text = big })
	_, _, errOut = ptcIn(t, testEnv(nil, nil), "run", "--replay", rec)
	if !strings.Contains(errOut, "larger than 1 MiB, the bound of an agent file") {
		t.Errorf("replay: stderr %q", errOut)
	}
}

// TestReplayStartsNoProcess is the attack of issue 22: a transcript whose
// agent text names an MCP configuration, next to one whose server is a
// shell command. The replay, offline by its docs, must not run it unless
// --replay-mcp (or --mcp FILE) asks; on main it ran it.
func TestReplayStartsNoProcess(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the attack's server is sh")
	}
	dir := t.TempDir()
	marker := filepath.Join(dir, "PWNED")
	cmd, _ := json.Marshal("touch " + marker)
	clitest.WriteFile(t, dir, "tools.json", `{"mcpServers": {"x": {"command": "sh", "args": ["-c", `+string(cmd)+`]}}}`)
	rec := editTranscript(t, copyTranscript(t, dir), "run.json", func(tr *transcript.Transcript) {
		tr.Agent.Text = strings.Replace(tr.Agent.Text, "max-turns: 3\n", "max-turns: 3\nmcp: tools.json\n", 1)
	})
	agentFile := clitest.WriteFile(t, dir, "orders.md", strings.Replace(mustRead(t, ordersAgent), "max-turns: 3\n", "max-turns: 3\nmcp: tools.json\n", 1))

	for _, args := range [][]string{
		{"run", "--replay", rec},
		{"run", "--replay", rec, "--json"},
		{"run", agentFile, "--replay", rec},
	} {
		code, out, errOut := ptcIn(t, testEnv(nil, nil), args...)
		if _, err := os.Stat(marker); err == nil {
			t.Fatalf("%v ran the transcript's MCP command", args)
		}
		if code != base.ExitUsage || !strings.Contains(errOut+out, "a replay starts no MCP server unless asked: pass --replay-mcp") {
			t.Errorf("%v: exit %d\nstdout %s\nstderr %s", args, code, out, errOut)
		}
	}
	if code, _, errOut := ptcIn(t, testEnv(nil, nil), "run", agentFile, "--model", "m", "--replay-mcp"); code != base.ExitUsage ||
		!strings.Contains(errOut, "--replay-mcp goes with --replay") {
		t.Errorf("--replay-mcp without --replay: exit %d, %s", code, errOut)
	}
	// Asked for, it connects (the "server" exits at once: the connection
	// fails, after the command ran): with --replay-mcp, or --mcp FILE.
	for _, flag := range [][]string{{"--replay-mcp"}, {"--mcp", filepath.Join(dir, "tools.json")}} {
		os.Remove(marker)
		code, _, errOut := ptcIn(t, testEnv(nil, nil), append([]string{"run", "--replay", rec}, flag...)...)
		if _, err := os.Stat(marker); err != nil || code != base.ExitFail || !strings.Contains(errOut, "connecting to x") {
			t.Errorf("%s: exit %d, marker %v, stderr %s", flag[0], code, err, errOut)
		}
	}
}

// TestReplayReadsNoAgentFiles: a replay of the agent text a transcript
// holds opens no model (whatever its model: says) and reads no file its
// context: names: the recorded context is used.
func TestReplayReadsNoAgentFiles(t *testing.T) {
	dir := t.TempDir()
	rec := editTranscript(t, copyTranscript(t, dir), "run.json", func(tr *transcript.Transcript) {
		tr.Agent.Text = strings.Replace(tr.Agent.Text, "context: orders.json\n",
			"context: /nonexistent/secrets.json\nmodel: openai-compatible:https://evil.example/v1#m\n", 1)
	})
	var refs []string
	code, _, errOut := ptcIn(t, testEnv(nil, &refs), "run", "--replay", rec)
	if code != base.ExitOK || len(refs) > 0 || !strings.Contains(errOut, "replay matches the recording") {
		t.Errorf("exit %d, models opened %q, stderr:\n%s", code, refs, errOut)
	}
}

// copyTranscript copies the testdata's transcript into dir.
func copyTranscript(t *testing.T, dir string) string {
	t.Helper()
	return clitest.WriteFile(t, dir, "orders.transcript.json", mustRead(t, ordersTranscript))
}

// hostileTool answers every call with the hostile text, as a tool (an MCP
// server) from elsewhere could.
func hostileTool() map[string]agent.Tool {
	return map[string]agent.Tool{"echo": agent.Tool{Func: func(context.Context, *lisp.Map) (any, error) {
		return clitest.HostileText(), nil
	}}}
}

// hostileReplies are a model's replies with the hostile text in the
// program, in a reply with no program, in output, a tool's result, an
// error and the value.
func hostileReplies(end string) []llmtest.Reply {
	return []llmtest.Reply{
		llmtest.Text("no program here: " + clitest.HostileText()),
		llmtest.Code("; " + clitest.HostileText() + "\n(def s (tool/echo {:q \"" + "\\u001b]0;arg\\u0007" + "\"}))\n(println s)\n(+ 1 s)"),
		llmtest.Code(end),
	}
}

// TestTerminalEscapesRun: what a model, a tool, a transcript or a trace
// says reaches the terminal escaped, through every printing path of ptc
// run and ptc trace: the progress (program, output, tool calls, values,
// errors), the value, --json, --trace -, ptc trace print, a replay's
// report. On main, the program's text and output went out raw.
func TestTerminalEscapesRun(t *testing.T) {
	dir := t.TempDir()
	agentFile := clitest.WriteFile(t, dir, "a.md", "---\nmax-turns: 4\nlimits:\n  timeout: 5m\n---\nDo it.")
	trace, rec := filepath.Join(dir, "trace.json"), filepath.Join(dir, "run.json")
	run := func(end string, args ...string) (int, string, string) {
		env := testEnv(llmtest.NewScript(hostileReplies(end)...).Func(), nil)
		env.Tools = hostileTool()
		return ptcIn(t, env, append([]string{"run", agentFile, "--model", "m"}, args...)...)
	}
	check := func(what string, code int, out, errOut string) {
		t.Helper()
		clitest.CheckTermSafe(t, what+" stdout", out)
		clitest.CheckTermSafe(t, what+" stderr", errOut)
	}

	code, out, errOut := run("(return (tool/echo {}))", "--trace", trace, "--record", rec)
	check("ptc run", code, out, errOut)
	containsAll(t, "ptc run stderr", errOut,
		`(no program in the reply: no program here: \u001b[2J\u001b[H`, // a reply
		`    ; \u001b[2J\u001b[H | \u001b]0;pwned\u0007`,               // the program
		`  ↳ tool/echo {:q "\u001b]0;arg\u0007"} → "\u001b[2J`,         // a tool call
		"  | \\u001b[2J\\u001b[H | \\u001b]0;pwned\\u0007 | ",          // output
		`\u202etxt.exe`, `\udb40\udc41`,
	)
	if code != base.ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	code, out, errOut = run("(return (tool/echo {}))", "--json", "--trace", "-")
	check("ptc run --json --trace -", code, out, errOut)
	var o transcript.Outcome
	var ret string
	if err := json.Unmarshal([]byte(out), &o); err != nil || json.Unmarshal(o.Return, &ret) != nil ||
		ret != string([]rune(clitest.HostileText())) {
		t.Errorf("--json: %v, the value read back %q", err, ret)
	}
	code, out, errOut = run("(fail (tool/echo {}))")
	check("a failed mission", code, out, errOut)
	if code != base.ExitFail || !strings.Contains(errOut, "fail: ") {
		t.Errorf("a failed mission: exit %d: %s", code, errOut)
	}

	code, out, errOut = ptcIn(t, testEnv(nil, nil), "trace", "print", "--full", trace)
	check("ptc trace print", code, out, errOut)
	if code != base.ExitOK || !strings.Contains(out, `\u001b]52;c;`) {
		t.Errorf("ptc trace print: exit %d:\n%s%s", code, out, errOut)
	}

	// A transcript from elsewhere: its texts, in the replay's messages
	// and report.
	hostileRec := editTranscript(t, rec, "hostile.json", func(tr *transcript.Transcript) {
		tr.Agent.File = "agent" + clitest.HostileText() + ".md"
		tr.Calls[1].Messages[0].Content = clitest.HostileText() + "\n" + clitest.HostileText()
		tr.Outcome.Fail = &transcript.OutcomeFail{Reason: clitest.HostileText(), Message: clitest.HostileText()}
	})
	env := testEnv(nil, nil)
	env.Tools = hostileTool()
	for _, args := range [][]string{{"--replay", hostileRec}, {"--replay", hostileRec, "--json"}, {"--replay", hostileRec, "--trace", "-"}} {
		code, out, errOut = ptcIn(t, env, append([]string{"run"}, args...)...)
		check("ptc run --replay", code, out, errOut)
		if code != base.ExitFail {
			t.Errorf("%v: exit %d: %s", args, code, errOut)
		}
	}
	if !strings.Contains(errOut, `replaying `+hostileRec+`: agent\u001b[2J`) {
		t.Errorf("the replay's header:\n%s", errOut)
	}
	// The names a transcript gives are shown cut to 100 characters.
	header, _, _ := strings.Cut(errOut, "\n")
	if n := utf8.RuneCountInString(strings.TrimPrefix(header, "replaying "+hostileRec)); n > 300 {
		t.Errorf("the replay's header is %d characters: %s", n, header)
	}

	// An agent file's values in its errors.
	bad := clitest.WriteFile(t, dir, "bad.md", "---\nlanguage: "+clitest.HostileTexts()[3]+"\n---\nP")
	code, out, errOut = ptcIn(t, testEnv(nil, nil), "run", bad, "--model", "m")
	check("an agent file error", code, out, errOut)
	if !strings.Contains(errOut, `language: want default or compact (or minimal, the seeds' name for compact), got "\x1b]52;c;`) {
		t.Errorf("agent file error: %s", errOut)
	}
}

// TestTerminalEscapesMCPTools: ptc mcp tools prints what an MCP server
// says of its tools (names, descriptions, parameter names) escaped, each
// on its line, and --json as valid JSON with the same text; how a server
// is reached is shown without what ${NAME} put in its URL. On main, a
// tool's name went out with its ESC, NUL, RTL override and newlines.
func TestTerminalEscapesMCPTools(t *testing.T) {
	srv := mcpsdk.NewServer(&mcpsdk.Implementation{Name: "evil", Version: "v1"}, nil)
	names := []string{"plain", "nl\n  tool/evil.fake (x :int) -> :int", "esc\x1b]0;title\x07", "rtl\u202etxt", "nul\x00"}
	for _, name := range names {
		schema := &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{
			"p" + clitest.HostileTexts()[1]: {Type: "string", Description: clitest.HostileText()},
		}}
		srv.AddTool(&mcpsdk.Tool{Name: name, Description: clitest.HostileText() + "\nsecond line", InputSchema: schema},
			func(context.Context, *mcpsdk.CallToolRequest) (*mcpsdk.CallToolResult, error) {
				return &mcpsdk.CallToolResult{}, nil
			})
	}
	handler := mcpsdk.NewStreamableHTTPHandler(func(*http.Request) *mcpsdk.Server { return srv }, nil)
	hs := httptest.NewServer(handler)
	defer hs.Close()
	cfg := clitest.WriteFile(t, t.TempDir(), "mcp.json", `{"mcpServers": {"evil": {"url": "`+hs.URL+`/mcp?key=${KEY}"}}}`)
	env := testEnv(nil, nil)
	env.Getenv = func(k string) string {
		if k == "KEY" {
			return "s3cr3t"
		}
		return ""
	}

	code, out, errOut := ptcIn(t, env, "mcp", "tools", "--config", cfg)
	clitest.CheckTermSafe(t, "ptc mcp tools stdout", out)
	clitest.CheckTermSafe(t, "ptc mcp tools stderr", errOut)
	if code != base.ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if strings.Contains(out+errOut, "s3cr3t") {
		t.Errorf("the URL's secret is shown:\n%s", out)
	}
	if n := strings.Count(out, "\n  tool/"); n != len(names) {
		t.Errorf("%d tool lines for %d tools:\n%s", n, len(names), out)
	}
	for _, l := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		if !strings.HasPrefix(l, "evil (http: "+hs.URL+"/mcp): ") && !strings.HasPrefix(l, "  tool/evil.") && !strings.HasPrefix(l, "      ") &&
			!regexp.MustCompile(`^  pin: sha256:[0-9a-f]{64}$`).MatchString(l) {
			t.Errorf("a line that is not the listing's: %q", l)
		}
	}
	// The names programs call are the mcp package's (safe); the notes give
	// the server's own.
	containsAll(t, "stdout", out, "\n      note: MCP name nl\\u000a  tool/evil.fake (x :int) -> :int\n",
		`note: MCP name esc\u001b]0;title\u0007`, `note: MCP name rtl\u202etxt`, `note: MCP name nul\u0000`,
		"\n      \\u001b[2J\\u001b[H | ")

	code, out, errOut = ptcIn(t, env, "mcp", "tools", "--config", cfg, "--json")
	clitest.CheckTermSafe(t, "ptc mcp tools --json stdout", out)
	clitest.CheckTermSafe(t, "ptc mcp tools --json stderr", errOut)
	var infos []struct{ Tool, Description string }
	if err := json.Unmarshal([]byte(out), &infos); code != base.ExitOK || err != nil || len(infos) != len(names) {
		t.Fatalf("--json: exit %d, %v: %s", code, err, out)
	}
	for _, info := range infos {
		// (The mcp package cuts long descriptions.)
		if !slices.Contains(names, info.Tool) || !strings.HasPrefix(info.Description, strings.Join(clitest.HostileTexts()[:8], " | ")) {
			t.Errorf("--json read back: %q, %q", info.Tool, info.Description[max(0, len(info.Description)-60):])
		}
	}
}

// TestFileErrorsBounded: a transcript's error, whatever a parser quotes,
// is bounded (an agent file's errors are tested in agent/agentfile).
func TestFileErrorsBounded(t *testing.T) {
	_, err := runcmd.LoadTranscript(clitest.WriteFile(t, t.TempDir(), "t.json", `{"`+strings.Repeat("k", 1000)+`": 1}`))
	if err == nil || utf8.RuneCountInString(err.Error()) > 300+200 {
		t.Errorf("transcript error %d long: %v", len(fmt.Sprint(err)), err)
	}
}

// TestTerminalEscapesConform: ptc conform prints a vector's texts escaped.
func TestTerminalEscapesConform(t *testing.T) {
	id, _ := json.Marshal("v" + clitest.HostileText())
	vectors := clitest.WriteFile(t, t.TempDir(), "v.jsonl", `{"id": `+string(id)+`, "program": "(str \"\\u001b]0;t\\u0007\")", "expect": "2"}`+"\n")
	code, out, errOut := ptc(t, "", "conform", vectors)
	clitest.CheckTermSafe(t, "ptc conform stdout", out)
	clitest.CheckTermSafe(t, "ptc conform stderr", errOut)
	if code != base.ExitFail || !strings.Contains(out, `FAIL v\u001b[2J`) {
		t.Errorf("exit %d, stdout %q", code, out)
	}
}
