package provider

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"sort"
	"strings"

	"github.com/ptc-go/ptc/llm"
	"github.com/ptc-go/ptc/llm/anthropic"
	"github.com/ptc-go/ptc/llm/gemini"
	"github.com/ptc-go/ptc/llm/openai"
)

// Ref is a parsed model reference.
type Ref struct {
	// Provider is the name before the first colon: openai, anthropic,
	// gemini, ollama, openai-compatible, or a preset of an
	// OpenAI-compatible service (groq, openrouter, together, lmstudio,
	// llamacpp).
	Provider string
	// Model is the provider's model name ("gpt-4.1-mini",
	// "qwen2.5-coder:7b").
	Model string
	// BaseURL is the server of an openai-compatible reference.
	BaseURL string
}

func (r Ref) String() string {
	if r.Provider == "openai-compatible" {
		return r.Provider + ":" + r.BaseURL + "#" + r.Model
	}
	return r.Provider + ":" + r.Model
}

// service describes a provider: how to reach it and where its key is.
type service struct {
	api     string // the adapter: "openai", "anthropic" or "gemini"
	keyEnv  []string
	urlEnv  string
	baseURL string // default server; "" for the SDK's
	local   bool   // a server on this machine: no key is sent
}

// services is the table of providers; docs/models.md shows it.
func services() map[string]service {
	return map[string]service{
		"openai":            {api: "openai", keyEnv: []string{"OPENAI_API_KEY"}, urlEnv: "OPENAI_BASE_URL"},
		"anthropic":         {api: "anthropic", keyEnv: []string{"ANTHROPIC_API_KEY"}, urlEnv: "ANTHROPIC_BASE_URL"},
		"gemini":            {api: "gemini", keyEnv: []string{"GEMINI_API_KEY", "GOOGLE_API_KEY"}, urlEnv: "GEMINI_BASE_URL"},
		"ollama":            {api: "openai", urlEnv: "OLLAMA_HOST", baseURL: "http://localhost:11434", local: true},
		"lmstudio":          {api: "openai", urlEnv: "LMSTUDIO_BASE_URL", baseURL: "http://localhost:1234/v1", local: true},
		"llamacpp":          {api: "openai", urlEnv: "LLAMACPP_BASE_URL", baseURL: "http://localhost:8080/v1", local: true},
		"groq":              {api: "openai", keyEnv: []string{"GROQ_API_KEY"}, baseURL: "https://api.groq.com/openai/v1"},
		"openrouter":        {api: "openai", keyEnv: []string{"OPENROUTER_API_KEY"}, baseURL: "https://openrouter.ai/api/v1"},
		"together":          {api: "openai", keyEnv: []string{"TOGETHER_API_KEY"}, baseURL: "https://api.together.xyz/v1"},
		"openai-compatible": {api: "openai", keyEnv: []string{"OPENAI_COMPATIBLE_API_KEY"}},
	}
}

