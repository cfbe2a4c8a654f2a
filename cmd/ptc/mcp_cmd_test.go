package main

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ptc-go/ptc/llm/llmtest"
	"github.com/ptc-go/ptc/mcp"
)

// upstreamBinary builds the test MCP server (mcp/internal/upstream) once
// per test binary, to run as a real stdio subprocess.
var upstreamBinary = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "ptc-upstream-")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "upstream")
	cmd := exec.Command("go", "build", "-o", bin, "github.com/ptc-go/ptc/mcp/internal/upstream/cmd/upstream")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", &buildError{out: string(out), err: err}
	}
	return bin, nil
})

type buildError struct {
	out string
	err error
}

func (e *buildError) Error() string { return e.err.Error() + ": " + e.out }

// mcpConfigFile writes an MCP configuration naming the test upstream as
// server "up" (with extra entries merged in), and returns its path.
func mcpConfigFile(t *testing.T, extra string) string {
	t.Helper()
	bin, err := upstreamBinary()
	if err != nil {
		t.Fatalf("building the test upstream: %v", err)
	}
	b, _ := json.Marshal(bin)
	text := `{"mcpServers": {"up": {"command": ` + string(b) + `, "args": ["-tools", "3"]}}` + extra + `}`
	path := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestMCPToolsCommand(t *testing.T) {
	cfg := mcpConfigFile(t, "")
	code, out, errOut := ptcIn(t, testEnv(nil, nil), "mcp", "tools", "--config", cfg)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	containsAll(t, "stdout", out,
		"up (stdio: ", // how it is reached
		"tool/up.add (a :int, b :int) -> {sum :int}",
		"Adds two integers.",
		"tool/up.tool_002",
	)
	containsAll(t, "stderr", errOut, "connecting to up", "connected in")

	code, out, _ = ptcIn(t, testEnv(nil, nil), "mcp", "tools", "--config", cfg, "--json")
	var infos []mcp.ToolInfo
	if err := json.Unmarshal([]byte(out), &infos); code != exitOK || err != nil {
		t.Fatalf("exit %d, %v: %s", code, err, out)
	}
	found := false
	for _, in := range infos {
		found = found || (in.Name == "up.add" && in.Server == "up" && in.Tool == "add")
	}
	if !found {
		t.Errorf("--json lacks up.add: %s", out)
	}

	if code, _, errOut := ptcIn(t, testEnv(nil, nil), "mcp", "tools"); code != exitUsage || !strings.Contains(errOut, "usage: ptc mcp tools") {
		t.Errorf("no --config: exit %d, %q", code, errOut)
	}
	// A server that cannot start: its own words are in the error.
	dying := filepath.Join(t.TempDir(), "dying.json")
	_ = os.WriteFile(dying, []byte(`{"mcpServers": {"dies": {"command": "sh", "args": ["-c", "echo 'fatal: GITHUB_TOKEN is not set' >&2; exit 1"]}}}`), 0o600)
	if code, _, errOut := ptcIn(t, testEnv(nil, nil), "mcp", "tools", "--config", dying); code != exitFail ||
		!strings.Contains(errOut, "dies's stderr: fatal: GITHUB_TOKEN is not set") {
		t.Errorf("a server that exits: exit %d, %q", code, errOut)
	}
	bad := filepath.Join(t.TempDir(), "bad.json")
	_ = os.WriteFile(bad, []byte(`{"mcpServers": {"x": {"command": "/nonexistent/server"}}}`), 0o600)
	if code, _, errOut := ptcIn(t, testEnv(nil, nil), "mcp", "tools", "--config", bad); code != exitFail || !strings.Contains(errOut, "x") {
		t.Errorf("a server that does not start: exit %d, %q", code, errOut)
	}
}

// ptc run --mcp gives the agent the servers' tools.
func TestRunWithMCPTools(t *testing.T) {
	cfg := mcpConfigFile(t, "")
	agentPath := filepath.Join(t.TempDir(), "adder.md")
	_ = os.WriteFile(agentPath, []byte("---\nsignature: {sum :int}\n---\nAdd 20 and 22 with the tool.\n"), 0o600)
	script := llmtest.NewScript(llmtest.Code(`(return {:sum (:sum (tool/up.add {:a 20 :b 22}))})`))
	code, out, errOut := ptcIn(t, testEnv(script.Func(), nil), "run", agentPath, "--model", "x:y", "--mcp", cfg)
	if code != exitOK || out != "{:sum 42}\n" {
		t.Fatalf("exit %d, stdout %q, stderr:\n%s", code, out, errOut)
	}
	// The progress shows the tool call, with its arguments and result.
	containsAll(t, "stderr", errOut, `↳ tool/up.add {:a 20, :b 22} → {"sum" 42} (`)
	if sys := script.Requests()[0].System; !strings.Contains(sys, "up.add") {
		t.Errorf("the system prompt does not list tool/up.add:\n%s", sys)
	}

	// The agent file names the configuration itself (relative to it).
	dir := filepath.Dir(agentPath)
	data, _ := os.ReadFile(cfg)
	_ = os.WriteFile(filepath.Join(dir, "tools.json"), data, 0o600)
	_ = os.WriteFile(agentPath, []byte("---\nsignature: {sum :int}\nmcp: tools.json\n---\nAdd.\n"), 0o600)
	script = llmtest.NewScript(llmtest.Code(`(return {:sum (:sum (tool/up.add {:a 1 :b 2}))})`))
	if code, out, errOut := ptcIn(t, testEnv(script.Func(), nil), "run", agentPath, "--model", "x:y", "-q"); code != exitOK || out != "{:sum 3}\n" {
		t.Fatalf("mcp: key: exit %d, stdout %q, stderr:\n%s", code, out, errOut)
	}
}

// serveStdio runs ptc mcp serve over pipes and connects an SDK client to
// it; the returned function ends the session and waits for the exit code.
func serveStdio(t *testing.T, env *runEnv, args ...string) (*mcpsdk.ClientSession, func() int, *strings.Builder) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var errOut strings.Builder
	var mu sync.Mutex
	done := make(chan int, 1)
	go func() {
		code := env.run(append([]string{"mcp", "serve"}, args...), inR, outW, lockedWriter{&mu, &errOut})
		outW.Close()
		done <- code
	}()
	client := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "test", Version: "v0"}, nil)
	cs, err := client.Connect(context.Background(), &mcpsdk.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		inW.Close()
		<-done
		t.Fatalf("connect: %v\nstderr: %s", err, errOut.String())
	}
	return cs, func() int {
		cs.Close()
		inW.Close()
		return <-done
	}, &errOut
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func TestMCPServeStdio(t *testing.T) {
	agentDir := t.TempDir()
	orders, _ := os.ReadFile(ordersAgent)
	ordersData, _ := os.ReadFile("testdata/agents/orders.json")
	_ = os.WriteFile(filepath.Join(agentDir, "orders.md"), orders, 0o600)
	_ = os.WriteFile(filepath.Join(agentDir, "orders.json"), ordersData, 0o600)
	cfg := mcpConfigFile(t, `, "agents": [{"file": `+jsonString(filepath.Join(agentDir, "orders.md"))+`, "model": "scripted:x"}],
	  "codeMode": {"limits": {"max-tool-calls": 5}}`)

	var refs []string
	script := llmtest.NewScript(ordersReplies()...)
	cs, stop, errOut := serveStdio(t, testEnv(script.Func(), &refs), "--config", cfg)
	ctx := context.Background()

	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]*mcpsdk.Tool{}
	for _, tool := range list.Tools {
		names[tool.Name] = tool
	}
	if names["run_program"] == nil || names["orders"] == nil || len(names) != 2 {
		t.Fatalf("tools %v: want run_program and orders", names)
	}
	var in map[string]any
	raw, _ := json.Marshal(names["orders"].InputSchema)
	if _ = json.Unmarshal(raw, &in); in["required"] != nil {
		t.Errorf("orders' input schema %s: its file's context gives every parameter, so none is required", raw)
	}
	if d := names["run_program"].Description; !strings.Contains(d, "up.add") {
		t.Errorf("run_program's description does not list tool/up.add:\n%s", d)
	}

	// The code-mode tool runs a program over the upstream's tools.
	res, err := cs.CallTool(ctx, &mcpsdk.CallToolParams{Name: "run_program", Arguments: map[string]any{
		"program": `(reduce + (map #(:sum (tool/up.add {:a % :b 1})) [1 2 3]))`,
	}})
	if err != nil || res.IsError {
		t.Fatalf("run_program: %v %+v", err, res)
	}
	if got, _ := json.Marshal(res.StructuredContent); !strings.Contains(string(got), `"value":9`) {
		t.Errorf("structured content %s, want value 9", got)
	}
	// Its limits come from the file: a sixth call is refused.
	res, err = cs.CallTool(ctx, &mcpsdk.CallToolParams{Name: "run_program", Arguments: map[string]any{
		"program": `(doseq [i (range 6)] (tool/up.add {:a i :b 1}))`,
	}})
	if err != nil || !res.IsError {
		t.Errorf("six calls with max-tool-calls 5: %v %+v", err, res)
	}

	// The agent runs its mission with its model and its file's context.
	res, err = cs.CallTool(ctx, &mcpsdk.CallToolParams{Name: "orders", Arguments: map[string]any{}})
	if err != nil || res.IsError {
		t.Fatalf("orders: %v %s", err, resultText(res))
	}
	if got, _ := json.Marshal(res.StructuredContent); string(got) != `{"count":2,"total":130.5}` {
		t.Errorf("orders returned %s", got)
	}
	if len(refs) != 1 || refs[0] != "scripted:x" {
		t.Errorf("models opened: %v", refs)
	}

	// The upstream process dies during a call: the program gets a clear
	// tool error, and the service goes on.
	res, err = cs.CallTool(ctx, &mcpsdk.CallToolParams{Name: "run_program", Arguments: map[string]any{"program": `(tool/up.crash {})`}})
	if err != nil || !res.IsError || !strings.Contains(resultText(res), "mcp server up: connection closed") {
		t.Errorf("a crashing upstream: %v %q", err, resultText(res))
	}
	res, err = cs.CallTool(ctx, &mcpsdk.CallToolParams{Name: "run_program", Arguments: map[string]any{"program": `(+ 1 2)`}})
	if err != nil || res.IsError {
		t.Errorf("after the upstream's crash: %v %q", err, resultText(res))
	}

	if code := stop(); code != exitOK {
		t.Errorf("exit %d when the client leaves; stderr:\n%s", code, errOut.String())
	}
	containsAll(t, "stderr", errOut.String(), "serving run_program (over ", "orders (", "over stdio")
}

