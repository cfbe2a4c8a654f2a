package openai_test

import (
	"context"
	"fmt"

	"github.com/ptc-go/ptc/llm"
	"github.com/ptc-go/ptc/llm/adapter/adaptertest"
	"github.com/ptc-go/ptc/llm/openai"
)

// New returns an llm.Func for an agent (agent.Options{LLM: fn}). Here it
// talks to a stand-in for an OpenAI-compatible server; for OpenAI itself,
// leave BaseURL empty and set $OPENAI_API_KEY (or APIKey).
func ExampleNew() {
	srv := adaptertest.Serve(`{"id":"chatcmpl-1","object":"chat.completion","created":1743700000,"model":"gpt-4.1-mini",
		"choices":[{"index":0,"message":{"role":"assistant","content":"` + "```clojure\\n(+ 1 2)\\n```" + `"},"finish_reason":"stop"}],
		"usage":{"prompt_tokens":812,"completion_tokens":14,"total_tokens":826,"prompt_tokens_details":{"cached_tokens":768}}}`)
	defer srv.Close()

	fn, err := openai.New(openai.Config{
		Model:   "gpt-4.1-mini",
		APIKey:  "sk-...",
		BaseURL: srv.URL + "/v1", // e.g. "http://localhost:11434/v1" for Ollama
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	resp, err := fn(context.Background(), llm.Request{
		System:   "You write PTC-Lisp programs.",
		Messages: []llm.Message{{Role: llm.User, Content: "Add 1 and 2."}},
		Options:  map[string]any{"temperature": 0.0, "max_tokens": 256},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(resp.Content)
	fmt.Printf("%+v\n", resp.Tokens)
	// Output:
	// ```clojure
	// (+ 1 2)
	// ```
	// {Input:812 Output:14 CacheRead:768 CacheWrite:0}
}
