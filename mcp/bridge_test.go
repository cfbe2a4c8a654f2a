package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/mcp"
	"github.com/ptc-go/ptc/mcp/internal/upstream"
)

// Both directions at once, as ptc mcp serve runs them: an upstream MCP
// server with 50 tools, bridged into a code-mode tool that an MCP client
// calls. These tests and benchmarks give the figures of docs/mcp.md.

const bridgeTools = 50

// bridgeNames are the upstream's generated tools, tool_000...
func bridgeNames() []string {
	names := make([]string, bridgeTools)
	for i := range names {
		names[i] = fmt.Sprintf("tool_%03d", i)
	}
	return names
}

// bridgeToolset connects to an in-memory upstream with the 50 tools only.
func bridgeToolset(tb testing.TB, latency time.Duration) *mcp.Toolset {
	tb.Helper()
	ctx := context.Background()
	clientT, ss, err := upstream.InMemory(ctx, upstream.Options{Tools: bridgeTools, PageSize: 100, Latency: latency}, false)
	if err != nil {
		tb.Fatal(err)
	}
	ts, err := mcp.Connect(ctx, mcp.Server{Name: "up", Transport: clientT, Tools: bridgeNames()})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		_ = ts.Close()
		_ = ss.Close()
	})
	return ts
}

// directSession is a client session straight to an upstream, as a host
// without ptc has.
func directSession(tb testing.TB, latency time.Duration) *mcpsdk.ClientSession {
	tb.Helper()
	ctx := context.Background()
	st, ct := mcpsdk.NewInMemoryTransports()
	ss, err := upstream.New(upstream.Options{Tools: bridgeTools, PageSize: 100, Latency: latency}).Connect(ctx, st, nil)
	if err != nil {
		tb.Fatal(err)
	}
	cs, err := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "host", Version: "v0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		_ = cs.Close()
		_ = ss.Close()
	})
	return cs
}

// bridgeSession serves code mode over the bridged upstream tools and
// connects a client to it.
func bridgeSession(tb testing.TB, ts *mcp.Toolset) *mcpsdk.ClientSession {
	tb.Helper()
	s := mcp.NewService(mcp.ServiceOptions{})
	// A generous timeout: 50 calls through two MCP sessions take their time
	// on a busy machine, and the test is about what they return.
	if err := s.AddCodeMode(ts.Tools(0), mcp.CodeModeOptions{Limits: lisp.Limits{Timeout: 5 * time.Minute}}); err != nil {
		tb.Fatal(err)
	}
	return svConnect(tb, s)
}

// bridgeProgram calls the 50 tools one after the other and aggregates.
const bridgeProgram = `(let [rs (map (fn [i] (call (format "up.tool_%03d" i) {:id i})) (range 50))]
  {:calls (count rs) :ids (sum-by :id rs) :topics (count (distinct (map :topic rs)))})`

func toolsJSON(tb testing.TB, tools []*mcpsdk.Tool) []byte {
	tb.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(tools); err != nil {
		tb.Fatal(err)
	}
	return bytes.TrimSpace(buf.Bytes())
}

func TestCodeModeOverUpstream(t *testing.T) {
	ctx := context.Background()
	direct, err := directSession(t, 0).ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var native []*mcpsdk.Tool
	for _, tool := range direct.Tools {
		if strings.HasPrefix(tool.Name, "tool_") {
			native = append(native, tool)
		}
	}
	if len(native) != bridgeTools {
		t.Fatalf("the upstream lists %d generated tools, want %d", len(native), bridgeTools)
	}

	cs := bridgeSession(t, bridgeToolset(t, 0))
	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Tools) != 1 || list.Tools[0].Name != "run_program" {
		t.Fatalf("the code-mode service lists %d tools", len(list.Tools))
	}
	desc := list.Tools[0].Description
	// 50 tools are over the default of 30 listed: they are searchable.
	for _, want := range []string{"tool/mcp.search", "50 more tools are not listed here: find them with tool/mcp.search"} {
		if !strings.Contains(desc, want) {
			t.Errorf("the description lacks %q:\n%s", want, desc)
		}
	}
	nativeBytes, codeBytes := len(toolsJSON(t, native)), len(toolsJSON(t, list.Tools))
	t.Logf("tool surface: native %d bytes (~%d tokens), code mode %d bytes (~%d tokens)",
		nativeBytes, nativeBytes/4, codeBytes, codeBytes/4)
	if codeBytes*2 > nativeBytes {
		t.Errorf("code mode's surface (%d bytes) is not under half the native one (%d bytes)", codeBytes, nativeBytes)
	}

	// One call: the program finds a tool, then makes the 50 calls.
	res, err := cs.CallTool(ctx, &mcpsdk.CallToolParams{Name: "run_program", Arguments: map[string]any{
		"program": `(println (map :name (tool/mcp.search {:query "invoice" :limit 2})))` + "\n" + bridgeProgram,
	}})
	if err != nil || res.IsError {
		t.Fatalf("run_program: %v %v", err, res)
	}
	got, _ := json.Marshal(res.StructuredContent)
	if want := `{"output":"[up.tool_001 up.tool_011]","value":{"calls":50,"ids":1225,"topics":10}}`; string(got) != want {
		t.Errorf("result %s\nwant   %s", got, want)
	}
}