func TestMCPServeNothing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "empty.json")
	_ = os.WriteFile(path, []byte(`{}`), 0o600)
	code, _, errOut := ptcIn(t, testEnv(nil, nil), "mcp", "serve", "--config", path)
	if code != exitUsage || !strings.Contains(errOut, "nothing to serve") {
		t.Errorf("exit %d, %q", code, errOut)
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func resultText(res *mcpsdk.CallToolResult) string {
	if res == nil {
		return "<nil>"
	}
	var sb strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcpsdk.TextContent); ok {
			sb.WriteString(tc.Text)
		}
	}
	return sb.String()
}

// ptc mcp serve --http serves streamable HTTP until its context ends.
func TestMCPServeHTTP(t *testing.T) {
	cfg := mcpConfigFile(t, "")
	env := testEnv(nil, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	env.ctx = ctx
	var mu sync.Mutex
	var errOut strings.Builder
	done := make(chan int, 1)
	go func() {
		done <- env.run([]string{"mcp", "serve", "--config", cfg, "--http", "127.0.0.1:0"},
			strings.NewReader(""), io.Discard, lockedWriter{&mu, &errOut})
	}()
	addr := regexp.MustCompile(`at (http://127\.0\.0\.1:\d+/mcp)`)
	var url string
	for deadline := time.Now().Add(time.Minute); url == "" && time.Now().Before(deadline); { // generous: a busy machine
		mu.Lock()
		if m := addr.FindStringSubmatch(errOut.String()); m != nil {
			url = m[1]
		}
		mu.Unlock()
		time.Sleep(10 * time.Millisecond)
	}
	if url == "" {
		mu.Lock()
		defer mu.Unlock()
		t.Fatalf("the server never said where it listens:\n%s", errOut.String())
	}
	client := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "test", Version: "v0"}, nil)
	cs, err := client.Connect(ctx, &mcpsdk.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(ctx, &mcpsdk.CallToolParams{Name: "run_program", Arguments: map[string]any{
		"program": `(:sum (tool/up.add {:a 40 :b 2}))`,
	}})
	if err != nil || res.IsError {
		t.Fatalf("run_program over HTTP: %v %q", err, resultText(res))
	}
	if got, _ := json.Marshal(res.StructuredContent); !strings.Contains(string(got), `"value":42`) {
		t.Errorf("structured content %s", got)
	}
	cs.Close()
	cancel()
	if code := <-done; code != exitOK {
		t.Errorf("exit %d", code)
	}
	mu.Lock()
	defer mu.Unlock()
	containsAll(t, "stderr", errOut.String(), "stopped")
}
