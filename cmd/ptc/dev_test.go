package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/cmd/ptc/internal/base"
	"github.com/ptc-go/ptc/cmd/ptc/internal/load"
	"github.com/ptc-go/ptc/cmd/ptc/internal/runcmd"
	"github.com/ptc-go/ptc/cmd/ptc/internal/tracecmd"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm"
	"github.com/ptc-go/ptc/llm/llmtest"
	"github.com/ptc-go/ptc/workbench"
)

// devSecret is a firewalled value of the test agents' context: no API
// response may hold it.
const devSecret = "s3cr3t-VALUE-0042"

// devDigest is the test agent: a tool call, then the return.
const devDigest = `---
description: Counts the notes of a topic.
signature: (topic :string) -> {count :int}
max-turns: 3
limits:
  timeout: 2m
context: {"topic": "Go", "_key": "` + devSecret + `"}
cases: |
  [{:name "go" :input {:topic "Go"} :expect {:count 2}}
   {:name "rust" :input {:topic "Rust"} :expect {:count 5}}]
---
Count the notes about {{topic}}.
`

// devPrompted has its prompt in a prompt: key.
const devPrompted = `---
prompt: Say hi.
max-turns: 2
---
`

// devReplies answer the digest agent: a tool call (which prints the
// secret, scrubbed), then the return.
func devReplies() []llmtest.Reply {
	return []llmtest.Reply{
		llmtest.Code(`(println "key:" ctx/_key)` + "\n" + `(def notes (tool/lookup {:q ctx/topic}))` + "\n" + `(count notes)`),
		llmtest.Code(`(return {:count (count notes)})`),
	}
}

// devTools are the in-process tools of the test server.
func devTools() map[string]agent.Tool {
	return map[string]agent.Tool{"lookup": {Description: "Looks notes up.", Func: func(_ context.Context, args *lisp.Map) (any, error) {
		return []any{"a", "b"}, nil
	}}}
}

// devHarness is a dev server over a folder of test agents.
type devHarness struct {
	t     *testing.T
	dir   string
	ts    *httptest.Server
	s     *workbench.Workbench
	model func() llm.Func // a new model per run
}

func devFolder(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	write := func(name, text string) {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("digest.md", devDigest)
	write("broken.md", "---\nmax-turns: many\n---\nHi.\n")
	write("README.md", "# Not an agent\n")
	write("sub/prompted.md", devPrompted)
	return dir
}

// newDevHarness starts a server over dir whose models answer with
// devReplies (model, when not nil, instead).
func newDevHarness(t *testing.T, dir string, model func() llm.Func) *devHarness {
	t.Helper()
	if model == nil {
		model = func() llm.Func { return llmtest.NewScript(devReplies()...).Func() }
	}
	h := &devHarness{t: t, dir: dir, model: model}
	env := testEnv(nil, nil)
	env.OpenModel = func(context.Context, string) (llm.Func, error) { return h.model(), nil }
	env.Tools = devTools()
	h.ts = httptest.NewUnstartedServer(nil)
	s, err := newDevServer(env, devOptions{Dir: dir, Addr: h.ts.Listener.Addr().String(), Model: "script:dev"})
	if err != nil {
		t.Fatal(err)
	}
	h.s = s
	h.ts.Config.Handler = s
	h.ts.Start()
	t.Cleanup(func() {
		s.Close()
		h.ts.Close()
	})
	return h
}

// req sends a request with the token (as a bearer) unless hdr says
// otherwise ("Authorization": "" sends none).
func (h *devHarness) req(method, path string, body any, hdr map[string]string) *http.Response {
	h.t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			h.t.Fatal(err)
		}
		rd = bytes.NewReader(b)
	}
	r, err := http.NewRequest(method, h.ts.URL+path, rd)
	if err != nil {
		h.t.Fatal(err)
	}
	r.Header.Set("Authorization", "Bearer "+h.s.Token())
	if body != nil {
		r.Header.Set("Content-Type", "application/json")
	}
	for k, v := range hdr {
		if k == "Host" {
			r.Host = v
			continue
		}
		if v == "" {
			r.Header.Del(k)
			continue
		}
		r.Header.Set(k, v)
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(r)
	if err != nil {
		h.t.Fatal(err)
	}
	return resp
}

// call sends the request and decodes the JSON answer into out (when not
// nil), checking the status.
func (h *devHarness) call(method, path string, body any, want int, out any) []byte {
	h.t.Helper()
	resp := h.req(method, path, body, nil)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != want {
		h.t.Fatalf("%s %s: status %d, want %d: %s", method, path, resp.StatusCode, want, b)
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			h.t.Fatalf("%s %s: %v: %s", method, path, err, b)
		}
	}
	return b
}

// sseEvent is an event of a stream.
type sseEvent struct {
	name string
	data []byte
}

