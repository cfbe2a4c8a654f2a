// Package anthropic is an llm.Func for Anthropic's Claude models, on the
// official SDK (github.com/anthropics/anthropic-sdk-go) and the Messages API.
//
// # Usage
//
//	model, err := anthropic.New(anthropic.Config{Model: "claude-sonnet-4-5"})
//	if err != nil {
//		return err
//	}
//	step, err := a.Run(ctx, agent.Options{LLM: model, Cache: true})
//
// Each call sends one non-streaming request to POST /v1/messages:
// Request.System becomes the system parameter (a text block), and
// Request.Messages the user and assistant messages, in order (a message with
// the system role, which agents do not send, joins the system parameter).
// The reply is the concatenation of the response's text blocks.
//
// Request.Options, which agents take from agent.Options.LLMOptions, may set
// "temperature", "top_p" (numbers), "max_tokens", "top_k" (integers) and
// "stop" (a string or a list of strings, the API's stop_sequences); they
// override Config.Temperature and Config.MaxTokens for that call. Any other
// key fails the call with an *llm.Error of Class llm.ClassConfig and Reason
// ReasonInvalidOptions that names the key, and the agent's mission with it.
// max_tokens defaults to 4096 (the Messages API requires one); the SDK
// refuses a non-streaming call whose max_tokens could take more than ten
// minutes (above about 21,000): New reports it as an invalid Config
// (Reason ReasonInvalidConfig), a call as an invalid option.
//
// # Environment
//
// Config.APIKey defaults to $ANTHROPIC_API_KEY, and Config.BaseURL to
// $ANTHROPIC_BASE_URL, else https://api.anthropic.com. Nothing else is read
// from the environment: the SDK's credential chain (ANTHROPIC_AUTH_TOKEN,
// profiles, workload identity federation) is off, so that a Config means the
// same thing on every machine. To send a bearer token instead of a key (a
// gateway, for example), set it in Config.Headers:
//
//	anthropic.Config{Model: m, BaseURL: gw, Headers: map[string]string{"Authorization": "Bearer " + tok}}
//
// # Prompt caching
//
// When Request.Cache is set (agent.Options.Cache), the request carries two
// cache breakpoints (cache_control of type ephemeral, five minutes): one on
// the system prompt, and one on the last message before the newest user
// message, which is the end of the previous turn. A multi-turn mission thus
// reads its system prompt and its conversation so far from the cache and
// pays full price only for the newest feedback. The API allows four
// breakpoints; the adapter never uses more than two. The API caches only
// prefixes longer than a model-dependent minimum (from 1,024 to 4,096
// tokens); below that the breakpoints are ignored and cost nothing.
//
// # Tokens
//
// Response.Tokens.Input counts every prompt token: the API's input_tokens
// (those after the last cache breakpoint) plus cache_read_input_tokens
// (CacheRead) plus cache_creation_input_tokens (CacheWrite).
// Tokens.Output is output_tokens.
//
// # Errors and retries
//
// The SDK's own retries are off (option.WithMaxRetries(0)): a call makes
// exactly one HTTP request, and the agent's RetryPolicy (agent.Config.
// LLMRetry) decides whether to retry, honouring the Retry-After the API
// sends. Errors are *llm.Error values:
//
//   - an HTTP error is built by adapter.HTTPError from the status, the headers
//     and the API's error message, with the API's error type
//     ("rate_limit_error", "overloaded_error"...) as Reason: 429 is
//     llm.ClassRateLimit (RetryAfter from retry-after-ms or Retry-After), 529
//     (overloaded) and other 5xx llm.ClassServerError, 401 and 403 llm.ClassAuth, a
//     400 "prompt is too long" llm.ClassContextLength, other 4xx
//     llm.ClassClientError;
//   - the end of the call's context is llm.ClassTimeout (a deadline) or
//     llm.ClassCancelled, as llm.Classify has it;
//   - a transport failure is llm.ClassUnknown (llm.ClassTimeout for a network
//     timeout), and so is a reply that cannot be read as a message
//     (Reason ReasonMalformedResponse);
//   - a message with an unknown role is llm.ClassClientError, and no request is
//     sent.
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
package anthropic
