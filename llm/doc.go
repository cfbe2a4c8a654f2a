// Package llm holds the types an agent uses to talk to a language model:
// the request an agent sends (Request: system prompt, messages, turn, tool
// names, options), the reply it expects (Response: the text and the token
// counts), the callback that connects them (Func), and named models
// resolved in a Registry.
//
// The package is a leaf: it depends on nothing else in the module, so a
// provider adapter (an HTTP client for some vendor's API) imports only llm
// and the standard library or the vendor's SDK.
//
// # Writing a Func
//
// A Func receives a context that carries the agent's deadline and
// cancellation, and must honour it. It reports failures as errors; wrap
// them in an *Error with a Class so that a RetryPolicy (an agent's
// Config.LLMRetry) can tell a rate limit (retry later) from a bad request
// (retrying is pointless):
//
//	func call(ctx context.Context, req llm.Request) (llm.Response, error) {
//		resp, err := client.Do(ctx, toVendor(req))
//		if err != nil {
//			return llm.Response{}, llm.Classify(err) // timeouts and cancellations
//		}
//		if resp.Status == 429 {
//			return llm.Response{}, &llm.Error{Class: llm.ClassRateLimit, Message: resp.Body}
//		}
//		...
//		return llm.Response{Content: text, Tokens: llm.Tokens{Input: in, Output: out}}, nil
//	}
//
// The caller of a Func tests a failure's class with errors.Is, as for
// lisp.Kind: errors.Is(err, llm.ClassRateLimit).
//
// Package llm/adapter holds what an adapter that speaks HTTP needs
// besides: the Guard that keeps its credentials out of errors and bounds
// what it reads, and the classification of HTTP failures (HTTPError).
package llm
