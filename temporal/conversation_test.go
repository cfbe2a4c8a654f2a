package temporal

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm"
)

func conversationOf(turn int) llm.Request {
	req := llm.Request{System: "the system prompt", Prompt: "the mission", Turn: turn, ToolNames: []string{"page"},
		TraceID: "t1", Messages: []llm.Message{{Role: llm.User, Content: "the mission"}}}
	for i := 1; i < turn; i++ {
		req.Messages = append(req.Messages, llm.Message{Role: llm.Assistant, Content: fmt.Sprintf("reply %d", i)},
			llm.Message{Role: llm.User, Content: fmt.Sprintf("feedback %d", i)})
	}
	return req
}

// A worker rebuilds a request sent as a difference from the mission's
// previous request when it made that call, checked by the digest; it
// cannot from another request, nor from none.
func TestConversationRebuild(t *testing.T) {
	c := newConversations(1 << 20)
	prev, next := conversationOf(2), conversationOf(3)
	diff := llmInput{Request: llm.Request{Turn: 3, Messages: next.Messages[4:]}, Base: 3, Reply: true, Digest: requestDigest(next)}

	if _, ok := c.rebuild("run", diff); ok {
		t.Fatal("rebuilt without the previous request")
	}
	c.keep("run", prev, requestDigest(prev))
	if _, ok := c.rebuild("run", diff); ok {
		t.Fatal("rebuilt without the previous reply")
	}
	c.mu.Lock()
	c.byRun["run"].Value.(*conversation).reply = "reply 2"
	c.mu.Unlock()
	got, ok := c.rebuild("run", diff)
	if !ok || requestDigest(got) != requestDigest(next) || len(got.Messages) != 5 || got.System != next.System ||
		got.Messages[3].Content != "reply 2" || got.Turn != 3 {
		t.Fatalf("rebuilt %+v, %v", got, ok)
	}
	// The call's retry: the request kept is the one asked for.
	if again, ok := c.rebuild("run", diff); !ok || requestDigest(again) != diff.Digest {
		t.Fatal("a retry of the call is not rebuilt")
	}
	// Another mission's, or a digest that does not match, is not used.
	if _, ok := c.rebuild("other", diff); ok {
		t.Error("rebuilt from another run's request")
	}
	wrong := diff
	wrong.Digest = requestDigest(conversationOf(4))
	if _, ok := c.rebuild("run", wrong); ok {
		t.Error("rebuilt a request whose digest does not match")
	}
	if c.hits != 2 {
		t.Errorf("%d hits, want 2", c.hits)
	}
}

// What the cache keeps is bounded: the least recently used missions go
// first, and a request larger than the bound is not kept.
func TestConversationBound(t *testing.T) {
	req := conversationOf(3)
	size := requestSize(req)
	c := newConversations(3 * size)
	for i := range 5 {
		c.keep(strconv.Itoa(i), req, requestDigest(req))
	}
	if c.bytes > c.maxBytes || len(c.byRun) != 3 || c.lru.Len() != 3 {
		t.Fatalf("%d bytes of %d, %d missions", c.bytes, c.maxBytes, len(c.byRun))
	}
	if _, ok := c.byRun["0"]; ok {
		t.Error("the oldest mission is kept")
	}
	big := req
	big.System = strings.Repeat("x", 4*size)
	c.keep("big", big, requestDigest(big))
	if _, ok := c.byRun["big"]; ok || c.bytes > c.maxBytes {
		t.Errorf("a request larger than the bound is kept (%d bytes of %d)", c.bytes, c.maxBytes)
	}
}

// Requests that differ in any text the model reads have different
// digests.
func TestRequestDigest(t *testing.T) {
	base := conversationOf(2)
	variants := []func(r *llm.Request){
		func(r *llm.Request) { r.System += " " },
		func(r *llm.Request) { r.Prompt = "another" },
		func(r *llm.Request) { r.Turn++ },
		func(r *llm.Request) { r.Messages = r.Messages[:2] },
		func(r *llm.Request) { r.Messages[1].Content = "reply 1 " },
		func(r *llm.Request) { r.Messages[1].Role = llm.User },
		func(r *llm.Request) { r.ToolNames = nil },
		func(r *llm.Request) { r.Cache = true },
		func(r *llm.Request) { r.TraceID = "t2" },
		// The same texts split otherwise.
		func(r *llm.Request) { r.System, r.Prompt = "the system", " prompt the mission" },
	}
	seen := map[string]int{requestDigest(base): -1}
	for i, change := range variants {
		r := conversationOf(2)
		change(&r)
		d := requestDigest(r)
		if j, ok := seen[d]; ok {
			t.Errorf("variant %d has the digest of %d", i, j)
		}
		seen[d] = i
	}
}

// A worker that did not keep a mission's conversation asks the workflow
// for each request sent as a difference (queryLLMRequest): the model still
// gets the whole conversation, each call made once.
func TestLLMRequestRebuiltByQuery(t *testing.T) {
	c, _ := devServer(t)
	queue := testQueue("conversation-query")
	pages := newCounter()
	turns := 5
	model := newScripted(map[string][]string{"book": pagerScript(turns)})
	w := startWorker(t, c, queue, WorkerOptions{Model: llm.Func(model.Func), Agents: map[string]*agent.Agent{"pager": pagerAgent(t, pages)}})
	convs := w.(*fleet).r.conversations
	convs.mu.Lock()
	convs.maxBytes = 0 // keeps nothing
	convs.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	m, err := Start(ctx, c, "pager", StartOptions{TaskQueue: queue, Input: map[string]any{"book": "book"}})
	if err != nil {
		t.Fatal(err)
	}
	step, err := m.Result(ctx)
	if err != nil || printed(step.Return) != strconv.Itoa(turns-1) {
		t.Fatalf("step %v, err %v", step, err)
	}
	checkWholeRequests(t, model, turns)
	runs := missionRuns(t, c, m.ID(), m.RunID())
	convs.mu.Lock()
	defer convs.mu.Unlock()
	if want := turns - len(runs); convs.queries != want || convs.hits != 0 {
		t.Errorf("%d queries, %d hits; want %d and 0", convs.queries, convs.hits, want)
	}
}

