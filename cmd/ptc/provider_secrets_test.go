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

	"github.com/ptc-go/ptc/llm"
	"github.com/ptc-go/ptc/llm/provider"
)

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
	env := testEnv(nil, nil)
	env.openModel = func(ctx context.Context, ref string) (llm.Func, error) {
		return provider.Open(ctx, ref, provider.Options{Getenv: func(k string) string {
			if k == "OPENAI_COMPATIBLE_API_KEY" {
				return key
			}
			return ""
		}})
	}
	dir := t.TempDir()
	rec, trace, events := filepath.Join(dir, "rec.json"), filepath.Join(dir, "trace.json"), filepath.Join(dir, "events.jsonl")
	code, out, errOut := ptcIn(t, env, "run", ordersAgent, "--model", "openai-compatible:"+srv.URL+"/v1#m",
		"--json", "--record", rec, "--trace", trace, "--events", events)
	if code != 1 || got == 0 {
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
	if !strings.Contains(errOut, "upstream refused Bearer [redacted]") || !strings.Contains(texts["rec.json"], "upstream refused") {
		t.Errorf("the error's message is lost; stderr:\n%s", errOut)
	}
}
