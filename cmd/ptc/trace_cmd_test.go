package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/agent/trace"
	"github.com/ptc-go/ptc/cmd/ptc/internal/base"
	"github.com/ptc-go/ptc/cmd/ptc/internal/tracecmd"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm"
	"github.com/ptc-go/ptc/llm/llmtest"
)

// traceSecret is the firewalled value of the test mission's tool.
const traceSecret = "s3cr3t-tr4ce-value"

// traceHostile is a value that would break out of the page's data element
// if it were embedded as it is.
const traceHostile = `</script><script>alert(1)</script><!-- <img src=x onerror=alert(2)>`

func traceReply(program string) llmtest.Reply {
	r := llmtest.Code(program)
	r.Tokens = llm.Tokens{Input: 120, Output: 30}
	return r
}

// traceThink is the test mission's reply without a program: it quotes
// the secret (a reply may quote a tool's result), which every view of a
// redacted trace hides.
const traceThink = "The note is in.\nIts secret, " + traceSecret + ", is not for me: I will square the numbers."

// traceTestStep runs a mission of four turns: a tool call whose result
// holds a secret and a hostile text, a reply without a program, an error,
// and a return that calls an agent tool twice through pmap.
func traceTestStep(t *testing.T) *agent.Step {
	t.Helper()
	child := agent.MustNew(agent.Config{Prompt: "Square {{n}}", Signature: "(n :int) -> :int", Description: "Squares n."})
	childModel := llmtest.NewScript(traceReply(";; square it\n(return (* ctx/n ctx/n))"), traceReply(";; square it\n(return (* ctx/n ctx/n))"))
	square, err := child.AsTool(agent.AsToolOptions{LLM: childModel.Func()})
	if err != nil {
		t.Fatal(err)
	}
	lookup := agent.Tool{Description: "Looks a note up.", Func: func(context.Context, *lisp.Map) (any, error) {
		time.Sleep(2 * time.Millisecond) // a bar wide enough to see
		return map[string]any{"title": traceHostile, "_secret": traceSecret}, nil
	}}
	// The first turn's LLM call fails once and is retried: the trace
	// shows the failed attempt.
	root := agent.MustNew(agent.Config{Prompt: "Look the note up and square 2 and 3", MaxTurns: 5,
		Tools:    map[string]agent.Tool{"lookup": lookup, "square": square},
		LLMRetry: llm.RetryPolicy{MaxAttempts: 2, BaseDelay: time.Millisecond}})
	model := llmtest.NewScript(
		llmtest.Fail(&llm.Error{Class: llm.ClassServerError, Message: "the provider is overloaded"}),
		traceReply("(println \"looking up\")\n(def note (tool/lookup {:id 7}))\n(:title note)"),
		llmtest.Reply{Content: traceThink, Tokens: llm.Tokens{Input: 130, Output: 25}},
		traceReply(`(+ 1 nil)`),
		traceReply(`(return {:title (:title note) :squares (pmap #(tool/square {:n %}) [2 3]) :n 2.5})`),
	)
	step, err := root.Run(context.Background(), agent.Options{LLM: model.Func()})
	if err != nil {
		t.Fatalf("the mission failed: %v", err)
	}
	return step
}

// writeTestTrace writes the test mission's trace to dir/trace.json.
func writeTestTrace(t *testing.T, dir string) (string, *agent.Step) {
	t.Helper()
	step := traceTestStep(t)
	path := filepath.Join(dir, "trace.json")
	if err := tracecmd.WriteTraceFile(path, step, false); err != nil {
		t.Fatal(err)
	}
	return path, step
}

