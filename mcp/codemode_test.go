package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/mcp"
)

// svCodeMode serves tools in code mode and connects a client.
func svCodeMode(t testing.TB, tools map[string]agent.Tool, opts mcp.CodeModeOptions) *mcpsdk.ClientSession {
	t.Helper()
	s := mcp.NewService(mcp.ServiceOptions{})
	if err := s.AddCodeMode(tools, opts); err != nil {
		t.Fatal(err)
	}
	return svConnect(t, s)
}

// svRun runs a program through the code-mode tool run_program.
func svRun(t testing.TB, cs *mcpsdk.ClientSession, program string, context map[string]any) (*mcpsdk.CallToolResult, string) {
	t.Helper()
	args := map[string]any{"program": program}
	if context != nil {
		args["context"] = context
	}
	return svCall(t, cs, "run_program", args)
}

// svShopTools are tools with dotted names, as an MCP upstream's are.
func svShopTools() map[string]agent.Tool {
	return map[string]agent.Tool{
		"shop.orders": {Func: func(ctx context.Context, args *lisp.Map) (any, error) {
			user, _ := args.Get(lisp.Keyword("user"))
			return []any{
				map[string]any{"id": 1, "user": user, "total": 30, "status": "paid"},
				map[string]any{"id": 2, "user": user, "total": 12.5, "status": "open"},
				map[string]any{"id": 3, "user": user, "total": 70, "status": "paid"},
			}, nil
		}, Signature: "(user :string) -> [{id :int, user :string, total :float, status :string}]", Description: "A user's orders."},
		"shop.refund": {Func: func(ctx context.Context, args *lisp.Map) (any, error) {
			id, _ := args.Get(lisp.Keyword("id"))
			return map[string]any{"id": id, "refunded": true}, nil
		}, Signature: "(id :int) -> {id :int, refunded :bool}", Description: "Refunds an order."},
	}
}

func TestCodeModeRunsProgram(t *testing.T) {
	cs := svCodeMode(t, svShopTools(), mcp.CodeModeOptions{})
	res, _ := svRun(t, cs, `
(let [paid (filter (where :status = "paid") (tool/shop.orders {:user ctx/user}))
      refunds (mapv #(tool/shop.refund {:id (:id %)}) paid)]
  (println "refunded" (count refunds) "orders")
  {:ids (pluck :id refunds) :total (sum-by :total paid)})`, map[string]any{"user": "ann"})
	if res.IsError {
		t.Fatalf("error: %s", svText(res))
	}
	got := svJSON(t, svStructured(t, res))
	if want := `{"output":"refunded 2 orders","value":{"ids":[1,3],"total":100}}`; got != want {
		t.Errorf("structured content\n got %s\nwant %s", got, want)
	}
	if svText(res) != got {
		t.Errorf("text %q, want the structured content's JSON", svText(res))
	}
}

func TestCodeModeSyntaxError(t *testing.T) {
	cs := svCodeMode(t, svShopTools(), mcp.CodeModeOptions{})
	res, _ := svRun(t, cs, "(let [x 1]\n  (+ x 2)", nil)
	txt := svText(res)
	t.Logf("%s", txt)
	if !res.IsError || !strings.Contains(txt, "parse_error") || !regexp.MustCompile(`\b2:\d+`).MatchString(txt) {
		t.Errorf("syntax error: %v %q, want parse_error with a line:column", res.IsError, txt)
	}
	res, _ = svCall(t, cs, "run_program", map[string]any{"context": map[string]any{}})
	if !res.IsError || !strings.Contains(svText(res), "program") {
		t.Errorf("missing program: %v %q", res.IsError, svText(res))
	}
	res, _ = svRun(t, cs, "1", nil)
	if res.IsError {
		t.Errorf("a program without context: %q", svText(res))
	}
	res, _ = svCall(t, cs, "run_program", map[string]any{"program": "1", "context": []int{1}})
	if !res.IsError || !strings.Contains(svText(res), "context") {
		t.Errorf("a list as context: %v %q", res.IsError, svText(res))
	}
}

func TestCodeModeUndefinedName(t *testing.T) {
	cs := svCodeMode(t, svShopTools(), mcp.CodeModeOptions{})
	res, _ := svRun(t, cs, "(let [x 1]\n  (+ x totl))", nil)
	txt := svText(res)
	t.Logf("%s", txt)
	if !res.IsError || !strings.Contains(txt, "2:8: unbound_var: totl is not defined") || !strings.Contains(txt, "ctx/name") {
		t.Errorf("undefined name: %v %q", res.IsError, txt)
	}
}

