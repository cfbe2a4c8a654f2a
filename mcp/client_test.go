package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/mcp"
	"github.com/ptc-go/ptc/mcp/internal/upstream"
	"github.com/ptc-go/ptc/signature"
)

// patience bounds the waits for something that must happen; it is long,
// since only a broken implementation ever waits it out.
const patience = time.Minute

// connectUp connects to an in-memory upstream named "up"; srv may set
// everything but Name and Transport.
func connectUp(t *testing.T, opts upstream.Options, crashable bool, srv mcp.Server) (*mcp.Toolset, *mcpsdk.ServerSession) {
	t.Helper()
	ctx := context.Background()
	clientT, ss, err := upstream.InMemory(ctx, opts, crashable)
	if err != nil {
		t.Fatal(err)
	}
	srv.Name, srv.Transport = "up", clientT
	ts, err := mcp.Connect(ctx, srv)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = ts.Close()
		_ = ss.Close()
	})
	return ts, ss
}

// call calls a tool of ts directly, args a Go map.
func call(t *testing.T, ts *mcp.Toolset, name string, args map[string]any) (lisp.Value, error) {
	t.Helper()
	return callCtx(context.Background(), t, ts, name, args)
}

func callCtx(ctx context.Context, t *testing.T, ts *mcp.Toolset, name string, args map[string]any) (lisp.Value, error) {
	t.Helper()
	tool, ok := ts.Tools(-1)[name]
	if !ok {
		t.Fatalf("no tool %s", name)
	}
	m := lisp.NewMap()
	if args != nil {
		m = mustFromGo(t, args).(*lisp.Map)
	}
	v, err := tool.Func(ctx, m)
	if err != nil {
		return nil, err
	}
	return mustFromGo(t, v), nil
}

func asError(t *testing.T, err error, kind mcp.Kind) *mcp.Error {
	t.Helper()
	var me *mcp.Error
	if !errors.As(err, &me) {
		t.Fatalf("error %v (%T) is not an *mcp.Error", err, err)
	}
	if me.Kind != kind {
		t.Fatalf("error %q has kind %s, want %s", err, me.Kind, kind)
	}
	// The Kind is an error value for errors.Is, through every wrapping,
	// and no other kind matches.
	if !errors.Is(err, kind) || errors.Is(err, mcp.Kind("no_such_kind")) {
		t.Fatalf("errors.Is(%v, mcp.%s) is false, or another kind matches", err, kind)
	}
	return me
}

func info(t *testing.T, ts *mcp.Toolset, name string) mcp.ToolInfo {
	t.Helper()
	for _, in := range ts.Infos() {
		if in.Name == name {
			return in
		}
	}
	t.Fatalf("no tool %s", name)
	return mcp.ToolInfo{}
}

func TestConnectListsEveryPage(t *testing.T) {
	ts, _ := connectUp(t, upstream.Options{Tools: 25, PageSize: 3}, false, mcp.Server{})
	infos := ts.Infos()
	if len(infos) != 11+25 {
		t.Fatalf("%d tools, want 36", len(infos))
	}
	for i := 1; i < len(infos); i++ {
		if infos[i-1].Name >= infos[i].Name {
			t.Errorf("not sorted: %s, %s", infos[i-1].Name, infos[i].Name)
		}
	}
	last := info(t, ts, "up.tool_024")
	if last.Server != "up" || last.Tool != "tool_024" || !strings.HasPrefix(last.Description, "Looks up ticket record 24.") {
		t.Errorf("info %+v", last)
	}
	if len(ts.Tools(-1)) != 36 {
		t.Errorf("Tools: want 36")
	}
}

