// Package llmtest provides stand-in models for testing agents without a
// network: a Script that answers each call with the next canned reply and
// records what it was sent, and Replay, which plays back the replies of a
// recording (a ptc-trace recording, docs/trace-format.md). For provider adapters, RunAdapterSuite checks what every
// adapter promises against a fake server speaking the provider's wire
// format.
package llmtest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"

	"github.com/ptc-go/ptc/llm"
	"github.com/ptc-go/ptc/llm/adapter"
)

// Reply is one canned answer: a text, or an error to return instead.
type Reply struct {
	Content string
	// ToolCalls are native tool calls (a request with Tools), each an
	// assistant message naming the tool and holding its JSON arguments;
	// their ids are made up when empty ("call_1"...).
	ToolCalls []llm.Message
	Tokens    llm.Tokens
	Err       error
}

// Calls is a Reply of native tool calls, each a tool name and its JSON
// arguments: Calls("search", `{"q": "x"}`, "count", `{}`).
func Calls(nameArgs ...string) Reply {
	var r Reply
	for i := 0; i+1 < len(nameArgs); i += 2 {
		r.ToolCalls = append(r.ToolCalls, llm.Message{Role: llm.Assistant, ToolName: nameArgs[i], Content: nameArgs[i+1]})
	}
	return r
}

// Text is a Reply with content s (and token counts estimated from the
// lengths, 4 characters per token).
func Text(s string) Reply { return Reply{Content: s} }

// Code is a Reply whose content is a ```clojure block holding program.
func Code(program string) Reply { return Reply{Content: "```clojure\n" + program + "\n```"} }

// Fail is a Reply that fails the call with err.
func Fail(err error) Reply { return Reply{Err: err} }

// Script answers calls with its replies in order. It is safe for
// concurrent use. When the replies run out, a call fails (or, with
// Default set, answers with Default).
type Script struct {
	mu       sync.Mutex
	replies  []Reply
	next     int
	requests []llm.Request
	// Default answers the calls after the scripted replies, when set.
	Default *Reply
	// Respond, when set, computes the reply instead of the list (for
	// replies that depend on the request); the list is then unused.
	Respond func(req llm.Request) Reply
	// StreamBytes, when positive, streams each reply that is asked for so
	// (llm.Request.Stream) in pieces of that many bytes; a Stream that
	// returns false ends it there (adapter.FinishStoppedEarly).
	StreamBytes int
}

// NewScript returns a Script with the given replies.
func NewScript(replies ...Reply) *Script { return &Script{replies: replies} }

// Func returns the model function to give an agent.
func (s *Script) Func() llm.Func { return s.call }

func (s *Script) call(ctx context.Context, req llm.Request) (llm.Response, error) {
	if err := ctx.Err(); err != nil {
		return llm.Response{}, err
	}
	s.mu.Lock()
	stream, pieces := req.Stream, s.StreamBytes
	req.Messages = append([]llm.Message(nil), req.Messages...) // the caller may reuse its slice
	req.Stream = nil                                           // what was asked, not the caller's callback
	s.requests = append(s.requests, req)
	callNo := len(s.requests)
	var r Reply
	switch {
	case s.Respond != nil:
		s.mu.Unlock()
		r = s.Respond(req)
		s.mu.Lock()
	case s.next < len(s.replies):
		r = s.replies[s.next]
		s.next++
	case s.Default != nil:
		r = *s.Default
	default:
		n := len(s.requests)
		s.mu.Unlock()
		return llm.Response{}, fmt.Errorf("llmtest: the script has %d replies, call %d asked for one more", n-1, n)
	}
	s.mu.Unlock()
	if r.Err != nil {
		return llm.Response{}, r.Err
	}
	content, finish := r.Content, ""
	if stream != nil && pieces > 0 {
		for i := 0; i < len(content); i += pieces {
			end := min(i+pieces, len(content))
			if !stream(content[i:end]) && end < len(content) {
				content, finish = content[:end], adapter.FinishStoppedEarly
				break
			}
		}
	}
	tokens := r.Tokens
	if finish != "" || tokens == (llm.Tokens{}) {
		in := len(req.System)
		for _, m := range req.Messages {
			in += len(m.Content)
		}
		tokens = llm.Tokens{Input: (in + 3) / 4, Output: (len(content) + 3) / 4}
	}
	var calls []llm.Message
	for i, c := range r.ToolCalls {
		if c.ToolCallID == "" {
			c.ToolCallID = fmt.Sprintf("call_%d_%d", callNo, i+1)
		}
		c.Role = llm.Assistant
		calls = append(calls, c)
	}
	return llm.Response{Content: content, ToolCalls: calls, Tokens: tokens, FinishReason: finish}, nil
}

