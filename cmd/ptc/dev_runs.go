package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/agent/agentfile"
	"github.com/ptc-go/ptc/cmd/ptc/internal/base"
	"github.com/ptc-go/ptc/cmd/ptc/internal/load"
	"github.com/ptc-go/ptc/cmd/ptc/internal/runcmd"
	"github.com/ptc-go/ptc/cmd/ptc/internal/tracecmd"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm"
	"github.com/ptc-go/ptc/mcp"
)

// A run of ptc dev is saved as a recording of ptc run (--record's
// ptc-trace document, which ptc trace view and ptc run --replay read) in
// the runs folder, as RUNID.json, with one field of its own at the top,
// "ptc_dev" (devMeta): what its summary needs that the recording does not
// say. Readers of the trace format ignore it. The history is read from
// these files: there is no index to go stale.

// devMeta is the "ptc_dev" field of a saved run.
type devMeta struct {
	Agent     string     `json:"agent"`
	File      string     `json:"file"`
	StartedAt string     `json:"started_at"`
	Edited    bool       `json:"edited,omitempty"`
	MCP       bool       `json:"mcp,omitempty"` // the agent had MCP tools
	ReplayOf  string     `json:"replay_of,omitempty"`
	Replay    *devReplay `json:"replay,omitempty"`
}

type devReplay struct {
	Matches  bool   `json:"matches"`
	Mismatch string `json:"mismatch"`
}

type devFail struct {
	Reason  string `json:"reason"`
	Message string `json:"message"`
}

// runSummary is a run as the history lists it.
type runSummary struct {
	ID          string     `json:"id"`
	Agent       string     `json:"agent"`
	File        string     `json:"file"`
	Model       string     `json:"model"`
	StartedAt   string     `json:"started_at"`
	DurationMS  int64      `json:"duration_ms"`
	Status      string     `json:"status"` // running, ok, failed, cancelled
	Turns       int        `json:"turns"`
	Tokens      llm.Tokens `json:"tokens"`
	LLMRequests int        `json:"llm_requests"`
	Result      string     `json:"result"`
	Fail        *devFail   `json:"fail"`
	ReplayOf    string     `json:"replay_of"`
	Replay      *devReplay `json:"replay"`
	Edited      bool       `json:"edited"`
}

// devRun is a run of this server: its events as they come, kept for the
// streams (bounded: the oldest go first), and its summary once it ended.
type devRun struct {
	id     string
	meta   devMeta
	model  string
	prompt string
	ctx    json.RawMessage // redacted
	cancel context.CancelFunc

	mu      sync.Mutex
	events  [][]byte // the JSON of the events kept
	dropped int      // events dropped from the front
	size    int      // bytes of events
	ended   bool
	summary runSummary
	wake    chan struct{} // closed at each event and at the end
}

// Observe keeps the event (its JSON, as redacted as an observer gets it):
// it never waits for a stream.
func (r *devRun) Observe(_ context.Context, e *agent.Event) {
	b, err := e.MarshalJSON()
	if err != nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, b)
	r.size += len(b)
	for len(r.events) > 1 && (len(r.events) > devMaxEvents || r.size > devMaxEventMem) {
		r.size -= len(r.events[0])
		r.events[0] = nil
		r.events = r.events[1:]
		r.dropped++
	}
	close(r.wake)
	r.wake = make(chan struct{})
}

func (r *devRun) end(sum runSummary) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ended, r.summary = true, sum
	close(r.wake)
	r.wake = make(chan struct{})
}

// runningSummary is the summary of a run not ended.
func (r *devRun) runningSummary() runSummary {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ended {
		return r.summary
	}
	return runSummary{ID: r.id, Agent: r.meta.Agent, File: r.meta.File, Model: r.model, StartedAt: r.meta.StartedAt,
		Status: "running", ReplayOf: r.meta.ReplayOf, Edited: r.meta.Edited}
}