func TestSignaturesAndNotes(t *testing.T) {
	ts, _ := connectUp(t, upstream.Options{}, false, mcp.Server{
		Firewall: map[string][]string{"secret": {"/items/*/token"}},
	})
	for name, want := range map[string]string{
		"up.add":       "(a :int, b :int) -> {sum :int}",
		"up.echo":      "(text :string, n :int?) -> :any",
		"up.text_json": "() -> :any",
		"up.secret":    "() -> {items [{id :int, _token :string}]}",
	} {
		in := info(t, ts, name)
		if in.Signature != want {
			t.Errorf("%s: signature %q, want %q", name, in.Signature, want)
		}
		if _, err := signature.Parse(in.Signature); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	echo := info(t, ts, "up.echo")
	if len(echo.Notes) != 1 || echo.Notes[0] != "text: what to echo" {
		t.Errorf("notes %q", echo.Notes)
	}
	if echo.Description != "Returns its arguments.\n- text: what to echo" {
		t.Errorf("description %q", echo.Description)
	}
	if !strings.Contains(string(echo.InputSchema), `"required":["text"]`) || echo.OutputSchema != nil {
		t.Errorf("schemas %s %s", echo.InputSchema, echo.OutputSchema)
	}
}

func TestToolsFilter(t *testing.T) {
	ts, _ := connectUp(t, upstream.Options{Tools: 5}, false, mcp.Server{Tools: []string{"add", "tool_003"}})
	var names []string
	for _, in := range ts.Infos() {
		names = append(names, in.Name)
	}
	if strings.Join(names, " ") != "up.add up.tool_003" {
		t.Errorf("tools %v", names)
	}

	clientT, ss, err := upstream.InMemory(context.Background(), upstream.Options{}, false)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	_, err = mcp.Connect(context.Background(), mcp.Server{Name: "up", Transport: clientT, Tools: []string{"add", "nope"}})
	me := asError(t, err, mcp.KindList)
	if me.Server != "up" || !strings.Contains(err.Error(), "no tool nope") {
		t.Errorf("error %v", err)
	}
	waitClosed(t, ss) // Connect closed the session it opened
}

// waitClosed waits for the server to see its session end.
func waitClosed(t *testing.T, ss *mcpsdk.ServerSession) {
	t.Helper()
	done := make(chan struct{})
	go func() { _ = ss.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(patience):
		t.Fatal("the session was not closed")
	}
}

func TestCallResults(t *testing.T) {
	ts, _ := connectUp(t, upstream.Options{}, false, mcp.Server{})
	for _, tc := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"up.add", map[string]any{"a": 1, "b": 2}, `{"sum" 3}`},
		// keywords become strings; nil optional arguments are left out
		{"up.echo", map[string]any{"text": lisp.Keyword("hi"), "tags": []any{lisp.Keyword("a"), "b"}, "n": nil},
			`{"tags" ["a" "b"], "text" "hi"}`},
		{"up.text_json", nil, `{"items" [{"id" 1, "name" "one"} {"id" 2, "name" "two"}], "ratio" 0.5, "total" 2}`},
		{"up.text_plain", nil, `"hello, world"`},
		{"up.media", nil, `[{"bytes" 21, "mime_type" "image/png", "type" "image"} {"text" "a caption", "type" "text"} ` +
			`{"mime_type" "text/plain", "name" "r.txt", "size" 42, "type" "resource_link", "uri" "file:///r.txt"}]`},
	} {
		v, err := call(t, ts, tc.tool, tc.args)
		if err != nil {
			t.Errorf("%s: %v", tc.tool, err)
			continue
		}
		if got := lisp.Print(v, lisp.PrintOptions{}); got != tc.want {
			t.Errorf("%s: got %s, want %s", tc.tool, got, tc.want)
		}
	}
}

func TestToolErrorIsError(t *testing.T) {
	ts, _ := connectUp(t, upstream.Options{}, false, mcp.Server{})
	_, err := call(t, ts, "up.fail", nil)
	me := asError(t, err, mcp.KindTool)
	if err.Error() != "boom: bad input" || me.Server != "up" || me.Tool != "fail" {
		t.Errorf("error %q %+v", err, me)
	}
	// A protocol error names the server and the tool.
	_, err = call(t, ts, "up.broken", nil)
	me = asError(t, err, mcp.KindProtocol)
	if me.Tool != "broken" || !strings.HasPrefix(err.Error(), "mcp server up: the call of broken failed: ") || !strings.Contains(err.Error(), "internal failure") {
		t.Errorf("error %q", err)
	}
}

