package openai

import (
	"encoding/json"
	"testing"

	"github.com/ptc-go/ptc/llm/adapter/adaptertest"
)

// received is one request the fake server got, its body decoded.
type received = adaptertest.Received

// messages returns the request's messages as role/content pairs.
func messages(r received) [][2]string {
	var out [][2]string
	list, _ := r.JSON["messages"].([]any)
	for _, m := range list {
		mm, _ := m.(map[string]any)
		role, _ := mm["role"].(string)
		content, _ := mm["content"].(string)
		out = append(out, [2]string{role, content})
	}
	return out
}

// reply is what the fake server answers.
type reply = adaptertest.Reply

// newServer starts a fake server speaking the Chat Completions wire
// format; respond answers request n (from 0).
func newServer(t *testing.T, respond func(n int, r received) reply) *adaptertest.Server {
	t.Helper()
	return adaptertest.NewServer(t, func(n int, r received) reply {
		if r.JSON == nil {
			t.Errorf("the request body is not a JSON object: %s", r.Body)
		}
		return respond(n, r)
	})
}

// always answers every request with rep.
func always(rep reply) func(int, received) reply {
	return func(int, received) reply { return rep }
}

// completion is a recorded-style Chat Completions reply.
func completion(content string, prompt, completionTokens, cached int) string {
	c, _ := json.Marshal(content)
	return `{
  "id": "chatcmpl-BGx3kq7ZTr0Xn2mH5dXyYQeCfA9sL",
  "object": "chat.completion",
  "created": 1743700000,
  "model": "gpt-4.1-mini-2025-04-14",
  "choices": [
    {
      "index": 0,
      "message": {
        "role": "assistant",
        "content": ` + string(c) + `,
        "refusal": null,
        "annotations": []
      },
      "logprobs": null,
      "finish_reason": "stop"
    }
  ],
  "usage": {
    "prompt_tokens": ` + itoa(prompt) + `,
    "completion_tokens": ` + itoa(completionTokens) + `,
    "total_tokens": ` + itoa(prompt+completionTokens) + `,
    "prompt_tokens_details": {"cached_tokens": ` + itoa(cached) + `, "audio_tokens": 0},
    "completion_tokens_details": {"reasoning_tokens": 0, "audio_tokens": 0, "accepted_prediction_tokens": 0, "rejected_prediction_tokens": 0}
  },
  "service_tier": "default",
  "system_fingerprint": "fp_6f2eabb9a5"
}`
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}
