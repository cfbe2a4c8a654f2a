package gemini

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/ptc-go/ptc/internal/bundledtest"
	"github.com/ptc-go/ptc/llm"
)

// The bundled suite in tool-calling mode through the adapter: a fake
// Gemini API plays the suite's reference, reading each request as the
// provider does (functionDeclarations, functionCall and functionResponse
// parts) and answering in its format with functionCall parts that carry
// no id, as Gemini's often do: calls and results pair by their order.
func TestBundledSuiteToolMode(t *testing.T) {
	s := newServer(t, bundledtest.Respond(t, geminiRequest, geminiReply, func(status int, message string) string {
		return apiError(status, "INVALID_ARGUMENT", message)
	}))
	bundledtest.RunToolMode(t, newFunc(t, s, Config{}))
}

// geminiRequest reads a generateContent request body as llm.Request, as
// the provider reads it. Calls without an id get one made of their
// position, which the results that follow them take in order.
func geminiRequest(body []byte) (llm.Request, error) {
	type part struct {
		Text         string `json:"text"`
		FunctionCall *struct {
			ID   string         `json:"id"`
			Name string         `json:"name"`
			Args map[string]any `json:"args"`
		} `json:"functionCall"`
		FunctionResponse *struct {
			ID       string         `json:"id"`
			Response map[string]any `json:"response"`
		} `json:"functionResponse"`
	}
	type content struct {
		Role  string `json:"role"`
		Parts []part `json:"parts"`
	}
	var b struct {
		SystemInstruction *content  `json:"systemInstruction"`
		Contents          []content `json:"contents"`
		Tools             []struct {
			FunctionDeclarations []struct {
				Name        string         `json:"name"`
				Description string         `json:"description"`
				Parameters  map[string]any `json:"parametersJsonSchema"`
			} `json:"functionDeclarations"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(body, &b); err != nil {
		return llm.Request{}, err
	}
	var req llm.Request
	for _, t := range b.Tools {
		for _, d := range t.FunctionDeclarations {
			req.Tools = append(req.Tools, llm.ToolSpec{Name: d.Name, Description: d.Description, Parameters: d.Parameters})
		}
	}
	if si := b.SystemInstruction; si != nil {
		for _, p := range si.Parts {
			req.System += p.Text
		}
	}
	var unanswered []string // ids of the last content's calls, in order
	for i, c := range b.Contents {
		role := llm.User
		if c.Role == "model" {
			role = llm.Assistant
			req.Turn++
		}
		var calls []string
		for j, p := range c.Parts {
			switch {
			case p.FunctionCall != nil:
				id := p.FunctionCall.ID
				if id == "" {
					id = fmt.Sprintf("pos-%d-%d", i, j)
				}
				calls = append(calls, id)
				args := []byte("{}") // the SDK leaves empty arguments out
				if len(p.FunctionCall.Args) > 0 {
					args, _ = json.Marshal(p.FunctionCall.Args)
				}
				req.Messages = append(req.Messages, llm.Message{Role: llm.Assistant, ToolCallID: id, ToolName: p.FunctionCall.Name, Content: string(args)})
			case p.FunctionResponse != nil:
				id := p.FunctionResponse.ID
				if id == "" && len(unanswered) > 0 {
					id, unanswered = unanswered[0], unanswered[1:]
				}
				text, _ := p.FunctionResponse.Response["output"].(string)
				if e, ok := p.FunctionResponse.Response["error"].(string); ok {
					text = e
				}
				req.Messages = append(req.Messages, llm.Message{Role: llm.User, ToolCallID: id, Content: text})
			default:
				req.Messages = append(req.Messages, llm.Message{Role: role, Content: p.Text})
			}
		}
		unanswered = calls
	}
	req.Turn++
	if len(req.Messages) > 0 {
		req.Prompt = req.Messages[0].Content
	}
	return req, nil
}

// geminiReply writes resp as a generateContent reply, its functionCall
// parts without ids.
func geminiReply(resp llm.Response) string {
	var parts []map[string]any
	if resp.Content != "" {
		parts = append(parts, map[string]any{"text": resp.Content})
	}
	for _, c := range resp.ToolCalls {
		var args map[string]any
		_ = json.Unmarshal([]byte(c.Content), &args)
		parts = append(parts, map[string]any{"functionCall": map[string]any{"name": c.ToolName, "args": args}})
	}
	b, _ := json.Marshal(map[string]any{
		"candidates": []any{map[string]any{"content": map[string]any{"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}},
		"usageMetadata": map[string]any{"promptTokenCount": resp.Tokens.Input, "candidatesTokenCount": resp.Tokens.Output,
			"totalTokenCount": resp.Tokens.Input + resp.Tokens.Output},
		"modelVersion": "gemini-2.5-flash",
	})
	return string(b)
}
