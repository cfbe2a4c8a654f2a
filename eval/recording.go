package eval

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm"
)

// The format of a recording file.
const (
	RecordingFormat  = "ptc-eval-recording"
	RecordingVersion = 1
	// MaxRecordingSize bounds the recording files Replay reads.
	MaxRecordingSize = 64 << 20
)

// Recording is the outside world's side of one run: every model reply,
// keyed by the request that asked for it, so that a replay answers each
// request with its own reply whatever order pmap's parallel calls come
// in; and the results of the tools whose calls were recorded
// (Recorder.CallTool), keyed by the tool and its arguments.
type Recording struct {
	Format  string         `json:"format"`
	Version int            `json:"version"`
	Run     RunKey         `json:"run"`
	Calls   []RecordedCall `json:"calls"`
	// ToolCalls are the recorded tool calls, absent when there were none.
	ToolCalls []RecordedToolCall `json:"tool_calls,omitempty"`
}

// RecordedToolCall is one tool call of a run.
type RecordedToolCall struct {
	// Tool is the tool's name and Args its arguments in canonical form:
	// JSON, keys sorted, keywords as strings, as an MCP server receives
	// them (their printed form when they have no JSON form). The two are
	// the key a replay finds the result by.
	Tool string `json:"tool"`
	Args string `json:"args"`
	// Seq numbers the calls of one key from 0, in the order they were
	// made: a replay gives equal calls the results in that order.
	Seq int `json:"seq"`
	// Value is the result as a program got it, in the printed form
	// lisp.Read reads back (lisp.Print (Exact)), firewalled fields in
	// clear; Error, when the call failed, the error's text.
	Value string `json:"value,omitempty"`
	Error string `json:"error,omitempty"`
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
	inner   llm.Func
	mu      sync.Mutex
	rec     Recording
	seq     map[string]int
	toolSeq map[string]int
}

// NewRecorder records the calls f answers, for the run k.
func NewRecorder(k RunKey, f llm.Func) *Recorder {
	return &Recorder{inner: f, rec: Recording{Format: RecordingFormat, Version: RecordingVersion, Run: k},
		seq: map[string]int{}, toolSeq: map[string]int{}}
}

// toolArgs is the canonical form of a tool call's arguments (see
// RecordedToolCall.Args).
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
	c := RecordedToolCall{Tool: name, Args: a, Seq: seq}
	if err != nil {
		c.Error = err.Error()
	} else if v, cerr := lisp.FromGo(res); cerr != nil {
		c.Error = "returned a value PTC-Lisp cannot hold: " + cerr.Error()
	} else {
		c.Value = lisp.Print(v, lisp.PrintOptions{Exact: true})
	}
	r.mu.Lock()
	r.rec.ToolCalls = append(r.rec.ToolCalls, c)
	r.mu.Unlock()
	return res, err
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
	out.ToolCalls = append([]RecordedToolCall(nil), r.rec.ToolCalls...)
	return out
}

// MarshalJSON writes the recording, indented.
func (r *Recorder) MarshalJSON() ([]byte, error) {
	return json.MarshalIndent(r.Recording(), "", "  ")
}

// Replayer answers a run's requests, and its recorded tools' calls, from
// its recording.
type Replayer struct {
	mu           sync.Mutex
	calls        map[string][]RecordedCall
	used         map[string]int
	drifted      int
	missing      int
	tools        map[string][]toolAnswer
	toolsUsed    map[string]int
	toolsMissing int
}

// toolAnswer is a recorded tool result, read.
type toolAnswer struct {
	value lisp.Value
	err   string
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
	if err := p.readToolCalls(rec.ToolCalls); err != nil {
		return nil, err
	}
	return p, nil
}

// readToolCalls reads the recorded tool calls: each key's results in the
// order of their Seq (a call the recording lost, abandoned when its run
// ended, leaves a gap), each value read back, bounded.
func (p *Replayer) readToolCalls(calls []RecordedToolCall) error {
	p.tools, p.toolsUsed = map[string][]toolAnswer{}, map[string]int{}
	byKey := map[string][]RecordedToolCall{}
	for _, c := range calls {
		if c.Tool == "" {
			return errors.New("recording: a tool call names no tool")
		}
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
			v, err := lisp.Read(c.Value, lisp.ReadOptions{MaxBytes: MaxRecordingSize})
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

// ErrToolNotRecorded is the error of a replayed tool call the recording
// has no result for.
var ErrToolNotRecorded = errors.New("no recorded result for this tool call")

// CallTool answers a call of the tool name with args from the recording:
// the next result recorded for the tool and these arguments (equal calls
// get the results in the order the recorded run made them), the value or
// the error (an error with the recorded text). A call the recording has
// no result for, or no more, fails with an error wrapping
// ErrToolNotRecorded.
func (p *Replayer) CallTool(name string, args *lisp.Map) (lisp.Value, error) {
	key := toolKey(name, toolArgs(args))
	p.mu.Lock()
	n := p.toolsUsed[key]
	as := p.tools[key]
	if n >= len(as) {
		p.toolsMissing++
		p.mu.Unlock()
		return nil, fmt.Errorf("%w (tool %s)", ErrToolNotRecorded, name)
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

// unsafeName matches what a file name should not hold.
var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// SafeName makes a name safe as one element of a path: what a file name
// should not hold becomes "_", and it is at most 80 bytes.
func SafeName(s string) string {
	s = strings.Trim(unsafeName.ReplaceAllString(s, "_"), "._")
	if s == "" {
		s = "_"
	}
	if len(s) > 80 {
		s = s[:80]
	}
	return s
}

// RecordingPath is the file of the run k in a recording under dir, as
// "ptc test --record" and eval/evaltest lay it out:
// dir/MODEL/TASK/CASE.RUN.json, each name made safe by SafeName.
func RecordingPath(dir string, k RunKey) string {
	return filepath.Join(dir, SafeName(k.Variant), SafeName(k.Task), fmt.Sprintf("%s.%d.json", SafeName(k.Case), k.Run))
}
