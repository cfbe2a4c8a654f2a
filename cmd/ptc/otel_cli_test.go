//go:build !ptc_nootel

package main

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/ptc-go/ptc/cmd/ptc/internal/base"
	"github.com/ptc-go/ptc/cmd/ptc/internal/clitest"
	"github.com/ptc-go/ptc/llm"
	"github.com/ptc-go/ptc/llm/llmtest"
	colmetricpb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"
)

// collector is a local OTLP receiver: what the exports it got hold.
type collector struct {
	mu      sync.Mutex
	spans   []string          // span names
	attrs   map[string]bool   // the keys of the spans' attributes
	roots   []string          // the root spans: name, then gen_ai.agent.name
	metrics []string          // metric names
	res     map[string]string // the resource of the last export
	headers http.Header       // of the last HTTP request
	paths   []string          // the HTTP paths posted to
}

func (c *collector) addTraces(req *coltracepb.ExportTraceServiceRequest) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, rs := range req.GetResourceSpans() {
		c.res = resourceMap(rs.GetResource())
		for _, ss := range rs.GetScopeSpans() {
			for _, s := range ss.GetSpans() {
				c.spans = append(c.spans, s.GetName())
				if c.attrs == nil {
					c.attrs = map[string]bool{}
				}
				agentName := ""
				for _, kv := range s.GetAttributes() {
					c.attrs[kv.GetKey()] = true
					if kv.GetKey() == "gen_ai.agent.name" {
						agentName = anyString(kv.GetValue())
					}
				}
				if len(s.GetParentSpanId()) == 0 {
					c.roots = append(c.roots, s.GetName()+", "+agentName)
				}
			}
		}
	}
}

func (c *collector) addMetrics(req *colmetricpb.ExportMetricsServiceRequest) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, rm := range req.GetResourceMetrics() {
		c.res = resourceMap(rm.GetResource())
		for _, sm := range rm.GetScopeMetrics() {
			for _, m := range sm.GetMetrics() {
				c.metrics = append(c.metrics, m.GetName())
			}
		}
	}
}

func resourceMap(r *resourcepb.Resource) map[string]string {
	m := map[string]string{}
	for _, kv := range r.GetAttributes() {
		m[kv.GetKey()] = anyString(kv.GetValue())
	}
	return m
}

func anyString(v *commonpb.AnyValue) string { return v.GetStringValue() }

// ServeHTTP receives OTLP/HTTP (protobuf) exports.
func (c *collector) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	c.mu.Lock()
	c.headers = r.Header.Clone()
	c.paths = append(c.paths, r.URL.Path)
	c.mu.Unlock()
	var resp proto.Message
	switch r.URL.Path {
	case "/v1/traces":
		req := &coltracepb.ExportTraceServiceRequest{}
		if err = proto.Unmarshal(body, req); err == nil {
			c.addTraces(req)
		}
		resp = &coltracepb.ExportTraceServiceResponse{}
	case "/v1/metrics":
		req := &colmetricpb.ExportMetricsServiceRequest{}
		if err = proto.Unmarshal(body, req); err == nil {
			c.addMetrics(req)
		}
		resp = &colmetricpb.ExportMetricsServiceResponse{}
	default:
		http.NotFound(w, r)
		return
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	b, _ := proto.Marshal(resp)
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(b)
}

// grpcCollector receives OTLP/gRPC exports into a collector.
type grpcTraces struct {
	coltracepb.UnimplementedTraceServiceServer
	c *collector
}

func (g grpcTraces) Export(_ context.Context, req *coltracepb.ExportTraceServiceRequest) (*coltracepb.ExportTraceServiceResponse, error) {
	g.c.addTraces(req)
	return &coltracepb.ExportTraceServiceResponse{}, nil
}

type grpcMetrics struct {
	colmetricpb.UnimplementedMetricsServiceServer
	c *collector
}

func (g grpcMetrics) Export(_ context.Context, req *colmetricpb.ExportMetricsServiceRequest) (*colmetricpb.ExportMetricsServiceResponse, error) {
	g.c.addMetrics(req)
	return &colmetricpb.ExportMetricsServiceResponse{}, nil
}

