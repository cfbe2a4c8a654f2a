package temporal

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/api/temporalproto"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/agent/prompt"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm"
)

// The environment of a worker subprocess (see TestMain).
const (
	envWorker   = "PTC_TEMPORAL_TEST_WORKER" // the server's address: run as a worker
	envQueue    = "PTC_TEMPORAL_TEST_QUEUE"
	envModelURL = "PTC_TEMPORAL_TEST_MODEL"
	envToolURL  = "PTC_TEMPORAL_TEST_TOOL"
)

func TestMain(m *testing.M) {
	if addr := os.Getenv(envWorker); addr != "" {
		os.Exit(workerMain(addr))
	}
	code := m.Run()
	stopSharedServer()
	os.Exit(code)
}

// workerMain runs a worker of the order agent until it is killed or
// interrupted: the worker process of TestWorkerCrash (of TestLoad's agent
// when envLoadWorker is set).
func workerMain(addr string) int {
	copts := client.Options{HostPort: addr, Logger: quietLogger()}
	opts := WorkerOptions{
		Agents: map[string]*agent.Agent{"order": orderAgent(os.Getenv(envToolURL))},
		Model:  httpModel(os.Getenv(envModelURL)),
	}
	if os.Getenv(envLoadWorker) != "" {
		latency, toolTime, err := loadTimes()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		copts, opts = loadClientOptions(addr), loadWorkerOptions(loadAgent(toolTime), loadModel(latency))
	}
	c, err := client.Dial(copts)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer c.Close()
	w, err := NewWorker(c, os.Getenv(envQueue), opts)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err := w.Run(worker.InterruptCh()); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// orderAgent sums the prices of an order's items, fetched one by one from
// a tool served over HTTP at toolURL.
func orderAgent(toolURL string) *agent.Agent {
	return agent.MustNew(agent.Config{
		Prompt:     "Sum the prices of order {{order}}.",
		Signature:  "(order :string) -> :int",
		MaxTurns:   6,
		LLMTimeout: 10 * time.Second, // a call lost with its worker is made again after this
		Tools: map[string]agent.Tool{"fetch": {
			Signature:   "(id :int) -> {id :int, price :int}",
			Description: "Fetches an item.",
			Func: func(ctx context.Context, args *lisp.Map) (any, error) {
				var out map[string]int
				err := postJSON(ctx, toolURL, lisp.Print(args, lisp.PrintOptions{Exact: true}), &out)
				return out, err
			}}},
	})
}

var orderScript = []string{
	`(def a (tool/fetch {:id 1}))`,
	`(def bc (pmap #(tool/fetch {:id %}) [2 3]))`,
	`(def d (tool/fetch {:id 4}))`,
	`(return (+ (:price a) (:price d) (reduce + (map :price bc))))`,
}

func postJSON(ctx context.Context, url string, in, out any) error {
	body, err := json.Marshal(in)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 500))
		return fmt.Errorf("status %d: %s", resp.StatusCode, msg)
	}
	return json.NewDecoder(resp.Body).Decode(out)
}

// httpModel is a model served over HTTP (the test's scripted server).
func httpModel(url string) llm.Func {
	return func(ctx context.Context, req llm.Request) (llm.Response, error) {
		var resp llm.Response
		if err := postJSON(ctx, url, req, &resp); err != nil {
			return llm.Response{}, &llm.Error{Class: llm.ClassNetwork, Message: err.Error(), Err: err}
		}
		return resp, nil
	}
}

// scriptServer answers LLM requests from a script and tool calls with
// prices, and counts what it completed. The first request of turn
// blockTurn is held until its caller goes away.
type scriptServer struct {
	script    []string
	blockTurn int

	mu        sync.Mutex
	completed map[string]int // LLM replies sent, by prompt and turn
	tools     map[string]int // tool calls answered, by arguments
	held      bool
	holding   chan struct{} // closed when the held request arrived
}

func newScriptServer(script []string, blockTurn int) *scriptServer {
	return &scriptServer{script: script, blockTurn: blockTurn, completed: map[string]int{}, tools: map[string]int{},
		holding: make(chan struct{})}
}

func (s *scriptServer) model(w http.ResponseWriter, r *http.Request) {
	var req llm.Request
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Turn < 1 || req.Turn > len(s.script) {
		http.Error(w, fmt.Sprintf("bad request (turn %d): %v", req.Turn, err), http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	if req.Turn == s.blockTurn && !s.held {
		s.held = true
		close(s.holding)
		s.mu.Unlock()
		<-r.Context().Done() // the worker died: this call never completes
		return
	}
	s.completed[fmt.Sprintf("%s#%d", req.Prompt, req.Turn)]++
	s.mu.Unlock()
	_ = json.NewEncoder(w).Encode(llm.Response{Content: "```clojure\n" + s.script[req.Turn-1] + "\n```",
		Tokens: llm.Tokens{Input: 100, Output: 20}})
}

func (s *scriptServer) tool(w http.ResponseWriter, r *http.Request) {
	var printedArgs string
	if err := json.NewDecoder(r.Body).Decode(&printedArgs); err != nil {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	v, err := readValue(printedArgs)
	m, ok := v.(*lisp.Map)
	if err != nil || !ok {
		http.Error(w, "bad arguments", http.StatusBadRequest)
		return
	}
	id, _ := m.Get(lisp.Keyword("id"))
	n, _ := strconv.Atoi(printed(id))
	s.mu.Lock()
	s.tools[printedArgs]++
	s.mu.Unlock()
	_ = json.NewEncoder(w).Encode(map[string]any{"id": n, "price": 10 * n})
}

func (s *scriptServer) start(t *testing.T) (modelURL, toolURL string) {
	mux := http.NewServeMux()
	mux.HandleFunc("/model", s.model)
	mux.HandleFunc("/tool", s.tool)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL + "/model", srv.URL + "/tool"
}

// startWorkerProcess runs a worker in a subprocess (this test binary).
func startWorkerProcess(t *testing.T, addr, queue, modelURL, toolURL string, env ...string) (*exec.Cmd, <-chan struct{}) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), envWorker+"="+addr, envQueue+"="+queue, envModelURL+"="+modelURL, envToolURL+"="+toolURL)
	cmd.Env = append(cmd.Env, env...)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{}) // closed when the process exited
	go func() {
		_ = cmd.Wait()
		close(done)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-done
	})
	return cmd, done
}

