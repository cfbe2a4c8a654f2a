package main

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/ptc-go/ptc/cmd/ptc/internal/base"
	"github.com/ptc-go/ptc/cmd/ptc/internal/load"
	"github.com/ptc-go/ptc/cmd/ptc/internal/mcpcmd"
	"github.com/ptc-go/ptc/llm/llmtest"
	"github.com/ptc-go/ptc/mcp"
)

// upstreamBinary builds the test MCP server (mcp/internal/upstream) once
// per test binary, to run as a real stdio subprocess.
var upstreamBinary = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp(builtDir, "ptc-upstream-")
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
	if code != base.ExitOK {
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
	if err := json.Unmarshal([]byte(out), &infos); code != base.ExitOK || err != nil {
		t.Fatalf("exit %d, %v: %s", code, err, out)
	}
	found := false
	for _, in := range infos {
		found = found || (in.Name == "up.add" && in.Server == "up" && in.Tool == "add")
	}
	if !found {
		t.Errorf("--json lacks up.add: %s", out)
	}

	if code, _, errOut := ptcIn(t, testEnv(nil, nil), "mcp", "tools"); code != base.ExitUsage || !strings.Contains(errOut, "(ptc mcp tools -h for help)") {
		t.Errorf("no --config: exit %d, %q", code, errOut)
	}
	// A server that cannot start: its own words are in the error.
	dying := filepath.Join(t.TempDir(), "dying.json")
	_ = os.WriteFile(dying, []byte(`{"mcpServers": {"dies": {"command": "sh", "args": ["-c", "echo 'fatal: GITHUB_TOKEN is not set' >&2; exit 1"]}}}`), 0o600)
	if code, _, errOut := ptcIn(t, testEnv(nil, nil), "mcp", "tools", "--config", dying); code != base.ExitFail ||
		!strings.Contains(errOut, "dies's stderr: fatal: GITHUB_TOKEN is not set") {
		t.Errorf("a server that exits: exit %d, %q", code, errOut)
	}
	bad := filepath.Join(t.TempDir(), "bad.json")
	_ = os.WriteFile(bad, []byte(`{"mcpServers": {"x": {"command": "/nonexistent/server"}}}`), 0o600)
	if code, _, errOut := ptcIn(t, testEnv(nil, nil), "mcp", "tools", "--config", bad); code != base.ExitFail || !strings.Contains(errOut, "x") {
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
	if code != base.ExitOK || out != "{:sum 42}\n" {
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
	if code, out, errOut := ptcIn(t, testEnv(script.Func(), nil), "run", agentPath, "--model", "x:y", "-q"); code != base.ExitOK || out != "{:sum 3}\n" {
		t.Fatalf("mcp: key: exit %d, stdout %q, stderr:\n%s", code, out, errOut)
	}
}

// serveStdio runs ptc mcp serve over pipes and connects an SDK client to
// it; the returned function ends the session and waits for the exit code.
func serveStdio(t *testing.T, env *base.Env, args ...string) (*mcpsdk.ClientSession, func() int, *strings.Builder) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var errOut strings.Builder
	var mu sync.Mutex
	done := make(chan int, 1)
	go func() {
		code := dispatch(env, append([]string{"mcp", "serve"}, args...), inR, outW, lockedWriter{&mu, &errOut})
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

	if code := stop(); code != base.ExitOK {
		t.Errorf("exit %d when the client leaves; stderr:\n%s", code, errOut.String())
	}
	containsAll(t, "stderr", errOut.String(), "serving run_program (over ", "orders (", "over stdio")
}

func TestMCPServeNothing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "empty.json")
	_ = os.WriteFile(path, []byte(`{}`), 0o600)
	code, _, errOut := ptcIn(t, testEnv(nil, nil), "mcp", "serve", "--config", path)
	if code != base.ExitUsage || !strings.Contains(errOut, "nothing to serve") {
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

// serveHTTP runs ptc mcp serve --http 127.0.0.1:0 (and args) and returns
// its URL; stop ends it and returns its exit code.
func serveHTTP(t *testing.T, env *base.Env, args ...string) (url string, stop func() int, errOut func() string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	env.Ctx = ctx
	var mu sync.Mutex
	var out strings.Builder
	errOut = func() string {
		mu.Lock()
		defer mu.Unlock()
		return out.String()
	}
	done := make(chan int, 1)
	go func() {
		done <- dispatch(env, append([]string{"mcp", "serve", "--http", "127.0.0.1:0"}, args...),
			strings.NewReader(""), io.Discard, lockedWriter{&mu, &out})
	}()
	stop = func() int {
		cancel()
		return <-done
	}
	addr := regexp.MustCompile(`at (http://127\.0\.0\.1:\d+/mcp)`)
	for deadline := time.Now().Add(time.Minute); url == "" && time.Now().Before(deadline); { // generous: a busy machine
		if m := addr.FindStringSubmatch(errOut()); m != nil {
			url = m[1]
		}
		time.Sleep(10 * time.Millisecond)
	}
	if url == "" {
		stop()
		t.Fatalf("the server never said where it listens:\n%s", errOut())
	}
	return url, stop, errOut
}

// ptc mcp serve --http serves streamable HTTP until its context ends.
func TestMCPServeHTTP(t *testing.T) {
	cfg := mcpConfigFile(t, "")
	url, stop, errOut := serveHTTP(t, testEnv(nil, nil), "--config", cfg)
	ctx := context.Background()
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
	// Without a token, a page of another site that resolves its name to
	// 127.0.0.1 (DNS rebinding) is refused for its Host header.
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	req.Host = "attacker.example:80"
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusForbidden {
		t.Errorf("a foreign Host: %v, %v; want 403", resp, err)
	} else {
		resp.Body.Close()
	}
	cs.Close()
	if code := stop(); code != base.ExitOK {
		t.Errorf("exit %d", code)
	}
	containsAll(t, "stderr", errOut(), "stopped")
}

// bearerTransport adds a bearer token to every request.
type bearerTransport struct{ token string }

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// With a token in $PTC_MCP_TOKEN (or the variable --token-env names), ptc
// mcp serve --http answers 401 to requests without it, over real HTTP.
func TestMCPServeHTTPToken(t *testing.T) {
	const token = "0123456789abcdef0123"
	cfg := mcpConfigFile(t, "")
	for _, tc := range []struct {
		name string
		vars map[string]string
		args []string
	}{
		{"PTC_MCP_TOKEN", map[string]string{"PTC_MCP_TOKEN": token}, nil},
		{"--token-env", map[string]string{"MY_TOKEN": token, "PTC_MCP_TOKEN": "another-token-not-used"}, []string{"--token-env", "MY_TOKEN"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := testEnv(nil, nil)
			env.Getenv = func(k string) string { return tc.vars[k] }
			url, stop, errOut := serveHTTP(t, env, append([]string{"--config", cfg}, tc.args...)...)
			defer stop()
			for _, auth := range []string{"", "Bearer wrong-token-of-some-length", "Basic " + token, token} {
				req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				if auth != "" {
					req.Header.Set("Authorization", auth)
				}
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				if resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("WWW-Authenticate") == "" {
					t.Errorf("Authorization %q: status %d, want 401 with WWW-Authenticate", auth, resp.StatusCode)
				}
			}
			ctx := context.Background()
			client := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "test", Version: "v0"}, nil)
			cs, err := client.Connect(ctx, &mcpsdk.StreamableClientTransport{Endpoint: url,
				HTTPClient: &http.Client{Transport: bearerTransport{token}}}, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			res, err := cs.CallTool(ctx, &mcpsdk.CallToolParams{Name: "run_program", Arguments: map[string]any{"program": `(+ 1 2)`}})
			if err != nil || res.IsError {
				t.Fatalf("with the token: %v %q", err, resultText(res))
			}
			containsAll(t, "stderr", errOut(), "(clients send the bearer token)")
			if strings.Contains(errOut(), token) {
				t.Errorf("the token is in the log:\n%s", errOut())
			}
		})
	}
}

// ptc mcp serve refuses what would serve the tools to anyone who reaches
// the address.
func TestMCPServeHTTPRefusals(t *testing.T) {
	cfg := mcpConfigFile(t, "")
	for _, tc := range []struct {
		name string
		vars map[string]string
		args []string
		want string
	}{
		{"all interfaces", nil, []string{"--http", ":0"}, "refusing to serve :0 without a token"},
		{"a public address", nil, []string{"--http", "0.0.0.0:0"}, "refusing to serve 0.0.0.0:0 without a token"},
		{"a host name", nil, []string{"--http", "example.com:8080"}, "refusing to serve example.com:8080 without a token"},
		{"a short token", map[string]string{"PTC_MCP_TOKEN": "short"}, []string{"--http", "127.0.0.1:0"}, "$PTC_MCP_TOKEN holds a token of 5 characters: use 16 or more"},
		{"an unset variable", nil, []string{"--http", "127.0.0.1:0", "--token-env", "NOPE"}, "--token-env NOPE: $NOPE is not set"},
		{"a token without HTTP", nil, []string{"--token-env", "X"}, "--token-env is for --http"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := testEnv(nil, nil)
			env.Getenv = func(k string) string { return tc.vars[k] }
			code, _, errOut := ptcIn(t, env, append([]string{"mcp", "serve", "--config", cfg}, tc.args...)...)
			if code != base.ExitUsage || !strings.Contains(errOut, tc.want) {
				t.Errorf("exit %d, stderr %q; want %q", code, errOut, tc.want)
			}
			if strings.Contains(errOut, "connecting to") {
				t.Errorf("it connected to the servers before refusing")
			}
		})
	}
	for addr, want := range map[string]bool{"127.0.0.1:80": true, "[::1]:80": true, "localhost:80": true, "127.1.2.3:80": true,
		":80": false, "0.0.0.0:80": false, "[::]:80": false, "10.0.0.1:80": false, "example.com:80": false, "nonsense": false} {
		if got := mcpcmd.LoopbackAddr(addr); got != want {
			t.Errorf("loopbackAddr(%q) = %v", addr, got)
		}
	}
}

