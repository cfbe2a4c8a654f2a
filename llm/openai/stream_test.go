package openai

import (
	"context"
	"encoding/json"
	"errors"
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

// sseServer is a fake Chat Completions server that streams its reply as
// the API does: one server-sent event per piece of text, then the finish
// reason, the usage and [DONE]. It counts the pieces it wrote before the
// client went away.
type sseServer struct {
	*httptest.Server
	mu      sync.Mutex
	written int
	gone    bool
	bodies  []map[string]any
}

func newSSEServer(t *testing.T, pieces []string, pause time.Duration, tail string) *sseServer {
	t.Helper()
	s := &sseServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		_ = json.NewDecoder(r.Body).Decode(&body)
		s.mu.Lock()
		s.bodies = append(s.bodies, body)
		s.mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		flusher := w.(http.Flusher)
		send := func(data string) bool {
			if _, err := fmt.Fprintf(w, "data: %s\n\n", data); err != nil {
				return false
			}
			flusher.Flush()
			return r.Context().Err() == nil
		}
		for _, p := range pieces {
			c, _ := json.Marshal(p)
			if !send(`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1743700000,"model":"gpt-4.1-mini-2025-04-14","choices":[{"index":0,"delta":{"content":` + string(c) + `},"finish_reason":null}],"usage":null}`) {
				s.mu.Lock()
				s.gone = true
				s.mu.Unlock()
				return
			}
			s.mu.Lock()
			s.written++
			s.mu.Unlock()
			if pause > 0 {
				select {
				case <-time.After(pause):
				case <-r.Context().Done():
					s.mu.Lock()
					s.gone = true
					s.mu.Unlock()
					return
				}
			}
		}
		if tail != "" {
			send(tail)
			return
		}
		send(`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1743700000,"model":"gpt-4.1-mini-2025-04-14","choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":null}`)
		send(`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1743700000,"model":"gpt-4.1-mini-2025-04-14","choices":[],"usage":{"prompt_tokens":120,"completion_tokens":` + fmt.Sprint(len(pieces)) + `,"total_tokens":` + fmt.Sprint(120+len(pieces)) + `,"prompt_tokens_details":{"cached_tokens":64}}}`)
		send("[DONE]")
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *sseServer) stats() (written int, gone bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.written, s.gone
}

func streamFunc(t *testing.T, url string, cfg Config) llm.Func {
	t.Helper()
	cfg.Model, cfg.BaseURL = "gpt-4.1-mini", url+"/v1"
	if cfg.APIKey == "" {
		cfg.APIKey = "sk-test-123"
	}
	fn, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return fn
}

// A streamed reply reaches Request.Stream piece by piece, in order, and
// the Response is the whole reply with the usage of the stream's last
// event.
func TestStreamPieces(t *testing.T) {
	pieces := []string{"```clo", "jure\n(+ 1", " 2)\n``", "`\nDone."}
	s := newSSEServer(t, pieces, 0, "")
	var got []string
	resp, err := streamFunc(t, s.URL, Config{})(context.Background(), llm.Request{
		Messages: []llm.Message{{Role: llm.User, Content: "add"}},
		Stream:   func(text string) bool { got = append(got, text); return true }})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, "") != strings.Join(pieces, "") || len(got) != len(pieces) {
		t.Errorf("streamed %q", got)
	}
	want := llm.Response{Content: strings.Join(pieces, ""), Model: "gpt-4.1-mini-2025-04-14", FinishReason: "stop",
		Tokens: llm.Tokens{Input: 120, Output: 4, CacheRead: 64}, RequestModel: "gpt-4.1-mini", Provider: "openai"}
	if !reflect.DeepEqual(resp, want) {
		t.Errorf("response %+v\nwant     %+v", resp, want)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if so, _ := s.bodies[0]["stream_options"].(map[string]any); s.bodies[0]["stream"] != true || so["include_usage"] != true {
		t.Errorf("request %v: want stream and stream_options.include_usage", s.bodies[0])
	}
}

// Stream returning false stops the generation: the adapter closes the
// stream, the server sees the client go, and the reply is what was
// written, FinishStoppedEarly, its tokens estimated.
func TestStreamStoppedEarly(t *testing.T) {
	pieces := []string{"```clojure\n", "(return 42)\n", "```\n"}
	for range 200 {
		pieces = append(pieces, "And now a long explanation of the program above. ")
	}
	s := newSSEServer(t, pieces, 2*time.Millisecond, "")
	var text strings.Builder
	req := llm.Request{System: strings.Repeat("s", 400), Messages: []llm.Message{{Role: llm.User, Content: "answer"}},
		Stream: func(piece string) bool {
			text.WriteString(piece)
			return strings.Count(text.String(), "```") < 2
		}}
	resp, err := streamFunc(t, s.URL, Config{})(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Content != "```clojure\n(return 42)\n```\n" || resp.FinishReason != adapter.FinishStoppedEarly {
		t.Errorf("response %q, finish %q", resp.Content, resp.FinishReason)
	}
	if resp.Tokens != (llm.Tokens{Input: 102, Output: 7}) {
		t.Errorf("estimated tokens %+v", resp.Tokens)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		written, gone := s.stats()
		if gone {
			if written >= len(pieces) {
				t.Errorf("the server wrote all %d pieces", written)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the server did not see the client go (%d pieces written)", written)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A credential the model echoes, cut between pieces, never reaches Stream
// in part: the pieces are redacted as the whole reply is.
func TestStreamRedactsKeyAcrossPieces(t *testing.T) {
	key := "sk-live-0123456789abcdefghij"
	pieces := []string{"the key is " + key[:9], key[9:20], key[20:] + " and more"}
	s := newSSEServer(t, pieces, 0, "")
	var got strings.Builder
	resp, err := streamFunc(t, s.URL, Config{APIKey: key})(context.Background(), llm.Request{
		Messages: []llm.Message{{Role: llm.User, Content: "key?"}},
		Stream:   func(text string) bool { got.WriteString(text); return true }})
	if err != nil {
		t.Fatal(err)
	}
	for _, part := range []string{key[:9], key[9:20], key[20:], "0123456789"} {
		if strings.Contains(got.String(), part) || strings.Contains(resp.Content, part) {
			t.Errorf("%q reached the caller: streamed %q, reply %q", part, got.String(), resp.Content)
		}
	}
	if !strings.HasPrefix(got.String(), "the key is [redacted]") {
		t.Errorf("streamed %q", got.String())
	}
}

// An error event in the stream, and a refused request, fail the call with
// a classified error.
func TestStreamErrors(t *testing.T) {
	s := newSSEServer(t, []string{"(+ 1"}, 0, `{"error":{"message":"overloaded","type":"server_error"}}`)
	_, err := streamFunc(t, s.URL, Config{})(context.Background(), llm.Request{
		Messages: []llm.Message{{Role: llm.User, Content: "x"}}, Stream: func(string) bool { return true }})
	if err == nil || !strings.Contains(err.Error(), "overloaded") {
		t.Errorf("an error event: %v", err)
	}

	limited := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusTooManyRequests)
		_, _ = w.Write([]byte(`{"error":{"message":"rate limited","type":"rate_limit_error"}}`))
	}))
	defer limited.Close()
	_, err = streamFunc(t, limited.URL, Config{})(context.Background(), llm.Request{
		Messages: []llm.Message{{Role: llm.User, Content: "x"}}, Stream: func(string) bool { return true }})
	if !errors.Is(err, llm.ClassRateLimit) {
		t.Errorf("a 429: %v", err)
	}
}

// What stopping at the program saves, on a fake server that writes a
// 3-piece program and then 300 more pieces, 3 ms apart (about a model's
// pace): the pieces the server wrote, and the call's time, with and
// without the stop. docs/performance.md quotes it.
func TestStreamEarlyStopSavings(t *testing.T) {
	pieces := []string{"```clojure\n", "(return 42)\n", "```\n"}
	for range 300 {
		pieces = append(pieces, " and then")
	}
	measure := func(stop bool) (time.Duration, int) {
		s := newSSEServer(t, pieces, 3*time.Millisecond, "")
		var text strings.Builder
		start := time.Now()
		_, err := streamFunc(t, s.URL, Config{})(context.Background(), llm.Request{
			Messages: []llm.Message{{Role: llm.User, Content: "answer"}},
			Stream: func(piece string) bool {
				text.WriteString(piece)
				return !stop || strings.Count(text.String(), "```") < 2
			}})
		took := time.Since(start)
		if err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(10 * time.Second)
		for {
			written, gone := s.stats()
			if gone || written == len(pieces) || time.Now().After(deadline) {
				return took, written
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	fullTime, fullPieces := measure(false)
	stopTime, stopPieces := measure(true)
	t.Logf("whole reply: %d pieces in %v; stopped at the program: %d pieces in %v", fullPieces, fullTime, stopPieces, stopTime)
	if fullPieces != len(pieces) || stopPieces > 10 {
		t.Errorf("the server wrote %d pieces of the whole reply and %d of the stopped one", fullPieces, stopPieces)
	}
}
