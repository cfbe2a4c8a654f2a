package workbench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/agent/trace"
	"github.com/ptc-go/ptc/eval"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm"
	"github.com/ptc-go/ptc/llm/llmtest"
)

// secret is a firewalled value of the test agents' input: no response
// may hold it.
const secret = "s3cr3t-GO-0042"

// weatherTool is a typed Go tool.
func weatherTool() agent.Tool {
	type query struct {
		City string `json:"city"`
	}
	type weather struct {
		TempC float64 `json:"temp_c"`
	}
	return agent.NewTool("Current weather of a city.", func(_ context.Context, q query) (weather, error) {
		return weather{TempC: float64(len(q.City))}, nil
	})
}

// lookupTool is an untyped Go tool.
func lookupTool() agent.Tool {
	return agent.Tool{Description: "Looks notes up.", Func: func(_ context.Context, args *lisp.Map) (any, error) {
		return []any{"a", "b"}, nil
	}}
}

// scripted answers the test agents: weather calls its tool then returns,
// notes returns at once.
func scripted() llm.Func {
	s := &llmtest.Script{Respond: func(req llm.Request) llmtest.Reply {
		switch {
		case strings.Contains(req.Prompt, "weather") && req.Turn == 1:
			return llmtest.Code(`(println "token:" ctx/_token)` + "\n" + `(def w (tool/weather {:city ctx/city}))` + "\n" + `w`)
		case strings.Contains(req.Prompt, "weather"):
			return llmtest.Code(`(return {:temp_c (:temp_c w)})`)
		}
		return llmtest.Code(`(return {:count (count (tool/lookup {:q ctx/topic}))})`)
	}}
	return s.Func()
}

// goAgents are the agents of the tests: Go agents, one with a typed
// tool, one with an untyped tool and cases.
func goAgents() []Agent {
	return []Agent{
		{Name: "weather", ModelName: "script",
			Config: agent.Config{Prompt: "Tell the weather of {{city}}.", Signature: "(city :string) -> {temp_c :float}", MaxTurns: 3,
				Tools: map[string]agent.Tool{"weather": weatherTool()}},
			Input: map[string]any{"city": "Oslo", "_token": secret}},
		{Name: "team/notes", Description: "Counts notes.", ModelName: "script",
			Config: agent.Config{Prompt: "Count the notes about {{topic}}.", Signature: "(topic :string) -> {count :int}", MaxTurns: 2,
				Tools: map[string]agent.Tool{"lookup": lookupTool()}},
			Input: map[string]any{"topic": "Go"},
			Cases: []eval.Case{
				{Name: "two", Input: map[string]any{"topic": "Go"}, Checks: []eval.Check{eval.Equals(lisp.NewMap(lisp.Keyword("count"), int64(2)))}},
				{Name: "five", Input: map[string]any{"topic": "Rust"}, Checks: []eval.Check{eval.Equals(lisp.NewMap(lisp.Keyword("count"), int64(5)))}},
			}},
	}
}

// harness is a workbench served by httptest.
type harness struct {
	t    *testing.T
	ts   *httptest.Server
	w    *Workbench
	runs string
}

