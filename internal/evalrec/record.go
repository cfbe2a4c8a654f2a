package evalrec

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/agent/trace"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm"
)

// Recorder records the model calls and the tool calls of one run.
type Recorder struct {
	inner   llm.Func
	mu      sync.Mutex
	calls   []trace.LLMCall
	tools   []trace.RecordedToolCall
	toolSeq map[string]int
}

// NewRecorder records the calls f answers.
func NewRecorder(f llm.Func) *Recorder {
	return &Recorder{inner: f, toolSeq: map[string]int{}}
}

// Func is the recording model. A call takes its place in the recording
// when it is made, so that equal requests replay in the order they were
// made whatever order they ended in.
func (r *Recorder) Func() llm.Func {
	return func(ctx context.Context, req llm.Request) (llm.Response, error) {
		r.mu.Lock()
		i := len(r.calls)
		// Until it returns: a call the run abandoned.
		r.calls = append(r.calls, trace.LLMCall{Turn: req.Turn, System: req.System,
			Messages: append([]llm.Message(nil), req.Messages...), Interrupted: true,
			Reply: trace.LLMReply{Error: "the call had not returned when the run ended", Class: llm.ClassCancelled}})
		r.mu.Unlock()
		start := time.Now()
		resp, err := r.inner(ctx, req)
		reply := trace.LLMReply{Content: resp.Content, Tokens: resp.Tokens}
		status := 0
		if err != nil {
			le := llm.Classify(err)
			reply = trace.LLMReply{Error: le.Message, Class: le.Class}
			if reply.Error == "" {
				reply.Error = err.Error()
			}
			status = le.Status
		}
		r.mu.Lock()
		c := &r.calls[i]
		c.Reply, c.Status, c.Interrupted, c.DurationMS = reply, status, false, time.Since(start).Milliseconds()
		r.mu.Unlock()
		return resp, err
	}
}

// toolArgs is the canonical form of a tool call's arguments: JSON, keys
// sorted, keywords as strings, as an MCP server receives them (their
// printed form when they have no JSON form).
func toolArgs(args *lisp.Map) string {
	if args == nil {
		return "{}"
	}
	if g, err := lisp.ToGo(args); err == nil {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if enc.Encode(g) == nil {
			return string(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
		}
	}
	return lisp.Print(args, lisp.PrintOptions{Exact: true})
}

// toolKey is the key of a tool call.
func toolKey(name, args string) string { return name + "\x00" + args }

// CallTool calls f, the tool name of the run, with args, and records
// what it returns: the result as a program gets it (lisp.FromGo), or the
// error's text. Firewalled fields are recorded in clear: a replay must
// give the program what the tool gave it. Equal calls (the same tool and
// arguments) are numbered in the order they are made, pmap's parallel
// ones included. It returns what f returns.
func (r *Recorder) CallTool(ctx context.Context, name string, f agent.ToolFunc, args *lisp.Map) (any, error) {
	a := toolArgs(args)
	key := toolKey(name, a)
	r.mu.Lock()
	seq := r.toolSeq[key]
	r.toolSeq[key]++
	r.mu.Unlock()
	res, err := f(ctx, args)
	c := trace.RecordedToolCall{Tool: name, Args: a, Seq: seq}
	if err != nil {
		c.Error = err.Error()
	} else if v, cerr := lisp.FromGo(res); cerr != nil {
		c.Error = "returned a value PTC-Lisp cannot hold: " + cerr.Error()
	} else {
		c.Value = lisp.Print(v, lisp.PrintOptions{Exact: true})
	}
	r.mu.Lock()
	r.tools = append(r.tools, c)
	r.mu.Unlock()
	return res, err
}

// Marshal writes the recording of the run whose mission is step, on the
// model named model: a ptc-trace recording, indented, redacted as a trace
// is (the model's requests and replies never held what the firewall
// hides, the model never saw it), but for the recorded tool results, in
// clear. It fails for a recording over MaxSize.
func (r *Recorder) Marshal(step *agent.Step, model string) ([]byte, error) {
	r.mu.Lock()
	rec := &trace.Recording{RecordedAt: time.Now().UTC().Format(time.RFC3339), Model: model,
		Calls: append([]trace.LLMCall(nil), r.calls...), ToolCalls: append([]trace.RecordedToolCall(nil), r.tools...)}
	r.mu.Unlock()
	data, err := trace.Marshal(step, trace.JSONOptions{Indent: "  ", Recording: rec})
	if err != nil {
		return nil, err
	}
	if len(data) > MaxSize {
		return nil, fmt.Errorf("%d bytes, over the bound of %d a replay reads", len(data), MaxSize)
	}
	return data, nil
}

// requestKey identifies a request: a hash of its mission prompt (the
// first message) and its turn.
func requestKey(msgs []llm.Message, prompt string, turn int) string {
	if len(msgs) > 0 {
		prompt = msgs[0].Content
	}
	h := sha256.New()
	h.Write([]byte(prompt))
	h.Write([]byte{0})
	h.Write([]byte(strconv.Itoa(turn)))
	return hex.EncodeToString(h.Sum(nil))[:24]
}

// conversationKey hashes a whole request: its system prompt and
// messages.
func conversationKey(system string, msgs []llm.Message) string {
	h := sha256.New()
	h.Write([]byte(system))
	for _, m := range msgs {
		h.Write([]byte{0})
		h.Write([]byte(m.Role))
		h.Write([]byte{0})
		h.Write([]byte(m.Content))
	}
	return hex.EncodeToString(h.Sum(nil))[:24]
}

// ErrNotRecorded is the error of a replayed model request, or tool call,
// the recording has no answer for.
var ErrNotRecorded = errors.New("not recorded")
