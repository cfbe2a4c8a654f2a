package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ptc-go/ptc/agent/trace"
	"github.com/ptc-go/ptc/cmd/ptc/internal/base"
	"github.com/ptc-go/ptc/cmd/ptc/internal/clitest"
	"github.com/ptc-go/ptc/cmd/ptc/internal/runcmd"
	"github.com/ptc-go/ptc/internal/transcript"
	"github.com/ptc-go/ptc/llm"
	"github.com/ptc-go/ptc/llm/llmtest"
)

var update = flag.Bool("update", false, "record testdata/agents/orders.recording.json again")

// testEnv is a base.Env whose every model reference opens f, with no
// environment variables, no build information and no signal handling.
// The references asked for are appended to *refs when refs is not nil.
func testEnv(f llm.Func, refs *[]string) *base.Env {
	return &base.Env{
		Ctx:    context.Background(),
		Getenv: func(string) string { return "" },
		OpenModel: func(_ context.Context, ref string) (llm.Func, error) {
			if refs != nil {
				*refs = append(*refs, ref)
			}
			return f, nil
		},
		BuildInfo: func() (*debug.BuildInfo, bool) { return nil, false },
	}
}

// ptcIn runs the command in env.
func ptcIn(t *testing.T, env *base.Env, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = dispatch(env, args, strings.NewReader(""), &out, &errOut)
	return code, out.String(), errOut.String()
}

const ordersAgent = "testdata/agents/orders.md"

// ordersTranscript is a recording of the orders agent (a ptc-trace);
// ordersLegacy the same mission recorded by an older ptc, in the
// transcript format --replay still reads.
const (
	ordersTranscript = "testdata/agents/orders.recording.json"
	ordersLegacy     = "testdata/agents/orders.legacy-transcript.json"
)

// ordersReplies answer the orders agent: a look at the data, then the
// answer.
func ordersReplies() []llmtest.Reply {
	return []llmtest.Reply{
		llmtest.Code(`(println (count ctx/orders) "orders")
(first ctx/orders)`),
		llmtest.Code(`(let [paid (->> ctx/orders
                (filter (where :customer = ctx/customer))
                (filter (where :status = "paid")))]
  (return {:count (count paid) :total (sum-by :amount paid)}))`),
	}
}

const ordersValue = "{:count 2, :total 130.5}\n"

func containsAll(t *testing.T, what, s string, words ...string) {
	t.Helper()
	for _, w := range words {
		if !strings.Contains(s, w) {
			t.Errorf("%s lacks %q:\n%s", what, w, s)
		}
	}
}

// TestRunProgress runs the orders agent with a scripted model: the value
// on stdout, each turn on stderr as it happens.
func TestRunProgress(t *testing.T) {
	var refs []string
	s := llmtest.NewScript(ordersReplies()...)
	code, out, errOut := ptcIn(t, testEnv(s.Func(), &refs), "run", ordersAgent, "--model", "test:scripted")
	if code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, errOut)
	}
	if out != ordersValue {
		t.Errorf("stdout %q, want %q", out, ordersValue)
	}
	if !slices.Equal(refs, []string{"test:scripted"}) {
		t.Errorf("models opened: %q", refs)
	}
	lines := strings.Split(strings.TrimRight(errOut, "\n"), "\n")
	patterns := []string{
		`^running testdata/agents/orders.md with test:scripted$`,
		`^turn 1/3$`,
		`^    \(println \(count ctx/orders\) "orders"\)$`,
		`^    \(first ctx/orders\)$`,
		`^  \| 4 orders$`,
		`^  → \{"amount" 120\.5, "customer" "acme", "status" "paid"\}$`,
		`^  [\d,]+ tokens so far \([\d,]+ in, [\d,]+ out\) · \S+s$`,
		`^turn 2/3$`,
		`^    \(let \[paid \(->> ctx/orders$`,
		`^                    \(filter \(where :customer = ctx/customer\)\)$`,
		`^                    \(filter \(where :status = "paid"\)\)\)\]$`,
		`^      \(return \{:count \(count paid\) :total \(sum-by :amount paid\)\}\)\)$`,
		`^  ✓ returned \{:count 2, :total 130\.5\}$`,
		`^  [\d,]+ tokens so far .*$`,
		`^returned after 2 turns, 2 LLM requests, [\d,]+ tokens \([\d,]+ in, [\d,]+ out\), \S+s$`,
	}
	if len(lines) != len(patterns) {
		t.Fatalf("stderr has %d lines, want %d:\n%s", len(lines), len(patterns), errOut)
	}
	for i, p := range patterns {
		if !regexp.MustCompile(p).MatchString(lines[i]) {
			t.Errorf("line %d %q does not match %s", i+1, lines[i], p)
		}
	}
}

