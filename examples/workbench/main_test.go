package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/ptc-go/ptc/workbench"
)

// The example's workbench, offline: both agents run with the scripted
// model (the typed tool and the plain one), and their cases pass.
func TestExampleWorkbench(t *testing.T) {
	srv := httptest.NewUnstartedServer(nil)
	opts := options(srv.Listener.Addr().String(), "", t.TempDir())
	opts.Log = io.Discard
	w, err := workbench.New(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	srv.Config.Handler = w
	srv.Start()
	t.Cleanup(func() {
		w.Close()
		srv.Close()
	})
	call := func(method, path, body string) string {
		t.Helper()
		req, _ := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+w.Token())
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode >= 300 {
			t.Fatalf("%s %s: %d %s", method, path, resp.StatusCode, b)
		}
		return string(b)
	}
	agents := call("GET", "/api/agents", "")
	for _, want := range []string{`"name":"weather"`, `"tools":["forecast"]`, `"signature":"(cities [:string]) -\u003e {warmest :string, temp_c :float}"`,
		`"name":"orders"`, `"tools":["orders"]`, `"run_model":"scripted"`} {
		if !strings.Contains(agents, want) {
			t.Errorf("the agents lack %s: %s", want, agents)
		}
	}
	for _, c := range []struct{ agent, input, result string }{
		{"weather", `{}`, `{:temp_c 27.5, :warmest "Cairo"}`},
		{"orders", `{"status": "refunded"}`, `{:count 1, :total 42.0}`},
	} {
		var run struct{ ID string }
		json.Unmarshal([]byte(call("POST", "/api/runs", `{"agent": "`+c.agent+`", "input": `+c.input+`}`)), &run)
		events := call("GET", "/api/runs/"+run.ID+"/events", "")
		_, done, _ := strings.Cut(events, "event: done\ndata: ")
		var sum struct{ Status, Result string }
		json.Unmarshal([]byte(done), &sum)
		if sum.Status != "ok" || sum.Result != c.result {
			t.Errorf("%s: %+v, want %s", c.agent, sum, c.result)
		}
		if strings.Contains(events, "sk-example") || c.agent == "orders" && !strings.Contains(events, `key: \u003cFirewalled\u003e`) {
			t.Errorf("%s: the firewalled key is not hidden in the events", c.agent)
		}
	}
	for _, a := range []string{"weather", "orders"} {
		var rep struct{ Passed, Total int }
		json.Unmarshal([]byte(call("POST", "/api/agents/"+a+"/test", `{}`)), &rep)
		if rep.Total != 2 || rep.Passed != 2 {
			t.Errorf("%s's cases: %d of %d passed", a, rep.Passed, rep.Total)
		}
	}
}
