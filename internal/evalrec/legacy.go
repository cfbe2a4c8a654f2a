package evalrec

import (
	"encoding/json"
	"fmt"

	"github.com/ptc-go/ptc/agent/trace"
	"github.com/ptc-go/ptc/llm"
)

// The ptc-eval-recording format of older ptc versions: read, converted on
// load, and no longer written.
const (
	legacyFormat  = "ptc-eval-recording"
	legacyVersion = 1
)

// legacyRecording is a ptc-eval-recording: the model replies keyed by
// hashes of their requests (requestKey, conversationKey), and the tool
// calls as a trace recording has them.
type legacyRecording struct {
	Format    string                   `json:"format"`
	Version   int                      `json:"version"`
	Calls     []legacyCall             `json:"calls"`
	ToolCalls []trace.RecordedToolCall `json:"tool_calls,omitempty"`
}

type legacyCall struct {
	Request      string     `json:"request"`
	Seq          int        `json:"seq"`
	Conversation string     `json:"conversation"`
	Content      string     `json:"content"`
	Tokens       llm.Tokens `json:"tokens"`
	Error        string     `json:"error,omitempty"`
	Class        llm.Class  `json:"class,omitempty"`
	Status       int        `json:"status,omitempty"`
}

// readLegacy converts a ptc-eval-recording into a Replayer.
func readLegacy(data []byte) (*Replayer, error) {
	var rec legacyRecording
	if err := json.Unmarshal(data, &rec); err != nil {
		return nil, fmt.Errorf("not a recording: %w", err)
	}
	if rec.Version < 1 || rec.Version > legacyVersion {
		return nil, fmt.Errorf("not a %s of version %d (version %d)", legacyFormat, legacyVersion, rec.Version)
	}
	p := newReplayer()
	byID := map[string][]legacyCall{}
	for _, c := range rec.Calls {
		byID[c.Request] = append(byID[c.Request], c)
	}
	for id, cs := range byID {
		// The order of Seq, whatever order the calls ended in.
		sorted := make([]answer, len(cs))
		for _, c := range cs {
			if c.Seq < 0 || c.Seq >= len(cs) {
				return nil, fmt.Errorf("recording: request %s has seq %d of %d", clip(id), c.Seq, len(cs))
			}
			sorted[c.Seq] = answer{conversation: c.Conversation, status: c.Status,
				reply: trace.LLMReply{Content: c.Content, Tokens: c.Tokens, Error: c.Error, Class: c.Class}}
		}
		p.calls[id] = sorted
	}
	if err := p.readToolCalls(rec.ToolCalls); err != nil {
		return nil, err
	}
	return p, nil
}
