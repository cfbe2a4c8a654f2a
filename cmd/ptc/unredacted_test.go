package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ptc-go/ptc/cmd/ptc/internal/base"
	"github.com/ptc-go/ptc/cmd/ptc/internal/tracecmd"
	"github.com/ptc-go/ptc/llm/llmtest"
)

// unredactedAgent writes an agent file whose context holds a firewalled
// key, and returns its path and the replies that copy the key under a
// public field.
func unredactedAgent(t *testing.T, dir string, counts bool) (string, []llmtest.Reply) {
	t.Helper()
	path := filepath.Join(dir, "agent.md")
	text := "---\nmax-turns: 3\ncontext: {\"_key\": \"CTXSECRET-alpha-1234\", \"user\": \"ada\"}\n---\nUse the key.\n"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	first := `(println "key" (str "L" ctx/_key)) ctx/user`
	if counts {
		first = `(count ctx/_key)` // what the model sees depends on the firewalled value
	}
	return path, []llmtest.Reply{
		llmtest.Code(first),
		llmtest.Code(`(return {:leak (str "L" ctx/_key) :user ctx/user})`),
	}
}

// ptc run shows what the mission firewalled as <Firewalled> in the value,
// --json, --trace and --record; --unredacted shows it in all four. A
// redacted transcript replays: the context has the placeholder where the
// firewalled values were, which this mission never shows the model; a
// mission whose requests depend on a firewalled value (its length) replays
// from a raw transcript only, and a redacted one reports where it departs.
func TestRunUnredacted(t *testing.T) {
	const secret = "CTXSECRET"
	for _, unredacted := range []bool{false, true} {
		dir := t.TempDir()
		agentFile, replies := unredactedAgent(t, dir, false)
		trace, record := filepath.Join(dir, "trace.json"), filepath.Join(dir, "run.json")
		args := []string{"run", agentFile, "--model", "test", "--json", "--trace", trace, "--record", record}
		if unredacted {
			args = append(args, "--unredacted")
		}
		code, out, errOut := ptcIn(t, testEnv(llmtest.NewScript(replies...).Func(), nil), args...)
		if code != base.ExitOK {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		if strings.Contains(errOut, secret) {
			t.Errorf("unredacted %v: the progress shows the secret:\n%s", unredacted, errOut)
		}
		traceData, _ := os.ReadFile(trace)
		recData, _ := os.ReadFile(record)
		for what, text := range map[string]string{"--json": out, "--trace": string(traceData), "--record": string(recData)} {
			if strings.Contains(text, secret) != unredacted {
				t.Errorf("unredacted %v: %s holds the secret: %v\n%s", unredacted, what, !unredacted, text)
			}
		}
		if !unredacted && !strings.Contains(out, `"leak":"\u003cFirewalled\u003e"`) {
			t.Errorf("--json: %s", out)
		}
		var rec struct {
			Redacted bool                  `json:"redacted"`
			Context  any                   `json:"context"`
			Agent    struct{ Text string } `json:"agent"`
		}
		if err := json.Unmarshal(recData, &rec); err != nil || rec.Redacted == unredacted {
			t.Errorf("the transcript's redacted: %v (%v)", rec.Redacted, err)
		}
		// The replay, which needs no model.
		code, out, errOut = ptcIn(t, testEnv(nil, nil), "run", "--replay", record, "--json")
		if code != base.ExitOK || !strings.Contains(out, `"replay":{"matches":true}`) {
			t.Errorf("unredacted %v: the replay: exit %d\n%s\n%s", unredacted, code, out, errOut)
		}
		if !unredacted && strings.Contains(out+errOut, secret) {
			t.Errorf("the replay of a redacted transcript shows the secret:\n%s\n%s", out, errOut)
		}
		// The value printed.
		plain := []string{"run", agentFile, "--model", "test"}
		if unredacted {
			plain = append(plain, "--unredacted")
		}
		_, out, _ = ptcIn(t, testEnv(llmtest.NewScript(replies...).Func(), nil), plain...)
		if strings.Contains(out, secret) != unredacted {
			t.Errorf("unredacted %v: the value printed: %q", unredacted, out)
		}
	}
	for _, unredacted := range []bool{false, true} {
		dir := t.TempDir()
		agentFile, replies := unredactedAgent(t, dir, true)
		record := filepath.Join(dir, "run.json")
		args := []string{"run", agentFile, "--model", "test", "--record", record, "--quiet"}
		if unredacted {
			args = append(args, "--unredacted")
		}
		if code, _, errOut := ptcIn(t, testEnv(llmtest.NewScript(replies...).Func(), nil), args...); code != base.ExitOK {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		code, _, errOut := ptcIn(t, testEnv(nil, nil), "run", "--replay", record, "--quiet")
		if matches := code == base.ExitOK; matches != unredacted || (!matches && !strings.Contains(errOut, "Value: 12")) {
			t.Errorf("unredacted %v: the replay of a mission that counts a firewalled value: exit %d\n%s", unredacted, code, errOut)
		}
	}
}

// ptc trace print and view refuse a raw trace unless --unredacted, and
// the page of one says that it shows unredacted values.
func TestTraceRawRefused(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "trace.json")
	if err := tracecmd.WriteTraceFile(path, traceTestStep(t), true); err != nil {
		t.Fatal(err)
	}
	for _, sub := range []string{"print", "view"} {
		code, _, errOut := ptcIn(t, testEnv(nil, nil), "trace", sub, path)
		if code != base.ExitFail || !strings.Contains(errOut, "is a raw trace") || !strings.Contains(errOut, "--unredacted") {
			t.Errorf("trace %s of a raw trace: exit %d, %s", sub, code, errOut)
		}
	}
	code, out, errOut := ptcIn(t, testEnv(nil, nil), "trace", "print", "--unredacted", path)
	if code != base.ExitOK || !strings.Contains(out, traceSecret) {
		t.Errorf("trace print --unredacted: exit %d, %s\n%s", code, errOut, out)
	}
	page := filepath.Join(dir, "page.html")
	if code, _, errOut := ptcIn(t, testEnv(nil, nil), "trace", "view", "--unredacted", "-o", page, path); code != base.ExitOK {
		t.Fatalf("trace view --unredacted: exit %d, %s", code, errOut)
	}
	html, _ := os.ReadFile(page)
	if !strings.Contains(string(html), "This page shows unredacted values") {
		t.Errorf("the page of a raw trace has no banner")
	}
	// A redacted trace's page has none.
	red := filepath.Join(dir, "red.json")
	if err := tracecmd.WriteTraceFile(red, traceTestStep(t), false); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := ptcIn(t, testEnv(nil, nil), "trace", "view", "-o", page, red); code != base.ExitOK {
		t.Fatalf("trace view: exit %d, %s", code, errOut)
	}
	if html, _ := os.ReadFile(page); strings.Contains(string(html), "This page shows unredacted values") {
		t.Errorf("the page of a redacted trace has the banner")
	}
}