// Requests returns the requests received so far.
func (s *Script) Requests() []llm.Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]llm.Request(nil), s.requests...)
}

// Calls returns the number of calls so far.
func (s *Script) Calls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.requests)
}

// LastMessage returns the content of the last message of request i (the
// feedback the agent sent on that turn).
func (s *Script) LastMessage(i int) string {
	reqs := s.Requests()
	if i < 0 || i >= len(reqs) || len(reqs[i].Messages) == 0 {
		return ""
	}
	m := reqs[i].Messages
	return m[len(m)-1].Content
}

// Replay loads a recording and returns a Script that plays its replies
// back, in order: a ptc-trace recording ("ptc run --record", ptc dev's
// runs; docs/trace-format.md), of which it plays .step.llm_calls[], a
// failed call failing with an *llm.Error of the recorded class and status.
// The {"replies": [...]} transcripts of older ptc versions are read too,
// converted on load; nothing writes them any more.
func Replay(path string) (*Script, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var head struct {
		Format string `json:"format"`
	}
	_ = json.Unmarshal(data, &head) // a legacy transcript has no format
	var replies []recordedReply
	if head.Format == traceFormat {
		replies, err = traceReplies(data)
	} else {
		replies, err = legacyReplies(data)
	}
	if err != nil {
		return nil, fmt.Errorf("llmtest: %s: %w", path, err)
	}
	s := &Script{}
	for _, r := range replies {
		rep := Reply{Content: r.Content, Tokens: r.Tokens}
		if r.Error != "" {
			class := r.Class
			if class == "" {
				class = llm.ClassServerError
			}
			rep.Err = &llm.Error{Class: class, Status: r.Status, Message: r.Error}
		}
		s.replies = append(s.replies, rep)
	}
	return s, nil
}

// recordedReply is a recorded reply: a trace recording's call reply, or
// a legacy transcript's reply.
type recordedReply struct {
	Content string     `json:"content"`
	Tokens  llm.Tokens `json:"tokens"`
	Error   string     `json:"error,omitempty"`
	Class   llm.Class  `json:"class,omitempty"`
	Status  int        `json:"status,omitempty"`
}

// legacyReplies reads a transcript of an older ptc: {"replies": [...]}.
func legacyReplies(data []byte) ([]recordedReply, error) {
	var t struct {
		Replies []recordedReply `json:"replies"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&t); err != nil {
		return nil, err
	}
	return t.Replies, nil
}

// traceFormat and traceVersion are those of the ptc-trace files Replay
// reads (package agent/trace, which this core package does not import).
const (
	traceFormat  = "ptc-trace"
	traceVersion = 1
)

// traceReplies reads the replies of a ptc-trace recording: only the
// fields it needs.
func traceReplies(data []byte) ([]recordedReply, error) {
	var doc struct {
		Version int `json:"version"`
		Step    *struct {
			LLMCalls []struct {
				Reply  recordedReply `json:"reply"`
				Status int           `json:"status"`
			} `json:"llm_calls"`
		} `json:"step"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	switch {
	case doc.Version < 1 || doc.Version > traceVersion:
		return nil, fmt.Errorf("a ptc-trace of version %d, not %d", doc.Version, traceVersion)
	case doc.Step == nil || len(doc.Step.LLMCalls) == 0:
		return nil, errors.New("a ptc-trace without llm_calls: not a recording (ptc run --record)")
	}
	var out []recordedReply
	for _, c := range doc.Step.LLMCalls {
		r := c.Reply
		r.Status = c.Status
		out = append(out, r)
	}
	return out, nil
}