// newRunID returns an id no run has: the time and 4 random hex digits.
func (s *devServer) newRunID(now time.Time) string {
	for {
		b := make([]byte, 2)
		_, _ = rand.Read(b)
		id := now.UTC().Format("20060102-150405") + "-" + hex.EncodeToString(b)
		s.mu.Lock()
		_, taken := s.runs[id]
		s.mu.Unlock()
		if _, err := os.Lstat(s.runPath(id)); !taken && errors.Is(err, os.ErrNotExist) {
			return id
		}
	}
}

func (s *devServer) runPath(id string) string { return filepath.Join(s.opts.Runs, id+".json") }

// devMission is a mission to run: the agent, its context, its model.
type devMission struct {
	meta    devMeta
	af      *load.AgentFile
	text    []byte // the agent file's text that runs
	agent   *agent.Agent
	ctxMap  *lisp.Map
	model   llm.Func
	ref     string
	replay  *runcmd.Replayer
	closers []func()
}

// devStartRequest is the body of POST /api/runs.
type devStartRequest struct {
	Agent string          `json:"agent"`
	Input json.RawMessage `json:"input"`
	Model string          `json:"model"`
	devEdit
}

func (s *devServer) handleStartRun(w http.ResponseWriter, r *http.Request) {
	var req devStartRequest
	if !readJSON(w, r, &req, false) {
		return
	}
	f, ok := s.agentFile(req.Agent)
	if !ok {
		writeError(w, http.StatusBadRequest, "agent: no agent file "+base.QuoteShort(req.Agent))
		return
	}
	text, err := base.ReadBounded(f.path, base.KindAgentFile)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	var af *load.AgentFile
	if req.empty() {
		af, err = load.ParseAgentFile(f.path, filepath.Dir(f.path), text)
	} else {
		// The override edits the text, so that the recording holds the
		// text that ran; the file stays as it is.
		text, af, err = req.apply(f.path, filepath.Dir(f.path), text)
	}
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	ctx, cancel := context.WithCancel(s.ctx)
	m := &devMission{af: af, text: text, meta: devMeta{Agent: f.name, File: s.relFile(f), Edited: !req.empty()}}
	if code, err := s.prepare(ctx, m, req.Input, req.Model); err != nil {
		cancel()
		m.close()
		writeError(w, code, err.Error())
		return
	}
	run, code, err := s.start(ctx, cancel, m)
	if err != nil {
		writeError(w, code, err.Error())
		return
	}
	writeJSON(w, http.StatusCreated, map[string]string{"id": run.id, "agent": f.name, "model": m.ref})
}

func (m *devMission) close() {
	for _, c := range m.closers {
		c()
	}
}

// prepare builds a new run's mission as ptc run does: the agent with its
// MCP and in-process tools, the context with the input over it, the
// model. The status goes with the error.
func (s *devServer) prepare(ctx context.Context, m *devMission, input json.RawMessage, model string) (int, error) {
	af := m.af
	cfg := af.CLIConfig()
	mc, err := load.AgentMCPConfig(s.env, af, s.opts.MCP)
	if err != nil {
		return http.StatusBadRequest, err
	}
	if mc != nil {
		ts, err := load.ConnectMCP(ctx, mc, s.log, true)
		if err != nil {
			return http.StatusBadGateway, err
		}
		m.closers = append(m.closers, func() { _ = ts.Close() })
		cfg.Tools = ts.Tools(mcp.ToolsOptions{})
		m.meta.MCP = true
	}
	s.env.AddTools(&cfg)
	if m.agent, err = af.NewAgent(cfg); err != nil {
		return http.StatusBadRequest, err
	}
	if m.ctxMap, err = af.LoadContext(); err != nil {
		return http.StatusBadRequest, err
	}
	if len(input) > 0 && string(input) != "null" {
		v, err := lisp.ParseJSON(input)
		if err != nil {
			return http.StatusBadRequest, fmt.Errorf("input: %v", err)
		}
		in, ok := v.(*lisp.Map)
		if !ok {
			return http.StatusBadRequest, fmt.Errorf("input: want a JSON object, got a %s", lisp.TypeName(v))
		}
		m.ctxMap = base.MergeContext(m.ctxMap, in)
	}
	if err := runcmd.CheckInput(m.agent, m.ctxMap, "the inputs or the agent file's context:"); err != nil {
		return http.StatusBadRequest, fmt.Errorf("input: %v", err)
	}
	m.ref = base.FirstNonEmpty(model, s.runModel(af.Model))
	if m.ref == "" {
		return http.StatusBadRequest, errors.New("model: no model: choose one, or start ptc dev with --model REF (or set PTC_MODEL)")
	}
	if m.model, err = s.env.OpenModel(ctx, m.ref); err != nil {
		return http.StatusBadRequest, fmt.Errorf("model %s: %v", m.ref, err)
	}
	return 0, nil
}