// checkWholeRequests checks that the model got each turn's conversation
// whole: the system prompt, the mission, and each earlier reply and its
// feedback.
func checkWholeRequests(t *testing.T, model *scripted, turns int) {
	t.Helper()
	model.mu.Lock()
	defer model.mu.Unlock()
	if len(model.reqs) != turns {
		t.Fatalf("%d requests, want %d", len(model.reqs), turns)
	}
	for i, req := range model.reqs {
		if req.Turn != i+1 || req.System == "" || len(req.Messages) != 2*i+1 || req.Messages[0].Role != llm.User {
			t.Fatalf("request %d: turn %d, %d messages, system prompt %d bytes", i+1, req.Turn, len(req.Messages), len(req.System))
		}
		for k := 1; k < len(req.Messages); k += 2 {
			if req.Messages[k].Role != llm.Assistant || !strings.Contains(req.Messages[k].Content, fmt.Sprintf("(def p%d ", k/2+1)) ||
				req.Messages[k+1].Role != llm.User {
				t.Fatalf("request %d, message %d: %+v", i+1, k, req.Messages[k])
			}
		}
	}
}

// A mission that an earlier release moved to its version's task queue,
// named without the protocol (legacyVersionTaskQueue), ends on a worker of
// this one, its LLM requests sent whole: workers of that release, which
// poll that task queue too, would not rebuild a difference.
func TestLegacyVersionQueue(t *testing.T) {
	c, _ := devServer(t)
	queue := testQueue("legacy-queue")
	pages := newCounter()
	turns := 4
	model := newScripted(map[string][]string{"book": pagerScript(turns)})
	a := pagerAgent(t, pages)
	startWorker(t, c, queue, WorkerOptions{Model: llm.Func(model.Func), Agents: map[string]*agent.Agent{"pager": a}})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	legacy := legacyVersionTaskQueue(queue, "pager", a.Fingerprint())
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{TaskQueue: legacy}, WorkflowName, missionInput{
		Agent: "pager", Context: lisp.Print(mustContext(t, map[string]any{"book": "book"}), lisp.PrintOptions{Exact: true}),
		Fingerprint: a.Fingerprint(), Queue: legacy})
	if err != nil {
		t.Fatal(err)
	}
	m := &Mission{c: c, id: run.GetID(), runID: run.GetRunID()}
	step, err := m.Result(ctx)
	if err != nil || printed(step.Return) != strconv.Itoa(turns-1) {
		t.Fatalf("step %v, err %v", step, err)
	}
	checkWholeRequests(t, model, turns)
	for i, in := range llmInputs(t, history(t, c, m.ID(), m.RunID())) {
		if in.Base != 0 || in.Digest != "" || len(in.Request.Messages) != 2*i+1 {
			t.Errorf("LLM call %d on the legacy task queue was sent as a difference (base %d, %d messages)", i+1, in.Base, len(in.Request.Messages))
		}
	}
}

func mustContext(t *testing.T, v any) *lisp.Map {
	t.Helper()
	m, err := contextMap(v)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// A run's first request, when large, is stored once: whole in the round's
// marker, and as its digest alone in the LLM activity's input, the worker
// asking the workflow for it.
func TestLargeFirstRequestStoredOnce(t *testing.T) {
	c, _ := devServer(t)
	queue := testQueue("conversation-large")
	pages := newCounter()
	turns := 3
	model := newScripted(map[string][]string{"book": pagerScript(turns)})
	a := pagerAgent(t, pages)
	cfg := a.Config()
	cfg.Prompt += "\n\n" + strings.Repeat("Read each line of each page with care. ", (largeRequestBytes+8<<10)/39)
	large := mustAgent(t, cfg)
	w := startWorker(t, c, queue, WorkerOptions{Model: llm.Func(model.Func), Agents: map[string]*agent.Agent{"pager": large}})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	m, err := Start(ctx, c, "pager", StartOptions{TaskQueue: queue, Input: map[string]any{"book": "book"}})
	if err != nil {
		t.Fatal(err)
	}
	step, err := m.Result(ctx)
	if err != nil || printed(step.Return) != strconv.Itoa(turns-1) {
		t.Fatalf("step %v, err %v", step, err)
	}
	checkWholeRequests(t, model, turns)
	runs := missionRuns(t, c, m.ID(), m.RunID())
	firsts := 0
	for _, r := range runs {
		for i, in := range llmInputs(t, history(t, c, m.ID(), r)) {
			if i > 0 {
				continue
			}
			firsts++
			if in.Base != 0 || in.Digest == "" || len(in.Request.Messages) != 0 || in.Request.System != "" || in.Request.Prompt != "" {
				t.Errorf("run %s: the first LLM activity's input holds the request (%d messages, system prompt %d bytes, digest %q)",
					r, len(in.Request.Messages), len(in.Request.System), in.Digest)
			}
		}
	}
	convs := w.(*fleet).r.conversations
	convs.mu.Lock()
	defer convs.mu.Unlock()
	if firsts != len(runs) || convs.queries != len(runs) || convs.hits != turns-len(runs) {
		t.Errorf("%d runs, %d first requests, %d queries, %d hits; want %d queries and %d hits",
			len(runs), firsts, convs.queries, convs.hits, len(runs), turns-len(runs))
	}
}
