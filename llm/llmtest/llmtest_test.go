package llmtest_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ptc-go/ptc/llm"
	"github.com/ptc-go/ptc/llm/llmtest"
)

func req(turn int, msgs ...string) llm.Request {
	r := llm.Request{Turn: turn, System: "sys"}
	for _, m := range msgs {
		r.Messages = append(r.Messages, llm.Message{Role: llm.User, Content: m})
	}
	return r
}

func TestScript(t *testing.T) {
	s := llmtest.NewScript(llmtest.Code("(+ 1 2)"), llmtest.Fail(errors.New("down")), llmtest.Text("hi"))
	ctx := context.Background()
	r, err := s.Func()(ctx, req(1, "first"))
	if err != nil || r.Content != "```clojure\n(+ 1 2)\n```" {
		t.Fatalf("%q %v", r.Content, err)
	}
	if want := (llm.Tokens{Input: (3 + 5 + 3) / 4, Output: (len(r.Content) + 3) / 4}); r.Tokens != want {
		t.Errorf("estimated tokens %+v, want %+v", r.Tokens, want)
	}
	if _, err := s.Func()(ctx, req(2, "first", "second")); err == nil || err.Error() != "down" {
		t.Errorf("scripted failure: %v", err)
	}
	if r, _ := s.Func()(ctx, req(3)); r.Content != "hi" {
		t.Errorf("text reply %q", r.Content)
	}
	if _, err := s.Func()(ctx, req(4)); err == nil || !strings.Contains(err.Error(), "3 replies") {
		t.Errorf("exhausted script: %v", err)
	}
	if s.Calls() != 4 || s.LastMessage(1) != "second" || s.LastMessage(2) != "" || s.LastMessage(9) != "" {
		t.Errorf("calls %d, last messages %q %q", s.Calls(), s.LastMessage(1), s.LastMessage(2))
	}
	s.Default = &llmtest.Reply{Content: "again"}
	if r, _ := s.Func()(ctx, req(5)); r.Content != "again" {
		t.Errorf("default reply %q", r.Content)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := s.Func()(cancelled, req(6)); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled call: %v", err)
	}
}

func TestScriptRespondConcurrent(t *testing.T) {
	s := &llmtest.Script{Respond: func(r llm.Request) llmtest.Reply {
		return llmtest.Reply{Content: fmt.Sprint("turn ", r.Turn), Tokens: llm.Tokens{Input: 1, Output: 2}}
	}}
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := s.Func()(context.Background(), req(i))
			if err != nil || r.Content != fmt.Sprint("turn ", i) || r.Tokens.Output != 2 {
				t.Errorf("%q %v", r.Content, err)
			}
		}()
	}
	wg.Wait()
	if s.Calls() != 20 || len(s.Requests()) != 20 {
		t.Errorf("calls %d", s.Calls())
	}
}

// TestReplayLegacyTranscript: a {"replies": [...]} transcript of an
// older ptc (testdata/legacy.transcript.json, written by the llmtest.Record
// that recordings replaced) still replays, converted on load: its replies
// in order, a recorded failure as an *llm.Error of its class and status.
func TestReplayLegacyTranscript(t *testing.T) {
	replay, err := llmtest.Replay("testdata/legacy.transcript.json")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	r, err := replay.Func()(ctx, req(1))
	if err != nil || r.Content != "(+ 1 2)" || r.Tokens != (llm.Tokens{Input: 10, Output: 3}) {
		t.Errorf("replayed %+v %v", r, err)
	}
	_, err = replay.Func()(ctx, req(2))
	var le *llm.Error
	if !errors.As(err, &le) || le.Class != llm.ClassRateLimit || le.Status != 429 || le.Message != "slow down" {
		t.Errorf("replayed error %v", err)
	}
	if _, err := replay.Func()(ctx, req(3)); err == nil {
		t.Error("a third reply, where the transcript has two")
	}
	if _, err := llmtest.Replay(filepath.Join(t.TempDir(), "missing.json")); err == nil {
		t.Error("missing transcript")
	}
	bad := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(bad, []byte(`{"replies": [], "extra": 1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := llmtest.Replay(bad); err == nil || !strings.Contains(err.Error(), "extra") {
		t.Errorf("a transcript with an unknown field: %v", err)
	}
}

func ExampleScript() {
	model := llmtest.NewScript(llmtest.Code(`(count ctx/items)`), llmtest.Code(`(return *1)`))
	for turn := 1; turn <= 2; turn++ {
		r, _ := model.Func()(context.Background(), llm.Request{Turn: turn})
		fmt.Println(strings.Split(r.Content, "\n")[1])
	}
	fmt.Println(model.Calls(), "calls")
	// Output:
	// (count ctx/items)
	// (return *1)
	// 2 calls
}

// TestReplayRecording: Replay plays the replies of a ptc-trace recording
// (testdata/orders.recording.json, written by "ptc run --record": the
// orders agent of cmd/ptc's tests), in order, and refuses a trace that
// is not a recording.
func TestReplayRecording(t *testing.T) {
	s, err := llmtest.Replay("testdata/orders.recording.json")
	if err != nil {
		t.Fatal(err)
	}
	first, err := s.Func()(context.Background(), req(1, "go"))
	if err != nil || !strings.Contains(first.Content, `(println (count ctx/orders) "orders")`) || first.Tokens.Input == 0 {
		t.Fatalf("reply 1: %+v, %v", first, err)
	}
	second, err := s.Func()(context.Background(), req(2, "go on"))
	if err != nil || !strings.Contains(second.Content, "(sum-by :amount paid)") {
		t.Fatalf("reply 2: %+v, %v", second, err)
	}
	if _, err := s.Func()(context.Background(), req(3, "more")); err == nil {
		t.Error("a third reply, where the recording has two")
	}

	dir := t.TempDir()
	for name, doc := range map[string]string{
		"plain trace": `{"format": "ptc-trace", "version": 1, "redacted": true, "step": {"trace_id": "x", "ok": true, "turns": []}}`,
		"newer":       `{"format": "ptc-trace", "version": 9, "step": {"llm_calls": [{"reply": {"content": "x"}}]}}`,
	} {
		path := filepath.Join(dir, "t.json")
		if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := llmtest.Replay(path); err == nil {
			t.Errorf("%s: replayed", name)
		}
	}
}