// TestRunProgressErrors: an error, a reply without a program and a failed
// model call show up as they happen.
func TestRunProgressErrors(t *testing.T) {
	dir := t.TempDir()
	agentPath := clitest.WriteFile(t, dir, "a.md", strings.Replace(mustRead(t, ordersAgent),
		"max-turns: 3", "max-turns: 4\nllm-retry-delay: 1ms\ncontext: "+mustAbs(t, "testdata/agents/orders.json"), 1))
	agentPath = clitest.WriteFile(t, dir, "a.md", strings.Replace(mustRead(t, agentPath), "context: orders.json\n", "", 1))
	s := llmtest.NewScript(
		llmtest.Code(`(+ 1 "a")`),
		llmtest.Code(`(return {:count "two"})`),
		llmtest.Text("I think the answer is 2."),
		llmtest.Fail(&llm.Error{Class: llm.ClassRateLimit, Message: "slow down"}),
		llmtest.Code(`(return {:count 2 :total 130.5})`),
	)
	code, out, errOut := ptcIn(t, testEnv(s.Func(), nil), "run", agentPath, "--model", "m")
	if code != 0 || out != ordersValue {
		t.Fatalf("exit %d, stdout %q, stderr:\n%s", code, out, errOut)
	}
	containsAll(t, "stderr", errOut,
		"turn 1/4\n    (+ 1 \"a\")\n  ✗ 1:1: type_error:",
		"turn 2/4\n    (return {:count \"two\"})\n  ✗ (return ...) rejected: the value does not match the signature: count: expected :int",
		"turn 3/4\n  (no program in the reply: I think the answer is 2.)\n  ✗ Your reply contains no program.",
		"turn 4/4\n  ! the model call failed: llm: rate_limit: slow down\n  rate limited: retrying in ",
		"\n  retrying the model call (attempt 2)\n    (return",
		"  ✓ returned {:count 2, :total 130.5}",
		"returned after 4 turns, 5 LLM requests")
	// The wait is the 1 ms delay, jittered by ±20%.
	if !regexp.MustCompile(`rate limited: retrying in (\d+µs|1ms|1\.\d+ms)\n`).MatchString(errOut) {
		t.Errorf("the wait is not announced as about 1ms:\n%s", errOut)
	}
}

