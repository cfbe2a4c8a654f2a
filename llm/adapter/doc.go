// Package adapter is for authors of provider adapters (packages such as
// llm/openai, llm/anthropic and llm/gemini): what an adapter that speaks
// HTTP needs beside the llm types it returns.
//
// # Guarding an HTTP adapter
//
// A provider endpoint is trusted with the request and the credentials, not
// with what it answers. An adapter makes a Guard from its key and headers
// (NewGuard), sends its requests with Guard.Client and returns Guard.Func
// of its function: its errors then never show the credentials, it follows
// no redirect to another host, and it reads no reply past
// GuardConfig.MaxResponseBytes.
//
// # Classifying HTTP failures
//
// HTTPError turns a failed HTTP call into an *llm.Error with the Class a
// RetryPolicy acts on (StatusClass) and the provider's Retry-After
// (RetryAfter).
//
// Package adapter/adaptertest holds the suite every adapter's tests run
// against a fake server speaking its wire format.
package adapter
