package workbench

import (
	"bytes"
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/agent/agentfile"
	"github.com/ptc-go/ptc/agent/trace"
	"github.com/ptc-go/ptc/internal/hostio"
	"github.com/ptc-go/ptc/internal/textutil"
	"github.com/ptc-go/ptc/internal/traceview"
	"github.com/ptc-go/ptc/internal/transcript"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm"
	"github.com/ptc-go/ptc/signature"
)

// A run is saved as a recording of ptc run (--record's
// ptc-trace document, which ptc trace view and ptc run --replay read) in
// the runs folder, as RUNID.json, with one field of its own at the top,
// "ptc_dev" (runMeta): what its summary needs that the recording does not
// say. Readers of the trace format ignore it. The history is read from
// these files: there is no index to go stale.

// runMeta is the "ptc_dev" field of a saved run.
type runMeta struct {
	Agent     string `json:"agent"`
	File      string `json:"file"`
	StartedAt string `json:"started_at"`
	Edited    bool   `json:"edited,omitempty"`
	MCP       bool   `json:"mcp,omitempty"` // the agent had MCP tools
	// Tools are the agent's tools in the run (the page lists an MCP
	// agent's from its last run).
	Tools []string `json:"tools,omitempty"`
	// Prompt is the agent's prompt, for a run that records no agent
	// text (a Go agent's).
	Prompt   string        `json:"prompt,omitempty"`
	ReplayOf string        `json:"replay_of,omitempty"`
	Replay   *replayResult `json:"replay,omitempty"`
}

type replayResult struct {
	Matches  bool   `json:"matches"`
	Mismatch string `json:"mismatch"`
}

type apiFail struct {
	Reason  string `json:"reason"`
	Message string `json:"message"`
}

// runSummary is a run as the history lists it.
type runSummary struct {
	ID          string        `json:"id"`
	Agent       string        `json:"agent"`
	File        string        `json:"file"`
	Model       string        `json:"model"`
	StartedAt   string        `json:"started_at"`
	DurationMS  int64         `json:"duration_ms"`
	Status      string        `json:"status"` // running, ok, failed, cancelled
	Turns       int           `json:"turns"`
	Tokens      llm.Tokens    `json:"tokens"`
	LLMRequests int           `json:"llm_requests"`
	Result      string        `json:"result"`
	Fail        *apiFail      `json:"fail"`
	ReplayOf    string        `json:"replay_of"`
	Replay      *replayResult `json:"replay"`
	Edited      bool          `json:"edited"`
}

// liveRun is a run of this server: its events as they come, kept for the
// streams (bounded: the oldest go first), and its summary once it ended.
type liveRun struct {
	id     string
	meta   runMeta
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
	// chunks are the latest llm.chunk of each LLM call in progress, by
	// call id: a reply as it is written is shown, not kept (the call's
	// llm.stop, in events, has it whole).
	chunks   map[uint64]liveChunk
	chunkSeq uint64
}

// liveChunk is an llm.chunk event's JSON, numbered in the run's order.
type liveChunk struct {
	seq  uint64
	json []byte
}

// Observe keeps the event (its JSON, as redacted as an observer gets it):
// it never waits for a stream.
func (r *liveRun) Observe(_ context.Context, e *agent.Event) {
	b, err := e.MarshalJSON()
	if err != nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	switch e.Kind {
	case agent.LLMChunk:
		if r.chunks == nil {
			r.chunks = map[uint64]liveChunk{}
		}
		r.chunkSeq++
		r.chunks[e.CallID] = liveChunk{seq: r.chunkSeq, json: b}
		close(r.wake)
		r.wake = make(chan struct{})
		return
	case agent.LLMStop, agent.LLMException:
		delete(r.chunks, e.CallID)
	}
	r.events = append(r.events, b)
	r.size += len(b)
	for len(r.events) > 1 && (len(r.events) > maxEvents || r.size > maxEventMem) {
		r.size -= len(r.events[0])
		r.events[0] = nil
		r.events = r.events[1:]
		r.dropped++
	}
	close(r.wake)
	r.wake = make(chan struct{})
}

