package evalrec

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"sync"

	"github.com/ptc-go/ptc/agent/trace"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm"
)

// answer is a recorded model call, keyed.
type answer struct {
	conversation string // conversationKey of the recorded request
	reply        trace.LLMReply
	status       int
	interrupted  bool
}

// toolAnswer is a recorded tool result, read.
type toolAnswer struct {
	value lisp.Value
	err   string
}

// Replayer answers a run's model requests, and its recorded tools'
// calls, from its recording, by key.
type Replayer struct {
	mu           sync.Mutex
	calls        map[string][]answer
	used         map[string]int
	drifted      int
	missing      int
	tools        map[string][]toolAnswer
	toolNames    map[string]bool
	toolsUsed    map[string]int
	toolsMissing int
}

// Read reads a run's recording: a ptc-trace recording, or a
// ptc-eval-recording of an older ptc (converted on load). The data may
// come from elsewhere: it is bounded in size and checked.
func Read(data []byte) (*Replayer, error) {
	if len(data) > MaxSize {
		return nil, fmt.Errorf("a recording of %d bytes, over the bound of %d", len(data), MaxSize)
	}
	var head struct {
		Format string `json:"format"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, fmt.Errorf("not a recording: %w", err)
	}
	if head.Format == legacyFormat {
		return readLegacy(data)
	}
	rec, err := trace.ReadRecording(data)
	if err != nil {
		return nil, err
	}
	var top struct {
		Step struct {
			SystemPrompt string `json:"system_prompt"`
		} `json:"step"`
	}
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, fmt.Errorf("not a recording: %w", err)
	}
	p := newReplayer()
	for _, c := range rec.Calls {
		system := c.System
		if system == "" {
			system = top.Step.SystemPrompt
		}
		k := requestKey(c.Messages, "", c.Turn)
		p.calls[k] = append(p.calls[k], answer{conversation: conversationKey(system, c.Messages), reply: c.Reply,
			status: c.Status, interrupted: c.Interrupted})
	}
	if err := p.readToolCalls(rec.ToolCalls); err != nil {
		return nil, err
	}
	return p, nil
}

func newReplayer() *Replayer {
	return &Replayer{calls: map[string][]answer{}, used: map[string]int{}, tools: map[string][]toolAnswer{},
		toolNames: map[string]bool{}, toolsUsed: map[string]int{}}
}

// readToolCalls reads the recorded tool calls: each key's results in the
// order of their Seq (a call the recording lost, abandoned when its run
// ended, leaves a gap), each value read back, bounded.
func (p *Replayer) readToolCalls(calls []trace.RecordedToolCall) error {
	byKey := map[string][]trace.RecordedToolCall{}
	for _, c := range calls {
		if c.Tool == "" {
			return errors.New("recording: a tool call names no tool")
		}
		p.toolNames[c.Tool] = true
		k := toolKey(c.Tool, c.Args)
		byKey[k] = append(byKey[k], c)
	}
	for k, cs := range byKey {
		sort.SliceStable(cs, func(i, j int) bool { return cs[i].Seq < cs[j].Seq })
		answers := make([]toolAnswer, len(cs))
		for i, c := range cs {
			if c.Seq < 0 || i > 0 && cs[i-1].Seq == c.Seq {
				return fmt.Errorf("recording: a call of tool %s has seq %d: not a recorded order", clip(c.Tool), c.Seq)
			}
			if c.Error != "" {
				answers[i].err = c.Error
				continue
			}
			v, err := lisp.Read(c.Value, lisp.ReadOptions{MaxBytes: MaxSize})
			if err != nil {
				return fmt.Errorf("recording: the result of a call of tool %s does not read: %v", clip(c.Tool), err)
			}
			answers[i].value = v
		}
		p.tools[k] = answers
	}
	return nil
}

// clip cuts a name from a recording for an error message.
func clip(s string) string {
	if len(s) > 80 {
		return strconv.Quote(s[:80]) + "…"
	}
	return strconv.Quote(s)
}

// HasTool reports whether the recording holds calls of the tool name.
func (p *Replayer) HasTool(name string) bool { return p.toolNames[name] }

// CallTool answers a call of the tool name with args from the recording:
// the next result recorded for the tool and these arguments (equal calls
// get the results in the order the recorded run made them), the value or
// the error (an error with the recorded text). A call the recording has
// no result for, or no more, fails with an error wrapping ErrNotRecorded.
func (p *Replayer) CallTool(name string, args *lisp.Map) (lisp.Value, error) {
	key := toolKey(name, toolArgs(args))
	p.mu.Lock()
	n := p.toolsUsed[key]
	as := p.tools[key]
	if n >= len(as) {
		p.toolsMissing++
		p.mu.Unlock()
		return nil, fmt.Errorf("%w: no result for this call of tool %s", ErrNotRecorded, name)
	}
	p.toolsUsed[key]++
	p.mu.Unlock()
	a := as[n]
	if a.err != "" {
		return nil, errors.New(a.err)
	}
	return a.value, nil
}

// MissingTools reports how many replayed tool calls had no recorded
// result.
func (p *Replayer) MissingTools() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.toolsMissing
}

// Func is the replaying model: each request gets the reply recorded for
// the same mission prompt and turn, equal requests in the order they
// were recorded; a request the recording lacks fails with an error
// wrapping ErrNotRecorded (class config_error: not retried).
func (p *Replayer) Func() llm.Func {
	return func(ctx context.Context, req llm.Request) (llm.Response, error) {
		id := requestKey(req.Messages, req.Prompt, req.Turn)
		p.mu.Lock()
		n := p.used[id]
		cs := p.calls[id]
		if n >= len(cs) {
			p.missing++
			p.mu.Unlock()
			return llm.Response{}, &llm.Error{Class: llm.ClassConfig,
				Message: fmt.Sprintf("no recorded reply for this request (turn %d)", req.Turn), Err: ErrNotRecorded}
		}
		p.used[id]++
		c := cs[n]
		if c.conversation != "" && c.conversation != conversationKey(req.System, req.Messages) {
			p.drifted++
		}
		p.mu.Unlock()
		switch {
		case c.interrupted:
			return llm.Response{}, context.Canceled
		case c.reply.Error != "":
			class := c.reply.Class
			if class == "" {
				class = llm.ClassServerError
			}
			return llm.Response{}, &llm.Error{Class: class, Status: c.status, Message: c.reply.Error}
		}
		return llm.Response{Content: c.reply.Content, Tokens: c.reply.Tokens}, nil
	}
}

// Drift reports how many replayed requests differed from the recorded
// ones (a changed prompt or feedback) and how many had no reply.
func (p *Replayer) Drift() (drifted, missing int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.drifted, p.missing
}
