package openai

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// received is one request the fake server got.
type received struct {
	Method string
	Path   string
	Header http.Header
	Body   map[string]any
}

// messages returns the request's messages as role/content pairs.
func (r received) messages() [][2]string {
	var out [][2]string
	list, _ := r.Body["messages"].([]any)
	for _, m := range list {
		mm, _ := m.(map[string]any)
		role, _ := mm["role"].(string)
		content, _ := mm["content"].(string)
		out = append(out, [2]string{role, content})
	}
	return out
}

// reply is what the fake server answers: a status, headers and a body.
type reply struct {
	Status int
	Header map[string]string
	Body   string
}

// fakeServer speaks the Chat Completions wire format: it records every
// request and answers with respond's reply.
type fakeServer struct {
	*httptest.Server
	mu       sync.Mutex
	requests []received
}

func newServer(t *testing.T, respond func(n int, r received) reply) *fakeServer {
	t.Helper()
	s := &fakeServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		rec := received{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone()}
		if err := json.Unmarshal(raw, &rec.Body); err != nil {
			t.Errorf("the request body is not JSON: %v\n%s", err, raw)
		}
		s.mu.Lock()
		s.requests = append(s.requests, rec)
		n := len(s.requests)
		s.mu.Unlock()
		rep := respond(n, rec)
		if rep.Status == 0 {
			rep.Status = http.StatusOK
		}
		if _, ok := rep.Header["Content-Type"]; !ok {
			w.Header().Set("Content-Type", "application/json")
		}
		for k, v := range rep.Header {
			w.Header().Set(k, v)
		}
		w.WriteHeader(rep.Status)
		_, _ = io.WriteString(w, rep.Body)
	}))
	t.Cleanup(s.Close)
	return s
}

// always answers every request with rep.
func always(rep reply) func(int, received) reply {
	return func(int, received) reply { return rep }
}

func (s *fakeServer) calls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.requests)
}

func (s *fakeServer) request(i int) received {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests[i]
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
