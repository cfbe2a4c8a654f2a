package gemini_test

import (
	"context"
	"fmt"

	"github.com/ptc-go/ptc/llm"
	"github.com/ptc-go/ptc/llm/adapter/adaptertest"
	"github.com/ptc-go/ptc/llm/gemini"
)

// New returns an llm.Func for a Gemini model (agent.Options{LLM: fn});
// here it talks to a stand-in for the Gemini Developer API instead of
// https://generativelanguage.googleapis.com.
func ExampleNew() {
	// The stand-in answers POST /v1beta/models/gemini-2.5-flash:generateContent.
	srv := adaptertest.Serve(`{"candidates":[{"content":{"parts":[{"text":"` + "```clojure\\n(return (* 6 7))\\n```" + `"}],"role":"model"},` +
		`"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":1830,"candidatesTokenCount":14,` +
		`"totalTokenCount":1844,"cachedContentTokenCount":1792},"modelVersion":"gemini-2.5-flash"}`)
	defer srv.Close()

	model, err := gemini.New(context.Background(), gemini.Config{
		Model:   "gemini-2.5-flash",
		APIKey:  "AIza...", // default $GEMINI_API_KEY, else $GOOGLE_API_KEY
		BaseURL: srv.URL,   // default the API's
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	resp, err := model(context.Background(), llm.Request{
		System:   "You write PTC-Lisp programs.",
		Messages: []llm.Message{{Role: llm.User, Content: "What is six times seven?"}},
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
	// (return (* 6 7))
	// ```
	// {Input:1830 Output:14 CacheRead:1792 CacheWrite:0}
}
