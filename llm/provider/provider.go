package provider

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"sort"
	"strings"

	"github.com/ptc-go/ptc/llm"
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

// Provider describes a provider a reference can name: which adapter
// serves it, where its key and URL come from.
type Provider struct {
	// Name is the reference's prefix: "openai", "ollama", ...
	Name string
	// Adapter is the package that speaks to it: "openai" (also every
	// OpenAI-compatible server), "anthropic" or "gemini".
	Adapter string
	// KeyEnv are the variables the key is read from, first set wins;
	// none for local servers.
	KeyEnv []string
	// URLEnv is the variable that moves the server, if any.
	URLEnv string
	// DefaultURL is the server's address when URLEnv is not set; "" is
	// the SDK's default.
	DefaultURL string
	// Local reports a server on this machine, sent no key.
	Local bool
}

// table lists the providers; docs/models.md shows it.
func table() []Provider {
	return []Provider{
		{Name: "anthropic", Adapter: "anthropic", KeyEnv: []string{"ANTHROPIC_API_KEY"}, URLEnv: "ANTHROPIC_BASE_URL"},
		{Name: "gemini", Adapter: "gemini", KeyEnv: []string{"GEMINI_API_KEY", "GOOGLE_API_KEY"}, URLEnv: "GEMINI_BASE_URL"},
		{Name: "groq", Adapter: "openai", KeyEnv: []string{"GROQ_API_KEY"}, DefaultURL: "https://api.groq.com/openai/v1"},
		{Name: "llamacpp", Adapter: "openai", URLEnv: "LLAMACPP_BASE_URL", DefaultURL: "http://localhost:8080/v1", Local: true},
		{Name: "lmstudio", Adapter: "openai", URLEnv: "LMSTUDIO_BASE_URL", DefaultURL: "http://localhost:1234/v1", Local: true},
		{Name: "ollama", Adapter: "openai", URLEnv: "OLLAMA_HOST", DefaultURL: "http://localhost:11434", Local: true},
		{Name: "openai", Adapter: "openai", KeyEnv: []string{"OPENAI_API_KEY"}, URLEnv: "OPENAI_BASE_URL"},
		{Name: "openai-compatible", Adapter: "openai", KeyEnv: []string{"OPENAI_COMPATIBLE_API_KEY"}},
		{Name: "openrouter", Adapter: "openai", KeyEnv: []string{"OPENROUTER_API_KEY"}, DefaultURL: "https://openrouter.ai/api/v1"},
		{Name: "together", Adapter: "openai", KeyEnv: []string{"TOGETHER_API_KEY"}, DefaultURL: "https://api.together.xyz/v1"},
	}
}

// Providers returns the providers Parse accepts, sorted by name.
func Providers() []Provider { return table() }

func lookup(name string) (Provider, bool) {
	for _, p := range table() {
		if p.Name == name {
			return p, true
		}
	}
	return Provider{}, false
}

func names() string {
	var b strings.Builder
	for i, p := range table() {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(p.Name)
	}
	return b.String()
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
			s, names())
	}
	name = strings.ToLower(name)
	if _, known := lookup(name); !known {
		return Ref{}, fmt.Errorf("model reference %q: unknown provider %q (providers: %s)", s, name, names())
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
	svc, ok := lookup(r.Provider)
	if !ok {
		return nil, fmt.Errorf("model %s: unknown provider %q", r, r.Provider)
	}
	key := ""
	for _, env := range svc.KeyEnv {
		if key = getenv(env); key != "" {
			break
		}
	}
	url := r.BaseURL
	if url == "" && svc.URLEnv != "" {
		url = getenv(svc.URLEnv)
	}
	if url == "" {
		url = svc.DefaultURL
	}
	if r.Provider == "ollama" {
		url = ollamaURL(url)
	}
	if key == "" && (svc.Local || r.Provider == "openai-compatible") {
		// Not empty: the OpenAI adapter would read $OPENAI_API_KEY, and
		// that key must not go to another server.
		key = "none"
	}
	if key == "" {
		return nil, &llm.Error{Class: llm.ClassAuth, Reason: "missing_api_key", Message: fmt.Sprintf(
			"model %s: set %s", r, strings.Join(svc.KeyEnv, " or "))}
	}
	c := adapterConfig{provider: r.Provider, model: r.Model, key: key, url: url, client: opts.HTTPClient}
	switch svc.Adapter {
	case "anthropic":
		return openAnthropic(c)
	case "gemini":
		return openGemini(ctx, c)
	}
	return openOpenAI(c)
}

// adapterConfig is what every adapter is opened with. Each adapter is
// opened by a function of its own file, which a build tag can leave out
// of the binary with the adapter's SDK (see docs/cli.md, "Binary size").
type adapterConfig struct {
	provider, model, key, url string
	client                    *http.Client
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
