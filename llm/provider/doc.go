// Package provider opens models by reference, the way a person types them
// on a command line or in a config file: "openai:gpt-4.1-mini",
// "anthropic:claude-sonnet-4-5", "gemini:gemini-2.5-flash",
// "ollama:qwen2.5-coder:7b", "groq:llama-3.3-70b-versatile" or
// "openai-compatible:http://gpu-box:8000/v1#Qwen/Qwen2.5-Coder-32B".
// Each provider is served by its adapter (packages llm/openai,
// llm/anthropic, llm/gemini, on the providers' official SDKs), with its key
// read from the usual environment variable. docs/models.md has the table
// of providers, variables and default servers.
//
// The package sits at the edge of the module: it imports every adapter and
// their SDKs. A program that needs one provider only can import that
// adapter alone.
package provider