func TestCodeModeRuntimeError(t *testing.T) {
	cs := svCodeMode(t, svShopTools(), mcp.CodeModeOptions{})
	res, _ := svRun(t, cs, "(println \"start\")\n(+ 1 (tool/shop.refund {:id \"x\"}))", nil)
	txt := svText(res)
	t.Logf("%s", txt)
	if !res.IsError || !strings.Contains(txt, "tool_error") || !strings.Contains(txt, "2:") || !strings.Contains(txt, "start") {
		t.Errorf("tool error: %v %q, want tool_error at line 2 and the output", res.IsError, txt)
	}
	res, _ = svRun(t, cs, "(let [n 1]\n  (+ n \"a\"))", nil)
	txt = svText(res)
	t.Logf("%s", txt)
	if !res.IsError || !strings.Contains(txt, "type_error") || !strings.Contains(txt, "2:") {
		t.Errorf("type error: %v %q", res.IsError, txt)
	}
	res, _ = svRun(t, cs, `(fail {:reason :no_data :message "nothing to refund"})`, nil)
	if txt := svText(res); !res.IsError || !strings.Contains(txt, "no_data") || !strings.Contains(txt, "nothing to refund") {
		t.Errorf("fail: %v %q", res.IsError, txt)
	}
	res, _ = svRun(t, cs, `(tool/shop.nope {})`, nil)
	if txt := svText(res); !res.IsError || !strings.Contains(txt, "unknown_tool") {
		t.Errorf("unknown tool: %v %q", res.IsError, txt)
	}
}

func TestCodeModeLimits(t *testing.T) {
	var calls atomic.Int32
	tools := map[string]agent.Tool{"tick": agent.Tool{Func: func(ctx context.Context, args *lisp.Map) (any, error) {
		calls.Add(1)
		return 1, nil
	}}}
	cs := svCodeMode(t, tools, mcp.CodeModeOptions{Limits: lisp.Limits{MaxSteps: 10_000, MaxToolCalls: 3}})
	res, _ := svRun(t, cs, `(reduce + (map inc (range 100000)))`, nil)
	if txt := svText(res); !res.IsError || !strings.Contains(txt, "step_limit_exceeded") {
		t.Errorf("steps: %v %q", res.IsError, txt)
	}
	res, _ = svRun(t, cs, `(mapv (fn [_] (tool/tick {})) (range 5))`, nil)
	if txt := svText(res); !res.IsError || !strings.Contains(txt, "tool_limit_exceeded") {
		t.Errorf("tool calls: %v %q", res.IsError, txt)
	}
	if n := calls.Load(); n != 3 {
		t.Errorf("%d tool calls ran, want 3", n)
	}
}

func TestCodeModeFirewall(t *testing.T) {
	var used atomic.Value
	tools := map[string]agent.Tool{
		"auth.login": {Func: func(ctx context.Context, args *lisp.Map) (any, error) {
			return map[string]any{"user": "ann", "_secret": "s3cr3t", "_api_key": "key-0123456789abcdef"}, nil
		}, Signature: "() -> {user :string, _secret :string, _api_key :string}", Description: "Logs in."},
		"auth.use": {Func: func(ctx context.Context, args *lisp.Map) (any, error) {
			tok, _ := args.Get(lisp.Keyword("token"))
			used.Store(tok)
			return map[string]any{"ok": tok == "s3cr3t"}, nil
		}, Signature: "(token :string) -> {ok :bool}", Description: "Uses a token."},
	}
	cs := svCodeMode(t, tools, mcp.CodeModeOptions{})
	res, raw := svRun(t, cs, `
(let [a (tool/auth.login {})]
  (println a)
  (println "key" (:_api_key a))
  (println (str "key=" (:_api_key a)))
  {:login a :use (tool/auth.use {:token (:_secret a)}) :copy (str "k:" (:_api_key a))})`, nil)
	t.Logf("%s", raw)
	if res.IsError {
		t.Fatalf("error: %s", svText(res))
	}
	if used.Load() != "s3cr3t" {
		t.Errorf("the program could not use the secret: the tool got %v", used.Load())
	}
	// Short firewalled strings are hidden where they stand, but not scrubbed
	// out of texts a program builds, as the agent's firewall documents:
	// this program does not print the 6-byte secret itself.
	for _, secret := range []string{"s3cr3t", "0123456789abcdef"} {
		if strings.Contains(raw, secret) {
			t.Errorf("%q reached the MCP client: %s", secret, raw)
		}
	}
	v := svStructured(t, res)["value"].(map[string]any)
	if svJSON(t, v["login"]) != `{"user":"ann"}` || svJSON(t, v["use"]) != `{"ok":true}` {
		t.Errorf("value %v", v)
	}
	// A failing program's message is scrubbed too.
	res, raw = svRun(t, cs, `(let [a (tool/auth.login {})] (fail (str "bad key " (:_api_key a))))`, nil)
	if !res.IsError || strings.Contains(raw, "0123456789abcdef") {
		t.Errorf("failure: %v %s", res.IsError, raw)
	}
}

