package openai

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/ptc-go/ptc/llm"
)

// toolCallsReply is a recorded-style Chat Completions reply whose message
// asks for two tool calls at once.
const toolCallsReply = `{
  "id": "chatcmpl-C1",
  "object": "chat.completion",
  "created": 1743700000,
  "model": "gpt-4.1-mini-2025-04-14",
  "choices": [{
    "index": 0,
    "message": {
      "role": "assistant",
      "content": null,
      "tool_calls": [
        {"id": "call_a", "type": "function", "function": {"name": "search", "arguments": "{\"q\":\"urgent\"}"}},
        {"id": "call_b", "type": "function", "function": {"name": "count", "arguments": "{}"}}
      ],
      "refusal": null
    },
    "finish_reason": "tool_calls"
  }],
  "usage": {"prompt_tokens": 90, "completion_tokens": 30, "total_tokens": 120}
}`

// In tool-calling mode the request declares the tools (type function, the
// JSON Schema of their arguments), sends earlier calls as one assistant
// message with its tool_calls and their results as tool messages, and the
// reply's calls come back in Response.ToolCalls.
func TestToolCalling(t *testing.T) {
	s := newServer(t, always(reply{Body: toolCallsReply}))
	schema := map[string]any{"type": "object", "properties": map[string]any{"q": map[string]any{"type": "string"}}, "required": []any{"q"}}
	req := llm.Request{
		System: "Use the tools.",
		Tools:  []llm.ToolSpec{{Name: "search", Description: "Searches.", Parameters: schema}, {Name: "count", Parameters: map[string]any{"type": "object"}}},
		Messages: []llm.Message{
			{Role: llm.User, Content: "Find the urgent ones."},
			{Role: llm.Assistant, Content: "Let me look."},
			{Role: llm.Assistant, ToolCallID: "call_1", ToolName: "search", Content: `{"q":"x"}`},
			{Role: llm.Assistant, ToolCallID: "call_2", ToolName: "count", Content: `{}`},
			{Role: llm.User, ToolCallID: "call_1", Content: `[1,2]`},
			{Role: llm.User, ToolCallID: "call_2", Content: `2`},
		},
		Stream: func(string) bool { return true }, // read whole: a reply with calls
	}
	resp, err := newFunc(t, s, Config{})(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	want := []llm.Message{
		{Role: llm.Assistant, ToolCallID: "call_a", ToolName: "search", Content: `{"q":"urgent"}`},
		{Role: llm.Assistant, ToolCallID: "call_b", ToolName: "count", Content: `{}`},
	}
	if !reflect.DeepEqual(resp.ToolCalls, want) || resp.FinishReason != "tool_calls" || resp.Tokens.Output != 30 {
		t.Errorf("response %+v", resp)
	}

	body := s.Request(0).JSON
	tools, _ := body["tools"].([]any)
	if len(tools) != 2 {
		t.Fatalf("tools %v", body["tools"])
	}
	first, _ := tools[0].(map[string]any)
	fn, _ := first["function"].(map[string]any)
	if first["type"] != "function" || fn["name"] != "search" || fn["description"] != "Searches." ||
		!reflect.DeepEqual(fn["parameters"], roundTrip(schema)) {
		t.Errorf("tool %v", first)
	}
	msgs, _ := body["messages"].([]any)
	if len(msgs) != 5 { // system, user, assistant (text and two calls), two tool results
		t.Fatalf("%d messages: %v", len(msgs), msgs)
	}
	asst, _ := msgs[2].(map[string]any)
	calls, _ := asst["tool_calls"].([]any)
	if asst["role"] != "assistant" || asst["content"] != "Let me look." || len(calls) != 2 {
		t.Errorf("assistant message %v", asst)
	}
	c0, _ := calls[0].(map[string]any)
	c0f, _ := c0["function"].(map[string]any)
	if c0["id"] != "call_1" || c0["type"] != "function" || c0f["name"] != "search" || c0f["arguments"] != `{"q":"x"}` {
		t.Errorf("call %v", c0)
	}
	for i, id := range []string{"call_1", "call_2"} {
		m, _ := msgs[3+i].(map[string]any)
		if m["role"] != "tool" || m["tool_call_id"] != id {
			t.Errorf("result %d: %v", i, m)
		}
	}
	if body["stream"] == true {
		t.Error("a request with tools was streamed")
	}
}

func roundTrip(v any) any {
	b, _ := json.Marshal(v)
	var out any
	_ = json.Unmarshal(b, &out)
	return out
}