// hostileConfig writes an MCP configuration of one server "h", the test
// upstream in a -hostile mode, with extra keys in its entry.
func hostileConfig(t *testing.T, mode, extra string) string {
	t.Helper()
	bin, err := upstreamBinary()
	if err != nil {
		t.Fatalf("building the test upstream: %v", err)
	}
	text := `{"mcpServers": {"h": {"command": ` + jsonString(bin) + `, "args": ["-hostile", ` + jsonString(mode) + `]` + extra + `}}}`
	path := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// A server that never answers, or pages its tools forever, fails ptc mcp
// tools, ptc mcp serve and ptc run --mcp within the bounds of the
// configuration, with an error that says which bound.
func TestMCPHostileServers(t *testing.T) {
	agentPath := filepath.Join(t.TempDir(), "a.md")
	_ = os.WriteFile(agentPath, []byte("Do it.\n"), 0o600)
	for _, tc := range []struct {
		name, mode, extra, want, kind string
	}{
		{"silent", "silent", `, "connectTimeout": "200ms"`, "mcp server h: no answer to the handshake within 200ms (ConnectTimeout)", string(mcp.KindTimeout)},
		{"endless pages", "endless-pages", ``, "mcp server h: the tool list goes on past 100 pages (Limits.MaxListPages)", string(mcp.KindLimit)},
		{"endless pages, configured", "endless-pages", `, "limits": {"maxListPages": 3}`, "past 3 pages (Limits.MaxListPages)", string(mcp.KindLimit)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfgPath := hostileConfig(t, tc.mode, tc.extra)
			for _, args := range [][]string{
				{"mcp", "tools", "--config", cfgPath},
				{"mcp", "serve", "--config", cfgPath},
				{"run", agentPath, "--model", "x:y", "--mcp", cfgPath},
			} {
				code, _, errOut := ptcIn(t, testEnv(nil, nil), args...)
				if code != base.ExitFail || !strings.Contains(errOut, tc.want) {
					t.Errorf("ptc %s: exit %d, stderr %q; want %q", args[0]+" "+args[1], code, errOut, tc.want)
				}
			}
			// The error keeps its kind.
			cfg, err := load.ReadMCPConfig(cfgPath, func(string) string { return "" })
			if err != nil {
				t.Fatal(err)
			}
			_, err = load.ConnectMCP(context.Background(), cfg, io.Discard, true)
			var me *mcp.Error
			if !errors.As(err, &me) || string(me.Kind) != tc.kind || me.Server != "h" {
				t.Errorf("error %v, want an *mcp.Error of kind %s", err, tc.kind)
			}
		})
	}
}

