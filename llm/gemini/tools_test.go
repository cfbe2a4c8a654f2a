package gemini

import (
	"context"
	"reflect"
	"testing"

	"github.com/ptc-go/ptc/llm"
)

// functionCallBody is a recorded-style generateContent reply asking for
// two function calls, the second without an id.
const functionCallBody = `{"candidates":[{"content":{"parts":[` +
	`{"functionCall":{"id":"fc_1","name":"search","args":{"q":"urgent"}}},{"functionCall":{"name":"count","args":{}}}],"role":"model"},` +
	`"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":90,"candidatesTokenCount":30,"totalTokenCount":120},` +
	`"modelVersion":"gemini-2.5-flash-001"}`

// In tool-calling mode the request declares the tools (functionDeclarations
// with parametersJsonSchema), sends earlier calls as functionCall parts of
// one model content and their results as functionResponse parts of one
// user content, and the reply's calls come back in Response.ToolCalls.
func TestToolCalling(t *testing.T) {
	s := newServer(t, func(int, received) reply { return reply{Body: functionCallBody} })
	schema := map[string]any{"type": "object", "properties": map[string]any{"q": map[string]any{"type": "string"}}}
	resp, err := newFunc(t, s, Config{})(context.Background(), llm.Request{
		System: "Use the tools.",
		Tools:  []llm.ToolSpec{{Name: "search", Description: "Searches.", Parameters: schema}, {Name: "count", Parameters: map[string]any{"type": "object"}}},
		Messages: []llm.Message{
			{Role: llm.User, Content: "Find the urgent ones."},
			{Role: llm.Assistant, ToolCallID: "c1", ToolName: "search", Content: `{"q":"x"}`},
			{Role: llm.Assistant, ToolCallID: "c2", ToolName: "count", Content: `{}`},
			{Role: llm.User, ToolCallID: "c1", Content: `[1,2]`},
			{Role: llm.User, ToolCallID: "c2", Content: `Error: down`},
		},
		Stream: func(string) bool { return true },
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []llm.Message{
		{Role: llm.Assistant, ToolCallID: "fc_1", ToolName: "search", Content: `{"q":"urgent"}`},
		{Role: llm.Assistant, ToolCallID: "gemini-call-2", ToolName: "count", Content: `{}`},
	}
	if !reflect.DeepEqual(resp.ToolCalls, want) || resp.Tokens.Output != 30 {
		t.Errorf("response %+v", resp)
	}
	r := s.Request(0)
	if r.Path != "/v1beta/models/gemini-2.5-flash:generateContent" {
		t.Errorf("path %s: a request with tools is not streamed", r.Path)
	}
	tools, _ := r.JSON["tools"].([]any)
	t0, _ := tools[0].(map[string]any)
	decls, _ := t0["functionDeclarations"].([]any)
	d0, _ := decls[0].(map[string]any)
	if len(decls) != 2 || d0["name"] != "search" || d0["description"] != "Searches." || d0["parametersJsonSchema"] == nil {
		t.Errorf("tools %v", r.JSON["tools"])
	}
	contents, _ := r.JSON["contents"].([]any)
	if len(contents) != 3 {
		t.Fatalf("%d contents: %v", len(contents), contents)
	}
	model, _ := contents[1].(map[string]any)
	parts, _ := model["parts"].([]any)
	p0, _ := parts[0].(map[string]any)
	fc, _ := p0["functionCall"].(map[string]any)
	if model["role"] != "model" || len(parts) != 2 || fc["name"] != "search" || fc["id"] != "c1" || !reflect.DeepEqual(fc["args"], map[string]any{"q": "x"}) {
		t.Errorf("model content %v", model)
	}
	user, _ := contents[2].(map[string]any)
	rparts, _ := user["parts"].([]any)
	r1, _ := rparts[1].(map[string]any)
	fr, _ := r1["functionResponse"].(map[string]any)
	if user["role"] != "user" || len(rparts) != 2 || fr["name"] != "count" || fr["id"] != "c2" ||
		!reflect.DeepEqual(fr["response"], map[string]any{"error": "Error: down"}) {
		t.Errorf("results content %v", user)
	}
}
