package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm/llmtest"
	"github.com/ptc-go/ptc/mcp"
)

// svConnect serves s over in-memory transports and returns a connected
// SDK client session; the session and the server end with the test.
func svConnect(t testing.TB, s *mcp.Service) *mcpsdk.ClientSession {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	st, ct := mcpsdk.NewInMemoryTransports()
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx, st) }()
	client := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "test-client", Version: "v0.0.1"}, nil)
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		cancel()
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() {
		_ = cs.Close()
		cancel()
		select {
		case <-done:
		case <-time.After(time.Minute):
			t.Error("Run did not return after the client left")
		}
	})
	return cs
}

// svTools lists the tools of a session by name.
func svTools(t testing.TB, cs *mcpsdk.ClientSession) map[string]*mcpsdk.Tool {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatalf("list tools: %v", err)
	}
	out := map[string]*mcpsdk.Tool{}
	for _, tool := range res.Tools {
		out[tool.Name] = tool
	}
	return out
}

// svCall calls a tool and returns its result and the result's JSON (the
// whole of what the client received).
func svCall(t testing.TB, cs *mcpsdk.ClientSession, name string, args any) (*mcpsdk.CallToolResult, string) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcpsdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("call %s: %v", name, err)
	}
	raw, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	return res, string(raw)
}

// svText is the text of a result's content.
func svText(res *mcpsdk.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcpsdk.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// svStructured decodes a result's structured content.
func svStructured(t testing.TB, res *mcpsdk.CallToolResult) map[string]any {
	t.Helper()
	raw, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("structured content %s: %v", raw, err)
	}
	return m
}

// svJSON is the JSON of v, for comparisons.
func svJSON(t testing.TB, v any) string {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}

// svSchema decodes a schema as the client received it.
func svSchema(t testing.TB, s any) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(svJSON(t, s)), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func svProps(s map[string]any) map[string]any {
	p, _ := s["properties"].(map[string]any)
	return p
}