// A worker killed (SIGKILL) in the middle of a mission, after some LLM
// calls and tool calls completed: a new worker finishes the mission, and
// no completed LLM call or tool call is made again.
func TestWorkerCrash(t *testing.T) {
	c, addr := devServer(t)
	srv := newScriptServer(orderScript, 3)
	modelURL, toolURL := srv.start(t)
	queue := "ptc-crash-" + strconv.FormatInt(time.Now().UnixNano(), 36)

	first, firstDone := startWorkerProcess(t, addr, queue, modelURL, toolURL)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	m, err := Start(ctx, c, "order", StartOptions{TaskQueue: queue, Input: map[string]any{"order": "A-17"}})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-srv.holding: // turns 1 and 2 done, turn 3's LLM call in flight
	case <-ctx.Done():
		t.Fatal("the mission did not reach turn 3")
	}
	if p, err := m.Progress(ctx); err != nil || p.LLMCalls != 2 || p.ToolCalls != 3 {
		t.Errorf("progress before the crash: %+v, %v", p, err)
	}
	if err := first.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-firstDone
	startWorkerProcess(t, addr, queue, modelURL, toolURL)

	step, err := m.Result(ctx)
	if err != nil {
		t.Fatalf("the mission failed: %v", err)
	}
	if printed(step.Return) != "100" {
		t.Errorf("return %s", printed(step.Return))
	}
	srv.mu.Lock()
	defer srv.mu.Unlock()
	if len(srv.completed) != 4 {
		t.Errorf("LLM replies %v, want one for each of the 4 turns", srv.completed)
	}
	for k, n := range srv.completed {
		if n != 1 {
			t.Errorf("LLM request %s completed %d times", k, n)
		}
	}
	if len(srv.tools) != 4 {
		t.Errorf("tool calls %v, want 4", srv.tools)
	}
	for k, n := range srv.tools {
		if n != 1 {
			t.Errorf("tool call %s made %d times", k, n)
		}
	}
	if path := os.Getenv("PTC_TEMPORAL_RECORD_HISTORY"); path != "" {
		writeHistory(t, c, m.ID(), "", path)
	}
}

// writeHistory saves a workflow run's history (runID "": the latest run
// of the workflow id) as JSON, for the replay test.
func writeHistory(t *testing.T, c client.Client, id, runID, path string) {
	t.Helper()
	data, err := temporalproto.CustomJSONMarshalOptions{Indent: "  "}.Marshal(fetchHistory(t, c, id, runID))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// fetchHistory is a workflow run's history.
func fetchHistory(t *testing.T, c client.Client, id, runID string) *historypb.History {
	t.Helper()
	return &historypb.History{Events: history(t, c, id, runID)}
}

// A Step round longer than the workflow task's timeout: the worker
// heartbeats the workflow task while the round's local activity runs, so
// the round is not taken for lost (it would then run again and again, each
// time past the timeout, and the mission would never end).
func TestStepLongerThanWorkflowTask(t *testing.T) {
	c, _ := devServer(t)
	queue := "ptc-slow-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	var rounds atomic.Int32
	a := agent.MustNew(agent.Config{
		Prompt:   "Slow {{x}}.",
		MaxTurns: 2,
		Presentation: prompt.Options{Transform: func(p string) string { // built once a round
			rounds.Add(1)
			time.Sleep(2500 * time.Millisecond) // the workflow task's timeout is 1 s
			return p
		}},
	})
	model := newScripted(map[string][]string{"Slow": {`(return 7)`}})
	w, err := NewWorker(c, queue, WorkerOptions{Agents: map[string]*agent.Agent{"slow": a}, Model: llm.Func(model.Func)})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	m, err := Start(ctx, c, "slow", StartOptions{TaskQueue: queue, Input: map[string]any{"x": 1},
		Workflow: client.StartWorkflowOptions{WorkflowTaskTimeout: time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	step, err := m.Result(ctx)
	if err != nil {
		t.Fatalf("the mission failed: %v", err)
	}
	if printed(step.Return) != "7" || model.total() != 1 {
		t.Errorf("return %s after %d LLM calls", printed(step.Return), model.total())
	}
	timedOut, completed := 0, 0
	it := c.GetWorkflowHistory(ctx, m.ID(), m.RunID(), false, enums.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		e, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		switch e.EventType {
		case enums.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT:
			timedOut++
		case enums.EVENT_TYPE_WORKFLOW_TASK_COMPLETED:
			completed++ // one a round, and its heartbeats
		}
	}
	t.Logf("2 rounds of 2.5 s, workflow tasks of 1 s: %d runs of a round, %d workflow tasks completed (heartbeats included), %d timed out",
		rounds.Load(), completed, timedOut)
}