// Providers returns the names Parse accepts, sorted.
func Providers() []string {
	var names []string
	for n := range services() {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Parse reads a model reference: PROVIDER:MODEL, such as
// "openai:gpt-4.1-mini", "anthropic:claude-sonnet-4-5",
// "gemini:gemini-2.5-flash", "ollama:qwen2.5-coder:7b" (the model name
// may hold colons), "groq:llama-3.3-70b-versatile", or
// "openai-compatible:URL#MODEL" for any OpenAI-compatible server
// ("openai-compatible:http://gpu-box:8000/v1#Qwen/Qwen2.5-Coder-32B").
func Parse(s string) (Ref, error) {
	name, rest, ok := strings.Cut(strings.TrimSpace(s), ":")
	if !ok || name == "" || rest == "" {
		return Ref{}, fmt.Errorf("model reference %q: want PROVIDER:MODEL, e.g. openai:gpt-4.1-mini (providers: %s)",
			s, strings.Join(Providers(), ", "))
	}
	name = strings.ToLower(name)
	if _, known := services()[name]; !known {
		return Ref{}, fmt.Errorf("model reference %q: unknown provider %q (providers: %s)", s, name, strings.Join(Providers(), ", "))
	}
	if name == "openai-compatible" {
		url, model, ok := strings.Cut(rest, "#")
		if !ok || model == "" || !(strings.HasPrefix(url, "http://") || strings.HasPrefix(url, "https://")) {
			return Ref{}, fmt.Errorf("model reference %q: want openai-compatible:http(s)://HOST/PATH#MODEL", s)
		}
		return Ref{Provider: name, Model: model, BaseURL: url}, nil
	}
	return Ref{Provider: name, Model: rest}, nil
}

// Options configure Open. The zero value reads keys and URLs from the
// environment and uses the SDKs' HTTP clients.
type Options struct {
	// HTTPClient, when set, makes every request.
	HTTPClient *http.Client
	// Getenv reads the environment; nil is os.Getenv.
	Getenv func(string) string
}

// Open returns the model a reference names, on its provider's adapter,
// with the key from the provider's environment variable. A local server
// (ollama, lmstudio, llamacpp) gets no key; an OpenAI-compatible server
// gets $OPENAI_COMPATIBLE_API_KEY, never $OPENAI_API_KEY, which belongs to
// OpenAI.
func Open(ctx context.Context, ref string, opts Options) (llm.Func, error) {
	r, err := Parse(ref)
	if err != nil {
		return nil, err
	}
	return OpenRef(ctx, r, opts)
}

// OpenRef is Open for a parsed reference.
func OpenRef(ctx context.Context, r Ref, opts Options) (llm.Func, error) {
	getenv := opts.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	svc, ok := services()[r.Provider]
	if !ok {
		return nil, fmt.Errorf("model %s: unknown provider %q", r, r.Provider)
	}
	key := ""
	for _, env := range svc.keyEnv {
		if key = getenv(env); key != "" {
			break
		}
	}
	url := r.BaseURL
	if url == "" && svc.urlEnv != "" {
		url = getenv(svc.urlEnv)
	}
	if url == "" {
		url = svc.baseURL
	}
	if r.Provider == "ollama" {
		url = ollamaURL(url)
	}
	if key == "" && (svc.local || r.Provider == "openai-compatible") {
		// Not empty: the OpenAI adapter would read $OPENAI_API_KEY, and
		// that key must not go to another server.
		key = "none"
	}
	if key == "" {
		return nil, &llm.Error{Class: llm.Auth, Reason: "missing_api_key", Message: fmt.Sprintf(
			"model %s: set %s", r, strings.Join(svc.keyEnv, " or "))}
	}
	switch svc.api {
	case "anthropic":
		return anthropic.New(anthropic.Config{Model: r.Model, APIKey: key, BaseURL: url, HTTPClient: opts.HTTPClient})
	case "gemini":
		return gemini.New(ctx, gemini.Config{Model: r.Model, APIKey: key, BaseURL: url, HTTPClient: opts.HTTPClient})
	}
	return openai.New(openai.Config{Model: r.Model, APIKey: key, BaseURL: url, HTTPClient: opts.HTTPClient})
}

// ollamaURL turns $OLLAMA_HOST ("localhost:11434", "http://host:11434")
// into the URL of its OpenAI-compatible API.
func ollamaURL(host string) string {
	if !strings.Contains(host, "://") {
		host = "http://" + host
	}
	host = strings.TrimRight(host, "/")
	if !strings.HasSuffix(host, "/v1") {
		host += "/v1"
	}
	return host
}

// Registry opens every reference of names (a name for agents and llm.Name,
// mapped to a reference) and returns them as an llm.Registry; it stops at
// the first reference that cannot be opened.
//
//	reg, err := provider.Registry(ctx, map[string]string{
//		"smart": "anthropic:claude-sonnet-4-5",
//		"fast":  "openai:gpt-4.1-mini",
//	}, provider.Options{})
func Registry(ctx context.Context, names map[string]string, opts Options) (llm.Registry, error) {
	reg := llm.Registry{}
	keys := make([]string, 0, len(names))
	for k := range names {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, name := range keys {
		f, err := Open(ctx, names[name], opts)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		reg[name] = f
	}
	return reg, nil
}
