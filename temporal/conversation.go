package temporal

import (
	"container/list"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"slices"
	"sync"

	"go.temporal.io/sdk/activity"
	sdktemporal "go.temporal.io/sdk/temporal"

	"github.com/ptc-go/ptc/llm"
)

// An LLM activity's input is recorded in the mission's history. Sent whole
// on every turn, the conversation would be stored again each time: a 20 KB
// context and 60 turns make megabytes of copies. On a version's task queue
// the workflow therefore sends each request as its difference from the
// previous one (llmInput.Base) with the whole request's digest (a large
// first request of a run as its digest alone), and the worker rebuilds it: from the previous request of the mission when it
// made that call (conversations), else by asking the workflow, which holds
// the whole request while the call is in flight (queryLLMRequest; a query
// is not recorded in the history). The digest makes a rebuild that went
// wrong a fresh query rather than a wrong conversation sent to a model.

// largeRequestBytes is the size past which a run's first request, which
// its round's marker holds whole, is not repeated in the LLM activity's
// input: the worker asks the workflow for it (a query, rather than the
// request's bytes stored twice).
const largeRequestBytes = 32 << 10

// conversationBytes bounds what a worker keeps of the missions'
// conversations (their last request each, the least recently used dropped
// first): a mission whose request was dropped costs a query.
const conversationBytes = 64 << 20

// conversations are the last whole LLM request of each mission whose call
// the worker made, by workflow run; safe for concurrent use.
type conversations struct {
	mu       sync.Mutex
	maxBytes int
	bytes    int
	byRun    map[string]*list.Element // of *conversation
	lru      list.List                // most recently used first
	// hits and queries count the requests rebuilt from the cache and those
	// asked of the workflow.
	hits, queries int
}

type conversation struct {
	run    string
	req    llm.Request
	digest string
	// reply is the model's reply to req, once the call succeeded.
	reply string
	size  int
}

func newConversations(maxBytes int) *conversations {
	return &conversations{maxBytes: maxBytes, byRun: map[string]*list.Element{}}
}

// request is the whole request of the LLM activity's input: in.Request, or
// the one in.Request's difference rebuilds. It keeps it for the mission's
// next call when the worker's task queue gets differences.
func (c *conversations) request(ctx context.Context, in llmInput) (llm.Request, error) {
	if in.Base == 0 && in.Digest == "" {
		if activity.IsActivity(ctx) && sendsDifferences(activity.GetInfo(ctx).TaskQueue) {
			c.keep(runKey(ctx), in.Request, requestDigest(in.Request))
		}
		return in.Request, nil
	}
	run := runKey(ctx)
	if req, ok := c.rebuild(run, in); ok {
		return req, nil
	}
	info := activity.GetInfo(ctx)
	c.mu.Lock()
	c.queries++
	c.mu.Unlock()
	v, err := activity.GetClient(ctx).QueryWorkflow(ctx, info.WorkflowExecution.ID, info.WorkflowExecution.RunID,
		queryLLMRequest, in.Digest)
	if err != nil {
		return llm.Request{}, sdktemporal.NewApplicationError(
			"rebuilding the LLM request: the mission's workflow did not answer: "+err.Error(), errTypeConversation)
	}
	var req llm.Request
	if err := v.Get(&req); err != nil {
		return llm.Request{}, sdktemporal.NewApplicationError("rebuilding the LLM request: "+err.Error(), errTypeConversation)
	}
	if d := requestDigest(req); d != in.Digest {
		return llm.Request{}, sdktemporal.NewApplicationError(fmt.Sprintf(
			"rebuilding the LLM request: the workflow's request has digest %s, the call's %s", d, in.Digest), errTypeConversation)
	}
	c.keep(run, req, in.Digest)
	return req, nil
}

