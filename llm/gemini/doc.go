// Package gemini is an llm.Func for Google's Gemini models, on the official
// SDK (google.golang.org/genai) and the Gemini Developer API (an API key,
// generateContent):
//
//	model, err := gemini.New(ctx, gemini.Config{Model: "gemini-2.5-flash"}) // key from $GEMINI_API_KEY
//	step, err := a.Run(ctx, agent.Options{LLM: model})
//
// # Requests
//
// The request's system prompt becomes the system instruction; user messages
// are sent with the role "user", assistant messages with the role "model".
// Config.MaxTokens and Config.Temperature set the defaults of every call;
// the request's Options override them: "temperature", "max_tokens"
// (maxOutputTokens), "top_p", "top_k" (numbers) and "stop" (a string or a
// list of strings). Any other key, or a value of the wrong type, fails the
// call with an *llm.Error of Class llm.ClassConfig naming the key.
//
// Request.Cache is not needed: Gemini caches repeated prompt prefixes
// implicitly, and reports the tokens served from its cache, which become
// Tokens.CacheRead.
//
// # Responses
//
// The reply is the text of the first candidate (its "thought" parts left
// out). Tokens.Input is the prompt's token count (cached tokens included),
// Tokens.Output the candidates' plus the thinking tokens.
//
// A response without a candidate, or whose first candidate has no text,
// is an error: Reason "prompt_blocked" or "response_blocked" (Class
// llm.ClassClientError) when a safety filter stopped it, "empty_response"
// (llm.ClassUnknown) for a candidate without text, with the finish reason in
// the message, and "malformed_response" (llm.ClassServerError) for a body with
// neither a candidate nor a block reason.
//
// # Errors and retries
//
// Every error is an *llm.Error. An HTTP error is built by adapter.HTTPError
// from the status and Gemini's message: 429 is llm.ClassRateLimit (with
// RetryAfter from the Retry-After header, else from the RetryInfo detail
// Gemini sends), 500 and 503 llm.ClassServerError, 401 and 403 llm.ClassAuth (and a
// 400 for an invalid or expired API key), a 400 whose prompt is too long
// llm.ClassContextLength, other 4xx llm.ClassClientError. The end of the call's
// context is llm.ClassTimeout or llm.ClassCancelled; a body that is not valid JSON,
// or not of the shape of a generateContent reply, is llm.ClassServerError with
// Reason "malformed_response".
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
// The adapter makes one HTTP request per call and never retries: the
// agent's RetryPolicy does. (The SDK's automatic continuation, which sends
// the request again when Gemini answers with a continuation token instead
// of a finished reply, is left on: that is one reply in several parts, not
// a retry.)
package gemini