// runBinaryEnv runs the built ptc with args, its environment the test
// process's without any OTEL_* variable, plus vars.
func runBinaryEnv(t *testing.T, vars []string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "OTEL_") {
			env = append(env, kv)
		}
	}
	return runBuilt(t, "", nil, append(env, vars...), args...)
}

const ordersRecording = "testdata/agents/orders.recording.json"

// wantTelemetry checks that c got the spans and metrics of the orders
// mission, with ptc's resource; its root span names the agent orders.
func wantTelemetry(t *testing.T, c *collector, service string) {
	t.Helper()
	wantTelemetryOf(t, c, service, "orders")
}

// wantTelemetryOf is wantTelemetry of the orders mission run as the agent
// called agentName.
func wantTelemetryOf(t *testing.T, c *collector, service, agentName string) {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	if want := []string{"invoke_agent " + agentName + ", " + agentName}; !slices.Equal(c.roots, want) {
		t.Errorf("root spans (name, gen_ai.agent.name) %q, want %q", c.roots, want)
	}
	for _, name := range []string{"invoke_agent", "ptc.turn", "chat"} {
		if !slices.ContainsFunc(c.spans, func(s string) bool { return s == name || strings.HasPrefix(s, name+" ") }) {
			t.Errorf("no %s span among %q", name, c.spans)
		}
	}
	if n := countPrefix(c.spans, "ptc.turn"); n != 2 {
		t.Errorf("%d turn spans, want 2 (the recording has two turns): %q", n, c.spans)
	}
	for _, name := range []string{"gen_ai.client.operation.duration", "gen_ai.client.token.usage", "ptc.mission.duration"} {
		if !slices.Contains(c.metrics, name) {
			t.Errorf("no metric %s among %q", name, c.metrics)
		}
	}
	if c.res["service.name"] != service {
		t.Errorf("service.name %q, want %q (resource %v)", c.res["service.name"], service, c.res)
	}
	if c.res["service.version"] == "" || c.res["telemetry.sdk.name"] != "opentelemetry" {
		t.Errorf("the resource lacks service.version or telemetry.sdk.name: %v", c.res)
	}
}

func countPrefix(ss []string, p string) int {
	n := 0
	for _, s := range ss {
		if strings.HasPrefix(s, p) {
			n++
		}
	}
	return n
}

// TestRunOTLPHTTP: ptc run with OTEL_EXPORTER_OTLP_ENDPOINT exports the
// mission's spans and metrics over OTLP/HTTP, with the headers, service
// name and resource attributes of the environment; --json output is
// untouched.
func TestRunOTLPHTTP(t *testing.T) {
	tests := []struct {
		name    string
		vars    []string
		service string
		content bool
	}{
		{"endpoint only", nil, "ptc", false},
		{"exporters named", []string{"OTEL_TRACES_EXPORTER=otlp", "OTEL_METRICS_EXPORTER=otlp",
			"OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf"}, "ptc", false},
		{"service name", []string{"OTEL_SERVICE_NAME=orders-bot"}, "orders-bot", false},
		{"content", []string{"OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true"}, "ptc", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := &collector{}
			srv := httptest.NewServer(c)
			defer srv.Close()
			vars := append([]string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + srv.URL,
				"OTEL_EXPORTER_OTLP_HEADERS=x-team=ptc", "OTEL_RESOURCE_ATTRIBUTES=deployment.environment.name=test"}, tc.vars...)
			code, out, errOut := runBinaryEnv(t, vars, "run", "--replay", ordersRecording, "--json", "--quiet")
			if code != 0 {
				t.Fatalf("exit %d, stderr:\n%s", code, errOut)
			}
			var res map[string]any
			if err := json.Unmarshal([]byte(out), &res); err != nil || res["ok"] != true {
				t.Errorf("stdout is not the outcome: %v\n%s", err, out)
			}
			if errOut != "" {
				t.Errorf("stderr: %s", errOut)
			}
			wantTelemetry(t, c, tc.service)
			c.mu.Lock()
			defer c.mu.Unlock()
			if c.headers.Get("x-team") != "ptc" {
				t.Errorf("OTEL_EXPORTER_OTLP_HEADERS not sent: %v", c.headers)
			}
			if c.res["deployment.environment.name"] != "test" {
				t.Errorf("OTEL_RESOURCE_ATTRIBUTES not applied: %v", c.res)
			}
			if c.attrs["gen_ai.input.messages"] != tc.content {
				t.Errorf("gen_ai.input.messages recorded: %v, want %v", c.attrs["gen_ai.input.messages"], tc.content)
			}
		})
	}
}