func TestRunQuiet(t *testing.T) {
	s := llmtest.NewScript(ordersReplies()...)
	code, out, errOut := ptcIn(t, testEnv(s.Func(), nil), "run", "--quiet", ordersAgent, "--model", "m")
	if code != 0 || out != ordersValue || errOut != "" {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

// TestRunJSON checks the shape of --json: one object on stdout, the
// progress on stderr.
func TestRunJSON(t *testing.T) {
	tests := []struct {
		name    string
		replies []llmtest.Reply
		code    int
		ret     string // JSON of return
		reason  string // fail.reason
	}{
		{"returned", ordersReplies(), 0, `{"count":2,"total":130.5}`, ""},
		{"failed by the program", []llmtest.Reply{llmtest.Code(`(fail {:reason :no_orders :message "none paid"})`)}, 1, "null", "no_orders"},
		{"out of turns", []llmtest.Reply{llmtest.Code("1"), llmtest.Code("2"), llmtest.Code("3")}, 1, "null", "max_turns_exceeded"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := llmtest.NewScript(tt.replies...)
			code, out, errOut := ptcIn(t, testEnv(s.Func(), nil), "run", ordersAgent, "--model", "m", "--json")
			if code != tt.code {
				t.Errorf("exit %d, want %d (stderr:\n%s)", code, tt.code, errOut)
			}
			if strings.Count(out, "\n") != 1 {
				t.Errorf("stdout is not one line: %q", out)
			}
			if !strings.Contains(errOut, "turn 1/3") {
				t.Errorf("no progress on stderr:\n%s", errOut)
			}
			var m map[string]json.RawMessage
			if err := json.Unmarshal([]byte(out), &m); err != nil {
				t.Fatalf("stdout %q: %v", out, err)
			}
			var keys []string
			for k := range m {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			if want := []string{"fail", "ok", "return", "trace_id", "usage"}; !slices.Equal(keys, want) {
				t.Errorf("keys %q, want %q", keys, want)
			}
			if string(m["ok"]) != map[bool]string{true: "true", false: "false"}[tt.code == 0] {
				t.Errorf("ok %s", m["ok"])
			}
			if string(m["return"]) != tt.ret {
				t.Errorf("return %s, want %s", m["return"], tt.ret)
			}
			var fail *transcript.OutcomeFail
			_ = json.Unmarshal(m["fail"], &fail)
			switch {
			case tt.reason == "" && fail != nil:
				t.Errorf("fail %s, want null", m["fail"])
			case tt.reason != "" && (fail == nil || fail.Reason != tt.reason || fail.Message == ""):
				t.Errorf("fail %s, want reason %s and a message", m["fail"], tt.reason)
			}
			var usage map[string]any
			_ = json.Unmarshal(m["usage"], &usage)
			for _, k := range []string{"turns", "llm_requests", "tokens", "duration_ms"} {
				if _, ok := usage[k]; !ok {
					t.Errorf("usage lacks %s: %s", k, m["usage"])
				}
			}
			if usage["turns"] != float64(len(tt.replies)) {
				t.Errorf("usage.turns %v, want %d", usage["turns"], len(tt.replies))
			}
			if !regexp.MustCompile(`^"[0-9a-f]{32}"$`).Match(m["trace_id"]) {
				t.Errorf("trace_id %s", m["trace_id"])
			}
		})
	}
}

// TestRunExitCodes covers the failures and the usage errors.
func TestRunExitCodes(t *testing.T) {
	dir := t.TempDir()
	bad := clitest.WriteFile(t, dir, "bad.md", "---\nmax-turn: 2\n---\nP")
	noInput := clitest.WriteFile(t, dir, "input.md", "---\nsignature: (n :int) -> :int\n---\nDouble {{n}}.")
	cut := clitest.WriteFile(t, dir, "cut.json", "{\"orders\": [\n  {\"customer\": ")
	ok := func() llm.Func { return llmtest.NewScript(ordersReplies()...).Func() }
	tests := []struct {
		name     string
		env      *base.Env
		args     []string
		code     int
		errWords []string
	}{
		{"program fail", testEnv(llmtest.NewScript(llmtest.Code(`(fail {:reason :nope :message "no"})`)).Func(), nil),
			[]string{ordersAgent, "--model", "m"}, 1, []string{"fail: nope: no"}},
		{"no return in time", testEnv(llmtest.NewScript(llmtest.Code("1"), llmtest.Code("2"), llmtest.Code("3")).Func(), nil),
			[]string{ordersAgent, "--model", "m"}, 1, []string{"fail: max_turns_exceeded"}},
		{"the model fails", testEnv(llmtest.NewScript(llmtest.Fail(&llm.Error{Class: llm.ClassAuth, Message: "bad key"})).Func(), nil),
			[]string{ordersAgent, "--model", "m"}, 1, []string{"fail: llm_error", "bad key", "hint: the provider refused the API key"}},
		{"no agent file", testEnv(ok(), nil), nil, 2, []string{"(ptc run -h for help)"}},
		{"two agent files", testEnv(ok(), nil), []string{ordersAgent, ordersAgent, "--model", "m"}, 2, []string{"(ptc run -h for help)"}},
		{"missing agent file", testEnv(ok(), nil), []string{filepath.Join(dir, "nope.md"), "--model", "m"}, 2, []string{"nope.md"}},
		{"bad agent file", testEnv(ok(), nil), []string{bad, "--model", "m"}, 2, []string{"bad.md:2:1: unknown key \"max-turn\""}},
		{"no model", testEnv(ok(), nil), []string{ordersAgent}, 2, []string{"no model: pass --model REF", "PTC_MODEL"}},
		{"the model does not open", &base.Env{Ctx: context.Background(), Getenv: func(string) string { return "" },
			OpenModel: base.OpenModel, BuildInfo: debug.ReadBuildInfo}, []string{ordersAgent, "--model", "nope:x"}, 2, []string{"ptc run: ", "nope"}},
		{"no input", testEnv(ok(), nil), []string{noInput, "--model", "m"}, 2, []string{"the context does not give the agent its input", "n", "--set NAME=VALUE"}},
		{"--record and --replay", testEnv(ok(), nil), []string{ordersAgent, "--record", "a", "--replay", "b"}, 2, []string{"do not go together"}},
		{"--record into no directory", testEnv(ok(), nil), []string{ordersAgent, "--model", "m", "--record", filepath.Join(dir, "no", "t.json")}, 2, []string{"no directory"}},
		{"--replay and --model", testEnv(ok(), nil), []string{ordersAgent, "--model", "m", "--replay", ordersTranscript}, 2, []string{"takes no --model"}},
		{"missing transcript", testEnv(ok(), nil), []string{"--replay", filepath.Join(dir, "none.json")}, 2, []string{"none.json"}},
		{"bad --set", testEnv(ok(), nil), []string{ordersAgent, "--model", "m", "--set", "novalue"}, 2, []string{"want NAME=VALUE"}},
		{"cut context", testEnv(ok(), nil), []string{ordersAgent, "--model", "m", "-c", cut}, 2, []string{"cut.json:2:16 (byte 28): parse_error: unexpected end of JSON input"}},
		{"bad limit flag", testEnv(ok(), nil), []string{ordersAgent, "--model", "m", "--timeout", "5"}, 2, []string{"no unit"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := ptcIn(t, tt.env, append([]string{"run"}, tt.args...)...)
			if code != tt.code {
				t.Errorf("exit %d, want %d (stderr:\n%s)", code, tt.code, errOut)
			}
			if tt.code != 0 && out != "" {
				t.Errorf("stdout %q", out)
			}
			containsAll(t, "stderr", errOut, tt.errWords...)
		})
	}
}

// TestRunModelReference: --model, then the agent file's model:, then
// $PTC_MODEL.
func TestRunModelReference(t *testing.T) {
	dir := t.TempDir()
	withModel := clitest.WriteFile(t, dir, "m.md", "---\nmodel: file:model\nmax-turns: 1\n---\nSay 1.")
	noModel := clitest.WriteFile(t, dir, "n.md", "---\nmax-turns: 1\n---\nSay 1.")
	tests := []struct {
		args []string
		env  string
		want string
	}{
		{[]string{withModel, "--model", "flag:model"}, "env:model", "flag:model"},
		{[]string{withModel}, "env:model", "file:model"},
		{[]string{noModel}, "env:model", "env:model"},
	}
	for _, tt := range tests {
		var refs []string
		env := testEnv(llmtest.NewScript(llmtest.Code("1")).Func(), &refs)
		env.Getenv = func(k string) string {
			if k == "PTC_MODEL" {
				return tt.env
			}
			return ""
		}
		code, out, errOut := ptcIn(t, env, append([]string{"run", "-q"}, tt.args...)...)
		if code != 0 || out != "1\n" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", tt.args, code, out, errOut)
		}
		if !slices.Equal(refs, []string{tt.want}) {
			t.Errorf("%v: opened %q, want %s", tt.args, refs, tt.want)
		}
	}
}

// TestRunContext: the agent file's context, -c over it, --set over both;
// the limits flags over the file's.
func TestRunContext(t *testing.T) {
	dir := t.TempDir()
	agentPath := clitest.WriteFile(t, dir, "a.md", "---\nmax-turns: 1\ncontext: {\"a\": 1, \"b\": 2, \"c\": 3}\nlimits:\n  max-steps: 10\n---\nGo.")
	over := clitest.WriteFile(t, dir, "over.edn", `{:b 20 :d 40}`)
	s := llmtest.NewScript(llmtest.Code(`[ctx/a ctx/b ctx/c ctx/d ctx/e ctx/f]`))
	code, out, errOut := ptcIn(t, testEnv(s.Func(), nil), "run", "-q", agentPath, "--model", "m", "-c", over,
		"--set", "c=[3,30]", "--set", "e=hello world", "--set", `f="7"`, "--max-steps", "100000")
	if code != 0 {
		t.Fatalf("exit %d, stderr %s", code, errOut)
	}
	if want := `[1 20 [3 30] 40 "hello world" "7"]` + "\n"; out != want {
		t.Errorf("stdout %q, want %q", out, want)
	}
	// The file's max-steps of 10 would have stopped the program.
	s = llmtest.NewScript(llmtest.Code(`(reduce + (range 100000))`))
	code, _, errOut = ptcIn(t, testEnv(s.Func(), nil), "run", "-q", agentPath, "--model", "m")
	if code != 1 || !strings.Contains(errOut, "step_limit_exceeded") {
		t.Errorf("with the file's limits: exit %d, stderr %q", code, errOut)
	}
}

func TestRunTrace(t *testing.T) {
	s := llmtest.NewScript(ordersReplies()...)
	code, out, errOut := ptcIn(t, testEnv(s.Func(), nil), "run", "-q", "--trace", "-", ordersAgent, "--model", "m")
	if code != 0 || out != ordersValue {
		t.Fatalf("exit %d, stdout %q", code, out)
	}
	containsAll(t, "stderr", errOut, "┌─ Turn 1", "┌─ Turn 2", "Returned: {:count 2, :total 130.5}")
}

// TestRunTraceFile: --trace FILE writes the JSON trace, which ptc trace
// print shows as --trace - does; it overwrites an earlier trace, and
// refuses to overwrite any other file (the agent file, when --trace took
// its name for its value).
func TestRunTraceFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "orders.trace.json")
	for range 2 { // the second run overwrites the first's trace
		s := llmtest.NewScript(ordersReplies()...)
		code, out, errOut := ptcIn(t, testEnv(s.Func(), nil), "run", ordersAgent, "--model", "m", "--trace", path)
		if code != 0 || out != ordersValue {
			t.Fatalf("exit %d, stdout %q, stderr %s", code, out, errOut)
		}
		containsAll(t, "stderr", errOut, "trace saved to "+path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(data, []byte("{\n  \"format\": \"ptc-trace\",\n  \"version\": 1,")) {
		t.Errorf("the trace file starts with %q", data[:min(len(data), 60)])
	}
	code, out, errOut := ptcIn(t, testEnv(nil, nil), "trace", "print", path)
	if code != 0 {
		t.Fatalf("ptc trace print: exit %d, %s", code, errOut)
	}
	containsAll(t, "ptc trace print", out, "┌─ Turn 1", "┌─ Turn 2", "Returned: {:count 2, :total 130.5}", "2 turns, 2 LLM requests")

	agentFile := filepath.Join(dir, "agent.md")
	text, err := os.ReadFile(ordersAgent)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(agentFile, text, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"run", "--trace", agentFile, "--model", "m"},                         // --trace took the agent file
		{"run", ordersAgent, "--model", "m", "--trace", agentFile},            // an existing file
		{"run", ordersAgent, "--model", "m", "--trace", dir + "/none/t.json"}, // no directory
	} {
		s := llmtest.NewScript(ordersReplies()...)
		code, _, errOut := ptcIn(t, testEnv(s.Func(), nil), args...)
		if code != base.ExitUsage || s.Calls() != 0 {
			t.Errorf("%v: exit %d, %d LLM calls, stderr %s", args, code, s.Calls(), errOut)
		}
	}
	if after, _ := os.ReadFile(agentFile); !bytes.Equal(after, text) {
		t.Error("the agent file was overwritten")
	}
}