// stream reads a run's event stream to its end.
func (h *devHarness) stream(id string) []sseEvent {
	h.t.Helper()
	resp := h.req("GET", "/api/runs/"+id+"/events", nil, nil)
	defer resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		h.t.Fatalf("events: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	var out []sseEvent
	var cur sseEvent
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		l := sc.Text()
		switch {
		case l == "":
			if cur.name != "" {
				out = append(out, cur)
			}
			cur = sseEvent{}
		case strings.HasPrefix(l, "event: "):
			cur.name = strings.TrimPrefix(l, "event: ")
		case strings.HasPrefix(l, "data: "):
			cur.data = []byte(strings.TrimPrefix(l, "data: "))
		}
	}
	return out
}

// startRun starts a run and returns its id.
func (h *devHarness) startRun(body map[string]any) string {
	h.t.Helper()
	var out struct{ ID, Agent, Model string }
	h.call("POST", "/api/runs", body, http.StatusCreated, &out)
	if !devRunIDForm.MatchString(out.ID) {
		h.t.Fatalf("run id %q", out.ID)
	}
	return out.ID
}

// finish waits for the run's end (its done event) and returns its summary.
func (h *devHarness) finish(id string) runSummary {
	h.t.Helper()
	evs := h.stream(id)
	if len(evs) == 0 || evs[len(evs)-1].name != "done" {
		h.t.Fatalf("the stream of %s does not end with done: %v", id, evs)
	}
	var sum runSummary
	if err := json.Unmarshal(evs[len(evs)-1].data, &sum); err != nil {
		h.t.Fatal(err)
	}
	return sum
}

func TestDevAgents(t *testing.T) {
	h := newDevHarness(t, devFolder(t), nil)
	var out struct {
		Dir          string     `json:"dir"`
		DefaultModel string     `json:"default_model"`
		Agents       []devAgent `json:"agents"`
	}
	h.call("GET", "/api/agents", nil, 200, &out)
	if out.Dir != h.dir || out.DefaultModel != "script:dev" {
		t.Errorf("dir %q, default_model %q", out.Dir, out.DefaultModel)
	}
	var names []string
	byName := map[string]devAgent{}
	for _, a := range out.Agents {
		names = append(names, a.Name)
		byName[a.Name] = a
	}
	if strings.Join(names, " ") != "broken digest sub/prompted" {
		t.Fatalf("agents %v: want broken, digest, sub/prompted (README.md is no agent file)", names)
	}
	if b := byName["broken"]; !strings.HasPrefix(b.Error, filepath.Join(h.dir, "broken.md")+":2:") || b.File != "broken.md" {
		t.Errorf("broken: %+v", b)
	}
	d := byName["digest"]
	if d.Error != "" || d.File != "digest.md" || d.Signature != "(topic :string) -> {count :int}" || d.Output != "{count :int}" ||
		d.MaxTurns != 3 || d.Limits.Timeout != "2m" || d.Prompt != "Count the notes about {{topic}}." ||
		d.Description != "Counts the notes of a topic." || strings.Join(d.Tools, ",") != "lookup" {
		t.Errorf("digest: %+v", d)
	}
	if len(d.Inputs) != 1 || d.Inputs[0].Name != "topic" || d.Inputs[0].Type != "string" || d.Inputs[0].Kind != "string" ||
		string(d.Inputs[0].Value) != `"Go"` {
		t.Errorf("digest inputs: %+v", d.Inputs)
	}
	var ctxJSON map[string]any
	if err := json.Unmarshal(d.Context, &ctxJSON); err != nil || len(ctxJSON) != 2 || ctxJSON["_key"] != "<Firewalled>" || ctxJSON["topic"] != "Go" {
		t.Errorf("digest context: %s", d.Context)
	}
	if len(d.Cases) != 2 || d.Cases[0].Name != "go" || string(d.Cases[1].Input) != `{"topic":"Rust"}` || d.CasesError != "" {
		t.Errorf("digest cases: %+v %q", d.Cases, d.CasesError)
	}
	if p := byName["sub/prompted"]; p.Error != "" || p.Prompt != "Say hi." || p.File != "sub/prompted.md" {
		t.Errorf("sub/prompted: %+v", p)
	}
}

