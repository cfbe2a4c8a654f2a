package trace

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/llm"
	"github.com/ptc-go/ptc/llm/llmtest"
)

// TestRecording: JSONOptions.Recording writes a recording's fields
// beside the mission, ReadRecording reads them back, Unmarshal still
// reads the trace, and a redacted recording scrubs what the mission
// firewalled from its calls, agent text and model (raw keeps them).
func TestRecording(t *testing.T) {
	const key = "CTXSECRET-alpha-1234"
	model := llmtest.NewScript(tjCode(`(return {:leak (str "L" ctx/_key)})`))
	step, err := agent.MustNew(agent.Config{Prompt: "p"}).Run(context.Background(), agent.Options{LLM: model.Func(),
		Input: map[string]any{"_key": key}})
	if err != nil {
		t.Fatal(err)
	}
	req := model.Requests()[0]
	rec := &Recording{PTC: "v9", RecordedAt: "2026-01-02T03:04:05Z", Model: "script:m",
		Agent:   &RecordedAgent{File: "a.md", SHA256: "00", Text: "agent text with " + key},
		Context: json.RawMessage(`{"_key":"<Firewalled>"}`),
		Calls: []LLMCall{
			{Turn: 1, System: "other system", Messages: []llm.Message{{Role: llm.User, Content: "ask " + key}},
				Reply: LLMReply{Error: "overloaded " + key, Class: llm.ClassServerError}, Status: 503, DurationMS: 5},
			{Turn: 1, System: req.System, Messages: req.Messages, Reply: LLMReply{Content: "(return 1)", Tokens: llm.Tokens{Input: 3}}},
		}}
	tests := []struct {
		raw     bool
		secret  bool
		errText string
	}{
		{raw: false, secret: false, errText: "overloaded <Firewalled>"},
		{raw: true, secret: true, errText: "overloaded " + key},
	}
	for _, tt := range tests {
		data, err := Marshal(step, JSONOptions{Raw: tt.raw, Recording: rec})
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(data, []byte(key)) != tt.secret {
			t.Errorf("raw %v: the recording holds the secret: %v\n%s", tt.raw, !tt.secret, data)
		}
		got, err := ReadRecording(data)
		if err != nil {
			t.Fatal(err)
		}
		if got.PTC != "v9" || got.RecordedAt != rec.RecordedAt || got.Model != "script:m" || got.Agent == nil ||
			got.Agent.File != "a.md" || string(got.Context) != `{"_key":"<Firewalled>"}` || len(got.Calls) != 2 {
			t.Fatalf("raw %v: read back %+v", tt.raw, got)
		}
		c0, c1 := got.Calls[0], got.Calls[1]
		if c0.System != "other system" || c0.Status != 503 || c0.Reply.Error != tt.errText || c0.Reply.Class != llm.ClassServerError ||
			c0.DurationMS != 5 {
			t.Errorf("raw %v: call 1 %+v", tt.raw, c0)
		}
		// The system prompt of the step is left out of the call.
		if c1.System != "" || c1.Reply.Content != "(return 1)" || c1.Reply.Tokens.Input != 3 || len(c1.Messages) != len(req.Messages) {
			t.Errorf("raw %v: call 2 %+v", tt.raw, c1)
		}
		if !strings.Contains(string(data), `"llm_calls"`) {
			t.Errorf("no llm_calls:\n%s", data)
		}
		if _, err := Unmarshal(data); err != nil {
			t.Errorf("raw %v: Unmarshal: %v", tt.raw, err)
		}
	}
	// A trace that is not a recording has an empty one.
	data, err := Marshal(step, JSONOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := ReadRecording(data); err != nil || got.Agent != nil || len(got.Calls) != 0 || got.Model != "" {
		t.Errorf("a plain trace's recording: %+v, %v", got, err)
	}
	if _, err := ReadRecording([]byte(`{"format": "ptc-trace", "version": 2, "step": {}}`)); err == nil {
		t.Error("a newer version read")
	}
}

// TestRecordingToolCalls: a recording's tool results are written in
// clear even in a redacted trace (a replay gives the program what the
// tool gave it) and read back as they were.
func TestRecordingToolCalls(t *testing.T) {
	const key = "CTXSECRET-beta-5678"
	step, err := agent.MustNew(agent.Config{Prompt: "p"}).Run(context.Background(), agent.Options{
		LLM: llmtest.NewScript(tjCode(`(return (str "L" ctx/_key))`)).Func(), Input: map[string]any{"_key": key}})
	if err != nil {
		t.Fatal(err)
	}
	calls := []RecordedToolCall{{Tool: "lookup", Args: `{"id":1}`, Seq: 0, Value: `{"_key" "` + key + `"}`},
		{Tool: "lookup", Args: `{"id":1}`, Seq: 1, Error: "gone"}}
	data, err := Marshal(step, JSONOptions{Recording: &Recording{ToolCalls: calls}})
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(data), key); n != 1 {
		t.Errorf("the secret appears %d times, want once (the tool result):\n%s", n, data)
	}
	got, err := ReadRecording(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.ToolCalls) != 2 || got.ToolCalls[0] != calls[0] || got.ToolCalls[1] != calls[1] {
		t.Errorf("read back %+v", got.ToolCalls)
	}
}