// start runs the mission in the background, under ctx (cancel ends it).
func (s *devServer) start(ctx context.Context, cancel context.CancelFunc, m *devMission) (*devRun, int, error) {
	select {
	case s.sem <- struct{}{}:
	default:
		cancel()
		m.close()
		return nil, http.StatusTooManyRequests, fmt.Errorf("%d runs are running: wait for one to end, or cancel one", devMaxRuns)
	}
	if s.ctx.Err() != nil {
		<-s.sem
		cancel()
		m.close()
		return nil, http.StatusServiceUnavailable, errors.New("ptc dev is shutting down")
	}
	now := time.Now()
	m.meta.StartedAt = now.UTC().Format(time.RFC3339)
	run := &devRun{id: s.newRunID(now), meta: m.meta, model: m.ref, prompt: m.af.Config.Prompt, ctx: devJSON(m.ctxMap),
		cancel: cancel, wake: make(chan struct{})}
	s.mu.Lock()
	s.runs[run.id] = run
	s.mu.Unlock()
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer func() { <-s.sem }()
		defer cancel()
		defer m.close()
		run.end(s.mission(ctx, run, m))
		s.retire(run.id)
	}()
	return run, 0, nil
}

// mission runs m and saves its recording; it returns the run's summary.
func (s *devServer) mission(ctx context.Context, run *devRun, m *devMission) runSummary {
	recd := &runcmd.Recorder{Inner: m.model, Run: ctx}
	step, _ := m.agent.Run(ctx, agent.Options{LLM: llm.Func(recd.Call), Context: m.ctxMap, ContextSignature: m.af.ContextSignature,
		Trace: agent.TraceOn, Observers: []agent.Observer{run}})
	sh := runcmd.Shown{Step: step}
	meta := run.meta
	if m.replay != nil {
		mm := m.replay.Finish(step)
		meta.Replay = &devReplay{Matches: mm == nil}
		if mm != nil {
			meta.Replay.Mismatch = sh.Text(mm.Report())
		}
	}
	fallback := func(msg string) runSummary {
		sum := run.runningSummary()
		sum.Status, sum.Fail = "failed", &devFail{Reason: "internal_error", Message: msg}
		return sum
	}
	t, err := recd.Transcript(meta.File, m.text, m.ref, m.ctxMap, sh, s.env.Version().String())
	if err != nil {
		s.log.Printf("ptc dev: run %s: the recording: %v\n", run.id, err)
		return fallback("the recording: " + err.Error())
	}
	t.Doc, err = withDevMeta(t.Doc, meta)
	if err == nil {
		if err = os.MkdirAll(s.opts.Runs, 0o755); err == nil {
			err = t.Save(s.runPath(run.id))
		}
	}
	if err != nil {
		s.log.Printf("ptc dev: run %s: saving it: %v\n", run.id, err)
	}
	sum, serr := summaryOf(run.id, t.Doc)
	if serr != nil {
		return fallback(serr.Error())
	}
	if err != nil {
		sum.Fail = &devFail{Reason: "io_error", Message: "the run was not saved: " + err.Error()}
	}
	return sum
}