// TestTracePrint: ptc trace print prints the trace file as trace.Print
// prints the Step it holds, secrets hidden.
func TestTracePrint(t *testing.T) {
	path, _ := writeTestTrace(t, t.TempDir())
	code, out, errOut := ptcIn(t, testEnv(nil, nil), "trace", "print", path)
	if code != 0 {
		t.Fatalf("exit %d, stderr %s", code, errOut)
	}
	containsAll(t, "stdout", out, "┌─ Turn 1", "┌─ Turn 4", "→ lookup {:id 7}", "→ square {:n 2}", "→ square {:n 3}",
		"Error: 1:1: type_error", "Output:\n│   looking up", "Returned: {:n 2.5, :squares [4 9]", "with nested agents: 6 turns",
		"LLM attempt 1 failed (server_error): ", "the provider is overloaded; retried after ")
	if strings.Contains(out, traceSecret) {
		t.Errorf("the printed trace holds the secret:\n%s", out)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	step, err := trace.Unmarshal(data)
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	_ = trace.Print(&want, step, trace.Options{NoTimings: true, Full: true})
	_, out, _ = ptcIn(t, testEnv(nil, nil), "trace", "print", "--no-timings", "--full", path)
	if out != want.String() {
		t.Errorf("ptc trace print --no-timings --full:\n%s\nwant\n%s", out, want.String())
	}
	if strings.Contains(out, "Duration") {
		t.Errorf("--no-timings shows durations")
	}
	if strings.Contains(out, "LLM reply") {
		t.Errorf("the replies are printed without --replies:\n%s", out)
	}
	// --replies: every turn's reply, the one without a program too, its
	// copy of the secret hidden.
	_, out, _ = ptcIn(t, testEnv(nil, nil), "trace", "print", "--replies", path)
	containsAll(t, "--replies", out, "│ LLM reply:\n│   The note is in.\n│   Its secret, <Firewalled>, is not for me",
		"│ LLM reply:\n│   ```clojure\n│   (+ 1 nil)")
	if n := strings.Count(out, "LLM reply:"); n != 4+2 {
		t.Errorf("%d replies printed, want 6 (4 turns, 2 nested agents' turns):\n%s", n, out)
	}
	if strings.Contains(out, traceSecret) {
		t.Errorf("the printed replies hold the secret:\n%s", out)
	}
}

// TestRunTraceReplies: ptc run --trace FILE keeps the model's reply of
// every turn (a turn without a program included) without any debug
// switch, and ptc trace print --replies shows it.
func TestRunTraceReplies(t *testing.T) {
	const think = "I will look at the orders first.\nThen I will add up the paid ones."
	replies := ordersReplies()
	script := llmtest.NewScript(replies[0], llmtest.Text(think), replies[1])
	path := filepath.Join(t.TempDir(), "orders.trace.json")
	code, out, errOut := ptcIn(t, testEnv(script.Func(), nil), "run", ordersAgent, "--model", "m", "--trace", path)
	if code != 0 || out != ordersValue {
		t.Fatalf("exit %d, stdout %q, stderr %s", code, out, errOut)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Step struct {
			Turns []struct {
				Program  string `json:"program"`
				Response string `json:"response"`
			} `json:"turns"`
		} `json:"step"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	turns := doc.Step.Turns
	if len(turns) != 3 {
		t.Fatalf("%d turns in the trace file, want 3", len(turns))
	}
	for i, want := range []string{replies[0].Content, think, replies[1].Content} {
		if turns[i].Response != want {
			t.Errorf("turn %d: response %q, want %q", i+1, turns[i].Response, want)
		}
	}
	if turns[1].Program != "" {
		t.Errorf("turn 2 has a program: %q", turns[1].Program)
	}
	code, out, errOut = ptcIn(t, testEnv(nil, nil), "trace", "print", "--replies", "--no-timings", path)
	if code != 0 {
		t.Fatalf("ptc trace print --replies: exit %d, %s", code, errOut)
	}
	containsAll(t, "ptc trace print --replies", out,
		"┌─ Turn 2 ─", "│ Error: Your reply contains no program.",
		"│ LLM reply:\n│   I will look at the orders first.\n│   Then I will add up the paid ones.\n└",
		"│ LLM reply:\n│   ```clojure\n│   (println (count ctx/orders) \"orders\")")
}

// TestTraceErrors: usage errors, missing and unreadable files, newer
// versions.
func TestTraceErrors(t *testing.T) {
	dir := t.TempDir()
	newer := filepath.Join(dir, "newer.json")
	if err := os.WriteFile(newer, []byte(`{"format":"ptc-trace","version":9,"step":{}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	notTrace := filepath.Join(dir, "other.json")
	if err := os.WriteFile(notTrace, []byte(`{"a":1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"trace"}, base.ExitUsage, "ptc trace: missing the subcommand: print or view (ptc trace -h for help)"},
		{[]string{"trace", "show"}, base.ExitUsage, `unknown subcommand "show"`},
		{[]string{"trace", "print"}, base.ExitUsage, "ptc trace print: missing FILE (ptc trace print -h for help)"},
		{[]string{"trace", "print", filepath.Join(dir, "none.json")}, base.ExitFail, "no such file"},
		{[]string{"trace", "print", newer}, base.ExitFail, "version 9, newer than this program reads (1)"},
		{[]string{"trace", "view", notTrace}, base.ExitFail, "not a ptc trace"},
		{[]string{"trace", "view", newer, "-o", newer}, base.ExitUsage, "would overwrite the trace"},
	} {
		code, _, errOut := ptcIn(t, testEnv(nil, nil), c.args...)
		if code != c.code || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", c.args, code, errOut, c.code, c.want)
		}
	}
}

// dataElement is the content of the page's trace data element.
var dataElement = regexp.MustCompile(`(?s)<script type="application/json" id="trace-data">(.*?)</script>`)

// TestTraceView: one self-contained page, the trace embedded so that no
// value can end its element, the secret hidden, --open runs $BROWSER.
func TestTraceView(t *testing.T) {
	dir := t.TempDir()
	path, _ := writeTestTrace(t, dir)
	code, out, errOut := ptcIn(t, testEnv(nil, nil), "trace", "view", path)
	htmlPath := filepath.Join(dir, "trace.html")
	if code != 0 || out != htmlPath+"\n" {
		t.Fatalf("exit %d, stdout %q, stderr %s", code, out, errOut)
	}
	page, err := os.ReadFile(htmlPath)
	if err != nil {
		t.Fatal(err)
	}
	s := string(page)
	// Self-contained: no address to fetch anything from.
	for _, bad := range []string{"http://", "https://", " src=\"", "<link", "@import", "url("} {
		if strings.Contains(s, bad) {
			t.Errorf("the page holds %q", bad)
		}
	}
	if n := strings.Count(strings.ToLower(s), "</script"); n != 2 {
		t.Errorf("%d </script in the page, want 2 (the data's and the script's)", n)
	}
	if strings.Contains(s, "<img") || strings.Contains(s, "alert(1)</script>") || strings.Contains(s, traceSecret) {
		t.Errorf("the hostile value or the secret is in the page as it is")
	}
	m := dataElement.FindStringSubmatch(s)
	if m == nil {
		t.Fatal("no data element")
	}
	var doc struct {
		Format string `json:"format"`
		Step   struct {
			Return struct {
				JSON map[string]any `json:"json"`
			} `json:"return"`
		} `json:"step"`
	}
	if err := json.Unmarshal([]byte(m[1]), &doc); err != nil {
		t.Fatalf("the data element is not JSON: %v", err)
	}
	if doc.Format != "ptc-trace" || doc.Step.Return.JSON["title"] != traceHostile {
		t.Errorf("the embedded trace: %+v", doc)
	}
	for _, want := range []string{`<meta name="color-scheme" content="light dark">`, "prefers-color-scheme: dark", "Content-Security-Policy", "<title>trace.json · PTC trace</title>"} {
		if !strings.Contains(s, want) {
			t.Errorf("the page lacks %q", want)
		}
	}

	// -o and --open.
	opened := filepath.Join(dir, "opened")
	browser := filepath.Join(dir, "browser.sh")
	if err := os.WriteFile(browser, []byte("#!/bin/sh\necho \"$1\" > "+opened+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	env := testEnv(nil, nil)
	env.Getenv = func(k string) string {
		if k == "BROWSER" {
			return browser
		}
		return ""
	}
	other := filepath.Join(dir, "other.html")
	code, _, errOut = ptcIn(t, env, "trace", "view", path, "-o", other, "--open")
	if code != 0 {
		t.Fatalf("--open: exit %d, stderr %s", code, errOut)
	}
	deadline := time.Now().Add(time.Minute) // generous: a busy machine starts it late
	for {
		b, err := os.ReadFile(opened)
		if err == nil && strings.TrimSpace(string(b)) == other {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("$BROWSER was not run with %s (%q, %v)", other, b, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestTraceHTMLHostileTitle: the file name in the page is escaped.
func TestTraceHTMLHostileTitle(t *testing.T) {
	var buf bytes.Buffer
	if err := tracecmd.WriteHTML(&buf, []byte(`{"format":"ptc-trace","version":1,"step":{"lisp":"</script>"}}`), `<b>x</b>.json`); err != nil {
		t.Fatal(err)
	}
	s := buf.String()
	if strings.Contains(s, "<b>x</b>") || !strings.Contains(s, "&lt;b&gt;x&lt;/b&gt;.json") {
		t.Errorf("the title is not escaped")
	}
	if strings.Count(s, "</script") != 2 {
		t.Errorf("the data ends its element")
	}
	if err := tracecmd.WriteHTML(&buf, []byte(`{"format":`), "x"); err == nil {
		t.Error("a truncated trace was embedded")
	}
}