// TestRunOTelAgentName: the root span carries the agent's name as
// gen_ai.agent.name (and in its name, invoke_agent NAME): the agent
// file's name, sales for sales.md; a replay without the file takes the
// name of the file recorded (orders, in TestRunOTLPHTTP).
func TestRunOTelAgentName(t *testing.T) {
	dir := t.TempDir()
	orders, err := os.ReadFile(ordersAgent)
	if err != nil {
		t.Fatal(err)
	}
	ordersData, err := os.ReadFile("testdata/agents/orders.json")
	if err != nil {
		t.Fatal(err)
	}
	clitest.WriteFile(t, dir, "sales.md", string(orders))
	clitest.WriteFile(t, dir, "orders.json", string(ordersData))
	c := &collector{}
	srv := httptest.NewServer(c)
	defer srv.Close()
	code, _, errOut := runBinaryEnv(t, []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + srv.URL},
		"run", filepath.Join(dir, "sales.md"), "--replay", ordersRecording, "--quiet")
	if code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, errOut)
	}
	wantTelemetryOf(t, c, "ptc", "sales")
}

// TestRunOTLPGRPC: OTEL_EXPORTER_OTLP_PROTOCOL=grpc exports over gRPC.
func TestRunOTLPGRPC(t *testing.T) {
	c := &collector{}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := grpc.NewServer()
	coltracepb.RegisterTraceServiceServer(s, grpcTraces{c: c})
	colmetricpb.RegisterMetricsServiceServer(s, grpcMetrics{c: c})
	go func() { _ = s.Serve(ln) }()
	defer s.Stop()
	code, _, errOut := runBinaryEnv(t, []string{"OTEL_EXPORTER_OTLP_ENDPOINT=http://" + ln.Addr().String(),
		"OTEL_EXPORTER_OTLP_PROTOCOL=grpc"}, "run", "--replay", ordersRecording, "--quiet")
	if code != 0 || errOut != "" {
		t.Fatalf("exit %d, stderr:\n%s", code, errOut)
	}
	wantTelemetry(t, c, "ptc")
}

// TestRunOTelConsole: the console exporters write to stderr, so that
// stdout holds the --json outcome alone.
func TestRunOTelConsole(t *testing.T) {
	code, out, errOut := runBinaryEnv(t, []string{"OTEL_TRACES_EXPORTER=console", "OTEL_METRICS_EXPORTER=console"},
		"run", "--replay", ordersRecording, "--json", "--quiet")
	if code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, errOut)
	}
	var res map[string]any
	if err := json.Unmarshal([]byte(out), &res); err != nil || res["ok"] != true {
		t.Errorf("stdout is not the outcome alone: %v\n%s", err, out)
	}
	containsAll(t, "stderr", errOut, `"Name":"invoke_agent`, `"Name":"ptc.turn"`, `"Name":"ptc.mission.duration"`,
		`"Value":"ptc"`)
}

// TestRunOTelUnreachable: a collector that does not answer costs a line on
// stderr, not the mission's outcome.
func TestRunOTelUnreachable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	code, out, errOut := runBinaryEnv(t, []string{"OTEL_TRACES_EXPORTER=otlp", "OTEL_EXPORTER_OTLP_ENDPOINT=http://" + addr},
		"run", "--replay", ordersRecording, "--quiet")
	if code != 0 || out != ordersValue {
		t.Fatalf("exit %d, stdout %q, stderr:\n%s", code, out, errOut)
	}
	containsAll(t, "stderr", errOut, "ptc run: exporting to OpenTelemetry:")
	for _, line := range strings.Split(strings.TrimSpace(errOut), "\n") {
		if !strings.HasPrefix(line, "ptc: OpenTelemetry: ") && !strings.HasPrefix(line, "ptc run: exporting to OpenTelemetry: ") {
			t.Errorf("stderr line %q is not ptc's", line)
		}
	}
}