// svUsersAgent is an agent with firewalled fields in and out.
func svUsersAgent(t testing.TB) *agent.Agent {
	t.Helper()
	a, err := agent.New(agent.Config{
		Prompt:      "Count the orders of {{user}}.",
		Signature:   "(user :string, _token :string?) -> {count :int, _ids [:int]}",
		Description: "Counts a user's orders.",
		FieldDescriptions: map[string]string{
			"user": "the user's login",
		},
		Tools: map[string]agent.Tool{"orders": {Func: func(ctx context.Context, args *lisp.Map) (any, error) {
			return []any{map[string]any{"id": 1}, map[string]any{"id": 2}}, nil
		}, Signature: "() -> [{id :int}]", Description: "Lists orders."}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func TestServiceListsSchemas(t *testing.T) {
	s := mcp.NewService(mcp.ServiceOptions{})
	script := llmtest.NewScript()
	if err := s.AddAgent("orders.count", svUsersAgent(t), agent.Options{LLM: script.Func()}); err != nil {
		t.Fatal(err)
	}
	err := s.AddTools(map[string]agent.Tool{
		"gh.search": {Func: func(ctx context.Context, args *lisp.Map) (any, error) { return nil, nil },
			Signature: "(query :string, limit :int?) -> [{id :int, title :string}]", Description: "Search issues."},
		"open": {Func: func(ctx context.Context, args *lisp.Map) (any, error) { return nil, nil }},
		"weather": agent.NewTool("Current weather.", func(ctx context.Context, q struct {
			City string `json:"city"`
		}) (struct {
			TempC float64 `json:"temp_c"`
		}, error) {
			return struct {
				TempC float64 `json:"temp_c"`
			}{21.5}, nil
		}),
	})
	if err != nil {
		t.Fatal(err)
	}
	cs := svConnect(t, s)
	if info := cs.InitializeResult().ServerInfo; info.Name != "ptc" || info.Version != "dev" {
		t.Errorf("server info %+v, want ptc dev", info)
	}
	tools := svTools(t, cs)
	if len(tools) != 4 {
		t.Fatalf("tools %v", tools)
	}

	ag := tools["orders.count"]
	if ag.Description != "Counts a user's orders." {
		t.Errorf("agent description %q", ag.Description)
	}
	in, out := svSchema(t, ag.InputSchema), svSchema(t, ag.OutputSchema)
	if p := svProps(in); p["user"] == nil || p["_token"] != nil {
		t.Errorf("agent input schema %v: want user, not _token", in)
	}
	if d := svProps(in)["user"].(map[string]any)["description"]; d != "the user's login" {
		t.Errorf("field description %v", d)
	}
	if p := svProps(out); out["type"] != "object" || p["count"] == nil || p["_ids"] != nil {
		t.Errorf("agent output schema %v: want count, not _ids", out)
	}

	gh := tools["gh.search"]
	in, out = svSchema(t, gh.InputSchema), svSchema(t, gh.OutputSchema)
	if gh.Description != "Search issues." || svProps(in)["query"] == nil || svJSON(t, in["required"]) != `["query"]` {
		t.Errorf("gh.search: %q %v", gh.Description, in)
	}
	// A list result is wrapped: MCP's structured content is an object.
	if res := svProps(out)["result"].(map[string]any); out["type"] != "object" || res["type"] != "array" {
		t.Errorf("gh.search output schema %v", out)
	}
	if in := svSchema(t, tools["open"].InputSchema); svJSON(t, in) != `{"type":"object"}` {
		t.Errorf("open input schema %v, want an open object", in)
	}
	if in := svSchema(t, tools["weather"].InputSchema); svProps(in)["city"] == nil {
		t.Errorf("weather input schema %v", in)
	}
}

func TestAddAgentSuccess(t *testing.T) {
	script := llmtest.NewScript(llmtest.Code(`(let [os (tool/orders)] (return {:count (count os) :_ids (pluck :id os)}))`))
	s := mcp.NewService(mcp.ServiceOptions{Name: "shop", Version: "1.2.3"})
	if err := s.AddAgent("count_orders", svUsersAgent(t), agent.Options{LLM: script.Func()}); err != nil {
		t.Fatal(err)
	}
	cs := svConnect(t, s)
	if info := cs.InitializeResult().ServerInfo; info.Name != "shop" || info.Version != "1.2.3" {
		t.Errorf("server info %+v", info)
	}
	res, raw := svCall(t, cs, "count_orders", map[string]any{"user": "ann"})
	if res.IsError {
		t.Fatalf("error: %s", svText(res))
	}
	if got := svJSON(t, svStructured(t, res)); got != `{"count":2}` {
		t.Errorf("structured content %s, want {\"count\":2}", got)
	}
	if svText(res) != `{"count":2}` {
		t.Errorf("text %q", svText(res))
	}
	if strings.Contains(raw, "_ids") {
		t.Errorf("the firewalled field reached the client: %s", raw)
	}
	// The mission ran with the call's arguments as its context.
	if got := script.Requests()[0].Messages; got[len(got)-1].Content != "Count the orders of ann." {
		t.Errorf("mission prompt %q", got[len(got)-1].Content)
	}
}

func TestAddAgentFailure(t *testing.T) {
	script := llmtest.NewScript(llmtest.Code(`(fail {:reason :not_found :message "no such user"})`))
	s := mcp.NewService(mcp.ServiceOptions{})
	if err := s.AddAgent("count_orders", svUsersAgent(t), agent.Options{LLM: script.Func()}); err != nil {
		t.Fatal(err)
	}
	cs := svConnect(t, s)
	res, _ := svCall(t, cs, "count_orders", map[string]any{"user": "bob"})
	if !res.IsError || !strings.Contains(svText(res), "not_found") || !strings.Contains(svText(res), "no such user") {
		t.Errorf("result %v %q, want an error with the reason and the message", res.IsError, svText(res))
	}
	// Input that breaks the signature is a tool error too, before any LLM call.
	res, _ = svCall(t, cs, "count_orders", map[string]any{"user": []int{1}})
	if !res.IsError || !strings.Contains(svText(res), "validation_error") {
		t.Errorf("bad input: %v %q", res.IsError, svText(res))
	}
	if script.Calls() != 1 {
		t.Errorf("%d LLM calls, want 1", script.Calls())
	}
}

func TestAddAgentNonObjectOutputIsWrapped(t *testing.T) {
	a := agent.MustNew(agent.Config{Prompt: "Pick numbers.", Signature: "() -> [:int]", Description: "Numbers.", MaxTurns: 1})
	script := llmtest.NewScript(llmtest.Code(`[1 2 3]`))
	s := mcp.NewService(mcp.ServiceOptions{})
	if err := s.AddAgent("numbers", a, agent.Options{LLM: script.Func()}); err != nil {
		t.Fatal(err)
	}
	cs := svConnect(t, s)
	if out := svSchema(t, svTools(t, cs)["numbers"].OutputSchema); svJSON(t, out["required"]) != `["result"]` {
		t.Errorf("output schema %v", out)
	}
	res, _ := svCall(t, cs, "numbers", nil)
	if got := svJSON(t, svStructured(t, res)); res.IsError || got != `{"result":[1,2,3]}` {
		t.Errorf("result %v %s", res.IsError, got)
	}
}

func TestAddAgentRefusals(t *testing.T) {
	script := llmtest.NewScript()
	undescribed := agent.MustNew(agent.Config{Prompt: "Do it."})
	plain := agent.MustNew(agent.Config{Prompt: "Do it.", Description: "x"})
	s := mcp.NewService(mcp.ServiceOptions{})
	for _, c := range []struct {
		name  string
		name2 string
		a     *agent.Agent
		opts  agent.Options
		want  string
	}{
		{"no description", "a", undescribed, agent.Options{LLM: script.Func()}, "description"},
		{"no model", "a", plain, agent.Options{}, "model"},
		{"nil agent", "a", nil, agent.Options{LLM: script.Func()}, "nil agent"},
		{"bad name", "a b", plain, agent.Options{LLM: script.Func()}, "MCP tool names"},
	} {
		if err := s.AddAgent(c.name2, c.a, c.opts); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one about %q", c.name, err, c.want)
		}
	}
	if err := s.AddAgent("a", plain, agent.Options{LLM: script.Func()}); err != nil {
		t.Fatal(err)
	}
	if err := s.AddAgent("a", plain, agent.Options{LLM: script.Func()}); err == nil || !strings.Contains(err.Error(), "already") {
		t.Errorf("duplicate name: %v", err)
	}
	if err := s.AddTools(map[string]agent.Tool{"a": {Func: func(ctx context.Context, args *lisp.Map) (any, error) { return nil, nil }}}); err == nil {
		t.Error("AddTools took a name AddAgent had")
	}
}

func TestAddTools(t *testing.T) {
	var calls atomic.Int32
	s := mcp.NewService(mcp.ServiceOptions{})
	err := s.AddTools(map[string]agent.Tool{
		"gh.search": {Func: func(ctx context.Context, args *lisp.Map) (any, error) {
			calls.Add(1)
			q, _ := args.Get(lisp.Keyword("query"))
			limit, _ := args.Get(lisp.Keyword("limit"))
			if q == "fail" {
				return nil, errors.New("the index is down")
			}
			if q == "panic" {
				panic("boom")
			}
			return map[string]any{"query": q, "limit": limit, "_cursor": "cursor-secret-123"}, nil
		}, Signature: "(query :string, limit :int?) -> {query :string, limit :int?, _cursor :string}", Description: "Search."},
		"count": {Func: func(ctx context.Context, args *lisp.Map) (any, error) { return 7, nil }},
	})
	if err != nil {
		t.Fatal(err)
	}
	cs := svConnect(t, s)

	// Arguments are coerced against the signature ("5" to 5).
	res, raw := svCall(t, cs, "gh.search", map[string]any{"query": "mcp", "limit": "5"})
	if got := svJSON(t, svStructured(t, res)); res.IsError || got != `{"limit":5,"query":"mcp"}` {
		t.Errorf("result %v %s", res.IsError, got)
	}
	if strings.Contains(raw, "cursor") {
		t.Errorf("firewalled field reached the client: %s", raw)
	}
	res, _ = svCall(t, cs, "gh.search", map[string]any{"query": "fail"})
	if txt := svText(res); !res.IsError || txt != "tool_error: tool gh.search failed: the index is down" {
		t.Errorf("tool error: %v %q", res.IsError, txt)
	}
	res, _ = svCall(t, cs, "gh.search", map[string]any{"query": "panic"})
	if txt := svText(res); !res.IsError || !strings.Contains(txt, "boom") {
		t.Errorf("panic: %v %q", res.IsError, txt)
	}
	res, _ = svCall(t, cs, "gh.search", map[string]any{"limit": "many"})
	if txt := svText(res); !res.IsError || !strings.Contains(txt, "query") || !strings.Contains(txt, "limit") {
		t.Errorf("validation: %v %q", res.IsError, txt)
	}
	res, _ = svCall(t, cs, "count", nil)
	if got := svJSON(t, svStructured(t, res)); res.IsError || got != `{"result":7}` {
		t.Errorf("count: %v %s", res.IsError, got)
	}
	if n := calls.Load(); n != 3 {
		t.Errorf("gh.search ran %d times, want 3 (not for invalid arguments)", n)
	}
}

func TestAddToolsAllOrNothing(t *testing.T) {
	ok := agent.Tool{Func: func(ctx context.Context, args *lisp.Map) (any, error) { return 1, nil }}
	s := mcp.NewService(mcp.ServiceOptions{})
	for _, tools := range []map[string]agent.Tool{
		{"a": ok, "b": {}}, // no Func
		{"a": ok, "c": {Func: ok.Func, Signature: "(x :nope) -> :int"}}, // bad signature
		{"a": ok, "d?": ok}, // a PTC-Lisp name, not an MCP one
	} {
		if err := s.AddTools(tools); err == nil {
			t.Errorf("AddTools(%v) succeeded", tools)
		}
	}
	if err := s.AddTools(map[string]agent.Tool{"a": ok}); err != nil {
		t.Errorf("a was taken by a failed AddTools: %v", err)
	}
}

func TestServiceStreamableHTTP(t *testing.T) {
	s := mcp.NewService(mcp.ServiceOptions{})
	err := s.AddCodeMode(map[string]agent.Tool{
		"math.add": {Func: func(ctx context.Context, args *lisp.Map) (any, error) {
			a, _ := args.Get(lisp.Keyword("a"))
			b, _ := args.Get(lisp.Keyword("b"))
			return a.(int64) + b.(int64), nil
		}, Signature: "(a :int, b :int) -> :int", Description: "Adds."},
	}, mcp.CodeModeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	client := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "http-client", Version: "v0"}, nil)
	ctx := context.Background()
	cs, err := client.Connect(ctx, &mcpsdk.StreamableClientTransport{Endpoint: srv.URL}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cs.Close() }()
	if tools := svTools(t, cs); tools["run_program"] == nil {
		t.Fatalf("tools %v", tools)
	}
	res, _ := svCall(t, cs, "run_program", map[string]any{
		"program": `(tool/math.add {:a ctx/x :b 2})`,
		"context": map[string]any{"x": 40},
	})
	if got := svJSON(t, svStructured(t, res)); res.IsError || got != `{"output":"","value":42}` {
		t.Errorf("result %v %s %s", res.IsError, got, svText(res))
	}
}

func TestRunEndsWhenClientLeaves(t *testing.T) {
	s := mcp.NewService(mcp.ServiceOptions{})
	st, ct := mcpsdk.NewInMemoryTransports()
	done := make(chan error, 1)
	go func() { done <- s.Run(context.Background(), st) }()
	cs, err := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "c", Version: "v0"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	_ = cs.Close()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("Run did not return after the client closed the connection")
	}
	if err := s.Run(context.Background(), nil); err == nil {
		t.Error("Run with a nil transport succeeded")
	}
}

func TestAddToolsAgentTool(t *testing.T) {
	script := llmtest.NewScript(llmtest.Code(`(str "hello " ctx/name)`), llmtest.Code(`(fail {:reason :rude :message "no"})`))
	greeter := agent.MustNew(agent.Config{Prompt: "Greet {{name}}.", Signature: "(name :string) -> :string",
		Description: "Greets.", MaxTurns: 1})
	tool, err := greeter.AsTool(agent.AsToolOptions{LLM: script.Func()})
	if err != nil {
		t.Fatal(err)
	}
	s := mcp.NewService(mcp.ServiceOptions{})
	if err := s.AddTools(map[string]agent.Tool{"greet": tool}); err != nil {
		t.Fatal(err)
	}
	cs := svConnect(t, s)
	res, _ := svCall(t, cs, "greet", map[string]any{"name": "ann"})
	if got := svJSON(t, svStructured(t, res)); res.IsError || got != `{"result":"hello ann"}` {
		t.Errorf("result %v %s %s", res.IsError, got, svText(res))
	}
	res, _ = svCall(t, cs, "greet", map[string]any{"name": "bob"})
	if txt := svText(res); !res.IsError || !strings.Contains(txt, "rude") {
		t.Errorf("failure %v %q", res.IsError, txt)
	}
}