// TestDevRunStream: a run's stream carries its events live (the run, the
// turns' programs, the tool calls with arguments and durations) and ends
// with done and the summary; a subscriber after the end gets it all.
func TestDevRunStream(t *testing.T) {
	h := newDevHarness(t, devFolder(t), nil)
	id := h.startRun(map[string]any{"agent": "digest", "input": map[string]any{"topic": "Rust"}})
	evs := h.stream(id)
	kinds := map[string][]map[string]any{}
	for _, e := range evs {
		if e.name != "agent" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal(e.data, &m); err != nil {
			t.Fatal(err)
		}
		kinds[m["kind"].(string)] = append(kinds[m["kind"].(string)], m)
	}
	if len(kinds["run.start"]) != 1 || len(kinds["run.stop"]) != 1 {
		t.Errorf("run events: %v", kinds)
	}
	if ts := kinds["turn.stop"]; len(ts) != 2 || !strings.Contains(ts[0]["program"].(string), "(tool/lookup {:q ctx/topic})") {
		t.Errorf("turn.stop: %v", ts)
	}
	if tc := kinds["tool.stop"]; len(tc) != 1 || tc[0]["tool"] != "lookup" || tc[0]["args"] != `{:q "Rust"}` || tc[0]["duration_ms"] == nil {
		t.Errorf("tool.stop: %v", tc)
	}
	last := evs[len(evs)-1]
	var sum runSummary
	if err := json.Unmarshal(last.data, &sum); err != nil || last.name != "done" {
		t.Fatalf("last event %s %s", last.name, last.data)
	}
	if sum.ID != id || sum.Status != "ok" || sum.Agent != "digest" || sum.Model != "script:dev" || sum.Turns != 2 ||
		sum.Result != "{:count 2}" || sum.Tokens.Input == 0 || sum.LLMRequests != 2 || sum.Fail != nil || sum.Edited {
		t.Errorf("summary %+v", sum)
	}
	// Late: the same stream again, whole.
	again := h.stream(id)
	if len(again) != len(evs) {
		t.Fatalf("late subscriber: %d events, want %d", len(again), len(evs))
	}
	for i := range evs {
		if again[i].name != evs[i].name || (evs[i].name == "agent" && !bytes.Equal(again[i].data, evs[i].data)) {
			t.Errorf("late event %d: %s %s, want %s %s", i, again[i].name, again[i].data, evs[i].name, evs[i].data)
		}
	}
}

// blockingModel is a model that waits for its context to end; called
// says it was called.
func blockingModel(called chan<- struct{}) llm.Func {
	return func(ctx context.Context, _ llm.Request) (llm.Response, error) {
		select {
		case called <- struct{}{}:
		default:
		}
		<-ctx.Done()
		return llm.Response{}, ctx.Err()
	}
}

func TestDevCancel(t *testing.T) {
	called := make(chan struct{}, 8)
	h := newDevHarness(t, devFolder(t), func() llm.Func { return blockingModel(called) })
	id := h.startRun(map[string]any{"agent": "digest"})
	<-called
	var list struct{ Runs []runSummary }
	h.call("GET", "/api/runs", nil, 200, &list)
	if len(list.Runs) != 1 || list.Runs[0].Status != "running" {
		t.Fatalf("runs while running: %+v", list.Runs)
	}
	h.call("GET", "/api/runs/"+id+"/trace", nil, 409, nil)
	h.call("POST", "/api/runs/"+id+"/cancel", nil, 202, nil)
	sum := h.finish(id)
	if sum.Status != "cancelled" || sum.Fail == nil || sum.Fail.Reason != string(agent.ReasonCancelled) {
		t.Errorf("summary %+v", sum)
	}
	h.call("POST", "/api/runs/"+id+"/cancel", nil, 409, nil)
	// The turn the cancel cut short says so: it is no turn that went well
	// with no program (the page shows it cancelled, not done).
	var detail struct{ Turns []devTurn }
	h.call("GET", "/api/runs/"+id, nil, 200, &detail)
	if n := len(detail.Turns); n != 1 || len(detail.Turns[0].LLMRetries) != 1 || detail.Turns[0].Program != "" || detail.Turns[0].Response != "" {
		t.Errorf("the cancelled turn: %+v", detail.Turns)
	}

	// At most four runs at once (docs/cli.md).
	var ids []string
	for range 4 {
		ids = append(ids, h.startRun(map[string]any{"agent": "digest"}))
		<-called
	}
	h.call("POST", "/api/runs", map[string]any{"agent": "digest"}, http.StatusTooManyRequests, nil)
	for _, id := range ids {
		h.call("POST", "/api/runs/"+id+"/cancel", nil, 202, nil)
		h.finish(id)
	}
}

// TestDevHistory: the runs are listed newest first from their files, by
// another server too; the files are recordings that ptc trace view reads
// and ptc run --replay replays.
func TestDevHistory(t *testing.T) {
	dir := devFolder(t)
	h := newDevHarness(t, dir, nil)
	first := h.startRun(map[string]any{"agent": "digest"})
	h.finish(first)
	second := h.startRun(map[string]any{"agent": "digest", "input": map[string]any{"topic": "Zig"}})
	h.finish(second)
	h.call("POST", "/api/runs", map[string]any{"agent": "digest", "input": []int{1}}, 400, nil)
	h.call("POST", "/api/runs", map[string]any{"agent": "broken"}, 400, nil)
	h.call("POST", "/api/runs", map[string]any{"agent": "../digest"}, 400, nil)

	list := func(h *devHarness, q string) []string {
		var out struct{ Runs []runSummary }
		h.call("GET", "/api/runs"+q, nil, 200, &out)
		var ids []string
		for _, r := range out.Runs {
			ids = append(ids, r.ID)
		}
		return ids
	}
	want := second + " " + first
	if first > second { // the same second: the ids' random part orders them
		want = first + " " + second
	}
	if got := strings.Join(list(h, ""), " "); got != want {
		t.Errorf("runs %s, want %s", got, want)
	}
	if got := list(h, "?agent=sub/prompted"); len(got) != 0 {
		t.Errorf("runs of sub/prompted: %v", got)
	}
	h2 := newDevHarness(t, dir, nil)
	if got := strings.Join(list(h2, "?agent=digest"), " "); got != want {
		t.Errorf("after a restart: runs %s, want %s", got, want)
	}

	path := filepath.Join(dir, ".ptc-runs", first+".json")
	if _, _, err := tracecmd.ReadTraceFile(path, false); err != nil {
		t.Fatalf("ptc trace view's reader: %v", err)
	}
	trace := h2.call("GET", "/api/runs/"+first+"/trace", nil, 200, nil)
	if onDisk, _ := os.ReadFile(path); !bytes.Equal(trace, onDisk) {
		t.Error("the trace route does not send the file as it is")
	}
	env := testEnv(nil, nil)
	env.Tools = devTools()
	code, stdout, stderr := ptcIn(t, env, "run", "--replay", path)
	if code != 0 || strings.TrimSpace(stdout) != "{:count 2}" || !strings.Contains(stderr, "replay matches the recording (2 LLM calls)") {
		t.Errorf("ptc run --replay: %d %q %q", code, stdout, stderr)
	}
}

