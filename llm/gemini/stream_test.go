package gemini

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ptc-go/ptc/llm"
	"github.com/ptc-go/ptc/llm/adapter"
)

// sseGemini is a fake streamGenerateContent (alt=sse): one event per piece
// of text, each a GenerateContentResponse, the last with the finish reason
// and the usage; it counts the pieces it wrote before the client went.
type sseGemini struct {
	*httptest.Server
	mu      sync.Mutex
	written int
	gone    bool
	paths   []string
}

func newSSEGemini(t *testing.T, pieces []string, pause time.Duration) *sseGemini {
	t.Helper()
	s := &sseGemini{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.paths = append(s.paths, r.URL.Path+"?"+r.URL.RawQuery)
		s.mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		flusher := w.(http.Flusher)
		send := func(data string) bool {
			if _, err := fmt.Fprintf(w, "data: %s\r\n\r\n", data); err != nil {
				return false
			}
			flusher.Flush()
			return r.Context().Err() == nil
		}
		gone := func() {
			s.mu.Lock()
			s.gone = true
			s.mu.Unlock()
		}
		for i, p := range pieces {
			c, _ := json.Marshal(p)
			finish, usage := "", ""
			if i == len(pieces)-1 {
				finish = `,"finishReason":"STOP"`
				usage = fmt.Sprintf(`,"usageMetadata":{"promptTokenCount":120,"candidatesTokenCount":%d,"cachedContentTokenCount":64,"totalTokenCount":%d}`, len(pieces), 120+len(pieces))
			}
			if !send(`{"candidates":[{"content":{"parts":[{"text":` + string(c) + `}],"role":"model"},"index":0` + finish + `}]` + usage + `,"modelVersion":"gemini-2.5-flash-001"}`) {
				gone()
				return
			}
			s.mu.Lock()
			s.written++
			s.mu.Unlock()
			if pause > 0 {
				select {
				case <-time.After(pause):
				case <-r.Context().Done():
					gone()
					return
				}
			}
		}
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *sseGemini) fn(t *testing.T) llm.Func {
	t.Helper()
	isolate(t)
	fn, err := New(context.Background(), Config{Model: "gemini-2.5-flash", BaseURL: s.URL, APIKey: testKey})
	if err != nil {
		t.Fatal(err)
	}
	return fn
}

// A streamed reply reaches Request.Stream piece by piece, and the Response
// has the whole text, the model version, the finish reason and the usage
// of the last event.
func TestStreamPieces(t *testing.T) {
	pieces := []string{"```clo", "jure\n(+ 1", " 2)\n``", "`\nDone."}
	s := newSSEGemini(t, pieces, 0)
	var got []string
	resp, err := s.fn(t)(context.Background(), llm.Request{
		Messages: []llm.Message{{Role: llm.User, Content: "add"}},
		Stream:   func(text string) bool { got = append(got, text); return true }})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, "") != strings.Join(pieces, "") {
		t.Errorf("streamed %q", got)
	}
	want := llm.Response{Content: strings.Join(pieces, ""), Model: "gemini-2.5-flash-001", FinishReason: "STOP",
		Tokens: llm.Tokens{Input: 120, Output: 4, CacheRead: 64}, RequestModel: "gemini-2.5-flash", Provider: ProviderName}
	if !reflect.DeepEqual(resp, want) {
		t.Errorf("response %+v\nwant     %+v", resp, want)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.paths[0] != "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse" {
		t.Errorf("request to %s", s.paths[0])
	}
}

// Stream returning false ends the stream: the server sees the client go,
// and the reply is what was written, adapter.FinishStoppedEarly.
func TestStreamStoppedEarly(t *testing.T) {
	pieces := []string{"```clojure\n", "(return 42)\n", "```\n"}
	for range 200 {
		pieces = append(pieces, "More about it. ")
	}
	s := newSSEGemini(t, pieces, 2*time.Millisecond)
	var text strings.Builder
	resp, err := s.fn(t)(context.Background(), llm.Request{
		Messages: []llm.Message{{Role: llm.User, Content: "answer"}},
		Stream: func(piece string) bool {
			text.WriteString(piece)
			return strings.Count(text.String(), "```") < 2
		}})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Content != "```clojure\n(return 42)\n```\n" || resp.FinishReason != adapter.FinishStoppedEarly || resp.Tokens.Output != 7 {
		t.Errorf("response %+v", resp)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		s.mu.Lock()
		written, gone := s.written, s.gone
		s.mu.Unlock()
		if gone {
			if written >= len(pieces) {
				t.Errorf("the server wrote all %d pieces", written)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the server did not see the client go (%d pieces written)", written)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
