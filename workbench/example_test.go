package workbench_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm"
	"github.com/ptc-go/ptc/llm/llmtest"
	"github.com/ptc-go/ptc/workbench"
)

// A workbench over a Go agent with a Go tool, served by httptest; a client
// of its JSON API starts a run and reads its end. A person opens URL()
// in a browser instead.
func Example() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	notes := agent.Tool{Description: "Looks notes up.", Func: func(_ context.Context, args *lisp.Map) (any, error) {
		return []any{"a", "b"}, nil
	}}
	runs := tempDir()
	defer os.RemoveAll(runs)
	srv := httptest.NewUnstartedServer(nil)
	defer srv.Close()
	w, err := workbench.New(ctx, workbench.Options{
		Addr: srv.Listener.Addr().String(), // the address it is reached at
		Agents: []workbench.Agent{{
			Name: "notes",
			Config: agent.Config{Prompt: "Count the notes about {{topic}}.", Signature: "(topic :string) -> {count :int}",
				Tools: map[string]agent.Tool{"lookup": notes}},
			Input: map[string]any{"topic": "Go"},
		}},
		// A new scripted model per run: what a real one would answer.
		Models: func(context.Context, string) (llm.Func, error) {
			return llmtest.NewScript(llmtest.Code(`(return {:count (count (tool/lookup {:q ctx/topic}))})`)).Func(), nil
		},
		Model: "scripted",
		Runs:  runs,
		Log:   io.Discard,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer w.Close()
	srv.Config.Handler = w
	srv.Start()

	do := func(method, path, body string) *http.Response {
		req, _ := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+w.Token())
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			panic(err)
		}
		return resp
	}
	resp := do("POST", "/api/runs", `{"agent": "notes", "input": {"topic": "Go"}}`)
	var run struct{ ID, Model string }
	json.NewDecoder(resp.Body).Decode(&run)
	resp.Body.Close()
	// The run's events stream until its end ("done", with its summary).
	resp = do("GET", "/api/runs/"+run.ID+"/events", "")
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	_, done, _ := strings.Cut(string(b), "event: done\ndata: ")
	var sum struct{ Status, Result string }
	json.Unmarshal([]byte(done), &sum)
	fmt.Println(run.Model, sum.Status, sum.Result)
	// Output: scripted ok {:count 2}
}

// tempDir is a folder for the example's runs.
func tempDir() string {
	d, err := os.MkdirTemp("", "workbench-example-")
	if err != nil {
		panic(err)
	}
	return d
}