func TestDevReplayAndCompare(t *testing.T) {
	h := newDevHarness(t, devFolder(t), nil)
	id := h.startRun(map[string]any{"agent": "digest"})
	h.finish(id)
	var started map[string]string
	h.call("POST", "/api/runs/"+id+"/replay", nil, 201, &started)
	if started["replay_of"] != id || started["agent"] != "digest" {
		t.Errorf("replay: %v", started)
	}
	sum := h.finish(started["id"])
	if sum.ReplayOf != id || sum.Replay == nil || !sum.Replay.Matches || sum.Status != "ok" || sum.Result != "{:count 2}" {
		t.Errorf("replay summary %+v (replay %+v)", sum, sum.Replay)
	}

	var d struct {
		Summary runSummary      `json:"summary"`
		System  string          `json:"system"`
		Prompt  string          `json:"prompt"`
		Context json.RawMessage `json:"context"`
		Turns   []devTurn       `json:"turns"`
		Return  string          `json:"return"`
		Usage   map[string]any  `json:"usage"`
	}
	h.call("GET", "/api/runs/"+id, nil, 200, &d)
	if d.Summary.ID != id || d.Prompt != "Count the notes about {{topic}}." || !strings.Contains(d.System, "lookup") ||
		d.Return != "{:count 2}" || d.Usage["turns"] == nil || !strings.Contains(string(d.Context), `"topic":"Go"`) {
		t.Errorf("detail: %+v", d)
	}
	if len(d.Turns) != 2 || !strings.Contains(d.Turns[0].Program, "tool/lookup") || d.Turns[0].Tokens.Input == 0 ||
		d.Turns[1].Program != "(return {:count (count notes)})" || len(d.Turns[0].ToolCalls) != 1 ||
		d.Turns[0].ToolCalls[0].Args != `{:q "Go"}` || d.Turns[0].ToolCalls[0].Result != `["a" "b"]` ||
		!strings.Contains(d.Turns[0].Response, "```clojure") {
		t.Errorf("turns: %+v", d.Turns)
	}
}

func TestDevTestRoute(t *testing.T) {
	var mu sync.Mutex
	h := newDevHarness(t, devFolder(t), func() llm.Func {
		mu.Lock()
		defer mu.Unlock()
		s := llmtest.NewScript()
		s.Respond = func(req llm.Request) llmtest.Reply {
			return llmtest.Code(`(return {:count (count (tool/lookup {}))})`)
		}
		return s.Func()
	})
	var out struct {
		Agent, Model  string
		Rows          []devTestRow
		Passed, Total int
	}
	h.call("POST", "/api/agents/digest/test", nil, 200, &out)
	if out.Agent != "digest" || out.Model != "script:dev" || out.Total != 2 || out.Passed != 1 || len(out.Rows) != 2 {
		t.Fatalf("test: %+v", out)
	}
	for _, r := range out.Rows {
		switch r.Case {
		case "go":
			if !r.Passed || r.Return != "{:count 2}" || r.Turns != 1 {
				t.Errorf("row %+v", r)
			}
		case "rust":
			if r.Passed || r.Detail == "" {
				t.Errorf("row %+v", r)
			}
		}
	}
	h.call("POST", "/api/agents/sub/prompted/test", nil, 404, nil)
	h.call("POST", "/api/agents/nope/test", nil, 404, nil)
}