// withDevMeta adds the "ptc_dev" field at the end of a recording.
func withDevMeta(doc []byte, meta devMeta) ([]byte, error) {
	b, err := json.MarshalIndent(meta, "  ", "  ")
	if err != nil {
		return nil, err
	}
	d := bytes.TrimRight(doc, " \n\t\r")
	if len(d) < 2 || d[len(d)-1] != '}' {
		return nil, errors.New("the recording is not a JSON object")
	}
	out := append(slices.Clone(d[:len(d)-1]), ",\n  \"ptc_dev\": "...)
	out = append(out, b...)
	return append(out, "\n}"...), nil
}

// savedRun is a saved run read back.
type savedRun struct {
	rec  *runcmd.Transcript
	meta devMeta
}

func readSavedRun(doc []byte) (*savedRun, error) {
	rec, err := runcmd.ReadRecording(doc)
	if err != nil {
		return nil, err
	}
	var top struct {
		Meta devMeta `json:"ptc_dev"`
	}
	if err := json.Unmarshal(doc, &top); err != nil {
		return nil, err
	}
	return &savedRun{rec: rec, meta: top.Meta}, nil
}

// summaryOf is the summary of a saved run.
func summaryOf(id string, doc []byte) (runSummary, error) {
	sr, err := readSavedRun(doc)
	if err != nil {
		return runSummary{}, err
	}
	return sr.summary(id), nil
}

func (sr *savedRun) summary(id string) runSummary {
	meta, o := sr.meta, sr.rec.Outcome
	sum := runSummary{ID: id, Agent: meta.Agent, File: meta.File, Model: sr.rec.Model, StartedAt: meta.StartedAt,
		ReplayOf: meta.ReplayOf, Replay: meta.Replay, Edited: meta.Edited, Status: "ok"}
	if sum.StartedAt == "" {
		sum.StartedAt = sr.rec.RecordedAt
	}
	if sum.File == "" {
		sum.File = sr.rec.Agent.File
	}
	if o == nil {
		sum.Status = "failed"
		return sum
	}
	u := o.Usage
	sum.DurationMS, sum.Turns, sum.Tokens, sum.LLMRequests = u.DurationMS, u.Turns, u.Tokens, u.LLMRequests
	switch {
	case o.Fail != nil:
		sum.Status = "failed"
		if o.Fail.Reason == agent.ReasonCancelled {
			sum.Status = "cancelled"
		}
		sum.Fail = &devFail{Reason: o.Fail.Reason, Message: o.Fail.Message}
	default:
		sum.Result = base.ClipText(o.ReturnEDN, 200)
	}
	return sum
}

// devKeepEnded is how many ended runs keep their events in memory (for
// a page that connects late); the others are read from their files.
const devKeepEnded = 16

// retire counts a run as ended, and forgets the oldest ended run beyond
// devKeepEnded.
func (s *devServer) retire(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ended = append(s.ended, id)
	if len(s.ended) > devKeepEnded {
		delete(s.runs, s.ended[0])
		s.ended = s.ended[1:]
	}
}

// run returns the run of this server with the id, nil when none.
func (s *devServer) run(id string) *devRun {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.runs[id]
}

// savedDoc reads the saved run id: 404 when there is none, 409 while it
// runs.
func (s *devServer) savedDoc(w http.ResponseWriter, id string) ([]byte, bool) {
	if run := s.run(id); run != nil && run.runningSummary().Status == "running" {
		writeError(w, http.StatusConflict, "run "+id+" is still running")
		return nil, false
	}
	doc, err := base.ReadBounded(s.runPath(id), base.KindTranscript)
	if errors.Is(err, os.ErrNotExist) {
		writeError(w, http.StatusNotFound, "no run "+id)
		return nil, false
	}
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return nil, false
	}
	return doc, true
}

