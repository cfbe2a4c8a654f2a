package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/ptc-go/ptc/llm/provider"
)

// A live run against a local OpenAI-compatible server that answers like a
// model would: the whole path of a real run, without the network.
func TestLiveAgainstACompatibleServer(t *testing.T) {
	programs := []string{
		`(def paid (tool/list-orders {:status "paid"})) (println (count paid) "paid orders") (count paid)`,
		`(let [top (->> paid (group-by :customer_id)
                      (map (fn [[id os]] {:id id :revenue (sum-by :amount os) :orders (count os)}))
                      (sort-by :revenue >) (take 3))
       names (pmap #(:name (tool/customer {:id (:id %)})) top)]
  (return {:top (mapv (fn [t n] {:name n :revenue (:revenue t) :orders (:orders t)}) top names)
           :_customer_ids (mapv :id top)}))`,
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Messages []struct{ Role string } `json:"messages"`
		}
		_ = json.NewDecoder(r.Body).Decode(&body)
		turn := 0
		for _, m := range body.Messages {
			if m.Role == "assistant" {
				turn++
			}
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{
			"id": "x", "object": "chat.completion", "created": 1, "model": "demo",
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop", "message": map[string]any{
				"role": "assistant", "content": "```clojure\n" + programs[min(turn, len(programs)-1)] + "\n```"}}},
			"usage": map[string]any{"prompt_tokens": 1000, "completion_tokens": 50, "total_tokens": 1050,
				"prompt_tokens_details": map[string]any{"cached_tokens": 600}},
		})
	}))
	defer srv.Close()
	var out bytes.Buffer
	ref := "openai-compatible:" + srv.URL + "/v1#demo"
	if err := run(context.Background(), &out, ref, false, provider.Options{}); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	for _, want := range []string{"… turn 2: asking", "1. Acme", "2 turns, 2 LLM requests, 2000 tokens in (1200 from cache) / 100 out",
		"firewalled strings the model saw: 0 of 45"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}

func TestLiveSkipsWithoutAModelOrKey(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), &out, "", false, provider.Options{}); err != nil || !strings.Contains(out.String(), "nothing to run") {
		t.Errorf("no model: %v %q", err, out.String())
	}
	out.Reset()
	noEnv := provider.Options{Getenv: func(string) string { return "" }}
	if err := run(context.Background(), &out, "anthropic:claude-sonnet-4-5", false, noEnv); err != nil ||
		!strings.Contains(out.String(), "ANTHROPIC_API_KEY") {
		t.Errorf("no key: %v %q", err, out.String())
	}
}