func (r *liveRun) end(sum runSummary) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ended, r.summary = true, sum
	close(r.wake)
	r.wake = make(chan struct{})
}

// runningSummary is the summary of a run not ended.
func (r *liveRun) runningSummary() runSummary {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ended {
		return r.summary
	}
	return runSummary{ID: r.id, Agent: r.meta.Agent, File: r.meta.File, Model: r.model, StartedAt: r.meta.StartedAt,
		Status: "running", ReplayOf: r.meta.ReplayOf, Edited: r.meta.Edited}
}

// newRunID returns an id no run has: the time and 4 random hex digits.
func (w *Workbench) newRunID(now time.Time) string {
	for {
		b := make([]byte, 2)
		_, _ = rand.Read(b)
		id := now.UTC().Format("20060102-150405") + "-" + hex.EncodeToString(b)
		w.mu.Lock()
		_, taken := w.runs[id]
		w.mu.Unlock()
		if _, err := os.Lstat(w.runPath(id)); !taken && errors.Is(err, os.ErrNotExist) {
			return id
		}
	}
}

func (w *Workbench) runPath(id string) string { return filepath.Join(w.opts.Runs, id+".json") }

// mission is a mission to run: the agent, its context, its model.
type mission struct {
	meta    runMeta
	file    string
	text    []byte // the agent's text that runs, recorded (nil: none)
	prompt  string
	agent   *agent.Agent
	ctxMap  *lisp.Map
	ctxSig  string
	model   llm.Func
	ref     string
	replay  *transcript.Replayer
	closers []func()
}

// startRequest is the body of POST /api/runs.
type startRequest struct {
	Agent string          `json:"agent"`
	Input json.RawMessage `json:"input"`
	Model string          `json:"model"`
	Edit
}

func (w *Workbench) handleStartRun(rw http.ResponseWriter, r *http.Request) {
	var req startRequest
	if !readJSON(rw, r, &req, false) {
		return
	}
	a, ok := w.agent(r.Context(), req.Agent)
	if !ok {
		writeError(rw, http.StatusBadRequest, "agent: no agent "+quoteShort(req.Agent))
		return
	}
	edited := !req.Edit.Empty()
	if _, ok := a.Source.(Editor); edited && !ok {
		writeError(rw, http.StatusBadRequest, "prompt and limits: "+a.Name+" cannot be edited here")
		return
	}
	ctx, cancel := context.WithCancel(w.ctx)
	m := &mission{meta: runMeta{Agent: a.Name, File: a.File, Edited: edited}}
	var edit *Edit
	if edited {
		edit = &req.Edit
	}
	if code, err := w.prepare(ctx, m, a, edit, req.Input, req.Model); err != nil {
		cancel()
		m.close()
		writeError(rw, code, err.Error())
		return
	}
	run, code, err := w.start(ctx, cancel, m)
	if err != nil {
		writeError(rw, code, err.Error())
		return
	}
	writeJSON(rw, http.StatusCreated, map[string]string{"id": run.id, "agent": a.Name, "model": m.ref})
}

func (m *mission) close() {
	for _, c := range m.closers {
		c()
	}
}

