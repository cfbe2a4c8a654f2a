// Package openai connects agents to models served by the OpenAI API, or by
// any server that speaks its Chat Completions protocol (POST
// {base}/chat/completions), through the official SDK
// (github.com/openai/openai-go/v3).
//
// New returns an llm.Func to give an agent:
//
//	fn, err := openai.New(openai.Config{Model: "gpt-4.1-mini"}) // key from $OPENAI_API_KEY
//	if err != nil {
//		return err
//	}
//	step, err := a.Run(ctx, agent.Options{LLM: fn, Context: input})
//
// # Servers
//
// BaseURL selects the server; Model is the name that server knows.
//
//	OpenAI        Config{Model: "gpt-4.1-mini"}  (BaseURL https://api.openai.com/v1, the default)
//	Ollama        Config{Model: "qwen2.5-coder:7b", BaseURL: "http://localhost:11434/v1"}
//	llama.cpp     Config{Model: "local", BaseURL: "http://localhost:8080/v1"}
//	vLLM          Config{Model: "Qwen/Qwen2.5-Coder-32B-Instruct", BaseURL: "http://localhost:8000/v1"}
//	LM Studio     Config{Model: "qwen2.5-coder-7b-instruct", BaseURL: "http://localhost:1234/v1"}
//	OpenRouter    Config{Model: "anthropic/claude-sonnet-4", BaseURL: "https://openrouter.ai/api/v1", APIKey: key,
//	                     Headers: map[string]string{"HTTP-Referer": "https://example.com", "X-Title": "my app"}}
//	Groq          Config{Model: "llama-3.3-70b-versatile", BaseURL: "https://api.groq.com/openai/v1", APIKey: key}
//	Together      Config{Model: "meta-llama/Llama-3.3-70B-Instruct-Turbo", BaseURL: "https://api.together.xyz/v1", APIKey: key}
//	Azure OpenAI  Config{Model: "my-deployment", BaseURL: "https://my-resource.openai.azure.com/openai/v1/",
//	                     Headers: map[string]string{"api-key": key}}
//
// Local servers need no key: leave APIKey empty (and $OPENAI_API_KEY
// unset, or it is sent to them too). Azure's v1 endpoint takes the key in
// an api-key header (or as APIKey, a bearer token); its older
// deployment-and-api-version URLs are not supported.
//
// # Environment
//
// $OPENAI_API_KEY is the key when Config.APIKey is empty, and
// $OPENAI_BASE_URL the server when Config.BaseURL is. The SDK also reads
// $OPENAI_ORG_ID, $OPENAI_PROJECT_ID (sent as the OpenAI-Organization and
// OpenAI-Project headers) and $OPENAI_CUSTOM_HEADERS (extra headers, one
// "Name: value" a line).
//
// # Requests
//
// The request's System prompt is sent as the first message, of role
// system, followed by the conversation (user and assistant messages). The
// reply is the first choice's text (its refusal, when the model refused);
// its usage gives the tokens: Input is prompt_tokens, Output
// completion_tokens and CacheRead prompt_tokens_details.cached_tokens.
// OpenAI caches long prompt prefixes on its own, so llm.Request.Cache
// needs nothing sent; CacheWrite stays zero.
//
// The keys of llm.Request.Options (agent.Options.LLMOptions) override the
// defaults of Config for one call:
//
//	temperature       number (a nil value: the server's default, even over Config.Temperature)
//	max_tokens        integer > 0 (nil: the server's default, even over Config.MaxTokens)
//	top_p             number
//	stop              string or list of strings
//	seed              integer
//	reasoning_effort  string: "minimal", "low", "medium", "high"... (reasoning models)
//
// Any other key, or a value of the wrong type, fails the call with an
// *llm.Error of class llm.ClassConfig and Reason ReasonInvalidOptions that names
// it (the agent's Fail reason), so that a misspelt option is seen rather
// than ignored. The
// token limit is sent as max_completion_tokens to OpenAI (api.openai.com)
// and Azure OpenAI (*.openai.azure.com), whose reasoning models reject
// max_tokens, and as max_tokens to every other server.
//
// # Errors and retries
//
// A failed call returns an *llm.Error whose Class tells the agent's
// retry policy what happened: HTTP errors are classified by adapter.HTTPError
// from the status, the response's headers and the API's error message (429
// is llm.ClassRateLimit with the server's Retry-After or retry-after-ms in
// RetryAfter; 408 and 504 llm.ClassTimeout; 401 and 403 llm.ClassAuth; other 5xx,
// 529 "overloaded" included, llm.ClassServerError; a 400 about the context
// length, or with the code context_length_exceeded, llm.ClassContextLength;
// other 4xx llm.ClassClientError), with the API's error code as Reason. The
// end of the caller's context is llm.ClassTimeout (its deadline) or
// llm.ClassCancelled; a 200 with an empty body or without choices is
// llm.ClassServerError (one with an error object instead, as gateways such as
// OpenRouter send, is classified by the object's code when that is an
// HTTP status, else llm.ClassServerError); a body that is not a chat completion
// is llm.ClassUnknown.
//
// # What the endpoint is trusted with
//
// Every request and every error goes through an adapter.Guard (see
// docs/models.md): a redirect to another scheme, host or port is refused
// (llm.ClassClientError, Reason adapter.ReasonRedirectRefused) so that the
// credentials go to the configured server only, with Config.HTTPClient too
// (a guarded copy is used; yours is not changed); the API key and the
// credential-looking Headers never show in an error nor in a reply's
// text, whatever the server echoes; a reply longer than Config.MaxResponseBytes fails with
// llm.ClassClientError, Reason adapter.ReasonResponseTooLarge, and an error's
// message quotes at most adapter.MaxErrorText bytes of the server's.
//
// The SDK's own retries are off: each call is exactly one HTTP request.
// Retrying is the job of the agent's RetryPolicy (agent.Config.LLMRetry),
// which waits at least what the server asked for:
//
//	agent.Config{..., LLMRetry: llm.RetryPolicy{MaxAttempts: 4}}
//
// The returned Func is safe for concurrent use.
package openai
