package adaptertest

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// The fake server records each request, decodes a JSON object body into
// JSON (nil for any other body), and answers with respond's reply, JSON by
// default.
func TestServerRecordsRequests(t *testing.T) {
	s := NewServer(t, func(n int, r Received) Reply {
		if n == 1 {
			return Reply{Status: 429, Header: map[string]string{"Content-Type": "text/plain"}, Body: "slow down"}
		}
		return Reply{Body: `{"ok":true}`}
	})
	for i, c := range []struct {
		body, contentType, reply string
		status                   int
		json                     map[string]any
	}{
		{`{"model":"m","n":2}`, "application/json", `{"ok":true}`, 200, map[string]any{"model": "m", "n": 2.0}},
		{`[1,2]`, "text/plain", "slow down", 429, nil},
		{`not json`, "application/json", `{"ok":true}`, 200, nil},
	} {
		resp, err := http.Post(s.URL+"/v1/x?a=b", "application/json", strings.NewReader(c.body))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != c.status || string(b) != c.reply || resp.Header.Get("Content-Type") != c.contentType {
			t.Errorf("request %d: reply %d %q %q, want %d %q %q", i, resp.StatusCode, resp.Header.Get("Content-Type"), b,
				c.status, c.contentType, c.reply)
		}
		r := s.Request(i)
		if r.Method != http.MethodPost || r.Path != "/v1/x" || r.Query != "a=b" || string(r.Body) != c.body {
			t.Errorf("request %d recorded as %s %s?%s %q", i, r.Method, r.Path, r.Query, r.Body)
		}
		if len(r.JSON) != len(c.json) || (c.json != nil && (r.JSON["model"] != c.json["model"] || r.JSON["n"] != c.json["n"])) {
			t.Errorf("request %d: JSON %v, want %v", i, r.JSON, c.json)
		}
	}
	if s.Calls() != 3 {
		t.Errorf("%d calls, want 3", s.Calls())
	}
}

// Serve answers every request with its body; the caller closes it.
func TestServe(t *testing.T) {
	s := Serve(`{"a":1}`)
	defer s.Close()
	for range 2 {
		resp, err := http.Get(s.URL)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(b) != `{"a":1}` || resp.Header.Get("Content-Type") != "application/json" {
			t.Errorf("reply %q %q", resp.Header.Get("Content-Type"), b)
		}
	}
	if s.Calls() != 2 {
		t.Errorf("%d calls", s.Calls())
	}
}
