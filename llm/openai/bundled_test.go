package openai

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/ptc-go/ptc/internal/bundledtest"
	"github.com/ptc-go/ptc/llm"
)

// The bundled suite in tool-calling mode through the adapter: a fake Chat
// Completions server plays the suite's reference, reading each
// request as the provider does (tools, assistant tool_calls, tool
// messages) and answering in its format, tool_calls included.
func TestBundledSuiteToolMode(t *testing.T) {
	s := newServer(t, bundledtest.Respond(t, chatRequest, chatReply, func(status int, message string) string {
		b, _ := json.Marshal(map[string]any{"error": map[string]any{"message": message, "type": "invalid_request_error"}})
		return string(b)
	}))
	bundledtest.RunToolMode(t, newFunc(t, s, Config{}))
}

// chatRequest reads a Chat Completions request body as llm.Request, as
// the provider reads it.
func chatRequest(body []byte) (llm.Request, error) {
	var b struct {
		Messages []struct {
			Role       string  `json:"role"`
			Content    *string `json:"content"`
			ToolCallID string  `json:"tool_call_id"`
			ToolCalls  []struct {
				ID       string `json:"id"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"messages"`
		Tools []struct {
			Type     string       `json:"type"`
			Function llm.ToolSpec `json:"function"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(body, &b); err != nil {
		return llm.Request{}, err
	}
	var req llm.Request
	for _, t := range b.Tools {
		if t.Type != "function" {
			return req, fmt.Errorf("tool type %q", t.Type)
		}
		req.Tools = append(req.Tools, t.Function)
	}
	for _, m := range b.Messages {
		text := ""
		if m.Content != nil {
			text = *m.Content
		}
		switch m.Role {
		case "system", "developer":
			req.System = text
		case "user":
			req.Messages = append(req.Messages, llm.Message{Role: llm.User, Content: text})
		case "tool":
			req.Messages = append(req.Messages, llm.Message{Role: llm.User, ToolCallID: m.ToolCallID, Content: text})
		case "assistant":
			req.Turn++
			if text != "" || len(m.ToolCalls) == 0 {
				req.Messages = append(req.Messages, llm.Message{Role: llm.Assistant, Content: text})
			}
			for _, c := range m.ToolCalls {
				req.Messages = append(req.Messages, llm.Message{Role: llm.Assistant, ToolCallID: c.ID, ToolName: c.Function.Name, Content: c.Function.Arguments})
			}
		default:
			return req, fmt.Errorf("role %q", m.Role)
		}
	}
	req.Turn++
	if len(req.Messages) > 0 {
		req.Prompt = req.Messages[0].Content
	}
	return req, nil
}

// chatReply writes resp as a Chat Completions reply.
func chatReply(resp llm.Response) string {
	type call struct {
		ID       string `json:"id"`
		Type     string `json:"type"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	}
	msg := map[string]any{"role": "assistant", "content": resp.Content}
	finish := "stop"
	if len(resp.ToolCalls) > 0 {
		calls := make([]call, len(resp.ToolCalls))
		for i, c := range resp.ToolCalls {
			calls[i] = call{ID: c.ToolCallID, Type: "function"}
			calls[i].Function.Name, calls[i].Function.Arguments = c.ToolName, c.Content
		}
		msg["content"], msg["tool_calls"], finish = nil, calls, "tool_calls"
	}
	b, _ := json.Marshal(map[string]any{
		"id": "chatcmpl-bundled", "object": "chat.completion", "created": 1743700000, "model": "gpt-4.1-mini",
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}},
		"usage":   map[string]any{"prompt_tokens": resp.Tokens.Input, "completion_tokens": resp.Tokens.Output, "total_tokens": resp.Tokens.Input + resp.Tokens.Output},
	})
	return string(b)
}