// prepare builds a new run's mission: the agent (its Source's, with the
// edit), the context with the input over it, the model. The status goes
// with the error.
func (w *Workbench) prepare(ctx context.Context, m *mission, a Agent, edit *Edit, input json.RawMessage, model string) (int, error) {
	if a.Error != nil {
		return http.StatusBadRequest, a.Error
	}
	if a.Source != nil {
		sm, err := a.Source.Mission(ctx, edit)
		if errors.Is(err, ErrUnavailable) {
			return http.StatusBadGateway, err
		}
		if err != nil {
			return http.StatusBadRequest, err
		}
		if sm.Close != nil {
			m.closers = append(m.closers, sm.Close)
		}
		if sm.Agent == nil {
			return http.StatusInternalServerError, errors.New("the agent's source gave no agent")
		}
		m.agent, m.ctxMap, m.ctxSig, m.file, m.text, m.meta.MCP = sm.Agent, sm.Context, sm.ContextSignature, sm.File, sm.Text, sm.MCP
		if m.ctxMap == nil {
			m.ctxMap = lisp.NewMap()
		}
	} else {
		var err error
		if m.agent, err = build(a); err != nil {
			return http.StatusBadRequest, err
		}
		if m.ctxMap, err = inputMap(a.Input); err != nil {
			return http.StatusBadRequest, err
		}
		m.ctxSig, m.file = a.ContextSignature, a.File
	}
	m.prompt = m.agent.Config().Prompt
	if len(input) > 0 && string(input) != "null" {
		v, err := lisp.Read(string(input), lisp.ReadOptions{Format: lisp.ReadJSON})
		if err != nil {
			return http.StatusBadRequest, fmt.Errorf("input: %v", err)
		}
		in, ok := v.(*lisp.Map)
		if !ok {
			return http.StatusBadRequest, fmt.Errorf("input: want a JSON object, got a %s", lisp.TypeName(v))
		}
		m.ctxMap = hostio.MergeContext(m.ctxMap, in)
	}
	if err := checkInput(m.agent, m.ctxMap); err != nil {
		return http.StatusBadRequest, fmt.Errorf("input: %v", err)
	}
	fn, ref, code, err := w.openModel(ctx, a, model)
	if err != nil {
		return code, err
	}
	m.model, m.ref = fn, ref
	return 0, nil
}

// checkInput checks that the context gives the agent the input its
// signature wants.
func checkInput(a *agent.Agent, ctxMap *lisp.Map) error {
	if sig := a.Signature(); sig != nil && len(sig.Params) > 0 {
		if _, _, err := sig.CoerceInput(ctxMap, signature.Enabled); err != nil {
			return fmt.Errorf("the context does not give the agent its input: %v\n  (the signature wants %s; give it with the form's inputs or the agent's default input)",
				err, sig.InputType())
		}
	}
	return nil
}

// start runs the mission in the background, under ctx (cancel ends it).
func (w *Workbench) start(ctx context.Context, cancel context.CancelFunc, m *mission) (*liveRun, int, error) {
	select {
	case w.sem <- struct{}{}:
	default:
		cancel()
		m.close()
		return nil, http.StatusTooManyRequests, fmt.Errorf("%d runs are running: wait for one to end, or cancel one", maxRuns)
	}
	if w.ctx.Err() != nil {
		<-w.sem
		cancel()
		m.close()
		return nil, http.StatusServiceUnavailable, errors.New(w.opts.Name + " is shutting down")
	}
	now := time.Now()
	m.meta.StartedAt = now.UTC().Format(time.RFC3339)
	m.meta.Tools = m.agent.ToolNames()
	if m.text == nil {
		m.meta.Prompt = m.prompt // no agent text to read it from
	}
	slices.Sort(m.meta.Tools)
	run := &liveRun{id: w.newRunID(now), meta: m.meta, model: m.ref, prompt: m.prompt, ctx: redactedJSON(m.ctxMap),
		cancel: cancel, wake: make(chan struct{})}
	w.mu.Lock()
	w.runs[run.id] = run
	w.mu.Unlock()
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		defer func() { <-w.sem }()
		// The servers close before the run is announced as done, so a
		// client that saw "done" may start them again at once.
		sum := func() runSummary {
			defer cancel()
			defer m.close()
			return w.mission(ctx, run, m)
		}()
		run.end(sum)
		w.retire(run.id)
	}()
	return run, 0, nil
}

