package gemini

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
)

// received is one request the fake server got.
type received struct {
	Method string
	Path   string
	Query  string
	Header http.Header
	Raw    string
	Body   map[string]any
}

// contents returns the request's contents as role/text pairs (the texts of
// each content's parts joined).
func (r received) contents() [][2]string {
	var out [][2]string
	list, _ := r.Body["contents"].([]any)
	for _, c := range list {
		cm, _ := c.(map[string]any)
		role, _ := cm["role"].(string)
		out = append(out, [2]string{role, partsText(cm)})
	}
	return out
}

// system returns the text of the request's systemInstruction, and whether
// there is one.
func (r received) system() (string, bool) {
	si, ok := r.Body["systemInstruction"].(map[string]any)
	if !ok {
		return "", false
	}
	return partsText(si), true
}

// generationConfig returns the request's generationConfig (nil when none).
func (r received) generationConfig() map[string]any {
	gc, _ := r.Body["generationConfig"].(map[string]any)
	return gc
}

func partsText(content map[string]any) string {
	var s string
	parts, _ := content["parts"].([]any)
	for _, p := range parts {
		pm, _ := p.(map[string]any)
		text, _ := pm["text"].(string)
		s += text
	}
	return s
}

// reply is what the fake server answers: a status, headers and a body.
type reply struct {
	Status int
	Header map[string]string
	Body   string
}

// fakeServer speaks the wire format of the Gemini Developer API's
// generateContent: it records every request and answers with respond's
// reply.
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
		rec := received{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Header: r.Header.Clone(), Raw: string(raw)}
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
			w.Header().Set("Content-Type", "application/json; charset=UTF-8")
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

// generated is a recorded-style generateContent reply with one candidate
// holding text, finished with STOP.
func generated(text string, prompt, candidates, cached int) string {
	return generatedWith(text, "STOP", prompt, candidates, cached)
}

// generatedWith is generated with a finish reason of choice.
func generatedWith(text, finishReason string, prompt, candidates, cached int) string {
	t, _ := json.Marshal(text)
	usage := `"promptTokenCount": ` + strconv.Itoa(prompt) + `,
    "candidatesTokenCount": ` + strconv.Itoa(candidates) + `,
    "totalTokenCount": ` + strconv.Itoa(prompt+candidates) + `,`
	if cached > 0 {
		usage += `
    "cachedContentTokenCount": ` + strconv.Itoa(cached) + `,
    "cacheTokensDetails": [{"modality": "TEXT", "tokenCount": ` + strconv.Itoa(cached) + `}],`
	}
	return `{
  "candidates": [
    {
      "content": {
        "parts": [
          {
            "text": ` + string(t) + `
          }
        ],
        "role": "model"
      },
      "finishReason": "` + finishReason + `",
      "index": 0
    }
  ],
  "usageMetadata": {
    ` + usage + `
    "promptTokensDetails": [{"modality": "TEXT", "tokenCount": ` + strconv.Itoa(prompt) + `}]
  },
  "modelVersion": "gemini-2.5-flash",
  "responseId": "mT3kaMy9Fo-Qz7IPk8Dq-Ao"
}`
}

// apiError is a Google API error body (google.rpc.Status as JSON).
func apiError(code int, status, message string, details ...string) string {
	m, _ := json.Marshal(message)
	body := `{
  "error": {
    "code": ` + strconv.Itoa(code) + `,
    "message": ` + string(m) + `,
    "status": "` + status + `"`
	if len(details) > 0 {
		body += `,
    "details": [`
		for i, d := range details {
			if i > 0 {
				body += ","
			}
			body += "\n      " + d
		}
		body += `
    ]`
	}
	return body + `
  }
}
`
}
