package anthropic

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/ptc-go/ptc/internal/bundledtest"
	"github.com/ptc-go/ptc/llm"
	"github.com/ptc-go/ptc/llm/adapter/adaptertest"
)

// The bundled suite in tool-calling mode through the adapter: a fake
// Messages API plays the suite's reference, reading each request as
// the provider does (tools, tool_use and tool_result blocks) and answering
// in its format, tool_use blocks included.
func TestBundledSuiteToolMode(t *testing.T) {
	f := &fakeAPI{adaptertest.NewServer(t, bundledtest.Respond(t, messagesRequest, messagesReply, func(status int, message string) string {
		b, _ := json.Marshal(map[string]any{"type": "error", "error": map[string]any{"type": "invalid_request_error", "message": message}})
		return string(b)
	}))}
	bundledtest.RunToolMode(t, newFunc(t, f, Config{}))
}

// block is a content block of the Messages API, as far as these tests
// read it.
type block struct {
	Type      string          `json:"type"`
	Text      string          `json:"text,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
	ToolUseID string          `json:"tool_use_id,omitempty"`
	Content   json.RawMessage `json:"content,omitempty"`
}

// blocks reads a content field: a string, or a list of blocks.
func blocks(raw json.RawMessage) ([]block, error) {
	var text string
	if err := json.Unmarshal(raw, &text); err == nil {
		return []block{{Type: "text", Text: text}}, nil
	}
	var out []block
	err := json.Unmarshal(raw, &out)
	return out, err
}

// messagesRequest reads a Messages API request body as llm.Request, as
// the provider reads it.
func messagesRequest(body []byte) (llm.Request, error) {
	var b struct {
		System   json.RawMessage `json:"system"`
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
		Tools []struct {
			Name        string         `json:"name"`
			Description string         `json:"description"`
			InputSchema map[string]any `json:"input_schema"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(body, &b); err != nil {
		return llm.Request{}, err
	}
	var req llm.Request
	for _, t := range b.Tools {
		req.Tools = append(req.Tools, llm.ToolSpec{Name: t.Name, Description: t.Description, Parameters: t.InputSchema})
	}
	if len(b.System) > 0 {
		sys, err := blocks(b.System)
		if err != nil {
			return req, fmt.Errorf("system: %v", err)
		}
		for _, s := range sys {
			req.System += s.Text
		}
	}
	for _, m := range b.Messages {
		bs, err := blocks(m.Content)
		if err != nil {
			return req, fmt.Errorf("content: %v", err)
		}
		role := llm.User
		if m.Role == "assistant" {
			role = llm.Assistant
			req.Turn++
		}
		for _, x := range bs {
			switch x.Type {
			case "text":
				req.Messages = append(req.Messages, llm.Message{Role: role, Content: x.Text})
			case "tool_use":
				req.Messages = append(req.Messages, llm.Message{Role: llm.Assistant, ToolCallID: x.ID, ToolName: x.Name, Content: string(x.Input)})
			case "tool_result":
				parts, err := blocks(x.Content)
				if err != nil {
					return req, fmt.Errorf("tool_result: %v", err)
				}
				text := ""
				for _, p := range parts {
					text += p.Text
				}
				req.Messages = append(req.Messages, llm.Message{Role: llm.User, ToolCallID: x.ToolUseID, Content: text})
			default:
				return req, fmt.Errorf("block type %q", x.Type)
			}
		}
	}
	req.Turn++
	if len(req.Messages) > 0 {
		req.Prompt = req.Messages[0].Content
	}
	return req, nil
}

// messagesReply writes resp as a Messages API reply.
func messagesReply(resp llm.Response) string {
	var content []block
	if resp.Content != "" {
		content = append(content, block{Type: "text", Text: resp.Content})
	}
	stop := "end_turn"
	for _, c := range resp.ToolCalls {
		content = append(content, block{Type: "tool_use", ID: c.ToolCallID, Name: c.ToolName, Input: json.RawMessage(c.Content)})
		stop = "tool_use"
	}
	b, _ := json.Marshal(map[string]any{
		"id": "msg_bundled", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5-20250929",
		"content": content, "stop_reason": stop, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": resp.Tokens.Input, "output_tokens": resp.Tokens.Output},
	})
	return string(b)
}