// ptc mcp tools prints each server's pin; "pin" refuses a catalog that
// changed, and "tools" as an object replaces descriptions.
func TestMCPPinAndDescriptions(t *testing.T) {
	bin, err := upstreamBinary()
	if err != nil {
		t.Fatalf("building the test upstream: %v", err)
	}
	write := func(entry string) string {
		path := filepath.Join(t.TempDir(), "mcp.json")
		text := `{"mcpServers": {"up": {"command": ` + jsonString(bin) + `, "args": ["-tools", "3"]` + entry + `}}}`
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	code, out, errOut := ptcIn(t, testEnv(nil, nil), "mcp", "tools", "--config", write(""))
	m := regexp.MustCompile(`\n  pin: (sha256:[0-9a-f]{64})\n`).FindStringSubmatch(out)
	if code != base.ExitOK || m == nil {
		t.Fatalf("exit %d, no pin line:\n%s\n%s", code, out, errOut)
	}
	pin := m[1]
	if code, _, errOut := ptcIn(t, testEnv(nil, nil), "mcp", "tools", "--config", write(`, "pin": "`+pin+`"`)); code != base.ExitOK {
		t.Errorf("the same catalog: exit %d, %s", code, errOut)
	}
	// Four generated tools instead of three: another catalog.
	changed := write(`, "pin": "` + pin + `"`)
	data, _ := os.ReadFile(changed)
	_ = os.WriteFile(changed, []byte(strings.Replace(string(data), `"3"`, `"4"`, 1)), 0o600)
	if code, _, errOut := ptcIn(t, testEnv(nil, nil), "mcp", "tools", "--config", changed); code != base.ExitFail ||
		!strings.Contains(errOut, "mcp server up: the tool catalog changed since it was pinned: its pin is now sha256:") {
		t.Errorf("a changed catalog: exit %d, %s", code, errOut)
	}
	// The object form of tools keeps those tools and replaces a description.
	code, out, errOut = ptcIn(t, testEnv(nil, nil), "mcp", "tools", "--config",
		write(`, "tools": {"add": {"description": "Sums two numbers, says the host."}, "echo": {}}`))
	if code != base.ExitOK || !strings.Contains(out, "up (stdio: ") || !strings.Contains(out, ": 2 tools") ||
		!strings.Contains(out, "Sums two numbers, says the host.") || strings.Contains(out, "Adds two integers.") {
		t.Errorf("exit %d:\n%s\n%s", code, out, errOut)
	}
}
