package mcp_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/mcp"
	"github.com/ptc-go/ptc/mcp/internal/upstream"
)

func TestStreamableHTTP(t *testing.T) {
	srv := upstream.New(upstream.Options{Tools: 9})
	handler := mcpsdk.NewStreamableHTTPHandler(func(*http.Request) *mcpsdk.Server { return srv }, nil)
	var mu sync.Mutex
	var auth []string
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		auth = append(auth, r.Header.Get("Authorization")+"|"+r.Header.Get("X-Tenant"))
		mu.Unlock()
		handler.ServeHTTP(w, r)
	}))
	defer hs.Close()

	// Connect's context bounds the connection only: the session outlives it.
	cctx, cancel := context.WithCancel(context.Background())
	ts, err := mcp.Connect(cctx, mcp.Server{
		Name:       "web",
		URL:        hs.URL,
		Headers:    map[string]string{"Authorization": "Bearer t0k3n", "X-Tenant": "acme"},
		HTTPClient: hs.Client(),
	})
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	if n := len(ts.Infos()); n != 11+9 {
		t.Errorf("%d tools, want 20", n)
	}
	v, err := call(t, ts, "web.add", map[string]any{"a": 40, "b": 2})
	if err != nil || lisp.Print(v, lisp.PrintOptions{}) != `{"sum" 42}` {
		t.Errorf("add: %v %v", v, err)
	}
	if _, err := call(t, ts, "web.fail", nil); err == nil || err.Error() != "boom: bad input" {
		t.Errorf("fail: %v", err)
	}
	if err := ts.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(auth) < 3 {
		t.Fatalf("%d requests", len(auth))
	}
	for i, a := range auth {
		if a != "Bearer t0k3n|acme" {
			t.Errorf("request %d had headers %q", i, a)
		}
	}
}