// TestDevEditAndSave: a run's overrides leave the agent file as it is
// (the recording holds the text that ran); save writes it.
func TestDevEditAndSave(t *testing.T) {
	h := newDevHarness(t, devFolder(t), nil)
	path := filepath.Join(h.dir, "digest.md")
	before, _ := os.ReadFile(path)
	id := h.startRun(map[string]any{"agent": "digest", "prompt": "Count the notes on {{topic}}, quickly.",
		"max_turns": 5, "limits": map[string]any{"timeout": "90s", "max_steps": 100000}})
	sum := h.finish(id)
	if !sum.Edited || sum.Status != "ok" {
		t.Errorf("summary %+v", sum)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(after, before) {
		t.Fatalf("a run changed the agent file:\n%s", after)
	}
	rec, err := runcmd.LoadTranscript(filepath.Join(h.dir, ".ptc-runs", id+".json"))
	if err != nil {
		t.Fatal(err)
	}
	af, err := load.ParseAgentFile("rec", h.dir, []byte(rec.Agent.Text))
	if err != nil || af.Config.Prompt != "Count the notes on {{topic}}, quickly." || af.Config.MaxTurns != 5 ||
		af.Config.Limits.MaxSteps != 100000 || af.Config.Limits.Timeout.String() != "1m30s" {
		t.Fatalf("the recorded text: %v\n%s", err, rec.Agent.Text)
	}

	for _, bad := range []map[string]any{
		{"max_turns": -1}, {"limits": map[string]any{"max_steps": "lots"}}, {"limits": map[string]any{"nope": 1}},
		{"limits": map[string]any{"timeout": "1s\ncontext: x"}},
	} {
		h.call("POST", "/api/agents/digest/save", bad, 400, nil)
		if after, _ := os.ReadFile(path); !bytes.Equal(after, before) {
			t.Fatalf("a refused save %v changed the file", bad)
		}
	}
	// Save keeps the file's mode.
	if err := os.Chmod(path, 0o600); err != nil {
		t.Fatal(err)
	}
	var saved devAgent
	h.call("POST", "/api/agents/digest/save", map[string]any{"prompt": "New prompt for {{topic}}.", "limits": map[string]any{"max_memory": "8MiB"}}, 200, &saved)
	if saved.Prompt != "New prompt for {{topic}}." || saved.Limits.MaxMemory != "8MiB" || saved.Limits.Timeout != "2m" || saved.Error != "" {
		t.Errorf("saved: %+v", saved)
	}
	after, _ := os.ReadFile(path)
	want := strings.Replace(strings.Replace(devDigest, "Count the notes about {{topic}}.", "New prompt for {{topic}}.", 1),
		"  timeout: 2m\n", "  timeout: 2m\n  max-memory: 8MiB\n", 1)
	if string(after) != want {
		t.Errorf("the saved file:\n%s\nwant:\n%s", after, want)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v after the save, want the file's -rw-------", st.Mode())
	}

	// A prompt: key is edited in place.
	h.call("POST", "/api/agents/sub/prompted/save", map[string]any{"prompt": "Say hello\n\nto {{name}}."}, 200, &saved)
	b, _ := os.ReadFile(filepath.Join(h.dir, "sub", "prompted.md"))
	if string(b) != "---\nprompt: |\n  Say hello\n\n  to {{name}}.\nmax-turns: 2\n---\n" {
		t.Errorf("prompted.md:\n%s", b)
	}
	h.call("POST", "/api/agents/sub/prompted/save", map[string]any{"prompt": "  indented\nless"}, 400, nil)
}

func TestDevEditText(t *testing.T) {
	for _, c := range []struct {
		name, in string
		edit     devEdit
		want     string
	}{
		{"no front matter", "Hi.\n", devEdit{MaxTurns: 2}, "---\nmax-turns: 2\n---\nHi.\n"},
		{"new limits", "---\nmax-turns: 1\n---\n\nHi.\n", devEdit{Limits: map[string]json.RawMessage{"max_steps": json.RawMessage("5")}},
			"---\nmax-turns: 1\nlimits:\n  max-steps: 5\n---\n\nHi.\n"},
		{"replace a limit", "---\nlimits:\n    timeout: 1s # slow\n    max-depth: 3\n---\nHi.", devEdit{Limits: map[string]json.RawMessage{"timeout": json.RawMessage(`"3s"`)}},
			"---\nlimits:\n    timeout: 3s\n    max-depth: 3\n---\nHi."},
		{"body prompt", "---\nmax-turns: 1\n---\n\nOld\nprompt\n\n", devEdit{Prompt: "New"}, "---\nmax-turns: 1\n---\n\nNew\n"},
		{"CRLF", "---\r\nmax-turns: 1\r\n---\r\nOld\r\n", devEdit{MaxTurns: 4}, "---\r\nmax-turns: 4\r\n---\r\nOld\r\n"},
		{"block max-turns", "---\nmax-turns: |\n  3\n---\nHi.\n", devEdit{MaxTurns: 4}, "---\nmax-turns: 4\n---\nHi.\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, _, err := c.edit.apply("a.md", ".", []byte(c.in))
			if err != nil || string(out) != c.want {
				t.Errorf("got %q, %v; want %q", out, err, c.want)
			}
		})
	}
}

