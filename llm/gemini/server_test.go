package gemini

import (
	"encoding/json"
	"strconv"
	"testing"

	"github.com/ptc-go/ptc/llm/adapter/adaptertest"
)

// received is one request the fake server got, its body decoded.
type received = adaptertest.Received

// sentContents returns the request's contents as role/text pairs (the texts of
// each content's parts joined).
func sentContents(r received) [][2]string {
	var out [][2]string
	list, _ := r.JSON["contents"].([]any)
	for _, c := range list {
		cm, _ := c.(map[string]any)
		role, _ := cm["role"].(string)
		out = append(out, [2]string{role, partsText(cm)})
	}
	return out
}

// system returns the text of the request's systemInstruction, and whether
// there is one.
func system(r received) (string, bool) {
	si, ok := r.JSON["systemInstruction"].(map[string]any)
	if !ok {
		return "", false
	}
	return partsText(si), true
}

// generationConfig returns the request's generationConfig (nil when none).
func generationConfig(r received) map[string]any {
	gc, _ := r.JSON["generationConfig"].(map[string]any)
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

// reply is what the fake server answers.
type reply = adaptertest.Reply

// newServer starts a fake server speaking the wire format of the Gemini
// Developer API's generateContent; respond answers request n (from 0).
func newServer(t *testing.T, respond func(n int, r received) reply) *adaptertest.Server {
	t.Helper()
	return adaptertest.NewServer(t, func(n int, r received) reply {
		if r.JSON == nil {
			t.Errorf("the request body is not a JSON object: %s", r.Body)
		}
		rep := respond(n, r)
		if _, ok := rep.Header["Content-Type"]; !ok {
			h := map[string]string{"Content-Type": "application/json; charset=UTF-8"}
			for k, v := range rep.Header {
				h[k] = v
			}
			rep.Header = h
		}
		return rep
	})
}

// always answers every request with rep.
func always(rep reply) func(int, received) reply {
	return func(int, received) reply { return rep }
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
