package anthropic

import (
	"context"
	"reflect"
	"testing"

	"github.com/ptc-go/ptc/llm"
)

// toolUseBody is a recorded-style Messages reply asking for two tool calls.
const toolUseBody = `{"id":"msg_01T","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929",` +
	`"content":[{"type":"text","text":"Looking."},{"type":"tool_use","id":"toolu_01A","name":"search","input":{"q":"urgent"}},` +
	`{"type":"tool_use","id":"toolu_01B","name":"count","input":{}}],` +
	`"stop_reason":"tool_use","stop_sequence":null,"usage":{"input_tokens":90,"output_tokens":30}}`

// In tool-calling mode the request declares the tools (input_schema), sends
// earlier calls as tool_use blocks of one assistant message and their
// results as tool_result blocks of one user message, and the reply's
// tool_use blocks come back in Response.ToolCalls.
func TestToolCalling(t *testing.T) {
	f := newFakeAPI(t, func(int) reply { return reply{Body: toolUseBody} })
	schema := map[string]any{"type": "object", "properties": map[string]any{"q": map[string]any{"type": "string"}}, "required": []any{"q"}}
	resp, err := newFunc(t, f, Config{})(context.Background(), llm.Request{
		System: "Use the tools.",
		Tools:  []llm.ToolSpec{{Name: "search", Description: "Searches.", Parameters: schema}, {Name: "count", Parameters: map[string]any{"type": "object"}}},
		Messages: []llm.Message{
			{Role: llm.User, Content: "Find the urgent ones."},
			{Role: llm.Assistant, Content: "Let me look."},
			{Role: llm.Assistant, ToolCallID: "toolu_1", ToolName: "search", Content: `{"q":"x"}`},
			{Role: llm.Assistant, ToolCallID: "toolu_2", ToolName: "count", Content: ``},
			{Role: llm.User, ToolCallID: "toolu_1", Content: `[1,2]`},
			{Role: llm.User, ToolCallID: "toolu_2", Content: `Error: no such thing`},
		},
		Stream: func(string) bool { return true },
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []llm.Message{
		{Role: llm.Assistant, ToolCallID: "toolu_01A", ToolName: "search", Content: `{"q":"urgent"}`},
		{Role: llm.Assistant, ToolCallID: "toolu_01B", ToolName: "count", Content: `{}`},
	}
	if !reflect.DeepEqual(resp.ToolCalls, want) || resp.Content != "Looking." || resp.FinishReason != "tool_use" {
		t.Errorf("response %+v", resp)
	}
	body := f.requests()[0].body
	tools, _ := body["tools"].([]any)
	if len(tools) != 2 {
		t.Fatalf("tools %v", body["tools"])
	}
	t0, _ := tools[0].(map[string]any)
	is, _ := t0["input_schema"].(map[string]any)
	if t0["name"] != "search" || t0["description"] != "Searches." || is["type"] != "object" ||
		!reflect.DeepEqual(is["required"], []any{"q"}) || is["properties"] == nil {
		t.Errorf("tool %v", t0)
	}
	msgs, _ := body["messages"].([]any)
	if len(msgs) != 3 {
		t.Fatalf("%d messages: %v", len(msgs), msgs)
	}
	asst, _ := msgs[1].(map[string]any)
	blocks, _ := asst["content"].([]any)
	if asst["role"] != "assistant" || len(blocks) != 3 {
		t.Fatalf("assistant message %v", asst)
	}
	use, _ := blocks[1].(map[string]any)
	if use["type"] != "tool_use" || use["id"] != "toolu_1" || use["name"] != "search" || !reflect.DeepEqual(use["input"], map[string]any{"q": "x"}) {
		t.Errorf("tool_use %v", use)
	}
	if empty, _ := blocks[2].(map[string]any); !reflect.DeepEqual(empty["input"], map[string]any{}) {
		t.Errorf("a call without arguments: %v", empty)
	}
	user, _ := msgs[2].(map[string]any)
	results, _ := user["content"].([]any)
	if user["role"] != "user" || len(results) != 2 {
		t.Fatalf("results message %v", user)
	}
	r1, _ := results[1].(map[string]any)
	if r1["type"] != "tool_result" || r1["tool_use_id"] != "toolu_2" || r1["is_error"] != true {
		t.Errorf("tool_result %v", r1)
	}
	if body["stream"] == true {
		t.Error("a request with tools was streamed")
	}
}