// savedRun reads the saved run id, writing the error (status bad when
// the file does not read as a recording) when it cannot.
func (s *devServer) savedRun(w http.ResponseWriter, id string, bad int) ([]byte, *savedRun, bool) {
	doc, ok := s.savedDoc(w, id)
	if !ok {
		return nil, nil, false
	}
	sr, err := readSavedRun(doc)
	if err != nil {
		writeError(w, bad, "run "+id+": "+err.Error())
		return nil, nil, false
	}
	return doc, sr, true
}

func (s *devServer) handleRuns(w http.ResponseWriter, r *http.Request) {
	filter := r.URL.Query().Get("agent")
	byID := map[string]runSummary{}
	entries, err := os.ReadDir(s.opts.Runs)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	for _, e := range entries {
		id, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok || !devRunID.MatchString(id) || !e.Type().IsRegular() {
			continue
		}
		doc, err := base.ReadBounded(s.runPath(id), base.KindTranscript)
		if err != nil {
			continue
		}
		if sum, err := summaryOf(id, doc); err == nil {
			byID[id] = sum
		}
	}
	s.mu.Lock()
	runs := slices.Collect(func(yield func(*devRun) bool) {
		for _, r := range s.runs {
			if !yield(r) {
				return
			}
		}
	})
	s.mu.Unlock()
	for _, run := range runs {
		if sum := run.runningSummary(); sum.Status == "running" || byID[run.id].ID == "" {
			byID[run.id] = sum
		}
	}
	out := []runSummary{}
	for _, sum := range byID {
		if filter == "" || sum.Agent == filter {
			out = append(out, sum)
		}
	}
	slices.SortFunc(out, func(a, b runSummary) int {
		if c := strings.Compare(b.StartedAt, a.StartedAt); c != 0 {
			return c
		}
		return strings.Compare(b.ID, a.ID)
	})
	writeJSON(w, http.StatusOK, map[string]any{"runs": out})
}

// devTurn is a turn as the compare view shows it.
type devTurn struct {
	Number     int           `json:"number"`
	Program    string        `json:"program"`
	Result     string        `json:"result"`
	Error      string        `json:"error"`
	Output     []string      `json:"output"`
	ToolCalls  []devToolCall `json:"tool_calls"`
	Tokens     llm.Tokens    `json:"tokens"`
	DurationMS float64       `json:"duration_ms"`
	Response   string        `json:"response"`
	LLMRetries []devRetry    `json:"llm_retries"`
}

// devRetry is a failed attempt of a turn's LLM call, as the trace holds it.
type devRetry = runcmd.TraceRetry

type devToolCall struct {
	Name       string  `json:"name"`
	Args       string  `json:"args"`
	Result     string  `json:"result"`
	Error      string  `json:"error"`
	DurationMS float64 `json:"duration_ms"`
}