// newHarness serves opts (Addr, Runs, Log and Models filled in when
// unset) until the test ends.
func newHarness(t *testing.T, opts Options) *harness {
	t.Helper()
	h := &harness{t: t, ts: httptest.NewUnstartedServer(nil)}
	opts.Addr = h.ts.Listener.Addr().String()
	if opts.Runs == "" {
		opts.Runs = filepath.Join(t.TempDir(), "runs")
	}
	if opts.Log == nil {
		opts.Log = io.Discard
	}
	if opts.Models == nil {
		opts.Models = func(_ context.Context, name string) (llm.Func, error) {
			if name != "script" {
				return nil, fmt.Errorf("no model %s", name)
			}
			return scripted(), nil
		}
	}
	if opts.Agents == nil && opts.List == nil {
		opts.Agents = goAgents()
	}
	h.runs = opts.Runs
	w, err := New(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	h.w = w
	h.ts.Config.Handler = w
	h.ts.Start()
	t.Cleanup(func() {
		w.Close()
		h.ts.Close()
	})
	return h
}

// req sends a request with the token (as a bearer) unless hdr says
// otherwise ("Authorization": "" sends none).
func (h *harness) req(method, path string, body any, hdr map[string]string) *http.Response {
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
	r.Header.Set("Authorization", "Bearer "+h.w.Token())
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
func (h *harness) call(method, path string, body any, want int, out any) []byte {
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

type sseEvent struct {
	name string
	data []byte
}

// stream reads a run's event stream to its end.
func (h *harness) stream(id string) []sseEvent {
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

func (h *harness) startRun(body map[string]any) string {
	h.t.Helper()
	var out struct{ ID, Agent, Model string }
	h.call("POST", "/api/runs", body, http.StatusCreated, &out)
	if !runIDForm().MatchString(out.ID) {
		h.t.Fatalf("run id %q", out.ID)
	}
	return out.ID
}

func (h *harness) finish(id string) runSummary {
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

func (h *harness) agents() map[string]apiAgent {
	h.t.Helper()
	var out struct{ Agents []apiAgent }
	h.call("GET", "/api/agents", nil, 200, &out)
	m := map[string]apiAgent{}
	for _, a := range out.Agents {
		m[a.Name] = a
	}
	return m
}

func TestAuth(t *testing.T) {
	h := newHarness(t, Options{Name: "my bench"})
	tok := h.w.Token()
	if len(tok) != 32 {
		t.Fatalf("token %q: want 128 bits in hex", tok)
	}
	noAuth := map[string]string{"Authorization": ""}
	for _, c := range []struct {
		name, path string
		hdr        map[string]string
		want       int
		body       string
	}{
		{"no token, page", "/", noAuth, 401, "Open the address my bench printed"},
		{"no token, api", "/api/agents", noAuth, 401, "unauthorized"},
		{"wrong token in the URL", "/?token=" + strings.Repeat("0", 32), noAuth, 401, ""},
		{"wrong bearer", "/api/agents", map[string]string{"Authorization": "Bearer " + strings.Repeat("0", 32)}, 401, ""},
		{"wrong cookie", "/api/agents", map[string]string{"Authorization": "", "Cookie": h.w.cookie + "=nope"}, 401, ""},
		{"bearer", "/api/agents", nil, 200, `"agents"`},
		{"cookie", "/api/agents", map[string]string{"Authorization": "", "Cookie": h.w.cookie + "=" + tok}, 200, `"agents"`},
		{"page with the cookie", "/", map[string]string{"Authorization": "", "Cookie": h.w.cookie + "=" + tok}, 200, "<html"},
	} {
		t.Run(c.name, func(t *testing.T) {
			resp := h.req("GET", c.path, nil, c.hdr)
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != c.want || !strings.Contains(string(b), c.body) {
				t.Errorf("status %d, body %.200q; want %d with %q", resp.StatusCode, b, c.want, c.body)
			}
		})
	}
	resp := h.req("GET", "/?token="+tok, nil, noAuth)
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/" {
		t.Fatalf("token: status %d, Location %q; want 303 to /", resp.StatusCode, resp.Header.Get("Location"))
	}
	cookies := resp.Cookies()
	if len(cookies) != 1 {
		t.Fatalf("cookies %v", cookies)
	}
	c := cookies[0]
	if c.Name != h.w.cookie || c.Value != tok || !c.HttpOnly || c.SameSite != http.SameSiteStrictMode || c.Path != "/" {
		t.Errorf("cookie %+v", c)
	}
	if u := h.w.URL(); u != h.ts.URL+"/?token="+tok {
		t.Errorf("URL %s", u)
	}
}

func TestHostAndOrigin(t *testing.T) {
	h := newHarness(t, Options{})
	_, port, _ := strings.Cut(strings.TrimPrefix(h.ts.URL, "http://"), ":")
	body := map[string]any{"agent": "nope"}
	for _, c := range []struct {
		name, method, path string
		body               any
		hdr                map[string]string
		want               int
	}{
		{"other Host", "GET", "/api/agents", nil, map[string]string{"Host": "evil.example:" + port}, 403},
		{"other port", "GET", "/api/agents", nil, map[string]string{"Host": "127.0.0.1:1"}, 403},
		{"localhost", "GET", "/api/agents", nil, map[string]string{"Host": "localhost:" + port}, 200},
		{"other Origin", "POST", "/api/runs", body, map[string]string{"Origin": "http://evil.example"}, 403},
		{"Origin of another port", "POST", "/api/runs", body, map[string]string{"Origin": "http://127.0.0.1:1"}, 403},
		{"cross-site fetch", "POST", "/api/runs", body, map[string]string{"Sec-Fetch-Site": "cross-site"}, 403},
		{"same origin", "POST", "/api/runs", body, map[string]string{"Origin": h.ts.URL}, 400},
		{"form post", "POST", "/api/runs", nil, map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, 415},
		{"GET on a mutation", "GET", "/api/runs/20260101-000000-abcd/cancel", nil, nil, 405},
		{"PUT", "PUT", "/api/runs", body, nil, 405},
	} {
		t.Run(c.name, func(t *testing.T) {
			resp := h.req(c.method, c.path, c.body, c.hdr)
			resp.Body.Close()
			if resp.StatusCode != c.want {
				t.Errorf("status %d, want %d", resp.StatusCode, c.want)
			}
		})
	}
	big := map[string]any{"agent": "weather", "input": map[string]any{"city": strings.Repeat("x", 1<<20)}}
	resp := h.req("POST", "/api/runs", big, nil)
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("a 1 MiB body: status %d, want 413", resp.StatusCode)
	}
}

func TestHeaders(t *testing.T) {
	h := newHarness(t, Options{})
	id := h.startRun(map[string]any{"agent": "weather"})
	h.finish(id)
	for _, c := range []struct{ path, csp, ctype string }{
		{"/", appCSP, "text/html"},
		{"/app.js", appCSP, "text/javascript"},
		{"/style.css", appCSP, "text/css"},
		{"/lib.js", appCSP, "text/javascript"},
		{"/trace.css", appCSP, "text/css"},
		{"/api/agents", appCSP, "application/json"},
		{"/runs/" + id + "/view", traceCSP, "text/html"},
	} {
		resp := h.req("GET", c.path, nil, nil)
		resp.Body.Close()
		hd := resp.Header
		if resp.StatusCode != 200 || hd.Get("Content-Security-Policy") != c.csp || !strings.HasPrefix(hd.Get("Content-Type"), c.ctype) ||
			hd.Get("X-Content-Type-Options") != "nosniff" || hd.Get("Referrer-Policy") != "no-referrer" || hd.Get("Cache-Control") != "no-store" {
			t.Errorf("%s: status %d, headers %v", c.path, resp.StatusCode, hd)
		}
	}
}

// TestRunIDs: an id that is not a run id's form never reaches the file
// system.
func TestRunIDs(t *testing.T) {
	h := newHarness(t, Options{})
	if err := os.MkdirAll(h.runs, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(filepath.Dir(h.runs), "secret.json"), []byte(`{"format":"ptc-trace"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{
		"/api/runs/..%2fsecret/trace", "/api/runs/..%2F..%2Fsecret", "/api/runs/%2e%2e/trace", "/runs/..%2fsecret/view",
		"/api/runs/20260101-000000-abcd%2f..%2f..%2fsecret/trace", "/api/runs/20260101-000000-ABCD/trace",
	} {
		resp := h.req("GET", p, nil, nil)
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode < 400 || strings.Contains(string(b), "ptc-trace") {
			t.Errorf("%s: status %d, body %.100q", p, resp.StatusCode, b)
		}
	}
	h.call("POST", "/api/runs/..%2fsecret/cancel", nil, 400, nil)
	h.call("POST", "/api/runs/20260101-000000-abcd/cancel", nil, 404, nil)
	h.call("GET", "/api/runs/20260101-000000-abcd", nil, 404, nil)
}

// TestGoAgents: Go agents are listed with their signature, form, tools
// (the typed one and the untyped one), input, cases and model; they are
// not editable and list their tools without a button.
func TestGoAgents(t *testing.T) {
	h := newHarness(t, Options{Title: "my agents"})
	var out struct {
		Dir, Name      string
		Files          bool
		CanChooseModel bool `json:"can_choose_model"`
		Agents         []apiAgent
	}
	h.call("GET", "/api/agents", nil, 200, &out)
	if out.Dir != "my agents" || out.Files || out.Name != "workbench" || !out.CanChooseModel || len(out.Agents) != 2 ||
		out.Agents[0].Name != "weather" || out.Agents[1].Name != "team/notes" {
		t.Fatalf("agents: %+v", out)
	}
	w := out.Agents[0]
	if w.Error != "" || w.File != "" || w.Signature != "(city :string) -> {temp_c :float}" || strings.Join(w.Tools, ",") != "weather" ||
		w.Editable || w.CanListTools || w.RunModel != "script" || w.Prompt != "Tell the weather of {{city}}." || w.MaxTurns != 3 ||
		len(w.Inputs) != 1 || string(w.Inputs[0].Value) != `"Oslo"` || w.Limits.Timeout != "" {
		t.Errorf("weather: %+v", w)
	}
	var ctxJSON map[string]any
	if err := json.Unmarshal(w.Context, &ctxJSON); err != nil || ctxJSON["_token"] != "<Firewalled>" || ctxJSON["city"] != "Oslo" {
		t.Errorf("weather's context: %s", w.Context)
	}
	n := out.Agents[1]
	if n.Description != "Counts notes." || strings.Join(n.Tools, ",") != "lookup" || len(n.Cases) != 2 || string(n.Cases[1].Input) != `{"topic":"Rust"}` {
		t.Errorf("team/notes: %+v", n)
	}
}

// TestGoRun: a Go agent's run streams its events, calls its typed Go tool,
// is saved as a recording that trace.Unmarshal reads, and replays offline
// to the same end.
func TestGoRun(t *testing.T) {
	h := newHarness(t, Options{})
	id := h.startRun(map[string]any{"agent": "weather", "input": map[string]any{"city": "Lisbon"}})
	evs := h.stream(id)
	var tool map[string]any
	for _, e := range evs {
		var m map[string]any
		if e.name == "agent" && json.Unmarshal(e.data, &m) == nil && m["kind"] == "tool.stop" {
			tool = m
		}
	}
	if tool == nil || tool["tool"] != "weather" || tool["args"] != `{:city "Lisbon"}` {
		t.Errorf("tool.stop: %v", tool)
	}
	var sum runSummary
	if err := json.Unmarshal(evs[len(evs)-1].data, &sum); err != nil {
		t.Fatal(err)
	}
	if sum.Status != "ok" || sum.Result != "{:temp_c 6.0}" || sum.Model != "script" || sum.Turns != 2 || sum.File != "" {
		t.Errorf("summary %+v", sum)
	}
	doc, err := os.ReadFile(filepath.Join(h.runs, id+".json"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := trace.Unmarshal(doc); err != nil {
		t.Errorf("the saved run is no trace: %v", err)
	}
	if _, err := trace.ReadRecording(doc); err != nil {
		t.Errorf("the saved run is no recording: %v", err)
	}
	var detail struct {
		Prompt string
		Turns  []apiTurn
	}
	h.call("GET", "/api/runs/"+id, nil, 200, &detail)
	if detail.Prompt != "Tell the weather of {{city}}." || len(detail.Turns) != 2 || len(detail.Turns[0].ToolCalls) != 1 {
		t.Errorf("the run's detail: %+v", detail)
	}
	var started map[string]string
	h.call("POST", "/api/runs/"+id+"/replay", nil, 201, &started)
	rs := h.finish(started["id"])
	if rs.ReplayOf != id || rs.Replay == nil || !rs.Replay.Matches || rs.Result != "{:temp_c 6.0}" {
		t.Errorf("replay %+v (%+v)", rs, rs.Replay)
	}
	var list struct{ Runs []runSummary }
	h.call("GET", "/api/runs?agent=weather", nil, 200, &list)
	if len(list.Runs) != 2 {
		t.Errorf("history: %+v", list.Runs)
	}
}

// TestGoModels: the model of a run is the page's, else Options.Model,
// else the agent's ModelName (resolved by Options.Models), else its Model.
func TestGoModels(t *testing.T) {
	var own atomic.Int32
	ownModel := func(ctx context.Context, req llm.Request) (llm.Response, error) {
		own.Add(1)
		return scripted()(ctx, req)
	}
	agents := goAgents()
	agents[1].ModelName, agents[1].Model = "", ownModel
	h := newHarness(t, Options{Agents: agents})
	if a := h.agents()["team/notes"]; a.RunModel != "model" || a.Model != "model" {
		t.Errorf("the run model of an agent with a Model: %q %q", a.RunModel, a.Model)
	}
	if sum := h.finish(h.startRun(map[string]any{"agent": "team/notes"})); sum.Model != "model" || sum.Status != "ok" || own.Load() != 1 {
		t.Errorf("with the agent's model: %+v, %d calls", sum, own.Load())
	}
	if sum := h.finish(h.startRun(map[string]any{"agent": "team/notes", "model": "script"})); sum.Model != "script" || own.Load() != 1 {
		t.Errorf("with the page's model: %+v", sum)
	}
	b := h.call("POST", "/api/runs", map[string]any{"agent": "team/notes", "model": "other"}, 400, nil)
	if !strings.Contains(string(b), "no model other") {
		t.Errorf("an unknown model: %s", b)
	}
	noNames := newHarness(t, Options{Agents: goAgents(), Models: nil})
	noNames.w.opts.Models = nil
	b = noNames.call("POST", "/api/runs", map[string]any{"agent": "weather"}, 400, nil)
	if !strings.Contains(string(b), "resolves no model names") {
		t.Errorf("without Models: %s", b)
	}
}

// TestGoTests: a Go agent's cases run with the chosen model, each input
// over the agent's Input.
func TestGoTests(t *testing.T) {
	h := newHarness(t, Options{})
	var out struct {
		Agent, Model  string
		Rows          []testRow
		Passed, Total int
	}
	h.call("POST", "/api/agents/team/notes/test", nil, 200, &out)
	if out.Agent != "team/notes" || out.Model != "script" || out.Total != 2 || out.Passed != 1 {
		t.Fatalf("test: %+v", out)
	}
	for _, r := range out.Rows {
		if r.Case == "two" && (!r.Passed || r.Return != "{:count 2}") || r.Case == "five" && (r.Passed || r.Detail == "") {
			t.Errorf("row %+v", r)
		}
	}
	h.call("POST", "/api/agents/weather/test", nil, 404, nil)
	h.call("POST", "/api/agents/nope/test", nil, 404, nil)
}

// TestGoNotEditable: the page cannot edit or save a Go agent.
func TestGoNotEditable(t *testing.T) {
	h := newHarness(t, Options{})
	b := h.call("POST", "/api/runs", map[string]any{"agent": "weather", "prompt": "Other."}, 400, nil)
	if !strings.Contains(string(b), "cannot be edited") {
		t.Errorf("an edited run: %s", b)
	}
	h.call("POST", "/api/agents/weather/save", map[string]any{"prompt": "Other."}, 404, nil)
	h.call("POST", "/api/agents/weather/tools", nil, 404, nil)
}

// TestGoFirewall: the firewalled input shows in no response, the stream,
// the saved file and the trace page included.
func TestGoFirewall(t *testing.T) {
	h := newHarness(t, Options{})
	id := h.startRun(map[string]any{"agent": "weather"})
	var all bytes.Buffer
	for _, e := range h.stream(id) {
		all.Write(e.data)
	}
	for _, p := range []string{"/api/agents", "/api/runs", "/api/runs/" + id, "/api/runs/" + id + "/trace", "/runs/" + id + "/view"} {
		all.Write(h.call("GET", p, nil, 200, nil))
	}
	b, _ := os.ReadFile(filepath.Join(h.runs, id+".json"))
	all.Write(b)
	if strings.Contains(all.String(), secret) {
		t.Fatal("the firewalled value is in a response")
	}
	if !strings.Contains(all.String(), "token: <Firewalled>") {
		t.Error("the program's output is not in the responses, scrubbed")
	}
}

// mcpSource is a Source whose tools come from "servers" started for each
// run (an MCP agent), and listed on demand.
type mcpSource struct {
	listed, closed atomic.Int32
}

func (s *mcpSource) agent() (*agent.Agent, error) {
	return agent.New(agent.Config{Prompt: "Count the notes about {{topic}}.", Signature: "(topic :string) -> {count :int}",
		Tools: map[string]agent.Tool{"lookup": lookupTool(), "remote": lookupTool()}})
}

func (s *mcpSource) Mission(context.Context, *Edit) (*Mission, error) {
	a, err := s.agent()
	if err != nil {
		return nil, err
	}
	return &Mission{Agent: a, Context: lisp.NewMap("topic", "Go"), MCP: true, File: "remote.md", Text: []byte("Count the notes about {{topic}}."),
		Close: func() { s.closed.Add(1) }}, nil
}

func (s *mcpSource) Replay(string, string, bool) (*agent.Agent, error) { return s.agent() }

func (s *mcpSource) ListTools(context.Context) ([]string, error) {
	s.listed.Add(1)
	return []string{"remote", "lookup"}, nil
}

// TestToolsListing: an agent whose tools come from MCP servers lists them
// from its last saved run; before it has one, on demand (POST
// /api/agents/NAME/tools, which starts the servers) when its Source can.
func TestToolsListing(t *testing.T) {
	src := &mcpSource{}
	agents := append(goAgents(), Agent{Name: "remote", ModelName: "script", MCP: "servers.json", Source: src,
		Config: agent.Config{Prompt: "Count the notes about {{topic}}.", Signature: "(topic :string) -> {count :int}"}},
		Agent{Name: "remote-nolist", ModelName: "script", MCP: "servers.json", Source: struct{ Source }{src},
			Config: agent.Config{Prompt: "Hi."}})
	h := newHarness(t, Options{Agents: agents})
	a := h.agents()
	if r := a["remote"]; len(r.Tools) != 0 || r.ToolsFrom != "" || !r.CanListTools || r.MCP != "servers.json" {
		t.Errorf("remote before a run: %+v", r)
	}
	if r := a["remote-nolist"]; r.CanListTools {
		t.Errorf("a source that is no ToolLister: %+v", r)
	}
	if src.listed.Load() != 0 {
		t.Error("listing the agents started the servers")
	}
	var listed struct{ Tools []string }
	h.call("POST", "/api/agents/remote/tools", nil, 200, &listed)
	if strings.Join(listed.Tools, ",") != "lookup,remote" || src.listed.Load() != 1 {
		t.Errorf("on demand: %v (%d)", listed.Tools, src.listed.Load())
	}
	h.call("POST", "/api/agents/remote-nolist/tools", nil, 404, nil)

	id := h.startRun(map[string]any{"agent": "remote"})
	if sum := h.finish(id); sum.Status != "ok" || sum.Result != "{:count 2}" {
		t.Fatalf("the run: %+v", sum)
	}
	if src.closed.Load() != 1 {
		t.Errorf("the run's mission was closed %d times, want 1", src.closed.Load())
	}
	r := h.agents()["remote"]
	if strings.Join(r.Tools, ",") != "lookup,remote" || r.ToolsFrom != id {
		t.Errorf("remote after a run: tools %v from %q, want lookup,remote from %s", r.Tools, r.ToolsFrom, id)
	}
	// Another workbench on the same runs folder reads them too.
	h2 := newHarness(t, Options{Agents: agents, Runs: h.runs})
	if r := h2.agents()["remote"]; r.ToolsFrom != id {
		t.Errorf("after a restart: %+v", r)
	}
	if src.listed.Load() != 1 {
		t.Error("the listings started the servers")
	}
}

// TestEventBuffer: a run keeps at most maxEvents events; a stream that
// starts after the oldest went says how many it missed.
func TestEventBuffer(t *testing.T) {
	h := newHarness(t, Options{})
	run := &liveRun{id: "20260101-000000-abcd", wake: make(chan struct{}), meta: runMeta{Agent: "weather"}}
	for i := range maxEvents + 5 {
		run.Observe(context.Background(), &agent.Event{Kind: agent.TurnStart, Turn: i + 1})
	}
	if run.dropped != 5 || len(run.events) != maxEvents {
		t.Fatalf("dropped %d, kept %d", run.dropped, len(run.events))
	}
	run.end(runSummary{ID: run.id, Status: "ok"})
	h.w.mu.Lock()
	h.w.runs[run.id] = run
	h.w.mu.Unlock()
	evs := h.stream(run.id)
	if len(evs) != maxEvents+2 || evs[0].name != "note" || !strings.Contains(string(evs[0].data), `"dropped":5`) ||
		!strings.Contains(string(evs[1].data), `"turn":6`) || evs[len(evs)-1].name != "done" {
		t.Errorf("%d events, first %s %s", len(evs), evs[0].name, evs[0].data)
	}
}

// TestEventBytes: a run keeps at most maxEventMem bytes of events.
func TestEventBytes(t *testing.T) {
	run := &liveRun{wake: make(chan struct{})}
	big := strings.Repeat("x", 1<<20)
	for range 12 {
		run.Observe(context.Background(), &agent.Event{Kind: agent.TurnStop, Program: big})
	}
	if run.size > maxEventMem || run.dropped == 0 || len(run.events)+run.dropped != 12 {
		t.Errorf("size %d, dropped %d, kept %d", run.size, run.dropped, len(run.events))
	}
}

// TestRetire: only the last keepEnded ended runs stay in memory.
func TestRetire(t *testing.T) {
	h := newHarness(t, Options{})
	var ids []string
	for i := range keepEnded + 1 {
		id := fmt.Sprintf("20260101-000000-%04x", i)
		ids = append(ids, id)
		h.w.mu.Lock()
		h.w.runs[id] = &liveRun{id: id, wake: make(chan struct{})}
		h.w.mu.Unlock()
		h.w.retire(id)
	}
	if h.w.run(ids[0]) != nil || h.w.run(ids[1]) == nil || len(h.w.runs) != keepEnded {
		t.Errorf("%d runs in memory; the first kept: %v", len(h.w.runs), h.w.run(ids[0]) != nil)
	}
}

// TestTwoServers: two workbenches on one machine keep their cookies apart
// (browsers keep cookies per host, not per port), so opening the second
// does not log the first out.
func TestTwoServers(t *testing.T) {
	a := newHarness(t, Options{})
	b := newHarness(t, Options{})
	if a.w.cookie == b.w.cookie {
		t.Fatalf("both servers name their cookie %s: the second would replace the first's", a.w.cookie)
	}
	both := a.w.cookie + "=" + a.w.Token() + "; " + b.w.cookie + "=" + b.w.Token()
	for _, h := range []*harness{a, b} {
		resp := h.req("GET", "/api/agents", nil, map[string]string{"Authorization": "", "Cookie": both})
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("%s: status %d with both cookies", h.ts.URL, resp.StatusCode)
		}
	}
}

// TestServe: Serve prints the address with its token on the loopback
// interface, serves it, warns of an address off the loopback, and returns
// when its context ends, the running missions cancelled and saved.
func TestServe(t *testing.T) {
	for _, c := range []struct {
		addr string
		warn bool
	}{{"", false}, {"0.0.0.0:0", true}} {
		t.Run(c.addr, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			seen := make(chan string, 1)
			lw := &lineWriter{want: "/?token=", seen: seen}
			called := make(chan struct{}, 1)
			agents := goAgents()
			agents[0].ModelName, agents[0].Model = "", func(ctx context.Context, _ llm.Request) (llm.Response, error) {
				select {
				case called <- struct{}{}:
				default:
				}
				<-ctx.Done()
				return llm.Response{}, ctx.Err()
			}
			runs := t.TempDir()
			done := make(chan error, 1)
			go func() { done <- Serve(ctx, Options{Addr: c.addr, Agents: agents, Runs: runs, Log: lw}) }()
			line := <-seen
			u, ok := strings.CutPrefix(line, "workbench: ")
			if !ok || !strings.HasPrefix(u, "http://127.0.0.1:") {
				t.Fatalf("line %q", line)
			}
			base, tok, _ := strings.Cut(u, "/?token=")
			req, _ := http.NewRequest("POST", base+"/api/runs", strings.NewReader(`{"agent":"weather"}`))
			req.Header.Set("Authorization", "Bearer "+tok)
			req.Header.Set("Content-Type", "application/json")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			var started struct{ ID string }
			json.NewDecoder(resp.Body).Decode(&started)
			resp.Body.Close()
			if resp.StatusCode != http.StatusCreated {
				t.Fatalf("POST /api/runs: %d", resp.StatusCode)
			}
			<-called
			cancel()
			if err := <-done; err != nil {
				t.Errorf("Serve: %v", err)
			}
			if _, err := os.Stat(filepath.Join(runs, started.ID+".json")); err != nil {
				t.Errorf("the cancelled run was not saved: %v", err)
			}
			if warned := strings.Contains(lw.String(), "warning: 0.0.0.0 is not a loopback address"); warned != c.warn {
				t.Errorf("warning %v, want %v: %s", warned, c.warn, lw.String())
			}
		})
	}
}

// lineWriter is a log that tells when a line holding want was written.
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
		if strings.Contains(l, w.want) && !w.told && strings.HasSuffix(w.buf.String(), "\n") {
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

// downSource is a Source whose servers do not start.
type downSource struct{ Source }

func (downSource) Mission(context.Context, *Edit) (*Mission, error) {
	return nil, fmt.Errorf("server up: %w", ErrUnavailable)
}

// TestSourceUnavailable: a run whose Source cannot start a server it
// needs answers 502, with the Source's message; another error 400.
func TestSourceUnavailable(t *testing.T) {
	h := newHarness(t, Options{Agents: []Agent{{Name: "down", ModelName: "script", Config: agent.Config{Prompt: "Hi."}, Source: downSource{}},
		{Name: "broken", ModelName: "script", Error: fmt.Errorf("it does not read")}}})
	if b := h.call("POST", "/api/runs", map[string]any{"agent": "down"}, http.StatusBadGateway, nil); !strings.Contains(string(b), "server up") {
		t.Errorf("502: %s", b)
	}
	if b := h.call("POST", "/api/runs", map[string]any{"agent": "broken"}, http.StatusBadRequest, nil); !strings.Contains(string(b), "does not read") {
		t.Errorf("400: %s", b)
	}
	if a := h.agents()["broken"]; a.Error != "it does not read" {
		t.Errorf("the broken agent: %+v", a)
	}
}