func TestCodeModeCancellation(t *testing.T) {
	started := make(chan struct{})
	sawCancel := make(chan error, 1)
	tools := map[string]agent.Tool{"slow.wait": agent.Tool{Func: func(ctx context.Context, args *lisp.Map) (any, error) {
		close(started)
		select {
		case <-ctx.Done():
			sawCancel <- ctx.Err()
			return nil, ctx.Err()
		case <-time.After(2 * time.Minute):
			sawCancel <- nil
			return "too late", nil
		}
	}}}
	s := mcp.NewService(mcp.ServiceOptions{})
	if err := s.AddCodeMode(tools, mcp.CodeModeOptions{Limits: lisp.Limits{Timeout: 5 * time.Minute}}); err != nil {
		t.Fatal(err)
	}
	handlerDone := make(chan struct{}, 1)
	s.SDK().AddReceivingMiddleware(func(next mcpsdk.MethodHandler) mcpsdk.MethodHandler {
		return func(ctx context.Context, method string, req mcpsdk.Request) (mcpsdk.Result, error) {
			res, err := next(ctx, method, req)
			if method == "tools/call" {
				handlerDone <- struct{}{}
			}
			return res, err
		}
	})
	cs := svConnect(t, s)
	ctx, cancel := context.WithCancel(context.Background())
	callErr := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, &mcpsdk.CallToolParams{Name: "run_program",
			Arguments: map[string]any{"program": `(tool/slow.wait {})`}})
		callErr <- err
	}()
	select {
	case <-started:
	case <-time.After(time.Minute):
		t.Fatal("the tool never started")
	}
	cancel()
	select {
	case err := <-callErr:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("the client's call ended with %v, want context.Canceled", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the client's call did not end")
	}
	select {
	case err := <-sawCancel:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("the tool's context ended with %v, want context.Canceled", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the tool's context was not cancelled")
	}
	select {
	case <-handlerDone:
	case <-time.After(time.Minute):
		t.Fatal("the handler did not return")
	}
}

func TestCodeModeDescription(t *testing.T) {
	noop := func(ctx context.Context, args *lisp.Map) (any, error) { return nil, nil }
	tools := map[string]agent.Tool{}
	for i := range 5 {
		tools[fmt.Sprintf("svc.t%d", i)] = agent.Tool{Func: noop, Signature: "(id :int) -> {name :string, _raw :map}",
			Description: fmt.Sprintf("Tool number %d.\n\nDetails nobody needs.", i)}
	}
	describe := func(tools map[string]agent.Tool, opts mcp.CodeModeOptions) string {
		s := mcp.NewService(mcp.ServiceOptions{})
		if err := s.AddCodeMode(tools, opts); err != nil {
			t.Fatal(err)
		}
		name := opts.Name
		if name == "" {
			name = "run_program"
		}
		return svTools(t, svConnect(t, s))[name].Description
	}
	all := describe(tools, mcp.CodeModeOptions{Name: "code"})
	t.Logf("%s", all)
	for _, want := range []string{"PTC-Lisp", "(tool/name {:arg 1})", "- tool/svc.t0 (id :int) -> {name :string}: Tool number 0.", "- tool/svc.t4 "} {
		if !strings.Contains(all, want) {
			t.Errorf("description lacks %q", want)
		}
	}
	if strings.Contains(all, "_raw") || strings.Contains(all, "Details") || strings.Contains(all, "more tool") {
		t.Errorf("description: firewalled field, second paragraph or a count of more tools:\n%s", all)
	}

	few := describe(tools, mcp.CodeModeOptions{MaxListed: 2})
	if strings.Count(few, "\n- tool/") != 2 || !strings.Contains(few, "3 more tools are not listed") || !strings.Contains(few, "unknown_tool") {
		t.Errorf("MaxListed 2:\n%s", few)
	}
	tools["mcp.search"] = agent.Tool{Func: noop, Signature: "(query :string) -> [{name :string}]", Description: "Finds tools."}
	search := describe(tools, mcp.CodeModeOptions{MaxListed: 2, Description: "Query the shop."})
	if !strings.HasPrefix(search, "Query the shop.\n") || !strings.Contains(search, "Tools:\n- tool/mcp.search (query :string)") ||
		!strings.Contains(search, "4 more tools are not listed here: find them with tool/mcp.search") {
		t.Errorf("MaxListed 2 with mcp.search:\n%s", search)
	}
	if d := describe(tools, mcp.CodeModeOptions{MaxListed: -1}); strings.Count(d, "\n- tool/") != 6 {
		t.Errorf("MaxListed -1 lists %d tools, want 6", strings.Count(d, "\n- tool/"))
	}
	if d := describe(nil, mcp.CodeModeOptions{}); !strings.Contains(d, "No tools") {
		t.Errorf("no tools:\n%s", d)
	}
}

func TestCodeModeRefusals(t *testing.T) {
	s := mcp.NewService(mcp.ServiceOptions{})
	if err := s.AddCodeMode(map[string]agent.Tool{"x": {}}, mcp.CodeModeOptions{}); err == nil {
		t.Error("a tool without Func was accepted")
	}
	sub := agent.MustNew(agent.Config{Prompt: "Sub.", Description: "A sub-agent."})
	subTool, err := sub.AsTool(agent.AsToolOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.AddCodeMode(map[string]agent.Tool{"sub": subTool}, mcp.CodeModeOptions{}); !errors.Is(err, agent.ReasonNotCompilable) {
		t.Errorf("an agent tool: %v, want ReasonNotCompilable", err)
	}
	if err := s.AddCodeMode(nil, mcp.CodeModeOptions{Name: "bad name"}); err == nil {
		t.Error("a bad name was accepted")
	}
	if err := s.AddCodeMode(nil, mcp.CodeModeOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := s.AddCodeMode(nil, mcp.CodeModeOptions{}); err == nil {
		t.Error("a second run_program was accepted")
	}
}

// TestCodeModeCheatSheetRuns runs every parenthesized form of the code-mode
// description's cheat-sheet, so that it never teaches a form that fails.
func TestCodeModeCheatSheetRuns(t *testing.T) {
	tools := map[string]agent.Tool{"name": agent.Tool{Func: func(ctx context.Context, args *lisp.Map) (any, error) {
		return map[string]any{"ok": true}, nil
	}}}
	s := mcp.NewService(mcp.ServiceOptions{})
	if err := s.AddCodeMode(tools, mcp.CodeModeOptions{}); err != nil {
		t.Fatal(err)
	}
	cs := svConnect(t, s)
	desc := svTools(t, cs)["run_program"].Description
	start := strings.Index(desc, "PTC-Lisp:")
	end := strings.Index(desc, "\n\nTools:")
	if start < 0 || end < start {
		t.Fatalf("no cheat-sheet in\n%s", desc)
	}
	forms := svForms(desc[start:end])
	if len(forms) < 25 {
		t.Fatalf("found %d forms: %q", len(forms), forms)
	}
	// The names the examples use as placeholders.
	const env = `(let [ids [1 2] rows [{:id 1 :n 2 :state "open"}] r {:user {:name "a"}} row {:id 1} v 1 x 2] %s)`
	for _, f := range forms {
		res, _ := svRun(t, cs, fmt.Sprintf(env, f), nil)
		if txt := svText(res); res.IsError && !strings.Contains(f, "(fail ") {
			t.Errorf("%s: %s", f, txt)
		}
	}
}

// svForms returns the balanced parenthesized forms of text, outermost
// only, outside string literals.
func svForms(text string) []string {
	var forms []string
	depth, start, inStr := 0, 0, false
	for i := 0; i < len(text); i++ {
		switch c := text[i]; {
		case inStr && c == '\\':
			i++
		case c == '"' && depth > 0:
			inStr = !inStr
		case inStr:
		case c == '(':
			if depth == 0 {
				start = i
				if i > 0 && text[i-1] == '#' {
					start-- // #(...)
				}
			}
			depth++
		case c == ')' && depth > 0:
			depth--
			if depth == 0 {
				forms = append(forms, text[start:i+1])
			}
		}
	}
	return forms
}

func TestCodeModeValueJSON(t *testing.T) {
	cs := svCodeMode(t, nil, mcp.CodeModeOptions{})
	for program, want := range map[string]string{
		`nil`:                                `{"output":"","value":null}`,
		`[1 "a" :k 2.5 true]`:                `{"output":"","value":[1,"a","k",2.5,true]}`,
		`{:a {:_b 1 :c #{3}}}`:               `{"output":"","value":{"a":{"c":[3]}}}`,
		`(do (println "x") (println "y") 1)`: `{"output":"x\ny","value":1}`,
		`(return 5) 6`:                       `{"output":"","value":5}`,
		`ctx/items`:                          `{"output":"","value":[{"id":1}]}`,
	} {
		res, _ := svRun(t, cs, program, map[string]any{"items": []any{map[string]any{"id": 1, "_x": 2}}})
		var got map[string]any
		raw, _ := json.Marshal(res.StructuredContent)
		_ = json.Unmarshal(raw, &got)
		if res.IsError || svJSON(t, got) != want {
			t.Errorf("%s: %v %s, want %s", program, res.IsError, svJSON(t, got), want)
		}
	}
}