// TestRunTestdata replays the committed recordings of the orders agent
// (a ptc-trace, and an old transcript), with the agent file and with the
// agent the recording holds; -update records the ptc-trace again.
func TestRunTestdata(t *testing.T) {
	if *update {
		s := llmtest.NewScript(ordersReplies()...)
		code, _, errOut := ptcIn(t, testEnv(s.Func(), nil), "run", ordersAgent, "--model", "script:orders", "--record", ordersTranscript)
		if code != 0 {
			t.Fatalf("recording: exit %d, stderr:\n%s", code, errOut)
		}
	}
	for _, args := range [][]string{{ordersAgent, "--replay", ordersTranscript}, {"--replay", ordersTranscript},
		{ordersAgent, "--replay", ordersLegacy}, {"--replay", ordersLegacy}} {
		code, out, errOut := ptcIn(t, testEnv(nil, nil), append([]string{"run"}, args...)...)
		if code != 0 || out != ordersValue {
			t.Errorf("%v: exit %d, stdout %q, stderr:\n%s", args, code, out, errOut)
		}
		containsAll(t, "stderr", errOut, "replaying "+args[len(args)-1], "recorded with script:orders (2 LLM calls)",
			"turn 2/3", "replay matches the recording (2 LLM calls)")
	}
}