// BenchmarkUpstreamNative50Calls: a host calls the 50 upstream tools
// itself, one MCP round trip each (without the model's turn per call that
// a real host pays).
//
// Each benchmark runs with tools that answer at once and with tools that
// take 2 ms, as a remote API does.
func BenchmarkUpstreamNative50Calls(b *testing.B) {
	for _, latency := range bridgeLatencies {
		b.Run("latency="+latency.String(), func(b *testing.B) {
			cs := directSession(b, latency)
			ctx := context.Background()
			names := bridgeNames()
			b.ReportAllocs()
			for b.Loop() {
				ids := 0.0
				for i, name := range names {
					res, err := cs.CallTool(ctx, &mcpsdk.CallToolParams{Name: name, Arguments: map[string]any{"id": i}})
					if err != nil || res.IsError {
						b.Fatal(err, res)
					}
					ids += res.StructuredContent.(map[string]any)["id"].(float64)
				}
				if ids != 1225 {
					b.Fatalf("ids %v", ids)
				}
			}
		})
	}
}

var bridgeLatencies = []time.Duration{0, 2 * time.Millisecond}

// BenchmarkUpstreamCodeMode50Calls: the host makes one run_program call,
// whose program makes the 50 upstream calls through the bridge.
// With pmap, the program makes the calls concurrently (the SDK session
// multiplexes them).
func BenchmarkUpstreamCodeMode50Calls(b *testing.B) {
	ctx := context.Background()
	for _, latency := range bridgeLatencies {
		cs := bridgeSession(b, bridgeToolset(b, latency))
		for _, variant := range []struct{ name, program string }{
			{"map", bridgeProgram},
			{"pmap", strings.Replace(bridgeProgram, "(map (fn", "(pmap (fn", 1)},
		} {
			b.Run("latency="+latency.String()+"/"+variant.name, func(b *testing.B) {
				args := map[string]any{"program": variant.program}
				b.ReportAllocs()
				for b.Loop() {
					res, err := cs.CallTool(ctx, &mcpsdk.CallToolParams{Name: "run_program", Arguments: args})
					if err != nil || res.IsError {
						b.Fatal(err, res)
					}
				}
			})
		}
	}
}

// BenchmarkUpstreamCall: one upstream call through the SDK (direct) and
// through the bridge's agent tool (argument conversion, the call, the
// result converted to PTC values); the difference is the bridge's
// overhead per call.
func BenchmarkUpstreamCall(b *testing.B) {
	ctx := context.Background()
	b.Run("direct", func(b *testing.B) {
		cs := directSession(b, 0)
		params := &mcpsdk.CallToolParams{Name: "tool_007", Arguments: map[string]any{"id": 7}}
		b.ReportAllocs()
		for b.Loop() {
			if res, err := cs.CallTool(ctx, params); err != nil || res.IsError {
				b.Fatal(err, res)
			}
		}
	})
	b.Run("bridge", func(b *testing.B) {
		tool := bridgeToolset(b, 0).Tools(-1)["up.tool_007"]
		args := lisp.NewMap(lisp.Keyword("id"), int64(7))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := tool.Func(ctx, args); err != nil {
				b.Fatal(err)
			}
		}
	})
}