// TestOTelHelp: the help of the commands that export says how.
func TestOTelHelp(t *testing.T) {
	for _, args := range [][]string{{"run", "-h"}, {"mcp", "serve", "-h"}} {
		_, out, errOut := ptcIn(t, testEnv(nil, nil), args...)
		containsAll(t, strings.Join(args, " "), out+errOut, "OTEL_TRACES_EXPORTER", "OTEL_METRICS_EXPORTER",
			"OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_PROTOCOL=grpc", "OTEL_SERVICE_NAME",
			"console writes to stderr", "Without them nothing is exported", "docs/observability.md")
	}
}

// TestMCPServeOTel: the missions of the agents ptc mcp serve serves are
// exported, and flushed when the client leaves.
func TestMCPServeOTel(t *testing.T) {
	c := &collector{}
	srv := httptest.NewServer(c)
	defer srv.Close()
	agentDir := t.TempDir()
	orders, _ := os.ReadFile(ordersAgent)
	ordersData, _ := os.ReadFile("testdata/agents/orders.json")
	_ = os.WriteFile(filepath.Join(agentDir, "orders.md"), orders, 0o600)
	_ = os.WriteFile(filepath.Join(agentDir, "orders.json"), ordersData, 0o600)
	cfg := mcpConfigFile(t, `, "agents": [{"file": `+jsonString(filepath.Join(agentDir, "orders.md"))+`, "model": "scripted:x"}]`)

	vars := map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": srv.URL, "OTEL_SERVICE_NAME": "ptc-mcp"}
	for k, v := range vars {
		t.Setenv(k, v) // the OTLP exporters read the process's environment
	}
	env := testEnv(llmtest.NewScript(ordersReplies()...).Func(), nil)
	env.Getenv = func(k string) string { return vars[k] }
	cs, stop, errOut := serveStdio(t, env, "--config", cfg, "--quiet")
	res, err := cs.CallTool(context.Background(), &mcpsdk.CallToolParams{Name: "orders", Arguments: map[string]any{}})
	if err != nil || res.IsError {
		t.Fatalf("orders: %v %s", err, resultText(res))
	}
	if code := stop(); code != base.ExitOK {
		t.Fatalf("exit %d; stderr:\n%s", code, errOut.String())
	}
	wantTelemetry(t, c, "ptc-mcp")
}

// TestRunOTelUsage: a list of exporters, or an unknown one, is a usage
// error that says so.
func TestRunOTelUsage(t *testing.T) {
	tests := []struct {
		vars []string
		want string
	}{
		{[]string{"OTEL_TRACES_EXPORTER=otlp,console"}, "one exporter per signal"},
		{[]string{"OTEL_METRICS_EXPORTER=statsd"}, `OpenTelemetry metrics exporter "statsd"`},
	}
	for _, tc := range tests {
		code, out, errOut := runBinaryEnv(t, tc.vars, "run", "--replay", ordersRecording, "--quiet")
		if code != base.ExitUsage || out != "" || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and %q", tc.vars, code, out, errOut, tc.want)
		}
	}
}

// TestRunOTelCancelled: an interrupted mission's spans are flushed too.
func TestRunOTelCancelled(t *testing.T) {
	c := &collector{}
	srv := httptest.NewServer(c)
	defer srv.Close()
	vars := map[string]string{"OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_ENDPOINT": srv.URL}
	for k, v := range vars {
		t.Setenv(k, v)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// The model's first call is interrupted, as by Ctrl-C.
	model := func(ctx context.Context, _ llm.Request) (llm.Response, error) {
		cancel()
		<-ctx.Done()
		return llm.Response{}, ctx.Err()
	}
	env := testEnv(model, nil)
	env.Ctx = ctx
	env.Getenv = func(k string) string { return vars[k] }
	code, _, errOut := ptcIn(t, env, "run", ordersAgent, "--model", "m", "--quiet")
	if code != base.ExitInterrupted {
		t.Fatalf("exit %d, want %d; stderr:\n%s", code, base.ExitInterrupted, errOut)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !slices.ContainsFunc(c.spans, func(s string) bool { return strings.HasPrefix(s, "invoke_agent") }) {
		t.Errorf("no invoke_agent span exported: %q", c.spans)
	}
}