// record runs the orders agent with a scripted model and --record, and
// returns the transcript's path.
func record(t *testing.T, dir string, replies []llmtest.Reply, extra ...string) string {
	t.Helper()
	path := filepath.Join(dir, "orders.transcript.json")
	s := llmtest.NewScript(replies...)
	args := append([]string{"run", ordersAgent, "--model", "script:orders", "--record", path}, extra...)
	code, _, errOut := ptcIn(t, testEnv(s.Func(), nil), args...)
	if !strings.Contains(errOut, "transcript saved to "+path) {
		t.Fatalf("recording: exit %d, stderr:\n%s", code, errOut)
	}
	return path
}

// TestRunRecordReplay records a mission and replays it: the same value,
// and every request the same.
func TestRunRecordReplay(t *testing.T) {
	dir := t.TempDir()
	path := record(t, dir, ordersReplies(), "--set", "customer=globex")
	tr, err := runcmd.LoadTranscript(path)
	if err != nil {
		t.Fatal(err)
	}
	if tr.Format != runcmd.TranscriptFormat || tr.Version != 1 || tr.Model != "script:orders" || tr.Agent.File != "orders.md" ||
		len(tr.Agent.SHA256) != 64 || !strings.Contains(tr.Agent.Text, "Totals the paid orders") || tr.System == "" {
		t.Errorf("transcript header: %+v", tr)
	}
	// JSON cannot tell 80.0 from 80: the exact form is kept too.
	if !strings.Contains(string(tr.Context), `"customer": "globex"`) || !strings.Contains(tr.ContextEDN, `{"amount" 80.0, "customer" "globex"`) {
		t.Errorf("context %s, context_edn %q", tr.Context, tr.ContextEDN)
	}
	if len(tr.Calls) != 2 || len(tr.Calls[0].Messages) != 1 || len(tr.Calls[1].Messages) != 3 ||
		tr.Calls[1].Turn != 2 || !strings.Contains(tr.Calls[0].Messages[0].Content, "globex") ||
		!strings.HasPrefix(tr.Calls[1].Messages[2].Content, "Value: ") || tr.Calls[0].Reply.Tokens.Input == 0 {
		t.Errorf("calls: %+v", tr.Calls)
	}
	o := tr.Outcome
	if o == nil || !o.OK || o.ReturnEDN != "{:count 1, :total 80.0}" || len(o.Turns) != 2 ||
		o.Turns[0].Output[0] != "4 orders" || o.Turns[1].Program == "" {
		t.Errorf("outcome: %+v", o)
	}

	code, out, errOut := ptcIn(t, testEnv(nil, nil), "run", "--replay", path, ordersAgent, "--json")
	if code != 0 {
		t.Fatalf("replay: exit %d, stderr:\n%s", code, errOut)
	}
	var got struct {
		transcript.Outcome
		Replay runcmd.ReplayJSON `json:"replay"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	if !got.Replay.Matches || string(got.Return) != `{"count":1,"total":80.0}` && string(got.Return) != `{"count":1,"total":80}` {
		t.Errorf("replay outcome %s", out)
	}
	if got.Usage.Tokens != o.Usage.Tokens {
		t.Errorf("replayed tokens %+v, recorded %+v", got.Usage.Tokens, o.Usage.Tokens)
	}
}

// TestRunRecordEDNContext: a context JSON cannot hold exactly (keywords)
// is kept in its PTC-Lisp form too, and replays as it was.
func TestRunRecordEDNContext(t *testing.T) {
	dir := t.TempDir()
	agentPath := clitest.WriteFile(t, dir, "k.md", "---\nmax-turns: 1\ncontext: {:tag :urgent :n 2.0}\n---\nGo.")
	path := filepath.Join(dir, "k.json")
	s := llmtest.NewScript(llmtest.Code(`[ctx/tag (keyword? ctx/tag) ctx/n]`))
	code, out, errOut := ptcIn(t, testEnv(s.Func(), nil), "run", "-q", agentPath, "--model", "m", "--record", path)
	if code != 0 || out != "[:urgent true 2.0]\n" {
		t.Fatalf("exit %d, stdout %q, stderr %s", code, out, errOut)
	}
	tr, err := runcmd.LoadTranscript(path)
	if err != nil {
		t.Fatal(err)
	}
	if tr.ContextEDN != "{:n 2.0, :tag :urgent}" {
		t.Errorf("context_edn %q", tr.ContextEDN)
	}
	code, out, errOut = ptcIn(t, testEnv(nil, nil), "run", "-q", "--replay", path)
	if code != 0 || out != "[:urgent true 2.0]\n" {
		t.Errorf("replay: exit %d, stdout %q, stderr %s", code, out, errOut)
	}
}

// editTranscript loads a transcript, lets edit change it and saves it
// under a new name.
func editTranscript(t *testing.T, path, name string, edit func(*transcript.Transcript)) string {
	t.Helper()
	tr, err := runcmd.LoadTranscript(path)
	if err != nil {
		t.Fatal(err)
	}
	edit(tr)
	out := filepath.Join(filepath.Dir(path), name)
	doc, err := transcriptDocument(tr)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(out, doc, 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestRunReplayMismatch: a replay that departs from its recording says
// where first, what was expected and what came, and exits with 1.
func TestRunReplayMismatch(t *testing.T) {
	dir := t.TempDir()
	path := record(t, dir, ordersReplies())
	changedPrompt := clitest.WriteFile(t, dir, "orders.md", strings.Replace(mustRead(t, ordersAgent),
		"context: orders.json", "context: "+mustAbs(t, "testdata/agents/orders.json"), 1))
	changedPrompt = clitest.WriteFile(t, dir, "changed.md", strings.Replace(mustRead(t, changedPrompt),
		"what is their total amount?", "what do they add up to?", 1))

	feedback := editTranscript(t, path, "feedback.json", func(tr *transcript.Transcript) {
		// As if the interpreter had printed the first turn's value otherwise.
		m := &tr.Calls[1].Messages[2]
		m.Content = strings.Replace(m.Content, `"amount" 120.5`, `"amount" 120.50`, 1)
	})
	outcome := editTranscript(t, path, "outcome.json", func(tr *transcript.Transcript) {
		tr.Outcome.ReturnEDN = "{:count 2, :total 999.0}"
	})
	fewer := editTranscript(t, path, "fewer.json", func(tr *transcript.Transcript) {
		tr.Calls = tr.Calls[:1]
	})
	more := editTranscript(t, path, "more.json", func(tr *transcript.Transcript) {
		tr.Calls = append(tr.Calls, tr.Calls[1])
	})
	reply := editTranscript(t, path, "reply.json", func(tr *transcript.Transcript) {
		// The model "answered" differently: the program now fails.
		tr.Calls[0].Reply.Content = "```clojure\n(first ctx/orderz)\n```"
	})

	tests := []struct {
		name  string
		args  []string
		words []string
	}{
		{"the prompt changed", []string{changedPrompt, "--replay", path}, []string{
			"replay mismatch: turn 1 (LLM call 1), message 1, the mission prompt",
			"  expected: How many paid orders does acme have in ctx/orders, and what is their total amount? …",
			"  got:      How many paid orders does acme have in ctx/orders, and what do they add up to? …",
			"  - How many paid orders does acme have in ctx/orders, and what is their total amount?",
			"  + How many paid orders does acme have in ctx/orders, and what do they add up to?",
			"  (first difference: line 1, column 61)",
		}},
		{"the feedback changed", []string{ordersAgent, "--replay", feedback}, []string{
			"replay mismatch: turn 2 (LLM call 2), message 3, the feedback on turn 1",
			`  - Value: {"amount" 120.50, "customer" "acme", "status" "paid"}`,
			`  + Value: {"amount" 120.5, "customer" "acme", "status" "paid"}`,
			"(first difference: line 1, column 23)",
		}},
		{"the context changed", []string{ordersAgent, "--replay", path, "--set", "customer=initech"}, []string{
			"replay mismatch: turn 1 (LLM call 1), message 1, the mission prompt",
			"  - How many paid orders does acme have",
			"  + How many paid orders does initech have",
		}},
		{"the outcome changed", []string{ordersAgent, "--replay", outcome}, []string{
			"replay mismatch: the outcome",
			"  expected: returned {:count 2, :total 999.0}",
			"  got:      returned {:count 2, :total 130.5}",
		}},
		{"a call more than recorded", []string{ordersAgent, "--replay", fewer}, []string{
			"replay mismatch: turn 2 (LLM call 2), an LLM call the recording does not have",
			"  expected: the mission to end after 1 LLM call",
		}},
		{"a call less than recorded", []string{ordersAgent, "--replay", more}, []string{
			"replay mismatch: LLM call 3, the end of the mission",
			"  expected: 3 LLM calls (the recording has 1 more)",
			"  got:      2 LLM calls, then returned {:count 2, :total 130.5}",
		}},
		{"an edited reply", []string{ordersAgent, "--replay", reply}, []string{
			"replay mismatch: turn 2 (LLM call 2), message 2, the model's reply on turn 1",
			"  + (first ctx/orderz)",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := ptcIn(t, testEnv(nil, nil), append([]string{"run"}, tt.args...)...)
			if code != 1 {
				t.Errorf("exit %d, want 1", code)
			}
			_ = out
			containsAll(t, "stderr", errOut, tt.words...)
			if strings.Contains(errOut, "replay matches") {
				t.Errorf("stderr says the replay matches:\n%s", errOut)
			}
		})
	}

	t.Run("--json", func(t *testing.T) {
		code, out, _ := ptcIn(t, testEnv(nil, nil), "run", ordersAgent, "--replay", feedback, "--json", "-q")
		if code != 1 {
			t.Errorf("exit %d", code)
		}
		var got struct {
			Fail   *transcript.OutcomeFail `json:"fail"`
			Replay runcmd.ReplayJSON       `json:"replay"`
		}
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("%q: %v", out, err)
		}
		mm := got.Replay.Mismatch
		if got.Replay.Matches || mm == nil || mm.Call != 2 || mm.Turn != 2 || mm.What != "message 3, the feedback on turn 1" ||
			!strings.HasPrefix(mm.Got, "Value: ") || mm.Diff == "" {
			t.Errorf("replay %+v", got.Replay)
		}
		if got.Fail == nil || got.Fail.Reason != "replay_mismatch" {
			t.Errorf("fail %+v", got.Fail)
		}
	})
}

// TestRunReplaySystemPrompt: a system prompt that changed is a note, not
// a mismatch: the conversation is what a replay checks.
func TestRunReplaySystemPrompt(t *testing.T) {
	dir := t.TempDir()
	path := record(t, dir, ordersReplies())
	sys := editTranscript(t, path, "sys.json", func(tr *transcript.Transcript) {
		tr.System = strings.Replace(tr.System, "PTC-Lisp", "PTC Lisp", 1)
	})
	code, out, errOut := ptcIn(t, testEnv(nil, nil), "run", ordersAgent, "--replay", sys)
	if code != 0 || out != ordersValue {
		t.Errorf("exit %d, stdout %q", code, out)
	}
	containsAll(t, "stderr", errOut, "note: the system prompt differs from the recorded one (line", "replay matches the recording")
}

// TestRunReplayRetries: recorded failures replay as failures of their
// class, retried as they were, without the waits.
func TestRunReplayRetries(t *testing.T) {
	dir := t.TempDir()
	path := record(t, dir, ordersReplies())
	failed := editTranscript(t, path, "failed.json", func(tr *transcript.Transcript) {
		c := tr.Calls[0]
		c.Reply = trace.LLMReply{Error: "overloaded", Class: llm.ClassServerError}
		c.Status = 503
		tr.Calls = append([]trace.LLMCall{c}, tr.Calls...)
	})
	// The agent waits at least 24 s before a retry (10 minutes, capped at
	// the default MaxDelay of 30 s, jittered by 20%): a replay that waited
	// would take that long, past the bound below, which leaves a busy
	// machine 2,000 times the replay's usual 10 ms.
	patient := clitest.WriteFile(t, dir, "orders.md", strings.Replace(strings.Replace(mustRead(t, ordersAgent),
		"context: orders.json", "context: "+mustAbs(t, "testdata/agents/orders.json"), 1),
		"max-turns: 3\n", "max-turns: 3\nllm-retry-delay: 10m\n", 1))
	start := time.Now()
	code, out, errOut := ptcIn(t, testEnv(nil, nil), "run", patient, "--replay", failed)
	if code != 0 || out != ordersValue {
		t.Errorf("exit %d, stdout %q, stderr:\n%s", code, out, errOut)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("the replay took %v: it waited before retrying", d)
	}
	containsAll(t, "stderr", errOut, "! the model call failed: llm: server_error (HTTP 503): overloaded", "retrying the model call (attempt 2)",
		"replay matches the recording (3 LLM calls)")
}

// TestRunInterrupt: cancelling the run's context (what Ctrl-C does) ends
// the mission cleanly: what happened is printed, the transcript saved,
// and the exit status is 130. Its replay stops where it stopped.
func TestRunInterrupt(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "cut.json")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	first := ordersReplies()[0].Content
	model := func(c context.Context, req llm.Request) (llm.Response, error) {
		if req.Turn == 1 {
			return llm.Response{Content: first, Tokens: llm.Tokens{Input: 100, Output: 10}}, nil
		}
		cancel() // Ctrl-C while the model thinks
		<-c.Done()
		return llm.Response{}, c.Err()
	}
	env := testEnv(model, nil)
	env.Ctx = ctx
	code, out, errOut := ptcIn(t, env, "run", ordersAgent, "--model", "m", "--record", path)
	if code != base.ExitInterrupted || out != "" {
		t.Errorf("exit %d, stdout %q", code, out)
	}
	containsAll(t, "stderr", errOut, "turn 1/3", "  → {", "turn 2/3", "failed after 2 turns",
		"transcript saved to "+path, "interrupted: the mission was cancelled after 2 turns")
	tr, err := runcmd.LoadTranscript(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Calls) != 2 || !tr.Calls[1].Interrupted || tr.Outcome.Fail == nil || tr.Outcome.Fail.Reason != "cancelled" {
		t.Errorf("calls %+v, outcome %+v", tr.Calls, tr.Outcome)
	}

	code, _, errOut = ptcIn(t, testEnv(nil, nil), "run", ordersAgent, "--replay", path, "--json")
	if code != 1 || !strings.Contains(errOut, "replay matches the recording (2 LLM calls)") {
		t.Errorf("replay: exit %d, stderr:\n%s", code, errOut)
	}
}

// TestRunInterruptSignal sends the process a real SIGINT during a turn.
func TestRunInterruptSignal(t *testing.T) {
	if os.Getenv("PTC_TEST_NO_SIGNALS") != "" {
		t.Skip("PTC_TEST_NO_SIGNALS is set")
	}
	started := make(chan struct{})
	var once sync.Once
	model := func(c context.Context, req llm.Request) (llm.Response, error) {
		once.Do(func() { close(started) })
		<-c.Done()
		return llm.Response{}, c.Err()
	}
	env := testEnv(model, nil)
	env.Interrupts = true
	go func() {
		<-started
		p, _ := os.FindProcess(os.Getpid())
		_ = p.Signal(os.Interrupt)
	}()
	code, _, errOut := ptcIn(t, env, "run", ordersAgent, "--model", "m")
	if code != base.ExitInterrupted {
		t.Errorf("exit %d, stderr:\n%s", code, errOut)
	}
	containsAll(t, "stderr", errOut, "interrupted: cancelling the mission (Ctrl-C again to quit at once)",
		"interrupted: the mission was cancelled after 1 turn")
}

func mustRead(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func mustAbs(t *testing.T, path string) string {
	t.Helper()
	p, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// --events streams the mission's events as JSON Lines, each naming the
// agent after its file.
func TestRunEvents(t *testing.T) {
	path := filepath.Join(t.TempDir(), "events.jsonl")
	s := llmtest.NewScript(ordersReplies()...)
	code, out, errOut := ptcIn(t, testEnv(s.Func(), nil), "run", ordersAgent, "--model", "m", "-q", "--events", path)
	if code != 0 || out != ordersValue {
		t.Fatalf("exit %d, stdout %q, stderr %s", code, out, errOut)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var e struct{ Kind, Agent string }
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		kinds = append(kinds, e.Kind)
		if e.Agent != "orders" {
			t.Errorf("event %s of agent %q, want orders (the agent file's name)", e.Kind, e.Agent)
		}
	}
	want := "run.start turn.start llm.start llm.stop turn.stop turn.start llm.start llm.stop turn.stop run.stop"
	if got := strings.Join(kinds, " "); got != want {
		t.Errorf("events %s\nwant   %s", got, want)
	}
	if code, _, errOut := ptcIn(t, testEnv(s.Func(), nil), "run", ordersAgent, "--model", "m", "--events", filepath.Join(t.TempDir(), "no", "dir.jsonl")); code != base.ExitUsage || !strings.Contains(errOut, "--events") {
		t.Errorf("an unwritable --events: exit %d, %s", code, errOut)
	}
}