// mission runs m and saves its recording; it returns the run's summary.
func (w *Workbench) mission(ctx context.Context, run *liveRun, m *mission) runSummary {
	recd := &transcript.Recorder{Inner: m.model, Run: ctx}
	step, _ := m.agent.Run(ctx, agent.Options{LLM: llm.Func(recd.Call), Input: m.ctxMap, InputSignature: m.ctxSig,
		Trace: agent.TraceOn, Observers: []agent.Observer{run}})
	sh := transcript.Shown{Step: step}
	meta := run.meta
	if m.replay != nil {
		mm := m.replay.Finish(step)
		meta.Replay = &replayResult{Matches: mm == nil}
		if mm != nil {
			meta.Replay.Mismatch = sh.Text(mm.Report())
		}
	}
	fallback := func(msg string) runSummary {
		sum := run.runningSummary()
		sum.Status, sum.Fail = "failed", &apiFail{Reason: "internal_error", Message: msg}
		return sum
	}
	var src *transcript.AgentSource
	if m.text != nil {
		src = &transcript.AgentSource{File: m.file, Text: m.text}
	}
	t, err := recd.Transcript(src, m.ref, m.ctxMap, sh, w.opts.Version)
	if err != nil {
		w.log.printf("%s: run %s: the recording: %v\n", w.opts.Name, run.id, err)
		return fallback("the recording: " + err.Error())
	}
	t.Doc, err = withDevMeta(t.Doc, meta)
	if err == nil {
		if err = os.MkdirAll(w.opts.Runs, 0o755); err == nil {
			err = hostio.WriteFileAtomic(w.runPath(run.id), append(t.Doc, '\n'), 0o644)
		}
	}
	if err != nil {
		w.log.printf("%s: run %s: saving it: %v\n", w.opts.Name, run.id, err)
	}
	sum, serr := summaryOf(run.id, t.Doc)
	if serr != nil {
		return fallback(serr.Error())
	}
	if err != nil {
		sum.Fail = &apiFail{Reason: "io_error", Message: "the run was not saved: " + err.Error()}
	}
	return sum
}

// withDevMeta adds the "ptc_dev" field at the end of a recording.
func withDevMeta(doc []byte, meta runMeta) ([]byte, error) {
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
	rec  *transcript.Transcript
	meta runMeta
}

func readSavedRun(doc []byte) (*savedRun, error) {
	rec, err := transcript.ReadRecording(doc)
	if err != nil {
		return nil, err
	}
	var top struct {
		Meta runMeta `json:"ptc_dev"`
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
		if o.Fail.Reason == string(agent.ReasonCancelled) {
			sum.Status = "cancelled"
		}
		sum.Fail = &apiFail{Reason: o.Fail.Reason, Message: o.Fail.Message}
	default:
		sum.Result = textutil.Clip(o.ReturnEDN, 200)
	}
	return sum
}

// keepEnded is how many ended runs keep their events in memory (for
// a page that connects late); the others are read from their files.
const keepEnded = 16

// retire counts a run as ended, and forgets the oldest ended run beyond
// keepEnded.
func (w *Workbench) retire(id string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.ended = append(w.ended, id)
	if len(w.ended) > keepEnded {
		delete(w.runs, w.ended[0])
		w.ended = w.ended[1:]
	}
}

// run returns the run of this server with the id, nil when none.
func (w *Workbench) run(id string) *liveRun {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.runs[id]
}

// savedDoc reads the saved run id: 404 when there is none, 409 while it
// runs.
func (w *Workbench) savedDoc(rw http.ResponseWriter, id string) ([]byte, bool) {
	if run := w.run(id); run != nil && run.runningSummary().Status == "running" {
		writeError(rw, http.StatusConflict, "run "+id+" is still running")
		return nil, false
	}
	doc, err := readBounded(w.runPath(id), maxRunFile)
	if errors.Is(err, os.ErrNotExist) {
		writeError(rw, http.StatusNotFound, "no run "+id)
		return nil, false
	}
	if err != nil {
		writeError(rw, http.StatusInternalServerError, err.Error())
		return nil, false
	}
	return doc, true
}

// savedRun reads the saved run id, writing the error (status bad when
// the file does not read as a recording) when it cannot.
func (w *Workbench) savedRun(rw http.ResponseWriter, id string, bad int) ([]byte, *savedRun, bool) {
	doc, ok := w.savedDoc(rw, id)
	if !ok {
		return nil, nil, false
	}
	sr, err := readSavedRun(doc)
	if err != nil {
		writeError(rw, bad, "run "+id+": "+err.Error())
		return nil, nil, false
	}
	return doc, sr, true
}

