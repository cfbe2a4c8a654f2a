//go:build !ptc_noopenai && !ptc_noanthropic && !ptc_nogemini

package provider_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/ptc-go/ptc/llm"
	"github.com/ptc-go/ptc/llm/provider"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		model    string
	}{
		{"openai:gpt-4.1-mini", "openai:gpt-4.1-mini", "gpt-4.1-mini"},
		{"anthropic:claude-sonnet-4-5", "anthropic:claude-sonnet-4-5", "claude-sonnet-4-5"},
		{"ollama:qwen2.5-coder:7b", "ollama:qwen2.5-coder:7b", "qwen2.5-coder:7b"},
		{" Gemini:gemini-2.5-flash ", "gemini:gemini-2.5-flash", "gemini-2.5-flash"},
		{"openai-compatible:http://gpu:8000/v1#Qwen/Qwen2.5-Coder-32B", "openai-compatible:http://gpu:8000/v1#Qwen/Qwen2.5-Coder-32B", "Qwen/Qwen2.5-Coder-32B"},
	} {
		r, err := provider.Parse(tc.in)
		if err != nil || r.String() != tc.want || r.Model != tc.model {
			t.Errorf("Parse(%q) = %+v, %v", tc.in, r, err)
		}
	}
	for _, bad := range []string{"", "gpt-4", "openai:", "acme:model", "openai-compatible:gpu:8000#m", "openai-compatible:http://gpu:8000/v1"} {
		if _, err := provider.Parse(bad); err == nil {
			t.Errorf("Parse(%q) accepted", bad)
		}
	}
}

// chatServer is an OpenAI-compatible server that answers every request
// with a fixed reply and records the Authorization headers it got.
type chatServer struct {
	*httptest.Server
	mu    sync.Mutex
	auths []string
	paths []string
}

func newChatServer(t *testing.T) *chatServer {
	cs := &chatServer{}
	cs.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		cs.mu.Lock()
		cs.auths = append(cs.auths, r.Header.Get("Authorization"))
		cs.paths = append(cs.paths, r.URL.Path)
		cs.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{
			"id": "c1", "object": "chat.completion", "created": 1, "model": "m",
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
				"message": map[string]any{"role": "assistant", "content": "hello"}}},
			"usage": map[string]any{"prompt_tokens": 3, "completion_tokens": 1, "total_tokens": 4},
		})
	}))
	t.Cleanup(cs.Close)
	return cs
}

func env(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }

func TestOpenKeysGoWhereTheyBelong(t *testing.T) {
	cs := newChatServer(t)
	ctx := context.Background()
	vars := map[string]string{
		"OPENAI_API_KEY":  "sk-openai-secret",
		"OPENAI_BASE_URL": cs.URL + "/v1",
		"OLLAMA_HOST":     strings.TrimPrefix(cs.URL, "http://"),
		"GROQ_API_KEY":    "gsk-groq",
	}
	for _, tc := range []struct {
		ref, auth string
	}{
		{"openai:gpt-4.1-mini", "Bearer sk-openai-secret"},
		{"ollama:qwen2.5-coder:7b", "Bearer none"},
		{"openai-compatible:" + cs.URL + "/v1#local-model", "Bearer none"},
	} {
		f, err := provider.Open(ctx, tc.ref, provider.Options{Getenv: env(vars)})
		if err != nil {
			t.Fatalf("%s: %v", tc.ref, err)
		}
		resp, err := f(ctx, llm.Request{System: "s", Messages: []llm.Message{{Role: llm.User, Content: "hi"}}})
		if err != nil || resp.Content != "hello" {
			t.Fatalf("%s: %v %+v", tc.ref, err, resp)
		}
		cs.mu.Lock()
		got, path := cs.auths[len(cs.auths)-1], cs.paths[len(cs.paths)-1]
		cs.mu.Unlock()
		if got != tc.auth || path != "/v1/chat/completions" {
			t.Errorf("%s: sent %q to %s, want %q", tc.ref, got, path, tc.auth)
		}
	}
	// A provider without its key is an auth error naming the variable.
	_, err := provider.Open(ctx, "anthropic:claude-sonnet-4-5", provider.Options{Getenv: env(nil)})
	var le *llm.Error
	if !errors.As(err, &le) || le.Class != llm.ClassAuth || !strings.Contains(err.Error(), "ANTHROPIC_API_KEY") {
		t.Errorf("missing key: %v", err)
	}
	reg, err := provider.Registry(ctx, map[string]string{"local": "ollama:m", "cloud": "openai:gpt-4.1-mini"}, provider.Options{Getenv: env(vars)})
	if err != nil || len(reg) != 2 {
		t.Fatalf("registry %v %v", reg, err)
	}
	if _, err := provider.Registry(ctx, map[string]string{"x": "acme:m"}, provider.Options{}); err == nil || !strings.HasPrefix(err.Error(), "x: ") {
		t.Errorf("registry error %v", err)
	}
}

