package eval

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"

	"github.com/ptc-go/ptc/llm"
)

// The format of a recording file.
const (
	RecordingFormat  = "ptc-eval-recording"
	RecordingVersion = 1
	// MaxRecordingSize bounds the recording files Replay reads.
	MaxRecordingSize = 64 << 20
)

// Recording is the model's side of one run: every reply, keyed by the
// request that asked for it, so that a replay answers each request with
// its own reply whatever order pmap's parallel calls come in.
type Recording struct {
	Format  string         `json:"format"`
	Version int            `json:"version"`
	Run     RunKey         `json:"run"`
	Calls   []RecordedCall `json:"calls"`
}

// RecordedCall is one LLM call of a run.
type RecordedCall struct {
	// Request identifies the request: a hash of its mission prompt (the
	// first user message) and turn; Seq numbers the requests of one
	// identity (retries, equal calls) from 0.
	Request string `json:"request"`
	Seq     int    `json:"seq"`
	Turn    int    `json:"turn"`
	// Conversation hashes the whole request (system prompt and
	// messages): a replay whose request differs still gets the reply and
	// counts as drifted.
	Conversation string     `json:"conversation"`
	Content      string     `json:"content"`
	Tokens       llm.Tokens `json:"tokens"`
	Model        string     `json:"model,omitempty"`
	Error        string     `json:"error,omitempty"`
	Class        llm.Class  `json:"class,omitempty"`
	Status       int        `json:"status,omitempty"`
}

func requestID(req llm.Request) string {
	h := sha256.New()
	h.Write([]byte(req.Prompt))
	h.Write([]byte{0})
	h.Write([]byte(strconv.Itoa(req.Turn)))
	return hex.EncodeToString(h.Sum(nil))[:24]
}

func conversationID(req llm.Request) string {
	h := sha256.New()
	h.Write([]byte(req.System))
	for _, m := range req.Messages {
		h.Write([]byte{0})
		h.Write([]byte(m.Role))
		h.Write([]byte{0})
		h.Write([]byte(m.Content))
	}
	return hex.EncodeToString(h.Sum(nil))[:24]
}

// Recorder records the calls of one run.
type Recorder struct {
	inner llm.Func
	mu    sync.Mutex
	rec   Recording
	seq   map[string]int
}

// NewRecorder records the calls f answers, for the run k.
func NewRecorder(k RunKey, f llm.Func) *Recorder {
	return &Recorder{inner: f, rec: Recording{Format: RecordingFormat, Version: RecordingVersion, Run: k}, seq: map[string]int{}}
}

// Func is the recording model.
func (r *Recorder) Func() llm.Func {
	return func(ctx context.Context, req llm.Request) (llm.Response, error) {
		id := requestID(req)
		r.mu.Lock()
		seq := r.seq[id]
		r.seq[id]++
		r.mu.Unlock()
		resp, err := r.inner(ctx, req)
		c := RecordedCall{Request: id, Seq: seq, Turn: req.Turn, Conversation: conversationID(req),
			Content: resp.Content, Tokens: resp.Tokens, Model: resp.Model}
		if err != nil {
			le := llm.Classify(err)
			c.Error, c.Class, c.Status = le.Message, le.Class, le.Status
			if c.Error == "" {
				c.Error = err.Error()
			}
		}
		r.mu.Lock()
		r.rec.Calls = append(r.rec.Calls, c)
		r.mu.Unlock()
		return resp, err
	}
}

// Recording returns what was recorded so far.
func (r *Recorder) Recording() Recording {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.rec
	out.Calls = append([]RecordedCall(nil), r.rec.Calls...)
	return out
}

// MarshalJSON writes the recording, indented.
func (r *Recorder) MarshalJSON() ([]byte, error) {
	return json.MarshalIndent(r.Recording(), "", "  ")
}

// Replayer answers a run's requests from its recording.
type Replayer struct {
	mu      sync.Mutex
	calls   map[string][]RecordedCall
	used    map[string]int
	drifted int
	missing int
}

// ReadRecording reads a recording (the JSON a Recorder writes) and
// returns its replayer. The data may come from elsewhere: it is bounded
// in size and checked for its format.
func ReadRecording(data []byte) (*Replayer, error) {
	if len(data) > MaxRecordingSize {
		return nil, fmt.Errorf("a recording of %d bytes, over the bound of %d", len(data), MaxRecordingSize)
	}
	var rec Recording
	if err := json.Unmarshal(data, &rec); err != nil {
		return nil, fmt.Errorf("not a recording: %w", err)
	}
	if rec.Format != RecordingFormat || rec.Version < 1 || rec.Version > RecordingVersion {
		return nil, fmt.Errorf("not a %s of version %d (format %q, version %d)", RecordingFormat, RecordingVersion, rec.Format, rec.Version)
	}
	p := &Replayer{calls: map[string][]RecordedCall{}, used: map[string]int{}}
	for _, c := range rec.Calls {
		p.calls[c.Request] = append(p.calls[c.Request], c)
	}
	for id, cs := range p.calls {
		// The order of Seq, whatever order the calls ended in.
		sorted := make([]RecordedCall, len(cs))
		for _, c := range cs {
			if c.Seq < 0 || c.Seq >= len(cs) {
				return nil, fmt.Errorf("recording: request %s has seq %d of %d", id, c.Seq, len(cs))
			}
			sorted[c.Seq] = c
		}
		p.calls[id] = sorted
	}
	return p, nil
}

// ErrNotRecorded is the error of a replayed call the recording has no
// reply for.
var ErrNotRecorded = errors.New("no recorded reply for this request")

// Func is the replaying model: each request gets the reply recorded for
// it; a request the recording lacks fails with ErrNotRecorded (class
// config_error: not retried).
func (p *Replayer) Func() llm.Func {
	return func(ctx context.Context, req llm.Request) (llm.Response, error) {
		id := requestID(req)
		p.mu.Lock()
		n := p.used[id]
		cs := p.calls[id]
		if n >= len(cs) {
			p.missing++
			p.mu.Unlock()
			return llm.Response{}, &llm.Error{Class: llm.Config, Message: fmt.Sprintf("%v (turn %d)", ErrNotRecorded, req.Turn), Err: ErrNotRecorded}
		}
		p.used[id]++
		c := cs[n]
		if c.Conversation != conversationID(req) {
			p.drifted++
		}
		p.mu.Unlock()
		if c.Error != "" {
			class := c.Class
			if class == "" {
				class = llm.ServerError
			}
			return llm.Response{}, &llm.Error{Class: class, Status: c.Status, Message: c.Error}
		}
		return llm.Response{Content: c.Content, Tokens: c.Tokens, Model: c.Model}, nil
	}
}

// Drift reports how many replayed requests differed from the recorded
// ones (a changed prompt or feedback) and how many had no reply.
func (p *Replayer) Drift() (drifted, missing int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.drifted, p.missing
}