func (w *Workbench) handleRuns(rw http.ResponseWriter, r *http.Request) {
	filter := r.URL.Query().Get("agent")
	byID := map[string]runSummary{}
	entries, err := os.ReadDir(w.opts.Runs)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		writeError(rw, http.StatusInternalServerError, err.Error())
		return
	}
	for _, e := range entries {
		id, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok || !runIDForm().MatchString(id) || !e.Type().IsRegular() {
			continue
		}
		doc, err := readBounded(w.runPath(id), maxRunFile)
		if err != nil {
			continue
		}
		if sum, err := summaryOf(id, doc); err == nil {
			byID[id] = sum
		}
	}
	w.mu.Lock()
	runs := slices.Collect(func(yield func(*liveRun) bool) {
		for _, r := range w.runs {
			if !yield(r) {
				return
			}
		}
	})
	w.mu.Unlock()
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
	writeJSON(rw, http.StatusOK, map[string]any{"runs": out})
}

// apiTurn is a turn as the compare view shows it.
type apiTurn struct {
	Number     int                     `json:"number"`
	Program    string                  `json:"program"`
	Result     string                  `json:"result"`
	Error      string                  `json:"error"`
	Output     []string                `json:"output"`
	ToolCalls  []apiToolCall           `json:"tool_calls"`
	Tokens     llm.Tokens              `json:"tokens"`
	DurationMS float64                 `json:"duration_ms"`
	Response   string                  `json:"response"`
	LLMRetries []transcript.TraceRetry `json:"llm_retries"`
}

type apiToolCall struct {
	Name       string  `json:"name"`
	Args       string  `json:"args"`
	Result     string  `json:"result"`
	Error      string  `json:"error"`
	DurationMS float64 `json:"duration_ms"`
}