func (s *devServer) handleRun(w http.ResponseWriter, r *http.Request) {
	id, ok := runID(w, r)
	if !ok {
		return
	}
	if run := s.run(id); run != nil {
		if sum := run.runningSummary(); sum.Status == "running" {
			writeJSON(w, http.StatusOK, map[string]any{"summary": sum, "system": "", "prompt": run.prompt,
				"context": run.ctx, "turns": []devTurn{}, "return": "", "fail": nil, "usage": nil})
			return
		}
	}
	doc, sr, ok := s.savedRun(w, id, http.StatusInternalServerError)
	if !ok {
		return
	}
	var d struct {
		Step struct {
			Usage json.RawMessage    `json:"usage"`
			Turns []runcmd.TraceTurn `json:"turns"`
		} `json:"step"`
	}
	if err := json.Unmarshal(doc, &d); err != nil {
		writeError(w, http.StatusInternalServerError, "run "+id+": "+err.Error())
		return
	}
	turns := []devTurn{}
	for _, t := range d.Step.Turns {
		dt := devTurn{Number: t.Number, Program: t.Program, Result: t.Result.LispString(), Error: t.Error, Output: t.Output,
			ToolCalls: []devToolCall{}, Tokens: t.Tokens, DurationMS: t.DurationMS, Response: t.Response,
			LLMRetries: t.LLMRetries}
		if dt.LLMRetries == nil {
			dt.LLMRetries = []devRetry{}
		}
		if dt.Output == nil {
			dt.Output = []string{}
		}
		for _, c := range t.ToolCalls {
			dt.ToolCalls = append(dt.ToolCalls, devToolCall{Name: c.Name, Args: c.Args.LispString(), Result: c.Result.LispString(),
				Error: c.Error, DurationMS: c.DurationMS})
		}
		turns = append(turns, dt)
	}
	prompt := ""
	if f, err := agentfile.Parse(sr.rec.Agent.File, []byte(sr.rec.Agent.Text)); err == nil {
		prompt = f.Config.Prompt
	}
	sum := sr.summary(id)
	ctxJSON := sr.rec.Context
	if len(ctxJSON) == 0 {
		ctxJSON = json.RawMessage("null")
	}
	ret := ""
	if o := sr.rec.Outcome; o != nil && o.Fail == nil {
		ret = o.ReturnEDN
	}
	usage := d.Step.Usage
	if len(usage) == 0 {
		usage = json.RawMessage("null")
	}
	writeJSON(w, http.StatusOK, map[string]any{"summary": sum, "system": sr.rec.System, "prompt": prompt,
		"context": ctxJSON, "turns": turns, "return": ret, "fail": sum.Fail, "usage": usage})
}

// handleEvents streams a run's events: those so far, then the live ones,
// then "done" with the summary.
func (s *devServer) handleEvents(w http.ResponseWriter, r *http.Request) {
	id, ok := runID(w, r)
	if !ok {
		return
	}
	run := s.run(id)
	var saved runSummary
	if run == nil {
		doc, ok := s.savedDoc(w, id)
		if !ok {
			return
		}
		sum, err := summaryOf(id, doc)
		if err != nil {
			writeError(w, http.StatusInternalServerError, "run "+id+": "+err.Error())
			return
		}
		saved = sum
	}
	flusher, _ := w.(http.Flusher)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	flush := func() {
		if flusher != nil {
			flusher.Flush()
		}
	}
	done := func(sum runSummary) {
		b, _ := json.Marshal(sum)
		fmt.Fprintf(w, "event: done\ndata: %s\n\n", b)
		flush()
	}
	if run == nil {
		done(saved)
		return
	}
	ping := time.NewTicker(15 * time.Second)
	defer ping.Stop()
	next := 0 // the index of the next event to send, counting the dropped ones
	for {
		run.mu.Lock()
		var note int
		if next < run.dropped {
			note, next = run.dropped-next, run.dropped
		}
		batch := slices.Clone(run.events[next-run.dropped:])
		next += len(batch)
		ended, sum, wake := run.ended, run.summary, run.wake
		run.mu.Unlock()
		if note > 0 {
			fmt.Fprintf(w, "event: note\ndata: {\"kind\":\"note\",\"dropped\":%d,\"message\":\"%d earlier events were dropped (the run keeps at most %d events or %d bytes)\"}\n\n",
				note, note, devMaxEvents, devMaxEventMem)
		}
		if note > 0 {
			flush()
		}
		for _, b := range batch {
			fmt.Fprintf(w, "event: agent\ndata: %s\n\n", b)
			flush()
		}
		if ended {
			done(sum)
			return
		}
		select {
		case <-wake:
		case <-r.Context().Done():
			return
		case <-ping.C:
			fmt.Fprint(w, ": ping\n\n")
			flush()
		}
	}
}

func (s *devServer) handleCancel(w http.ResponseWriter, r *http.Request) {
	id, ok := runID(w, r)
	if !ok {
		return
	}
	run := s.run(id)
	if run == nil {
		if _, err := os.Lstat(s.runPath(id)); err == nil {
			writeError(w, http.StatusConflict, "run "+id+" has ended")
			return
		}
		writeError(w, http.StatusNotFound, "no run "+id)
		return
	}
	if run.runningSummary().Status != "running" {
		writeError(w, http.StatusConflict, "run "+id+" has ended")
		return
	}
	run.cancel()
	writeJSON(w, http.StatusAccepted, map[string]string{"id": id})
}

