// Package llmtest provides stand-in models for testing agents without a
// network: a Script that answers each call with the next canned reply and
// records what it was sent, and Replay, which plays back a recorded
// transcript. For provider adapters, RunAdapterSuite checks what every
// adapter promises against a fake server speaking the provider's wire
// format.
package llmtest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/ptc-go/ptc/llm"
)

// Reply is one canned answer: a text, or an error to return instead.
type Reply struct {
	Content string
	Tokens  llm.Tokens
	Err     error
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
	req.Messages = append([]llm.Message(nil), req.Messages...) // the caller may reuse its slice
	s.requests = append(s.requests, req)
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
	tokens := r.Tokens
	if tokens == (llm.Tokens{}) {
		in := len(req.System)
		for _, m := range req.Messages {
			in += len(m.Content)
		}
		tokens = llm.Tokens{Input: (in + 3) / 4, Output: (len(r.Content) + 3) / 4}
	}
	return llm.Response{Content: r.Content, Tokens: tokens}, nil
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

// Transcript is a recorded conversation: the replies of a model, in
// order, as JSON ({"replies": [{"content": "...", "tokens": {...}}]}).
type Transcript struct {
	Replies []TranscriptReply `json:"replies"`
}

// TranscriptReply is one recorded reply.
type TranscriptReply struct {
	Content string     `json:"content"`
	Tokens  llm.Tokens `json:"tokens"`
	Error   string     `json:"error,omitempty"`
	// Class is the llm.Class of the error (default server_error), so that
	// a replayed failure is retried or not as the recorded one was.
	Class llm.Class `json:"class,omitempty"`
	// Status is the HTTP status of the error, when there was one.
	Status int `json:"status,omitempty"`
}

// Replay loads a transcript file and returns a Script that plays it back.
// The file is a Transcript, or a ptc-trace recording ("ptc run --record",
// docs/trace-format.md), of which it plays the replies of
// .step.llm_calls[], in order.
func Replay(path string) (*Script, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var head struct {
		Format string `json:"format"`
	}
	_ = json.Unmarshal(data, &head) // a Transcript has no format
	var t Transcript
	if head.Format == traceFormat {
		if t, err = traceReplies(data); err != nil {
			return nil, fmt.Errorf("llmtest: %s: %w", path, err)
		}
	} else {
		dec := json.NewDecoder(strings.NewReader(string(data)))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&t); err != nil {
			return nil, fmt.Errorf("llmtest: %s: %w", path, err)
		}
	}
	s := &Script{}
	for _, r := range t.Replies {
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

// traceFormat and traceVersion are those of the ptc-trace files Replay
// reads (package agent/trace, which this core package does not import).
const (
	traceFormat  = "ptc-trace"
	traceVersion = 1
)

// traceReplies reads the replies of a ptc-trace recording: only the
// fields it needs.
func traceReplies(data []byte) (Transcript, error) {
	var doc struct {
		Version int `json:"version"`
		Step    *struct {
			LLMCalls []struct {
				Reply  TranscriptReply `json:"reply"`
				Status int             `json:"status"`
			} `json:"llm_calls"`
		} `json:"step"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return Transcript{}, err
	}
	switch {
	case doc.Version < 1 || doc.Version > traceVersion:
		return Transcript{}, fmt.Errorf("a ptc-trace of version %d, not %d", doc.Version, traceVersion)
	case doc.Step == nil || len(doc.Step.LLMCalls) == 0:
		return Transcript{}, errors.New("a ptc-trace without llm_calls: not a recording (ptc run --record)")
	}
	var t Transcript
	for _, c := range doc.Step.LLMCalls {
		r := c.Reply
		r.Status = c.Status
		t.Replies = append(t.Replies, r)
	}
	return t, nil
}

// Record wraps a model and returns the transcript of its replies so far,
// for saving as a test fixture.
type Record struct {
	mu    sync.Mutex
	inner llm.Func
	t     Transcript
}

// NewRecord returns a recorder around f.
func NewRecord(f llm.Func) *Record { return &Record{inner: f} }

// Func returns the recording model function.
func (r *Record) Func() llm.Func {
	return func(ctx context.Context, req llm.Request) (llm.Response, error) {
		resp, err := r.inner(ctx, req)
		r.mu.Lock()
		defer r.mu.Unlock()
		tr := TranscriptReply{Content: resp.Content, Tokens: resp.Tokens}
		if err != nil {
			// The message alone: Replay rebuilds the *llm.Error around it.
			le := llm.Classify(err)
			tr.Error, tr.Class, tr.Status = le.Message, le.Class, le.Status
			if tr.Error == "" {
				tr.Error = err.Error()
			}
		}
		r.t.Replies = append(r.t.Replies, tr)
		return resp, err
	}
}

// Save writes the transcript as indented JSON.
func (r *Record) Save(path string) error {
	r.mu.Lock()
	data, err := json.MarshalIndent(r.t, "", "  ")
	r.mu.Unlock()
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(data, '\n'), 0o644)
}