func (w *Workbench) handleRun(rw http.ResponseWriter, r *http.Request) {
	id, ok := runID(rw, r)
	if !ok {
		return
	}
	if run := w.run(id); run != nil {
		if sum := run.runningSummary(); sum.Status == "running" {
			writeJSON(rw, http.StatusOK, map[string]any{"summary": sum, "system": "", "prompt": run.prompt,
				"context": run.ctx, "turns": []apiTurn{}, "return": "", "fail": nil, "usage": nil})
			return
		}
	}
	doc, sr, ok := w.savedRun(rw, id, http.StatusInternalServerError)
	if !ok {
		return
	}
	var d struct {
		Step struct {
			Usage json.RawMessage        `json:"usage"`
			Turns []transcript.TraceTurn `json:"turns"`
		} `json:"step"`
	}
	if err := json.Unmarshal(doc, &d); err != nil {
		writeError(rw, http.StatusInternalServerError, "run "+id+": "+err.Error())
		return
	}
	turns := []apiTurn{}
	for _, t := range d.Step.Turns {
		dt := apiTurn{Number: t.Number, Program: t.Program, Result: t.Result.LispString(), Error: t.Error, Output: t.Output,
			ToolCalls: []apiToolCall{}, Tokens: t.Tokens, DurationMS: t.DurationMS, Response: t.Response,
			LLMRetries: t.LLMRetries}
		if dt.LLMRetries == nil {
			dt.LLMRetries = []transcript.TraceRetry{}
		}
		if dt.Output == nil {
			dt.Output = []string{}
		}
		for _, c := range t.ToolCalls {
			dt.ToolCalls = append(dt.ToolCalls, apiToolCall{Name: c.Name, Args: c.Args.LispString(), Result: c.Result.LispString(),
				Error: c.Error, DurationMS: c.DurationMS})
		}
		turns = append(turns, dt)
	}
	prompt := sr.meta.Prompt // a Go agent's: the run has no agent text
	if sr.rec.HasAgent {
		if f, err := agentfile.Parse(sr.rec.Agent.File, []byte(sr.rec.Agent.Text)); err == nil {
			prompt = f.Config.Prompt
		}
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
	writeJSON(rw, http.StatusOK, map[string]any{"summary": sum, "system": sr.rec.System, "prompt": prompt,
		"context": ctxJSON, "turns": turns, "return": ret, "fail": sum.Fail, "usage": usage})
}

// handleEvents streams a run's events: those so far, then the live ones,
// then "done" with the summary.
func (w *Workbench) handleEvents(rw http.ResponseWriter, r *http.Request) {
	id, ok := runID(rw, r)
	if !ok {
		return
	}
	run := w.run(id)
	var saved runSummary
	if run == nil {
		doc, ok := w.savedDoc(rw, id)
		if !ok {
			return
		}
		sum, err := summaryOf(id, doc)
		if err != nil {
			writeError(rw, http.StatusInternalServerError, "run "+id+": "+err.Error())
			return
		}
		saved = sum
	}
	flusher, _ := rw.(http.Flusher)
	rw.Header().Set("Content-Type", "text/event-stream")
	rw.Header().Set("X-Accel-Buffering", "no")
	rw.WriteHeader(http.StatusOK)
	flush := func() {
		if flusher != nil {
			flusher.Flush()
		}
	}
	done := func(sum runSummary) {
		b, _ := json.Marshal(sum)
		fmt.Fprintf(rw, "event: done\ndata: %s\n\n", b)
		flush()
	}
	if run == nil {
		done(saved)
		return
	}
	ping := time.NewTicker(15 * time.Second)
	defer ping.Stop()
	next := 0           // the index of the next event to send, counting the dropped ones
	var chunkSeq uint64 // the last chunk sent
	for {
		run.mu.Lock()
		var note int
		if next < run.dropped {
			note, next = run.dropped-next, run.dropped
		}
		batch := slices.Clone(run.events[next-run.dropped:])
		next += len(batch)
		// The replies being written, after the events before them.
		var fresh []liveChunk
		for _, c := range run.chunks {
			if c.seq > chunkSeq {
				fresh = append(fresh, c)
			}
		}
		slices.SortFunc(fresh, func(a, b liveChunk) int { return cmp.Compare(a.seq, b.seq) })
		for _, c := range fresh {
			batch = append(batch, c.json)
			chunkSeq = c.seq
		}
		ended, sum, wake := run.ended, run.summary, run.wake
		run.mu.Unlock()
		if note > 0 {
			fmt.Fprintf(rw, "event: note\ndata: {\"kind\":\"note\",\"dropped\":%d,\"message\":\"%d earlier events were dropped (the run keeps at most %d events or %d bytes)\"}\n\n",
				note, note, maxEvents, maxEventMem)
		}
		if note > 0 {
			flush()
		}
		for _, b := range batch {
			fmt.Fprintf(rw, "event: agent\ndata: %s\n\n", b)
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
			fmt.Fprint(rw, ": ping\n\n")
			flush()
		}
	}
}

func (w *Workbench) handleCancel(rw http.ResponseWriter, r *http.Request) {
	id, ok := runID(rw, r)
	if !ok {
		return
	}
	run := w.run(id)
	if run == nil {
		if _, err := os.Lstat(w.runPath(id)); err == nil {
			writeError(rw, http.StatusConflict, "run "+id+" has ended")
			return
		}
		writeError(rw, http.StatusNotFound, "no run "+id)
		return
	}
	if run.runningSummary().Status != "running" {
		writeError(rw, http.StatusConflict, "run "+id+" has ended")
		return
	}
	run.cancel()
	writeJSON(rw, http.StatusAccepted, map[string]string{"id": id})
}

func (w *Workbench) handleTrace(rw http.ResponseWriter, r *http.Request) {
	id, ok := runID(rw, r)
	if !ok {
		return
	}
	doc, ok := w.savedDoc(rw, id)
	if !ok {
		return
	}
	rw.Header().Set("Content-Type", "application/json")
	rw.Header().Set("Content-Disposition", `attachment; filename="`+id+`.json"`)
	rw.Write(doc)
}

func (w *Workbench) handleView(rw http.ResponseWriter, r *http.Request) {
	id, ok := runID(rw, r)
	if !ok {
		return
	}
	doc, ok := w.savedDoc(rw, id)
	if !ok {
		return
	}
	if _, err := trace.Unmarshal(doc); err != nil {
		writeError(rw, http.StatusInternalServerError, "run "+id+": "+err.Error())
		return
	}
	if traceview.IsRaw(doc) {
		writeError(rw, http.StatusInternalServerError, "run "+id+" is a raw trace: the workbench does not show it")
		return
	}
	var page bytes.Buffer
	if err := traceview.WriteHTML(&page, doc, id+".json"); err != nil {
		writeError(rw, http.StatusInternalServerError, err.Error())
		return
	}
	rw.Header().Set("Content-Security-Policy", traceCSP)
	rw.Header().Set("Content-Type", "text/html; charset=utf-8")
	rw.Write(page.Bytes())
}

// handleReplay runs a saved run's agent again offline, with its recorded
// replies, as ptc run --replay does. The agent is its Source's Replay
// (from the recorded text), else the Go agent as it is now.
func (w *Workbench) handleReplay(rw http.ResponseWriter, r *http.Request) {
	id, ok := runID(rw, r)
	if !ok {
		return
	}
	_, sr, ok := w.savedRun(rw, id, http.StatusBadRequest)
	if !ok {
		return
	}
	rec := sr.rec
	a, ok := w.agent(r.Context(), sr.meta.Agent)
	if !ok {
		writeError(rw, http.StatusBadRequest, "run "+id+": no agent "+quoteShort(sr.meta.Agent)+" to replay it with")
		return
	}
	var built *agent.Agent
	var err error
	if a.Source != nil {
		built, err = a.Source.Replay(w.runPath(id), rec.Agent.Text, sr.meta.MCP)
	} else {
		built, err = build(a)
	}
	if err != nil {
		writeError(rw, http.StatusBadRequest, err.Error())
		return
	}
	// Retries answered at once: the recording holds their replies.
	if cfg := built.Config(); cfg.LLMRetry.MaxAttempts > 1 {
		p := &cfg.LLMRetry
		p.BaseDelay, p.MaxDelay, p.Jitter = time.Nanosecond, time.Nanosecond, -1
		if built, err = agent.New(cfg); err != nil {
			writeError(rw, http.StatusBadRequest, err.Error())
			return
		}
	}
	ctxMap, err := rec.ContextMap()
	if err != nil {
		writeError(rw, http.StatusBadRequest, err.Error())
		return
	}
	ctx, cancel := context.WithCancel(w.ctx)
	rp := &transcript.Replayer{Rec: rec, Stop: cancel}
	meta := sr.meta
	meta.ReplayOf, meta.Replay, meta.Tools = id, nil, nil
	var text []byte
	if sr.rec.HasAgent {
		text = []byte(rec.Agent.Text)
	}
	m := &mission{meta: meta, file: rec.Agent.File, text: text, prompt: built.Config().Prompt, agent: built, ctxMap: ctxMap,
		ctxSig: a.ContextSignature, model: rp.Call, ref: rec.Model, replay: rp}
	run, code, err := w.start(ctx, cancel, m)
	if err != nil {
		writeError(rw, code, err.Error())
		return
	}
	writeJSON(rw, http.StatusCreated, map[string]string{"id": run.id, "agent": meta.Agent, "model": rec.Model, "replay_of": id})
}

// Compile-time check: a live run is an observer.
var _ agent.Observer = (*liveRun)(nil)

// readBounded reads the file at path whole, within limit bytes.
func readBounded(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%s: larger than %d bytes", path, limit)
	}
	return b, nil
}

// lastTools are the tools of an agent's last saved run that recorded
// them.
type lastTools struct {
	id, startedAt string
	tools         []string
}

// lastRuns reads the saved runs for the tools of each agent's last run
// (the newest that recorded them).
func (w *Workbench) lastRuns() map[string]lastTools {
	out := map[string]lastTools{}
	entries, _ := os.ReadDir(w.opts.Runs)
	for _, e := range entries {
		id, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok || !runIDForm().MatchString(id) || !e.Type().IsRegular() {
			continue
		}
		doc, err := readBounded(w.runPath(id), maxRunFile)
		if err != nil {
			continue
		}
		var top struct {
			Meta runMeta `json:"ptc_dev"`
		}
		if json.Unmarshal(doc, &top) != nil || top.Meta.Tools == nil || top.Meta.ReplayOf != "" {
			continue
		}
		m := top.Meta
		if was, ok := out[m.Agent]; !ok || m.StartedAt > was.startedAt || m.StartedAt == was.startedAt && id > was.id {
			out[m.Agent] = lastTools{id: id, startedAt: m.StartedAt, tools: m.Tools}
		}
	}
	return out
}