func TestCancellationReachesServer(t *testing.T) {
	started := make(chan struct{}, 1)
	cancelled := make(chan error, 1)
	ts, _ := connectUp(t, upstream.Options{
		Started:   func() { started <- struct{}{} },
		Cancelled: func(err error) { cancelled <- err },
	}, false, mcp.Server{})
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := callCtx(ctx, t, ts, "up.slow", nil)
		errc <- err
	}()
	select {
	case <-started:
	case <-time.After(patience):
		t.Fatal("slow did not start")
	}
	cancel()
	select {
	case err := <-errc:
		me := asError(t, err, mcp.KindCancelled)
		if !errors.Is(err, context.Canceled) || me.Tool != "slow" {
			t.Errorf("error %v", err)
		}
	case <-time.After(patience):
		t.Fatal("the call did not return")
	}
	select {
	case err := <-cancelled:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("the server's context ended with %v", err)
		}
	case <-time.After(patience):
		t.Fatal("the server never saw the cancellation")
	}
	// The session still works.
	if v, err := call(t, ts, "up.add", map[string]any{"a": 2, "b": 2}); err != nil || lisp.Print(v, lisp.PrintOptions{}) != `{"sum" 4}` {
		t.Errorf("after cancellation: %v %v", v, err)
	}
}

func TestCallTimeout(t *testing.T) {
	cancelled := make(chan error, 1)
	ts, _ := connectUp(t, upstream.Options{Cancelled: func(err error) { cancelled <- err }}, false,
		mcp.Server{CallTimeout: 50 * time.Millisecond})
	_, err := call(t, ts, "up.slow", nil)
	me := asError(t, err, mcp.KindTimeout)
	if !strings.Contains(err.Error(), "mcp server up: slow timed out after 50ms") || me.Tool != "slow" {
		t.Errorf("error %v", err)
	}
	select {
	case <-cancelled:
	case <-time.After(patience):
		t.Fatal("the server never saw the cancellation")
	}
}

func TestCrashInMemory(t *testing.T) {
	ts, _ := connectUp(t, upstream.Options{}, true, mcp.Server{})
	_, err := call(t, ts, "up.crash", nil)
	asError(t, err, mcp.KindClosed)
	if !strings.HasPrefix(err.Error(), "mcp server up: connection closed") {
		t.Errorf("error %q", err)
	}
	// Later calls fail fast, with the same kind of error.
	_, err = call(t, ts, "up.add", map[string]any{"a": 1, "b": 2})
	asError(t, err, mcp.KindClosed)
	if !strings.HasPrefix(err.Error(), "mcp server up: connection closed") {
		t.Errorf("error %q", err)
	}
}

