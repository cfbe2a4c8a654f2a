package anthropic_test

import (
	"context"
	"fmt"

	"github.com/ptc-go/ptc/llm"
	"github.com/ptc-go/ptc/llm/adapter/adaptertest"
	"github.com/ptc-go/ptc/llm/anthropic"
)

// New returns an llm.Func for a Claude model; here it talks to a stand-in
// for the Messages API instead of https://api.anthropic.com.
func ExampleNew() {
	srv := adaptertest.Serve(`{"id":"msg_01","type":"message","role":"assistant","model":"claude-sonnet-4-5",` +
		`"content":[{"type":"text","text":"` + "```clojure\\n(return 42)\\n```" + `"}],"stop_reason":"end_turn",` +
		`"usage":{"input_tokens":20,"cache_read_input_tokens":1800,"cache_creation_input_tokens":0,"output_tokens":12}}`)
	defer srv.Close()

	model, err := anthropic.New(anthropic.Config{
		Model:   "claude-sonnet-4-5",
		APIKey:  "sk-ant-example", // default $ANTHROPIC_API_KEY
		BaseURL: srv.URL,          // default $ANTHROPIC_BASE_URL, else the API's
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	resp, err := model(context.Background(), llm.Request{
		System:   "You write PTC-Lisp programs.",
		Messages: []llm.Message{{Role: llm.User, Content: "What is six times seven?"}},
		Options:  map[string]any{"temperature": 0.0},
		Cache:    true,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(resp.Content)
	fmt.Printf("%+v\n", resp.Tokens)
	// Output:
	// ```clojure
	// (return 42)
	// ```
	// {Input:1820 Output:12 CacheRead:1800 CacheWrite:0}
}
