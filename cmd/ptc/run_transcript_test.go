package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/ptc-go/ptc/agent/trace"
	"github.com/ptc-go/ptc/cmd/ptc/internal/clitest"
	"github.com/ptc-go/ptc/cmd/ptc/internal/runcmd"
	"github.com/ptc-go/ptc/internal/transcript"
	"github.com/ptc-go/ptc/llm/llmtest"
)

// transcriptDocument is t as a ptc-trace document, for tests that edit a
// recording: t.doc (a bare trace for a
// legacy transcript) with t's recording and outcome put in.
func transcriptDocument(t *transcript.Transcript) ([]byte, error) {
	top := map[string]json.RawMessage{}
	step := map[string]json.RawMessage{}
	if t.Doc != nil {
		if err := json.Unmarshal(t.Doc, &top); err != nil {
			return nil, err
		}
		if err := json.Unmarshal(top["step"], &step); err != nil {
			return nil, err
		}
	}
	set := func(m map[string]json.RawMessage, k string, v any) {
		b, _ := json.Marshal(v)
		m[k] = b
	}
	set(top, "format", trace.Format)
	set(top, "version", trace.Version)
	set(top, "ptc", t.PTC)
	set(top, "recorded_at", t.RecordedAt)
	set(top, "redacted", t.Redacted)
	set(top, "agent", t.Agent)
	set(top, "model", t.Model)
	if len(t.Context) > 0 {
		top["context"] = t.Context
	}
	if t.ContextEDN != "" {
		set(top, "context_edn", t.ContextEDN)
	} else {
		delete(top, "context_edn")
	}
	set(step, "system_prompt", t.System)
	calls := append([]trace.LLMCall(nil), t.Calls...)
	for i := range calls {
		if calls[i].System == t.System {
			calls[i].System = ""
		}
	}
	set(step, "llm_calls", calls)
	if o := t.Outcome; o != nil {
		set(step, "ok", o.Fail == nil)
		set(step, "trace_id", o.TraceID)
		delete(step, "return")
		delete(step, "fail")
		if o.Fail == nil {
			set(step, "return", transcript.TraceValue{Lisp: o.ReturnEDN, JSON: o.Return})
		} else {
			f := map[string]any{"reason": o.Fail.Reason, "message": o.Fail.Message}
			if o.Fail.Op != "" {
				f["op"] = o.Fail.Op
			}
			if o.Fail.Class != "" {
				f["details"] = transcript.TraceValue{Lisp: "{:class " + strconv.Quote(o.Fail.Class) + "}",
					JSON: json.RawMessage(`{"class":` + strconv.Quote(o.Fail.Class) + `}`)}
			}
			set(step, "fail", f)
		}
		if _, ok := step["turns"]; !ok {
			set(step, "turns", []any{})
		}
		if _, ok := step["usage"]; !ok {
			u := o.Usage
			set(step, "usage", map[string]any{"turns": u.Turns, "llm_requests": u.LLMRequests, "tokens": u.Tokens, "duration_ms": u.DurationMS})
		}
	}
	set(top, "step", step)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(top); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// TestRecordingHidesOverriddenInlineSecrets: a run that gives an inline
// context's _ field another value (--set, -c) records the agent file with
// the file's own value hidden too, not only the value the mission used;
// the rest of the file is kept, and the recording replays (issue 41).
func TestRecordingHidesOverriddenInlineSecrets(t *testing.T) {
	dir := t.TempDir()
	const inline, given = "inline-5ecret-0a1b2c", "given-5ecret-3d4e5f"
	agentPath := clitest.WriteFile(t, dir, "k.md", "---\nmax-turns: 1\ncontext: |\n  {:_token \""+inline+"\"\n   :n 2\n   :meta {:_pin 4242 :owner \"ops\"}}\ndescription: Counts.\n---\nGo.")
	ctxPath := clitest.WriteFile(t, dir, "ctx.json", `{"_token": "`+given+`"}`)
	for _, args := range [][]string{
		{"--set", "_token=" + given},
		{"-c", ctxPath},
		nil, // no override: hidden as before
	} {
		path := filepath.Join(dir, "rec.json")
		s := llmtest.NewScript(llmtest.Code(`[(string? ctx/_token) ctx/n]`))
		code, out, errOut := ptcIn(t, testEnv(s.Func(), nil), append([]string{"run", "-q", agentPath, "--model", "m", "--record", path}, args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d, stdout %q, stderr %s", args, code, out, errOut)
		}
		doc, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, secret := range []string{"5ecret-0a1b2c", "5ecret-3d4e5f"} {
			if strings.Contains(string(doc), secret) {
				t.Errorf("%v: the recording holds %s:\n%s", args, secret, doc)
			}
		}
		// The pin as a value, not as four digits of a random hex trace id.
		if pin := regexp.MustCompile(`(^|[^0-9a-fA-F])4242([^0-9a-fA-F]|$)`); pin.Match(doc) {
			t.Errorf("%v: the recording holds the pin 4242:\n%s", args, doc)
		}
		tr, err := runcmd.LoadTranscript(path)
		if err != nil {
			t.Fatal(err)
		}
		text := tr.Agent.Text
		if !strings.Contains(text, "description: Counts.\n---\nGo.") || !strings.Contains(text, `:owner "ops"`) {
			t.Errorf("%v: the recorded agent file lost what is not secret:\n%s", args, text)
		}
		if code, out, errOut := ptcIn(t, testEnv(nil, nil), "run", "-q", "--replay", path); code != 0 {
			t.Errorf("%v: replay: exit %d, stdout %q, stderr %s", args, code, out, errOut)
		}
	}
}
