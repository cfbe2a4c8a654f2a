package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"
	"testing"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/mcp"
)

// sv50Tools returns 50 tools shaped like a CRM upstream's, each counting
// its calls in calls: tool i answers {id, name, revenue: 10*i, region,
// _notes}.
func sv50Tools(calls *atomic.Int64) map[string]agent.Tool {
	regions := []string{"emea", "amer", "apac"}
	tools := make(map[string]agent.Tool, 50)
	for i := range 50 {
		name := fmt.Sprintf("crm.account_%02d", i)
		tools[name] = agent.Tool{
			Func: func(ctx context.Context, args *lisp.Map) (any, error) {
				calls.Add(1)
				id, _ := args.Get(lisp.Keyword("account_id"))
				return map[string]any{
					"id": id, "name": fmt.Sprintf("Account %02d", i), "revenue": 10 * i,
					"region": regions[i%3], "_notes": fmt.Sprintf("internal note %02d, do not share", i),
				}, nil
			},
			Signature: "(account_id :string, include_history :bool?) -> {id :string, name :string, revenue :int, region :string, _notes :string}",
			Description: fmt.Sprintf("Fetches an account from CRM shard %02d: its name, yearly revenue in kEUR and sales region. "+
				"Use include_history for the change log.", i),
		}
	}
	return tools
}

// sv50Program calls the 50 tools and aggregates their answers.
const sv50Program = `
(let [names (map #(format "crm.account_%02d" %) (range 50))
      rows (mapv #(call % {:account_id "acme"}) names)]
  {:calls (count rows)
   :revenue (sum-by :revenue rows)
   :top (:name (max-by :revenue rows))
   :by_region (update-vals (group-by :region rows) count)})`

const sv50Want = `{"output":"","value":{"by_region":{"amer":17,"apac":16,"emea":17},"calls":50,"revenue":12250,"top":"Account 49"}}`

func TestCodeMode50Calls(t *testing.T) {
	var calls atomic.Int64
	cs := svCodeMode(t, sv50Tools(&calls), mcp.CodeModeOptions{})
	res, raw := svRun(t, cs, sv50Program, nil)
	if res.IsError {
		t.Fatalf("error: %s", svText(res))
	}
	if got := svJSON(t, svStructured(t, res)); got != sv50Want {
		t.Errorf("result\n got %s\nwant %s", got, sv50Want)
	}
	if n := calls.Load(); n != 50 {
		t.Errorf("%d tool calls, want 50", n)
	}
	t.Logf("one MCP call, 50 tool calls, %d bytes of result", len(raw))
}

// svSurface is the JSON of tools/list, the tool surface a client's model
// is shown.
func svSurface(t testing.TB, s *mcp.Service) []byte {
	t.Helper()
	res, err := svConnect(t, s).ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	// Without HTML escaping: a model reads "->", not "-\u003e".
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(res.Tools); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSpace(buf.Bytes())
}

// TestToolSurfaceTokens compares the tokens (bytes/4) of the tool list a
// model reads for 50 tools served natively and through one code-mode tool.
func TestToolSurfaceTokens(t *testing.T) {
	var calls atomic.Int64
	tools := sv50Tools(&calls)
	native := mcp.NewService(mcp.ServiceOptions{})
	if err := native.AddTools(tools); err != nil {
		t.Fatal(err)
	}
	nativeBytes := len(svSurface(t, native))
	sizes := map[int]int{}
	for _, listed := range []int{10, 0, -1} {
		s := mcp.NewService(mcp.ServiceOptions{})
		if err := s.AddCodeMode(tools, mcp.CodeModeOptions{MaxListed: listed}); err != nil {
			t.Fatal(err)
		}
		sizes[listed] = len(svSurface(t, s))
	}
	t.Logf("native, 50 tools:           %6d bytes, ~%5d tokens", nativeBytes, nativeBytes/4)
	t.Logf("code mode, MaxListed 10:    %6d bytes, ~%5d tokens", sizes[10], sizes[10]/4)
	t.Logf("code mode, MaxListed 30:    %6d bytes, ~%5d tokens", sizes[0], sizes[0]/4)
	t.Logf("code mode, MaxListed -1:    %6d bytes, ~%5d tokens", sizes[-1], sizes[-1]/4)
	if sizes[10] >= nativeBytes {
		t.Errorf("code mode with 10 tools listed (%d bytes) is not smaller than 50 native tools (%d bytes)", sizes[10], nativeBytes)
	}
	if sizes[0] >= nativeBytes {
		t.Errorf("code mode listing 30 tools (%d bytes) is not smaller than 50 native tools (%d bytes)", sizes[0], nativeBytes)
	}
}

// BenchmarkCodeMode50Calls is one MCP round trip running a program that
// makes 50 tool calls and aggregates them.
func BenchmarkCodeMode50Calls(b *testing.B) {
	var calls atomic.Int64
	cs := svCodeMode(b, sv50Tools(&calls), mcp.CodeModeOptions{})
	args := map[string]any{"program": sv50Program}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		res, err := cs.CallTool(ctx, &mcpsdk.CallToolParams{Name: "run_program", Arguments: args})
		if err != nil || res.IsError {
			b.Fatalf("%v %v", err, res)
		}
	}
	b.ReportMetric(float64(calls.Load())/float64(b.N), "toolcalls/op")
}

// BenchmarkNative50Calls is the same work done by a client: 50 MCP round
// trips to tools served with AddTools, aggregated in Go.
func BenchmarkNative50Calls(b *testing.B) {
	var calls atomic.Int64
	s := mcp.NewService(mcp.ServiceOptions{})
	if err := s.AddTools(sv50Tools(&calls)); err != nil {
		b.Fatal(err)
	}
	cs := svConnect(b, s)
	ctx := context.Background()
	args := map[string]any{"account_id": "acme"}
	b.ReportAllocs()
	for b.Loop() {
		revenue := 0.0
		for i := range 50 {
			res, err := cs.CallTool(ctx, &mcpsdk.CallToolParams{Name: fmt.Sprintf("crm.account_%02d", i), Arguments: args})
			if err != nil || res.IsError {
				b.Fatalf("%v %v", err, res)
			}
			revenue += res.StructuredContent.(map[string]any)["revenue"].(float64)
		}
		if revenue != 12250 {
			b.Fatalf("revenue %v", revenue)
		}
	}
	b.ReportMetric(float64(calls.Load())/float64(b.N), "toolcalls/op")
}