func TestFirewallRenamesFields(t *testing.T) {
	ts, _ := connectUp(t, upstream.Options{}, false, mcp.Server{
		Firewall: map[string][]string{"secret": {"/items/*/token"}, "text_json": {"/items/0/name", "/total"}},
	})
	v, err := call(t, ts, "up.secret", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := lisp.Print(v, lisp.PrintOptions{}); got != `{"items" [{"_token" "s3cr3t", "id" 1}]}` {
		t.Errorf("secret: %s", got)
	}
	v, err = call(t, ts, "up.text_json", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := lisp.Print(v, lisp.PrintOptions{}); got != `{"_total" 2, "items" [{"_name" "one", "id" 1} {"id" 2, "name" "two"}], "ratio" 0.5}` {
		t.Errorf("text_json: %s", got)
	}
}

func TestCloseThenCall(t *testing.T) {
	ts, ss := connectUp(t, upstream.Options{}, false, mcp.Server{})
	tools := ts.Tools(0)
	if err := ts.Close(); err != nil {
		t.Fatal(err)
	}
	if err := ts.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	waitClosed(t, ss)
	_, err := tools["up.add"].Func(context.Background(), lisp.NewMap())
	asError(t, err, mcp.KindClosed)
}

func TestConnectConfigErrors(t *testing.T) {
	tr, _ := mcpsdk.NewInMemoryTransports()
	for _, tc := range []struct {
		srv  []mcp.Server
		want string
	}{
		{[]mcp.Server{{Name: "", Transport: tr}}, "invalid name"},
		{[]mcp.Server{{Name: "g.h", Transport: tr}}, "invalid name"},
		{[]mcp.Server{{Name: "1x", Transport: tr}}, "invalid name"},
		{[]mcp.Server{{Name: "mcp", Transport: tr}}, "reserved"},
		{[]mcp.Server{{Name: "gh"}}, "exactly one of"},
		{[]mcp.Server{{Name: "gh", URL: "http://x", Command: []string{"x"}}}, "exactly one of"},
		{[]mcp.Server{{Name: "gh", Transport: tr}, {Name: "gh", Transport: tr}}, "two servers"},
		{[]mcp.Server{{Name: "gh", Transport: tr, Firewall: map[string][]string{"t": {"items"}}}}, "starts with /"},
		{[]mcp.Server{{Name: "gh", Transport: tr, Firewall: map[string][]string{"t": {""}}}}, "whole result"},
		{[]mcp.Server{{Name: "gh", Transport: tr, CallTimeout: -1}}, "negative"},
	} {
		_, err := mcp.Connect(context.Background(), tc.srv...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want %q", tc.srv, err, tc.want)
			continue
		}
		asError(t, err, mcp.KindConfig)
	}
}

func TestConnectFailureClosesTheOthers(t *testing.T) {
	ctx := context.Background()
	clientT, ss, err := upstream.InMemory(ctx, upstream.Options{}, false)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	_, err = mcp.Connect(ctx,
		mcp.Server{Name: "up", Transport: clientT},
		mcp.Server{Name: "broken", Command: []string{"/nonexistent/mcp-server-binary"}},
	)
	me := asError(t, err, mcp.KindConnect)
	if me.Server != "broken" || !strings.HasPrefix(err.Error(), "mcp server broken: cannot connect") {
		t.Errorf("error %v", err)
	}
	waitClosed(t, ss)
}

func TestConcurrentCalls(t *testing.T) {
	ts, _ := connectUp(t, upstream.Options{}, false, mcp.Server{})
	var wg sync.WaitGroup
	errs := make(chan error, 20)
	for i := range 20 {
		wg.Go(func() {
			v, err := call(t, ts, "up.add", map[string]any{"a": i, "b": 1})
			if err != nil {
				errs <- err
				return
			}
			if want := `{"sum" ` + lisp.Print(int64(i+1), lisp.PrintOptions{}) + "}"; lisp.Print(v, lisp.PrintOptions{}) != want {
				errs <- errors.New(lisp.Print(v, lisp.PrintOptions{}) + " != " + want)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestToolNamesSanitizedAndClashes(t *testing.T) {
	ctx := context.Background()
	srv := mcpsdk.NewServer(&mcpsdk.Implementation{Name: "odd", Version: "v1"}, nil)
	for _, name := range []string{"repo/list", "repo_list", "Get Issue"} {
		srv.AddTool(&mcpsdk.Tool{Name: name, Description: "D.", InputSchema: json.RawMessage(`{"type":"object"}`)},
			func(_ context.Context, req *mcpsdk.CallToolRequest) (*mcpsdk.CallToolResult, error) {
				return &mcpsdk.CallToolResult{Content: []mcpsdk.Content{&mcpsdk.TextContent{Text: req.Params.Name}}}, nil
			})
	}
	serverT, clientT := mcpsdk.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, serverT, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	ts, err := mcp.Connect(ctx, mcp.Server{Name: "odd", Transport: clientT})
	if err != nil {
		t.Fatal(err)
	}
	defer ts.Close()
	var got []string
	for _, in := range ts.Infos() {
		got = append(got, in.Name+"="+in.Tool+" "+strings.ReplaceAll(in.Description, "\n", " "))
	}
	want := []string{
		"odd.Get_Issue=Get Issue D. - MCP name Get Issue",
		"odd.repo_list=repo/list D. - MCP name repo/list",
		"odd.repo_list_2=repo_list D. - renamed odd.repo_list_2: its name clashes with another tool's",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Calls use the MCP names.
	for name, want := range map[string]string{"odd.repo_list": "repo/list", "odd.repo_list_2": "repo_list", "odd.Get_Issue": "Get Issue"} {
		if v, err := call(t, ts, name, nil); err != nil || v != want {
			t.Errorf("%s: %v %v", name, v, err)
		}
	}
}

// mustFromGo converts test data that converts (lisp.FromGo), failing the
// test otherwise.
func mustFromGo(tb testing.TB, x any) lisp.Value {
	tb.Helper()
	v, err := lisp.FromGo(x)
	if err != nil {
		tb.Fatal(err)
	}
	return v
}