// rebuild is the request of in from the mission's last request the worker
// kept: that request itself (the call's retry), or it continued by in's
// new messages; false when it cannot, or when what it builds is not the
// request in's digest names.
func (c *conversations) rebuild(run string, in llmInput) (llm.Request, bool) {
	c.mu.Lock()
	el, ok := c.byRun[run]
	var last conversation
	if ok {
		last = *el.Value.(*conversation)
		c.lru.MoveToFront(el)
	}
	c.mu.Unlock()
	if !ok {
		return llm.Request{}, false
	}
	req := last.req
	if last.digest != in.Digest {
		if in.Base > len(last.req.Messages) || (in.Reply && last.reply == "") {
			return llm.Request{}, false
		}
		req.Messages = slices.Clip(last.req.Messages[:in.Base])
		if in.Reply {
			req.Messages = append(req.Messages, llm.Message{Role: llm.Assistant, Content: last.reply})
		}
		req.Messages = append(req.Messages, in.Request.Messages...)
		req.Turn = in.Request.Turn
		if requestDigest(req) != in.Digest {
			return llm.Request{}, false
		}
		c.keep(run, req, in.Digest)
	}
	c.mu.Lock()
	c.hits++
	c.mu.Unlock()
	return req, true
}

// keep makes req the last request of the mission's run.
func (c *conversations) keep(run string, req llm.Request, digest string) {
	size := requestSize(req)
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.byRun[run]; ok {
		c.bytes -= el.Value.(*conversation).size
		c.lru.Remove(el)
		delete(c.byRun, run)
	}
	if size > c.maxBytes {
		return
	}
	c.byRun[run] = c.lru.PushFront(&conversation{run: run, req: req, digest: digest, size: size})
	c.bytes += size
	for c.bytes > c.maxBytes {
		old := c.lru.Back().Value.(*conversation)
		c.lru.Remove(c.lru.Back())
		delete(c.byRun, old.run)
		c.bytes -= old.size
	}
}

// replied records the model's reply to the mission's last request, the one
// whose digest is given: the next request, sent as a difference, leaves it
// out (llmInput.Reply).
func (c *conversations) replied(ctx context.Context, digest, reply string) {
	if !activity.IsActivity(ctx) {
		return
	}
	run := runKey(ctx)
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.byRun[run]
	if !ok {
		return
	}
	conv := el.Value.(*conversation)
	if conv.digest != digest || conv.reply != "" {
		return
	}
	if c.bytes+len(reply) > c.maxBytes {
		return // the next request costs a query
	}
	conv.reply = reply
	conv.size += len(reply)
	c.bytes += len(reply)
}

// runKey names the workflow run of the activity of ctx: one mission (a
// nested agent's is a run of its own).
func runKey(ctx context.Context) string {
	e := activity.GetInfo(ctx).WorkflowExecution
	return e.ID + "\x00" + e.RunID
}

// requestSize is about the memory req holds.
func requestSize(req llm.Request) int {
	n := 256 + len(req.System) + len(req.Prompt)
	for _, m := range req.Messages {
		n += 32 + len(m.Role) + len(m.Content)
	}
	for _, t := range req.ToolNames {
		n += 16 + len(t)
	}
	return n
}

// requestDigest identifies a request by its texts: its turn, system
// prompt, prompt, messages, tool names and sender (each text length
// prefixed, so that no two requests share an encoding). Its Options, the
// same on every call of a mission, are left out: a digest must not depend
// on how a decoder typed their numbers.
func requestDigest(req llm.Request) string {
	h := sha256.New()
	var n [8]byte
	put := func(s string) {
		binary.BigEndian.PutUint64(n[:], uint64(len(s)))
		h.Write(n[:])
		h.Write([]byte(s))
	}
	binary.BigEndian.PutUint64(n[:], uint64(req.Turn))
	h.Write(n[:])
	put(req.System)
	put(req.Prompt)
	binary.BigEndian.PutUint64(n[:], uint64(len(req.Messages)))
	h.Write(n[:])
	for _, m := range req.Messages {
		put(string(m.Role))
		put(m.Content)
	}
	binary.BigEndian.PutUint64(n[:], uint64(len(req.ToolNames)))
	h.Write(n[:])
	for _, t := range req.ToolNames {
		put(t)
	}
	put(fmt.Sprintf("%t %d", req.Cache, req.Depth))
	put(req.Agent)
	put(req.TraceID)
	put(req.ParentTraceID)
	return hex.EncodeToString(h.Sum(nil)[:16])
}
