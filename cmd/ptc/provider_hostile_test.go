package main

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ptc-go/ptc/cmd/ptc/internal/base"
	"github.com/ptc-go/ptc/cmd/ptc/internal/clitest"
	"github.com/ptc-go/ptc/llm"
	"github.com/ptc-go/ptc/llm/provider"
)

// providerEnv is a base.Env whose models are opened by the provider package,
// as ptc run's are, with key as every provider's key.
func providerEnv(key string) *base.Env {
	env := testEnv(nil, nil)
	env.OpenModel = func(ctx context.Context, ref string) (llm.Func, error) {
		return provider.Open(ctx, ref, provider.Options{Getenv: func(k string) string {
			if k == "OPENAI_COMPATIBLE_API_KEY" {
				return key
			}
			return ""
		}})
	}
	return env
}

// TestRunProviderEchoesKey: a provider whose error pages echo the
// request's headers (a gateway's debug page) gets the key, and ptc run
// shows it nowhere: not in the progress, --json, --record, --trace nor
// --events.
func TestRunProviderEchoesKey(t *testing.T) {
	const key = "sk-echoed-9d8c7b6a5f4e3d2c1b0a99887766554433"
	var got int
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		got++
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusInternalServerError)
		// The key first, so that the progress's one line would show it.
		_, _ = io.WriteString(w, `{"error":{"message":"upstream refused `+r.Header.Get("Authorization")+`","type":"server_error"}}`)
	}))
	defer srv.Close()
	env := providerEnv(key)
	dir := t.TempDir()
	agentPath := quickRetries(t, dir)
	rec, trace, events := filepath.Join(dir, "rec.json"), filepath.Join(dir, "trace.json"), filepath.Join(dir, "events.jsonl")
	code, out, errOut := ptcIn(t, env, "run", agentPath, "--model", "openai-compatible:"+srv.URL+"/v1#m",
		"--json", "--record", rec, "--trace", trace, "--events", events)
	if code != 1 {
		t.Fatalf("exit %d, %d requests; stderr:\n%s", code, got, errOut)
	}
	texts := map[string]string{"stdout": out, "stderr": errOut}
	for _, f := range []string{rec, trace, events} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		texts[filepath.Base(f)] = string(b)
	}
	for what, s := range texts {
		if strings.Contains(s, key[:12]) {
			t.Errorf("%s shows the key:\n%s", what, s)
		}
	}
	if got != 6 {
		t.Errorf("%d requests, want 6 (5 retries)", got)
	}
	if !strings.Contains(errOut, "upstream refused Bearer [redacted]") || !strings.Contains(texts["rec.json"], "upstream refused") {
		t.Errorf("the error's message is lost; stderr:\n%s", errOut)
	}
}

// TestRunProviderRetryAfter: ptc run says how long it waits for a rate
// limit, and does not wait for a Retry-After of 11.6 days: the run ends at
// once, saying why.
func TestRunProviderRetryAfter(t *testing.T) {
	var got int
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		got++
		w.Header().Set("Content-Type", "application/json")
		if got == 1 {
			w.Header().Set("retry-after-ms", "20")
		} else {
			w.Header().Set("Retry-After", "999999")
		}
		w.WriteHeader(http.StatusTooManyRequests)
		_, _ = io.WriteString(w, `{"error":{"message":"slow down","type":"rate_limit_exceeded"}}`)
	}))
	defer srv.Close()
	agentPath := quickRetries(t, t.TempDir())
	code, _, errOut := ptcIn(t, providerEnv("sk-whatever-123456"), "run", agentPath, "--model", "openai-compatible:"+srv.URL+"/v1#m")
	if code != 1 || got != 2 {
		t.Fatalf("exit %d after %d requests; stderr:\n%s", code, got, errOut)
	}
	containsAll(t, "stderr", errOut,
		"  rate limited: retrying in 20ms\n  retrying the model call (attempt 2)\n",
		"not retried: the provider asks to wait 277h46m39s, longer than the retry policy's MaxRetryAfter (1m0s)")
}

// quickRetries writes the orders agent with 5 retries 1 ms apart into dir.
func quickRetries(t *testing.T, dir string) string {
	t.Helper()
	src := strings.Replace(mustRead(t, ordersAgent),
		"max-turns: 3", "max-turns: 3\nllm-retry-delay: 1ms\nllm-retries: 5\ncontext: "+mustAbs(t, "testdata/agents/orders.json"), 1)
	return clitest.WriteFile(t, dir, "a.md", strings.Replace(src, "context: orders.json\n", "", 1))
}