// TestDevFirewall: a firewalled value of the context shows in no response
// of the API, the stream, the saved file and the trace page included.
func TestDevFirewall(t *testing.T) {
	h := newDevHarness(t, devFolder(t), nil)
	id := h.startRun(map[string]any{"agent": "digest"})
	var all bytes.Buffer
	for _, e := range h.stream(id) {
		all.Write(e.data)
	}
	var started map[string]string
	h.call("POST", "/api/runs/"+id+"/replay", nil, 201, &started)
	for _, e := range h.stream(started["id"]) {
		all.Write(e.data)
	}
	for _, p := range []string{"/api/agents", "/api/runs", "/api/runs/" + id, "/api/runs/" + id + "/trace", "/runs/" + id + "/view",
		"/api/runs/" + started["id"]} {
		all.Write(h.call("GET", p, nil, 200, nil))
	}
	all.Write(h.call("POST", "/api/agents/digest/test", nil, 200, nil))
	entries, _ := os.ReadDir(filepath.Join(h.dir, ".ptc-runs"))
	for _, e := range entries {
		b, _ := os.ReadFile(filepath.Join(h.dir, ".ptc-runs", e.Name()))
		all.Write(b)
	}
	if strings.Contains(all.String(), devSecret) {
		t.Fatal("the firewalled value is in a response")
	}
	if !strings.Contains(all.String(), "key: <Firewalled>") {
		t.Error("the program's output is not in the responses, scrubbed")
	}
}

// lineWriter is a stderr that tells when a line holding want was written.
type lineWriter struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	want string
	seen chan string
	told bool
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	for _, l := range strings.Split(w.buf.String(), "\n") {
		if strings.Contains(l, w.want) && !w.told {
			w.seen <- l
			w.told = true
		}
	}
	return len(p), nil
}

func (w *lineWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// TestDevCommand: ptc dev prints its address with the token, serves it,
// warns of an address off the loopback, and ends when its context does.
func TestDevCommand(t *testing.T) {
	for _, c := range []struct {
		addr string
		warn bool
	}{{"127.0.0.1:0", false}, {"0.0.0.0:0", true}} {
		t.Run(c.addr, func(t *testing.T) {
			dir := devFolder(t)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			env := testEnv(llmtest.NewScript(devReplies()...).Func(), nil)
			env.Ctx = ctx
			seen := make(chan string, 1)
			w := &lineWriter{want: "/?token=", seen: seen}
			code := make(chan int, 1)
			go func() { code <- cmdDev(env, []string{dir, "--addr", c.addr}, io.Discard, w) }()
			line := <-seen
			u, ok := strings.CutPrefix(line, "ptc dev: ")
			if !ok || !strings.HasPrefix(u, "http://") {
				t.Fatalf("line %q", line)
			}
			if !strings.HasPrefix(u, "http://127.0.0.1:") {
				t.Errorf("address %s, want one on 127.0.0.1", u)
			}
			req, _ := http.NewRequest("GET", u, nil)
			client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusSeeOther {
				t.Errorf("GET %s: %d", u, resp.StatusCode)
			}
			cancel()
			if got := <-code; got != base.ExitOK {
				t.Errorf("exit %d", got)
			}
			if warned := strings.Contains(w.String(), "warning: 0.0.0.0 is not a loopback address"); warned != c.warn {
				t.Errorf("warning %v, want %v: %s", warned, c.warn, w.String())
			}
		})
	}
}

// TestDevShutdown: shutting the server down cancels the running missions
// and waits until they are saved.
func TestDevShutdown(t *testing.T) {
	called := make(chan struct{}, 1)
	h := newDevHarness(t, devFolder(t), func() llm.Func { return blockingModel(called) })
	id := h.startRun(map[string]any{"agent": "digest"})
	<-called
	h.s.Close()
	if _, err := os.Stat(filepath.Join(h.dir, ".ptc-runs", id+".json")); err != nil {
		t.Fatal(err)
	}
	if sum := summaryOf(t, h.dir, id); sum.Status != "cancelled" {
		t.Errorf("the saved run: %+v", sum)
	}
	h.call("POST", "/api/runs", map[string]any{"agent": "digest"}, http.StatusServiceUnavailable, nil)
}

// TestDevReplayRefusesMCP: a run whose agent had MCP tools is not
// replayed (a replay starts no server).
func TestDevReplayRefusesMCP(t *testing.T) {
	h := newDevHarness(t, devFolder(t), nil)
	id := h.startRun(map[string]any{"agent": "digest"})
	h.finish(id)
	runs := filepath.Join(h.dir, ".ptc-runs")
	doc, _ := os.ReadFile(filepath.Join(runs, id+".json"))
	withMCP := bytes.Replace(doc, []byte(`"ptc_dev": {`), []byte(`"ptc_dev": {"mcp": true,`), 1)
	if bytes.Equal(withMCP, doc) {
		t.Fatal("no ptc_dev field in the saved run")
	}
	other := "20200101-000000-0001"
	if err := os.WriteFile(filepath.Join(runs, other+".json"), withMCP, 0o644); err != nil {
		t.Fatal(err)
	}
	b := h.call("POST", "/api/runs/"+other+"/replay", nil, 400, nil)
	if !strings.Contains(string(b), "--replay-mcp") {
		t.Errorf("refusal: %s", b)
	}
	// With an mcp: in the recorded agent text, the command names the
	// configuration beside the agent file, not one beside the recording
	// (where ptc run --replay-mcp would look).
	withFile := bytes.Replace(withMCP, []byte(`description: Counts`), []byte(`mcp: tools.json\ndescription: Counts`), 1)
	if bytes.Equal(withFile, withMCP) {
		t.Fatal("no description in the recorded agent text")
	}
	third := "20200101-000000-0002"
	if err := os.WriteFile(filepath.Join(runs, third+".json"), withFile, 0o644); err != nil {
		t.Fatal(err)
	}
	b = h.call("POST", "/api/runs/"+third+"/replay", nil, 400, nil)
	if want := "--mcp " + filepath.Join(h.dir, "tools.json"); !strings.Contains(string(b), want) {
		t.Errorf("refusal %s lacks %s", b, want)
	}
}

// TestDevTestRouteCancelled: the test cases run for as long as the client
// waits.
func TestDevTestRouteCancelled(t *testing.T) {
	called, returned := make(chan struct{}, 8), make(chan struct{}, 8)
	h := newDevHarness(t, devFolder(t), func() llm.Func {
		return func(ctx context.Context, req llm.Request) (llm.Response, error) {
			called <- struct{}{}
			<-ctx.Done()
			returned <- struct{}{}
			return llm.Response{}, ctx.Err()
		}
	})
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "POST", h.ts.URL+"/api/agents/digest/test", nil)
	req.Header.Set("Authorization", "Bearer "+h.s.Token())
	errc := make(chan error, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		errc <- err
	}()
	<-called
	cancel()
	<-returned // the mission's model call saw the request end
	if err := <-errc; err == nil {
		t.Error("the request did not end with the client")
	}
}

