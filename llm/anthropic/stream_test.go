package anthropic

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

// sseMessages is a fake Messages API that streams its reply as the API
// does (message_start, content_block_start, a content_block_delta per
// piece, content_block_stop, message_delta with the stop reason and the
// output tokens, message_stop), and counts the pieces it wrote before the
// client went away.
type sseMessages struct {
	*httptest.Server
	mu      sync.Mutex
	written int
	gone    bool
	bodies  []map[string]any
}

func newSSEMessages(t *testing.T, pieces []string, pause time.Duration) *sseMessages {
	t.Helper()
	s := &sseMessages{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		_ = json.NewDecoder(r.Body).Decode(&body)
		s.mu.Lock()
		s.bodies = append(s.bodies, body)
		s.mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		flusher := w.(http.Flusher)
		send := func(event, data string) bool {
			if _, err := fmt.Fprintf(w, "event: %s\ndata: %s\n\n", event, data); err != nil {
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
		send("message_start", `{"type":"message_start","message":{"id":"msg_01","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":120,"output_tokens":1,"cache_read_input_tokens":64,"cache_creation_input_tokens":0}}}`)
		send("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`)
		for _, p := range pieces {
			c, _ := json.Marshal(p)
			if !send("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":`+string(c)+`}}`) {
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
		send("content_block_stop", `{"type":"content_block_stop","index":0}`)
		send("message_delta", `{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":`+fmt.Sprint(len(pieces))+`}}`)
		send("message_stop", `{"type":"message_stop"}`)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *sseMessages) fn(t *testing.T, cfg Config) llm.Func {
	t.Helper()
	isolate(t)
	cfg.Model, cfg.BaseURL = "claude-sonnet-4-5", s.URL
	if cfg.APIKey == "" {
		cfg.APIKey = "sk-ant-test"
	}
	fn, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return fn
}

// A streamed reply reaches Request.Stream piece by piece, and the Response
// has the whole text, the model, the stop reason and the tokens of the
// message_start and message_delta events.
func TestStreamPieces(t *testing.T) {
	pieces := []string{"```clo", "jure\n(+ 1", " 2)\n``", "`\nDone."}
	s := newSSEMessages(t, pieces, 0)
	var got []string
	resp, err := s.fn(t, Config{})(context.Background(), llm.Request{
		Messages: []llm.Message{{Role: llm.User, Content: "add"}},
		Stream:   func(text string) bool { got = append(got, text); return true }})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, "") != strings.Join(pieces, "") {
		t.Errorf("streamed %q", got)
	}
	want := llm.Response{Content: strings.Join(pieces, ""), Model: "claude-sonnet-4-5-20250929", FinishReason: "end_turn",
		Tokens: llm.Tokens{Input: 184, Output: 4, CacheRead: 64}, RequestModel: "claude-sonnet-4-5", Provider: ProviderName}
	if !reflect.DeepEqual(resp, want) {
		t.Errorf("response %+v\nwant     %+v", resp, want)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.bodies[0]["stream"] != true {
		t.Errorf("request %v: want stream", s.bodies[0])
	}
}

// Stream returning false closes the stream: the server sees the client
// go, the reply is what was written, adapter.FinishStoppedEarly, with the
// input tokens of message_start.
func TestStreamStoppedEarly(t *testing.T) {
	pieces := []string{"```clojure\n", "(return 42)\n", "```\n"}
	for range 200 {
		pieces = append(pieces, "More about it. ")
	}
	s := newSSEMessages(t, pieces, 2*time.Millisecond)
	var text strings.Builder
	resp, err := s.fn(t, Config{})(context.Background(), llm.Request{
		Messages: []llm.Message{{Role: llm.User, Content: "answer"}},
		Stream: func(piece string) bool {
			text.WriteString(piece)
			return strings.Count(text.String(), "```") < 2
		}})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Content != "```clojure\n(return 42)\n```\n" || resp.FinishReason != adapter.FinishStoppedEarly ||
		resp.Tokens.Input != 184 || resp.Tokens.Output != 7 {
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