func (s *devServer) handleTrace(w http.ResponseWriter, r *http.Request) {
	id, ok := runID(w, r)
	if !ok {
		return
	}
	doc, ok := s.savedDoc(w, id)
	if !ok {
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Disposition", `attachment; filename="`+id+`.json"`)
	w.Write(doc)
}

func (s *devServer) handleView(w http.ResponseWriter, r *http.Request) {
	id, ok := runID(w, r)
	if !ok {
		return
	}
	if _, ok := s.savedDoc(w, id); !ok {
		return
	}
	data, _, err := tracecmd.ReadTraceFile(s.runPath(id), false)
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	var page bytes.Buffer
	if err := tracecmd.WriteHTML(&page, data, id+".json"); err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	w.Header().Set("Content-Security-Policy", devTraceCSP)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Write(page.Bytes())
}

// handleReplay runs a saved run's agent again offline, with its recorded
// replies, as ptc run --replay does; it starts no MCP server, so a run
// that had MCP tools is not replayed here.
func (s *devServer) handleReplay(w http.ResponseWriter, r *http.Request) {
	id, ok := runID(w, r)
	if !ok {
		return
	}
	_, sr, ok := s.savedRun(w, id, http.StatusBadRequest)
	if !ok {
		return
	}
	rec := sr.rec
	dir := filepath.Join(s.opts.Dir, filepath.FromSlash(pathDir(sr.meta.Agent)))
	af, err := load.ParseAgentFile(rec.Agent.File+" (recorded in "+id+")", dir, []byte(rec.Agent.Text))
	if err != nil && !sr.meta.MCP {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	if sr.meta.MCP {
		// The agent's mcp: is relative to the agent file, not to the
		// recording: the command names the configuration it resolves to.
		how := "--replay-mcp"
		if err == nil && af.MCPPath() != "" {
			how = "--mcp " + shellQuote(af.MCPPath())
		}
		writeError(w, http.StatusBadRequest, "run "+id+" had MCP tools: ptc dev replays start no MCP server (run ptc run --replay "+
			shellQuote(s.runPath(id))+" "+how+")")
		return
	}
	if af.Has("mcp") {
		writeError(w, http.StatusBadRequest, "the agent has mcp: ptc dev replays start no MCP server")
		return
	}
	cfg := af.CLIConfig()
	s.env.AddTools(&cfg)
	runcmd.ReplayRetries(&cfg)
	a, err := af.NewAgent(cfg)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	ctxMap, err := rec.ContextMap()
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	ctx, cancel := context.WithCancel(s.ctx)
	rp := &runcmd.Replayer{Rec: rec, Stop: cancel}
	meta := sr.meta
	meta.ReplayOf, meta.Replay = id, nil
	m := &devMission{meta: meta, af: af, text: []byte(rec.Agent.Text), agent: a, ctxMap: ctxMap, model: rp.Call,
		ref: rec.Model, replay: rp}
	run, code, err := s.start(ctx, cancel, m)
	if err != nil {
		writeError(w, code, err.Error())
		return
	}
	writeJSON(w, http.StatusCreated, map[string]string{"id": run.id, "agent": meta.Agent, "model": rec.Model, "replay_of": id})
}

// pathDir is the folder of a slash-separated name ("" for none).
func pathDir(name string) string {
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		return name[:i]
	}
	return ""
}

// Compile-time check: a dev run is an observer.
var _ agent.Observer = (*devRun)(nil)

// shellQuote quotes a path for a command a person copies into a shell:
// as it is when it holds only safe characters, else in single quotes.
func shellQuote(s string) string {
	safe := s != ""
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-+:,=@", r)) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