// TestDevRunOverrideErrors: a bad override is refused, saying which.
func TestDevRunOverrideErrors(t *testing.T) {
	h := newDevHarness(t, devFolder(t), nil)
	for _, c := range []struct {
		body map[string]any
		want string
	}{
		{map[string]any{"agent": "digest", "max_turns": -2}, "max_turns"},
		{map[string]any{"agent": "digest", "limits": map[string]any{"max_depth": "deep"}}, "max-depth"},
		{map[string]any{"agent": "digest", "limits": map[string]any{"speed": 1}}, "unknown limit"},
		{map[string]any{"agent": "digest", "input": map[string]any{"topic": 3}}, "input"},
		{map[string]any{"agent": "digest", "input": "Go"}, "input"},
		{map[string]any{"agent": "nope"}, "agent"},
		{map[string]any{"agent": "digest", "frob": 1}, "frob"},
	} {
		b := h.call("POST", "/api/runs", c.body, 400, nil)
		if !strings.Contains(string(b), c.want) {
			t.Errorf("%v: %s, want it to name %s", c.body, b, c.want)
		}
	}
}

// TestDevOpen: --open hands the printed address, token included, to
// $BROWSER.
func TestDevOpen(t *testing.T) {
	dir := devFolder(t)
	opened := filepath.Join(t.TempDir(), "opened")
	browser := filepath.Join(t.TempDir(), "browser.sh")
	if err := os.WriteFile(browser, []byte("#!/bin/sh\nprintf '%s' \"$1\" > "+opened+".tmp && mv "+opened+".tmp "+opened+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	env := testEnv(llmtest.NewScript(devReplies()...).Func(), nil)
	env.Ctx = ctx
	env.Getenv = func(k string) string {
		if k == "BROWSER" {
			return browser
		}
		return ""
	}
	seen := make(chan string, 1)
	w := &lineWriter{want: "/?token=", seen: seen}
	code := make(chan int, 1)
	go func() { code <- cmdDev(env, []string{dir, "--open"}, io.Discard, w) }()
	printed := strings.TrimPrefix(<-seen, "ptc dev: ")
	// The browser is another process: wait for its file, bounded by the
	// test's own deadline rather than a timer.
	var got []byte
	for {
		b, err := os.ReadFile(opened)
		if err == nil {
			got = b
			break
		}
		if d, ok := t.Deadline(); ok && time.Until(d) < 5*time.Second {
			t.Fatal("$BROWSER was never started")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if string(got) != printed {
		t.Errorf("$BROWSER got %q, want the printed address %q", got, printed)
	}
	cancel()
	if c := <-code; c != base.ExitOK {
		t.Errorf("exit %d", c)
	}
}

// TestDevRunModel: the model the agent page shows for an agent is the one
// a run uses when the page names none, in ptc run's order: ptc dev's
// --model before the file's model: (docs/dev.md).
func TestDevRunModel(t *testing.T) {
	dir := devFolder(t)
	text := strings.Replace(devDigest, "description:", "model: other:model\ndescription:", 1)
	if err := os.WriteFile(filepath.Join(dir, "digest.md"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	h := newDevHarness(t, dir, nil)
	var list struct{ Agents []devAgent }
	h.call("GET", "/api/agents", nil, 200, &list)
	var found bool
	for _, a := range list.Agents {
		if a.Name == "digest" {
			found = true
			if a.Model != "other:model" || a.RunModel != "script:dev" {
				t.Errorf("model %q, run_model %q", a.Model, a.RunModel)
			}
		}
	}
	if !found {
		t.Fatal("no digest agent")
	}
	sum := h.finish(h.startRun(map[string]any{"agent": "digest"}))
	if sum.Model != "script:dev" {
		t.Errorf("the run used %q", sum.Model)
	}
}

// The API's answers, as the page reads them (package workbench's JSON).
type (
	devAgent struct {
		Name        string          `json:"name"`
		File        string          `json:"file"`
		Error       string          `json:"error"`
		Description string          `json:"description"`
		Model       string          `json:"model"`
		RunModel    string          `json:"run_model"`
		Signature   string          `json:"signature"`
		Output      string          `json:"output"`
		Inputs      []devInput      `json:"inputs"`
		Context     json.RawMessage `json:"context"`
		Tools       []string        `json:"tools"`
		ToolsFrom   string          `json:"tools_from"`
		CanList     bool            `json:"can_list_tools"`
		MCP         string          `json:"mcp"`
		Prompt      string          `json:"prompt"`
		MaxTurns    int             `json:"max_turns"`
		Editable    bool            `json:"editable"`
		Limits      struct {
			Timeout   string `json:"timeout"`
			MaxMemory string `json:"max_memory"`
		} `json:"limits"`
		Cases []struct {
			Name  string
			Input json.RawMessage
		} `json:"cases"`
		CasesError string `json:"cases_error"`
	}
	devInput struct {
		Name, Type, Kind string
		Optional         bool
		Value            json.RawMessage
	}
	runSummary struct {
		ID          string                            `json:"id"`
		Agent       string                            `json:"agent"`
		Model       string                            `json:"model"`
		Status      string                            `json:"status"`
		Turns       int                               `json:"turns"`
		Tokens      llm.Tokens                        `json:"tokens"`
		LLMRequests int                               `json:"llm_requests"`
		Result      string                            `json:"result"`
		Fail        *struct{ Reason, Message string } `json:"fail"`
		ReplayOf    string                            `json:"replay_of"`
		Replay      *struct {
			Matches  bool   `json:"matches"`
			Mismatch string `json:"mismatch"`
		} `json:"replay"`
		Edited bool `json:"edited"`
	}
	devTurn struct {
		Program    string                                `json:"program"`
		Response   string                                `json:"response"`
		Tokens     llm.Tokens                            `json:"tokens"`
		LLMRetries []runcmd.TraceRetry                   `json:"llm_retries"`
		ToolCalls  []struct{ Name, Args, Result string } `json:"tool_calls"`
	}
	devTestRow struct {
		Case   string `json:"case"`
		Passed bool   `json:"passed"`
		Detail string `json:"detail"`
		Turns  int    `json:"turns"`
		Return string `json:"return"`
	}
)

// devRunIDForm is the form of a run's id.
var devRunIDForm = regexp.MustCompile(`^[0-9]{8}-[0-9]{6}-[0-9a-f]{4}$`)

// summaryOf reads the summary of a saved run the way the history does:
// through the workbench's API, from another server on the same folder.
func summaryOf(t *testing.T, dir, id string) runSummary {
	t.Helper()
	h := newDevHarness(t, dir, nil)
	var out struct{ Runs []runSummary }
	h.call("GET", "/api/runs", nil, 200, &out)
	for _, r := range out.Runs {
		if r.ID == id {
			return r
		}
	}
	t.Fatalf("no run %s in the history", id)
	return runSummary{}
}

// TestDevMCPTools: an agent file with mcp: lists its MCP tools from its
// last run; before it has one, the page may list them on demand, which
// starts its servers (and the listing of the agents starts none).
func TestDevMCPTools(t *testing.T) {
	s := newMCPSuite(t)
	h := newDevHarness(t, s.dir, func() llm.Func { return mcpAdder })
	find := func() devAgent {
		t.Helper()
		var list struct{ Agents []devAgent }
		h.call("GET", "/api/agents", nil, 200, &list)
		for _, a := range list.Agents {
			if a.Name == "adder" {
				return a
			}
		}
		t.Fatal("no adder agent")
		return devAgent{}
	}
	a := find()
	if a.MCP != "tools.json" || a.ToolsFrom != "" || !a.CanList || strings.Join(a.Tools, ",") != "lookup" {
		t.Errorf("before a run: %+v", a)
	}
	if s.started() {
		t.Fatal("listing the agents started the MCP server")
	}
	var listed struct{ Tools []string }
	h.call("POST", "/api/agents/adder/tools", nil, 200, &listed)
	if got := strings.Join(listed.Tools, ","); !strings.Contains(got, "up.add") || !strings.Contains(got, "lookup") || !s.started() {
		t.Errorf("on demand: %s (server started: %v)", got, s.started())
	}
	s.forget(t)
	id := h.startRun(map[string]any{"agent": "adder", "input": map[string]any{"a": 1, "b": 2}})
	if sum := h.finish(id); sum.Status != "ok" {
		t.Fatalf("the run: %+v", sum)
	}
	s.forget(t)
	a = find()
	if got := strings.Join(a.Tools, ","); a.ToolsFrom != id || !strings.Contains(got, "up.add") || !strings.Contains(got, "up.secret") {
		t.Errorf("after a run: tools %s from %q, want up.add and up.secret from %s", got, a.ToolsFrom, id)
	}
	if s.started() {
		t.Error("listing the agents started the MCP server")
	}
}