// Every model a reference opens reports its provider under the
// OpenTelemetry GenAI conventions' name, and the model the reference names
// as the one asked for (whatever the server says answered: "m").
func TestOpenReportsProvider(t *testing.T) {
	cs := newChatServer(t)
	ctx := context.Background()
	vars := map[string]string{
		"OPENAI_API_KEY":    "sk-openai",
		"OPENAI_BASE_URL":   cs.URL + "/v1",
		"OLLAMA_HOST":       strings.TrimPrefix(cs.URL, "http://"),
		"LMSTUDIO_BASE_URL": cs.URL + "/v1",
	}
	for _, tc := range []struct{ ref, provider, model string }{
		{"openai:gpt-4.1-mini", "openai", "gpt-4.1-mini"},
		{"ollama:qwen2.5-coder:7b", "ollama", "qwen2.5-coder:7b"},
		{"lmstudio:qwen3", "lmstudio", "qwen3"},
		{"openai-compatible:" + cs.URL + "/v1#local-model", "openai", "local-model"},
	} {
		f, err := provider.Open(ctx, tc.ref, provider.Options{Getenv: env(vars)})
		if err != nil {
			t.Fatalf("%s: %v", tc.ref, err)
		}
		resp, err := f(ctx, llm.Request{Messages: []llm.Message{{Role: llm.User, Content: "hi"}}})
		if err != nil {
			t.Fatalf("%s: %v", tc.ref, err)
		}
		if resp.Provider != tc.provider || resp.RequestModel != tc.model || resp.Model != "m" {
			t.Errorf("%s: provider %q, request model %q, model %q; want %q, %q, %q",
				tc.ref, resp.Provider, resp.RequestModel, resp.Model, tc.provider, tc.model, "m")
		}
	}
}

// The table in docs/models.md is the one users read: every provider, its
// variables and its default server appear there, and Parse accepts them all.
func TestProvidersDocumented(t *testing.T) {
	doc, err := os.ReadFile("../../docs/models.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(doc)
	ps := provider.Providers()
	if !sort.SliceIsSorted(ps, func(i, j int) bool { return ps[i].Name < ps[j].Name }) {
		t.Errorf("Providers is not sorted by name")
	}
	for _, p := range ps {
		ref := p.Name + ":m"
		if p.Name == "openai-compatible" {
			ref = p.Name + ":http://h/v1#m"
		}
		if _, err := provider.Parse(ref); err != nil {
			t.Errorf("%s: %v", p.Name, err)
		}
		if !strings.Contains(text, "`"+p.Name+":") {
			t.Errorf("docs/models.md has no reference for %s", p.Name)
		}
		words := append([]string{p.URLEnv, p.DefaultURL}, p.KeyEnv...)
		for _, w := range words {
			if w != "" && !strings.Contains(text, "`"+w+"`") {
				t.Errorf("docs/models.md does not show %s's %s", p.Name, w)
			}
		}
		if p.Local == (len(p.KeyEnv) > 0) {
			t.Errorf("%s: a local server has no key variable, a remote one has one: %+v", p.Name, p)
		}
	}
}
